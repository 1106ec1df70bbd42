//! The constraints of the shape ops: broadcast, broadcast_in_dim, concatenate, constant,
//! dynamic_broadcast_in_dim, dynamic_iota, dynamic_pad, dynamic_reshape, dynamic_slice,
//! dynamic_update_slice, get_dimension_size, iota, pad, real_dynamic_slice, reshape, reverse,
//! set_dimension_size, slice, transpose, torch_index_select, get_tuple_element and tuple.
//!
//! Each function names the constraints of upstream's `docs/spec.md` it checks; the shape
//! functions (`infer_*`) follow `TypeInference.cpp`, bounded dynamism (`#stablehlo.bounds`)
//! included, and their results are compared with the op's as `isCompatibleReturnTypes` does.
//! The parts of the ODS operand and result types that are about shapes (statically shaped,
//! 0-D or 1-D, single bounded dimension) are checked here too, with rule `ODS`.

use crate::ir::{Dim, Module, Signedness, Type, TypeData, DYNAMIC};
use crate::text::verify::types::{
    check_inferred_components, compatible_element_types, compatible_operands_and_result_element,
    compatible_types, constant_ints, element_or_self, elements_type, ints_str, is_dynamic,
    is_unique, most_specific_dim, num_elements, operand, quant, result,
    same_operands_and_result_element, shaped, size_str, Inferred, OpView, Quant, Ranked,
};
use crate::text::verify::{bail, ensure, fail, Check, Failure};
use crate::vhlo::StablehloOp as K;

pub(super) fn verify(v: OpView) -> Check {
    match v.kind {
        K::Broadcast => broadcast(v),
        K::BroadcastInDim => broadcast_in_dim(v),
        K::Concatenate => concatenate(v),
        K::Constant => constant(v),
        K::DynamicBroadcastInDim => dynamic_broadcast_in_dim(v),
        K::DynamicIota => dynamic_iota(v),
        K::DynamicPad => dynamic_pad(v),
        K::DynamicReshape => dynamic_reshape(v),
        K::DynamicSlice => dynamic_slice(v),
        K::DynamicUpdateSlice => dynamic_update_slice(v),
        K::GetDimensionSize => get_dimension_size(v),
        K::Iota => iota(v),
        K::Pad => pad(v),
        K::RealDynamicSlice => real_dynamic_slice(v),
        K::Reshape => reshape(v),
        K::Reverse => reverse(v),
        K::SetDimensionSize => set_dimension_size(v),
        K::Slice => slice(v),
        K::Transpose => transpose(v),
        K::GetTupleElement => get_tuple_element(v),
        K::Tuple => tuple(v),
        // torch_index_select has no verifier upstream: its ODS attribute types only.
        _ => Ok(()),
    }
}

// ---- helpers ---------------------------------------------------------------------------------

/// A constant shape operand (operand `i`) for a result of rank `rank`: its values, or a
/// failure of `rule` when it has more values than the result has dimensions.
fn const_shape(
    v: &OpView,
    i: usize,
    rank: usize,
    rule: &'static str,
    t: Type,
) -> Result<Option<Vec<i64>>, Failure> {
    match v
        .operands()
        .get(i)
        .and_then(|&x| constant_ints(v.m, x, rank))
    {
        None => Ok(None),
        Some(Ok(shape)) => Ok(Some(shape)),
        Some(Err(count)) => {
            // MLIR lists the values; a large constant is counted instead.
            let values = (count <= 1024)
                .then(|| {
                    v.operands()
                        .get(i)
                        .and_then(|&x| constant_ints(v.m, x, 1024))
                })
                .flatten()
                .and_then(Result::ok);
            let shape = match values {
                Some(vs) => format!("[{}]", ints_str(&vs)),
                None => format!("of {count} elements"),
            };
            Err(fail(
                rule,
                format!(
                    "output shape {shape} is incompatible with return type of operation '{}'",
                    v.t(t)
                ),
            ))
        }
    }
}

/// Bounds for an inferred type: `None` when no dimension has one (as `boundsToEncoding`).
fn some_bounds(bounds: Vec<i64>) -> Option<Vec<i64>> {
    if bounds.iter().all(|&b| is_dynamic(b)) {
        None
    } else {
        Some(bounds)
    }
}

/// `AllElementTypesMatch` over the named operands and results (by their types).
fn all_element_types_match(v: &OpView, names: &str, types: &[Option<Type>]) -> Check {
    let m = v.m;
    let el = |t: Type| element_or_self(m, t);
    let types: Vec<Type> = types.iter().flatten().copied().collect();
    if let Some(&first) = types.first() {
        if types.iter().any(|&t| el(t) != el(first)) {
            bail!(
                "AllElementTypesMatch",
                "failed to verify that all of {{{names}}} have same element type"
            );
        }
    }
    Ok(())
}

/// `AllTypesMatch` over the named operands.
fn all_types_match(names: &str, types: &[Option<Type>]) -> Check {
    let types: Vec<Type> = types.iter().flatten().copied().collect();
    if let Some(&first) = types.first() {
        if types.iter().any(|&t| t != first) {
            bail!(
                "AllTypesMatch",
                "failed to verify that all of {{{names}}} have same type"
            );
        }
    }
    Ok(())
}

/// `verifyDimInBounds`: `0 <= dim < rank`.
fn dim_in_bounds(rule: &'static str, dim: i64, rank: usize) -> Check {
    ensure!(
        dim >= 0,
        rule,
        "requires non-negative dimension attribute; found ({dim})"
    );
    ensure!(
        (dim as u64) < rank as u64,
        rule,
        "requires dimension attribute in range [0, {rank}); found ({dim})"
    );
    Ok(())
}

// ---- quantization ----------------------------------------------------------------------------

fn quant_of(m: &Module, t: Type) -> Option<Quant> {
    quant(m, element_or_self(m, t))
}

/// Per-tensor quantized on both sides: the same scale and zero point (the same element type).
fn same_per_tensor_quant(v: &OpView, rule: &'static str, a: Type, b: Type) -> Check {
    let m = v.m;
    if let (Some(qa), Some(qb)) = (quant_of(m, a), quant_of(m, b)) {
        if qa.axis.is_none() && qb.axis.is_none() {
            let (ea, eb) = (
                shaped(m, a).map_or(a, |s| s.element),
                shaped(m, b).map_or(b, |s| s.element),
            );
            ensure!(
                ea == eb,
                rule,
                "expect same quantization scale and zero_point but got {} vs {}",
                v.t(a),
                v.t(b)
            );
        }
    }
    Ok(())
}

