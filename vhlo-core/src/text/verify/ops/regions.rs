//! The constraints of the ops with regions (reduce, reduce_window, select_and_scatter,
//! scatter, sort, map, while, if, case, optimization_barrier) and of gather/dynamic_gather:
//! the signatures of their regions' blocks and returns (upstream's `hlo::verifyReducerShape`
//! and friends), dimension numbers, window attributes, and the shape functions that infer
//! their result types (`inferReduceOp`, `inferGatherOp`, `inferReduceWindowOp`, ...).
//!
//! The order of the checks follows MLIR's: the op's declared ODS counts and types come first
//! (`ops/mod.rs`, from the spec), then its traits (the inferred result types among them), then
//! its own verifier. Messages keep
//! upstream's wording (users search for it); the rule is the constraint id of `docs/spec.md`.

use std::collections::HashSet;

use super::window::{
    padding_attribute, window_dimensions, window_output_shape, Window, WindowRules,
};
use crate::ir::{Dim, Type, TypeData, Value, DYNAMIC};
use crate::text::verify::types::{
    check_inferred_components, check_inferred_types, compatible_dim, compatible_types,
    constant_ints, dims_distinct, element_or_self, inferred_str, ints_str, is_dynamic, is_float,
    is_unique, matches_inferred, promotable_element, q, same_operands_and_result_shape, shaped,
    size_str, types_str, Inferred, OpView, Shaped,
};
use crate::text::verify::{bail, ensure, Check, Failure};
use crate::vhlo::StablehloOp as K;

pub(super) fn verify(v: OpView) -> Check {
    match v.kind {
        K::Reduce => reduce(&v),
        K::ReduceWindow => reduce_window(&v),
        K::SelectAndScatter => select_and_scatter(&v),
        K::Scatter => scatter(&v),
        K::Gather => gather(&v),
        K::DynamicGather => dynamic_gather(&v),
        K::Sort => sort(&v),
        K::Map => map(&v),
        K::While => while_(&v),
        // Their regions' block counts are declared (spec `region_types`); `inferConditionalOp`
        // (I1, C1-C4) comes on leaving them (`verify_on_exit`).
        K::If | K::Case => Ok(()),
        K::OptimizationBarrier => optimization_barrier(&v),
        _ => Ok(()),
    }
}

// ---- printing -----------------------------------------------------------------------------

// ---- ODS operand and result types -----------------------------------------------------------

fn types_of(v: &OpView, values: &[Value]) -> Vec<Type> {
    values.iter().map(|&x| v.m.value_type(x)).collect()
}

/// The operands of an op with two variadic groups of the same size (`SameVariadicOperandSize`)
/// around `fixed` single operands in the middle: (first group, middle, second group). As in
/// ODS, each group takes `(operands - fixed) / 2`; an odd operand left over belongs to none.
fn same_size_groups<'a>(v: &OpView<'a>, fixed: usize) -> (&'a [Value], &'a [Value], &'a [Value]) {
    let ops = v.operands();
    let n = ops.len().saturating_sub(fixed) / 2;
    let first = ops.get(..n).unwrap_or(&[]);
    let middle = ops.get(n..n + fixed).unwrap_or(&[]);
    let second = ops.get(n + fixed..2 * n + fixed).unwrap_or(&[]);
    (first, middle, second)
}

// ---- checking results against inferred types ------------------------------------------------

/// One inferred result type: components of a tensor (InferTensorType ops) or a type.
enum Want {
    Components(Inferred),
    Type(Type),
}

/// Compares the op's results with the inferred ones as `isCompatibleReturnTypes` does
/// (`hlo::isCompatibleForHloTypeInference`), with upstream's message.
fn check_results(v: &OpView, want: &[Want], rule: &'static str) -> Check {
    let have = v.result_types();
    let ok = have.len() == want.len()
        && want.iter().zip(&have).all(|(w, &h)| match w {
            Want::Components(i) => matches_inferred(v.m, i, h),
            Want::Type(t) => compatible_types(v.m, *t, h),
        });
    if ok {
        return Ok(());
    }
    let inferred: Vec<String> = want
        .iter()
        .map(|w| match w {
            Want::Components(i) => format!("'{}'", inferred_str(v, i)),
            Want::Type(t) => q(v, *t),
        })
        .collect();
    bail!(
        rule,
        "inferred type(s) {} are incompatible with return type(s) of operation {}",
        inferred.join(", "),
        types_str(v.m, &have)
    )
}

// ---- type predicates of TypeInference.cpp ---------------------------------------------------

/// A type as the checks below see it: a module type, or a rank-0 tensor of an element type
/// that the op implies (upstream builds `tensor<e>` for scatter's and select_and_scatter's
/// reducers; the verifier does not intern new types).
#[derive(Clone, Copy)]
struct Ty<'m> {
    /// `None` when not a tensor; `Some(None)` when unranked.
    shape: Option<Option<&'m [Dim]>>,
    /// The element type (the type itself when not a tensor).
    element: Type,
    /// The module's type, if this is one.
    ty: Option<Type>,
}

fn ty<'m>(v: &OpView<'m>, t: Type) -> Ty<'m> {
    match shaped(v.m, t) {
        Some(s) => Ty {
            shape: Some(s.dims),
            element: s.element,
            ty: Some(t),
        },
        None => Ty {
            shape: None,
            element: t,
            ty: Some(t),
        },
    }
}

fn scalar<'m>(e: Type) -> Ty<'m> {
    Ty {
        shape: Some(Some(&[])),
        element: e,
        ty: None,
    }
}

/// A [`Ty`] quoted for a message.
fn qt(v: &OpView, t: Ty) -> String {
    match t.ty {
        Some(t) => q(v, t),
        None => format!("'tensor<{}>'", v.t(t.element)),
    }
}

/// `mlir::verifyCompatibleShape`: two shaped types of compatible shapes (either unranked, or
/// the same rank and compatible sizes); two non-shaped types are compatible, one of each not.
fn compatible_shape(a: Ty, b: Ty) -> bool {
    match (a.shape, b.shape) {
        (Some(Some(p)), Some(Some(q))) => {
            p.len() == q.len() && p.iter().zip(q).all(|(&s, &t)| compatible_dim(s, t))
        }
        (Some(_), Some(_)) | (None, None) => true,
        _ => false,
    }
}

/// `tensorsHaveSameElType`: equal element types, or two floats when `ignore_fp`.
fn same_element(v: &OpView, a: Ty, b: Ty, ignore_fp: bool) -> bool {
    if ignore_fp && is_float(v.m, a.element) && is_float(v.m, b.element) {
        return true;
    }
    a.element == b.element
}

/// `compatibleShapeAndElementType`.
fn compatible_shape_and_element(v: &OpView, a: Ty, b: Ty, ignore_fp: bool) -> bool {
    compatible_shape(a, b) && same_element(v, a, b, ignore_fp)
}

/// `isPromotableElementType` on two tensors.
fn promotable(v: &OpView, a: Ty, b: Ty, ignore_fp: bool) -> bool {
    if a.shape.is_none() || b.shape.is_none() {
        return false;
    }
    promotable_element(v.m, a.element, b.element, ignore_fp)
}

