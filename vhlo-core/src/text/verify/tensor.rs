//! What upstream's TensorOps.cpp and ShapeOps.cpp check of tensor and shape ops beyond the ODS
//! types and traits the spec gives them (spec/dialects/tensor.yaml, shape.yaml), in MLIR's
//! order: [`verify_predicates`] with the ODS predicates, [`verify`] after the traits.

use crate::ir::{AttrData, FastSet, Module, OpId, Symbol, Type, TypeData};

use super::types::{is_dynamic, shaped_dims, tensor_dims};
use super::{bail, ensure, fail, Check};

/// The text of an element type (empty for none).
fn element_text(m: &Module, t: Option<Type>) -> String {
    t.map(|e| crate::text::type_to_string(m, e))
        .unwrap_or_default()
}

/// The text of a ranked tensor type of these sizes (`?` for dynamic ones), element type and
/// encoding, as MLIR prints the type it inferred.
pub(super) fn tensor_text(
    m: &Module,
    sizes: &[i64],
    element: &str,
    encoding: Option<crate::ir::Attribute>,
) -> String {
    let encoding = encoding.map(|e| crate::text::attribute_to_string(m, e));
    super::types::tensor_with_encoding(Some(sizes), element, encoding.as_deref())
}

/// The number of elements of a statically shaped tensor.
fn elements(m: &Module, t: Type) -> Option<i64> {
    super::types::num_elements(tensor_dims(m, t)?)
}

/// InferTypeOpInterface's failure: the type an op infers (as MLIR prints it) against its result.
fn incompatible_inferred(m: &Module, inferred: &str, result: Type) -> super::Failure {
    fail(
        "InferTypeOpInterface",
        format!(
            "inferred type(s) '{inferred}' are incompatible with return type(s) of operation '{}'",
            crate::text::type_to_string(m, result)
        ),
    )
}

/// The mnemonic of a type of the shape dialect (`shape`, `size`, `value_shape`, ...).
fn shape_mnemonic(m: &Module, t: Type) -> Option<&str> {
    match m.type_data(t) {
        TypeData::Dialect(d) if m.str(d.dialect) == "shape" => Some(m.str(d.mnemonic)),
        _ => None,
    }
}

fn element_type(m: &Module, t: Type) -> Option<Type> {
    match m.type_data(t) {
        TypeData::RankedTensor { element, .. } | TypeData::UnrankedTensor { element } => {
            Some(*element)
        }
        _ => None,
    }
}

fn result_type(m: &Module, op: OpId) -> Option<Type> {
    m.result(op, 0).map(|v| m.value_type(v))
}

/// ODS predicates the spec's `verifies:` cannot say: `tensor.from_elements` has as many operands
/// as its result has elements (its `TypesMatchWith` builds that many types).
pub(crate) fn verify_predicates(m: &Module, op: OpId) -> Check {
    if m.op_name_str(op) == "tensor.from_elements" {
        let count = i64::try_from(m.operands(op).len()).unwrap_or(i64::MAX);
        ensure!(
            result_type(m, op).and_then(|t| elements(m, t)) == Some(count),
            "TypesMatchWith",
            "failed to verify that operand types match result element type"
        );
    }
    Ok(())
}

