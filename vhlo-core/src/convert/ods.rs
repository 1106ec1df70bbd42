//! The attribute constraints of StableHLO ops, checked on the way back from VHLO. VHLO's own
//! attributes are untyped (`VHLO_AnyAttr`), so a well-formed artifact can still hold, say, an
//! array where `func.call`'s `callee` belongs; MLIR's verifier refuses such an op after the
//! legalization, and so do we. The constraints are the ODS types the spec records for each
//! StableHLO attribute (`StablehloOp::attribute_types`).

use crate::ir::{AttrData, Attribute, FloatKind, Module, Param, Signedness, TypeData};
use crate::vhlo::VhloEnum;

/// What an ODS attribute type asks of a value (wrappers such as `OptionalAttr` peeled off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Constraint {
    /// A signless integer of this width, with an optional bound (`IntNonNegative`: 0,
    /// `IntPositive`: 1).
    Int {
        width: u32,
        min: Option<i128>,
    },
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
    /// A `#stablehlo.<mnemonic>` attribute.
    Stablehlo(&'static str),
    /// A `#stablehlo<mnemonic CASE>` enum attribute of exactly this enum, with a known case (ODS
    /// checks the attribute's class; libStablehlo crashes on an artifact with the wrong one).
    Enum(VhloEnum),
    /// An array of such enum attributes (`StableHLO_PrecisionConfigAttr`).
    EnumArray(VhloEnum),
}

/// The enum an ODS enum attribute type names: `StableHLO_ComparisonTypeAttr` is
/// `#stablehlo<comparison_type ...>` (StableHLO's naming rule for `EnumAttr` definitions).
fn enum_of_ods(ods: &str) -> Option<VhloEnum> {
    let camel = ods.strip_prefix("StableHLO_")?.strip_suffix("Attr")?;
    let mut snake = String::new();
    for ch in camel.chars() {
        if ch.is_ascii_uppercase() {
            if !snake.is_empty() {
                snake.push('_');
            }
            snake.push(ch.to_ascii_lowercase());
        } else {
            snake.push(ch);
        }
    }
    VhloEnum::ALL
        .iter()
        .copied()
        .find(|e| e.stablehlo() == snake)
}

/// The constraint of an ODS attribute type spelled as in the spec, or `None` when it is not
/// one this module knows (a test keeps every type of the spec known).
pub(crate) fn constraint_of(ods: &str) -> Option<Constraint> {
    let ods = ods.trim();
    // Wrappers that only make the attribute optional or give it a default.
    for wrapper in [
        "OptionalAttr<",
        "DefaultValuedOptionalAttr<",
        "DefaultValuedAttr<",
        "DefaultValuedStrAttr<",
    ] {
        if let Some(inner) = ods.strip_prefix(wrapper).and_then(|r| r.strip_suffix('>')) {
            return constraint_of(first_argument(inner));
        }
    }
    if let Some(inner) = ods
        .strip_prefix("ConfinedAttr<")
        .and_then(|r| r.strip_suffix('>'))
    {
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
        "I64Attr" => C::Int {
            width: 64,
            min: None,
        },
        "I32Attr" => C::Int {
            width: 32,
            min: None,
        },
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
        "ArrayAttr" | "StableHLO_ArrayOfLayoutAttr" | "StableHLO_ArrayOfTilingAttr" => C::Array,
        "DictArrayAttr" => C::DictArray,
        "TypeAttrOf<FunctionType>" => C::FunctionType,
        "AnyAttrOf<[StrAttr, DictionaryAttr]>" => C::StrOrDictionary,
        "StableHLO_ChannelHandle" => C::Stablehlo("channel_handle"),
        "StableHLO_ResultAccuracyAttr" => C::Stablehlo("result_accuracy"),
        "StableHLO_GatherDimensionNumbers" => C::Stablehlo("gather"),
        "StableHLO_ScatterDimensionNumbers" => C::Stablehlo("scatter"),
        "StableHLO_ConvDimensionNumbers" => C::Stablehlo("conv"),
        "StableHLO_DotDimensionNumbers" => C::Stablehlo("dot"),
        "StableHLO_DotAlgorithm" => C::Stablehlo("dot_algorithm"),
        // An `I32EnumAttr`: a plain i32 (`api_version = 2 : i32`).
        "StableHLO_CustomCallApiVersionAttr" => C::Int {
            width: 32,
            min: None,
        },
        "StableHLO_PrecisionConfigAttr" => C::EnumArray(enum_of_ods("StableHLO_PrecisionAttr")?),
        _ => return enum_of_ods(ods).map(C::Enum),
    })
}

