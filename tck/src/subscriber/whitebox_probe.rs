//! The instrumentation a whitebox-verified subscriber carries: it tells the
//! TCK what its processing logic received, and hands the TCK a [`Puppet`]
//! to pull ("request n now", "cancel now").

use std::fmt::{self, Debug};
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use reactive_streams::{StreamError, Subscriber, Subscription};

use crate::context::{Failure, RuleCx};

/// The controls a whitebox-verified subscriber hands the TCK: the TCK pulls
/// them to make the subscriber request or cancel now.
///
/// Implemented for every `Arc<S: Subscription>`, so registering the
/// subscription itself is enough; implement it on your own type when
/// requesting or cancelling must go through the subscriber's logic (for
/// example to record that it cancelled).
pub trait Puppet: Send + Sync + 'static {
    /// Make the subscriber call `request(n)` on its subscription.
    fn trigger_request(&self, n: u64);
    /// Make the subscriber call `cancel()` on its subscription.
    fn trigger_cancel(&self);
}

impl<S: Subscription + ?Sized + 'static> Puppet for Arc<S> {
    fn trigger_request(&self, n: u64) {
        self.request(n);
    }

    fn trigger_cancel(&self) {
        self.cancel();
    }
}

/// What the subscriber's processing logic reported, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Report {
    /// An element, as its `Debug` text.
    Next(String),
    /// `on_error`, with the error's text.
    Error(String),
    /// `on_complete`.
    Complete,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Report::Next(element) => write!(f, "on_next({element})"),
            Report::Error(error) => write!(f, "on_error({error})"),
            Report::Complete => f.write_str("on_complete"),
        }
    }
}

/// The TCK's probe inside a whitebox-verified subscriber. Cheap to clone;
/// `Send + Sync`, so a worker thread can report through its own clone.
///
/// Two ways to instrument, a few lines each:
///
/// * **Report from the processing logic** (checks §2.11 for real): call
///   [`WhiteboxProbe::registered`] where the subscriber takes up its
///   subscription, and
///   [`received_next`](WhiteboxProbe::received_next),
///   [`received_error`](WhiteboxProbe::received_error),
///   [`received_complete`](WhiteboxProbe::received_complete) where the
///   subscriber actually processes each signal (on its worker thread, if it
///   has one).
/// * **Wrap** an unchanged subscriber with [`WhiteboxProbe::wrap`]: the
///   wrapper reports each signal as it arrives and registers the
///   subscription itself as the puppet. Right for a subscriber that
///   processes signals inside the signal methods; not for an asynchronous
///   one (see below).
///
/// A synchronous subscriber, reporting from its signal methods:
///
/// ```
/// use std::sync::Arc;
/// use reactive_streams::{StreamError, Subscriber, Subscription};
/// use reactive_streams_tck::subscriber::WhiteboxProbe;
///
/// struct Sum {
///     total: u64,
///     subscription: Option<Arc<dyn Subscription>>,
///     probe: WhiteboxProbe<u64>, // the instrumentation
/// }
///
/// impl Subscriber<u64> for Sum {
///     fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
///         if self.subscription.is_some() {
///             return subscription.cancel(); // §2.5
///         }
///         self.probe.registered(subscription.clone()); // the TCK may pull it
///         self.subscription = Some(subscription);
///     }
///     fn on_next(&mut self, element: u64) {
///         self.probe.received_next(&element);
///         self.total += element;
///     }
///     fn on_error(&mut self, error: StreamError) {
///         self.probe.received_error(&error);
///     }
///     fn on_complete(&mut self) {
///         self.probe.received_complete();
///     }
/// }
/// ```
///
/// # An asynchronous subscriber
///
/// A subscriber whose signal methods only hand signals over to a worker
/// (a thread, a task) requests when the worker *processes* a signal, which
/// can be after a later terminal signal was handed over. The TCK judges
/// calls on the subscription against what the probe was told: once the
/// terminal signal is reported, any further call breaks §2.3/§2.4. So
/// report from the worker, where signals are processed in order — then a
/// request the worker makes while an earlier signal is still being
/// processed is correctly seen as made before the terminal signal — and
/// register the subscription from the worker after its own first request,
/// so that the TCK never pulls the puppet before the subscriber has asked
/// for anything itself. The lines marked `// ←` are the instrumentation:
///
/// ```
/// use std::sync::{mpsc, Arc};
/// use reactive_streams::{StreamError, Subscriber, Subscription};
/// use reactive_streams_tck::outcome::Verdict;
/// use reactive_streams_tck::subscriber::{
///     SubscriberWhiteboxFactory, SubscriberWhiteboxVerification, WhiteboxProbe,
/// };
///
/// enum Message {
///     Subscribe(Arc<dyn Subscription>),
///     Next(u64),
///     Error(StreamError),
///     Complete,
/// }
///
/// /// Hands every signal to its worker, which requests one element at a time.
/// struct Handoff {
///     to_worker: mpsc::Sender<Message>,
/// }
///
/// impl Handoff {
///     fn spawn(probe: WhiteboxProbe<u64>) -> Handoff {
///         let (to_worker, inbox) = mpsc::channel();
///         std::thread::spawn(move || {
///             let mut subscription: Option<Arc<dyn Subscription>> = None;
///             for message in inbox {
///                 match message {
///                     Message::Subscribe(second) if subscription.is_some() => second.cancel(),
///                     Message::Subscribe(first) => {
///                         first.request(1);
///                         probe.registered(first.clone()); // ←
///                         subscription = Some(first);
///                     }
///                     Message::Next(element) => {
///                         probe.received_next(&element); // ←
///                         if let Some(subscription) = &subscription {
///                             subscription.request(1);
///                         }
///                     }
///                     Message::Error(error) => return probe.received_error(&error), // ←
///                     Message::Complete => return probe.received_complete(), // ←
///                 }
///             }
///         });
///         Handoff { to_worker }
///     }
/// }
///
/// impl Subscriber<u64> for Handoff {
///     fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
///         let _ = self.to_worker.send(Message::Subscribe(subscription));
///     }
///     fn on_next(&mut self, element: u64) {
///         let _ = self.to_worker.send(Message::Next(element));
///     }
///     fn on_error(&mut self, error: StreamError) {
///         let _ = self.to_worker.send(Message::Error(error));
///     }
///     fn on_complete(&mut self) {
///         let _ = self.to_worker.send(Message::Complete);
///     }
/// }
///
/// struct Handoffs;
///
/// impl SubscriberWhiteboxFactory for Handoffs {
///     type Element = u64;
///     fn create_subscriber(&self, probe: WhiteboxProbe<u64>) -> Box<dyn Subscriber<u64>> {
///         Box::new(Handoff::spawn(probe))
///     }
///     fn element(&self, index: u64) -> u64 {
///         index
///     }
/// }
///
/// let results = SubscriberWhiteboxVerification::new(Handoffs).run_all().unwrap();
/// assert!(results.iter().all(|r| r.verdict != Verdict::Failed));
/// ```
///
/// A subscriber that runs a user handler on its worker usually needs no
/// change at all: report from the handler, and register from wherever the
/// worker takes up the subscription (the reference implementation's
/// `QueuedSubscriber::spawn_observed` offers exactly that hook).
pub struct WhiteboxProbe<T> {
    shared: Arc<Shared>,
    _element: PhantomData<fn(T)>,
}