/// Per-axis quantized on both sides: the same scales and zero points.
fn same_per_axis_quant(v: &OpView, rule: &'static str, a: Type, b: Type) -> Check {
    if let (Some(qa), Some(qb)) = (quant_of(v.m, a), quant_of(v.m, b)) {
        if qa.axis.is_some() && qb.axis.is_some() {
            let same = qa
                .scales
                .iter()
                .zip(&qb.scales)
                .all(|(x, y)| x.to_bits() == y.to_bits() || x == y)
                && qa
                    .zero_points
                    .iter()
                    .zip(&qb.zero_points)
                    .all(|(x, y)| x == y);
            ensure!(
                same,
                rule,
                "expect same quantization scales and zero_points but got {} vs {}",
                v.t(a),
                v.t(b)
            );
        }
    }
    Ok(())
}

/// `verifyReshapeOpQuantizationConstraints` (reshape and dynamic_reshape C1, C3).
fn reshape_quant(v: &OpView, operand: &Ranked, result: &Ranked) -> Check {
    same_per_tensor_quant(v, "C1", operand.ty, result.ty)?;
    same_per_axis_quant(v, "C1", operand.ty, result.ty)?;
    let (Some(qo), Some(qr)) = (quant_of(v.m, operand.ty), quant_of(v.m, result.ty)) else {
        return Ok(());
    };
    let (Some(ao), Some(ar)) = (qo.axis, qr.axis) else {
        return Ok(());
    };
    let (Ok(ao), Ok(ar)) = (usize::try_from(ao), usize::try_from(ar)) else {
        return Ok(());
    };
    let (so, sr) = (operand.dim(ao), result.dim(ar));
    ensure!(
        is_dynamic(so) || is_dynamic(sr) || so == sr,
        "C3",
        "expect same quantization dimension size for operand and result {} and {}",
        v.t(operand.ty),
        v.t(result.ty)
    );
    if operand.is_static() && result.is_static() {
        let prod = |dims: &[Dim], n: usize| {
            dims.iter()
                .take(n)
                .fold(1u64, |acc, &d| acc.wrapping_mul(d as u64))
        };
        let (po, pr) = (prod(operand.dims, ao), prod(result.dims, ar));
        ensure!(
            po == pr,
            "C3",
            "product of dimensions before quantization dimension must match between operand and result for {po} and {pr}"
        );
    }
    Ok(())
}

/// `verifyBroadcastInDimOpQuantConstraints` (broadcast_in_dim and dynamic_broadcast_in_dim C6).
fn broadcast_quant(v: &OpView, operand: &Ranked, result: &Ranked, dims: &[i64]) -> Check {
    let (Some(qo), Some(qr)) = (quant_of(v.m, operand.ty), quant_of(v.m, result.ty)) else {
        return Ok(());
    };
    let (Some(ao), Some(ar)) = (qo.axis, qr.axis) else {
        return Ok(());
    };
    let Some(&mapped) = usize::try_from(ao).ok().and_then(|a| dims.get(a)) else {
        return Ok(());
    };
    ensure!(
        ar == mapped,
        "C6",
        "result quantization_dimension {ar} not same as broadcast_dimensions[{ao}] = {mapped}"
    );
    if operand.dim(ao as usize) == 1 {
        let n = usize::try_from(result.dim(ar as usize)).unwrap_or(0);
        let (Some(s0), Some(z0)) = (qo.scales.first(), qo.zero_points.first()) else {
            return Ok(());
        };
        for i in 0..n.min(qr.scales.len()) {
            let (Some(s), Some(z)) = (qr.scales.get(i), qr.zero_points.get(i)) else {
                break;
            };
            ensure!(
                s == s0,
                "C6",
                "mismatch result scale {i} ({s}) and operand scale 0 ({s0})"
            );
            ensure!(
                z == z0,
                "C6",
                "mismatch result zero_point {i} ({z}) and operand zero_point 0 ({z0})"
            );
        }
    }
    Ok(())
}

// ---- the ops -----------------------------------------------------------------------------------

/// broadcast: the result is `broadcast_sizes` followed by the operand's shape (C1, C2).
fn broadcast(v: OpView) -> Check {
    same_operands_and_result_element(v.m, v.op, "SameOperandsAndResultElementType")?;
    let inferred = infer_broadcast(&v)?;
    check_inferred_components(&v, &inferred, "C2")
}

/// The shape function of broadcast (`inferBroadcastOp`).
pub(crate) fn infer_broadcast(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let Some(operand) = operand(v, 0) else {
        return Ok(vec![]);
    };
    let sizes = v.i64s("broadcast_sizes").unwrap_or_default();
    if let Some(&s) = sizes.iter().find(|&&s| s < 0) {
        bail!("C2", "Broadcast with negative dimension size {s}");
    }
    let mut dims = sizes;
    dims.extend_from_slice(operand.dims);
    Ok(vec![Inferred::ranked(dims, operand.element)])
}

/// broadcast_in_dim (C1-C6), and a result that is static or has a single bounded dimension.
fn broadcast_in_dim(v: OpView) -> Check {
    compatible_operands_and_result_element(v.m, v.op, "CompatibleOperandsAndResultElementType")?;
    let (Some(operand), Some(result)) = (operand(&v, 0), result(&v, 0)) else {
        return Ok(());
    };
    same_per_tensor_quant(&v, "C1", operand.ty, result.ty)?;
    let dims = v.i64s("broadcast_dimensions").unwrap_or_default();
    ensure!(
        dims.len() == operand.rank(),
        "C2",
        "broadcast_dimensions size ({}) does not match operand rank ({})",
        dims.len(),
        operand.rank()
    );
    ensure!(
        is_unique(&dims),
        "C4",
        "broadcast_dimensions should not have duplicates"
    );
    let rank = result.rank();
    for (i, &d) in dims.iter().enumerate() {
        let Some(at) = usize::try_from(d).ok().filter(|&d| d < rank) else {
            bail!(
                "C3",
                "broadcast_dimensions contains invalid value {d} for result with rank {rank}"
            );
        };
        let size = operand.dim(i);
        if !is_dynamic(size) {
            let result_size = result.dim(at);
            ensure!(
                size == 1 || size == result_size,
                "C5",
                "size of operand dimension {i} ({size}) is not equal to 1 or size of result dimension {at} ({})",
                size_str(result_size)
            );
        }
    }
    broadcast_quant(&v, &operand, &result, &dims)
}