/// `hlo::verifyReducerShape`: the reduction region of `block` takes the accumulators and the
/// elements (`2 * n` arguments), returns `n` tensors of the accumulators' types, promotable
/// from the init values' and inputs' element types, and its element arguments have shapes
/// within `allowed` (the dimensions the op keeps).
fn reducer_shape(
    v: &OpView,
    region: usize,
    inputs: &[Ty],
    inits: &[Ty],
    allowed: &[Dim],
    rule: &'static str,
) -> Check {
    let n = inputs.len();
    let args = v.region_arg_types(region);
    ensure!(
        args.len() == n.saturating_mul(2),
        rule,
        "Reduction-region must take {} parameters, but takes {} parameter(s)",
        n.saturating_mul(2),
        args.len()
    );
    let Some((_, rets)) = v.region_terminator(region) else {
        bail!(rule, "The reduction-region expected to have a terminator");
    };
    ensure!(
        !rets.is_empty(),
        rule,
        "The reduction-region expected to return some value(s)"
    );
    ensure!(
        rets.len() == n,
        rule,
        "Reduction-region here must produce {n} tensors, but produces {} instead",
        rets.len()
    );
    for &r in &rets {
        ensure!(
            shaped(v.m, r).is_some(),
            rule,
            "Reduction-region here must produce tensor-typed result(s), but produces {} instead",
            q(v, r)
        );
    }
    for i in 0..n {
        let (Some(&acc), Some(&arg), Some(&elem_arg), Some(&init), Some(&input)) = (
            rets.get(i),
            args.get(i),
            args.get(n + i),
            inits.get(i),
            inputs.get(i),
        ) else {
            break;
        };
        let (acc, arg, elem_arg) = (ty(v, acc), ty(v, arg), ty(v, elem_arg));
        ensure!(
            compatible_shape_and_element(v, acc, arg, false),
            rule,
            "The type of reduction-region's parameter at index {i} is different than the \
             corresponding result type: {} vs {}",
            qt(v, arg),
            qt(v, acc)
        );
        ensure!(
            compatible_shape_and_element(v, acc, elem_arg, true),
            rule,
            "The type of reduction-region's parameter at index {} is different than the \
             corresponding result type: {} vs {}",
            n + i,
            qt(v, elem_arg),
            qt(v, acc)
        );
        ensure!(
            compatible_shape(init, acc),
            rule,
            "The shape of reduction-region's result type at index {i} differs from the op's \
             corresponding init-value type: {} vs {}",
            qt(v, acc),
            qt(v, init)
        );
        ensure!(
            promotable(v, init, acc, true),
            rule,
            "The element-type of reduction-region's result type at index {i} is expected to be \
             promotable from the op's corresponding init-value element-type: {} vs {}",
            qt(v, acc),
            qt(v, init)
        );
        ensure!(
            promotable(v, input, elem_arg, true),
            rule,
            "The element-type of reduction-region's argument at index {} is expected to be \
             promotable from {}, but got {}",
            n + i,
            q(v, input.element),
            q(v, elem_arg.element)
        );
        let Some(Some(arg_dims)) = elem_arg.shape else {
            bail!(
                rule,
                "The reduction-region's argument at index {} must be a ranked tensor, but is {}",
                n + i,
                qt(v, elem_arg)
            );
        };
        ensure!(
            arg_dims.len() <= allowed.len(),
            rule,
            "The rank of reduction-region's argument at index {} is expected to be <= {}, got {}",
            n + i,
            allowed.len(),
            arg_dims.len()
        );
        // The argument's sizes must match a subsequence of the allowed dimensions.
        let mut at = 0usize;
        for &d in allowed {
            let Some(&a) = arg_dims.get(at) else {
                break;
            };
            if compatible_dim(d, a) {
                at += 1;
            }
        }
        ensure!(
            at == arg_dims.len(),
            rule,
            "The shape of reduction-region's argument at index {} is not compatible with that \
             of reduce-op's input-parameter at index {i}",
            n + i
        );
    }
    Ok(())
}

fn tys<'m>(v: &OpView<'m>, ts: &[Type]) -> Vec<Ty<'m>> {
    ts.iter().map(|&t| ty(v, t)).collect()
}

/// The accumulator types: the reduction region's return types, when it returns one tensor per
/// input (upstream's `getAccumulatorTypesOrInputTypes`; otherwise the region's own check
/// reports it).
fn accumulators<'m>(v: &OpView<'m>, region: usize, n: usize) -> Option<Vec<Shaped<'m>>> {
    let (_, rets) = v.region_return(region)?;
    if rets.len() != n {
        return None;
    }
    rets.iter().map(|&t| shaped(v.m, t)).collect()
}

// ---- reduce ----------------------------------------------------------------------------------

/// reduce: C1 (inputs of compatible shapes), C4/C5 (dimensions in range and unique), C7/C8
/// (inferred results), C2/C6 (the body's signature).
fn reduce(v: &OpView) -> Check {
    let (inputs, _, inits) = same_size_groups(v, 0);
    let (inputs, inits) = (types_of(v, inputs), types_of(v, inits));
    let (kept, _) = reduce_shape(v, &inputs)?;
    reducer_shape(v, 0, &tys(v, &inputs), &tys(v, &inits), &kept, "C6")?;
    // The inferred result types are checked after the op's own verifier, as MLIR verifies
    // `InferTypeOpInterface` with the regions.
    let inferred = infer_reduce(v)?;
    if !inferred.is_empty() {
        check_inferred_components(v, &inferred, "C7")?;
    }
    Ok(())
}

/// The dimensions reduce keeps (and their bounds), after C1, C4 and C5.
fn reduce_shape(v: &OpView, inputs: &[Type]) -> Result<(Vec<Dim>, Option<Vec<i64>>), Failure> {
    let Some(witness) = inputs.first().and_then(|&t| shaped(v.m, t)) else {
        return Ok((Vec::new(), None));
    };
    for (i, &t) in inputs.iter().enumerate().skip(1) {
        ensure!(
            compatible_shape(ty(v, inputs[0]), ty(v, t)),
            "C1",
            "expects all inputs to have compatible shapes. Shape at input-index {i} is not \
             compatible with shape at input-index 0"
        );
    }
    let dims = witness.dims.unwrap_or(&[]);
    let rank = dims.len();
    let mut reduced = vec![false; rank];
    for d in v.i64s("dimensions").unwrap_or_default() {
        ensure!(
            d >= 0 && (d as u64) < rank as u64,
            "C4",
            "Out-of-bounds dimension {d}, expected to be in range [0, {rank})"
        );
        ensure!(
            !reduced[d as usize],
            "C5",
            "Duplicate reduction dimension: {d}"
        );
        reduced[d as usize] = true;
    }
    let kept: Vec<Dim> = (0..rank)
        .filter(|&i| !reduced[i])
        .map(|i| dims[i])
        .collect();
    let bounds = witness.bounds.map(|b| {
        (0..rank)
            .filter(|&i| !reduced[i])
            .map(|i| b.get(i).copied().unwrap_or(DYNAMIC))
            .collect()
    });
    Ok((kept, bounds))
}

/// `inferReduceOp`: the kept dimensions of the first input, with the body's result element
/// types (empty when the body does not return one tensor per input).
pub(crate) fn infer_reduce(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (inputs, _, _) = same_size_groups(v, 0);
    let inputs = types_of(v, inputs);
    let (kept, bounds) = reduce_shape(v, &inputs)?;
    let Some(acc) = accumulators(v, 0, inputs.len()) else {
        return Ok(Vec::new());
    };
    Ok(acc
        .iter()
        .map(|a| Inferred {
            dims: Some(kept.clone()),
            element: a.element,
            bounds: bounds.clone(),
        })
        .collect())
}

// ---- reduce_window ---------------------------------------------------------------------------

const REDUCE_WINDOW_RULES: WindowRules = WindowRules {
    dilations: Some(("base_dilations", "window_dilations")),
    strides_size: "C6",
    base_size: "C8",
    window_size: "C10",
    padding_size: "C12",
    reversal_size: None,
    positive_size: "C5",
    positive_stride: "C7",
    positive_base: "C9",
    positive_window: "C11",
};

