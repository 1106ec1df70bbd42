//! Shardy's verifier for the shardings a program carries (openxla/shardy,
//! `shardy/dialect/sdy/ir/verifiers.cc`): each `#sdy.sharding` against the type of its value and
//! its mesh. jaxlib verifies what it reads, so an artifact that breaks these rules is refused
//! there; we refuse it before writing. The messages are Shardy's.
//!
//! Checked: `sdy.sharding` of op results and of `func.func` arguments and results; the shardings
//! of `sdy.sharding_constraint`, `sdy.reshard` and `sdy.data_flow_edge`; the in/out shardings of
//! `sdy.manual_computation` and its local shapes; axes bound by an enclosing manual computation;
//! meshes (`MeshAttr::verify`); `sdy.sharding_rule` against its op's operands and results
//! (`verifyOpShardingRuleAttr`); `sdy.named_computation` (its body's arguments and returns, its
//! shardings), the data flow edges, `sdy.propagation_barrier`, and the collectives
//! (`sdy/collectives.rs`). Not checked yet: the contents of propagation edges (their kind is).

use std::rc::Rc;

mod collectives;
mod sharding;

use crate::ir::{AttrData, Attribute, FastMap, FastSet, Module, OpId, Param, Type, TypeData};

use super::{diag, Diagnostic};
use sharding::{
    attrs, fully_replicated, mesh_of, sdy_params, tensor, AxisRef, Bound, Mesh, Meshes,
};

/// The rule the sharding diagnostics of this file name.
const RULE: &str = "Shardy verifier (verifiers.cc): a sharding must fit its value's type and mesh";

