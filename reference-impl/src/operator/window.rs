use std::sync::Arc;
use std::task::{Context, Poll};

use reactive_streams::StreamError;

use super::inlet::{Inlet, Pulled};
use super::{Outlet, operator_roles};
use crate::drain::{Emission, Producer};

/// Groups consecutive elements into windows of `size` (tumbling windows);
/// a shorter last window is emitted before completion.
///
/// With [`Tracked`](reactive_streams::done::Tracked) elements the open
/// window holds its data's tokens, and each emitted `Vec` carries them on:
/// a datum is done when the window containing it is consumed.
///
/// ```
/// use reactive_streams::Publisher;
/// use reactive_streams_reference::{collect, range, WindowProcessor};
///
/// let windows = WindowProcessor::new(2);
/// let all = collect(&windows);
/// range(0, 5).subscribe(Box::new(windows.clone()));
/// let all = futures::executor::block_on(all).unwrap();
/// assert_eq!(all, vec![vec![0, 1], vec![2, 3], vec![4]]);
/// ```
pub struct WindowProcessor<T> {
    inlet: Arc<Inlet<T>>,
    outlet: Arc<Outlet<WindowProducer<T>>>,
}

impl<T: Send + 'static> WindowProcessor<T> {
    /// Windows of `size` elements (at least 1).
    pub fn new(size: usize) -> Self {
        let size = size.max(1);
        let inlet = Inlet::new(size as u64);
        let outlet = Outlet::new(WindowProducer {
            inlet: inlet.clone(),
            size,
            open: Vec::new(),
        });
        WindowProcessor { inlet, outlet }
    }
}

impl<T> Clone for WindowProcessor<T> {
    fn clone(&self) -> Self {
        WindowProcessor {
            inlet: self.inlet.clone(),
            outlet: self.outlet.clone(),
        }
    }
}

operator_roles!([T] WindowProcessor<T>, T => Vec<T>, where T: Send + 'static);

struct WindowProducer<T> {
    inlet: Arc<Inlet<T>>,
    size: usize,
    open: Vec<T>,
}

impl<T: Send + 'static> Producer<Vec<T>> for WindowProducer<T> {
    fn poll_produce(&mut self, _: &mut Context<'_>) -> Emission<Vec<T>> {
        loop {
            match self.inlet.pull() {
                Pulled::Item(element) => {
                    self.open.push(element);
                    if self.open.len() == self.size {
                        return Poll::Ready(Some(Ok(std::mem::take(&mut self.open))));
                    }
                }
                Pulled::Empty => return Poll::Pending,
                Pulled::Ended(Some(error)) => {
                    self.open.clear();
                    return Poll::Ready(Some(Err(error)));
                }
                Pulled::Ended(None) if self.open.is_empty() => return Poll::Ready(None),
                Pulled::Ended(None) => {
                    return Poll::Ready(Some(Ok(std::mem::take(&mut self.open))));
                }
            }
        }
    }

    fn poll_terminal(&mut self) -> Option<Option<StreamError>> {
        self.inlet.prime();
        match self.inlet.ended()? {
            Some(error) => {
                self.open.clear();
                Some(Some(error))
            }
            None if self.open.is_empty() => Some(None),
            None => None,
        }
    }
}

impl<T> Drop for WindowProducer<T> {
    fn drop(&mut self) {
        self.inlet.close();
    }
}
