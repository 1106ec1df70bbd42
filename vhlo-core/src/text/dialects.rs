//! Tables for the dialect attributes and types the text format knows: enum cases and the
//! parameter layout (upstream TableGen order) of the struct-like attributes; and what an op's
//! name says of it ([`classify`]).

use crate::vhlo::{StablehloOp, VhloOp};

/// An enum attribute: its cases by value.
#[derive(Clone, Copy)]
pub struct EnumSpec {
    pub dialect: &'static str,
    pub mnemonic: &'static str,
    /// `(case name, value)`.
    pub cases: &'static [(&'static str, i64)],
}

/// The codec dialect op `name` (`dialect.op`): the dialect's tables and the op's.
pub(crate) fn codec_op(
    name: &str,
) -> Option<(
    &'static crate::dialect::codec::CodecDialect,
    &'static crate::dialect::codec::CodecOp,
)> {
    let (dialect, short) = name.split_once('.')?;
    let cd = crate::vhlo::codec_dialect(dialect)?;
    Some((cd, cd.op(short)?))
}

/// The default dialect `name` gives the ops of its regions (upstream's
/// `OpAsmOpInterface::getDefaultDialect`): `func` for `func.func`, the spec's `default_dialect`
/// for a codec dialect op, else none (`""`).
pub(crate) fn default_dialect_of(name: &str) -> &'static str {
    match name {
        "func.func" | "func" => "func",
        _ => codec_op(name)
            .and_then(|(_, o)| o.default_dialect)
            .unwrap_or(""),
    }
}

/// Enums printed `#dialect.mnemonic<CASE>` instead of `#dialect<mnemonic CASE>` (the spec's
/// `stablehlo_own_mnemonic`).
pub fn enum_uses_pretty_mnemonic(dialect: &str, mnemonic: &str) -> bool {
    dialect == "stablehlo"
        && crate::vhlo::VhloEnum::ALL
            .iter()
            .any(|k| k.stablehlo() == mnemonic && k.stablehlo_own_mnemonic())
}

/// The enum attribute `#dialect<mnemonic ...>` of StableHLO or VHLO, from the generated
/// dialect's tables (the spec's enums): each VHLO enum stands for one StableHLO enum with the
/// same cases. The StableHLO custom-call API version is an integer attribute in text, not an enum.
pub fn find_enum(dialect: &str, mnemonic: &str) -> Option<EnumSpec> {
    use crate::vhlo::VhloEnum;
    let (kind, name) = match dialect {
        "vhlo" => VhloEnum::from_mnemonic(mnemonic).map(|k| (k, k.mnemonic()))?,
        "stablehlo" if mnemonic != "custom_call_api_version" => VhloEnum::ALL
            .iter()
            .find(|k| k.stablehlo() == mnemonic)
            .map(|&k| (k, k.stablehlo()))?,
        _ => return None,
    };
    Some(EnumSpec {
        dialect: if dialect == "vhlo" {
            "vhlo"
        } else {
            "stablehlo"
        },
        mnemonic: name,
        cases: kind.cases(),
    })
}

pub use crate::dialect::FieldKind;
use crate::dialect::{ParamKind, ParamSpec};
use crate::vhlo::VhloAttr;
use FieldKind::*;
use Fields::Listed;

/// A struct-like attribute `#dialect.mnemonic<key = value, ...>`.
#[derive(Clone, Copy)]
pub struct StructSpec {
    pub dialect: &'static str,
    pub mnemonic: &'static str,
    pub fields: Fields,
    /// StableHLO's `printStruct`: empty lists and zero integers are left out (and default on
    /// parse). Otherwise every field is printed and required, except optional ones.
    pub omit_defaults: bool,
}

/// Whether the VHLO attribute is written `#vhlo.mnemonic<key = value, ...>`: its format is
/// `struct(params)` (spec/attrs.yaml).
fn is_vhlo_struct(a: VhloAttr) -> bool {
    a.format()
        .iter()
        .any(|e| matches!(e, crate::dialect::ParamFormatElem::Struct(_)))
}

/// StableHLO's struct attribute `#stablehlo.mnemonic` (spec/attrs.yaml, `stablehlo_structs`).
fn stablehlo_struct(mnemonic: &str) -> Option<&'static crate::dialect::StructAttrSpec> {
    crate::vhlo::STABLEHLO_STRUCTS
        .iter()
        .find(|s| s.mnemonic == mnemonic)
}

pub fn find_struct(dialect: &str, mnemonic: &str) -> Option<StructSpec> {
    if dialect == "vhlo" {
        let a = VhloAttr::from_mnemonic(mnemonic).filter(|&a| is_vhlo_struct(a))?;
        return Some(StructSpec {
            dialect: "vhlo",
            mnemonic: a.mnemonic(),
            fields: Fields::Vhlo(a.params()),
            omit_defaults: false,
        });
    }
    if dialect != "stablehlo" {
        return None;
    }
    // A struct with a syntax of its own is found by its own parser (`conv_raw`).
    let s = stablehlo_struct(mnemonic).filter(|s| !s.own_syntax)?;
    Some(StructSpec {
        dialect: "stablehlo",
        mnemonic: s.mnemonic,
        fields: Listed(s.fields),
        omit_defaults: s.omit_defaults,
    })
}

