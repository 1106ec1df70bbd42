//! The verifier: MLIR's structural rules and each StableHLO op's constraints, checked after a
//! program is parsed or read and before it is written, as MLIR verifies around every parse and
//! every pass. Kept apart from the conversions (as wasmparser keeps its validator apart from its
//! reader): the conversions assume a verified program.
//!
//! - `structure`: SSA dominance and scoping, block terminators, symbol tables, function
//!   signatures against their entry blocks and returns.
//! - `ops`: the constraints `docs/spec.md` upstream lists per op as (C1)…(Cn), one shape
//!   function per op or family, named by those ids. Declarative facts (traits, ODS attribute
//!   types) come from the spec through the generated dialect.
//!
//! Errors name the op, its location and the constraint:
//! `"f.mlir":3:8: `stablehlo.reshape`: operand has 6 elements, result 8 (C1)`.
//!
//! ```
//! use vhlo_core::{text, verify};
//!
//! let src = "func.func @main(%x: tensor<2x3xf32>) -> tensor<8xf32> {\n  %0 = stablehlo.reshape %x : (tensor<2x3xf32>) -> tensor<8xf32>\n  return %0 : tensor<8xf32>\n}\n";
//! let m = text::parse_unverified(src)?;
//! let errors = verify::verify(&m).unwrap_err();
//! assert!(errors[0].to_string().contains("stablehlo.reshape"));
//! // `text::parse` verifies too, and reports the op's line and column.
//! assert_eq!(text::parse(src).unwrap_err().line, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod arith;
pub(crate) mod chlo;
mod complex;
mod counts;
mod infer;
pub(crate) mod ods;
pub(crate) mod ods_types;
pub(crate) mod ops;
mod scf;
pub(crate) mod sdy;
pub(crate) mod structure;
mod tensor;
mod type_rules;
pub use infer::infer_result_types;
mod walk;
pub(crate) use walk::Parts;
pub(crate) mod types;

mod diagnostic;
pub(crate) mod quant;
use crate::ir::{Module, OpId};
pub(crate) use diagnostic::diag;
pub use diagnostic::{diagnostics_to_text, Diagnostic, Diagnostics};

mod failure;
pub(crate) use failure::{bail, ensure, fail, Check, Failure, Place, Sink};

/// Checks `m` as MLIR's verifier checks a module of StableHLO, `func`, `sdy` and VHLO ops: the
/// structural rules, then every StableHLO op's constraints. Ops of dialects it does not know
/// are checked only structurally, as MLIR checks unregistered ops.
pub fn verify(m: &Module) -> Result<(), Diagnostics> {
    if let Err(e) = nesting_within_limit(m) {
        return Err(Diagnostics(e));
    }
    let (diags, _) = verify_parts(m, Parts::ALL);
    if diags.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(diags))
    }
}

/// The checks of `parts` on a module whose nesting is known to be within the limit (parsed,
/// read or converted), with the op each diagnostic is about.
pub(crate) fn verify_parts(
    m: &Module,
    parts: Parts,
) -> (Vec<Diagnostic>, Vec<Option<(OpId, Place)>>) {
    let mut sink = Sink::new(m);
    walk::walk(&mut sink, parts);
    if sink.out.is_empty() && parts.ops {
        let shape_lib = tensor::verify_shape_lib(m);
        for (op, d) in sdy::verify_sdy(m, false).into_iter().chain(shape_lib) {
            sink.out.push(d);
            sink.ops.push(Some((op, Place::Op)));
        }
    } else if parts.ops {
        attribute_checks_first(m, &mut sink);
    }
    (sink.out, sink.ops)
}

/// MLIR's verifier checks an op's discardable attributes of other dialects before the op
/// itself, and stops at the first op that fails: Shardy's and the shape dialect's attribute
/// checks of the ops up to the first one the walk refused come before the walk's diagnostics.
fn attribute_checks_first(m: &Module, sink: &mut Sink<'_>) {
    let mut checked = sdy::verify_sdy(m, true);
    checked.extend(tensor::verify_shape_lib(m));
    if checked.is_empty() {
        return;
    }
    let mut order = crate::ir::FastMap::default();
    m.walk(|op| {
        let n = order.len();
        order.insert(op, n);
    });
    checked.sort_by_key(|(op, _)| order.get(op).copied().unwrap_or(usize::MAX));
    let first = (sink.ops.iter().flatten())
        .filter_map(|(op, _)| order.get(op).copied())
        .min()
        .unwrap_or(usize::MAX);
    let (out, ops): (Vec<_>, Vec<_>) = checked
        .into_iter()
        .filter(|(op, _)| order.get(op).is_some_and(|&i| i <= first))
        .map(|(op, d)| (d, Some((op, Place::Op))))
        .unzip();
    sink.out.splice(0..0, out);
    sink.ops.splice(0..0, ops);
}

/// The conversions recurse over types, attributes and locations: a module nested deeper than
/// [`crate::ir::MAX_NESTING`] (built by hand, or through aliases) is refused first.
pub(crate) fn nesting_within_limit(m: &Module) -> Result<(), Vec<Diagnostic>> {
    crate::ir::regions_within_limit(m).map_err(|_| regions_too_deep())?;
    interned_within_limit(m)
}

pub(crate) fn regions_too_deep() -> Vec<Diagnostic> {
    vec![Diagnostic {
        op: "builtin.module".into(),
        location: "unknown".into(),
        subject: "regions".into(),
        needs: None,
        rule: format!(
            "regions nested deeper than {} levels (the nesting limit)",
            crate::ir::MAX_NESTING
        ),
    }]
}

/// Every interned type, attribute and location nested within the limit.
pub(crate) fn interned_within_limit(m: &Module) -> Result<(), Vec<Diagnostic>> {
    crate::ir::deepest_interned(m).map_err(|e| {
        vec![Diagnostic {
            op: "builtin.module".into(),
            location: "unknown".into(),
            subject: format!("{} #{}", e.what, e.id),
            needs: None,
            rule: e.to_string(),
        }]
    })
}
