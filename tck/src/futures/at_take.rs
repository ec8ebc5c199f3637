//! A race made to happen, not waited for: the moment a target takes the
//! waker of a poll (clones it to register it, or wakes it by reference),
//! another thread makes an item, capacity or end available, and the target
//! goes on only once that is done.
//!
//! A target that looks for progress, finds none and only then registers
//! its waker, with no lock between, loses the wake-up of whatever arrives
//! in between; left to chance, that window is hit in a few rounds of a
//! hundred. Here it is hit every time the target registers: the
//! registration is the take, and the item lands inside it. A correct
//! target passes whatever its shape: one that registers before it looks
//! again sees the item; one that holds one lock around its check and its
//! registration keeps the other thread out until it has registered, and
//! is then woken. The wait for the other thread's action is bounded by
//! the no-signal window once the action has begun, so such a lock only
//! costs that window, twice at most in one race (then takes act no more:
//! the lock would keep every action out alike); the wait for the action to
//! begin is independent of the target and is bounded by the timeout.
//!
//! Only the first take inside a poll of an armed round acts, and only on a
//! thread other than the worker's (a producer that clones the waker it
//! wakes is not a registration).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::{self, ThreadId};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::context::RuleCx;
use crate::wakers::{TakeHook, Taken, poll_slice};

/// Takes held up this many times act no more in the same race: a target
/// that holds what the action needs while it takes its waker keeps every
/// later action out the same way, and each costs the window.
const BLOCKED_ENOUGH: u64 = 2;

/// Shared by the polling thread, the target's takes and the worker thread
/// that makes progress available.
pub(crate) struct AtTake {
    cx: RuleCx,
    /// What the worker makes available, for traces (`item`, `capacity`).
    what: &'static str,
    /// `k + 1` while a poll of round `k` runs and no take has acted yet.
    armed: AtomicU64,
    /// Takes still to let pass in the armed poll before one acts.
    skip: AtomicU64,
    /// `k + 1` once the action of round `k` was asked for.
    requested: AtomicU64,
    /// `k + 1` once the worker began it.
    began: AtomicU64,
    /// `k + 1` once it finished.
    done: AtomicU64,
    /// `k + 1` if the action of round `k` was asked for by a take.
    by_take: AtomicU64,
    /// Takes whose action stayed under way past the window: the target
    /// held what the action needs while it took its waker.
    blocked: AtomicU64,
    worker: OnceLock<ThreadId>,
    stopped: AtomicBool,
    start_within: Duration,
    finish_within: Duration,
    lock: Mutex<()>,
    changed: Condvar,
}

impl AtTake {
    /// A fresh race making `what` available.
    pub(crate) fn new(cx: &RuleCx, what: &'static str) -> Arc<AtTake> {
        Arc::new(AtTake {
            cx: cx.clone(),
            what,
            armed: AtomicU64::new(0),
            skip: AtomicU64::new(0),
            requested: AtomicU64::new(0),
            began: AtomicU64::new(0),
            done: AtomicU64::new(0),
            by_take: AtomicU64::new(0),
            blocked: AtomicU64::new(0),
            worker: OnceLock::new(),
            stopped: AtomicBool::new(false),
            start_within: cx.env().timeout(),
            finish_within: poll_slice(cx.env()),
            lock: Mutex::new(()),
            changed: Condvar::new(),
        })
    }

    /// The hook to install on the waker probe the target is polled with
    /// ([`WakeProbe::on_take`](crate::wakers::WakeProbe::on_take)).
    pub(crate) fn hook(self: &Arc<Self>, waker: String) -> TakeHook {
        let race = self.clone();
        Arc::new(move |how| race.taken(how, &waker))
    }

    fn notify(&self) {
        let _guard = self.lock.lock();
        self.changed.notify_all();
    }

