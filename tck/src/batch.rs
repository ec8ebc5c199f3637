//! Sibling rule tests run ahead, side by side.
//!
//! A rule test spends most of its time waiting (a no-signal window shows
//! absence only by waiting), and libtest runs only as many tests at once as
//! the machine has cores. So when a generated `#[test]` is the first of its
//! verification to start in a process that will run several of them, it
//! starts all of those (the ones libtest's filters select) on a pool of
//! its own, a few at a time across the whole process, and every test of
//! the verification then waits for its own result and concludes it on its
//! own thread, as before: the same bodies, the same watchdogs, the same
//! verdicts, their windows overlapping.
//!
//! Nothing is run ahead when only one test of the verification is selected
//! (`--exact`, as `cargo xtask tck` runs each rule test), when libtest was
//! asked for one thread (`--test-threads=1`, `RUST_TEST_THREADS=1`), or
//! with `RS_TCK_AHEAD=0`. Extended tests (their own long schedules) always
//! run on their own.

use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, LazyLock};

use parking_lot::{Condvar, Mutex};

use crate::outcome::RuleResult;
use crate::runner::{is_extended_rule, rule_of_test};

/// `RS_TCK_AHEAD=0` turns running ahead off; a number sets how many rule
/// tests run ahead at once in the whole process (default
/// [`DEFAULT_AHEAD`]).
pub const AHEAD_ENV: &str = "RS_TCK_AHEAD";

/// How many rule tests run ahead at once, process-wide, by default: the
/// engine's `run_all` parallelism of a publisher verification.
pub const DEFAULT_AHEAD: usize = 8;

/// What runs one rule test of a verification: the generated test's module
/// path and the test's name in, its result (or the configuration error's
/// text) out.
pub type RunTest = fn(&'static str, &'static str) -> Result<RuleResult, String>;

type Outcome = Result<RuleResult, String>;

/// One verification's tests run ahead: those still queued or running, and
/// the results as they come.
#[derive(Default)]
struct Batch {
    state: Mutex<BatchState>,
    ready: Condvar,
}

#[derive(Default)]
struct BatchState {
    pending: HashSet<&'static str>,
    results: HashMap<&'static str, Outcome>,
}

/// Rule tests waiting for a slot, oldest verification first, and how many
/// workers run them.
#[derive(Default)]
struct Pool {
    queue: VecDeque<Job>,
    workers: usize,
}

struct Job {
    module: &'static str,
    test: &'static str,
    run: RunTest,
    batch: Arc<Batch>,
}

static BATCHES: LazyLock<Mutex<HashMap<&'static str, Arc<Batch>>>> =
    LazyLock::new(Default::default);
static POOL: LazyLock<Mutex<Pool>> = LazyLock::new(Default::default);

/// Runs `test` of the verification whose tests are `siblings` (in module
/// `module`), ahead with its siblings when that helps, and returns its
/// result. Not API: the verification macros call it.
pub fn result_of(
    module: &'static str,
    test: &'static str,
    siblings: &'static [&'static str],
    run: RunTest,
) -> Outcome {
    let Some(ahead) = ahead_limit() else {
        return run(module, test);
    };
    if is_extended_rule(&rule_of_test(test)) {
        return run(module, test);
    }
    let batch = {
        let mut batches = BATCHES.lock();
        match batches.get(module) {
            Some(batch) => batch.clone(),
            None => {
                let selected = selected(module, siblings);
                if selected.len() < 2 || !selected.contains(&test) {
                    return run(module, test);
                }
                let batch = Arc::new(Batch::default());
                batch.state.lock().pending.extend(selected.iter().copied());
                batches.insert(module, batch.clone());
                enqueue(&batch, module, &selected, run, ahead);
                batch
            }
        }
    };
    let mut state = batch.state.lock();
    loop {
        if let Some(outcome) = state.results.remove(test) {
            return outcome;
        }
        if !state.pending.contains(test) {
            // Not selected after all (the filters read differently than
            // libtest does), or left by a worker that could not start.
            drop(state);
            return run(module, test);
        }
        batch.ready.wait(&mut state);
    }
}

