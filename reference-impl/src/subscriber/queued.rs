//! [`QueuedSubscriber`]: hands signals over a bounded queue to its own
//! thread (§2.2).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvError, Sender, TryRecvError, TrySendError};
use reactive_streams::{StreamError, Subscriber, Subscription};

use super::refill;

/// A signal as seen by a [`QueuedSubscriber`]'s handler.
#[derive(Debug, Clone)]
pub enum Signal<T> {
    /// An element.
    Next(T),
    /// The stream failed.
    Error(StreamError),
    /// The stream completed.
    Complete,
}

enum Message<T> {
    Subscribe(Arc<dyn Subscription>),
    Next(T),
    Error(StreamError),
    Complete,
}

/// An asynchronous subscriber: its signal methods only enqueue (they never
/// run user code on the publisher's thread), and a dedicated thread runs the
/// handler and does all the requesting — so calls on the subscription are
/// serial (§2.7) and demand never exceeds the queue's capacity.
///
/// The queue holds `batch` elements plus the control signals; demand is
/// topped up to `batch` whenever a quarter of it has been consumed (early
/// enough that an asynchronous publisher is usually still emitting when the
/// next request arrives, so it need not be woken again). A publisher
/// that sends more than was requested makes it cancel and report a §1.1
/// violation as [`Signal::Error`].
///
/// Its thread polls an empty queue for up to 20 µs before it parks (a
/// flowing stream's next element is usually closer than a wake-up through
/// the kernel), so a pause in the stream costs that much spinning.
///
/// Lacks: one OS thread per subscriber; cannot cancel from the handler.
///
/// ```
/// use reactive_streams::Publisher;
/// use reactive_streams_reference::{range, QueuedSubscriber, Signal};
///
/// let (subscriber, worker) = QueuedSubscriber::spawn(8, |signal| {
///     if let Signal::Next(x) = signal {
///         assert!(x < 20);
///     }
/// });
/// range(0, 20).subscribe(Box::new(subscriber));
/// worker.join().unwrap();
/// ```
pub struct QueuedSubscriber<T> {
    queue: Sender<Message<T>>,
    overflowed: Arc<AtomicBool>,
    terminal: Arc<TerminalGate>,
}

/// Keeps the worker from calling the subscription once a terminal signal
/// was delivered (§2.3, §2.4): the worker requests only while holding the
/// gate and seeing no terminal, and `on_complete`/`on_error` raise the flag
/// and then pass through the gate, so a request already under way finishes
/// before the terminal signal is accepted. The gate is reentrant because a
/// synchronous publisher may deliver the terminal signal from inside the
/// worker's own `request` (§3.11).
#[derive(Default)]
struct TerminalGate {
    delivered: AtomicBool,
    gate: parking_lot::ReentrantMutex<()>,
}

impl TerminalGate {
    fn request(&self, subscription: &dyn Subscription, n: u64) {
        let _gate = self.gate.lock();
        if !self.delivered.load(Ordering::SeqCst) {
            subscription.request(n);
        }
    }

    fn deliver(&self) {
        self.delivered.store(true, Ordering::SeqCst);
        drop(self.gate.lock());
    }
}

impl<T: Send + 'static> QueuedSubscriber<T> {
    /// A subscriber whose thread calls `handler` for every signal, and that
    /// thread's handle (it ends after the terminal signal, or when the
    /// publisher drops the subscriber).
    pub fn spawn(
        batch: usize,
        handler: impl FnMut(Signal<T>) + Send + 'static,
    ) -> (Self, JoinHandle<()>) {
        Self::spawn_observed(batch, |_| {}, handler)
    }

    /// As [`spawn`](Self::spawn), and the thread also hands the
    /// subscription it keeps to `on_subscribed`, once, right after making
    /// its first request.
    ///
    /// This is the instrumentation point for an observer that must see
    /// the subscriber the way its thread does — the TCK's whitebox probe,
    /// for example: `handler` already runs where each signal is processed,
    /// and `on_subscribed` runs where the subscription is taken up, after
    /// the subscriber's own first request, so nothing the observer does
    /// with the subscription can be mistaken for that request.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use reactive_streams::Publisher;
    /// use reactive_streams_reference::{range, QueuedSubscriber, Signal};
    ///
    /// let (subscribed, told) = mpsc::channel();
    /// let (subscriber, worker) = QueuedSubscriber::spawn_observed(
    ///     8,
    ///     move |subscription| subscribed.send(subscription).unwrap(),
    ///     |_: Signal<u64>| {},
    /// );
    /// range(0, 3).subscribe(Box::new(subscriber));
    /// worker.join().unwrap();
    /// assert!(told.try_recv().is_ok());
    /// ```
    pub fn spawn_observed(
        batch: usize,
        on_subscribed: impl FnOnce(Arc<dyn Subscription>) + Send + 'static,
        handler: impl FnMut(Signal<T>) + Send + 'static,
    ) -> (Self, JoinHandle<()>) {
        let batch = batch.max(1);
        // Room for the demanded elements plus control signals (a terminal, a
        // second `on_subscribe` to cancel).
        let (queue, inbox) = crossbeam_channel::bounded(batch + 8);
        let overflowed = Arc::new(AtomicBool::new(false));
        let flag = overflowed.clone();
        let terminal = Arc::new(TerminalGate::default());
        let gate = terminal.clone();
        let worker = std::thread::Builder::new()
            .name("queued-subscriber".into())
            .spawn(move || consume(inbox, batch as u64, flag, &gate, on_subscribed, handler))
            .expect("spawn the subscriber's thread");
        let subscriber = QueuedSubscriber {
            queue,
            overflowed,
            terminal,
        };
        (subscriber, worker)
    }

    fn enqueue(&self, message: Message<T>) {
        if let Err(TrySendError::Full(_)) = self.queue.try_send(message) {
            self.overflowed.store(true, Ordering::Release);
        }
    }
}

