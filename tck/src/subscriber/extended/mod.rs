//! The extended subscriber verifications: generated signal sequences
//! ([`signals`]) against the subscribers a blackbox or
//! whitebox factory makes, shrunk to a minimal script on failure.

use std::sync::Arc;

pub mod signals;
pub mod stress;

use crate::engine::{Prepared, Test};
use crate::explore::{StressPlans, scripted, stress_rounds, stressed};
use crate::subscriber::SubscriberBlackboxFactory;
use crate::subscriber::blackbox::Blackbox;
use crate::subscriber::stage::Subject;
use stress::{self as subscriber_stress, SignalPlan};

/// `tck_extended_stress` against a blackbox factory's subscribers: signals
/// from several threads in turn.
pub(crate) fn stress<F: SubscriberBlackboxFactory>() -> Test<Blackbox<F>> {
    Test::extended(|subject: &Arc<Blackbox<F>>, prepared: Prepared| {
        let subject = subject.clone();
        stressed(prepared, move |cx, case, config| {
            let threads = config.stress_threads();
            let plans = StressPlans {
                who: "signalling threads",
                draw: |seed| SignalPlan::draw(seed, threads),
                show: |plan: &SignalPlan| {
                    format!("the signals, one thread after the other: {plan}\n")
                },
            };
            stress_rounds(cx, config, case, plans, move |cx, plan| {
                subscriber_stress::run(cx, &subject.0, plan)
            })
        })
    })
}

/// `tck_extended_schedules` against a blackbox or whitebox subject:
/// generated signal sequences, shrunk to a minimal script on failure.
pub(crate) fn schedules<X: Subject>() -> Test<X> {
    Test::extended(|subject: &Arc<X>, prepared: Prepared| {
        let subject = subject.clone();
        scripted(prepared, signals::signal_scripts, move |cx, case| {
            signals::run(cx, &*subject, case)
        })
    })
}
