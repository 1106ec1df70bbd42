//! The verifier's one walk over a module: each op is visited once, in program order, and gets
//! every check that applies to it (terminators, dominance, its types, its op constraints, the
//! `func` dialect's rules). The checks a caller asks for are chosen by [`Parts`]: reading an
//! artifact checks the structure of the VHLO module it read, and the ops and types of the
//! StableHLO module the legalization makes of it (which keeps the structure as it is).

use super::structure::{
    classify, collect_symbols, dominance_failure, dominator_tree, func_symbol_uses,
    verify_func_dialect, OpClass, SymbolTable,
};
use super::{bail, ensure, fail, Check, Sink};
use crate::dialect::codec::{CodecDialect, CodecOp};
use crate::ir::{
    AttrData, Attribute, Block, Dim, FastMap, Module, OpId, OpParts, Region, Signedness, Symbol,
    Type, TypeData,
};

/// Which checks a walk runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Parts {
    /// Block terminators.
    pub structure: bool,
    /// SSA dominance and scoping.
    pub dominance: bool,
    /// Types, symbol tables, the `func` dialect's rules and each StableHLO op's constraints.
    pub ops: bool,
}

impl Parts {
    pub const ALL: Parts = Parts {
        structure: true,
        dominance: true,
        ops: true,
    };
}

/// A block being walked: its ops from `next` on; `frame` is its entry in the walk's table of
/// open blocks, `scope` its isolation scope.
struct Open<'m> {
    ops: &'m [OpId],
    next: usize,
    frame: u32,
    scope: u32,
}

enum Step<'m> {
    /// Continue the top-level ops from this index.
    Top(usize),
    /// Walk a block (opened in isolation scope `scope`), and whether it must end with a
    /// terminator (its op is registered and needs them).
    Block(Block, u32, bool),
    /// A block's ops are done: it ends with a terminator (MLIR checks this on leaving the
    /// block, after the ops in it).
    Exit(Block),
    /// Walk a region that may be a graph region (of an op MLIR would not know): its values are
    /// visible in all of it, in any order.
    Graph(Region, u32),
    /// Continue the ops of an open block.
    Resume(Open<'m>),
    /// After an op's regions: its results become visible.
    Results(OpId, u32),
    /// A block and the blocks it dominates are done: its values go out of sight.
    Close(u32),
}

/// Walks `sink.m` once with the checks of `parts`.
pub(crate) fn walk(sink: &mut Sink, parts: Parts) {
    let mut classes = Classes::default();
    walk_ops(sink, parts, &mut classes);
}

