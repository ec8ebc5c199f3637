//! Publishers: cold ([`IterPublisher`], [`AsyncPublisher`], [`range`],
//! [`infinite`], [`empty`], [`just`], [`failed`], [`SingleUse`]) and hot
//! ([`MulticastPublisher`]).

mod async_iter;
pub(crate) mod iter;
mod multicast;
pub(crate) mod simple;

pub use async_iter::AsyncPublisher;
pub use iter::{infinite, range, IterProducer, IterPublisher};
pub use multicast::MulticastPublisher;
pub use simple::{
    empty, failed, just, reject, EmptyPublisher, FailedPublisher, JustPublisher, SingleUse,
};