/// reduce_window: C1 (inputs), C2 (compatible shapes), C4 (window rank), C5–C12
/// (window attributes), C14–C16 (inferred results), C3/C13 (the body's signature).
fn reduce_window(v: &OpView) -> Check {
    let (inputs, _, inits) = same_size_groups(v, 0);
    let (inputs, inits) = (types_of(v, inputs), types_of(v, inits));
    reduce_window_window(v, &inputs)?;
    let sizes = v.i64s("window_dimensions").unwrap_or_default();
    reducer_shape(v, 0, &tys(v, &inputs), &tys(v, &inits), &sizes, "C13")?;
    let inferred = infer_reduce_window(v)?;
    if !inferred.is_empty() {
        check_inferred_components(v, &inferred, "C15")?;
    }
    Ok(())
}

/// The window of reduce_window, after C1, C2, C4 and C5–C12.
fn reduce_window_window(v: &OpView, inputs: &[Type]) -> Result<Vec<Window>, Failure> {
    ensure!(!inputs.is_empty(), "C1", "requires at least 1 input value");
    for (i, &t) in inputs.iter().enumerate().skip(1) {
        ensure!(
            compatible_shape(ty(v, inputs[0]), ty(v, t)),
            "C2",
            "expects all inputs to have compatible shapes. Shape at input-index {i} is not \
             compatible with shape at input-index 0"
        );
    }
    let sizes = v.i64s("window_dimensions").unwrap_or_default();
    let (pads, pads_len) = padding_attribute(v, sizes.len(), "C12")?;
    for &t in inputs {
        let rank = shaped(v.m, t).and_then(|s| s.rank()).unwrap_or(0);
        ensure!(
            rank == sizes.len(),
            "C4",
            "expects window-dimensions size == input rank, but got window-dimensions size: {} \
             and input: {} with rank = {rank}.",
            sizes.len(),
            q(v, t)
        );
    }
    window_dimensions(v, &sizes, &pads, pads_len, &REDUCE_WINDOW_RULES)
}

/// `inferReduceWindowOp`: each input's windowed shape (and bounds), with the body's result
/// element types (empty when the body does not return one tensor per input).
pub(crate) fn infer_reduce_window(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (inputs, _, _) = same_size_groups(v, 0);
    let inputs = types_of(v, inputs);
    let window = reduce_window_window(v, &inputs)?;
    let Some(acc) = accumulators(v, 0, inputs.len()) else {
        return Ok(Vec::new());
    };
    Ok(inputs
        .iter()
        .zip(&acc)
        .map(|(&t, a)| {
            let s = shaped(v.m, t);
            let dims = s.and_then(|s| s.dims).unwrap_or(&[]);
            Inferred {
                dims: Some(window_output_shape(dims, &window)),
                element: a.element,
                bounds: s
                    .and_then(|s| s.bounds)
                    .map(|b| window_output_shape(b, &window)),
            }
        })
        .collect())
}

// ---- select_and_scatter ----------------------------------------------------------------------

const SELECT_AND_SCATTER_RULES: WindowRules = WindowRules {
    dilations: None,
    strides_size: "C6",
    base_size: "C6",
    window_size: "C6",
    padding_size: "C8",
    reversal_size: None,
    positive_size: "C5",
    positive_stride: "C7",
    positive_base: "C7",
    positive_window: "C7",
};

/// select_and_scatter: C11/C12 (inferred result), C9 (the select region), C10
/// (the scatter region), C4 (window rank), C5–C8 (window attributes), C1/C2 (the source's
/// type is the windowed operand's).
fn select_and_scatter(v: &OpView) -> Check {
    let types = v.operand_types();
    let (Some(&operand), Some(&source), Some(&init)) = (types.first(), types.get(1), types.get(2))
    else {
        return Ok(());
    };
    let Some(op_s) = shaped(v.m, operand) else {
        return Ok(());
    };
    // The select region: (T, T) -> tensor<i1> with T the operand's element type.
    let args = v.region_arg_types(0);
    ensure!(
        args.len() == 2,
        "C9",
        "expects the select-region to take 2 parameters, but takes {}",
        args.len()
    );

    for (i, &a) in args.iter().enumerate() {
        let ok = shaped(v.m, a).is_some_and(|s| {
            s.dims.is_none_or(|d| d.is_empty()) && same_element(v, ty(v, operand), ty(v, a), true)
        });
        ensure!(
            ok,
            "C9",
            "expects the type of select-region's parameter at index {i} to be 'tensor<{}>', but \
             got {}",
            v.t(op_s.element),
            q(v, a)
        );
    }
    if let Some((_, rets)) = v.region_return(0) {
        ensure!(
            rets.len() == 1,
            "C9",
            "expects select-region to return single value, but got: {}",
            rets.len()
        );
        let r = rets[0];
        let ok = matches!(v.m.type_data(r), TypeData::RankedTensor { shape, element, .. }
            if shape.is_empty() && crate::text::verify::types::is_bool(v.m, *element));
        ensure!(
            ok,
            "C9",
            "expects the return-type of select-region to be tensor<i1>, but got: {}",
            q(v, r)
        );
    }
    // The scatter region reduces scalars of the source's element type.
    let source_elem = shaped(v.m, source).map_or(source, |s| s.element);
    reducer_shape(v, 1, &[scalar(source_elem)], &[ty(v, init)], &[], "C10")?;
    let sizes = v.i64s("window_dimensions").unwrap_or_default();
    let rank = op_s.rank().unwrap_or(0);
    ensure!(
        rank == sizes.len(),
        "C4",
        "expects window-dimensions size == operand rank, but got window-dimensions size: {} and \
         operand-type: {} with rank = {rank}.",
        sizes.len(),
        q(v, operand)
    );
    let (pads, pads_len) = padding_attribute(v, sizes.len(), "C8")?;
    let window = window_dimensions(v, &sizes, &pads, pads_len, &SELECT_AND_SCATTER_RULES)?;
    let windowed = Inferred::ranked(
        window_output_shape(op_s.dims.unwrap_or(&[]), &window),
        op_s.element,
    );
    let ok = shaped(v.m, source).is_some_and(|s| {
        let shape_ok = match s.dims {
            Some(d) => {
                let w = windowed.dims.as_deref().unwrap_or(&[]);
                d.len() == w.len() && d.iter().zip(w).all(|(&x, &y)| compatible_dim(x, y))
            }
            None => true,
        };
        shape_ok && same_element(v, ty(v, operand), ty(v, source), true)
    });
    ensure!(
        ok,
        "C2",
        "expects source-type to be '{}', but got{}",
        inferred_str(v, &windowed),
        q(v, source)
    );
    if let Some(inferred) = infer_select_and_scatter(v)? {
        check_inferred_components(v, &[inferred], "C12")?;
    }
    Ok(())
}

/// `inferSelectAndScatterOp`: the operand's shape with the scatter region's result element
/// type (`None` when the region returns no tensor).
pub(crate) fn infer_select_and_scatter(v: &OpView) -> Result<Option<Inferred>, Failure> {
    let Some(op_s) = v.operand_type(0).and_then(|t| shaped(v.m, t)) else {
        return Ok(None);
    };
    let Some(acc) = accumulators(v, 1, 1) else {
        return Ok(None);
    };
    Ok(acc.first().map(|a| Inferred {
        dims: op_s.dims.map(<[Dim]>::to_vec),
        element: a.element,
        bounds: op_s.bounds.map(<[i64]>::to_vec),
    }))
}

// ---- scatter ---------------------------------------------------------------------------------

