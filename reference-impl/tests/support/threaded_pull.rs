//! [`ThreadedPull`]: a pullable Streamlet source that greets and answers
//! from a thread of its own, shared by the reference's Streamlet tests
//! (`streamlets.rs`) and its TCK run (`tck_streamlets.rs`).

use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use reactive_streams::{Sink, Source, StreamError, Talkback};

/// A pullable source living on a thread of its own, written from the
/// protocol's text: `connect` spawns the thread, which greets the sink
/// (rule 1: a source MAY greet asynchronously) and then answers each pull
/// with one datum (`0..n`), ending the live stream once the last is sent
/// (at the start if there is none). `stop(None)` pauses (a pull not yet
/// answered is dropped) and a new `start` resumes; `stop(Some(_))` ends
/// the thread. A request made while the stream is not started breaks rule
/// 3 on the sink's side and is not answered, as `PullSource` does.
///
/// A stop from another thread waits for an emission in progress, so that
/// none begins after `stop` returned (rule 2); one from inside `receive`
/// is seen before the next emission or the end.
///
/// Bridged by `SourcePublisher`, the greet comes after the subscriber
/// may have requested, and a pull's datum after `request` returned: the
/// paths a source greeting and answering inside the calls never takes.
pub struct ThreadedPull {
    pub elements: u64,
}

#[derive(Default)]
struct Pulled {
    live: bool,
    pending: u64,
    /// Stopped with a reason: the thread ends.
    gone: bool,
    /// The thread inside `receive`.
    emitting: Option<std::thread::ThreadId>,
}

#[derive(Default)]
struct PulledStream {
    state: Mutex<Pulled>,
    changed: Condvar,
    /// Held by the thread from its look at the state to the end of the
    /// emission (or the end) it decided on.
    emission: Mutex<()>,
}

struct ThreadedTalkback(Arc<PulledStream>);

impl Talkback for ThreadedTalkback {
    fn start(&self) {
        self.0.state.lock().live = true;
        self.0.changed.notify_all();
    }

    fn request(&self) {
        let mut state = self.0.state.lock();
        if state.live {
            state.pending += 1;
            self.0.changed.notify_all();
        }
    }

    fn stop(&self, reason: Option<StreamError>) {
        let inside_receive = self.0.state.lock().emitting == Some(std::thread::current().id());
        let _emission = (!inside_receive).then(|| self.0.emission.lock());
        let mut state = self.0.state.lock();
        state.live = false;
        state.pending = 0;
        state.gone |= reason.is_some();
        self.0.changed.notify_all();
    }
}

impl Source<u64> for ThreadedPull {
    fn connect(&self, mut sink: Box<dyn Sink<u64>>) {
        let elements = self.elements;
        let stream = Arc::new(PulledStream::default());
        std::thread::spawn(move || {
            sink.greet(Arc::new(ThreadedTalkback(stream.clone())));
            let mut next = 0;
            loop {
                {
                    let mut state = stream.state.lock();
                    while !state.gone && !(state.live && (state.pending > 0 || next == elements)) {
                        stream.changed.wait(&mut state);
                    }
                    if state.gone {
                        return;
                    }
                }
                let _emission = stream.emission.lock();
                let mut state = stream.state.lock();
                if !state.live {
                    continue;
                }
                if next == elements {
                    drop(state);
                    return sink.end(None);
                }
                if state.pending == 0 {
                    continue;
                }
                state.pending -= 1;
                state.emitting = Some(std::thread::current().id());
                drop(state);
                sink.receive(next);
                next += 1;
                stream.state.lock().emitting = None;
            }
        });
    }
}