/// The checks of Shardy's rules, in pre-order. With `attributes_only`, only those of the
/// discardable attributes (`sdy.sharding`, `sdy.sharding_rule`, the propagation edges), which
/// MLIR's verifier makes (`verifyOperationAttribute`) before each op's own checks.
pub(crate) fn verify_sdy(m: &Module, attributes_only: bool) -> Vec<(OpId, Diagnostic)> {
    let mut out = Vec::new();
    // A program with no attribute of Shardy may still have its ops, or name its discardable
    // attributes (`{sdy.sharding_rule = 1 : i64}`): one of those names, which no dialect has,
    // then stands for the dialect (so each such attribute is refused as of the wrong kind).
    let ops = crate::vhlo::codec_dialect("sdy").map_or(&[][..], |d| d.ops);
    let names = [
        "sdy",
        "sdy.sharding",
        "sdy.sharding_rule",
        "sdy.propagation_edges",
        "sdy.result_propagation_edges",
        "sdy.block_arg_propagation_edges",
    ];
    let Some(sdy) = names.iter().find_map(|s| m.lookup_sym(s)).or_else(|| {
        ops.iter()
            .find_map(|o| m.lookup_sym(&format!("sdy.{}", o.name)))
    }) else {
        return out;
    };
    let meshes = Meshes::collect(m, sdy);
    let mut manual = Manual::new(m);
    let mut uses = None;
    m.walk(|op| {
        let bound = manual.bound_around(m, sdy, op);
        if m.op_name_str(op) == "sdy.mesh" && !attributes_only {
            let decoded = m
                .property(op, "mesh")
                .and_then(|a| meshes.decoded(m, sdy, a));
            if let Some(Err(e)) = decoded.as_deref() {
                let rule = "Shardy verifier (verifiers.cc): MeshAttr::verify";
                out.push((op, diag(m, op, format!("'sdy.mesh' op {e}"), None, rule)));
            }
        }
        let mut rule_broken = None;
        let mut report = |what: String| out.push((op, diag(m, op, what, None, RULE)));
        let results: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
        let name = m.op_name_str(op);
        if let Some(a) = m.attribute(op, "sdy.sharding") {
            if let Some(msg) = per_value(m, &meshes, sdy, a, &results, &bound) {
                report(format!("'{name}' op result {msg}"));
            }
        }
        // The propagation edges Shardy's propagation records: of their kind (their contents
        // are not checked).
        // An attribute read as text (its syntax is not modelled here) is given the benefit.
        let is_edges = |a: Attribute| {
            sdy_params(m, sdy, a, "propagation_edges").is_some()
                || matches!(m.attr_data(a), AttrData::Opaque { dialect, .. } if *dialect == sdy)
        };
        for (attr, array) in [
            ("sdy.block_arg_propagation_edges", true),
            ("sdy.propagation_edges", false),
            ("sdy.result_propagation_edges", true),
        ] {
            let Some(a) = m.attribute(op, attr) else {
                continue;
            };
            let fits = match m.attr_data(a) {
                AttrData::Array(xs) if array => xs.iter().all(|&x| is_edges(x)),
                _ => !array && is_edges(a),
            };
            if !fits {
                let what = if array {
                    "ArrayAttr<PropagationEdgesAttr> for attr named 'sdy.result_propagation_edges' or 'sdy.block_arg_propagation_edges'"
                } else {
                    "PropagationEdgesAttr for attr named 'sdy.propagation_edges'"
                };
                report(format!(
                    "'{name}' op should have a propagation edges attribute of type {what}"
                ));
            }
        }
        if let Some(msg) = m
            .attribute(op, "sdy.sharding_rule")
            .and_then(|a| sharding_rule(m, sdy, op, a))
        {
            rule_broken = Some(format!("'{name}' op {msg}"));
        }
        match name {
            _ if attributes_only => {}
            "func.func" => {
                if let Some(msg) = func_shardings(m, &meshes, sdy, op) {
                    report(format!("'{name}' op {msg}"));
                }
            }
            "sdy.propagation_barrier" => {
                // `PropagationDirection::BOTH` (spec/dialects/sdy.yaml).
                let both = m.property(op, "allowed_direction").is_some_and(|a| {
                    matches!(m.attr_data(a), AttrData::Integer { value: 3, .. })
                });
                if both {
                    report(format!("'{name}' op cannot specify `BOTH` as the direction. Not blocking propagation direction makes the op redundant."));
                }
            }
            "sdy.data_flow_edge" | "sdy.func_data_flow_edge" => {
                if let Some(msg) = data_flow_edge(m, op, name, &mut uses) {
                    report(format!("'{name}' op {msg}"));
                } else if let (Some(s), Some(&t)) = (m.property(op, "sharding"), results.first()) {
                    if let Some(msg) = tensor(m, &meshes, sdy, s, Some(t), &bound) {
                        report(format!("'{name}' op {msg}"));
                    }
                }
            }
            n if n.starts_with("sdy.") && m.property(op, "out_sharding").is_some() => {
                if let Some(msg) = collectives::verify(m, &meshes, sdy, op, n, &bound) {
                    report(format!("'{name}' op {msg}"));
                }
            }
            "sdy.named_computation" => {
                if let Some(msg) = named_computation(m, &meshes, sdy, op, &results, &bound) {
                    report(msg);
                }
            }
            "sdy.sharding_constraint" | "sdy.reshard" => {
                let sharding = m.property(op, "sharding");
                if let (Some(s), Some(&t)) = (sharding, results.first()) {
                    if let Some(msg) = tensor(m, &meshes, sdy, s, Some(t), &bound) {
                        report(format!("'{name}' op {msg}"));
                    }
                }
            }
            "sdy.manual_computation" => {
                if let Some(msg) = manual_computation(m, &meshes, sdy, op, &bound) {
                    let rule = "Shardy verifier (verifiers.cc): ManualComputationOp::verify and verifySymbolUses";
                    out.push((op, diag(m, op, format!("'{name}' op {msg}"), None, rule)));
                }
            }
            _ => {}
        }
        if let Some(what) = rule_broken {
            out.push((op, diag(m, op, what, None, RULE_OF_RULES)));
        }
    });
    out
}

