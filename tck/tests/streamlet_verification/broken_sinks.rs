//! Broken sinks: each breaks one condition, and the rule test for that
//! condition must fail naming it.
//!
//! All are the protocol's example sink (start on greet, pull one at a time,
//! stop after five) with one bug switched on.

use std::sync::Arc;

use reactive_streams::{Sink, StreamError, Talkback};
use reactive_streams_tck::streamlet::sink::SinkFactory;

/// One bug each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bug {
    /// Requests inside greet before starting (streamlet.3.c). A request
    /// before the greet itself cannot happen: the talkback arrives with it.
    RequestsBeforeStart,
    /// Stops after the fifth element, then requests anyway — the example
    /// sink with its `else` forgotten (streamlet.3.d).
    RequestsAfterStop,
    /// Requests once more when the stream ends (streamlet.3.e).
    RequestsAfterEnd,
    /// Starts again on every element (streamlet.5.c).
    StartsTwice,
    /// Restarts the stream when it ends, as a naive retry (streamlet.5.d).
    RestartsAfterEnd,
    /// "Resets" the talkback with a stop before starting (streamlet.6.c).
    StopsBeforeStart,
    /// Stops twice after the fifth element (streamlet.6.d).
    StopsTwice,
    /// Stops when the stream ends, as cleanup (streamlet.6.e).
    StopsAfterEnd,
    /// Declares that it stops after five elements, but never stops
    /// (tck.stops_after).
    NeverStops,
    /// Declares that it stops after five elements, but never starts the
    /// stream: no rule is broken (rule 5: a sink MAY start), the
    /// declaration is (tck.stops_after).
    NeverStarts,
    /// Declares that it starts once greeted (and no `stops_after`), but
    /// never starts (tck.starts).
    NeverStartsThoughDeclared,
    /// Declares that it stops after five elements, but stops after the
    /// first: a `take(n)` comparing with `!=` (tck.stops_after).
    StopsEarly,
}

const TAKE: u64 = 5;

/// The example sink with `bug`.
pub struct BuggySink {
    bug: Bug,
    received: u64,
    talkback: Option<Arc<dyn Talkback>>,
}

impl Sink<u64> for BuggySink {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        match self.bug {
            Bug::RequestsBeforeStart => {
                talkback.request();
                talkback.start();
            }
            Bug::StopsBeforeStart => {
                talkback.stop(None);
                talkback.start();
                talkback.request();
            }
            Bug::NeverStarts | Bug::NeverStartsThoughDeclared => {}
            _ => {
                talkback.start();
                talkback.request();
            }
        }
        self.talkback = Some(talkback);
    }

    fn receive(&mut self, _data: u64) {
        self.received += 1;
        let Some(talkback) = self.talkback.clone() else {
            return;
        };
        if self.bug == Bug::StartsTwice {
            talkback.start();
        }
        let take = if self.bug == Bug::StopsEarly { 1 } else { TAKE };
        if self.received == take && self.bug != Bug::NeverStops {
            talkback.stop(None);
            match self.bug {
                Bug::RequestsAfterStop => talkback.request(),
                Bug::StopsTwice => talkback.stop(None),
                _ => {}
            }
        } else {
            talkback.request();
        }
    }

    fn end(&mut self, reason: Option<StreamError>) {
        if let Some(talkback) = self.talkback.take() {
            match self.bug {
                Bug::RequestsAfterEnd => talkback.request(),
                Bug::RestartsAfterEnd => talkback.start(),
                Bug::StopsAfterEnd => talkback.stop(reason),
                _ => {}
            }
        }
    }
}

/// The broken sink factories.
#[derive(Debug, Clone, Copy)]
pub struct BadSink(pub Bug);

impl SinkFactory for BadSink {
    type Element = u64;

    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(BuggySink {
            bug: self.0,
            received: 0,
            talkback: None,
        })
    }

    fn create_element(&self, index: u64) -> u64 {
        index
    }

    fn stops_after(&self) -> Option<u64> {
        (self.0 != Bug::NeverStartsThoughDeclared).then_some(TAKE)
    }

    /// Every one starts once greeted but the two that never start; of
    /// those, only `NeverStartsThoughDeclared` says it does.
    fn starts_on_greet(&self) -> bool {
        self.0 != Bug::NeverStarts
    }
}
