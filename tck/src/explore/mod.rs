//! Exploring generated cases: draw them from a seed, run them a few at a
//! time, shrink the first failure to a minimal one, and say how to replay
//! it.
//!
//! Case `i` of seed `s` is drawn from its own seed `s + i·φ` (φ the 64-bit
//! golden ratio), so every case can be replayed alone:
//! `RS_TCK_SEED=<case seed> RS_TCK_CASES=1` makes it case 0. Cases run
//! [`ExtendedConfig::parallelism`] at a time, in index order, and the
//! failure reported is the one with the lowest index — the same one
//! whatever the timing, for a deterministic implementation.
//!
//! Every case runs through [`run_rule`](crate::runner::run_rule), so a
//! panic or a hang in one case fails that case with the usual message
//! (a hang after the usual watchdog), and never the exploration.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

mod case;
pub mod config;
mod run;

pub(crate) use case::{SCHEDULES_RULE, judge_case};

pub(crate) use run::{
    StressPlans, exploration, explore_cases, scripted, stress_rounds, stressed, whole_run,
};

use crate::context::{Failure, Outcome, RuleBody, RuleCx};
use crate::outcome::{RuleResult, Verdict};
use config::{CASES_ENV, ExtendedConfig, SEED_ENV, show_seed};

/// The most runs spent shrinking one failure.
pub const MAX_SHRINK_RUNS: u64 = 400;
/// The most time spent shrinking one failure; past it the smallest failing
/// case so far is reported, saying so.
pub const MAX_SHRINK_TIME: Duration = Duration::from_secs(60);

/// A generated case that can print itself as a script, one line per step.
pub trait Scripted: Clone + std::fmt::Debug + Send + Sync + 'static {
    /// The lines of the script.
    fn script(&self) -> Vec<String>;
}

/// The seed case `index` of `seed` is drawn from.
pub fn case_seed(seed: u64, index: u64) -> u64 {
    seed.wrapping_add(index.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// A deterministic proptest runner for one case seed.
fn runner_for(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    let mut state = seed;
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// One step of the SplitMix64 generator: small, fast, and good enough to
/// spread a seed.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn tree_for<S: Strategy>(strategy: &S, seed: u64) -> S::Tree {
    match strategy.new_tree(&mut runner_for(seed)) {
        Ok(tree) => tree,
        // The strategies here never reject; a rejection is a TCK bug.
        Err(reason) => panic!("rs-tck: cannot generate a case: {reason}"),
    }
}

struct Found<V> {
    index: u64,
    case: V,
    result: RuleResult,
}

/// Runs `config.cases()` cases drawn from `strategy` through `run_case`;
/// on failure, shrinks the first one and fails the rule with the minimal
/// script, the failure, the seed and how to replay it (the minimal run's
/// trace goes into `cx`'s trace). `what` names the cases ("schedule").
pub fn explore<S, R>(
    cx: &RuleCx,
    config: &ExtendedConfig,
    what: &str,
    strategy: S,
    run_case: R,
) -> RuleBody
where
    S: Strategy + Sync,
    S::Value: Scripted,
    R: Fn(&S::Value) -> RuleResult + Sync,
{
    let seed = config.seed();
    let cases = config.cases();
    cx.trace(format!(
        "exploring {cases} {what}s from seed {} ({CASES_ENV}, {SEED_ENV})",
        show_seed(seed)
    ));
    let Some(first) = first_failure(config, &strategy, &run_case) else {
        cx.trace(format!("all {cases} {what}s passed"));
        return Ok(Outcome::Passed);
    };
    let original = first.case.script().len();
    let shrunk = shrink(&strategy, &run_case, case_seed(seed, first.index), first);
    for event in &shrunk.found.result.trace {
        cx.trace(format!("[{}] {}", event.thread, event.event));
    }
    let script = shrunk.found.case.script();
    let how = if shrunk.truncated {
        format!(
            "shrinking stopped after {} runs; this is the smallest failing {what} found",
            shrunk.runs
        )
    } else {
        format!(
            "shrunk from {original} to {} lines in {} runs",
            script.len(),
            shrunk.runs
        )
    };
    let case_seed = show_seed(case_seed(seed, shrunk.found.index));
    Err(Failure::new(
        cx.rule(),
        format!("every generated {what} to pass"),
        format!(
            "{} → {}\n({what} {} of {cases}, seed {}, {how}; replay it alone with {SEED_ENV}={case_seed} {CASES_ENV}=1)",
            script.join("; "),
            shrunk
                .found
                .result
                .message
                .as_deref()
                .unwrap_or("(no message)"),
            shrunk.found.index + 1,
            show_seed(seed),
        ),
    ))
}

/// Runs the cases `parallelism` at a time in index order; the failure with
/// the lowest index, if any. Cases above a known failure are not started.
fn first_failure<S, R>(
    config: &ExtendedConfig,
    strategy: &S,
    run_case: &R,
) -> Option<Found<S::Value>>
where
    S: Strategy + Sync,
    S::Value: Scripted,
    R: Fn(&S::Value) -> RuleResult + Sync,
{
    let next = AtomicU64::new(0);
    let lowest = AtomicU64::new(u64::MAX);
    let found: Mutex<Vec<Found<S::Value>>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..config.parallelism().min(config.cases().max(1) as usize) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= config.cases() || index > lowest.load(Ordering::SeqCst) {
                        break;
                    }
                    let case = tree_for(strategy, case_seed(config.seed(), index)).current();
                    let result = run_case(&case);
                    if result.verdict == Verdict::Failed {
                        lowest.fetch_min(index, Ordering::SeqCst);
                        found.lock().push(Found {
                            index,
                            case,
                            result,
                        });
                    }
                }
            });
        }
    });
    found.into_inner().into_iter().min_by_key(|f| f.index)
}

