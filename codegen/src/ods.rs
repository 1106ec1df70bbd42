//! ODS attribute types of the spec's `stablehlo:` blocks (`DefaultValuedOptionalAttr<I64Attr,
//! "-1">`), lowered to the constraint MLIR's verifier checks. An unknown type is a spec error
//! (check.rs); the constraints are emitted as `StablehloOp::attribute_constraints`, which the
//! conversions check on the way back to StableHLO (vhlo-core/src/convert/ods.rs).

use crate::model::EnumDef;

/// What an ODS attribute type asks of a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OdsType {
    /// An integer of this width, at least `min` when given (`ConfinedAttr<..., [IntPositive]>`).
    Int {
        width: u8,
        min: Option<u8>,
    },
    Bool,
    Unit,
    Str,
    F32,
    DenseI64Array,
    DenseBoolArray,
    I64Elements,
    Elements,
    /// Dense i64 elements or a `#stablehlo.replica_group_mesh_axes`.
    ReplicaGroups,
    FlatSymbolRef,
    FlatSymbolRefArray,
    Dictionary,
    Array,
    DictArray,
    /// Any type (`TypeAttr`).
    Type,
    FunctionType,
    StrOrDictionary,
    /// A `#stablehlo.<mnemonic>` attribute.
    Stablehlo(&'static str),
    /// A `#stablehlo<NAME CASE>` of the spec enum at this index (`EnumAttr` definitions).
    Enum(usize),
    /// An array of them (`StableHLO_PrecisionConfigAttr`).
    EnumArray(usize),
}

/// The ODS types known by name, besides the wrappers and the enum attributes.
const NAMED: &[(&str, OdsType)] = &[
    (
        "I64Attr",
        OdsType::Int {
            width: 64,
            min: None,
        },
    ),
    (
        "I32Attr",
        OdsType::Int {
            width: 32,
            min: None,
        },
    ),
    // An `I32EnumAttr`: a plain i32 (`api_version = 2 : i32`).
    (
        "StableHLO_CustomCallApiVersionAttr",
        OdsType::Int {
            width: 32,
            min: None,
        },
    ),
    ("BoolAttr", OdsType::Bool),
    ("UnitAttr", OdsType::Unit),
    ("StrAttr", OdsType::Str),
    ("F32Attr", OdsType::F32),
    ("DenseI64ArrayAttr", OdsType::DenseI64Array),
    ("DenseBoolArrayAttr", OdsType::DenseBoolArray),
    ("I64ElementsAttr", OdsType::I64Elements),
    ("StableHLO_ReplicaGroups", OdsType::ReplicaGroups),
    ("ElementsAttr", OdsType::Elements),
    ("FlatSymbolRefAttr", OdsType::FlatSymbolRef),
    (
        "StableHLO_FlatSymbolRefArrayAttr",
        OdsType::FlatSymbolRefArray,
    ),
    ("DictionaryAttr", OdsType::Dictionary),
    ("ArrayAttr", OdsType::Array),
    ("StableHLO_ArrayOfLayoutAttr", OdsType::Array),
    ("StableHLO_ArrayOfTilingAttr", OdsType::Array),
    ("DictArrayAttr", OdsType::DictArray),
    ("TypeAttr", OdsType::Type),
    ("TypeAttrOf<FunctionType>", OdsType::FunctionType),
    (
        "AnyAttrOf<[StrAttr, DictionaryAttr]>",
        OdsType::StrOrDictionary,
    ),
    (
        "StableHLO_ChannelHandle",
        OdsType::Stablehlo("channel_handle"),
    ),
    (
        "StableHLO_ResultAccuracyAttr",
        OdsType::Stablehlo("result_accuracy"),
    ),
    (
        "StableHLO_GatherDimensionNumbers",
        OdsType::Stablehlo("gather"),
    ),
    (
        "StableHLO_ScatterDimensionNumbers",
        OdsType::Stablehlo("scatter"),
    ),
    ("StableHLO_ConvDimensionNumbers", OdsType::Stablehlo("conv")),
    ("StableHLO_DotDimensionNumbers", OdsType::Stablehlo("dot")),
    (
        "StableHLO_DotAlgorithm",
        OdsType::Stablehlo("dot_algorithm"),
    ),
];

/// Wrappers that only make the attribute optional or give it a default: their first argument
/// is the type.
const WRAPPERS: &[&str] = &[
    "OptionalAttr<",
    "DefaultValuedOptionalAttr<",
    "DefaultValuedAttr<",
    "DefaultValuedStrAttr<",
];

