//! The drain's handling of demand asked for from inside its own signals
//! (kept on the owner thread, without atomics, until the run settles).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use reactive_streams::{StreamError, Subscriber, Subscription};
use reactive_streams_reference::Executor;
use reactive_streams_reference::drain::{Drain, Emission, Producer};

/// Yields what was pushed into it; `Pending` (remembering the waker) when
/// empty.
#[derive(Clone, Default)]
struct Feed(Arc<Mutex<(VecDeque<u32>, Option<Waker>)>>);

impl Feed {
    /// A feed holding `elements` already.
    fn holding(elements: impl IntoIterator<Item = u32>) -> Self {
        let feed = Feed::default();
        for element in elements {
            feed.push(element);
        }
        feed
    }

    fn push(&self, element: u32) {
        let waker = {
            let mut feed = self.0.lock().unwrap();
            feed.0.push_back(element);
            feed.1.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl Producer<u32> for Feed {
    const NEEDS_WAKER: bool = true;

    fn poll_produce(&mut self, cx: &mut Context<'_>) -> Emission<u32> {
        let mut feed = self.0.lock().unwrap();
        match feed.0.pop_front() {
            Some(element) => Poll::Ready(Some(Ok(element))),
            None => {
                feed.1 = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

type FeedDrain = Arc<Drain<u32, Feed>>;
type Seen = Arc<Mutex<Vec<u32>>>;
/// What a subscriber does on each element, given the drain it is
/// subscribed to (also its subscription).
type React = Box<dyn FnMut(&FeedDrain, u32) + Send>;

/// Records elements and runs `react` on each one.
struct Reacting {
    seen: Seen,
    /// Filled right after `start`, before any element is emitted.
    drain: Arc<Mutex<Option<FeedDrain>>>,
    react: React,
}

impl Subscriber<u32> for Reacting {
    fn on_subscribe(&mut self, _: Arc<dyn Subscription>) {}

    fn on_next(&mut self, element: u32) {
        self.seen.lock().unwrap().push(element);
        let drain = self.drain.lock().unwrap().clone();
        if let Some(drain) = drain {
            (self.react)(&drain, element);
        }
    }

    fn on_error(&mut self, _: StreamError) {}

    fn on_complete(&mut self) {}
}

/// Subscribes a [`Reacting`] to `feed` and, unless `initial` is 0,
/// requests that many from outside any signal.
fn start(
    feed: &Feed,
    initial: u64,
    react: impl FnMut(&FeedDrain, u32) + Send + 'static,
) -> (FeedDrain, Seen) {
    let seen = Seen::default();
    let slot = Arc::new(Mutex::new(None));
    let drain: FeedDrain = Drain::new(feed.clone(), Executor::Inline);
    let subscriber = Reacting {
        seen: seen.clone(),
        drain: slot.clone(),
        react: Box::new(react),
    };
    drain.start(Box::new(subscriber), drain.clone());
    *slot.lock().unwrap() = Some(drain.clone());
    if initial > 0 {
        drain.request(initial);
    }
    (drain, seen)
}

#[test]
fn demand_asked_for_in_the_signal_before_the_producer_goes_pending_is_kept() {
    let feed = Feed::holding([1]);
    // Demand 2, one element there: element 1 asks for one more, then the
    // producer has nothing. The run ends owing 2.
    let (_drain, seen) = start(&feed, 2, |drain, element| {
        if element == 1 {
            drain.request(1);
        }
    });
    assert_eq!(*seen.lock().unwrap(), vec![1]);
    for element in 2..5 {
        feed.push(element);
    }
    assert_eq!(*seen.lock().unwrap(), vec![1, 2, 3]);
}

#[test]
fn demand_asked_for_in_a_signal_adds_up_with_demand_from_outside() {
    let feed = Feed::holding(0..10);
    // Element 0 asks for 2 more; the rest ask for nothing.
    let (drain, seen) = start(&feed, 1, |drain, element| {
        if element == 0 {
            drain.request(2);
        }
    });
    assert_eq!(*seen.lock().unwrap(), vec![0, 1, 2]);
    drain.request(3);
    assert_eq!(*seen.lock().unwrap(), vec![0, 1, 2, 3, 4, 5]);
}

#[test]
fn stopping_in_a_signal_forgets_demand_asked_for_earlier_in_it() {
    let feed = Feed::holding(0..10);
    let (drain, seen) = start(&feed, 2, |drain, element| {
        if element == 1 {
            drain.request(5);
            drain.pause();
        }
    });
    assert_eq!(*seen.lock().unwrap(), vec![0, 1], "paused after element 1");
    drain.resume();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![0, 1],
        "the 5 asked for before the stop are forgotten"
    );
    drain.request(2);
    assert_eq!(*seen.lock().unwrap(), vec![0, 1, 2, 3]);
}

#[test]
fn a_request_from_another_thread_during_a_signal_is_not_taken_for_the_owners() {
    let feed = Feed::holding(0..10);
    // Element 0 asks for 1 more from a helper thread, while the owner is
    // still inside the signal: that demand must go through the shared
    // counter and wake the drain.
    let (_drain, seen) = start(&feed, 1, |drain, element| {
        if element == 0 {
            let drain = drain.clone();
            std::thread::spawn(move || drain.request(1)).join().unwrap();
        }
    });
    assert_eq!(*seen.lock().unwrap(), vec![0, 1]);
}

#[test]
fn demand_asked_for_after_a_stop_and_start_in_the_same_signal_is_whole() {
    let feed = Feed::holding(0..10);
    let (_drain, seen) = start(&feed, 1, |drain, element| {
        if element == 0 {
            drain.pause();
            drain.resume();
            // Not charged with element 0, which was asked for before.
            drain.request(2);
        }
    });
    assert_eq!(*seen.lock().unwrap(), vec![0, 1, 2]);
}