/// scatter: C24/C25 (inferred results), C1/C3
/// (compatible shapes), C22 (index_vector_dim), C6/C23 (the update computation's signature),
/// C4 (updates' rank and bounds), C2 and C7–C21 (dimension numbers).
fn scatter(v: &OpView) -> Check {
    let (inputs, indices, updates) = same_size_groups(v, 1);
    let (inputs, updates) = (types_of(v, inputs), types_of(v, updates));
    let Some(indices) = indices.first().map(|&x| v.m.value_type(x)) else {
        return Ok(());
    };

    let shapes = |ts: &[Type]| -> Option<Vec<&[Dim]>> {
        ts.iter()
            .map(|&t| shaped(v.m, t).and_then(|s| s.dims))
            .collect()
    };
    let (Some(operand_shapes), Some(update_shapes), Some(idx_shape)) = (
        shapes(&inputs),
        shapes(&updates),
        shaped(v.m, indices).and_then(|s| s.dims),
    ) else {
        return Ok(());
    };
    let same = |xs: &[&[Dim]]| {
        xs.iter().all(|d| {
            d.len() == xs[0].len() && d.iter().zip(xs[0]).all(|(&a, &b)| compatible_dim(a, b))
        })
    };
    ensure!(
        same(&operand_shapes),
        "C1",
        "Not all inputs have compatible shapes."
    );
    ensure!(
        same(&update_shapes),
        "C3",
        "Not all updates have compatible shapes."
    );
    let dn = "scatter_dimension_numbers";
    let uwd = v.field_i64s(dn, "update_window_dims");
    let iwd = v.field_i64s(dn, "inserted_window_dims");
    let ibd = v.field_i64s(dn, "input_batching_dims");
    let sibd = v.field_i64s(dn, "scatter_indices_batching_dims");
    let sdtod = v.field_i64s(dn, "scatter_dims_to_operand_dims");
    let ivd = v.field_int(dn, "index_vector_dim").unwrap_or(0);
    let idx_rank = idx_shape.len() as i64;
    ensure!(
        (0..=idx_rank).contains(&ivd),
        "C22",
        "Expects index_vector_dim to be in range [0, rank-of('scatter_indices')] i.e. [0, \
         {idx_rank}]. got: {ivd}."
    );
    let inits: Vec<Ty> = updates
        .iter()
        .map(|&t| scalar(element_or_self(v.m, t)))
        .collect();
    reducer_shape(v, 0, &tys(v, &inputs), &inits, &[], "C23")?;

    let mut expanded = idx_shape.to_vec();
    if ivd == idx_rank {
        expanded.push(1);
    }
    let want_rank = (expanded.len() as i64 - 1).saturating_add(uwd.len() as i64);
    for u in &update_shapes {
        ensure!(
            u.len() as i64 == want_rank,
            "C4",
            "expects updates tensor must be of rank {want_rank} ( == rank-of('scatter_indices') - \
             1 + size-of('update_window_dims'), where 'scatter_indices' is expanded by a \
             trailing 1 dimension if 'index_vector_dim' == rank-of('scatter_indices')), but got \
             {}.",
            u.len()
        );
    }
    let dims = ScatterDims {
        uwd: &uwd,
        iwd: &iwd,
        ibd: &ibd,
        sibd: &sibd,
        sdtod: &sdtod,
        ivd,
    };
    for (o, u) in operand_shapes.iter().zip(&update_shapes) {
        scatter_dimension_numbers(o, &expanded, u, &dims)?;
    }
    for (operand, updates) in operand_shapes.iter().zip(&update_shapes) {
        // The operand's sizes in the update window (neither inserted nor batching).
        let inserted: HashSet<i64> = iwd.iter().copied().collect();
        let batching: HashSet<i64> = ibd.iter().copied().collect();
        let max_sizes: Vec<Dim> = operand
            .iter()
            .enumerate()
            .filter(|&(d, _)| !inserted.contains(&(d as i64)) && !batching.contains(&(d as i64)))
            .map(|(_, &s)| s)
            .collect();
        for (i, &w) in uwd.iter().enumerate() {
            let (Some(&u), Some(&max)) = (
                usize::try_from(w).ok().and_then(|w| updates.get(w)),
                max_sizes.get(i),
            ) else {
                continue;
            };
            if is_dynamic(u) || is_dynamic(max) {
                continue;
            }
            ensure!(
                u <= max,
                "C4",
                "expects bounds of the window dimensions of updates to not exceed the bounds of \
                 the corresponding dimensions of operand. For dimension {w}, updates bound is \
                 {u}, operand bound is {max}."
            );
        }
        let window: HashSet<i64> = uwd.iter().copied().collect();
        let mut seen = 0i64;
        for (i, &u) in updates.iter().enumerate() {
            if window.contains(&(i as i64)) {
                continue;
            }
            if seen == ivd {
                seen += 1;
            }
            let s = usize::try_from(seen)
                .ok()
                .and_then(|s| expanded.get(s))
                .copied()
                .unwrap_or(DYNAMIC);
            ensure!(
                compatible_dim(u, s),
                "C4",
                "expects bounds of the scatter dimensions of updates to be same as the bounds of \
                 the corresponding dimensions of scatter indices. For scatter dimension {i}, \
                 updates bound is {u} , scatter_indices bound is {s}."
            );
            seen += 1;
        }
    }
    let inferred = infer_scatter(v)?;
    if !inferred.is_empty() {
        check_inferred_components(v, &inferred, "C25")?;
    }
    Ok(())
}

struct ScatterDims<'a> {
    uwd: &'a [i64],
    iwd: &'a [i64],
    ibd: &'a [i64],
    sibd: &'a [i64],
    sdtod: &'a [i64],
    ivd: i64,
}

fn is_sorted(xs: &[i64]) -> bool {
    xs.windows(2).all(|w| w[0] <= w[1])
}

/// `checkDimsInBounds`: every element of `dims` is in `[0, bound)`.
fn in_bounds(dims: &[i64], bound: i64, name: &str, bound_name: &str, rule: &'static str) -> Check {
    for &d in dims {
        ensure!(
            (0..bound).contains(&d),
            rule,
            "Expects each element of {name} to be in range [0, {bound_name}) i.e. [0, {bound}). \
             got: {d}."
        );
    }
    Ok(())
}