const RULE_OF_RULES: &str =
    "Shardy verifier (verifiers.cc): an op sharding rule must fit its op's operands and results";

/// `sdy.sharding_rule` (an `#sdy.op_sharding_rule`) against its op's operand and result types:
/// Shardy's message on failure (`verifyOpShardingRuleAttr`).
fn sharding_rule(m: &Module, sdy: crate::ir::Symbol, op: OpId, a: Attribute) -> Option<String> {
    let Some(p) = sdy_params(m, sdy, a, "op_sharding_rule") else {
        return Some(
            "should have a sharding rule attribute of type OpShardingRuleAttr for attr named 'sdy.sharding_rule'"
                .into(),
        );
    };
    let ints = |i: usize| match p.get(i) {
        Some(Param::Ints(v)) => &v[..],
        _ => &[],
    };
    let sizes = ints(0);
    let operands: Vec<Type> = m.operands(op).iter().map(|&v| m.value_type(v)).collect();
    let results: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
    let mut in_operands = vec![false; sizes.len()];
    let mut in_results = vec![false; sizes.len()];
    for (kind, types, mappings, seen) in [
        ("operand", &operands, attrs(p.get(1)), &mut in_operands),
        ("result", &results, attrs(p.get(2)), &mut in_results),
    ] {
        if let Some(e) = rule_mappings(m, sdy, kind, types, mappings, sizes, seen) {
            return Some(e);
        }
    }
    if let Some(f) = (0..sizes.len()).find(|&f| !in_operands[f] && !in_results[f]) {
        let mut name = String::new();
        crate::text::sdy::factor_symbol(&mut name, f as i64);
        return Some(format!(
            "has factor {name}={} that isn't used in operand and result mappings",
            sizes[f]
        ));
    }
    let n = sizes.len() as i64;
    let sorted_unique_in_bound = |indices: &[i64]| -> Option<String> {
        let (&first, &last) = (indices.first()?, indices.last()?);
        if indices.windows(2).any(|w| w[0] > w[1]) {
            return Some("indices of special factors must be sorted".into());
        }
        if indices.windows(2).any(|w| w[0] == w[1]) {
            return Some("indices of special factors must be unique".into());
        }
        if first < 0 {
            return Some("index must be non-negative".into());
        }
        (last >= n).then(|| format!("index must be less than {n}, got: {last}"))
    };
    let (reduction, replication, permutation) = (ints(3), ints(4), ints(5));
    for set in [reduction, replication, permutation] {
        if let Some(e) = sorted_unique_in_bound(set) {
            return Some(e);
        }
    }
    let special: FastSet<i64> = reduction
        .iter()
        .chain(replication)
        .chain(permutation)
        .copied()
        .collect();
    if special.len() != reduction.len() + replication.len() + permutation.len() {
        return Some(
            "a factor can only be in one of the reduction, need replication, or permutation factor sets"
                .into(),
        );
    }
    if let Some(e) = sorted_unique_in_bound(ints(6)) {
        return Some(e);
    }
    reduction
        .iter()
        .any(|&f| in_results.get(f as usize).copied().unwrap_or(false))
        .then(|| "reduction factor cannot be in result mappings".into())
}

