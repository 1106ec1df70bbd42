//! Editing a module in place, as MLIR's rewriters do: use lists, replace-all-uses, erase,
//! insertion and moves of ops, and a symbol table of the module's functions.
//!
//! [`Editor`] holds the module mutably and keeps the use list of every value up to date under
//! its own edits (built once, in one walk, when the editor is made): a pass that replaces many
//! values stays linear. The module's own setters (`Module::set_operand`, …) do not maintain
//! use lists; an editor is the way to edit a module whose uses matter.
//!
//! An edit pass that renames every `lapack_*` custom-call target and replaces each
//! `stablehlo.tanh` with a `stablehlo.logistic` (to keep the example short):
//!
//! ```
//! use vhlo_core::ir::{AttrData, Editor, OperationState};
//! use vhlo_core::text::{self, PrintOptions};
//!
//! let mut m = text::parse(r#"func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
//!   %0 = stablehlo.tanh %a : tensor<4xf32>
//!   %1 = stablehlo.custom_call @lapack_sgeqrf(%0) : (tensor<4xf32>) -> tensor<4xf32>
//!   return %1 : tensor<4xf32>
//! }"#)?;
//! let mut ops = Vec::new();
//! m.walk(|op| ops.push(op));
//! let mut e = Editor::new(&mut m);
//! for op in ops {
//!     match e.module().op_name_str(op) {
//!         "stablehlo.custom_call" => {
//!             let m = e.module_mut();
//!             let target = m.get_attr(op, "call_target_name").expect("declared");
//!             let AttrData::String { value, .. } = m.attr_data(target) else { continue };
//!             if let Some(rest) = m.str(*value).strip_prefix("lapack_").map(str::to_string) {
//!                 let name = m.sym(&format!("mylib_{rest}"));
//!                 let new = m.attr(AttrData::String { value: name, ty: None });
//!                 m.set_attr(op, "call_target_name", new);
//!             }
//!         }
//!         "stablehlo.tanh" => {
//!             let (x, loc) = (e.module().operands(op)[0], e.module().op_location(op));
//!             let ty = e.module().value_type(x);
//!             let mut state = OperationState::new(e.module_mut().sym("stablehlo.logistic"), loc);
//!             state.operands.push(x);
//!             state.result_types.push(ty);
//!             let new = e.create_op(&state);
//!             e.insert_before(op, new)?;
//!             let value = e.module().result(new, 0).expect("one result");
//!             e.replace_op(op, &[value])?;
//!         }
//!         _ => {}
//!     }
//! }
//! vhlo_core::verify::verify(&m)?;
//! let printed = text::print(&m, PrintOptions::default());
//! assert!(printed.contains("stablehlo.logistic") && printed.contains("@mylib_sgeqrf"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::{Block, FastMap, Module, OpId, OperationState, Symbol, Value, ValueDef};
use crate::ir::{AttrData, Attribute};

/// One use of a value: operand `operand` of `op`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    pub op: OpId,
    pub operand: usize,
}

/// Why an edit was refused; nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EditError {
    /// The op's results (or a value defined inside it) are still used elsewhere.
    StillUsed {
        op: String,
        value: Value,
        user: String,
    },
    /// The op is not in a block (it was erased, or never inserted).
    Detached { op: String },
    /// The op is already in a block: detach it (or move it) instead.
    Attached { op: String },
    /// An op cannot be inserted next to itself or inside one of its own regions.
    IntoItself { op: String },
    /// A replacement list whose length differs from the op's results.
    ResultCount {
        op: String,
        results: usize,
        replacements: usize,
    },
}

impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditError::StillUsed { op, value, user } => write!(
                f,
                "cannot erase `{op}`: its value %{} is still used by `{user}`",
                value.0
            ),
            EditError::Detached { op } => write!(f, "`{op}` is not in a block"),
            EditError::Attached { op } => {
                write!(f, "`{op}` is already in a block; move it instead")
            }
            EditError::IntoItself { op } => {
                write!(f, "`{op}` cannot be placed next to or inside itself")
            }
            EditError::ResultCount {
                op,
                results,
                replacements,
            } => write!(
                f,
                "`{op}` has {results} result(s) but {replacements} replacement(s) were given"
            ),
        }
    }
}

impl std::error::Error for EditError {}

/// A module being edited, with every value's use list.
pub struct Editor<'m> {
    m: &'m mut Module,
    /// By value index: the uses of that value by ops in the module (attached or created here).
    uses: Vec<Vec<Use>>,
}

impl<'m> Editor<'m> {
    /// An editor of `m`, with the use lists of every op reachable from the top level.
    pub fn new(m: &'m mut Module) -> Self {
        let mut uses: Vec<Vec<Use>> = vec![Vec::new(); m.num_values()];
        m.walk(|op| {
            for (i, &v) in m.operands(op).iter().enumerate() {
                if let Some(list) = uses.get_mut(v.index()) {
                    list.push(Use { op, operand: i });
                }
            }
        });
        Editor { m, uses }
    }

    /// The module, to read (interning types and attributes goes through [`Editor::module_mut`]).
    pub fn module(&self) -> &Module {
        self.m
    }

    /// The module, to intern types, attributes and symbols, or to set attributes. Edits of
    /// operands or of the op tree through it are not seen by the use lists.
    pub fn module_mut(&mut self) -> &mut Module {
        self.m
    }

    /// The uses of `v`, in no particular order.
    pub fn uses(&self, v: Value) -> &[Use] {
        self.uses.get(v.index()).map_or(&[], Vec::as_slice)
    }

    /// The ops using `v` (each once).
    pub fn users(&self, v: Value) -> Vec<OpId> {
        let mut ops: Vec<OpId> = self.uses(v).iter().map(|u| u.op).collect();
        ops.sort_unstable();
        ops.dedup();
        ops
    }

    fn list_mut(&mut self, v: Value) -> &mut Vec<Use> {
        if self.uses.len() <= v.index() {
            self.uses.resize(v.index() + 1, Vec::new());
        }
        &mut self.uses[v.index()]
    }

    /// Sets operand `index` of `op` to `v`; `false` if the op has no such operand.
    pub fn set_operand(&mut self, op: OpId, index: usize, v: Value) -> bool {
        let Some(&old) = self.m.operands(op).get(index) else {
            return false;
        };
        if !self.m.set_operand(op, index, v) {
            return false;
        }
        let this = Use { op, operand: index };
        self.list_mut(old).retain(|u| *u != this);
        self.list_mut(v).push(this);
        true
    }

    /// Makes every use of `from` a use of `to` (MLIR's `replaceAllUsesWith`).
    pub fn replace_all_uses_with(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        let moved = std::mem::take(self.list_mut(from));
        for u in &moved {
            self.m.set_operand(u.op, u.operand, to);
        }
        self.list_mut(to).extend(moved);
    }

    /// Replaces the uses of `op`'s results with `values`, one for one, and erases `op`.
    pub fn replace_op(&mut self, op: OpId, values: &[Value]) -> Result<(), EditError> {
        let results: Vec<Value> = self.m.results(op).collect();
        if results.len() != values.len() {
            return Err(EditError::ResultCount {
                op: self.m.op_name_str(op).to_string(),
                results: results.len(),
                replacements: values.len(),
            });
        }
        for (&r, &v) in results.iter().zip(values) {
            self.replace_all_uses_with(r, v);
        }
        self.erase_op(op)
    }

    /// The ops of `op`'s regions, at any depth, with `op` itself first.
    fn subtree(&self, op: OpId) -> Vec<OpId> {
        let mut out = vec![op];
        let mut i = 0;
        while let Some(&o) = out.get(i) {
            for &r in self.m.regions(o) {
                for &b in self.m.blocks(r) {
                    out.extend_from_slice(self.m.block_ops(b));
                }
            }
            i += 1;
        }
        out
    }

