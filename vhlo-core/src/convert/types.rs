//! Type conversion between builtin/StableHLO types and VHLO types, both ways.

use crate::dialect::support::{vhlo_type, vhlo_type_with};
use crate::ir::{AttrData, Attribute, DialectType, FastMap, Module, Param, Type, TypeData};

fn dialect_of<'a>(m: &'a Module, d: &DialectType) -> (&'a str, &'a str) {
    (m.str(d.dialect), m.str(d.mnemonic))
}

/// Converts a builtin/StableHLO/quant type to VHLO. `Err` names the part that has no VHLO form.
/// With `allow_other`, types of other dialects are kept (upstream's `allowOtherDialects`).
pub fn to_vhlo(m: &mut Module, t: Type, allow_other: bool) -> Result<Type, String> {
    to_vhlo_memo(m, t, allow_other, &mut FastMap::default())
}

/// [`to_vhlo`], each interned type converted once: a type is a DAG (`!t1 = tuple<!t0, !t0>`)
/// whose tree may be exponentially larger.
fn to_vhlo_memo(
    m: &mut Module,
    t: Type,
    allow_other: bool,
    memo: &mut FastMap<Type, Type>,
) -> Result<Type, String> {
    if let Some(&done) = memo.get(&t) {
        return Ok(done);
    }
    let done = to_vhlo_once(m, t, allow_other, memo)?;
    memo.insert(t, done);
    Ok(done)
}

fn to_vhlo_once(
    m: &mut Module,
    t: Type,
    allow_other: bool,
    memo: &mut FastMap<Type, Type>,
) -> Result<Type, String> {
    let data = m.type_data(t).clone();
    let bad = |m: &Module, why: &str| {
        Err(format!(
            "type `{}` {why}",
            crate::text::type_to_string(m, t)
        ))
    };
    let mut types = |m: &mut Module, ts: &[Type]| -> Result<Box<[Type]>, String> {
        ts.iter()
            .map(|&x| to_vhlo_memo(m, x, allow_other, memo))
            .collect()
    };
    Ok(match data {
        TypeData::Integer { .. } | TypeData::Index | TypeData::None | TypeData::Float(_) => {
            match crate::scalars::vhlo_mnemonic(&data) {
                Some(name) => vhlo_type(m, name),
                None if matches!(data, TypeData::Integer { .. }) => return bad(m, "has no VHLO form (VHLO has i1 and signless/unsigned 2, 4, 8, 16, 32, 64-bit integers)"),
                None => return bad(m, "has no VHLO form"),
            }
        }
        TypeData::Complex(e) => {
            let e = to_vhlo_memo(m, e, allow_other, memo)?;
            vhlo_type_with(m, "complex_v1", vec![Param::Type(e)])
        }
        TypeData::RankedTensor {
            shape,
            element,
            encoding,
        } => {
            let e = to_vhlo_memo(m, element, allow_other, memo)?;
            let enc =
                match encoding {
                    None => Param::Absent,
                    Some(a) => Param::Attr(encoding_to_vhlo(m, a).map_err(|w| {
                        format!("type `{}`: {w}", crate::text::type_to_string(m, t))
                    })?),
                };
            vhlo_type_with(
                m,
                "tensor_v1",
                vec![Param::Ints(shape), Param::Type(e), enc],
            )
        }
        TypeData::UnrankedTensor { element } => {
            let e = to_vhlo_memo(m, element, allow_other, memo)?;
            vhlo_type_with(m, "unranked_tensor_v1", vec![Param::Type(e)])
        }
        TypeData::Tuple(ts) => {
            let ts = types(m, &ts)?;
            vhlo_type_with(m, "tuple_v1", vec![Param::Types(ts)])
        }
        TypeData::Function { inputs, results } => {
            let (i, r) = (types(m, &inputs)?, types(m, &results)?);
            vhlo_type_with(m, "func_v1", vec![Param::Types(i), Param::Types(r)])
        }
        TypeData::Dialect(d) => {
            let (dialect, mnemonic) = dialect_of(m, &d);
            match (dialect, mnemonic) {
                ("vhlo", _) => t,
                ("stablehlo", "token") => vhlo_type(m, "token_v1"),
                ("stablehlo", "future") => {
                    let Some(Param::Types(ts)) = d.params.first() else {
                        return bad(m, "is malformed");
                    };
                    let ts = types(m, ts)?;
                    vhlo_type_with(m, "future_v1", vec![Param::Types(ts)])
                }
                ("shape", "witness") => match &d.params[..] {
                    [] => vhlo_type(m, "witness_v1"),
                    [Param::Str(body)] if m.str(*body).is_empty() => vhlo_type(m, "witness_v1"),
                    _ => return bad(m, "has parameters, which `!shape.witness` does not take"),
                },
                ("quant", "uniform") => {
                    // libStablehlo refuses to read a quantized type MLIR's verifier refuses.
                    crate::text::verify::quant::check(m, &d.params)?;
                    let mut params = d.params.to_vec();
                    // Storage and expressed types are parameters 1 and 2 in both layouts.
                    for p in params.iter_mut().skip(1).take(2) {
                        let Param::Type(x) = *p else {
                            return bad(m, "is malformed");
                        };
                        *p = Param::Type(to_vhlo_memo(m, x, allow_other, memo)?);
                    }
                    match params.len() {
                        7 => vhlo_type_with(m, "quant_v1", params),
                        8 => vhlo_type_with(m, "quant_per_axis_v1", params),
                        _ => return bad(m, "is malformed"),
                    }
                }
                ("builtin", "memref") => {
                    // VHLO's buffer has no layout or memory space.
                    match &d.params[..] {
                        [Param::Ints(shape), Param::Type(e), Param::Absent, Param::Absent] => {
                            let (shape, e) = (shape.clone(), *e);
                            let e = to_vhlo_memo(m, e, allow_other, memo)?;
                            vhlo_type_with(m, "buffer_v1", vec![Param::Ints(shape), Param::Type(e)])
                        }
                        _ => {
                            return bad(
                                m,
                                "has a layout or memory space, which VHLO buffers cannot hold",
                            )
                        }
                    }
                }
                // Kept (libStablehlo's type converter keeps them, with or without
                // allow_other_dialects), unless libStablehlo could not read them back.
                _ if dialect != "stablehlo" => {
                    match crate::dialect::unknown_to_libstablehlo(dialect) {
                        Some(why) => return bad(m, &why),
                        None => t,
                    }
                }
                _ => return bad(m, "is not in the StableHLO opset (no VHLO form)"),
            }
        }
    })
}