/// One side (`kind`: "operand" or "result") of an op sharding rule: as many tensor mappings as
/// values, each of a static tensor's rank, each dimension with factors in range, none reused
/// within the value, and no factor of size 1 among several (`verifyShardingRuleMapping`).
/// Marks the factors used in `seen`.
fn rule_mappings(
    m: &Module,
    sdy: crate::ir::Symbol,
    kind: &str,
    types: &[Type],
    mappings: &[Attribute],
    sizes: &[i64],
    seen: &mut [bool],
) -> Option<String> {
    if types.len() != mappings.len() {
        return Some(format!(
            "number of {kind}s and mappings must match: {} != {}",
            types.len(),
            mappings.len()
        ));
    }
    if mappings.is_empty() {
        return Some(format!(
            "number of {kind}s mappings cannot be 0. Op sharding rules can only be defined on operations with at least one operand and result."
        ));
    }
    for (i, (&t, &mapping)) in types.iter().zip(mappings).enumerate() {
        let at = |msg: String| {
            if types.len() == 1 {
                format!("{kind} - {msg}")
            } else {
                format!("{kind} {i} - {msg}")
            }
        };
        let shape = match m.type_data(t) {
            TypeData::RankedTensor { shape, .. } if !shape.iter().any(|&d| d < 0) => shape,
            _ => {
                return Some(at(format!(
                    "expected a ranked tensor with a static shape. type: '{}'",
                    crate::text::type_to_string(m, t)
                )))
            }
        };
        let dims = sdy_params(m, sdy, mapping, "tensor_mapping")
            .map(|q| attrs(q.first()))
            .unwrap_or(&[]);
        if dims.len() != shape.len() {
            return Some(at(format!(
                "mapping rank must match: {} != {}",
                dims.len(),
                shape.len()
            )));
        }
        let mut in_value = vec![false; sizes.len()];
        for &dim in dims {
            let factors = match sdy_params(m, sdy, dim, "dim_mapping") {
                Some([Param::Ints(f), ..]) => &f[..],
                _ => &[],
            };
            if factors.is_empty() {
                return Some(at("dim mapping must have at least one factor".into()));
            }
            for &f in factors {
                let Some(&size) = usize::try_from(f).ok().and_then(|u| sizes.get(u)) else {
                    return Some(at(format!(
                        "expecting factor indices to be within 0<=...<num_factors; received: {f}, num_factors: {}",
                        sizes.len()
                    )));
                };
                let u = f as usize;
                if in_value[u] {
                    return Some(at("cannot reuse factors for the same tensor value".into()));
                }
                if size == 1 && factors.len() > 1 {
                    return Some(at(
                        "dim mapping can't have a factor of size 1 if there are multiple factors"
                            .into(),
                    ));
                }
                in_value[u] = true;
                seen[u] = true;
            }
        }
    }
    None
}

/// How many times each value is used, counted once, when a data flow edge first asks.
type UseCounts = Option<FastMap<crate::ir::Value, usize>>;

/// `sdy.data_flow_edge` and `sdy.func_data_flow_edge` (their `verifySymbolUses`): a static result,
/// an input used by the edge alone, and defined where the edge may stand; Shardy's message.
fn data_flow_edge(m: &Module, op: OpId, name: &str, uses: &mut UseCounts) -> Option<String> {
    let short = name.trim_start_matches("sdy.");
    let t = m.results(op).next().map(|v| m.value_type(v))?;
    let static_shape = matches!(m.type_data(t), TypeData::RankedTensor { shape, .. } if shape.iter().all(|&d| d >= 0));
    if !static_shape {
        return Some(format!(
            "expected sdy.{short} to have a static-shaped result. type: '{}'",
            crate::text::type_to_string(m, t)
        ));
    }
    let &input = m.operands(op).first()?;
    let counts = uses.get_or_insert_with(|| {
        let mut counts = FastMap::default();
        m.walk(|o| {
            for &v in m.operands(o) {
                *counts.entry(v).or_insert(0) += 1;
            }
        });
        counts
    });
    let what = if short == "data_flow_edge" {
        "input"
    } else {
        "operand"
    };
    if counts.get(&input).copied().unwrap_or(0) != 1 {
        return Some(format!(
            "expected {what} of sdy.{short} to have a single user"
        ));
    }
    let def = m.value_def(input);
    if short == "data_flow_edge" {
        return match def {
            crate::ir::ValueDef::Result { op: d, .. }
                if m.op_name_str(d).starts_with("sdy.")
                    && m.op_name_str(d) != "sdy.named_computation" =>
            {
                Some("expected input of sdy.data_flow_edge to not be defined by an SdyDialect op (other than an sdy.named_computation).".into())
            }
            _ => None,
        };
    }
    match def {
        crate::ir::ValueDef::Argument { block, .. } => {
            let parent = m.block_parent(block).and_then(|r| m.region_parent(r));
            (parent.map(|p| m.op_name_str(p)) != Some("func.func")).then(|| {
                "expected operand of sdy.func_data_flow_edge to be a block argument of a func op."
                    .into()
            })
        }
        crate::ir::ValueDef::Result { op: d, .. } => (m.op_name_str(d) != "func.call").then(|| {
            "expected operand of sdy.func_data_flow_edge to be a result of call op.".into()
        }),
    }
}

