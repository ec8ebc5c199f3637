//! The reference model: what a conforming publisher owes one subscriber
//! after any prefix of a schedule.
//!
//! The model is exact for everything the protocol fixes — how many
//! `on_next` are owed, whether `on_complete` is owed, whether `on_error`
//! is owed (after `request(0)`, §3.9; from a failed publisher) — and
//! permissive where the protocol is (signals still in flight after
//! `cancel`, an empty publisher completing without demand).
//!
//! With several subscribers present the model owes only what every
//! conforming publisher of several subscribers owes (issue 27 §2): each
//! subscriber gets at most its own demand (§1.1); an element is owed to a
//! subscriber only once every subscriber present (neither cancelled nor
//! terminated) has demand for it, since a multicast may go at the pace of
//! its slowest subscriber; and a subscriber that joins after elements went
//! out may start later in the stream (where it starts is known from its
//! first element's `element_index`, where declared), then is owed the rest
//! from there. Positions below are indices in the publisher's stream.

use reactive_streams::demand;

use super::Reflexes;

/// One subscriber as the model sees it.
#[derive(Debug, Clone)]
pub(crate) struct SubModel {
    /// Demand signalled from outside `on_next` (steps and `on_subscribe`),
    /// saturating at `u64::MAX` (§3.17).
    pub(crate) requested: u64,
    /// The request made from inside every `on_next`.
    pub(crate) on_next: u64,
    /// Cancel from inside the `on_next` that brings the count to this.
    pub(crate) cancel_inside: Option<u64>,
    /// A `cancel()` step ran.
    pub(crate) cancelled: bool,
    /// `on_next` signals received and checked.
    pub(crate) delivered: u64,
    /// `on_complete` received.
    pub(crate) completed: bool,
    /// The publisher is the factory's failed one: it owes `on_error` and
    /// no element.
    pub(crate) fails: bool,
    /// `request(0)` was made while the subscription was open: it owes
    /// `on_error` with an illegal-demand error (§3.9).
    pub(crate) illegal_demand: bool,
    /// `on_error` received.
    pub(crate) errored: bool,
    /// The stream position of its first element, once known: 0 for the
    /// first subscriber of a fresh publisher; for a later one the
    /// `element_index` of its first element (unknown without it).
    pub(crate) start: Option<u64>,
    /// A lower bound on where a later subscriber starts: what the first
    /// had been given when it subscribed (a multicast does not go back;
    /// a cold publisher starts it at 0 but holds nobody back).
    pub(crate) joined_at: u64,
    /// The stream position the other subscribers present have demand up
    /// to (`u64::MAX`: nobody else holds this one back).
    pub(crate) pace: u64,
    /// It subscribed when every earlier subscriber had cancelled or ended:
    /// a hot stage may have shut down with them and complete it at once,
    /// even an infinite one.
    pub(crate) after_all_left: bool,
}

impl Default for SubModel {
    /// The first subscriber of a fresh publisher, before any demand.
    fn default() -> Self {
        SubModel {
            requested: 0,
            on_next: 0,
            cancel_inside: None,
            cancelled: false,
            delivered: 0,
            completed: false,
            fails: false,
            illegal_demand: false,
            errored: false,
            start: Some(0),
            joined_at: 0,
            pace: u64::MAX,
            after_all_left: false,
        }
    }
}

impl SubModel {
    /// A subscriber with these reflexes; its `on_subscribe` requests count
    /// as demand from the start.
    pub(crate) fn with_reflexes(reflexes: &Reflexes) -> Self {
        SubModel {
            requested: reflexes
                .on_subscribe
                .iter()
                .fold(0, |r, n| demand::add(r, *n)),
            on_next: reflexes.on_next,
            cancel_inside: reflexes.cancel_inside,
            ..SubModel::default()
        }
    }

