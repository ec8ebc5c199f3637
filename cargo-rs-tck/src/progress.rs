//! Progress on stderr while rule tests run: a bar on a terminal, plain
//! lines when stderr is not a terminal or `CI` is set (logs stay readable).

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};
use reactive_streams_tck::outcome::Verdict;

use super::run::Ran;

/// Where progress goes.
pub enum Progress {
    /// An indicatif bar; failures are printed above it as they happen.
    Bar(ProgressBar),
    /// One line per finished rule test.
    Lines {
        /// How many rule tests there are.
        total: usize,
        /// How many have finished.
        done: usize,
    },
}

impl Progress {
    /// Starts showing progress of `total` rule tests.
    pub fn start(total: usize, what: &str) -> Progress {
        let interactive = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        if interactive {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{bar:30}] {pos}/{len} {elapsed} {wide_msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_prefix(what.to_owned());
            // Keeps the elapsed time moving while a slow rule test runs.
            bar.enable_steady_tick(std::time::Duration::from_millis(250));
            Progress::Bar(bar)
        } else {
            eprintln!("{what}: running {total} rule tests");
            Progress::Lines { total, done: 0 }
        }
    }

    /// Shows that a rule test finished.
    pub fn finished(&mut self, ran: &Ran) {
        let verdict = worst(ran);
        let line = format!(
            "{:<7} {} ({})",
            verdict.as_str(),
            ran.planned.test.rule,
            ran.planned.test.path
        );
        match self {
            Progress::Bar(bar) => {
                if verdict == Verdict::Failed {
                    bar.println(format!(
                        "FAILED  {} ({})",
                        ran.planned.test.rule, ran.planned.test.path
                    ));
                }
                bar.set_message(line);
                bar.inc(1);
            }
            Progress::Lines { total, done } => {
                *done += 1;
                let width = total.to_string().len();
                eprintln!("[{done:>width$}/{total}] {line}");
            }
        }
    }

    /// Removes the bar (the report follows).
    pub fn finish(self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

/// The verdict a rule test process is shown with: failed if any of its
/// results failed or saw a MUST rule broken, warned if one only warned.
fn worst(ran: &Ran) -> Verdict {
    let verdicts = || ran.results.iter().map(|r| r.verdict);
    if ran.results.iter().any(|r| r.fails_run(false)) {
        Verdict::Failed
    } else if ran.results.iter().any(|r| !r.broken_rules().is_empty()) {
        Verdict::Warned
    } else {
        verdicts().next().unwrap_or(Verdict::Failed)
    }
}