/// concatenate (C1-C6): at least one input, and the result inferred from the inputs.
fn concatenate(v: OpView) -> Check {
    ensure!(
        v.num_operands() >= 1,
        "C3",
        "expected 1 or more operands, but found 0"
    );
    same_operands_and_result_element(v.m, v.op, "SameOperandsAndResultElementType")?;
    let inferred = infer_concatenate(&v)?;
    check_inferred_components(&v, &inferred, "C6")
}

/// The shape function of concatenate (`inferConcatenateOp`): sizes add up along `dimension`
/// and merge elsewhere, with bounds.
pub(crate) fn infer_concatenate(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let inputs: Vec<Ranked> = (0..v.num_operands()).map_while(|i| operand(v, i)).collect();
    let Some(first) = inputs.first() else {
        return Ok(vec![]);
    };
    if inputs.len() != v.num_operands() {
        return Ok(vec![]);
    }
    let rank = first.rank();
    let dimension = v.int("dimension").unwrap_or(0);
    ensure!(rank != 0, "C4", "rank-0 values cannot be concatenated");
    let Some(dimension) = usize::try_from(dimension).ok().filter(|&d| d < rank) else {
        bail!(
            "C4",
            "dimension {dimension} is out-of-bounds for input rank {rank}"
        );
    };
    for (i, t) in inputs.iter().enumerate() {
        ensure!(
            t.rank() == rank,
            "C2",
            "operands (0) and ({i}) do not match rank"
        );
        for d in 0..rank {
            let (a, b) = (first.dim(d), t.dim(d));
            ensure!(
                d == dimension || a == b || is_dynamic(a) || is_dynamic(b),
                "C2",
                "shapes of operand (0) and ({i}) are not compatible at non-concat index {d}: ({}) != ({})",
                ints_str(first.dims),
                ints_str(t.dims)
            );
        }
    }
    let mut sizes = vec![DYNAMIC; rank];
    let mut bounds = vec![DYNAMIC; rank];
    if let Some(s) = sizes.get_mut(dimension) {
        *s = 0;
    }
    let mut any_bounds = false;
    for t in &inputs {
        let tb = t.bounds;
        any_bounds |= tb.is_some();
        for d in 0..rank {
            let (ls, rs) = (sizes[d], t.dim(d));
            let (lb, rb) = (
                bounds[d],
                tb.and_then(|b| b.get(d).copied()).unwrap_or(DYNAMIC),
            );
            let (s, b) = if d == dimension {
                concatenated_dim_and_bound(ls, rs, lb, rb)
            } else {
                most_specific_dim(d, (ls, lb), (rs, rb), "C2")?
            };
            sizes[d] = s;
            bounds[d] = b;
        }
    }
    Ok(vec![Inferred {
        dims: Some(sizes),
        element: first.element,
        bounds: if any_bounds {
            some_bounds(bounds)
        } else {
            None
        },
    }])
}

/// `inferConcatenatedDimAndBound`: X+Y; a dynamic side makes it dynamic, bounded by the sum
/// of sizes or bounds when both are known.
fn concatenated_dim_and_bound(ls: Dim, rs: Dim, lb: i64, rb: i64) -> (Dim, i64) {
    if !is_dynamic(ls) && !is_dynamic(rs) {
        return (ls.checked_add(rs).unwrap_or(DYNAMIC), DYNAMIC);
    }
    let l = if is_dynamic(ls) { lb } else { ls };
    let r = if is_dynamic(rs) { rb } else { rs };
    if !is_dynamic(l) && !is_dynamic(r) {
        (DYNAMIC, l.checked_add(r).unwrap_or(DYNAMIC))
    } else {
        (DYNAMIC, DYNAMIC)
    }
}

/// constant (C1): the result has the value's type (for a quantized result, the value has
/// the storage type), and is statically shaped.
fn constant(v: OpView) -> Check {
    let m = v.m;
    let (Some(value), Some(have)) = (v.attr("value"), v.result_type(0)) else {
        return Ok(());
    };
    let Some(value_type) = elements_type(m, value) else {
        return Ok(());
    };
    ensure!(
        constant_types_match(m, value_type, have),
        "C1",
        "inferred type(s) '{}' are incompatible with return type(s) of operation '{}'",
        v.t(value_type),
        v.t(have)
    );
    Ok(())
}

/// `ConstantOp::isCompatibleReturnTypes`: equal types, where a quantized result is compared
/// by its storage type.
fn constant_types_match(m: &Module, value: Type, result: Type) -> bool {
    if value == result {
        return true;
    }
    let (
        TypeData::RankedTensor {
            shape: vs,
            element: ve,
            encoding: venc,
        },
        TypeData::RankedTensor {
            shape: rs,
            element: re,
            encoding: renc,
        },
    ) = (m.type_data(value), m.type_data(result))
    else {
        return false;
    };
    if vs != rs || venc != renc {
        return false;
    }
    let Some(q) = quant(m, *re) else {
        return ve == re;
    };
    // The storage type as MLIR holds it: a signless integer of the storage width.
    let width = |t: Type| match m.type_data(t) {
        TypeData::Integer { width, .. } => Some(*width),
        _ => None,
    };
    matches!(
        m.type_data(*ve),
        TypeData::Integer {
            signedness: Signedness::Signless,
            ..
        }
    ) && width(*ve).is_some()
        && width(*ve) == width(q.storage)
}