/// Called when the subscriber reports a terminal signal, before the report
/// returns, with `on_complete` or `on_error`.
pub(crate) type TerminalHook = Box<dyn Fn(&'static str) + Send + Sync>;

struct Shared {
    cx: RuleCx,
    on_terminal: Mutex<Option<Arc<TerminalHook>>>,
    /// Whether reported elements are compared with the ones sent (not for
    /// processors, whose output may differ from their input).
    compares_elements: bool,
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    puppets: Vec<Arc<dyn Puppet>>,
    reports: Vec<Report>,
}

impl<T> Clone for WhiteboxProbe<T> {
    fn clone(&self) -> Self {
        WhiteboxProbe {
            shared: self.shared.clone(),
            _element: PhantomData,
        }
    }
}

impl<T> Debug for WhiteboxProbe<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WhiteboxProbe").finish_non_exhaustive()
    }
}

impl<T> WhiteboxProbe<T> {
    pub(crate) fn new(cx: &RuleCx, compares_elements: bool) -> Self {
        WhiteboxProbe {
            shared: Arc::new(Shared {
                cx: cx.clone(),
                on_terminal: Mutex::new(None),
                compares_elements,
                state: Mutex::new(State::default()),
                changed: Condvar::new(),
            }),
            _element: PhantomData,
        }
    }

    /// Call from `on_subscribe`: the TCK will pull `puppet` to make the
    /// subscriber request or cancel. Register once, for the subscription
    /// the subscriber keeps (not for a second one it cancels, §2.5).
    pub fn registered(&self, puppet: impl Puppet) {
        self.shared.cx.trace("probe: registered a puppet");
        let mut state = self.shared.state.lock();
        state.puppets.push(Arc::new(puppet));
        self.shared.changed.notify_all();
    }

    fn report(&self, report: Report) {
        self.shared
            .cx
            .trace(format!("probe: the subscriber processed {report}"));
        let terminal = match report {
            Report::Next(_) => None,
            Report::Error(_) => Some("on_error"),
            Report::Complete => Some("on_complete"),
        };
        if let Some(signal) = terminal {
            let hook = self.shared.on_terminal.lock().clone();
            if let Some(hook) = hook {
                hook(signal);
            }
        }
        let mut state = self.shared.state.lock();
        state.reports.push(report);
        self.shared.changed.notify_all();
    }

