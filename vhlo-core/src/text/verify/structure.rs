//! MLIR's structural rules (`mlir/lib/IR/Verifier.cpp`, `SymbolTable.cpp`, the `func` dialect's
//! verifiers): block terminators (with `SingleBlock` and `SingleBlockImplicitTerminator`'s
//! region check, shared by StableHLO's ops and the spec dialects'), symbol tables, function
//! signatures and calls, and SSA
//! dominance with isolation from above. Ops of dialects this crate does not know are treated as
//! MLIR treats unregistered ops: they may terminate a block, and need no terminator themselves.

use super::{bail, ensure, fail, Check, Sink};
use crate::ir::{AttrData, Block, FastMap, Module, OpId, Symbol, Type, TypeData, Value};
use crate::text::type_to_string;

pub(crate) use crate::text::dialects::{classify, OpClass};

/// The symbols defined directly in the body of each symbol-table op (`builtin.module`).
#[derive(Default)]
pub(crate) struct SymbolTable {
    /// (symbol-table op, symbol name) -> the op defining it.
    defs: FastMap<(OpId, Symbol), OpId>,
}

impl SymbolTable {
    /// The nearest symbol-table op around `from` (`OpId(u32::MAX)` for none: the top level of
    /// a module made by hand), from which [`SymbolTable::lookup`] of any name starts.
    pub fn table_around(&self, m: &Module, from: OpId) -> OpId {
        let mut at = Some(from);
        while let Some(op) = at {
            if m.op_name_str(op) == "builtin.module" {
                return op;
            }
            at = parent_op(m, op);
        }
        OpId(u32::MAX)
    }

    /// The op named `name` in the nearest symbol table around `from`.
    pub fn lookup(&self, m: &Module, from: OpId, name: Symbol) -> Option<OpId> {
        let mut at = Some(from);
        while let Some(op) = at {
            if m.op_name_str(op) == "builtin.module" {
                if let Some(&d) = self.defs.get(&(op, name)) {
                    return Some(d);
                }
            }
            at = parent_op(m, op);
        }
        // Top-level ops sit in no module when a module is made by hand.
        self.defs.get(&(OpId(u32::MAX), name)).copied()
    }
}

pub(crate) fn parent_op(m: &Module, op: OpId) -> Option<OpId> {
    let b = m.op_parent(op)?;
    m.region_parent(m.block_parent(b)?)
}

/// `sym_name` of an op, as a property or a discardable attribute.
pub(crate) fn sym_name(m: &Module, op: OpId) -> Option<Symbol> {
    let a = m
        .property(op, "sym_name")
        .or_else(|| m.attribute(op, "sym_name"))?;
    match m.attr_data(a) {
        AttrData::String { value, .. } => Some(*value),
        _ => None,
    }
}

/// The ops of the registered dialects that are symbols (MLIR's `SymbolOpInterface`), and
/// whether the symbol is optional (`builtin.module`'s name may be left out).
const SYMBOL_OPS: &[(&str, bool)] = &[
    ("builtin.module", true),
    ("func.func", false),
    ("shape.func", false),
    ("shape.function_library", false),
];

/// MLIR's `verifySymbol` for the symbol ops (a visibility is public, private or nested; a
/// non-string one fails the property's conversion), and `builtin.module`'s one-block body
/// (ODS's `SizedRegion<1>`).
pub(crate) fn verify_symbol(m: &Module, op: OpId) -> super::Check {
    let name = m.op_name_str(op);
    let Some(&(_, optional)) = SYMBOL_OPS.iter().find(|(n, _)| *n == name) else {
        return Ok(());
    };
    if name == "builtin.module" {
        let blocks = m.regions(op).first().map_or(0, |&r| m.blocks(r).len());
        ensure!(
            blocks == 1,
            "ODS",
            "region #0 ('bodyRegion') failed to verify constraint: region with 1 blocks"
        );
    }
    if optional && m.property(op, "sym_name").is_none() {
        return Ok(());
    }
    let Some(v) = m.property(op, "sym_visibility") else {
        return Ok(());
    };
    match m.attr_data(v) {
        AttrData::String { value, .. } => {
            let vis = m.str(*value);
            ensure!(["public", "private", "nested"].contains(&vis), "Symbol", "visibility expected to be one of [\"public\", \"private\", \"nested\"], but got \"{}\"",
                        vis.escape_default());
            Ok(())
        }
        _ => Err(fail(
            "ODS",
            format!(
                "invalid properties: Invalid attribute `sym_visibility` in property conversion: {}",
                crate::text::attribute_to_string(m, v)
            ),
        )),
    }
}

