//! How much the extended verification explores, and from which seed.
//!
//! | setting | environment variable | default | what it sets |
//! |---|---|---|---|
//! | [`ExtendedConfig::cases`] | `RS_TCK_CASES` | 256 | generated schedules per publisher |
//! | [`ExtendedConfig::seed`] | `RS_TCK_SEED` | random | the seed schedules and stress amounts are drawn from; decimal or `0x…` hex |
//! | [`ExtendedConfig::stress_iterations`] | `RS_TCK_STRESS_ITERATIONS` | 40 | rounds of concurrent requests and cancels |
//! | [`ExtendedConfig::stress_threads`] | — | 4 | threads requesting at once in each stress iteration |
//! | [`ExtendedConfig::parallelism`] | — | 8 | schedules run at once (they mostly wait) |
//!
//! As with [`TestEnv`](crate::env::TestEnv), a value set on the builder wins
//! over the environment variable, which wins over the default. Every failure
//! names its seed; `RS_TCK_SEED=<seed> RS_TCK_CASES=1` replays the failing
//! schedule alone.
//!
//! ```
//! use reactive_streams_tck::ExtendedConfig;
//!
//! let config = ExtendedConfig::builder().cases(1000).seed(42).build();
//! assert_eq!(config.cases(), 1000);
//! assert_eq!(config.seed(), 42);
//! ```

use crate::env::ConfigError;

/// `RS_TCK_CASES`: generated schedules per publisher.
pub const CASES_ENV: &str = "RS_TCK_CASES";
/// `RS_TCK_SEED`: the seed to draw from (replays a printed failure).
pub const SEED_ENV: &str = "RS_TCK_SEED";
/// `RS_TCK_STRESS_ITERATIONS`: rounds of the concurrency stress.
pub const STRESS_ITERATIONS_ENV: &str = "RS_TCK_STRESS_ITERATIONS";

const DEFAULT_CASES: u64 = 256;
const DEFAULT_STRESS_ITERATIONS: u64 = 40;
const DEFAULT_STRESS_THREADS: usize = 4;
const DEFAULT_PARALLELISM: usize = 8;

/// The budget and seed of an extended verification. Cheap to copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtendedConfig {
    cases: u64,
    seed: u64,
    stress_iterations: u64,
    stress_threads: usize,
    parallelism: usize,
}

crate::env::settings_from_env! {
    ExtendedConfig, ExtendedConfigBuilder, ConfigError;
    /// Generated schedules per publisher.
    cases: u64,
    /// The seed to draw from; fix it for reproducible runs.
    seed: u64,
    /// Rounds of the concurrency stress.
    stress_iterations: u64,
}

impl ExtendedConfig {
    /// Generated schedules per publisher (`RS_TCK_CASES`).
    pub fn cases(&self) -> u64 {
        self.cases
    }

    /// The seed everything is drawn from (`RS_TCK_SEED`).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Rounds of the concurrency stress (`RS_TCK_STRESS_ITERATIONS`).
    pub fn stress_iterations(&self) -> u64 {
        self.stress_iterations
    }

    /// Threads requesting at once in each stress iteration.
    pub fn stress_threads(&self) -> usize {
        self.stress_threads
    }

    /// Schedules run at once.
    pub fn parallelism(&self) -> usize {
        self.parallelism
    }
}

/// Builds an [`ExtendedConfig`]; values set here override the environment.
#[derive(Debug, Clone, Default)]
pub struct ExtendedConfigBuilder {
    cases: Option<u64>,
    seed: Option<u64>,
    stress_iterations: Option<u64>,
    stress_threads: Option<usize>,
    parallelism: Option<usize>,
}

impl ExtendedConfigBuilder {
    /// Threads requesting at once in each stress iteration (at least 2).
    pub fn stress_threads(mut self, threads: usize) -> Self {
        self.stress_threads = Some(threads.max(2));
        self
    }

    /// Schedules run at once (at least 1).
    pub fn parallelism(mut self, schedules_at_once: usize) -> Self {
        self.parallelism = Some(schedules_at_once.max(1));
        self
    }

    /// The configuration, or the variable that could not be read.
    pub fn try_build(self) -> Result<ExtendedConfig, ConfigError> {
        let cases = match self.cases {
            Some(cases) => cases,
            None => read(CASES_ENV, parse_count)?.unwrap_or(DEFAULT_CASES),
        };
        let stress_iterations = match self.stress_iterations {
            Some(iterations) => iterations,
            None => read(STRESS_ITERATIONS_ENV, parse_count)?.unwrap_or(DEFAULT_STRESS_ITERATIONS),
        };
        let seed = match self.seed {
            Some(seed) => seed,
            None => read(SEED_ENV, parse_seed)?.unwrap_or_else(fresh_seed),
        };
        Ok(ExtendedConfig {
            cases,
            seed,
            stress_iterations,
            stress_threads: self.stress_threads.unwrap_or(DEFAULT_STRESS_THREADS),
            parallelism: self.parallelism.unwrap_or(DEFAULT_PARALLELISM),
        })
    }
}

/// `0x2a`-style text for a seed, as failures print it and `RS_TCK_SEED`
/// reads it back.
pub fn show_seed(seed: u64) -> String {
    format!("{seed:#x}")
}

/// Reads a seed: decimal, or hex with a `0x` prefix.
pub fn parse_seed(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

fn parse_count(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// A seed nobody chose: runs without `RS_TCK_SEED` explore different
/// schedules each time, and print the seed when they fail.
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.write_u32(std::process::id());
    hasher.finish()
}

fn read(var: &'static str, parse: fn(&str) -> Option<u64>) -> Result<Option<u64>, ConfigError> {
    match std::env::var(var) {
        Ok(text) if text.trim().is_empty() => Ok(None),
        Ok(text) => parse(&text)
            .map(Some)
            .ok_or(ConfigError::BadVariable { var, value: text }),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(value)) => Err(ConfigError::BadVariable {
            var,
            value: value.to_string_lossy().into_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_values_win() {
        let config = ExtendedConfig::builder()
            .cases(3)
            .seed(7)
            .stress_iterations(2)
            .stress_threads(1)
            .parallelism(0)
            .build();
        assert_eq!(
            (config.cases(), config.seed(), config.stress_iterations()),
            (3, 7, 2)
        );
        assert_eq!((config.stress_threads(), config.parallelism()), (2, 1));
    }

    #[test]
    fn seeds_print_and_parse_back() {
        assert_eq!(parse_seed(&show_seed(0xdead_beef)), Some(0xdead_beef));
        assert_eq!(parse_seed(" 17 "), Some(17));
        assert_eq!(parse_seed("0x2a"), Some(42));
        assert_eq!(parse_seed("42"), Some(42));
        assert_eq!(parse_seed("forty-two"), None);
        assert_eq!(parse_seed("0xZZ"), None);
    }

    #[test]
    fn bad_variables_say_what_they_want() {
        let seed = ConfigError::BadVariable {
            var: SEED_ENV,
            value: "x".into(),
        };
        assert_eq!(
            seed.to_string(),
            "RS_TCK_SEED=\"x\" is not a seed (a number, decimal or 0x-hex, e.g. RS_TCK_SEED=0x2a)"
        );
        let cases = ConfigError::BadVariable {
            var: CASES_ENV,
            value: "many".into(),
        };
        assert_eq!(
            cases.to_string(),
            "RS_TCK_CASES=\"many\" is not a number (e.g. RS_TCK_CASES=1000)"
        );
    }
}