/// `validateScatterDimensionNumbers`: C2 and C7–C21.
fn scatter_dimension_numbers(
    operand: &[Dim],
    indices: &[Dim],
    updates: &[Dim],
    d: &ScatterDims,
) -> Check {
    let rank = operand.len() as i64;
    let window = d.uwd.len() + d.iwd.len() + d.ibd.len();
    ensure!(
        operand.len() == window,
        "C2",
        "Expects rank-of operand to match size-of('update_window_dims') + \
         size-of('inserted_window_dims') + size-of('input_batching_dims') i.e. {window} but got \
         {rank}."
    );
    ensure!(
        is_sorted(d.uwd),
        "C7",
        "Expects update_window_dims to be sorted; got: [{}].",
        ints_str(d.uwd)
    );
    ensure!(
        is_unique(d.uwd),
        "C7",
        "Expects update_window_dims to not repeat; got: [{}].",
        ints_str(d.uwd)
    );
    in_bounds(
        d.uwd,
        updates.len() as i64,
        "update_window_dims",
        "rank-of('updates')",
        "C8",
    )?;
    dims_distinct(
        d.iwd,
        d.ibd,
        "inserted_window_dims",
        "input_batching_dims",
        "C9",
    )?;
    ensure!(
        is_sorted(d.iwd),
        "C10",
        "Expects inserted_window_dims to be sorted; got: [{}].",
        ints_str(d.iwd)
    );
    in_bounds(
        d.iwd,
        rank,
        "inserted_window_dims",
        "rank-of('operand')",
        "C11",
    )?;
    ensure!(
        is_sorted(d.ibd),
        "C12",
        "Expects input_batching_dims to be sorted; got: [{}].",
        ints_str(d.ibd)
    );
    in_bounds(
        d.ibd,
        rank,
        "input_batching_dims",
        "rank-of('operand')",
        "C13",
    )?;
    ensure!(
        is_unique(d.sibd),
        "C14",
        "Expects scatter_indices_batching_dims to not repeat; got: [{}].",
        ints_str(d.sibd)
    );
    in_bounds(
        d.sibd,
        indices.len() as i64,
        "scatter_indices_batching_dims",
        "rank-of('scatter_indices')",
        "C15",
    )?;
    ensure!(
        !d.sibd.contains(&d.ivd),
        "C16",
        "expects scatter_indices_batching_dims not to include index_vector_dim {}.",
        d.ivd
    );
    ensure!(
        d.ibd.len() == d.sibd.len(),
        "C17",
        "input_batching_dims and scatter_indices_batching_dims should have the same size."
    );
    for (i, (&a, &b)) in d.ibd.iter().zip(d.sibd).enumerate() {
        let x = usize::try_from(a)
            .ok()
            .and_then(|a| operand.get(a))
            .copied()
            .unwrap_or(DYNAMIC);
        let y = usize::try_from(b)
            .ok()
            .and_then(|b| indices.get(b))
            .copied()
            .unwrap_or(DYNAMIC);
        ensure!(
            compatible_dim(x, y),
            "C18",
            "input_batching_dims[{i}] and scatter_indices_batching_dims[{i}] must have compatible \
             sizes, but got {x} and {y}."
        );
    }
    if d.ivd == indices.len() as i64 {
        ensure!(
            d.sdtod.len() == 1,
            "C19",
            "Scatter op has {} elements in scatter_dims_to_operand_dims and the bound of \
             dimension index_vector_dim={} of scatter_indices is 1. These two numbers must be \
             equal.",
            d.sdtod.len(),
            d.ivd
        );
    }
    if let Some(&s) = usize::try_from(d.ivd).ok().and_then(|i| indices.get(i)) {
        ensure!(
            is_dynamic(s) || d.sdtod.len() as i64 == s,
            "C19",
            "Scatter op has {} elements in scatter_dims_to_operand_dims and the bound of \
             dimension index_vector_dim={} of scatter_indices is {s}. These two numbers must be \
             equal.",
            d.sdtod.len(),
            d.ivd
        );
    }
    dims_distinct(
        d.sdtod,
        d.ibd,
        "scatter_dims_to_operand_dims",
        "input_batching_dims",
        "C20",
    )?;
    in_bounds(
        d.sdtod,
        rank,
        "scatter_dims_to_operand_dims",
        "rank-of('operand')",
        "C21",
    )
}

/// `inferScatterOp`: each input's type with the update computation's result element type
/// (empty when it does not return one tensor per input).
pub(crate) fn infer_scatter(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (inputs, _, _) = same_size_groups(v, 1);
    let Some(acc) = accumulators(v, 0, inputs.len()) else {
        return Ok(Vec::new());
    };
    Ok(inputs
        .iter()
        .zip(&acc)
        .filter_map(|(&x, a)| {
            let s = shaped(v.m, v.m.value_type(x))?;
            Some(Inferred {
                dims: s.dims.map(<[Dim]>::to_vec),
                element: a.element,
                bounds: s.bounds.map(<[i64]>::to_vec),
            })
        })
        .collect())
}

// ---- gather and dynamic_gather ---------------------------------------------------------------

/// The fields of a `#stablehlo.gather<...>`.
struct GatherDims {
    offset: Vec<i64>,
    collapsed: Vec<i64>,
    operand_batching: Vec<i64>,
    start_indices_batching: Vec<i64>,
    start_index_map: Vec<i64>,
    index_vector_dim: i64,
}

fn gather_dims(v: &OpView) -> GatherDims {
    let dn = "dimension_numbers";
    GatherDims {
        offset: v.field_i64s(dn, "offset_dims"),
        collapsed: v.field_i64s(dn, "collapsed_slice_dims"),
        operand_batching: v.field_i64s(dn, "operand_batching_dims"),
        start_indices_batching: v.field_i64s(dn, "start_indices_batching_dims"),
        start_index_map: v.field_i64s(dn, "start_index_map"),
        index_vector_dim: v.field_int(dn, "index_vector_dim").unwrap_or(0),
    }
}

/// `verifyGather`: C1–C4, C6–C8, C10, C11, C13–C20 of gather and dynamic_gather.
/// `slice_sizes` is the number of slice sizes.
fn verify_gather(operand: &[Dim], start: &[Dim], slice_sizes: i64, d: &GatherDims) -> Check {
    let rank = operand.len() as i64;
    let implied = d.offset.len() + d.collapsed.len() + d.operand_batching.len();
    ensure!(
        operand.len() == implied,
        "C1",
        "offset_dims size ({}) plus collapse_slice_dims size ({}) plus operand_batching_dims size \
         ({}) is not equal to operand rank ({rank})",
        d.offset.len(),
        d.collapsed.len(),
        d.operand_batching.len()
    );
    let start_rank = start.len() as i64;
    let ivd = d.index_vector_dim;
    ensure!(
        (0..=start_rank).contains(&ivd),
        "C2",
        "Expects index_vector_dim to be in range [0, rank-of('start_indices')] i.e. [0, \
         {start_rank}]. got: {ivd}."
    );
    let index_size = if ivd == start_rank {
        Some(1)
    } else {
        usize::try_from(ivd)
            .ok()
            .and_then(|i| start.get(i))
            .copied()
            .filter(|&s| !is_dynamic(s))
    };
    if let Some(size) = index_size {
        ensure!(
            size == d.start_index_map.len() as i64,
            "C3",
            "start_index_map size ({}) is not equal to size of index dimension ({ivd}) of \
             start_indices ({size})",
            d.start_index_map.len()
        );
    }
    ensure!(
        is_sorted(&d.offset),
        "C4",
        "expects offset_dims to be sorted, got: [{}]",
        ints_str(&d.offset)
    );
    ensure!(
        is_unique(&d.offset),
        "C4",
        "expects offset_dims to not repeat, got: [{}]",
        ints_str(&d.offset)
    );
    dims_distinct(
        &d.collapsed,
        &d.operand_batching,
        "collapsed_slice_dims",
        "operand_batching_dims",
        "C6",
    )?;
    ensure!(
        is_sorted(&d.collapsed),
        "C7",
        "expects collapsed_slice_dims to be sorted, got: [{}]",
        ints_str(&d.collapsed)
    );
    in_bounds(
        &d.collapsed,
        rank,
        "collapsed_slice_dims",
        "rank-of('operand')",
        "C8",
    )?;
    ensure!(
        is_sorted(&d.operand_batching),
        "C10",
        "expects operand_batching_dims to be sorted, got: [{}]",
        ints_str(&d.operand_batching)
    );
    in_bounds(
        &d.operand_batching,
        rank,
        "operand_batching_dims",
        "rank-of('operand')",
        "C11",
    )?;
    ensure!(
        is_unique(&d.start_indices_batching),
        "C13",
        "expects start_indices_batching_dims to not repeat, got: [{}]",
        ints_str(&d.start_indices_batching)
    );
    in_bounds(
        &d.start_indices_batching,
        start_rank,
        "start_indices_batching_dims",
        "rank-of('start_indices')",
        "C14",
    )?;
    ensure!(
        !d.start_indices_batching.contains(&ivd),
        "C15",
        "expects start_indices_batching_dims not to include index_vector_dim {ivd}"
    );
    ensure!(
        d.operand_batching.len() == d.start_indices_batching.len(),
        "C16",
        "operand_batching_dims and start_indices_batching_dims should have the same size"
    );
    for (i, (&a, &b)) in d
        .operand_batching
        .iter()
        .zip(&d.start_indices_batching)
        .enumerate()
    {
        let x = usize::try_from(a)
            .ok()
            .and_then(|a| operand.get(a))
            .copied()
            .unwrap_or(DYNAMIC);
        let y = usize::try_from(b)
            .ok()
            .and_then(|b| start.get(b))
            .copied()
            .unwrap_or(DYNAMIC);
        ensure!(
            compatible_dim(x, y),
            "C17",
            "operand_batching_dims[{i}] and start_indices_batching_dims[{i}] must have compatible \
             sizes, but got {x} and {y}"
        );
    }
    dims_distinct(
        &d.start_index_map,
        &d.operand_batching,
        "start_index_map",
        "operand_batching_dims",
        "C18",
    )?;
    in_bounds(
        &d.start_index_map,
        rank,
        "start_index_map",
        "rank-of('operand')",
        "C19",
    )?;
    ensure!(
        slice_sizes == rank,
        "C20",
        "slice_sizes size ({slice_sizes}) not equal to operand rank ({rank})"
    );
    Ok(())
}

