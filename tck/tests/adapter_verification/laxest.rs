//! The laxest conforming stream adapter (issue 38 §5): a merge of two
//! inner streams written from the texts of `adapter.1` … `adapter.6`
//! (`spec/src/rules/futures.rs`), doing the least they require at the
//! latest moment they allow; it passes every test.
//!
//! * It polls its inner streams with a waker of its own, and passes a
//!   wake-up on to its task late, from another thread, waking the wakers
//!   of its two most recent polls: `adapter.1` asks only that "the
//!   waker of the adapter's most recent poll is woken once the inner
//!   stream can make progress".
//! * It holds every item it got for one poll: `Pending` first, and a
//!   wake-up of its own from another thread a moment later ("pend then
//!   resume", as a cooperative budget does); the same before its end,
//!   which it reports only on a later poll ("end lazily"). `Poll::Pending`
//!   "means that this stream's next value is not ready yet".
//! * It never polls an inner stream after that stream's `Ready(None)`,
//!   the only thing `adapter.3` forbids, and starts with whichever inner
//!   stream it likes (it alternates).
//! * Its `size_hint()` is the default `(0, None)`: `adapter.6`, "its lower
//!   bound is at most that number, and its upper bound, when Some, at
//!   least that number".
//! * The never-ending variant does not end at all once its inner streams
//!   have ended: it stays `Pending`, waking nobody, as
//!   `select(inner, pending())` does; no adapter rule asks an adapter to
//!   end.
//! * It declares its items' identity but not that it passes every item
//!   (`passes_every_item() == false`, weaker than what it does): `adapter.5`
//!   then owes "each inner item at most once … in the order that stream
//!   yielded them".

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use futures::stream::{BoxStream, Stream, StreamExt};
use parking_lot::Mutex;
use reactive_streams_tck::env::TestEnv;
use reactive_streams_tck::futures::adapter::{AdapterFactory, AdapterVerification, Inner};
use reactive_streams_tck::outcome::Verdict;

const LATE: Duration = Duration::from_millis(1);

/// The wakers of the adapter's two most recent polls, woken together,
/// late, from another thread. They are kept after a wake-up: a wake-up
/// that comes later still owes the most recent one its wake.
#[derive(Default)]
struct Task {
    wakers: Mutex<Vec<Waker>>,
}

impl Task {
    fn remember(&self, waker: &Waker) {
        let mut wakers = self.wakers.lock();
        if !wakers.iter().any(|w| w.will_wake(waker)) {
            wakers.push(waker.clone());
            if wakers.len() > 2 {
                wakers.remove(0);
            }
        }
    }
}

impl Wake for Task {
    fn wake(self: Arc<Self>) {
        std::thread::spawn(move || {
            std::thread::sleep(LATE);
            let wakers = self.wakers.lock().clone();
            for waker in wakers {
                waker.wake();
            }
        });
    }
}

enum Held {
    Nothing,
    Item(u64),
    End,
}

pub struct LaxMerge {
    inner: [Option<Inner>; 2],
    task: Arc<Task>,
    next: usize,
    /// An item or the end got from the inner streams, going out at the
    /// next poll.
    held: Held,
    /// Whether it ends once its inner streams have.
    ends: bool,
}

impl LaxMerge {
    fn hold(&mut self, held: Held, cx: &Context<'_>) -> Poll<Option<Vec<u64>>> {
        self.held = held;
        self.task.remember(cx.waker());
        // A wake-up of its own, later: the held item or end may go out.
        Waker::from(self.task.clone()).wake();
        Poll::Pending
    }
}

impl Stream for LaxMerge {
    type Item = Vec<u64>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Vec<u64>>> {
        let this = &mut *self;
        match std::mem::replace(&mut this.held, Held::Nothing) {
            Held::Item(item) => return Poll::Ready(Some(vec![item])),
            Held::End => return Poll::Ready(None),
            Held::Nothing => {}
        }
        this.task.remember(cx.waker());
        let own = Waker::from(this.task.clone());
        let mut own_cx = Context::from_waker(&own);
        let start = this.next;
        this.next = 1 - start;
        for j in [start, 1 - start] {
            if let Some(stream) = this.inner[j].as_mut() {
                match stream.poll_next_unpin(&mut own_cx) {
                    Poll::Ready(Some(item)) => return this.hold(Held::Item(item), cx),
                    // Dropped at its end: never polled again.
                    Poll::Ready(None) => this.inner[j] = None,
                    Poll::Pending => {}
                }
            }
        }
        if this.inner.iter().all(Option::is_none) && this.ends {
            return this.hold(Held::End, cx);
        }
        Poll::Pending
    }
}

/// Laxest merges; `ends: false` makes ones that never end.
pub struct LaxMerges {
    pub ends: bool,
}

impl AdapterFactory for LaxMerges {
    type Item = Vec<u64>;
    type Adapter = BoxStream<'static, Vec<u64>>;

    fn inputs(&self) -> usize {
        2
    }

    fn create_adapter(&self, inner: Vec<Inner>) -> Self::Adapter {
        let mut inner = inner.into_iter();
        let (a, b) = (inner.next().expect("two"), inner.next().expect("two"));
        LaxMerge {
            inner: [Some(a), Some(b)],
            task: Arc::default(),
            next: 0,
            held: Held::Nothing,
            ends: self.ends,
        }
        .boxed()
    }

    fn carried(&self, item: &Vec<u64>) -> Option<Vec<u64>> {
        Some(item.clone())
    }

    fn passes_every_item(&self) -> bool {
        false
    }
}

#[rstest::rstest]
#[case::ending(true)]
#[case::never_ending(false)]
fn the_laxest_adapter_passes(#[case] ends: bool) {
    let results = AdapterVerification::new(LaxMerges { ends })
        .env(TestEnv::default())
        .run_all()
        .unwrap();
    for result in &results {
        assert_eq!(result.verdict, Verdict::Passed, "{result:#?}");
    }
}

reactive_streams_tck::stream_adapter_verification!(laxest_adapter, LaxMerges { ends: true });