fn walk_ops(sink: &mut Sink, parts: Parts, classes: &mut Classes) {
    let m = sink.m;
    let mut symbols = SymbolTable::default();
    let mut types = super::type_rules::TypeMemo::new(m);
    let mut ods_memo = super::ops::OdsMemo::default();
    let mut verified_ops = VerifiedOps::default();
    // Dominance: the open-block frame a value was defined in (0: none yet), and for each frame
    // whether it is still open and its isolation scope.
    let mut defined_in: Vec<u32> = if parts.dominance {
        vec![0; m.num_values()]
    } else {
        Vec::new()
    };
    let mut frame_open: Vec<bool> = vec![false];
    let mut frame_scope: Vec<u32> = vec![0];
    let mut scopes = 1u32;
    let mut dom_children: FastMap<Block, Vec<Block>> = FastMap::default();
    // The ops with symbol uses, one list per open symbol table (the top level first): MLIR
    // checks them on leaving the table's op, after every other check of the ops in it
    // (`detail::verifySymbolTable`), in the order of the ops.
    let mut symbol_users: Vec<Vec<OpId>> = vec![Vec::new()];

    // Top-level ops sit in no block: frame 1, always open.
    frame_open.push(true);
    frame_scope.push(1);
    let top_frame = 1u32;
    if parts.ops
        && !m
            .top_ops()
            .iter()
            .any(|&op| m.op_name_str(op) == "builtin.module")
    {
        collect_symbols(sink, &mut symbols, None, m.top_ops().iter().copied());
    }
    // The top-level ops, as if in one open block.
    let mut stack: Vec<Step> = vec![Step::Top(0)];
    // The block whose ops are being visited, off the stack until one of its ops has regions.
    let mut current: Option<Open> = None;
    loop {
        // Next op to visit, and the frame and scope it is in.
        let (op, frame, scope) = if let Some(open) = current.as_mut() {
            let Some(&op) = open.ops.get(open.next) else {
                current = None;
                continue;
            };
            open.next += 1;
            (op, open.frame, open.scope)
        } else {
            match stack.pop() {
                None => {
                    let users = symbol_users.pop().unwrap_or_default();
                    if let Err((op, f)) = symbol_uses(m, &symbols, classes, &users) {
                        sink.report(op, f);
                    }
                    break;
                }
                Some(Step::Top(i)) => {
                    let Some(&op) = m.top_ops().get(i) else {
                        continue;
                    };
                    stack.push(Step::Top(i + 1));
                    (op, top_frame, 1u32)
                }
                Some(Step::Block(b, scope, needs_terminator)) => {
                    let frame = frame_open.len() as u32;
                    frame_open.push(true);
                    frame_scope.push(scope);
                    if parts.dominance {
                        for &a in m.block_args(b) {
                            if let Some(d) = defined_in.get_mut(a.index()) {
                                *d = frame;
                            }
                        }
                    }
                    // Closed after its ops and the blocks it dominates.
                    stack.push(Step::Close(frame));
                    if let Some(children) = dom_children.get(&b) {
                        for &c in children.iter().rev() {
                            stack.push(Step::Block(c, scope, needs_terminator));
                        }
                    }
                    if needs_terminator && parts.structure {
                        stack.push(Step::Exit(b));
                    }
                    stack.push(Step::Resume(Open {
                        ops: m.block_ops(b),
                        next: 0,
                        frame,
                        scope,
                    }));
                    continue;
                }
                Some(Step::Graph(r, scope)) => {
                    let frame = frame_open.len() as u32;
                    frame_open.push(true);
                    frame_scope.push(scope);
                    if parts.dominance {
                        for &b in m.blocks(r) {
                            let results = m.block_ops(b).iter().flat_map(|&o| m.results(o));
                            for v in m.block_args(b).iter().copied().chain(results) {
                                if let Some(d) = defined_in.get_mut(v.index()) {
                                    *d = frame;
                                }
                            }
                        }
                    }
                    stack.push(Step::Close(frame));
                    for &b in m.blocks(r).iter().rev() {
                        stack.push(Step::Resume(Open {
                            ops: m.block_ops(b),
                            next: 0,
                            frame,
                            scope,
                        }));
                    }
                    continue;
                }
                Some(Step::Resume(open)) => {
                    current = Some(open);
                    continue;
                }
                Some(Step::Results(op, frame)) => {
                    // What MLIR checks on leaving the op, after the ops in its regions.
                    if parts.structure && classes.of(m, op).unknown {
                        sink.report(op, unregistered(m, op));
                        return;
                    }
                    if parts.ops {
                        if m.op_name_str(op) == "builtin.module" {
                            let users = symbol_users.pop().unwrap_or_default();
                            if let Err((op, f)) = symbol_uses(m, &symbols, classes, &users) {
                                sink.report(op, f);
                                return;
                            }
                        }
                        let c = classes.of(m, op);
                        let checked = match c.stablehlo {
                            Some(kind) if m.op_name_str(op).starts_with("stablehlo.") => {
                                super::ops::regions::verify_on_exit(super::types::OpView {
                                    m,
                                    op,
                                    kind,
                                    symbols: &symbols,
                                })
                            }
                            None if c.registered => codec_implicit_terminator(m, op)
                                .and_then(|()| super::scf::verify_regions(m, op))
                                .and_then(|()| super::tensor::verify_regions(m, op))
                                .and_then(|()| super::chlo::verify_on_exit(m, op)),
                            _ => Ok(()),
                        };
                        if let Err(f) = checked {
                            sink.report(op, f);
                            return;
                        }
                    }
                    if parts.dominance {
                        for r in m.results(op) {
                            if let Some(d) = defined_in.get_mut(r.index()) {
                                *d = frame;
                            }
                        }
                    }
                    continue;
                }
                Some(Step::Exit(b)) => {
                    if let Some(&last) = m.block_ops(b).last() {
                        let lc = classes.of(m, last);
                        if lc.registered && !lc.terminator {
                            let what =
                                format!("block with no terminator, has `{}`", m.op_name_str(last));
                            sink.report(last, fail("IsTerminator", what));
                            return;
                        }
                    }
                    continue;
                }
                Some(Step::Close(frame)) => {
                    if let Some(o) = frame_open.get_mut(frame as usize) {
                        *o = false;
                    }
                    continue;
                }
            }
        };
        let op_parts = m.op_parts(op);
        let (class, reads_only_itself) = classes.of_name(m, op_parts.name);
        if parts.structure && class.unknown && op_parts.regions.is_empty() {
            // MLIR's verifier, on leaving the op (Verifier.cpp `verifyOnExit`; an op with
            // regions at `Step::Results`, after the ops inside).
            sink.report(op, unregistered(m, op));
            return;
        }
        if parts.dominance {
            // Each operand defined in an open frame of the same isolation scope.
            for (i, &v) in m.operands(op).iter().enumerate() {
                let f = defined_in.get(v.index()).copied().unwrap_or(0) as usize;
                let ok = frame_open.get(f).copied().unwrap_or(false)
                    && frame_scope.get(f).copied() == Some(scope);
                if !ok {
                    sink.report(op, dominance_failure(m, op, i, v));
                    return;
                }
            }
        }
        if parts.structure && class.terminator {
            if let Some(b) = m.op_parent(op) {
                if m.block_ops(b).last() != Some(&op) {
                    // ODS puts the count traits before the op's own (`Terminator`).
                    let counts = match class.stablehlo {
                        Some(kind) if parts.ops => super::ops::arity(super::types::OpView {
                            m,
                            op,
                            kind,
                            symbols: &symbols,
                        }),
                        None if parts.ops => codec_counts(m, op),
                        _ => Ok(()),
                    };
                    sink.report(
                        op,
                        counts.err().unwrap_or_else(|| {
                            fail(
                                "IsTerminator",
                                "must be the last operation in the parent block",
                            )
                        }),
                    );
                    return;
                }
            }
        }
        // An op whose checks read nothing but its own name, types and attributes, identical to
        // one already verified (a program repeats its ops' shapes), has the same verdict. So
        // has a call, whose checks read the callee's type too, in the same symbol table.
        let key = parts.ops && (reads_only_itself || class.call);
        let table = class.call.then(|| symbols.table_around(m, op).0);
        let known = key && verified_ops.contains(m, &op_parts, table);
        if parts.ops && !known {
            if let Err(f) = types.check_op(op, class.has_function_type) {
                sink.report(op, f);
                return;
            }
            if class.registered {
                if class.stablehlo.is_none() {
                    let declared = super::structure::verify_symbol(m, op)
                        .and_then(|()| codec_segments(m, op, false))
                        .and_then(|()| codec_counts(m, op))
                        .and_then(|()| codec_segments(m, op, true))
                        .and_then(|()| codec_required_attributes(m, op))
                        .and_then(|()| super::ods_types::check_codec(m, op))
                        .and_then(|()| codec_type_matches(m, op))
                        .and_then(|()| super::arith::verify_predicates(m, op))
                        .and_then(|()| super::tensor::verify_predicates(m, op))
                        .and_then(|()| codec_traits(m, op, false))
                        .and_then(|()| super::arith::verify_casts(m, op))
                        .and_then(|()| super::arith::verify_constant(m, op))
                        .and_then(|()| codec_traits(m, op, true))
                        .and_then(|()| codec_inferred_results(m, op))
                        .and_then(|()| super::arith::verify_select(m, op))
                        .and_then(|()| super::tensor::verify(m, op))
                        .and_then(|()| super::complex::verify(m, op))
                        .and_then(|()| super::scf::verify(m, op))
                        .and_then(|()| super::chlo::verify_op(m, op))
                        .and_then(|()| codec_single_block(m, op));
                    if let Err(f) = declared {
                        sink.report(op, f);
                        return;
                    }
                }
                if let Some(kind) = class.stablehlo {
                    let v = super::types::OpView {
                        m,
                        op,
                        kind,
                        symbols: &symbols,
                    };
                    // An op without regions is left at once (its checks on leaving it too).
                    let checked = super::ops::verify_op(v, &mut ods_memo).and_then(|()| {
                        if op_parts.regions.is_empty() {
                            super::ops::regions::verify_on_exit(v)
                        } else {
                            Ok(())
                        }
                    });
                    if let Err(f) = checked {
                        sink.report(op, f);
                        return;
                    }
                    if key {
                        verified_ops.insert();
                    }
                    if super::ops::collectives::uses_symbols(kind) {
                        if let Some(users) = symbol_users.last_mut() {
                            users.push(op);
                        }
                    }
                } else if m.op_name_str(op).starts_with("func.") {
                    let before = sink.out.len();
                    verify_func_dialect(sink, op);
                    if sink.out.len() > before {
                        return;
                    }
                    if key {
                        verified_ops.insert();
                    }
                    if class.call || m.op_name_str(op) == "func.constant" {
                        if let Some(users) = symbol_users.last_mut() {
                            users.push(op);
                        }
                    }
                }
            }
        }
        let regions = op_parts.regions;
        if regions.is_empty() {
            if parts.dominance {
                for r in m.results(op) {
                    if let Some(d) = defined_in.get_mut(r.index()) {
                        *d = frame;
                    }
                }
            }
            continue;
        }
        if parts.ops && m.op_name_str(op) == "builtin.module" {
            let body = regions
                .iter()
                .flat_map(|&r| m.blocks(r).iter())
                .flat_map(|&b| m.block_ops(b).iter().copied());
            collect_symbols(sink, &mut symbols, Some(op), body);
            if !sink.out.is_empty() {
                return;
            }
            symbol_users.push(Vec::new());
        }
        let needs_terminator = class.registered && !class.no_terminator;
        if parts.structure && needs_terminator {
            if let Err(f) = no_empty_blocks(m, regions) {
                sink.report(op, f);
                return;
            }
        }
        let inner = if class.isolated {
            scopes += 1;
            scopes
        } else {
            scope
        };
        // The rest of this block comes after the op's regions and results.
        if let Some(open) = current.take() {
            stack.push(Step::Resume(open));
        }
        stack.push(Step::Results(op, frame));
        for &r in regions.iter().rev() {
            // MLIR's mayBeGraphRegion: the regions of an unregistered op.
            if !class.registered {
                stack.push(Step::Graph(r, inner));
                continue;
            }
            match m.blocks(r) {
                [] => {}
                [b] => stack.push(Step::Block(*b, inner, needs_terminator)),
                blocks => {
                    let (roots, children) = dominator_tree(m, blocks);
                    dom_children.extend(children);
                    for &b in roots.iter().rev() {
                        stack.push(Step::Block(b, inner, needs_terminator));
                    }
                }
            }
        }
    }
}