/// The `function_type` of a `func.func`.
pub(crate) fn function_type(m: &Module, func: OpId) -> Option<(&[Type], &[Type])> {
    let a = m.property(func, "function_type")?;
    let AttrData::Type(t) = m.attr_data(a) else {
        return None;
    };
    match m.type_data(*t) {
        TypeData::Function { inputs, results } => Some((inputs, results)),
        _ => None,
    }
}

/// The symbols defined directly in the body of symbol-table op `table` (`None`: the top level
/// of a module built without a `builtin.module`), each name once: a second definition is
/// reported.
pub(crate) fn collect_symbols(
    sink: &mut Sink,
    symbols: &mut SymbolTable,
    table: Option<OpId>,
    ops: impl Iterator<Item = OpId>,
) {
    let m = sink.m;
    let key = table.unwrap_or(OpId(u32::MAX));
    for op in ops {
        let Some(name) = sym_name(m, op) else {
            continue;
        };
        if symbols.defs.insert((key, name), op).is_some() {
            sink.report(
                op,
                fail(
                    "SymbolTable",
                    format!("redefinition of symbol named '{}'", m.str(name)),
                ),
            );
        }
    }
}

/// The checks of the `func` dialect's ops (and of symbol tables' bodies).
pub(crate) fn verify_func_dialect(sink: &mut Sink, op: OpId) {
    let m = sink.m;
    let checked = match m.op_name_str(op) {
        "func.func" => verify_func(m, op),
        "func.return" => verify_return(m, op),
        "func.call" => call_callee(m, op).map(|_| ()),
        "func.constant" => constant_callee(m, op).map(|_| ()),
        "func.call_indirect" => verify_call_indirect(m, op),
        _ => Ok(()),
    };
    if let Err(f) = checked {
        sink.report(op, f);
    }
}

/// `func.constant` (FuncOps.td: no operand, one result, a flat symbol `value`); its symbol use
/// is checked later ([`func_symbol_uses`]).
fn constant_callee(m: &Module, op: OpId) -> Result<Symbol, super::Failure> {
    let counts = super::counts::OdsCounts {
        regions: (0, false),
        results: (1, false),
        successors: (0, false),
        operands: (0, false),
    };
    super::counts::ods_counts(m, op, counts)?;
    let value = m
        .property(op, "value")
        .ok_or_else(|| fail("func.constant", "requires attribute 'value'"))?;
    match m.attr_data(value) {
        AttrData::SymbolRef { root, nested } if nested.is_empty() => Ok(*root),
        _ => Err(fail(
            "func.constant",
            format!(
                "invalid properties for op func.constant: Invalid attribute `value` in property conversion: {}",
                crate::text::attribute_to_string(m, value)
            ),
        )),
    }
}

/// The symbol uses of `func.call` and `func.constant` (their `verifySymbolUses`), which MLIR
/// checks on leaving the symbol table, after every other check of the ops in it
/// (`walk.rs`, `symbol_users`).
pub(crate) fn func_symbol_uses(m: &Module, symbols: &SymbolTable, op: OpId) -> Check {
    match m.op_name_str(op) {
        "func.call" => call_symbol_uses(m, symbols, op),
        "func.constant" => constant_symbol_uses(m, symbols, op),
        _ => Ok(()),
    }
}