    /// A subscriber joining when the first had been given `joined_at`
    /// elements (and was still present, or not: `after_all_left`): where
    /// it starts is unknown until its first element.
    pub(crate) fn joining(joined_at: u64, after_all_left: bool) -> Self {
        SubModel {
            joined_at,
            after_all_left,
            start: None,
            ..SubModel::default()
        }
    }

    /// A subscriber of the factory's failed publisher.
    pub(crate) fn failing(mut self) -> Self {
        self.fails = true;
        self
    }

    /// `request(n)`: demand adds up (§3.8), saturating (§3.17); 0 makes
    /// `on_error` owed (§3.9); after cancel or a terminal signal it is a
    /// no-op (§3.6, §1.6).
    pub(crate) fn request(&mut self, n: u64) {
        if !self.is_open() {
            return;
        }
        if n == 0 {
            self.illegal_demand = true;
        } else {
            self.requested = demand::add(self.requested, n);
        }
    }

    /// `cancel()`.
    pub(crate) fn cancel(&mut self) {
        self.cancelled = true;
    }

    /// Cancelled by a step or from inside an `on_next`: nothing more is
    /// owed, and what still arrives must stay within demand.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled || self.cancel_inside.is_some_and(|k| self.delivered >= k)
    }

    /// How many `on_next` its own demand allows in total, from where it
    /// started to the end of the stream: more is §1.1 (or beyond the
    /// stream). Before a later subscriber's start is known, it may have
    /// started at 0.
    pub(crate) fn allowed(&self, elements: u64) -> u64 {
        let remaining = elements.saturating_sub(self.start.unwrap_or(0));
        let flowing = if self.requested == 0 || self.fails {
            0
        } else if self.on_next > 0 {
            // Every on_next asks for more, so demand never runs out.
            remaining
        } else {
            self.requested.min(remaining)
        };
        match self.cancel_inside {
            Some(k) => flowing.min(k),
            None => flowing,
        }
    }

    /// How many `on_next` the publisher owes in total, once it settles:
    /// what its own demand allows, up to the position the others present
    /// have demand for; nothing before a later subscriber's start is known.
    /// After `request(0)` only `on_error` is owed: §3.9 does not ask for
    /// the elements still outstanding first (a subscriber alone has had
    /// them before its next step; one held back by another may not).
    pub(crate) fn owed(&self, elements: u64) -> u64 {
        let Some(start) = self.start else {
            return 0;
        };
        let owed = self.allowed(elements).min(self.pace.saturating_sub(start));
        if self.illegal_demand {
            owed.min(self.delivered)
        } else {
            owed
        }
    }

    /// The stream position this subscriber has demand up to, as the others
    /// are held back by it (a lower bound: a later subscriber starts no
    /// earlier than it joined, as far as a multicast goes).
    pub(crate) fn reach(&self) -> u64 {
        let start = self.start.unwrap_or(0).max(self.joined_at);
        let demand = if self.requested == 0 {
            0
        } else if self.on_next > 0 {
            u64::MAX
        } else {
            self.requested
        };
        let demand = match self.cancel_inside {
            Some(k) => demand.min(k),
            None => demand,
        };
        start.saturating_add(demand)
    }

    /// Present: it holds the others back. A subscriber owed `on_error`
    /// (failed publisher, `request(0)`) is on its way out.
    pub(crate) fn is_present(&self) -> bool {
        self.is_open() && !self.fails && !self.illegal_demand
    }

    /// Whether `on_complete` is owed once the owed elements have come: all
    /// of them and one more were demanded, by it and by every other
    /// subscriber present, and nobody cancelled. With exactly the elements
    /// demanded, `on_complete` may come or not: a publisher may learn that
    /// it is exhausted only when asked for one element more (§1.5 sets no
    /// deadline, §3.11 lets `request` complete).
    pub(crate) fn completion_owed(&self, elements: u64) -> bool {
        let Some(start) = self.start else {
            return false;
        };
        let beyond = self.on_next > 0 || self.requested > elements.saturating_sub(start);
        !self.is_cancelled()
            && !self.fails
            && !self.illegal_demand
            && !self.errored
            && self.requested > 0
            && start.saturating_add(self.owed(elements)) == elements
            && beyond
            && self.pace > elements
    }

    /// Whether `on_error` is owed and has not come yet: the subscription
    /// is open and either the publisher is a failed one or `request(0)`
    /// was made.
    pub(crate) fn error_owed(&self) -> bool {
        self.is_open() && (self.fails || self.illegal_demand)
    }

    /// Neither cancelled nor terminated: any further signal would be one
    /// too many.
    pub(crate) fn is_open(&self) -> bool {
        !self.is_cancelled() && !self.completed && !self.errored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demand_adds_up_and_saturates() {
        let mut model = SubModel::default();
        model.request(3);
        assert_eq!(model.owed(10), 3);
        model.request(u64::MAX);
        assert_eq!(model.requested, u64::MAX);
        assert_eq!(model.owed(10), 10);
        assert!(model.completion_owed(10));
    }

    #[test]
    fn requests_from_on_next_keep_it_flowing_until_cancel_inside() {
        let model = SubModel::with_reflexes(&Reflexes {
            on_subscribe: vec![1],
            on_next: 1,
            cancel_inside: Some(4),
        });
        assert_eq!(model.owed(10), 4);
        assert!(!model.completion_owed(10));
        let mut cancelled = model.clone();
        cancelled.delivered = 4;
        assert!(cancelled.is_cancelled());
        assert!(!cancelled.completion_owed(10));
    }

    #[test]
    fn request_0_owes_on_error_and_nothing_more() {
        let mut model = SubModel::default();
        model.request(2);
        model.delivered = 2;
        model.request(0);
        assert!(model.error_owed());
        assert!(!model.completion_owed(5));
        assert_eq!(model.owed(5), 2);
        model.errored = true;
        assert!(!model.error_owed());
        model.request(0);
        model.request(3);
        assert_eq!(model.requested, 2);
    }

    #[test]
    fn a_failed_publisher_owes_on_error_only() {
        let mut model = SubModel::default().failing();
        model.request(u64::MAX);
        assert_eq!(model.owed(0), 0);
        assert!(model.error_owed());
        assert!(!model.completion_owed(0));
        model.cancel();
        assert!(!model.error_owed());
    }

    #[test]
    fn an_infinite_publisher_never_owes_completion() {
        let mut model = SubModel {
            cancel_inside: Some(16),
            ..SubModel::default()
        };
        model.request(u64::MAX);
        assert_eq!(model.owed(u64::MAX), 16);
        assert!(!model.completion_owed(u64::MAX));
    }

    #[test]
    fn a_multicast_owes_only_what_every_subscriber_present_demands() {
        let mut first = SubModel::default();
        first.request(1);
        let mut second = SubModel::joining(0, false);
        first.pace = second.reach();
        assert_eq!(first.owed(2), 0, "the second has no demand yet");
        assert_eq!(first.allowed(2), 1);
        second.request(5);
        first.pace = second.reach();
        assert_eq!(first.owed(2), 1);
        assert_eq!(second.owed(2), 0, "where it starts is not known yet");
        second.start = Some(1);
        second.pace = first.reach();
        assert_eq!(second.owed(2), 0, "the first has no demand for element 1");
        first.request(5);
        second.pace = first.reach();
        assert_eq!(second.owed(2), 1);
        assert!(second.completion_owed(2));
        second.cancel();
        assert!(!second.is_present());
    }

    #[test]
    fn nothing_is_owed_without_demand_or_after_cancel() {
        let mut model = SubModel::default();
        assert_eq!(model.owed(5), 0);
        assert!(!model.completion_owed(0));
        model.cancel();
        model.request(5);
        assert_eq!(model.requested, 0);
    }
}
