//! The parameters of a type or attribute, VHLO's (`spec/types.yaml`, `spec/attrs.yaml`) or a
//! codec dialect's (`spec/dialects/*.yaml`): their kinds and definitions, shared by `model`,
//! `wire` and `codec_dialect` (which `model` uses, so they cannot use `model`).

use crate::diag::Pos;

/// How a type or attribute parameter is stored (`ir::Param` variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    Type,
    Types,
    Attr,
    Attrs,
    AttrPairs,
    Dims,
    I64s,
    I64,
    I32,
    U32,
    Bool,
    String,
    Float,
    Floats,
    /// An integer attribute's value: its bit pattern, sign-extended to 64 bits.
    Int,
    /// Raw little-endian tensor data, as MLIR stores dense elements.
    DenseData,
}

impl ParamKind {
    /// All kinds with their spec spelling.
    pub const ALL: [(&'static str, ParamKind); 16] = [
        ("type", ParamKind::Type),
        ("types", ParamKind::Types),
        ("attr", ParamKind::Attr),
        ("attrs", ParamKind::Attrs),
        ("attr_pairs", ParamKind::AttrPairs),
        ("dims", ParamKind::Dims),
        ("i64s", ParamKind::I64s),
        ("i64", ParamKind::I64),
        ("i32", ParamKind::I32),
        ("u32", ParamKind::U32),
        ("bool", ParamKind::Bool),
        ("string", ParamKind::String),
        ("float", ParamKind::Float),
        ("floats", ParamKind::Floats),
        ("int", ParamKind::Int),
        ("dense_data", ParamKind::DenseData),
    ];

    /// How the runtime stores a parameter of this kind (the doc of the generated
    /// `vhlo_core::dialect::ParamKind` variant).
    pub fn stored_as(self) -> &'static str {
        match self {
            ParamKind::Type => "`Param::Type`",
            ParamKind::Types => "`Param::Types`",
            ParamKind::Attr => "`Param::Attr` (or `Param::Absent` when optional)",
            ParamKind::Attrs => "`Param::Attrs`",
            ParamKind::AttrPairs => "`Param::AttrPairs`",
            ParamKind::Dims => "`Param::Ints`: a shape, `i64::MIN` for dynamic dimensions.",
            ParamKind::I64s => "`Param::Ints`",
            ParamKind::I64 | ParamKind::I32 => "`Param::Int`",
            ParamKind::U32 => "`Param::UInt`",
            ParamKind::Bool => "`Param::Bool`",
            ParamKind::String => "`Param::Str`",
            ParamKind::Float => "`Param::Float`",
            ParamKind::Floats => "`Param::Floats`",
            ParamKind::Int => {
                "`Param::Int`: an integer attribute's bit pattern, sign-extended to 64 bits."
            }
            ParamKind::DenseData => {
                "`Param::Bytes`: raw little-endian tensor data as MLIR stores dense elements."
            }
        }
    }

    /// The spec spelling.
    pub fn spelling(self) -> &'static str {
        ParamKind::ALL
            .iter()
            .find(|(_, k)| *k == self)
            .map(|(s, _)| *s)
            .unwrap_or("?")
    }
}

/// A parameter of a VHLO type or attribute.
#[derive(Clone, Debug)]
pub struct ParamDef {
    pub name: String,
    pub kind: ParamKind,
    pub optional: bool,
    /// The `wire:` hint and its position.
    pub wire: Option<(String, Pos)>,
    pub pos: Pos,
}
