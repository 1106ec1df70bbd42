//! The constraints of the contraction ops: convolution, dynamic_conv, dot, dot_general (with its
//! dot algorithms), einsum, unary_einsum, fft, triangular_solve, cholesky and the three
//! batch_norm ops, with their shape functions (upstream's `hlo::inferConvolutionOp`,
//! `inferDotGeneralOp`, ... in `TypeInference.cpp`) and the quantization rules of convolution
//! and dot_general.
//!
//! The checks run in upstream's order, so that a program breaking several constraints gets the
//! error libStablehlo gives first. Messages keep upstream's wording.

use super::window::{
    padding_attribute, pairs, window_dimensions, window_output_shape, Window, WindowRules,
};
use crate::ir::{AttrData, Attribute, Dim, FloatKind, Module, Param, Type, TypeData, DYNAMIC};
use crate::text::verify::types::{
    check_inferred_components, compatible_dim, compatible_element_types,
    compatible_operands_and_result_element, compatible_shapes, constant_ints, dims_distinct,
    dims_str, element_or_self, enum_case, float_kind, ints_str, is_dynamic, most_specific_dim,
    operand, q, quant, ranked, shaped, size_str, tensor_str, types_str, Inferred, OpView, Quant,
    Ranked,
};
use crate::text::verify::{bail, ensure, Check, Failure};
use crate::vhlo::StablehloOp as K;

pub(super) fn verify(v: OpView) -> Check {
    match v.kind {
        K::Convolution => convolution(&v),
        K::DynamicConv => dynamic_conv(&v),
        K::Dot => dot(&v),
        K::DotGeneral => dot_general(&v),
        K::Fft => fft(&v),
        K::TriangularSolve => triangular_solve(&v),
        K::Cholesky => cholesky(&v),
        K::BatchNormGrad | K::BatchNormInference | K::BatchNormTraining => batch_norm(&v),
        // einsum and unary_einsum have only their declared (ODS) constraints upstream.
        _ => Ok(()),
    }
}

// ---- helpers ----------------------------------------------------------------------------------

fn is_quantized_type(m: &Module, t: Type) -> bool {
    quant(m, element_or_self(m, t)).is_some()
}

/// Checks an inferred shape against the op's result as the ops without result-type inference
/// in their verifier do (`verifyCompatibleShape`: ranks and sizes only), with upstream's
/// message.
fn check_shape(v: &OpView, inferred: &[Dim], rule: &'static str) -> Check {
    let Some(res) = v.result_type(0) else {
        return Ok(());
    };
    let Some(r) = ranked(v.m, res) else {
        return Ok(());
    };
    ensure!(
        compatible_shapes(Some(inferred), Some(r.dims)),
        rule,
        "inferred shape '{}' is incompatible with return type of operation {}",
        dims_str(inferred),
        q(v, res)
    );
    Ok(())
}

/// The number of entries of `precision_config`, if present.
fn precision_config_len(v: &OpView) -> Option<usize> {
    match v.m.attr_data(v.attr("precision_config")?) {
        AttrData::Array(xs) => Some(xs.len()),
        _ => None,
    }
}

/// `verifyPrecisionConfig`: at most two entries.
fn precision_config(v: &OpView, rule: &'static str) -> Check {
    if let Some(n) = precision_config_len(v) {
        ensure!(
            n <= 2,
            rule,
            "expects precision config to be empty or have <= 2 elements, got {n}"
        );
    }
    Ok(())
}

// ---- convolution and dynamic_conv -------------------------------------------------------------

/// The fields of `#stablehlo.conv<...>` (left-out fields are 0 or empty).
struct ConvDims {
    input_batch: i64,
    input_feature: i64,
    input_spatial: Vec<i64>,
    kernel_input_feature: i64,
    kernel_output_feature: i64,
    kernel_spatial: Vec<i64>,
    output_batch: i64,
    output_feature: i64,
    output_spatial: Vec<i64>,
}

/// The fields of `#stablehlo.conv<...>`, read by position (the struct table of the text format
/// does not list this attribute: it has its own syntax).
fn conv_dims(v: &OpView) -> ConvDims {
    let params: &[Param] = match v.attr("dimension_numbers").map(|a| v.m.attr_data(a)) {
        Some(AttrData::Dialect(d)) => &d.params,
        _ => &[],
    };
    let int = |i: usize| match params.get(i) {
        Some(Param::Int(x)) => *x,
        Some(Param::UInt(x)) => i64::try_from(*x).unwrap_or(i64::MAX),
        _ => 0,
    };
    let ints = |i: usize| match params.get(i) {
        Some(Param::Ints(x)) => x.to_vec(),
        _ => Vec::new(),
    };
    ConvDims {
        input_batch: int(0),
        input_feature: int(1),
        input_spatial: ints(2),
        kernel_input_feature: int(3),
        kernel_output_feature: int(4),
        kernel_spatial: ints(5),
        output_batch: int(6),
        output_feature: int(7),
        output_spatial: ints(8),
    }
}

const CONV_RULES: WindowRules = WindowRules {
    dilations: Some(("lhs_dilation", "rhs_dilation")),
    strides_size: "C2",
    base_size: "C5",
    window_size: "C7",
    padding_size: "C4",
    reversal_size: Some("C9"),
    positive_size: "C1",
    positive_stride: "C3",
    positive_base: "C6",
    positive_window: "C8",
};

/// `isSpatialDimensionsValid` (C12's sizes, C13, C17, C18, C19, C20): as many input, kernel
/// and output spatial dimensions; every dimension number in range; none repeated.
fn conv_dimension_numbers(d: &ConvDims, rank: usize) -> Check {
    let n = d.input_spatial.len();
    ensure!(
        n == d.kernel_spatial.len() && n == d.output_spatial.len(),
        "C17",
        "expects the same size for input, kernel and output spatial-dimensions, but got {}, {}, and {} resp.",
        n,
        d.kernel_spatial.len(),
        d.output_spatial.len()
    );
    let input: Vec<i64> = [d.input_batch, d.input_feature]
        .into_iter()
        .chain(d.input_spatial.iter().copied())
        .collect();
    let kernel: Vec<i64> = [d.kernel_input_feature, d.kernel_output_feature]
        .into_iter()
        .chain(d.kernel_spatial.iter().copied())
        .collect();
    let output: Vec<i64> = [d.output_batch, d.output_feature]
        .into_iter()
        .chain(d.output_spatial.iter().copied())
        .collect();
    let in_range = |xs: &[i64]| {
        xs.iter()
            .all(|&x| usize::try_from(x).is_ok_and(|x| x < rank))
    };
    ensure!(
        in_range(&input) && in_range(&kernel) && in_range(&output),
        "C13",
        "expects input, kernel, and output dimension-numbers to be in-range [0, {rank})."
    );
    for (xs, what, rule) in [
        (&input, "input", "C13"),
        (&kernel, "kernel", "C18"),
        (&output, "output", "C20"),
    ] {
        // In range, so a table of `rank` flags finds repeats in linear time.
        let mut seen = vec![false; rank];
        let unique = xs.iter().all(|&x| {
            let slot = usize::try_from(x).ok().and_then(|x| seen.get_mut(x));
            match slot {
                Some(s) if !*s => {
                    *s = true;
                    true
                }
                _ => false,
            }
        });
        ensure!(
            unique,
            rule,
            "expects {what} dimension-numbers to be unique, got {{{}}}.",
            ints_str(xs)
        );
    }
    Ok(())
}