impl Constraint {
    /// What it asks for, in words.
    fn describe(self) -> String {
        use Constraint as C;
        match self {
            C::Int { width, min: None } => format!("an i{width} integer"),
            C::Int {
                width,
                min: Some(0),
            } => format!("a non-negative i{width} integer"),
            C::Int {
                width,
                min: Some(_),
            } => format!("a positive i{width} integer"),
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
            C::Stablehlo(mn) => format!("a #stablehlo.{mn}"),
            C::Enum(e) => format!("a #stablehlo<{} ...> with a known case", e.stablehlo()),
            C::EnumArray(e) => format!(
                "an array of #stablehlo<{} ...> with known cases",
                e.stablehlo()
            ),
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
    let signless_int = |t, width| matches!(m.type_data(t), TypeData::Integer { width: w, signedness: Signedness::Signless } if *w == width);
    let element_type = |t| match m.type_data(t) {
        TypeData::RankedTensor { element, .. } => Some(*element),
        _ => None,
    };
    let flat_symbol =
        |a| matches!(m.attr_data(a), AttrData::SymbolRef { nested, .. } if nested.is_empty());
    match (c, m.attr_data(a)) {
        (C::Int { width, min }, AttrData::Integer { ty, value }) => {
            signless_int(*ty, width) && min.is_none_or(|min| *value >= min)
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
        (C::Elements, AttrData::DenseElements { .. } | AttrData::DenseStrings { .. }) => true,
        (C::FlatSymbolRef, _) => flat_symbol(a),
        (C::FlatSymbolRefArray, AttrData::Array(xs)) => xs.iter().all(|&x| flat_symbol(x)),
        (C::Dictionary | C::StrOrDictionary, AttrData::Dictionary(_))
        | (C::Array, AttrData::Array(_)) => true,
        (C::DictArray, AttrData::Array(xs)) => xs
            .iter()
            .all(|&x| matches!(m.attr_data(x), AttrData::Dictionary(_))),
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

/// The attributes of a legalized op that break their ODS constraints, as messages.
pub(crate) fn violations(
    m: &Module,
    op: crate::vhlo::StablehloOp,
    props: &[crate::ir::NamedAttr],
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, ods) in op.attribute_names().iter().zip(op.attribute_types()) {
        let Some(c) = constraint_of(ods) else {
            continue;
        };
        let Some(a) = props.iter().find(|a| m.str(a.name) == *name) else {
            continue;
        };
        if !satisfies(m, a.value, c) {
            out.push(format!(
                "attribute `{name}` of `{}` must be {} ({})",
                op.name(),
                c.describe(),
                ods.trim()
            ));
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
            .flat_map(|op| {
                op.attribute_names()
                    .iter()
                    .zip(op.attribute_types())
                    .map(move |(n, t)| (op, n, t))
            })
            .filter(|(_, _, t)| constraint_of(t).is_none())
            .map(|(op, n, t)| format!("{}.{n}: {t}", op.name()))
            .collect();
        assert!(unknown.is_empty(), "{unknown:#?}");
    }

    #[test]
    fn wrappers_are_peeled() {
        assert_eq!(
            constraint_of("DefaultValuedOptionalAttr< StableHLO_CustomCallApiVersionAttr, \"x\">"),
            Some(Constraint::Int {
                width: 32,
                min: None
            })
        );
        assert_eq!(
            constraint_of("ConfinedAttr<I64Attr, [IntPositive]>"),
            Some(Constraint::Int {
                width: 64,
                min: Some(1)
            })
        );
        assert_eq!(
            constraint_of("OptionalAttr<AnyAttrOf<[StrAttr, DictionaryAttr]>>"),
            Some(Constraint::StrOrDictionary)
        );
    }

    /// Every enum attribute type names its own enum, so a wrong-kind enum is refused (issue 13 row 2).
    #[test]
    fn enum_attribute_types_name_their_enum() {
        for (ods, e) in [
            (
                "OptionalAttr<StableHLO_ComparisonTypeAttr>",
                VhloEnum::ComparisonTypeV1,
            ),
            (
                "StableHLO_ComparisonDirectionAttr",
                VhloEnum::ComparisonDirectionV1,
            ),
            ("StableHLO_FftTypeAttr", VhloEnum::FftTypeV1),
            ("StableHLO_RngAlgorithmAttr", VhloEnum::RngAlgorithmV1),
            ("StableHLO_RngDistributionAttr", VhloEnum::RngDistributionV1),
            ("StableHLO_TransposeAttr", VhloEnum::TransposeV1),
        ] {
            assert_eq!(constraint_of(ods), Some(Constraint::Enum(e)), "{ods}");
        }
        assert_eq!(
            constraint_of("OptionalAttr<StableHLO_PrecisionConfigAttr>"),
            Some(Constraint::EnumArray(VhloEnum::PrecisionV1))
        );
    }
}
