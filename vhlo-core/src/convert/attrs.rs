//! Generic attribute conversion between builtin/StableHLO attributes and VHLO attributes, both
//! ways (upstream's `convertGeneric`). Op-specific cases live in `ops.rs`.

use crate::dialect::support::vhlo_attr;
use crate::ir::{
    AttrData, Attribute, Blob, DialectAttr, FastMap, Module, Param, Signedness, TypeData,
};
use crate::vhlo::{attrs as vattr, VhloAttr, VhloEnum, VhloType};

use super::types;

fn describe(m: &Module, a: Attribute) -> String {
    let s = crate::text::attribute_to_string(m, a);
    if s.len() > 120 {
        let cut = (0..=117)
            .rev()
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(0);
        format!("{}...", &s[..cut])
    } else {
        s
    }
}

pub use crate::dialect::support::vhlo_string;

/// Dense `tensor<N x elem>` data as MLIR stores it: one element when all are equal.
pub fn compress_splat(data: Vec<u8>, elem_bytes: usize) -> Vec<u8> {
    if elem_bytes > 0
        && data.len() > elem_bytes
        && data.chunks(elem_bytes).all(|c| c == &data[..elem_bytes])
    {
        data[..elem_bytes].to_vec()
    } else {
        data
    }
}

/// `#vhlo.tensor_v1` of a 1-D tensor of a builtin element type, from raw data.
pub fn vhlo_dense_1d(
    m: &mut Module,
    element: crate::ir::Type,
    len: usize,
    data: Vec<u8>,
) -> Result<Attribute, String> {
    let eb = types::element_bytes(m, element).ok_or("unsupported dense element type")?;
    let shape: Box<[i64]> = Box::new([i64::try_from(len).map_err(|_| "array too long")?]);
    let tty = m.ty(TypeData::RankedTensor {
        shape,
        element,
        encoding: None,
    });
    let vty = types::to_vhlo(m, tty, false)?;
    let data = compress_splat(data, eb);
    Ok(vattr::TensorV1 {
        ty: vty,
        data: data.into(),
    }
    .build(m))
}

/// `#vhlo.tensor_v1<dense<values> : tensor<shape x i64>>`
pub fn vhlo_i64_tensor(m: &mut Module, shape: &[i64], values: &[i64]) -> Result<Attribute, String> {
    Ok(crate::dialect::support::vhlo_int_tensor(
        m,
        VhloType::I64V1.mnemonic(),
        shape,
        values,
    ))
}

/// Converts a builtin/StableHLO attribute to VHLO. With `allow_other`, attributes of other
/// dialects are kept as they are. Each distinct sub-attribute is converted once, so the work is
/// linear in the distinct attributes even when they share parts (`[#a, #a]`, nested).
pub fn to_vhlo(m: &mut Module, a: Attribute, allow_other: bool) -> Result<Attribute, String> {
    to_vhlo_in(m, a, allow_other, &mut Memo::default())
}

/// Attributes converted so far, by their original.
type Memo = FastMap<Attribute, Attribute>;

fn to_vhlo_in(
    m: &mut Module,
    a: Attribute,
    allow_other: bool,
    memo: &mut Memo,
) -> Result<Attribute, String> {
    if let Some(&done) = memo.get(&a) {
        return Ok(done);
    }
    let converted = to_vhlo_uncached(m, a, allow_other, memo)?;
    memo.insert(a, converted);
    Ok(converted)
}

