use std::sync::Arc;
use std::task::{Context, Poll};

use reactive_streams::{Publisher, StreamError, Subscriber};

use super::inlet::{Inlet, InletSubscriber, Pulled};
use super::launch;
use crate::drain::{Emission, Producer};

/// Elements asked of each upstream at a time.
const PREFETCH: u64 = 16;

/// The elements of several publishers, interleaved; see [`merge`].
pub struct Merge<T> {
    inputs: Vec<Arc<dyn Publisher<T>>>,
}

/// A publisher of every element of every input, each passed on as it is
/// (one output per input element), in the order they arrive; inputs that
/// all have elements waiting are taken in turn, so a fast input does not
/// starve a slow one. Each input's own order is kept.
///
/// It completes when every input has completed (at once for no inputs)
/// and fails as soon as any input fails, cancelling the others.
///
/// Each subscriber gets its own subscriptions to all inputs. For
/// [`Tracked`](reactive_streams::done::Tracked) data an output is the
/// input element itself, tokens included: merge holds nothing once an
/// element is delivered.
///
/// ```
/// use reactive_streams_reference::{collect, merge, range};
///
/// let all = merge([range(0, 3), range(10, 2)]);
/// let mut all = futures::executor::block_on(collect(&all)).unwrap();
/// all.sort();
/// assert_eq!(all, vec![0, 1, 2, 10, 11]);
/// ```
///
/// With tracked data each output carries the token of the one datum it is:
///
/// ```
/// use reactive_streams::done::{DoneLedger, Tracked};
/// use reactive_streams_reference::{collect, just, merge};
///
/// let (ledger, done) = DoneLedger::channel();
/// let a = just(Tracked::new(1, ledger.issue(1)));
/// let b = just(Tracked::new(2, ledger.issue(2)));
/// let mut all = futures::executor::block_on(collect(&merge([a, b]))).unwrap();
/// all.sort_by_key(|t| t.value);
/// assert_eq!(all[0].tokens.ids(), [1]);
/// assert_eq!(all[1].tokens.ids(), [2]);
/// assert!(done.try_recv().is_err()); // both still held by `all`
/// drop(all);
/// ```
pub fn merge<T, P>(inputs: impl IntoIterator<Item = P>) -> Merge<T>
where
    T: Send + 'static,
    P: Publisher<T> + 'static,
{
    Merge {
        inputs: inputs
            .into_iter()
            .map(|input| Arc::new(input) as Arc<dyn Publisher<T>>)
            .collect(),
    }
}

impl<T: Send + 'static> Publisher<T> for Merge<T> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        let inlets: Vec<Arc<Inlet<T>>> = self.inputs.iter().map(|_| Inlet::new(PREFETCH)).collect();
        let producer = MergeProducer {
            inlets: inlets.iter().map(|inlet| (inlet.clone(), false)).collect(),
            next: 0,
        };
        // Every input is subscribed before the first poll (nothing is
        // requested until then), so the first turns go round all of them.
        for (input, inlet) in self.inputs.iter().zip(&inlets) {
            input.subscribe(Box::new(InletSubscriber(inlet.clone())));
        }
        launch(subscriber, producer, |waker| {
            for inlet in &inlets {
                inlet.set_waker(waker.clone());
            }
        });
    }
}

struct MergeProducer<T> {
    /// Each input's inlet and whether it has completed (and been drained).
    inlets: Vec<(Arc<Inlet<T>>, bool)>,
    /// The input asked first next time: the one after the last that
    /// produced, so inputs with waiting elements take turns.
    next: usize,
}

impl<T> MergeProducer<T> {
    fn all_completed(&self) -> bool {
        self.inlets.iter().all(|(_, completed)| *completed)
    }
}

impl<T: Send + 'static> Producer<T> for MergeProducer<T> {
    fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<T> {
        let count = self.inlets.len();
        for offset in 0..count {
            let i = (self.next + offset) % count;
            let (inlet, completed) = &mut self.inlets[i];
            if *completed {
                continue;
            }
            match inlet.pull() {
                Pulled::Item(element) => {
                    self.next = (i + 1) % count;
                    return Poll::Ready(Some(Ok(element)));
                }
                Pulled::Empty => {}
                // Dropping the producer (the drain does, on any terminal)
                // closes the other inlets: they are cancelled and what they
                // queued is released.
                Pulled::Ended(Some(error)) => return Poll::Ready(Some(Err(error))),
                Pulled::Ended(None) => *completed = true,
            }
        }
        if self.all_completed() {
            Poll::Ready(None)
        } else {
            Poll::Pending
        }
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        for (inlet, completed) in &mut self.inlets {
            if *completed {
                continue;
            }
            inlet.prime();
            match inlet.ended() {
                Some(Some(error)) => return Some(Some(error)),
                Some(None) => *completed = true,
                None => {}
            }
        }
        self.all_completed().then_some(None)
    }
}

