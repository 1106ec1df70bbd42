//! Runtime support for the generated dialect (the generated code itself is `crate::vhlo`).
//!
//! Generated code refers to these items by absolute path (`::vhlo_core::dialect::...`), so a
//! dialect generated from another spec (the fixture tests) uses the same runtime. Nothing here names
//! a generated type: ops are identified by their full name.

/// The dialects jaxlib's MLIR context registers (probed on jaxlib 0.10.2, StableHLO 1.17.0: the
/// "Available dialects" of its parser's error for an op of an unknown dialect). libStablehlo
/// refuses to read an artifact holding a type or attribute of any other dialect, so with
/// `allow_other_dialects` those are refused rather than written; the text parser refuses them
/// unless told otherwise (`text::ParseOptions::allow_unregistered_dialects`).
pub const LIBSTABLEHLO_DIALECTS: &[&str] = &[
    "builtin",
    "func",
    "arith",
    "tensor",
    "shape",
    "scf",
    "cf",
    "chlo",
    "sdy",
    "mhlo",
    "quant",
    "math",
    "memref",
    "vector",
    "gpu",
    "nvvm",
    "llvm",
    "affine",
    "complex",
    "mpmd",
    "nvgpu",
    "ub",
    "stablehlo",
    "vhlo",
];

/// Why a type or attribute of `dialect` cannot be kept, if it cannot.
pub(crate) fn unknown_to_libstablehlo(dialect: &str) -> Option<String> {
    (!dialect.is_empty() && !LIBSTABLEHLO_DIALECTS.contains(&dialect)).then(|| {
        format!(
            "is of dialect '{dialect}', which libStablehlo does not load: it would refuse to read the artifact"
        )
    })
}

pub mod codec;
pub mod hooks;
// Internal: helpers the generated code calls (not part of the documented API).
#[doc(hidden)]
pub mod support;
pub mod typed;

use std::fmt;
use std::ops::Range;

use crate::ir::{
    Attribute, Location, Module, NamedAttr, OpId, OperationState, Region, Type, Value,
};
use crate::version::Version;

// `ParamKind` and `Wire`, generated from codegen's own lists (codegen/src/model.rs, wire.rs).
include!("../generated/dialect_kinds.rs");

/// One parameter of a VHLO type or attribute.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: ParamKind,
    pub optional: bool,
}

/// One step of a bytecode entry: which parameter (storage index) and how it is written.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct WireStep {
    pub param: usize,
    pub wire: Wire,
}

/// An op that does not have the shape its typed struct expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpMismatch {
    /// The op name the struct describes.
    pub op: &'static str,
    pub reason: String,
}

impl std::fmt::Display for OpMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}`: {}", self.op, self.reason)
    }
}

impl std::error::Error for OpMismatch {}

/// A version step that cannot be done. Says what blocks it and which version would accept it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversionError {
    /// The op that was being converted.
    pub op: OpId,
    /// Its full name (e.g. `vhlo.exponential_v2`).
    pub op_name: &'static str,
    /// What blocks the step (e.g. "attribute `result_accuracy`").
    pub subject: String,
    /// The smallest version that accepts the op as it is.
    pub needs: Version,
    /// The rule that refused it (e.g. "exponential_v2 -> exponential_v1 needs result_accuracy = ...").
    pub rule: String,
}

impl fmt::Display for ConversionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}`: {} needs version {} or newer ({})",
            self.op_name, self.subject, self.needs, self.rule
        )
    }
}

impl std::error::Error for ConversionError {}

/// A use of an op that needs a newer release than the target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureUse {
    /// The op's full name.
    pub op: &'static str,
    /// What it uses.
    pub feature: &'static str,
    /// The release that introduced it.
    pub needs: Version,
}

/// Checks that `op` is called `name`.
pub fn expect_name(m: &Module, op: OpId, name: &'static str) -> Result<(), OpMismatch> {
    let actual = m.op_name_str(op);
    if actual == name {
        Ok(())
    } else {
        Err(OpMismatch {
            op: name,
            reason: format!("the op is a `{actual}`"),
        })
    }
}

/// How many items each variadic group holds when `len` items fill `fixed` single groups and
/// `variadic` groups sharing the rest equally (MLIR's `SameVariadicOperandSize`); `None` when
/// they cannot. With no variadic group the answer is 0.
pub fn variadic_group_size(len: usize, fixed: usize, variadic: usize) -> Option<usize> {
    let rest = len.checked_sub(fixed)?;
    match variadic {
        0 => (rest == 0).then_some(0),
        n => (rest % n == 0).then_some(rest / n),
    }
}

/// Splits `len` items into groups: fixed groups hold one item, variadic ones share the rest
/// equally (MLIR's `SameVariadicOperandSize`).
pub fn split_groups(
    op: &'static str,
    what: &str,
    len: usize,
    variadic: &[bool],
) -> Result<Vec<Range<usize>>, OpMismatch> {
    let fixed = variadic.iter().filter(|v| !**v).count();
    let groups = variadic.len() - fixed;
    let per_group = variadic_group_size(len, fixed, groups).ok_or_else(|| {
        let expect = match groups {
            0 => fixed.to_string(),
            _ if len < fixed => format!("at least {fixed}"),
            _ => format!("{fixed} plus a multiple of {groups}"),
        };
        OpMismatch {
            op,
            reason: format!("expected {expect} {what}s, found {len}"),
        }
    })?;
    let mut out = Vec::with_capacity(variadic.len());
    let mut at = 0;
    for &v in variadic {
        let n = if v { per_group } else { 1 };
        out.push(at..at + n);
        at += n;
    }
    Ok(out)
}

