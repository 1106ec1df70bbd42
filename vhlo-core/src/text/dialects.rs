//! Tables for the dialect attributes and types the text format knows: enum cases and the
//! parameter layout (upstream TableGen order) of the struct-like attributes.

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

/// Enums printed `#dialect.mnemonic<CASE>` instead of `#dialect<mnemonic CASE>`.
pub fn enum_uses_pretty_mnemonic(dialect: &str, mnemonic: &str) -> bool {
    dialect == "stablehlo" && mnemonic == "result_accuracy_mode"
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

/// The kind of one field of a struct-like attribute.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FieldKind {
    /// `[1, 2, ?]` → `Param::Ints` (`?` is the dynamic size).
    Dims,
    /// `42` → `Param::Int`.
    Int,
    /// A type → `Param::Type`.
    Type,
    /// `true`/`false` → `Param::Bool`.
    Bool,
    /// A double → `Param::Float { width: 64 }`.
    Float,
    /// Any attribute → `Param::Attr`.
    Attr,
    /// Optional attribute → `Param::Attr` or `Param::Absent`.
    OptAttr,
    /// `"text"` → `Param::Str`.
    Str,
    /// `(pre)size` → `Param::Attr` of `#stablehlo.sub_axis_info`, or `Param::Absent`.
    OptSubAxis,
}

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

use crate::dialect::{ParamKind, ParamSpec};
use crate::vhlo::{StablehloOp, VhloAttr};
use FieldKind::*;
use Fields::Listed;

pub const STRUCTS: &[StructSpec] = &[
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "dot_algorithm",
        fields: Listed(&[
            ("lhs_precision_type", Type),
            ("rhs_precision_type", Type),
            ("accumulation_type", Type),
            ("lhs_component_count", Int),
            ("rhs_component_count", Int),
            ("num_primitive_operations", Int),
            ("allow_imprecise_accumulation", Bool),
        ]),
        omit_defaults: false,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "output_operand_alias",
        fields: Listed(&[
            ("output_tuple_indices", Dims),
            ("operand_index", Int),
            ("operand_tuple_indices", Dims),
        ]),
        omit_defaults: false,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "channel_handle",
        fields: Listed(&[("handle", Int), ("type", Int)]),
        omit_defaults: false,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "result_accuracy",
        fields: Listed(&[
            ("atol", Float),
            ("rtol", Float),
            ("ulps", Int),
            ("mode", Attr),
        ]),
        omit_defaults: true,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "axis_ref",
        fields: Listed(&[("name", Str), ("sub_axis_info", OptSubAxis)]),
        omit_defaults: false,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "mesh_axis",
        fields: Listed(&[("name", Str), ("size", Int)]),
        omit_defaults: false,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "replica_group_mesh_axes",
        fields: Listed(&[("mesh", Attr), ("axes", Attr)]),
        omit_defaults: false,
    },
];

/// The VHLO attributes written `#vhlo.mnemonic<key = value, ...>`, their fields the spec's
/// parameters (spec/attrs.yaml).
const VHLO_STRUCTS: [VhloAttr; 8] = [
    VhloAttr::OutputOperandAliasV1,
    VhloAttr::TypeExtensionsV1,
    VhloAttr::ResultAccuracyV1,
    VhloAttr::SubAxisInfoV1,
    VhloAttr::AxisRefV1,
    VhloAttr::ReplicaGroupMeshAxesV1,
    VhloAttr::MeshAxisV1,
    VhloAttr::MeshV1,
];

/// The StableHLO struct attributes the spec splits into VHLO attributes (an op attribute's
/// `vhlo:`): their fields are the split's, in order.
const SPLIT_STRUCTS: [(&str, StablehloOp, &str); 3] = [
    ("scatter", StablehloOp::Scatter, "scatter_dimension_numbers"),
    ("gather", StablehloOp::Gather, "dimension_numbers"),
    ("dot", StablehloOp::DotGeneral, "dot_dimension_numbers"),
];

/// The struct attribute `#stablehlo.mnemonic` that op `k`'s attribute `attr` splits into.
fn split_struct(mnemonic: &'static str, k: StablehloOp, attr: &str) -> StructSpec {
    let i = k.attribute_names().iter().position(|n| *n == attr);
    StructSpec {
        dialect: "stablehlo",
        mnemonic,
        fields: Fields::Split(i.and_then(|i| k.attribute_vhlo_fields()[i]).unwrap_or(&[])),
        omit_defaults: true,
    }
}

pub fn find_struct(dialect: &str, mnemonic: &str) -> Option<StructSpec> {
    if dialect == "vhlo" {
        let a = VhloAttr::from_mnemonic(mnemonic).filter(|a| VHLO_STRUCTS.contains(a))?;
        return Some(StructSpec {
            dialect: "vhlo",
            mnemonic: a.mnemonic(),
            fields: Fields::Vhlo(a.params()),
            omit_defaults: false,
        });
    }
    if dialect == "stablehlo" {
        if let Some(&(mn, k, attr)) = SPLIT_STRUCTS.iter().find(|s| s.0 == mnemonic) {
            return Some(split_struct(mn, k, attr));
        }
    }
    STRUCTS
        .iter()
        .find(|s| s.dialect == dialect && s.mnemonic == mnemonic)
        .copied()
}

/// The fields of a struct-like attribute, in parameter order.
#[derive(Clone, Copy)]
pub enum Fields {
    /// Listed here (StableHLO's struct attributes).
    Listed(&'static [(&'static str, FieldKind)]),
    /// A VHLO attribute's parameters in the spec.
    Vhlo(&'static [ParamSpec]),
    /// The VHLO attributes a StableHLO struct attribute splits into: one dimension
    /// (`*_dim`, `*_dimension`) or a list of them each.
    Split(&'static [&'static str]),
}

impl Fields {
    pub fn len(self) -> usize {
        match self {
            Listed(f) => f.len(),
            Fields::Vhlo(f) => f.len(),
            Fields::Split(f) => f.len(),
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
            Fields::Split(f) => f.get(i).map(|&n| {
                let one = n.ends_with("_dim") || n.ends_with("_dimension");
                (n, if one { Int } else { Dims })
            }),
        }
    }

    pub fn iter(self) -> impl Iterator<Item = (&'static str, FieldKind)> {
        (0..self.len()).filter_map(move |i| self.get(i))
    }
}

/// `#stablehlo.conv<raw ...>`: the convolution dimension numbers spelled field by field.
pub fn conv_raw() -> StructSpec {
    split_struct("conv", StablehloOp::Convolution, "dimension_numbers")
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
        assert_eq!(VHLO_STRUCTS.len(), 8);
        for a in VHLO_STRUCTS {
            let spec = find_struct("vhlo", a.mnemonic()).expect("a struct");
            assert_eq!(spec.fields.iter().count(), a.params().len(), "{a:?}");
        }
    }

    /// The StableHLO dimension-number structs take their fields from the spec's `vhlo:` splits:
    /// each field parses and prints back as written.
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
        for (mnemonic, ..) in SPLIT_STRUCTS {
            let spec = find_struct("stablehlo", mnemonic).expect("a struct");
            assert!(spec.fields.len() >= 4, "{mnemonic}");
        }
        assert_eq!(conv_raw().fields.len(), 9);
    }
}
