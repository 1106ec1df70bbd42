//! Type conversion between builtin/StableHLO types and VHLO types, both ways.

use crate::dialect::support::{vhlo_type, vhlo_type_with};
use crate::ir::{AttrData, Attribute, DialectType, FastMap, Module, Param, Type, TypeData};
use crate::vhlo::{types, VhloAttr, VhloType};

fn dialect_of<'a>(m: &'a Module, d: &DialectType) -> (&'a str, &'a str) {
    (m.str(d.dialect), m.str(d.mnemonic))
}

/// The builtin spellings of VHLO's integer types, in the spec's order (`i1`, `i2`, ...).
fn vhlo_integer_spellings() -> Vec<&'static str> {
    VhloType::ALL
        .iter()
        .filter(|t| {
            matches!(
                crate::scalars::type_of(t.mnemonic()),
                Some(TypeData::Integer { .. })
            )
        })
        .filter_map(|t| crate::scalars::builtin_of(t.mnemonic()))
        .collect()
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
    let mut types_of = |m: &mut Module, ts: &[Type]| -> Result<Box<[Type]>, String> {
        ts.iter()
            .map(|&x| to_vhlo_memo(m, x, allow_other, memo))
            .collect()
    };
    Ok(match data {
        TypeData::Integer { .. } | TypeData::Index | TypeData::None | TypeData::Float(_) => {
            match crate::scalars::vhlo_mnemonic(&data) {
                Some(name) => vhlo_type(m, name),
                None if matches!(data, TypeData::Integer { .. }) => {
                    let ints = vhlo_integer_spellings().join(", ");
                    return bad(m, &format!("has no VHLO form (VHLO's integers: {ints})"));
                }
                None => return bad(m, "has no VHLO form"),
            }
        }
        TypeData::Complex(e) => {
            let element_type = to_vhlo_memo(m, e, allow_other, memo)?;
            types::ComplexV1 { element_type }.build(m)
        }
        TypeData::RankedTensor {
            shape,
            element,
            encoding,
        } => {
            let element_type = to_vhlo_memo(m, element, allow_other, memo)?;
            let encoding =
                match encoding {
                    None => None,
                    Some(a) => Some(encoding_to_vhlo(m, a).map_err(|w| {
                        format!("type `{}`: {w}", crate::text::type_to_string(m, t))
                    })?),
                };
            types::TensorV1 {
                shape,
                element_type,
                encoding,
            }
            .build(m)
        }
        TypeData::UnrankedTensor { element } => {
            let element_type = to_vhlo_memo(m, element, allow_other, memo)?;
            types::UnrankedTensorV1 { element_type }.build(m)
        }
        TypeData::Tuple(ts) => {
            let types = types_of(m, &ts)?;
            types::TupleV1 { types }.build(m)
        }
        TypeData::Function { inputs, results } => {
            let (inputs, outputs) = (types_of(m, &inputs)?, types_of(m, &results)?);
            types::FuncV1 { inputs, outputs }.build(m)
        }
        TypeData::Dialect(d) => {
            let (dialect, mnemonic) = dialect_of(m, &d);
            match (dialect, mnemonic) {
                ("vhlo", _) => t,
                ("stablehlo", "token") => types::TokenV1.build(m),
                ("stablehlo", "future") => {
                    let Some(Param::Types(ts)) = d.params.first() else {
                        return bad(m, "is malformed");
                    };
                    let types = types_of(m, ts)?;
                    types::FutureV1 { types }.build(m)
                }
                ("shape", "witness") => match &d.params[..] {
                    [] => types::WitnessV1.build(m),
                    [Param::Str(body)] if m.str(*body).is_empty() => types::WitnessV1.build(m),
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
                    // The quant dialect's layouts are VHLO's, parameter for parameter.
                    let kind = [VhloType::QuantV1, VhloType::QuantPerAxisV1]
                        .into_iter()
                        .find(|k| k.params().len() == params.len());
                    match kind {
                        Some(k) => vhlo_type_with(m, k.mnemonic(), params),
                        None => return bad(m, "is malformed"),
                    }
                }
                ("builtin", "memref") => {
                    // VHLO's buffer has no layout or memory space.
                    match &d.params[..] {
                        [Param::Absent, ..] => {
                            return bad(m, "is an unranked memref, which VHLO cannot express")
                        }
                        [Param::Ints(shape), Param::Type(e), Param::Absent, Param::Absent] => {
                            let (shape, e) = (shape.clone(), *e);
                            let element_type = to_vhlo_memo(m, e, allow_other, memo)?;
                            types::BufferV1 {
                                shape,
                                element_type,
                            }
                            .build(m)
                        }
                        _ => {
                            return bad(
                                m,
                                "has a layout or memory space, which VHLO buffers cannot hold",
                            )
                        }
                    }
                }
                // libStablehlo's type converter has no VHLO form for it and keeps no builtin type
                // as it is: `func.func` with a vector in its signature fails to legalize.
                ("builtin", "vector") => {
                    return bad(m, "is a builtin type that VHLO cannot express")
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
            // Its parameters are VHLO's, one for one.
            Ok(crate::dialect::support::vhlo_attr(
                m,
                VhloAttr::TypeExtensionsV1.mnemonic(),
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
    let Some(kind) = VhloType::of(m, t) else {
        return match m.type_data(t) {
            TypeData::Dialect(d) if m.str(d.dialect) == "vhlo" => Err(format!(
                "malformed VHLO type `{}`",
                crate::text::type_to_string(m, t)
            )),
            _ => Ok(t),
        };
    };
    // A parameterless scalar converts to its builtin type (upstream's VhloTypeConverter).
    if let Some(data) = crate::scalars::type_of(kind.mnemonic()) {
        return Ok(m.ty(data));
    }
    let bad = |m: &Module| {
        format!(
            "malformed VHLO type `{}`",
            crate::text::type_to_string(m, t)
        )
    };
    let mut types_of = |m: &mut Module, ts: &[Type]| {
        ts.iter()
            .map(|&x| from_vhlo_memo(m, x, memo))
            .collect::<Result<Vec<_>, _>>()
    };
    // The typed struct of `kind`, or the malformed-type error.
    macro_rules! read {
        ($ty:ident) => {
            types::$ty::read(m, t).ok_or_else(|| bad(m))?
        };
    }
    Ok(match kind {
        VhloType::ComplexV1 => {
            let e = from_vhlo_memo(m, read!(ComplexV1).element_type, memo)?;
            m.ty(TypeData::Complex(e))
        }
        VhloType::TensorV1 => {
            let types::TensorV1 {
                shape,
                element_type,
                encoding,
            } = read!(TensorV1);
            let element = from_vhlo_memo(m, element_type, memo)?;
            let encoding = encoding.map(|a| encoding_from_vhlo(m, a));
            m.ty(TypeData::RankedTensor {
                shape,
                element,
                encoding,
            })
        }
        VhloType::UnrankedTensorV1 => {
            let element = from_vhlo_memo(m, read!(UnrankedTensorV1).element_type, memo)?;
            m.ty(TypeData::UnrankedTensor { element })
        }
        VhloType::TupleV1 => {
            let ts = types_of(m, &read!(TupleV1).types)?;
            m.ty(TypeData::Tuple(ts.into()))
        }
        VhloType::FuncV1 => {
            let types::FuncV1 { inputs, outputs } = read!(FuncV1);
            let inputs = types_of(m, &inputs)?.into();
            let results = types_of(m, &outputs)?.into();
            m.ty(TypeData::Function { inputs, results })
        }
        VhloType::TokenV1 => {
            read!(TokenV1);
            m.dialect_type("stablehlo", "token", vec![])
        }
        VhloType::FutureV1 => {
            let ts = types_of(m, &read!(FutureV1).types)?;
            m.dialect_type("stablehlo", "future", vec![Param::Types(ts.into())])
        }
        // Spelled as the parser keeps a type of a dialect it only holds as text: an empty body.
        VhloType::WitnessV1 => {
            read!(WitnessV1);
            let body = m.sym("");
            m.dialect_type("shape", "witness", vec![Param::Str(body)])
        }
        VhloType::QuantV1 | VhloType::QuantPerAxisV1 => {
            // Read for its kinds; the quant dialect's layout is VHLO's, parameter for parameter.
            let (storage, expressed) = match kind {
                VhloType::QuantV1 => {
                    let q = read!(QuantV1);
                    (q.storage_type, q.expressed_type)
                }
                _ => {
                    let q = read!(QuantPerAxisV1);
                    (q.storage_type, q.expressed_type)
                }
            };
            let (storage, expressed) = (
                from_vhlo_memo(m, storage, memo)?,
                from_vhlo_memo(m, expressed, memo)?,
            );
            // MLIR's quantized-type verifier: integer storage, float expressed type (the text
            // form has no way to spell anything else).
            if !matches!(m.type_data(storage), TypeData::Integer { .. }) {
                return Err(format!(
                    "quantized type with a non-integer storage type `{}`",
                    crate::text::type_to_string(m, storage)
                ));
            }
            if !matches!(m.type_data(expressed), TypeData::Float(_)) {
                return Err(format!(
                    "quantized type with a non-float expressed type `{}`",
                    crate::text::type_to_string(m, expressed)
                ));
            }
            let TypeData::Dialect(d) = m.type_data(t) else {
                return Err(bad(m));
            };
            let mut params = d.params.to_vec();
            if let [_, s, e, ..] = &mut params[..] {
                (*s, *e) = (Param::Type(storage), Param::Type(expressed));
            }
            crate::text::verify::quant::check(m, &params)?;
            m.dialect_type("quant", "uniform", params)
        }
        VhloType::BufferV1 => {
            let types::BufferV1 {
                shape,
                element_type,
            } = read!(BufferV1);
            let e = from_vhlo_memo(m, element_type, memo)?;
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
        _ => return Err(bad(m)),
    })
}

fn encoding_from_vhlo(m: &mut Module, a: Attribute) -> Attribute {
    match m.attr_data(a).clone() {
        AttrData::Dialect(d) if VhloAttr::of(m, a) == Some(VhloAttr::TypeExtensionsV1) => {
            m.dialect_attr("stablehlo", "type_extensions", d.params.into_vec())
        }
        _ => a,
    }
}

/// Byte width of one dense element of a builtin element type.
pub fn element_bytes(m: &Module, t: Type) -> Option<usize> {
    crate::text::element_storage_bytes(m, t)
}