/// The ops' own verifiers (and `shape.shape_of`'s inferred result type).
pub(crate) fn verify(m: &Module, op: OpId) -> Check {
    let name = m.op_name_str(op);
    let operand = |i: usize| m.operands(op).get(i).map(|&v| m.value_type(v));
    match name {
        "tensor.cast" | "tensor.bitcast" => {
            let (Some(from), Some(to)) = (operand(0), result_type(m, op)) else {
                return Ok(());
            };
            // `areCastCompatible`: compatible shapes, and one element type (`tensor.cast`) or
            // elements of one bit width (`tensor.bitcast`).
            let width = |t: Type| match element_type(m, t).map(|e| m.type_data(e)) {
                Some(crate::ir::TypeData::Integer { width, .. }) => Some(*width),
                Some(crate::ir::TypeData::Float(k)) => Some(k.bit_width()),
                _ => None,
            };
            let elements_fit = match name {
                "tensor.cast" => element_type(m, from) == element_type(m, to),
                _ => width(from) == width(to),
            };
            let shapes_fit =
                super::types::compatible_shapes(tensor_dims(m, from), tensor_dims(m, to));
            if !elements_fit || !shapes_fit {
                return Err(super::types::cast_incompatible(m, from, to));
            }
        }
        "tensor.empty" | "tensor.splat" | "tensor.generate" => {
            let (rule, skip) = match name {
                "tensor.empty" => ("tensor.empty", 0),
                "tensor.splat" => ("tensor.splat", 1),
                _ => ("tensor.generate", 0),
            };
            let dynamic = result_type(m, op)
                .and_then(|t| tensor_dims(m, t))
                .map_or(0, |d| d.iter().filter(|&&x| is_dynamic(x)).count());
            let given = m.operands(op).len().saturating_sub(skip);
            ensure!(
                given == dynamic,
                rule,
                "incorrect number of dynamic sizes, has {given}, expected {dynamic}"
            );
        }
        "tensor.extract" | "tensor.insert" => {
            let (rule, tensor, indices, message) = if name == "tensor.extract" {
                (
                    "tensor.extract",
                    0,
                    1,
                    "incorrect number of indices for extract_element",
                )
            } else {
                ("tensor.insert", 1, 2, "incorrect number of indices")
            };
            let rank = operand(tensor)
                .and_then(|t| tensor_dims(m, t))
                .map(<[i64]>::len);
            let given = m.operands(op).len().saturating_sub(indices);
            if rank.is_some_and(|r| r != given) {
                return Err(fail(rule, message));
            }
        }
        "tensor.reshape" => return reshape(m, op),
        "tensor.concat" => return concat(m, op),
        "tensor.pad" => return pad(m, op),
        "tensor.expand_shape" | "tensor.collapse_shape" => return expand_or_collapse(m, op),
        "tensor.gather" | "tensor.scatter" => return gather_or_scatter(m, op),
        "tensor.extract_slice" | "tensor.insert_slice" => return slice(m, op),
        "tensor.parallel_insert_slice" => {
            parallel_insert_destination(m, op)?;
            return slice(m, op);
        }
        "shape.add" | "shape.mul" | "shape.div" | "shape.rank" | "shape.get_extent"
        | "shape.num_elements" => return propagates_errors(m, op, "size", "size"),
        "shape.broadcast" => return propagates_errors(m, op, "shape", "shape"),
        "shape.shape_of" => return shape_of(m, op),
        "shape.const_shape" => return const_shape(m, op),
        "shape.meet" => return meet(m, op),
        "shape.assuming_all" if m.operands(op).is_empty() => {
            return Err(fail("shape.assuming_all", "no operands specified"))
        }
        "shape.cstr_broadcastable" if m.operands(op).len() < 2 => {
            bail!(
                "shape.cstr_broadcastable",
                "required at least 2 input shapes"
            )
        }
        "shape.reduce" => return shape_reduce(m, op),
        "shape.yield" => {
            // `YieldOp::verify`: what the parent returns.
            let parent = m
                .op_parent(op)
                .and_then(|b| m.block_parent(b))
                .and_then(|r| m.region_parent(r));
            if let Some(p) = parent {
                ensure!(
                    m.num_results(p) == m.operands(op).len(),
                    "shape.yield",
                    "number of operands does not match number of results of its parent"
                );
                let same = m
                    .results(p)
                    .zip(m.operands(op))
                    .all(|(r, &v)| m.value_type(r) == m.value_type(v));
                ensure!(
                    same,
                    "shape.yield",
                    "types mismatch between yield op and its parent"
                );
            }
        }
        _ => {}
    }
    Ok(())
}

/// Shape's `verifySizeOrIndexOp` and `verifyShapeOrExtentTensorOp`: when an operand is of a
/// shape dialect type (which can hold an error), the result is `!shape.<mnemonic>`.
fn propagates_errors(m: &Module, op: OpId, mnemonic: &str, wording: &'static str) -> Check {
    let errors = m
        .operands(op)
        .iter()
        .any(|&v| shape_mnemonic(m, m.value_type(v)).is_some());
    let propagated = result_type(m, op).is_some_and(|t| shape_mnemonic(m, t) == Some(mnemonic));
    if errors && !propagated {
        bail!("shape", "if at least one of the operands can hold error values then the result must be of type `{wording}` to propagate them");
    }
    Ok(())
}

/// `ConcatOp::verify`: inputs of the result's rank and element type, the same sizes off the
/// concatenated dimension, and a result of the sizes they add up to.
fn concat(m: &Module, op: OpId) -> Check {
    let inputs: Vec<Type> = m.operands(op).iter().map(|&v| m.value_type(v)).collect();
    let Some(result) = result_type(m, op) else {
        return Ok(());
    };
    if inputs.is_empty() {
        return Err(fail("tensor.concat", "requires at least one input"));
    }
    let Some(result_dims) = tensor_dims(m, result) else {
        return Ok(());
    };
    let rank = result_dims.len();
    let input_dims: Vec<&[i64]> = inputs.iter().filter_map(|&t| tensor_dims(m, t)).collect();
    if input_dims.len() != inputs.len() || input_dims.iter().any(|d| d.len() != rank) {
        bail!(
            "tensor.concat",
            "rank of concatenated inputs must match result rank"
        );
    }
    if inputs
        .iter()
        .any(|&t| element_type(m, t) != element_type(m, result))
    {
        bail!("tensor.concat", "inputs and result element type must match");
    }
    let dim = match m.property(op, "dim").map(|a| m.attr_data(a)) {
        Some(crate::ir::AttrData::Integer { value, .. }) => *value,
        _ => return Ok(()),
    };
    ensure!(
        dim < i128::try_from(rank).unwrap_or(i128::MAX),
        "tensor.concat",
        "concatenation dim must be less than the tensor rank"
    );
    // The sizes each dimension must have: one static size across the inputs off `dim`, their
    // sum along it (dynamic as soon as one is). MLIR compares a negative dim as it is, so that
    // every dimension is one not concatenated.
    let mut inferred = Vec::with_capacity(rank);
    for i in 0..rank {
        let mut sizes = input_dims.iter().map(|d| d[i]);
        if i128::try_from(i) == Ok(dim) {
            let sum = sizes.try_fold(0i64, |n, x| {
                (!is_dynamic(x)).then(|| n.checked_add(x)).flatten()
            });
            inferred.push(sum.unwrap_or(crate::ir::DYNAMIC));
            continue;
        }
        let mut size = crate::ir::DYNAMIC;
        for x in sizes.filter(|&x| !is_dynamic(x)) {
            if !is_dynamic(size) && size != x {
                bail!(
                    "tensor.concat",
                    "static concatenation size mismatch along non-concatenated dimension {i}"
                );
            }
            size = x;
        }
        inferred.push(size);
    }
    if dim < 0 {
        // Past this, MLIR's verifier reads the inputs' sizes at the dim, out of bounds (jaxlib
        // crashes).
        bail!("tensor.concat", "concatenation dim {dim} is negative");
    }
    let fits = inferred
        .iter()
        .zip(result_dims)
        .all(|(&a, &b)| super::types::compatible_dim(a, b));
    ensure!(
        fits,
        "tensor.concat",
        "result type '{}'does not match inferred shape '{}' static sizes",
        crate::text::type_to_string(m, result),
        tensor_text(
            m,
            &inferred,
            &element_text(m, element_type(m, result)),
            None
        )
    );
    Ok(())
}