fn enqueue(
    batch: &Arc<Batch>,
    module: &'static str,
    tests: &[&'static str],
    run: RunTest,
    ahead: usize,
) {
    let mut pool = POOL.lock();
    pool.queue.extend(tests.iter().map(|&test| Job {
        module,
        test,
        run,
        batch: batch.clone(),
    }));
    while pool.workers < ahead && pool.workers < pool.queue.len() {
        pool.workers += 1;
        let spawned = std::thread::Builder::new()
            .name(String::from("rs-tck-ahead"))
            .spawn(work);
        if spawned.is_err() {
            pool.workers -= 1;
            if pool.workers == 0 {
                // No worker at all: every queued test runs itself.
                for job in pool.queue.drain(..) {
                    job.batch.state.lock().pending.remove(job.test);
                    job.batch.ready.notify_all();
                }
            }
            break;
        }
    }
}

/// A worker: runs queued rule tests until the queue is empty.
fn work() {
    loop {
        let job = {
            let mut pool = POOL.lock();
            match pool.queue.pop_front() {
                Some(job) => job,
                None => {
                    pool.workers -= 1;
                    return;
                }
            }
        };
        // A factory that panics as it is made panics its own test, as it
        // would on libtest's thread, not the worker.
        let outcome = crate::context::quietly(|| {
            std::panic::catch_unwind(AssertUnwindSafe(|| (job.run)(job.module, job.test)))
        })
        .unwrap_or_else(|payload| Err(crate::context::panic_message(&*payload)));
        let mut state = job.batch.state.lock();
        state.pending.remove(job.test);
        state.results.insert(job.test, outcome);
        drop(state);
        job.batch.ready.notify_all();
    }
}

/// How many rule tests may run ahead at once, or `None` when they run one
/// by one on libtest's threads.
fn ahead_limit() -> Option<usize> {
    let limit = match std::env::var(AHEAD_ENV) {
        Ok(value) => value.trim().parse().unwrap_or(DEFAULT_AHEAD),
        Err(_) => DEFAULT_AHEAD,
    };
    let args = Args::of_process();
    (limit > 1 && args.threads != Some(1)).then_some(limit)
}

/// The siblings libtest will run in this process, by its filters.
fn selected(module: &str, siblings: &'static [&'static str]) -> Vec<&'static str> {
    let args = Args::of_process();
    // libtest names a test by its path without the crate.
    let path = module.split_once("::").map_or("", |(_, rest)| rest);
    siblings
        .iter()
        .copied()
        .filter(|test| args.selects(&format!("{path}::{test}")))
        .collect()
}

/// What of libtest's command line decides which tests run, and how many
/// at once.
#[derive(Debug, Default, PartialEq, Eq)]
struct Args {
    filters: Vec<String>,
    skips: Vec<String>,
    exact: bool,
    threads: Option<usize>,
    /// Only `#[ignore]`d tests run (never a generated one), or only a list
    /// is printed: nothing runs ahead.
    nothing: bool,
}

impl Args {
    fn of_process() -> Args {
        let mut args = Args::parse(std::env::args().skip(1));
        if args.threads.is_none() {
            args.threads = std::env::var("RUST_TEST_THREADS")
                .ok()
                .and_then(|n| n.trim().parse().ok());
        }
        args
    }

    fn parse(words: impl Iterator<Item = String>) -> Args {
        // libtest's options that take a value as the next word.
        const VALUED: &[&str] = &["--logfile", "--format", "--color", "-Z", "--shuffle-seed"];
        let mut args = Args::default();
        let mut words = words.peekable();
        while let Some(word) = words.next() {
            let (flag, inline) = match word.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => {
                    (flag.to_string(), Some(value.to_string()))
                }
                _ => (word.clone(), None),
            };
            let mut value = || inline.clone().or_else(|| words.next());
            match flag.as_str() {
                "--exact" => args.exact = true,
                "--skip" => args.skips.extend(value()),
                "--test-threads" => args.threads = value().and_then(|n| n.parse().ok()),
                "--ignored" | "--list" | "--bench" => args.nothing = true,
                f if VALUED.contains(&f) && inline.is_none() => {
                    let _ = words.next();
                }
                f if f.starts_with('-') => {}
                _ => args.filters.push(word),
            }
        }
        args
    }

    fn selects(&self, name: &str) -> bool {
        if self.nothing {
            return false;
        }
        let matches = |pattern: &String| {
            if self.exact {
                name == pattern
            } else {
                name.contains(pattern.as_str())
            }
        };
        (self.filters.is_empty() || self.filters.iter().any(matches))
            && !self.skips.iter().any(matches)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Args {
        Args::parse(line.split_whitespace().map(String::from))
    }

    #[test]
    fn filters_select_as_libtest_does() {
        let args = parse("range::publisher:: --skip spec_3_09 -q --color never");
        assert!(args.selects("range::publisher::spec_1_01"));
        assert!(!args.selects("range::publisher::spec_3_09"));
        assert!(!args.selects("other::publisher::spec_1_01"));
        let exact = parse("--exact range::publisher::spec_1_01 --nocapture --test-threads=1");
        assert!(exact.selects("range::publisher::spec_1_01"));
        assert!(!exact.selects("range::publisher::spec_1_0"));
        assert_eq!(exact.threads, Some(1));
        assert!(parse("").selects("anything"));
        assert!(!parse("--list").selects("anything"));
        assert_eq!(parse("--test-threads 4").threads, Some(4));
        assert_eq!(parse("--skip=a b").skips, vec!["a"]);
        assert_eq!(parse("--skip=a b").filters, vec!["b"]);
    }
}
