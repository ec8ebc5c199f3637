//! The verification macros compose: invoked at the crate root, inside a
//! user's module (one module per type), several times in one module under
//! different names, and deep in nested modules, with factory expressions
//! naming a private item, a module-local import, an item named like the
//! verification, or a `crate::` path. This file compiling is the proof;
//! its generated tests run the (fast) conforming range.

use reactive_streams::Publisher;
use reactive_streams_tck::publisher::PublisherFactory;
use reactive_streams_tck::publisher_verification;
use reactive_streams_tck::testkit::{Failing, SyncRange};

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

/// One module per verified type, its factory made by a private function
/// named like the verification.
mod per_type {
    fn range() -> crate::Ranges {
        crate::Ranges(10)
    }

    reactive_streams_tck::publisher_verification!(range, range());
}

/// Several verifications of one type in one module, each under its own
/// name, with `crate::` paths and a display name from a private constant.
mod several {
    const NAME: &str = "several::second";

    reactive_streams_tck::publisher_verification!(first, crate::Ranges(20));
    reactive_streams_tck::publisher_verification!(second, crate::Ranges(30), NAME);

    /// Deeper still, with the factory brought in by a module-local import.
    mod nested {
        use crate::Ranges as Imported;

        reactive_streams_tck::publisher_verification!(third, Imported(40));
    }
}
