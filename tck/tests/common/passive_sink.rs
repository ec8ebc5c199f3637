//! A correct-but-unusual sink (issue 14, family 7), written from the
//! Streamlet protocol's text: it never starts the stream (rule 5: a sink
//! MAY start); see `streamlet_verification/unusual_sinks.rs`.

use std::sync::Arc;

use reactive_streams::{Sink, StreamError, Talkback};
use reactive_streams_tck::streamlet::sink::SinkFactory;

/// Keeps its talkback for whoever owns it to start the stream later; in
/// the TCK's tests nobody does.
pub struct Passive {
    talkback: Option<Arc<dyn Talkback>>,
}

impl Sink<u64> for Passive {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        self.talkback = Some(talkback);
    }

    fn receive(&mut self, _data: u64) {}

    fn end(&mut self, _reason: Option<StreamError>) {
        self.talkback = None;
    }
}

pub struct Passives;

impl SinkFactory for Passives {
    type Element = u64;

    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(Passive { talkback: None })
    }

    fn create_element(&self, index: u64) -> u64 {
        index
    }
}