    /// Erases `op` and the ops of its regions. Refused while a value they define is used
    /// outside them.
    pub fn erase_op(&mut self, op: OpId) -> Result<(), EditError> {
        if self.m.op_parent(op).is_none() && !self.m.top_ops().contains(&op) {
            return Err(EditError::Detached {
                op: self.m.op_name_str(op).to_string(),
            });
        }
        let inside = self.subtree(op);
        let set: super::FastSet<OpId> = inside.iter().copied().collect();
        for &o in &inside {
            let defined = self.m.results(o).chain(
                self.m
                    .regions(o)
                    .iter()
                    .flat_map(|&r| self.m.blocks(r))
                    .flat_map(|&b| self.m.block_args(b).iter().copied()),
            );
            for v in defined {
                if let Some(u) = self.uses(v).iter().find(|u| !set.contains(&u.op)) {
                    return Err(EditError::StillUsed {
                        op: self.m.op_name_str(op).to_string(),
                        value: v,
                        user: self.m.op_name_str(u.op).to_string(),
                    });
                }
            }
        }
        for &o in &inside {
            for (i, &v) in self.m.operands(o).to_vec().iter().enumerate() {
                let this = Use { op: o, operand: i };
                self.list_mut(v).retain(|u| *u != this);
            }
        }
        if self.m.op_parent(op).is_some() {
            self.m.detach_op(op);
        } else {
            self.m.remove_top(op);
        }
        Ok(())
    }

    /// Creates a detached op (insert it with [`Editor::insert_before`] or
    /// [`Editor::insert_after`]); its operands' uses are recorded.
    pub fn create_op(&mut self, state: &OperationState) -> OpId {
        let op = self.m.create_op_from(state);
        for (i, &v) in state.operands.iter().enumerate() {
            self.list_mut(v).push(Use { op, operand: i });
        }
        op
    }

    fn place(&self, op: OpId, anchor: OpId) -> Result<(Block, usize), EditError> {
        let name = |o: OpId| self.m.op_name_str(o).to_string();
        if op == anchor || self.subtree(op).contains(&anchor) {
            return Err(EditError::IntoItself { op: name(op) });
        }
        let block = self
            .m
            .op_parent(anchor)
            .ok_or_else(|| EditError::Detached { op: name(anchor) })?;
        let at = self
            .m
            .op_position(anchor)
            .ok_or_else(|| EditError::Detached { op: name(anchor) })?;
        Ok((block, at))
    }

    /// Inserts the detached `op` just before `anchor`.
    pub fn insert_before(&mut self, anchor: OpId, op: OpId) -> Result<(), EditError> {
        self.detached(op)?;
        let (block, at) = self.place(op, anchor)?;
        self.m.insert_op(block, at, op);
        Ok(())
    }

    /// Inserts the detached `op` just after `anchor`.
    pub fn insert_after(&mut self, anchor: OpId, op: OpId) -> Result<(), EditError> {
        self.detached(op)?;
        let (block, at) = self.place(op, anchor)?;
        self.m.insert_op(block, at + 1, op);
        Ok(())
    }

    /// Moves `op` (in a block) to just before `anchor`.
    pub fn move_before(&mut self, op: OpId, anchor: OpId) -> Result<(), EditError> {
        self.attached(op)?;
        self.place(op, anchor)?;
        self.m.detach_op(op);
        let (block, at) = self.place(op, anchor)?;
        self.m.insert_op(block, at, op);
        Ok(())
    }

    /// Moves `op` (in a block) to just after `anchor`.
    pub fn move_after(&mut self, op: OpId, anchor: OpId) -> Result<(), EditError> {
        self.attached(op)?;
        self.place(op, anchor)?;
        self.m.detach_op(op);
        let (block, at) = self.place(op, anchor)?;
        self.m.insert_op(block, at + 1, op);
        Ok(())
    }

