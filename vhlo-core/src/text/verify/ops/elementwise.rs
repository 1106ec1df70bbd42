//! The constraints of the elementwise ops (see `super::verify_op` for the list): the shape
//! traits every elementwise op has (ODS's `Elementwise`, `SameOperandsAndResultShape`), the
//! element-type traits (`HLO_CompatibleOperandsElementType`, ...), the result types the ops
//! infer (checked as MLIR's `InferTypeOpInterface` checks them), and the ops' own verifiers
//! (TypeInference.cpp's `verifyAddOp`, `verifyBitcastConvertOp`, `verifyUniformQuantizeOp`,
//! `verifyResultAccuracyAttr`).
//!
//! The ODS operand and result types are checked before (verify/ods_types.rs), so operands and
//! results here are ranked tensors of the element types the op allows.

use crate::ir::{Module, OpId, Param, Type, TypeData};
use crate::text::verify::types::{
    compatible_element_types, compatible_operands_and_result_element, compatible_shapes_of,
    elementwise, fits_inferred_shape, is_dynamic, most_specific_dim, quant,
    same_operands_and_result_shape, shaped, tensor_str, OpView, Shaped,
};
use crate::text::verify::{bail, ensure, Check};
use crate::vhlo::StablehloOp as K;

pub(super) fn verify(v: OpView) -> Check {
    match v.kind {
        K::Compare => compare(v),
        K::Select => select(v),
        K::Clamp => clamp(v),
        K::BitcastConvert => bitcast_convert(v),
        K::Complex => complex(v),
        K::Abs | K::Real | K::Imag => real_result(v),
        K::IsFinite => is_finite(v),
        K::UniformQuantize => uniform_quantize(v),
        K::UniformDequantize => uniform_dequantize(v),
        K::Add => add(v),
        K::Cbrt
        | K::Cosine
        | K::Exponential
        | K::ExponentialMinusOne
        | K::Log
        | K::LogPlusOne
        | K::Logistic
        | K::Rsqrt
        | K::Sine
        | K::Sqrt
        | K::Tan
        | K::Tanh => {
            elementwise(v.m, v.op)?;
            result_accuracy(v)
        }
        K::Atan2
        | K::Divide
        | K::Maximum
        | K::Minimum
        | K::Multiply
        | K::Power
        | K::Remainder
        | K::ShiftLeft
        | K::ShiftRightArithmetic
        | K::ShiftRightLogical
        | K::Subtract
        | K::And
        | K::Or
        | K::Xor => same_operands_and_result_shape(v.m, v.op),
        // Its ODS lists SameOperandsAndResultShape before the Elementwise of its class.
        K::Convert => same_operands_and_result_shape(v.m, v.op),
        _ => elementwise(v.m, v.op),
    }
}

// ---- shared rules ---------------------------------------------------------------------------

/// A result type an op infers: shape (`None` unranked), bounds and element type, printed only
/// in a failure's message.
struct Inferred {
    dims: Option<Vec<i64>>,
    bounds: Option<Vec<i64>>,
    element: Element,
}

/// An inferred element type, which may be one the module does not hold (the verifier does not
/// intern types).
enum Element {
    Of(Type),
    I1,
    ComplexOf(Type),
}

impl Inferred {
    /// The shape of `s` (sizes, bounds) with `element`.
    fn like(s: &Shaped, element: Element) -> Inferred {
        Inferred {
            dims: s.dims.map(<[i64]>::to_vec),
            bounds: s.bounds.map(<[i64]>::to_vec),
            element,
        }
    }

    fn text(&self, m: &Module) -> String {
        let t = |t: Type| crate::text::type_to_string(m, t);
        let element = match self.element {
            Element::Of(e) => t(e),
            Element::I1 => "i1".to_string(),
            Element::ComplexOf(e) => format!("complex<{}>", t(e)),
        };
        tensor_str(self.dims.as_deref(), &element, self.bounds.as_deref())
    }

    fn fits(&self, m: &Module, actual: Type) -> bool {
        fits_inferred_shape(m, self.dims.as_deref(), self.bounds.as_deref(), actual)
    }
}

