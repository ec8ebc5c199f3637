//! The macro works at the root of a module and nested inside others, with
//! the factory named by a relative path, an absolute path or any
//! expression, and needs no `use`.

reactive_streams_tck::stream_verification!(plain_channel, crate::channel::Channels::default());

mod nested {
    mod deeper {
        use crate::channel::{Channels, Shape};

        reactive_streams_tck::stream_verification!(
            pending_first,
            Channels::shaped(Shape::PendingFirst),
            "channel (Pending before every item)"
        );
    }
}
