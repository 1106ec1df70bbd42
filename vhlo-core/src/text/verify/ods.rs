//! The attribute constraints of StableHLO ops, checked on the way back from VHLO. VHLO's own
//! attributes are untyped (`VHLO_AnyAttr`), so a well-formed artifact can still hold, say, an
//! array where `func.call`'s `callee` belongs; MLIR's verifier refuses such an op after the
//! legalization, and so do we. The constraints are the ODS types the spec records for each
//! StableHLO attribute, lowered by codegen (`StablehloOp::attribute_constraints`).

use crate::ir::{AttrData, Attribute, FloatKind, Module, Param, Signedness, TypeData};
use crate::vhlo::VhloEnum;

/// What an ODS attribute type asks of a value: generated from the spec's ODS types, which
/// codegen lowers (codegen/src/ods.rs), so an unknown type is a spec error at its position.
pub(crate) use crate::vhlo::OdsConstraint as Constraint;

impl Constraint {
    /// What it asks for, as MLIR's verifier says it: the ODS attribute's summary ("64-bit
    /// signless integer attribute whose value is non-negative"). StableHLO's own attributes and
    /// enums are named by their syntax.
    fn summary(self) -> String {
        use Constraint as C;
        match self {
            C::Int { width, min: None } => format!("{width}-bit signless integer attribute"),
            C::Int {
                width,
                min: Some(0),
            } => format!("{width}-bit signless integer attribute whose value is non-negative"),
            C::Int {
                width,
                min: Some(_),
            } => format!("{width}-bit signless integer attribute whose value is positive"),
            C::Bool => "bool attribute".into(),
            C::Unit => "unit attribute".into(),
            C::Str => "string attribute".into(),
            C::F32 => "32-bit float attribute".into(),
            C::DenseI64Array => "i64 dense array attribute".into(),
            C::DenseBoolArray => "i1 dense array attribute".into(),
            C::I64Elements => "64-bit signless integer elements attribute".into(),
            C::Elements => "constant vector/tensor attribute".into(),
            C::ReplicaGroups => "64-bit signless integer elements attribute or mesh and axes based replica groups representation.".into(),
            C::FlatSymbolRef => "flat symbol reference attribute".into(),
            C::FlatSymbolRefArray => "flat symbol ref array attribute".into(),
            C::Dictionary => "dictionary of named attribute values".into(),
            C::Array => "array attribute".into(),
            C::DictArray => "Array of dictionary attributes".into(),
            C::Type => "any type attribute".into(),
            C::FunctionType => "type attribute of function type".into(),
            C::StrOrDictionary => "string attribute or dictionary of named attribute values".into(),
            C::Stablehlo(mn) => format!("#stablehlo.{mn} attribute"),
            C::Enum(e) => format!("#stablehlo<{} ...> attribute with a known case", e.stablehlo()),
            C::EnumArray(e) => format!(
                "array of #stablehlo<{} ...> attributes with known cases",
                e.stablehlo()
            ),
        }
    }
}

/// True when `a` meets `c`.
pub(crate) fn satisfies(m: &Module, a: Attribute, c: Constraint) -> bool {
    use Constraint as C;
    let signless_int = |t, width| matches!(m.type_data(t), TypeData::Integer { width: w, signedness: Signedness::Signless } if *w == width);
    let element_type = |t| match m.type_data(t) {
        TypeData::RankedTensor { element, .. } => Some(*element),
        _ => None,
    };
    let flat_symbol =
        |a| matches!(m.attr_data(a), AttrData::SymbolRef { nested, .. } if nested.is_empty());
    match (c, m.attr_data(a)) {
        (C::Int { width, min }, AttrData::Integer { ty, value }) => {
            signless_int(*ty, u32::from(width)) && min.is_none_or(|min| *value >= i128::from(min))
        }
        (C::Bool, AttrData::Bool(_)) | (C::Unit, AttrData::Unit) => true,
        (C::Str | C::StrOrDictionary, AttrData::String { ty: None, .. }) => true,
        (C::F32, AttrData::Float { ty, .. }) => {
            matches!(m.type_data(*ty), TypeData::Float(FloatKind::F32))
        }
        (C::DenseI64Array, AttrData::DenseArray { element, .. }) => signless_int(*element, 64),
        (C::DenseBoolArray, AttrData::DenseArray { element, .. }) => signless_int(*element, 1),
        (C::I64Elements | C::ReplicaGroups, AttrData::DenseElements { ty, .. }) => {
            element_type(*ty).is_some_and(|e| signless_int(e, 64))
        }
        (
            C::Elements,
            AttrData::DenseElements { .. }
            | AttrData::DenseStrings { .. }
            | AttrData::DenseResource { .. },
        ) => true,
        (C::FlatSymbolRef, _) => flat_symbol(a),
        (C::FlatSymbolRefArray, AttrData::Array(xs)) => xs.iter().all(|&x| flat_symbol(x)),
        (C::Dictionary | C::StrOrDictionary, AttrData::Dictionary(_))
        | (C::Array, AttrData::Array(_)) => true,
        (C::DictArray, AttrData::Array(xs)) => xs
            .iter()
            .all(|&x| matches!(m.attr_data(x), AttrData::Dictionary(_))),
        (C::Type, AttrData::Type(_)) => true,
        (C::FunctionType, AttrData::Type(t)) => {
            matches!(m.type_data(*t), TypeData::Function { .. })
        }
        (C::ReplicaGroups, AttrData::Dialect(d)) => {
            m.str(d.dialect) == "stablehlo" && m.str(d.mnemonic) == "replica_group_mesh_axes"
        }
        (C::Stablehlo(mnemonic), AttrData::Dialect(d)) => {
            m.str(d.dialect) == "stablehlo" && m.str(d.mnemonic) == mnemonic
        }
        (C::Enum(e), _) => is_enum(m, a, e),
        (C::EnumArray(e), AttrData::Array(xs)) => xs.iter().all(|&x| is_enum(m, x, e)),
        _ => false,
    }
}

