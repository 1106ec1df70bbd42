//! The bytecode form of VHLO types and attributes: each parameter kind has a plain wire form, and
//! the irregular ones (upstream's `VhloBytecode.cpp`, Shardy's `bytecode.td`) are named hints in
//! the spec (`wire:`), with `wire_order:` where the bytecode order is not the storage order.
//! Lowered here, for VHLO and for the dialects of `spec/dialects/` alike, into the steps the one
//! bytecode engine (`vhlo-core/src/bytecode/vhlo_codec.rs`) reads and writes.

use crate::diag::{Diagnostics, Pos};
use crate::params::{ParamDef, ParamKind};

/// How one parameter is written; the runtime `vhlo_core::dialect::Wire` is generated from it
/// ([`crate::runtime_kinds_to_string`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    Type,
    Types,
    Attr,
    Attrs,
    AttrPairs,
    Bool,
    BoolByte,
    String,
    SVarInt,
    SVarInts,
    Shape,
    VarInt,
    UVarInt,
    OptUVarInt,
    QuantFlags,
    F64,
    F64s,
    QuantScale,
    QuantScales,
    FloatOfType(usize),
    IntOfType(usize),
    PackedI1Blob(usize),
    PresenceFlag,
    IndexWithFlag,
    ByCode,
}

impl Wire {
    /// Every variant (operands 0), for emitting the runtime enum.
    pub const ALL: [Wire; 25] = [
        Wire::Type,
        Wire::Types,
        Wire::Attr,
        Wire::Attrs,
        Wire::AttrPairs,
        Wire::Bool,
        Wire::BoolByte,
        Wire::String,
        Wire::SVarInt,
        Wire::SVarInts,
        Wire::Shape,
        Wire::VarInt,
        Wire::UVarInt,
        Wire::OptUVarInt,
        Wire::QuantFlags,
        Wire::F64,
        Wire::F64s,
        Wire::QuantScale,
        Wire::QuantScales,
        Wire::FloatOfType(0),
        Wire::IntOfType(0),
        Wire::PackedI1Blob(0),
        Wire::PresenceFlag,
        Wire::IndexWithFlag,
        Wire::ByCode,
    ];

    /// The runtime variant's name and its parameter-index operand, if any.
    pub fn variant(self) -> (&'static str, Option<usize>) {
        let (name, operand, _) = self.describe();
        (name, operand)
    }

    /// The name, the operand and the runtime variant's documentation.
    pub fn describe(self) -> (&'static str, Option<usize>, &'static str) {
        match self {
            Wire::Type => ("Type", None, "`type`: a type index."),
            Wire::Types => ("Types", None, "`types`: a count and type indices."),
            Wire::Attr => ("Attr", None, "`attr`: an attribute index."),
            Wire::Attrs => ("Attrs", None, "`attrs`: a count and attribute indices."),
            Wire::AttrPairs => ("AttrPairs", None, "`attr_pairs`: a count and (key, value) attribute indices."),
            Wire::Bool => ("Bool", None, "`bool`: a varint, nonzero for true."),
            Wire::BoolByte => ("BoolByte", None, "`bool` with `wire: byte` (Shardy): one byte, 0 or 1."),
            Wire::String => ("String", None, "`string`: a string-table index."),
            Wire::SVarInt => ("SVarInt", None, "`i64`: a zigzag varint."),
            Wire::SVarInts => ("SVarInts", None, "`i64s`, `dims`: a count and zigzag varints."),
            Wire::Shape => ("Shape", None, "`dims` with `wire: shape`: as `SVarInts`, each a size (>= 0) or dynamic."),
            Wire::VarInt => ("VarInt", None, "`i32`: a varint."),
            Wire::UVarInt => ("UVarInt", None, "`u32`: a varint."),
            Wire::OptUVarInt => ("OptUVarInt", None, "Optional `u32` with `wire: varint_with_flag` (Shardy): the value with a presence flag, `Param::UInt` or `Param::Absent`."),
            Wire::QuantFlags => ("QuantFlags", None, "`u32` with `wire: quant_flags`: a varint, 0 or 1 (signed)."),
            Wire::F64 => ("F64", None, "`float`: a 64-bit APInt (f64 bits)."),
            Wire::F64s => ("F64s", None, "`floats`: a count and 64-bit APInts."),
            Wire::QuantScale => ("QuantScale", None, "`float` with `wire: quant_scale`: as `F64`, positive and finite."),
            Wire::QuantScales => ("QuantScales", None, "`floats` with `wire: quant_scale`: as `F64s`, each positive and finite."),
            Wire::FloatOfType(p) => ("FloatOfType", Some(p), "`float` with `wire: type_width`: an APInt of the width of the float type parameter."),
            Wire::IntOfType(p) => ("IntOfType", Some(p), "`int` with `wire: type_width`: an APInt of the width of the integer type parameter."),
            Wire::PackedI1Blob(p) => ("PackedI1Blob", Some(p), "`dense_data` with `wire: packed_i1_blob`: a blob that fits the tensor type parameter, i1 elements packed eight to a byte."),
            Wire::PresenceFlag => ("PresenceFlag", None, "Optional `attr` with `wire: presence_flag`: a varint 0 or 1, then the attribute index."),
            Wire::IndexWithFlag => ("IndexWithFlag", None, "Optional `attr` with `wire: index_with_flag`: the attribute index with a presence flag."),
            Wire::ByCode => ("ByCode", None, "Optional `attr` of a type with `code_with_encoding`: present (an attribute index, first) exactly when the entry has that code."),
        }
    }
}

