//! CHLO's verifiers (openxla/stablehlo, `stablehlo/dialect/ChloOps.cpp` and the ODS traits of
//! `ChloOps.td`), for the ops of `spec/dialects/chlo.yaml`: the broadcasting ops' element types
//! and inferred operand types, constant_like's value, mulhi's operands, top_k's shape,
//! ragged_dot's dimension numbers (`checkRaggedDotConstraints`) and scan's body and dimension
//! (`ScanOp::verify`). The messages are upstream's.
//!
//! The binary broadcasting ops' results are checked against the shapes they infer
//! (`GetBroadcastType`); the unary ops' ODS operand and result types are the spec's
//! (`operand_types:` in spec/dialects/chlo.yaml), checked with the other dialects' ops
//! (`verify/ods_types.rs`).

use super::types::{
    compatible_dim, compatible_element_types, element_or_self, size_str, tensor_dims, tensor_str,
};
use crate::ir::{AttrData, Attribute, Dim, Module, OpId, Param, Type, TypeData, DYNAMIC};

const RULE: &str = "CHLO verifier (stablehlo/dialect/ChloOps.cpp, ChloOps.td traits)";

fn unranked(m: &Module, t: Type) -> bool {
    matches!(m.type_data(t), TypeData::UnrankedTensor { .. })
}

fn prop(m: &Module, op: OpId, name: &str) -> Option<Attribute> {
    m.property(op, name).or_else(|| m.attribute(op, name))
}

fn int_of(m: &Module, a: Attribute) -> Option<i64> {
    match m.attr_data(a) {
        AttrData::Integer { value, .. } => i64::try_from(*value).ok(),
        _ => None,
    }
}

/// A CHLO op's own checks (`ChloOps.cpp`'s verifiers and inferred types), run by the
/// verifier's walk at the op, after the ODS types and traits the spec declares.
pub(crate) fn verify_op(m: &Module, op: OpId) -> super::Check {
    let name = m.op_name_str(op);
    match name.strip_prefix("chlo.") {
        Some(short) => failed(name, RULE, check(m, op, short)),
        None => Ok(()),
    }
}

/// What MLIR checks of a CHLO op on leaving it, after the ops in its region: `chlo.scan`'s
/// inferred result types (its `InferTypeOpInterface` verifies with the regions).
pub(crate) fn verify_on_exit(m: &Module, op: OpId) -> super::Check {
    match m.op_name_str(op) {
        name @ "chlo.scan" => failed(name, "InferTypeOpInterface", scan_results(m, op)),
        _ => Ok(()),
    }
}

fn failed(name: &str, rule: &'static str, message: Option<String>) -> super::Check {
    let Some(message) = message else {
        return Ok(());
    };
    // The walk's diagnostics name the op themselves.
    let prefix = format!("'{name}' op ");
    let message = match message.strip_prefix(&prefix) {
        Some(rest) => rest.to_string(),
        None => message,
    };
    Err(super::fail(rule, message))
}