/// What MLIR checks of a tensor op on leaving it, after the ops in its region (the ops'
/// `verifyRegions`).
pub(crate) fn verify_regions(m: &Module, op: OpId) -> Check {
    match m.op_name_str(op) {
        "tensor.generate" => verify_generate_body(m, op),
        "tensor.pad" => pad_body(m, op),
        _ => Ok(()),
    }
}

/// `GenerateOp::verifyRegions`: one `index` argument per result dimension, and a yield of the
/// element type.
fn verify_generate_body(m: &Module, op: OpId) -> Check {
    let (Some(result), Some(&body)) = (result_type(m, op), m.regions(op).first()) else {
        return Ok(());
    };
    let Some(&block) = m.blocks(body).first() else {
        return Ok(());
    };
    let args = m.block_args(block);
    if tensor_dims(m, result).is_some_and(|d| d.len() != args.len()) {
        bail!(
            "tensor.generate",
            "must have one body argument per input dimension"
        );
    }
    if args
        .iter()
        .any(|&a| !matches!(m.type_data(m.value_type(a)), TypeData::Index))
    {
        return Err(fail("tensor.generate", "all body arguments must be index"));
    }
    let yielded = m
        .block_ops(block)
        .last()
        .and_then(|&t| m.operands(t).first())
        .map(|&v| m.value_type(v));
    ensure!(
        yielded == element_type(m, result),
        "tensor.generate",
        "body must be terminated with a `yield` operation of the tensor element type"
    );
    Ok(())
}

/// The slice ops: their offsets, sizes and strides (`OffsetSizeAndStrideOpInterface`: one of
/// each per dimension of the sliced tensor), then the slice's type against the one its sizes
/// give, or a rank-reduced version of it (`isRankReducedType`).
fn slice(m: &Module, op: OpId) -> Check {
    let name = m.op_name_str(op);
    let types: Vec<Type> = m.operands(op).iter().map(|&v| m.value_type(v)).collect();
    // The tensor sliced (the source of an extract, the destination of an insert), and the slice.
    let (sliced, slice) = if name == "tensor.extract_slice" {
        (types.first().copied(), result_type(m, op))
    } else {
        (types.get(1).copied(), types.first().copied())
    };
    let (Some(sliced), Some(slice)) = (sliced, slice) else {
        return Ok(());
    };
    let Some(sliced_dims) = tensor_dims(m, sliced) else {
        return Ok(());
    };
    let rank = sliced_dims.len();
    let list = |key: &str| {
        m.property(op, key)
            .and_then(|a| crate::text::op_format::i64_array(m, m.attr_data(a)))
    };
    let (Some(offsets), Some(sizes), Some(strides)) = (
        list("static_offsets"),
        list("static_sizes"),
        list("static_strides"),
    ) else {
        return Ok(());
    };
    // One operand per dynamic entry (ShapedType::kDynamic, i64::MIN alone) of each list, in
    // the last three operand groups; jaxlib says so first, without the op's name.
    let groups = crate::text::op_format::segment_sizes(m, op).unwrap_or_default();
    if let Some(last) = groups.len().checked_sub(3).and_then(|at| groups.get(at..)) {
        for ((what, values), &given) in [
            ("offsets", &offsets),
            ("sizes", &sizes),
            ("strides", &strides),
        ]
        .into_iter()
        .zip(last)
        {
            let dynamic = values.iter().filter(|&&v| v == crate::ir::DYNAMIC).count();
            ensure!(dynamic == given, "OffsetSizeAndStrideOpInterface", "expected the number of '{what}' to match the number of dynamic entries in 'static_{what}' ({given} vs {dynamic})");
        }
    }
    for (what, values) in [("offset", &offsets), ("size", &sizes), ("stride", &strides)] {
        ensure!(
            values.len() == rank,
            "OffsetSizeAndStrideOpInterface",
            "expected {rank} {what} values, got {}",
            values.len()
        );
    }
    // `verifyOffsetSizeAndStrideOp`: static offsets and sizes are not negative (a dynamic one
    // is ShapedType::kDynamic).
    for (what, values) in [("offsets", &offsets), ("sizes", &sizes)] {
        if let Some(&v) = values.iter().find(|&&v| v < 0 && v != crate::ir::DYNAMIC) {
            bail!(
                "OffsetSizeAndStrideOpInterface",
                "expected {what} to be non-negative, but got {v}"
            );
        }
    }
    let Some(slice_dims) = tensor_dims(m, slice) else {
        return Ok(());
    };
    let element = element_type(m, sliced);
    let expected = || tensor_text(m, &sizes, &element_text(m, element), None);
    ensure!(
        slice_dims.len() <= rank,
        "tensor slice",
        "expected rank to be smaller or equal to the other rank."
    );
    // `computeRankReductionMask`: the slice's sizes in order, the sizes left out all 1.
    let mut next = 0;
    for &size in &sizes {
        if slice_dims.get(next) == Some(&size) {
            next += 1;
        } else if size != 1 {
            next = usize::MAX;
            break;
        }
    }
    ensure!(
        next == slice_dims.len(),
        "tensor slice",
        "expected type to be '{}' or a rank-reduced version. (size mismatch) ",
        expected()
    );
    if element != element_type(m, slice) {
        let e = element_text(m, element);
        bail!("tensor slice", "expected element type to be '{e}'");
    }
    in_bounds(sliced_dims, &offsets, &sizes, &strides)
}