fn to_vhlo_uncached(
    m: &mut Module,
    a: Attribute,
    allow_other: bool,
    memo: &mut Memo,
) -> Result<Attribute, String> {
    let data = m.attr_data(a).clone();
    let fail = |m: &Module, why: &str| Err(format!("attribute `{}` {why}", describe(m, a)));
    Ok(match data {
        AttrData::Bool(b) => vattr::BoolV1 { value: b }.build(m),
        AttrData::Integer { ty, value } => {
            let vt = types::to_vhlo(m, ty, allow_other)?;
            // The bit pattern in 64 bits (VHLO integers are at most 64 bits wide).
            vattr::IntegerV1 {
                ty: vt,
                value: value as i64,
            }
            .build(m)
        }
        AttrData::Float { ty, bits } => {
            let width = match m.type_data(ty) {
                TypeData::Float(k) => k.bit_width(),
                _ => return fail(m, "has a non-float type"),
            };
            let vt = types::to_vhlo(m, ty, allow_other)?;
            vattr::FloatV1 {
                ty: vt,
                value: (bits, width),
            }
            .build(m)
        }
        AttrData::String { value, ty: None } => vattr::StringV1 { value }.build(m),
        AttrData::String { ty: Some(_), .. } => {
            return fail(m, "is a typed string, which VHLO cannot hold")
        }
        AttrData::Type(t) => {
            let vt = types::to_vhlo(m, t, allow_other)?;
            vattr::TypeV1 { value: vt }.build(m)
        }
        AttrData::Array(xs) => {
            let xs = xs
                .iter()
                .map(|&x| to_vhlo_in(m, x, allow_other, memo))
                .collect::<Result<Vec<_>, _>>()?;
            vattr::ArrayV1 { value: xs.into() }.build(m)
        }
        AttrData::DenseArray { element, data } => {
            let eb =
                types::element_bytes(m, element).ok_or("unsupported dense array element type")?;
            let is_i64 = matches!(
                m.type_data(element),
                TypeData::Integer {
                    width: 64,
                    signedness: Signedness::Signless
                }
            );
            let is_bool = matches!(m.type_data(element), TypeData::Integer { width: 1, .. });
            if !(is_i64 || is_bool) {
                // Upstream only converts DenseI64ArrayAttr and DenseBoolArrayAttr.
                return fail(
                    m,
                    "is a dense array of an element type VHLO does not convert (only i64 and i1)",
                );
            }
            vhlo_dense_1d(m, element, data.len() / eb.max(1), data.to_vec())?
        }
        AttrData::DenseElements { ty, data, .. } => {
            let vt = types::to_vhlo(m, ty, allow_other)?;
            vattr::TensorV1 { ty: vt, data }.build(m)
        }
        AttrData::Dictionary(entries) => {
            let mut pairs = Vec::with_capacity(entries.len());
            for (k, v) in entries.iter() {
                let key = vattr::StringV1 { value: *k }.build(m);
                pairs.push((key, to_vhlo_in(m, *v, allow_other, memo)?));
            }
            vattr::DictV1 {
                value: pairs.into(),
            }
            .build(m)
        }
        AttrData::SymbolRef { root, nested } if nested.is_empty() => {
            vattr::StringV1 { value: root }.build(m)
        }
        AttrData::Dialect(d) => {
            let dialect = m.str(d.dialect).to_string();
            let mnemonic = m.str(d.mnemonic).to_string();
            match dialect.as_str() {
                "vhlo" => a,
                "stablehlo" => stablehlo_to_vhlo(m, a, &mnemonic, &d, allow_other, memo)?,
                _ if allow_other => match crate::dialect::unknown_to_libstablehlo(&dialect) {
                    Some(why) => return fail(m, &why),
                    None => a,
                },
                _ => return fail(m, "is not in the StableHLO opset (no VHLO form)"),
            }
        }
        AttrData::Opaque { dialect, .. } if allow_other => {
            match crate::dialect::unknown_to_libstablehlo(m.str(dialect)) {
                Some(why) => return fail(m, &why),
                None => a,
            }
        }
        // Kept as they are, `unit` included (libStablehlo keeps `{foo.bar}` and `[unit]` with
        // `allow_other_dialects`, and refuses them without).
        _ if allow_other => a,
        _ => return fail(m, "has no VHLO form"),
    })
}

