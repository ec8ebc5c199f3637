//! The test environment: how long the TCK waits, and for what.
//!
//! Every rule test waits in exactly five ways, each with its own bound:
//!
//! | setting | environment variable | default | what it bounds |
//! |---|---|---|---|
//! | [`TestEnv::timeout`] | `RS_TCK_TIMEOUT_MS` | 1000 ms | waiting for a signal that must come (an `on_next`, a terminal signal, the subscriber being dropped) |
//! | [`TestEnv::no_signal_timeout`] | `RS_TCK_NO_SIGNAL_MS` | 15 ms | showing that a signal does *not* come; this window dominates the run time, so it is short |
//! | [`TestEnv::watchdog`] | `RS_TCK_WATCHDOG_MS` | 5000 ms | one whole rule test; past it the rule fails with "watchdog: …" and names the call that never returned. While signals are still arriving, a call into the code under test returns, or one that began less than four fifths of a watchdog ago is still running, the wait goes on, up to 3 watchdogs (`runner::WATCHDOG_PROGRESS_CAP`): slow progress is not a hang |
//! | [`TestEnv::prompt`] | `RS_TCK_PROMPT_MS` | 250 ms | how long `request` and `cancel` may take to return (§3.4, §3.5) |
//! | [`TestEnv::idle`] | `RS_TCK_IDLE_MS` | 100 ms | the longer quiet window of one scenario per verification: a subscription without demand that nobody touches gets nothing (§1.1); watched beside the test's other scenarios, so it rarely lengthens the test |
//!
//! Precedence: a value set on the [`TestEnvBuilder`] wins over the
//! environment variable, which wins over the default. `cargo xtask tck
//! --timeout-ms N --no-signal-ms N` sets the first two variables.
//!
//! The TCK never asserts that something happens *within* the short
//! no-signal window; it only asserts absence after that window, and presence
//! within the long [`TestEnv::timeout`]. A loaded machine therefore makes the
//! TCK slower, never flaky.
//!
//! ```
//! use std::time::Duration;
//! use reactive_streams_tck::env::TestEnv;
//!
//! let env = TestEnv::builder()
//!     .timeout(Duration::from_millis(500))
//!     .no_signal_timeout(Duration::from_millis(10))
//!     .build();
//! assert_eq!(env.timeout(), Duration::from_millis(500));
//! assert_eq!(env.no_signal_timeout(), Duration::from_millis(10));
//! ```

use std::fmt;
use std::time::Duration;

use crate::explore::config::{CASES_ENV, SEED_ENV, STRESS_ITERATIONS_ENV};

/// `RS_TCK_TIMEOUT_MS`: how long to wait for a signal that must come.
pub const TIMEOUT_ENV: &str = "RS_TCK_TIMEOUT_MS";
/// `RS_TCK_NO_SIGNAL_MS`: how long to wait to show that no signal comes.
pub const NO_SIGNAL_ENV: &str = "RS_TCK_NO_SIGNAL_MS";
/// `RS_TCK_WATCHDOG_MS`: the bound on one whole rule test.
pub const WATCHDOG_ENV: &str = "RS_TCK_WATCHDOG_MS";
/// `RS_TCK_PROMPT_MS`: how long `request` and `cancel` may take (§3.4, §3.5).
pub const PROMPT_ENV: &str = "RS_TCK_PROMPT_MS";
/// `RS_TCK_IDLE_MS`: how long an untouched subscription without demand is
/// watched for unsolicited elements.
pub const IDLE_ENV: &str = "RS_TCK_IDLE_MS";

const DEFAULT_TIMEOUT_MS: u64 = 1000;
const DEFAULT_NO_SIGNAL_MS: u64 = 15;
const DEFAULT_WATCHDOG_MS: u64 = 5000;
const DEFAULT_PROMPT_MS: u64 = 250;
const DEFAULT_IDLE_MS: u64 = 100;

/// The timing bounds of a verification. Cheap to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TestEnv {
    timeout: Duration,
    no_signal_timeout: Duration,
    watchdog: Duration,
    prompt: Duration,
    idle: Duration,
}