fn check(m: &Module, op: OpId, short: &str) -> Option<String> {
    let name = format!("chlo.{short}");
    let ins: Vec<Type> = m.operands(op).iter().map(|&v| m.value_type(v)).collect();
    let outs: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
    match short {
        "broadcast_complex" => {
            if let [l, r] = ins[..] {
                if element_or_self(m, l) != element_or_self(m, r) {
                    return Some(format!(
                        "'{name}' op failed to infer returned types: mismatched operand types"
                    ));
                }
            }
        }
        "broadcast_select" => {
            if let ([p, t, f], [out]) = (&ins[..], &outs[..]) {
                if element_or_self(m, *t) != element_or_self(m, *f) {
                    return Some(format!(
                        "'{name}' op failed to infer returned types: mismatched operand types"
                    ));
                }
                // Two numpy broadcasts: the branches', then with the predicate's (a shape that
                // cannot broadcast infers an unranked tensor, which any result fits).
                let inferred = numpy_broadcast(tensor_dims(m, *t)?, tensor_dims(m, *f)?)
                    .and_then(|a| numpy_broadcast(&a, tensor_dims(m, *p)?))?;
                let got = tensor_dims(m, *out)?;
                // Its `isCompatibleReturnTypes` compares shapes only.
                let fits = inferred.len() == got.len()
                    && inferred
                        .iter()
                        .zip(got)
                        .all(|(&a, &b)| compatible_dim(a, b));
                if !fits {
                    let element = crate::text::type_to_string(m, element_or_self(m, *t));
                    return Some(format!(
                        "'{name}' op inferred type(s) '{}' are incompatible with return type(s) of operation '{}'",
                        tensor_str(Some(&inferred), &element, None),
                        crate::text::type_to_string(m, *out)
                    ));
                }
            }
        }
        "constant_like" => {
            // `ConstantLikeOp::verify`: the value's own type is the result's element type (a
            // dense value's type is a tensor type, an untyped string's is none).
            let value = prop(m, op, "value")?;
            let vt = match m.attr_data(value) {
                AttrData::Integer { ty, .. }
                | AttrData::WideInteger { ty, .. }
                | AttrData::Float { ty, .. }
                | AttrData::DenseElements { ty, .. } => Some(*ty),
                AttrData::String { ty, .. } => *ty,
                _ => None,
            };
            if let Some(&r) = outs.first() {
                if vt != Some(element_or_self(m, r)) {
                    return Some(format!(
                        "'{name}' op value's type doesn't match element return type"
                    ));
                }
            }
        }
        "mulhi" => {
            for (i, &t) in ins.iter().enumerate() {
                let ok = matches!(m.type_data(element_or_self(m, t)), TypeData::Integer { width, .. } if [2, 4, 8, 16, 32, 64].contains(width));
                if !ok || tensor_dims(m, t).is_none() {
                    return Some(format!(
                        "'{name}' op operand #{i} must be ranked tensor of 2/4/8/16/32/64-bit integer values, but got '{}'",
                        crate::text::type_to_string(m, t)
                    ));
                }
            }
        }
        "top_k" => {
            let k = prop(m, op, "k").and_then(|a| int_of(m, a))?;
            let s = tensor_dims(m, *ins.first()?)?;
            let Some(&last) = s.last() else {
                return Some(format!(
                    "'{name}' op failed to infer returned types: operand's rank must be at least 1"
                ));
            };
            if last != DYNAMIC && last < k {
                return Some(format!(
                    "'{name}' op failed to infer returned types: operand's last dimension must be at least {k}"
                ));
            }
            // `TopKOp::inferReturnTypeComponents`: the operand's shape with `k` last, of its
            // element type and of i32.
            let mut sizes = s.to_vec();
            if let Some(l) = sizes.last_mut() {
                *l = k;
            }
            let values = element_or_self(m, *ins.first()?);
            let i32 = crate::ir::TypeData::Integer {
                width: 32,
                signedness: crate::ir::Signedness::Signless,
            };
            // An unranked result fits any shape.
            let fits = |t: Type, want: &dyn Fn(Type) -> bool| {
                tensor_dims(m, t).map_or(unranked(m, t), |d| {
                    d.len() == sizes.len()
                        && d.iter().zip(&sizes).all(|(&a, &b)| compatible_dim(a, b))
                }) && want(element_or_self(m, t))
            };
            let ok = match outs[..] {
                [v, i] => {
                    fits(v, &|e| compatible_element_types(m, values, e))
                        && fits(i, &|e| *m.type_data(e) == i32)
                }
                _ => false,
            };
            if !ok {
                let text = |e: &str| format!("'{}'", tensor_str(Some(&sizes), e, None));
                let got: Vec<String> = outs
                    .iter()
                    .map(|&t| format!("'{}'", crate::text::type_to_string(m, t)))
                    .collect();
                return Some(format!(
                    "'{name}' op inferred type(s) {}, {} are incompatible with return type(s) of operation {}",
                    text(&crate::text::type_to_string(m, values)),
                    text("i32"),
                    got.join(", ")
                ));
            }
        }
        "ragged_dot" => return ragged_dot(m, op, &ins),
        "scan" => return scan(m, op, &ins),
        _ => {}
    }
    // The binary broadcasting ops (ChloOps.td's CHLO_BroadcastBinaryElementwiseOp).
    let binary = short.starts_with("broadcast_") && short != "broadcast_select";
    if binary {
        return broadcast_result(m, op, &name, &ins, &outs);
    }
    None
}

