//! A recording test subscriber and its probe.
#![allow(dead_code)]

pub mod spy;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use reactive_streams::{StreamError, Subscriber, Subscription, demand};

/// How long to wait for something that must happen.
pub const DEADLINE: Duration = Duration::from_secs(10);

#[derive(Debug, Clone)]
pub enum Event<T> {
    Next(T),
    Error(StreamError),
    Complete,
}

pub struct Log<T> {
    pub subscribed: usize,
    pub received: u64,
    pub events: Vec<Event<T>>,
    pub subscription: Option<Arc<dyn Subscription>>,
    pub dropped: bool,
    /// Rule violations seen while recording.
    pub violations: Vec<String>,
}

struct Shared<T> {
    log: Mutex<Log<T>>,
    changed: Condvar,
    /// Total demand the test asked for, raised *before* calling `request`.
    demanded: AtomicU64,
    in_signal: AtomicBool,
}

/// The subscriber half: records every signal. `on_next_request` is asked
/// after each element how much to request from inside `on_next`.
pub struct Recorder<T> {
    shared: Arc<Shared<T>>,
    on_next_request: Box<dyn FnMut(&T) -> u64 + Send>,
    initial: u64,
}

/// The test's half: requests, cancels, waits and inspects.
pub struct Probe<T> {
    shared: Arc<Shared<T>>,
}

impl<T> Clone for Probe<T> {
    fn clone(&self) -> Self {
        Probe {
            shared: self.shared.clone(),
        }
    }
}

pub fn recorder<T: Send + 'static>() -> (Recorder<T>, Probe<T>) {
    recorder_with(0, |_| 0)
}

/// A recorder that requests `initial` in `on_subscribe` and `more(x)` after
/// each element (0 = nothing).
pub fn recorder_with<T: Send + 'static>(
    initial: u64,
    more: impl FnMut(&T) -> u64 + Send + 'static,
) -> (Recorder<T>, Probe<T>) {
    let shared = Arc::new(Shared {
        log: Mutex::new(Log {
            subscribed: 0,
            received: 0,
            events: Vec::new(),
            subscription: None,
            dropped: false,
            violations: Vec::new(),
        }),
        changed: Condvar::new(),
        demanded: AtomicU64::new(0),
        in_signal: AtomicBool::new(false),
    });
    (
        Recorder {
            shared: shared.clone(),
            on_next_request: Box::new(more),
            initial,
        },
        Probe { shared },
    )
}

impl<T> Recorder<T> {
    fn enter(&self) {
        if self.shared.in_signal.swap(true, Ordering::AcqRel) {
            self.violate("§1.3: concurrent signal");
        }
    }
    fn leave(&self) {
        self.shared.in_signal.store(false, Ordering::Release);
        self.shared.changed.notify_all();
    }
    fn violate(&self, what: &str) {
        self.shared
            .log
            .lock()
            .unwrap()
            .violations
            .push(what.to_string());
    }
    fn terminated(log: &Log<T>) -> bool {
        matches!(log.events.last(), Some(Event::Error(_) | Event::Complete))
    }
}

impl<T: Send + 'static> Subscriber<T> for Recorder<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.enter();
        {
            let mut log = self.shared.log.lock().unwrap();
            log.subscribed += 1;
            if log.subscribed > 1 {
                log.violations.push("§1.9/§2.12: on_subscribe twice".into());
            }
            log.subscription = Some(subscription.clone());
        }
        if self.initial > 0 {
            add_demand(&self.shared.demanded, self.initial);
            subscription.request(self.initial);
        }
        self.leave();
    }

    fn on_next(&mut self, element: T) {
        self.enter();
        let more = (self.on_next_request)(&element);
        let subscription = {
            let mut log = self.shared.log.lock().unwrap();
            if log.subscribed == 0 {
                log.violations
                    .push("§1.9: on_next before on_subscribe".into());
            }
            if Self::terminated(&log) {
                log.violations.push("§1.7: on_next after terminal".into());
            }
            log.received += 1;
            let received = log.received;
            if received > self.shared.demanded.load(Ordering::Acquire) {
                log.violations
                    .push(format!("§1.1: element {received} not demanded"));
            }
            log.events.push(Event::Next(element));
            log.subscription.clone()
        };
        if more > 0 {
            if let Some(subscription) = subscription {
                add_demand(&self.shared.demanded, more);
                subscription.request(more);
            }
        }
        self.leave();
    }

    fn on_error(&mut self, error: StreamError) {
        self.enter();
        {
            let mut log = self.shared.log.lock().unwrap();
            if Self::terminated(&log) {
                log.violations.push("§1.7: second terminal".into());
            }
            log.events.push(Event::Error(error));
            log.subscription = None;
        }
        self.leave();
    }

    fn on_complete(&mut self) {
        self.enter();
        {
            let mut log = self.shared.log.lock().unwrap();
            if Self::terminated(&log) {
                log.violations.push("§1.7: second terminal".into());
            }
            log.events.push(Event::Complete);
            log.subscription = None;
        }
        self.leave();
    }
}

