//! What went wrong with a rule test process, in words: killed at its
//! deadline, aborted, overflowed its stack, panicked, or exited oddly.

use std::process::ExitStatus;
use std::time::Duration;

/// How a rule test process ended.
#[derive(Debug, Clone, Copy)]
pub enum Ending {
    /// It exited (or was killed by a signal) on its own.
    Exited(ExitStatus),
    /// We killed it when it ran past this deadline.
    Killed(Duration),
}

/// Why a rule test process did not end normally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What happened, for the report.
    pub message: String,
    /// An ordinary test failure (a panic, exit code 101): what a rule test
    /// does after writing a `failed` result.
    pub is_panic: bool,
}

impl Problem {
    /// The message for a rule test that wrote no result.
    pub fn without_result(self) -> String {
        if self.is_panic {
            // "the test panicked: …" → "the test panicked before it reported a result: …"
            if let Some((what, why)) = self.message.split_once(": ") {
                return format!("{what} before it reported a result: {why}");
            }
        }
        self.message
    }

    /// A problem that is not an ordinary panic.
    pub fn abnormal(message: String) -> Problem {
        Problem {
            message,
            is_panic: false,
        }
    }
}

/// The exit code libtest uses when a test failed (panicked).
const TEST_FAILED_CODE: i32 = 101;

/// How many of the last lines of stderr a message quotes.
const STDERR_TAIL: usize = 3;

/// `None` when the process exited successfully.
pub fn problem(ending: &Ending, stderr: &str) -> Option<Problem> {
    let status = match ending {
        Ending::Killed(deadline) => {
            let said = if stderr.trim().is_empty() {
                String::new()
            } else {
                format!("; {}", tail(stderr))
            };
            return Some(Problem::abnormal(format!(
                "the test process was killed after {} ms: it ran past its deadline (a deadlock or a lost signal?); if the test is merely slow, raise the deadline with --test-deadline-ms{said}",
                deadline.as_millis()
            )));
        }
        Ending::Exited(status) => status,
    };
    if status.success() {
        return None;
    }
    if stderr.contains("has overflowed its stack") {
        return Some(Problem::abnormal(
            "stack overflow: a thread of the test process overflowed its stack and the process aborted".to_owned(),
        ));
    }
    if let Some(signal) = signal_of(status) {
        let what = if signal == 6 {
            "aborted".to_owned()
        } else {
            "was killed".to_owned()
        };
        return Some(Problem::abnormal(format!(
            "the test process {what} (signal {signal}{}): {}",
            signal_name(signal)
                .map(|n| format!(", {n}"))
                .unwrap_or_default(),
            tail(stderr)
        )));
    }
    match status.code() {
        Some(TEST_FAILED_CODE) => Some(Problem {
            message: match panic_message(stderr) {
                Some(message) => format!("the test panicked: {message}"),
                None => format!("the test failed: {}", tail(stderr)),
            },
            is_panic: true,
        }),
        Some(code) => Some(Problem::abnormal(format!(
            "the test process exited with code {code}: {}",
            tail(stderr)
        ))),
        None => Some(Problem::abnormal(format!(
            "the test process ended abnormally ({status}): {}",
            tail(stderr)
        ))),
    }
}

/// The message for a process that started a rule test and exited with a
/// status of its own before the test reported (`std::process::exit` in the
/// code under test); `None` for a panic (libtest's status), a signal or a
/// kill, which [`problem`] explains.
pub fn exit_mid_test(ending: &Ending, stderr: &str) -> Option<String> {
    let Ending::Exited(status) = ending else {
        return None;
    };
    let code = status.code().filter(|code| *code != TEST_FAILED_CODE)?;
    if !status.success() && stderr.contains("has overflowed its stack") {
        return None;
    }
    let said = if stderr.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", tail(stderr))
    };
    Some(format!(
        "the process exited with status {code} in the middle of the test (the code under test called std::process::exit before the rule test reported a result){said}"
    ))
}

#[cfg(unix)]
fn signal_of(status: &ExitStatus) -> Option<i32> {
    use std::os::unix::process::ExitStatusExt;
    status.signal()
}

#[cfg(not(unix))]
fn signal_of(_status: &ExitStatus) -> Option<i32> {
    None
}

fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => return None,
    })
}

/// The last few non-empty lines of stderr, joined, or a note that there
/// were none.
fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    if lines.is_empty() {
        return "it printed nothing on stderr".to_owned();
    }
    let start = lines.len().saturating_sub(STDERR_TAIL);
    format!("last lines of stderr: {}", lines[start..].join(" / "))
}

/// The message of the first panic on stderr: the lines after
/// `thread '…' panicked at file:line:col:`, up to the `note:` line.
fn panic_message(stderr: &str) -> Option<String> {
    let mut lines = stderr.lines().skip_while(|l| !l.contains("panicked at"));
    let header = lines.next()?;
    // Older toolchains put the message on the header line itself.
    if let Some((_, inline)) = header.split_once("panicked at '") {
        return Some(
            inline
                .rsplit_once("', ")
                .map_or(inline, |(m, _)| m)
                .to_owned(),
        );
    }
    let message: Vec<&str> = lines
        .take_while(|l| !l.starts_with("note:") && !l.starts_with("stack backtrace:"))
        .collect();
    let message = message.join("\n").trim().to_owned();
    (!message.is_empty()).then_some(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_are_quoted_without_their_location() {
        let stderr = "\nthread 'range::publisher::tck_x' (4242) panicked at tests/rules.rs:10:5:\nfactory broke\nsecond line\nnote: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(
            panic_message(stderr).as_deref(),
            Some("factory broke\nsecond line")
        );
        assert_eq!(panic_message("no panic here"), None);
    }

    #[test]
    fn the_tail_keeps_the_last_three_lines() {
        assert_eq!(tail(""), "it printed nothing on stderr");
        assert_eq!(tail("a\n\nb\nc\nd\n"), "last lines of stderr: b / c / d");
    }

    #[test]
    fn a_panic_without_a_result_says_so() {
        let problem = Problem {
            message: "the test panicked: boom: twice".into(),
            is_panic: true,
        };
        assert_eq!(
            problem.without_result(),
            "the test panicked before it reported a result: boom: twice"
        );
    }

    #[test]
    fn deadlines_name_themselves() {
        let problem = problem(&Ending::Killed(Duration::from_millis(1500)), "").unwrap();
        assert!(
            problem
                .message
                .starts_with("the test process was killed after 1500 ms")
        );
        assert!(!problem.is_panic);
    }
}
