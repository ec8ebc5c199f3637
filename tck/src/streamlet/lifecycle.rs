//! Where one stream stands, and which Streamlet condition a signal breaks.
//!
//! Rules 2, 3, 4 and 6 share one set of conditions (the stream is *live*:
//! connected, greeted, started, not stopped since the last start, not
//! ended); rule 5 has its own. Both probes keep a [`Lifecycle`] per stream
//! and ask it, before recording a signal, which condition the signal would
//! break. The answer names the condition id (`streamlet.2.d`) and says why
//! in words that depend on nothing but the protocol, so messages are
//! deterministic.

/// The state of one stream as the TCK's end of it sees it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lifecycle {
    /// The source has greeted the sink.
    pub greeted: bool,
    /// The sink has started the stream at least once.
    pub started: bool,
    /// Started and not stopped since the last start.
    pub live: bool,
    /// The source has ended the stream.
    pub ended: bool,
}

/// One condition of a Streamlet rule that did not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The condition id, e.g. `streamlet.2.d`.
    pub id: String,
    /// The phrase that completes "no emission …", e.g. "after the source
    /// ended the stream".
    pub when: &'static str,
}

const BEFORE_GREET: &str = "before the source greets the sink";
const BEFORE_START: &str = "before the sink starts the stream";
const WHILE_STOPPED: &str =
    "while the sink has the stream stopped (after stop, before a new start)";
const AFTER_END: &str = "after the source ended the stream";
const WHILE_STARTED: &str = "while the stream is already started (no stop since the last start)";

impl Lifecycle {
    /// The first condition of the live-stream rule `rule` (2, 3, 4 or 6)
    /// that does not hold, or `None` while the stream is live.
    ///
    /// "Ended" is reported before "started" and "stopped": after an end,
    /// it is the reason that stays true whatever the sink does.
    pub fn not_live(&self, rule: u8) -> Option<Broken> {
        let (letter, when) = if !self.greeted {
            ('b', BEFORE_GREET)
        } else if self.ended {
            ('e', AFTER_END)
        } else if !self.started {
            ('c', BEFORE_START)
        } else if !self.live {
            ('d', WHILE_STOPPED)
        } else {
            return None;
        };
        Some(Broken {
            id: format!("streamlet.{rule}.{letter}"),
            when,
        })
    }

    /// The first condition of rule 5 (the sink may start) that does not
    /// hold, or `None` when a start is allowed.
    pub fn cannot_start(&self) -> Option<Broken> {
        let (letter, when) = if !self.greeted {
            ('b', BEFORE_GREET)
        } else if self.ended {
            ('d', AFTER_END)
        } else if self.live {
            ('c', WHILE_STARTED)
        } else {
            return None;
        };
        Some(Broken {
            id: format!("streamlet.5.{letter}"),
            when,
        })
    }

    /// Whether the stream is live: greeted, started, not stopped since, not
    /// ended. Only then may data flow, requests and stops be made, and the
    /// source end the stream.
    pub fn is_live(&self) -> bool {
        self.greeted && self.live && !self.ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_greeted_stream_is_not_live_before_the_start() {
        let greeted = Lifecycle {
            greeted: true,
            ..Lifecycle::default()
        };
        let broken = greeted.not_live(2).unwrap();
        assert_eq!(broken.id, "streamlet.2.c");
        assert_eq!(broken.when, "before the sink starts the stream");
    }

    #[test]
    fn each_state_names_its_condition() {
        let fresh = Lifecycle::default();
        let greeted = Lifecycle {
            greeted: true,
            ..fresh
        };
        let live = Lifecycle {
            started: true,
            live: true,
            ..greeted
        };
        let stopped = Lifecycle {
            live: false,
            ..live
        };
        let ended = Lifecycle {
            ended: true,
            ..live
        };
        let id = |l: Lifecycle, rule| l.not_live(rule).map(|b| b.id);
        assert_eq!(id(fresh, 2).as_deref(), Some("streamlet.2.b"));
        assert_eq!(id(greeted, 3).as_deref(), Some("streamlet.3.c"));
        assert_eq!(id(live, 4), None);
        assert_eq!(id(stopped, 6).as_deref(), Some("streamlet.6.d"));
        assert_eq!(id(ended, 2).as_deref(), Some("streamlet.2.e"));
        let start = |l: Lifecycle| l.cannot_start().map(|b| b.id);
        assert_eq!(start(greeted), None);
        assert_eq!(start(stopped), None);
        assert_eq!(start(live).as_deref(), Some("streamlet.5.c"));
        assert_eq!(start(ended).as_deref(), Some("streamlet.5.d"));
        assert!(live.is_live() && !stopped.is_live() && !ended.is_live());
    }
}
