//! The extended publisher verification: generated schedules and
//! concurrency stress against the publishers a [`PublisherFactory`] makes.

use std::sync::Arc;

pub mod schedule;
pub mod stress;

use crate::context::{Outcome, RuleBody, RuleCx};
use crate::env::TestEnv;
use crate::explore::config::{ExtendedConfig, ExtendedConfigError};
use crate::explore::{
    exploration, explore_cases, extended_builder, stress_rounds, stressed, Settings, StressPlans,
};
use crate::outcome::{RuleResult, Verification};
use crate::publisher::PublisherFactory;
use crate::runner::RuleMeta;
use schedule::Schedule;
use stress::StressPlan;

/// The extended rule tests, in order: `tck_extended_schedules` (rule id
/// `tck.extended_schedules`) and `tck_extended_stress`
/// (`tck.extended_stress`).
pub const TESTS: &[&str] = &["tck_extended_schedules", "tck_extended_stress"];

/// Runs the extended verification against one factory. See the
/// [module](crate::extended) docs.
pub struct PublisherExtendedVerification<F: PublisherFactory> {
    factory: Arc<F>,
    settings: Settings,
    verification: Verification,
}

impl<F: PublisherFactory> PublisherExtendedVerification<F> {
    /// An extended verification of `factory`'s publishers, named after its
    /// type.
    pub fn new(factory: F) -> Self {
        PublisherExtendedVerification {
            factory: Arc::new(factory),
            settings: Settings::named::<F>("publisher"),
            verification: Verification::Publisher,
        }
    }

    /// The verification results name (a processor's output side is
    /// verified as a publisher, reported as a processor).
    pub(crate) fn reported_as(mut self, verification: Verification) -> Self {
        self.verification = verification;
        self
    }

    /// Runs one extended test by name (`"tck_extended_schedules"`).
    ///
    /// # Panics
    ///
    /// If `test` is not in [`TESTS`].
    pub fn run(&self, test: &str) -> Result<RuleResult, ExtendedConfigError> {
        let (meta, env, config) =
            self.settings
                .prepare(self.verification, (TESTS, "publisher"), test)?;
        let factory = self.factory.clone();
        Ok(match test {
            "tck_extended_schedules" => {
                let case_meta = meta.clone();
                exploration(&meta, &env, &config, move |cx| {
                    schedules(cx, &factory, (&case_meta, &env), &config)
                })
            }
            _ => stressed((meta, env, config), move |cx, case, config| {
                stress(cx, &factory, case, config)
            }),
        })
    }
}

extended_builder!(PublisherExtendedVerification, PublisherFactory, TESTS);

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
            multiple_subscribers: factory.supports_multiple_subscribers(),
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

/// Generates the extended publisher verification as `#[test]`s:
/// `<name>::publisher::tck_extended_schedules` and
/// `<name>::publisher::tck_extended_stress`.
///
/// `$factory` is an expression making a
/// [`PublisherFactory`](crate::publisher::PublisherFactory), evaluated once
/// per test where the macro is invoked. The module
/// name must differ from the quick verification's; give the quick one's
/// name as the third argument so that reports list both under one target.
///
/// ```ignore
/// publisher_verification!(my_range, MyFactory::new());
/// publisher_extended_verification!(my_range_extended, MyFactory::new(), "my_range");
/// ```
///
/// Budget and seed come from `RS_TCK_CASES`, `RS_TCK_SEED` and
/// `RS_TCK_STRESS_ITERATIONS` (see [`ExtendedConfig`](crate::extended::ExtendedConfig)).
#[macro_export]
macro_rules! publisher_extended_verification {
    ($name:ident, $factory:expr $(, $target:expr)? $(,)?) => {
        $crate::__verification_tests! {
            @verified_by $crate::extended::PublisherExtendedVerification<_>, publisher,
            [tck_extended_schedules, tck_extended_stress], $name, $factory $(, $target)?
        }
    };
}