/// An op of a dialect that takes no unknown ops, which it lacks.
fn unregistered(m: &Module, op: OpId) -> super::Failure {
    let name = m.op_name_str(op);
    let dialect = name.split('.').next().unwrap_or("");
    fail(
        "registered ops",
        format!(
            "unregistered operation '{name}' found in dialect ('{dialect}') that does not allow \
             unknown operations"
        ),
    )
}

/// The symbol uses of `users` (ops of one symbol table, in order): the first failure, with its
/// op.
fn symbol_uses(
    m: &Module,
    symbols: &SymbolTable,
    classes: &mut Classes,
    users: &[OpId],
) -> Result<(), (OpId, super::Failure)> {
    for &op in users {
        let checked = match classes.of(m, op).stablehlo {
            Some(kind) if m.op_name_str(op).starts_with("stablehlo.") => {
                super::ops::collectives::verify_symbol_uses(&super::types::OpView {
                    m,
                    op,
                    kind,
                    symbols,
                })
            }
            _ => func_symbol_uses(m, symbols, op),
        };
        checked.map_err(|f| (op, f))?;
    }
    Ok(())
}

/// [`classify`] memoized by the op-name symbol (a program has few distinct names), with whether
/// its checks read only the op (`ops::reads_only_itself`).
#[derive(Default)]
struct Classes {
    by_name: Vec<Option<(OpClass, bool)>>,
}

impl Classes {
    #[inline(always)]
    fn of(&mut self, m: &Module, op: OpId) -> OpClass {
        self.of_name(m, m.op_name(op)).0
    }

    /// The class of ops named `name`.
    #[inline(always)]
    fn of_name(&mut self, m: &Module, name: Symbol) -> (OpClass, bool) {
        match self.by_name.get(name.index()) {
            Some(Some(c)) => *c,
            _ => self.first(m, name),
        }
    }

    /// The first op of a name: classified and remembered.
    #[cold]
    #[inline(never)]
    fn first(&mut self, m: &Module, name_sym: Symbol) -> (OpClass, bool) {
        let sym = name_sym.index();
        let name = m.str(name_sym);
        let class = classify(name);
        let c = (
            class,
            class.stablehlo.is_some_and(super::ops::reads_only_itself),
        );
        if self.by_name.len() <= sym {
            self.by_name.resize(sym + 1, None);
        }
        self.by_name[sym] = Some(c);
        c
    }
}

