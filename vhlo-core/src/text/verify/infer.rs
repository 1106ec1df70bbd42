//! Result types from the verifier's shape functions (MLIR's `InferTypeOpInterface`), for
//! builders: an op made without results gets the types its operands and attributes imply.
//! The same functions check the results of every op the verifier sees (`ops/`), so a built op
//! passes that check by construction.

use super::ops::{collectives, contraction, elementwise, regions, shapes};
use super::structure::SymbolTable;
use super::types::{Inferred, OpView};
use super::{diag, Diagnostic};
use crate::ir::{Module, OpId, Type, TypeData};
use crate::vhlo::StablehloOp as K;

/// The result types of `op` (a StableHLO op; its own results, if any, are not read), or a
/// diagnostic naming the op and why they cannot be inferred.
pub fn infer_result_types(m: &mut Module, op: OpId) -> Result<Vec<Type>, Diagnostic> {
    let refuse =
        |m: &Module, what: String, rule: &str| Err(diag(m, op, what, None, rule.to_string()));
    let name = m.op_name_str(op).to_string();
    let Some(kind) = K::from_name(&name) else {
        return refuse(
            m,
            format!("`{name}` is not a StableHLO op"),
            "InferTypeOpInterface",
        );
    };
    let symbols = SymbolTable::default();
    let inferred = {
        let v = OpView {
            m,
            op,
            kind,
            symbols: &symbols,
        };
        infer(&v).map_err(|f| diag(m, op, f.message, None, f.rule))?
    };
    match inferred {
        Some(Shapes::Types(t)) => Ok(t),
        Some(Shapes::Components(list)) => list.into_iter().map(|i| to_type(m, op, i)).collect(),
        Some(Shapes::Predicate(t)) => {
            let element = m.ty(TypeData::Integer {
                width: 1,
                signedness: crate::ir::Signedness::Signless,
            });
            let dims = match m.type_data(t) {
                TypeData::RankedTensor { shape, .. } => Some(shape.to_vec()),
                _ => None,
            };
            to_type(
                m,
                op,
                Inferred {
                    dims,
                    element,
                    bounds: None,
                },
            )
            .map(|t| vec![t])
        }
        None => refuse(
            m,
            format!("`{name}` has no shape function here: give its result types"),
            "InferTypeOpInterface",
        ),
    }
}

enum Shapes {
    Types(Vec<Type>),
    Components(Vec<Inferred>),
    /// The shape of this type with `i1` elements (`compare`, `is_finite`).
    Predicate(Type),
}

fn infer(v: &OpView) -> Result<Option<Shapes>, super::Failure> {
    use Shapes::{Components as C, Types as T};
    let operand_type = |i: usize| v.operands().get(i).map(|&x| v.m.value_type(x));
    if v.kind.compatible_operands_and_result_type() {
        // Elementwise: the result has the operands' type (`select` and `clamp` the type of
        // their second operand, the first of `select` being the predicate).
        let i = usize::from(matches!(v.kind, K::Select | K::Clamp));
        return Ok(operand_type(i).map(|t| T(vec![t])));
    }
    Ok(Some(match v.kind {
        K::Constant => match v
            .m
            .property(v.op, "value")
            .and_then(|a| super::types::elements_type(v.m, a))
        {
            Some(t) => T(vec![t]),
            None => return Ok(None),
        },
        K::Compare | K::IsFinite => match operand_type(0) {
            Some(t) => Shapes::Predicate(t),
            None => return Ok(None),
        },
        K::Add => C(elementwise::infer_add(v)?),
        K::DotGeneral => C(contraction::infer_dot_general(v)?),
        K::Dot => C(contraction::infer_dot(v)?),
        K::Convolution => C(contraction::infer_convolution(v)?),
        K::Fft => C(contraction::infer_fft(v)?),
        K::Cholesky => C(contraction::infer_cholesky(v)?),
        K::TriangularSolve => C(contraction::infer_triangular_solve(v)?),
        K::Broadcast => C(shapes::infer_broadcast(v)?),
        K::Concatenate => C(shapes::infer_concatenate(v)?),
        K::DynamicSlice => C(shapes::infer_dynamic_slice(v)?),
        K::DynamicUpdateSlice => C(shapes::infer_dynamic_update_slice(v)?),
        K::GetDimensionSize => C(shapes::infer_get_dimension_size(v)?),
        K::Pad => C(shapes::infer_pad(v)?),
        K::Reverse => C(shapes::infer_reverse(v)?),
        K::Slice => C(shapes::infer_slice(v)?),
        K::Transpose => C(shapes::infer_transpose(v)?),
        K::Reduce => C(regions::infer_reduce(v)?),
        K::ReduceWindow => C(regions::infer_reduce_window(v)?),
        K::Gather => C(regions::infer_gather(v)?),
        K::Scatter => C(regions::infer_scatter(v)?),
        K::Map => C(regions::infer_map(v)?),
        K::While => T(regions::infer_while(v)),
        K::AllReduce => C(collectives::infer_all_reduce(v)?),
        K::AllToAll => C(collectives::infer_all_to_all(v)?),
        K::Rng => C(collectives::infer_rng(v)?),
        _ => return Ok(None),
    }))
}

/// A shape function's result as a type: a ranked tensor (or unranked) of its element type.
fn to_type(m: &mut Module, op: OpId, i: Inferred) -> Result<Type, Diagnostic> {
    if i.bounds
        .as_ref()
        .is_some_and(|b| b.iter().any(|&x| x != crate::ir::DYNAMIC))
    {
        return Err(diag(
            m,
            op,
            "the inferred result is bounded: give its result type".to_string(),
            None,
            "InferTypeOpInterface",
        ));
    }
    Ok(match i.dims {
        Some(dims) => m.ty(TypeData::RankedTensor {
            shape: dims.into_boxed_slice(),
            element: i.element,
            encoding: None,
        }),
        None => m.ty(TypeData::UnrankedTensor { element: i.element }),
    })
}