/// One step of an entry's bytecode: the parameter (storage index) and how it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireStep {
    pub param: usize,
    pub wire: Wire,
}

/// The hints, with the kinds each applies to and what it means (for the error messages).
pub const HINTS: &[(&str, &str)] = &[
    ("shape", "dims: each dimension a size or dynamic"),
    (
        "type_width",
        "int, float: an APInt of the width of the type parameter before it",
    ),
    ("quant_flags", "u32: quantization flags, 0 or 1 (signed)"),
    (
        "quant_scale",
        "float, floats: an f64 quantization scale, positive and finite",
    ),
    (
        "packed_i1_blob",
        "dense_data: a blob fitting the tensor type before it, i1 packed 8 to a byte",
    ),
    (
        "presence_flag",
        "optional attr: a varint 0 or 1, then the attribute index",
    ),
    (
        "index_with_flag",
        "optional attr: the attribute index with a presence flag",
    ),
    ("byte", "bool: one byte, 0 or 1 (Shardy)"),
    (
        "varint_with_flag",
        "optional u32: the value with a presence flag (Shardy)",
    ),
];

fn hint_list() -> String {
    HINTS.iter().map(|(h, _)| *h).collect::<Vec<_>>().join(", ")
}

/// The wire steps of the type or attribute `name` with `params`, in bytecode order.
/// `code_with_encoding` is its second bytecode code, if any, and where its code is written;
/// `wire_order` is the spec's `wire_order:` list.
pub fn lower(
    name: &str,
    params: &[ParamDef],
    (code_with_encoding, code_pos): (Option<u32>, &Pos),
    wire_order: Option<&[(String, Pos)]>,
    what: &str,
    diags: &mut Diagnostics,
) -> Vec<WireStep> {
    // The order: storage order, the parameter chosen by `code_with_encoding` first, or as listed.
    let by_code =
        code_with_encoding.and_then(|_| params.iter().position(|p| p.optional && p.wire.is_none()));
    if code_with_encoding.is_some() && by_code.is_none() {
        diags.error(
            code_pos.clone(),
            format!(
                "{what} `{name}` has `code_with_encoding` but no optional attribute parameter without a `wire:` hint for it to select"
            ),
        );
    }
    let mut order: Vec<usize> = match wire_order {
        Some(list) => {
            let mut out = Vec::new();
            for (n, at) in list {
                match params.iter().position(|p| &p.name == n) {
                    Some(i) if out.contains(&i) => {
                        diags.error(at.clone(), format!("`wire_order` of `{name}` lists `{n}` twice"))
                    }
                    Some(i) => out.push(i),
                    None => diags.error(
                        at.clone(),
                        format!("`wire_order` of `{name}` names `{n}`, which is not one of its parameters"),
                    ),
                }
            }
            for (i, p) in params.iter().enumerate() {
                if !out.contains(&i) {
                    diags.error(
                        p.pos.clone(),
                        format!(
                            "parameter `{}` of `{name}` is missing from its `wire_order`",
                            p.name
                        ),
                    );
                    out.push(i);
                }
            }
            out
        }
        None => (0..params.len()).collect(),
    };
    if wire_order.is_none() {
        if let Some(b) = by_code {
            order.retain(|&i| i != b);
            order.insert(0, b);
        }
    } else if let Some(b) = by_code {
        if order.first() != Some(&b) {
            if let Some(p) = params.get(b) {
                diags.error(
                    p.pos.clone(),
                    format!(
                        "`{}` of `{name}` is selected by `code_with_encoding` and so comes first on the wire",
                        p.name
                    ),
                );
            }
        }
    }
    let mut steps = Vec::new();
    for (at, &i) in order.iter().enumerate() {
        let Some(p) = params.get(i) else { continue };
        // The type parameter an APInt or a blob takes its width or shape from: the last one before.
        let type_before = order
            .get(..at)
            .unwrap_or(&[])
            .iter()
            .rev()
            .copied()
            .find(|&j| params.get(j).is_some_and(|q| q.kind == ParamKind::Type));
        let wire = param_wire(p, name, type_before, by_code == Some(i), diags);
        steps.push(WireStep { param: i, wire });
    }
    steps
}

