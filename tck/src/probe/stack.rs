//! Synchronous recursion measured on the stack (§3.3).
//!
//! In safe Rust a publisher cannot re-enter a `&mut self` subscriber, but it
//! can still recurse without bound between `Publisher` and `Subscriber`: a
//! drain that emits the next element by calling itself (after the `request`
//! from `on_next` has added demand) runs every `on_next` one frame deeper
//! than the last, until the stack overflows. The probe's entry count does
//! not see that (each `on_next` has returned before the next one starts);
//! the stack does. Each thread keeps the stack addresses of the `on_next`
//! calls still running below the current one: an entry at an address at or
//! above a recorded one means that call has returned; one below all of them
//! is nested inside them. The count is the recursion depth.

use std::collections::HashMap;
use std::thread::ThreadId;

/// A depth below which the stack measure never fails a rule: an entry from
/// a deeper call path that is not nested (a runtime polling at varying
/// depths) counts one level too many, so only growth well past any such
/// noise is taken as recursion.
pub const STACK_DEPTH_FLOOR: u32 = 32;

/// The stack address of the caller's frame, roughly: a local of a function
/// that is never inlined.
#[inline(never)]
pub(crate) fn stack_address() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// The `on_next` calls still running, per thread, by stack address.
#[derive(Debug, Default)]
pub(crate) struct StackNesting {
    running: HashMap<ThreadId, Vec<usize>>,
    deepest: u32,
}

impl StackNesting {
    /// Notes an `on_next` entered at stack address `here` on the current
    /// thread and returns how deep it is nested (1: not nested).
    pub(crate) fn enter(&mut self, here: usize) -> u32 {
        let running = self.running.entry(std::thread::current().id()).or_default();
        // Stacks grow downwards: a call at or above a recorded one has
        // outlived it.
        while running.last().is_some_and(|&outer| outer <= here) {
            running.pop();
        }
        running.push(here);
        let depth = u32::try_from(running.len()).unwrap_or(u32::MAX);
        self.deepest = self.deepest.max(depth);
        depth
    }

    /// The deepest nesting measured so far.
    pub(crate) fn deepest(&self) -> u32 {
        self.deepest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[inline(never)]
    fn recurse(nesting: &mut StackNesting, levels: u32, seen: &mut Vec<u32>) {
        seen.push(nesting.enter(stack_address()));
        if levels > 1 {
            recurse(nesting, levels - 1, seen);
        }
        std::hint::black_box(seen.len());
    }

    #[test]
    fn a_loop_stays_at_depth_one_and_recursion_counts_every_level() {
        let mut nesting = StackNesting::default();
        let mut seen = Vec::new();
        for _ in 0..10 {
            recurse(&mut nesting, 1, &mut seen);
        }
        assert_eq!(seen, [1; 10]);
        seen.clear();
        recurse(&mut nesting, 50, &mut seen);
        assert_eq!(seen, (1..=50).collect::<Vec<u32>>());
        assert_eq!(nesting.deepest(), 50);
        // Back at the loop's level: every recursive call has returned.
        seen.clear();
        recurse(&mut nesting, 1, &mut seen);
        assert_eq!(seen, [1]);
    }
}