/// What convolution and dynamic_conv check before their windows (`inferConvolutionOp` up to
/// the padding): ranks (C1, C13), element types (C27), dimension numbers, group counts (C10,
/// C11, C14, C15, C16, C23), precision config (C24) and the spatial count (C12). Returns the
/// dimension numbers and the window sizes.
fn conv_common<'m>(
    v: &OpView<'m>,
    lhs: &Ranked<'m>,
    rhs: &Ranked<'m>,
) -> Result<(ConvDims, Vec<i64>), Failure> {
    let m = v.m;
    let rank = lhs.rank();
    ensure!(
        rank >= 2,
        "C13",
        "expects convolution arguments to have >= 2 dimensions. Got: {} and {}.",
        q(v, lhs.ty),
        q(v, rhs.ty)
    );
    ensure!(
        rank == rhs.rank(),
        "C1",
        "expects convolution arguments to have same number of dimensions. Got: {} and {}.",
        q(v, lhs.ty),
        q(v, rhs.ty)
    );
    let any_quantized = quant(m, lhs.element).is_some() || quant(m, rhs.element).is_some();
    ensure!(
        any_quantized || compatible_element_types(m, lhs.element, rhs.element),
        "C27",
        "expects lhs and rhs to have compatible element type. Got: {} and {}",
        q(v, lhs.element),
        q(v, rhs.element)
    );
    let d = conv_dims(v);
    conv_dimension_numbers(&d, rank)?;
    let feature_groups = v.int("feature_group_count").unwrap_or(1);
    let batch_groups = v.int("batch_group_count").unwrap_or(1);
    ensure!(
        !(batch_groups > 1 && feature_groups > 1),
        "C23",
        "expects batch_group_count and feature_group_count not to be both greater than 1. Got {batch_groups} and {feature_groups} resp."
    );
    let input_features = lhs.at(d.input_feature);
    let input_batch = lhs.at(d.input_batch);
    let kernel_input_features = rhs.at(d.kernel_input_feature);
    let kernel_output_features = rhs.at(d.kernel_output_feature);
    let divides = |x: i64, by: i64| x.checked_rem(by).is_none_or(|r| r == 0);
    ensure!(
        is_dynamic(input_batch) || divides(input_batch, batch_groups),
        "C10",
        "expects input batch dimension ({input_batch}) to be divisible by batch_group_count. Got batch_group_count = {batch_groups}."
    );
    if !is_dynamic(input_features) {
        ensure!(
            divides(input_features, feature_groups),
            "C11",
            "expects input feature dimension ({input_features}) to be a multiple of feature_group_count. Got feature_group_count = {feature_groups}."
        );
        ensure!(
            is_dynamic(kernel_input_features)
                || input_features.checked_div(feature_groups) == Some(kernel_input_features),
            "C14",
            "expects input feature dimension ({input_features}) / feature_group_count = kernel input feature dimension ({kernel_input_features}). Got feature_group_count = {feature_groups}."
        );
    }
    if !is_dynamic(kernel_output_features) {
        ensure!(
            divides(kernel_output_features, batch_groups),
            "C15",
            "expects output feature dimension size ({kernel_output_features}) to be a multiple of batch_group_count. Got batch_group_count = {batch_groups}."
        );
        ensure!(
            divides(kernel_output_features, feature_groups),
            "C16",
            "expects kernel output feature dimension ({kernel_output_features}) to be divisible by feature_group_count. For feature_group_count = {feature_groups}."
        );
    }
    precision_config(v, "C24")?;
    ensure!(
        rank == d.input_spatial.len().saturating_add(2),
        "C12",
        "expects convolution arguments to have {} dimensions. Got: {rank}",
        d.input_spatial.len().saturating_add(2)
    );
    let window_sizes = d.kernel_spatial.iter().map(|&k| rhs.at(k)).collect();
    Ok((d, window_sizes))
}

/// The result shape of a convolution (C25, C26) from its window and `batch_group_count`.
fn conv_output_shape(
    v: &OpView,
    lhs: &Ranked,
    rhs: &Ranked,
    d: &ConvDims,
    window: &[Window],
) -> Vec<Dim> {
    let batch_groups = v.int("batch_group_count").unwrap_or(1);
    let mut out = vec![DYNAMIC; lhs.rank()];
    let base: Vec<Dim> = d.input_spatial.iter().map(|&i| lhs.at(i)).collect();
    let spatial = window_output_shape(&base, window);
    let mut set = |at: i64, value: Dim| {
        if let Some(slot) = usize::try_from(at).ok().and_then(|i| out.get_mut(i)) {
            *slot = value;
        }
    };
    for (&at, &size) in d.output_spatial.iter().zip(&spatial) {
        set(at, size);
    }
    let input_batch = lhs.at(d.input_batch);
    let batch = if is_dynamic(input_batch) {
        DYNAMIC
    } else {
        input_batch.checked_div(batch_groups).unwrap_or(DYNAMIC)
    };
    set(d.output_batch, batch);
    set(d.output_feature, rhs.at(d.kernel_output_feature));
    out
}

