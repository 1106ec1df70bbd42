//! The StableHLO verifier's type constraints, as far as the spec states them (`traits` in
//! `spec/ops/*.yaml`): what libStablehlo checks before it serializes, so that we never write an
//! artifact it would refuse to read.

use crate::ir::{Module, OpId, Type, TypeData};
use crate::vhlo::StablehloOp;

use super::diagnostic::{diag, Diagnostic};

/// Every op of `m` that breaks a type constraint of its StableHLO op, named with its location.
pub(crate) fn verify_stablehlo(m: &Module) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    m.walk(|op| {
        let Some(kind) = StablehloOp::from_name(m.op_name_str(op)) else { return };
        if kind.compatible_operands_and_result_type() {
            if let Some(problem) = incompatible_operands_and_result(m, op) {
                out.push(diag(m, op, problem, None, "HLO_CompatibleOperandsAndResultType: operands and results need the same element type and compatible shapes"));
            }
        }
    });
    out
}

/// The first operand or result whose type is incompatible with the first operand's. Names are
/// made only for the message (this runs on every elementwise op).
fn incompatible_operands_and_result(m: &Module, op: OpId) -> Option<String> {
    let mut types = m
        .operands(op)
        .iter()
        .map(|&v| m.value_type(v))
        .enumerate()
        .map(|(i, t)| ("operand", i, t))
        .chain(
            m.results(op)
                .map(|v| m.value_type(v))
                .enumerate()
                .map(|(i, t)| ("result", i, t)),
        );
    let (first_kind, _, first) = types.next()?;
    for (kind, i, t) in types {
        if let Some(why) = incompatible(m, first, t) {
            return Some(format!(
                "{kind} #{i} has type {} but {first_kind} #0 has type {} ({why})",
                crate::text::type_to_string(m, t),
                crate::text::type_to_string(m, first)
            ));
        }
    }
    None
}

/// Why `a` and `b` are not compatible as ODS's `isCompatibleForHloTypeInference` sees them, if
/// they are not. Quantized element types are left alone (their parameters may differ).
fn incompatible(m: &Module, a: Type, b: Type) -> Option<&'static str> {
    if a == b {
        return None;
    }
    let tensor = |t: Type| match m.type_data(t) {
        TypeData::RankedTensor { shape, element, .. } => Some((Some(shape.clone()), *element)),
        TypeData::UnrankedTensor { element } => Some((None, *element)),
        _ => None,
    };
    let (Some((sa, ea)), Some((sb, eb))) = (tensor(a), tensor(b)) else {
        // Tokens, tuples and other dialects' types: only equal types are compatible.
        return Some("different types");
    };
    let quantized =
        |e: Type| matches!(m.type_data(e), TypeData::Dialect(d) if m.str(d.dialect) == "quant");
    if ea != eb && !(quantized(ea) && quantized(eb)) {
        return Some("different element types");
    }
    if let (Some(sa), Some(sb)) = (sa, sb) {
        if sa.len() != sb.len() {
            return Some("different ranks");
        }
        let dynamic = |d: i64| d < 0;
        if sa
            .iter()
            .zip(sb.iter())
            .any(|(&x, &y)| x != y && !dynamic(x) && !dynamic(y))
        {
            return Some("different dimension sizes");
        }
    }
    None
}