impl<T> Drop for MergeProducer<T> {
    fn drop(&mut self) {
        for (inlet, _) in &self.inlets {
            inlet.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use parking_lot::Mutex;
    use reactive_streams::done::{DoneLedger, Tracked};
    use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

    use super::merge;
    use crate::{collect, empty, failed, range};

    fn run<T: Send + 'static>(publisher: &impl Publisher<T>) -> Result<Vec<T>, StreamError> {
        futures::executor::block_on(collect(publisher))
    }

    #[test]
    fn every_element_of_every_input_once_in_each_inputs_order() {
        let all = run(&merge([range(0, 40), range(100, 7), range(200, 0)])).unwrap();
        assert_eq!(all.len(), 47);
        let from = |lo: u64| -> Vec<u64> {
            all.iter()
                .copied()
                .filter(|x| (lo..lo + 100).contains(x))
                .collect()
        };
        assert_eq!(from(0), (0..40).collect::<Vec<_>>());
        assert_eq!(from(100), (100..107).collect::<Vec<_>>());
    }

    #[test]
    fn inputs_with_waiting_elements_take_turns() {
        let all = run(&merge([range(0, 3), range(10, 3)])).unwrap();
        assert_eq!(all, vec![0, 10, 1, 11, 2, 12]);
    }

    #[test]
    fn no_inputs_complete_at_once() {
        let none: Vec<crate::EmptyPublisher<u64>> = Vec::new();
        assert_eq!(run::<u64>(&merge(none)).unwrap(), Vec::<u64>::new());
        assert_eq!(run::<u64>(&merge([empty(), empty()])).unwrap(), vec![]);
    }

    #[test]
    fn the_first_error_fails_the_merge() {
        let boxed: Vec<Box<dyn Publisher<u64>>> = vec![
            Box::new(range(0, 1_000)),
            Box::new(failed(StreamError::msg("boom"))),
        ];
        let error = run(&merge(boxed)).unwrap_err();
        assert!(error.to_string().contains("boom"), "{error}");
    }

    /// Requests one element at a time and records what it got.
    struct OneByOne {
        got: Arc<Mutex<Vec<Tracked<u64>>>>,
        subscription: Arc<Mutex<Option<Arc<dyn Subscription>>>>,
    }

    impl Subscriber<Tracked<u64>> for OneByOne {
        fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
            *self.subscription.lock() = Some(subscription);
        }
        fn on_next(&mut self, element: Tracked<u64>) {
            self.got.lock().push(element);
        }
        fn on_error(&mut self, _: StreamError) {}
        fn on_complete(&mut self) {}
    }

    #[test]
    fn a_delivered_datum_is_done_once_downstream_drops_it() {
        let (ledger, done) = DoneLedger::channel();
        let input = |first: u64| {
            let ledger = ledger.clone();
            crate::IterPublisher::new(move || {
                let ledger = ledger.clone();
                (first..first + 3).map(move |id| Tracked::new(id, ledger.issue(id)))
            })
        };
        let merged = merge([input(0), input(10)]);
        let got = Arc::new(Mutex::new(Vec::new()));
        let subscription = Arc::new(Mutex::new(None));
        merged.subscribe(Box::new(OneByOne {
            got: got.clone(),
            subscription: subscription.clone(),
        }));
        let subscription = subscription.lock().clone().unwrap();
        subscription.request(1);
        let first = got.lock().pop().unwrap();
        assert_eq!(first.tokens.ids(), [first.value]);
        assert!(done.try_recv().is_err());
        let id = first.value;
        drop(first);
        assert_eq!(done.try_recv().ok(), Some(id));
        // Cancelling releases what the merge still queues.
        subscription.cancel();
        let mut rest: Vec<u64> = std::iter::from_fn(|| done.try_recv().ok()).collect();
        rest.sort_unstable();
        assert_eq!(rest, [1, 2, 10, 11, 12]);
    }
}