/// The results of an op with StableHLO's `CompatibleOperandsAndResultType` (CHLO's) against
/// the type that trait infers, its operands' most specific type (`hlo::inferMostSpecificType`,
/// through `InferTypeOpInterface`).
pub(crate) fn results_fit_most_specific_operand(m: &Module, op: OpId) -> Check {
    let shapes: Vec<Shaped> = (m.operands(op).iter())
        .filter_map(|&v| shaped(m, m.value_type(v)))
        .collect();
    if shapes.iter().all(|s| s.dims.is_none()) {
        return Ok(());
    }
    let (dims, bounds) = most_specific(&shapes)?;
    let element = Element::Of(shapes[0].element);
    let inferred = Inferred {
        dims,
        bounds,
        element,
    };
    for t in m.results(op).map(|r| m.value_type(r)) {
        ensure!(
            inferred.fits(m, t),
            "InferTypeOpInterface",
            "inferred type(s) '{}' are incompatible with return type(s) of operation '{}'",
            inferred.text(m),
            crate::text::type_to_string(m, t)
        );
    }
    Ok(())
}

/// MLIR's check of an op's result against the type it infers (`InferTypeOpInterface`).
fn check_inferred(v: &OpView, inferred: &Inferred, element_ok: bool, rule: &'static str) -> Check {
    let Some(actual) = v.result_type(0) else {
        return Ok(());
    };
    ensure!(
        element_ok && inferred.fits(v.m, actual),
        rule,
        "inferred type(s) '{}' are incompatible with return type(s) of operation '{}'",
        inferred.text(v.m),
        v.t(actual)
    );
    Ok(())
}

/// The operand or result `t` as a tensor (ODS made sure it is one).
fn tensor<'m>(v: &OpView<'m>, t: Option<Type>) -> Option<(Type, Shaped<'m>)> {
    let t = t?;
    Some((t, v.shaped(t)?))
}

// ---- ops --------------------------------------------------------------------------------------

/// compare: (C1) operands of compatible element types (`HLO_CompatibleOperandsElementType`),
/// (C2) operands and result of one shape; the result is `i1` of the operands' shape.
fn compare(v: OpView) -> Check {
    let ts = v.operand_types();
    if let Some(&first) = ts.first() {
        for &t in &ts[1..] {
            ensure!(
                compatible_element_types(v.m, t, first),
                "C1",
                "requires compatible element types for all operands, but got '{}' and '{}'",
                v.t(first),
                v.t(t)
            );
        }
    }
    elementwise(v.m, v.op)?;
    let Some((_, lhs)) = tensor(&v, v.operand_type(0)) else {
        return Ok(());
    };
    let inferred = Inferred::like(&lhs, Element::I1);
    let ok = v
        .result_type(0)
        .and_then(|r| v.shaped(r))
        .is_some_and(|r| crate::text::verify::types::is_bool(v.m, r.element));
    check_inferred(&v, &inferred, ok, "C2")
}

/// select: (C1) `pred` is a scalar or has the shape of `on_true`; (C2) `on_true`, `on_false`
/// and the result have compatible types (the result is their most specific type).
fn select(v: OpView) -> Check {
    let (Some((pt, pred)), Some((tt, on_true)), Some((ft, on_false))) = (
        tensor(&v, v.operand_type(0)),
        tensor(&v, v.operand_type(1)),
        tensor(&v, v.operand_type(2)),
    ) else {
        return Ok(());
    };
    ensure!(
        compatible_shapes_of(v.m, &[tt, ft]) && on_true.element == on_false.element,
        "C2",
        "requires compatible types for non-predicate operands, but got '{}' and '{}'",
        v.t(tt),
        v.t(ft)
    );
    if pred.rank() != Some(0) {
        ensure!(
            compatible_shapes_of(v.m, &[pt, tt]),
            "C1",
            "requires the same shape for all operands, but got '{}' and '{}'",
            v.t(pt),
            v.t(tt)
        );
    }
    let (dims, bounds) = most_specific(&[on_true, on_false])?;
    let element = Element::Of(on_true.element);
    let inferred = Inferred {
        dims,
        bounds,
        element,
    };
    let ok = v
        .result_type(0)
        .is_some_and(|r| compatible_element_types(v.m, r, tt));
    check_inferred(&v, &inferred, ok, "C2")
}

