//! §1.10: a publisher is subscribed with a different subscriber each time.
//! `subscribe` takes the subscriber by value, so giving the same one twice
//! is a use of a moved value.
//!
//! This is all the types prevent of §2.12 ("on_subscribe at most once on a
//! given subscriber"): a publisher can still call `on_subscribe` twice on
//! the subscriber it owns; the TCK's probe catches that at run time
//! (`publisher::spec_2_12`, and in every other rule test).

use std::sync::Arc;
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};

struct Probe;

impl Subscriber<u8> for Probe {
    fn on_subscribe(&mut self, _: Arc<dyn Subscription>) {}
    fn on_next(&mut self, _: u8) {}
    fn on_error(&mut self, _: StreamError) {}
    fn on_complete(&mut self) {}
}

fn subscribe_twice(publisher: &dyn Publisher<u8>) {
    let subscriber: Box<dyn Subscriber<u8>> = Box::new(Probe);
    publisher.subscribe(subscriber);
    publisher.subscribe(subscriber);
}

fn main() {
    let _ = subscribe_twice;
}
