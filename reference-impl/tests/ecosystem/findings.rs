//! Minimal reproductions, in plain `futures` with no TCK, of the rules a
//! published crate was found to break. Each test pins the broken behaviour:
//! when a new version fixes it, the test fails, and the census entry, its
//! `breaks` and `docs/ecosystem.md` are updated with it.

use std::task::{Context, Poll};

use futures::StreamExt;

/// kanal 0.1.1 (`tck.stream_gives_exactly_n`): a `ReceiveStream` that got
/// an item after a `Pending` returns `Pending` at the next poll, and the
/// same item again at the poll after it. (The census's extended schedules,
/// which repeat this, then abort the process: the heap is corrupted.)
#[test]
fn kanal_receive_stream_yields_an_item_twice() {
    let (sender, receiver) = kanal::bounded_async::<u64>(1);
    let mut stream = receiver.stream();
    let mut cx = Context::from_waker(futures::task::noop_waker_ref());
    let mut answers = vec![stream.poll_next_unpin(&mut cx)];
    assert!(sender.try_send(0).unwrap());
    for _ in 0..3 {
        answers.push(stream.poll_next_unpin(&mut cx));
    }
    assert_eq!(
        answers,
        [
            Poll::Pending,
            Poll::Ready(Some(0)),
            Poll::Pending,
            // Item 0 again: only one was sent.
            Poll::Ready(Some(0)),
        ]
    );
}