/// `verifyInBoundsSlice`: where the sliced dimension, the offset, the size and the stride are
/// static, the slice starts and ends inside the dimension.
fn in_bounds(shape: &[i64], offsets: &[i64], sizes: &[i64], strides: &[i64]) -> Check {
    let dynamic = |v: i64| v == crate::ir::DYNAMIC;
    for (i, &dim) in shape.iter().enumerate() {
        let (Some(&offset), Some(&size), Some(&stride)) =
            (offsets.get(i), sizes.get(i), strides.get(i))
        else {
            continue;
        };
        if dynamic(dim) || dynamic(offset) {
            continue;
        }
        ensure!(
            offset < dim,
            "tensor slice",
            "offset {i} is out-of-bounds: {offset} >= {dim}"
        );
        if dynamic(size) || dynamic(stride) {
            continue;
        }
        let last = i128::from(offset) + (i128::from(size) - 1) * i128::from(stride);
        ensure!(
            last < i128::from(dim),
            "tensor slice",
            "slice along dimension {i} runs out-of-bounds: {last} >= {dim}"
        );
    }
    Ok(())
}

/// `GatherOp::verify` and `ScatterOp::verify`: the gathered (scattered) dimensions, then the
/// result (source) type they give, or its rank-reduced variant.
fn gather_or_scatter(m: &Module, op: OpId) -> Check {
    let gather = m.op_name_str(op) == "tensor.gather";
    let (word, of, rule) = if gather {
        ("gather", "source", "tensor.gather")
    } else {
        ("scatter", "dest", "tensor.scatter")
    };
    let types: Vec<Type> = m.operands(op).iter().map(|&v| m.value_type(v)).collect();
    // (the tensor indexed, the indices, the tensor of the gathered or scattered values)
    let (indexed, indices, values) = if gather {
        (
            types.first().copied(),
            types.get(1).copied(),
            result_type(m, op),
        )
    } else {
        (
            types.get(1).copied(),
            types.get(2).copied(),
            types.first().copied(),
        )
    };
    let (Some(indexed), Some(indices), Some(values)) = (indexed, indices, values) else {
        return Ok(());
    };
    let (Some(indexed_dims), Some(index_dims)) = (tensor_dims(m, indexed), tensor_dims(m, indices))
    else {
        return Ok(());
    };
    let key = if gather {
        "gather_dims"
    } else {
        "scatter_dims"
    };
    let Some(chosen) = m
        .property(op, key)
        .and_then(|a| crate::text::op_format::i64_array(m, m.attr_data(a)))
    else {
        return Ok(());
    };
    let rank = i64::try_from(indexed_dims.len()).unwrap_or(i64::MAX);
    let count = i64::try_from(chosen.len()).unwrap_or(i64::MAX);
    let problem = if chosen.is_empty() {
        Some(format!("{word}_dims must be non-empty"))
    } else if count > rank {
        Some(format!("{word}_dims overflow {of} rank"))
    } else if index_dims.last() != Some(&count) {
        Some(format!(
            "{word}_dims length must match the size of last dimension of indices"
        ))
    } else if let Some(&v) = chosen.iter().find(|&&v| v < 0 || v >= rank) {
        Some(if v < 0 {
            format!("{word}_dims value must be non-negative")
        } else {
            format!("{word}_dims value must be smaller than {of} rank")
        })
    } else if chosen.windows(2).any(|w| w[0] >= w[1]) {
        Some(format!("{word}_dims values must be strictly increasing"))
    } else if !gather && m.property(op, "unique").is_none() {
        Some("requires 'unique' attribute to be set".into())
    } else {
        None
    };
    if let Some(p) = problem {
        return Err(fail(rule, p));
    }
    // `GatherOp::inferResultType`: the indices' leading sizes, then the indexed tensor's sizes
    // with the chosen ones 1 (or left out).
    let element = element_text(m, element_type(m, indexed));
    let shape = |reduced: bool| {
        let lead = index_dims
            .get(..index_dims.len().saturating_sub(1))
            .unwrap_or(&[]);
        let mut out: Vec<i64> = lead.to_vec();
        for (i, &d) in indexed_dims.iter().enumerate() {
            if chosen.binary_search(&(i as i64)).is_ok() {
                if !reduced {
                    out.push(1);
                }
            } else {
                out.push(d);
            }
        }
        out
    };
    let (full, reduced) = (shape(false), shape(true));
    let same = |want: &[i64]| {
        tensor_dims(m, values) == Some(want) && element_type(m, values) == element_type(m, indexed)
    };
    if !same(&full) && !same(&reduced) {
        let show = |d: &[i64]| tensor_text(m, d, &element, None);
        let what = if gather { "result" } else { "source" };
        bail!(
            rule,
            "{what} type mismatch: expected '{}' or its rank-reduced variant '{}' (got: '{}')",
            show(&full),
            show(&reduced),
            crate::text::type_to_string(m, values)
        );
    }
    Ok(())
}

