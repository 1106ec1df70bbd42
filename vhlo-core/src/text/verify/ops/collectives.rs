//! The constraints of the collectives (`all_gather`, `all_reduce`, `all_to_all`,
//! `collective_broadcast`, `collective_permute`, `collective_reduce`, `cross-replica-sum`,
//! `reduce_scatter`), the async pair (`async_start`, `async_done`), the token and channel ops
//! (`send`, `recv`, `infeed`, `outfeed`, `after_all`, `create_token`), `partition_id`,
//! `replica_id`, `rng`, `rng_bit_generator`, `custom_call` and `composite`.
//!
//! Each op is checked in the order MLIR reports it: its declared ODS counts and types
//! (`ops/mod.rs`, from the spec), its single-block regions and type traits, then its own
//! verifier, then the result types it infers (upstream's tests expect a reducer's error rather
//! than the inference mismatch it causes), and last its symbol uses. The facts are upstream's
//! (`docs/spec.md`'s (C1)…(Cn), `TypeInference.cpp`, `StablehloOps.cpp`); messages keep
//! upstream's wording and add the values involved.

use std::collections::HashSet;

use crate::ir::{AttrData, Attribute, Block, Dim, Module, Param, Type};
use crate::ir::{TypeData, ValueDef};
use crate::text::verify::types::{
    check_inferred_components, check_inferred_types, compatible_shape, compatible_shapes,
    dense_ints, dense_ints_stored, element_or_self, ints_str, is_dynamic, is_float, is_token,
    promotable_element, same_operands_and_result_element, shaped, shaped_dims, size_str,
    struct_field, Inferred, OpView,
};
use crate::text::verify::{bail, ensure, Check, Failure};
use crate::vhlo::StablehloOp as K;

pub(super) fn verify(v: OpView) -> Check {
    match v.kind {
        K::AllGather => all_gather(&v),
        K::AllReduce => all_reduce(&v),
        K::AllToAll => all_to_all(&v),
        K::CollectiveBroadcast => collective_broadcast(&v),
        K::CollectivePermute => collective_permute(&v),
        K::CollectiveReduce => collective_reduce(&v),
        K::ReduceScatter => reduce_scatter(&v),
        // Its inferred type reads its body: on leaving it (`async_start`).
        K::AsyncDone => async_done(&v),
        K::Send => send(&v),
        K::Recv => recv(&v),
        K::Infeed => infeed(&v),
        K::PartitionId | K::ReplicaId => process_id(&v),
        K::Rng => rng(&v),
        K::RngBitGenerator => rng_bit_generator(&v),
        K::CustomCall => custom_call(&v),
        // cross-replica-sum has only its declared constraints (CompatibleOperandsAndResultType);
        // outfeed, after_all and create_token produce a token, which their ODS result type
        // already demands.
        _ => Ok(()),
    }
}

// ---- types -------------------------------------------------------------------------------------

fn is_memref(m: &Module, t: Type) -> bool {
    matches!(m.type_data(t), TypeData::Dialect(d) if m.str(d.dialect) == "builtin" && m.str(d.mnemonic) == "memref")
}

/// The types a `!stablehlo.future<...>` wraps.
fn future_types(m: &Module, t: Type) -> Option<&[Type]> {
    match m.type_data(t) {
        TypeData::Dialect(d)
            if m.str(d.dialect) == "stablehlo" && m.str(d.mnemonic) == "future" =>
        {
            match &*d.params {
                [Param::Types(ts)] => Some(ts),
                [] => Some(&[]),
                _ => None,
            }
        }
        _ => None,
    }
}

/// upstream's `compatibleShapeAndElementType`: compatible shapes and the same element type (any
/// two floats when `ignore_fp_precision`).
fn compatible_shape_and_element(m: &Module, a: Type, b: Type, ignore_fp_precision: bool) -> bool {
    if !compatible_shape(m, a, b) {
        return false;
    }
    let (ea, eb) = (element_or_self(m, a), element_or_self(m, b));
    (ignore_fp_precision && is_float(m, ea) && is_float(m, eb)) || ea == eb
}

// ---- attributes ---------------------------------------------------------------------------------

/// Dense integer elements read without expanding a splat: the shape, and the stored values
/// (one when `splat`).
struct DenseInts {
    dims: Vec<Dim>,
    splat: bool,
    values: Vec<i64>,
}

impl DenseInts {
    /// The number of elements the shape holds (saturating).
    fn count(&self) -> u64 {
        self.dims.iter().fold(1u64, |acc, &d| {
            acc.saturating_mul(u64::try_from(d).unwrap_or(0))
        })
    }
}

fn dense_ints_raw(m: &Module, a: Attribute) -> Option<DenseInts> {
    let (dims, splat, values) = dense_ints_stored(m, a)?;
    Some(DenseInts {
        dims,
        splat,
        values,
    })
}

/// A unit attribute (or a boolean) that is set.
fn flag(v: &OpView, name: &str) -> bool {
    match v.attr(name).map(|a| v.m.attr_data(a)) {
        Some(AttrData::Bool(b)) => *b,
        Some(_) => true,
        None => false,
    }
}

/// A boolean attribute (false when absent).
fn bool_attr(v: &OpView, name: &str) -> bool {
    matches!(
        v.attr(name).map(|a| v.m.attr_data(a)),
        Some(AttrData::Bool(true))
    )
}

/// The `handle` of `channel_handle` (0 when absent), as upstream's `channelId`.
fn channel_id(v: &OpView) -> i64 {
    v.field_int("channel_handle", "handle").unwrap_or(0)
}

/// The name of a channel type, for messages.
fn channel_type_name(t: i64) -> String {
    match t {
        0 => "CHANNEL_TYPE_INVALID (0)".to_string(),
        1 => "DEVICE_TO_DEVICE (1)".to_string(),
        2 => "DEVICE_TO_HOST (2)".to_string(),
        3 => "HOST_TO_DEVICE (3)".to_string(),
        t => format!("{t}"),
    }
}

// ---- replica groups -----------------------------------------------------------------------------

/// The constraint ids an op gives the replica-group checks.
struct GroupRules {
    /// A rank-2 tensor (the op's input constraint).
    rank: &'static str,
    /// Each id once.
    unique: &'static str,
    /// Ids from 0 up, none missing, no -1 where every group has the same size.
    ids: &'static str,
    /// Not empty when `use_global_device_ids`, and the group size.
    size: &'static str,
}

/// upstream's `verifyReplicaGroups` on dense `replica_groups`: a rank-2 tensor, not empty when
/// `use_global_device_ids`, each id at most once, -1 (padding) only where groups may differ in
/// size, the ids `0..n` all present, and groups of `expected_group_size`. A
/// `#stablehlo.replica_group_mesh_axes` is checked by [`mesh_axes`].
fn replica_groups(
    v: &OpView,
    all_groups_same_size: bool,
    use_global_device_ids: bool,
    expected_group_size: Option<i64>,
    rules: GroupRules,
) -> Check {
    let Some(a) = v.attr("replica_groups") else {
        return Ok(());
    };
    mesh_axes(v, a)?;
    let Some(groups) = dense_ints_raw(v.m, a) else {
        return Ok(());
    };
    let &[rows, cols] = &groups.dims[..] else {
        bail!(
            rules.rank,
            "replica groups should be a rank 2 tensor, but got rank {}",
            groups.dims.len()
        );
    };
    let count = groups.count();
    ensure!(
        !(use_global_device_ids && count == 0),
        rules.size,
        "if `use_global_device_ids` is set, the replica groups cannot be empty (they are {}x{})",
        rows,
        cols
    );
    let mut seen: HashSet<i64> = HashSet::new();
    let mut visit = |id: i64| -> Check {
        if id == -1 {
            ensure!(!all_groups_same_size, rules.ids, "Invalid replica id -1");
            return Ok(());
        }
        ensure!(
            seen.insert(id),
            rules.unique,
            "replica id #{id} seen more than once"
        );
        Ok(())
    };
    if groups.splat {
        // One value repeated: visiting it twice decides everything a longer visit would.
        let value = groups.values.first().copied().unwrap_or(0);
        for _ in 0..count.min(2) {
            visit(value)?;
        }
    } else {
        for &id in &groups.values {
            visit(id)?;
        }
    }
    for id in 0..seen.len() as i64 {
        ensure!(
            seen.contains(&id),
            rules.ids,
            "replica id #{id} not seen in replica groups"
        );
    }
    if let (true, Some(want)) = (all_groups_same_size, expected_group_size) {
        let size = u64::try_from(rows)
            .ok()
            .filter(|&r| r > 0)
            .map(|r| count / r);
        ensure!(
            size == u64::try_from(want).ok(),
            rules.size,
            "group size of replica_groups must be {want}, but it is {}",
            size.map_or("undefined (no groups)".to_string(), |s| s.to_string())
        );
    }
    Ok(())
}

