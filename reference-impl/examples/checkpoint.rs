//! Checkpointing a source: commit an offset only when every record up to
//! it is done — consumed by the sink, dropped by the filter, or released by
//! the buffer.
//!
//! `cargo run -p reactive-streams-reference --example checkpoint`
//!
//! The source reads numbered records (offset = line number). The pipeline
//! buffers them, filters out comments and hands the rest to a slow sink
//! that keeps a few records in flight before it "writes" them. After every
//! record the sink receives, the example prints the committable offset:
//! it lags behind what was read, never runs ahead of what was written, and
//! a crash right after any commit would replay only records that were not
//! done yet.

use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};

use reactive_streams::done::{Checkpoint, Tracked};
use reactive_streams::{Publisher, StreamError, Subscriber, Subscription};
use reactive_streams_reference::{BufferProcessor, FilterProcessor, tracked};

/// The records a real source would read from a file or a queue.
const RECORDS: [&str; 10] = [
    "alpha",
    "# comment",
    "bravo",
    "charlie",
    "# comment",
    "delta",
    "echo",
    "foxtrot",
    "# comment",
    "golf",
];

/// Writes records in groups of three: until a group is full its records
/// are in flight (received but not written), so they are not done.
struct SlowSink {
    in_flight: VecDeque<Tracked<&'static str>>,
    written: Arc<Mutex<BTreeSet<u64>>>,
    checkpoint: Checkpoint,
    subscription: Option<Arc<dyn Subscription>>,
}

impl SlowSink {
    fn write_all(&mut self) {
        for record in self.in_flight.drain(..) {
            let offsets = record.tokens.ids();
            self.written.lock().unwrap().extend(offsets);
            println!("    wrote  {:>9}", record.value);
            // `record` is dropped here: its datum is done.
        }
    }

    fn report(&self) {
        let committed = self.checkpoint.committable();
        let written = self.written.lock().unwrap();
        // Safety of the commit: every offset at or below it is either
        // written or was dropped by the filter — never merely in flight.
        if let Some(committed) = committed {
            let comments: BTreeSet<u64> = RECORDS
                .iter()
                .enumerate()
                .filter(|(_, r)| r.starts_with('#'))
                .map(|(i, _)| i as u64)
                .collect();
            assert!((0..=committed).all(|o| written.contains(&o) || comments.contains(&o)));
        }
        println!(
            "    commit {:>9}   ({} in flight)",
            committed.map_or("-".to_string(), |c| c.to_string()),
            self.checkpoint.in_flight()
        );
    }
}

impl Subscriber<Tracked<&'static str>> for SlowSink {
    fn on_subscribe(&mut self, subscription: Arc<dyn Subscription>) {
        subscription.request(1);
        self.subscription = Some(subscription);
    }

    fn on_next(&mut self, record: Tracked<&'static str>) {
        println!(
            "received {:>9} (offset {:?})",
            record.value,
            record.tokens.ids()
        );
        self.in_flight.push_back(record);
        if self.in_flight.len() == 3 {
            self.write_all();
        }
        self.report();
        if let Some(subscription) = &self.subscription {
            subscription.request(1);
        }
    }

    fn on_error(&mut self, error: StreamError) {
        println!("failed: {error}");
    }

    fn on_complete(&mut self) {
        self.write_all();
        println!("completed");
        self.report();
    }
}

fn main() {
    let checkpoint = Checkpoint::new();
    let source = tracked::checkpointed(RECORDS, &checkpoint);
    let buffer = BufferProcessor::new(4);
    let no_comments = FilterProcessor::new(|r: &Tracked<&str>| !r.value.starts_with('#'));

    no_comments.subscribe(Box::new(SlowSink {
        in_flight: VecDeque::new(),
        written: Arc::default(),
        checkpoint: checkpoint.clone(),
        subscription: None,
    }));
    buffer.subscribe(Box::new(no_comments));
    source.subscribe(Box::new(buffer));

    assert_eq!(checkpoint.committable(), Some(RECORDS.len() as u64 - 1));
    println!(
        "all {} records done: a restart resumes after offset {}",
        RECORDS.len(),
        checkpoint.committable().unwrap()
    );
}
