//! Processors: [`IdentityProcessor`], [`MapProcessor`], [`FilterProcessor`]
//! and [`BufferProcessor`].
//!
//! A processor is a cheap cloneable handle: give one clone to upstream as a
//! `Box<dyn Subscriber<T>>`, subscribe downstream subscribers to another.
//!
//! # Behaviour shared by all processors
//!
//! * **Several downstream subscribers** are supported (multicast). Each has
//!   its own demand; upstream is asked for at most the *smallest* downstream
//!   demand plus the processor's buffer (0 for identity, map and filter), so
//!   a late second subscriber's demand is served and nobody is flooded.
//! * **A subscriber that joins late** first gets every element the
//!   processor still holds for its slowest subscriber (for
//!   [`BufferProcessor`], everything prefetched and not yet taken), then
//!   the live stream: nothing the others have not all taken is lost to it.
//!   Elements beyond its demand (those, or elements already in flight when
//!   it joined) are buffered for it, never emitted beyond its demand.
//! * **Errors** from upstream reach every downstream subscriber at once,
//!   ahead of buffered elements (§4.2); completion follows buffered
//!   elements.
//! * **Cancellation**: when the last downstream subscriber cancels (or sends
//!   `request(0)`), upstream is cancelled, and later subscribers get
//!   `on_subscribe` + `on_error`. Before the first downstream subscriber
//!   arrives nothing is requested from upstream.
//! * Subscribers arriving after the upstream terminated get that terminal
//!   right after `on_subscribe` — after a completion, once the elements
//!   still held for a slower subscriber (see above).
//! * Elements must be `Clone` (each subscriber gets its own copy; the last
//!   one gets the original).
//! * Signals are emitted on the thread that delivered the upstream signal or
//!   made the `request`.
//! * **Pass-through**: identity, map and filter call their first
//!   subscriber directly from the upstream signal while it is their only
//!   one, forwarding its demand upstream (plus, for a filter, replacements
//!   for the elements it dropped, asked for together once everything asked
//!   for has arrived). A `request(0)` or `cancel` it makes from another
//!   thread while upstream owes it elements takes effect upstream at once;
//!   its `on_error` (§3.9) or its release (§3.13) follows at upstream's
//!   next signal, or when upstream, cancelled, drops the processor handle.
//!   A second subscriber moves both to the multicast path.
//! * **Multicast hand-off**: an element for a subscriber that is idle with
//!   demand is handed to it by the thread that delivered it, which keeps
//!   that subscriber's emission loop (a lease) while upstream owes another
//!   element. A `request(0)` or `cancel` such a subscriber makes from
//!   another thread is acted on at upstream's next signal (its `on_error`,
//!   §3.9, or its release, §3.13), or when upstream, cancelled, drops the
//!   processor handle.

mod buffer;
mod filter;
mod identity;
mod map;
mod stage;

pub use buffer::BufferProcessor;
pub use filter::FilterProcessor;
pub use identity::IdentityProcessor;
pub use map::MapProcessor;

/// Implements the publisher role of a processor handle by delegating to
/// its stage.
macro_rules! publisher_role {
    ($name:ident < $($g:ident),* >, $out:ty) => {
        impl<$($g),*> Publisher<$out> for $name<$($g),*>
        where
            $($g: Send + 'static,)*
            $out: Clone,
        {
            fn subscribe(&self, subscriber: Box<dyn Subscriber<$out>>) {
                self.stage.subscribe(subscriber);
            }
        }
    };
}

pub(crate) use publisher_role;