/// `ReplicaGroupMeshAxesAttr::verify`: the mesh is a symbol or an inline `#stablehlo.mesh`, and
/// the axes of an inline mesh are axis references to axes it defines.
fn mesh_axes(v: &OpView, a: Attribute) -> Check {
    let m = v.m;
    let AttrData::Dialect(d) = m.attr_data(a) else {
        return Ok(());
    };
    if m.str(d.dialect) != "stablehlo" || m.str(d.mnemonic) != "replica_group_mesh_axes" {
        return Ok(());
    }
    let (Some(mesh), Some(axes)) = (
        struct_field(m, a, "mesh").and_then(Param::attr),
        struct_field(m, a, "axes").and_then(Param::attr),
    ) else {
        return Ok(());
    };
    let inline_axes = match m.attr_data(mesh) {
        AttrData::SymbolRef { nested, .. } if nested.is_empty() => return Ok(()),
        AttrData::Dialect(md)
            if m.str(md.dialect) == "stablehlo" && m.str(md.mnemonic) == "mesh" =>
        {
            match md.params.first() {
                Some(Param::Attrs(xs)) => xs.clone(),
                _ => Box::default(),
            }
        }
        _ => bail!(
            "ODS",
            "replica_groups: mesh must be a FlatSymbolRefAttr or MeshAttr, but got {}",
            v.a(mesh)
        ),
    };
    let names: HashSet<&[u8]> = inline_axes
        .iter()
        .filter_map(|&x| match struct_field(m, x, "name") {
            Some(Param::Str(s)) => Some(m.bytes(*s)),
            _ => None,
        })
        .collect();
    let AttrData::Array(refs) = m.attr_data(axes) else {
        return Ok(());
    };
    for &r in refs.iter() {
        let is_ref = matches!(m.attr_data(r), AttrData::Dialect(rd) if m.str(rd.dialect) == "stablehlo" && m.str(rd.mnemonic) == "axis_ref");
        ensure!(
            is_ref,
            "ODS",
            "replica_groups: expected AxisRefAttr in axes list, but got {}",
            v.a(r)
        );
        if let Some(Param::Str(s)) = struct_field(m, r, "name") {
            ensure!(
                names.contains(m.bytes(*s)),
                "ODS",
                "replica_groups: axis '{}' not found in mesh definition",
                String::from_utf8_lossy(m.bytes(*s))
            );
        }
    }
    Ok(())
}

// ---- reducer regions ----------------------------------------------------------------------------

/// upstream's `verifyReducerShape` for one operand (every reducer of these ops takes one): the
/// body takes `(tensor<E>, tensor<E>)` and returns one `tensor<E>`, where the operand's element
/// type promotes to `E`. `rule` is the op's constraint id.
fn reducer(v: &OpView, block: Block, operand: Type, rule: &'static str) -> Check {
    let m = v.m;
    let args: Vec<Type> = m
        .block_args(block)
        .iter()
        .map(|&a| m.value_type(a))
        .collect();
    ensure!(
        args.len() == 2,
        rule,
        "Reduction-region must take 2 parameters, but takes {} parameter(s)",
        args.len()
    );
    let last = m.block_ops(block).last().copied();
    let Some(last) = last.filter(|&t| super::super::types::might_be_terminator(m, t)) else {
        bail!(rule, "The reduction-region expected to have a terminator");
    };
    let returned: Vec<Type> = m.operands(last).iter().map(|&x| m.value_type(x)).collect();
    ensure!(
        !returned.is_empty(),
        rule,
        "The reduction-region expected to return some value(s)"
    );
    ensure!(
        returned.len() == 1,
        rule,
        "Reduction-region here must produce 1 tensors, but produces {} instead",
        returned.len()
    );
    let acc = returned[0];
    ensure!(
        shaped_dims(m, acc).is_some(),
        rule,
        "Reduction-region here must produce tensor-typed result(s), but produces '{}' instead",
        v.t(acc)
    );
    let (lhs, rhs) = (args[0], args[1]);
    ensure!(
        compatible_shape_and_element(m, acc, lhs, false),
        rule,
        "The type of reduction-region's parameter at index 0 is different than the corresponding result type: '{}' vs '{}'",
        v.t(lhs),
        v.t(acc)
    );
    ensure!(
        compatible_shape_and_element(m, acc, rhs, true),
        rule,
        "The type of reduction-region's parameter at index 1 is different than the corresponding result type: '{}' vs '{}'",
        v.t(rhs),
        v.t(acc)
    );
    let element = element_or_self(m, operand);
    let init = || format!("tensor<{}>", v.t(element));
    ensure!(
        shaped_dims(m, acc).flatten().is_none_or(<[Dim]>::is_empty),
        rule,
        "The shape of reduction-region's result type at index 0 differs from the op's corresponding init-value type: '{}' vs '{}'",
        v.t(acc),
        init()
    );
    ensure!(
        promotable_element(m, element, element_or_self(m, acc), true),
        rule,
        "The element-type of reduction-region's result type at index 0 is expected to be promotable from the op's corresponding init-value element-type: '{}' vs '{}'",
        v.t(acc),
        init()
    );
    let rhs_element = element_or_self(m, rhs);
    ensure!(
        shaped_dims(m, rhs).is_some() && promotable_element(m, element, rhs_element, true),
        rule,
        "The element-type of reduction-region's argument at index 1 is expected to be promotable from {}, but got {}",
        v.t(element),
        v.t(rhs_element)
    );
    if let Some(Some(dims)) = shaped_dims(m, rhs) {
        ensure!(
            dims.is_empty(),
            rule,
            "The rank of reduction-region's argument at index 1 is expected to be <= 0, got {}",
            dims.len()
        );
    }
    Ok(())
}

/// The element type the op's reducer accumulates in (its return's), or `fallback` when the
/// region is empty (upstream's `getAccumulatorTypesOrInputTypes`).
fn accumulator_element(v: &OpView, fallback: Type) -> Type {
    match v.region_return(0) {
        Some((_, types)) => types.first().map_or(fallback, |&t| element_or_self(v.m, t)),
        None => element_or_self(v.m, fallback),
    }
}

/// The results of an op that keeps each operand's shape (and bounds) with `element`.
fn same_shapes(v: &OpView, operands: &[Type], element: Type) -> Vec<Inferred> {
    operands
        .iter()
        .map(|&t| {
            let s = shaped(v.m, t);
            Inferred {
                dims: s.and_then(|s| s.dims.map(<[Dim]>::to_vec)),
                element,
                bounds: s.and_then(|s| s.bounds.map(<[i64]>::to_vec)),
            }
        })
        .collect()
}

// ---- the collectives ----------------------------------------------------------------------------

/// upstream's `HLO_PairwiseSameOperandAndResultElementType` (all_gather_c6, all_to_all_c9).
fn pairwise_same_element(v: &OpView, rule: &'static str) -> Check {
    let (operands, results) = (v.operand_types(), v.result_types());
    ensure!(
        operands.len() == results.len(),
        rule,
        "requires the same number of operands and results ({} operands, {} results)",
        operands.len(),
        results.len()
    );
    for (i, (&a, &b)) in operands.iter().zip(&results).enumerate() {
        ensure!(
            element_or_self(v.m, a) == element_or_self(v.m, b),
            rule,
            "requires the same element type for operand and result at index {i} ('{}' vs '{}')",
            v.t(a),
            v.t(b)
        );
    }
    Ok(())
}