/// The quantization rules shared by convolution and dot_general
/// (`verifyConvolutionDotGeneralCommonQuantizationConstraints`): C28, C31...C34 of
/// convolution, C14, C17...C20 of dot_general.
fn common_quantization(
    v: &OpView,
    lhs: Type,
    rhs: Type,
    result: Type,
    ids: [&'static str; 5],
) -> Check {
    let m = v.m;
    let (lq, rq, oq) = (quant(m, lhs), quant(m, rhs), quant(m, result));
    let Some(rq) = rq.filter(|_| lq.is_some() == oq.is_some()) else {
        bail!(
            ids[0],
            "rhs should be quantized for quantized operations and is_quantized(lhs)=is_quantized(result) should hold"
        );
    };
    match (lq, oq) {
        (Some(lq), Some(oq)) => {
            ensure!(
                lq.storage == rq.storage,
                ids[1],
                "mismatched lhs and rhs quantization storage types"
            );
            ensure!(
                lq.expressed == rq.expressed && lq.expressed == oq.expressed,
                ids[2],
                "mismatched lhs, rhs and result quantization expressed types"
            );
            ensure!(
                rq.axis.is_some() || oq.axis.is_none(),
                ids[3],
                "mismatched rhs and result quantization granularity"
            );
        }
        _ => {
            ensure!(
                lhs == rq.expressed && lhs == result,
                ids[4],
                "mismatched rhs quantization expressed type and lhs and result element type"
            );
        }
    }
    Ok(())
}

/// `verifyConvolutionOpQuantizationConstraints`: C29, C30, then the common rules.
fn conv_quantization(v: &OpView, lhs: Type, rhs: Type, result: Type, d: &ConvDims) -> Check {
    let m = v.m;
    let (le, re, oe) = (
        element_or_self(m, lhs),
        element_or_self(m, rhs),
        element_or_self(m, result),
    );
    if let Some(axis) = quant(m, re).and_then(|q| q.axis) {
        ensure!(
            axis == d.kernel_output_feature,
            "C29",
            "quantization dimension of rhs should be same with kernel_output_feature_dimension"
        );
    }
    if let Some(axis) = quant(m, oe).and_then(|q| q.axis) {
        ensure!(
            axis == d.output_feature,
            "C30",
            "quantization dimension of result should be same with output_feature_dimension"
        );
    }
    common_quantization(v, le, re, oe, ["C28", "C31", "C32", "C33", "C34"])
}

/// The result type of a convolution (`inferConvolutionOp`; C1...C27 but the quantization
/// rules). The element type is not inferred (lhs's is given, for builders to replace).
pub(crate) fn infer_convolution(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (Some(lhs), Some(rhs)) = (operand(v, 0), operand(v, 1)) else {
        bail!("ODS", "expects ranked tensor operands");
    };
    let (d, sizes) = conv_common(v, &lhs, &rhs)?;
    let (padding, padding_len) = padding_attribute(v, sizes.len(), "C4")?;
    let window = window_dimensions(v, &sizes, &padding, padding_len, &CONV_RULES)?;
    let dims = conv_output_shape(v, &lhs, &rhs, &d, &window);
    Ok(vec![Inferred::ranked(dims, lhs.element)])
}

/// convolution: its shape function, the result's shape (C25), and the quantization rules
/// (C28...C34).
fn convolution(v: &OpView) -> Check {
    let (Some(lhs), Some(rhs), Some(res)) = (operand(v, 0), operand(v, 1), v.result_type(0)) else {
        return Ok(());
    };
    let inferred = infer_convolution(v)?;
    if let Some(dims) = inferred.first().and_then(|i| i.dims.as_deref()) {
        check_shape(v, dims, "C25")?;
    }
    if [lhs.ty, rhs.ty, res]
        .iter()
        .any(|&t| is_quantized_type(v.m, t))
    {
        conv_quantization(v, lhs.ty, rhs.ty, res, &conv_dims(v))?;
    }
    Ok(())
}

/// The result type of a dynamic_conv (`inferDynamicConvOp`): the checks of convolution, the
/// padding operand's shape `[N - 2, 2]` (C4), and, when the padding is a constant, the window
/// (C2...C9) and the result shape. `Ok(None)` when the padding is not a constant.
pub(crate) fn infer_dynamic_conv(v: &OpView) -> Result<Option<Inferred>, Failure> {
    let (Some(lhs), Some(rhs)) = (operand(v, 0), operand(v, 1)) else {
        bail!("ODS", "expects ranked tensor operands");
    };
    let (d, sizes) = conv_common(v, &lhs, &rhs)?;
    let Some(padding) = operand(v, 2) else {
        return Ok(None);
    };
    ensure!(
        padding.rank() == 2,
        "C4",
        "expects padding to be of rank 2 but got {}",
        padding.rank()
    );
    let spatial = i64::try_from(lhs.rank())
        .unwrap_or(i64::MAX)
        .saturating_sub(2);
    ensure!(
        padding.dim(0) == spatial && padding.dim(1) == 2,
        "C4",
        "expects padding to be of shape [{spatial}, 2], but got [{}, {}]",
        padding.dim(0),
        padding.dim(1)
    );
    // The padding's type is [spatial, 2] (checked above).
    let max = usize::try_from(spatial.saturating_mul(2)).unwrap_or(0);
    let values = v
        .operands()
        .get(2)
        .and_then(|&p| constant_ints(v.m, p, max));
    let Some(Ok(values)) = values else {
        return Ok(None);
    };
    let window = window_dimensions(v, &sizes, &pairs(&values), values.len() / 2, &CONV_RULES)?;
    let dims = conv_output_shape(v, &lhs, &rhs, &d, &window);
    Ok(Some(Inferred::ranked(dims, lhs.element)))
}

/// dynamic_conv: its shape function (upstream does not compare the result with it), and the
/// quantization rules (C28...C34).
fn dynamic_conv(v: &OpView) -> Check {
    let (Some(lhs), Some(rhs), Some(res)) = (operand(v, 0), operand(v, 1), v.result_type(0)) else {
        return Ok(());
    };
    infer_dynamic_conv(v)?;
    if [lhs.ty, rhs.ty, res]
        .iter()
        .any(|&t| is_quantized_type(v.m, t))
    {
        conv_quantization(v, lhs.ty, rhs.ty, res, &conv_dims(v))?;
    }
    Ok(())
}

// ---- dot and dot_general ------------------------------------------------------------------------

/// The result type of a dot (`inferDotOp`): vector·vector, matrix·vector, vector·matrix or
/// matrix·matrix with compatible contracted sizes. The element type is lhs's (not inferred).
pub(crate) fn infer_dot(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (Some(lhs), Some(rhs)) = (operand(v, 0), operand(v, 1)) else {
        bail!("ODS", "expects ranked tensor operands");
    };
    precision_config(v, "precision_config")?;
    let mut dims = Vec::new();
    let mut bounds = Vec::new();
    let mut push = |t: &Ranked, i: usize| {
        dims.push(t.dim(i));
        bounds.push(t.bound(i));
    };
    match (lhs.rank(), rhs.rank()) {
        (1, 1) if compatible_dim(lhs.dim(0), rhs.dim(0)) => {}
        (2, 1) if compatible_dim(lhs.dim(1), rhs.dim(0)) => push(&lhs, 0),
        (1, 2) if compatible_dim(lhs.dim(0), rhs.dim(0)) => push(&rhs, 1),
        (2, 2) if compatible_dim(lhs.dim(1), rhs.dim(0)) => {
            push(&lhs, 0);
            push(&rhs, 1);
        }
        _ => bail!(
            "shape",
            "expected both lhs/rhs ranks to be either 1 or 2 (and their contracted sizes to match), got {} and {}",
            q(v, lhs.ty),
            q(v, rhs.ty)
        ),
    }
    let has_bounds = bounds.iter().any(|&b| !is_dynamic(b));
    Ok(vec![Inferred {
        dims: Some(dims),
        element: lhs.element,
        bounds: has_bounds.then_some(bounds),
    }])
}

/// dot (not in the spec): its shape function and the result's shape.
fn dot(v: &OpView) -> Check {
    if operand(v, 0).is_none() || operand(v, 1).is_none() {
        return Ok(());
    }
    let inferred = infer_dot(v)?;
    if let Some(dims) = inferred.first().and_then(|i| i.dims.as_deref()) {
        check_shape(v, dims, "shape")?;
    }
    Ok(())
}

/// The fields of `#stablehlo.dot<...>` (and of CHLO's `#chlo.ragged_dot<...>`).
pub(crate) struct DotDims {
    pub lhs_batching: Vec<i64>,
    pub rhs_batching: Vec<i64>,
    pub lhs_contracting: Vec<i64>,
    pub rhs_contracting: Vec<i64>,
}

fn dot_dims(v: &OpView) -> DotDims {
    let n = "dot_dimension_numbers";
    DotDims {
        lhs_batching: v.field_i64s(n, "lhs_batching_dimensions"),
        rhs_batching: v.field_i64s(n, "rhs_batching_dimensions"),
        lhs_contracting: v.field_i64s(n, "lhs_contracting_dimensions"),
        rhs_contracting: v.field_i64s(n, "rhs_contracting_dimensions"),
    }
}

/// `checkDotGeneralConstraints`: C11, C1...C10.
fn dot_general_constraints(v: &OpView, lhs: &Ranked, rhs: &Ranked, d: &DotDims) -> Check {
    precision_config(v, "C11")?;
    dot_dimension_constraints(lhs.dims, rhs.dims, d)
}

/// `checkDotGeneralConstraints` after the precision config: C1...C10 of the dimension
/// numbers against the operands' shapes (CHLO's ragged_dot checks them too).
pub(crate) fn dot_dimension_constraints(lhs: &[Dim], rhs: &[Dim], d: &DotDims) -> Check {
    let at = |dims: &[Dim], i: i64| {
        usize::try_from(i)
            .ok()
            .and_then(|i| dims.get(i).copied())
            .unwrap_or(DYNAMIC)
    };
    ensure!(
        d.lhs_batching.len() == d.rhs_batching.len(),
        "C1",
        "lhs and rhs should have the same number of batching dimensions ({} and {})",
        d.lhs_batching.len(),
        d.rhs_batching.len()
    );
    ensure!(
        d.lhs_contracting.len() == d.rhs_contracting.len(),
        "C2",
        "lhs and rhs should have the same number of contracting dimensions ({} and {})",
        d.lhs_contracting.len(),
        d.rhs_contracting.len()
    );
    dims_distinct(
        &d.lhs_batching,
        &d.lhs_contracting,
        "lhs_batching_dimensions",
        "lhs_contracting_dimensions",
        "C3",
    )?;
    dims_distinct(
        &d.rhs_batching,
        &d.rhs_contracting,
        "rhs_batching_dimensions",
        "rhs_contracting_dimensions",
        "C4",
    )?;
    let in_range = |rank: usize, dims: &[i64], name: &str, rule: &'static str| -> Check {
        if let Some(&bad) = dims
            .iter()
            .find(|&&x| usize::try_from(x).map_or(true, |x| x >= rank))
        {
            bail!(rule, "{name} value: {bad} is out of range: [0, {rank})");
        }
        Ok(())
    };
    in_range(lhs.len(), &d.lhs_batching, "lhs_batching_dimensions", "C5")?;
    in_range(
        lhs.len(),
        &d.lhs_contracting,
        "lhs_contracting_dimensions",
        "C6",
    )?;
    in_range(rhs.len(), &d.rhs_batching, "rhs_batching_dimensions", "C7")?;
    in_range(
        rhs.len(),
        &d.rhs_contracting,
        "rhs_contracting_dimensions",
        "C8",
    )?;
    for (&l, &r) in d.lhs_batching.iter().zip(&d.rhs_batching) {
        ensure!(
            compatible_dim(at(lhs, l), at(rhs, r)),
            "C9",
            "batching dimension sizes must match for lhs/rhs (lhs dimension {l} has size {}, rhs dimension {r} has size {})",
            size_str(at(lhs, l)),
            size_str(at(rhs, r))
        );
    }
    for (&l, &r) in d.lhs_contracting.iter().zip(&d.rhs_contracting) {
        ensure!(
            compatible_dim(at(lhs, l), at(rhs, r)),
            "C10",
            "contracting dimension sizes must match for lhs/rhs (lhs dimension {l} has size {}, rhs dimension {r} has size {})",
            size_str(at(lhs, l)),
            size_str(at(rhs, r))
        );
    }
    Ok(())
}

