//! The verification macros compose: invoked at the crate root, inside a
//! user's module (one module per type), several times in one module under
//! different names, and deep in nested modules, with factory expressions
//! that use paths relative to where the macro was invoked (`self::`,
//! `super::`, a private item, a module-local import). This file compiling
//! is the proof; its generated tests run the (fast) conforming range.
//!
//! The generated code names the factory through a function generated
//! beside the test module, so it needs no glob import of the invoking
//! module; see `reactive_streams_tck::__verification_factory`.

use reactive_streams::Publisher;
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::testkit::{Failing, SyncRange};
use reactive_streams_tck::publisher_verification;

/// A conforming range; `start` tells the placements apart.
pub struct Ranges(pub u64);

impl PublisherFactory for Ranges {
    type Element = u64;
    fn create_publisher(&self, elements: u64) -> Box<dyn Publisher<u64>> {
        Box::new(SyncRange::new(self.0, elements))
    }
    fn create_failed_publisher(&self) -> Option<Box<dyn Publisher<u64>>> {
        Some(Box::new(Failing::new("failed on purpose")))
    }
}

// At the crate root.
publisher_verification!(at_the_root, Ranges(0));

/// One module per verified type, naming its factory with `self::`.
mod per_type {
    fn make() -> super::Ranges {
        super::Ranges(10)
    }

    reactive_streams_tck::publisher_verification!(range, self::make());
}

/// Several verifications of one type in one module, each under its own
/// name, with `super::` paths and a display name computed from a private
/// constant.
mod several {
    const NAME: &str = "several::second";

    reactive_streams_tck::publisher_verification!(first, super::Ranges(20));
    reactive_streams_tck::publisher_verification!(second, super::Ranges(30), NAME);

    /// Deeper still, with the factory brought in by a module-local import.
    mod nested {
        use crate::Ranges as Imported;

        reactive_streams_tck::publisher_verification!(third, Imported(40));
    }
}