/// all_gather (C1, C2, C4, C5, C6, I3): valid replica groups, `all_gather_dim` within each
/// operand, and each result the operand with `all_gather_dim` scaled by a whole factor.
fn all_gather(v: &OpView) -> Check {
    pairwise_same_element(v, "C6")?;
    let use_global = flag(v, "use_global_device_ids");
    replica_groups(
        v,
        true,
        use_global,
        None,
        GroupRules {
            rank: "I3",
            unique: "C2",
            ids: "C4",
            size: "C3",
        },
    )?;
    let channel = channel_id(v);
    ensure!(
        !(use_global && channel < 0),
        "C5",
        "channel_id cannot be negative when useGlobalDeviceIds is set, but got: {channel}"
    );
    let dim = v.int("all_gather_dim").unwrap_or(0);
    for (&o, &r) in v.operand_types().iter().zip(&v.result_types()) {
        let (Some(od), Some(rd)) = (
            shaped(v.m, o).and_then(|s| s.dims),
            shaped(v.m, r).and_then(|s| s.dims),
        ) else {
            continue;
        };
        let Some(at) = usize::try_from(dim).ok().filter(|&d| d < od.len()) else {
            bail!(
                "C1",
                "all_gather_dim must be a valid index of operand (all_gather_dim is {dim}, operand '{}' has rank {})",
                v.t(o),
                od.len()
            );
        };
        ensure!(
            od[at] != 0,
            "C6",
            "dimension size of operand at 'all_gather_dim' cannot be zero ('{}')",
            v.t(o)
        );
        ensure!(
            od.len() == rd.len(),
            "C6",
            "operand and result must have the same rank ('{}' vs '{}')",
            v.t(o),
            v.t(r)
        );
        for (i, (&x, &y)) in od.iter().zip(rd).enumerate() {
            ensure!(
                i == at || x == y || is_dynamic(x) || is_dynamic(y),
                "C6",
                "operand and result should have the same shape except for the dimension size at 'all_gather_dim' (dimension {i}: operand {}, result {})",
                size_str(x),
                size_str(y)
            );
        }
        let (x, y) = (od[at], rd[at]);
        if is_dynamic(x) || is_dynamic(y) {
            // upstream stops at the first dynamic gather dimension.
            return Ok(());
        }
        ensure!(
            y.checked_rem(x) == Some(0),
            "C6",
            "result gather dimension has size {y}, expected to be a multiple of operand gather dimension size {x}"
        );
    }
    Ok(())
}

/// With `use_global_device_ids`, the channel must be positive.
fn global_ids_channel(v: &OpView, use_global: bool, rule: &'static str) -> Check {
    let channel = channel_id(v);
    ensure!(
        !(use_global && channel <= 0),
        rule,
        "channel_id must be positive when useGlobalDeviceIds is set but got: {channel}"
    );
    Ok(())
}

/// all_reduce (C1–C7): valid replica groups, a positive channel with global device ids, a
/// reducer over each operand's element type, and results of the operands' shapes in the
/// reducer's element type.
fn all_reduce(v: &OpView) -> Check {
    let use_global = flag(v, "use_global_device_ids");
    replica_groups(
        v,
        false,
        use_global,
        None,
        GroupRules {
            rank: "I2",
            unique: "C1",
            ids: "C3",
            size: "C2",
        },
    )?;
    global_ids_channel(v, use_global, "C4")?;
    if let Some(block) = v.region_block(0) {
        for t in v.operand_types() {
            reducer(v, block, t, "C5")?;
        }
    }
    let inferred = infer_all_reduce(v)?;
    check_inferred_components(v, &inferred, "C6")
}

/// all_reduce's results: each operand's shape in the reducer's element type (C6, C7).
pub(crate) fn infer_all_reduce(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let operands = v.operand_types();
    let Some(&first) = operands.first() else {
        return Ok(Vec::new());
    };
    let element = accumulator_element(v, first);
    Ok(same_shapes(v, &operands, element))
}

/// all_to_all (C1–C9): each operand split along `split_dimension` into `split_count` parts that
/// are concatenated along `concat_dimension`, with replica groups of `split_count` ids.
fn all_to_all(v: &OpView) -> Check {
    pairwise_same_element(v, "C9")?;
    let inferred = infer_all_to_all(v)?;
    check_inferred_components(v, &inferred, "C9")
}

/// all_to_all's results (C1–C3, C5, C7–C9).
pub(crate) fn infer_all_to_all(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let split_count = v.int("split_count").unwrap_or(0);
    replica_groups(
        v,
        true,
        false,
        Some(split_count),
        GroupRules {
            rank: "I5",
            unique: "C5",
            ids: "C7",
            size: "C8",
        },
    )?;
    let split = v.int("split_dimension").unwrap_or(0);
    let concat = v.int("concat_dimension").unwrap_or(0);
    let mut out = Vec::new();
    for t in v.operand_types() {
        let Some(s) = shaped(v.m, t) else { continue };
        let Some(dims) = s.dims else { continue };
        let rank = dims.len();
        let Some(split_at) = usize::try_from(split).ok().filter(|&d| d < rank) else {
            bail!(
                "C1",
                "AllToAll split_dimension {split} is out-of-bounds for input rank {rank}"
            );
        };
        let Some(concat_at) = usize::try_from(concat).ok().filter(|&d| d < rank) else {
            bail!(
                "C3",
                "AllToAll concat_dimension {concat} is out-of-bounds for input rank {rank}"
            );
        };
        let mut shape = dims.to_vec();
        let scale = |xs: &mut Vec<Dim>, what: &str| -> Check {
            let d = xs[split_at];
            if !is_dynamic(d) {
                xs[split_at] = d.checked_div(split_count).unwrap_or(d);
            }
            let c = xs[concat_at];
            if !is_dynamic(c) {
                let Some(p) = c.checked_mul(split_count) else {
                    bail!(
                        "C9",
                        "{what} {c} at concat_dimension times split_count {split_count} overflows"
                    );
                };
                xs[concat_at] = p;
            }
            Ok(())
        };
        let d = shape[split_at];
        ensure!(
            is_dynamic(d) || d.checked_rem(split_count) == Some(0),
            "C2",
            "split dimension has size {d}, expected to be a multiple of split_count {split_count}"
        );
        scale(&mut shape, "size")?;
        let mut bounds = s.bounds.map(<[i64]>::to_vec);
        if let Some(b) = bounds.as_mut().filter(|b| b.len() == rank) {
            scale(b, "bound")?;
        }
        out.push(Inferred {
            dims: Some(shape),
            element: s.element,
            bounds,
        });
    }
    Ok(out)
}

/// The root operand of collective_broadcast and collective_reduce with `has_dynamic_root`
/// (C3, C4 of collective_broadcast): at least one data operand before it, and the root a rank-1
/// i32 tensor with one element per data operand.
fn dynamic_root(v: &OpView, op: &str) -> Check {
    let operands = v.operand_types();
    if !flag(v, "has_dynamic_root") {
        ensure!(
            !operands.is_empty(),
            "C3",
            "{op} requires at least one data operand"
        );
        return Ok(());
    }
    ensure!(
        operands.len() >= 2,
        "C4",
        "{op} with has_dynamic_root=true requires at least two operands (data + root), but has {}",
        operands.len()
    );
    let Some(&root) = operands.last() else {
        return Ok(());
    };
    let dims = shaped(v.m, root).and_then(|s| {
        let i32 = matches!(
            v.m.type_data(s.element),
            TypeData::Integer { width: 32, .. }
        );
        s.dims.filter(|d| i32 && d.len() == 1)
    });
    let Some(&[size]) = dims else {
        bail!(
            "C4",
            "last operand of {op} with has_dynamic_root=true must be a rank-1 i32 tensor, but got '{}'",
            v.t(root)
        );
    };
    let data = operands.len() - 1;
    ensure!(
        i64::try_from(data) == Ok(size),
        "C4",
        "last operand of {op} with has_dynamic_root=true must have the same number of elements as data operands ({data}), but got {}",
        size_str(size)
    );
    Ok(())
}

/// The data operands (all but the root when `has_dynamic_root`).
fn data_operands(v: &OpView) -> Vec<Type> {
    let mut types = v.operand_types();
    if flag(v, "has_dynamic_root") {
        types.pop();
    }
    types
}