/// The first required attribute (spec: neither optional nor default-valued) that an op of a
/// dialect of the spec (`spec/dialects/*.yaml`) lacks, by name, as MLIR's generated verifier
/// reports it before anything else of the op; then its parent and its enum cases.
fn codec_required_attributes(m: &Module, op: OpId) -> Check {
    let Some((cd, spec)) = crate::text::dialects::codec_op(m.op_name_str(op)) else {
        return Ok(());
    };
    // The spec lists them sorted by name, as the properties are.
    let missing = spec.attributes.iter().find(|a| {
        let segments = matches!(a.name, "operandSegmentSizes" | "resultSegmentSizes");
        !a.optional && a.default.is_none() && !segments && m.property(op, a.name).is_none()
    });
    if let Some(a) = missing {
        return Err(fail("ODS", format!("requires attribute '{}'", a.name)));
    }
    codec_attribute_kinds(m, op, cd, spec)?;
    codec_parent(m, op, cd, spec)?;
    codec_enum_cases(m, op, cd, spec)
}

/// The builtin attributes of an op of a dialect of the spec against their kinds (`of:`), with
/// the summary of the ODS attribute each kind is (I64Attr, DenseI32ArrayAttr, ...).
fn codec_attribute_kinds(m: &Module, op: OpId, cd: &CodecDialect, spec: &CodecOp) -> Check {
    let signless = |t, width| matches!(m.type_data(t), TypeData::Integer { width: w, signedness: Signedness::Signless } if *w == width);
    for a in spec.attributes {
        let Some(v) = m.property(op, a.name) else {
            continue;
        };
        let d = m.attr_data(v);
        let (ok, summary) = match a.of {
            // ODS's `ConfinedAttr<I64Attr, [IntNonNegative]>` when it has a `min`.
            "i64" if a.min == Some(0) => (
                matches!(d, AttrData::Integer { ty, value } if signless(*ty, 64) && *value >= 0),
                "64-bit signless integer attribute whose value is non-negative",
            ),
            "i64" => (
                matches!(d, AttrData::Integer { ty, .. } if signless(*ty, 64)),
                "64-bit signless integer attribute",
            ),
            "bool" => (matches!(d, AttrData::Bool(_)), "bool attribute"),
            "string" | "symbol_name" => (
                matches!(d, AttrData::String { ty: None, .. }),
                "string attribute",
            ),
            "unit" => (matches!(d, AttrData::Unit), "unit attribute"),
            "array" => (matches!(d, AttrData::Array(_)), "array attribute"),
            "dense_i64_array" => (
                matches!(d, AttrData::DenseArray { element, .. } if signless(*element, 64)),
                "i64 dense array attribute",
            ),
            "dense_i32_array" => (
                matches!(d, AttrData::DenseArray { element, .. } if signless(*element, 32)),
                "i32 dense array attribute",
            ),
            "elements" => (
                matches!(
                    d,
                    AttrData::DenseElements { .. }
                        | AttrData::DenseResource { .. }
                        | AttrData::DenseStrings { .. }
                ),
                "constant vector/tensor attribute",
            ),
            // A text attribute kind (`#arith.fastmath<...>`): that attribute, of any value.
            of => match cd.attr(of) {
                Some((_, k)) if k.form == crate::dialect::codec::CodecForm::Text => (
                    matches!(d, AttrData::Opaque { text, .. } if k.text_body(m.str(*text)).is_some()),
                    k.summary.unwrap_or(k.mnemonic),
                ),
                _ => (true, ""),
            },
        };
        ensure!(
            ok,
            "ODS",
            "attribute '{}' failed to satisfy constraint: {summary}",
            a.name
        );
    }
    Ok(())
}

/// ODS's count traits of an op of a dialect of the spec: a group named `x*` is variadic.
fn codec_counts(m: &Module, op: OpId) -> Check {
    let Some((_, spec)) = crate::text::dialects::codec_op(m.op_name_str(op)) else {
        return Ok(());
    };
    let count = |names: &[&str]| {
        let variadic = |n: &&str| n.ends_with('*');
        (
            names.iter().filter(|n| !variadic(n)).count(),
            names.iter().any(variadic),
        )
    };
    super::counts::ods_counts(
        m,
        op,
        super::counts::OdsCounts {
            regions: count(spec.regions),
            results: count(spec.results),
            successors: count(spec.successors),
            operands: count(spec.operands),
        },
    )
}

/// ODS's `AttrSizedOperandSegments` and `AttrSizedResultSegments` of an op of a dialect of the
/// spec (an `operandSegmentSizes`/`resultSegmentSizes` attribute, one size per group of its
/// spec): as MLIR converts the property (a missing one is all zeros) and, with `check_sizes`, then
/// verifies it (the trait, which comes after the count traits).
fn codec_segments(m: &Module, op: OpId, check_sizes: bool) -> Check {
    let Some((_, spec)) = crate::text::dialects::codec_op(m.op_name_str(op)) else {
        return Ok(());
    };
    let groups = [
        (
            "operandSegmentSizes",
            "operand",
            spec.operands.len(),
            m.operands(op).len(),
        ),
        (
            "resultSegmentSizes",
            "result",
            spec.results.len(),
            m.num_results(op),
        ),
    ];
    for (name, what, groups, count) in groups {
        if !spec.attributes.iter().any(|a| a.name == name) {
            continue;
        }
        let sizes = match m.property(op, name) {
            None => Vec::new(),
            Some(a) => match crate::text::op_format::i32_array(m, m.attr_data(a)) {
                None => {
                    bail!(
                        "ODS",
                        "invalid properties: for `{name}`: expected DenseI32ArrayAttr"
                    )
                }
                Some(s) if s.len() != groups => {
                    bail!("ODS", "invalid properties: for `{name}`: size mismatch in attribute conversion: {} vs {groups}",
                            s.len())
                }
                Some(s) => s,
            },
        };
        if !check_sizes {
            continue;
        }
        if sizes.iter().any(|&x| x < 0) {
            bail!(
                "AttrSizedSegments",
                "'{name}' attribute cannot have negative elements"
            );
        }
        let total: i64 = sizes.iter().map(|&x| i64::from(x)).sum();
        ensure!(usize::try_from(total).ok() == Some(count), "AttrSizedSegments", "{what} count ({count}) does not match with the total size ({total}) specified in attribute '{name}'");
    }
    Ok(())
}