/// dynamic_broadcast_in_dim (C1-C10).
fn dynamic_broadcast_in_dim(v: OpView) -> Check {
    let m = v.m;
    let (Some(operand), Some(result)) = (operand(&v, 0), result(&v, 0)) else {
        return Ok(());
    };
    let any_quant = quant_of(m, operand.ty).is_some() || quant_of(m, result.ty).is_some();
    ensure!(
        any_quant || compatible_element_types(m, operand.ty, result.ty),
        "C1",
        "expects operand and result to have compatible element type. Got: '{}' and '{}'",
        v.t(operand.ty),
        v.t(result.ty)
    );
    let dims = v.i64s("broadcast_dimensions").unwrap_or_default();
    let (orank, rrank) = (operand.rank(), result.rank());
    ensure!(
        dims.len() == orank,
        "C2",
        "broadcast_dimensions size ({}) does not match operand rank ({orank})",
        dims.len()
    );
    ensure!(
        rrank >= orank,
        "C3",
        "result rank ({rrank}) is less than operand rank ({orank})"
    );
    ensure!(
        is_unique(&dims),
        "C4",
        "broadcast_dimensions should not have duplicates"
    );
    for (i, &d) in dims.iter().enumerate() {
        let Some(at) = usize::try_from(d).ok().filter(|&d| d < rrank) else {
            bail!(
                "C5",
                "broadcast_dimensions contains invalid value {d} for result with rank {rrank}"
            );
        };
        let (size, rsize) = (operand.dim(i), result.dim(at));
        ensure!(
            size == 1 || is_dynamic(size) || is_dynamic(rsize) || size == rsize,
            "C5",
            "size of operand dimension {i} ({size}) is not compatible with size of result dimension {at} ({})",
            size_str(rsize)
        );
    }
    let shape = const_shape(&v, 1, rrank, "C7", result.ty)?;
    if let Some(shape) = &shape {
        shape_operand_compatible(&v, "C7", shape, result.ty)?;
    }
    let expanding = v.i64s("known_expanding_dimensions").unwrap_or_default();
    let nonexpanding = v.i64s("known_nonexpanding_dimensions").unwrap_or_default();
    let mut hints = expanding.clone();
    hints.extend_from_slice(&nonexpanding);
    ensure!(
        is_unique(&hints),
        "C8",
        "duplicate expansion hint for at least one operand dimension"
    );
    if let Some(&bad) = hints
        .iter()
        .find(|&&h| usize::try_from(h).map_or(true, |h| h >= orank))
    {
        bail!(
            "C9",
            "hint for expanding dimension {bad} does not refer to a valid operand dimension"
        );
    }
    if let (true, Some(shape)) = (operand.is_static(), &shape) {
        for (i, &d) in dims.iter().enumerate() {
            let size = operand.dim(i);
            let Some(&want) = usize::try_from(d).ok().and_then(|d| shape.get(d)) else {
                continue;
            };
            ensure!(
                size == 1 || size == want,
                "C5",
                "size of operand dimension {i} ({size}) is not equal to 1 or value of shape at index {d} ({want})"
            );
        }
    }
    broadcast_quant(&v, &operand, &result, &dims)
}

/// `verifyShapeOperandIsCompatibleWithResultType`: a constant shape operand agrees with the
/// result type (every size non-negative, equal to a static size, within a bound).
fn shape_operand_compatible(v: &OpView, rule: &'static str, shape: &[i64], t: Type) -> Check {
    let ok = shape.iter().all(|&x| x >= 0)
        && shaped(v.m, t).is_some_and(|s| match s.dims {
            None => true,
            Some(dims) => {
                dims.len() == shape.len()
                    && dims.iter().zip(shape).enumerate().all(|(i, (&d, &x))| {
                        (is_dynamic(d) || d == x) && s.bound(i).is_none_or(|b| x <= b)
                    })
            }
        });
    ensure!(
        ok,
        rule,
        "output shape [{}] is incompatible with return type of operation '{}'",
        ints_str(shape),
        v.t(t)
    );
    Ok(())
}

/// dynamic_iota (C1, C2).
fn dynamic_iota(v: OpView) -> Check {
    let Some(result) = result(&v, 0) else {
        return Ok(());
    };
    let dim = v.int("iota_dimension").unwrap_or(0);
    ensure!(
        dim < result.rank() as i64,
        "C1",
        "iota dimension cannot go beyond the output rank. (iota_dimension {dim}, rank {})",
        result.rank()
    );
    if let Some(shape) = const_shape(&v, 0, result.rank(), "C2", result.ty)? {
        shape_operand_compatible(&v, "C2", &shape, result.ty)?;
    }
    Ok(())
}

/// dynamic_pad (C1-C4).
fn dynamic_pad(v: OpView) -> Check {
    let types: Vec<Option<Type>> = (0..5).map(|i| v.operand_type(i)).collect();
    all_element_types_match(
        &v,
        "operand, padding_value, result",
        &[types[0], types[1], v.result_type(0)],
    )?;
    all_types_match(
        "edge_padding_low, edge_padding_high, interior_padding",
        &types[2..],
    )?;
    let m = v.m;
    let (Some(operand), Some(result)) = (operand(&v, 0), result(&v, 0)) else {
        return Ok(());
    };
    ensure!(
        operand.rank() == result.rank(),
        "C4",
        "failed to verify that all of {{operand, result}} have same rank"
    );
    let rank = operand.rank();
    if let Some(low) = crate::text::verify::types::operand(&v, 2) {
        let size = low.dim(0);
        ensure!(
            size == rank as i64,
            "C2",
            "padding operands size ({}) must match operand rank ({rank})",
            size_str(size)
        );
    }
    let ops = v.operands();
    let consts = |i: usize| {
        ops.get(i)
            .and_then(|&x| constant_ints(m, x, rank))
            .and_then(Result::ok)
    };
    let interior = consts(4);
    if let Some(interior) = &interior {
        ensure!(
            interior.iter().all(|&x| x >= 0),
            "C3",
            "interior_padding must be non-negative, but got [{}]",
            ints_str(interior)
        );
    }
    let (Some(interior), Some(low), Some(high)) = (interior, consts(2), consts(3)) else {
        return Ok(());
    };
    if !operand.is_static() || !result.is_static() {
        return Ok(());
    }
    for (i, (((&inp, &out), &lo), (&hi, &int))) in operand
        .dims
        .iter()
        .zip(result.dims)
        .zip(&low)
        .zip(high.iter().zip(&interior))
        .enumerate()
    {
        let want = padded_size(inp, lo, hi, int);
        ensure!(
            want == Some(out),
            "C4",
            "expected output dimension at index {i} to equal {}, but got {out}",
            want.map_or_else(|| "an overflowing size".to_string(), |w| w.to_string())
        );
    }
    Ok(())
}

/// `size + low + high + max(size - 1, 0) * interior`, if it fits an i64.
fn padded_size(size: i64, low: i64, high: i64, interior: i64) -> Option<i64> {
    let (s, l, h, n) = (
        i128::from(size),
        i128::from(low),
        i128::from(high),
        i128::from(interior),
    );
    let total = s
        .checked_add(l)?
        .checked_add(h)?
        .checked_add((s - 1).max(0).checked_mul(n)?)?;
    i64::try_from(total).ok()
}