    /// Installs the hook run when a terminal signal is reported.
    pub(crate) fn on_terminal_report(&self, hook: TerminalHook) {
        *self.shared.on_terminal.lock() = Some(Arc::new(hook));
    }

    /// Call where the subscriber processes an element.
    pub fn received_next(&self, element: &T)
    where
        T: Debug,
    {
        self.report(Report::Next(format!("{element:?}")));
    }

    /// An element that the TCK should count but not compare (a processor's
    /// output).
    pub(crate) fn received_next_uncompared(&self) {
        self.report(Report::Next(String::from("_")));
    }

    /// Call where the subscriber processes `on_error`.
    pub fn received_error(&self, error: &StreamError) {
        self.report(Report::Error(error.to_string()));
    }

    /// Call where the subscriber processes `on_complete`.
    pub fn received_complete(&self) {
        self.report(Report::Complete);
    }

    /// Wraps an unchanged subscriber: the wrapper reports every signal as
    /// it arrives and registers the subscription as the [`Puppet`].
    ///
    /// ```
    /// use reactive_streams::Subscriber;
    /// use reactive_streams_tck::subscriber::WhiteboxProbe;
    /// # fn example<S: Subscriber<u64> + 'static>(probe: WhiteboxProbe<u64>, my_subscriber: S) {
    /// let instrumented: Box<dyn Subscriber<u64>> = Box::new(probe.wrap(my_subscriber));
    /// # }
    /// ```
    pub fn wrap<S: Subscriber<T>>(self, subscriber: S) -> Instrumented<S, T> {
        Instrumented {
            inner: subscriber,
            probe: self,
            registered: false,
        }
    }

    pub(crate) fn compares_elements(&self) -> bool {
        self.shared.compares_elements
    }

    fn wait<R>(
        &self,
        timeout: Duration,
        mut ready: impl FnMut(&mut State) -> Option<R>,
    ) -> Option<R> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.state.lock();
        loop {
            if let Some(result) = ready(&mut state) {
                return Some(result);
            }
            if self
                .shared
                .changed
                .wait_until(&mut state, deadline)
                .timed_out()
            {
                return ready(&mut state);
            }
        }
    }

    /// The puppet, waiting for the subscriber to register it.
    pub(crate) fn expect_puppet(&self) -> Result<Arc<dyn Puppet>, Failure> {
        let cx = &self.shared.cx;
        self.wait(cx.env().timeout(), |s| s.puppets.first().cloned())
            .ok_or_else(|| {
                cx.failure_of(
                    "tck.whitebox_probe",
                    "the subscriber to register a puppet with WhiteboxProbe::registered in on_subscribe",
                    "no puppet was registered",
                )
            })
    }

    /// Waits up to the timeout until `n` reports in total were made.
    pub(crate) fn wait_reports(&self, n: usize) -> Vec<Report> {
        let timeout = self.shared.cx.env().timeout();
        self.wait(timeout, |s| {
            (s.reports.len() >= n).then(|| s.reports.clone())
        })
        .unwrap_or_else(|| self.shared.state.lock().reports.clone())
    }

    /// Waits up to the timeout for a terminal report; every report so far.
    pub(crate) fn wait_terminal_report(&self) -> Vec<Report> {
        self.wait_terminal_report_within(self.shared.cx.env().timeout())
    }

    /// Waits up to `timeout` for a terminal report; every report so far.
    pub(crate) fn wait_terminal_report_within(&self, timeout: Duration) -> Vec<Report> {
        let terminal = |r: &Report| !matches!(r, Report::Next(_));
        self.wait(timeout, |s| {
            s.reports.iter().any(terminal).then(|| s.reports.clone())
        })
        .unwrap_or_else(|| self.shared.state.lock().reports.clone())
    }
}

/// A subscriber wrapped by [`WhiteboxProbe::wrap`].
pub struct Instrumented<S, T> {
    inner: S,
    probe: WhiteboxProbe<T>,
    registered: bool,
}

impl<S: Debug, T> Debug for Instrumented<S, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Instrumented")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<S: Subscriber<T>, T: Debug + Send + 'static> Subscriber<T> for Instrumented<S, T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        // Only the first subscription is the one the subscriber keeps.
        if !self.registered {
            self.registered = true;
            self.probe.registered(subscription.clone());
        }
        self.inner.on_subscribe(subscription);
    }

    fn on_next(&mut self, element: T) {
        self.probe.received_next(&element);
        self.inner.on_next(element);
    }

    fn on_error(&mut self, error: StreamError) {
        self.probe.received_error(&error);
        self.inner.on_error(error);
    }

    fn on_complete(&mut self) {
        self.probe.received_complete();
        self.inner.on_complete();
    }
}