/// collective_broadcast (C1–C5): replica groups of unique non-negative ids, the data operands
/// (and a root with `has_dynamic_root`), and results of the data operands' types.
fn collective_broadcast(v: &OpView) -> Check {
    if let Some(a) = v.attr("replica_groups") {
        mesh_axes(v, a)?;
        if let Some(groups) = dense_ints_raw(v.m, a) {
            ensure!(
                groups.dims.len() == 2,
                "I2",
                "replica groups should be a rank 2 tensor, but instead it is of rank {}",
                groups.dims.len()
            );
            let mut seen = HashSet::new();
            let repeat = if groups.splat {
                groups.count().min(2) as usize
            } else {
                1
            };
            for &id in groups
                .values
                .iter()
                .cycle()
                .take(groups.values.len() * repeat)
            {
                ensure!(
                    id >= 0,
                    "C2",
                    "replica_groups values must be positive, but was given {id}"
                );
                ensure!(
                    seen.insert(id),
                    "C1",
                    "replica id #{id} seen more than once"
                );
            }
        }
    }
    dynamic_root(v, "collective_broadcast")?;
    check_inferred_types(v, &infer_collective_broadcast(v), "C5")
}

/// collective_broadcast's result types: its data operands' (C5).
pub(crate) fn infer_collective_broadcast(v: &OpView) -> Vec<Type> {
    data_operands(v)
}

/// collective_permute (C1–C5): `source_target_pairs` of shape `(N, 2)` with non-negative ids,
/// no source or target twice, and a result of the operand's type.
fn collective_permute(v: &OpView) -> Check {
    same_operands_and_result_element(v.m, v.op, "C5")?;
    source_target_pairs(v)?;
    check_inferred_types(v, &v.operand_types(), "C5")
}

/// collective_permute's `source_target_pairs` (C1–C4, I2).
fn source_target_pairs(v: &OpView) -> Check {
    let Some(pairs) = v
        .attr("source_target_pairs")
        .and_then(|a| dense_ints_raw(v.m, a))
    else {
        return Ok(());
    };
    let &[_, width] = &pairs.dims[..] else {
        bail!(
            "I2",
            "expect source_target_pairs attribute to be of rank 2, but got rank {}",
            pairs.dims.len()
        );
    };
    ensure!(
        width == 2,
        "C1",
        "expect source_target_pairs attribute of shape (N, 2), but got ({})",
        ints_str(&pairs.dims)
    );
    let values: Vec<i64> = if pairs.splat {
        let x = pairs.values.first().copied().unwrap_or(0);
        vec![x; pairs.count().min(3) as usize]
    } else {
        pairs.values
    };
    let (mut sources, mut targets) = (HashSet::new(), HashSet::new());
    for (i, &id) in values.iter().enumerate() {
        ensure!(
            id >= 0,
            "C4",
            "replica ids in source_target_pairs must be >= 0, but got {id}"
        );
        if i % 2 == 0 {
            ensure!(
                sources.insert(id),
                "C2",
                "duplicate sources not allowed. Source {id} appears more than once."
            );
        } else {
            ensure!(
                targets.insert(id),
                "C3",
                "duplicate targets not allowed. Target {id} appears more than once."
            );
        }
    }
    Ok(())
}

/// collective_reduce (C1–C4 and all_reduce's rules): valid replica groups, a positive channel
/// with global device ids, the data operands and root, a reducer over each data operand, and
/// results of the data operands' shapes in the reducer's element type.
fn collective_reduce(v: &OpView) -> Check {
    let use_global = flag(v, "use_global_device_ids");
    replica_groups(
        v,
        false,
        use_global,
        None,
        GroupRules {
            rank: "I2",
            unique: "C1",
            ids: "C2",
            size: "C2",
        },
    )?;
    global_ids_channel(v, use_global, "C2")?;
    dynamic_root(v, "collective_reduce")?;
    if let Some(block) = v.region_block(0) {
        for t in data_operands(v) {
            reducer(v, block, t, "C4")?;
        }
    }
    let inferred = infer_collective_reduce(v)?;
    check_inferred_components(v, &inferred, "C3")
}

/// collective_reduce's results: each data operand's shape in the reducer's element type (C3).
pub(crate) fn infer_collective_reduce(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let operands = data_operands(v);
    let mut out = Vec::with_capacity(operands.len());
    for &t in &operands {
        let element = accumulator_element(v, t);
        out.extend(same_shapes(v, &[t], element));
    }
    Ok(out)
}

/// reduce_scatter (C1–C9): valid replica groups, a reducer over the operand's element type,
/// `scatter_dimension` within the operand, a positive channel with global device ids, and a
/// result that is the operand with `scatter_dimension` divided by a whole factor, in the
/// reducer's element type.
fn reduce_scatter(v: &OpView) -> Check {
    let use_global = flag(v, "use_global_device_ids");
    replica_groups(
        v,
        true,
        use_global,
        None,
        GroupRules {
            rank: "I3",
            unique: "C3",
            ids: "C5",
            size: "C4",
        },
    )?;
    let (Some(operand), Some(result)) = (v.operand_type(0), v.result_type(0)) else {
        return Ok(());
    };
    if let Some(block) = v.region_block(0) {
        reducer(v, block, operand, "C7")?;
    }
    let (Some(od), Some(rd)) = (
        shaped(v.m, operand).and_then(|s| s.dims),
        shaped(v.m, result).and_then(|s| s.dims),
    ) else {
        return Ok(());
    };
    ensure!(
        od.len() == rd.len(),
        "C8",
        "operand and result should have same rank ('{}' vs '{}')",
        v.t(operand),
        v.t(result)
    );
    let dim = v.int("scatter_dimension").unwrap_or(0);
    let Some(at) = usize::try_from(dim).ok().filter(|&d| d < od.len()) else {
        bail!(
            "C2",
            "scatter dim should be less than operand/result rank (scatter_dimension is {dim}, rank {})",
            od.len()
        );
    };
    global_ids_channel(v, use_global, "C6")?;
    let (x, y) = (od[at], rd[at]);
    if is_dynamic(x) || is_dynamic(y) {
        // upstream checks nothing further when the scatter dimension is dynamic.
        return Ok(());
    }
    ensure!(
        y != 0,
        "C8",
        "result dimension size at scatter_dimension cannot be zero"
    );
    ensure!(
        x != 0,
        "C8",
        "operand dimension size at scatter_dimension cannot be zero"
    );
    ensure!(
        x.checked_rem(y) == Some(0),
        "C8",
        "operand scatter dimension has size {x}, expected to be a multiple of result scatter dimension size {y}"
    );
    for (i, (&a, &b)) in od.iter().zip(rd).enumerate() {
        ensure!(
            i == at || a == b || is_dynamic(a) || is_dynamic(b),
            "C8",
            "non scatter dimensions should be same for operand ({}) and result ({}) (dimension {i})",
            size_str(a),
            size_str(b)
        );
    }
    let acc = accumulator_element(v, operand);
    let have = element_or_self(v.m, result);
    ensure!(
        have == acc,
        "C9",
        "result element-type is expected to be '{}', but got '{}'",
        v.t(acc),
        v.t(have)
    );
    Ok(())
}

// ---- async ----------------------------------------------------------------------------------------

/// The ops async_start may wrap (C2).
const ASYNC_OPS: [&str; 10] = [
    "stablehlo.all_gather",
    "stablehlo.all_reduce",
    "stablehlo.all_to_all",
    "stablehlo.collective_broadcast",
    "stablehlo.collective_permute",
    "stablehlo.collective_reduce",
    "stablehlo.dynamic_slice",
    "stablehlo.dynamic_update_slice",
    "stablehlo.reduce_scatter",
    "stablehlo.slice",
];

/// async_start (C1–C4): a body of one collective or slice op and a return of one value, block
/// arguments of the operands' types, and a `!stablehlo.future` of the returned type.
pub(crate) fn async_start(v: &OpView) -> Check {
    let m = v.m;
    let Some(block) = v.region_block(0) else {
        bail!("C1", "region must not be empty");
    };
    let ops = m.block_ops(block);
    ensure!(
        ops.len() == 2,
        "C1",
        "region must contain exactly one operation and a return, but it has {} operations",
        ops.len()
    );
    let inner = m.op_name_str(ops[0]);
    ensure!(
        ASYNC_OPS.contains(&inner),
        "C2",
        "region must contain a collective or slice operation, but it has `{inner}`"
    );
    let args = v.region_arg_types(0);
    let operands = v.operand_types();
    ensure!(
        operands.len() == args.len(),
        "C3",
        "number of operands ({}) must match number of region arguments ({})",
        operands.len(),
        args.len()
    );
    for (i, (&o, &a)) in operands.iter().zip(&args).enumerate() {
        ensure!(
            o == a,
            "C3",
            "operand type '{}' at index {i} must match region argument type '{}'",
            v.t(o),
            v.t(a)
        );
    }
    let returned = m.operands(ops[1]);
    ensure!(
        returned.len() == 1,
        "C4",
        "region must return exactly one value, but got {}",
        returned.len()
    );
    async_start_results(v)
}