/// `sdy.named_computation`: its results are what its body returns (`inferReturnTypes`), its
/// body takes its operands, and its in and out shardings fit them (`verifySymbolUses`);
/// Shardy's message.
fn named_computation(
    m: &Module,
    meshes: &Meshes,
    sdy: crate::ir::Symbol,
    op: OpId,
    results: &[Type],
    bound: &Bound,
) -> Option<String> {
    let name = "'sdy.named_computation' op";
    let block = m
        .regions(op)
        .first()
        .and_then(|&r| m.blocks(r).first().copied())?;
    let returned: Vec<Type> = m
        .block_ops(block)
        .last()
        .map(|&ret| m.operands(ret).iter().map(|&v| m.value_type(v)).collect())
        .unwrap_or_default();
    if returned != results {
        return Some(format!(
            "{name} inferred type(s) {} are incompatible with return type(s) of operation {}",
            super::types::types_str(m, &returned),
            super::types::types_str(m, results)
        ));
    }
    let args = m.block_args(block);
    let operands = m.operands(op);
    if args.len() != operands.len() {
        return Some(format!(
            "number of block arguments must match the number of operands: {} != {}",
            args.len(),
            operands.len()
        ));
    }
    let operand_types: Vec<Type> = operands.iter().map(|&v| m.value_type(v)).collect();
    for (i, (&a, &outer)) in args.iter().zip(&operand_types).enumerate() {
        let inner = m.value_type(a);
        if inner != outer {
            return Some(format!(
                "expected the type of the {i}'th block argument to match the type of the corresponding operand: '{}' vs '{}'",
                crate::text::type_to_string(m, inner),
                crate::text::type_to_string(m, outer)
            ));
        }
    }
    for (side, types) in [
        ("in_shardings", &operand_types[..]),
        ("out_shardings", results),
    ] {
        if let Some(a) = m.property(op, side) {
            if let Some(msg) = per_value(m, meshes, sdy, a, types, bound) {
                return Some(format!("{name} {side} {msg}"));
            }
        }
    }
    None
}

/// `shardings` (a `#sdy.sharding_per_value`) against `types`; Shardy's message on failure.
fn per_value(
    m: &Module,
    meshes: &Meshes,
    sdy: crate::ir::Symbol,
    a: Attribute,
    types: &[Type],
    bound: &Bound,
) -> Option<String> {
    let Some(p) = sdy_params(m, sdy, a, "sharding_per_value") else {
        return Some(
            "- should have a sharding attribute of type TensorShardingPerValueAttr".into(),
        );
    };
    let shardings = attrs(p.first());
    let in_range = |i: usize, msg: String| {
        if types.len() == 1 {
            format!("- {msg}")
        } else {
            format!("{i} - {msg}")
        }
    };
    if types.is_empty() && shardings.len() == 1 {
        let mesh = mesh_of(m, meshes, sdy, shardings[0]);
        let maximal = mesh
            .as_deref()
            .is_some_and(|r| r.as_ref().is_ok_and(Mesh::is_maximal));
        if maximal || fully_replicated(m, sdy, shardings[0]) {
            return tensor(m, meshes, sdy, shardings[0], None, bound).map(|e| in_range(0, e));
        }
    }
    if shardings.len() != types.len() {
        return Some(format!(
            "shardings don't match number of values: {} shardings vs {} values",
            shardings.len(),
            types.len()
        ));
    }
    shardings
        .iter()
        .zip(types)
        .enumerate()
        .find_map(|(i, (&s, &t))| tensor(m, meshes, sdy, s, Some(t), bound).map(|e| in_range(i, e)))
}

