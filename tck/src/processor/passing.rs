//! How inputs map to outputs, from the factory's
//! [`passes`](super::ProcessorFactory::passes): each passing input makes one
//! output, every other input none.

use super::ProcessorFactory;

/// How far [`inputs_for`] looks for passing inputs before it gives up on
/// the factory's declaration.
const SEARCH_LIMIT: u64 = 1 << 20;

/// How many outputs the first `inputs` inputs make.
pub(crate) fn outputs_for<F: ProcessorFactory + ?Sized>(factory: &F, inputs: u64) -> u64 {
    (0..inputs).filter(|&index| factory.passes(index)).count() as u64
}

/// The fewest inputs that make `outputs` outputs: up to and including the
/// `outputs`-th passing input. `u64::MAX` (an infinite publisher) stays
/// infinite.
///
/// # Panics
///
/// If fewer than `outputs` of the first million inputs pass: the factory's
/// declaration cannot make the publisher a rule test asks for, and the
/// panic fails that rule test with this message.
pub(crate) fn inputs_for<F: ProcessorFactory + ?Sized>(factory: &F, outputs: u64) -> u64 {
    if outputs == u64::MAX {
        return u64::MAX;
    }
    let mut passed = 0;
    let mut index = 0;
    while passed < outputs {
        assert!(
            index < SEARCH_LIMIT.saturating_add(outputs),
            "tck.factory: the factory's passes() let only {passed} of the first {index} inputs \
             through; a publisher of {outputs} outputs needs {outputs}"
        );
        if factory.passes(index) {
            passed += 1;
        }
        index += 1;
    }
    index
}

#[cfg(test)]
mod tests {
    use super::{inputs_for, outputs_for};
    use crate::processor::ProcessorFactory;
    use crate::processor::testkit::IdentityProcessor;

    struct Keeping(fn(u64) -> bool);

    impl ProcessorFactory for Keeping {
        type Input = u64;
        type Output = u64;
        type Processor = IdentityProcessor<u64>;
        fn create_processor(&self) -> Self::Processor {
            IdentityProcessor::new()
        }
        fn input(&self, index: u64) -> u64 {
            index
        }
        fn passes(&self, index: u64) -> bool {
            (self.0)(index)
        }
    }

    #[test]
    fn by_default_every_input_is_one_output() {
        let all = Keeping(|_| true);
        for n in [0, 1, 3, 1000] {
            assert_eq!(inputs_for(&all, n), n);
            assert_eq!(outputs_for(&all, n), n);
        }
        assert_eq!(inputs_for(&all, u64::MAX), u64::MAX);
    }

    #[test]
    fn a_filter_is_fed_up_to_its_last_passing_input() {
        let evens = Keeping(|i| i % 2 == 0);
        assert_eq!(inputs_for(&evens, 0), 0);
        assert_eq!(inputs_for(&evens, 1), 1); // 0
        assert_eq!(inputs_for(&evens, 3), 5); // 0, 2, 4
        assert_eq!(outputs_for(&evens, 5), 3);
        assert_eq!(outputs_for(&evens, 4), 2);
        let odds = Keeping(|i| i % 2 == 1);
        assert_eq!(inputs_for(&odds, 2), 4); // 1, 3
    }

    #[test]
    #[should_panic(expected = "passes() let only 0 of the first")]
    fn a_filter_letting_nothing_through_is_reported() {
        inputs_for(&Keeping(|_| false), 1);
    }
}