/// async_start (C4): the result is the future of what its region returns; checked on leaving
/// the op, as `InferTypeOpInterface` checks it (`regions::verify_on_exit`).
fn async_start_results(v: &OpView) -> Check {
    let m = v.m;
    let Some(&ret) = v.region_block(0).and_then(|b| m.block_ops(b).last()) else {
        return Ok(());
    };
    let &[returned] = m.operands(ret) else {
        return Ok(());
    };
    let t = m.value_type(returned);
    let Some(result) = v.result_type(0) else {
        return Ok(());
    };
    ensure!(
        future_types(m, result) == Some(&[t][..]),
        "C4",
        "inferred type(s) '!stablehlo.future<{}>' are incompatible with return type(s) of operation '{}'",
        v.t(t),
        v.t(result)
    );
    Ok(())
}

/// async_done (C1): the result is the type the future holds.
fn async_done(v: &OpView) -> Check {
    let Some(future) = v.operand_type(0) else {
        return Ok(());
    };
    let Some(types) = future_types(v.m, future) else {
        bail!(
            "C1",
            "operand must be a future type, but got '{}'",
            v.t(future)
        );
    };
    let &[t] = types else {
        bail!(
            "C1",
            "future must have exactly one type parameter, but got {}",
            types.len()
        );
    };
    check_inferred_types(v, &[t], "C1")
}

// ---- tokens and channels ----------------------------------------------------------------------------

/// send (C5): the channel type is DEVICE_TO_DEVICE, or DEVICE_TO_HOST for a host transfer.
fn send(v: &OpView) -> Check {
    let t = v.field_int("channel_handle", "type").unwrap_or(0);
    if bool_attr(v, "is_host_transfer") {
        ensure!(
            t == 2,
            "C5",
            "channel_type should be DEVICE_TO_HOST when is_host_transfer is true, but got {}",
            channel_type_name(t)
        );
    } else {
        ensure!(
            t == 1,
            "C5",
            "channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false, but got {}",
            channel_type_name(t)
        );
    }
    Ok(())
}

/// recv (C5 and the results): the channel type is DEVICE_TO_DEVICE, or HOST_TO_DEVICE for a host
/// transfer; then tensors and a final token.
fn recv(v: &OpView) -> Check {
    let t = v.field_int("channel_handle", "type").unwrap_or(0);
    if bool_attr(v, "is_host_transfer") {
        ensure!(
            t == 3,
            "C5",
            "channel_type should be HOST_TO_DEVICE when is_host_transfer is true, but got {}",
            channel_type_name(t)
        );
    } else {
        ensure!(
            t == 1,
            "C5",
            "channel_type should be DEVICE_TO_DEVICE when is_host_transfer is false, but got {}",
            channel_type_name(t)
        );
    }
    tensors_then_token(
        v,
        "everything but the last element of result types is expected",
    )
}

/// At least one result, tensors, and a token last (infeed C1–C3, recv's results).
fn tensors_then_token(v: &OpView, all_but_last: &str) -> Check {
    let results = v.result_types();
    let Some((&last, rest)) = results.split_last() else {
        bail!(
            "C1",
            "result is expected to be at least of size 1, but got 0"
        );
    };
    for &t in rest {
        ensure!(
            shaped(v.m, t).is_some(),
            "C2",
            "{all_but_last} to be of tensor type, but got '{}'",
            v.t(t)
        );
    }
    ensure!(
        is_token(v.m, last),
        "C3",
        "last element of result types is expected to be of token type, but got '{}'",
        v.t(last)
    );
    Ok(())
}

/// infeed (C1–C3 and `layout`): tensors and a final token; a layout gives one array of integers
/// per tensor result.
fn infeed(v: &OpView) -> Check {
    tensors_then_token(
        v,
        "all elements of result types, except the last element, are expected",
    )?;
    let Some(layout) = v.attr("layout") else {
        return Ok(());
    };
    let m = v.m;
    let AttrData::Array(children) = m.attr_data(layout) else {
        bail!("ODS", "layout-attribute expected to be of array-type.");
    };
    let want = v.num_results().saturating_sub(1);
    ensure!(
        children.len() == want,
        "layout",
        "layout-attribute size must be {want} (which is the number of op-results - 1 (for token result)), but got {}",
        children.len()
    );
    for &child in children.iter() {
        let AttrData::Array(leaves) = m.attr_data(child) else {
            bail!(
                "layout",
                "layout-attribute expected to have elements of type array, but got {}",
                v.a(child)
            );
        };
        for &leaf in leaves.iter() {
            ensure!(
                matches!(m.attr_data(leaf), AttrData::Integer { .. }),
                "layout",
                "layout-attribute's leaf elements are expected to be of type integer, but got {}",
                v.a(leaf)
            );
        }
    }
    Ok(())
}

/// partition_id and replica_id: a `tensor<ui32>` (the element type is ODS's; the rank is what
/// inference adds).
fn process_id(v: &OpView) -> Check {
    if let Some(t) = v.result_type(0) {
        let rank = shaped(v.m, t).and_then(|s| s.rank());
        ensure!(
            rank.is_none_or(|r| r == 0),
            "InferTypeOpInterface",
            "inferred type(s) 'tensor<ui32>' are incompatible with return type(s) of operation '{}'",
            v.t(t)
        );
    }
    Ok(())
}

// ---- random numbers ---------------------------------------------------------------------------------

/// rng (C1–C3): `a`, `b` and the result share an element type, floats for NORMAL, and the result
/// has the shape `shape` gives (its values when it is a constant, else its length).
fn rng(v: &OpView) -> Check {
    let types = v.operand_types();
    let (Some(&a), Some(&b), Some(result)) = (types.first(), types.get(1), v.result_type(0)) else {
        return Ok(());
    };
    let e = element_or_self(v.m, a);
    ensure!(
        e == element_or_self(v.m, b) && e == element_or_self(v.m, result),
        "C1",
        "failed to verify that all of {{a, b, result}} have same element type ('{}', '{}', '{}')",
        v.t(a),
        v.t(b),
        v.t(result)
    );
    // Before inferring: the result's rank must be the shape's length, so that a huge length
    // is never materialized (a short one is reported with the inferred type, as upstream does).
    if let (Some(len), Some(rank)) = (
        types
            .get(2)
            .and_then(|&t| shaped(v.m, t))
            .and_then(|s| s.dims)
            .and_then(|d| d.first().copied()),
        shaped(v.m, result).and_then(|s| s.rank()),
    ) {
        ensure!(
            len <= 4096 || usize::try_from(len) == Ok(rank),
            "C3",
            "inferred type(s) of rank {len} (the length of `shape`) are incompatible with return type(s) of operation '{}'",
            v.t(result)
        );
    }
    let inferred = infer_rng(v)?;
    check_inferred_components(v, &inferred, "C3")
}

/// rng's result (C2, C3): `b`'s element type, in the shape a constant `shape` holds (dynamic
/// sizes when it is not a constant).
pub(crate) fn infer_rng(v: &OpView) -> Result<Vec<Inferred>, Failure> {
    let types = v.operand_types();
    let (Some(&a), Some(&b)) = (types.first(), types.get(1)) else {
        return Ok(Vec::new());
    };
    if v.enum_case("rng_distribution") == Some("NORMAL") {
        let (ea, eb) = (element_or_self(v.m, a), element_or_self(v.m, b));
        ensure!(
            is_float(v.m, ea) && is_float(v.m, eb),
            "C2",
            "mu and sigma must be floats, but are '{}' and '{}'",
            v.t(ea),
            v.t(eb)
        );
    }
    let element = element_or_self(v.m, b);
    let shape = v.operands().get(2).copied();
    let constant = shape.and_then(|s| match v.m.value_def(s) {
        ValueDef::Result { op, .. } if v.m.op_name_str(op) == "stablehlo.constant" => {
            v.m.property(op, "value")
                .or_else(|| v.m.attribute(op, "value"))
                .and_then(|a| dense_ints(v.m, a))
                .map(|(_, values)| values)
        }
        _ => None,
    });
    let dims = match constant {
        Some(values) => values,
        None => {
            let len = shape
                .and_then(|s| shaped(v.m, v.m.value_type(s)))
                .and_then(|s| s.dims)
                .and_then(|d| d.first().copied())
                .unwrap_or(0);
            // Bounded by the caller: `rng` compares a long one with the result's rank first.
            let len = usize::try_from(len).unwrap_or(0).min(1 << 20);
            vec![crate::ir::DYNAMIC; len]
        }
    };
    Ok(vec![Inferred::ranked(dims, element)])
}

