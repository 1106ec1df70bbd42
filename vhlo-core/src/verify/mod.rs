//! The verifier: MLIR's structural rules and each StableHLO op's constraints, checked after a
//! program is parsed or read and before it is written, as MLIR verifies around every parse and
//! every pass. Kept apart from the conversions (as wasmparser keeps its validator apart from its
//! reader): the conversions assume a verified program.
//!
//! - [`structure`]: SSA dominance and scoping, block terminators, symbol tables, function
//!   signatures against their entry blocks and returns.
//! - [`ops`]: the constraints `docs/spec.md` upstream lists per op as (C1)…(Cn), one shape
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

pub(crate) mod ods;
pub(crate) mod ods_types;
pub(crate) mod ops;
pub(crate) mod sdy;
pub(crate) mod structure;
pub(crate) mod types;

pub use crate::convert::{Diagnostic, Diagnostics};
use crate::ir::{Module, OpId};

/// One failed check, before it is given the op's name and location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    /// The constraint: a spec id (`C1`), an ODS trait, or an MLIR rule.
    pub rule: &'static str,
    pub message: String,
}

/// The result of one check.
pub(crate) type Check = Result<(), Failure>;

/// A failed check of `rule`.
pub(crate) fn fail(rule: &'static str, message: impl Into<String>) -> Failure {
    Failure {
        rule,
        message: message.into(),
    }
}

/// Returns early with a [`Failure`] of `rule`, its message formatted as by `format!`.
macro_rules! bail {
    ($rule:expr, $($fmt:tt)+) => {
        return Err($crate::verify::fail($rule, format!($($fmt)+)))
    };
}
/// Fails with `rule` unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $rule:expr, $($fmt:tt)+) => {
        if !$cond {
            $crate::verify::bail!($rule, $($fmt)+);
        }
    };
}
pub(crate) use {bail, ensure};

/// Where failures go: each becomes a [`Diagnostic`] naming its op and location.
pub(crate) struct Sink<'m> {
    pub m: &'m Module,
    pub out: Vec<Diagnostic>,
    /// The ops the diagnostics are about, in the same order (for callers that want positions).
    pub ops: Vec<Option<OpId>>,
}

impl<'m> Sink<'m> {
    fn new(m: &'m Module) -> Self {
        Sink {
            m,
            out: Vec::new(),
            ops: Vec::new(),
        }
    }

    /// Records `f` against `op`.
    pub fn report(&mut self, op: OpId, f: Failure) {
        let m = self.m;
        self.out.push(Diagnostic {
            op: m.op_name_str(op).to_string(),
            location: crate::text::location_to_string(m, m.op_location(op)),
            subject: f.message,
            needs: None,
            rule: f.rule.to_string(),
        });
        self.ops.push(Some(op));
    }
}

/// Checks `m` as MLIR's verifier checks a module of StableHLO, `func`, `sdy` and VHLO ops: the
/// structural rules, then every StableHLO op's constraints. Ops of dialects it does not know
/// are checked only structurally, as MLIR checks unregistered ops.
pub fn verify(m: &Module) -> Result<(), Diagnostics> {
    let (diags, _) = verify_located(m);
    if diags.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(diags))
    }
}

/// [`verify`], also giving the op each diagnostic is about.
pub(crate) fn verify_located(m: &Module) -> (Vec<Diagnostic>, Vec<Option<OpId>>) {
    let mut sink = Sink::new(m);
    if let Err(e) = crate::convert::nesting_within_limit(m) {
        return (e, vec![None]);
    }
    let symbols = structure::verify_structure(&mut sink);
    if sink.out.is_empty() {
        ops::verify_ops(&mut sink, &symbols);
    }
    if sink.out.is_empty() {
        sink.out.extend(sdy::verify_sdy(m));
        sink.ops.resize(sink.out.len(), None);
    }
    // Dominance last, as MLIR checks it only once every op verified.
    if sink.out.is_empty() {
        structure::verify_dominance(&mut sink);
    }
    (sink.out, sink.ops)
}