/// `func.constant`'s `ConstantOp::verifySymbolUses`: a `func.func` of the result's type.
fn constant_symbol_uses(m: &Module, symbols: &SymbolTable, op: OpId) -> Check {
    let name = constant_callee(m, op)?;
    let func = symbols
        .lookup(m, op, name)
        .filter(|&f| m.op_name_str(f) == "func.func");
    let Some(func) = func else {
        bail!(
            "func.constant",
            "reference to undefined function '{}'",
            m.str(name)
        );
    };
    let result = m.results(op).next().map(|v| m.value_type(v));
    let fits = m
        .property(func, "function_type")
        .is_some_and(|a| matches!(m.attr_data(a), AttrData::Type(t) if Some(*t) == result));
    ensure!(
        fits,
        "func.constant",
        "reference to function with mismatched type"
    );
    Ok(())
}

/// `func.call_indirect` (FuncOps.td): a callee of function type, then its inputs and results
/// against the other operands and the results (`TypesMatchWith`).
fn verify_call_indirect(m: &Module, op: OpId) -> Check {
    let counts = super::counts::OdsCounts {
        regions: (0, false),
        results: (0, true),
        successors: (0, false),
        operands: (1, true),
    };
    super::counts::ods_counts(m, op, counts)?;
    let Some((&callee, args)) = m.operands(op).split_first() else {
        return Ok(());
    };
    let callee = m.value_type(callee);
    let TypeData::Function { inputs, results } = m.type_data(callee) else {
        bail!(
            "func.call_indirect",
            "operand #0 must be function type, but got '{}'",
            type_to_string(m, callee)
        );
    };
    ensure!(
        args.iter()
            .map(|&v| m.value_type(v))
            .eq(inputs.iter().copied()),
        "func.call_indirect",
        "failed to verify that callee input types match argument types"
    );
    ensure!(
        m.results(op)
            .map(|v| m.value_type(v))
            .eq(results.iter().copied()),
        "func.call_indirect",
        "failed to verify that callee result types match result types"
    );
    Ok(())
}

fn verify_func(m: &Module, op: OpId) -> Check {
    // FuncOps.td's count traits come first.
    let counts = super::counts::OdsCounts {
        regions: (1, false),
        results: (0, false),
        successors: (0, false),
        operands: (0, false),
    };
    super::counts::ods_counts(m, op, counts)?;
    let Some((inputs, _)) = function_type(m, op) else {
        bail!(
            "func.func",
            "requires a 'function_type' attribute of function type"
        );
    };
    let body = m.regions(op).first().and_then(|&r| m.blocks(r).first());
    let Some(&entry) = body else {
        let public = match m.property(op, "sym_visibility") {
            None => true,
            Some(a) => {
                matches!(m.attr_data(a), AttrData::String { value, .. } if m.str(*value) == "public")
            }
        };
        ensure!(
            !public,
            "func.func",
            "symbol declaration cannot have public visibility"
        );
        return Ok(());
    };
    let args = m.block_args(entry);
    ensure!(
        args.len() == inputs.len(),
        "func.func",
        "entry block must have {} arguments to match function signature",
        inputs.len()
    );
    for (i, (&a, &t)) in args.iter().zip(inputs.iter()).enumerate() {
        let at = m.value_type(a);
        ensure!(
            at == t,
            "func.func",
            "type of entry block argument #{i}('{}') must match the type of the corresponding argument in function signature('{}')",
            type_to_string(m, at),
            type_to_string(m, t)
        );
    }
    Ok(())
}

fn verify_return(m: &Module, op: OpId) -> Check {
    let parent = parent_op(m, op);
    let Some(func) = parent.filter(|&p| m.op_name_str(p) == "func.func") else {
        bail!("HasParent", "expects parent op 'func.func'");
    };
    let Some((_, results)) = function_type(m, func) else {
        return Ok(());
    };
    let operands = m.operands(op);
    let fname = sym_name(m, func).map(|s| m.str(s)).unwrap_or("");
    ensure!(
        operands.len() == results.len(),
        "func.return",
        "has {} operands, but enclosing function (@{fname}) returns {}",
        operands.len(),
        results.len()
    );
    for (i, (&v, &t)) in operands.iter().zip(results.iter()).enumerate() {
        let vt = m.value_type(v);
        ensure!(
            vt == t,
            "func.return",
            "type of return operand {i} ('{}') doesn't match function result type ('{}') in function @{fname}",
            type_to_string(m, vt),
            type_to_string(m, t)
        );
    }
    Ok(())
}