/// Lowers an ODS type as the spec spells it, or says why it cannot.
pub fn lower(ods: &str, enums: &[EnumDef]) -> Result<OdsType, String> {
    let ods = ods.trim();
    for wrapper in WRAPPERS {
        if let Some(inner) = ods.strip_prefix(wrapper).and_then(|r| r.strip_suffix('>')) {
            return lower(first_argument(inner), enums);
        }
    }
    if let Some(inner) = ods
        .strip_prefix("ConfinedAttr<")
        .and_then(|r| r.strip_suffix('>'))
    {
        let min = if inner.contains("IntPositive") {
            1
        } else if inner.contains("IntNonNegative") {
            0
        } else {
            return Err(format!(
                "`{ods}`: only the IntPositive and IntNonNegative constraints are known"
            ));
        };
        return match lower(first_argument(inner), enums)? {
            OdsType::Int { width, .. } => Ok(OdsType::Int {
                width,
                min: Some(min),
            }),
            _ => Err(format!("`{ods}`: only integer attributes can be confined")),
        };
    }
    if ods.starts_with("TypedArrayAttrBase<") {
        return Ok(OdsType::Array);
    }
    if let Some((_, t)) = NAMED.iter().find(|(n, _)| *n == ods) {
        return Ok(t.clone());
    }
    if ods == "StableHLO_PrecisionConfigAttr" {
        return enum_of(&snake_name("Precision"), enums).map(OdsType::EnumArray);
    }
    // StableHLO's naming rule for `EnumAttr` definitions: `StableHLO_ComparisonTypeAttr` is
    // `#stablehlo<comparison_type ...>`.
    if let Some(camel) = ods
        .strip_prefix("StableHLO_")
        .and_then(|r| r.strip_suffix("Attr"))
    {
        if let Ok(e) = enum_of(&snake_name(camel), enums) {
            return Ok(OdsType::Enum(e));
        }
    }
    let hint = crate::diag::did_you_mean(ods, NAMED.iter().map(|(n, _)| *n));
    Err(format!(
        "unknown ODS attribute type `{ods}` (known: the types in codegen/src/ods.rs, their \
         optional and default-valued wrappers, and StableHLO_<Enum>Attr for the enums of \
         enums.yaml){hint}"
    ))
}

/// True when ODS lets the attribute be absent: a unit attribute, or one wrapped as optional or
/// default-valued.
pub fn is_optional(ods: &str) -> bool {
    let ods = ods.trim();
    ods == "UnitAttr" || WRAPPERS.iter().any(|w| ods.starts_with(w))
}

/// An attribute's ODS default (the spec's `default:`, a C++ value as ODS spells it) as MLIR
/// prints the value, which the pretty printer leaves out (`elide_defaults`).
pub fn printed_default(ty: &OdsType, default: &str, enums: &[EnumDef]) -> Result<String, String> {
    let d = default.trim();
    // `::mlir::stablehlo::ResultAccuracyMode::DEFAULT`: a case of the enum of that name.
    let enum_case = || -> Result<(&str, i64), String> {
        let path = d
            .strip_prefix("::mlir::stablehlo::")
            .ok_or_else(|| format!("default `{d}` is no `::mlir::stablehlo::Enum::CASE`"))?;
        let (camel, case) = path
            .split_once("::")
            .ok_or_else(|| format!("default `{d}` names no case"))?;
        let e = &enums[enum_of(&snake_name(camel), enums)?];
        let c = e
            .cases
            .iter()
            .find(|c| c.name == case)
            .ok_or_else(|| format!("`{case}` is no case of `{}`", e.name))?;
        Ok((c.name.as_str(), c.value))
    };
    match ty {
        OdsType::Bool if d == "false" || d == "true" => Ok(d.to_string()),
        OdsType::Int { width, .. } => match d.parse::<i64>() {
            Ok(v) => Ok(format!("{v} : i{width}")),
            Err(_) => enum_case().map(|(_, v)| format!("{v} : i{width}")),
        },
        OdsType::Str if !d.contains(['"', '\\']) => Ok(format!("\"{d}\"")),
        OdsType::Dictionary if d == "{}" => Ok("{}".to_string()),
        // An empty `ArrayRef` in C++.
        OdsType::Array | OdsType::FlatSymbolRefArray if d == "{}" => Ok("[]".to_string()),
        // `#stablehlo<comparison_type NOTYPE>`: a case of the attribute's own enum.
        OdsType::Enum(i) => enum_case().and_then(|(case, _)| {
            let e = &enums[*i];
            if e.cases.iter().any(|c| c.name == case) && d.contains(&format!("::{}::", camel_name(&e.stablehlo))) {
                Ok(format!("#stablehlo<{} {case}>", e.stablehlo))
            } else {
                Err(format!("default `{d}` is no case of `{}`", e.name))
            }
        }),
        OdsType::Stablehlo("result_accuracy") => enum_case().map(|(case, _)| {
            format!("#stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<{case}>>")
        }),
        _ => Err(format!(
            "cannot print the default `{d}` of an attribute of this ODS type (codegen/src/ods.rs, printed_default)"
        )),
    }
}