/// The result type of a dot_general (`inferDotGeneralOp`; C1...C11): the batching dimensions,
/// then lhs's and rhs's other dimensions that are not contracted (C12). The element type is
/// not inferred (lhs's is given, for builders to replace).
pub(crate) fn infer_dot_general(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (Some(lhs), Some(rhs)) = (operand(v, 0), operand(v, 1)) else {
        bail!("ODS", "expects ranked tensor operands");
    };
    let d = dot_dims(v);
    dot_general_constraints(v, &lhs, &rhs, &d)?;
    let mut dims = Vec::new();
    let mut bounds = Vec::new();
    for (i, (&l, &r)) in d.lhs_batching.iter().zip(&d.rhs_batching).enumerate() {
        let (li, ri) = (
            usize::try_from(l).unwrap_or(0),
            usize::try_from(r).unwrap_or(0),
        );
        let (size, bound) = most_specific_dim(
            i,
            (lhs.dim(li), lhs.bound(li)),
            (rhs.dim(ri), rhs.bound(ri)),
            "C9",
        )?;
        dims.push(size);
        bounds.push(bound);
    }
    for (t, batching, contracting) in [
        (&lhs, &d.lhs_batching, &d.lhs_contracting),
        (&rhs, &d.rhs_batching, &d.rhs_contracting),
    ] {
        // The special dimensions are in range (checked), so a table of flags is linear.
        let mut special = vec![false; t.rank()];
        for &x in batching.iter().chain(contracting.iter()) {
            if let Some(s) = usize::try_from(x).ok().and_then(|x| special.get_mut(x)) {
                *s = true;
            }
        }
        for (i, &s) in special.iter().enumerate() {
            if !s {
                dims.push(t.dim(i));
                bounds.push(t.bound(i));
            }
        }
    }
    let has_bounds = bounds.iter().any(|&b| !is_dynamic(b));
    Ok(vec![Inferred {
        dims: Some(dims),
        element: lhs.element,
        bounds: has_bounds.then_some(bounds),
    }])
}

