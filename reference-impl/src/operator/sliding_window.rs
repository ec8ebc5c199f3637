use std::collections::VecDeque;
use std::sync::Arc;
use std::task::{Context, Poll};

use reactive_streams::StreamError;

use super::inlet::{Inlet, Pulled};
use super::{Outlet, operator_roles};
use crate::drain::{Emission, Producer};

/// Emits every run of `size` consecutive elements (a window sliding by
/// one); a stream shorter than `size` yields one shorter window.
///
/// Each element is cloned into every window containing it. With
/// [`Tracked`](reactive_streams::done::Tracked) elements a datum stays
/// alive while the operator keeps it for the next windows and while any
/// window containing it is held downstream.
///
/// ```
/// use reactive_streams::Publisher;
/// use reactive_streams_reference::{collect, range, SlidingWindowProcessor};
///
/// let windows = SlidingWindowProcessor::new(3);
/// let all = collect(&windows);
/// range(0, 5).subscribe(Box::new(windows.clone()));
/// let all = futures::executor::block_on(all).unwrap();
/// assert_eq!(all, vec![vec![0, 1, 2], vec![1, 2, 3], vec![2, 3, 4]]);
/// ```
pub struct SlidingWindowProcessor<T> {
    inlet: Arc<Inlet<T>>,
    outlet: Arc<Outlet<SlidingProducer<T>>>,
}

impl<T: Clone + Send + 'static> SlidingWindowProcessor<T> {
    /// Windows of `size` elements (at least 1).
    pub fn new(size: usize) -> Self {
        let size = size.max(1);
        let inlet = Inlet::new(size as u64);
        let outlet = Outlet::new(SlidingProducer {
            inlet: inlet.clone(),
            size,
            recent: VecDeque::with_capacity(size),
            emitted: false,
        });
        SlidingWindowProcessor { inlet, outlet }
    }
}

impl<T> Clone for SlidingWindowProcessor<T> {
    fn clone(&self) -> Self {
        SlidingWindowProcessor {
            inlet: self.inlet.clone(),
            outlet: self.outlet.clone(),
        }
    }
}

operator_roles!([T] SlidingWindowProcessor<T>, T => Vec<T>, where T: Clone + Send + 'static);

struct SlidingProducer<T> {
    inlet: Arc<Inlet<T>>,
    size: usize,
    recent: VecDeque<T>,
    emitted: bool,
}

impl<T> SlidingProducer<T> {
    /// Whether a short window is still owed at completion.
    fn owes_short_window(&self) -> bool {
        !self.emitted && !self.recent.is_empty()
    }
}

impl<T: Clone + Send + 'static> Producer<Vec<T>> for SlidingProducer<T> {
    fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<Vec<T>> {
        loop {
            match self.inlet.pull() {
                Pulled::Item(element) => {
                    self.recent.push_back(element);
                    if self.recent.len() == self.size {
                        let window = self.recent.iter().cloned().collect();
                        // The oldest leaves: its copy in `window` is now the
                        // operator's only hold on it gone.
                        self.recent.pop_front();
                        self.emitted = true;
                        return Poll::Ready(Some(Ok(window)));
                    }
                }
                Pulled::Empty => return Poll::Pending,
                Pulled::Ended(Some(error)) => {
                    self.recent.clear();
                    return Poll::Ready(Some(Err(error)));
                }
                Pulled::Ended(None) => {
                    let short = self.owes_short_window();
                    let rest: Vec<T> = self.recent.drain(..).collect();
                    return Poll::Ready(short.then_some(Ok(rest)));
                }
            }
        }
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        self.inlet.prime();
        match self.inlet.ended()? {
            Some(error) => {
                self.recent.clear();
                Some(Some(error))
            }
            None if self.owes_short_window() => None,
            None => {
                self.recent.clear();
                Some(None)
            }
        }
    }
}

impl<T> Drop for SlidingProducer<T> {
    fn drop(&mut self) {
        self.inlet.close();
    }
}
