//! Shardy's collectives (`sdy.all_gather`, `sdy.all_slice`, `sdy.all_to_all`,
//! `sdy.collective_permute`, `sdy.all_reduce`, `sdy.reduce_scatter`, `sdy.sharded_to_unreduced`,
//! `sdy.replicated_to_unreduced`): `verifyCollectiveOp` and each op's `verifySymbolUses`
//! (openxla/shardy, `shardy/dialect/sdy/ir/verifiers.cc`). The messages are Shardy's.
//!
//! Not checked: the reduction operator's transitions of unreduced axes
//! (`verifyUnreducedAxesTransition`).

use super::sharding::{
    attrs, axis_list, mesh_less, mesh_of, sdy_params, tensor, AxisRef, Bound, Mesh, Meshes, Seen,
};
use crate::ir::{AttrData, Attribute, Module, OpId, Param, Symbol, TypeData, Value, ValueDef};

/// The collectives, each with whether its operand may have no sharding
/// (`allowMissingInputSharding`).
const COLLECTIVES: &[(&str, bool)] = &[
    ("sdy.all_gather", false),
    ("sdy.all_slice", true),
    ("sdy.all_to_all", false),
    ("sdy.collective_permute", false),
    ("sdy.all_reduce", true),
    ("sdy.reduce_scatter", true),
    ("sdy.sharded_to_unreduced", false),
    ("sdy.replicated_to_unreduced", false),
];

/// A `#sdy.sharding` taken apart: its mesh (by the attribute it resolves to) and axis lists.
struct Sharding {
    mesh_or_ref: Option<Attribute>,
    mesh_attr: Option<Attribute>,
    dims: Vec<Vec<AxisRef>>,
    replicated: Vec<AxisRef>,
    unreduced: Vec<AxisRef>,
    reduction_op: i64,
}

fn refs(m: &Module, sdy: Symbol, list: &[Attribute]) -> Vec<AxisRef> {
    list.iter()
        .filter_map(|&a| AxisRef::of(m, sdy, a))
        .collect()
}

impl Sharding {
    fn of(m: &Module, meshes: &Meshes, sdy: Symbol, a: Attribute) -> Option<Sharding> {
        let p = sdy_params(m, sdy, a, "sharding")?;
        let mesh_or_ref = match p.first() {
            Some(Param::Attr(x)) => Some(*x),
            _ => None,
        };
        let mesh_attr = mesh_or_ref.and_then(|x| match m.attr_data(x) {
            AttrData::SymbolRef { root, .. } => meshes.get(*root),
            _ => Some(x),
        });
        let dims = attrs(p.get(1))
            .iter()
            .map(|&d| {
                sdy_params(m, sdy, d, "dimension_sharding")
                    .map(|q| refs(m, sdy, attrs(q.first())))
                    .unwrap_or_default()
            })
            .collect();
        let reduction_op = match p.get(4) {
            Some(Param::Int(v)) => *v,
            _ => 0,
        };
        Some(Sharding {
            mesh_or_ref,
            mesh_attr,
            dims,
            replicated: refs(m, sdy, attrs(p.get(2))),
            unreduced: refs(m, sdy, attrs(p.get(3))),
            reduction_op,
        })
    }

    /// Shardy's `getOrCreateSharding`: an open sharding of `rank` on the result's mesh.
    fn open(rank: usize, like: &Sharding) -> Sharding {
        Sharding {
            mesh_or_ref: like.mesh_or_ref,
            mesh_attr: like.mesh_attr,
            dims: vec![Vec::new(); rank],
            replicated: Vec::new(),
            unreduced: Vec::new(),
            reduction_op: 0,
        }
    }
}