/// Base.cpp's `inferMostSpecificShapedType` of ranked tensors: per dimension the static size
/// if any (two different ones fail), else the least bound.
#[allow(clippy::type_complexity)]
fn most_specific(
    types: &[Shaped],
) -> Result<(Option<Vec<i64>>, Option<Vec<i64>>), crate::text::verify::Failure> {
    let ranked: Vec<&Shaped> = types.iter().filter(|s| s.dims.is_some()).collect();
    let Some(first) = ranked.first() else {
        return Ok((None, None));
    };
    let mut sizes = first.dims.unwrap_or(&[]).to_vec();
    let rank = sizes.len();
    let mut bounds: Vec<i64> = first
        .bounds
        .map_or_else(|| vec![crate::ir::DYNAMIC; rank], <[i64]>::to_vec);
    bounds.resize(rank, crate::ir::DYNAMIC);
    let mut any_bounds = first.bounds.is_some();
    for s in &ranked[1..] {
        let dims = s.dims.unwrap_or(&[]);
        ensure!(
            dims.len() == rank,
            "C2",
            "Mismatched ranks of types{} vs {}",
            rank,
            dims.len()
        );
        any_bounds |= s.bounds.is_some();
        for i in 0..rank {
            let (l, r) = (sizes[i], dims[i]);
            let lb = bounds[i];
            let rb = s.bound(i).unwrap_or(crate::ir::DYNAMIC);
            (sizes[i], bounds[i]) = most_specific_dim(i, (l, lb), (r, rb), "C2")?;
        }
    }
    Ok((Some(sizes), any_bounds.then_some(bounds)))
}

/// clamp: (C1) `min` is a scalar or has the operand's shape, (C2) so is `max`, (C3) the
/// element types are compatible (`HLO_CompatibleOperandsAndResultElementType`), (C4) the
/// result has the operand's type.
fn clamp(v: OpView) -> Check {
    compatible_operands_and_result_element(v.m, v.op, "C3")?;
    let (Some((mt, min)), Some((ot, operand)), Some((xt, max))) = (
        tensor(&v, v.operand_type(0)),
        tensor(&v, v.operand_type(1)),
        tensor(&v, v.operand_type(2)),
    ) else {
        return Ok(());
    };
    let shape = |s: &Shaped| crate::text::verify::types::dims_str(s.dims.unwrap_or(&[]));
    for (rule, name, t, s) in [("C1", "min", mt, min), ("C2", "max", xt, max)] {
        ensure!(
            compatible_shapes_of(v.m, &[t, ot]) || s.rank() == Some(0),
            rule,
            "{name} shape {} is not scalar and is not compatible to operand shape {}",
            shape(&s),
            shape(&operand)
        );
    }
    let inferred = Inferred::like(&operand, Element::Of(operand.element));
    let ok = v
        .result_type(0)
        .is_some_and(|r| compatible_element_types(v.m, r, ot));
    check_inferred(&v, &inferred, ok, "C4")
}

/// complex: (C1) `lhs` and `rhs` have the same element type, (C2) all have one shape, (C3) the
/// result's element type is `complex` of it.
fn complex(v: OpView) -> Check {
    let (Some((lt, lhs)), Some((rt, rhs))) =
        (tensor(&v, v.operand_type(0)), tensor(&v, v.operand_type(1)))
    else {
        return Ok(());
    };
    ensure!(
        lhs.element == rhs.element,
        "C1",
        "requires the same element type for all operands, but got '{}' and '{}'",
        v.t(lt),
        v.t(rt)
    );
    same_operands_and_result_shape(v.m, v.op)?;
    let inferred = Inferred::like(&lhs, Element::ComplexOf(lhs.element));
    let ok = v.result_type(0).and_then(|r| v.shaped(r)).is_some_and(
        |r| matches!(v.m.type_data(r.element), TypeData::Complex(inner) if *inner == lhs.element),
    );
    check_inferred(&v, &inferred, ok, "C3")
}

