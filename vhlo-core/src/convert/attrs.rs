//! Generic attribute conversion between builtin/StableHLO attributes and VHLO attributes, both
//! ways (upstream's `convertGeneric`). Op-specific cases live in `ops.rs`.

use crate::dialect::support::vhlo_attr;
use crate::ir::{
    AttrData, Attribute, Blob, DialectAttr, FastMap, Module, Param, Signedness, TypeData,
};
use crate::vhlo::VhloEnum;

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
    Ok(vhlo_attr(
        m,
        "tensor_v1",
        vec![Param::Type(vty), Param::Bytes(data.into())],
    ))
}

/// `#vhlo.tensor_v1<dense<values> : tensor<shape x i64>>`
pub fn vhlo_i64_tensor(m: &mut Module, shape: &[i64], values: &[i64]) -> Result<Attribute, String> {
    Ok(crate::dialect::support::vhlo_int_tensor(
        m, "i64_v1", shape, values,
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
        AttrData::Bool(b) => vhlo_attr(m, "bool_v1", vec![Param::Bool(b)]),
        AttrData::Integer { ty, value } => {
            let vt = types::to_vhlo(m, ty, allow_other)?;
            // The bit pattern in 64 bits (VHLO integers are at most 64 bits wide).
            vhlo_attr(
                m,
                "integer_v1",
                vec![Param::Type(vt), Param::Int(value as i64)],
            )
        }
        AttrData::Float { ty, bits } => {
            let width = match m.type_data(ty) {
                TypeData::Float(k) => k.bit_width(),
                _ => return fail(m, "has a non-float type"),
            };
            let vt = types::to_vhlo(m, ty, allow_other)?;
            vhlo_attr(
                m,
                "float_v1",
                vec![Param::Type(vt), Param::Float { bits, width }],
            )
        }
        AttrData::String { value, ty: None } => vhlo_attr(m, "string_v1", vec![Param::Str(value)]),
        AttrData::String { ty: Some(_), .. } => {
            return fail(m, "is a typed string, which VHLO cannot hold")
        }
        AttrData::Type(t) => {
            let vt = types::to_vhlo(m, t, allow_other)?;
            vhlo_attr(m, "type_v1", vec![Param::Type(vt)])
        }
        AttrData::Array(xs) => {
            let xs = xs
                .iter()
                .map(|&x| to_vhlo_in(m, x, allow_other, memo))
                .collect::<Result<Vec<_>, _>>()?;
            vhlo_attr(m, "array_v1", vec![Param::Attrs(xs.into())])
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
            vhlo_attr(m, "tensor_v1", vec![Param::Type(vt), Param::Bytes(data)])
        }
        AttrData::Dictionary(entries) => {
            let mut pairs = Vec::with_capacity(entries.len());
            for (k, v) in entries.iter() {
                let key = vhlo_attr(m, "string_v1", vec![Param::Str(*k)]);
                pairs.push((key, to_vhlo_in(m, *v, allow_other, memo)?));
            }
            vhlo_attr(m, "dict_v1", vec![Param::AttrPairs(pairs.into())])
        }
        AttrData::SymbolRef { root, nested } if nested.is_empty() => {
            vhlo_attr(m, "string_v1", vec![Param::Str(root)])
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
    let params = d.params.to_vec();
    let str_attr = |m: &mut Module, p: &Param| -> Result<Param, String> {
        match p {
            Param::Str(s) => Ok(Param::Attr(vhlo_attr(m, "string_v1", vec![Param::Str(*s)]))),
            _ => Err(format!("malformed attribute `{}`", describe(m, a))),
        }
    };
    let mut conv_attr = |m: &mut Module, p: &Param| -> Result<Param, String> {
        match p {
            Param::Attr(x) => Ok(Param::Attr(to_vhlo_in(m, *x, allow_other, memo)?)),
            Param::Absent => Ok(Param::Absent),
            _ => Err(format!("malformed attribute `{}`", describe(m, a))),
        }
    };
    Ok(match (mnemonic, &params[..]) {
        ("output_operand_alias", _) => vhlo_attr(m, "output_operand_alias_v1", params),
        ("type_extensions", _) => vhlo_attr(m, "type_extensions_v1", params),
        ("result_accuracy", [atol, rtol, ulps, mode]) => {
            let mode = conv_attr(m, mode)?;
            vhlo_attr(
                m,
                "result_accuracy_v1",
                vec![atol.clone(), rtol.clone(), ulps.clone(), mode],
            )
        }
        ("sub_axis_info", _) => vhlo_attr(m, "sub_axis_info_v1", params),
        ("axis_ref", [name, sub]) => {
            let name = str_attr(m, name)?;
            let sub = conv_attr(m, sub)?;
            vhlo_attr(m, "axis_ref_v1", vec![name, sub])
        }
        ("mesh_axis", [name, size]) => {
            let name = str_attr(m, name)?;
            vhlo_attr(m, "mesh_axis_v1", vec![name, size.clone()])
        }
        // StableHLO lists the axes; VHLO holds them in one `#vhlo.array_v1`.
        ("mesh", [Param::Attrs(axes), device_ids]) => {
            let axes = axes
                .iter()
                .map(|&x| conv_attr(m, &Param::Attr(x)).map(|p| p.attr().unwrap_or(x)))
                .collect::<Result<Vec<_>, _>>()?;
            let axes = vhlo_attr(m, "array_v1", vec![Param::Attrs(axes.into())]);
            let ids = conv_attr(m, device_ids)?;
            vhlo_attr(m, "mesh_v1", vec![Param::Attr(axes), ids])
        }
        ("replica_group_mesh_axes", [mesh, axes]) => {
            let mesh = conv_attr(m, mesh)?;
            let axes = conv_attr(m, axes)?;
            vhlo_attr(m, "replica_group_mesh_axes_v1", vec![mesh, axes])
        }
        _ => {
            return Err(format!(
                "attribute `{}` has no generic VHLO form here",
                describe(m, a)
            ))
        }
    })
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
    let common = match m.attr_data(a) {
        AttrData::Dialect(d) if m.str(d.dialect) == "vhlo" => {
            match (m.str(d.mnemonic), &d.params[..]) {
                ("string_v1", [Param::Str(s)]) => Common::Str(*s),
                ("bool_v1", [Param::Bool(b)]) => Common::Bool(*b),
                ("array_v1", [Param::Attrs(xs)]) => Common::Array(xs.to_vec()),
                ("dict_v1", [Param::AttrPairs(pairs)]) => Common::Dict(pairs.to_vec()),
                _ => return None,
            }
        }
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
                let key = match m.attr_data(k) {
                    AttrData::Dialect(s) => match s.params[..] {
                        [Param::Str(key)] => Some(key),
                        _ => None,
                    },
                    _ => None,
                };
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
    let as_str = |m: &Module, p: &Param| -> Result<Param, String> {
        if let Param::Attr(x) = p {
            if let AttrData::Dialect(s) = m.attr_data(*x) {
                if let [Param::Str(v)] = s.params[..] {
                    return Ok(Param::Str(v));
                }
            }
        }
        Err(format!("malformed VHLO attribute `{}`", describe(m, a)))
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
    Ok(match (mnemonic.as_str(), &params[..]) {
        ("bool_v1", [Param::Bool(b)]) => m.attr(AttrData::Bool(*b)),
        ("integer_v1", [Param::Type(t), Param::Int(v)]) => {
            let ty = types::from_vhlo(m, *t)?;
            // A signless i1 integer is MLIR's BoolAttr; `ui1`/`si1` integers keep their type.
            if matches!(
                m.type_data(ty),
                TypeData::Integer {
                    width: 1,
                    signedness: Signedness::Signless
                }
            ) {
                m.attr(AttrData::Bool(*v & 1 != 0))
            } else {
                let value = int_value_for(m, ty, *v);
                m.attr(AttrData::Integer { ty, value })
            }
        }
        ("float_v1", [Param::Type(t), Param::Float { bits, .. }]) => {
            let ty = types::from_vhlo(m, *t)?;
            m.attr(AttrData::Float { ty, bits: *bits })
        }
        ("type_v1", [Param::Type(t)]) => {
            let t = types::from_vhlo(m, *t)?;
            m.attr(AttrData::Type(t))
        }
        ("tensor_v1", [Param::Type(t), Param::Bytes(data)]) => {
            let ty = types::from_vhlo(m, *t)?;
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
        ("output_operand_alias_v1", _) => stablehlo_attr(m, "output_operand_alias", params),
        ("type_extensions_v1", _) => stablehlo_attr(m, "type_extensions", params),
        ("result_accuracy_v1", [atol, rtol, ulps, mode]) => {
            let mode = conv(m, mode)?;
            expect(
                m,
                &mode,
                &["result_accuracy_mode"],
                "the mode must be a `result_accuracy_mode_v1`",
            )?;
            stablehlo_attr(
                m,
                "result_accuracy",
                vec![atol.clone(), rtol.clone(), ulps.clone(), mode],
            )
        }
        ("sub_axis_info_v1", _) => stablehlo_attr(m, "sub_axis_info", params),
        ("axis_ref_v1", [name, sub]) => {
            let name = as_str(m, name)?;
            let sub = conv(m, sub)?;
            if sub != Param::Absent {
                expect(
                    m,
                    &sub,
                    &["sub_axis_info"],
                    "the sub-axis info must be a `sub_axis_info_v1`",
                )?;
            }
            stablehlo_attr(m, "axis_ref", vec![name, sub])
        }
        ("mesh_axis_v1", [name, size]) => {
            let name = as_str(m, name)?;
            stablehlo_attr(m, "mesh_axis", vec![name, size.clone()])
        }
        ("mesh_v1", [Param::Attr(axes), ids]) => {
            let items = match m.attr_data(*axes) {
                AttrData::Dialect(x)
                    if m.str(x.dialect) == "vhlo" && m.str(x.mnemonic) == "array_v1" =>
                {
                    match &x.params[..] {
                        [Param::Attrs(items)] => items.to_vec(),
                        _ => return bad(m),
                    }
                }
                _ => return bad(m),
            };
            let axes = items
                .into_iter()
                .map(|x| conv(m, &Param::Attr(x)).map(|p| p.attr().unwrap_or(x)))
                .collect::<Result<Vec<_>, _>>()?;
            for &x in &axes {
                expect(
                    m,
                    &Param::Attr(x),
                    &["mesh_axis"],
                    "each axis must be a `mesh_axis_v1`",
                )?;
            }
            let ids = conv(m, ids)?;
            stablehlo_attr(m, "mesh", vec![Param::Attrs(axes.into()), ids])
        }
        ("replica_group_mesh_axes_v1", [mesh, axes]) => {
            let mesh = match mesh {
                // A mesh given by name is a symbol reference in StableHLO.
                Param::Attr(x) if matches!(m.attr_data(*x), AttrData::Dialect(s) if m.str(s.mnemonic) == "string_v1") =>
                {
                    let Ok(Param::Str(s)) = as_str(m, mesh) else {
                        return bad(m);
                    };
                    Param::Attr(m.attr(AttrData::SymbolRef {
                        root: s,
                        nested: Box::new([]),
                    }))
                }
                _ => conv(m, mesh)?,
            };
            expect(
                m,
                &mesh,
                &["mesh", "@"],
                "the mesh must be a name or a `mesh_v1`",
            )?;
            let axes = conv(m, axes)?;
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
                    "each axis must be an `axis_ref_v1`",
                )?;
            }
            stablehlo_attr(m, "replica_group_mesh_axes", vec![mesh, axes])
        }
        _ => return bad(m),
    })
}