/// The sharding of a value, as Shardy's `getSharding` finds it: a function argument's, or the
/// one the defining op gives its result.
fn value_sharding(m: &Module, v: Value) -> Option<Attribute> {
    match m.value_def(v) {
        ValueDef::Argument { block, index } => {
            let func = m.block_parent(block).and_then(|r| m.region_parent(r))?;
            if m.op_name_str(func) != "func.func" {
                return None;
            }
            let AttrData::Array(dicts) = m.attr_data(m.property(func, "arg_attrs")?) else {
                return None;
            };
            let AttrData::Dictionary(entries) = m.attr_data(*dicts.get(index as usize)?) else {
                return None;
            };
            entries
                .iter()
                .find(|(k, _)| m.str(*k) == "sdy.sharding")
                .map(|&(_, s)| s)
        }
        ValueDef::Result { op, index } => {
            let name = m.op_name_str(op);
            if let Some(own) = match name {
                "sdy.sharding_constraint" | "sdy.reshard" | "sdy.data_flow_edge" => {
                    Some(m.property(op, "sharding"))
                }
                _ if COLLECTIVES.iter().any(|(n, _)| *n == name) => {
                    Some(m.property(op, "out_sharding"))
                }
                _ => None,
            } {
                return own;
            }
            let per_value = m.attribute(op, "sdy.sharding")?;
            match m.attr_data(per_value) {
                AttrData::Dialect(d) => match d.params.first() {
                    Some(Param::Attrs(xs)) => xs.get(index as usize).copied(),
                    _ => None,
                },
                _ => None,
            }
        }
    }
}

/// `strippedAttrsString` of an axis list: `["x":(1)2, "y"]`.
fn list_text(axes: &[AxisRef]) -> String {
    let parts: Vec<String> = axes.iter().map(AxisRef::text).collect();
    format!("[{}]", parts.join(", "))
}

fn full_size(mesh: &Mesh, name: &str) -> i64 {
    mesh.axis_index(name)
        .and_then(|i| mesh.axes.get(i))
        .map_or(1, |(_, s)| *s)
}

/// The axis as a range of pre-sizes: `[pre, pre * size)`.
fn range(mesh: &Mesh, a: &AxisRef) -> (i64, i64) {
    match a.sub {
        Some((pre, size)) => (pre, pre.saturating_mul(size)),
        None => (1, full_size(mesh, &a.name)),
    }
}

/// The axis of `name` over pre-sizes `[from, to)`: the full axis when it covers it.
fn axis(mesh: &Mesh, name: &str, from: i64, to: i64) -> AxisRef {
    let sub = (from != 1 || to != full_size(mesh, name)).then(|| (from, to / from.max(1)));
    AxisRef {
        name: name.to_string(),
        sub,
    }
}

fn overlaps(mesh: &Mesh, a: &AxisRef, b: &AxisRef) -> bool {
    let ((a0, a1), (b0, b1)) = (range(mesh, a), range(mesh, b));
    a.name == b.name && a0 < b1 && b0 < a1
}

/// `addAxisOrMerge`: `a` appended, merged into the last axis when it continues it.
fn add_or_merge(mesh: &Mesh, axes: &mut Vec<AxisRef>, a: &AxisRef) {
    if let Some(last) = axes.last_mut() {
        let ((l0, l1), (a0, a1)) = (range(mesh, last), range(mesh, a));
        if last.name == a.name && l1 == a0 {
            *last = axis(mesh, &a.name, l0, a1);
            return;
        }
    }
    axes.push(a.clone());
}

/// `sortAndMergeAxes`.
fn sort_and_merge(mesh: &Mesh, axes: &[AxisRef]) -> Vec<AxisRef> {
    let mut sorted = axes.to_vec();
    sorted.sort_by(|a, b| {
        if mesh_less(mesh, a, b) {
            std::cmp::Ordering::Less
        } else if mesh_less(mesh, b, a) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
    let mut out = Vec::new();
    for a in &sorted {
        add_or_merge(mesh, &mut out, a);
    }
    out
}

/// `gatherAxesAlongDim`: `gathering` removed from the end of `dim`'s axes.
fn gather(
    mesh: &Mesh,
    dim_axes: &[AxisRef],
    gathering: &[AxisRef],
    dim: usize,
    kind: &str,
) -> Result<Vec<AxisRef>, String> {
    let mut expected = dim_axes.to_vec();
    for g in gathering.iter().rev() {
        let suffix = expected.last().is_some_and(|last| {
            let ((l0, l1), (g0, g1)) = (range(mesh, last), range(mesh, g));
            last.name == g.name && l1 == g1 && g0 >= l0
        });
        if !suffix {
            return Err(format!(
                "can't apply {kind} axis {} to operand sharding on dimension {dim}",
                g.text()
            ));
        }
        let Some(last) = expected.pop() else { break };
        let ((l0, _), (g0, _)) = (range(mesh, &last), range(mesh, g));
        if l0 < g0 {
            expected.push(axis(mesh, &last.name, l0, g0));
        }
    }
    Ok(expected)
}

/// `sliceAxesAlongDim`: `slicing` appended to `dim`'s axes.
fn slice(mesh: &Mesh, dim_axes: &[AxisRef], slicing: &[AxisRef]) -> Vec<AxisRef> {
    let mut expected = dim_axes.to_vec();
    for s in slicing {
        add_or_merge(mesh, &mut expected, s);
    }
    expected
}

/// A list of axis-ref lists (`#sdy<list_of_axis_ref_lists[...]>`).
fn lists(m: &Module, sdy: Symbol, a: Option<Attribute>) -> Vec<Vec<AxisRef>> {
    let Some(p) = a.and_then(|a| sdy_params(m, sdy, a, "list_of_axis_ref_lists")) else {
        return Vec::new();
    };
    attrs(p.first())
        .iter()
        .map(|&l| {
            sdy_params(m, sdy, l, "axis_ref_list")
                .map(|q| refs(m, sdy, attrs(q.first())))
                .unwrap_or_default()
        })
        .collect()
}

fn list_attrs<'m>(m: &'m Module, sdy: Symbol, a: Option<Attribute>, of: &str) -> &'m [Attribute] {
    a.and_then(|a| sdy_params(m, sdy, a, of))
        .map_or(&[][..], |p| attrs(p.first()))
}

