//! The Reactive Streams and Streamlet contracts for Rust.
//!
//! This crate is what libraries depend on to speak the protocol, the way JVM
//! libraries depend on `org.reactivestreams`. It holds four things:
//!
//! * the four Reactive Streams traits — [`Publisher`], [`Subscriber`],
//!   [`Subscription`] and [`Processor`] — with the shared [`StreamError`] and
//!   the [`demand`] arithmetic of §3.17;
//! * the three Streamlet traits — [`Source`], [`Sink`] and [`Talkback`]
//!   (module [`streamlet`]);
//! * [`done`]: datum-done tokens, so a source learns when each element has
//!   fully left a pipeline (checkpointing);
//! * the [`rules`] catalogue: every numbered rule as data, with how the TCK
//!   checks it.
//!
//! # What the types enforce
//!
//! | rule | how Rust's types carry it |
//! |---|---|
//! | §1.3 signals are serial | signal methods take `&mut self`: safe code cannot enter one subscriber from two threads at once; the TCK still checks for concurrent entry, which only `unsafe` code can cause |
//! | §1.9 / §2.13 `null` arguments | there is no `null`: a `Box`, an `Arc` or a value is always present |
//! | §1.10 a different subscriber each time | [`Publisher::subscribe`] takes the subscriber by value; the same subscriber cannot be given twice (see `tests/compile-fail`) |
//! | §3.9 negative demand | demand is a `u64`; only `0` remains illegal and is answered with [`StreamError::illegal_demand`] |
//!
//! Everything else is behaviour, checked at run time by the TCK.
//!
//! # Example
//!
//! A publisher of one element, written against the traits directly:
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use reactive_streams::{Publisher, Subscriber, Subscription, StreamError};
//!
//! struct Just(u32);
//!
//! struct JustSubscription {
//!     value: u32,
//!     // `None` once the element was sent or the subscription cancelled.
//!     subscriber: Mutex<Option<Box<dyn Subscriber<u32>>>>,
//! }
//!
//! impl Subscription for JustSubscription {
//!     fn request(&self, n: u64) {
//!         let Some(mut s) = self.subscriber.lock().unwrap().take() else { return };
//!         if n == 0 {
//!             s.on_error(StreamError::illegal_demand(n));
//!         } else {
//!             s.on_next(self.value);
//!             s.on_complete();
//!         }
//!     }
//!     fn cancel(&self) {
//!         self.subscriber.lock().unwrap().take();
//!     }
//! }
//!
//! impl Publisher<u32> for Just {
//!     fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u32>>) {
//!         let subscription = Arc::new(JustSubscription {
//!             value: self.0,
//!             subscriber: Mutex::new(None),
//!         });
//!         subscriber.on_subscribe(subscription.clone());
//!         *subscription.subscriber.lock().unwrap() = Some(subscriber);
//!     }
//! }
//! # let _ = Just(1);
//! ```
//!
//! (A real publisher must also cope with `request` called from inside
//! `on_subscribe`; the reference implementation shows how.)

#![warn(missing_docs)]

pub mod demand;
pub mod done;
mod error;
mod reactive;
pub mod rules;
pub mod streamlet;

pub use error::{IllegalDemand, StreamError};
pub use reactive::{Processor, Publisher, Subscriber, Subscription};
pub use streamlet::{Sink, Source, Talkback};