/// C9, C12 and C21 on known slice sizes: collapsed and batching dimensions take at most 1,
/// and every size fits its operand dimension.
fn gather_slice_sizes(operand: &[Dim], sizes: &[i64], d: &GatherDims) -> Check {
    for (dims, name, rule) in [
        (&d.collapsed, "collapsed_slice_dims", "C9"),
        (&d.operand_batching, "operand_batching_dims", "C12"),
    ] {
        for &dim in dims.iter() {
            let size = usize::try_from(dim)
                .ok()
                .and_then(|i| sizes.get(i))
                .copied();
            if let Some(size) = size {
                ensure!(
                    size <= 1,
                    rule,
                    "Expects that for each dim in {name}, slice_sizes[dim] should be <= 1, but got \
                     {size}"
                );
            }
        }
    }
    for (i, &size) in sizes.iter().enumerate() {
        let dim = operand.get(i).copied().unwrap_or(DYNAMIC);
        ensure!(
            size >= 0 && (is_dynamic(dim) || size <= dim),
            "C21",
            "slice size ({size}) is out of bounds for operand dimension ({}) at index {i}",
            size_str(dim)
        );
    }
    Ok(())
}

/// `inferGatherReturnTypeComponents`: C5 (offset_dims within the result's rank), then the
/// result's shape (C22): slice sizes of the offset dimensions that are not collapsed or
/// batching, and the sizes of start_indices for the batch dimensions (with its bounds).
fn gather_shape(
    start: &Shaped,
    slice: &dyn Fn(usize) -> Dim,
    d: &GatherDims,
    element: Type,
) -> Result<Inferred, Failure> {
    let start_dims = start.dims.unwrap_or(&[]);
    let mut start_rank = start_dims.len() as i64;
    if d.index_vector_dim == start_rank {
        start_rank += 1;
    }
    let result_rank = (d.offset.len() as i64).saturating_add(start_rank - 1);
    in_bounds(
        &d.offset,
        result_rank,
        "offset_dims",
        "implied-result-rank",
        "C5",
    )?;
    let result_rank = usize::try_from(result_rank).unwrap_or(0);
    // The slice sizes of the dimensions that are neither collapsed nor batching, in order.
    let dropped: HashSet<i64> = d
        .collapsed
        .iter()
        .chain(&d.operand_batching)
        .copied()
        .collect();
    let max_dropped = dropped.iter().copied().max().unwrap_or(-1);
    let prefix: Vec<Dim> = (0..=max_dropped)
        .filter(|i| !dropped.contains(i))
        .map(|i| slice(i as usize))
        .collect();
    let adjusted = |index: usize| -> Dim {
        prefix
            .get(index)
            .copied()
            .unwrap_or_else(|| slice(index + d.collapsed.len() + d.operand_batching.len()))
    };
    let offset_at: std::collections::HashMap<i64, usize> =
        d.offset.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let start_bounds = start.bounds;
    let mut dims = Vec::with_capacity(result_rank);
    let mut bounds = vec![DYNAMIC; result_rank];
    let mut batch = 0usize;
    for (r, bound) in bounds.iter_mut().enumerate() {
        if let Some(&i) = offset_at.get(&(r as i64)) {
            dims.push(adjusted(i));
            continue;
        }
        let mut index = batch;
        if index as i64 >= d.index_vector_dim {
            index += 1;
        }
        dims.push(start_dims.get(index).copied().unwrap_or(DYNAMIC));
        if let Some(b) = start_bounds {
            *bound = b.get(index).copied().unwrap_or(DYNAMIC);
        }
        batch += 1;
    }
    Ok(Inferred {
        dims: Some(dims),
        element,
        bounds: start_bounds.map(|_| bounds),
    })
}

/// gather: C1–C21 (dimension numbers and slice sizes), C22/C23 (inferred result).
fn gather(v: &OpView) -> Check {
    // ODS's AllElementTypesMatch, before the inferred type (InferTypeOpInterface verifies last).
    if let (Some(&o), Some(r)) = (v.operand_types().first(), v.result_type(0)) {
        let (eo, er) = (element_or_self(v.m, o), element_or_self(v.m, r));
        ensure!(
            eo == er,
            "C23",
            "failed to verify that all of {{operand, result}} have same element type ({} vs {})",
            q(v, eo),
            q(v, er)
        );
    }
    let inferred = infer_gather(v)?;
    check_inferred_components(v, &inferred, "C22")
}

/// `inferGatherOp`.
pub(crate) fn infer_gather(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (Some(operand), Some(start)) = (
        v.operand_type(0).and_then(|t| shaped(v.m, t)),
        v.operand_type(1).and_then(|t| shaped(v.m, t)),
    ) else {
        return Ok(Vec::new());
    };
    let (Some(od), Some(sd)) = (operand.dims, start.dims) else {
        return Ok(Vec::new());
    };
    let d = gather_dims(v);
    let sizes = v.i64s("slice_sizes").unwrap_or_default();
    verify_gather(od, sd, sizes.len() as i64, &d)?;
    gather_slice_sizes(od, &sizes, &d)?;
    let slice = |i: usize| sizes.get(i).copied().unwrap_or(DYNAMIC);
    Ok(vec![gather_shape(&start, &slice, &d, operand.element)?])
}

/// dynamic_gather: C1–C21 (dimension numbers and constant slice sizes), C22/C23
/// (inferred result).
fn dynamic_gather(v: &OpView) -> Check {
    let inferred = infer_dynamic_gather(v)?;
    check_inferred_components(v, &inferred, "C22")
}

/// `inferDynamicGatherOp`: as gather, with the slice sizes known only when a constant gives
/// them.
pub(crate) fn infer_dynamic_gather(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (Some(operand), Some(start), Some(sizes_ty)) = (
        v.operand_type(0).and_then(|t| shaped(v.m, t)),
        v.operand_type(1).and_then(|t| shaped(v.m, t)),
        v.operand_type(2).and_then(|t| shaped(v.m, t)),
    ) else {
        return Ok(Vec::new());
    };
    let (Some(od), Some(sd), Some(zd)) = (operand.dims, start.dims, sizes_ty.dims) else {
        return Ok(Vec::new());
    };
    let d = gather_dims(v);
    ensure!(
        zd.len() == 1,
        "C20",
        "slice_sizes.rank != 1 (got {})",
        zd.len()
    );
    verify_gather(od, sd, zd[0], &d)?;
    let max = usize::try_from(zd[0]).unwrap_or(0);
    let sizes = (v.operands().get(2))
        .and_then(|&x| constant_ints(v.m, x, max))
        .and_then(Result::ok);
    if let Some(sizes) = &sizes {
        gather_slice_sizes(od, sizes, &d)?;
    }
    let slice = |i: usize| {
        sizes
            .as_ref()
            .and_then(|s| s.get(i).copied())
            .unwrap_or(DYNAMIC)
    };
    Ok(vec![gather_shape(&start, &slice, &d, operand.element)?])
}