/// `verifyCollectiveOp` and the op's own `verifySymbolUses`; Shardy's message.
pub(super) fn verify(
    m: &Module,
    meshes: &Meshes,
    sdy: Symbol,
    op: OpId,
    name: &str,
    bound: &Bound,
) -> Option<String> {
    let &(_, allow_missing) = COLLECTIVES.iter().find(|(n, _)| *n == name)?;
    let out_attr = m.property(op, "out_sharding")?;
    let result_type = m.results(op).next().map(|v| m.value_type(v))?;
    let &operand = m.operands(op).first()?;
    let operand_attr = value_sharding(m, operand);
    if operand_attr.is_none() && !allow_missing {
        return Some("collective on operand without sharding".into());
    }
    if let Some(e) = tensor(m, meshes, sdy, out_attr, Some(result_type), bound) {
        return Some(e);
    }
    let out = Sharding::of(m, meshes, sdy, out_attr)?;
    let given = operand_attr.and_then(|a| Sharding::of(m, meshes, sdy, a));
    if name != "sdy.collective_permute" {
        if let Some(g) = &given {
            if g.mesh_attr.is_some() && g.mesh_attr != out.mesh_attr {
                return Some("result mesh does not match operand mesh".into());
            }
        }
    }
    if let Some(g) = &given {
        if g.dims.len() != out.dims.len() {
            return Some(format!(
                "result sharding has rank {} but operand sharding has rank {}",
                out.dims.len(),
                g.dims.len()
            ));
        }
    }
    let decoded = mesh_of(m, meshes, sdy, out_attr)?;
    let mesh: &Mesh = decoded.as_ref().as_ref().ok()?;
    let rank = match m.type_data(result_type) {
        TypeData::RankedTensor { shape, .. } => shape.len(),
        _ => out.dims.len(),
    };
    let operand_sharding = given.unwrap_or_else(|| Sharding::open(rank, &out));
    let (o, r) = (&operand_sharding, &out);
    match name {
        "sdy.all_gather" | "sdy.all_slice" | "sdy.reduce_scatter" | "sdy.sharded_to_unreduced" => {
            let (attr, kind) = match name {
                "sdy.all_gather" => ("gathering_axes", "gathering"),
                "sdy.all_slice" => ("slicing_axes", ""),
                "sdy.reduce_scatter" => ("reduce_scatter_axes", ""),
                _ => ("axes", "shard-to-unreduce"),
            };
            if name == "sdy.sharded_to_unreduced" && r.reduction_op != 0 {
                return Some("out_sharding reduction_op must be SUM".into());
            }
            let per_dim = lists(m, sdy, m.property(op, attr));
            let mut seen = Seen::default();
            let raw = list_attrs(m, sdy, m.property(op, attr), "list_of_axis_ref_lists");
            for &l in raw {
                let inner = list_attrs(m, sdy, Some(l), "axis_ref_list");
                if let Some(e) = axis_list(m, sdy, mesh, inner, &mut seen) {
                    return Some(e);
                }
            }
            if r.dims.len() != per_dim.len() {
                return Some(format!(
                    "result sharding has rank {} but collective axes has rank {}",
                    r.dims.len(),
                    per_dim.len()
                ));
            }
            for (dim, (operand_axes, axes)) in o.dims.iter().zip(&per_dim).enumerate() {
                let expected = if kind.is_empty() {
                    slice(mesh, operand_axes, axes)
                } else {
                    match gather(mesh, operand_axes, axes, dim, kind) {
                        Ok(e) => e,
                        Err(e) => return Some(e),
                    }
                };
                if r.dims.get(dim) != Some(&expected) {
                    return Some(format!(
                        "result sharding doesn't match expected sharding {} on dimension {dim}",
                        list_text(&expected)
                    ));
                }
            }
            if name == "sdy.sharded_to_unreduced" {
                let mut expected = o.unreduced.clone();
                expected.extend(per_dim.iter().flatten().cloned());
                if sort_and_merge(mesh, &expected) != r.unreduced {
                    return Some(
                        "out_unreduced_axes should be in_unreduced_axes + sharded_to_unreduced_axes"
                            .into(),
                    );
                }
            }
            None
        }
        "sdy.replicated_to_unreduced" => {
            if r.reduction_op != 0 {
                return Some("out_sharding reduction_op must be SUM".into());
            }
            if o.dims != r.dims {
                return Some("input and output must share the same dimension shardings".into());
            }
            let raw = list_attrs(m, sdy, m.property(op, "axes"), "axis_ref_list");
            let axes = refs(m, sdy, raw);
            if axes.is_empty() {
                return Some("r2u axes must not be empty".into());
            }
            if let Some(e) = sorted_list(m, sdy, mesh, raw, &axes, "r2u") {
                return Some(e);
            }
            for a in &axes {
                if o.dims.iter().flatten().any(|x| overlaps(mesh, x, a)) {
                    return Some(format!(
                        "r2u axis {} overlaps with operand dimension sharding",
                        a.text()
                    ));
                }
                if o.unreduced.iter().any(|x| overlaps(mesh, x, a)) {
                    return Some(format!(
                        "r2u axis {} overlaps with operand unreduced axes",
                        a.text()
                    ));
                }
            }
            let mut expected = o.unreduced.clone();
            expected.extend(axes);
            (sort_and_merge(mesh, &expected) != r.unreduced)
                .then(|| "out_unreduced_axes should be in_unreduced_axes + r2u_axes".into())
        }
        "sdy.all_reduce" => {
            // `isEquivalent` ignoring unreduced axes: both fully replicated, or on one mesh
            // with the same axes in each dimension (replicated axes do not count).
            let replicated = |s: &Sharding| s.dims.iter().all(Vec::is_empty);
            let equivalent = if replicated(o) {
                replicated(r)
            } else {
                o.mesh_or_ref == r.mesh_or_ref && o.dims == r.dims
            };
            if !equivalent {
                return Some("operand and result shardings are not equivalent".into());
            }
            let raw = list_attrs(m, sdy, m.property(op, "reduction_axes"), "axis_ref_list");
            let axes = refs(m, sdy, raw);
            if let Some(e) = sorted_list(m, sdy, mesh, raw, &axes, "reduction") {
                return Some(e);
            }
            for a in &axes {
                let in_operand = o.dims.iter().flatten().chain(&o.replicated);
                if in_operand.into_iter().any(|x| overlaps(mesh, x, a)) {
                    return Some(format!(
                        "reduction axis {} overlaps with operand dimension sharding or replicated axes",
                        a.text()
                    ));
                }
                if r.unreduced.iter().any(|x| overlaps(mesh, x, a)) {
                    return Some(format!(
                        "reduction axis {} overlaps with result unreduced axes",
                        a.text()
                    ));
                }
            }
            None
        }
        "sdy.all_to_all" => all_to_all(m, sdy, mesh, op, o, r, rank),
        "sdy.collective_permute" => {
            let operand_mesh = operand_attr.and_then(|a| mesh_of(m, meshes, sdy, a));
            let operand_mesh: &Mesh = operand_mesh.as_deref()?.as_ref().ok()?;
            if operand_mesh.axes != mesh.axes {
                return Some("result mesh has different axes than operand mesh".into());
            }
            if o.mesh_or_ref != r.mesh_or_ref && operand_mesh.device_ids == mesh.device_ids {
                return Some("result mesh name is different but same device ids as operand".into());
            }
            let sharded = |axes: &[AxisRef]| {
                axes.iter()
                    .map(|a| {
                        let (from, to) = range(mesh, a);
                        to / from.max(1)
                    })
                    .product::<i64>()
            };
            for (dim, (i, out_axes)) in o.dims.iter().zip(&r.dims).enumerate() {
                if i == out_axes {
                    continue;
                }
                let (a, b) = (sharded(i), sharded(out_axes));
                if a != b {
                    return Some(format!(
                        "sharded size of result doesn't match operand on dimension {dim}: {b} != {a}"
                    ));
                }
            }
            None
        }
        _ => None,
    }
}

