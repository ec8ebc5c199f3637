//! The publisher verifications run against the reference
//! `MulticastPublisher`, a hot publisher: with a source that pushes
//! everything on its own thread, and with one paced by its subscribers'
//! demand, pushing from inside their requests, also beside a subscriber
//! of its own that failed by overflow.

mod hot_ranges;

use hot_ranges::{HotRanges, PacedHotRanges};
use reactive_streams_tck::publisher_verification;

publisher_verification!(multicast_publisher, HotRanges);
publisher_verification!(
    paced_multicast_publisher,
    PacedHotRanges {
        beside_overflow: false
    }
);
publisher_verification!(
    paced_multicast_beside_overflow,
    PacedHotRanges {
        beside_overflow: true
    }
);