    fn detached(&self, op: OpId) -> Result<(), EditError> {
        if self.m.op_parent(op).is_some() || self.m.top_ops().contains(&op) {
            return Err(EditError::Attached {
                op: self.m.op_name_str(op).to_string(),
            });
        }
        Ok(())
    }

    fn attached(&self, op: OpId) -> Result<(), EditError> {
        if self.m.op_parent(op).is_none() {
            return Err(EditError::Detached {
                op: self.m.op_name_str(op).to_string(),
            });
        }
        Ok(())
    }

    /// The op defining `v`, if it is an op result.
    pub fn defining_op(&self, v: Value) -> Option<OpId> {
        match self.m.value_def(v) {
            ValueDef::Result { op, .. } => Some(op),
            _ => None,
        }
    }
}

/// The symbols of a module (`sym_name` of its top-level ops and of the ops directly in a
/// top-level `builtin.module`), and the ops that refer to each (`func.call`'s callee, a
/// composite's decomposition, a custom call's called computations: any symbol reference among
/// an op's properties).
pub struct SymbolTable {
    defs: FastMap<Symbol, OpId>,
    refs: FastMap<Symbol, Vec<OpId>>,
}

impl SymbolTable {
    /// The table of `m`, in one walk.
    pub fn of(m: &Module) -> SymbolTable {
        let mut defs = FastMap::default();
        let top: Vec<OpId> = match m.top_ops() {
            [one] if m.op_name_str(*one) == "builtin.module" => m
                .regions(*one)
                .iter()
                .flat_map(|&r| m.blocks(r))
                .flat_map(|&b| m.block_ops(b).iter().copied())
                .collect(),
            ops => ops.to_vec(),
        };
        for op in top {
            if let Some(a) = m.property(op, "sym_name") {
                if let AttrData::String { value, .. } = m.attr_data(a) {
                    defs.entry(*value).or_insert(op);
                }
            }
        }
        let mut refs: FastMap<Symbol, Vec<OpId>> = FastMap::default();
        m.walk(|op| {
            for a in m.properties(op) {
                symbol_refs(m, a.value, &mut |s| {
                    let users = refs.entry(s).or_default();
                    if users.last() != Some(&op) {
                        users.push(op);
                    }
                });
            }
        });
        SymbolTable { defs, refs }
    }

    /// The op defining the symbol `name` (a function, a mesh, …).
    pub fn lookup(&self, m: &Module, name: &str) -> Option<OpId> {
        self.defs.get(&m.lookup_sym(name)?).copied()
    }

    /// The ops that refer to the symbol `name` (for a function: its callers).
    pub fn users(&self, m: &Module, name: &str) -> &[OpId] {
        m.lookup_sym(name)
            .and_then(|s| self.refs.get(&s))
            .map_or(&[], Vec::as_slice)
    }

    /// The defined symbols' names and ops, in no particular order.
    pub fn symbols<'a>(&'a self, m: &'a Module) -> impl Iterator<Item = (&'a str, OpId)> + 'a {
        self.defs.iter().map(move |(&s, &op)| (m.str(s), op))
    }
}

/// The root names of the symbol references in `a` (arrays and dictionaries looked into, with
/// a stack of its own: a module made by hand may nest deeper than the call stack allows).
fn symbol_refs(m: &Module, a: Attribute, f: &mut impl FnMut(Symbol)) {
    let mut stack = vec![a];
    while let Some(a) = stack.pop() {
        match m.attr_data(a) {
            AttrData::SymbolRef { root, .. } => f(*root),
            AttrData::Array(items) => stack.extend(items.iter().rev()),
            AttrData::Dictionary(entries) => stack.extend(entries.iter().rev().map(|&(_, v)| v)),
            _ => {}
        }
    }
}