/// `verifySortedAxisRefList`: sorted w.r.t. the mesh, then a valid axis-ref list.
fn sorted_list(
    m: &Module,
    sdy: Symbol,
    mesh: &Mesh,
    raw: &[Attribute],
    axes: &[AxisRef],
    what: &str,
) -> Option<String> {
    if axes.windows(2).any(|w| mesh_less(mesh, &w[1], &w[0])) {
        return Some(format!("{what} axes are not ordered w.r.t. mesh"));
    }
    axis_list(m, sdy, mesh, raw, &mut Seen::default())
}

/// `AllToAllOp::verifySymbolUses`.
fn all_to_all(
    m: &Module,
    sdy: Symbol,
    mesh: &Mesh,
    op: OpId,
    o: &Sharding,
    r: &Sharding,
    rank: usize,
) -> Option<String> {
    let params: Vec<(&[Attribute], i64, i64)> =
        list_attrs(m, sdy, m.property(op, "params"), "all_to_all_param_list")
            .iter()
            .filter_map(|&p| match sdy_params(m, sdy, p, "all_to_all_param")? {
                [Param::Attrs(axes), Param::Int(src), Param::Int(tgt)] => {
                    Some((&axes[..], *src, *tgt))
                }
                _ => None,
            })
            .collect();
    if params.is_empty() {
        return Some("parameter list is empty".into());
    }
    let mut seen_dims = vec![false; rank];
    let mut prev_src = -1i64;
    let mut seen = Seen::default();
    for &(axes, src, tgt) in &params {
        if let Some(e) = axis_list(m, sdy, mesh, axes, &mut seen) {
            return Some(e);
        }
        for (dim, what) in [(src, "source"), (tgt, "target")] {
            if dim < 0 || dim >= rank as i64 {
                return Some(format!(
                    "{what} dimension {dim} is out of range [0, {rank})"
                ));
            }
        }
        for dim in [src, tgt] {
            let slot = &mut seen_dims[dim as usize];
            if *slot {
                return Some(format!(
                    "overlapping source/target dimensions in all-to-all params: {dim}"
                ));
            }
            *slot = true;
        }
        if prev_src >= src {
            return Some(format!(
                "source dimensions are not sorted in ascending order: {src} appears after {prev_src}"
            ));
        }
        prev_src = src;
    }
    let check = |dim: usize, expected: &[AxisRef]| {
        (r.dims.get(dim).map(Vec::as_slice) != Some(expected)).then(|| {
            format!(
                "result sharding doesn't match expected sharding {} on dimension {dim}",
                list_text(expected)
            )
        })
    };
    for &(axes, src, tgt) in &params {
        let axes = refs(m, sdy, axes);
        let (src, tgt) = (src as usize, tgt as usize);
        let from = o.dims.get(src).map_or(&[][..], Vec::as_slice);
        let expected = match gather(mesh, from, &axes, src, "all-to-all") {
            Ok(e) => e,
            Err(e) => return Some(e),
        };
        if let Some(e) = check(src, &expected) {
            return Some(e);
        }
        let to = o.dims.get(tgt).map_or(&[][..], Vec::as_slice);
        if let Some(e) = check(tgt, &slice(mesh, to, &axes)) {
            return Some(e);
        }
    }
    for (dim, axes) in o.dims.iter().enumerate() {
        if !seen_dims.get(dim).copied().unwrap_or(true) {
            if let Some(e) = check(dim, axes) {
                return Some(e);
            }
        }
    }
    None
}
