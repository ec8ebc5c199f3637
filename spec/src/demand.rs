//! Demand arithmetic (§3.8, §3.17).
//!
//! Demand is a `u64`. Any demand of at least [`EFFECTIVELY_UNBOUNDED`]
//! (2^63−1, the JVM's `Long.MAX_VALUE`) is *unbounded*: the publisher may emit
//! without counting. Pending demand is added with [`add`], which never
//! overflows and turns every total of 2^63−1 or more into [`UNBOUNDED`], so
//! an unbounded number of `request` calls is supported (§3.17).
//!
//! ```
//! use reactive_streams::demand;
//!
//! assert_eq!(demand::add(3, 4), 7);
//! assert_eq!(demand::add(i64::MAX as u64 - 1, 1), demand::UNBOUNDED);
//! assert_eq!(demand::add(u64::MAX, u64::MAX), demand::UNBOUNDED);
//! assert!(demand::is_unbounded(demand::UNBOUNDED));
//! assert_eq!(demand::fulfil(demand::UNBOUNDED, 10), demand::UNBOUNDED);
//! assert_eq!(demand::fulfil(10, 3), 7);
//! ```

/// The demand a subscriber passes to ask for everything: `u64::MAX`.
pub const UNBOUNDED: u64 = u64::MAX;

/// The smallest demand treated as unbounded: 2^63−1 (§3.17).
pub const EFFECTIVELY_UNBOUNDED: u64 = i64::MAX as u64;

/// Whether `demand` means "emit without counting".
pub const fn is_unbounded(demand: u64) -> bool {
    demand >= EFFECTIVELY_UNBOUNDED
}

/// Adds `n` to the `pending` demand without overflow; unbounded totals
/// become [`UNBOUNDED`].
pub const fn add(pending: u64, n: u64) -> u64 {
    let total = pending.saturating_add(n);
    if is_unbounded(total) {
        UNBOUNDED
    } else {
        total
    }
}

/// Demand left after `delivered` elements; unbounded demand stays unbounded.
pub const fn fulfil(pending: u64, delivered: u64) -> u64 {
    if is_unbounded(pending) {
        UNBOUNDED
    } else {
        pending.saturating_sub(delivered)
    }
}