/// `shape.const_shape`: a `!shape.shape`, or exactly the extent tensor of its extents.
fn const_shape(m: &Module, op: OpId) -> Check {
    let Some(result) = result_type(m, op) else {
        return Ok(());
    };
    let shape = shape_mnemonic(m, result).is_some();
    let Some(n) = m
        .property(op, "shape")
        .and_then(|a| crate::elements::DenseElements::of(m, a))
        .map(|d| d.len())
    else {
        return Ok(());
    };
    let exact = tensor_dims(m, result)
        .is_some_and(|d| d.len() == 1 && usize::try_from(d[0]).ok() == Some(n))
        && matches!(
            element_type(m, result).map(|e| m.type_data(e)),
            Some(TypeData::Index)
        );
    if !shape && !exact {
        return Err(incompatible_inferred(
            m,
            &format!("tensor<{n}xindex>"),
            result,
        ));
    }
    Ok(())
}

/// `tensor.parallel_insert_slice` sits in an `scf.forall.in_parallel` (its own verifier; the
/// parent checks where it inserts, `scf.rs` `in_parallel`).
fn parallel_insert_destination(m: &Module, op: OpId) -> Check {
    let parent = super::structure::parent_op(m, op);
    let parent_name = parent.map_or("none", |p| m.op_name_str(p));
    ensure!(
        parent_name == "scf.forall.in_parallel",
        "tensor.parallel_insert_slice",
        "expected InParallelOpInterface parent, got: '{parent_name}'"
    );
    Ok(())
}

/// `shape.meet`: the type `MeetOp::inferReturnTypes` folds over its operands (sizes with sizes
/// or indices, shapes with shapes or extent tensors, extent tensors of one length), against its
/// result as `MeetOp::isCompatibleReturnTypes` compares them.
fn meet(m: &Module, op: OpId) -> Check {
    let kind = |t: Type| shape_mnemonic(m, t);
    let is_index = |t: Type| matches!(m.type_data(t), TypeData::Index);
    let extent = |t: Type| match tensor_dims(m, t) {
        Some(&[n]) if element_type(m, t).is_some_and(is_index) => Some(n),
        _ => None,
    };
    // Shape or size first, as upstream swaps them.
    let ordered = |a: Type, b: Type| match kind(a) {
        Some("shape" | "size") => (a, b),
        _ => (b, a),
    };
    let mut types = m.operands(op).iter().map(|&v| m.value_type(v));
    let (Some(mut acc), Some(result)) = (types.next(), result_type(m, op)) else {
        return Ok(());
    };
    let mixed = || Err(fail("InferTypeOpInterface", "requires all sizes or shapes"));
    for t in types {
        let (l, r) = ordered(acc, t);
        acc = match (kind(l), extent(l), extent(r)) {
            (Some("size"), ..) if kind(r) == Some("size") || is_index(r) => l,
            (Some("shape"), ..) if kind(r) == Some("shape") || extent(r).is_some() => l,
            (Some("size" | "shape"), ..) => return mixed(),
            _ if is_index(l) && is_index(r) => r,
            _ if is_index(l) => return mixed(),
            (_, Some(a), Some(_)) if is_dynamic(a) => l,
            (_, Some(_), Some(b)) if is_dynamic(b) => r,
            (_, Some(a), Some(b)) if a != b => {
                return Err(fail("InferTypeOpInterface", "unequal shape cardinality"))
            }
            (_, Some(_), Some(_)) => l,
            _ => acc,
        };
    }
    let (l, r) = ordered(acc, result);
    let tensor = |t: Type| {
        matches!(
            m.type_data(t),
            TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
        )
    };
    let compatible = acc == result
        || match kind(l) {
            Some("size") => kind(r) == Some("size") || is_index(r),
            Some("shape") => kind(r) == Some("shape") || tensor(r),
            // verifyCompatibleShapes: both shaped, or neither.
            _ => match (tensor(l), tensor(r)) {
                (true, true) => {
                    super::types::compatible_shapes(tensor_dims(m, l), tensor_dims(m, r))
                }
                (a, b) => a == b,
            },
        };
    if !compatible {
        let inferred = crate::text::type_to_string(m, acc);
        return Err(incompatible_inferred(m, &inferred, result));
    }
    Ok(())
}

