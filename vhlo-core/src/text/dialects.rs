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
pub struct StructSpec {
    pub dialect: &'static str,
    pub mnemonic: &'static str,
    pub fields: &'static [(&'static str, FieldKind)],
    /// StableHLO's `printStruct`: empty lists and zero integers are left out (and default on
    /// parse). Otherwise every field is printed and required, except optional ones.
    pub omit_defaults: bool,
}

use FieldKind::*;

pub const STRUCTS: &[StructSpec] = &[
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "scatter",
        fields: &[
            ("update_window_dims", Dims),
            ("inserted_window_dims", Dims),
            ("input_batching_dims", Dims),
            ("scatter_indices_batching_dims", Dims),
            ("scatter_dims_to_operand_dims", Dims),
            ("index_vector_dim", Int),
        ],
        omit_defaults: true,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "gather",
        fields: &[
            ("offset_dims", Dims),
            ("collapsed_slice_dims", Dims),
            ("operand_batching_dims", Dims),
            ("start_indices_batching_dims", Dims),
            ("start_index_map", Dims),
            ("index_vector_dim", Int),
        ],
        omit_defaults: true,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "dot",
        fields: &[
            ("lhs_batching_dimensions", Dims),
            ("rhs_batching_dimensions", Dims),
            ("lhs_contracting_dimensions", Dims),
            ("rhs_contracting_dimensions", Dims),
        ],
        omit_defaults: true,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "dot_algorithm",
        fields: &[
            ("lhs_precision_type", Type),
            ("rhs_precision_type", Type),
            ("accumulation_type", Type),
            ("lhs_component_count", Int),
            ("rhs_component_count", Int),
            ("num_primitive_operations", Int),
            ("allow_imprecise_accumulation", Bool),
        ],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "output_operand_alias",
        fields: &[
            ("output_tuple_indices", Dims),
            ("operand_index", Int),
            ("operand_tuple_indices", Dims),
        ],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "channel_handle",
        fields: &[("handle", Int), ("type", Int)],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "result_accuracy",
        fields: &[
            ("atol", Float),
            ("rtol", Float),
            ("ulps", Int),
            ("mode", Attr),
        ],
        omit_defaults: true,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "axis_ref",
        fields: &[("name", Str), ("sub_axis_info", OptSubAxis)],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "mesh_axis",
        fields: &[("name", Str), ("size", Int)],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "stablehlo",
        mnemonic: "replica_group_mesh_axes",
        fields: &[("mesh", Attr), ("axes", Attr)],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "vhlo",
        mnemonic: "output_operand_alias_v1",
        // VHLO keeps upstream's camelCase parameter names (VhloAttrs.td, spec/attrs.yaml).
        fields: &[
            ("outputTupleIndices", Dims),
            ("operandIndex", Int),
            ("operandTupleIndices", Dims),
        ],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "vhlo",
        mnemonic: "type_extensions_v1",
        fields: &[("bounds", Dims)],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "vhlo",
        mnemonic: "result_accuracy_v1",
        fields: &[
            ("atol", Float),
            ("rtol", Float),
            ("ulps", Int),
            ("mode", Attr),
        ],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "vhlo",
        mnemonic: "sub_axis_info_v1",
        fields: &[("pre_size", Int), ("size", Int)],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "vhlo",
        mnemonic: "axis_ref_v1",
        fields: &[("name", Attr), ("sub_axis_info", OptAttr)],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "vhlo",
        mnemonic: "replica_group_mesh_axes_v1",
        fields: &[("mesh", Attr), ("axes", Attr)],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "vhlo",
        mnemonic: "mesh_axis_v1",
        fields: &[("name", Attr), ("size", Int)],
        omit_defaults: false,
    },
    StructSpec {
        dialect: "vhlo",
        mnemonic: "mesh_v1",
        fields: &[("axes", Attr), ("device_ids", OptAttr)],
        omit_defaults: false,
    },
];

pub fn find_struct(dialect: &str, mnemonic: &str) -> Option<&'static StructSpec> {
    STRUCTS
        .iter()
        .find(|s| s.dialect == dialect && s.mnemonic == mnemonic)
}

/// `#stablehlo.conv<raw ...>`: the convolution dimension numbers spelled field by field.
pub const CONV_RAW: StructSpec = StructSpec {
    dialect: "stablehlo",
    mnemonic: "conv",
    fields: &[
        ("input_batch_dimension", Int),
        ("input_feature_dimension", Int),
        ("input_spatial_dimensions", Dims),
        ("kernel_input_feature_dimension", Int),
        ("kernel_output_feature_dimension", Int),
        ("kernel_spatial_dimensions", Dims),
        ("output_batch_dimension", Int),
        ("output_feature_dimension", Int),
        ("output_spatial_dimensions", Dims),
    ],
    omit_defaults: true,
};
