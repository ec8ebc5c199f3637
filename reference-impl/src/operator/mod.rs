//! Operators that reshape a stream: [`WindowProcessor`],
//! [`SlidingWindowProcessor`], [`FlatMapProcessor`] (one upstream), the
//! [`zip`] / [`combine_latest`] publisher combinators (two upstreams) and
//! [`merge`] (any number of upstreams).
//!
//! All of them are generic over the element type; with
//! [`Tracked<T>`](reactive_streams::done::Tracked) elements they carry
//! datum-done tokens with no code of their own, because a token lives
//! exactly as long as the value that holds it:
//!
//! | operator | what holds a datum | so it is done when |
//! |---|---|---|
//! | window | the open window, then the emitted `Vec` | the window is consumed |
//! | sliding window | the last `size - 1` elements (cloned into each window) | it left the window and every window containing it is consumed |
//! | flat-map | each output (the function clones the input's tokens into them, e.g. with [`Tracked::fan_out`](reactive_streams::done::Tracked::fan_out)) | the last output is consumed |
//! | zip | the waiting element, then the emitted pair | the pair is consumed |
//! | combine-latest | the latest element of each side (cloned into each output) | it was replaced and every output containing it is consumed |
//! | merge | nothing once delivered: each output is the input element itself | its output is consumed |
//!
//! Cancellation, errors and completion drop everything an operator holds.
//!
//! # How they work
//!
//! Each operator is a *pull* stage: a [`crate::drain::Producer`]
//! on the shared [drain loop](crate::drain) that pulls from one
//! *inlet* per upstream. An inlet asks its upstream for a few
//! elements only when the operator needs input to meet downstream demand,
//! so nothing is requested ahead of demand beyond one prefetch batch.
//! Operators serve one downstream subscriber; later ones are rejected
//! (`on_subscribe` then `on_error`, §1.9).

mod combine_latest;
mod flat_map;
mod inlet;
mod merge;
mod sliding_window;
mod window;
mod zip;

use std::sync::Arc;
use std::task::Waker;

use parking_lot::Mutex;
use reactive_streams::{StreamError, Subscriber};

use crate::drain::{Drain, Producer};
use crate::executor::Executor;
use crate::publisher::reject;

pub use combine_latest::{CombineLatest, combine_latest, combine_latest_with};
pub use flat_map::FlatMapProcessor;
pub use merge::{Merge, merge};
pub use sliding_window::SlidingWindowProcessor;
pub use window::WindowProcessor;
pub use zip::{Zip, zip, zip_with};

/// Starts a drain over `producer` for `subscriber`; `wire` gets the
/// drain's waker before the first poll (to hand to the inlets).
fn launch<R, P>(subscriber: Box<dyn Subscriber<R>>, producer: P, wire: impl FnOnce(Waker))
where
    R: Send + 'static,
    P: Producer<R>,
{
    let drain = Drain::new(producer, Executor::Inline);
    wire(drain.waker());
    drain.start(subscriber, drain.clone());
}

/// The downstream side of a single-upstream operator: its producer, taken
/// by the first subscriber.
struct Outlet<P> {
    producer: Mutex<Option<P>>,
}

impl<P> Outlet<P> {
    fn new(producer: P) -> Arc<Self> {
        Arc::new(Outlet {
            producer: Mutex::new(Some(producer)),
        })
    }

    fn subscribe<R: Send + 'static, T>(
        &self,
        inlet: &Arc<inlet::Inlet<T>>,
        subscriber: Box<dyn Subscriber<R>>,
    ) where
        P: Producer<R>,
    {
        let Some(producer) = self.producer.lock().take() else {
            reject(
                subscriber,
                StreamError::msg("subscription rejected: this operator serves one subscriber"),
            );
            return;
        };
        launch(subscriber, producer, |waker| inlet.set_waker(waker));
    }
}

/// Implements the two roles of a single-upstream operator handle that has
/// fields `inlet: Arc<Inlet<$in>>` and `outlet: Arc<Outlet<$producer>>`.
macro_rules! operator_roles {
    ([$($g:tt)*] $name:ty, $in:ty => $out:ty, where $($bounds:tt)*) => {
        impl<$($g)*> reactive_streams::Subscriber<$in> for $name where $($bounds)* {
            fn on_subscribe(&mut self, subscription: std::sync::Arc<dyn reactive_streams::Subscription>) {
                self.inlet.on_subscribe(subscription);
            }
            fn on_next(&mut self, element: $in) {
                self.inlet.on_next(element);
            }
            fn on_error(&mut self, error: reactive_streams::StreamError) {
                self.inlet.on_terminal(Some(error));
            }
            fn on_complete(&mut self) {
                self.inlet.on_terminal(None);
            }
        }

        impl<$($g)*> reactive_streams::Publisher<$out> for $name where $($bounds)* {
            fn subscribe(&self, subscriber: Box<dyn reactive_streams::Subscriber<$out>>) {
                self.outlet.subscribe(&self.inlet, subscriber);
            }
        }
    };
}
use operator_roles;
