//! Instrumented wakers: the TCK's own executor hands these to the streams
//! and sinks it polls, names each one (`w1`, `w2`, …), records every wake-up
//! in the rule's trace, and lets a rule wait, with a deadline, for one of
//! them to be woken. The number of live clones shows whether a stream still
//! holds a waker after it was dropped.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::task::{Wake, Waker};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::context::RuleCx;
use crate::env::TestEnv;

/// How long the TCK waits for a wake-up after a `Pending` before it polls
/// again anyway, when it is lenient about lost wake-ups (the wake-up rules
/// judge those): the no-signal window, at least 1 ms.
pub(crate) fn poll_slice(env: &TestEnv) -> Duration {
    env.no_signal_timeout().max(Duration::from_millis(1))
}

/// One named waker the TCK polls with.
pub(crate) struct WakeProbe {
    name: String,
    cx: RuleCx,
    wakes: AtomicU64,
    lock: Mutex<()>,
    woken: Condvar,
    /// Every [`Waker`] handed out (clones share one target), to count the
    /// live ones.
    issued: Mutex<Vec<Weak<WakeTarget>>>,
    /// Run by every wake-up once it is recorded (see [`WakeProbe::on_wake`]).
    on_wake: Mutex<Option<WakeHook>>,
}

/// What a rule runs inside a wake-up call, on the waking thread.
pub(crate) type WakeHook = Arc<dyn Fn() + Send + Sync>;

/// What a handed-out [`Waker`] points at; its clones share it.
struct WakeTarget {
    probe: Arc<WakeProbe>,
}

impl WakeProbe {
    /// A fresh waker probe named `name`, tracing into `cx`.
    pub(crate) fn new(cx: &RuleCx, name: String) -> Arc<WakeProbe> {
        Arc::new(WakeProbe {
            name,
            cx: cx.clone(),
            wakes: AtomicU64::new(0),
            lock: Mutex::new(()),
            woken: Condvar::new(),
            issued: Mutex::new(Vec::new()),
            on_wake: Mutex::new(None),
        })
    }

    /// Runs `hook` inside every later wake-up, on the waking thread, after
    /// the wake-up is recorded and waiters are told: a rule can hold the
    /// waking thread there (the race of `stream.2` does, to let the woken
    /// task poll before the waker's caller goes on).
    pub(crate) fn on_wake(&self, hook: WakeHook) {
        *self.on_wake.lock() = Some(hook);
    }

    /// `w1`, `w2`, …
    pub(crate) fn name(&self) -> &str {
        &self.name
    }

    /// How many times it has been woken so far.
    pub(crate) fn wakes(&self) -> u64 {
        self.wakes.load(Ordering::SeqCst)
    }

    /// A [`Waker`] that wakes this probe.
    pub(crate) fn waker(self: &Arc<Self>) -> Waker {
        let target = Arc::new(WakeTarget {
            probe: self.clone(),
        });
        let mut issued = self.issued.lock();
        issued.retain(|weak| weak.strong_count() > 0);
        issued.push(Arc::downgrade(&target));
        Waker::from(target)
    }

    /// Waits until it has been woken more than `since` times, at most
    /// `within`; whether it was.
    pub(crate) fn wait_woken(&self, since: u64, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        let mut guard = self.lock.lock();
        while self.wakes() <= since {
            if self.woken.wait_until(&mut guard, deadline).timed_out() {
                return self.wakes() > since;
            }
        }
        true
    }

    /// Live clones of the [`Waker`]s it handed out.
    pub(crate) fn clones_alive(&self) -> usize {
        self.issued.lock().iter().map(Weak::strong_count).sum()
    }

    /// Waits until no clone of its [`Waker`]s is alive, at most until
    /// `deadline`; whether none is. Every dropped target notifies, so
    /// another thread's drop is seen at once.
    fn wait_no_clones(&self, deadline: Instant) -> bool {
        let mut guard = self.lock.lock();
        while self.clones_alive() > 0 {
            if self.woken.wait_until(&mut guard, deadline).timed_out() {
                return self.clones_alive() == 0;
            }
        }
        true
    }

    fn record_wake(&self) {
        self.cx.trace(format!("wake({})", self.name));
        {
            let _guard = self.lock.lock();
            self.wakes.fetch_add(1, Ordering::SeqCst);
            self.woken.notify_all();
        }
        let hook = self.on_wake.lock().clone();
        if let Some(hook) = hook {
            hook();
        }
    }
}

impl Drop for WakeTarget {
    fn drop(&mut self) {
        // The strong count is already 0 here: a waiter in
        // `wait_no_clones` sees this clone gone.
        let _guard = self.probe.lock.lock();
        self.probe.woken.notify_all();
    }
}

impl Wake for WakeTarget {
    fn wake(self: Arc<Self>) {
        self.probe.record_wake();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.probe.record_wake();
    }
}

/// Every waker probe of one run, so that a rule can name them in order and
/// check, at the end, that nothing still holds one.
pub(crate) struct WakerSet {
    cx: RuleCx,
    made: Vec<Arc<WakeProbe>>,
}

impl WakerSet {
    pub(crate) fn new(cx: &RuleCx) -> WakerSet {
        WakerSet {
            cx: cx.clone(),
            made: Vec::new(),
        }
    }

    /// A new probe, `w<k>` for the k-th made in this run.
    pub(crate) fn fresh(&mut self) -> Arc<WakeProbe> {
        let probe = WakeProbe::new(&self.cx, format!("w{}", self.made.len() + 1));
        self.made.push(probe.clone());
        probe
    }

    /// Waits, at most `within`, until no clone of any probe is alive; the
    /// probes still held otherwise (`w2 (1 clone)`).
    pub(crate) fn wait_released(&self, within: Duration) -> Result<(), String> {
        let deadline = Instant::now() + within;
        for probe in &self.made {
            probe.wait_no_clones(deadline);
        }
        let held: Vec<String> = self
            .made
            .iter()
            .filter(|p| p.clones_alive() > 0)
            .map(|p| {
                let n = p.clones_alive();
                format!("{} ({n} clone{})", p.name(), if n == 1 { "" } else { "s" })
            })
            .collect();
        if held.is_empty() {
            Ok(())
        } else {
            Err(held.join(", "))
        }
    }
}