/// ODS's HasParent and ParentOneOf (spec `parents`): the op sits directly in one of them.
fn codec_parent(m: &Module, op: OpId, cd: &CodecDialect, spec: &CodecOp) -> Check {
    if !spec.parents.is_empty() {
        let parent = super::structure::parent_op(m, op).map(|p| m.op_name_str(p));
        let fits = parent.is_some_and(|p| {
            p.split_once('.')
                .is_some_and(|(d, short)| d == cd.name && spec.parents.contains(&short))
        });
        if !fits {
            let names: Vec<String> = spec
                .parents
                .iter()
                .map(|p| format!("{}.{p}", cd.name))
                .collect();
            let message = match &names[..] {
                [one] => format!("expects parent op '{one}'"),
                _ => format!("expects parent op to be one of '{}'", names.join(", ")),
            };
            return Err(fail("HasParent", message));
        }
    }
    Ok(())
}

/// An enum held as an integer (ODS's I64EnumAttr, arith's predicates: no attribute of the
/// dialect wraps it) holds one of its cases.
fn codec_enum_cases(m: &Module, op: OpId, cd: &CodecDialect, spec: &CodecOp) -> Check {
    for a in spec.attributes {
        let Some(e) = cd.enums.iter().find(|e| e.name == a.of) else {
            continue;
        };
        if cd.attr(e.name).is_some() {
            continue;
        }
        let Some(value) = m.property(op, a.name) else {
            continue;
        };
        let case = match m.attr_data(value) {
            AttrData::Integer { ty, value } => matches!(
                m.type_data(*ty),
                TypeData::Integer { width, signedness: Signedness::Signless } if *width == e.width
            )
            .then_some(*value),
            _ => None,
        };
        if !case.is_some_and(|v| e.cases.iter().any(|&(_, c)| i128::from(c) == v)) {
            let cases: Vec<String> = e.cases.iter().map(|(_, c)| c.to_string()).collect();
            bail!("ODS", "attribute '{}' failed to satisfy constraint: allowed {}-bit signless integer cases: {}",
                    a.name,
                    e.width,
                    cases.join(", "));
        }
    }
    Ok(())
}

/// ODS's `AllTypesMatch` and `TypesMatchWith` of an op of a dialect of the spec, where its
/// `infer:` entries say what they verify (arith's extended arithmetic and comparisons, ...).
fn codec_type_matches(m: &Module, op: OpId) -> Check {
    match crate::text::op_format::failed_type_match(m, op) {
        Some(what) => Err(fail("ODS", format!("failed to verify that {what}"))),
        None => Ok(()),
    }
}

/// ODS's `SingleBlockImplicitTerminator` of an op of a dialect of the spec (`implicit_terminator`),
/// as an op trait (with the op's other traits): each of its regions has a block with ops.
fn codec_single_block(m: &Module, op: OpId) -> Check {
    let Some((_, o)) = crate::text::dialects::codec_op(m.op_name_str(op)) else {
        return Ok(());
    };
    if o.implicit_terminator.is_none() {
        return Ok(());
    }
    super::structure::single_block(m, op)
}

/// ODS's `SingleBlockImplicitTerminator`, as a region trait (MLIR checks it on leaving the op,
/// after the ops inside): each of its non-empty regions ends with that terminator.
fn codec_implicit_terminator(m: &Module, op: OpId) -> Check {
    let Some((cd, o)) = crate::text::dialects::codec_op(m.op_name_str(op)) else {
        return Ok(());
    };
    let Some(t) = o.implicit_terminator else {
        return Ok(());
    };
    super::structure::regions_end_with(m, op, &format!("{}.{}", cd.name, t.op))
}

/// The ODS traits of an op of a dialect of the spec (spec `traits`), in the order the op
/// declares them: the type traits (`late` false), or `Elementwise` and
/// `SameOperandsAndResultShape`, which arith's casts check after their own shape rule.
fn codec_traits(m: &Module, op: OpId, late: bool) -> Check {
    let Some((_, o)) = crate::text::dialects::codec_op(m.op_name_str(op)) else {
        return Ok(());
    };
    for &t in o.traits {
        if matches!(t, "Elementwise" | "SameOperandsAndResultShape") != late {
            continue;
        }
        match t {
            "SameOperandsAndResultType" => same_types(m, op, true)?,
            "SameTypeOperands" => same_types(m, op, false)?,
            "CompatibleOperandsAndResultType" => {
                if let Some(why) = super::ops::incompatible_operands_and_result(m, op) {
                    bail!(
                        t,
                        "requires compatible types for all operands and results: {why}"
                    );
                }
                super::ops::elementwise::results_fit_most_specific_operand(m, op)?;
            }
            "SameOperandsAndResultElementType" => {
                super::types::same_operands_and_result_element(m, op, t)?
            }
            "CompatibleOperandsAndResultElementType" => {
                super::types::compatible_operands_and_result_element(m, op, t)?
            }
            "Elementwise" => super::types::elementwise(m, op)?,
            "SameOperandsAndResultShape" => super::types::same_operands_and_result_shape(m, op)?,
            _ => {}
        }
    }
    Ok(())
}

/// ODS's `SameTypeOperands`: one type for all operands, or `SameOperandsAndResultType`
/// (`with_results`), which MLIR's `verifySameOperandsAndResultType` checks against the first
/// result: the same element type, compatible shapes (`tensor<?xf32>` fits `tensor<2xf32>`) and
/// the same tensor encoding. The exact types are [`codec_inferred_results`]'.
fn same_types(m: &Module, op: OpId, with_results: bool) -> Check {
    if !with_results {
        let mut types = m.operands(op).iter().map(|&v| m.value_type(v));
        if let Some(first) = types.next() {
            if types.any(|t| t != first) {
                bail!(
                    "SameTypeOperands",
                    "requires all operands to have the same type"
                );
            }
        }
        return Ok(());
    }
    const RULE: &str = "SameOperandsAndResultType";
    super::types::at_least_one_operand_and_result(m, op, RULE)?;
    let Some(first) = m.results(op).next().map(|v| m.value_type(v)) else {
        return Ok(());
    };
    let (dims, element, encoding) = shaped_parts(m, first);
    let others = (m.results(op).skip(1).map(|v| m.value_type(v)))
        .chain(m.operands(op).iter().map(|&v| m.value_type(v)));
    for t in others {
        let (d, e, enc) = shaped_parts(m, t);
        // MLIR's verifyCompatibleShape: both shaped or neither; unranked fits any rank.
        let compatible = match (&dims, &d) {
            (None, None) => true,
            (Some(a), Some(b)) => super::types::compatible_shapes(*a, *b),
            _ => false,
        };
        if e != element || !compatible {
            bail!(RULE, "requires the same type for all operands and results");
        }
        if encoding.is_some() && enc != encoding {
            bail!(
                RULE,
                "requires the same encoding for all operands and results"
            );
        }
    }
    Ok(())
}

