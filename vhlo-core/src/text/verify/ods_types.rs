//! The ODS types of StableHLO ops' operands and results (StablehloOps.td's
//! `HLO_FpOrQuantizedIntTensor:$operand`, `Variadic<HLO_Tensor>`), which MLIR's generated
//! verifier checks before the op's own: "operand #0 must be ranked tensor of ... values, but got
//! 'tensor<...>'". Declarative facts: the spec records each op's types (`operand_types:`,
//! `result_types:`), codegen lowers them (codegen/src/ods_types.rs) into
//! `StablehloOp::operand_type_constraints` and `result_type_constraints`, checked here.

use crate::ir::{FloatKind, Module, Signedness, Type, TypeData, Value};
use crate::vhlo::{OdsElement, OdsShape, OdsTypeAlternative, OdsValueType, StablehloOp};

use super::types::{bounds_of, is_dynamic, quant, Quant};
use super::{ensure, Check};

/// Checks every operand, then every result, of `op` against its ODS types, as MLIR does (the
/// first mismatch, numbered across the op's operands or results).
pub(crate) fn check(m: &Module, kind: StablehloOp, op: crate::ir::OpId) -> Check {
    // The types are the op's own: `func.return`, which shares `stablehlo.return`'s kind, has none.
    if m.op_name_str(op) != kind.name() {
        return Ok(());
    }
    let operands = m.operands(op).iter().map(|&v| m.value_type(v));
    check_values(m, "operand", kind.operand_type_constraints(), operands)?;
    let results = m.results(op).map(|v: Value| m.value_type(v));
    check_values(m, "result", kind.result_type_constraints(), results)
}

/// An op of another dialect of the spec (`spec/dialects/*.yaml`) against the ODS types the
/// spec gives its operands and results, as [`check`].
pub(crate) fn check_codec(m: &Module, op: crate::ir::OpId) -> Check {
    let Some((operands, results)) = crate::vhlo::codec_op_value_types(m.op_name_str(op)) else {
        return Ok(());
    };
    let types = m.operands(op).iter().map(|&v| m.value_type(v));
    // Ops with several variadic groups say how many operands each has (ODS's
    // `AttrSizedOperandSegments`: scf.forall, tensor.extract_slice, ...).
    let segments = crate::text::op_format::segment_sizes(m, op)
        .filter(|s| s.len() == operands.len() && s.iter().sum::<usize>() == types.len());
    match segments {
        Some(sizes) => check_grouped(m, "operand", operands, sizes.into_iter(), types)?,
        None => check_values(m, "operand", operands, types)?,
    }
    check_values(
        m,
        "result",
        results,
        m.results(op).map(|v: Value| m.value_type(v)),
    )
}

fn check_values(
    m: &Module,
    what: &str,
    groups: &[OdsValueType],
    types: impl ExactSizeIterator<Item = Type>,
) -> Check {
    let Some(sizes) = group_sizes(groups, types.len()) else {
        // A wrong number of values: left to the op's own checks.
        return Ok(());
    };
    check_grouped(m, what, groups, sizes, types)
}

/// [`check_values`] with each group's number of values given.
fn check_grouped(
    m: &Module,
    what: &str,
    groups: &[OdsValueType],
    sizes: impl Iterator<Item = usize>,
    types: impl Iterator<Item = Type>,
) -> Check {
    // Each value against the group it falls in, in order.
    let group_of_each = groups
        .iter()
        .zip(sizes)
        .flat_map(|(g, n)| std::iter::repeat_n(g, n));
    for (i, (t, g)) in types.zip(group_of_each).enumerate() {
        ensure!(
            satisfies(m, t, g),
            "ODS",
            "{what} #{i} must be {}, but got '{}'",
            g.summary,
            crate::text::type_to_string(m, t)
        );
    }
    Ok(())
}

/// How many values each group has: one for a fixed group, and what the fixed ones leave shared
/// equally among the variadic ones (ODS's `SameVariadicOperandSize`, the only rule StableHLO
/// ops with several variadic groups use). `None` when the count cannot be split so.
fn group_sizes(groups: &[OdsValueType], total: usize) -> Option<impl Iterator<Item = usize> + '_> {
    let variadic = groups.iter().filter(|g| g.variadic).count();
    let fixed = groups.len() - variadic;
    let rest = total.checked_sub(fixed)?;
    let each = if variadic == 0 {
        if rest != 0 {
            return None;
        }
        0
    } else {
        if rest % variadic != 0 {
            return None;
        }
        rest / variadic
    };
    Some(
        groups
            .iter()
            .map(move |g| if g.variadic { each } else { 1 }),
    )
}

