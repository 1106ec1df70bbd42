//! What ArithOps.td and ArithOps.cpp check of arith's casts and `arith.select` beyond the ODS
//! types and traits the spec gives them (spec/dialects/arith.yaml), in MLIR's order: the
//! predicates ([`verify_predicates`]: `SameInputOutputTensorDims`, select's `AllTypesMatch` and
//! `BooleanConditionOrMatchingShape`), then, after the spec's traits, the casts'
//! `SameOperandsAndResultShape` and `areCastCompatible` ([`verify_casts`]: "operand type 'i32'
//! and result type 'i64' are cast incompatible"). Select's own verifier finds nothing these
//! and `Elementwise` leave.

use crate::ir::{memref_parts, vector_parts, Module, OpId, Signedness, Type, TypeData};

use super::types::{element_or_self, is_bool, tensor_dims, types_str};
use super::{bail, ensure, fail, Check};

/// How a cast's element types must relate (each op's `areCastCompatible`).
#[derive(Clone, Copy)]
enum Cast {
    /// `checkWidthChangeCast<std::greater>`: integers or floats, the result wider.
    Wider,
    /// `checkWidthChangeCast<std::less>`: the result narrower.
    Narrower,
    /// `areIndexCastCompatible`: `index` to a signless integer, or the other way.
    IndexInteger,
    /// The bitcast's: integers or floats of the same width.
    SameWidth,
    /// Integer to float or float to integer: the ODS types already say so.
    IntFloat,
    /// `arith.convertf`: floats of the same width, not the same type.
    OtherFloat,
}

fn cast_of(name: &str) -> Option<Cast> {
    Some(match name {
        "arith.extui" | "arith.extsi" | "arith.extf" => Cast::Wider,
        "arith.trunci" | "arith.truncf" => Cast::Narrower,
        "arith.index_cast" | "arith.index_castui" => Cast::IndexInteger,
        "arith.bitcast" => Cast::SameWidth,
        "arith.convertf" => Cast::OtherFloat,
        "arith.uitofp" | "arith.sitofp" | "arith.fptoui" | "arith.fptosi" => Cast::IntFloat,
        _ => return None,
    })
}

/// A cast's input and output types, with the cast's rule.
fn cast_types(m: &Module, op: OpId) -> Option<(Cast, Type, Type)> {
    let cast = cast_of(m.op_name_str(op))?;
    let (Some(&input), Some(output)) = (m.operands(op).first(), m.result(op, 0)) else {
        return None;
    };
    Some((cast, m.value_type(input), m.value_type(output)))
}

/// ODS's predicates of arith ops (checked with the ODS types, before the traits).
pub(crate) fn verify_predicates(m: &Module, op: OpId) -> Check {
    // The scaling casts take the trait too, between `in` and `out` (their `scale` aside).
    let scaling = matches!(
        m.op_name_str(op),
        "arith.scaling_extf" | "arith.scaling_truncf"
    );
    let dims_of = match (m.operands(op).first(), m.result(op, 0)) {
        (Some(&input), Some(output)) if scaling => {
            Some((m.value_type(input), m.value_type(output)))
        }
        _ => cast_types(m, op).map(|(_, from, to)| (from, to)),
    };
    if let Some((from, to)) = dims_of {
        // Upstream reads an unranked tensor's shape as if it were ranked, and jaxlib refuses
        // every cast of one here; so do we.
        let unranked = |t: Type| matches!(m.type_data(t), TypeData::UnrankedTensor { .. });
        // Any other type has no dimensions (a rank-0 tensor's are the same).
        let dims = |t: Type| tensor_dims(m, t).unwrap_or_default();
        if unranked(from) || unranked(to) || dims(from) != dims(to) {
            bail!(
                "SameInputOutputTensorDims",
                "failed to verify that input and output have the same tensor dimensions"
            );
        }
    }
    if m.op_name_str(op) != "arith.select" {
        return Ok(());
    }
    let [condition, on_true, on_false] = *m.operands(op) else {
        return Ok(());
    };
    let Some(result) = m.result(op, 0) else {
        return Ok(());
    };
    let (c, t, f, r) = (
        m.value_type(condition),
        m.value_type(on_true),
        m.value_type(on_false),
        m.value_type(result),
    );
    if t != f || f != r {
        return Err(fail(
            "AllTypesMatch",
            "failed to verify that all of {true_value, false_value, result} have same type",
        ));
    }
    // `BooleanConditionOrMatchingShape`: an i1, or shaped like the result.
    let shape = |t: Type| match m.type_data(t) {
        TypeData::RankedTensor { shape, .. } => Some(Some(&shape[..])),
        TypeData::UnrankedTensor { .. } => Some(None),
        _ => match memref_parts(m, t) {
            Some((dims, _)) => Some(dims),
            None => vector_parts(m, t).map(|(dims, _)| Some(dims)),
        },
    };
    let ok =
        is_bool(m, c) || matches!((shape(c), shape(r)), (Some(Some(a)), Some(Some(b))) if a == b);
    ensure!(
        ok,
        "BooleanConditionOrMatchingShape",
        "failed to verify that condition is signless i1 or has matching shape"
    );
    Ok(())
}

