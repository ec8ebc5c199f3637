//! Instrumented wakers: the TCK's own executor hands these to the streams
//! and sinks it polls, names each one (`w1`, `w2`, …), records every wake-up
//! in the rule's trace, and lets a rule wait, with a deadline, for one of
//! them to be woken. The number of live clones shows whether a stream still
//! holds a waker after it was dropped.
//!
//! The wakers are built on a vtable of the TCK's own, not on
//! [`std::task::Wake`], so that a rule also sees the moment a target
//! *takes* its waker — clones it (to register it) or wakes it by
//! reference — and can make something happen exactly then (the races of
//! `stream.2`, `sink.1` and `adapter.2`). `Waker::will_wake` is answered by
//! std from the waker's address alone, without calling it, so it cannot
//! be seen; a target that keeps its stored waker because `will_wake` says
//! so has a registration in place already.

use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::task::{RawWaker, RawWakerVTable, Waker};
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
    /// Run whenever the waker is taken (see [`WakeProbe::on_take`]).
    on_take: Mutex<Option<TakeHook>>,
}

/// What a rule runs inside a wake-up call, on the waking thread.
pub(crate) type WakeHook = Arc<dyn Fn() + Send + Sync>;

/// How a target took a waker it was handed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Taken {
    /// `clone()`: to keep it, most likely to register it.
    Clone,
    /// `wake_by_ref()`.
    WakeByRef,
}

impl Taken {
    /// `clone` or `wake_by_ref`, as traces print it.
    pub(crate) fn call(self) -> &'static str {
        match self {
            Taken::Clone => "clone",
            Taken::WakeByRef => "wake_by_ref",
        }
    }
}

/// What a rule runs when a waker is taken, on the taking thread, before
/// the call returns to the taker.
pub(crate) type TakeHook = Arc<dyn Fn(Taken) + Send + Sync>;

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
            on_take: Mutex::new(None),
        })
    }

    /// Runs `hook` whenever one of its wakers is cloned or woken by
    /// reference, on the calling thread, before the call returns (after
    /// the wake-up is recorded, for `wake_by_ref`): a rule can make an item
    /// available from another thread at the moment a target registers its
    /// waker, and hold the target there until it is. `None` removes it.
    pub(crate) fn on_take(&self, hook: Option<TakeHook>) {
        *self.on_take.lock() = hook;
    }

    fn taken(&self, how: Taken) {
        let hook = self.on_take.lock().clone();
        if let Some(hook) = hook {
            hook(how);
        }
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
        drop(issued);
        // SAFETY: the vtable's functions uphold the RawWaker contract for
        // data made by `raw` (an `Arc<WakeTarget>` turned into a pointer).
        unsafe { Waker::from_raw(raw(target)) }
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

/// The vtable of every waker the TCK hands out: an `Arc<WakeTarget>` per
/// [`WakeProbe::waker`] call, its clones sharing it.
static VTABLE: RawWakerVTable = RawWakerVTable::new(clone_raw, wake_raw, wake_by_ref_raw, drop_raw);

fn raw(target: Arc<WakeTarget>) -> RawWaker {
    RawWaker::new(Arc::into_raw(target).cast(), &VTABLE)
}

/// The target behind `data`, borrowed: dropping it leaves the count alone.
///
/// # Safety
///
/// `data` comes from [`raw`], and the waker it belongs to is alive.
unsafe fn borrowed(data: *const ()) -> ManuallyDrop<Arc<WakeTarget>> {
    // SAFETY: per the contract, `data` is a live `Arc::into_raw` pointer.
    ManuallyDrop::new(unsafe { Arc::from_raw(data.cast::<WakeTarget>()) })
}

unsafe fn clone_raw(data: *const ()) -> RawWaker {
    // SAFETY: std calls this with the data of a live waker of ours.
    let target = unsafe { borrowed(data) };
    let copy = Arc::clone(&target);
    target.probe.taken(Taken::Clone);
    raw(copy)
}

unsafe fn wake_raw(data: *const ()) {
    // SAFETY: std calls this with the data of a live waker of ours, once,
    // and gives up that waker: the count it held is ours to drop.
    let target = unsafe { Arc::from_raw(data.cast::<WakeTarget>()) };
    target.probe.record_wake();
}

unsafe fn wake_by_ref_raw(data: *const ()) {
    // SAFETY: std calls this with the data of a live waker of ours.
    let target = unsafe { borrowed(data) };
    target.probe.record_wake();
    target.probe.taken(Taken::WakeByRef);
}

unsafe fn drop_raw(data: *const ()) {
    // SAFETY: std calls this once per waker of ours, giving up its count.
    drop(unsafe { Arc::from_raw(data.cast::<WakeTarget>()) });
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