/// How long [`receive`] keeps polling an empty queue before it parks the
/// thread.
const SPIN_FOR: Duration = Duration::from_micros(20);

/// The next message. An empty queue is polled for up to [`SPIN_FOR`]
/// before the thread parks: while a stream flows, the next element is
/// usually well under a microsecond away, and parking costs a wake-up
/// through the kernel on both sides (the publisher's `on_next` has to
/// unpark this thread). A subscriber idle for longer costs at most that
/// much spinning per pause in the stream.
fn receive<T>(inbox: &Receiver<T>) -> Result<T, RecvError> {
    let mut since: Option<Instant> = None;
    loop {
        for _ in 0..64 {
            match inbox.try_recv() {
                Ok(message) => return Ok(message),
                Err(TryRecvError::Disconnected) => return Err(RecvError),
                Err(TryRecvError::Empty) => std::hint::spin_loop(),
            }
        }
        let now = Instant::now();
        if now.duration_since(*since.get_or_insert(now)) >= SPIN_FOR {
            return inbox.recv();
        }
    }
}

fn consume<T>(
    inbox: Receiver<Message<T>>,
    batch: u64,
    overflowed: Arc<AtomicBool>,
    terminal: &TerminalGate,
    on_subscribed: impl FnOnce(Arc<dyn Subscription>),
    mut handler: impl FnMut(Signal<T>),
) {
    let mut on_subscribed = Some(on_subscribed);
    let mut subscription: Option<Arc<dyn Subscription>> = None;
    let mut outstanding = 0;
    while let Ok(message) = receive(&inbox) {
        if overflowed.load(Ordering::Acquire) {
            if let Some(subscription) = subscription.take() {
                subscription.cancel();
            }
            handler(Signal::Error(StreamError::msg(
                "§1.1 violated: more elements were signalled than requested",
            )));
            return;
        }
        match message {
            Message::Subscribe(new) => {
                if subscription.is_some() {
                    new.cancel(); // §2.5
                    continue;
                }
                outstanding = batch;
                terminal.request(&*new, batch);
                if let Some(observer) = on_subscribed.take() {
                    observer(new.clone());
                }
                subscription = Some(new);
            }
            Message::Next(element) => {
                outstanding = outstanding.saturating_sub(1);
                handler(Signal::Next(element));
                if let (Some(n), Some(subscription)) =
                    (refill(batch, batch * 3 / 4, outstanding), &subscription)
                {
                    outstanding += n;
                    terminal.request(&**subscription, n);
                }
            }
            Message::Error(error) => {
                handler(Signal::Error(error));
                return;
            }
            Message::Complete => {
                handler(Signal::Complete);
                return;
            }
        }
    }
}

impl<T: Send + 'static> Subscriber<T> for QueuedSubscriber<T> {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        self.enqueue(Message::Subscribe(subscription));
    }

    fn on_next(&mut self, element: T) {
        self.enqueue(Message::Next(element));
    }

    fn on_error(&mut self, error: StreamError) {
        self.terminal.deliver();
        self.enqueue(Message::Error(error));
    }

    fn on_complete(&mut self) {
        self.terminal.deliver();
        self.enqueue(Message::Complete);
    }
}