/// What MLIR's `verifyCompatibleShape` and `getElementTypeOrSelf` read of a type: its shape
/// (`None` for a type that is not shaped, `Some(None)` for an unranked one), element type and
/// tensor encoding.
#[allow(clippy::type_complexity)]
fn shaped_parts(m: &Module, t: Type) -> (Option<Option<&[Dim]>>, Type, Option<Attribute>) {
    match m.type_data(t) {
        TypeData::RankedTensor {
            shape,
            element,
            encoding,
        } => (Some(Some(shape)), *element, *encoding),
        TypeData::UnrankedTensor { element } => (Some(None), *element, None),
        _ => {
            if let Some((dims, e)) = crate::ir::vector_parts(m, t) {
                (Some(Some(dims)), e, None)
            } else if let Some((dims, e)) = crate::ir::memref_parts(m, t) {
                (Some(dims), e, None)
            } else {
                (None, t, None)
            }
        }
    }
}

/// The result types an op infers must be its own, exactly: MLIR verifies them through the
/// `InferTypeOpInterface` that ODS adds. Those of `SameOperandsAndResultType` (each result has
/// its first operand's type; the trait itself lets shapes differ where they are compatible),
/// and those the spec's `infer:` marks `inferred` (a constant's result has its value's type).
fn codec_inferred_results(m: &Module, op: OpId) -> Check {
    let Some((_, o)) = crate::text::dialects::codec_op(m.op_name_str(op)) else {
        return Ok(());
    };
    let inferred = if o.traits.contains(&"SameOperandsAndResultType") {
        let Some(&first) = m.operands(op).first() else {
            return Ok(());
        };
        let t = m.value_type(first);
        if m.results(op).all(|v| m.value_type(v) == t) {
            return Ok(());
        }
        vec![t; m.num_results(op)]
    } else {
        match crate::text::op_format::inferred_results_differ(m, op) {
            Some(types) => types,
            None => return Ok(()),
        }
    };
    Err(fail(
        "InferTypeOpInterface",
        format!(
            "inferred type(s) {} are incompatible with return type(s) of operation {}",
            super::types::types_str(m, &inferred),
            super::types::types_str(
                m,
                &m.results(op).map(|v| m.value_type(v)).collect::<Vec<_>>()
            )
        ),
    ))
}

/// No block of `regions` (of a registered op that needs terminators) is empty, as MLIR checks
/// on entering a block; that the last op is a terminator is checked on leaving it
/// ([`Step::Exit`]), after the ops in it.
fn no_empty_blocks(m: &crate::ir::Module, regions: &[Region]) -> Check {
    let empty = regions
        .iter()
        .flat_map(|&r| m.blocks(r))
        .any(|&b| m.block_ops(b).is_empty());
    if empty {
        bail!("IsTerminator", "empty block: expect at least a terminator");
    }
    Ok(())
}

/// Signatures longer than this are not remembered (their ops are verified each time).
const KEY_MAX: usize = 64;

/// Slots of [`VerifiedOps::recent`] (a power of two).
const RECENT: usize = 256;

/// The ops verified so far whose checks read only the op itself, by signature (what
/// [`op_signature`] streams). A lookup streams the op's signature once, into a scratch key and
/// its hash; the last key looked up is what [`VerifiedOps::insert`] stores.
struct VerifiedOps {
    /// Every key kept, back to back.
    keys: Vec<u32>,
    /// Hash -> the span of its key in `keys` (the first key of that hash).
    by_signature: FastMap<u64, (u32, u32)>,
    /// The last span found for each slot (by the hash's top bits): a lookup of a recent
    /// signature costs one compare instead of a probe of the map.
    recent: Box<[(u64, u32, u32)]>,
    /// The last key looked up: its first `len` ids (a fixed buffer: no growth check per id).
    key: [u32; KEY_MAX],
    len: usize,
    hash: u64,
}

impl Default for VerifiedOps {
    fn default() -> Self {
        VerifiedOps {
            keys: Vec::new(),
            by_signature: FastMap::default(),
            recent: vec![(0, 0, 0); RECENT].into_boxed_slice(),
            key: [0; KEY_MAX],
            len: 0,
            hash: 0,
        }
    }
}