/// A tensor encoding to VHLO: `#stablehlo.type_extensions` becomes `#vhlo.type_extensions_v1`.
fn encoding_to_vhlo(m: &mut Module, a: Attribute) -> Result<Attribute, String> {
    match m.attr_data(a).clone() {
        AttrData::Dialect(d) if m.str(d.dialect) == "vhlo" => Ok(a),
        AttrData::Dialect(d)
            if m.str(d.dialect) == "stablehlo" && m.str(d.mnemonic) == "type_extensions" =>
        {
            Ok(crate::dialect::support::vhlo_attr(
                m,
                "type_extensions_v1",
                d.params.to_vec(),
            ))
        }
        _ => Err(format!(
            "encoding `{}` has no VHLO form",
            crate::text::attribute_to_string(m, a)
        )),
    }
}

/// Converts a VHLO type back to its builtin/StableHLO/quant form. Non-VHLO types are kept.
pub fn from_vhlo(m: &mut Module, t: Type) -> Result<Type, String> {
    from_vhlo_memo(m, t, &mut FastMap::default())
}

/// [`from_vhlo`], each interned type converted once (see [`to_vhlo_memo`]).
fn from_vhlo_memo(m: &mut Module, t: Type, memo: &mut FastMap<Type, Type>) -> Result<Type, String> {
    if let Some(&done) = memo.get(&t) {
        return Ok(done);
    }
    let done = from_vhlo_once(m, t, memo)?;
    memo.insert(t, done);
    Ok(done)
}

