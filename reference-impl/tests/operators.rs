//! The operators are conforming publishers: the TCK's publisher
//! verification, with each operator fed by a synchronous range.

use reactive_streams::{Publisher, StreamError};
use reactive_streams_reference::{
    FlatMapProcessor, SlidingWindowProcessor, WindowProcessor, combine_latest, failed, just, merge,
    range, zip,
};
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::publisher_verification;

fn boom() -> StreamError {
    StreamError::msg("upstream failed")
}

/// Windows of one element: `n` inputs, `n` outputs.
pub struct Windows;

impl PublisherFactory for Windows {
    type Element = Vec<u64>;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<Vec<u64>>> {
        let windows = WindowProcessor::new(1);
        range(0, elements).subscribe(Box::new(windows.clone()));
        Box::new(windows)
    }
    /// Window `i` holds element `i` of the range.
    fn element_index(&self, window: &Vec<u64>) -> Option<u64> {
        window.first().copied()
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<Vec<u64>>>> {
        let windows = WindowProcessor::new(3);
        failed(boom()).subscribe(Box::new(windows.clone()));
        Some(Box::new(windows))
    }
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

/// Sliding windows of one element.
pub struct SlidingWindows;

impl PublisherFactory for SlidingWindows {
    type Element = Vec<u64>;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<Vec<u64>>> {
        let windows = SlidingWindowProcessor::new(1);
        range(0, elements).subscribe(Box::new(windows.clone()));
        Box::new(windows)
    }
    /// Window `i` holds element `i` of the range.
    fn element_index(&self, window: &Vec<u64>) -> Option<u64> {
        window.first().copied()
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<Vec<u64>>>> {
        let windows = SlidingWindowProcessor::new(2);
        failed(boom()).subscribe(Box::new(windows.clone()));
        Some(Box::new(windows))
    }
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

/// `2n` inputs, of which the odd ones expand to nothing: `n` outputs, and
/// the last input expands to nothing (completion must not wait for demand).
pub struct FlatMaps;

impl PublisherFactory for FlatMaps {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        let spread = FlatMapProcessor::new(|x: u64| if x % 2 == 0 { vec![x / 2] } else { vec![] });
        range(0, elements.saturating_mul(2)).subscribe(Box::new(spread.clone()));
        Box::new(spread)
    }
    /// Input `2i` expands to `i`.
    fn element_index(&self, element: &u64) -> Option<u64> {
        Some(*element)
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        let spread = FlatMapProcessor::new(|x: u64| vec![x, x]);
        failed(boom()).subscribe(Box::new(spread.clone()));
        Some(Box::new(spread))
    }
    fn supports_multiple_subscribers(&self) -> bool {
        false
    }
}

/// Two ranges of `n`, zipped.
pub struct Zips;

impl PublisherFactory for Zips {
    type Element = (u64, u64);
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<(u64, u64)>> {
        Box::new(zip(range(0, elements), range(100, elements)))
    }
    /// Pair `i` is `(i, 100 + i)`.
    fn element_index(&self, pair: &(u64, u64)) -> Option<u64> {
        Some(pair.0)
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<(u64, u64)>>> {
        Some(Box::new(zip(range(0, 10), failed(boom()))))
    }
}

/// One constant combined with a range of `n`: `n` outputs.
pub struct Latest;

impl PublisherFactory for Latest {
    type Element = (u64, u64);
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<(u64, u64)>> {
        Box::new(combine_latest(just(7), range(0, elements)))
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<(u64, u64)>>> {
        Some(Box::new(combine_latest(just(7), failed(boom()))))
    }
}

/// Two ranges making `n` elements between them (the first `n / 2`, the
/// second the rest).
pub struct Merges;

impl PublisherFactory for Merges {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        let half = elements / 2;
        Box::new(merge([range(0, half), range(1_000, elements - half)]))
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        let inputs: [Box<dyn Publisher<u64>>; 2] =
            [Box::new(range(0, 10)), Box::new(failed(boom()))];
        Some(Box::new(merge(inputs)))
    }
}

publisher_verification!(window, Windows);
publisher_verification!(sliding_window, SlidingWindows);
publisher_verification!(flat_map, FlatMaps);
publisher_verification!(zip_ranges, Zips);
publisher_verification!(combine_latest_ranges, Latest);
publisher_verification!(merge_ranges, Merges);
