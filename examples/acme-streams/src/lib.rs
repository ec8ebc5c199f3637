//! `acme-streams`: a small library with its own Reactive Streams types,
//! written the way any outside crate would be, and verified by the TCK in
//! `tests/tck.rs`.
//!
//! * [`Countdown`] — a publisher of `n, n-1, …, 1`.
//! * [`Summer`] — a subscriber that adds up what it receives, requesting in
//!   batches.
//! * [`Scale`] — a processor that multiplies every element by a factor.

mod countdown;
mod scale;
mod summer;

pub use countdown::Countdown;
pub use scale::Scale;
pub use summer::{Summer, Total};
