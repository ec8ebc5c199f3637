//! The adapters the self-tests verify, hand-written from the rule texts:
//! correct ones of unusual shapes, and one broken adapter per rule.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures::stream::{BoxStream, Stream, StreamExt};
use parking_lot::Mutex;
use reactive_streams_tck::futures::adapter::{AdapterFactory, Inner};

/// Which adapter a [`Corpus`] factory makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    // Correct, of unusual shapes.
    /// The inner stream itself.
    PassThrough,
    /// Drops every other item (declares it may drop items).
    EveryOther,
    /// Pairs of items, the last one alone; a vague but valid size_hint.
    Pairs,
    /// Merges two streams, polling them with a waker of its own.
    OwnWakerMerge,
    /// Polls its inner stream only after the inner stream woke it.
    WakeDriven,
    /// Pairs of one item from each of two streams (futures' zip).
    Zip,
    /// New items (item + 1000): no identity declared.
    Renumbers,
    /// The first two items, then its end.
    TakeTwo,
    /// Merges two streams, always polling the first one first (futures'
    /// `select_with_strategy`).
    PrefersFirst,
    /// Merges three streams, starting with the next one in turn each poll.
    RoundRobin,
    /// Merges three streams (futures' `select_all`).
    SelectAll,
    /// Merges two streams and ends at the first end it sees, declaring it
    /// (`ends_at_first_end`).
    StopsAtFirstEndDeclared,
    // Broken, one per rule.
    /// adapter.1: wakes the waker of its first poll, forever.
    StaleWaker,
    /// adapter.2: forgets its task's waker while polling the inner stream.
    ForgetsWakerWhilePolling,
    /// adapter.2: registers its task's waker only once its inner stream
    /// returned Pending, with nothing between: a real crate's window.
    RegistersAfterPolling,
    /// adapter.3: merges two streams, polling both every time, ended or not.
    PollsEndedInner,
    /// adapter.4: leaks its inner stream when dropped.
    LeaksInner,
    /// adapter.5: swaps each pair of items while declaring identity.
    SwapsPairs,
    /// adapter.6: claims one item more than its inner stream holds.
    OverstatedSizeHint,
    // Broken in some orders of their inner streams' ends only.
    /// adapter.5: merges three streams and ends as soon as its last one
    /// ends, whatever the others still hold.
    EndsWithLastInput,
    /// adapter.5: merges two streams and ends once a poll finds no item
    /// after one of them ended: a waiting input is taken for ended.
    TakesWaitingForEnded,
    /// adapter.5: merges two streams and ends at the first end, without
    /// declaring it.
    StopsAtFirstEnd,
    /// adapter.3: merges three streams, remembering the end of each but
    /// its last, which it polls again after its end until the others end.
    FusesAllButLast,
}

/// Makes adapters of one [`Kind`].
#[derive(Debug, Clone, Copy)]
pub struct Corpus(pub Kind);

impl AdapterFactory for Corpus {
    type Item = Vec<u64>;
    type Adapter = BoxStream<'static, Vec<u64>>;

    fn inputs(&self) -> usize {
        match self.0 {
            Kind::OwnWakerMerge
            | Kind::Zip
            | Kind::PollsEndedInner
            | Kind::PrefersFirst
            | Kind::StopsAtFirstEndDeclared
            | Kind::TakesWaitingForEnded
            | Kind::StopsAtFirstEnd => 2,
            Kind::RoundRobin
            | Kind::SelectAll
            | Kind::EndsWithLastInput
            | Kind::FusesAllButLast => 3,
            _ => 1,
        }
    }

    fn ends_at_first_end(&self) -> bool {
        self.0 == Kind::StopsAtFirstEndDeclared
    }