fn stablehlo_to_vhlo(
    m: &mut Module,
    a: Attribute,
    mnemonic: &str,
    d: &DialectAttr,
    allow_other: bool,
    memo: &mut Memo,
) -> Result<Attribute, String> {
    if let Some(e) = VhloEnum::ALL.iter().find(|e| e.stablehlo() == mnemonic) {
        let [Param::Int(v)] = d.params[..] else {
            return Err(format!("malformed enum attribute `{}`", describe(m, a)));
        };
        return Ok(vhlo_attr(m, e.mnemonic(), vec![Param::Int(v)]));
    }
    let malformed = |m: &Module| format!("malformed attribute `{}`", describe(m, a));
    let str_attr = |m: &mut Module, p: &Param| -> Result<Attribute, String> {
        match p {
            Param::Str(s) => Ok(vattr::StringV1 { value: *s }.build(m)),
            _ => Err(malformed(m)),
        }
    };
    let mut conv_attr = |m: &mut Module, p: &Param| -> Result<Option<Attribute>, String> {
        match p {
            Param::Attr(x) => Ok(Some(to_vhlo_in(m, *x, allow_other, memo)?)),
            Param::Absent => Ok(None),
            _ => Err(malformed(m)),
        }
    };
    let Some(kind) = vhlo_attr_of_stablehlo(mnemonic) else {
        return Err(format!(
            "attribute `{}` has no generic VHLO form here",
            describe(m, a)
        ));
    };
    Ok(match (kind, &d.params[..]) {
        // Parameter for parameter as in StableHLO.
        (
            VhloAttr::OutputOperandAliasV1 | VhloAttr::TypeExtensionsV1 | VhloAttr::SubAxisInfoV1,
            params,
        ) => vhlo_attr(m, kind.mnemonic(), params.to_vec()),
        (
            VhloAttr::ResultAccuracyV1,
            [Param::Float {
                bits: atol,
                width: aw,
            }, Param::Float {
                bits: rtol,
                width: rw,
            }, Param::Int(ulps), mode],
        ) => {
            let mode = conv_attr(m, mode)?.ok_or_else(|| malformed(m))?;
            vattr::ResultAccuracyV1 {
                atol: (*atol, *aw),
                rtol: (*rtol, *rw),
                ulps: *ulps,
                mode,
            }
            .build(m)
        }
        (VhloAttr::AxisRefV1, [name, sub]) => {
            let name = str_attr(m, name)?;
            let sub_axis_info = conv_attr(m, sub)?;
            vattr::AxisRefV1 {
                name,
                sub_axis_info,
            }
            .build(m)
        }
        (VhloAttr::MeshAxisV1, [name, Param::Int(size)]) => {
            let name = str_attr(m, name)?;
            vattr::MeshAxisV1 { name, size: *size }.build(m)
        }
        // StableHLO lists the axes; VHLO holds them in one `#vhlo.array_v1`.
        (VhloAttr::MeshV1, [Param::Attrs(axes), device_ids]) => {
            let axes = axes
                .iter()
                .map(|&x| conv_attr(m, &Param::Attr(x)).map(|y| y.unwrap_or(x)))
                .collect::<Result<Vec<_>, _>>()?;
            let axes = vattr::ArrayV1 { value: axes.into() }.build(m);
            let device_ids = conv_attr(m, device_ids)?;
            vattr::MeshV1 { axes, device_ids }.build(m)
        }
        (VhloAttr::ReplicaGroupMeshAxesV1, [mesh, axes]) => {
            let mesh = conv_attr(m, mesh)?.ok_or_else(|| malformed(m))?;
            let axes = conv_attr(m, axes)?.ok_or_else(|| malformed(m))?;
            vattr::ReplicaGroupMeshAxesV1 { mesh, axes }.build(m)
        }
        _ => return Err(malformed(m)),
    })
}

/// The VHLO attribute that stands for `#stablehlo.<mnemonic>` (the spec's `builtin:`), its
/// newest version.
fn vhlo_attr_of_stablehlo(mnemonic: &str) -> Option<VhloAttr> {
    VhloAttr::ALL
        .iter()
        .rev()
        .copied()
        .find(|k| k.builtin().strip_prefix("#stablehlo.") == Some(mnemonic))
}

/// A `#stablehlo.<mnemonic>` attribute with these parameters.
pub(super) fn stablehlo_attr(m: &mut Module, mnemonic: &str, params: Vec<Param>) -> Attribute {
    m.dialect_attr("stablehlo", mnemonic, params)
}

/// An integer value of a builtin integer type from VHLO's 64-bit pattern.
pub fn int_value_for(m: &Module, ty: crate::ir::Type, v: i64) -> i128 {
    match m.type_data(ty) {
        // VHLO holds the bit pattern sign-extended; an unsigned value is its low `width` bits
        // (`#vhlo.integer_v1<170 : ui8>` is stored as -86 and is 170 in StableHLO).
        TypeData::Integer {
            signedness: Signedness::Unsigned,
            width,
        } => {
            let bits = v as u64;
            i128::from(match 1u64.checked_shl(*width) {
                Some(limit) => bits & limit.wrapping_sub(1),
                None => bits,
            })
        }
        _ => i128::from(v),
    }
}

