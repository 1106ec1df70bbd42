//! The attribute constraints of StableHLO ops, checked on the way back from VHLO. VHLO's own
//! attributes are untyped (`VHLO_AnyAttr`), so a well-formed artifact can still hold, say, an
//! array where `func.call`'s `callee` belongs; MLIR's verifier refuses such an op after the
//! legalization, and so do we. The constraints are the ODS types the spec records for each
//! StableHLO attribute (`StablehloOp::attribute_types`).

use crate::ir::{AttrData, Attribute, FloatKind, Module, Signedness, TypeData};

/// What an ODS attribute type asks of a value (wrappers such as `OptionalAttr` peeled off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Constraint {
    /// A signless integer of this width, with an optional bound (`IntNonNegative`: 0,
    /// `IntPositive`: 1).
    Int { width: u32, min: Option<i128> },
    Bool,
    Unit,
    /// An untyped string.
    Str,
    F32,
    DenseI64Array,
    DenseBoolArray,
    /// Dense elements of signless 64-bit integers.
    I64Elements,
    /// Dense elements of any kind (a constant's value).
    Elements,
    /// Replica groups: dense i64 elements or `#stablehlo.replica_group_mesh_axes` (1.16.0).
    ReplicaGroups,
    FlatSymbolRef,
    FlatSymbolRefArray,
    Dictionary,
    Array,
    /// An array of dictionaries (argument and result attributes).
    DictArray,
    FunctionType,
    StrOrDictionary,
    /// A `#stablehlo.<mnemonic>` attribute; `None` for any StableHLO attribute (enums).
    Stablehlo(Option<&'static str>),
}

/// The constraint of an ODS attribute type spelled as in the spec, or `None` when it is not
/// one this module knows (a test keeps every type of the spec known).
pub(crate) fn constraint_of(ods: &str) -> Option<Constraint> {
    let ods = ods.trim();
    // Wrappers that only make the attribute optional or give it a default.
    for wrapper in ["OptionalAttr<", "DefaultValuedOptionalAttr<", "DefaultValuedAttr<", "DefaultValuedStrAttr<"] {
        if let Some(inner) = ods.strip_prefix(wrapper).and_then(|r| r.strip_suffix('>')) {
            return constraint_of(first_argument(inner));
        }
    }
    if let Some(inner) = ods.strip_prefix("ConfinedAttr<").and_then(|r| r.strip_suffix('>')) {
        let base = constraint_of(first_argument(inner))?;
        let min = if inner.contains("IntPositive") {
            Some(1)
        } else if inner.contains("IntNonNegative") {
            Some(0)
        } else {
            return None;
        };
        return match base {
            Constraint::Int { width, .. } => Some(Constraint::Int { width, min }),
            _ => None,
        };
    }
    if ods.starts_with("TypedArrayAttrBase<") {
        return Some(Constraint::Array);
    }
    use Constraint as C;
    Some(match ods {
        "I64Attr" => C::Int { width: 64, min: None },
        "I32Attr" => C::Int { width: 32, min: None },
        "BoolAttr" => C::Bool,
        "UnitAttr" => C::Unit,
        "StrAttr" => C::Str,
        "F32Attr" => C::F32,
        "DenseI64ArrayAttr" => C::DenseI64Array,
        "DenseBoolArrayAttr" => C::DenseBoolArray,
        "I64ElementsAttr" => C::I64Elements,
        "StableHLO_ReplicaGroups" => C::ReplicaGroups,
        "ElementsAttr" => C::Elements,
        "FlatSymbolRefAttr" => C::FlatSymbolRef,
        "StableHLO_FlatSymbolRefArrayAttr" => C::FlatSymbolRefArray,
        "DictionaryAttr" => C::Dictionary,
        "ArrayAttr" | "StableHLO_PrecisionConfigAttr" | "StableHLO_ArrayOfLayoutAttr"
        | "StableHLO_ArrayOfTilingAttr" => C::Array,
        "DictArrayAttr" => C::DictArray,
        "TypeAttrOf<FunctionType>" => C::FunctionType,
        "AnyAttrOf<[StrAttr, DictionaryAttr]>" => C::StrOrDictionary,
        "StableHLO_ChannelHandle" => C::Stablehlo(Some("channel_handle")),
        "StableHLO_ResultAccuracyAttr" => C::Stablehlo(Some("result_accuracy")),
        "StableHLO_GatherDimensionNumbers" => C::Stablehlo(Some("gather")),
        "StableHLO_ScatterDimensionNumbers" => C::Stablehlo(Some("scatter")),
        "StableHLO_ConvDimensionNumbers" => C::Stablehlo(Some("conv")),
        "StableHLO_DotDimensionNumbers" => C::Stablehlo(Some("dot")),
        "StableHLO_DotAlgorithm" => C::Stablehlo(Some("dot_algorithm")),
        "StableHLO_TransposeAttr" | "StableHLO_RngDistributionAttr" | "StableHLO_RngAlgorithmAttr"
        | "StableHLO_FftTypeAttr" | "StableHLO_ComparisonTypeAttr"
        | "StableHLO_ComparisonDirectionAttr" => C::Stablehlo(None),
        // An `I32EnumAttr`: a plain i32 (`api_version = 2 : i32`).
        "StableHLO_CustomCallApiVersionAttr" => C::Int { width: 32, min: None },
        _ => return None,
    })
}