impl<T> Drop for Recorder<T> {
    fn drop(&mut self) {
        let mut log = self.shared.log.lock().unwrap();
        log.dropped = true;
        log.subscription = None;
        drop(log);
        self.shared.changed.notify_all();
    }
}

fn add_demand(demanded: &AtomicU64, n: u64) {
    let _ = demanded.fetch_update(Ordering::AcqRel, Ordering::Acquire, |d| {
        Some(demand::add(d, n))
    });
}

impl<T: Clone> Probe<T> {
    pub fn log(&self) -> MutexGuard<'_, Log<T>> {
        self.shared.log.lock().unwrap()
    }

    fn subscription(&self) -> Option<Arc<dyn Subscription>> {
        self.log().subscription.clone()
    }

    /// Requests `n` (no-op once the subscription is gone).
    pub fn request(&self, n: u64) {
        if let Some(subscription) = self.subscription() {
            add_demand(&self.shared.demanded, n);
            subscription.request(n);
        }
    }

    pub fn cancel(&self) {
        if let Some(subscription) = self.subscription() {
            subscription.cancel();
        }
    }

    /// Waits until `done(log)` holds or the deadline passes.
    pub fn wait_until(&self, deadline: Duration, done: impl Fn(&Log<T>) -> bool) -> bool {
        let until = Instant::now() + deadline;
        let mut log = self.log();
        loop {
            if done(&log) {
                return true;
            }
            let now = Instant::now();
            if now >= until {
                return false;
            }
            log = self
                .shared
                .changed
                .wait_timeout(log, until - now)
                .unwrap()
                .0;
        }
    }

    pub fn wait_subscribed(&self) -> bool {
        self.wait_until(DEADLINE, |log| log.subscribed > 0)
    }

    pub fn wait_terminal(&self) -> bool {
        self.wait_until(DEADLINE, |log| {
            matches!(log.events.last(), Some(Event::Error(_) | Event::Complete))
        })
    }

    pub fn wait_elements(&self, n: usize) -> bool {
        self.wait_until(DEADLINE, |log| log.elements_len() >= n)
    }

    pub fn wait_dropped(&self) -> bool {
        self.wait_until(DEADLINE, |log| log.dropped)
    }

    pub fn elements(&self) -> Vec<T> {
        self.log()
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Next(x) => Some(x.clone()),
                _ => None,
            })
            .collect()
    }

    pub fn terminals(&self) -> Vec<Event<T>> {
        self.log()
            .events
            .iter()
            .filter(|e| !matches!(e, Event::Next(_)))
            .cloned()
            .collect()
    }

    pub fn completed(&self) -> bool {
        matches!(self.terminals().as_slice(), [Event::Complete])
    }

    pub fn error(&self) -> Option<StreamError> {
        match self.terminals().as_slice() {
            [Event::Error(e)] => Some(e.clone()),
            _ => None,
        }
    }

    pub fn violations(&self) -> Vec<String> {
        self.log().violations.clone()
    }

    pub fn demanded(&self) -> u64 {
        self.shared.demanded.load(Ordering::Acquire)
    }
}

impl<T> Log<T> {
    pub fn elements_len(&self) -> usize {
        self.received as usize
    }
}
