//! Conforming reference implementations of the [`reactive_streams`] traits.
//!
//! Nothing is here yet; see the project README for the plan.