impl Constraint {
    /// What it asks for, in words.
    fn describe(self) -> String {
        use Constraint as C;
        match self {
            C::Int { width, min: None } => format!("an i{width} integer"),
            C::Int { width, min: Some(0) } => format!("a non-negative i{width} integer"),
            C::Int { width, min: Some(_) } => format!("a positive i{width} integer"),
            C::Bool => "a boolean".into(),
            C::Unit => "a unit attribute".into(),
            C::Str => "a string".into(),
            C::F32 => "an f32 float".into(),
            C::DenseI64Array => "an array<i64>".into(),
            C::DenseBoolArray => "an array<i1>".into(),
            C::I64Elements => "dense i64 elements".into(),
            C::Elements => "dense elements".into(),
            C::ReplicaGroups => "dense i64 elements or a #stablehlo.replica_group_mesh_axes".into(),
            C::FlatSymbolRef => "a flat symbol reference".into(),
            C::FlatSymbolRefArray => "an array of flat symbol references".into(),
            C::Dictionary => "a dictionary".into(),
            C::Array => "an array".into(),
            C::DictArray => "an array of dictionaries".into(),
            C::FunctionType => "a function type".into(),
            C::StrOrDictionary => "a string or a dictionary".into(),
            C::Stablehlo(Some(mn)) => format!("a #stablehlo.{mn}"),
            C::Stablehlo(None) => "a StableHLO enum attribute".into(),
        }
    }
}

/// `X` of `X, "default"`: the text before the first comma outside angle brackets.
fn first_argument(args: &str) -> &str {
    let mut depth = 0usize;
    for (i, ch) in args.char_indices() {
        match ch {
            '<' | '[' => depth += 1,
            '>' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return &args[..i],
            _ => {}
        }
    }
    args
}