/// The property `name` of `op`, which must be present.
pub fn required_property(
    m: &Module,
    op: OpId,
    op_name: &'static str,
    name: &str,
) -> Result<Attribute, OpMismatch> {
    m.property(op, name).ok_or_else(|| OpMismatch {
        op: op_name,
        reason: format!("attribute `{name}` is missing"),
    })
}

/// The property `name` of `op`, if present.
pub fn optional_property(m: &Module, op: OpId, name: &str) -> Option<Attribute> {
    m.property(op, name)
}

/// Sets (or, with `None`, removes) the property `name` of `op`, which must be named `op_name`.
/// The properties stay sorted by name, as MLIR keeps them.
pub fn set_property(
    m: &mut Module,
    op: OpId,
    op_name: &'static str,
    name: &str,
    value: Option<Attribute>,
) -> Result<(), OpMismatch> {
    expect_name(m, op, op_name)?;
    let sym = m.sym(name);
    match value {
        Some(v) => {
            m.set_property(op, sym, v);
            let mut props = m.properties(op).to_vec();
            props.sort_by(|a, b| m.str(a.name).cmp(m.str(b.name)));
            m.set_properties(op, &props);
        }
        None => {
            m.remove_property(op, sym);
        }
    }
    Ok(())
}

/// Where the typed StableHLO op structs' `append` puts an op whose result types are inferred:
/// a function body being built ([`crate::build::FunctionBuilder`], with the verifier's shape
/// functions). A trait so that the generated dialect needs neither the builder nor the verifier.
pub trait AppendInferred {
    /// Why an op could not be appended (its results cannot be inferred, or it is invalid).
    type Error;
    /// Appends the op `name` with `operands` and `properties` (sorted by name here), its result
    /// types inferred, and returns its results.
    fn append_inferred(
        &mut self,
        name: &'static str,
        operands: Vec<Value>,
        properties: &[(&str, Attribute)],
    ) -> Result<Vec<Value>, Self::Error>;
    /// [`AppendInferred::append_inferred`] of an op with one result: that result.
    fn append_inferred_one(
        &mut self,
        name: &'static str,
        operands: Vec<Value>,
        properties: &[(&str, Attribute)],
    ) -> Result<Value, Self::Error>;
}

/// Creates an op with properties sorted by name, as MLIR stores them.
pub fn create_op(
    m: &mut Module,
    name: &str,
    operands: Vec<Value>,
    result_types: Vec<Type>,
    properties: &[(&str, Attribute)],
    regions: Vec<Region>,
    location: Location,
) -> OpId {
    let mut props: Vec<(&str, Attribute)> = properties.to_vec();
    props.sort_by(|a, b| a.0.cmp(b.0));
    let mut state = OperationState::new(m.sym(name), location);
    state.operands = operands;
    state.result_types = result_types;
    state.properties = props
        .into_iter()
        .map(|(n, value)| NamedAttr {
            name: m.sym(n),
            value,
        })
        .collect();
    state.regions = regions;
    m.create_op(state)
}

#[cfg(test)]
mod setter_tests {
    use crate::text::{self, PrintOptions};
    use crate::vhlo::stablehlo::{AddOp, DotGeneralOp};

    /// The generated setters: a required attribute replaced, an optional one added and
    /// removed, on the op they are for only.
    #[test]
    fn generated_setters_set_and_remove_properties() {
        let mut m = text::parse(
            "func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {\n  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n  return %0 : tensor<2x4xf32>\n}\n",
        )
        .unwrap();
        let mut ops = Vec::new();
        m.walk(|op| ops.push(op));
        let dot = *ops
            .iter()
            .find(|&&op| m.op_name_str(op) == DotGeneralOp::NAME)
            .unwrap();
        let precision = text::parse_attribute(
            &mut m,
            "[#stablehlo<precision HIGHEST>, #stablehlo<precision DEFAULT>]",
        )
        .unwrap();
        DotGeneralOp::set_precision_config(&mut m, dot, Some(precision)).unwrap();
        let printed = text::print(&m, PrintOptions::default());
        assert!(
            printed.contains("precision = [HIGHEST, DEFAULT]"),
            "{printed}"
        );
        let names: Vec<&str> = m.properties(dot).iter().map(|a| m.str(a.name)).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        crate::verify::verify(&m).unwrap();
        DotGeneralOp::set_precision_config(&mut m, dot, None).unwrap();
        assert!(m.property(dot, "precision_config").is_none());
        // On another op, the setter refuses and changes nothing.
        let e = AddOp::from_op(&m, dot).unwrap_err();
        assert!(e.to_string().contains("stablehlo.add"), "{e}");
        let dims = m.property(dot, "dot_dimension_numbers").unwrap();
        let ret = *ops.last().unwrap();
        assert!(DotGeneralOp::set_dot_dimension_numbers(&mut m, ret, dims).is_err());
        assert!(m.properties(ret).is_empty());
    }
}