/// The `sdy.sharding` entries of a function's argument and result attributes.
fn func_shardings(m: &Module, meshes: &Meshes, sdy: crate::ir::Symbol, op: OpId) -> Option<String> {
    let (inputs, results) = match m
        .property(op, "function_type")
        .map(|a| m.attr_data(a))
        .and_then(|d| match d {
            AttrData::Type(t) => Some(m.type_data(*t)),
            _ => None,
        }) {
        Some(TypeData::Function { inputs, results }) => (inputs.clone(), results.clone()),
        _ => return None,
    };
    let key = m.lookup_sym("sdy.sharding")?;
    for (prop, types, kind) in [
        ("arg_attrs", &inputs, "arg"),
        ("res_attrs", &results, "result"),
    ] {
        let Some(list) = m.property(op, prop) else {
            continue;
        };
        let AttrData::Array(dicts) = m.attr_data(list) else {
            continue;
        };
        for (i, &d) in dicts.iter().enumerate() {
            let AttrData::Dictionary(entries) = m.attr_data(d) else {
                continue;
            };
            let Some(&(_, s)) = entries.iter().find(|(k, _)| *k == key) else {
                continue;
            };
            let prefix = format!("{kind} {i} - ");
            if sdy_params(m, sdy, s, "sharding").is_none() {
                return Some(format!(
                    "{prefix}should have a sharding attribute of type TensorShardingAttr"
                ));
            }
            // A function is never inside a manual computation: nothing is bound.
            let unbound = Bound::default();
            if let Some(e) = tensor(m, meshes, sdy, s, types.get(i).copied(), &unbound) {
                return Some(format!("{prefix}{e}"));
            }
        }
    }
    None
}

/// [`Bound`] per block, each computed once from its parent's: a walk asks for every op, so
/// walking up the nesting per op would be quadratic in the depth.
struct Manual {
    by_block: FastMap<crate::ir::Block, Rc<Bound>>,
    any: bool,
}

impl Manual {
    fn new(m: &Module) -> Self {
        let mut any = false;
        m.walk(|op| any |= m.op_name_str(op) == "sdy.manual_computation");
        Manual {
            by_block: FastMap::default(),
            any,
        }
    }

    /// The axes bound around `op` (not by `op` itself).
    fn bound_around(&mut self, m: &Module, sdy: crate::ir::Symbol, op: OpId) -> Rc<Bound> {
        match (self.any, m.op_parent(op)) {
            (true, Some(b)) => self.bound_in(m, sdy, b),
            _ => Rc::default(),
        }
    }

    fn bound_in(
        &mut self,
        m: &Module,
        sdy: crate::ir::Symbol,
        block: crate::ir::Block,
    ) -> Rc<Bound> {
        // The chain of blocks up to one already known (or the top), then filled in downwards.
        let mut chain = Vec::new();
        let mut cur = Some(block);
        let mut known: Rc<Bound> = Rc::default();
        while let Some(b) = cur {
            if let Some(k) = self.by_block.get(&b) {
                known = k.clone();
                break;
            }
            let owner = m.block_parent(b).and_then(|r| m.region_parent(r));
            chain.push((b, owner));
            cur = owner.and_then(|o| m.op_parent(o));
        }
        for (b, owner) in chain.into_iter().rev() {
            let axes = owner
                .filter(|&o| m.op_name_str(o) == "sdy.manual_computation")
                .map(|o| manual_axes(m, sdy, o))
                .unwrap_or_default();
            if !axes.is_empty() {
                let mut more = (*known).clone();
                more.extend(axes);
                known = Rc::new(more);
            }
            self.by_block.insert(b, known.clone());
        }
        known
    }
}