/// True when `a` meets `c`.
pub(crate) fn satisfies(m: &Module, a: Attribute, c: Constraint) -> bool {
    use Constraint as C;
    let signless_int = |t, width| {
        matches!(m.type_data(t), TypeData::Integer { width: w, signedness: Signedness::Signless } if *w == width)
    };
    let element_type = |t| match m.type_data(t) {
        TypeData::RankedTensor { element, .. } => Some(*element),
        _ => None,
    };
    let flat_symbol = |a| matches!(m.attr_data(a), AttrData::SymbolRef { nested, .. } if nested.is_empty());
    match (c, m.attr_data(a)) {
        (C::Int { width, min }, AttrData::Integer { ty, value }) => {
            signless_int(*ty, width) && min.is_none_or(|min| *value >= min)
        }
        (C::Bool, AttrData::Bool(_)) | (C::Unit, AttrData::Unit) => true,
        (C::Str | C::StrOrDictionary, AttrData::String { ty: None, .. }) => true,
        (C::F32, AttrData::Float { ty, .. }) => matches!(m.type_data(*ty), TypeData::Float(FloatKind::F32)),
        (C::DenseI64Array, AttrData::DenseArray { element, .. }) => signless_int(*element, 64),
        (C::DenseBoolArray, AttrData::DenseArray { element, .. }) => signless_int(*element, 1),
        (C::I64Elements | C::ReplicaGroups, AttrData::DenseElements { ty, .. }) => element_type(*ty).is_some_and(|e| signless_int(e, 64)),
        (C::Elements, AttrData::DenseElements { .. } | AttrData::DenseStrings { .. }) => true,
        (C::FlatSymbolRef, _) => flat_symbol(a),
        (C::FlatSymbolRefArray, AttrData::Array(xs)) => xs.iter().all(|&x| flat_symbol(x)),
        (C::Dictionary | C::StrOrDictionary, AttrData::Dictionary(_)) | (C::Array, AttrData::Array(_)) => true,
        (C::DictArray, AttrData::Array(xs)) => {
            xs.iter().all(|&x| matches!(m.attr_data(x), AttrData::Dictionary(_)))
        }
        (C::FunctionType, AttrData::Type(t)) => matches!(m.type_data(*t), TypeData::Function { .. }),
        (C::ReplicaGroups, AttrData::Dialect(d)) => {
            m.str(d.dialect) == "stablehlo" && m.str(d.mnemonic) == "replica_group_mesh_axes"
        }
        (C::Stablehlo(mnemonic), AttrData::Dialect(d)) => {
            m.str(d.dialect) == "stablehlo" && mnemonic.is_none_or(|mn| m.str(d.mnemonic) == mn)
        }
        _ => false,
    }
}

/// The attributes of a legalized op that break their ODS constraints, as messages.
pub(crate) fn violations(m: &Module, op: crate::vhlo::StablehloOp, props: &[crate::ir::NamedAttr]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, ods) in op.attribute_names().iter().zip(op.attribute_types()) {
        let Some(c) = constraint_of(ods) else { continue };
        let Some(a) = props.iter().find(|a| m.str(a.name) == *name) else { continue };
        if !satisfies(m, a.value, c) {
            out.push(format!("attribute `{name}` of `{}` must be {} ({})", op.name(), c.describe(), ods.trim()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vhlo::StablehloOp;

    /// Adding an attribute of a new ODS type to the spec needs a constraint here too.
    #[test]
    fn every_attribute_type_of_the_spec_is_known() {
        let unknown: Vec<String> = StablehloOp::ALL
            .iter()
            .flat_map(|op| op.attribute_names().iter().zip(op.attribute_types()).map(move |(n, t)| (op, n, t)))
            .filter(|(_, _, t)| constraint_of(t).is_none())
            .map(|(op, n, t)| format!("{}.{n}: {t}", op.name()))
            .collect();
        assert!(unknown.is_empty(), "{unknown:#?}");
    }

    #[test]
    fn wrappers_are_peeled() {
        assert_eq!(
            constraint_of("DefaultValuedOptionalAttr< StableHLO_CustomCallApiVersionAttr, \"x\">"),
            Some(Constraint::Int { width: 32, min: None })
        );
        assert_eq!(
            constraint_of("ConfinedAttr<I64Attr, [IntPositive]>"),
            Some(Constraint::Int { width: 64, min: Some(1) })
        );
        assert_eq!(constraint_of("OptionalAttr<AnyAttrOf<[StrAttr, DictionaryAttr]>>"), Some(Constraint::StrOrDictionary));
    }
}
