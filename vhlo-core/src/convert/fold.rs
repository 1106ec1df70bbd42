//! The folds libStablehlo makes of other dialects' ops while it writes a program: MLIR's dialect
//! conversion folds an op before it converts it. Made here are the folds that forward an
//! operand (`arith.addi %x, 0` is `%x`, an identity `tensor.cast` is its source): libStablehlo
//! never writes such an op, and jaxlib 0.10.2 crashes reading an artifact that keeps one
//! (docs/verification.md, "Other dialects in artifacts"). The op is replaced by the operand and
//! erased; what it used stays, as libStablehlo leaves it. Folds that make a new constant are not
//! made: jaxlib reads those ops kept.

use crate::elements::DenseElements;
use crate::ir::{AttrData, Editor, Module, OpId, TypeData, Value, ValueDef};

/// A constant operand's value, when every element is the same.
#[derive(Clone, Copy, PartialEq)]
enum Splat {
    Int(i128),
    Float(f64),
}

/// The value of `v` when a constant-like op (`arith.constant`, `stablehlo.constant`) defines
/// it as one repeated scalar.
fn splat(m: &Module, v: Value) -> Option<Splat> {
    let ValueDef::Result { op, .. } = m.value_def(v) else {
        return None;
    };
    if !matches!(m.op_name_str(op), "arith.constant" | "stablehlo.constant") {
        return None;
    }
    let a = m.property(op, "value")?;
    match m.attr_data(a) {
        AttrData::Integer { value, .. } => Some(Splat::Int(*value)),
        AttrData::Float { ty, bits } => match m.type_data(*ty) {
            TypeData::Float(kind) => crate::float::to_f64(*kind, *bits).map(Splat::Float),
            _ => None,
        },
        _ => {
            let d = DenseElements::of(m, a)?;
            let first = d.int(0).map(Splat::Int).or(d.float(0).map(Splat::Float))?;
            let all = (0..d.len())
                .all(|i| d.int(i).map(Splat::Int).or(d.float(i).map(Splat::Float)) == Some(first));
            all.then_some(first)
        }
    }
}

/// Whether `c` has every bit of `v`'s integer element type set.
fn all_ones(m: &Module, v: Value, c: Splat) -> bool {
    let t = m.value_type(v);
    let element = match m.type_data(t) {
        TypeData::RankedTensor { element, .. } | TypeData::UnrankedTensor { element } => *element,
        _ => t,
    };
    let width = match m.type_data(element) {
        TypeData::Integer { width, .. } => *width,
        TypeData::Index => 64,
        _ => return false,
    };
    let Splat::Int(n) = c else {
        return false;
    };
    let mask = if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    };
    (n as u128) & mask == mask
}

/// The operand `op` folds to, if it is one of the forwarding folds of MLIR's folders.
fn forwarded(m: &Module, op: OpId) -> Option<Value> {
    // Most ops are StableHLO's: one prefix test each.
    let name = m.op_name_str(op);
    if !["arith.", "tensor.", "shape."]
        .iter()
        .any(|p| name.starts_with(p))
    {
        return None;
    }
    let operands = m.operands(op);
    let result_type = m.result(op, 0).map(|r| m.value_type(r))?;
    let same_type = |v: Value| m.value_type(v) == result_type;
    match (m.op_name_str(op), operands) {
        // Identity casts (each op's `fold`).
        ("tensor.cast" | "tensor.bitcast" | "arith.bitcast", &[x]) if same_type(x) => Some(x),
        ("shape.size_to_index", &[x])
            if matches!(m.type_data(m.value_type(x)), TypeData::Index) =>
        {
            Some(x)
        }
        // A neutral right operand.
        (name, &[x, y]) if same_type(x) => {
            let c = splat(m, y);
            let neutral = match name {
                "arith.addi" | "arith.subi" | "arith.ori" | "arith.xori" | "arith.shli"
                | "arith.shrui" | "arith.shrsi" => c == Some(Splat::Int(0)),
                "arith.muli" | "arith.divui" | "arith.divsi" => c == Some(Splat::Int(1)),
                "arith.andi" => x == y || c.is_some_and(|c| all_ones(m, x, c)),
                "arith.addf" => {
                    matches!(c, Some(Splat::Float(f)) if f == 0.0 && f.is_sign_negative())
                }
                "arith.subf" => {
                    matches!(c, Some(Splat::Float(f)) if f == 0.0 && f.is_sign_positive())
                }
                "arith.mulf" | "arith.divf" => c == Some(Splat::Float(1.0)),
                // Idempotent: `op(x, x)` is `x`.
                "arith.maxsi" | "arith.maxui" | "arith.minsi" | "arith.minui"
                | "arith.maximumf" | "arith.minimumf" | "arith.maxnumf" | "arith.minnumf" => x == y,
                _ => false,
            };
            (neutral || (name == "arith.ori" && x == y)).then_some(x)
        }
        // `select(c, x, x)` is `x`.
        ("arith.select", &[_, x, y]) if x == y => Some(x),
        // `negf(negf(x))` is `x`.
        ("arith.negf", &[y]) => match m.value_def(y) {
            ValueDef::Result { op: inner, .. } if m.op_name_str(inner) == "arith.negf" => {
                m.operands(inner).first().copied().filter(|&x| same_type(x))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Folds the ops of other dialects that forward an operand, in program order; how many.
pub(crate) fn fold_forwarding_ops(m: &mut Module) -> usize {
    let mut ops = Vec::new();
    m.walk(|op| ops.push(op));
    let foldable = ops
        .iter()
        .any(|&op| m.num_results(op) == 1 && forwarded(m, op).is_some());
    if !foldable {
        return 0;
    }
    let mut editor = Editor::new(m);
    let mut folded = 0;
    for op in ops {
        let m = editor.module();
        if m.num_results(op) != 1 {
            continue;
        }
        let Some(to) = forwarded(m, op) else {
            continue;
        };
        if editor.replace_op(op, &[to]).is_ok() {
            folded += 1;
        }
    }
    folded
}