/// rng_bit_generator (C1): the output state's shape is compatible with the initial state's.
fn rng_bit_generator(v: &OpView) -> Check {
    let (Some(initial), Some(output)) = (v.operand_type(0), v.result_type(0)) else {
        return Ok(());
    };
    ensure!(
        compatible_shapes(
            shaped(v.m, initial).and_then(|s| s.dims),
            shaped(v.m, output).and_then(|s| s.dims)
        ),
        "C1",
        "output state shape must be compatible with initial state shape. Got: '{}' and '{}'",
        v.t(initial),
        v.t(output)
    );
    Ok(())
}

// ---- custom_call ------------------------------------------------------------------------------------

/// The custom-call API versions, by value.
fn api_version_name(version: i64) -> String {
    match version {
        0 => "API_VERSION_UNSPECIFIED".into(),
        1 => "API_VERSION_ORIGINAL".into(),
        2 => "API_VERSION_STATUS_RETURNING".into(),
        3 => "API_VERSION_STATUS_RETURNING_UNIFIED".into(),
        4 => "API_VERSION_TYPED_FFI".into(),
        v => format!("API_VERSION {v}"),
    }
}

/// custom_call (upstream's `CustomCallOp::verify`): operand and result layouts together, each a
/// permutation of its type's dimensions; `output_operand_aliases` that name existing operand and
/// result parts of the same type; a `backend_config` of the kind the API version takes; and the
/// buffer rules of the `CreateBuffer`, `Pin` and `Unpin` targets.
fn custom_call(v: &OpView) -> Check {
    let m = v.m;
    let operand_layouts = v.attr("operand_layouts");
    let result_layouts = v.attr("result_layouts");
    if operand_layouts.is_some() || result_layouts.is_some() {
        let (Some(ol), Some(rl)) = (operand_layouts, result_layouts) else {
            bail!(
                "layouts",
                "Layout attributes should be specified for either both operands and results or none."
            );
        };
        let results = v.result_types();
        let result_types: Vec<Type> = match (&results[..], results.first().map(|&t| m.type_data(t)))
        {
            ([_], Some(TypeData::Tuple(ts))) => ts.to_vec(),
            _ => results,
        };
        layouts(v, &v.operand_types(), ol, "operand")?;
        layouts(v, &result_types, rl, "result")?;
    }
    let aliases = output_operand_aliases(v)?;
    if let Some(config) = v.attr("backend_config") {
        let version = v
            .int("api_version")
            .or_else(|| {
                v.enum_case("api_version").and_then(|c| match c {
                    "API_VERSION_UNSPECIFIED" => Some(0),
                    "API_VERSION_ORIGINAL" => Some(1),
                    "API_VERSION_STATUS_RETURNING" => Some(2),
                    "API_VERSION_STATUS_RETURNING_UNIFIED" => Some(3),
                    "API_VERSION_TYPED_FFI" => Some(4),
                    _ => None,
                })
            })
            .unwrap_or(1);
        let is_dict = matches!(m.attr_data(config), AttrData::Dictionary(_));
        let is_str = matches!(m.attr_data(config), AttrData::String { .. });
        if version == 4 {
            ensure!(
                is_dict,
                "backend_config",
                "backend_config for api_version {} must be a dictionary attribute.",
                api_version_name(version)
            );
        } else {
            ensure!(
                is_str,
                "backend_config",
                "backend_config for api_version {} must be a string attribute.",
                api_version_name(version)
            );
        }
    }
    known_custom_calls(v, &aliases)
}

/// One `#stablehlo.output_operand_alias`: (output tuple indices, operand index, operand tuple
/// indices).
type Alias = (Vec<i64>, usize, Vec<i64>);

/// The layouts of one side of a custom call: one per type, none for a tuple, empty for a
/// non-tensor, else a permutation of `0..rank`.
fn layouts(v: &OpView, types: &[Type], layouts: Attribute, what: &str) -> Check {
    let m = v.m;
    let AttrData::Array(items) = m.attr_data(layouts) else {
        return Ok(());
    };
    ensure!(
        types.len() == items.len(),
        "layouts",
        "Number of {what}s must match the number of {what} layouts, {} != {}",
        types.len(),
        items.len()
    );
    for (i, (&t, &layout)) in types.iter().zip(items.iter()).enumerate() {
        ensure!(
            !matches!(m.type_data(t), TypeData::Tuple(_)),
            "layouts",
            "Tuple types are not fully supported with layout constraints yet"
        );
        let values = dense_ints(m, layout).map(|(_, x)| x).unwrap_or_default();
        let Some(shape) = shaped_dims(m, t) else {
            ensure!(
                values.is_empty(),
                "layouts",
                "Only tensor types can have non-empty layout: {what} #{i} of type '{}' has layout {}",
                v.t(t),
                v.a(layout)
            );
            continue;
        };
        let Some(dims) = shape else { continue };
        let rank = dims.len();
        let mut hit = vec![false; rank];
        let permutation = values.len() == rank
            && values.iter().all(|&x| {
                usize::try_from(x)
                    .ok()
                    .and_then(|x| hit.get_mut(x))
                    .is_some_and(|h| !std::mem::replace(h, true))
            });
        ensure!(
            permutation,
            "layouts",
            "incorrect layout {} for type '{}', layout must be a permutation of [0, {rank})",
            v.a(layout),
            v.t(t)
        );
    }
    Ok(())
}

/// The part of `t` that tuple `indices` select, if they are in bounds.
fn tuple_part(m: &Module, mut t: Type, indices: &[i64]) -> Option<Type> {
    for &i in indices {
        let TypeData::Tuple(ts) = m.type_data(t) else {
            return None;
        };
        t = *usize::try_from(i).ok().and_then(|i| ts.get(i))?;
    }
    Some(t)
}

/// custom_call's `output_operand_aliases`: each names an operand, an operand part and an output
/// part that exist and have the same type. Returns them for the buffer rules.
fn output_operand_aliases(v: &OpView) -> Result<Vec<Alias>, Failure> {
    let m = v.m;
    let Some(list) = v.attr("output_operand_aliases") else {
        return Ok(Vec::new());
    };
    let AttrData::Array(items) = m.attr_data(list) else {
        return Ok(Vec::new());
    };
    let ints = |a: Attribute, f: &str| match struct_field(m, a, f) {
        Some(Param::Ints(x)) => x.to_vec(),
        _ => Vec::new(),
    };
    let operands = v.operand_types();
    let results = v.result_types();
    let mut out = Vec::with_capacity(items.len());
    for &alias in items.iter() {
        let output_indices = ints(alias, "output_tuple_indices");
        let operand_indices = ints(alias, "operand_tuple_indices");
        let index = match struct_field(m, alias, "operand_index") {
            Some(Param::Int(x)) => *x,
            Some(Param::UInt(x)) => i64::try_from(*x).unwrap_or(i64::MAX),
            _ => 0,
        };
        let Some((at, &operand)) = usize::try_from(index)
            .ok()
            .and_then(|i| operands.get(i).map(|t| (i, t)))
        else {
            bail!(
                "output_operand_aliases",
                "expects operandIndex in the output_operand_alias attribute to be in range [0, {}); got: {index}.",
                operands.len()
            );
        };
        let Some(operand_part) = tuple_part(m, operand, &operand_indices) else {
            bail!(
                "output_operand_aliases",
                "operand_tuple_indices in the output_operand_alias attribute out of bounds"
            );
        };
        // Several results are seen as one tuple of them.
        let output_part = match &results[..] {
            [one] => tuple_part(m, *one, &output_indices),
            many => match output_indices.split_first() {
                None => None,
                Some((&first, rest)) => usize::try_from(first)
                    .ok()
                    .and_then(|i| many.get(i))
                    .and_then(|&t| tuple_part(m, t, rest)),
            },
        };
        let Some(output_part) = output_part else {
            bail!(
                "output_operand_aliases",
                "output_tuple_indices in the output_operand_alias attribute out of bounds"
            );
        };
        ensure!(
            operand_part == output_part,
            "output_operand_aliases",
            "shapes mismatch in the output_operand_alias attribute: operand part has type '{}' and output part has type '{}'",
            v.t(operand_part),
            v.t(output_part)
        );
        out.push((output_indices, at, operand_indices));
    }
    Ok(out)
}