/// dynamic_reshape (C1-C4).
fn dynamic_reshape(v: OpView) -> Check {
    let m = v.m;
    let (Some(operand), Some(result)) = (operand(&v, 0), result(&v, 0)) else {
        return Ok(());
    };
    let any_quant = quant_of(m, operand.ty).is_some() || quant_of(m, result.ty).is_some();
    ensure!(
        any_quant || compatible_element_types(m, operand.ty, result.ty),
        "C1",
        "expects operand and result to have compatible element type. Got: '{}' and '{}'",
        v.t(operand.ty),
        v.t(result.ty)
    );
    if let (Some(n), Some(o)) = (num_elements(result.dims), num_elements(operand.dims)) {
        ensure!(
            n == o,
            "C2",
            "number of output elements ({n}) doesn't match expected number of elements ({o})"
        );
    }
    let shape = const_shape(&v, 1, result.rank(), "C4", result.ty)?;
    if let Some(shape) = &shape {
        shape_operand_compatible(&v, "C4", shape, result.ty)?;
    }
    if let Some(s) = self::operand(&v, 1) {
        let size = s.dim(0);
        ensure!(
            size == result.rank() as i64,
            "C4",
            "result should have a rank equal to the number of elements in output_shape ({} vs rank {})",
            size_str(size),
            result.rank()
        );
    }
    if let (Some(count), Some(shape)) = (num_elements(operand.dims), &shape) {
        let product = shape.iter().fold(1i64, |acc, &x| acc.wrapping_mul(x));
        ensure!(
            count == product,
            "C2",
            "output_shape is incompatible with input type of operation: input has {count} elements, but output_shape has {product}"
        );
    }
    if any_quant {
        reshape_quant(&v, &operand, &result)?;
    }
    Ok(())
}

/// dynamic_slice (C1-C5).
fn dynamic_slice(v: OpView) -> Check {
    all_element_types_match(
        &v,
        "operand, result",
        &[v.operand_type(0), v.result_type(0)],
    )?;
    let inferred = infer_dynamic_slice(&v)?;
    check_inferred_components(&v, &inferred, "C5")
}

/// Whether the element types of `types` are all the same (`tensorsHaveSameElType`, floats of
/// any precision counting as the same).
fn same_index_elements(m: &Module, types: &[Type]) -> bool {
    let el = |t: Type| element_or_self(m, t);
    let float = |t: Type| matches!(m.type_data(t), TypeData::Float(_));
    let Some(&first) = types.first() else {
        return true;
    };
    let e1 = el(first);
    types
        .iter()
        .all(|&t| el(t) == e1 || (float(e1) && float(el(t))))
}

/// The shape function of dynamic_slice (`inferDynamicSliceOp`).
pub(crate) fn infer_dynamic_slice(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let Some(operand) = operand(v, 0) else {
        return Ok(vec![]);
    };
    let sizes = v.i64s("slice_sizes").unwrap_or_default();
    let starts: Vec<Type> = v.operand_types().into_iter().skip(1).collect();
    ensure!(
        starts.len() == sizes.len(),
        "C2",
        "has mismatched number of slice sizes ({}) and number of start indices ({})",
        sizes.len(),
        starts.len()
    );
    ensure!(
        operand.rank() == starts.len(),
        "C2",
        "has mismatched number of start indices ({}) and the rank of operand ({})",
        starts.len(),
        operand.rank()
    );
    ensure!(
        same_index_elements(v.m, &starts),
        "C3",
        "start indices must have same element type"
    );
    for (i, &size) in sizes.iter().enumerate() {
        ensure!(
            size >= 0,
            "C4",
            "has negative size index to dynamic slice: {size}"
        );
        let d = operand.dim(i);
        ensure!(
            is_dynamic(d) || size <= d,
            "C4",
            "has slice size {size} greater than dimension size {d} in dimension {i} of operand"
        );
    }
    Ok(vec![Inferred::ranked(sizes, operand.element)])
}

/// dynamic_update_slice (C1-C6).
fn dynamic_update_slice(v: OpView) -> Check {
    all_element_types_match(
        &v,
        "operand, update, result",
        &[v.operand_type(0), v.operand_type(1), v.result_type(0)],
    )?;
    let inferred = infer_dynamic_update_slice(&v)?;
    check_inferred_components(&v, &inferred, "C1")
}

/// The shape function of dynamic_update_slice (`inferDynamicUpdateSliceOp`): the operand's
/// type.
pub(crate) fn infer_dynamic_update_slice(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (Some(operand), Some(update)) = (operand(v, 0), operand(v, 1)) else {
        return Ok(vec![]);
    };
    let rank = operand.rank();
    ensure!(
        update.rank() == rank,
        "C3",
        "update rank does not match operand rank: {} vs {rank}.",
        update.rank()
    );
    let starts: Vec<Type> = v.operand_types().into_iter().skip(2).collect();
    ensure!(
        starts.len() == rank,
        "C4",
        "expects number of start_indices to match operand rank: {} vs {rank}.",
        starts.len()
    );
    ensure!(
        same_index_elements(v.m, &starts),
        "C5",
        "start indices must have same element type"
    );
    for (i, (&o, &u)) in operand.dims.iter().zip(update.dims).enumerate() {
        if is_dynamic(u) {
            continue;
        }
        ensure!(
            is_dynamic(o) || u <= o,
            "C6",
            "expects size at dimension {i} of update to be in range [0, {o}]. Got: {u}."
        );
    }
    Ok(vec![Inferred {
        dims: Some(operand.dims.to_vec()),
        element: operand.element,
        bounds: operand.bounds.map(<[i64]>::to_vec),
    }])
}

/// get_dimension_size (C1): a `tensor<i32>`.
fn get_dimension_size(v: OpView) -> Check {
    let inferred = infer_get_dimension_size(&v)?;
    check_inferred_components(&v, &inferred, "C1")
}

/// The shape function of get_dimension_size (`inferGetDimensionSizeOp`).
pub(crate) fn infer_get_dimension_size(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let Some(operand) = operand(v, 0) else {
        return Ok(vec![]);
    };
    let dim = v.int("dimension").unwrap_or(i64::MAX);
    dim_in_bounds("C1", dim, operand.rank())?;
    // The result must be a `tensor<i32>`; its element type is the `i32` to infer with.
    let have = v.result_type(0);
    let i32_type = have.map(|t| element_or_self(v.m, t)).filter(|&e| {
        matches!(
            v.m.type_data(e),
            TypeData::Integer {
                width: 32,
                signedness: Signedness::Signless
            }
        )
    });
    let Some(i32_type) = i32_type else {
        bail!(
            "C1",
            "inferred type(s) 'tensor<i32>' are incompatible with return type(s) of operation '{}'",
            have.map_or_else(String::new, |t| v.t(t))
        );
    };
    Ok(vec![Inferred::ranked(vec![], i32_type)])
}