    fn create_adapter(&self, inner: Vec<Inner>) -> Self::Adapter {
        let merge = |start, ends_at, fuses_last| Merge {
            ended: vec![false; inner.len()],
            inner: Vec::new(),
            start,
            next: 0,
            ends_at,
            fuses_last,
        };
        let merged = match self.0 {
            Kind::RoundRobin => Some(merge(Start::Rotate, EndsAt::AllEnded, true)),
            Kind::StopsAtFirstEndDeclared | Kind::StopsAtFirstEnd => {
                Some(merge(Start::Rotate, EndsAt::FirstEnd, true))
            }
            Kind::EndsWithLastInput => Some(merge(Start::First, EndsAt::LastInputEnd, true)),
            Kind::TakesWaitingForEnded => {
                Some(merge(Start::Rotate, EndsAt::NoItemAfterAnEnd, true))
            }
            Kind::FusesAllButLast => Some(merge(Start::First, EndsAt::AllEnded, false)),
            _ => None,
        };
        if let Some(mut merged) = merged {
            merged.inner = inner;
            return merged.boxed();
        }
        if self.0 == Kind::SelectAll {
            return futures::stream::select_all(inner).map(|i| vec![i]).boxed();
        }
        let mut inner = inner.into_iter();
        let first = inner.next().expect("one inner stream");
        let one = |item: u64| vec![item];
        match self.0 {
            Kind::PassThrough => first.map(one).boxed(),
            Kind::EveryOther => {
                let mut keep = false;
                first
                    .filter(move |_| {
                        keep = !keep;
                        std::future::ready(keep)
                    })
                    .map(one)
                    .boxed()
            }
            Kind::Pairs => Pairs {
                inner: first,
                held: None,
                ended: false,
            }
            .boxed(),
            Kind::OwnWakerMerge => OwnWakerMerge::new([first, inner.next().expect("two")]).boxed(),
            Kind::WakeDriven => WakeDriven::new(first).boxed(),
            Kind::Zip => first
                .zip(inner.next().expect("two"))
                .map(|(a, b)| vec![a, b])
                .boxed(),
            Kind::Renumbers => first.map(|item| vec![item + 1000]).boxed(),
            Kind::TakeTwo => first.take(2).map(one).boxed(),
            Kind::PrefersFirst => futures::stream::select_with_strategy(
                first,
                inner.next().expect("two"),
                |_: &mut ()| futures::stream::PollNext::Left,
            )
            .map(one)
            .boxed(),
            Kind::StaleWaker => StaleWaker {
                inner: first,
                first: None,
            }
            .boxed(),
            Kind::ForgetsWakerWhilePolling => ForgetsWaker::new(first).boxed(),
            Kind::RegistersAfterPolling => RegistersAfterPolling {
                inner: first,
                task: Arc::default(),
            }
            .boxed(),
            Kind::PollsEndedInner => PollsEnded([first, inner.next().expect("two")]).boxed(),
            Kind::LeaksInner => LeaksInner(Some(first)).boxed(),
            Kind::SwapsPairs => SwapsPairs {
                inner: first,
                held: None,
                out: None,
                ended: false,
            }
            .boxed(),
            Kind::OverstatedSizeHint => Overstated(first).boxed(),
            _ => unreachable!("{:?} is made above", self.0),
        }
    }

    fn carried(&self, item: &Vec<u64>) -> Option<Vec<u64>> {
        (self.0 != Kind::Renumbers).then(|| item.clone())
    }

    fn passes_every_item(&self) -> bool {
        !matches!(self.0, Kind::EveryOther | Kind::Zip | Kind::TakeTwo)
    }
}

/// Where a [`Merge`] starts polling.
#[derive(Debug, Clone, Copy)]
enum Start {
    /// Always its first inner stream.
    First,
    /// The next one in turn each poll.
    Rotate,
}

/// When a [`Merge`] ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EndsAt {
    /// Once every inner stream has ended (correct).
    AllEnded,
    /// At the first end it sees (correct only if declared).
    FirstEnd,
    /// As soon as its last inner stream ends (broken).
    LastInputEnd,
    /// Once a poll finds no item after an inner stream ended (broken).
    NoItemAfterAnEnd,
}

/// A merge of inner streams, handing each the task's waker, that remembers
/// which ended (all of them, or all but the last if not `fuses_last`).
struct Merge {
    inner: Vec<Inner>,
    ended: Vec<bool>,
    start: Start,
    next: usize,
    ends_at: EndsAt,
    fuses_last: bool,
}

