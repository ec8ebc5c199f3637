//! What a bounded buffer does when it is full: [`Overflow`], [`BoundedBuffer`].
//!
//! Reactive Streams lets the *subscriber* bound the publisher's queue by the
//! demand it signals; a hot source that cannot slow down needs one more
//! decision — what to do when a subscriber's buffer is full. This module
//! makes that decision explicit.

use std::collections::VecDeque;
use std::error::Error;
use std::fmt;

/// The policy of a full [`BoundedBuffer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Overflow {
    /// Discard the oldest buffered element to make room for the new one.
    DropOldest,
    /// Discard the new element.
    DropNewest,
    /// Fail the subscription with [`BufferOverflow`] at once (buffered
    /// elements are discarded, so the error is not delayed behind them).
    #[default]
    Error,
}

/// The error a full buffer signals under [`Overflow::Error`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferOverflow {
    /// The buffer's capacity.
    pub capacity: usize,
}

impl fmt::Display for BufferOverflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "buffer overflow: the subscriber's buffer of {} elements is full",
            self.capacity
        )
    }
}

impl Error for BufferOverflow {}

/// A FIFO of at most `capacity` elements with an [`Overflow`] policy.
///
/// ```
/// use reactive_streams_reference::{BoundedBuffer, Overflow};
///
/// let mut buffer = BoundedBuffer::new(2, Overflow::DropOldest);
/// for i in 0..4 {
///     buffer.offer(i).unwrap();
/// }
/// assert_eq!(buffer.pop(), Some(2));
///
/// let mut strict = BoundedBuffer::new(1, Overflow::Error);
/// strict.offer(1).unwrap();
/// assert!(strict.offer(2).is_err());
/// ```
#[derive(Debug)]
pub struct BoundedBuffer<T> {
    queue: VecDeque<T>,
    capacity: usize,
    policy: Overflow,
}

impl<T> BoundedBuffer<T> {
    /// An empty buffer. A capacity of 0 keeps nothing: every element
    /// overflows.
    pub fn new(capacity: usize, policy: Overflow) -> Self {
        BoundedBuffer {
            queue: VecDeque::with_capacity(capacity.min(1024)),
            capacity,
            policy,
        }
    }

    /// A buffer that never overflows (bounded elsewhere, e.g. by demand).
    pub fn unbounded() -> Self {
        BoundedBuffer {
            queue: VecDeque::new(),
            capacity: usize::MAX,
            policy: Overflow::Error,
        }
    }

    /// Appends `element`, applying the policy when full. `Err` only under
    /// [`Overflow::Error`]; the buffer is then left as it was.
    pub fn offer(&mut self, element: T) -> Result<(), BufferOverflow> {
        if self.queue.len() < self.capacity {
            self.queue.push_back(element);
            return Ok(());
        }
        match self.policy {
            Overflow::DropOldest => {
                if self.capacity > 0 {
                    self.queue.pop_front();
                    self.queue.push_back(element);
                }
                Ok(())
            }
            Overflow::DropNewest => Ok(()),
            Overflow::Error => Err(BufferOverflow {
                capacity: self.capacity,
            }),
        }
    }

    /// Removes the oldest element.
    pub fn pop(&mut self) -> Option<T> {
        self.queue.pop_front()
    }

    /// Number of buffered elements.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing is buffered.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Discards every buffered element.
    pub fn clear(&mut self) {
        self.queue.clear();
    }

    /// The capacity.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The policy.
    pub fn policy(&self) -> Overflow {
        self.policy
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(policy: Overflow) -> (BoundedBuffer<u32>, Vec<Result<(), BufferOverflow>>) {
        let mut buffer = BoundedBuffer::new(3, policy);
        let results = (0..5).map(|i| buffer.offer(i)).collect();
        (buffer, results)
    }

    fn drain(buffer: &mut BoundedBuffer<u32>) -> Vec<u32> {
        std::iter::from_fn(|| buffer.pop()).collect()
    }

    #[test]
    fn drop_oldest_keeps_the_newest() {
        let (mut buffer, results) = filled(Overflow::DropOldest);
        assert!(results.iter().all(Result::is_ok));
        assert_eq!(drain(&mut buffer), vec![2, 3, 4]);
    }

    #[test]
    fn drop_newest_keeps_the_oldest() {
        let (mut buffer, results) = filled(Overflow::DropNewest);
        assert!(results.iter().all(Result::is_ok));
        assert_eq!(drain(&mut buffer), vec![0, 1, 2]);
    }

    #[test]
    fn error_refuses_and_keeps_the_buffer() {
        let (mut buffer, results) = filled(Overflow::Error);
        assert_eq!(results[3], Err(BufferOverflow { capacity: 3 }));
        assert_eq!(drain(&mut buffer), vec![0, 1, 2]);
    }

    #[test]
    fn zero_capacity_keeps_nothing() {
        let mut buffer = BoundedBuffer::new(0, Overflow::DropOldest);
        buffer.offer(1).unwrap();
        assert!(buffer.is_empty());
    }
}