/// The floating-point types an F8 dot algorithm accepts (`isAnyF8` upstream).
fn is_any_f8(k: Option<FloatKind>) -> bool {
    use FloatKind::*;
    matches!(
        k,
        Some(F8E3M4 | F8E4M3 | F8E4M3FN | F8E5M2 | F8E4M3FNUZ | F8E4M3B11FNUZ | F8E5M2FNUZ)
    )
}

/// The parameters of `#stablehlo.dot_algorithm<...>`.
#[derive(Clone, Copy, Debug)]
struct DotAlgorithm {
    lhs: Type,
    rhs: Type,
    accumulation: Type,
    lhs_components: i64,
    rhs_components: i64,
    primitive_ops: i64,
    imprecise: bool,
}

impl DotAlgorithm {
    fn of(m: &Module, a: Attribute) -> Option<Self> {
        let AttrData::Dialect(d) = m.attr_data(a) else {
            return None;
        };
        if m.str(d.dialect) != "stablehlo" || m.str(d.mnemonic) != "dot_algorithm" {
            return None;
        }
        let ty = |i: usize| match d.params.get(i) {
            Some(Param::Type(t)) => Some(*t),
            _ => None,
        };
        let int = |i: usize| match d.params.get(i) {
            Some(Param::Int(x)) => Some(*x),
            Some(Param::UInt(x)) => Some(i64::try_from(*x).unwrap_or(i64::MAX)),
            _ => None,
        };
        Some(DotAlgorithm {
            lhs: ty(0)?,
            rhs: ty(1)?,
            accumulation: ty(2)?,
            lhs_components: int(3)?,
            rhs_components: int(4)?,
            primitive_ops: int(5)?,
            imprecise: matches!(d.params.get(6), Some(Param::Bool(true))),
        })
    }

    /// Whether the combination is one known to be supported on some hardware
    /// (`isKnownDotAlgorithm`; dot_general's I8...I10).
    fn is_known(&self, m: &Module) -> bool {
        use FloatKind::*;
        if self.lhs_components != 1 || self.rhs_components != 1 {
            return false;
        }
        let (l, r, a) = (
            float_kind(m, self.lhs),
            float_kind(m, self.rhs),
            float_kind(m, self.accumulation),
        );
        if is_any_f8(l) && is_any_f8(r) && a == Some(F32) && self.primitive_ops == 1 {
            return true;
        }
        if self.imprecise {
            return false;
        }
        let (Some(l), Some(r), Some(a)) = (l, r, a) else {
            return false;
        };
        matches!(
            (l, r, a, self.primitive_ops),
            (F16, F16, F16, 1)
                | (F16, F16, F32, 1)
                | (BF16, BF16, BF16, 1)
                | (BF16, BF16, F32, 1 | 3 | 6 | 9)
                | (TF32, TF32, F32, 1 | 3)
                | (F32, F32, F32, 1)
                | (F64, F64, F64, 1)
        )
    }
}

/// `#stablehlo.dot_algorithm<...>`'s own rules (`DotAlgorithmAttr::verify`): positive
/// component counts and primitive operations (C22, C23, C24), and a known combination
/// (I8...I10). Upstream checks them when the attribute is parsed, at the attribute; the text
/// parser can call this at the attribute's position. Other attributes pass.
pub(crate) fn verify_dot_algorithm(m: &Module, a: Attribute) -> Check {
    let Some(d) = DotAlgorithm::of(m, a) else {
        return Ok(());
    };
    let (lc, rc, ops) = (d.lhs_components, d.rhs_components, d.primitive_ops);
    ensure!(
        lc >= 1,
        "C22",
        "lhs component count must be positive, got {lc}"
    );
    ensure!(
        rc >= 1,
        "C23",
        "rhs component count must be positive, got {rc}"
    );
    ensure!(
        ops >= 1,
        "C24",
        "num primitive operations must be positive, got {ops}"
    );
    let t = |t: Type| crate::text::type_to_string(m, t);
    ensure!(
        d.is_known(m),
        "I8",
        "dot algorithm not known to be supported on any hardware: {{lhs:'{}', rhs:'{}', accum:'{}', lhs_components:{lc}, rhs_components:{rc}, primitive_ops:{ops}, imprecise:{}}}",
        t(d.lhs),
        t(d.rhs),
        t(d.accumulation),
        u8::from(d.imprecise)
    );
    Ok(())
}

/// `verifyDotGeneralOpQuantizationConstraints`: C15, C16, then the common rules.
fn dot_general_quantization(v: &OpView, lhs: Type, rhs: Type, result: Type, d: &DotDims) -> Check {
    let m = v.m;
    let (le, re, oe) = (
        element_or_self(m, lhs),
        element_or_self(m, rhs),
        element_or_self(m, result),
    );
    if let Some(Quant {
        axis, zero_points, ..
    }) = quant(m, re)
    {
        match axis {
            None => ensure!(
                zero_points.iter().all(|&z| z == 0),
                "C15",
                "Zero point of rhs should be 0"
            ),
            Some(axis) => {
                ensure!(
                    zero_points.iter().all(|&z| z == 0),
                    "C15",
                    "Zero points of rhs should be 0"
                );
                ensure!(
                    !d.rhs_contracting.contains(&axis),
                    "C16",
                    "Quantization dimension of rhs should not be in the contracting dimension of rhs"
                );
            }
        }
    }
    common_quantization(v, le, re, oe, ["C14", "C17", "C18", "C19", "C20"])
}