/// `func.call`'s own checks (its ODS attribute); its symbol uses are checked later
/// ([`func_symbol_uses`]).
fn call_callee(m: &Module, op: OpId) -> Result<Symbol, super::Failure> {
    // ODS's messages: a missing attribute, then one of another kind.
    let callee = m
        .property(op, "callee")
        .ok_or_else(|| fail("func.call", "requires attribute 'callee'"))?;
    match m.attr_data(callee) {
        AttrData::SymbolRef { root, nested } if nested.is_empty() => Ok(*root),
        _ => Err(fail(
            "func.call",
            "attribute 'callee' failed to satisfy constraint: flat symbol reference attribute",
        )),
    }
}

/// `func.call`'s `CallOp::verifySymbolUses`: a `func.func` callee whose inputs and results are
/// the call's operand and result types.
fn call_symbol_uses(m: &Module, symbols: &SymbolTable, op: OpId) -> Check {
    let callee = call_callee(m, op)?;
    let func = symbols
        .lookup(m, op, callee)
        .filter(|&f| m.op_name_str(f) == "func.func");
    let Some(func) = func else {
        bail!(
            "func.call",
            "'{}' does not reference a valid function",
            m.str(callee)
        );
    };
    let Some((inputs, results)) = function_type(m, func) else {
        return Ok(());
    };
    let operands = m.operands(op);
    if operands.len() != inputs.len() {
        return Err(fail("func.call", "incorrect number of operands for callee"));
    }
    for (i, (&v, &t)) in operands.iter().zip(inputs.iter()).enumerate() {
        ensure!(m.value_type(v) == t, "func.call", "operand type mismatch: expected operand type '{}', but provided '{}' for operand number {i}",
                    type_to_string(m, t),
                    type_to_string(m, m.value_type(v)));
    }
    if m.num_results(op) != results.len() {
        return Err(fail("func.call", "incorrect number of results for callee"));
    }
    for (i, (v, &t)) in m.results(op).zip(results.iter()).enumerate() {
        ensure!(
            m.value_type(v) == t,
            "func.call",
            "result type mismatch at index {i}: expected '{}', but provided '{}'",
            type_to_string(m, t),
            type_to_string(m, m.value_type(v))
        );
    }
    Ok(())
}

/// Immediate dominators of the blocks of a region (entry first), by the iterative algorithm of
/// Cooper, Harvey and Kennedy. Unreachable blocks get themselves.
fn dominators(m: &Module, blocks: &[Block]) -> Vec<usize> {
    let n = blocks.len();
    let index: FastMap<Block, usize> = blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &b) in blocks.iter().enumerate() {
        if let Some(&last) = m.block_ops(b).last() {
            for s in m.successors(last) {
                if let Some(&j) = index.get(s) {
                    succs[i].push(j);
                }
            }
        }
    }
    // Reverse postorder from the entry.
    let mut rpo = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some((b, k)) = stack.pop() {
        if let Some(&s) = succs[b].get(k) {
            stack.push((b, k + 1));
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            rpo.push(b);
        }
    }
    rpo.reverse();
    let mut order = vec![usize::MAX; n];
    for (i, &b) in rpo.iter().enumerate() {
        order[b] = i;
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut idom = vec![usize::MAX; n];
    idom[0] = 0;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new = usize::MAX;
            for &p in &preds[b] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    let (mut x, mut y) = (p, new);
                    while x != y {
                        while order[x] > order[y] {
                            x = idom[x];
                        }
                        while order[y] > order[x] {
                            y = idom[y];
                        }
                    }
                    x
                };
            }
            if new != usize::MAX && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    for (i, d) in idom.iter_mut().enumerate() {
        if *d == usize::MAX {
            *d = i;
        }
    }
    idom
}

