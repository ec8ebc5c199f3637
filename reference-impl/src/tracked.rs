//! Sources of tracked data and ways to hear that a datum is done.
//!
//! The token machinery itself lives in [`reactive_streams::done`]: a
//! [`DoneLedger`] issues a [`DoneToken`] per datum and is told (callback or
//! channel) when the last clone of it is dropped, and a [`Checkpoint`]
//! turns that into "the highest offset below which everything is done".
//! This module adds a publisher of [`Tracked`] records ([`checkpointed`])
//! and a future per datum ([`DoneSignals`]).
//!
//! Every processor of this crate carries `Tracked<T>` elements unchanged;
//! see the [`operator`](crate::operator) module for how windows, zip,
//! combine-latest and flat-map hold and merge tokens.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::channel::oneshot;
use parking_lot::Mutex;
use reactive_streams::done::{Checkpoint, DoneLedger, DoneToken, Tracked};

use crate::publisher::{IterPublisher, SingleUse};

/// A publisher of `items`, each carrying a token for its offset in
/// `checkpoint` (issued as the item is produced, in order).
///
/// It serves one subscriber (offsets are issued once).
///
/// ```
/// use reactive_streams::done::Checkpoint;
/// use reactive_streams_reference::{collect, tracked};
///
/// let checkpoint = Checkpoint::new();
/// let records = tracked::checkpointed(["a", "b"], &checkpoint);
/// let all = futures::executor::block_on(collect(&records)).unwrap();
/// assert_eq!(checkpoint.committable(), None); // `all` still holds both
/// drop(all);
/// assert_eq!(checkpoint.committable(), Some(1));
/// ```
pub fn checkpointed<I>(
    items: I,
    checkpoint: &Checkpoint,
) -> SingleUse<IterPublisher<impl Iterator<Item = Tracked<I::Item>> + Send + 'static + use<I>>>
where
    I: IntoIterator,
    I::IntoIter: Send + 'static,
    I::Item: Send + 'static,
{
    let items = Mutex::new(Some(items.into_iter()));
    let checkpoint = checkpoint.clone();
    SingleUse::new(IterPublisher::new(move || {
        let checkpoint = checkpoint.clone();
        items
            .lock()
            .take()
            .into_iter()
            .flatten()
            .map(move |item| Tracked::new(item, checkpoint.issue()))
    }))
}

type Waiters = Mutex<HashMap<u64, oneshot::Sender<()>>>;

/// A ledger whose tokens come with a future that resolves when their datum
/// is done.
///
/// ```
/// use reactive_streams_reference::tracked::DoneSignals;
///
/// let signals = DoneSignals::new();
/// let (token, done) = signals.issue(7);
/// let copy = token.clone();
/// drop(token);
/// drop(copy);
/// assert_eq!(futures::executor::block_on(done), 7);
/// ```
#[derive(Clone, Debug)]
pub struct DoneSignals {
    ledger: DoneLedger,
    waiters: Arc<Waiters>,
}

impl Default for DoneSignals {
    fn default() -> Self {
        DoneSignals::new()
    }
}

impl DoneSignals {
    /// A fresh ledger.
    pub fn new() -> Self {
        let waiters: Arc<Waiters> = Arc::default();
        let on_done = waiters.clone();
        let ledger = DoneLedger::new(move |id| {
            if let Some(waiter) = on_done.lock().remove(&id) {
                // Nobody awaiting any more is fine.
                let _ = waiter.send(());
            }
        });
        DoneSignals { ledger, waiters }
    }

    /// A token for the datum `id` (unique among those in flight) and a
    /// future resolving to `id` once the datum is done.
    pub fn issue(&self, id: u64) -> (DoneToken, DoneFuture) {
        let (sender, receiver) = oneshot::channel();
        self.waiters.lock().insert(id, sender);
        (self.ledger.issue(id), DoneFuture { id, receiver })
    }

    /// The underlying ledger (its tokens have no future).
    pub fn ledger(&self) -> &DoneLedger {
        &self.ledger
    }
}

/// Resolves to the datum's id once it is done; see [`DoneSignals`].
#[derive(Debug)]
#[must_use = "futures do nothing unless awaited"]
pub struct DoneFuture {
    id: u64,
    receiver: oneshot::Receiver<()>,
}

impl Future for DoneFuture {
    type Output = u64;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<u64> {
        // A cancelled sender means a second token reused this id and
        // replaced the waiter: treat the datum as done, not as pending
        // forever.
        Pin::new(&mut self.receiver).poll(cx).map(|_| self.id)
    }
}