impl Stream for Merge {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        let this = &mut *self;
        let n = this.inner.len();
        let first = match this.start {
            Start::First => 0,
            Start::Rotate => {
                this.next = (this.next + 1) % n;
                this.next
            }
        };
        let mut last_ended_now = false;
        for i in 0..n {
            let j = (first + i) % n;
            if this.ended[j] {
                continue;
            }
            match this.inner[j].poll_next_unpin(cx) {
                Poll::Ready(Some(item)) => return Poll::Ready(Some(vec![item])),
                Poll::Ready(None) => {
                    let last = j + 1 == n;
                    if this.fuses_last || !last {
                        this.ended[j] = true;
                    }
                    last_ended_now |= last;
                    match this.ends_at {
                        EndsAt::FirstEnd => return Poll::Ready(None),
                        EndsAt::LastInputEnd if last => return Poll::Ready(None),
                        _ => {}
                    }
                }
                Poll::Pending => {}
            }
        }
        let others = this.ended[..n - 1].iter().all(|e| *e);
        let all = others && (this.ended[n - 1] || last_ended_now);
        let gave_up = this.ends_at == EndsAt::NoItemAfterAnEnd && this.ended.contains(&true);
        if all || gave_up {
            Poll::Ready(None)
        } else {
            Poll::Pending
        }
    }
}

/// Pairs of items; the last one alone if the inner stream ends on an odd
/// count.
struct Pairs {
    inner: Inner,
    held: Option<u64>,
    ended: bool,
}

impl Stream for Pairs {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        while !self.ended {
            match self.inner.poll_next_unpin(cx) {
                Poll::Ready(Some(item)) => match self.held.take() {
                    Some(held) => return Poll::Ready(Some(vec![held, item])),
                    None => self.held = Some(item),
                },
                Poll::Ready(None) => self.ended = true,
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(self.held.take().map(|h| vec![h]))
    }
    // The default (0, None): vague, and always a valid bound.
}

/// The task's waker, kept where the wakers an adapter hands its inner
/// streams can reach it.
#[derive(Default)]
struct Task {
    waker: Mutex<Option<Waker>>,
    woken: AtomicBool,
}

impl Task {
    fn set(&self, waker: &Waker) {
        *self.waker.lock() = Some(waker.clone());
    }
}

impl Wake for Task {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        if let Some(waker) = self.waker.lock().as_ref() {
            waker.wake_by_ref();
        }
    }
}

/// A merge of two streams that polls them with its own waker (registered
/// before it polls), fusing them itself and starting with the other one
/// each time.
struct OwnWakerMerge {
    inner: [Option<Inner>; 2],
    task: Arc<Task>,
    next: usize,
}

impl OwnWakerMerge {
    fn new([a, b]: [Inner; 2]) -> Self {
        OwnWakerMerge {
            inner: [Some(a), Some(b)],
            task: Arc::default(),
            next: 0,
        }
    }
}

impl Stream for OwnWakerMerge {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        self.task.set(cx.waker());
        let own = Waker::from(self.task.clone());
        let mut own_cx = Context::from_waker(&own);
        let start = self.next;
        self.next = 1 - start;
        for j in [start, 1 - start] {
            if let Some(stream) = self.inner[j].as_mut() {
                match stream.poll_next_unpin(&mut own_cx) {
                    Poll::Ready(Some(item)) => return Poll::Ready(Some(vec![item])),
                    // Dropped at its end: never polled again.
                    Poll::Ready(None) => self.inner[j] = None,
                    Poll::Pending => {}
                }
            }
        }
        if self.inner.iter().all(Option::is_none) {
            Poll::Ready(None)
        } else {
            Poll::Pending
        }
    }
}

/// Polls its inner stream only once the inner stream woke it (and on the
/// first poll): the flag is cleared before the inner stream is polled, so a
/// wake-up during that poll is kept.
struct WakeDriven {
    inner: Inner,
    task: Arc<Task>,
}

impl WakeDriven {
    fn new(inner: Inner) -> Self {
        let task = Arc::new(Task::default());
        task.woken.store(true, Ordering::SeqCst);
        WakeDriven { inner, task }
    }
}

