//! ODS's count traits (`ZeroRegions`, `OneResult`, `NOperands<2>`, ...), shared by the
//! StableHLO ops' checks (`ops/`), the spec dialects' (`walk.rs`) and `func`'s (`structure.rs`).

use super::{fail, Check};
use crate::ir::{Module, OpId};

/// How many regions, results, successors and operands an op declares: (fixed, whether any
/// group is variadic or optional).
pub(crate) struct OdsCounts {
    pub regions: (usize, bool),
    pub results: (usize, bool),
    pub successors: (usize, bool),
    pub operands: (usize, bool),
}

/// ODS's count traits (`ZeroRegions`, `OneResult`, `NOperands<2>`, `AtLeastNSuccessors<1>`,
/// ...) in the order an op lists them, with MLIR's messages (mlir/lib/IR/Operation.cpp).
pub(crate) fn ods_counts(m: &Module, op: OpId, counts: OdsCounts) -> Check {
    let found = [
        m.regions(op).len(),
        m.num_results(op),
        m.successors(op).len(),
        m.operands(op).len(),
    ];
    let declared = [
        counts.regions,
        counts.results,
        counts.successors,
        counts.operands,
    ];
    for (i, ((n, variadic), found)) in declared.into_iter().zip(found).enumerate() {
        let message = match (i, n, variadic) {
            (_, 0, true) => None,
            (_, n, true) if found >= n => None,
            (_, n, false) if found == n => None,
            (0, 0, false) => Some("requires zero regions".to_string()),
            (0, 1, false) => Some("requires one region".to_string()),
            (0, n, false) => Some(format!("expected {n} regions")),
            (0, n, true) => Some(format!("expected {n} or more regions")),
            (1, 0, false) => Some("requires zero results".to_string()),
            (1, 1, false) => Some("requires one result".to_string()),
            (1, n, false) => Some(format!("expected {n} results")),
            (1, n, true) => Some(format!("expected {n} or more results")),
            (2, 0, false) => Some(format!("requires 0 successors but found {found}")),
            (2, 1, false) => Some(format!("requires 1 successor but found {found}")),
            (2, n, false) => Some(format!("requires {n} successors but found {found}")),
            (2, n, true) => Some(format!(
                "requires at least {n} successors but found {found}"
            )),
            (_, 0, false) => Some("requires zero operands".to_string()),
            (_, 1, false) => Some("requires a single operand".to_string()),
            (_, n, false) => Some(format!("expected {n} operands, but found {found}")),
            (_, n, true) => Some(format!("expected {n} or more operands, but found {found}")),
        };
        if let Some(message) = message {
            return Err(fail("ODS", message));
        }
    }
    Ok(())
}
