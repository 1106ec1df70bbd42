//! Each StableHLO op's constraints: first what the spec declares (its ODS attribute types and
//! traits, from the generated dialect), then the op's own checks, one function per op or
//! family, in the family's file, named by the constraint ids of upstream's `docs/spec.md`
//! ((C1)…(Cn)). The shape functions return the inferred result types where the spec defines
//! them, so that builders can reuse them.

pub(crate) mod collectives;
pub(crate) mod contraction;
pub(crate) mod elementwise;
pub(crate) mod regions;
pub(crate) mod shapes;
mod window;

use super::types::OpView;
use super::{bail, fail, Check};
use crate::ir::{Attribute, FastSet, Module, OpId, Symbol, Type, TypeData};
use crate::vhlo::StablehloOp as K;

/// The ODS attribute checks an op passed: (op kind, attribute name, value). Ops repeat the
/// same attributes, so each distinct one is checked once per kind.
pub(crate) type OdsMemo = FastSet<(K, Symbol, Attribute)>;

/// One op: its declared constraints, then its own (`memo`: the ODS checks already passed).
/// MLIR's order: the count traits and `SingleBlock`, then the generated `verifyInvariantsImpl`
/// (required attributes, their constraints, operand and result types), then the other traits.
pub(crate) fn verify_op(v: OpView, memo: &mut OdsMemo) -> Check {
    arity(v)?;
    // A structural trait, with the counts (before ODS's region constraints).
    if v.kind.implicit_terminator() {
        super::structure::single_block(v.m, v.op)?;
    }
    required_attributes(v)?;
    declared_attributes(v, memo)?;
    declared(v)?;
    match family(v.kind) {
        Family::Elementwise => elementwise::verify(v),
        Family::Shapes => shapes::verify(v),
        Family::Contraction => contraction::verify(v),
        Family::Regions => regions::verify(v),
        Family::Collectives => collectives::verify(v),
        // `func.*` are checked with the structure; an op a later release adds has only its
        // declared constraints until it gets a function here.
        Family::Declared => Ok(()),
    }
}

/// ODS's required attributes (neither optional nor default-valued, spec `attributes:`): the
/// first missing one by name, as MLIR's generated verifier reports it, after the counts and
/// before any type.
fn required_attributes(v: OpView) -> Check {
    // `func.return` shares `stablehlo.return`'s kind, and has none of its own.
    if v.m.op_name_str(v.op) != v.kind.name() {
        return Ok(());
    }
    let names = v.kind.attribute_names();
    let missing = names
        .iter()
        .zip(v.kind.attribute_optional())
        .filter(|&(name, &optional)| !optional && !v.has(name))
        .map(|(name, _)| *name)
        .min();
    match missing {
        Some(name) => Err(fail("ODS", format!("requires attribute '{name}'"))),
        None => Ok(()),
    }
}

/// The ODS types the spec declares for the op's attributes.
fn declared_attributes(v: OpView, memo: &mut OdsMemo) -> Check {
    let m = v.m;
    for a in m.properties(v.op) {
        if memo.contains(&(v.kind, a.name, a.value)) {
            continue;
        }
        if let Some(e) = super::ods::violation_of(m, v.kind, a.name, a.value) {
            let place = match v
                .kind
                .attribute_names()
                .iter()
                .find(|&&n| n == m.str(a.name))
            {
                Some(&name) => super::Place::AttributeDict(name),
                None => super::Place::Op,
            };
            return Err(fail("ODS", e).at(place));
        }
        memo.insert((v.kind, a.name, a.value));
    }
    Ok(())
}

/// What the spec declares of the op's types: its type traits.
fn declared(v: OpView) -> Check {
    let m = v.m;
    super::ods_types::check(m, v.kind, v.op)?;
    single_block_regions(v)?;
    if v.kind.elementwise_first() {
        super::types::elementwise(v.m, v.op)?;
    }
    if v.kind.compatible_operands_and_result_type() {
        if let Some(problem) = incompatible_operands_and_result(m, v.op) {
            bail!(
                "CompatibleOperandsAndResultType",
                "requires compatible types for all operands and results: {problem}"
            );
        }
    }
    Ok(())
}