/// True when `t` is of one of the kinds `c` accepts.
pub(crate) fn satisfies(m: &Module, t: Type, c: &OdsValueType) -> bool {
    c.alternatives.iter().any(|a| alternative(m, t, a))
}

fn alternative(m: &Module, t: Type, a: &OdsTypeAlternative) -> bool {
    match *a {
        OdsTypeAlternative::Tensor {
            ranked,
            rank,
            shape,
            quantized_dimension,
            elements,
        } => {
            let (dims, element, encoding) = match m.type_data(t) {
                TypeData::RankedTensor {
                    shape,
                    element,
                    encoding,
                } => (Some(&shape[..]), *element, *encoding),
                TypeData::UnrankedTensor { element } if !ranked && rank.is_none() => {
                    (None, *element, None)
                }
                _ => return false,
            };
            if let (Some(r), Some(d)) = (rank, dims) {
                if d.len() != usize::from(r) {
                    return false;
                }
            }
            let shape_ok = match (shape, dims) {
                (OdsShape::Any, _) => true,
                (OdsShape::Static, Some(d)) => d.iter().all(|&x| !is_dynamic(x)),
                (OdsShape::StaticOrSingleBounded, Some(d)) => {
                    d.iter().all(|&x| !is_dynamic(x)) || single_bounded(m, d, encoding)
                }
                (OdsShape::NonZeroRank, d) => d.is_none_or(|d| !d.is_empty()),
                (_, None) => false,
            };
            shape_ok
                && elements.iter().any(|&e| element_ok(m, element, e))
                && (!quantized_dimension
                    || dims.is_none_or(|d| valid_quantized_dimension(m, d, element)))
        }
        OdsTypeAlternative::Memref(elements) => crate::ir::memref_parts(m, t)
            .is_some_and(|(_, e)| elements.iter().any(|&k| element_ok(m, e, k))),
        OdsTypeAlternative::Like(elements) => {
            let of = |e: Type| elements.iter().any(|&k| element_ok(m, e, k));
            match m.type_data(t) {
                TypeData::RankedTensor { element, .. } | TypeData::UnrankedTensor { element } => {
                    of(*element)
                }
                _ => match crate::ir::vector_parts(m, t) {
                    Some((_, element)) => of(element),
                    None => of(t),
                },
            }
        }
        OdsTypeAlternative::Any => true,
        OdsTypeAlternative::Scalar(elements) => elements.iter().any(|&k| element_ok(m, t, k)),
        OdsTypeAlternative::Shaped(elements) => {
            let element = match m.type_data(t) {
                TypeData::RankedTensor { element, .. } | TypeData::UnrankedTensor { element } => {
                    Some(*element)
                }
                _ => crate::ir::memref_parts(m, t)
                    .map(|(_, e)| e)
                    .or_else(|| crate::ir::vector_parts(m, t).map(|(_, e)| e)),
            };
            element.is_some_and(|e| elements.iter().any(|&k| element_ok(m, e, k)))
        }
        OdsTypeAlternative::Dialect(dialect, mnemonic) => matches!(
            m.type_data(t),
            TypeData::Dialect(d) if m.str(d.dialect) == dialect && m.str(d.mnemonic) == mnemonic
        ),
        OdsTypeAlternative::Token => stablehlo_type(m, t, "token"),
        OdsTypeAlternative::Future => stablehlo_type(m, t, "future"),
        OdsTypeAlternative::NestedTuple(leaves) => {
            if !matches!(m.type_data(t), TypeData::Tuple(_)) {
                return false;
            }
            // Every leaf, through nested tuples, without recursion; each distinct type once
            // (a tuple DAG has exponentially many paths).
            let mut stack = vec![t];
            let mut seen: crate::ir::FastSet<Type> = crate::ir::FastSet::default();
            while let Some(x) = stack.pop() {
                if !seen.insert(x) {
                    continue;
                }
                match m.type_data(x) {
                    TypeData::Tuple(xs) => stack.extend(xs.iter().copied()),
                    _ => {
                        if !leaves.iter().any(|l| alternative(m, x, l)) {
                            return false;
                        }
                    }
                }
            }
            true
        }
    }
}

fn stablehlo_type(m: &Module, t: Type, mnemonic: &str) -> bool {
    matches!(m.type_data(t), TypeData::Dialect(d) if m.str(d.dialect) == "stablehlo" && m.str(d.mnemonic) == mnemonic)
}

/// Base.cpp's `hasSingleBoundedDimension`: exactly one bounded size and one dynamic size.
fn single_bounded(m: &Module, dims: &[i64], encoding: Option<crate::ir::Attribute>) -> bool {
    let Some(bounds) = encoding.and_then(|e| bounds_of(m, e)) else {
        return false;
    };
    bounds.iter().filter(|&&b| !is_dynamic(b)).count() == 1
        && dims.iter().filter(|&&d| is_dynamic(d)).count() == 1
}