impl Stream for WakeDriven {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        self.task.set(cx.waker());
        if !self.task.woken.swap(false, Ordering::SeqCst) {
            return Poll::Pending;
        }
        let own = Waker::from(self.task.clone());
        match self.inner.poll_next_unpin(&mut Context::from_waker(&own)) {
            Poll::Ready(item) => {
                // More may be ready: look again at the next poll.
                self.task.woken.store(true, Ordering::SeqCst);
                Poll::Ready(item.map(|i| vec![i]))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Broken (adapter.1): hands its inner stream a waker that wakes the waker
/// of its first poll, never a later one.
struct StaleWaker {
    inner: Inner,
    first: Option<Waker>,
}

impl Stream for StaleWaker {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        let this = &mut *self;
        let first = this.first.get_or_insert_with(|| cx.waker().clone()).clone();
        this.inner
            .poll_next_unpin(&mut Context::from_waker(&first))
            .map(|item| item.map(|i| vec![i]))
    }
}

/// Broken (adapter.2): its inner stream's waker wakes the task's waker it
/// keeps, which it takes out at the start of each poll and puts back only
/// after polling the inner stream (and mapping the item): a wake-up in
/// between finds no waker.
struct ForgetsWaker {
    inner: Inner,
    task: Arc<Task>,
}

impl ForgetsWaker {
    fn new(inner: Inner) -> Self {
        ForgetsWaker {
            inner,
            task: Arc::default(),
        }
    }
}

impl Stream for ForgetsWaker {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        self.task.waker.lock().take();
        let own = Waker::from(self.task.clone());
        let answer = self.inner.poll_next_unpin(&mut Context::from_waker(&own));
        // Some work between the poll and the registration (an expensive
        // mapping, a log line): the window of the race.
        for _ in 0..20_000 {
            std::hint::spin_loop();
        }
        self.task.set(cx.waker());
        answer.map(|item| item.map(|i| vec![i]))
    }
}

/// The task's waker as a channel keeps it: a wake-up takes it.
#[derive(Default)]
struct TakenOnWake {
    waker: Mutex<Option<Waker>>,
}

impl Wake for TakenOnWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        let waker = self.waker.lock().take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

/// Broken (adapter.2): polls its inner stream with a waker of its own and,
/// only when that returned `Pending`, stores its task's waker: a wake-up of
/// the inner stream in between finds none (the previous one was taken by
/// the wake-up it answered). No delay between: the window is a few
/// instructions wide.
struct RegistersAfterPolling {
    inner: Inner,
    task: Arc<TakenOnWake>,
}

impl Stream for RegistersAfterPolling {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        let own = Waker::from(self.task.clone());
        match self.inner.poll_next_unpin(&mut Context::from_waker(&own)) {
            Poll::Ready(item) => Poll::Ready(item.map(|i| vec![i])),
            Poll::Pending => {
                let waker = cx.waker().clone();
                *self.task.waker.lock() = Some(waker);
                Poll::Pending
            }
        }
    }
}

/// Broken (adapter.3): polls both streams on every poll, ended or not, and
/// ends once both answer `Ready(None)` in the same poll.
struct PollsEnded([Inner; 2]);

impl Stream for PollsEnded {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        let mut ended = 0;
        for stream in self.0.iter_mut() {
            match stream.poll_next_unpin(cx) {
                Poll::Ready(Some(item)) => return Poll::Ready(Some(vec![item])),
                Poll::Ready(None) => ended += 1,
                Poll::Pending => {}
            }
        }
        if ended == 2 {
            Poll::Ready(None)
        } else {
            Poll::Pending
        }
    }
}

/// Broken (adapter.4): forgets its inner stream when dropped.
struct LeaksInner(Option<Inner>);

impl Stream for LeaksInner {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        let inner = self.0.as_mut().expect("not dropped yet");
        inner.poll_next_unpin(cx).map(|item| item.map(|i| vec![i]))
    }
}

impl Drop for LeaksInner {
    fn drop(&mut self) {
        std::mem::forget(self.0.take());
    }
}

/// Broken (adapter.5): yields each pair of items in reverse order while
/// the factory declares it keeps their identity.
struct SwapsPairs {
    inner: Inner,
    held: Option<u64>,
    out: Option<u64>,
    ended: bool,
}

impl Stream for SwapsPairs {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        if let Some(out) = self.out.take() {
            return Poll::Ready(Some(vec![out]));
        }
        while !self.ended {
            match self.inner.poll_next_unpin(cx) {
                Poll::Ready(Some(item)) => match self.held.take() {
                    Some(held) => {
                        self.out = Some(held);
                        return Poll::Ready(Some(vec![item]));
                    }
                    None => self.held = Some(item),
                },
                Poll::Ready(None) => self.ended = true,
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(self.held.take().map(|h| vec![h]))
    }
}

/// Broken (adapter.6): its size_hint claims one item more than its inner
/// stream's.
struct Overstated(Inner);

impl Stream for Overstated {
    type Item = Vec<u64>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        self.0.poll_next_unpin(cx).map(|item| item.map(|i| vec![i]))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let (lower, upper) = self.0.size_hint();
        (lower + 1, upper.map(|u| u + 1))
    }
}