/// iota (C1): a statically shaped result of rank at least 1, `iota_dimension` within it.
fn iota(v: OpView) -> Check {
    let Some(result) = result(&v, 0) else {
        return Ok(());
    };
    ensure!(result.rank() != 0, "C1", "does not support scalars.");
    let dim = v.int("iota_dimension").unwrap_or(0);
    ensure!(
        dim < result.rank() as i64,
        "C1",
        "iota dimension cannot go beyond the output rank. (iota_dimension {dim}, rank {})",
        result.rank()
    );
    Ok(())
}

/// pad (C1-C4).
fn pad(v: OpView) -> Check {
    same_operands_and_result_element(v.m, v.op, "SameOperandsAndResultElementType")?;
    same_sizes(
        &v,
        &["edge_padding_low", "edge_padding_high", "interior_padding"],
    )?;
    let inferred = infer_pad(&v)?;
    check_inferred_components(&v, &inferred, "C4")
}

/// `AllMatchSameOperatorTrait` on the sizes of array attributes.
fn same_sizes(v: &OpView, names: &[&str]) -> Check {
    let sizes: Vec<usize> = names
        .iter()
        .map(|n| v.i64s(n).map_or(0, |x| x.len()))
        .collect();
    if sizes.windows(2).any(|w| w.first() != w.get(1)) {
        bail!(
            "C2",
            "failed to verify that all of {{{}}} have same size ({})",
            names.join(", "),
            sizes
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(" vs ")
        );
    }
    Ok(())
}

/// The shape function of pad (`inferPadOp`), with bounds.
pub(crate) fn infer_pad(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let Some(operand) = operand(v, 0) else {
        return Ok(vec![]);
    };
    let low = v.i64s("edge_padding_low").unwrap_or_default();
    let high = v.i64s("edge_padding_high").unwrap_or_default();
    let interior = v.i64s("interior_padding").unwrap_or_default();
    let rank = operand.rank();
    ensure!(
        low.len() == rank,
        "C2",
        "edge_padding_low length ({}) must match operand rank ({rank})",
        low.len()
    );
    let in_bounds = operand.bounds;
    let mut shape = vec![DYNAMIC; rank];
    let mut bounds = vec![DYNAMIC; in_bounds.map_or(0, <[i64]>::len)];
    for (i, size_slot) in shape.iter_mut().enumerate() {
        let (Some(&lo), Some(&hi), Some(&int)) = (low.get(i), high.get(i), interior.get(i)) else {
            break;
        };
        ensure!(int >= 0, "C3", "Interior padding cannot be negative: {int}");
        let d = operand.dim(i);
        let b = in_bounds.and_then(|b| b.get(i).copied()).unwrap_or(DYNAMIC);
        let (size_or_bound, is_size) = if !is_dynamic(d) {
            (d, true)
        } else if !is_dynamic(b) {
            (b, false)
        } else {
            continue;
        };
        let Some(out) = padded_size(size_or_bound, lo, hi, int) else {
            bail!(
                "C4",
                "Padding result in an overflowing size for dimension {i}"
            );
        };
        ensure!(
            out >= 0,
            "C4",
            "Padding result in negative {} for dimension {i}",
            if is_size { "size" } else { "bound" }
        );
        if is_size {
            *size_slot = out;
        } else if let Some(slot) = bounds.get_mut(i) {
            *slot = out;
        }
    }
    Ok(vec![Inferred {
        dims: Some(shape),
        element: operand.element,
        bounds: some_bounds(bounds),
    }])
}

/// real_dynamic_slice: indices of one type, each as long as the operand's rank.
fn real_dynamic_slice(v: OpView) -> Check {
    all_element_types_match(
        &v,
        "operand, result",
        &[v.operand_type(0), v.result_type(0)],
    )?;
    all_types_match(
        "start_indices, limit_indices, strides",
        &[v.operand_type(1), v.operand_type(2), v.operand_type(3)],
    )?;
    let Some(operand) = operand(&v, 0) else {
        return Ok(());
    };
    let rank = operand.rank() as i64;
    for (i, name) in [(1, "start_indices"), (2, "limit_indices"), (3, "strides")] {
        let Some(t) = self::operand(&v, i) else {
            continue;
        };
        let n = t.dim(0);
        ensure!(
            is_dynamic(n) || n == rank,
            "C2",
            "has mismatched number of operand rank ({rank}) and {name} size ({n})"
        );
    }
    Ok(())
}

/// reshape (C1-C3), and a result that is static or has a single bounded dimension.
fn reshape(v: OpView) -> Check {
    compatible_operands_and_result_element(v.m, v.op, "CompatibleOperandsAndResultElementType")?;
    let (Some(operand), Some(result)) = (operand(&v, 0), result(&v, 0)) else {
        return Ok(());
    };
    if !operand.is_static() || !result.is_static() {
        return Ok(());
    }
    if let (Some(n), Some(o)) = (num_elements(result.dims), num_elements(operand.dims)) {
        ensure!(
            n == o,
            "C2",
            "number of output elements ({n}) doesn't match expected number of elements ({o})"
        );
    }
    reshape_quant(&v, &operand, &result)
}

/// reverse (C1-C3).
fn reverse(v: OpView) -> Check {
    same_operands_and_result_element(v.m, v.op, "SameOperandsAndResultElementType")?;
    let dims = v.i64s("dimensions").unwrap_or_default();
    ensure!(
        is_unique(&dims),
        "C2",
        "dimensions should be unique. Got: {}",
        ints_str(&dims)
    );
    let Some(operand) = operand(&v, 0) else {
        return Ok(());
    };
    let rank = operand.rank();
    for &d in &dims {
        ensure!(
            d >= 0,
            "C3",
            "all dimensions should be non-negative. Got dimension: {d}."
        );
        ensure!(
            (d as u64) < rank as u64,
            "C3",
            "all dimensions should be between [0, {rank}). Got dimension: {d}."
        );
    }
    let inferred = infer_reverse(&v)?;
    check_inferred_components(&v, &inferred, "C1")
}

/// The shape function of reverse (`inferReverseOp`): the operand's type.
pub(crate) fn infer_reverse(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    Ok(operand(v, 0).map(|o| of_type(&o)).into_iter().collect())
}

/// A ranked type as an inferred one.
fn of_type(r: &Ranked) -> Inferred {
    Inferred {
        dims: Some(r.dims.to_vec()),
        element: r.element,
        bounds: r.bounds.map(<[i64]>::to_vec),
    }
}

/// set_dimension_size: the size is a 0-D i32 tensor, `dimension` within the operand's rank;
/// the result's size there becomes dynamic (bounded by the operand's), or the constant size.
fn set_dimension_size(v: OpView) -> Check {
    let inferred = infer_set_dimension_size(&v)?;
    check_inferred_components(&v, &inferred, "C1")
}