/// Base.cpp's `isValidQuantizedDimension`: a per-axis element's dimension is below the rank,
/// and the dimension is dynamic or has one scale per index.
pub(crate) fn valid_quantized_dimension(m: &Module, dims: &[i64], element: Type) -> bool {
    let Some(Quant {
        axis: Some(axis),
        scales,
        ..
    }) = quant(m, element)
    else {
        return true;
    };
    let Some(size) = usize::try_from(axis).ok().and_then(|a| dims.get(a)) else {
        return false;
    };
    is_dynamic(*size) || i64::try_from(scales.len()).is_ok_and(|n| n == *size)
}

/// True when element type `e` is of class `k`.
pub(crate) fn element_ok(m: &Module, e: Type, k: OdsElement) -> bool {
    let int = |width_ok: &dyn Fn(u32) -> bool, s: Signedness| matches!(m.type_data(e), TypeData::Integer { width, signedness } if *signedness == s && width_ok(*width));
    let hlo_width = |w: u32| matches!(w, 2 | 4 | 8 | 16 | 32 | 64);
    match k {
        OdsElement::Float => matches!(
            m.type_data(e),
            TypeData::Float(k) if !matches!(k, FloatKind::TF32 | FloatKind::F80 | FloatKind::F128)
        ),
        OdsElement::Float32Or64 => {
            matches!(
                m.type_data(e),
                TypeData::Float(FloatKind::F32 | FloatKind::F64)
            )
        }
        OdsElement::Pred => int(&|w| w == 1, Signedness::Signless),
        OdsElement::SignlessInt => int(&hlo_width, Signedness::Signless),
        OdsElement::UnsignedInt => int(&hlo_width, Signedness::Unsigned),
        OdsElement::Complex => matches!(
            m.type_data(e),
            TypeData::Complex(inner) if matches!(m.type_data(*inner), TypeData::Float(FloatKind::F32 | FloatKind::F64))
        ),
        OdsElement::QuantizedInt => quantized_int(m, e, false),
        OdsElement::PerAxisQuantizedInt => quantized_int(m, e, true),
        OdsElement::Index => matches!(m.type_data(e), TypeData::Index),
        OdsElement::AnyInteger => matches!(m.type_data(e), TypeData::Integer { .. }),
        OdsElement::I32 => int(&|w| w == 32, Signedness::Signless),
        OdsElement::UI32 => int(&|w| w == 32, Signedness::Unsigned),
        OdsElement::AnyFloat => matches!(m.type_data(e), TypeData::Float(_)),
        OdsElement::AnySignlessInteger => int(&|_| true, Signedness::Signless),
        OdsElement::NonZeroSignlessInteger => int(&|w| w > 0, Signedness::Signless),
        OdsElement::AnyUnsignedInteger => int(&|_| true, Signedness::Unsigned),
        OdsElement::AnySignedInteger => int(&|_| true, Signedness::Signed),
        OdsElement::AnyComplex => matches!(m.type_data(e), TypeData::Complex(_)),
        OdsElement::ComplexOfAnyFloat => matches!(
            m.type_data(e),
            TypeData::Complex(inner) if matches!(m.type_data(*inner), TypeData::Float(_))
        ),
        OdsElement::Any => true,
    }
}

