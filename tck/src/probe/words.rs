//! How messages and traces name an element: by its ordinal *and* its
//! value, never by one of them alone ("element 1" could be either).
//!
//! The ordinal is 1-based and counts the `on_next` signals one subscriber
//! received (or, for a sink or a stream, the items it was given), so
//! `#1` is the first; the value is the element's `Debug` text.

use std::fmt::{self, Debug};

/// An element as every message names it: `element #2 (value 1)`.
///
/// ```
/// use reactive_streams_tck::probe::show_element;
/// assert_eq!(show_element(2, &1u64), "element #2 (value 1)");
/// assert_eq!(show_element(1, &"a"), "element #1 (value \"a\")");
/// ```
pub fn show_element<T: Debug + ?Sized>(ordinal: u64, value: &T) -> String {
    format!("element {}", numbered(ordinal, value))
}

/// An `on_next` signal as every message and trace names it:
/// `on_next #2 (value 1)`.
///
/// ```
/// use reactive_streams_tck::probe::show_next;
/// assert_eq!(show_next(2, &1u64), "on_next #2 (value 1)");
/// ```
pub fn show_next<T: Debug + ?Sized>(ordinal: u64, value: &T) -> String {
    format!("on_next {}", numbered(ordinal, value))
}

/// `#2 (value 1)`: the part every name of an element shares (also a
/// Streamlet sink's `receive #2 (value 1)`).
pub(crate) fn numbered<T: Debug + ?Sized>(ordinal: u64, value: &T) -> String {
    format!("#{ordinal} (value {value:?})")
}

/// A value already rendered with `Debug`, shown as is: lets the probe
/// render an element once, before it knows the element's ordinal.
pub(crate) struct Rendered(pub(crate) String);

impl Debug for Rendered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_element_is_named_by_its_ordinal_and_its_value() {
        assert_eq!(show_element(1, &0u64), "element #1 (value 0)");
        assert_eq!(
            show_next(3, &u64::MAX),
            "on_next #3 (value 18446744073709551615)"
        );
        assert_eq!(
            show_next(4, &Rendered(String::from("7"))),
            "on_next #4 (value 7)"
        );
    }

    #[test]
    fn the_ordinal_and_the_value_never_read_alike() {
        // "element 1" was ambiguous; both numbers are now marked.
        let text = show_element(1, &1u8);
        assert!(text.contains("#1") && text.contains("value 1"), "{text}");
    }
}
