//! Self-tests of the processor verification: a conforming processor passes
//! every rule test; each broken processor fails the rule it breaks, with a
//! snapshot-tested message.

mod broken;
mod conforming;
mod factories;
mod filtering;
mod unusual;
#[path = "../support/verdicts.rs"]
mod verdicts;