/// Whether `t` is a memref or a tuple holding one (memoized per distinct type).
fn has_memref(m: &Module, t: Type, memo: &mut std::collections::HashMap<Type, bool>) -> bool {
    if let Some(&known) = memo.get(&t) {
        return known;
    }
    let found = match m.type_data(t) {
        TypeData::Tuple(ts) => ts.iter().any(|&x| has_memref(m, x, memo)),
        _ => is_memref(m, t),
    };
    memo.insert(t, found);
    found
}

/// upstream's `verifyKnownCustomCalls`: `CreateBuffer` makes one memref from nothing, `Pin`
/// turns a tensor into a memref and `Unpin` back; and any custom call aliases each buffer
/// operand part and each buffer output part at most once, and every buffer output part.
fn known_custom_calls(v: &OpView, aliases: &[Alias]) -> Check {
    let m = v.m;
    let target = match v.attr("call_target_name").map(|a| m.attr_data(a)) {
        Some(AttrData::String { value, .. }) => m.bytes(*value),
        _ => b"",
    };
    let operands = v.operand_types();
    let results = v.result_types();
    match target {
        b"CreateBuffer" => {
            ensure!(
                operands.is_empty(),
                "CreateBuffer",
                "CreateBuffer custom_call shouldn't have any inputs, but has {}",
                operands.len()
            );
            ensure!(
                results.len() == 1,
                "CreateBuffer",
                "CreateBuffer custom_call should have one result, but has {}",
                results.len()
            );
            ensure!(
                is_memref(m, results[0]),
                "CreateBuffer",
                "CreateBuffer custom_call should have a memref result, but has '{}'",
                v.t(results[0])
            );
            return Ok(());
        }
        b"Pin" | b"Unpin" => {
            let pin = target == b"Pin";
            let name = if pin { "Pin" } else { "Unpin" };
            let (from, to) = if pin {
                ("a tensor", "a memref")
            } else {
                ("a memref", "a tensor")
            };
            ensure!(
                operands.len() == 1,
                "Pin",
                "{name} custom_call should have one input, but has {}",
                operands.len()
            );
            let input = operands[0];
            let is_tensor = |t| shaped(m, t).is_some();
            ensure!(
                if pin {
                    is_tensor(input)
                } else {
                    is_memref(m, input)
                },
                "Pin",
                "{name} custom_call should have {from} input, but has '{}'",
                v.t(input)
            );
            ensure!(
                results.len() == 1,
                "Pin",
                "{name} custom_call should have one output, but has {}",
                results.len()
            );
            let output = results[0];
            ensure!(
                if pin {
                    is_memref(m, output)
                } else {
                    is_tensor(output)
                },
                "Pin",
                "{name} custom_call should have {to} output, but has '{}'",
                v.t(output)
            );
            ensure!(
                compatible_shape(m, input, output)
                    && element_or_self(m, input) == element_or_self(m, output),
                "Pin",
                "{name} custom_call should have compatible input and output types ('{}' and '{}')",
                v.t(input),
                v.t(output)
            );
            return Ok(());
        }
        _ => {}
    }
    let mut operand_parts: HashSet<(usize, &[i64])> = HashSet::new();
    let mut output_parts: HashSet<&[i64]> = HashSet::new();
    for (output_indices, operand, operand_indices) in aliases {
        let part = operands
            .get(*operand)
            .and_then(|&t| tuple_part(m, t, operand_indices));
        if !part.is_some_and(|t| is_memref(m, t)) {
            continue;
        }
        ensure!(
            output_parts.insert(output_indices),
            "output_operand_aliases",
            "buffer output [{}] is used in output_operand_alias more than once",
            ints_str(output_indices)
        );
        ensure!(
            operand_parts.insert((*operand, operand_indices)),
            "output_operand_aliases",
            "buffer operand {operand}[{}] is used in output_operand_alias more than once",
            ints_str(operand_indices)
        );
    }
    // Every memref leaf of the results (several results seen as one tuple). Only parts that
    // hold a memref are entered, and each memref leaf found must be an aliased output part (at
    // most one per alias), so this visits O(aliases x depth) parts.
    let mut memo = std::collections::HashMap::new();
    let mut stack: Vec<(Type, Vec<i64>)> = match &results[..] {
        [one] => vec![(*one, Vec::new())],
        many => many
            .iter()
            .enumerate()
            .rev()
            .map(|(i, &t)| (t, vec![i as i64]))
            .collect(),
    };
    while let Some((t, at)) = stack.pop() {
        if !has_memref(m, t, &mut memo) {
            continue;
        }
        match m.type_data(t) {
            TypeData::Tuple(ts) => {
                for (i, &x) in ts.iter().enumerate().rev() {
                    let mut next = at.clone();
                    next.push(i as i64);
                    stack.push((x, next));
                }
            }
            _ => ensure!(
                output_parts.contains(&at[..]),
                "output_operand_aliases",
                "buffer output [{}] is not used in output_operand_alias",
                ints_str(&at)
            ),
        }
    }
    Ok(())
}

// ---- symbols ----------------------------------------------------------------------------------------

/// The op's symbol uses (MLIR's `verifySymbolUses`): a composite's decomposition (C2–C4) and a
/// replica-group mesh symbol. MLIR checks these on leaving the symbol table, once every op in
/// it has verified (`walk.rs`, `symbol_users`).
pub(crate) fn verify_symbol_uses(v: &OpView) -> Check {
    match v.kind {
        K::Composite => composite(v),
        k if uses_symbols(k) => mesh_symbol(v),
        _ => Ok(()),
    }
}

/// Whether ops of `kind` have symbol uses ([`verify_symbol_uses`]).
pub(crate) fn uses_symbols(kind: K) -> bool {
    matches!(
        kind,
        K::Composite
            | K::AllGather
            | K::AllReduce
            | K::AllToAll
            | K::CollectiveBroadcast
            | K::CollectiveReduce
            | K::ReduceScatter
    )
}

/// `ReplicaGroupMeshAxesAttr::verifySymbolUses`: a mesh named by symbol exists.
fn mesh_symbol(v: &OpView) -> Check {
    let m = v.m;
    let Some(a) = v.attr("replica_groups") else {
        return Ok(());
    };
    let Some(mesh) = struct_field(m, a, "mesh").and_then(Param::attr) else {
        return Ok(());
    };
    if let AttrData::SymbolRef { root, nested } = m.attr_data(mesh) {
        if nested.is_empty() {
            ensure!(
                v.symbols.lookup(m, v.op, *root).is_some(),
                "SymbolUserOpInterface",
                "replica_groups: mesh symbol '{}' not found",
                m.str(*root)
            );
        }
    }
    Ok(())
}