/// ODS's `SizedRegion<1>` (spec `region_types`): each such region has exactly one block. A
/// variadic group (case's `branches`) is the last region name.
fn single_block_regions(v: OpView) -> Check {
    let declared = v.kind.regions();
    for (i, &r) in v.m.regions(v.op).iter().enumerate() {
        let Some(&(name, single)) = declared.get(i).or(declared.last()) else {
            break;
        };
        let n = v.m.blocks(r).len();
        if single && n != 1 {
            bail!("ODS", "region #{i} ('{name}') failed to verify constraint: region with 1 blocks, but it has {n}");
        }
    }
    Ok(())
}

/// The first operand or result whose type is incompatible with the first operand's. Names are
/// made only for the message (this runs on every elementwise op).
pub(crate) fn incompatible_operands_and_result(m: &Module, op: OpId) -> Option<String> {
    // Most elementwise ops have one type throughout.
    let first = m
        .operands(op)
        .first()
        .map(|&v| m.value_type(v))
        .or_else(|| m.results(op).next().map(|v| m.value_type(v)))?;
    if m.operands(op).iter().all(|&v| m.value_type(v) == first)
        && m.results(op).all(|v| m.value_type(v) == first)
    {
        return None;
    }
    let mut types = m
        .operands(op)
        .iter()
        .map(|&v| m.value_type(v))
        .enumerate()
        .map(|(i, t)| ("operand", i, t))
        .chain(
            m.results(op)
                .map(|v| m.value_type(v))
                .enumerate()
                .map(|(i, t)| ("result", i, t)),
        );
    let (first_kind, _, first) = types.next()?;
    for (kind, i, t) in types {
        if let Some(why) = incompatible(m, first, t) {
            return Some(format!(
                "{kind} #{i} has type {} but {first_kind} #0 has type {} ({why})",
                crate::text::type_to_string(m, t),
                crate::text::type_to_string(m, first)
            ));
        }
    }
    None
}

/// Why `a` and `b` are not compatible as ODS's `isCompatibleForHloTypeInference` sees them, if
/// they are not. Quantized element types are left alone (their parameters may differ).
fn incompatible(m: &Module, a: Type, b: Type) -> Option<&'static str> {
    if a == b {
        return None;
    }
    let tensor = |t: Type| match m.type_data(t) {
        TypeData::RankedTensor { shape, element, .. } => Some((Some(shape.clone()), *element)),
        TypeData::UnrankedTensor { element } => Some((None, *element)),
        _ => None,
    };
    let (Some((sa, ea)), Some((sb, eb))) = (tensor(a), tensor(b)) else {
        // Tokens, tuples and other dialects' types: only equal types are compatible.
        return Some("different types");
    };
    let quantized =
        |e: Type| matches!(m.type_data(e), TypeData::Dialect(d) if m.str(d.dialect) == "quant");
    if ea != eb && !(quantized(ea) && quantized(eb)) {
        return Some("different element types");
    }
    if let (Some(sa), Some(sb)) = (sa, sb) {
        if sa.len() != sb.len() {
            return Some("different ranks");
        }
        let dynamic = |d: i64| d < 0;
        if sa
            .iter()
            .zip(sb.iter())
            .any(|(&x, &y)| x != y && !dynamic(x) && !dynamic(y))
        {
            return Some("different dimension sizes");
        }
    }
    None
}

/// ODS's counts: as many operands, results and regions as the op declares (any number for a
/// variadic group), and no successor. `func.*` ops share kinds with StableHLO ops and are
/// checked with the structure.
pub(crate) fn arity(v: OpView) -> Check {
    if !v.m.op_name_str(v.op).starts_with("stablehlo.") {
        return Ok(());
    }
    let op = v.kind.to_vhlo();
    let count = |groups: &[(&str, bool)]| {
        let fixed = groups.iter().filter(|g| !g.1).count();
        (fixed, groups.iter().any(|g| g.1))
    };
    super::counts::ods_counts(
        v.m,
        v.op,
        super::counts::OdsCounts {
            regions: count(op.region_groups()),
            results: count(op.result_groups()),
            successors: (0, false),
            operands: count(op.operand_groups()),
        },
    )
}