/// A binary broadcasting op's result against the type it infers (`GetBroadcastType`): numpy
/// broadcasting of the two shapes, or the smaller one along `broadcast_dimensions`. A shape
/// that cannot broadcast infers an unranked tensor, which any result fits.
fn broadcast_result(
    m: &Module,
    op: OpId,
    name: &str,
    ins: &[Type],
    outs: &[Type],
) -> Option<String> {
    let (&[l, r], &[out]) = (ins, outs) else {
        return None;
    };
    let (x, y, got) = (tensor_dims(m, l)?, tensor_dims(m, r)?, tensor_dims(m, out)?);
    let dims = prop(m, op, "broadcast_dimensions").and_then(|a| super::types::int_list(m, a));
    let inferred = match dims {
        Some(dims) if x.len() != y.len() => {
            let (large, small) = if x.len() > y.len() { (x, y) } else { (y, x) };
            if dims.len() != small.len() {
                return None;
            }
            // jaxlib's `getBroadcastType` indexes the larger shape with each one, checking only
            // that it is below the rank: a negative one crashes it.
            if let Some(&bad) = dims.iter().find(|&&d| d < 0) {
                return Some(format!(
                    "'{name}' op broadcast_dimensions value {bad} is negative"
                ));
            }
            let filtered = dims
                .iter()
                .map(|&d| usize::try_from(d).ok().and_then(|d| large.get(d).copied()))
                .collect::<Option<Vec<Dim>>>()?;
            let broadcast = numpy_broadcast(small, &filtered)?;
            let mut out = large.to_vec();
            for (&d, &size) in dims.iter().zip(&broadcast) {
                out[d as usize] = size;
            }
            Some(out)
        }
        // Operands of one rank with broadcast dimensions other than the identity: jaxlib
        // infers an unranked type, which any result fits.
        Some(dims)
            if !dims
                .iter()
                .enumerate()
                .all(|(i, &d)| usize::try_from(d).is_ok_and(|d| d == i))
                || dims.len() != x.len() =>
        {
            None
        }
        _ => Some(numpy_broadcast(x, y)?),
    };
    // The element type inferred: i1 for a comparison, complex of the operands' for
    // broadcast_complex, the left operand's otherwise.
    let got_element = element_or_self(m, out);
    let element_fits = match (name, m.type_data(got_element)) {
        ("chlo.broadcast_compare", TypeData::Integer { width: 1, .. }) => true,
        ("chlo.broadcast_compare", _) => false,
        ("chlo.broadcast_complex", TypeData::Complex(e)) => *e == element_or_self(m, l),
        ("chlo.broadcast_complex", _) => false,
        _ => compatible_element_types(m, element_or_self(m, l), got_element),
    };
    let shape_fits = inferred.as_ref().is_none_or(|inferred| {
        inferred.len() == got.len()
            && inferred
                .iter()
                .zip(got)
                .all(|(&a, &b)| compatible_dim(a, b))
    });
    if element_fits && shape_fits {
        return None;
    }
    let element = match name {
        "chlo.broadcast_compare" => "i1".to_string(),
        "chlo.broadcast_complex" => {
            format!(
                "complex<{}>",
                crate::text::type_to_string(m, element_or_self(m, l))
            )
        }
        _ => crate::text::type_to_string(m, element_or_self(m, l)),
    };
    Some(format!(
        "'{name}' op inferred type(s) '{}' are incompatible with return type(s) of operation '{}'",
        tensor_str(inferred.as_deref(), &element, None),
        crate::text::type_to_string(m, out)
    ))
}

/// MLIR's `OpTrait::util::getBroadcastedShape`: the shapes aligned at their last dimension, a
/// size 1 taking the other's, a dynamic size the other's when that is above 1; `None` where two
/// static sizes differ and neither is 1.
fn numpy_broadcast(x: &[Dim], y: &[Dim]) -> Option<Vec<Dim>> {
    let mut out = if x.len() > y.len() {
        x.to_vec()
    } else {
        y.to_vec()
    };
    let n = out.len();
    for (k, (&a, &b)) in x.iter().rev().zip(y.iter().rev()).enumerate() {
        let size = if a == DYNAMIC || b == DYNAMIC {
            if a > 1 {
                a
            } else if b > 1 || a == 1 {
                b
            } else if b == 1 {
                a
            } else {
                DYNAMIC
            }
        } else if a == b || b == 1 {
            a
        } else if a == 1 {
            b
        } else {
            return None;
        };
        out[n - 1 - k] = size;
    }
    Some(out)
}