/// The shape function of set_dimension_size (`inferSetDimensionSizeOp`).
pub(crate) fn infer_set_dimension_size(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (Some(operand), Some(size)) = (operand(v, 0), operand(v, 1)) else {
        return Ok(vec![]);
    };
    ensure!(size.rank() == 0, "C1", "size operand should be of rank-0");
    let dim = v.int("dimension").unwrap_or(i64::MAX);
    let rank = operand.rank();
    dim_in_bounds("C1", dim, rank)?;
    let Ok(d) = usize::try_from(dim) else {
        return Ok(vec![]);
    };
    let mut shape = operand.dims.to_vec();
    let mut bounds = operand
        .bounds
        .map_or_else(|| vec![DYNAMIC; rank], <[i64]>::to_vec);
    bounds.resize(rank, DYNAMIC);
    let (Some(s), Some(b)) = (shape.get_mut(d), bounds.get_mut(d)) else {
        return Ok(vec![]);
    };
    if !is_dynamic(*s) {
        *b = *s;
    }
    *s = DYNAMIC;
    if let Some(&value) = v
        .operands()
        .get(1)
        .and_then(|&x| constant_ints(v.m, x, 1))
        .and_then(Result::ok)
        .as_ref()
        .and_then(|c| c.first())
    {
        if value == *b {
            *s = value;
            *b = DYNAMIC;
        }
    }
    Ok(vec![Inferred {
        dims: Some(shape),
        element: operand.element,
        bounds: some_bounds(bounds),
    }])
}

/// slice (C1-C5).
fn slice(v: OpView) -> Check {
    same_operands_and_result_element(v.m, v.op, "SameOperandsAndResultElementType")?;
    same_sizes(&v, &["start_indices", "limit_indices", "strides"])?;
    let inferred = infer_slice(&v)?;
    check_inferred_components(&v, &inferred, "C5")
}

/// The shape function of slice (`inferSliceOp`), with bounds.
pub(crate) fn infer_slice(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let Some(operand) = operand(v, 0) else {
        return Ok(vec![]);
    };
    let start = v.i64s("start_indices").unwrap_or_default();
    let limit = v.i64s("limit_indices").unwrap_or_default();
    let strides = v.i64s("strides").unwrap_or_default();
    let rank = operand.rank();
    ensure!(
        start.len() == rank,
        "C2",
        "the number of elements in start_indices ({}) does not match the rank of the operand ({rank})",
        start.len()
    );
    let in_bounds = operand.bounds;
    let mut shape = vec![DYNAMIC; rank];
    for (i, size_slot) in shape.iter_mut().enumerate() {
        let (Some(&s), Some(&l), Some(&st)) = (start.get(i), limit.get(i), strides.get(i)) else {
            break;
        };
        ensure!(s >= 0, "C3", "negative start index {s} in dimension {i}");
        let d = operand.dim(i);
        let b = in_bounds.and_then(|b| b.get(i).copied()).unwrap_or(DYNAMIC);
        if !is_dynamic(d) || !is_dynamic(b) {
            let (limit_of, what) = if !is_dynamic(d) {
                (d, "size")
            } else {
                (b, "bound")
            };
            ensure!(
                l <= limit_of,
                "C3",
                "limit index {l} is larger than dimension {what} {limit_of} in dimension {i}"
            );
        }
        ensure!(
            s <= l,
            "C3",
            "start index {s} is larger than limit index {l} in dimension {i}"
        );
        ensure!(
            st > 0,
            "C4",
            "stride must be positive but got {st} in dimension {i}"
        );
        // 0 <= s <= l, so l - s does not overflow; st > 0.
        let span = l.saturating_sub(s);
        *size_slot = span / st + i64::from(span % st != 0);
    }
    // Upstream gives every result dimension a dynamic bound: sizes only.
    Ok(vec![Inferred::ranked(shape, operand.element)])
}

/// transpose (C1-C4).
fn transpose(v: OpView) -> Check {
    compatible_operands_and_result_element(v.m, v.op, "CompatibleOperandsAndResultElementType")?;
    let (Some(operand), Some(result)) = (operand(&v, 0), result(&v, 0)) else {
        return Ok(());
    };
    same_per_tensor_quant(&v, "C1", operand.ty, result.ty)?;
    same_per_axis_quant(&v, "C1", operand.ty, result.ty)?;
    let perm = v.i64s("permutation").unwrap_or_default();
    let inferred = infer_transpose(&v)?;
    if let (Some(qr), Some(qo)) = (quant_of(v.m, result.ty), quant_of(v.m, operand.ty)) {
        if let (Some(ar), Some(ao)) = (qr.axis, qo.axis) {
            if let Some(&p) = usize::try_from(ar).ok().and_then(|a| perm.get(a)) {
                ensure!(
                    ao == p,
                    "C4",
                    "operand quantization_dimension {ao} is not same as permutation[{ar}] = {p}"
                );
            }
        }
    }
    check_inferred_components(&v, &inferred, "C3")
}

/// The shape function of transpose (`inferTransposeOp`), with bounds.
pub(crate) fn infer_transpose(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let Some(operand) = operand(v, 0) else {
        return Ok(vec![]);
    };
    let perm = v.i64s("permutation").unwrap_or_default();
    let rank = operand.rank();
    ensure!(
        perm.len() == rank,
        "C2",
        "TransposeOp operand rank {rank} does not match permutation size {}",
        perm.len()
    );
    let mut seen = vec![false; rank];
    let is_perm = perm.iter().all(|&p| {
        usize::try_from(p)
            .ok()
            .and_then(|p| seen.get_mut(p))
            .is_some_and(|s| !std::mem::replace(s, true))
    });
    let range: Vec<i64> = (0..rank as i64).collect();
    ensure!(
        is_perm,
        "C2",
        "attribute permutation must be a permutation of [{}] but got {}",
        ints_str(&range),
        ints_str(&perm)
    );
    let in_bounds = operand.bounds;
    let dims: Vec<Dim> = perm.iter().map(|&p| operand.dim(p as usize)).collect();
    let bounds = in_bounds.and_then(|b| {
        some_bounds(
            perm.iter()
                .map(|&p| b.get(p as usize).copied().unwrap_or(DYNAMIC))
                .collect(),
        )
    });
    Ok(vec![Inferred {
        dims: Some(dims),
        element: operand.element,
        bounds,
    }])
}