/// abs, real, imag: the result has the operand's shape and its element type, or for a complex
/// operand the complex's part type (abs (C1, C2), real and imag (C2)).
fn real_result(v: OpView) -> Check {
    let Some((_, operand)) = tensor(&v, v.operand_type(0)) else {
        return Ok(());
    };
    let part = match v.m.type_data(operand.element) {
        TypeData::Complex(inner) => *inner,
        _ => operand.element,
    };
    let inferred = Inferred::like(&operand, Element::Of(part));
    let ok = v
        .result_type(0)
        .and_then(|r| v.shaped(r))
        .is_some_and(|r| r.element == part || compatible_element_types(v.m, r.element, part));
    let rule = if v.kind == K::Abs { "C1" } else { "C2" };
    elementwise(v.m, v.op)?;
    check_inferred(&v, &inferred, ok, rule)
}

/// is_finite: the result is `i1` of the operand's shape.
fn is_finite(v: OpView) -> Check {
    let Some((_, x)) = tensor(&v, v.operand_type(0)) else {
        return Ok(());
    };
    let inferred = Inferred::like(&x, Element::I1);
    let ok = v
        .result_type(0)
        .and_then(|r| v.shaped(r))
        .is_some_and(|r| crate::text::verify::types::is_bool(v.m, r.element));
    elementwise(v.m, v.op)?;
    check_inferred(&v, &inferred, ok, "C1")
}

/// uniform_quantize: (C1) the result has the operand's shape; (C2) its expressed type is the
/// operand's element type, or the operand's expressed type when it is quantized.
fn uniform_quantize(v: OpView) -> Check {
    elementwise(v.m, v.op)?;
    let (Some((_, operand)), Some((_, result))) =
        (tensor(&v, v.operand_type(0)), tensor(&v, v.result_type(0)))
    else {
        return Ok(());
    };
    let Some(rq) = quant(v.m, result.element) else {
        return Ok(());
    };
    let expected = quant(v.m, operand.element).map_or(operand.element, |q| q.expressed);
    ensure!(
        rq.expressed == expected,
        "C2",
        "Expressed type of result expected to be '{}', but got '{}'",
        v.t(expected),
        v.t(rq.expressed)
    );
    Ok(())
}

/// uniform_dequantize: (C1) the result has the operand's shape, (C2) and the operand's
/// expressed type as its element type.
fn uniform_dequantize(v: OpView) -> Check {
    let Some((_, operand)) = tensor(&v, v.operand_type(0)) else {
        return Ok(());
    };
    let Some(q) = quant(v.m, operand.element) else {
        return Ok(());
    };
    let inferred = Inferred {
        dims: operand.dims.map(<[i64]>::to_vec),
        bounds: None,
        element: Element::Of(q.expressed),
    };
    let ok = v
        .result_type(0)
        .and_then(|r| v.shaped(r))
        .is_some_and(|r| r.element == q.expressed);
    elementwise(v.m, v.op)?;
    check_inferred(&v, &inferred, ok, "C2")
}

/// add, in jaxlib's order: `SameOperandsAndResultShape`; then `AddOp::verify`: (C2)..(C7)
/// quantized operands and result agree in storage and expressed types and granularity
/// (`verifyBinaryOpQuantizationConstraints`), otherwise all element types are equal; last the
/// result against the most specific type of the operands (bounds included), which
/// `InferTypeOpInterface` infers.
fn add(v: OpView) -> Check {
    let (Some((lt, lhs)), Some((rt, rhs)), Some(res)) = (
        tensor(&v, v.operand_type(0)),
        tensor(&v, v.operand_type(1)),
        v.result_type(0),
    ) else {
        return Ok(());
    };
    same_operands_and_result_shape(v.m, v.op)?;
    add_elements(&v, [lt, rt, res])?;
    let (dims, bounds) = most_specific(&[lhs, rhs])?;
    let element = Element::Of(lhs.element);
    let inferred = Inferred {
        dims,
        bounds,
        element,
    };
    let ok = compatible_element_types(v.m, res, lt);
    check_inferred(&v, &inferred, ok, "C1")
}

