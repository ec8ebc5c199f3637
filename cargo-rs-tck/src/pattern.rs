//! `--rules PATTERN`: which rule ids to verify.
//!
//! A pattern is a comma-separated list of globs over rule ids, where `*`
//! matches any run of characters (dots included) and everything else
//! matches itself. A glob selects an id it matches, and every condition
//! under an id it matches: `3.9` selects `3.9` only (not `3.90`), `3.*`
//! selects all of §3, `streamlet.2` selects `streamlet.2.a` … `streamlet.2.e`,
//! `tck.*` selects the checks of the factory, `1.*,3.9` selects §1 and 3.9.
//! A leading `§` is ignored, so `§3.9` works too.

use std::fmt;

/// A parsed `--rules` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulePattern {
    text: String,
    globs: Vec<String>,
}

impl RulePattern {
    /// Parses a pattern; an empty pattern (or an empty glob) is an error.
    pub fn parse(text: &str) -> Result<RulePattern, String> {
        let globs: Vec<String> = text
            .split(',')
            .map(|glob| glob.trim().trim_start_matches('§').to_owned())
            .collect();
        if globs.iter().any(String::is_empty) {
            return Err(format!(
                "the rule pattern '{text}' has an empty part; write ids or globs separated by commas, e.g. '1.*,3.9'"
            ));
        }
        Ok(RulePattern {
            text: text.to_owned(),
            globs,
        })
    }

    /// Whether the pattern selects this rule (or condition) id.
    pub fn matches(&self, id: &str) -> bool {
        self.globs.iter().any(|glob| {
            glob_matches(glob.as_bytes(), id.as_bytes())
                || id
                    .rmatch_indices('.')
                    .any(|(dot, _)| glob_matches(glob.as_bytes(), &id.as_bytes()[..dot]))
        })
    }
}

impl fmt::Display for RulePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `*` matches any run of bytes; everything else matches itself.
fn glob_matches(glob: &[u8], text: &[u8]) -> bool {
    match glob.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|skip| glob_matches(rest, &text[skip..])),
        Some((first, rest)) => text.first() == Some(first) && glob_matches(rest, &text[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn selects(pattern: &str, id: &str) -> bool {
        RulePattern::parse(pattern).unwrap().matches(id)
    }

    #[test]
    fn an_exact_id_selects_itself_and_its_conditions_only() {
        assert!(selects("3.9", "3.9"));
        assert!(!selects("3.9", "3.90"));
        assert!(!selects("1.1", "1.10"));
        assert!(selects("streamlet.2", "streamlet.2.c"));
        assert!(!selects("streamlet.2", "streamlet.20"));
        assert!(selects("§3.9", "3.9"));
    }

    #[test]
    fn stars_and_lists_select_groups() {
        assert!(selects("3.*", "3.17"));
        assert!(!selects("3.*", "1.3"));
        assert!(selects("tck.*", "tck.factory_makes_fresh_publishers"));
        assert!(selects("1.*, 3.9", "3.9"));
        assert!(selects("*", "streamlet.6.e"));
        assert!(selects("streamlet.*.a", "streamlet.4.a"));
    }

    #[test]
    fn empty_parts_are_rejected() {
        assert!(RulePattern::parse("").is_err());
        assert!(RulePattern::parse("3.9,").is_err());
    }
}
