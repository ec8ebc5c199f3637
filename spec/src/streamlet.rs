//! The Streamlet protocol: [`Source`], [`Sink`] and [`Talkback`].
//!
//! Unlike Reactive Streams, `request` carries no count, a source may be
//! *pullable* (answers requests), *listenable* (pushes once started) or both,
//! and `stop` followed by a new `start` is pause and resume, not a final
//! cancel: a sink keeps its talkback after `stop` and may call
//! [`Talkback::start`] again. `end` and `stop` carry an optional reason.
//!
//! The conventions match the Reactive Streams traits: sources are shared
//! (`&self`, `Send + Sync`), sinks are moved in and signalled through
//! `&mut self`, talkbacks are shared as `Arc<dyn Talkback>`.
//!
//! ```
//! use std::sync::Arc;
//! use reactive_streams::{Sink, StreamError, Talkback};
//!
//! /// Takes five elements, pulling one at a time, then stops.
//! struct TakeFive {
//!     talkback: Option<Arc<dyn Talkback>>,
//!     received: Vec<u32>,
//! }
//!
//! impl Sink<u32> for TakeFive {
//!     fn greet(&mut self, talkback: Arc<dyn Talkback>) {
//!         talkback.start();
//!         self.talkback = Some(talkback.clone());
//!         talkback.request();
//!     }
//!     fn receive(&mut self, data: u32) {
//!         self.received.push(data);
//!         let talkback = self.talkback.as_ref().expect("greeted");
//!         if self.received.len() == 5 {
//!             talkback.stop(None);
//!         } else {
//!             talkback.request();
//!         }
//!     }
//!     fn end(&mut self, _reason: Option<StreamError>) {
//!         self.talkback = None;
//!     }
//! }
//! # let _ = TakeFive { talkback: None, received: vec![] };
//! ```

use std::sync::Arc;

use crate::StreamError;

/// Generates data, or answers requests with data (rules 1, 2, 4).
pub trait Source<T>: Send + Sync {
    /// Connects `sink` to this source. The source may greet it now or later,
    /// at most once (rule 1).
    fn connect(&self, sink: Box<dyn Sink<T>>);
}

/// Consumes data and may ask for more (rules 3, 5, 6).
pub trait Sink<T>: Send {
    /// The source greets the sink with the talkback it talks back through.
    fn greet(&mut self, talkback: Arc<dyn Talkback>);

    /// One piece of data, only while the stream is live (rule 2).
    fn receive(&mut self, data: T);

    /// The source ended the stream, with an optional reason (rule 4).
    fn end(&mut self, reason: Option<StreamError>);
}

/// The sink's way back to its source.
pub trait Talkback: Send + Sync {
    /// Starts, or after a `stop` restarts, the stream (rule 5).
    fn start(&self);

    /// Asks a pullable source for more data (rule 3).
    fn request(&self);

    /// Stops the stream, with an optional reason (rule 6). The sink may
    /// `start` again later: stop-then-start is pause and resume.
    fn stop(&self, reason: Option<StreamError>);
}

// Smart pointers to an implementation are implementations too.
impl<T, S: Source<T> + ?Sized> Source<T> for Box<S> {
    fn connect(&self, sink: Box<dyn Sink<T>>) {
        (**self).connect(sink)
    }
}

impl<T, S: Source<T> + ?Sized> Source<T> for Arc<S> {
    fn connect(&self, sink: Box<dyn Sink<T>>) {
        (**self).connect(sink)
    }
}

impl<T, S: Sink<T> + ?Sized> Sink<T> for Box<S> {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        (**self).greet(talkback)
    }
    fn receive(&mut self, data: T) {
        (**self).receive(data)
    }
    fn end(&mut self, reason: Option<StreamError>) {
        (**self).end(reason)
    }
}

// Trait objects print as their role, so that types holding them can derive
// `Debug` (other crates cannot write these impls: orphan rule).
impl std::fmt::Debug for dyn Talkback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Talkback")
    }
}

impl<T> std::fmt::Debug for dyn Sink<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Sink")
    }
}

impl<T> std::fmt::Debug for dyn Source<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Source")
    }
}