/// add's result type as `InferTypeOpInterface` infers it: the most specific type of its
/// operands (for builders).
pub(crate) fn infer_add(
    v: &OpView,
) -> Result<Vec<crate::text::verify::types::Inferred>, crate::text::verify::Failure> {
    let (Some((_, lhs)), Some((_, rhs))) =
        (tensor(v, v.operand_type(0)), tensor(v, v.operand_type(1)))
    else {
        return Ok(vec![]);
    };
    let (dims, bounds) = most_specific(&[lhs, rhs])?;
    Ok(vec![crate::text::verify::types::Inferred {
        dims,
        element: lhs.element,
        bounds,
    }])
}

/// `verifyAddOp`: quantized operands and result agree; otherwise one element type throughout.
fn add_elements(v: &OpView, [lt, rt, res]: [Type; 3]) -> Check {
    let elems = [lt, rt, res].map(|t| v.shaped(t).map_or(t, |s| s.element));
    let qs = elems.map(|e| quant(v.m, e));
    if qs.iter().any(Option::is_some) {
        let [Some(l), Some(r), Some(o)] = qs else {
            bail!(
                "C2",
                "expects  all operands and results to be either quantized or non-quantized"
            );
        };
        ensure!(
            l.storage == r.storage && l.storage == o.storage,
            "C3",
            "mismatched operands and result quantization storage types"
        );
        ensure!(
            l.expressed == r.expressed && l.expressed == o.expressed,
            "C4",
            "mismatched operands and result quantization expressed types"
        );
        if l.axis.is_some() || r.axis.is_some() {
            let Some(out_axis) = o.axis else {
                bail!("C5", "result is not per_axis quantized but lhs or rhs are");
            };
            for (rule, name, q, t) in [("C6", "lhs", &l, lt), ("C7", "rhs", &r, rt)] {
                if let Some(axis) = q.axis {
                    ensure!(
                        axis == out_axis,
                        rule,
                        "quantization_dimension of {name} and result are not same '{}' vs '{}'",
                        v.t(t),
                        v.t(res)
                    );
                }
            }
        } else {
            ensure!(
                o.axis.is_none(),
                "C5",
                "result per_axis quantized but none from rhs and lhs are per_axis quantized"
            );
        }
        return Ok(());
    }
    ensure!(
        elems[0] == elems[1] && elems[0] == elems[2],
        "C1",
        "op requires the same element type for all operands and results"
    );
    Ok(())
}

/// bitcast_convert: (C1) the shapes agree except for the innermost dimension of the one with
/// the smaller element type, which holds as many elements as make one of the larger; (C2) no
/// conversion between real and complex types.
fn bitcast_convert(v: OpView) -> Check {
    let (Some((ot, operand)), Some((tt, target))) =
        (tensor(&v, v.operand_type(0)), tensor(&v, v.result_type(0)))
    else {
        return Ok(());
    };
    let is_complex = |e| matches!(v.m.type_data(e), TypeData::Complex(_));
    ensure!(
        is_complex(operand.element) == is_complex(target.element),
        "C2",
        "cannot convert between real and complex types, but got: '{}' and '{}'",
        v.t(ot),
        v.t(tt)
    );
    let (Some(ow), Some(tw)) = (
        crate::text::verify::types::bit_width(v.m, operand.element),
        crate::text::verify::types::bit_width(v.m, target.element),
    ) else {
        return Ok(());
    };
    let (Some(od), Some(td)) = (operand.dims, target.dims) else {
        return Ok(());
    };
    let (smaller, bigger) = if ow < tw { (od, td) } else { (td, od) };
    let (small_w, big_w) = (ow.min(tw), ow.max(tw));
    let prefix = if ow != tw {
        ensure!(
            smaller.len() == bigger.len().saturating_add(1),
            "C1",
            "rank of smaller element type ({}) should be 1 more than rank of larger element type ({}), but {} != {} + 1.",
            smaller.len(),
            bigger.len(),
            smaller.len(),
            bigger.len()
        );
        let (&last, prefix) = smaller.split_last().unwrap_or((&0, &[]));
        if !is_dynamic(last) {
            ensure!(
                i128::from(last) * i128::from(small_w) == i128::from(big_w),
                "C1",
                "requires compatible bit widths. Got: '{}' and '{}', but {} * {} != {}.",
                v.t(ot),
                v.t(tt),
                small_w,
                last,
                big_w
            );
        }
        prefix
    } else {
        smaller
    };
    for (&a, &b) in prefix.iter().zip(bigger) {
        ensure!(
            a == b || is_dynamic(a) || is_dynamic(b),
            "C1",
            "operand and result shapes must match except for the innermost dimension of the shape with the smaller element type. Got: '{}' and '{}'.",
            v.t(ot),
            v.t(tt)
        );
    }
    Ok(())
}

