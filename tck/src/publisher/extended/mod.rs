//! The extended publisher verification: generated schedules and
//! concurrency stress against the publishers a [`PublisherFactory`] makes.

use std::sync::Arc;

pub mod schedule;
pub mod stress;

use crate::context::{Outcome, RuleBody, RuleCx};
use crate::engine::Prepared;
use crate::env::TestEnv;
use crate::explore::config::ExtendedConfig;
use crate::explore::{StressPlans, exploration, explore_cases, stress_rounds, stressed};
use crate::outcome::RuleResult;
use crate::publisher::PublisherFactory;
use crate::runner::RuleMeta;
use schedule::Schedule;
use stress::StressPlan;

/// Runs the extended test `prepared` names (`tck_extended_schedules`, rule
/// id `tck.extended_schedules`, or `tck_extended_stress`) against a
/// publisher factory: the publisher verification's, and the processor's on
/// its output side.
pub(crate) fn run<F: PublisherFactory>(factory: Arc<F>, prepared: Prepared) -> RuleResult {
    if prepared.0.test == "tck_extended_stress" {
        run_stress(factory, prepared)
    } else {
        run_schedules(factory, prepared)
    }
}

/// `tck_extended_schedules`: generated schedules, each checked against the
/// model.
fn run_schedules<F: PublisherFactory>(
    factory: Arc<F>,
    (meta, env, config): Prepared,
) -> RuleResult {
    let case_meta = meta.clone();
    exploration(&meta, &env, &config, move |cx| {
        schedules(cx, &factory, (&case_meta, &env), &config)
    })
}

/// `tck_extended_stress`: several threads requesting at the same instants.
fn run_stress<F: PublisherFactory>(factory: Arc<F>, prepared: Prepared) -> RuleResult {
    stressed(prepared, move |cx, case, config| {
        stress(cx, &factory, case, config)
    })
}

fn schedules<F: PublisherFactory>(
    cx: &RuleCx,
    factory: &Arc<F>,
    case: (&RuleMeta, &TestEnv),
    config: &ExtendedConfig,
) -> RuleBody {
    let failed = match crate::publisher::rules::create_failed(cx, &**factory) {
        Ok(failed) => failed.is_some(),
        Err(failure) => return Err(failure),
    };
    let strategy = schedule::schedules_of_lengths(
        schedule::Offer {
            max_elements: factory.max_elements(),
            multiple_subscribers: crate::publisher::serves_several(&**factory),
            failed,
        },
        factory.min_elements(),
    );
    let factory = factory.clone();
    explore_cases(
        cx,
        config,
        "schedule",
        strategy,
        case,
        move |cx, case: &Schedule| {
            crate::publisher::declare_identity_of(cx, &factory);
            schedule::exec::run(cx, &*factory, case)
        },
    )
}

fn stress<F: PublisherFactory>(
    cx: &RuleCx,
    factory: &Arc<F>,
    case: (&RuleMeta, &TestEnv),
    config: &ExtendedConfig,
) -> RuleBody {
    let threads = config.stress_threads();
    let needed = StressPlan::max_elements_needed(threads);
    if !factory.run_stochastic() {
        return Ok(Outcome::Skipped(String::from(
            "a stochastic check; the factory's run_stochastic() is false",
        )));
    }
    if factory.max_elements() < needed {
        return Ok(Outcome::Skipped(format!(
            "needs publishers of up to {needed} elements; the factory's max_elements() is {}",
            factory.max_elements()
        )));
    }
    let fewest = StressPlan::min_elements_needed(threads);
    if factory.min_elements() > fewest {
        return Ok(Outcome::Skipped(format!(
            "needs publishers of as few as {fewest} elements; the factory's min_elements() is {}",
            factory.min_elements()
        )));
    }
    let plans = StressPlans {
        who: "threads",
        draw: |seed| StressPlan::draw(seed, threads),
        show: |plan: &StressPlan| {
            format!("what each thread did, lined up by a barrier before each call:\n{plan}\n")
        },
    };
    let factory = factory.clone();
    stress_rounds(cx, config, case, plans, move |cx, plan: &StressPlan| {
        crate::publisher::declare_identity_of(cx, &factory);
        stress::run(cx, &*factory, plan)
    })
}
