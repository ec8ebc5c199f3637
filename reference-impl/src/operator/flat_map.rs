use std::iter::Peekable;
use std::sync::Arc;
use std::task::{Context, Poll};

use reactive_streams::StreamError;

use super::inlet::{Inlet, Pulled};
use super::{Outlet, operator_roles};
use crate::drain::{Emission, Producer};

type Expand<T, I> = Arc<dyn Fn(T) -> I + Send + Sync>;

/// Replaces each element by the items of `expand(element)`, in order
/// (flat-map; `FlatMapProcessor::new(|v: Vec<_>| v)` flattens).
///
/// One upstream element is requested at a time, and only when the previous
/// one's outputs are all delivered. For [`Tracked`](reactive_streams::done::Tracked)
/// data, expand with [`Tracked::fan_out`](reactive_streams::done::Tracked::fan_out):
/// every output holds a clone of the input's tokens, so the input is done
/// only when its last output is.
///
/// ```
/// use reactive_streams::done::{DoneLedger, Tracked};
/// use reactive_streams::Publisher;
/// use reactive_streams_reference::{collect, just, FlatMapProcessor};
///
/// let (ledger, done) = DoneLedger::channel();
/// let words = FlatMapProcessor::new(|line: Tracked<&'static str>| {
///     let words: Vec<&str> = line.value.split(' ').collect();
///     line.fan_out(words)
/// });
/// let all = collect(&words);
/// just(Tracked::new("a b c", ledger.issue(1))).subscribe(Box::new(words.clone()));
/// let all = futures::executor::block_on(all).unwrap();
/// assert_eq!(all.iter().map(|w| w.value).collect::<Vec<_>>(), ["a", "b", "c"]);
/// assert!(done.try_recv().is_err()); // the words still hold line 1
/// drop(all);
/// assert_eq!(done.try_recv(), Ok(1));
/// ```
pub struct FlatMapProcessor<T, I: IntoIterator> {
    inlet: Arc<Inlet<T>>,
    outlet: Arc<Outlet<FlatMapProducer<T, I>>>,
}

impl<T, I> FlatMapProcessor<T, I>
where
    T: Send + 'static,
    I: IntoIterator + 'static,
    I::IntoIter: Send,
    I::Item: Send + 'static,
{
    /// A processor emitting the items of `expand(element)` for each element.
    pub fn new(expand: impl Fn(T) -> I + Send + Sync + 'static) -> Self {
        let inlet = Inlet::new(1);
        let outlet = Outlet::new(FlatMapProducer {
            inlet: inlet.clone(),
            expand: Arc::new(expand),
            current: None,
        });
        FlatMapProcessor { inlet, outlet }
    }
}

impl<T, I: IntoIterator> Clone for FlatMapProcessor<T, I> {
    fn clone(&self) -> Self {
        FlatMapProcessor {
            inlet: self.inlet.clone(),
            outlet: self.outlet.clone(),
        }
    }
}

operator_roles!(
    [T, I] FlatMapProcessor<T, I>, T => I::Item,
    where T: Send + 'static, I: IntoIterator + 'static, I::IntoIter: Send, I::Item: Send + 'static
);

struct FlatMapProducer<T, I: IntoIterator> {
    inlet: Arc<Inlet<T>>,
    expand: Expand<T, I>,
    /// Peekable, so completion can follow the last output at once.
    current: Option<Peekable<I::IntoIter>>,
}

impl<T, I> Producer<I::Item> for FlatMapProducer<T, I>
where
    T: Send + 'static,
    I: IntoIterator + 'static,
    I::IntoIter: Send,
    I::Item: Send + 'static,
{
    fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<I::Item> {
        loop {
            if let Some(item) = self.current.as_mut().and_then(Iterator::next) {
                return Poll::Ready(Some(Ok(item)));
            }
            // Dropping the spent iterator releases whatever it still held.
            self.current = None;
            match self.inlet.pull() {
                Pulled::Item(element) => {
                    self.current = Some((self.expand)(element).into_iter().peekable());
                }
                Pulled::Empty => return Poll::Pending,
                Pulled::Ended(reason) => return Poll::Ready(reason.map(Err)),
            }
        }
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        if let Some(Some(error)) = self.inlet.ended() {
            self.current = None;
            return Some(Some(error));
        }
        // Without demand, still expand inputs until one has an output (held
        // for the next request) or upstream ends: an input that expands to
        // nothing must not delay completion (§1.5).
        loop {
            if self.current.as_mut().is_some_and(|c| c.peek().is_some()) {
                return None;
            }
            self.current = None;
            match self.inlet.pull() {
                Pulled::Item(element) => {
                    self.current = Some((self.expand)(element).into_iter().peekable());
                }
                Pulled::Empty => return None,
                Pulled::Ended(reason) => return Some(reason),
            }
        }
    }
}

impl<T, I: IntoIterator> Drop for FlatMapProducer<T, I> {
    fn drop(&mut self) {
        self.inlet.close();
    }
}
