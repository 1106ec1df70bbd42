//! Control flow: scf's (upstream's SCF.cpp and `verifyRegionBranchOpInterface`: the values a
//! region's terminator passes along each edge, to the op's results or back to a region's
//! arguments, match in number and type what the edge's target takes) and `cf.cond_br`'s branch
//! weights. Checked after the ODS types and traits the spec gives the ops (spec/dialects/).

use crate::ir::{Module, OpId, Region, Type, Value};

use super::{bail, ensure, fail, Check};

/// Where an edge goes: the op's results, or a region's entry arguments (from `skip` on).
#[derive(Clone, Copy)]
enum Target {
    Parent,
    Region(usize, usize),
}

/// Where an edge comes from: the op's operands (from `skip` on), or a region's terminator.
#[derive(Clone, Copy)]
enum Source {
    Parent(usize),
    Terminator(Region),
}

pub(crate) fn verify(m: &Module, op: OpId) -> Check {
    let name = m.op_name_str(op);
    let regions = m.regions(op);
    let region = |i: usize| regions.get(i).copied();
    // ODS: `scf.for`'s bounds and step have one type; `scf.if` has two regions of at most one
    // block and no arguments; `scf.execute_region`'s region has no arguments.
    if name == "scf.for" {
        if regions.first().is_some_and(|&r| m.blocks(r).len() > 1) {
            return Err(fail("scf.for", "expects region #0 to have 0 or 1 blocks"));
        }
        let bounds: Vec<Type> = m
            .operands(op)
            .iter()
            .take(3)
            .map(|&v| m.value_type(v))
            .collect();
        if bounds.windows(2).any(|w| w[0] != w[1]) {
            return Err(fail(
                "AllTypesMatch",
                "failed to verify that all of {lowerBound, upperBound, step} have same type",
            ));
        }
    }
    if name == "scf.if" {
        if regions.len() != 2 {
            return Err(fail("scf.if", "expected 2 regions"));
        }
        for (i, &r) in regions.iter().enumerate() {
            ensure!(
                m.blocks(r).len() <= 1,
                "scf.if",
                "expects region #{i} to have 0 or 1 blocks"
            );
            if m.blocks(r).iter().any(|&b| !m.block_args(b).is_empty()) {
                bail!("NoRegionArguments", "region #{i} should have no arguments");
            }
        }
    }
    if name == "scf.execute_region"
        && regions
            .iter()
            .flat_map(|&r| m.blocks(r).first())
            .any(|&b| !m.block_args(b).is_empty())
    {
        bail!("scf.execute_region", "region cannot have any arguments");
    }
    match name {
        "scf.if" | "scf.execute_region" => {
            let else_empty = region(1).is_none_or(|r| m.blocks(r).is_empty());
            if name == "scf.if" && m.num_results(op) > 0 && else_empty {
                return Err(fail("scf.if", "must have an else block if defining values"));
            }
        }
        "scf.index_switch" => return index_switch(m, op),
        "scf.forall" => return forall(m, op),
        "scf.forall.in_parallel" => return in_parallel(m, op),
        "cf.br" => return successor_operands(m, op),
        "cf.cond_br" => return successor_operands(m, op).and_then(|()| branch_weights(m, op)),
        "cf.switch" => return switch(m, op),
        "scf.parallel" => return parallel(m, op),
        "scf.reduce.return" => {
            // `ReduceReturnOp::verify`: the type of the reduction's block arguments.
            let block = m.op_parent(op);
            let want = block.and_then(|b| m.block_args(b).first().copied());
            let have = m.operands(op).first().map(|&v| m.value_type(v));
            if let (Some(want), Some(have)) = (want.map(|a| m.value_type(a)), have) {
                ensure!(
                    want == have,
                    "scf.reduce.return",
                    "must have type '{}' (the type of the reduction inputs)",
                    crate::text::type_to_string(m, want)
                );
            }
        }
        "scf.while" => {
            let (Some(before), Some(after)) = (region(0), region(1)) else {
                return Ok(());
            };
            // `WhileOp::verify`: each region ends with its own terminator.
            for (r, which, want) in [(before, "before", "condition"), (after, "after", "yield")] {
                match terminator(m, r) {
                    None => return Err(fail("scf.while", "expects a non-empty block")),
                    Some(t) if m.op_name_str(t) != format!("scf.{want}") => {
                        bail!(
                            "scf.while",
                            "expects the '{which}' region to terminate with 'scf.{want}'"
                        )
                    }
                    Some(_) => {}
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// What MLIR checks of scf's ops as it leaves them, after the ops in their regions:
/// `ForOp::verifyRegions` and `verifyRegionBranchOpInterface` (the values along each region
/// edge).
pub(crate) fn verify_regions(m: &Module, op: OpId) -> Check {
    let name = m.op_name_str(op);
    let regions = m.regions(op);
    let region = |i: usize| regions.get(i).copied();
    let types = |vs: &mut dyn Iterator<Item = Value>| vs.map(|v| m.value_type(v)).collect();
    match name {
        "scf.reduce" => return reduce(m, op),
        // shape.assuming is a RegionBranchOpInterface op of the same shape.
        "scf.if" | "scf.execute_region" | "shape.assuming" => {
            for r in regions.iter().copied() {
                edge(m, op, Source::Terminator(r), Target::Parent, &types)?;
            }
        }
        "scf.for" => {
            let Some(body) = region(0) else {
                return Ok(());
            };
            let Some(&entry) = m.blocks(body).first() else {
                return Ok(());
            };
            let args = m.block_args(entry);
            let bound = m.operands(op).first().map(|&v| m.value_type(v));
            ensure!(
                args.first().map(|&a| m.value_type(a)) == bound,
                "scf.for",
                "expected induction variable to be same type as bounds and step"
            );
            let iter_args = args.len().saturating_sub(1);
            // LoopLikeOpInterface compares only a yield of some values; an empty one is left
            // to the region edges below.
            if let Some(yielded) = terminator(m, body).map(|t| m.operands(t).len()) {
                if yielded != 0 && yielded != iter_args {
                    bail!("scf.for", "different number of region iter_args and yielded values: {iter_args} != {yielded}");
                }
            }
            edge(m, op, Source::Parent(3), Target::Parent, &types)?;
            edge(
                m,
                op,
                Source::Terminator(body),
                Target::Region(0, 1),
                &types,
            )?;
            edge(m, op, Source::Terminator(body), Target::Parent, &types)?;
        }
        "scf.while" => {
            let (Some(before), Some(after)) = (region(0), region(1)) else {
                return Ok(());
            };
            edge(m, op, Source::Parent(0), Target::Region(0, 0), &types)?;
            // The condition passes its values (past the flag) to the results and to the after
            // region, checked in that order (as jaxlib's MLIR does); the after region's yield
            // goes back to the before region.
            edge(m, op, Source::Terminator(before), Target::Parent, &types)?;
            edge(
                m,
                op,
                Source::Terminator(before),
                Target::Region(1, 0),
                &types,
            )?;
            edge(
                m,
                op,
                Source::Terminator(after),
                Target::Region(0, 0),
                &types,
            )?;
        }
        _ => {}
    }
    Ok(())
}

/// `ForallOp::verify`: one result per output, a body taking an index per loop and then each
/// output's type, a device mapping per loop (gpu's attributes, at most one mask), and bounds
/// and steps of one entry per loop with an operand for each dynamic one.
fn forall(m: &Module, op: OpId) -> Check {
    let array = |name: &str| {
        m.property(op, name)
            .and_then(|a| crate::text::op_format::i64_array(m, m.attr_data(a)))
    };
    let (Some(lower), Some(sizes)) = (
        array("staticLowerBound"),
        crate::text::op_format::segment_sizes(m, op),
    ) else {
        return Ok(());
    };
    let loops = lower.len();
    let operands = m.operands(op);
    let start = |g: usize| sizes.iter().take(g).sum::<usize>();
    let group = |g: usize| operands.get(start(g)..start(g + 1)).unwrap_or_default();
    let outputs = group(3);
    ensure!(
        m.num_results(op) == outputs.len(),
        "scf.forall",
        "produces {} results, but has only {} outputs",
        m.num_results(op),
        outputs.len()
    );
    // DestinationStyleOpInterface: each output's type is its result's.
    for ((i, &o), r) in outputs.iter().enumerate().zip(m.results(op)) {
        let (have, want) = (m.value_type(o), m.value_type(r));
        ensure!(
            have == want,
            "DestinationStyleOpInterface",
            "expected type of operand #{} ('{}') to match type of corresponding result ('{}')",
            start(3) + i,
            crate::text::type_to_string(m, have),
            crate::text::type_to_string(m, want)
        );
    }
    if let Some(&body) = m.regions(op).first().and_then(|&r| m.blocks(r).first()) {
        let args = m.block_args(body);
        ensure!(
            args.len() == loops + outputs.len(),
            "scf.forall",
            "region expects {loops} arguments"
        );
        let arg_type = |i: usize| args.get(i).map(|&a| m.value_type(a));
        for i in 0..loops {
            ensure!(
                arg_type(i).is_some_and(|t| matches!(m.type_data(t), crate::ir::TypeData::Index)),
                "scf.forall",
                "expects {i}-th block argument to be an index"
            );
        }
        for (i, &o) in outputs.iter().enumerate() {
            ensure!(
                arg_type(loops + i) == Some(m.value_type(o)),
                "scf.forall",
                "type mismatch between {i}-th output and corresponding block argument"
            );
        }
    }
    if let Some(mapping) = m.property(op, "mapping").map(|a| m.attr_data(a)) {
        // The device mapping attributes jaxlib knows are gpu's: `Some(is a mask)`.
        let gpu = |a| match m.attr_data(a) {
            crate::ir::AttrData::Opaque { dialect, text } if m.str(*dialect) == "gpu" => {
                let mnemonic = m.str(*text).trim_start_matches("#gpu.");
                let mnemonic = mnemonic.split('<').next().unwrap_or_default();
                let mappings = [
                    "block",
                    "warpgroup",
                    "warp",
                    "thread",
                    "lane",
                    "memory_space",
                ];
                (mnemonic == "mask" || mappings.contains(&mnemonic)).then_some(mnemonic == "mask")
            }
            _ => None,
        };
        let kinds: Option<Vec<bool>> = match mapping {
            crate::ir::AttrData::Array(items) => items.iter().map(|&a| gpu(a)).collect(),
            _ => None,
        };
        let Some(masks) = kinds else {
            bail!(
                "scf.forall",
                "attribute 'mapping' failed to satisfy constraint: Device Mapping array attribute"
            );
        };
        if !masks.is_empty() {
            ensure!(
                masks.iter().filter(|&&mask| !mask).count() == loops,
                "scf.forall",
                "mapping attribute size must match op rank"
            );
            ensure!(
                masks.iter().filter(|&&mask| mask).count() <= 1,
                "scf.forall",
                "\"mapping\" supports at most one device masking attribute"
            );
        }
    }
    // `verifyListOfOperandsOrIntegers`.
    for (g, (name, attr)) in [
        ("lower bound", "staticLowerBound"),
        ("upper bound", "staticUpperBound"),
        ("step", "staticStep"),
    ]
    .into_iter()
    .enumerate()
    {
        let Some(values) = array(attr) else {
            continue;
        };
        ensure!(
            values.len() == loops,
            "scf.forall",
            "{name} expected {loops} values, got {}.",
            values.len()
        );
        // ShapedType::kDynamic marks a dynamic value; other negative bounds are static.
        let dynamic = values.iter().filter(|&&v| v == crate::ir::DYNAMIC).count();
        ensure!(
            group(g).len() == dynamic,
            "scf.forall",
            "expected {dynamic} dynamic {name} values"
        );
    }
    Ok(())
}

/// The body arguments of an `scf.forall` that stand for its outputs (after one index per loop).
pub(super) fn forall_outputs(m: &Module, forall: OpId) -> &[Value] {
    let loops = m
        .property(forall, "staticLowerBound")
        .and_then(|a| crate::text::op_format::i64_array(m, m.attr_data(a)))
        .map_or(0, |l| l.len());
    let body = m.regions(forall).first().and_then(|&r| m.blocks(r).first());
    body.map_or(&[][..], |&b| {
        m.block_args(b).get(loops..).unwrap_or_default()
    })
}

/// `InParallelOp::verify`: only `tensor.parallel_insert_slice`, jaxlib's one
/// ParallelCombiningOpInterface op, each inserting into an output argument of the loop around
/// (reported at the insert, before it is verified itself).
fn in_parallel(m: &Module, op: OpId) -> Check {
    let body = m.regions(op).iter().flat_map(|&r| m.blocks(r).first());
    let ops = body.flat_map(|&b| m.block_ops(b));
    let outputs = super::structure::parent_op(m, op)
        .filter(|&p| m.op_name_str(p) == "scf.forall")
        .map(|forall| forall_outputs(m, forall));
    for &inner in ops.clone() {
        ensure!(
            m.op_name_str(inner) == "tensor.parallel_insert_slice",
            "scf.forall.in_parallel",
            "expected only ParallelCombiningOpInterface ops"
        );
    }
    for &inner in ops {
        let into_output = |outputs: &[crate::ir::Value]| {
            m.operands(inner)
                .get(1)
                .is_some_and(|d| outputs.contains(d))
        };
        if outputs.is_some_and(|o| !into_output(o)) {
            return Err(fail(
                "scf.forall.in_parallel",
                "may only insert into an output block argument",
            )
            .at(super::Place::Nested(inner)));
        }
    }
    Ok(())
}

/// `IndexSwitchOp::verify`: one case value per case region, no value twice, and each region
/// (the default first) yields the op's result types.
fn index_switch(m: &Module, op: OpId) -> Check {
    let cases = m
        .property(op, "cases")
        .and_then(|a| crate::text::op_format::i64_array(m, m.attr_data(a)))
        .unwrap_or_default();
    let regions = m.regions(op);
    let case_regions = regions.len().saturating_sub(1);
    ensure!(
        cases.len() == case_regions,
        "scf.index_switch",
        "has {case_regions} case regions but {} case values",
        cases.len()
    );
    let mut seen = std::collections::BTreeSet::new();
    if let Some(v) = cases.iter().find(|&&v| !seen.insert(v)) {
        bail!("scf.index_switch", "has duplicate case value: {v}");
    }
    let results: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
    for (i, &r) in regions.iter().enumerate() {
        let Some(t) = terminator(m, r) else {
            continue;
        };
        let name = if i == 0 {
            "default region".to_string()
        } else {
            format!("case region #{}", i - 1)
        };
        let yielded = m.operands(t);
        ensure!(
            yielded.len() == results.len(),
            "scf.index_switch",
            "expected each region to return {} values, but {name} returns {}",
            results.len(),
            yielded.len()
        );
        for (k, (&v, &want)) in yielded.iter().zip(&results).enumerate() {
            ensure!(
                m.value_type(v) == want,
                "scf.index_switch",
                "expected result #{k} of each region to be '{}'",
                crate::text::type_to_string(m, want)
            );
        }
    }
    Ok(())
}

/// The operands a `cf` branch forwards to each of its successors: `cf.br` all of them,
/// `cf.cond_br` its true and false groups, `cf.switch` its default group, then its case
/// operands as `case_operand_segments` sizes them. None where the sizes do not add up (the
/// segment checks refuse that first).
fn forwarded(m: &Module, op: OpId) -> Option<Vec<std::ops::Range<usize>>> {
    let n = m.operands(op).len();
    let sizes = || crate::text::op_format::segment_sizes(m, op);
    let groups = match m.op_name_str(op) {
        "cf.br" => std::iter::once(0..n).collect(),
        "cf.cond_br" => {
            let s = sizes()?;
            let (t, f) = (*s.get(1)?, *s.get(2)?);
            vec![1..1 + t, 1 + t..1 + t + f]
        }
        "cf.switch" => {
            let s = sizes()?;
            let d = *s.get(1)?;
            let mut groups: Vec<_> = std::iter::once(1..1 + d).collect();
            let cases = (m.property(op, "case_operand_segments"))
                .and_then(|a| crate::text::op_format::i32_array(m, m.attr_data(a)))?;
            let mut at = 1 + d;
            for c in cases {
                let c = usize::try_from(c).ok()?;
                groups.push(at..at + c);
                at += c;
            }
            groups
        }
        _ => return None,
    };
    groups.iter().all(|r| r.end <= n).then_some(groups)
}

/// `BranchOpInterface`: each successor takes as many operands as its block has arguments, of
/// the same types (MLIR's `verifyBranchSuccessorOperands`).
fn successor_operands(m: &Module, op: OpId) -> Check {
    let Some(groups) = forwarded(m, op) else {
        return Ok(());
    };
    for (k, (&block, range)) in m.successors(op).iter().zip(groups).enumerate() {
        let args = m.block_args(block);
        let operands = &m.operands(op)[range];
        ensure!(
            operands.len() == args.len(),
            "BranchOpInterface",
            "branch has {} operands for successor #{k}, but target block has {}",
            operands.len(),
            args.len()
        );
        for (i, (&v, &a)) in operands.iter().zip(args).enumerate() {
            ensure!(
                m.value_type(v) == m.value_type(a),
                "BranchOpInterface",
                "type mismatch for bb argument #{i} of successor #{k}"
            );
        }
    }
    Ok(())
}

/// `cf.cond_br`'s `branch_weights` (`WeightedBranchOpInterface`): one per successor, not all 0.
fn branch_weights(m: &Module, op: OpId) -> Check {
    let Some(weights) = m
        .property(op, "branch_weights")
        .and_then(|a| crate::text::op_format::i32_array(m, m.attr_data(a)))
    else {
        return Ok(());
    };
    let successors = m.successors(op).len();
    ensure!(
        weights.len() == successors,
        "WeightedBranchOpInterface",
        "expects number of branch weights to match number of successors: {} vs {successors}",
        weights.len()
    );
    if weights.iter().all(|&w| w == 0) {
        bail!(
            "WeightedBranchOpInterface",
            "branch weights cannot all be zero"
        );
    }
    Ok(())
}

/// `cf.switch`: its case operands as `case_operand_segments` sizes them (ODS's
/// VariadicOfVariadic), then `SwitchOp::verify`: case values of the flag's type, one per case
/// destination. Case destinations without case values are refused too (jaxlib's MLIR crashes
/// on them).
fn switch(m: &Module, op: OpId) -> Check {
    let segments = (m.property(op, "case_operand_segments"))
        .and_then(|a| crate::text::op_format::i32_array(m, m.attr_data(a)));
    let case_operands =
        crate::text::op_format::segment_sizes(m, op).and_then(|s| s.get(2).copied());
    if let (Some(segments), Some(n)) = (segments, case_operands) {
        if segments.iter().any(|&x| x < 0) {
            bail!(
                "VariadicOfVariadic",
                "'case_operand_segments' attribute cannot have negative elements"
            );
        }
        let total: i64 = segments.iter().map(|&x| i64::from(x)).sum();
        ensure!(usize::try_from(total).ok() == Some(n), "VariadicOfVariadic", "caseOperands count ({n}) does not match with the total size ({total}) specified in attribute 'case_operand_segments'");
    }
    successor_operands(m, op)?;
    let destinations = m.successors(op).len().saturating_sub(1);
    let Some(values) = m.property(op, "case_values") else {
        if destinations == 0 {
            return Ok(());
        }
        bail!(
            "cf.switch",
            "number of case values (0) should match number of case destinations ({destinations})"
        );
    };
    let crate::ir::AttrData::DenseElements { ty, .. } = m.attr_data(values) else {
        return Ok(());
    };
    let Some((shape, element)) = crate::ir::vector_parts(m, *ty)
        .map(|(s, e)| (s.to_vec(), e))
        .or_else(|| match m.type_data(*ty) {
            crate::ir::TypeData::RankedTensor { shape, element, .. } => {
                Some((shape.to_vec(), *element))
            }
            _ => None,
        })
    else {
        return Ok(());
    };
    let flag = m.operands(op).first().map(|&v| m.value_type(v));
    if let Some(flag) = flag.filter(|&f| f != element) {
        bail!(
            "cf.switch",
            "'flag' type ({}) should match case value type ({})",
            crate::text::type_to_string(m, flag),
            crate::text::type_to_string(m, element)
        );
    }
    let count: i64 = shape.iter().product();
    ensure!(
        usize::try_from(count).ok() == Some(destinations),
        "cf.switch",
        "number of case values ({count}) should match number of case destinations ({destinations})"
    );
    Ok(())
}

/// The integer value of an `arith.constant`.
fn constant_int(m: &Module, v: Value) -> Option<i128> {
    let crate::ir::ValueDef::Result { op, .. } = m.value_def(v) else {
        return None;
    };
    if m.op_name_str(op) != "arith.constant" {
        return None;
    }
    match m.property(op, "value").map(|a| m.attr_data(a)) {
        Some(crate::ir::AttrData::Integer { value, .. }) => Some(*value),
        _ => None,
    }
}

/// `ParallelOp::verify`: steps (positive where constant), one `index` induction variable per
/// step, a body ending in `scf.reduce` with one reduction per result, of its type.
fn parallel(m: &Module, op: OpId) -> Check {
    let Some(sizes) = crate::text::op_format::segment_sizes(m, op) else {
        return Ok(());
    };
    let operands = m.operands(op);
    let start = |g: usize| sizes.iter().take(g).sum::<usize>();
    let steps = operands.get(start(2)..start(3)).unwrap_or_default();
    let inits = sizes.get(3).copied().unwrap_or(0);
    if steps.is_empty() {
        bail!(
            "scf.parallel",
            "needs at least one tuple element for lowerBound, upperBound and step"
        );
    }
    if steps
        .iter()
        .any(|&s| constant_int(m, s).is_some_and(|c| c <= 0))
    {
        bail!("scf.parallel", "constant step operand must be positive");
    }
    let Some(&body) = m.regions(op).first().and_then(|&r| m.blocks(r).first()) else {
        return Ok(());
    };
    let args = m.block_args(body);
    ensure!(
        args.len() == steps.len(),
        "scf.parallel",
        "expects the same number of induction variables: {} as bound and step values: {}",
        args.len(),
        steps.len()
    );
    if args
        .iter()
        .any(|&a| !matches!(m.type_data(m.value_type(a)), crate::ir::TypeData::Index))
    {
        bail!(
            "scf.parallel",
            "expects arguments for the induction variable to be of index type"
        );
    }
    let Some(&reduce) = m
        .block_ops(body)
        .last()
        .filter(|&&t| m.op_name_str(t) == "scf.reduce")
    else {
        bail!(
            "scf.parallel",
            "expects body to terminate with 'scf.reduce'"
        );
    };
    let results = m.num_results(op);
    let reductions = m.regions(reduce).len();
    ensure!(
        results == reductions,
        "scf.parallel",
        "expects number of results: {results} to be the same as number of reductions: {reductions}"
    );
    ensure!(
        results == inits,
        "scf.parallel",
        "expects number of results: {results} to be the same as number of initial values: {inits}"
    );
    for (i, (r, &v)) in m.results(op).zip(m.operands(reduce)).enumerate() {
        let (want, have) = (m.value_type(r), m.value_type(v));
        ensure!(want == have, "scf.reduce", "expects type of {i}-th reduction operand: '{}' to be the same as the {i}-th result type: '{}'",
                    crate::text::type_to_string(m, have),
                    crate::text::type_to_string(m, want));
    }
    Ok(())
}

/// `ReduceOp::verifyRegions`: each reduction takes two values of its operand's type.
fn reduce(m: &Module, op: OpId) -> Check {
    for (i, (&r, &v)) in m.regions(op).iter().zip(m.operands(op)).enumerate() {
        let t = m.value_type(v);
        let Some(&b) = m.blocks(r).first() else {
            continue;
        };
        if m.block_ops(b).is_empty() {
            bail!("scf.reduce", "{i}-th reduction has an empty body");
        }
        let args = m.block_args(b);
        if args.len() != 2 || args.iter().any(|&a| m.value_type(a) != t) {
            bail!(
                "scf.reduce",
                "expected two block arguments with type '{}' in the {i}-th reduction region",
                crate::text::type_to_string(m, t)
            );
        }
        if terminator(m, r).is_none_or(|t| m.op_name_str(t) != "scf.reduce.return") {
            bail!(
                "scf.reduce",
                "reduction bodies must be terminated with an 'scf.reduce.return' op"
            );
        }
    }
    Ok(())
}

/// The terminator of a region's single block.
fn terminator(m: &Module, r: Region) -> Option<OpId> {
    m.blocks(r)
        .first()
        .and_then(|&b| m.block_ops(b).last().copied())
}

fn edge(
    m: &Module,
    op: OpId,
    from: Source,
    to: Target,
    types: &dyn Fn(&mut dyn Iterator<Item = Value>) -> Vec<Type>,
) -> Check {
    let (operands, point): (Vec<Type>, String) = match from {
        Source::Parent(skip) => (
            types(&mut m.operands(op).iter().skip(skip).copied()),
            "parent".into(),
        ),
        Source::Terminator(r) => {
            let Some(t) = terminator(m, r) else {
                return Ok(());
            };
            // `scf.condition` passes what follows its flag.
            let skip = usize::from(m.op_name_str(t) == "scf.condition");
            (
                types(&mut m.operands(t).iter().skip(skip).copied()),
                format!("Operation {}", m.op_name_str(t)),
            )
        }
    };
    let (inputs, target): (Vec<Type>, String) = match to {
        Target::Parent => (types(&mut m.results(op)), "parent".into()),
        Target::Region(i, skip) => {
            let Some(&b) = m.regions(op).get(i).and_then(|&r| m.blocks(r).first()) else {
                return Ok(());
            };
            (
                types(&mut m.block_args(b).iter().skip(skip).copied()),
                format!("Region #{i}"),
            )
        }
    };
    let at = || format!("along control flow edge from {point} to {target}");
    ensure!(
        operands.len() == inputs.len(),
        "RegionBranchOpInterface",
        "{}: region branch point has {} operands, but region successor needs {} inputs",
        at(),
        operands.len(),
        inputs.len()
    );
    for (i, (a, b)) in operands.iter().zip(&inputs).enumerate() {
        ensure!(
            a == b,
            "RegionBranchOpInterface",
            "{}: successor operand type #{i} '{}' should match successor input type #{i} '{}'",
            at(),
            crate::text::type_to_string(m, *a),
            crate::text::type_to_string(m, *b)
        );
    }
    Ok(())
}