    /// Waits, at most `within`, until `reached`; whether it was.
    fn wait(&self, within: Duration, reached: impl Fn() -> bool) -> bool {
        let deadline = Instant::now() + within;
        let mut guard = self.lock.lock();
        while !reached() {
            if self.changed.wait_until(&mut guard, deadline).timed_out() {
                return reached();
            }
        }
        true
    }

    fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// The poll about to run belongs to round `k`: its take number `nth`
    /// (from 0) acts, unless the action of round `k` was asked for
    /// already. Varying `nth` over the rounds reaches the registrations of
    /// a target that takes its waker several times in one poll (an adapter
    /// that passes it to its inner streams, then keeps it itself).
    pub(crate) fn arm(&self, k: u64, nth: u64) {
        if self.requested.load(Ordering::SeqCst) <= k {
            self.skip.store(nth, Ordering::SeqCst);
            self.armed.store(k + 1, Ordering::SeqCst);
        }
    }

    /// The poll has returned: no later take acts. Whether a take of it
    /// asked for the action of round `k`.
    pub(crate) fn disarm(&self, k: u64) -> bool {
        self.armed.store(0, Ordering::SeqCst);
        self.by_take.load(Ordering::SeqCst) == k + 1
    }

    /// Asks the worker for the action of round `k` now (the polls of the
    /// round took no waker, or the round has no poll to race).
    pub(crate) fn request(&self, k: u64) {
        self.requested.fetch_max(k + 1, Ordering::SeqCst);
        self.notify();
    }

    /// Whether the action of round `k` has finished.
    pub(crate) fn is_done(&self, k: u64) -> bool {
        self.done.load(Ordering::SeqCst) > k
    }

    /// Waits, at most `within`, until the action of round `k` has
    /// finished; whether it has.
    pub(crate) fn wait_done(&self, k: u64, within: Duration) -> bool {
        self.wait(within, || self.is_done(k))
    }

    /// No further action will be asked for: a waiting worker returns.
    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.notify();
    }

    fn taken(&self, how: Taken, waker: &str) {
        if self.worker.get() == Some(&thread::current().id()) {
            return;
        }
        let k1 = self.armed.load(Ordering::SeqCst);
        if k1 == 0 || self.blocked.load(Ordering::SeqCst) >= BLOCKED_ENOUGH {
            return;
        }
        if self
            .skip
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            return;
        }
        if self
            .armed
            .compare_exchange(k1, 0, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return;
        }
        let k = k1 - 1;
        self.by_take.store(k1, Ordering::SeqCst);
        self.cx.trace(format!(
            "{waker} taken ({}) inside the poll: {} {k} made available from thread rs-tck-feeder now",
            how.call(),
            self.what
        ));
        self.request(k);
        let began = self.wait(self.start_within, || {
            self.began.load(Ordering::SeqCst) > k || self.is_stopped()
        });
        let finished = began
            && self.wait(self.finish_within, || {
                self.done.load(Ordering::SeqCst) > k || self.is_stopped()
            });
        if began && !finished {
            self.blocked.fetch_add(1, Ordering::SeqCst);
            self.cx.trace(format!(
                "{} {k} still under way after {} ms: the target holds what it needs while it takes {waker}; it goes on",
                self.what,
                self.finish_within.as_millis()
            ));
        }
    }

    /// On the worker thread: waits, at most `within`, until the action of
    /// round `k` is asked for, and marks it begun; whether it was asked for
    /// (not if stopped).
    pub(crate) fn begin_when_asked(&self, k: u64, within: Duration) -> bool {
        let _ = self.worker.set(thread::current().id());
        let asked = self.wait(within, || {
            self.requested.load(Ordering::SeqCst) > k || self.is_stopped()
        }) && !self.is_stopped();
        if asked {
            self.began.fetch_max(k + 1, Ordering::SeqCst);
            self.notify();
        }
        asked
    }

    /// On the worker thread: the action of round `k` is done.
    pub(crate) fn finish(&self, k: u64) {
        self.done.fetch_max(k + 1, Ordering::SeqCst);
        self.notify();
    }
}
