//! What upstream's ComplexOps.cpp checks of `complex.constant` and `complex.bitcast` beyond the
//! ODS types and traits the spec gives them (spec/dialects/complex.yaml): their `verify()`,
//! after the traits.

use crate::ir::{AttrData, Module, OpId, Signedness, Type, TypeData};

use super::types::bit_width;
use super::{bail, ensure, fail, Check};

/// `ConstantOp::verify` and `BitcastOp::verify`.
pub(crate) fn verify(m: &Module, op: OpId) -> Check {
    match m.op_name_str(op) {
        "complex.constant" => constant(m, op),
        "complex.bitcast" => bitcast(m, op),
        _ => Ok(()),
    }
}

fn quoted(m: &Module, t: Type) -> String {
    format!("'{}'", crate::text::type_to_string(m, t))
}

/// The value is two float or integer attributes, each of the result's element type.
fn constant(m: &Module, op: OpId) -> Check {
    const RULE: &str = "complex.constant";
    let (Some(value), Some(result)) = (m.property(op, "value"), m.result(op, 0)) else {
        return Ok(());
    };
    let AttrData::Array(parts) = m.attr_data(value) else {
        return Ok(());
    };
    let [re, im] = parts[..] else {
        bail!(
            RULE,
            "requires 'value' to be a complex constant, represented as array of two values"
        );
    };
    // `true` and `false` are integer attributes of i1 in MLIR (None here: the IR keeps no type).
    let type_of = |a| match m.attr_data(a) {
        AttrData::Float { ty, .. }
        | AttrData::Integer { ty, .. }
        | AttrData::WideInteger { ty, .. } => Some(Some(*ty)),
        AttrData::Bool(_) => Some(None),
        _ => None,
    };
    let (Some(re_ty), Some(im_ty)) = (type_of(re), type_of(im)) else {
        bail!(
            RULE,
            "requires attribute's elements to be float or integer attributes"
        );
    };
    let TypeData::Complex(element) = *m.type_data(m.value_type(result)) else {
        return Ok(());
    };
    let is_i1 = matches!(
        m.type_data(element),
        TypeData::Integer {
            width: 1,
            signedness: Signedness::Signless
        }
    );
    let fits = |t: Option<Type>| t.map_or(is_i1, |t| t == element);
    if !fits(re_ty) || !fits(im_ty) {
        let text = |t: Option<Type>| t.map_or_else(|| "'i1'".to_string(), |t| quoted(m, t));
        bail!(RULE, "requires attribute's element types ({}, {}) to match the element type of the op's return type ({})",
                text(re_ty),
                text(im_ty),
                quoted(m, element));
    }
    Ok(())
}

/// Between a complex type and an integer or float of twice its element's width, or a type
/// to itself.
fn bitcast(m: &Module, op: OpId) -> Check {
    const RULE: &str = "complex.bitcast";
    let (Some(&operand), Some(result)) = (m.operands(op).first(), m.result(op, 0)) else {
        return Ok(());
    };
    let (from, to) = (m.value_type(operand), m.value_type(result));
    if from == to {
        return Ok(());
    }
    let complex = |t: Type| matches!(m.type_data(t), TypeData::Complex(_));
    let int_or_float = |t: Type| {
        matches!(
            m.type_data(t),
            TypeData::Integer { .. } | TypeData::Float(_)
        )
    };
    if !int_or_float(from) && !complex(from) {
        return Err(fail(RULE, "operand must be int/float/complex"));
    }
    if !int_or_float(to) && !complex(to) {
        return Err(fail(RULE, "result must be int/float/complex"));
    }
    ensure!(
        complex(from) != complex(to),
        RULE,
        "requires that either input or output has a complex type"
    );
    // The complex side's width is twice its element's (bit_width counts it so).
    if bit_width(m, from) != bit_width(m, to) {
        return Err(fail(RULE, "casting bitwidths do not match"));
    }
    Ok(())
}