/// The `manual_axes` of a `sdy.manual_computation`.
fn manual_axes(m: &Module, sdy: crate::ir::Symbol, op: OpId) -> Vec<String> {
    let Some(a) = m.property(op, "manual_axes") else {
        return Vec::new();
    };
    let Some(p) = sdy_params(m, sdy, a, "manual_axes") else {
        return Vec::new();
    };
    attrs(p.first())
        .iter()
        .filter_map(|&s| match m.attr_data(s) {
            AttrData::String { value, .. } => Some(m.str(*value).to_string()),
            _ => None,
        })
        .collect()
}

/// Shardy's `ManualComputationOp::verify` and `verifySymbolUses`: no manual axis bound twice;
/// the in/out shardings against the global types; manual axes before free ones; each global
/// dimension divisible by its manual axes, and the region's values of the local shape; one mesh
/// for all shardings, which has the manual axes.
fn manual_computation(
    m: &Module,
    meshes: &Meshes,
    sdy: crate::ir::Symbol,
    op: OpId,
    bound: &Bound,
) -> Option<String> {
    let axes = manual_axes(m, sdy, op);
    if let Some(a) = axes.iter().find(|a| bound.contains(*a)) {
        return Some(format!(
            "operates on axis \"{a}\" which is already bound by a parent sdy.manual_computation op"
        ));
    }
    let manual: FastSet<&str> = axes.iter().map(String::as_str).collect();
    let body = m
        .regions(op)
        .first()
        .and_then(|&r| m.blocks(r).first().copied());
    let local_args: Vec<Type> = body
        .map(|b| m.block_args(b).iter().map(|&v| m.value_type(v)).collect())
        .unwrap_or_default();
    let local_results: Vec<Type> = body
        .and_then(|b| m.block_ops(b).last().copied())
        .map(|t| m.operands(t).iter().map(|&v| m.value_type(v)).collect())
        .unwrap_or_default();
    let operands: Vec<Type> = m.operands(op).iter().map(|&v| m.value_type(v)).collect();
    let results: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
    let mut all_shardings = Vec::new();
    for (prop, global, local, kind) in [
        ("in_shardings", &operands, &local_args, "operand"),
        ("out_shardings", &results, &local_results, "result"),
    ] {
        let per_value_attr = m.property(op, prop);
        let shardings = per_value_attr
            .and_then(|a| sdy_params(m, sdy, a, "sharding_per_value"))
            .map(|p| attrs(p.first()).to_vec())
            .unwrap_or_default();
        if global.is_empty() && local.is_empty() && shardings.is_empty() {
            continue;
        }
        if let Some(a) = per_value_attr {
            if let Some(msg) = per_value(m, meshes, sdy, a, global, bound) {
                return Some(format!("{kind} {msg}"));
            }
        }
        if global.len() != local.len() {
            return Some(format!(
                "number of op {kind}s and region {kind}s must match. Op has {} op {kind}s and {} region {kind}s",
                global.len(),
                local.len()
            ));
        }
        for (i, ((&g, &l), &s)) in global.iter().zip(local.iter()).zip(&shardings).enumerate() {
            if let Some(msg) = local_shape(m, meshes, sdy, &manual, g, l, s) {
                return Some(msg(kind, i));
            }
        }
        all_shardings.extend(shardings);
    }
    if all_shardings.is_empty() {
        return None;
    }
    // Shardy's `getCommonMesh`: the first non-empty mesh, unless a later non-empty one differs.
    let mut common: Option<Rc<Result<Mesh, String>>> = None;
    for &s in &all_shardings {
        let Some(other) = mesh_of(m, meshes, sdy, s) else {
            continue;
        };
        let Ok(o) = other.as_ref() else { continue };
        match common.as_deref() {
            Some(Ok(c)) if !c.is_empty() => {
                if !o.is_empty() && (o.axes != c.axes || o.device_ids != c.device_ids) {
                    common = None;
                    break;
                }
            }
            _ => common = Some(other.clone()),
        }
    }
    let mesh = common.as_deref().and_then(|r| r.as_ref().ok());
    if mesh.is_none() && !axes.is_empty() {
        return Some(
            "all in and out shardings must be bound to the same mesh or an empty mesh.".into(),
        );
    }
    if let Some(mesh) = mesh {
        if let Some(a) = axes.iter().find(|a| mesh.axis_index(a).is_none()) {
            return Some(format!("unknown manual axis: \"{a}\""));
        }
    }
    None
}