/// dot_general: the algorithm's rules (C22...C24, I8...I10), the shape function (C1...C11),
/// the result's shape (C12), DEFAULT precision with an algorithm (C21), and the quantization
/// rules (C14...C20).
fn dot_general(v: &OpView) -> Check {
    let (Some(lhs), Some(rhs), Some(res)) = (operand(v, 0), operand(v, 1), v.result_type(0)) else {
        return Ok(());
    };
    let algorithm = v.attr("algorithm");
    if let Some(a) = algorithm {
        verify_dot_algorithm(v.m, a)
            .map_err(|f| f.at(crate::text::verify::Place::AttributeValue("algorithm")))?;
    }
    let inferred = infer_dot_general(v)?;
    if let Some(dims) = inferred.first().and_then(|i| i.dims.as_deref()) {
        check_shape(v, dims, "C12")?;
    }
    if algorithm.is_some() {
        let default = match v.attr("precision_config").map(|a| v.m.attr_data(a)) {
            Some(AttrData::Array(xs)) => xs.iter().all(|&x| enum_case(v.m, x) == Some("DEFAULT")),
            _ => true,
        };
        ensure!(
            default,
            "C21",
            "must specify DEFAULT precision config when algorithm is set."
        );
    }
    if [lhs.ty, rhs.ty, res]
        .iter()
        .any(|&t| is_quantized_type(v.m, t))
    {
        dot_general_quantization(v, lhs.ty, rhs.ty, res, &dot_dims(v))?;
    }
    Ok(())
}

// ---- fft, triangular_solve, cholesky ------------------------------------------------------------

/// The result type of an fft (`inferFftOp`): C3 (1 to 3 lengths), C2 (element types), C1
/// (rank), C4 (the real side's trailing sizes are `fft_length`) and C5 (the result's shape).
///
/// An RFFT's result element is `complex<E>` and an IRFFT's is `E` for a `complex<E>`
/// operand. A verifier cannot intern a type, so that element is the op's own result element
/// when it is the expected one; otherwise the op is refused here, naming the expected type.
pub(crate) fn infer_fft(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let m = v.m;
    let Some(op) = operand(v, 0) else {
        bail!("ODS", "expects a ranked tensor operand");
    };
    let lengths = v.i64s("fft_length").unwrap_or_default();
    let kind = v.enum_case("fft_type").unwrap_or("FFT");
    let (rfft, irfft) = (kind == "RFFT", kind == "IRFFT");
    let fft_rank = lengths.len();
    ensure!(
        (1..=3).contains(&fft_rank),
        "C3",
        "rank must be between 1 and 3, but got {fft_rank}."
    );
    let complex_inner = match m.type_data(op.element) {
        TypeData::Complex(inner) => Some(*inner),
        _ => None,
    };
    if rfft {
        ensure!(
            matches!(
                float_kind(m, op.element),
                Some(FloatKind::F32 | FloatKind::F64)
            ),
            "C2",
            "RFFT requires f32 or f64 input type, but is given {}.",
            q(v, op.element)
        );
    } else {
        ensure!(
            complex_inner.is_some(),
            "C2",
            "FFT/IFFT/IRFFT take a complex tensor as input, but is given {}.",
            q(v, op.ty)
        );
    }
    ensure!(
        op.rank() >= fft_rank,
        "C1",
        "operand rank must not be less than fft rank of {fft_rank} for operand of type {}.",
        q(v, op.ty)
    );
    let mut dims = op.dims.to_vec();
    let last_len = lengths.last().copied().unwrap_or(0);
    let back = &op.dims[op.rank() - fft_rank..];
    if rfft {
        ensure!(
            back.iter().zip(&lengths).all(|(&d, &f)| compatible_dim(d, f)),
            "C4",
            "RFFT requires innermost dimensions to be compatible with fft_length. Got: {} but wanted {}.",
            ints_str(op.dims),
            ints_str(&lengths)
        );
        if last_len != 0 {
            if let Some(d) = dims.last_mut() {
                *d = last_len / 2 + 1;
            }
        }
    }
    if irfft {
        let non_final = &back[..fft_rank - 1];
        if let Some((&d, &f)) = non_final
            .iter()
            .zip(&lengths)
            .find(|(&d, &f)| !compatible_dim(d, f))
        {
            bail!(
                "C4",
                "IRFFT requires non-final dimensions to be compatible with fft_length. Got: {} but wanted {}, and {d} != {f}.",
                ints_str(op.dims),
                ints_str(&lengths)
            );
        }
        let last = op.dims.last().copied().unwrap_or(DYNAMIC);
        ensure!(
            (compatible_dim(last, 0) && last_len == 0)
                || compatible_dim(last, last_len / 2 + 1),
            "C5",
            "IRFFT requires innermost dimension to be compatible with fft_length[-1]/2+1. Got: {last} but fft_length is {}.",
            ints_str(&lengths)
        );
        if let Some(d) = dims.last_mut() {
            *d = last_len;
        }
    }
    let mut bounds = op.bounds.map(<[i64]>::to_vec);
    if rfft || irfft {
        if let Some(b) = bounds.as_mut().and_then(|b| b.last_mut()) {
            *b = DYNAMIC;
        }
    }
    // The result element: the operand's for FFT and IFFT.
    let result_element = v.result_type(0).map(|t| element_or_self(m, t));
    let element = if rfft {
        let ok = result_element.filter(
            |&e| matches!(m.type_data(e), TypeData::Complex(inner) if *inner == op.element),
        );
        match ok {
            Some(e) => e,
            None => {
                bail!(
                    "C2",
                    "inferred type(s) '{}' are incompatible with return type(s) of operation {}",
                    tensor_str(
                        Some(&dims),
                        &format!("complex<{}>", v.t(op.element)),
                        bounds.as_deref()
                    ),
                    types_str(v.m, &v.result_types())
                )
            }
        }
    } else if irfft {
        let inner = complex_inner.unwrap_or(op.element);
        match result_element.filter(|&e| e == inner) {
            Some(e) => e,
            None => bail!(
                "C2",
                "inferred type(s) '{}' are incompatible with return type(s) of operation {}",
                tensor_str(Some(&dims), &v.t(inner), bounds.as_deref()),
                types_str(v.m, &v.result_types())
            ),
        }
    } else {
        op.element
    };
    Ok(vec![Inferred {
        dims: Some(dims),
        element,
        bounds,
    }])
}

/// fft: its shape function, and the result against it.
fn fft(v: &OpView) -> Check {
    if operand(v, 0).is_none() {
        return Ok(());
    }
    let inferred = infer_fft(v)?;
    check_inferred_components(v, &inferred, "C5")
}

