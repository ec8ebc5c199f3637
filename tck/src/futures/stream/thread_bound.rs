//! [`ThreadBound`]: how a stream that is not `Send` is verified.

use std::mem::ManuallyDrop;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::thread::{self, ThreadId};

use futures_core::Stream;

/// A stream that is not `Send` (it holds an `Rc`, a `RefCell` shared with
/// its producer, a thread-local handle), usable as a
/// [`StreamFactory::Stream`](super::StreamFactory::Stream) all the same:
/// it may only be used on the thread that made it, and checks that on every
/// use. A factory of such streams declares
/// [`thread_bound`](super::StreamFactory::thread_bound), and the TCK then
/// keeps each stream on the thread that made it — every rule runs as usual,
/// except `stream.7` (polls from other threads), which is skipped, saying
/// why.
///
/// A stream that is not `Unpin` goes in pinned: `ThreadBound::new(Box::pin(stream))`.
///
/// ```
/// use std::{cell::RefCell, collections::VecDeque, pin::Pin, rc::Rc, task::{Context, Poll}};
/// use reactive_streams_tck::futures::stream::{StreamFactory, ThreadBound};
///
/// struct Local(Rc<RefCell<VecDeque<u64>>>); // not Send
/// impl futures_core::Stream for Local {
///     type Item = u64;
///     fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<u64>> {
///         Poll::Ready(self.0.borrow_mut().pop_front())
///     }
/// }
///
/// struct Locals;
/// impl StreamFactory for Locals {
///     type Item = u64;
///     type Stream = ThreadBound<Local>;
///     fn create_stream(&self, items: u64) -> ThreadBound<Local> {
///         ThreadBound::new(Local(Rc::new(RefCell::new((0..items).collect()))))
///     }
///     fn thread_bound(&self) -> bool {
///         true
///     }
/// }
/// ```
pub struct ThreadBound<S> {
    inner: ManuallyDrop<S>,
    home: ThreadId,
}

// SAFETY: the inner value is used (polled, read, dropped) only on the
// thread that made it: every access checks `home` and panics elsewhere, and
// a drop elsewhere leaks the value instead of dropping it there (it is
// `Unpin` wherever it is polled, so leaking breaks no pinning guarantee).
unsafe impl<S> Send for ThreadBound<S> {}

impl<S> ThreadBound<S> {
    /// Binds `stream` to the current thread.
    pub fn new(stream: S) -> Self {
        ThreadBound {
            inner: ManuallyDrop::new(stream),
            home: thread::current().id(),
        }
    }

    /// The stream.
    ///
    /// # Panics
    ///
    /// On any thread but the one that made it.
    pub fn get(&self) -> &S {
        self.at_home();
        &self.inner
    }

    fn at_home(&self) {
        assert!(
            thread::current().id() == self.home,
            "rs-tck: a ThreadBound stream was used on a thread other than the one that made it (does the factory declare thread_bound() → true?)"
        );
    }
}

impl<S: Stream + Unpin> Stream for ThreadBound<S> {
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = self.get_mut();
        this.at_home();
        Pin::new(&mut *this.inner).poll_next(cx)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.get().size_hint()
    }
}

impl<S> Drop for ThreadBound<S> {
    fn drop(&mut self) {
        if thread::current().id() == self.home {
            // SAFETY: dropped once, here, on its own thread, and never
            // used again.
            unsafe { ManuallyDrop::drop(&mut self.inner) }
        }
        // Elsewhere it is leaked: dropping it there would be unsound.
    }
}

impl<S> std::fmt::Debug for ThreadBound<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadBound")
            .field("home", &self.home)
            .finish_non_exhaustive()
    }
}