/// A message built from the value's kind (operand, result) and index.
type KindMessage = Box<dyn Fn(&str, usize) -> String>;

/// Steps 4 to 6 of Shardy's `verifyManualComputationValue` for one value.
fn local_shape(
    m: &Module,
    meshes: &Meshes,
    sdy: crate::ir::Symbol,
    manual: &FastSet<&str>,
    global: Type,
    local: Type,
    sharding: Attribute,
) -> Option<KindMessage> {
    let p = sdy_params(m, sdy, sharding, "sharding")?;
    let dims = attrs(p.get(1));
    let decoded = mesh_of(m, meshes, sdy, sharding)?;
    let mesh = decoded.as_ref().as_ref().ok()?;
    let mut per_dim: Vec<Vec<AxisRef>> = Vec::with_capacity(dims.len());
    for (dim, &d) in dims.iter().enumerate() {
        let q = sdy_params(m, sdy, d, "dimension_sharding")?;
        let refs: Vec<AxisRef> = attrs(q.first())
            .iter()
            .filter_map(|&a| AxisRef::of(m, sdy, a))
            .collect();
        let is_manual = |r: &AxisRef| manual.contains(r.name.as_str());
        if let Some(free) = refs.iter().position(|r| !is_manual(r)) {
            if let Some(k) = refs.iter().skip(free).position(is_manual) {
                let (after, before) = (refs[free + k].text(), refs[free + k - 1].text());
                return Some(Box::new(move |kind, i| {
                    format!("{kind} sharding at index {i} must have all manual axes come before free axes in its dimension sharding at index {dim}. Saw manual axis {after} after free axis {before}")
                }));
            }
        }
        per_dim.push(refs);
    }
    let TypeData::RankedTensor { shape, element, .. } = m.type_data(global) else {
        return None;
    };
    let mut local_dims = Vec::with_capacity(shape.len());
    for (&size, refs) in shape.iter().zip(&per_dim) {
        if size == crate::ir::DYNAMIC {
            local_dims.push(size);
            continue;
        }
        let factor = refs
            .iter()
            .filter(|r| manual.contains(r.name.as_str()))
            .map(|r| match r.sub {
                Some((_, s)) => s,
                None => mesh
                    .axis_index(&r.name)
                    .and_then(|i| mesh.axes.get(i))
                    .map_or(1, |a| a.1),
            })
            .fold(1i64, i64::saturating_mul);
        if factor == 0 || size % factor != 0 {
            return Some(Box::new(move |kind, _| {
                format!("{kind} dimension size {size} is not divisible by the manual axes size {factor}")
            }));
        }
        local_dims.push(size / factor);
    }
    let matches = match m.type_data(local) {
        TypeData::RankedTensor {
            shape: l,
            element: e,
            encoding: None,
        } => **l == *local_dims && e == element,
        _ => false,
    };
    if matches {
        return None;
    }
    let dims_text: String = local_dims
        .iter()
        .map(|&d| {
            if d == crate::ir::DYNAMIC {
                "?x".to_string()
            } else {
                format!("{d}x")
            }
        })
        .collect();
    let expected = format!(
        "tensor<{dims_text}{}>",
        crate::text::type_to_string(m, *element)
    );
    let actual = crate::text::type_to_string(m, local);
    Some(Box::new(move |kind, i| {
        format!("{kind} shape, corresponding sharding, and region {kind} shape at index {i} must match. Expected local shape '{expected}', actual local shape '{actual}'")
    }))
}