/// The `result_accuracy` of the transcendental ops (`verifyResultAccuracyAttr`): tolerances are
/// not negative, and all zero in modes DEFAULT and HIGHEST.
fn result_accuracy(v: OpView) -> Check {
    let Some(a) = v.attr("result_accuracy") else {
        return Ok(());
    };
    let m = v.m;
    let float = |name: &str| match crate::text::verify::types::struct_field(m, a, name) {
        Some(Param::Float { bits, width }) => Some(match width {
            32 => f64::from(f32::from_bits(*bits as u32)),
            _ => f64::from_bits(*bits as u64),
        }),
        _ => None,
    };
    let atol = float("atol").unwrap_or(0.0);
    let rtol = float("rtol").unwrap_or(0.0);
    let ulps = match crate::text::verify::types::struct_field(m, a, "ulps") {
        Some(Param::Int(u)) => *u,
        Some(Param::UInt(u)) => i64::try_from(*u).unwrap_or(i64::MAX),
        _ => 0,
    };
    let mode = match crate::text::verify::types::struct_field(m, a, "mode") {
        Some(Param::Attr(x)) => {
            crate::text::verify::types::enum_case(m, *x).or_else(|| mode_of(m, *x))
        }
        _ => None,
    };
    // APFloat's isNegative: -0.0 is negative.
    let place = crate::text::verify::Place::AttributeValue("result_accuracy");
    if atol.is_sign_negative() || rtol.is_sign_negative() || ulps < 0 {
        return Err(crate::text::verify::fail(
            "result_accuracy",
            format!("Negative tolerance (atol {atol:?}, rtol {rtol:?}, ulps {ulps})"),
        )
        .at(place));
    }
    if let Some(mode) = mode.filter(|m| *m == "DEFAULT" || *m == "HIGHEST") {
        if !(atol == 0.0 && rtol == 0.0 && ulps == 0) {
            return Err(crate::text::verify::fail(
                "result_accuracy",
                format!(
                    "Invalid tolerances for ResultAccuracyAttr with mode {mode}, must be all zero."
                ),
            )
            .at(place));
        }
    }
    Ok(())
}

