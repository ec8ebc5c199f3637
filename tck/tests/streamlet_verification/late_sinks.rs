//! A sink that calls its talkback from its `Drop`: the sink verification
//! drops the sink inside the scenario, so the call is judged
//! (streamlet.6.d, seen by both rule tests of the "after stop" scenario),
//! not merely traced after the rule concluded.

use std::sync::Arc;

use reactive_streams::{Sink, StreamError, Talkback};
use reactive_streams_tck::streamlet::sink::{SinkFactory, SinkVerification};

const TAKE: u64 = 5;

/// The protocol's example sink (start on greet, pull one at a time, stop
/// after five), which "cleans up" by stopping again when dropped.
struct StopsInDrop {
    received: u64,
    talkback: Option<Arc<dyn Talkback>>,
}

impl Sink<u64> for StopsInDrop {
    fn greet(&mut self, talkback: Arc<dyn Talkback>) {
        talkback.start();
        talkback.request();
        self.talkback = Some(talkback);
    }
    fn receive(&mut self, _: u64) {
        self.received += 1;
        if let Some(talkback) = &self.talkback {
            if self.received == TAKE {
                talkback.stop(None);
            } else if self.received < TAKE {
                talkback.request();
            }
        }
    }
    fn end(&mut self, _: Option<StreamError>) {
        self.talkback = None;
    }
}

impl Drop for StopsInDrop {
    fn drop(&mut self) {
        if let Some(talkback) = self.talkback.take() {
            talkback.stop(None);
        }
    }
}

struct StopsInDropSinks;

impl SinkFactory for StopsInDropSinks {
    type Element = u64;
    fn create_sink(&self) -> Box<dyn Sink<u64>> {
        Box::new(StopsInDrop {
            received: 0,
            talkback: None,
        })
    }
    fn create_element(&self, index: u64) -> u64 {
        index
    }
    fn stops_after(&self) -> Option<u64> {
        Some(TAKE)
    }
}

#[test]
fn a_sink_stopping_again_from_drop_fails_6_d() {
    let results = SinkVerification::new(StopsInDropSinks)
        .env(super::pinned_env())
        .run_all()
        .unwrap();
    let failed: Vec<&str> = results
        .iter()
        .filter(|r| !r.broken_rules().is_empty())
        .map(|r| r.test.as_str())
        .collect();
    // 3.d's test shares the "after stop" scenario and judges every call.
    assert_eq!(
        failed,
        ["streamlet_3_d", "streamlet_6_d"],
        "{:#?}",
        super::failed_tests(&results)
    );
    let result = results.iter().find(|r| r.test == "streamlet_6_d").unwrap();
    insta::assert_snapshot!(result.message.as_deref().unwrap());
}
