//! Publishers: cold ([`IterPublisher`], [`AsyncPublisher`], [`range`],
//! [`infinite`], [`empty`], [`just`], [`failed`], [`SingleUse`]) and hot
//! ([`MulticastPublisher`]).

mod async_iter;
pub(crate) mod iter;
mod multicast;
pub(crate) mod simple;

pub use async_iter::AsyncPublisher;
pub use iter::{IterProducer, IterPublisher, infinite, range};
pub use multicast::MulticastPublisher;
pub use simple::{
    EmptyPublisher, FailedPublisher, JustPublisher, SingleUse, empty, failed, just, reject,
};