/// The fields of a struct-like attribute, in parameter order.
#[derive(Clone, Copy)]
pub enum Fields {
    /// StableHLO's struct attributes: the spec lists them.
    Listed(&'static [(&'static str, FieldKind)]),
    /// A VHLO attribute's parameters in the spec.
    Vhlo(&'static [ParamSpec]),
}

impl Fields {
    pub fn len(self) -> usize {
        match self {
            Listed(f) => f.len(),
            Fields::Vhlo(f) => f.len(),
        }
    }

    #[inline]
    pub fn get(self, i: usize) -> Option<(&'static str, FieldKind)> {
        match self {
            Listed(f) => f.get(i).copied(),
            Fields::Vhlo(f) => f.get(i).map(|p| {
                let kind = match p.kind {
                    ParamKind::Dims | ParamKind::I64s => Dims,
                    ParamKind::I64 | ParamKind::I32 | ParamKind::Int => Int,
                    ParamKind::Type => Type,
                    ParamKind::Bool => Bool,
                    ParamKind::Float => Float,
                    ParamKind::String => Str,
                    _ if p.optional => OptAttr,
                    _ => Attr,
                };
                (p.name, kind)
            }),
        }
    }

    pub fn iter(self) -> impl Iterator<Item = (&'static str, FieldKind)> {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}

/// `#stablehlo.conv<raw ...>`: the convolution dimension numbers spelled field by field.
pub fn conv_raw() -> StructSpec {
    let (fields, omit_defaults) =
        stablehlo_struct("conv").map_or((&[][..], true), |s| (s.fields, s.omit_defaults));
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "conv",
        fields: Listed(fields),
        omit_defaults,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The VHLO struct attributes take their fields from the spec's parameters: each parses
    /// and prints back as written.
    #[test]
    fn vhlo_structs_round_trip_through_their_spec_fields() {
        let src = [
            "#vhlo.output_operand_alias_v1<outputTupleIndices = [0, 1], operandIndex = 2, operandTupleIndices = []>",
            "#vhlo.type_extensions_v1<bounds = [4, ?]>",
            "#vhlo.sub_axis_info_v1<pre_size = 1, size = 2>",
            "#vhlo.mesh_axis_v1<name = #vhlo.string_v1<\"x\">, size = 4>",
            "#vhlo.axis_ref_v1<name = #vhlo.string_v1<\"x\">>",
            "#vhlo.axis_ref_v1<name = #vhlo.string_v1<\"x\">, sub_axis_info = #vhlo.sub_axis_info_v1<pre_size = 1, size = 2>>",
        ];
        for s in src {
            let mut m = crate::ir::Module::new();
            let a = crate::text::parse_attribute(&mut m, s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(crate::text::printer::attribute_to_string(&m, a), s);
        }
        let structs: Vec<VhloAttr> = VhloAttr::ALL
            .iter()
            .copied()
            .filter(|&a| is_vhlo_struct(a))
            .collect();
        assert!(
            structs.len() > 1,
            "the spec writes its struct attributes with struct(params)"
        );
        for a in structs {
            let spec = find_struct("vhlo", a.mnemonic()).expect("a struct");
            assert_eq!(spec.fields.iter().count(), a.params().len(), "{a:?}");
        }
    }

    /// The StableHLO dimension-number structs take their fields from the spec's `vhlo:` splits:
    /// each field parses and prints back as written, and reads through its typed struct.
    #[test]
    fn split_structs_take_the_spec_fields() {
        let src = [
            "#stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], input_batching_dims = [2], scatter_indices_batching_dims = [3], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>",
            "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], operand_batching_dims = [2], start_indices_batching_dims = [3], start_index_map = [0], index_vector_dim = 2>",
            "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>",
            "#stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [0, 1], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>",
        ];
        for s in src {
            let mut m = crate::ir::Module::new();
            let a = crate::text::parse_attribute(&mut m, s).unwrap_or_else(|e| panic!("{s}: {e}"));
            assert_eq!(crate::text::printer::attribute_to_string(&m, a), s);
        }
        for s in crate::vhlo::STABLEHLO_STRUCTS
            .iter()
            .filter(|s| !s.own_syntax)
        {
            let spec = find_struct("stablehlo", s.mnemonic).expect("a struct");
            assert_eq!(spec.fields.len(), s.fields.len(), "{}", s.mnemonic);
        }
        assert!(find_struct("stablehlo", "conv").is_none());
        assert_eq!(conv_raw().fields.len(), 9);
        let mut m = crate::ir::Module::new();
        let dot = crate::text::parse_attribute(&mut m, src[2]).expect("parses");
        let typed =
            crate::vhlo::stablehlo_attrs::DotDimensionNumbers::read(&m, dot).expect("a dot");
        assert_eq!(typed.lhs_contracting_dimensions, vec![2]);
        assert_eq!(typed.build(&mut m), dot);
        let conv = crate::text::parse_attribute(&mut m, src[3]).expect("parses");
        let typed =
            crate::vhlo::stablehlo_attrs::ConvDimensionNumbers::read(&m, conv).expect("a conv");
        assert_eq!(typed.output_spatial_dimensions, vec![1, 2]);
        assert_eq!(typed.build(&mut m), conv);
    }
}

/// What the structural rules (text/verify/structure.rs) and the parser need to know of an op,
/// by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpClass {
    /// Of a dialect this crate models (MLIR would have it registered).
    pub registered: bool,
    /// Of such a dialect, but not one of its ops: MLIR's verifier refuses it ("does not allow
    /// unknown operations").
    pub unknown: bool,
    /// Has MLIR's `IsTerminator` trait.
    pub terminator: bool,
    /// Has `IsolatedFromAbove`: its regions see no value from outside.
    pub isolated: bool,
    /// Its regions' blocks need no terminator (`NoTerminator`).
    pub no_terminator: bool,
    /// Carries a `function_type` (`func.func`, `vhlo.func_v1`).
    pub has_function_type: bool,
    pub stablehlo: Option<StablehloOp>,
    /// `func.call`.
    pub call: bool,
}

/// Dialects whose ops we model besides those of the spec's `dialects/` (every one of which is
/// modeled too): their ops are checked for terminators; ops of any other dialect are
/// unregistered.
const MODELED: &[&str] = &["builtin", "func", "stablehlo", "vhlo"];

/// The ops of `func` and `builtin` in jaxlib's MLIR (FuncOps.td, BuiltinOps.td); those of the
/// other dialects above are in the spec.
const FUNC_AND_BUILTIN_OPS: &[&str] = &[
    "builtin.module",
    "builtin.unrealized_conversion_cast",
    "func.call",
    "func.call_indirect",
    "func.constant",
    "func.func",
    "func.return",
];

/// Ops that are `IsolatedFromAbove` besides those of the spec's other dialects (whose `traits`
/// say so).
const ISOLATED: &[&str] = &[
    "builtin.module",
    "func.func",
    "stablehlo.async_start",
    "vhlo.func_v1",
    "vhlo.async_start_v1",
];

/// Whether `name`, of a dialect jaxlib registers that the spec does not model, is none of the
/// ops jaxlib registers there (`spec/registered_ops.yaml`): MLIR refuses it as unregistered.
fn unlisted(dialect: &str, name: &str) -> bool {
    let short = name.get(dialect.len() + 1..).unwrap_or_default();
    (crate::vhlo::UNMODELED_OPS.iter())
        .find(|(d, _)| *d == dialect)
        .is_some_and(|(_, ops)| ops.binary_search(&short).is_err())
}

pub(crate) fn classify(name: &str) -> OpClass {
    let dialect = name.split('.').next().unwrap_or("");
    let stablehlo = StablehloOp::from_name(name).filter(|_| dialect == "stablehlo");
    // The spec's other dialects (sdy, chlo, arith, ...) declare their terminators and traits.
    let codec = codec_op(name).map(|(_, o)| o);
    // A dialect of the spec whose `ops` are not all that jaxlib registers takes any name; one
    // that allows unknown ops takes other names as unregistered ops.
    let cd = crate::vhlo::codec_dialect(dialect);
    let all_listed = cd.is_some_and(|cd| cd.ops_complete);
    let unknown_allowed = cd.is_some_and(|cd| cd.allows_unknown_ops) && codec.is_none();
    let has = |trait_: &str| codec.is_some_and(|o| o.traits.contains(&trait_));
    let terminator = match dialect {
        "stablehlo" => name == "stablehlo.return",
        "vhlo" => VhloOp::from_name(name).is_some_and(|k| k.is_terminator()),
        "func" => name == "func.return",
        _ => codec.is_some_and(|o| o.terminator),
    };
    let registered = (MODELED.contains(&dialect) || cd.is_some()) && !unknown_allowed;
    let known = match dialect {
        "stablehlo" => stablehlo.is_some(),
        "vhlo" => VhloOp::from_name(name).is_some(),
        "func" | "builtin" => FUNC_AND_BUILTIN_OPS.contains(&name),
        _ => codec.is_some() || !all_listed,
    };
    OpClass {
        registered,
        unknown: registered && !known || unlisted(dialect, name),
        terminator,
        isolated: ISOLATED.contains(&name) || has("IsolatedFromAbove"),
        no_terminator: name == "builtin.module" || has("NoTerminator"),
        has_function_type: name == "func.func" || name == "vhlo.func_v1",
        stablehlo,
        call: name == "func.call",
    }
}