fn from_vhlo_once(m: &mut Module, t: Type, memo: &mut FastMap<Type, Type>) -> Result<Type, String> {
    let TypeData::Dialect(d) = m.type_data(t).clone() else {
        return Ok(t);
    };
    if m.str(d.dialect) != "vhlo" {
        return Ok(t);
    }
    let mnemonic = m.str(d.mnemonic).to_string();
    // A parameterless scalar converts to its builtin type (upstream's VhloTypeConverter).
    if let Some(data) = crate::scalars::type_of(&mnemonic) {
        return Ok(m.ty(data));
    }
    let bad = |m: &Module| {
        Err(format!(
            "malformed VHLO type `{}`",
            crate::text::type_to_string(m, t)
        ))
    };
    let mut types = |m: &mut Module, ts: &[Type]| {
        ts.iter()
            .map(|&x| from_vhlo_memo(m, x, memo))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(match (mnemonic.as_str(), &d.params[..]) {
        ("complex_v1", [Param::Type(e)]) => {
            let e = from_vhlo_memo(m, *e, memo)?;
            m.ty(TypeData::Complex(e))
        }
        ("tensor_v1", [Param::Ints(shape), Param::Type(e), enc]) => {
            let element = from_vhlo_memo(m, *e, memo)?;
            let encoding = match enc {
                Param::Absent => None,
                Param::Attr(a) => Some(encoding_from_vhlo(m, *a)),
                _ => return bad(m),
            };
            m.ty(TypeData::RankedTensor {
                shape: shape.clone(),
                element,
                encoding,
            })
        }
        ("unranked_tensor_v1", [Param::Type(e)]) => {
            let element = from_vhlo_memo(m, *e, memo)?;
            m.ty(TypeData::UnrankedTensor { element })
        }
        ("tuple_v1", [Param::Types(ts)]) => {
            let ts = types(m, ts)?;
            m.ty(TypeData::Tuple(ts.into()))
        }
        ("func_v1", [Param::Types(i), Param::Types(r)]) => {
            let inputs = types(m, i)?.into();
            let results = types(m, r)?.into();
            m.ty(TypeData::Function { inputs, results })
        }
        ("token_v1", []) => m.dialect_type("stablehlo", "token", vec![]),
        ("future_v1", [Param::Types(ts)]) => {
            let ts = types(m, ts)?;
            m.dialect_type("stablehlo", "future", vec![Param::Types(ts.into())])
        }
        // Spelled as the parser keeps a type of a dialect it only holds as text: an empty body.
        ("witness_v1", []) => {
            let body = m.sym("");
            m.dialect_type("shape", "witness", vec![Param::Str(body)])
        }
        ("quant_v1", ps) | ("quant_per_axis_v1", ps) if ps.len() >= 3 => {
            let mut params = ps.to_vec();
            for p in params.iter_mut().skip(1).take(2) {
                let Param::Type(x) = *p else { return bad(m) };
                *p = Param::Type(from_vhlo_memo(m, x, memo)?);
            }
            // MLIR's quantized-type verifier: integer storage, float expressed type (the text
            // form has no way to spell anything else).
            let (Some(Param::Type(storage)), Some(Param::Type(expressed))) =
                (params.get(1), params.get(2))
            else {
                return bad(m);
            };
            if !matches!(m.type_data(*storage), TypeData::Integer { .. }) {
                return Err(format!(
                    "quantized type with a non-integer storage type `{}`",
                    crate::text::type_to_string(m, *storage)
                ));
            }
            if !matches!(m.type_data(*expressed), TypeData::Float(_)) {
                return Err(format!(
                    "quantized type with a non-float expressed type `{}`",
                    crate::text::type_to_string(m, *expressed)
                ));
            }
            crate::text::verify::quant::check(m, &params)?;
            m.dialect_type("quant", "uniform", params)
        }
        ("buffer_v1", [Param::Ints(shape), Param::Type(e)]) => {
            let shape = shape.clone();
            let e = from_vhlo_memo(m, *e, memo)?;
            m.dialect_type(
                "builtin",
                "memref",
                vec![
                    Param::Ints(shape),
                    Param::Type(e),
                    Param::Absent,
                    Param::Absent,
                ],
            )
        }
        _ => return bad(m),
    })
}

fn encoding_from_vhlo(m: &mut Module, a: Attribute) -> Attribute {
    match m.attr_data(a).clone() {
        AttrData::Dialect(d)
            if m.str(d.dialect) == "vhlo" && m.str(d.mnemonic) == "type_extensions_v1" =>
        {
            m.dialect_attr("stablehlo", "type_extensions", d.params.into_vec())
        }
        _ => a,
    }
}

/// Byte width of one dense element of a builtin element type.
pub fn element_bytes(m: &Module, t: Type) -> Option<usize> {
    crate::text::element_storage_bytes(m, t)
}
