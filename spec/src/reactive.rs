use std::sync::Arc;

use crate::StreamError;

/// A provider of a potentially unbounded number of sequenced elements,
/// published according to the demand received from its subscribers (§1).
///
/// `subscribe` takes `&self` and the subscriber by value: one publisher may
/// be subscribed many times (§1.10, §1.11), and the same subscriber can never
/// be given twice, because it was moved (§1.10 is enforced by the type).
///
/// The publisher must call [`Subscriber::on_subscribe`] before any other
/// signal and return normally (§1.9): the only way to reject a subscriber is
/// `on_subscribe` followed by `on_error`.
pub trait Publisher<T>: Send + Sync {
    /// Requests the publisher to start streaming data to `subscriber`.
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>);
}

/// The receiving end of a subscription (§2).
///
/// Signal methods take `&mut self`, so safe code cannot enter one subscriber
/// from two threads at once (the "serially" of §1.3). A subscriber must be
/// `Send`: publishers may signal it from any thread, one signal at a time.
///
/// Every method must return normally (§2.13): a subscriber that cannot go on
/// cancels its subscription instead of panicking.
pub trait Subscriber<T>: Send {
    /// Called once, before any other signal, with the subscription to
    /// request from and cancel (§1.9, §2.12).
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>);

    /// One element, never more than demanded (§1.1).
    fn on_next(&mut self, element: T);

    /// Terminal failure; nothing follows (§1.7). The subscription is then
    /// cancelled and must not be touched (§2.3, §2.4).
    fn on_error(&mut self, error: StreamError);

    /// Terminal success; nothing follows (§1.7). The subscription is then
    /// cancelled and must not be touched (§2.3, §2.4).
    fn on_complete(&mut self);
}

/// The one-to-one lifecycle of a subscriber subscribing to a publisher (§3).
///
/// It is `Send + Sync` and shared as `Arc<dyn Subscription>`: the subscriber
/// may keep it, hand it to its own task, and call it from any thread — but
/// serially (§2.7). Both methods must return promptly and normally
/// (§3.4, §3.5, §3.15, §3.16).
///
/// Demand is a `u64`; see [`crate::demand`] for what counts as unbounded
/// (§3.17). `request(0)` is illegal and must be answered with
/// `on_error(StreamError::illegal_demand(0))` (§3.9).
pub trait Subscription: Send + Sync {
    /// Adds `n` to the demand of this subscription (§3.8).
    fn request(&self, n: u64);

    /// Asks the publisher to stop signalling and to drop the subscriber
    /// eventually (§3.12, §3.13). Idempotent (§3.5, §3.7).
    fn cancel(&self);
}

/// A processing stage: a subscriber of `T` upstream and a publisher of `R`
/// downstream, obeying both contracts (§4.1).
///
/// # Shape
///
/// A processor is used in both roles at once: it is moved into its upstream
/// publisher as a `Box<dyn Subscriber<T>>` while downstream subscribers keep
/// calling `subscribe` on it. In Rust that means a processor is a *handle*: a
/// cheap, cloneable value (an `Arc` around shared state) whose clones all
/// refer to the same stage. Give one clone to upstream, keep another as the
/// publisher:
///
/// ```ignore
/// let stage = MapProcessor::new(|x: u32| x * 2);
/// upstream.subscribe(Box::new(stage.clone())); // the subscriber role
/// stage.subscribe(Box::new(downstream));       // the publisher role
/// ```
///
/// The trait is implemented for every type that has both roles, so it needs
/// no `impl` of its own. It is object-safe; `Clone` is asked for where a
/// processor is taken by a generic function, not here.
pub trait Processor<T, R>: Subscriber<T> + Publisher<R> {}

impl<P, T, R> Processor<T, R> for P where P: Subscriber<T> + Publisher<R> + ?Sized {}

// Smart pointers to an implementation are implementations too, so a
// `Box<dyn Publisher<T>>` or an `Arc<MyPublisher>` can go wherever a
// publisher is asked for.
impl<T, P: Publisher<T> + ?Sized> Publisher<T> for Box<P> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        (**self).subscribe(subscriber)
    }
}

impl<T, P: Publisher<T> + ?Sized> Publisher<T> for Arc<P> {
    fn subscribe(&self, subscriber: Box<dyn Subscriber<T>>) {
        (**self).subscribe(subscriber)
    }
}

impl<T, S: Subscriber<T> + ?Sized> Subscriber<T> for Box<S> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        (**self).on_subscribe(subscription)
    }
    fn on_next(&mut self, element: T) {
        (**self).on_next(element)
    }
    fn on_error(&mut self, error: StreamError) {
        (**self).on_error(error)
    }
    fn on_complete(&mut self) {
        (**self).on_complete()
    }
}

// Trait objects print as their role, so that types holding them can derive
// `Debug` (other crates cannot write these impls: orphan rule).
impl std::fmt::Debug for dyn Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Subscription")
    }
}

impl<T> std::fmt::Debug for dyn Subscriber<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Subscriber")
    }
}

impl<T> std::fmt::Debug for dyn Publisher<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn Publisher")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_object_safe(
        _: Option<Box<dyn Publisher<u8>>>,
        _: Option<Box<dyn Subscriber<u8>>>,
        _: Option<Arc<dyn Subscription>>,
        _: Option<Box<dyn Processor<u8, u16>>>,
    ) {
    }

    #[test]
    fn traits_are_object_safe() {
        assert_object_safe(None, None, None, None);
    }
}