/// `ConstantOp::verify`: an integer result is signless.
pub(crate) fn verify_constant(m: &Module, op: OpId) -> Check {
    if m.op_name_str(op) != "arith.constant" {
        return Ok(());
    }
    let signed = m.result(op, 0).is_some_and(|r| {
        matches!(m.type_data(m.value_type(r)), TypeData::Integer { signedness, .. } if *signedness != Signedness::Signless)
    });
    if signed {
        bail!("arith.constant", "integer return type must be signless");
    }
    // A scalable vector takes a splat only.
    let scalable = m.result(op, 0).is_some_and(|r| {
        let t = m.value_type(r);
        vector_parts(m, t).is_some()
            && matches!(m.type_data(t), TypeData::Dialect(d)
                if matches!(d.params.get(1), Some(crate::ir::Param::Ints(s)) if s.iter().any(|&x| x != 0)))
    });
    let splat = m
        .property(op, "value")
        .and_then(|a| crate::elements::DenseElements::of(m, a))
        .is_none_or(|d| d.is_splat());
    if scalable && !splat {
        bail!("arith.constant", "initializing scalable vectors with elements attribute is not supported unless it's a vector splat");
    }
    Ok(())
}

/// `SelectOp::verify`, after the traits: a shaped condition is `i1` of the result's shape and
/// encoding (`getI1SameShape`).
pub(crate) fn verify_select(m: &Module, op: OpId) -> Check {
    if m.op_name_str(op) != "arith.select" {
        return Ok(());
    }
    let (Some(&condition), Some(result)) = (m.operands(op).first(), m.result(op, 0)) else {
        return Ok(());
    };
    let (c, r) = (m.value_type(condition), m.value_type(result));
    if is_bool(m, c) {
        return Ok(());
    }
    let (
        TypeData::RankedTensor {
            shape, encoding, ..
        },
        TypeData::RankedTensor {
            shape: cs,
            element,
            encoding: ce,
        },
    ) = (m.type_data(r), m.type_data(c))
    else {
        return Ok(());
    };
    if shape != cs || encoding != ce || !is_bool(m, *element) {
        let want = super::tensor::tensor_text(m, shape, "i1", *encoding);
        bail!("arith.select", "expected condition type to have the same shape as the result type, expected '{want}', but got '{}'",
                crate::text::type_to_string(m, c));
    }
    Ok(())
}

/// The casts' checks after the ODS predicates and the spec's traits.
pub(crate) fn verify_casts(m: &Module, op: OpId) -> Check {
    // The scaling casts (`CastOpInterface` over `in` and `scale`): `in`'s float type widens to
    // `out`'s (scaling_extf) or narrows (scaling_truncf).
    let scaling = match m.op_name_str(op) {
        "arith.scaling_extf" => Some(Cast::Wider),
        "arith.scaling_truncf" => Some(Cast::Narrower),
        _ => None,
    };
    if let (Some(cast), Some(&input), Some(out)) =
        (scaling, m.operands(op).first(), m.result(op, 0))
    {
        let (from, to) = (m.value_type(input), m.value_type(out));
        if compatible(m, cast, element_or_self(m, from), element_or_self(m, to)) {
            return Ok(());
        }
        let ins: Vec<Type> = m.operands(op).iter().map(|&v| m.value_type(v)).collect();
        bail!(
            "CastOpInterface",
            "operand types {} and result type {} are cast incompatible",
            types_str(m, &ins),
            types_str(m, &[to])
        );
    }
    let Some((cast, from, to)) = cast_types(m, op) else {
        return Ok(());
    };
    super::types::same_operands_and_result_shape(m, op)?;
    let encoding = |t: Type| match m.type_data(t) {
        TypeData::RankedTensor { encoding, .. } => *encoding,
        _ => None,
    };
    if encoding(from) == encoding(to)
        && compatible(m, cast, element_or_self(m, from), element_or_self(m, to))
    {
        Ok(())
    } else {
        Err(super::types::cast_incompatible(m, from, to))
    }
}

fn compatible(m: &Module, cast: Cast, from: Type, to: Type) -> bool {
    let int_width = |t: Type| match m.type_data(t) {
        TypeData::Integer { width, .. } => Some(*width),
        _ => None,
    };
    let float_width = |t: Type| match m.type_data(t) {
        TypeData::Float(k) => Some(k.bit_width()),
        _ => None,
    };
    // Integers with integers, floats with floats.
    let widths = || match (int_width(from), int_width(to)) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => float_width(from).zip(float_width(to)),
    };
    let signless = |t: Type| matches!(m.type_data(t), TypeData::Integer { signedness, .. } if *signedness == Signedness::Signless);
    let index = |t: Type| matches!(m.type_data(t), TypeData::Index);
    match cast {
        Cast::Wider => widths().is_some_and(|(a, b)| b > a),
        Cast::Narrower => widths().is_some_and(|(a, b)| b < a),
        Cast::IndexInteger => (index(from) && signless(to)) || (signless(from) && index(to)),
        Cast::SameWidth => {
            let width = |t: Type| int_width(t).or_else(|| float_width(t));
            matches!((width(from), width(to)), (Some(a), Some(b)) if a == b)
        }
        Cast::IntFloat => true,
        Cast::OtherFloat => {
            from != to
                && matches!((float_width(from), float_width(to)), (Some(a), Some(b)) if a == b)
        }
    }
}