/// Base.td's `HLO_QuantizedInt` (or, `per_axis`, `HLO_PerAxisQuantizedInt`): a `!quant.uniform`
/// of that granularity whose storage is 2/4/8/16/32 bits, signless when signed, with every zero
/// point within the storage range (`isValidStablehloQuantizedElementType`).
fn quantized_int(m: &Module, e: Type, per_axis: bool) -> bool {
    let Some(q) = quant(m, e) else {
        return false;
    };
    if q.axis.is_some() != per_axis {
        return false;
    }
    let TypeData::Integer { width, signedness } = *m.type_data(q.storage) else {
        return false;
    };
    matches!(width, 2 | 4 | 8 | 16 | 32)
        && (signedness == Signedness::Signless || !q.signed)
        && q.zero_points
            .iter()
            .all(|&z| q.storage_min <= z && z <= q.storage_max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(m: &mut Module, s: &str) -> Type {
        crate::text::parse_type(m, s).unwrap()
    }

    fn first_operand(op: &str) -> OdsValueType {
        StablehloOp::from_name(op)
            .unwrap()
            .operand_type_constraints()[0]
    }

    #[test]
    fn elements_and_shapes() {
        let mut m = Module::new();
        let fp_or_q = first_operand("stablehlo.ceil");
        for (t, ok) in [
            ("tensor<2xf32>", true),
            ("tensor<2xbf16>", true),
            ("tensor<2xtf32>", false),
            ("tensor<*xf32>", false),
            ("tensor<2xi32>", false),
            ("tensor<2x!quant.uniform<i8:f32, 1.0>>", true),
            ("tensor<2x!quant.uniform<si8:f32, 1.0>>", false),
            ("tensor<2x!quant.uniform<i8:f32, 1.0:300>>", false),
            ("tensor<2x!quant.uniform<i8:f32:0, {1.0, 2.0}>>", false),
        ] {
            let t = ty(&mut m, t);
            assert_eq!(
                satisfies(&m, t, &fp_or_q),
                ok,
                "{}",
                crate::text::type_to_string(&m, t)
            );
        }
        // Per-axis: the dimension must be below the rank and its size the number of scales.
        let any = first_operand("stablehlo.transpose");
        for (t, ok) in [
            ("tensor<1x2x!quant.uniform<i8:f32:1, {1.0, 2.0}>>", true),
            ("tensor<1x?x!quant.uniform<i8:f32:1, {1.0, 2.0}>>", true),
            ("tensor<1x3x!quant.uniform<i8:f32:1, {1.0, 2.0}>>", false),
            ("tensor<1x2x!quant.uniform<i8:f32:2, {1.0, 2.0}>>", false),
            ("tensor<2xi1>", true),
            ("tensor<2xsi32>", false),
            ("tensor<2xui4>", true),
        ] {
            let t = ty(&mut m, t);
            assert_eq!(
                satisfies(&m, t, &any),
                ok,
                "{}",
                crate::text::type_to_string(&m, t)
            );
        }
        // Static or single bounded (reshape's result).
        let r = StablehloOp::from_name("stablehlo.reshape")
            .unwrap()
            .result_type_constraints()[0];
        for (t, ok) in [
            ("tensor<2xf32>", true),
            ("tensor<?xf32>", false),
            ("tensor<?xf32, #stablehlo.bounds<4>>", true),
            ("tensor<?x?xf32, #stablehlo.bounds<4, ?>>", false),
        ] {
            let t = ty(&mut m, t);
            assert_eq!(
                satisfies(&m, t, &r),
                ok,
                "{}",
                crate::text::type_to_string(&m, t)
            );
        }
    }

    /// MLIR's "-like" types of other dialects' ops (arith's `FloatLike`, `BoolLike`, ...).
    #[test]
    fn like_types_take_scalars_vectors_and_tensors() {
        let mut m = Module::new();
        let mut check = |c: &OdsValueType, cases: &[(&str, bool)]| {
            for &(t, ok) in cases {
                let t = ty(&mut m, t);
                let shown = crate::text::type_to_string(&m, t);
                assert_eq!(satisfies(&m, t, c), ok, "{shown}");
            }
        };
        let (operands, results) = crate::vhlo::codec_op_value_types("arith.cmpf").unwrap();
        check(
            &operands[0],
            &[
                ("f32", true),
                ("f80", true),
                ("vector<2xbf16>", true),
                ("tensor<*xf64>", true),
                ("tensor<2xi32>", false),
                ("complex<f32>", false),
                ("memref<2xf32>", false),
            ],
        );
        check(
            &results[0],
            &[("i1", true), ("tensor<2xi1>", true), ("i8", false)],
        );
        let (operands, _) = crate::vhlo::codec_op_value_types("arith.addi").unwrap();
        check(
            &operands[0],
            &[
                ("index", true),
                ("i64", true),
                ("i0", false),
                ("ui8", false),
            ],
        );
    }

    #[test]
    fn variadic_groups_share_what_is_left() {
        let reduce = StablehloOp::from_name("stablehlo.reduce").unwrap();
        let g = reduce.operand_type_constraints();
        let sizes = |g, n| group_sizes(g, n).map(|s| s.collect::<Vec<_>>());
        assert_eq!(sizes(g, 4), Some(vec![2, 2]));
        assert_eq!(sizes(g, 3), None);
        let dus = StablehloOp::from_name("stablehlo.dynamic_update_slice").unwrap();
        assert_eq!(
            sizes(dus.operand_type_constraints(), 5),
            Some(vec![1, 1, 3])
        );
        assert_eq!(sizes(dus.operand_type_constraints(), 1), None);
    }

    /// Every StableHLO op of StablehloOps.td has its types recorded in the spec.
    #[test]
    fn every_stablehlo_op_has_value_types() {
        for op in StablehloOp::ALL {
            let n = op.name();
            if !n.starts_with("stablehlo.") || n == "stablehlo.cross-replica-sum" {
                continue;
            }
            assert!(
                !op.operand_type_constraints().is_empty()
                    || !op.result_type_constraints().is_empty(),
                "{n}"
            );
        }
    }
}