/// The result type of a triangular_solve (`inferTriangularSolveOp`): C2 and C3, and a valid
/// `transpose_a`; the result is b's type (C4).
pub(crate) fn infer_triangular_solve(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let (Some(a), Some(b)) = (operand(v, 0), operand(v, 1)) else {
        bail!("ODS", "expects ranked tensor operands");
    };
    let rank = a.rank();
    ensure!(
        rank >= 2,
        "C2",
        "operand 'a' must have rank >= 2, but got {}",
        q(v, a.ty)
    );
    ensure!(
        compatible_dim(a.dim(rank - 2), a.dim(rank - 1)),
        "C3",
        "two minor dimensions of operand 'a' must be compatible, but got {}",
        q(v, a.ty)
    );
    ensure!(
        rank == b.rank(),
        "C2",
        "operands must have equal rank, but got {} and {}",
        q(v, a.ty),
        q(v, b.ty)
    );
    let left_side = matches!(
        v.attr("left_side").map(|a| v.m.attr_data(a)),
        Some(AttrData::Bool(true))
    );
    let shared = b.dim(rank - if left_side { 2 } else { 1 });
    ensure!(
        compatible_dim(a.dim(rank - 1), shared),
        "C3",
        "shared dimension of operands 'a' and 'b' must be compatible, but got {} and {}",
        q(v, a.ty),
        q(v, b.ty)
    );
    ensure!(
        compatible_shapes(Some(&a.dims[..rank - 2]), Some(&b.dims[..rank - 2])),
        "C3",
        "batch dimensions of the operands must be compatible, but got {} and {}",
        q(v, a.ty),
        q(v, b.ty)
    );
    ensure!(
        v.enum_case("transpose_a") != Some("TRANSPOSE_INVALID"),
        "transpose_a",
        "Invalid transpose option value for triangular solve"
    );
    Ok(vec![Inferred {
        dims: Some(b.dims.to_vec()),
        element: b.element,
        bounds: b.bounds.map(<[i64]>::to_vec),
    }])
}

/// triangular_solve: compatible element types (C1's, an ODS trait), its shape function, and
/// the result against it (C4).
fn triangular_solve(v: &OpView) -> Check {
    compatible_operands_and_result_element(v.m, v.op, "CompatibleOperandsAndResultElementType")?;
    if operand(v, 0).is_none() || operand(v, 1).is_none() {
        return Ok(());
    }
    let inferred = infer_triangular_solve(v)?;
    check_inferred_components(v, &inferred, "C4")
}

/// The result type of a cholesky (`inferCholeskyOp`): C2, C3; the result is a's type (C1).
pub(crate) fn infer_cholesky(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let Some(a) = operand(v, 0) else {
        bail!("ODS", "expects a ranked tensor operand");
    };
    let rank = a.rank();
    ensure!(
        rank >= 2,
        "C2",
        "argument 'a' must have rank >= 2, got shape {}.",
        ints_str(a.dims)
    );
    ensure!(
        compatible_dim(a.dim(rank - 2), a.dim(rank - 1)),
        "C3",
        "minor dimensions of 'a' must have equal size, got shape {}.",
        ints_str(a.dims)
    );
    Ok(vec![Inferred {
        dims: Some(a.dims.to_vec()),
        element: a.element,
        bounds: a.bounds.map(<[i64]>::to_vec),
    }])
}

/// cholesky: compatible element types (C1's, an ODS trait), its shape function, and the
/// result against it (C1).
fn cholesky(v: &OpView) -> Check {
    compatible_operands_and_result_element(v.m, v.op, "CompatibleOperandsAndResultElementType")?;
    if operand(v, 0).is_none() {
        return Ok(());
    }
    let inferred = infer_cholesky(v)?;
    check_inferred_components(v, &inferred, "C1")
}

// ---- batch_norm_* -----------------------------------------------------------------------------

/// The result types of batch_norm_grad, batch_norm_inference and batch_norm_training
/// (`inferBatchNormOp`): the multi-dimensional operands (operand, and grad_output) have
/// compatible shapes, and so do the 1-D ones; `feature_index` is below the rank (C1) and the
/// 1-D operands have the feature count's size. The results: the operand's type, then (but for
/// inference) two 1-D tensors of the feature count.
pub(crate) fn infer_batch_norm(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let m = v.m;
    let types = v.operand_types();
    let (multi, single): (Vec<Type>, Vec<Type>) = match v.kind {
        K::BatchNormGrad => (
            [types.first(), types.get(4)]
                .into_iter()
                .flatten()
                .copied()
                .collect(),
            types.iter().skip(1).take(3).copied().collect(),
        ),
        _ => (
            types.first().copied().into_iter().collect(),
            types.iter().skip(1).copied().collect(),
        ),
    };
    let (grad, inference) = (v.kind == K::BatchNormGrad, v.kind == K::BatchNormInference);
    let pairwise = |ts: &[Type]| {
        let shapes: Vec<Option<&[Dim]>> = ts
            .iter()
            .map(|&t| shaped(m, t).and_then(|s| s.dims))
            .collect();
        // Compatibility of sizes is not transitive (`?` matches both 2 and 3): every pair.
        shapes.iter().all(|a| {
            shapes.iter().all(|b| match (a, b) {
                (Some(a), Some(b)) => compatible_shapes(Some(a), Some(b)),
                _ => true,
            })
        })
    };
    ensure!(
        pairwise(&multi),
        if grad { "C3" } else { "C1" },
        "expects multi-dimensional operands to have compatible shapes."
    );
    ensure!(
        pairwise(&single),
        if grad { "C4" } else { "C3" },
        "expects single-dimensional operands to have compatible shapes."
    );
    let Some(operand) = multi.first().and_then(|&t| ranked(m, t)) else {
        bail!("ODS", "expects a ranked tensor operand");
    };
    let feature_index = v.int("feature_index").unwrap_or(0);
    let rank = operand.rank();
    let index = usize::try_from(feature_index).ok().filter(|&i| i < rank);
    let Some(index) = index else {
        bail!(
            "C1",
            "expects featureIndex to be smaller than the rank of multi-dimensional operands; got featureIndex {feature_index}, and rank {rank}."
        );
    };
    let features = operand.dim(index);
    let single_size = single
        .first()
        .and_then(|&t| ranked(m, t))
        .map_or(DYNAMIC, |s| s.dim(0));
    ensure!(
        compatible_dim(single_size, features),
        if grad { "C5" } else { "C3" },
        "expects the size of single-dimensional operands to be compatible with feature count, but the size of single-dimensional operands is {} and the feature count is {}.",
        size_str(single_size),
        size_str(features)
    );
    let mut out = vec![Inferred {
        dims: Some(operand.dims.to_vec()),
        element: operand.element,
        bounds: operand.bounds.map(<[i64]>::to_vec),
    }];
    if !inference {
        let one = Inferred {
            dims: Some(vec![features]),
            element: operand.element,
            bounds: operand.bounds.map(|_| vec![operand.bound(index)]),
        };
        out.push(one.clone());
        out.push(one);
    }
    Ok(out)
}