/// The wire form of parameter `p` of `name`: its kind's plain form or its `wire:` hint.
/// `type_before` is the type parameter before it on the wire; `by_code`, whether the type's
/// `code_with_encoding` selects it.
pub fn param_wire(
    p: &ParamDef,
    name: &str,
    type_before: Option<usize>,
    by_code: bool,
    diags: &mut Diagnostics,
) -> Wire {
    let hint = p.wire.as_ref().map(|(h, _)| h.as_str());
    let hint_pos = p.wire.as_ref().map_or(p.pos.clone(), |(_, at)| at.clone());
    let needs_type = |w: fn(usize) -> Wire, diags: &mut Diagnostics| match type_before {
        Some(t) => w(t),
        None => {
            diags.error(
                hint_pos.clone(),
                format!(
                    "parameter `{}` of `{name}`: `{}` needs a `type` parameter before it on the wire",
                    p.name,
                    hint.unwrap_or("")
                ),
            );
            w(0)
        }
    };
    match (p.kind, p.optional, hint) {
        (ParamKind::Attr, true, None) if by_code => Wire::ByCode,
        (ParamKind::Attr, true, Some("index_with_flag")) => Wire::IndexWithFlag,
        (ParamKind::U32, true, Some("varint_with_flag")) => Wire::OptUVarInt,
        (ParamKind::Attr, true, Some("presence_flag")) => Wire::PresenceFlag,
        (_, true, _) => {
            diags.error(
                hint_pos.clone(),
                format!(
                    "optional parameter `{}` of `{name}` needs `wire: presence_flag` or `wire: index_with_flag` (or the type's `code_with_encoding`; an optional u32, `wire: varint_with_flag`)",
                    p.name
                ),
            );
            Wire::Attr
        }
        (ParamKind::Type, false, None) => Wire::Type,
        (ParamKind::Types, false, None) => Wire::Types,
        (ParamKind::Attr, false, None) => Wire::Attr,
        (ParamKind::Attrs, false, None) => Wire::Attrs,
        (ParamKind::AttrPairs, false, None) => Wire::AttrPairs,
        (ParamKind::Bool, false, None) => Wire::Bool,
        (ParamKind::Bool, false, Some("byte")) => Wire::BoolByte,
        (ParamKind::String, false, None) => Wire::String,
        (ParamKind::I64, false, None) => Wire::SVarInt,
        (ParamKind::I64s | ParamKind::Dims, false, None) => Wire::SVarInts,
        (ParamKind::Dims, false, Some("shape")) => Wire::Shape,
        (ParamKind::I32, false, None) => Wire::VarInt,
        (ParamKind::U32, false, None) => Wire::UVarInt,
        (ParamKind::U32, false, Some("quant_flags")) => Wire::QuantFlags,
        (ParamKind::Float, false, None) => Wire::F64,
        (ParamKind::Floats, false, None) => Wire::F64s,
        (ParamKind::Float, false, Some("quant_scale")) => Wire::QuantScale,
        (ParamKind::Floats, false, Some("quant_scale")) => Wire::QuantScales,
        (ParamKind::Float, false, Some("type_width")) => needs_type(Wire::FloatOfType, diags),
        (ParamKind::Int, false, Some("type_width")) => needs_type(Wire::IntOfType, diags),
        (ParamKind::DenseData, false, Some("packed_i1_blob")) => {
            needs_type(Wire::PackedI1Blob, diags)
        }
        (ParamKind::Int, false, None) => {
            diags.error(
                p.pos.clone(),
                format!(
                    "parameter `{}` of `{name}` (int) needs `wire: type_width`: its width is its type's",
                    p.name
                ),
            );
            Wire::SVarInt
        }
        (ParamKind::DenseData, false, None) => {
            diags.error(
                p.pos.clone(),
                format!(
                    "parameter `{}` of `{name}` (dense_data) needs `wire: packed_i1_blob`",
                    p.name
                ),
            );
            Wire::PackedI1Blob(0)
        }
        (kind, false, Some(h)) => {
            let known = HINTS.iter().find(|(n, _)| *n == h);
            let msg = match known {
                Some((_, applies)) => format!(
                    "`wire: {h}` does not apply to parameter `{}` of `{name}` (kind {}); it applies to {applies}",
                    p.name,
                    kind.spelling()
                ),
                None => format!(
                    "unknown `wire:` hint `{h}` on parameter `{}` of `{name}` (the hints: {}){}",
                    p.name,
                    hint_list(),
                    crate::diag::did_you_mean(h, HINTS.iter().map(|(n, _)| *n))
                ),
            };
            diags.error(hint_pos.clone(), msg);
            Wire::Attr
        }
    }
}
