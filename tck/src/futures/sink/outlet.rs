//! [`Outlet`]: a destination the TCK controls, for sinks that forward into
//! another sink.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use parking_lot::Mutex;

use super::Delivery;

#[derive(Default)]
struct State {
    delivered: VecDeque<u64>,
    paused: bool,
    /// Wakers of calls that returned `Pending` while paused.
    waiting: Vec<Waker>,
}

/// A `Sink<u64>` the TCK controls: hand it to a sink that forwards into
/// another sink (a buffer, a `with`/`sink_map_err` adapter, a fan-out …)
/// and return its [`Delivery`] from
/// [`create_sink`](super::FuturesSinkFactory::create_sink). Running, it accepts
/// every item at once and delivers it; paused by the TCK, its
/// `poll_ready`, `poll_flush` and `poll_close` return `Pending` until it
/// resumes, so the sink in front of it has to wait, and its wake-ups are
/// checked (`sink.1`).
///
/// ```
/// use futures::SinkExt;
/// use reactive_streams_tck::futures::sink::{Delivery, Outlet, FuturesSinkFactory};
///
/// struct Buffered;
/// impl FuturesSinkFactory for Buffered {
///     type Error = std::convert::Infallible;
///     type Sink = futures::sink::Buffer<Outlet, u64>;
///     fn create_sink(&self) -> (Self::Sink, Delivery) {
///         let (outlet, delivery) = Outlet::new();
///         (outlet.buffer(4), delivery)
///     }
/// }
/// ```
pub struct Outlet {
    state: Arc<Mutex<State>>,
}

impl Outlet {
    /// A running outlet and its delivery side (which the TCK can pause).
    #[allow(clippy::new_ret_no_self)]
    pub fn new() -> (Outlet, Delivery) {
        let state = Arc::new(Mutex::new(State::default()));
        let taken = state.clone();
        let switched = state.clone();
        let delivery =
            Delivery::new(move || taken.lock().delivered.pop_front()).pausable(move |paused| {
                let waiting = {
                    let mut state = switched.lock();
                    state.paused = paused;
                    if paused {
                        Vec::new()
                    } else {
                        std::mem::take(&mut state.waiting)
                    }
                };
                waiting.into_iter().for_each(Waker::wake);
            });
        (Outlet { state }, delivery)
    }

    /// `Ready` while running; `Pending`, keeping the waker, while paused.
    fn poll_running(&self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        let mut state = self.state.lock();
        if !state.paused {
            return Poll::Ready(Ok(()));
        }
        if !state.waiting.iter().any(|w| w.will_wake(cx.waker())) {
            state.waiting.push(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl std::fmt::Debug for Outlet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.state.lock();
        f.debug_struct("Outlet")
            .field("paused", &state.paused)
            .field("delivered", &state.delivered.len())
            .finish()
    }
}

impl futures_sink::Sink<u64> for Outlet {
    type Error = Infallible;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.poll_running(cx)
    }

    fn start_send(self: Pin<&mut Self>, item: u64) -> Result<(), Infallible> {
        self.state.lock().delivered.push_back(item);
        Ok(())
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.poll_running(cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.poll_running(cx)
    }
}
