//! What the source and the sink verifications share: their rule tests'
//! definition, and how the [engine](crate::engine) runs them.

use std::sync::Arc;

use crate::context::{RuleBody, RuleCx};
use crate::engine::{Body, Run, Table, Test, Unmet};

/// One rule test: when it cannot run, and its body.
pub struct RuleDef<F> {
    /// What the test needs from the factory: a function saying why the
    /// factory cannot serve it (it is then skipped), or `None` when it
    /// needs nothing.
    pub unmet: Option<fn(&F) -> Option<String>>,
    /// The body.
    pub run: fn(&RuleCx, &F) -> RuleBody,
}

impl<F> RuleDef<F> {
    /// A test that `unmet` may skip.
    pub(crate) fn needing(
        unmet: fn(&F) -> Option<String>,
        run: fn(&RuleCx, &F) -> RuleBody,
    ) -> Self {
        RuleDef {
            unmet: Some(unmet),
            run,
        }
    }

    /// A test that needs nothing from the factory.
    pub(crate) fn always(run: fn(&RuleCx, &F) -> RuleBody) -> Self {
        RuleDef { unmet: None, run }
    }
}

/// A table of definitions as the [engine](crate::engine) runs it.
pub(crate) fn tests<F: 'static>(defs: Vec<(&'static str, RuleDef<F>)>) -> Table<F> {
    defs.into_iter()
        .map(|(name, def)| {
            let test = Test {
                unmet: def.unmet.map(|unmet| Arc::new(unmet) as Unmet<F>),
                run: Run::Quick(Arc::new(def.run) as Body<F>),
            };
            (name, test)
        })
        .collect()
}

/// `3`, or `∞` for `u64::MAX` (one vocabulary: [`show_demand`](crate::probe::show_demand)).
pub(crate) fn show(n: u64) -> String {
    crate::probe::show_demand(n)
}
