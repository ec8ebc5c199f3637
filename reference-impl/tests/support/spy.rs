//! An upstream whose subscription records what it was asked.

use std::sync::{Arc, Mutex};

use reactive_streams::{Publisher, Subscriber, Subscription, demand};

#[derive(Default)]
pub struct SpyState {
    pub requests: Vec<u64>,
    pub cancelled: bool,
}

#[derive(Clone, Default)]
pub struct Spy(pub Arc<Mutex<SpyState>>);

impl Spy {
    pub fn requested(&self) -> u64 {
        self.0
            .lock()
            .unwrap()
            .requests
            .iter()
            .fold(0, |a, &n| demand::add(a, n))
    }
    pub fn requests(&self) -> Vec<u64> {
        self.0.lock().unwrap().requests.clone()
    }
    pub fn cancelled(&self) -> bool {
        self.0.lock().unwrap().cancelled
    }
}

impl Subscription for Spy {
    fn request(&self, n: u64) {
        self.0.lock().unwrap().requests.push(n);
    }
    fn cancel(&self) {
        self.0.lock().unwrap().cancelled = true;
    }
}

/// A publisher that only hands out its spy: the test drives the subscriber.
pub struct SpyPublisher {
    pub spy: Spy,
    pub subscriber: Mutex<Option<Box<dyn Subscriber<u64>>>>,
}

impl SpyPublisher {
    pub fn new() -> Self {
        SpyPublisher {
            spy: Spy::default(),
            subscriber: Mutex::new(None),
        }
    }
    pub fn with<R>(&self, f: impl FnOnce(&mut dyn Subscriber<u64>) -> R) -> R {
        let mut guard = self.subscriber.lock().unwrap();
        f(guard.as_mut().expect("subscribed").as_mut())
    }
}

impl Publisher<u64> for SpyPublisher {
    fn subscribe(&self, mut subscriber: Box<dyn Subscriber<u64>>) {
        subscriber.on_subscribe(Arc::new(self.spy.clone()));
        *self.subscriber.lock().unwrap() = Some(subscriber);
    }
}