fn ragged_dot(m: &Module, op: OpId, ins: &[Type]) -> Option<String> {
    let [l, r, g] = ins else { return None };
    let (lhs, rhs, gs) = (
        tensor_dims(m, *l)?,
        tensor_dims(m, *r)?,
        tensor_dims(m, *g)?,
    );
    let dn = prop(m, op, "ragged_dot_dimension_numbers")?;
    let AttrData::Dialect(d) = m.attr_data(dn) else {
        return None;
    };
    let lists: Vec<&[i64]> = d
        .params
        .iter()
        .map(|p| match p {
            Param::Ints(v) => &v[..],
            _ => &[][..],
        })
        .collect();
    let [lb, rb, lc, rc, lr, rg] = lists[..] else {
        return None;
    };
    let at = |s: &[Dim], i: i64| usize::try_from(i).ok().and_then(|i| s.get(i).copied());
    // `checkDotGeneralConstraints`, as StableHLO's dot_general.
    let dot = super::ops::contraction::DotDims {
        lhs_batching: lb.to_vec(),
        rhs_batching: rb.to_vec(),
        lhs_contracting: lc.to_vec(),
        rhs_contracting: rc.to_vec(),
    };
    if let Err(f) = super::ops::contraction::dot_dimension_constraints(lhs, rhs, &dot) {
        return Some(f.message);
    }
    let [ragged] = lr[..] else {
        return Some("There must be exactly one ragged dimension in the lhs.".into());
    };
    // `hlo::checkDimInBounds`.
    let in_bounds = |d: i64, rank: usize, what: &str, of: &str| {
        (usize::try_from(d).is_ok_and(|d| d < rank))
            .then_some(())
            .ok_or_else(|| {
                format!("Expects {what} to be in range [0, {of}) i.e. [0, {rank}). got: {d}.")
            })
    };
    if let Err(e) = in_bounds(ragged, lhs.len(), "lhs_ragged_dim", "lhs_rank") {
        return Some(e);
    }
    let mut prefix: Vec<i64> = lb.to_vec();
    if let Some(i) = lb.iter().position(|&x| x == ragged) {
        prefix.truncate(i);
    } else if let Some(i) = lc.iter().position(|&x| x == ragged) {
        prefix.extend(&lc[..i]);
    } else {
        prefix.extend((0..ragged).filter(|i| !lb.contains(i) && !lc.contains(i)));
    }
    let mode_batch_or_contracting = lb.contains(&ragged) || lc.contains(&ragged);
    let expected: Vec<Dim> = prefix.iter().filter_map(|&i| at(lhs, i)).collect();
    let list = |s: &[Dim]| {
        s.iter()
            .map(|&d| size_str(d))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if gs.len() != 1 {
        if gs.len() != expected.len() + 1 {
            return Some(format!(
                "expected group_sizes to have rank {}, got {}",
                expected.len() + 1,
                gs.len()
            ));
        }
        if gs.get(..expected.len()) != Some(&expected[..]) {
            return Some(format!(
                "group_sizes is expected to have shape [{}, {}], got [{}]",
                list(&expected),
                size_str(*gs.last()?),
                list(gs)
            ));
        }
    }
    let groups = *gs.last()?;
    for &x in rg {
        if let Err(e) = in_bounds(x, rhs.len(), "rhs_group_dim", "rhs_rank") {
            return Some(e);
        }
    }
    for (other, what) in [
        (rb, "rhs_batching_dimensions"),
        (rc, "rhs_contracting_dimensions"),
    ] {
        if let Some(x) = rg.iter().find(|x| other.contains(x)) {
            return Some(format!(
                "has duplicated dimension from rhs_group_dimensions and {what}: {x}"
            ));
        }
    }
    if mode_batch_or_contracting {
        if !rg.is_empty() {
            return Some("There must be zero group dimensions in the rhs when the ragged dimension is batch or contracting.".into());
        }
    } else {
        let [gd] = rg[..] else {
            return Some("There must be exactly one group dimension in the rhs when the lhs ragged dimension is non-contracting.".into());
        };
        let size = at(rhs, gd)?;
        if !compatible_dim(groups, size) {
            return Some(format!(
                "rhs group dimension is expected to have size={}, got {}",
                size_str(groups),
                size_str(size)
            ));
        }
    }
    // `inferRaggedDotOutputDimensions` (the group dimension first when the ragged one
    // contracts, then batching, then the free dimensions), against the result.
    let free = |s: &[Dim], skip: &[&[i64]]| -> Vec<Dim> {
        (0..s.len())
            .filter(|&i| {
                !skip
                    .iter()
                    .any(|l| l.iter().any(|&x| usize::try_from(x) == Ok(i)))
            })
            .filter_map(|i| s.get(i).copied())
            .collect()
    };
    let mut inferred: Vec<Dim> = Vec::new();
    if lc.contains(&ragged) {
        inferred.push(groups);
    }
    inferred.extend(lb.iter().filter_map(|&i| at(lhs, i)));
    inferred.extend(free(lhs, &[lb, lc]));
    inferred.extend(free(rhs, &[rb, rc, rg]));
    let out = m.value_type(m.result(op, 0)?);
    // An unranked result has no shape to compare: MLIR reads one anyway (`getShape` of an
    // unranked type), and jaxlib refuses it with this message.
    let fits = tensor_dims(m, out).is_some_and(|got| {
        got.len() == inferred.len()
            && got
                .iter()
                .zip(&inferred)
                .all(|(&a, &b)| compatible_dim(a, b))
    });
    (!fits).then(|| {
        format!(
            "inferred shape '{}' is incompatible with return type of operation '{}'",
            super::types::dims_str(&inferred),
            crate::text::type_to_string(m, out)
        )
    })
}

/// `ScanOp::verify`: the body's arguments are the inputs sliced at the scan dimension, then the
/// inits; the scan dimension is in bounds and of the given size.
fn scan(m: &Module, op: OpId, ins: &[Type]) -> Option<String> {
    let dim = prop(m, op, "dimension").and_then(|a| int_of(m, a))?;
    let (n_in, _) = scan_segments(m, op)?;
    let body = *m.regions(op).first()?;
    let entry = *m.blocks(body).first()?;
    let args: Vec<Type> = m
        .block_args(entry)
        .iter()
        .map(|&v| m.value_type(v))
        .collect();
    if args.len() != ins.len() {
        return Some(format!(
            "'chlo.scan' op expects {} arguments in the body, but got {}",
            ins.len(),
            args.len()
        ));
    }
    let size = prop(m, op, "scan_dim_size").and_then(|a| int_of(m, a));
    for (i, (&t, &a)) in ins.iter().zip(&args).enumerate() {
        let expected: Option<Vec<Dim>> = if i < n_in {
            let s = tensor_dims(m, t)?;
            let d = usize::try_from(dim).ok().filter(|&d| d < s.len());
            let Some(d) = d else {
                return Some(format!(
                    "'chlo.scan' op scan dimension of operand {i} is out of bounds"
                ));
            };
            if let (Some(n), Some(&sd)) = (size, s.get(d)) {
                if !compatible_dim(sd, n) {
                    return Some(format!(
                        "'chlo.scan' op invalid scan dimension size of operand {i}"
                    ));
                }
            }
            let mut e = s.to_vec();
            e.remove(d);
            Some(e)
        } else {
            tensor_dims(m, t).map(<[Dim]>::to_vec)
        };
        let compatible = element_or_self(m, t) == element_or_self(m, a)
            && match (expected, tensor_dims(m, a)) {
                (Some(e), Some(b)) => {
                    e.len() == b.len() && e.iter().zip(b).all(|(&x, &y)| compatible_dim(x, y))
                }
                _ => true,
            };
        if !compatible {
            return Some(format!(
                "'chlo.scan' op operand and body argument {i} are incompatible"
            ));
        }
    }
    None
}

/// The scan's inputs (before its inits) and the number of its carries.
fn scan_segments(m: &Module, op: OpId) -> Option<(usize, usize)> {
    let seg = prop(m, op, "operandSegmentSizes")?;
    let AttrData::DenseArray { data, .. } = m.attr_data(seg) else {
        return None;
    };
    let n_in = usize::try_from(i32::from_le_bytes(data.get(0..4)?.try_into().ok()?)).ok()?;
    let carries = usize::try_from(i32::from_le_bytes(data.get(4..8)?.try_into().ok()?)).ok()?;
    Some((n_in, carries))
}

/// `ScanOp::inferReturnTypeComponents`: the body's returned types, each output's with the scan
/// dimension put back (of `scan_dim_size`, else the first input's size there), then the carries'.
fn scan_results(m: &Module, op: OpId) -> Option<String> {
    let dim = prop(m, op, "dimension").and_then(|a| int_of(m, a))?;
    let size = prop(m, op, "scan_dim_size").and_then(|a| int_of(m, a));
    let (n_in, carries) = scan_segments(m, op)?;
    let inputs: Vec<Type> = (m.operands(op).iter().take(n_in))
        .map(|&v| m.value_type(v))
        .collect();
    let body = *m.regions(op).first()?;
    let terminator = *m.block_ops(*m.blocks(body).first()?).last()?;
    let returned: Vec<Type> = (m.operands(terminator).iter())
        .map(|&v| m.value_type(v))
        .collect();
    let outputs = returned.len().checked_sub(carries)?;
    let at = usize::try_from(dim).ok()?;
    let dim_size = size.or_else(|| {
        inputs
            .first()
            .and_then(|&t| tensor_dims(m, t)?.get(at).copied())
    });
    let dim_size = dim_size.unwrap_or(DYNAMIC);
    let mut inferred: Vec<(Vec<Dim>, Type)> = Vec::with_capacity(returned.len());
    for (i, &t) in returned.iter().enumerate() {
        let mut s = tensor_dims(m, t)?.to_vec();
        if i < outputs {
            if at > s.len() {
                return None;
            }
            s.insert(at, dim_size);
        }
        inferred.push((s, element_or_self(m, t)));
    }
    let results: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
    // Its `isCompatibleReturnTypes` compares shapes only (`verifyCompatibleShapes`).
    let fits = inferred.len() == results.len()
        && inferred.iter().zip(&results).all(|((s, _), &r)| {
            tensor_dims(m, r).map_or(unranked(m, r), |rs| {
                rs.len() == s.len() && rs.iter().zip(s).all(|(&a, &b)| compatible_dim(a, b))
            })
        });
    if fits {
        return None;
    }
    let want: Vec<String> = inferred
        .iter()
        .map(|(s, e)| {
            format!(
                "'{}'",
                tensor_str(Some(s), &crate::text::type_to_string(m, *e), None)
            )
        })
        .collect();
    let got: Vec<String> = results
        .iter()
        .map(|&t| format!("'{}'", crate::text::type_to_string(m, t)))
        .collect();
    Some(format!(
        "'chlo.scan' op inferred type(s) {} are incompatible with return type(s) of operation {}",
        want.join(", "),
        got.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    /// The first refusal of a program, as the parser reports it.
    fn refusal(src: &str) -> String {
        crate::text::parse(src).expect_err("refused").to_string()
    }

    fn scan(dimension: i64, body_op: &str, result: &str) -> String {
        format!(
            "func.func @main(%a: tensor<4x2xf32>, %c: tensor<2xf32>) -> ({result}, tensor<2xf32>) {{
  %0:2 = \"chlo.scan\"(%a, %c) <{{dimension = {dimension} : i64, operandSegmentSizes = array<i32: 1, 1>, resultSegmentSizes = array<i32: 1, 1>}}> ({{
  ^bb0(%x: tensor<2xf32>, %y: tensor<2xf32>):
    {body_op}
    stablehlo.return %x, %y : tensor<2xf32>, tensor<2xf32>
  }}) : (tensor<4x2xf32>, tensor<2xf32>) -> ({result}, tensor<2xf32>)
  return %0#0, %0#1 : {result}, tensor<2xf32>
}}
"
        )
    }

    /// A scan's inferred result types are checked on leaving it, after its body's ops (as
    /// jaxlib: InferTypeOpInterface verifies with the regions); its dimension is not negative.
    #[test]
    fn scan_results_on_leaving_and_its_dimension() {
        let add =
            "%s = \"stablehlo.add\"(%x, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi32>";
        let e = refusal(&scan(0, add, "tensor<4x3xf32>"));
        assert!(
            e.contains("4:10: `stablehlo.add`: op requires the same element type"),
            "{e}"
        );
        let e = refusal(&scan(0, "", "tensor<4x3xf32>"));
        assert!(
            e.contains("2:10: `chlo.scan`: inferred type(s) 'tensor<4x2xf32>', 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>', 'tensor<2xf32>' (InferTypeOpInterface)"),
            "{e}"
        );
        let e = refusal(&scan(-1, "", "tensor<4x2xf32>"));
        assert!(
            e.contains("attribute 'dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative"),
            "{e}"
        );
    }
}