/// True when `a` is `#stablehlo<{e} CASE>` with a case of `e`.
fn is_enum(m: &Module, a: Attribute, e: VhloEnum) -> bool {
    match m.attr_data(a) {
        AttrData::Dialect(d) => {
            m.str(d.dialect) == "stablehlo"
                && m.str(d.mnemonic) == e.stablehlo()
                && matches!(*d.params, [Param::Int(v)] if e.cases().iter().any(|&(_, c)| c == v))
        }
        _ => false,
    }
}

/// Why attribute `name = a` of a StableHLO op of kind `op` breaks its ODS constraint, if it
/// does (an attribute the op does not declare is not checked here).
pub(crate) fn violation_of(
    m: &Module,
    op: crate::vhlo::StablehloOp,
    name: crate::ir::Symbol,
    a: Attribute,
) -> Option<String> {
    let props = [crate::ir::NamedAttr { name, value: a }];
    violations(m, op, &props).into_iter().next()
}

/// The attributes of a legalized op that break their ODS constraints, as messages.
pub(crate) fn violations(
    m: &Module,
    op: crate::vhlo::StablehloOp,
    props: &[crate::ir::NamedAttr],
) -> Vec<String> {
    let mut out = Vec::new();
    for ((name, ods), &c) in op
        .attribute_names()
        .iter()
        .zip(op.attribute_types())
        .zip(op.attribute_constraints())
    {
        let Some(a) = props.iter().find(|a| m.str(a.name) == *name) else {
            continue;
        };
        if !satisfies(m, a.value, c) {
            // MLIR's words, then the ODS type the spec records.
            out.push(format!(
                "attribute '{name}' failed to satisfy constraint: {} ({})",
                c.summary(),
                ods.trim()
            ));
        }
    }
    // composite_c1 (upstream's verifyCompositeOp, not an ODS type): the name is a namespaced op
    // name, `^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$`.
    if op == crate::vhlo::StablehloOp::Composite {
        let name = props.iter().find(|a| m.str(a.name) == "name");
        if let Some(a) = name {
            if let AttrData::String { value, .. } = m.attr_data(a.value) {
                if !is_namespaced_op_name(m.bytes(*value)) {
                    out.push(format!(
                        "name must be a valid namespaced op name, i.e. it must match the following regular expression: ^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$ e.g. \"my_namespace.my_op\" (the name is {}; composite_c1)",
                        crate::text::attribute_to_string(m, a.value)
                    ));
                }
            }
        }
    }
    out
}

/// `^[a-zA-Z][a-zA-Z0-9_]*([.][a-zA-Z0-9_$]+)+$`: a dialect namespace, then dot-separated parts.
fn is_namespaced_op_name(name: &[u8]) -> bool {
    let mut parts = name.split(|&b| b == b'.');
    let Some(head) = parts.next() else {
        return false;
    };
    let head_ok = head.first().is_some_and(u8::is_ascii_alphabetic)
        && head.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_');
    let mut rest = 0usize;
    for part in parts {
        if part.is_empty()
            || !part
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
        {
            return false;
        }
        rest += 1;
    }
    head_ok && rest > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vhlo::StablehloOp;

    #[test]
    fn composite_names_are_namespaced_op_names() {
        for ok in ["my_namespace.my_op", "a.b.c", "x1_.y$z"] {
            assert!(is_namespaced_op_name(ok.as_bytes()), "{ok}");
        }
        for bad in [
            "",
            "my_op",
            ".a",
            "a.",
            "1a.b",
            "a..b",
            "a.b-c",
            "c\u{e9}.x",
        ] {
            assert!(!is_namespaced_op_name(bad.as_bytes()), "{bad}");
        }
        assert!(!is_namespaced_op_name(b"stablehlo.compos\xe9te_target"));
    }

    /// Every attribute has its constraint (codegen refuses a spec whose ODS type it cannot lower).
    #[test]
    fn every_attribute_has_a_constraint() {
        for op in StablehloOp::ALL {
            assert_eq!(
                op.attribute_names().len(),
                op.attribute_constraints().len(),
                "{}",
                op.name()
            );
        }
    }

    /// Enum attribute types name their own enum, so a wrong-kind enum is refused.
    #[test]
    fn enum_attribute_types_name_their_enum() {
        let constraint = |op: &str, attr: &str| {
            let op = StablehloOp::from_name(op).unwrap();
            let i = op
                .attribute_names()
                .iter()
                .position(|n| *n == attr)
                .unwrap();
            op.attribute_constraints()[i]
        };
        for (op, attr, e) in [
            (
                "stablehlo.compare",
                "compare_type",
                VhloEnum::ComparisonTypeV1,
            ),
            (
                "stablehlo.compare",
                "comparison_direction",
                VhloEnum::ComparisonDirectionV1,
            ),
            ("stablehlo.fft", "fft_type", VhloEnum::FftTypeV1),
            (
                "stablehlo.rng",
                "rng_distribution",
                VhloEnum::RngDistributionV1,
            ),
        ] {
            assert_eq!(constraint(op, attr), Constraint::Enum(e), "{op} {attr}");
        }
        assert_eq!(
            constraint("stablehlo.dot_general", "precision_config"),
            Constraint::EnumArray(VhloEnum::PrecisionV1)
        );
        assert_eq!(
            constraint("stablehlo.custom_call", "api_version"),
            Constraint::Int {
                width: 32,
                min: None
            }
        );
    }
}