/// The case of a `#stablehlo.result_accuracy_mode<CASE>`.
fn mode_of(m: &Module, a: crate::ir::Attribute) -> Option<&'static str> {
    let crate::ir::AttrData::Dialect(d) = m.attr_data(a) else {
        return None;
    };
    let [Param::Int(x)] = *d.params else {
        return None;
    };
    ["DEFAULT", "HIGHEST", "TOLERANCE"]
        .get(usize::try_from(x).ok()?)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first verifier error of a one-op function with arguments `args` (`None` when it
    /// verifies).
    fn check(args: &str, op: &str, result: &str) -> Option<String> {
        let src = format!(
            "func.func @main({args}) -> {result} {{\n  %0 = {op}\n  return %0 : {result}\n}}\n"
        );
        let m = crate::text::parse_unverified(&src).unwrap();
        crate::text::verify::verify(&m).err().map(|e| e.to_string())
    }

    #[test]
    fn shapes_are_compatible_per_dimension() {
        let mut m = Module::new();
        let t = |m: &mut Module, s: &str| crate::text::parse_type(m, s).unwrap();
        let a = t(&mut m, "tensor<2x?xf32>");
        let b = t(&mut m, "tensor<?x3xf32>");
        let c = t(&mut m, "tensor<3x3xf32>");
        let u = t(&mut m, "tensor<*xf32>");
        assert!(compatible_shapes_of(&m, &[a, b, u]));
        assert!(!compatible_shapes_of(&m, &[a, b, c]));
        assert!(compatible_shapes_of(&m, &[b, c]));
    }

    #[test]
    fn bitcast_convert_widths() {
        let ok = [
            (
                "%a: tensor<2xf64>",
                "stablehlo.bitcast_convert %a : (tensor<2xf64>) -> tensor<2x2xf32>",
                "tensor<2x2xf32>",
            ),
            (
                "%a: tensor<2x?xi8>",
                "stablehlo.bitcast_convert %a : (tensor<2x?xi8>) -> tensor<2xi32>",
                "tensor<2xi32>",
            ),
            (
                "%a: tensor<2xf32>",
                "stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<2xi32>",
                "tensor<2xi32>",
            ),
        ];
        for (args, op, result) in ok {
            assert_eq!(check(args, op, result), None, "{op}");
        }
        let bad = [
            (
                "%a: tensor<2xf64>",
                "stablehlo.bitcast_convert %a : (tensor<2xf64>) -> tensor<2x4xf32>",
                "tensor<2x4xf32>",
                "32 * 4 != 64",
            ),
            (
                "%a: tensor<f64>",
                "stablehlo.bitcast_convert %a : (tensor<f64>) -> tensor<f32>",
                "tensor<f32>",
                "0 != 0 + 1",
            ),
            (
                "%a: tensor<2xf32>",
                "stablehlo.bitcast_convert %a : (tensor<2xf32>) -> tensor<3xi32>",
                "tensor<3xi32>",
                "must match except",
            ),
            (
                "%a: tensor<2xcomplex<f32>>",
                "stablehlo.bitcast_convert %a : (tensor<2xcomplex<f32>>) -> tensor<2xf64>",
                "tensor<2xf64>",
                "real and complex",
            ),
        ];
        for (args, op, result, why) in bad {
            let e = check(args, op, result).unwrap_or_default();
            assert!(e.contains(why), "{op}: {e}");
        }
    }

    #[test]
    fn add_infers_the_most_specific_type() {
        let args = "%a: tensor<?xf32, #stablehlo.bounds<4>>, %b: tensor<?xf32>";
        let add = |r: &str| {
            format!("stablehlo.add %a, %b : (tensor<?xf32, #stablehlo.bounds<4>>, tensor<?xf32>) -> {r}")
        };
        assert_eq!(check(args, &add("tensor<?xf32>"), "tensor<?xf32>"), None);
        assert_eq!(check(args, &add("tensor<3xf32>"), "tensor<3xf32>"), None);
        let e = check(args, &add("tensor<5xf32>"), "tensor<5xf32>").unwrap_or_default();
        assert!(
            e.contains("inferred type(s) 'tensor<?xf32, #stablehlo.bounds<4>>'"),
            "{e}"
        );
    }

    #[test]
    fn quantized_elements_are_compatible_by_storage_expressed_and_granularity() {
        let mut m = Module::new();
        let t = |m: &mut Module, s: &str| crate::text::parse_type(m, s).unwrap();
        let a = t(&mut m, "!quant.uniform<i8:f32, 1.0:3>");
        let b = t(&mut m, "!quant.uniform<i8:f32, 2.0:-1>");
        let c = t(&mut m, "!quant.uniform<i8<-127:127>:f32, 1.0:3>");
        let d = t(&mut m, "!quant.uniform<i8:f32:0, {1.0:3}>");
        let f = t(&mut m, "f32");
        assert!(compatible_element_types(&m, a, b));
        assert!(!compatible_element_types(&m, a, c));
        assert!(!compatible_element_types(&m, a, d));
        assert!(!compatible_element_types(&m, a, f));
    }
}