/// What settings read from `RS_TCK_*` variables offer: `from_env`,
/// `try_from_env` and `builder` on `$settings`, and the panicking `build`
/// of its `$builder`, whose `try_build` fails with `$error`; then a setter
/// on the builder for each `field: Type` listed (the value is taken as
/// given).
macro_rules! settings_from_env {
    ($settings:ident, $builder:ident, $error:ty; $($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        impl $settings {
            /// Defaults overridden by the environment variables.
            ///
            /// # Panics
            ///
            /// If a variable is set but cannot be read; see
            #[doc = concat!("[`", stringify!($settings), "::try_from_env`] for the non-panicking form.")]
            pub fn from_env() -> $settings {
                $settings::builder().build()
            }

            /// Defaults overridden by the environment variables, or the
            /// variable that could not be read.
            pub fn try_from_env() -> Result<$settings, $error> {
                $settings::builder().try_build()
            }

            /// A builder whose unset values come from the environment, then
            /// the defaults.
            pub fn builder() -> $builder {
                $builder::default()
            }
        }

        impl $builder {
            $(
                $(#[$doc])*
                pub fn $field(mut self, $field: $ty) -> Self {
                    self.$field = Some($field);
                    self
                }
            )*

            /// The values set here, the others from the environment, then
            /// the defaults; panics on an unreadable variable.
            ///
            /// # Panics
            ///
            /// If a variable the builder did not override is set but cannot
            /// be read.
            pub fn build(self) -> $settings {
                match self.try_build() {
                    Ok(settings) => settings,
                    Err(error) => panic!("{error}"),
                }
            }
        }
    };
}
pub(crate) use settings_from_env;

settings_from_env! {
    TestEnv, TestEnvBuilder, ConfigError;
    /// How long to wait for a signal that must come.
    timeout: Duration,
    /// How long to wait to show that no signal comes.
    no_signal_timeout: Duration,
    /// The bound on one whole rule test.
    watchdog: Duration,
    /// How long `request` and `cancel` may take to return.
    prompt: Duration,
    /// How long an untouched subscription without demand is watched.
    idle: Duration,
}

impl TestEnv {
    /// How long to wait for a signal that must come (`RS_TCK_TIMEOUT_MS`).
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// How long to wait to show that no signal comes (`RS_TCK_NO_SIGNAL_MS`).
    pub fn no_signal_timeout(&self) -> Duration {
        self.no_signal_timeout
    }

    /// The bound on one whole rule test (`RS_TCK_WATCHDOG_MS`).
    pub fn watchdog(&self) -> Duration {
        self.watchdog
    }

    /// How long `request` and `cancel` may take to return (`RS_TCK_PROMPT_MS`).
    pub fn prompt(&self) -> Duration {
        self.prompt
    }

    /// How long an untouched subscription without demand is watched for
    /// unsolicited elements (`RS_TCK_IDLE_MS`).
    pub fn idle(&self) -> Duration {
        self.idle
    }
}

impl Default for TestEnv {
    /// The built-in defaults, ignoring the environment.
    fn default() -> Self {
        TestEnv {
            timeout: Duration::from_millis(DEFAULT_TIMEOUT_MS),
            no_signal_timeout: Duration::from_millis(DEFAULT_NO_SIGNAL_MS),
            watchdog: Duration::from_millis(DEFAULT_WATCHDOG_MS),
            prompt: Duration::from_millis(DEFAULT_PROMPT_MS),
            idle: Duration::from_millis(DEFAULT_IDLE_MS),
        }
    }
}

/// Builds a [`TestEnv`]; values set here override the environment.
#[derive(Debug, Clone, Default)]
pub struct TestEnvBuilder {
    timeout: Option<Duration>,
    no_signal_timeout: Option<Duration>,
    watchdog: Option<Duration>,
    prompt: Option<Duration>,
    idle: Option<Duration>,
}

impl TestEnvBuilder {
    /// The environment, or the variable that could not be read.
    pub fn try_build(self) -> Result<TestEnv, ConfigError> {
        self.try_build_with(|var| std::env::var_os(var))
    }

    /// [`TestEnvBuilder::try_build`] reading variables through `lookup`
    /// (tests use it to leave the process environment alone).
    fn try_build_with(
        self,
        lookup: impl Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Result<TestEnv, ConfigError> {
        let defaults = TestEnv::default();
        let pick = |set: Option<Duration>, var: &'static str, default: Duration| match set {
            Some(value) => Ok(value),
            None => Ok(read_millis(var, lookup(var))?.unwrap_or(default)),
        };
        Ok(TestEnv {
            timeout: pick(self.timeout, TIMEOUT_ENV, defaults.timeout)?,
            no_signal_timeout: pick(
                self.no_signal_timeout,
                NO_SIGNAL_ENV,
                defaults.no_signal_timeout,
            )?,
            watchdog: pick(self.watchdog, WATCHDOG_ENV, defaults.watchdog)?,
            prompt: pick(self.prompt, PROMPT_ENV, defaults.prompt)?,
            idle: pick(self.idle, IDLE_ENV, defaults.idle)?,
        })
    }
}

fn read_millis(
    var: &'static str,
    value: Option<std::ffi::OsString>,
) -> Result<Option<Duration>, ConfigError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let text = value.to_string_lossy();
    if text.trim().is_empty() {
        return Ok(None);
    }
    text.trim()
        .parse::<u64>()
        .map(|ms| Some(Duration::from_millis(ms)))
        .map_err(|_| ConfigError::BadVariable {
            var,
            value: text.into_owned(),
        })
}

/// A verification that cannot run as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// An environment variable is set but cannot be read: not a number of
    /// milliseconds (`RS_TCK_TIMEOUT_MS` …), not a number (`RS_TCK_CASES`,
    /// `RS_TCK_STRESS_ITERATIONS`) or not a seed (`RS_TCK_SEED`).
    BadVariable {
        /// The variable.
        var: &'static str,
        /// What it holds.
        value: String,
    },
    /// The factory's declarations make every rule test skip, so a green run
    /// would prove nothing.
    EverythingSkipped {
        /// The skip reasons, one per rule test.
        reasons: Vec<String>,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::BadVariable { var, value } if *var == SEED_ENV => write!(
                f,
                "{var}={value:?} is not a seed (a number, decimal or 0x-hex, e.g. {var}=0x2a)"
            ),
            ConfigError::BadVariable { var, value } if COUNT_VARS.contains(var) => {
                write!(f, "{var}={value:?} is not a number (e.g. {var}=1000)")
            }
            ConfigError::BadVariable { var, value } => write!(
                f,
                "{var}={value:?} is not a number of milliseconds (e.g. {var}=500)"
            ),
            ConfigError::EverythingSkipped { reasons } => {
                write!(
                    f,
                    "every rule test would be skipped, so the verification would prove nothing:"
                )?;
                for reason in reasons {
                    write!(f, "\n  - {reason}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ConfigError {}

/// The variables holding a count, not milliseconds.
const COUNT_VARS: &[&str] = &[CASES_ENV, STRESS_ITERATIONS_ENV];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_values_win_over_defaults() {
        let env = TestEnv::builder()
            .watchdog(Duration::from_millis(7))
            .prompt(Duration::from_millis(3))
            .build();
        assert_eq!(env.watchdog(), Duration::from_millis(7));
        assert_eq!(env.prompt(), Duration::from_millis(3));
    }

    fn lookup(
        pairs: &'static [(&'static str, &'static str)],
    ) -> impl Fn(&str) -> Option<std::ffi::OsString> {
        move |var| {
            pairs
                .iter()
                .find(|(name, _)| *name == var)
                .map(|(_, value)| value.into())
        }
    }

    #[test]
    fn builder_beats_variable_beats_default() {
        let env = TestEnv::builder()
            .timeout(Duration::from_millis(11))
            .try_build_with(lookup(&[(TIMEOUT_ENV, "22"), (NO_SIGNAL_ENV, "33")]))
            .unwrap();
        assert_eq!(env.timeout(), Duration::from_millis(11));
        assert_eq!(env.no_signal_timeout(), Duration::from_millis(33));
        assert_eq!(env.watchdog(), TestEnv::default().watchdog());
        assert_eq!(env.prompt(), TestEnv::default().prompt());
    }

    #[test]
    fn a_bad_variable_is_a_config_error() {
        let error = TestEnv::builder()
            .try_build_with(lookup(&[(WATCHDOG_ENV, "12x")]))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "RS_TCK_WATCHDOG_MS=\"12x\" is not a number of milliseconds (e.g. RS_TCK_WATCHDOG_MS=500)"
        );
    }
}
