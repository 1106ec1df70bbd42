//! StableHLO's custom assembly formats.

use super::parser::{PResult, Parser};
use super::printer::Printer;
use crate::ir::*;

impl Parser<'_> {
    /// A StableHLO op in pretty syntax; `None` when `name` has no pretty form here.
    pub(crate) fn parse_stablehlo_pretty(&mut self, _name: &str, _pos: usize, _named_results: usize) -> PResult<Option<OpId>> {
        Ok(None)
    }
}

/// Prints a StableHLO op in pretty syntax; false when it has none here.
pub(crate) fn print_stablehlo(_p: &mut Printer<'_>, _op: OpId) -> bool {
    false
}

/// `%cst` for constants, as StableHLO's `getAsmResultNames` does.
pub(crate) fn result_name_hint(_m: &Module, _op: OpId) -> Option<&'static str> {
    None
}