/// Ops whose own checks read only the op itself (name, operand and result types, attributes,
/// and its regions' argument and returned types; the ops inside are walked on their own): not
/// those that read an operand's defining constant, a symbol, or a parent. The verifier checks
/// one op of each signature of these (`walk.rs`, `VerifiedOps`).
pub(crate) fn reads_only_itself(k: K) -> bool {
    // Collectives read symbols (meshes, decompositions) and pair with each other.
    family(k) != Family::Collectives
        && !matches!(
            k,
            K::DynamicConv
                | K::DynamicGather
                | K::SetDimensionSize
                | K::DynamicPad
                | K::DynamicReshape
                | K::DynamicBroadcastInDim
                | K::DynamicIota
                | K::Call
                | K::Func
        )
}

/// The file that holds an op's own checks.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    Elementwise,
    Shapes,
    Contraction,
    Regions,
    Collectives,
    /// Only what the spec declares.
    Declared,
}

pub(crate) fn family(k: K) -> Family {
    match k {
        K::Abs
        | K::Add
        | K::And
        | K::Atan2
        | K::Cbrt
        | K::Ceil
        | K::Clamp
        | K::Compare
        | K::Complex
        | K::Convert
        | K::Cosine
        | K::CountLeadingZeros
        | K::Divide
        | K::Exponential
        | K::ExponentialMinusOne
        | K::Floor
        | K::Imag
        | K::IsFinite
        | K::Log
        | K::LogPlusOne
        | K::Logistic
        | K::Maximum
        | K::Minimum
        | K::Multiply
        | K::Negate
        | K::Not
        | K::Or
        | K::Popcnt
        | K::Power
        | K::Real
        | K::Remainder
        | K::RoundNearestAfz
        | K::RoundNearestEven
        | K::Rsqrt
        | K::Select
        | K::ShiftLeft
        | K::ShiftRightArithmetic
        | K::ShiftRightLogical
        | K::Sign
        | K::Sine
        | K::Sqrt
        | K::Subtract
        | K::Tan
        | K::Tanh
        | K::Xor
        | K::BitcastConvert
        | K::ReducePrecision
        | K::UniformQuantize
        | K::UniformDequantize => Family::Elementwise,
        K::Broadcast
        | K::BroadcastInDim
        | K::Concatenate
        | K::Constant
        | K::DynamicBroadcastInDim
        | K::DynamicIota
        | K::DynamicPad
        | K::DynamicReshape
        | K::DynamicSlice
        | K::DynamicUpdateSlice
        | K::GetDimensionSize
        | K::Iota
        | K::Pad
        | K::RealDynamicSlice
        | K::Reshape
        | K::Reverse
        | K::SetDimensionSize
        | K::Slice
        | K::Transpose
        | K::TorchIndexSelect
        | K::GetTupleElement
        | K::Tuple => Family::Shapes,
        K::Convolution
        | K::DynamicConv
        | K::Dot
        | K::DotGeneral
        | K::Einsum
        | K::UnaryEinsum
        | K::Fft
        | K::TriangularSolve
        | K::Cholesky
        | K::BatchNormGrad
        | K::BatchNormInference
        | K::BatchNormTraining => Family::Contraction,
        K::Reduce
        | K::ReduceWindow
        | K::SelectAndScatter
        | K::Scatter
        | K::Gather
        | K::DynamicGather
        | K::Sort
        | K::Map
        | K::While
        | K::If
        | K::Case
        | K::OptimizationBarrier => Family::Regions,
        K::AllGather
        | K::AllReduce
        | K::AllToAll
        | K::CollectiveBroadcast
        | K::CollectivePermute
        | K::CollectiveReduce
        | K::CrossReplicaSum
        | K::ReduceScatter
        | K::AsyncStart
        | K::AsyncDone
        | K::Send
        | K::Recv
        | K::Infeed
        | K::Outfeed
        | K::AfterAll
        | K::CreateToken
        | K::PartitionId
        | K::ReplicaId
        | K::Rng
        | K::RngBitGenerator
        | K::CustomCall
        | K::Composite => Family::Collectives,
        // `func.*` are checked with the structure; an op a later release adds has only its
        // declared constraints until it gets a function here.
        _ => Family::Declared,
    }
}