struct Shrunk<V> {
    found: Found<V>,
    runs: u64,
    truncated: bool,
}

/// Proptest's shrinking loop: simplify while the case still fails,
/// complicate back when a simplification passes.
fn shrink<S, R>(strategy: &S, run_case: &R, seed: u64, first: Found<S::Value>) -> Shrunk<S::Value>
where
    S: Strategy,
    S::Value: Scripted,
    R: Fn(&S::Value) -> RuleResult,
{
    let mut tree = tree_for(strategy, seed);
    let index = first.index;
    let mut best = first;
    let started = Instant::now();
    let mut runs = 0;
    let mut truncated = false;
    if tree.simplify() {
        loop {
            if runs >= MAX_SHRINK_RUNS || started.elapsed() > MAX_SHRINK_TIME {
                truncated = true;
                break;
            }
            runs += 1;
            let case = tree.current();
            let result = run_case(&case);
            if result.verdict == Verdict::Failed {
                best = Found {
                    index,
                    case,
                    result,
                };
                if !tree.simplify() {
                    break;
                }
            } else if !tree.complicate() {
                break;
            }
        }
    }
    Shrunk {
        found: best,
        runs,
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::TestEnv;
    use crate::outcome::Verification;
    use crate::runner::{RuleMeta, run_rule};

    #[derive(Debug, Clone)]
    struct Numbers(Vec<u64>);

    impl Scripted for Numbers {
        fn script(&self) -> Vec<String> {
            self.0.iter().map(u64::to_string).collect()
        }
    }

    fn meta() -> RuleMeta {
        RuleMeta::new(
            Verification::Publisher,
            "t",
            "tck.extended_demo",
            "tck_extended_demo",
        )
    }

    /// Fails when the numbers add up to 10 or more.
    fn run_numbers(numbers: &Numbers) -> RuleResult {
        let sum: u64 = numbers.0.iter().sum();
        run_rule(&meta(), &TestEnv::default(), move |cx| {
            if sum >= 10 {
                Err(cx.failure("a sum below 10", format!("{sum}")))
            } else {
                Ok(Outcome::Passed)
            }
        })
    }

    #[test]
    fn failures_shrink_to_a_minimal_script_and_name_their_seed() {
        let config = ExtendedConfig::builder().cases(200).seed(1).build();
        let strategy = proptest::collection::vec(0u64..=9, 0..=6).prop_map(Numbers);
        let cx = RuleCx::new("tck.extended_demo", "tck_extended_demo", TestEnv::default());
        let failure = explore(&cx, &config, "list", strategy, run_numbers).unwrap_err();
        let (script, rest) = failure.actual.split_once(" → ").unwrap();
        let sum: u64 = script.split("; ").map(|n| n.parse::<u64>().unwrap()).sum();
        assert_eq!(sum, 10, "{}", failure.actual);
        assert!(
            rest.contains("replay it alone with RS_TCK_SEED=0x"),
            "{rest}"
        );
    }

    #[test]
    fn a_printed_case_seed_replays_the_case_as_case_zero() {
        let strategy = proptest::collection::vec(0u64..=9, 0..=6);
        let ninth = tree_for(&strategy, case_seed(7, 9)).current();
        let replayed = tree_for(&strategy, case_seed(case_seed(7, 9), 0)).current();
        assert_eq!(ninth, replayed);
    }

    #[test]
    fn passing_cases_pass_the_rule() {
        let config = ExtendedConfig::builder().cases(20).seed(3).build();
        let strategy = proptest::collection::vec(0u64..=1, 0..=3).prop_map(Numbers);
        let cx = RuleCx::new("tck.extended_demo", "tck_extended_demo", TestEnv::default());
        assert_eq!(
            explore(&cx, &config, "list", strategy, run_numbers),
            Ok(Outcome::Passed)
        );
    }
}