/// The most common VHLO attributes (strings, booleans, arrays, dictionaries), converted
/// without copying the attribute; `None` for the others.
fn common_from_vhlo(
    m: &mut Module,
    a: Attribute,
    memo: &mut Memo,
) -> Option<Result<Attribute, String>> {
    enum Common {
        Str(crate::ir::Symbol),
        Bool(bool),
        Array(Vec<Attribute>),
        Dict(Vec<(Attribute, Attribute)>),
    }
    let common = match VhloAttr::of(m, a)? {
        VhloAttr::StringV1 => Common::Str(vattr::StringV1::read(m, a)?.value),
        VhloAttr::BoolV1 => Common::Bool(vattr::BoolV1::read(m, a)?.value),
        VhloAttr::ArrayV1 => Common::Array(vattr::ArrayV1::read(m, a)?.value.into_vec()),
        VhloAttr::DictV1 => Common::Dict(vattr::DictV1::read(m, a)?.value.into_vec()),
        _ => return None,
    };
    Some(match common {
        Common::Str(value) => Ok(m.attr(AttrData::String { value, ty: None })),
        Common::Bool(b) => Ok(m.attr(AttrData::Bool(b))),
        Common::Array(xs) => (|| {
            let mut out = Vec::with_capacity(xs.len());
            // Long arrays (a function's argument attributes) repeat an element in a row.
            let mut last: Option<(Attribute, Attribute)> = None;
            for x in xs {
                let y = match last {
                    Some((from, to)) if from == x => to,
                    _ => from_vhlo_in(m, x, memo)?,
                };
                last = Some((x, y));
                out.push(y);
            }
            Ok(m.attr(AttrData::Array(out.into())))
        })(),
        Common::Dict(pairs) => (|| {
            let mut entries = Vec::with_capacity(pairs.len());
            for (k, v) in pairs {
                let key = vattr::StringV1::read(m, k).map(|s| s.value);
                let Some(key) = key else {
                    return Err(format!("malformed VHLO attribute `{}`", describe(m, a)));
                };
                entries.push((key, from_vhlo_in(m, v, memo)?));
            }
            // MLIR keeps dictionaries sorted by name.
            entries.sort_by(|x, y| m.str(x.0).cmp(m.str(y.0)));
            // MLIR's DictionaryAttr requires unique names.
            if let Some(w) = entries
                .windows(2)
                .find(|w| matches!(w, [x, y] if x.0 == y.0))
            {
                let key = w.first().map_or("", |e| m.str(e.0));
                return Err(format!("duplicate key `{key}` in `{}`", describe(m, a)));
            }
            Ok(m.attr(AttrData::Dictionary(entries.into())))
        })(),
    })
}

/// Converts a VHLO attribute back to its builtin/StableHLO form. Non-VHLO attributes are kept.
/// Each distinct sub-attribute is converted once (see [`to_vhlo`]).
pub fn from_vhlo(m: &mut Module, a: Attribute) -> Result<Attribute, String> {
    from_vhlo_in(m, a, &mut Memo::default())
}

fn from_vhlo_in(m: &mut Module, a: Attribute, memo: &mut Memo) -> Result<Attribute, String> {
    if let Some(&done) = memo.get(&a) {
        return Ok(done);
    }
    let converted = from_vhlo_uncached(m, a, memo)?;
    memo.insert(a, converted);
    Ok(converted)
}