// ---- sort and map ----------------------------------------------------------------------------

/// sort: C1/C3 (`SameOperandsAndResultShape`), C2 (inferred results), C4
/// (dimension in range), C5 (the comparator's signature).
fn sort(v: &OpView) -> Check {
    let inputs = v.operand_types();
    same_operands_and_result_shape(v.m, v.op)?;
    let dim = v.int("dimension").unwrap_or(-1);
    if let Some(rank) = inputs
        .first()
        .and_then(|&t| shaped(v.m, t))
        .and_then(|s| s.rank())
    {
        let rank = rank as i64;
        ensure!(
            (-rank..rank).contains(&dim),
            "C4",
            "dimension attribute value must be in range [-{rank}, {rank}), but found {dim}"
        );
    }
    let args = v.region_arg_types(0);
    ensure!(
        args.len() == inputs.len().saturating_mul(2),
        "C5",
        "comparator block should have {} arguments",
        inputs.len().saturating_mul(2)
    );
    for (i, &t) in inputs.iter().enumerate() {
        let e = element_or_self(v.m, t);
        for j in [2 * i, 2 * i + 1] {
            let Some(&a) = args.get(j) else { continue };
            let ok = matches!(v.m.type_data(a), TypeData::RankedTensor { shape, element, encoding: None }
                if shape.is_empty() && *element == e);
            ensure!(
                ok,
                "C5",
                "comparator block argument #{j} should be of type 'tensor<{}>' but got {}",
                v.t(e),
                q(v, a)
            );
        }
    }
    if let Some((_, rets)) = v.region_return(0) {
        ensure!(
            rets.len() == 1,
            "C5",
            "comparator must return single output but got {}",
            rets.len()
        );
        let r = rets[0];
        let ok = shaped(v.m, r).is_some_and(|s| {
            s.rank() == Some(0) && crate::text::verify::types::is_bool(v.m, s.element)
        });
        ensure!(
            ok,
            "C5",
            "comparator must return tensor<i1> but got {}",
            q(v, r)
        );
    }
    check_inferred_types(v, &inputs, "C2")?;
    Ok(())
}

/// map: C1/C2 (`SameOperandsAndResultShape`); C3/C4 come with the inferred result, on leaving
/// the op ([`verify_on_exit`]).
fn map(v: &OpView) -> Check {
    same_operands_and_result_shape(v.m, v.op)
}

/// What MLIR checks on leaving an op, after the ops in its regions: `InferTypeOpInterface`'s
/// comparison of the inferred result types (a region trait's check), for the ops whose
/// inference reads their regions. So an op inside a branch that breaks its own rules is
/// refused for them first, as jaxlib refuses it.
pub(crate) fn verify_on_exit(v: OpView) -> Check {
    // `SingleBlockImplicitTerminator<"ReturnOp">` (spec `traits`), a region trait.
    if v.kind.implicit_terminator() {
        crate::text::verify::structure::regions_end_with(v.m, v.op, "stablehlo.return")?;
    }
    match v.kind {
        K::Map => check_inferred_components(&v, &infer_map(&v)?, "C4"),
        K::While => check_inferred_types(&v, &infer_while(&v), "C3"),
        K::If => check_results(&v, &infer_conditional(&v)?, "C3"),
        K::Case => check_results(&v, &infer_conditional(&v)?, "C4"),
        K::AsyncStart => super::collectives::async_start(&v),
        _ => Ok(()),
    }
}

/// `inferMapOp`: C4 (the computation takes one scalar per operand, of its element type, and
/// returns one scalar) and C3 (dimensions are `[0, rank)`); the result has the operands' shape
/// and the computation's element type.
pub(crate) fn infer_map(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let inputs = v.operand_types();
    let args = v.region_arg_types(0);
    ensure!(
        inputs.len() == args.len(),
        "C4",
        "expects number of operands to match the arity of map computation, but got: {} and {}",
        inputs.len(),
        args.len()
    );
    for (i, (&a, &t)) in args.iter().zip(&inputs).enumerate() {
        let Some(s) = shaped(v.m, a) else {
            bail!(
                "C4",
                "computation arguments must be 0-rank tensor, but got: arg #{i} of type {}",
                q(v, a)
            );
        };
        ensure!(
            s.rank() == Some(0),
            "C4",
            "computation arguments must be 0-rank tensor, but got: arg #{i} of type {}",
            q(v, a)
        );
        let e = element_or_self(v.m, t);
        ensure!(
            s.element == e,
            "C4",
            "element type of operands and computation arguments must match, but got: {} and {}",
            q(v, e),
            q(v, s.element)
        );
    }
    let Some((_, rets)) = v.region_return(0) else {
        return Ok(Vec::new());
    };
    ensure!(
        rets.len() == 1,
        "C4",
        "computation must return single output, but got: {}",
        rets.len()
    );
    let out = rets[0];
    let Some(out_s) = shaped(v.m, out).filter(|s| s.rank() == Some(0)) else {
        bail!(
            "C4",
            "computation must return 0-rank tensor, but got: {}",
            q(v, out)
        );
    };
    let dims = v.i64s("dimensions").unwrap_or_default();
    for (i, &d) in dims.iter().enumerate() {
        ensure!(
            d == i as i64,
            "C3",
            "requires monotonically increasing dimension numbers, but got: {}",
            ints_str(&dims)
        );
    }
    let mut shape: Vec<Dim> = Vec::new();
    for &t in &inputs {
        let od = shaped(v.m, t).and_then(|s| s.dims).unwrap_or(&[]);
        ensure!(
            dims.len() == od.len(),
            "C3",
            "applied to a subset of dimensions currently not supported: operand dimensions = {}, \
             requested map dimensions size = {}",
            od.len(),
            dims.len()
        );
        shape = od.to_vec();
    }
    Ok(vec![Inferred::ranked(shape, out_s.element)])
}

// ---- while, if, case, optimization_barrier ---------------------------------------------------

/// `hlo::isCompatibleForHloTypeInference` on two lists of types.
fn compatible_lists(v: &OpView, a: &[Type], b: &[Type]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| compatible_types(v.m, x, y))
}

/// while: C3 (results are the operands' types), C1 (cond takes the operands and returns a
/// scalar i1), C2 (body takes and returns the operands' types).
fn while_(v: &OpView) -> Check {
    let operands = v.operand_types();
    let cond_args = v.region_arg_types(0);
    ensure!(
        compatible_lists(v, &operands, &cond_args),
        "C1",
        "expect operands to be compatible with condition block arguments but got {} vs {}",
        types_str(v.m, &operands),
        types_str(v.m, &cond_args)
    );
    let body_args = v.region_arg_types(1);
    ensure!(
        compatible_lists(v, &operands, &body_args),
        "C2",
        "expect operands to be compatible with body block arguments but got {} vs {}",
        types_str(v.m, &operands),
        types_str(v.m, &body_args)
    );
    let Some((_, body_rets)) = v.region_terminator(1) else {
        bail!("C2", "The while body-region expected to have a terminator");
    };
    ensure!(
        compatible_lists(v, &operands, &body_rets),
        "C2",
        "expect operands to be compatible with body block return types but got {} vs {}",
        types_str(v.m, &operands),
        types_str(v.m, &body_rets)
    );
    let Some((_, cond_rets)) = v.region_return(0) else {
        return Ok(());
    };
    ensure!(
        cond_rets.len() == 1,
        "C1",
        "expect condition body returns a single value but got {}",
        cond_rets.len()
    );
    let r = cond_rets[0];
    let ok = shaped(v.m, r).is_some_and(|s| {
        s.rank() == Some(0) && crate::text::verify::types::is_bool(v.m, s.element)
    });
    ensure!(
        ok,
        "C1",
        "expect condition block return a zero-ranked tensor of i1 but got {}",
        q(v, r)
    );
    // C3, the results, on leaving the op (`verify_on_exit`).
    Ok(())
}