impl VerifiedOps {
    /// Whether an op of this signature (and this `context`, when given) was verified.
    fn contains(&mut self, m: &Module, op: &OpParts, context: Option<u32>) -> bool {
        let (key, mut len, mut h) = (&mut self.key, 0usize, 0u64);
        let mut add = |x: u32| {
            if let Some(slot) = key.get_mut(len) {
                *slot = x;
            }
            len += 1;
            // FxHash's step: a collision only costs a comparison.
            h = (h.rotate_left(5) ^ u64::from(x)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        };
        op_signature(m, op, &mut add);
        if let Some(c) = context {
            add(c);
        }
        self.hash = h;
        self.len = len;
        let Some(key) = self.key.get(..len) else {
            return false;
        };
        let kept = |(start, n): (u32, u32)| self.keys.get(start as usize..(start + n) as usize);
        let slot = (h >> 56) as usize % RECENT;
        if let Some(&(rh, start, n)) = self.recent.get(slot) {
            if rh == h && kept((start, n)) == Some(key) {
                return true;
            }
        }
        match self.by_signature.get(&h) {
            Some(&span) if kept(span) == Some(key) => {
                if let Some(r) = self.recent.get_mut(slot) {
                    *r = (h, span.0, span.1);
                }
                true
            }
            _ => false,
        }
    }

    /// Remembers the op last looked up as verified (the first of its hash), unless its key was
    /// too long to keep.
    fn insert(&mut self) {
        let Some(key) = self.key.get(..self.len) else {
            return;
        };
        if let std::collections::hash_map::Entry::Vacant(e) = self.by_signature.entry(self.hash) {
            let start = self.keys.len() as u32;
            self.keys.extend_from_slice(key);
            e.insert((start, key.len() as u32));
        }
    }
}

/// What an op's checks read, as ids streamed to `f`: its name, operand and result types,
/// properties and discardable attributes (all interned, so equal ids are equal values).
#[inline]
fn op_signature(m: &Module, p: &OpParts, f: &mut impl FnMut(u32)) {
    f(p.name.0);
    // The five counts in one id, 6 bits each. A count of 64 or more is followed by as many
    // ids, longer than any key kept (`KEY_MAX`), so its truncation here cannot alias.
    let counts = [
        p.operands.len(),
        p.results.len(),
        p.properties.len(),
        p.attributes.len(),
        p.regions.len(),
    ];
    f(counts
        .iter()
        .fold(0u32, |acc, &c| acc << 6 | (c & 63) as u32));
    p.operands.iter().for_each(|&v| f(m.value_type(v).0));
    p.results.clone().for_each(|v| f(m.value_type(v).0));
    for a in p.properties.iter().chain(p.attributes) {
        f(a.name.0);
        f(a.value.0);
    }
    // Regions: the shape of each, its entry block's argument types, and each block's
    // terminator (name and operand types), which is what the region ops' checks read.
    for &r in p.regions {
        let blocks = m.blocks(r);
        f(blocks.len() as u32);
        for (i, &b) in blocks.iter().enumerate() {
            if i == 0 {
                let args = m.block_args(b);
                f(args.len() as u32);
                args.iter().for_each(|&a| f(m.value_type(a).0));
            }
            let ops = m.block_ops(b);
            f(ops.len() as u32);
            if let Some(&last) = ops.last() {
                f(m.op_name(last).0);
                let operands = m.operands(last);
                f(operands.len() as u32);
                operands.iter().for_each(|&v| f(m.value_type(v).0));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// A call is known by its signature only within one symbol table: the same call in a
    /// nested module resolves to that module's `@f` and is checked again (jaxlib refuses it
    /// there too, at 14:12).
    #[test]
    fn a_known_call_is_checked_again_in_another_symbol_table() {
        let src = r#"module @outer {
  func.func private @f(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = func.call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
  module @inner {
    func.func private @f(%a: tensor<3xf32>) -> tensor<3xf32> {
      return %a : tensor<3xf32>
    }
    func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = func.call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }
  }
}
"#;
        let e = crate::text::parse(src).unwrap_err();
        assert_eq!((e.line, e.column), (14, 12), "{e}");
        assert!(e.to_string().contains("operand type mismatch"), "{e}");
        // Without the nested module, the program is accepted.
        let cut = src.find("  module @inner").unwrap();
        assert!(crate::text::parse(&format!("{}}}\n", &src[..cut])).is_ok());
    }

    /// `SingleBlockImplicitTerminator` is a region trait: the op that ends the body is verified
    /// first, as jaxlib verifies it (an `scf.yield` renamed `scf.for` lacks its region).
    #[test]
    fn implicit_terminators_are_checked_on_leaving_the_op() {
        let src = r#"func.func @f(%a: i32, %b: i32, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "scf.for"(%a, %b, %b, %x) ({
  ^bb0(%i: i32, %y: tensor<2xf32>):
    %1 = "stablehlo.negate"(%y) : (tensor<2xf32>) -> tensor<2xf32>
    "scf.for"(%1) : (tensor<2xf32>) -> ()
  }) : (i32, i32, i32, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"#;
        let e = crate::text::parse(src).unwrap_err();
        assert_eq!(e.line, 5, "{e}");
        assert!(e.to_string().contains("requires one region"), "{e}");
        // Well-formed, the last op is still not the terminator the outer op expects.
        let src = src.replace(
            r#""scf.for"(%1) : (tensor<2xf32>) -> ()"#,
            r#""scf.reduce"(%1) ({ ^bb0(%p: tensor<2xf32>, %q: tensor<2xf32>): "scf.reduce.return"(%p) : (tensor<2xf32>) -> () }) : (tensor<2xf32>) -> ()"#,
        );
        let e = crate::text::parse(&src).unwrap_err();
        assert!(
            e.to_string().contains("expects parent op 'scf.parallel'"),
            "{e}"
        );
    }

    /// The StableHLO ops with `SingleBlockImplicitTerminator` (spec `traits`) check `SingleBlock`
    /// with their counts, before ODS's region constraint, and on leaving them that their regions
    /// end in `stablehlo.return`; `sort` has only the region constraint. jaxlib's messages.
    #[test]
    fn stablehlo_single_block_and_implicit_terminator() {
        let first = |src: &str| crate::text::parse(src).unwrap_err().to_string();
        let reduce = |body: &str| {
            format!(
                "func.func @m(%x: tensor<4xf32>, %i: tensor<f32>) -> tensor<f32> {{\n  %0 = \"stablehlo.reduce\"(%x, %i) ({{\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n{body}  }}) {{dimensions = array<i64: 0>}} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}}\n"
            )
        };
        let ret = "    \"stablehlo.return\"(%a) : (tensor<f32>) -> ()\n";
        assert!(crate::text::parse(&reduce(ret)).is_ok());
        let e = first(&reduce(&format!("{ret}  ^bb1:\n{ret}")));
        assert!(e.contains("expects region #0 to have 0 or 1 blocks"), "{e}");
        let e = first(&reduce("    \"sdy.return\"(%a) : (tensor<f32>) -> ()\n"));
        assert!(
            e.contains("expects regions to end with 'stablehlo.return', found 'sdy.return'"),
            "{e}"
        );
        let sort = "func.func @m(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = \"stablehlo.sort\"(%x) ({\n  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n    %c = \"stablehlo.compare\"(%a, %b) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>\n    \"stablehlo.return\"(%c) : (tensor<i1>) -> ()\n  ^bb1:\n    \"stablehlo.return\"(%c) : (tensor<i1>) -> ()\n  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n";
        let e = first(sort);
        assert!(
            e.contains(
                "region #0 ('comparator') failed to verify constraint: region with 1 blocks"
            ),
            "{e}"
        );
    }

    /// What MLIR checks on leaving an op comes after the ops inside: an unknown op of a
    /// dialect that takes none, and `scf.reduce`'s `verifyRegions`. A `func.func`'s count
    /// traits come before its other checks.
    #[test]
    fn exit_checks_come_after_the_ops_inside() {
        let first = |src: &str| {
            let e = crate::text::parse(src).unwrap_err();
            (e.line, e.to_string())
        };
        let unknown = "func.func @f(%c: i1) {\n  \"scf.no_such_op\"() ({\n    \"scf.condition\"(%c) : (i1) -> ()\n  }) : () -> ()\n  return\n}\n";
        let (line, e) = first(unknown);
        assert!(
            line == 3 && e.contains("expects parent op 'scf.while'"),
            "{e}"
        );
        let (line, e) = first(&unknown.replace("    \"scf.condition\"(%c) : (i1) -> ()\n", ""));
        assert!(
            line == 2 && e.contains("unregistered operation 'scf.no_such_op'"),
            "{e}"
        );
        let reduce = r#"func.func @f(%lb: index, %ub: index, %x: f32) -> f32 {
  %0 = "scf.parallel"(%lb, %ub, %lb, %x) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    "scf.reduce"(%x) ({
    ^bb0(%a: f32, %b: f32):
      "scf.parallel"() : () -> ()
    }) : (f32) -> ()
  }) : (index, index, index, f32) -> f32
  return %0 : f32
}
"#;
        let (line, e) = first(reduce);
        assert!(line == 6 && e.contains("requires one region"), "{e}");
        let func =
            "func.func @main() {\n  \"func.func\"() <{sym_name = \"g\"}> : () -> ()\n  return\n}\n";
        let (_, e) = first(func);
        assert!(e.contains("requires one region"), "{e}");
    }

    /// `reduce_precision` lists `Elementwise` before its type trait (spec `traits`, ODS's
    /// order), and jaxlib names it first; `negate` lists it after.
    #[test]
    fn traits_are_checked_in_their_listed_order() {
        let message = |op: &str, attrs: &str| {
            let src = format!(
                "func.func @f(%a: tensor<2x4xf32>) -> tensor<3x4xf32> {{\n  %0 = \"stablehlo.{op}\"(%a) {attrs}: (tensor<2x4xf32>) -> tensor<3x4xf32>\n  return %0 : tensor<3x4xf32>\n}}\n"
            );
            crate::text::parse(&src).unwrap_err().to_string()
        };
        let bits = "<{exponent_bits = 2 : i32, mantissa_bits = 3 : i32}> ";
        let e = message("reduce_precision", bits);
        assert!(
            e.contains("all non-scalar operands/results must have the same shape"),
            "{e}"
        );
        let e = message("negate", "");
        assert!(
            e.contains("requires compatible types for all operands and results"),
            "{e}"
        );
    }

    /// Symbol uses (a call's callee, a composite's decomposition, a `func.constant`) are
    /// checked on leaving their symbol table, after every other op in it, as jaxlib checks
    /// them: the broken op after them is reported first, and a nested module's uses before
    /// the outer module's other ops.
    #[test]
    fn symbol_uses_are_checked_on_leaving_the_symbol_table() {
        let first_error = |src: &str| {
            let e = crate::text::parse(src).unwrap_err();
            (e.line, e.column, e.to_string())
        };
        let add =
            "%1 = stablehlo.add %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>";
        for user in [
            "%0 = func.call @callee(%arg0) : (tensor<4xf32>) -> tensor<5xf32>",
            "%0 = stablehlo.composite \"my.op\" %arg0 {decomposition = @missing} : (tensor<4xf32>) -> tensor<4xf32>",
            "%0 = func.constant @missing : () -> ()",
        ] {
            let src = format!(
                "func.func @main(%arg0: tensor<4xf32>) {{\n  {user}\n  {add}\n  return\n}}\n\
                 func.func private @callee(%arg0: tensor<4xf32>) -> tensor<4xf32> {{\n  return %arg0 : tensor<4xf32>\n}}\n"
            );
            let (line, _, e) = first_error(&src);
            assert!(line == 3 && e.contains("requires the same shape"), "{user}: {e}");
            // Alone, the use is refused.
            let alone = src.replace(add, "");
            let (line, _, e) = first_error(&alone);
            assert_eq!(line, 2, "{user}: {e}");
        }
        let nested = format!(
            "module {{\n  module @inner {{\n    func.func @f() {{\n      %0 = func.constant @g : () -> ()\n      return\n    }}\n  }}\n  func.func @main(%arg0: tensor<4xf32>) {{\n    {add}\n    return\n  }}\n}}\n"
        );
        let (line, column, e) = first_error(&nested);
        assert_eq!((line, column), (4, 12), "{e}");
        assert!(e.contains("reference to undefined function 'g'"), "{e}");
    }

    /// Two reduces of one signature (and their `stablehlo.return`s): the second is known. A
    /// third of another signature is checked, and refused for its result type.
    #[test]
    fn known_ops_share_their_verdict_only_with_equal_signatures() {
        let program = |third: &str| {
            format!(
                "func.func @main(%x: tensor<4xf32>, %z: tensor<f32>) {{
    %a = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %b = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %c = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<{third}>
    return
  }}
"
            )
        };
        assert!(crate::text::parse(&program("f32")).is_ok());
        let e = crate::text::parse(&program("f64")).unwrap_err();
        assert_eq!(e.line, 4, "{e}");
    }
}