/// The first spec enum that stands for `#stablehlo<name ...>`.
fn enum_of(name: &str, enums: &[EnumDef]) -> Result<usize, String> {
    enums
        .iter()
        .position(|e| e.stablehlo == name)
        .ok_or_else(|| format!("no enum in enums.yaml stands for `#stablehlo<{name} ...>`"))
}

/// `comparison_type` -> `ComparisonType` (the inverse of [`snake_name`]).
pub(crate) fn camel_name(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn snake_name(camel: &str) -> String {
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
    snake
}

/// `X` of `X, "default"`: the text before the first comma outside angle brackets.
fn first_argument(args: &str) -> &str {
    let mut depth = 0usize;
    for (i, ch) in args.char_indices() {
        match ch {
            '<' | '[' => depth += 1,
            '>' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => return args[..i].trim(),
            _ => {}
        }
    }
    args.trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Pos;
    use crate::model::{EnumCase, VersionRange};

    fn enums() -> Vec<EnumDef> {
        let v = crate::model::Version {
            major: 0,
            minor: 9,
            patch: 0,
        };
        ["comparison_direction", "precision"]
            .iter()
            .map(|s| EnumDef {
                name: format!("{s}_v1"),
                base: s.to_string(),
                number: 1,
                since: v,
                range: VersionRange {
                    min: v,
                    max: crate::model::Bound::Current,
                },
                code: 0,
                stablehlo: s.to_string(),
                stablehlo_own_mnemonic: false,
                description: None,
                cases: Vec::<EnumCase>::new(),
                pos: Pos::file("enums.yaml"),
                code_pos: Pos::file("enums.yaml"),
            })
            .collect()
    }

    #[test]
    fn wrappers_are_peeled() {
        let e = enums();
        assert_eq!(
            lower("DefaultValuedOptionalAttr<I64Attr, \"-1\">", &e),
            Ok(OdsType::Int {
                width: 64,
                min: None
            })
        );
        assert_eq!(
            lower("OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>", &e),
            Ok(OdsType::Int {
                width: 64,
                min: Some(1)
            })
        );
        assert_eq!(
            lower("OptionalAttr<StableHLO_ComparisonDirectionAttr>", &e),
            Ok(OdsType::Enum(0))
        );
        assert_eq!(
            lower("StableHLO_PrecisionConfigAttr", &e),
            Ok(OdsType::EnumArray(1))
        );
    }

    #[test]
    fn defaults_print_as_mlir_prints_them() {
        let e = enums();
        let int = |width| OdsType::Int { width, min: None };
        assert_eq!(
            printed_default(&int(64), "-1", &e).as_deref(),
            Ok("-1 : i64")
        );
        assert_eq!(
            printed_default(&OdsType::Bool, "false", &e).as_deref(),
            Ok("false")
        );
        assert_eq!(
            printed_default(&OdsType::Str, "", &e).as_deref(),
            Ok("\"\"")
        );
        assert_eq!(
            printed_default(&OdsType::Array, "{}", &e).as_deref(),
            Ok("[]")
        );
        // The test enums have no cases.
        assert!(
            printed_default(&int(32), "::mlir::stablehlo::ComparisonDirection::EQ", &e).is_err()
        );
        assert!(printed_default(&OdsType::Bool, "0", &e).is_err());
    }

    #[test]
    fn a_typo_is_an_error_with_a_suggestion() {
        let err = lower("OptionalAttr<TypeAtr>", &enums()).unwrap_err();
        assert!(
            err.contains("unknown ODS attribute type `TypeAtr`"),
            "{err}"
        );
        let err = lower("BoolAtr", &enums()).unwrap_err();
        assert!(err.contains("did you mean `BoolAttr`?"), "{err}");
        // An enum attribute of an enum the spec does not have.
        assert!(lower("StableHLO_RoundingAttr", &enums()).is_err());
    }
}
