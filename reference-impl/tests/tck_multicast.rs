//! The publisher verification run against the reference
//! `MulticastPublisher`, a hot publisher.

mod hot_ranges;

use hot_ranges::HotRanges;
use reactive_streams_tck::publisher_verification;

publisher_verification!(multicast_publisher, HotRanges);
