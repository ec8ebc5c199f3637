//! One entry of a baseline of known failures: a target's test (or rule)
//! that is known to fail, and why. Read by the baseline file's loader and
//! carried in the report, which renders it in every format.

use reactive_streams_tck::outcome::{RuleResult, Verification};
use serde::{Deserialize, Serialize};

use super::naming;

/// One known failure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The target, as the report names it.
    pub target: String,
    /// The verification (`publisher`, `stream` …), when the target has
    /// several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<String>,
    /// The rule test (`spec_3_09`): it stands for its rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<String>,
    /// The rule id (`3.9`), for a rule broken in another rule's test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Why it fails: a link to the upstream issue, a reproduction.
    pub reason: String,
}

impl Entry {
    /// The rule the entry lists (its test's rule when it names a test).
    pub fn rule_id(&self) -> String {
        match (&self.rule, &self.test) {
            (Some(rule), _) => rule.clone(),
            (None, Some(test)) => naming::rule_id(test).unwrap_or_default(),
            (None, None) => String::new(),
        }
    }

    /// Whether the entry lists this row.
    pub fn lists(&self, row: &RuleResult) -> bool {
        row.target == self.target
            && self
                .verification
                .as_deref()
                .is_none_or(|v| v == row.verification.as_str())
            && row.rule == self.rule_id()
    }

    /// `` `target` (verification) test spec_3_09 `` as a message names it.
    pub fn describe(&self) -> String {
        let verification = self
            .verification
            .as_deref()
            .map(|v| format!(" ({v})"))
            .unwrap_or_default();
        let what = match (&self.test, &self.rule) {
            (Some(test), _) => format!("test {test}"),
            (None, Some(rule)) => format!("rule {rule}"),
            (None, None) => String::new(),
        };
        format!("`{}`{verification} {what}", self.target)
    }

    pub(crate) fn check(&self, file: &str, index: usize) -> Result<(), String> {
        let at = format!("{file}: entry {} (`{}`)", index + 1, self.target);
        if self.target.trim().is_empty() {
            return Err(format!("{at}: `target` is empty"));
        }
        if self.reason.trim().is_empty() {
            return Err(format!(
                "{at}: `reason` is empty; say why it fails (a link to the upstream issue, a reproduction)"
            ));
        }
        if let Some(verification) = &self.verification {
            if verification_named(verification).is_none() {
                return Err(format!(
                    "{at}: `verification = \"{verification}\"` is not a verification (publisher, subscriber_blackbox, subscriber_whitebox, processor, streamlet_source, streamlet_sink, datum_lifecycle, stream, sink, stream_adapter)"
                ));
            }
        }
        match (&self.test, &self.rule) {
            (Some(_), Some(_)) | (None, None) => Err(format!(
                "{at}: give either `test` or `rule`, not both or neither"
            )),
            (Some(test), None) if naming::rule_id(test).is_none() => Err(format!(
                "{at}: `test = \"{test}\"` is not a rule test's name (spec_3_09, streamlet_2_c, stream_1, tck_…)"
            )),
            _ => Ok(()),
        }
    }
}

/// The verification a report names `name` (`publisher`, `stream` …).
pub(crate) fn verification_named(name: &str) -> Option<Verification> {
    serde_json::from_value(serde_json::Value::String(name.to_owned())).ok()
}
