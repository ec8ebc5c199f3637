//! What an output was made from, and which tokens it carries.

use reactive_streams::done::Tracked;

/// An output of a stage under the datum-lifecycle verification: which input
/// data it was made from (its *lineage*, read from the value) and which
/// tokens it carries.
///
/// The verification feeds the stage `Tracked<u64>` whose value is the
/// datum's id, so the lineage of an output is read from the ids its value
/// still contains. Implemented for `Tracked<u64>`, `Tracked<Vec<u64>>`,
/// `Tracked<(u64, u64)>`, and for `Vec` and pairs of outputs (a window of
/// tracked data, a zipped pair). A stage whose outputs lose the ids (a map
/// to another type) can be verified through a type of the user's own that
/// implements this trait.
///
/// ```
/// use reactive_streams::done::{DoneLedger, Tracked};
/// use reactive_streams_tck::lifecycle::Lineage;
///
/// let ledger = DoneLedger::new(|_| {});
/// let pair = (Tracked::new(1, ledger.issue(1)), Tracked::new(7, ledger.issue(7)));
/// let (mut inputs, mut tokens) = (Vec::new(), Vec::new());
/// pair.inputs(&mut inputs);
/// pair.tokens(&mut tokens);
/// assert_eq!((inputs, tokens), (vec![1, 7], vec![1, 7]));
/// ```
pub trait Lineage {
    /// Appends the ids of the input data this output was made from.
    fn inputs(&self, into: &mut Vec<u64>);
    /// Appends the ids of the tokens this output carries.
    fn tokens(&self, into: &mut Vec<u64>);
}

impl Lineage for Tracked<u64> {
    fn inputs(&self, into: &mut Vec<u64>) {
        into.push(self.value);
    }
    fn tokens(&self, into: &mut Vec<u64>) {
        into.extend(self.tokens.iter().map(|t| t.id()));
    }
}

impl Lineage for Tracked<Vec<u64>> {
    fn inputs(&self, into: &mut Vec<u64>) {
        into.extend_from_slice(&self.value);
    }
    fn tokens(&self, into: &mut Vec<u64>) {
        into.extend(self.tokens.iter().map(|t| t.id()));
    }
}

impl Lineage for Tracked<(u64, u64)> {
    fn inputs(&self, into: &mut Vec<u64>) {
        into.extend([self.value.0, self.value.1]);
    }
    fn tokens(&self, into: &mut Vec<u64>) {
        into.extend(self.tokens.iter().map(|t| t.id()));
    }
}

impl<L: Lineage> Lineage for Vec<L> {
    fn inputs(&self, into: &mut Vec<u64>) {
        self.iter().for_each(|item| item.inputs(into));
    }
    fn tokens(&self, into: &mut Vec<u64>) {
        self.iter().for_each(|item| item.tokens(into));
    }
}

impl<A: Lineage, B: Lineage> Lineage for (A, B) {
    fn inputs(&self, into: &mut Vec<u64>) {
        self.0.inputs(into);
        self.1.inputs(into);
    }
    fn tokens(&self, into: &mut Vec<u64>) {
        self.0.tokens(into);
        self.1.tokens(into);
    }
}