/// batch_norm_grad, batch_norm_inference, batch_norm_training: compatible element types (C2,
/// an ODS trait), the shape function, and the results against it.
fn batch_norm(v: &OpView) -> Check {
    compatible_operands_and_result_element(v.m, v.op, "CompatibleOperandsAndResultElementType")?;
    let inferred = infer_batch_norm(v)?;
    let rule = if v.kind == K::BatchNormGrad {
        "C3"
    } else {
        "C7"
    };
    check_inferred_components(v, &inferred, rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A padding from `arith.constant` is a constant to upstream's `matchInts` too, so the window
    /// of a dynamic_conv is checked with it; jaxlib (StableHLO 1.17.0) refuses both programs.
    #[test]
    fn dynamic_conv_padding_from_any_constant() {
        for constant in ["stablehlo.constant", "arith.constant"] {
            let src = format!(
                "func.func @f(%a: tensor<100x26x26x32xf32>, %b: tensor<3x3x1x32xf32>) -> tensor<100x28x28x1xf32> {{\n  %p = {constant} dense<2> : tensor<2x2xi64>\n  %r = \"stablehlo.dynamic_conv\"(%a, %b, %p) {{dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, window_strides = array<i64: 0, 1>}} : (tensor<100x26x26x32xf32>, tensor<3x3x1x32xf32>, tensor<2x2xi64>) -> tensor<100x28x28x1xf32>\n  return %r : tensor<100x28x28x1xf32>\n}}\n"
            );
            let e = crate::text::parse(&src).unwrap_err().to_string();
            assert!(
                e.contains("expects window to have positive stride for 0-th window dimension"),
                "{constant}: {e}"
            );
        }
    }

    #[test]
    fn dot_algorithms() {
        let mut m = Module::new();
        let mut t = |s: &str| crate::text::parse_type(&mut m, s).unwrap();
        let (f32_, bf16, f8, i8_) = (t("f32"), t("bf16"), t("f8E4M3FN"), t("i8"));
        let alg = |l, r, a, ops, imprecise| DotAlgorithm {
            lhs: l,
            rhs: r,
            accumulation: a,
            lhs_components: 1,
            rhs_components: 1,
            primitive_ops: ops,
            imprecise,
        };
        assert!(alg(f32_, f32_, f32_, 1, false).is_known(&m));
        assert!(!alg(f32_, f32_, f32_, 1, true).is_known(&m));
        assert!(alg(bf16, bf16, f32_, 6, false).is_known(&m));
        assert!(!alg(bf16, bf16, f32_, 2, false).is_known(&m));
        assert!(alg(f8, f8, f32_, 1, true).is_known(&m));
        assert!(!alg(i8_, f32_, f32_, 1, false).is_known(&m));
        let three = DotAlgorithm {
            lhs_components: 3,
            ..alg(f32_, f32_, f32_, 1, false)
        };
        assert!(!three.is_known(&m));
        let a = crate::text::parse_attribute(
            &mut m,
            "#stablehlo.dot_algorithm<lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 3, num_primitive_operations = 1, allow_imprecise_accumulation = false>",
        )
        .unwrap();
        let e = verify_dot_algorithm(&m, a).unwrap_err();
        assert!(e.message.ends_with("{lhs:'f32', rhs:'f32', accum:'f32', lhs_components:1, rhs_components:3, primitive_ops:1, imprecise:0}"), "{}", e.message);
    }

    /// Verifies `body` as the body of a function of `sig`, returning the first message.
    fn first_error(sig: &str, body: &str) -> Option<String> {
        let src = format!("func.func @main{sig} {{\n{body}\n}}\n");
        let m = crate::text::parse_unverified(&src).expect("parses");
        crate::text::verify::verify(&m)
            .err()
            .map(|e| e.0.first().map(|d| d.subject.clone()).unwrap_or_default())
    }

    #[test]
    fn convolution_shapes() {
        let sig = "(%a: tensor<1x8x8x4xf32>, %b: tensor<3x3x2x6xf32>) -> tensor<1x4x6x6xf32>";
        let conv = |result: &str| {
            format!(
                "  %0 = \"stablehlo.convolution\"(%a, %b) <{{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 2 : i64, padding = dense<[[1, 1], [0, 2]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 2>, window_strides = array<i64: 2, 1>}}> : (tensor<1x8x8x4xf32>, tensor<3x3x2x6xf32>) -> {result}\n  return %0 : tensor<1x4x6x6xf32>"
            )
        };
        assert_eq!(first_error(sig, &conv("tensor<1x4x6x6xf32>")), None);
        let sig7 = sig.replace("-> tensor<1x4x6x6xf32>", "-> tensor<1x4x7x6xf32>");
        let body = conv("tensor<1x4x7x6xf32>").replace(
            "return %0 : tensor<1x4x6x6xf32>",
            "return %0 : tensor<1x4x7x6xf32>",
        );
        let e = first_error(&sig7, &body).expect("refused");
        assert!(
            e.starts_with("inferred shape '[1, 4, 6, 6]' is incompatible"),
            "{e}"
        );
    }

    #[test]
    fn fft_and_dot_general() {
        let irfft = "  %0 = \"stablehlo.fft\"(%a) {fft_length = array<i64: 3, 16>, fft_type = #stablehlo<fft_type IRFFT>} : (tensor<?x3x9xcomplex<f32>>) -> tensor<?x3x16xf32>\n  return %0 : tensor<?x3x16xf32>";
        assert_eq!(
            first_error(
                "(%a: tensor<?x3x9xcomplex<f32>>) -> tensor<?x3x16xf32>",
                irfft
            ),
            None
        );
        let rfft = "  %0 = \"stablehlo.fft\"(%a) {fft_length = array<i64: 8>, fft_type = #stablehlo<fft_type RFFT>} : (tensor<8xf32>) -> tensor<8xcomplex<f32>>\n  return %0 : tensor<8xcomplex<f32>>";
        let e =
            first_error("(%a: tensor<8xf32>) -> tensor<8xcomplex<f32>>", rfft).expect("refused");
        assert!(
            e.contains("inferred type(s) 'tensor<5xcomplex<f32>>'"),
            "{e}"
        );
        let dot = "  %0 = \"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x3x4xf32>, tensor<2x5x6xf32>) -> tensor<2x3x6xf32>\n  return %0 : tensor<2x3x6xf32>";
        let e = first_error(
            "(%a: tensor<2x3x4xf32>, %b: tensor<2x5x6xf32>) -> tensor<2x3x6xf32>",
            dot,
        )
        .expect("refused");
        assert!(
            e.starts_with("contracting dimension sizes must match for lhs/rhs"),
            "{e}"
        );
    }
}