/// get_tuple_element (C1, C2): `index` within the tuple, and the result is that element.
fn get_tuple_element(v: OpView) -> Check {
    let m = v.m;
    let Some(t) = v.operand_type(0) else {
        return Ok(());
    };
    let TypeData::Tuple(elements) = m.type_data(t) else {
        bail!(
            "ODS",
            "operand #0 must be nested tuple, but got '{}'",
            v.t(t)
        );
    };
    let index = v.int("index").unwrap_or(0);
    let Some(&want) = usize::try_from(index).ok().and_then(|i| elements.get(i)) else {
        bail!(
            "C1",
            "index {index} is out of bounds of operand with size {}",
            elements.len()
        );
    };
    if let Some(have) = v.result_type(0) {
        ensure!(
            compatible_types(m, want, have),
            "C2",
            "inferred type(s) '{}' are incompatible with return type(s) of operation '{}'",
            v.t(want),
            v.t(have)
        );
    }
    Ok(())
}

/// tuple (C1): the result is the tuple of the operands' types.
fn tuple(v: OpView) -> Check {
    let m = v.m;
    let Some(have) = v.result_type(0) else {
        return Ok(());
    };
    let operands = v.operand_types();
    let same = match m.type_data(have) {
        TypeData::Tuple(xs) => {
            xs.len() == operands.len() && xs.iter().zip(&operands).all(|(a, b)| a == b)
        }
        _ => false,
    };
    if !same {
        let parts: Vec<String> = operands.iter().map(|&t| v.t(t)).collect();
        bail!(
            "C1",
            "inferred type(s) 'tuple<{}>' are incompatible with return type(s) of operation '{}'",
            parts.join(", "),
            v.t(have)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shape operand is a constant to `hlo::matchInts` when its op is `ConstantLike` (spec
    /// `traits`): jaxlib (StableHLO 1.17.0) refuses the first four programs and accepts the last
    /// (`sdy.constant` is not `ConstantLike`).
    #[test]
    fn shape_operands_from_constant_like_ops() {
        let program = |constant: &str, ty: &str| {
            format!(
                "func.func @main() -> tensor<4xf32> {{\n  %s = {constant}\n  %0 = stablehlo.dynamic_iota %s, dim = 0 : ({ty}) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}}\n"
            )
        };
        let refused = [
            (
                "stablehlo.constant dense<5> : tensor<1xi64>",
                "tensor<1xi64>",
            ),
            ("arith.constant dense<5> : tensor<1xi64>", "tensor<1xi64>"),
            (
                "\"chlo.constant\"() {value = dense<5> : tensor<1xi64>} : () -> tensor<1xi64>",
                "tensor<1xi64>",
            ),
            ("shape.const_shape [5] : tensor<1xindex>", "tensor<1xindex>"),
        ];
        for (constant, ty) in refused {
            let e = crate::text::parse(&program(constant, ty))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("output shape [5] is incompatible with return type"),
                "{constant}: {e}"
            );
        }
        let sdy = program("sdy.constant dense<5> : tensor<1xi64>", "tensor<1xi64>");
        assert!(crate::text::parse(&sdy).is_ok());
    }

    #[test]
    fn concatenated_and_merged_bounds() {
        // X + Y; X + ?,B gives ?,X+B; ?,B + ?,C gives ?,B+C.
        assert_eq!(
            concatenated_dim_and_bound(2, 3, DYNAMIC, DYNAMIC),
            (5, DYNAMIC)
        );
        assert_eq!(
            concatenated_dim_and_bound(2, DYNAMIC, DYNAMIC, 4),
            (DYNAMIC, 6)
        );
        assert_eq!(
            concatenated_dim_and_bound(DYNAMIC, DYNAMIC, 3, 4),
            (DYNAMIC, 7)
        );
        assert_eq!(
            concatenated_dim_and_bound(2, DYNAMIC, DYNAMIC, DYNAMIC),
            (DYNAMIC, DYNAMIC)
        );
        assert_eq!(
            most_specific_dim(0, (3, DYNAMIC), (DYNAMIC, 5), "C2").ok(),
            Some((3, DYNAMIC))
        );
        assert!(most_specific_dim(0, (6, DYNAMIC), (DYNAMIC, 5), "C2").is_err());
        assert!(most_specific_dim(0, (2, DYNAMIC), (3, DYNAMIC), "C2").is_err());
        assert_eq!(
            most_specific_dim(0, (DYNAMIC, 4), (DYNAMIC, 2), "C2").ok(),
            Some((DYNAMIC, 2))
        );
    }

    #[test]
    fn padding_does_not_overflow() {
        assert_eq!(padded_size(3, 1, 1, 2), Some(9));
        assert_eq!(padded_size(0, 1, 1, 5), Some(2));
        assert_eq!(padded_size(i64::MAX, i64::MAX, 0, 0), None);
        assert_eq!(padded_size(i64::MAX, 0, 0, i64::MAX), None);
    }

    fn check(src: &str) -> Result<(), String> {
        let m = crate::text::parse_unverified(src).map_err(|e| e.to_string())?;
        crate::text::verify::verify(&m).map_err(|e| e.to_string())
    }

    #[test]
    fn shape_ops() {
        let ok = "func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {\n  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>\n  return %0 : tensor<3x2xf32>\n}\n";
        assert_eq!(check(ok), Ok(()));
        let bad = ok.replace("dims = [1, 0]", "dims = [1, 1]");
        assert!(check(&bad).unwrap_err().contains("permutation"));
        let slice = "func.func @main(%x: tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<?xf32> {\n  %0 = stablehlo.slice %x [0:5] : (tensor<?xf32, #stablehlo.bounds<4>>) -> tensor<?xf32>\n  return %0 : tensor<?xf32>\n}\n";
        assert!(check(slice).unwrap_err().contains("bound 4"));
        let huge = "func.func @main(%x: tensor<9223372036854775807xf32>) -> tensor<?xf32> {\n  %0 = stablehlo.pad %x, %c, low = [9223372036854775807], high = [9223372036854775807], interior = [9223372036854775807] : (tensor<9223372036854775807xf32>, tensor<f32>) -> tensor<?xf32>\n  return %0 : tensor<?xf32>\n}\n";
        let _ = check(huge);
        // A splat shape operand of 10^9 elements is not expanded.
        let splat = "func.func @main(%x: tensor<3xf32>) -> tensor<?x3xf32> {\n  %s = stablehlo.constant dense<1> : tensor<1000000000xi64>\n  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1] : (tensor<3xf32>, tensor<1000000000xi64>) -> tensor<?x3xf32>\n  return %0 : tensor<?x3xf32>\n}\n";
        assert!(check(splat).unwrap_err().contains("1000000000 elements"));
    }
}