/// composite (C2–C4; C1 is with the ODS checks): `decomposition` names a `func.func` whose
/// inputs and results are exactly the op's operand and result types.
fn composite(v: &OpView) -> Check {
    let m = v.m;
    let Some(AttrData::SymbolRef { root, .. }) = v.attr("decomposition").map(|a| m.attr_data(a))
    else {
        return Ok(());
    };
    let name = m.str(*root);
    let func = v
        .symbols
        .lookup(m, v.op, *root)
        .filter(|&f| m.op_name_str(f) == "func.func");
    let Some((inputs, outputs)) =
        func.and_then(|f| crate::text::verify::structure::function_type(m, f))
    else {
        bail!("C2", "'{name}' does not reference a valid function");
    };
    let operands = v.operand_types();
    ensure!(
        operands.len() == inputs.len(),
        "C3",
        "has {} operand(s), but decomposition has {}",
        operands.len(),
        inputs.len()
    );
    for (i, (&a, &b)) in operands.iter().zip(inputs).enumerate() {
        ensure!(
            a == b,
            "C3",
            "operand at index {i} has type '{}', but decomposition has type '{}'",
            v.t(a),
            v.t(b)
        );
    }
    let results = v.result_types();
    ensure!(
        results.len() == outputs.len(),
        "C4",
        "has {} result(s), but decomposition has {}",
        results.len(),
        outputs.len()
    );
    for (i, (&a, &b)) in results.iter().zip(outputs).enumerate() {
        ensure!(
            a == b,
            "C4",
            "result at index {i} has type '{}', but decomposition has type '{}'",
            v.t(a),
            v.t(b)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::text;

    /// The first verifier error of `src`, if any.
    fn error(src: &str) -> Option<String> {
        let m = text::parse_unverified(src).expect("parses");
        crate::text::verify::verify(&m)
            .err()
            .map(|e| e.0.first().map(|d| d.to_string()).unwrap_or_default())
    }

    /// A vector is a `ShapedType` to upstream's `verifyReducerShape`, so a reduction region
    /// returning one passes the op's checks and fails at its `stablehlo.return` (ODS), where
    /// jaxlib (StableHLO 1.17.0) refuses it too.
    #[test]
    fn reduction_region_of_vectors() {
        let src = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %r = \"stablehlo.all_reduce\"(%a) ({\n  ^bb0(%x: vector<f32>, %y: vector<f32>):\n    \"stablehlo.return\"(%x) : (vector<f32>) -> ()\n  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n";
        let e = error(src).unwrap_or_default();
        assert!(e.contains("`stablehlo.return`: operand #0 must be"), "{e}");
    }

    /// An inferred static size must fit the result's bound, as `verifyCompatibleShapeWithBounds`
    /// checks both ways: jaxlib (StableHLO 1.17.0) refuses a `tensor<5xf32>` all_reduce whose
    /// result is bounded by 3, and accepts one bounded by 5.
    #[test]
    fn inferred_sizes_fit_the_results_bounds() {
        let src = |bound: u32| {
            let r = format!("tensor<?xf32, #stablehlo.bounds<{bound}>>");
            format!(
                "func.func @main(%x: tensor<5xf32>) -> {r} {{\n  %0 = \"stablehlo.all_reduce\"(%x) ({{\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n    %s = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n  }}) {{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<5xf32>) -> {r}\n  return %0 : {r}\n}}\n"
            )
        };
        let e = crate::text::parse(&src(3)).unwrap_err().to_string();
        assert!(
            e.contains("inferred type(s) 'tensor<5xf32>' are incompatible"),
            "{e}"
        );
        assert!(crate::text::parse(&src(5)).is_ok());
    }

    #[test]
    fn replica_groups() {
        let all_reduce = |groups: &str, extra: &str| {
            format!(
                "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n  %0 = \"stablehlo.all_reduce\"(%x) ({{\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n    %s = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n  }}) {{replica_groups = {groups}{extra}}} : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}}\n"
            )
        };
        assert_eq!(
            error(&all_reduce("dense<[[0, 1]]> : tensor<1x2xi64>", "")),
            None
        );
        // -1 pads groups of different sizes in all_reduce.
        assert_eq!(
            error(&all_reduce(
                "dense<[[0, -1], [1, 2]]> : tensor<2x2xi64>",
                ""
            )),
            None
        );
        let e = error(&all_reduce("dense<[[0, 1, 1]]> : tensor<1x3xi64>", "")).unwrap();
        assert!(e.contains("replica id #1 seen more than once"), "{e}");
        let e = error(&all_reduce(
            "dense<[[0, -2], [1, 2]]> : tensor<2x2xi64>",
            "",
        ))
        .unwrap();
        assert!(e.contains("replica id #3 not seen"), "{e}");
        // A splat of a huge shape is decided without expanding it.
        let e = error(&all_reduce("dense<0> : tensor<1000000x1000000xi64>", "")).unwrap();
        assert!(e.contains("replica id #0 seen more than once"), "{e}");
        let e = error(&all_reduce(
            "dense<0> : tensor<0x2xi64>",
            ", use_global_device_ids",
        ))
        .unwrap();
        assert!(e.contains("cannot be empty"), "{e}");
    }

    #[test]
    fn result_accuracy() {
        let cosine = |acc: &str| {
            format!(
                "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {{\n  %0 = \"stablehlo.cosine\"(%x) {{result_accuracy = #stablehlo.result_accuracy<{acc}>}} : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}}\n"
            )
        };
        // The whole verifier, as `text::parse` runs it (the attribute's rules live with the
        // elementwise ops that carry it).
        let check = |acc: &str| text::parse(&cosine(acc)).err().map(|e| e.message);
        assert_eq!(
            check("atol = 1.0e-05, rtol = 0.0, ulps = 1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>"),
            None
        );
        assert!(
            check("atol = -0.0, mode = #stablehlo.result_accuracy_mode<TOLERANCE>")
                .unwrap()
                .contains("Negative tolerance")
        );
        assert!(
            check("ulps = -1, mode = #stablehlo.result_accuracy_mode<TOLERANCE>")
                .unwrap()
                .contains("Negative tolerance")
        );
        assert!(
            check("atol = 1.0, mode = #stablehlo.result_accuracy_mode<DEFAULT>")
                .unwrap()
                .contains("with mode DEFAULT, must be all zero")
        );
        assert_eq!(
            check("mode = #stablehlo.result_accuracy_mode<HIGHEST>"),
            None
        );
    }

    #[test]
    fn all_to_all_bounds() {
        let program = |result: &str| {
            format!("func.func @main(%x: tensor<16x?xf32, #stablehlo.bounds<?, 5>>) -> {result} {{\n  %0 = \"stablehlo.all_to_all\"(%x) {{split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 4 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}} : (tensor<16x?xf32, #stablehlo.bounds<?, 5>>) -> {result}\n  return %0 : {result}\n}}\n")
        };
        let src = &program("tensor<?x?xf32>");
        assert_eq!(error(src), None);
        let m = text::parse_unverified(src).expect("parses");
        let mut op = None;
        m.walk(|o| {
            if m.op_name_str(o) == "stablehlo.all_to_all" {
                op = Some(o);
            }
        });
        let symbols = Default::default();
        let v = super::OpView {
            m: &m,
            op: op.expect("all_to_all"),
            kind: super::K::AllToAll,
            symbols: &symbols,
        };
        let inferred = super::infer_all_to_all(&v).expect("infers");
        assert_eq!(inferred[0].dims, Some(vec![4, crate::ir::DYNAMIC]));
        assert_eq!(inferred[0].bounds, Some(vec![crate::ir::DYNAMIC, 20]));
        // A static result must agree with the inferred sizes.
        let e = error(&program("tensor<5x?xf32>")).unwrap();
        assert!(e.contains("are incompatible with return type(s)"), "{e}");
    }

    #[test]
    fn custom_call_aliases_and_layouts() {
        let call = |attrs: &str, sig: &str| {
            format!("func.func @main(%a: tuple<tensor<1x1xf32>, tensor<2x3xf32>>, %b: tensor<5x5xf32>) {{\n  %0 = \"stablehlo.custom_call\"(%a, %b) {{call_target_name = \"foo\"{attrs}}} : {sig}\n  return\n}}\n")
        };
        let sig =
            "(tuple<tensor<1x1xf32>, tensor<2x3xf32>>, tensor<5x5xf32>) -> tuple<tensor<2x3xf32>>";
        let alias = |out: &str, idx: i64, inp: &str| {
            format!(", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [{out}], operand_index = {idx}, operand_tuple_indices = [{inp}]>]")
        };
        assert_eq!(error(&call(&alias("0", 0, "1"), sig)), None);
        let e = error(&call(&alias("0", 2, "1"), sig)).unwrap();
        assert!(e.contains("to be in range [0, 2); got: 2"), "{e}");
        let e = error(&call(&alias("1", 0, "1"), sig)).unwrap();
        assert!(
            e.contains("output_tuple_indices in the output_operand_alias attribute out of bounds"),
            "{e}"
        );
        let e = error(&call(&alias("0", 0, "0"), sig)).unwrap();
        assert!(e.contains("operand part has type 'tensor<1x1xf32>' and output part has type 'tensor<2x3xf32>'"), "{e}");
        let layouts = ", operand_layouts = [dense<[1, 0]> : tensor<2xindex>], result_layouts = []";
        let sig1 = "(tensor<5x5xf32>) -> ()";
        let one = |attrs: &str| {
            call(attrs, sig1)
                .replace("(%a, %b)", "(%b)")
                .replace("%0 = ", "")
        };
        assert_eq!(error(&one(layouts)), None);
        let e = error(&one(&layouts.replace("[1, 0]", "[1, 1]"))).unwrap();
        assert!(e.contains("layout must be a permutation of [0, 2)"), "{e}");
    }
}