/// `shape.reduce`'s `ReduceOp::verify`: its body takes the index, the extent (`!shape.size` of a
/// `!shape.shape`, else `index`) and one value of each initial value's type.
fn shape_reduce(m: &Module, op: OpId) -> Check {
    let Some(&block) = m.regions(op).first().and_then(|&r| m.blocks(r).first()) else {
        return Ok(());
    };
    let args: Vec<Type> = m
        .block_args(block)
        .iter()
        .map(|&a| m.value_type(a))
        .collect();
    let operands: Vec<Type> = m.operands(op).iter().map(|&v| m.value_type(v)).collect();
    let inits = operands.get(1..).unwrap_or_default();
    ensure!(
        args.len() == inits.len() + 2,
        "shape.reduce",
        "ReduceOp body is expected to have {} arguments",
        inits.len() + 2
    );
    let is_shape = |t: Type, mnemonic: &str| shape_mnemonic(m, t) == Some(mnemonic);
    ensure!(
        matches!(m.type_data(args[0]), TypeData::Index),
        "shape.reduce",
        "argument 0 of ReduceOp body is expected to be of IndexType"
    );
    if operands.first().is_some_and(|&t| is_shape(t, "shape")) {
        ensure!(is_shape(args[1], "size"), "shape.reduce", "argument 1 of ReduceOp body is expected to be of SizeType if the ReduceOp operates on a ShapeType");
    } else if !matches!(m.type_data(args[1]), TypeData::Index) {
        bail!("shape.reduce", "argument 1 of ReduceOp body is expected to be of IndexType if the ReduceOp operates on an extent tensor");
    }
    for (i, (&a, &t)) in args[2..].iter().zip(inits).enumerate() {
        ensure!(
            a == t,
            "shape.reduce",
            "type mismatch between argument {} of ReduceOp body and initial value {i}",
            i + 2
        );
    }
    Ok(())
}