fn from_vhlo_uncached(m: &mut Module, a: Attribute, memo: &mut Memo) -> Result<Attribute, String> {
    if let Some(done) = common_from_vhlo(m, a, memo) {
        return done;
    }
    let AttrData::Dialect(d) = m.attr_data(a).clone() else {
        return Ok(a);
    };
    if m.str(d.dialect) != "vhlo" {
        return Ok(a);
    }
    let mnemonic = m.str(d.mnemonic).to_string();
    let bad = |m: &Module| Err(format!("malformed VHLO attribute `{}`", describe(m, a)));
    if let Some(e) = VhloEnum::from_mnemonic(&mnemonic) {
        let [Param::Int(v)] = d.params[..] else {
            return bad(m);
        };
        if e.stablehlo() == "custom_call_api_version" {
            // StableHLO's api_version is an i32 enum stored as an integer attribute.
            let ty = m.ty(TypeData::Integer {
                width: 32,
                signedness: Signedness::Signless,
            });
            return Ok(m.attr(AttrData::Integer {
                ty,
                value: i128::from(v),
            }));
        }
        return Ok(stablehlo_attr(m, e.stablehlo(), vec![Param::Int(v)]));
    }
    let params = d.params.to_vec();
    let mut conv = |m: &mut Module, p: &Param| -> Result<Param, String> {
        match p {
            Param::Attr(x) => Ok(Param::Attr(from_vhlo_in(m, *x, memo)?)),
            Param::Absent => Ok(Param::Absent),
            _ => Err(format!("malformed VHLO attribute `{}`", describe(m, a))),
        }
    };
    // A `#vhlo.string_v1` parameter's text.
    let as_str = |m: &Module, x: Attribute| -> Result<Param, String> {
        vattr::StringV1::read(m, x)
            .map(|s| Param::Str(s.value))
            .ok_or_else(|| format!("malformed VHLO attribute `{}`", describe(m, a)))
    };
    // A converted parameter that upstream's legalization casts to one StableHLO attribute class
    // (`dyn_cast` fails, and so does the legalization, on anything else).
    let expect = |m: &Module, p: &Param, mnemonics: &[&str], what: &str| -> Result<(), String> {
        let ok = match p {
            Param::Attr(x) => match m.attr_data(*x) {
                AttrData::Dialect(d) => {
                    m.str(d.dialect) == "stablehlo" && mnemonics.contains(&m.str(d.mnemonic))
                }
                AttrData::SymbolRef { nested, .. } => nested.is_empty() && mnemonics.contains(&"@"),
                _ => false,
            },
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "malformed VHLO attribute `{}`: {what}",
                describe(m, a)
            ))
        }
    };
    let Some(kind) = VhloAttr::from_mnemonic(&mnemonic) else {
        return bad(m);
    };
    // The StableHLO attribute it stands for (the spec's `builtin:`), where it is one.
    let shlo = kind
        .builtin()
        .strip_prefix("#stablehlo.")
        .unwrap_or_default();
    // The typed struct of `kind`, or the malformed-attribute error.
    macro_rules! read {
        ($ty:ident) => {
            match vattr::$ty::read(m, a) {
                Some(x) => x,
                None => return bad(m),
            }
        };
    }
    Ok(match kind {
        VhloAttr::BoolV1 => {
            let b = read!(BoolV1).value;
            m.attr(AttrData::Bool(b))
        }
        VhloAttr::IntegerV1 => {
            let vattr::IntegerV1 { ty, value: v } = read!(IntegerV1);
            let ty = types::from_vhlo(m, ty)?;
            // A signless i1 integer is MLIR's BoolAttr; `ui1`/`si1` integers keep their type.
            if matches!(
                m.type_data(ty),
                TypeData::Integer {
                    width: 1,
                    signedness: Signedness::Signless
                }
            ) {
                m.attr(AttrData::Bool(v & 1 != 0))
            } else {
                let value = int_value_for(m, ty, v);
                m.attr(AttrData::Integer { ty, value })
            }
        }
        VhloAttr::FloatV1 => {
            let vattr::FloatV1 {
                ty,
                value: (bits, _),
            } = read!(FloatV1);
            let ty = types::from_vhlo(m, ty)?;
            m.attr(AttrData::Float { ty, bits })
        }
        VhloAttr::TypeV1 => {
            let t = types::from_vhlo(m, read!(TypeV1).value)?;
            m.attr(AttrData::Type(t))
        }
        VhloAttr::TensorV1 => {
            let vattr::TensorV1 { ty, data } = read!(TensorV1);
            let ty = types::from_vhlo(m, ty)?;
            let element = match m.type_data(ty) {
                TypeData::RankedTensor { element, .. } => *element,
                _ => return bad(m),
            };
            let eb = types::element_bytes(m, element).unwrap_or(0);
            // MLIR stores data whose elements are all equal as a splat (one element).
            let first = data.get(..eb).filter(|_| eb > 0);
            let all_equal = first.is_some_and(|f| data.chunks(eb).all(|c| c == f));
            let data: Blob = match first {
                Some(f) if all_equal => f.into(),
                _ => data.clone(),
            };
            let splat = all_equal;
            m.attr(AttrData::DenseElements { ty, data, splat })
        }
        // Parameter for parameter as in StableHLO.
        VhloAttr::OutputOperandAliasV1 | VhloAttr::TypeExtensionsV1 | VhloAttr::SubAxisInfoV1 => {
            stablehlo_attr(m, shlo, params)
        }
        VhloAttr::ResultAccuracyV1 => {
            let vattr::ResultAccuracyV1 {
                atol,
                rtol,
                ulps,
                mode,
            } = read!(ResultAccuracyV1);
            let mode = conv(m, &Param::Attr(mode))?;
            expect(
                m,
                &mode,
                &["result_accuracy_mode"],
                &format!(
                    "the mode must be a `{}`",
                    VhloEnum::ResultAccuracyModeV1.mnemonic()
                ),
            )?;
            let float = |(bits, width): (u128, u32)| Param::Float { bits, width };
            stablehlo_attr(
                m,
                shlo,
                vec![float(atol), float(rtol), Param::Int(ulps), mode],
            )
        }
        VhloAttr::AxisRefV1 => {
            let vattr::AxisRefV1 {
                name,
                sub_axis_info,
            } = read!(AxisRefV1);
            let name = as_str(m, name)?;
            let sub = match sub_axis_info {
                Some(x) => conv(m, &Param::Attr(x))?,
                None => Param::Absent,
            };
            if sub != Param::Absent {
                expect(
                    m,
                    &sub,
                    &["sub_axis_info"],
                    &format!(
                        "the sub-axis info must be a `{}`",
                        VhloAttr::SubAxisInfoV1.mnemonic()
                    ),
                )?;
            }
            stablehlo_attr(m, shlo, vec![name, sub])
        }
        VhloAttr::MeshAxisV1 => {
            let vattr::MeshAxisV1 { name, size } = read!(MeshAxisV1);
            let name = as_str(m, name)?;
            stablehlo_attr(m, shlo, vec![name, Param::Int(size)])
        }
        VhloAttr::MeshV1 => {
            let vattr::MeshV1 { axes, device_ids } = read!(MeshV1);
            let Some(items) = vattr::ArrayV1::read(m, axes) else {
                return bad(m);
            };
            let axes = items
                .value
                .iter()
                .map(|&x| conv(m, &Param::Attr(x)).map(|p| p.attr().unwrap_or(x)))
                .collect::<Result<Vec<_>, _>>()?;
            for &x in &axes {
                expect(
                    m,
                    &Param::Attr(x),
                    &["mesh_axis"],
                    &format!("each axis must be a `{}`", VhloAttr::MeshAxisV1.mnemonic()),
                )?;
            }
            let ids = match device_ids {
                Some(x) => conv(m, &Param::Attr(x))?,
                None => Param::Absent,
            };
            stablehlo_attr(m, shlo, vec![Param::Attrs(axes.into()), ids])
        }
        VhloAttr::ReplicaGroupMeshAxesV1 => {
            let vattr::ReplicaGroupMeshAxesV1 { mesh, axes } = read!(ReplicaGroupMeshAxesV1);
            let mesh = match as_str(m, mesh) {
                // A mesh given by name is a symbol reference in StableHLO.
                Ok(Param::Str(s)) => Param::Attr(m.attr(AttrData::SymbolRef {
                    root: s,
                    nested: Box::new([]),
                })),
                _ => conv(m, &Param::Attr(mesh))?,
            };
            expect(
                m,
                &mesh,
                &["mesh", "@"],
                &format!(
                    "the mesh must be a name or a `{}`",
                    VhloAttr::MeshV1.mnemonic()
                ),
            )?;
            let axes = conv(m, &Param::Attr(axes))?;
            let axis_refs = match &axes {
                Param::Attr(x) => match m.attr_data(*x) {
                    AttrData::Array(items) => items.to_vec(),
                    _ => vec![*x],
                },
                _ => Vec::new(),
            };
            if !matches!(&axes, Param::Attr(x) if matches!(m.attr_data(*x), AttrData::Array(_))) {
                return Err(format!(
                    "malformed VHLO attribute `{}`: the axes must be an array",
                    describe(m, a)
                ));
            }
            for x in axis_refs {
                expect(
                    m,
                    &Param::Attr(x),
                    &["axis_ref"],
                    &format!("each axis must be an `{}`", VhloAttr::AxisRefV1.mnemonic()),
                )?;
            }
            stablehlo_attr(m, shlo, vec![mesh, axes])
        }
        _ => return bad(m),
    })
}