/// The dominator tree of a region's blocks: its roots (the entry, then each unreachable block,
/// which MLIR does not check against the others) and each block's children.
pub(crate) fn dominator_tree(
    m: &Module,
    blocks: &[Block],
) -> (Vec<Block>, Vec<(Block, Vec<Block>)>) {
    let idom = dominators(m, blocks);
    let mut children: Vec<Vec<Block>> = vec![Vec::new(); blocks.len()];
    let mut roots = Vec::new();
    for (b, &d) in idom.iter().enumerate() {
        if d == b {
            roots.push(blocks[b]);
        } else {
            children[d].push(blocks[b]);
        }
    }
    let tree = blocks
        .iter()
        .zip(children)
        .filter(|(_, c)| !c.is_empty())
        .map(|(&b, c)| (b, c))
        .collect();
    (roots, tree)
}

pub(crate) fn dominance_failure(m: &Module, op: OpId, i: usize, v: Value) -> super::Failure {
    // MLIR checks region isolation (`verifyIsIsolatedFromAbove`) before dominance: a value from
    // outside the nearest isolated op around the use is reported so.
    let defined_in = match m.value_def(v) {
        crate::ir::ValueDef::Result { op: def, .. } => m.op_parent(def),
        crate::ir::ValueDef::Argument { block, .. } => Some(block),
    };
    let op_of_block = |b: Block| m.block_parent(b).and_then(|r| m.region_parent(r));
    let isolated = std::iter::successors(parent_op(m, op), |&p| parent_op(m, p))
        .find(|&p| classify(m.op_name_str(p)).isolated);
    if let (Some(isolated), Some(block)) = (isolated, defined_in) {
        let inside =
            std::iter::successors(op_of_block(block), |&p| parent_op(m, p)).any(|p| p == isolated);
        if !inside {
            return fail(
                "IsolatedFromAbove",
                "using value defined outside the region",
            );
        }
    }
    let why = match m.value_def(v) {
        crate::ir::ValueDef::Result { op: def, .. } if def == op => {
            "it is a result of the op itself".to_string()
        }
        crate::ir::ValueDef::Result { op: def, .. } => {
            if m.op_parent(def) == m.op_parent(op) {
                "it is defined later in the same block".to_string()
            } else {
                format!(
                    "it is defined by `{}` in a block or region that does not enclose this use",
                    m.op_name_str(def)
                )
            }
        }
        crate::ir::ValueDef::Argument { .. } => {
            "it is an argument of a block that does not enclose this use".to_string()
        }
    };
    fail(
        "dominance",
        format!("operand #{i} does not dominate this use: {why}"),
    )
}

/// ODS's `SingleBlock` (which `SingleBlockImplicitTerminator` brings), a structural trait: each
/// non-empty region has one block, and that block an op.
pub(crate) fn single_block(m: &Module, op: OpId) -> Check {
    for (i, &r) in m.regions(op).iter().enumerate() {
        let blocks = m.blocks(r);
        ensure!(
            blocks.len() <= 1,
            "SingleBlock",
            "expects region #{i} to have 0 or 1 blocks"
        );
        if blocks.first().is_some_and(|&b| m.block_ops(b).is_empty()) {
            return Err(fail("SingleBlock", "expects a non-empty block"));
        }
    }
    Ok(())
}

/// `SingleBlockImplicitTerminator`'s region check: each non-empty region of `op` ends with
/// the op named `want` (of a spec dialect's op, or `stablehlo.return`: ops/regions.rs).
pub(crate) fn regions_end_with(m: &Module, op: OpId, want: &str) -> Check {
    for &r in m.regions(op) {
        let Some(&b) = m.blocks(r).first() else {
            continue;
        };
        let Some(&last) = m.block_ops(b).last() else {
            continue;
        };
        let found = m.op_name_str(last);
        ensure!(
            found == want,
            "SingleBlockImplicitTerminator",
            "expects regions to end with '{want}', found '{found}'"
        );
    }
    Ok(())
}