/// `ExpandShapeOp::verify` and `CollapseShapeOp::verify` (`verifyTensorReshapeOp`): the
/// reassociation groups the expanded dimensions into the collapsed ones, and each collapsed size
/// is its group's product (dynamic when one of them is).
fn expand_or_collapse(m: &Module, op: OpId) -> Check {
    let expand = m.op_name_str(op) == "tensor.expand_shape";
    let rule = if expand {
        "tensor.expand_shape"
    } else {
        "tensor.collapse_shape"
    };
    let (Some(&src), Some(result)) = (m.operands(op).first(), result_type(m, op)) else {
        return Ok(());
    };
    let src = m.value_type(src);
    let (expanded, collapsed) = if expand { (result, src) } else { (src, result) };
    let (Some(expanded_dims), Some(collapsed_dims)) =
        (tensor_dims(m, expanded), tensor_dims(m, collapsed))
    else {
        return Ok(());
    };
    if expand {
        let statics = m
            .property(op, "static_output_shape")
            .and_then(|a| crate::text::op_format::i64_array(m, m.attr_data(a)))
            .unwrap_or_default();
        let rank = tensor_dims(m, result).map_or(0, <[i64]>::len);
        ensure!(statics.len() == rank, rule, "expected number of static shape dims to be equal to the output rank ({rank}) but found {} inputs instead",
                    statics.len());
        let dynamic = statics.iter().filter(|&&d| d == crate::ir::DYNAMIC).count();
        let given = m.operands(op).len().saturating_sub(1);
        ensure!(dynamic == given, rule, "mismatch in dynamic dims in output_shape and static_output_shape: static_output_shape has {dynamic} dynamic dims while output_shape has {given} values");
        // `verifyDynamicDimensionCount`: one size operand per dynamic dimension of the result.
        let result_dims = tensor_dims(m, result).unwrap_or_default();
        let expected = result_dims.iter().filter(|&&d| is_dynamic(d)).count();
        ensure!(
            given == expected,
            rule,
            "incorrect number of dynamic sizes, has {given}, expected {expected}"
        );
        // Each static size of the result is the one given.
        for (pos, (&size, &given)) in result_dims.iter().zip(&statics).enumerate() {
            if !is_dynamic(size) && size != given {
                bail!(rule, "invalid output shape provided at pos {pos}");
            }
        }
    }
    // The reassociation: one list of expanded dimensions per collapsed one
    // (`verifyReshapeLikeTypes`).
    let Some(crate::ir::AttrData::Array(groups)) =
        m.property(op, "reassociation").map(|a| m.attr_data(a))
    else {
        return Ok(());
    };
    let groups: Vec<Vec<i64>> = groups
        .iter()
        .map(|&g| match m.attr_data(g) {
            crate::ir::AttrData::Array(xs) => xs
                .iter()
                .map(|&x| match m.attr_data(x) {
                    crate::ir::AttrData::Integer { value, .. } => {
                        i64::try_from(*value).unwrap_or(i64::MAX)
                    }
                    _ => i64::MAX,
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect();
    let type_text = |t| crate::text::type_to_string(m, t);
    ensure!(expanded_dims.len() >= collapsed_dims.len(), rule, "expected the expanded type, '{}' to have a higher (or same) rank than the collapsed type, '{}'.",
                type_text(expanded),
                type_text(collapsed));
    ensure!(
        groups.len() == collapsed_dims.len(),
        rule,
        "expected collapsed rank ({}) to equal the number of reassociation maps ({}).",
        collapsed_dims.len(),
        groups.len()
    );
    // Each map has as many dimensions as the largest index of all of them, plus one, as MLIR
    // counts them: an index is an unsigned 32-bit dimension position (so -1 is the largest,
    // and the count wraps to 0).
    let map_dims = groups
        .iter()
        .flatten()
        .map(|&d| d as u32)
        .max()
        .map_or(0, |d| i64::from(d.wrapping_add(1)));
    if !groups.is_empty() && map_dims != expanded_dims.len() as i64 {
        bail!(rule, "expected reassociation map #0 to have size equal to the expanded rank ({}), but it is  {map_dims}.",
                expanded_dims.len());
    }
    // `isReassociationValid`: the indices count up from 0, group after group.
    let mut next = 0i64;
    for (i, g) in groups.iter().enumerate() {
        for &d in g {
            ensure!(
                d == next,
                rule,
                "expected reassociation map #{i} to be valid and contiguous."
            );
            next += 1;
        }
    }
    if !groups.is_empty() && next != map_dims {
        bail!(
            rule,
            "expected reassociation map #{} to be valid and contiguous.",
            groups.len() - 1
        );
    }
    // `reshapeLikeShapesAreCompatible`.
    let mut start = 0;
    let mut inferred = Vec::with_capacity(groups.len());
    for (i, (g, &size)) in groups.iter().zip(collapsed_dims).enumerate() {
        let Some(group) = expanded_dims.get(start..start + g.len()) else {
            return Ok(());
        };
        start += g.len();
        if group.iter().any(|&d| is_dynamic(d)) {
            inferred.push(crate::ir::DYNAMIC);
            ensure!(is_dynamic(size), rule, "expected dimension {i} of collapsed type to be dynamic since one or more of the corresponding dimensions in the expanded type is dynamic");
        } else {
            let product = group.iter().try_fold(1i64, |p, &d| p.checked_mul(d));
            inferred.push(product.unwrap_or(i64::MAX));
            ensure!(
                product == Some(size),
                rule,
                "expected dimension {i} of collapsed type to be static value of {}",
                product.unwrap_or(i64::MAX)
            );
        }
    }
    // `CollapseShapeOp::inferCollapsedType`: the expanded element type, without encoding.
    let (want, have) = (element_type(m, expanded), element_type(m, collapsed));
    if want != have {
        let expected = tensor_text(m, &inferred, &element_text(m, want), None);
        bail!(
            rule,
            "expected collapsed type to be '{expected}', but got '{}'",
            type_text(collapsed)
        );
    }
    Ok(())
}

/// `PadOp::verify`: the result has the source's sizes plus the static padding (any size where
/// one of them is dynamic).
fn pad(m: &Module, op: OpId) -> Check {
    let (Some(&source), Some(result)) = (m.operands(op).first(), result_type(m, op)) else {
        return Ok(());
    };
    let source = m.value_type(source);
    let (Some(source_dims), Some(result_dims)) = (tensor_dims(m, source), tensor_dims(m, result))
    else {
        return Ok(());
    };
    let list = |key: &str| {
        m.property(op, key)
            .and_then(|a| crate::text::op_format::i64_array(m, m.attr_data(a)))
    };
    let (Some(low), Some(high)) = (list("static_low"), list("static_high")) else {
        return Ok(());
    };
    let rank = source_dims.len();
    if low.len() == rank && high.len() == rank {
        let inferred: Vec<i64> = (0..rank)
            .map(|i| {
                let (s, l, h) = (source_dims[i], low[i], high[i]);
                if is_dynamic(s) || l == crate::ir::DYNAMIC || h == crate::ir::DYNAMIC {
                    crate::ir::DYNAMIC
                } else {
                    // As MLIR's int64 sum: a static pad may be negative, and the sum too.
                    s.wrapping_add(l).wrapping_add(h)
                }
            })
            .collect();
        let fits = result_dims.len() == rank
            && inferred
                .iter()
                .zip(result_dims)
                .all(|(&want, &have)| want == have || want == crate::ir::DYNAMIC);
        if !fits {
            let inferred = tensor_text(
                m,
                &inferred,
                &element_text(m, element_type(m, source)),
                None,
            );
            bail!(
                "tensor.pad",
                "specified type '{}' does not match the inferred type '{inferred}'",
                crate::text::type_to_string(m, result)
            );
        }
    }
    Ok(())
}

/// `PadOp::verifyRegions`: the body takes one `index` per dimension and yields the element type.
fn pad_body(m: &Module, op: OpId) -> Check {
    let Some(result) = result_type(m, op) else {
        return Ok(());
    };
    let Some(result_dims) = tensor_dims(m, result) else {
        return Ok(());
    };
    let Some(&block) = m.regions(op).first().and_then(|&r| m.blocks(r).first()) else {
        return Ok(());
    };
    let args = m.block_args(block);
    ensure!(
        args.len() == result_dims.len(),
        "tensor.pad",
        "expected the block to have {} arguments",
        result_dims.len()
    );
    if let Some(i) = args
        .iter()
        .position(|&a| !matches!(m.type_data(m.value_type(a)), TypeData::Index))
    {
        bail!(
            "tensor.pad",
            "expected block argument {} to be an index",
            i + 1
        );
    }
    let yielded = m
        .block_ops(block)
        .last()
        .and_then(|&t| m.operands(t).first())
        .map(|&v| m.value_type(v));
    if yielded.is_some() && yielded != element_type(m, result) {
        bail!(
            "tensor.pad",
            "expected yield type to match shape element type"
        );
    }
    Ok(())
}

/// `ReshapeOp::verify`.
fn reshape(m: &Module, op: OpId) -> Check {
    let types: Vec<Type> = m.operands(op).iter().map(|&v| m.value_type(v)).collect();
    let (Some(&source), Some(&shape), Some(result)) =
        (types.first(), types.get(1), result_type(m, op))
    else {
        return Ok(());
    };
    ensure!(
        element_type(m, source) == element_type(m, result),
        "tensor.reshape",
        "element types of source and destination tensor types should be the same"
    );
    let Some(result_dims) = tensor_dims(m, result) else {
        return Ok(());
    };
    if let (Some(a), Some(b)) = (elements(m, source), elements(m, result)) {
        ensure!(
            a == b,
            "tensor.reshape",
            "source and destination tensor should have the same number of elements"
        );
    }
    let length = tensor_dims(m, shape).and_then(|d| d.first().copied());
    match length {
        Some(n) if is_dynamic(n) => Err(fail(
            "tensor.reshape",
            "cannot use shape operand with dynamic length to reshape to statically-ranked tensor type",
        )),
        Some(n) if usize::try_from(n).ok() != Some(result_dims.len()) => Err(fail(
            "tensor.reshape",
            "length of shape operand differs from the result's tensor rank",
        )),
        _ => Ok(()),
    }
}

/// `shape.shape_of`: its result against the type it infers (`!shape.shape` of a
/// `!shape.value_shape`, else an extent tensor of the operand's rank), then its verifier.
fn shape_of(m: &Module, op: OpId) -> Check {
    let (Some(&arg), Some(result)) = (m.operands(op).first(), result_type(m, op)) else {
        return Ok(());
    };
    let arg = m.value_type(arg);
    let shape_type = |t: Type| shape_mnemonic(m, t) == Some("shape");
    let value_shape = shape_mnemonic(m, arg) == Some("value_shape");
    if !value_shape && !shape_type(result) {
        // The rank of a ranked operand (a memref's or a vector's too).
        let rank = shaped_dims(m, arg).flatten().map(<[i64]>::len);
        let extent = tensor_dims(m, result).and_then(|d| d.first().copied());
        if let (Some(rank), Some(n)) = (rank, extent) {
            if !is_dynamic(n) && usize::try_from(n).ok() != Some(rank) {
                let inferred = format!("tensor<{rank}xindex>");
                return Err(incompatible_inferred(m, &inferred, result));
            }
        }
    }
    if value_shape && !shape_type(result) {
        bail!("shape.shape_of", "if at least one of the operands can hold error values then the result must be of type `shape` to propagate them");
    }
    Ok(())
}

/// The shape dialect's check of its discardable attribute `shape.lib`
/// (`ShapeDialect::verifyOperationAttribute`): on a symbol table, naming shape function
/// libraries in it whose mappings name each op once.
pub(crate) fn verify_shape_lib(m: &Module) -> Vec<(OpId, super::Diagnostic)> {
    let mut out = Vec::new();
    let Some(lib) = m.lookup_sym("shape.lib") else {
        return out;
    };
    m.walk(|op| {
        for a in m.attributes(op).iter().filter(|a| a.name == lib) {
            if let Err(e) = shape_lib(m, op, a.value) {
                let rule = "shape dialect: the shape.lib attribute";
                out.push((op, super::diag(m, op, e, None, rule)));
            }
        }
    });
    out
}

/// Symbol-table ops: their body's symbols are looked up from them.
fn is_symbol_table(m: &Module, op: OpId) -> bool {
    matches!(
        m.op_name_str(op),
        "builtin.module" | "shape.function_library"
    )
}

/// `SymbolTable::lookupSymbolIn`: `root` among the symbols of `table`'s body, then each nested
/// name in the symbol table found.
fn lookup_symbol_in(m: &Module, table: OpId, root: Symbol, nested: &[Symbol]) -> Option<OpId> {
    let mut at = table;
    for &name in std::iter::once(&root).chain(nested) {
        if !is_symbol_table(m, at) {
            return None;
        }
        let body = m.regions(at).iter().flat_map(|&r| m.blocks(r));
        at = body
            .flat_map(|&b| m.block_ops(b).iter().copied())
            .find(|&o| super::structure::sym_name(m, o) == Some(name))?;
    }
    Some(at)
}

fn shape_lib(m: &Module, op: OpId, value: crate::ir::Attribute) -> Result<(), String> {
    if !is_symbol_table(m, op) {
        return Err("shape.lib attribute may only be on op implementing SymbolTable".into());
    }
    let text = |a| crate::text::attribute_to_string(m, a);
    let library = |a| match m.attr_data(a) {
        AttrData::SymbolRef { root, nested } => lookup_symbol_in(m, op, *root, nested)
            .filter(|&o| m.op_name_str(o) == "shape.function_library"),
        _ => None,
    };
    match m.attr_data(value) {
        AttrData::SymbolRef { root, nested } => match lookup_symbol_in(m, op, *root, nested) {
            None => Err(format!("shape function library {} not found", text(value))),
            Some(o) if m.op_name_str(o) == "shape.function_library" => Ok(()),
            Some(_) => Err(format!(
                "{} required to be shape function library",
                text(value)
            )),
        },
        AttrData::Array(items) => {
            let mut mapped = FastSet::default();
            for &item in items.iter() {
                if !matches!(m.attr_data(item), AttrData::SymbolRef { .. }) {
                    return Err("only SymbolRefAttr allowed in shape.lib attribute array".into());
                }
                let Some(l) = library(item) else {
                    return Err(format!(
                        "{} does not refer to FunctionLibraryOp",
                        text(item)
                    ));
                };
                let mapping = m.property(l, "mapping").map(|a| m.attr_data(a));
                let Some(AttrData::Dictionary(entries)) = mapping else {
                    continue;
                };
                for e in entries.iter() {
                    if !mapped.insert(e.0) {
                        return Err(format!(
                            "only one op to shape mapping allowed, found multiple for `\"{}\"`",
                            m.str(e.0)
                        ));
                    }
                }
            }
            Ok(())
        }
        _ => Err(
            "only SymbolRefAttr or array of SymbolRefAttrs allowed as shape.lib attribute".into(),
        ),
    }
}