/// `inferWhileOp`: the operands' types.
pub(crate) fn infer_while(v: &OpView) -> Vec<Type> {
    v.operand_types()
}

/// `inferConditionalOp` for if and case: a rank-0 selector, at least one branch, branches
/// without arguments and with compatible return types; the results are the least specific of
/// the branches' return types.
fn infer_conditional(v: &OpView) -> Result<Vec<Want>, Failure> {
    let (c1, c2, c3) = if v.kind == K::If {
        ("C1", "C1", "C2")
    } else {
        ("C1", "C2", "C3")
    };
    if let Some(s) = v.operand_type(0).and_then(|t| shaped(v.m, t)) {
        let rank = s.rank().unwrap_or(0);
        ensure!(
            rank == 0,
            "I1",
            "operand should be rank 0 tensor but got rank {rank}"
        );
    }
    let n = v.regions().len();
    ensure!(n > 0, c1, "expect at least one branch");
    let mut returns: Vec<Vec<Type>> = Vec::with_capacity(n);
    for i in 0..n {
        let args = v.region_arg_types(i);
        ensure!(
            args.is_empty(),
            c2,
            "branch {i} must have 0 arguments, but found {}",
            args.len()
        );
        let Some((_, rets)) = v.region_return(i) else {
            bail!(c1, "expect non-empty region");
        };
        if let Some(first) = returns.first() {
            ensure!(
                compatible_lists(v, first, &rets),
                c3,
                "branch 0 and branch {i} have mismatched return types: {} vs {}",
                types_str(v.m, first),
                types_str(v.m, &rets)
            );
        }
        returns.push(rets);
    }
    let count = returns.first().map_or(0, Vec::len);
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let column: Vec<Type> = returns.iter().filter_map(|r| r.get(i).copied()).collect();
        out.extend(least_specific(v, &column));
    }
    Ok(out)
}

/// `hlo::inferLeastSpecificType` of compatible types: sizes that differ become dynamic, and
/// bounds are joined. A type that is not a ranked tensor is taken as it is.
fn least_specific(v: &OpView, types: &[Type]) -> Option<Want> {
    let &first = types.first()?;
    let ranked: Option<Vec<Shaped>> = types
        .iter()
        .map(|&t| shaped(v.m, t).filter(|s| s.dims.is_some()))
        .collect();
    let Some(ranked) = ranked else {
        return Some(Want::Type(first));
    };
    let w = ranked.first()?;
    let rank = w.rank().unwrap_or(0);
    if ranked.iter().any(|s| s.rank() != Some(rank)) {
        return Some(Want::Type(first));
    }
    let mut dims: Vec<Dim> = w.dims.unwrap_or(&[]).to_vec();
    let mut bounds: Vec<i64> = w
        .bounds
        .map_or_else(|| vec![DYNAMIC; rank], <[i64]>::to_vec);
    let mut any_bounds = w.bounds.is_some();
    for s in ranked.iter().skip(1) {
        any_bounds |= s.bounds.is_some();
        for (i, (l, lb)) in dims.iter_mut().zip(bounds.iter_mut()).enumerate() {
            let (r, rb) = (s.dim(i), s.bound(i).unwrap_or(DYNAMIC));
            let (size, bound) = match (is_dynamic(*l), is_dynamic(r)) {
                (false, false) => (*l, DYNAMIC),
                (false, true) if !is_dynamic(*lb) || !is_dynamic(rb) => (DYNAMIC, (*l).max(rb)),
                (true, false) if !is_dynamic(*lb) || !is_dynamic(rb) => (DYNAMIC, r.max(*lb)),
                (true, true) if !is_dynamic(*lb) && !is_dynamic(rb) => (DYNAMIC, (*lb).max(rb)),
                _ => (DYNAMIC, DYNAMIC),
            };
            *l = size;
            *lb = bound;
        }
    }
    Some(Want::Components(Inferred {
        dims: Some(dims),
        element: w.element,
        bounds: any_bounds.then_some(bounds),
    }))
}

/// optimization_barrier: `HLO_PairwiseSameOperandAndResultType`, and C1 (results
/// are the operands' types).
fn optimization_barrier(v: &OpView) -> Check {
    let operands = v.operand_types();
    let results = v.result_types();
    ensure!(
        operands.len() == results.len(),
        "PairwiseSameOperandAndResultType",
        "requires the same number of operands and results"
    );
    for (i, (a, b)) in operands.iter().zip(&results).enumerate() {
        ensure!(
            a == b,
            "PairwiseSameOperandAndResultType",
            "requires the same type for operand and result at index {i}"
        );
    }
    check_inferred_types(v, &operands, "C1")
}

#[cfg(test)]
mod tests {
    #[test]
    fn checks_from_text() {
        let ok = |src: &str| {
            crate::text::parse(src)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        // The spec's gather example.
        let gather = "func.func @main(%o: tensor<2x3x4x2xi64>, %i: tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64> {\n  %0 = \"stablehlo.gather\"(%o, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3>, slice_sizes = array<i64: 1, 1, 2, 2>, indices_are_sorted = false} : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64>\n  return %0 : tensor<2x2x3x2x2xi64>\n}\n";
        assert_eq!(ok(gather), Ok(()));
        let wrong = gather.replace("2x2x3x2x2xi64", "2x2x3x2x3xi64");
        let e = ok(&wrong).unwrap_err();
        assert!(
            e.contains("inferred type(s) 'tensor<2x2x3x2x2xi64>'"),
            "{e}"
        );
        // A reduce whose body takes too few arguments.
        let reduce = "func.func @main(%x: tensor<4x2xf32>, %i: tensor<f32>) -> tensor<4xf32> {\n  %0 = stablehlo.reduce(%x init: %i) across dimensions = [1] : (tensor<4x2xf32>, tensor<f32>) -> tensor<4xf32>\n    reducer(%a: tensor<f32>, %b: tensor<f32>) {\n      %1 = stablehlo.add %a, %b : tensor<f32>\n      stablehlo.return %1 : tensor<f32>\n    }\n  return %0 : tensor<4xf32>\n}\n";
        assert_eq!(ok(reduce), Ok(()));
        let e = ok(&reduce.replace("dimensions = [1]", "dimensions = [2]")).unwrap_err();
        assert!(e.contains("Out-of-bounds dimension 2"), "{e}");
    }

    /// A branch's quantized type is compatible with the result's only with the same storage
    /// range (`isCompatibleElementTypeForHloTypeInference`); the scales may differ. jaxlib
    /// (StableHLO 1.17.0) refuses the first program and accepts the second.
    #[test]
    fn case_results_need_the_same_storage_range() {
        let src = |result: &str| {
            format!(
                "func.func @main(%i: tensor<i32>, %a: tensor<4x!quant.uniform<i8:f32, 1.0>>) -> tensor<4x{result}> {{\n  %0 = \"stablehlo.case\"(%i) ({{\n    \"stablehlo.return\"(%a) : (tensor<4x!quant.uniform<i8:f32, 1.0>>) -> ()\n  }}) : (tensor<i32>) -> tensor<4x{result}>\n  return %0 : tensor<4x{result}>\n}}\n"
            )
        };
        let e = crate::text::parse(&src("!quant.uniform<i8<-127:127>:f32, 1.0>"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("inferred type(s) 'tensor<4x!quant.uniform<i8:f32, 1.000000e+00>>' are incompatible"),
            "{e}"
        );
        assert!(crate::text::parse(&src("!quant.uniform<i8:f32, 2.0>")).is_ok());
    }
}
