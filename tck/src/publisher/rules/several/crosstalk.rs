//! One subscriber's cancel never takes another's demand with it (issue 39
//! §3), the publisher side: the cell of the cross-talk matrix the other
//! several-subscriber scenarios leave open.
//!
//! They cover a subscriber joining while another has demand (the late
//! joiner), requests of one while another has some or none (unequal
//! demand; the probes file any element beyond a subscriber's own demand
//! under §1.1), and a cancel after which the one that stays asks again
//! (one cancels, one cancels inside `on_next`). Left open: a cancel by
//! the subscriber holding a multicast back (it has no demand, so a
//! publisher at its slowest subscriber's pace sends nothing), while the
//! other waits with demand it already registered. That demand is owed
//! once the one holding it back has left, without another request
//! (§3.8: `request` registers elements "to the respective subscriber");
//! a publisher that looks again only at the next request loses it.
//! Run in both orders: the first subscriber cancels while the second
//! waits, and the reverse.

use super::{Stop, capacity, conclude, either, later, owed, rest};
use crate::context::RuleCx;
use crate::probe::Probe;
use crate::publisher::PublisherFactory;
use crate::publisher::rules::{create, subscribed, up_to};

/// The scenarios, for a factory of several subscribers and at least 3
/// elements (run by `spec_3_08`).
pub(crate) fn releasing_on_cancel<F: PublisherFactory>(cx: &RuleCx, f: &F) -> super::Concluded {
    let n = up_to(f, 6);
    if capacity(f) < 2 || n < 3 {
        return Ok(None);
    }
    let first = conclude(cx, held_back_by(cx, f, n, Leaver::First))?;
    let second = conclude(cx, held_back_by(cx, f, n, Leaver::Second))?;
    Ok(either(first, second))
}

/// Which subscriber holds the other back, then cancels.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Leaver {
    First,
    Second,
}

/// Two subscribers. `First`: the first requests 1, the second 3; each
/// gets one, then the first cancels: the second is owed its other 2 (or
/// the rest of the stream from where it joined, then `on_complete`). `Second`: the
/// second requests nothing, the first requests 2, the second cancels: the
/// first is owed its 2.
fn held_back_by<F: PublisherFactory>(
    cx: &RuleCx,
    f: &F,
    n: u64,
    leaver: Leaver,
) -> Result<(), Stop> {
    cx.scenario(match leaver {
        Leaver::First => format!(
            "publisher of {n}, two subscribers request 1 and 3, one element each; the first cancels (no further request)"
        ),
        Leaver::Second => format!(
            "publisher of {n}, two subscribers; the second asks for nothing, the first requests 2, the second cancels (no further request)"
        ),
    });
    let publisher = create(cx, f, n)?;
    let first = subscribed(Probe::new(cx, "first").created_for(n), &*publisher)?;
    let second = subscribed(later(cx, "second", n), &*publisher)?;
    match leaver {
        Leaver::First => {
            first.request(1)?;
            second.request(3)?;
            owed(cx, &first, 1, 1, "requested 1")?;
            if rest(cx, &second, 2, (1, n), "requested 3")? {
                return Ok(());
            }
            first.cancel()?;
            rest(
                cx,
                &second,
                2,
                (2, n),
                "requested 3 before the first subscriber, which had no demand left, cancelled",
            )?;
        }
        Leaver::Second => {
            first.request(2)?;
            second.cancel()?;
            owed(
                cx,
                &first,
                1,
                2,
                "requested 2 before the second subscriber, which had asked for nothing, cancelled",
            )?;
        }
    }
    Ok(())
}
