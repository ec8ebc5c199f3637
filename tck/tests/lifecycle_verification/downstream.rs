//! What the two-input test stages ([`crate::merge`], [`crate::pair`]) owe
//! their subscriber, decided under the stage's lock and delivered outside
//! it by the testkit's [`Trampoline`](reactive_streams_tck::testkit::Trampoline)
//! (one thread at a time; the others leave their work in the state).

use std::sync::Arc;

use reactive_streams::{StreamError, Subscriber, Subscription};

/// One turn of a stage's drain loop.
pub enum Work<T> {
    /// An output for downstream.
    Next(T),
    /// Ask this input for its next element.
    Ask(Arc<dyn Subscription>),
    /// Cancel the open inputs, then signal downstream (none after a
    /// cancel).
    End(Option<Result<(), StreamError>>, Vec<Arc<dyn Subscription>>),
}

impl<T> Work<T> {
    /// Does this work; `downstream` gets the outputs and the end.
    pub fn deliver(downstream: &mut Box<dyn Subscriber<T>>, work: Self) {
        match work {
            Work::Next(output) => downstream.on_next(output),
            Work::Ask(upstream) => upstream.request(1),
            Work::End(signal, open) => {
                open.iter().for_each(|upstream| upstream.cancel());
                match signal {
                    Some(Ok(())) => downstream.on_complete(),
                    Some(Err(error)) => downstream.on_error(error),
                    None => {}
                }
            }
        }
    }
}
