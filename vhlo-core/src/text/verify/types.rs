//! What the op checks read: an op's operands, results, attributes and regions
//! ([`OpView`]), tensor types ([`Shaped`]) and element types, and HLO's notion of compatible
//! types (`hlo::isCompatibleForHloTypeInference`).

use crate::ir::{
    AttrData, Attribute, Block, Dim, FloatKind, Module, OpId, Param, Region, Signedness, Type,
    TypeData, Value, ValueDef, DYNAMIC,
};
use crate::text::{attribute_to_string, type_to_string};
use crate::vhlo::StablehloOp;

use super::structure::SymbolTable;
use super::{ensure, Check};

/// One op under verification.
#[derive(Clone, Copy)]
pub(crate) struct OpView<'m> {
    pub m: &'m Module,
    pub op: OpId,
    pub kind: StablehloOp,
    pub symbols: &'m SymbolTable,
}

impl<'m> OpView<'m> {
    pub fn operands(&self) -> &'m [Value] {
        self.m.operands(self.op)
    }
    pub fn num_operands(&self) -> usize {
        self.operands().len()
    }
    pub fn operand_types(&self) -> Vec<Type> {
        self.operands()
            .iter()
            .map(|&v| self.m.value_type(v))
            .collect()
    }
    /// The type of operand `i` (`None` past the end).
    pub fn operand_type(&self, i: usize) -> Option<Type> {
        self.operands().get(i).map(|&v| self.m.value_type(v))
    }
    pub fn num_results(&self) -> usize {
        self.m.num_results(self.op)
    }
    pub fn result_types(&self) -> Vec<Type> {
        self.m
            .results(self.op)
            .map(|v| self.m.value_type(v))
            .collect()
    }
    /// The type of result `i` (`None` past the end).
    pub fn result_type(&self, i: usize) -> Option<Type> {
        self.m.result(self.op, i).map(|v| self.m.value_type(v))
    }

    /// The attribute `name`, whether kept as a property or a discardable attribute.
    pub fn attr(&self, name: &str) -> Option<Attribute> {
        self.m
            .property(self.op, name)
            .or_else(|| self.m.attribute(self.op, name))
    }
    pub fn has(&self, name: &str) -> bool {
        self.attr(name).is_some()
    }
    /// The integers of attribute `name`: a dense array, dense integer elements, or an array
    /// of integer attributes.
    pub fn i64s(&self, name: &str) -> Option<Vec<i64>> {
        self.attr(name).and_then(|a| int_list(self.m, a))
    }
    /// The booleans of attribute `name` (`array<i1: ...>`, or an array of `true`/`false`).
    pub fn bools(&self, name: &str) -> Option<Vec<bool>> {
        let a = self.attr(name)?;
        match self.m.attr_data(a) {
            AttrData::DenseArray { data, .. } => Some(data.iter().map(|&b| b != 0).collect()),
            AttrData::Array(xs) => xs
                .iter()
                .map(|&x| match self.m.attr_data(x) {
                    AttrData::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect(),
            _ => int_list(self.m, a).map(|v| v.into_iter().map(|x| x != 0).collect()),
        }
    }
    /// An integer attribute's value (absent, or out of the range of i64: `None`).
    pub fn int(&self, name: &str) -> Option<i64> {
        match self.m.attr_data(self.attr(name)?) {
            AttrData::Integer { value, .. } => i64::try_from(*value).ok(),
            _ => None,
        }
    }
    /// The case of an enum attribute (`#stablehlo<comparison_direction EQ>`), by name.
    pub fn enum_case(&self, name: &str) -> Option<&'static str> {
        enum_case(self.m, self.attr(name)?)
    }
    /// Field `field` of the struct attribute `name` (`#stablehlo.dot<...>` and the like).
    pub fn field(&self, name: &str, field: &str) -> Option<&'m Param> {
        struct_field(self.m, self.attr(name)?, field)
    }
    /// A list-of-integers field (empty when left out).
    pub fn field_i64s(&self, name: &str, field: &str) -> Vec<i64> {
        match self.field(name, field) {
            Some(Param::Ints(v)) => v.to_vec(),
            _ => Vec::new(),
        }
    }
    /// An integer field.
    pub fn field_int(&self, name: &str, field: &str) -> Option<i64> {
        match self.field(name, field)? {
            Param::Int(v) => Some(*v),
            Param::UInt(v) => i64::try_from(*v).ok(),
            _ => None,
        }
    }

    pub fn regions(&self) -> &'m [Region] {
        self.m.regions(self.op)
    }
    /// The first block of region `i`.
    pub fn region_block(&self, i: usize) -> Option<Block> {
        let r = *self.regions().get(i)?;
        self.m.blocks(r).first().copied()
    }
    /// The argument types of the first block of region `i`.
    pub fn region_arg_types(&self, i: usize) -> Vec<Type> {
        self.region_block(i)
            .map(|b| {
                self.m
                    .block_args(b)
                    .iter()
                    .map(|&a| self.m.value_type(a))
                    .collect()
            })
            .unwrap_or_default()
    }
    /// The terminator of region `i`'s first block and its operand types.
    pub fn region_return(&self, i: usize) -> Option<(OpId, Vec<Type>)> {
        let b = self.region_block(i)?;
        let &last = self.m.block_ops(b).last()?;
        let types = self
            .m
            .operands(last)
            .iter()
            .map(|&v| self.m.value_type(v))
            .collect();
        Some((last, types))
    }

    /// [`OpView::region_return`] when the block's last op may be its terminator (MLIR's
    /// `mightHaveTerminator`: an op with `IsTerminator`, or one MLIR does not know).
    pub fn region_terminator(&self, i: usize) -> Option<(OpId, Vec<Type>)> {
        let r = self.region_return(i)?;
        might_be_terminator(self.m, r.0).then_some(r)
    }

    /// A type as MLIR prints it, for messages.
    pub fn t(&self, t: Type) -> String {
        type_to_string(self.m, t)
    }
    /// An attribute as MLIR prints it, for messages.
    pub fn a(&self, a: Attribute) -> String {
        attribute_to_string(self.m, a)
    }
    pub fn shaped(&self, t: Type) -> Option<Shaped<'m>> {
        shaped(self.m, t)
    }
}

/// The integers of an attribute: a dense array, dense integer elements (in row-major order),
/// an array of integer attributes, or one integer.
pub(crate) fn int_list(m: &Module, a: Attribute) -> Option<Vec<i64>> {
    match m.attr_data(a) {
        AttrData::DenseArray { element, data } => {
            let width = match m.type_data(*element) {
                TypeData::Integer { width, .. } => *width,
                _ => return None,
            };
            let bytes = (width as usize).div_ceil(8).max(1);
            Some(
                data.chunks(bytes)
                    .map(|c| le_int(c, width, true) as i64)
                    .collect(),
            )
        }
        AttrData::DenseElements { .. } => dense_ints(m, a).map(|(_, v)| v),
        AttrData::Array(xs) => xs
            .iter()
            .map(|&x| match m.attr_data(x) {
                AttrData::Integer { value, .. } => i64::try_from(*value).ok(),
                _ => None,
            })
            .collect(),
        AttrData::Integer { value, .. } => i64::try_from(*value).ok().map(|v| vec![v]),
        _ => None,
    }
}

/// The shape and the values (splats expanded) of dense integer elements.
pub(crate) fn dense_ints(m: &Module, a: Attribute) -> Option<(Vec<Dim>, Vec<i64>)> {
    let (dims, splat, mut values) = dense_ints_stored(m, a)?;
    let count = num_elements(&dims)?;
    if splat {
        let v = values.first().copied().unwrap_or(0);
        // Bounded by the caller's shapes; a huge splat is not expanded.
        if count > 1 << 24 {
            return None;
        }
        values = vec![v; count as usize];
    }
    Some((dims, values))
}

/// Dense integer elements as stored: the shape, whether they are a splat (one value stored),
/// and the stored values.
pub(crate) fn dense_ints_stored(m: &Module, a: Attribute) -> Option<(Vec<Dim>, bool, Vec<i64>)> {
    let AttrData::DenseElements { ty, data, splat } = m.attr_data(a) else {
        return None;
    };
    // Vectors too (cf.switch's case values).
    let (dims, element) = match (shaped(m, *ty), crate::ir::vector_parts(m, *ty)) {
        (Some(s), _) => (s.dims?.to_vec(), s.element),
        (None, Some((shape, e))) => (shape.to_vec(), e),
        (None, None) => return None,
    };
    let (width, signed) = match m.type_data(element) {
        TypeData::Integer { width, signedness } => (*width, *signedness != Signedness::Unsigned),
        TypeData::Index => (64, true),
        _ => return None,
    };
    let bytes = (width as usize).div_ceil(8).max(1);
    let values = (data.chunks(bytes))
        .map(|c| le_int(c, width, signed) as i64)
        .collect();
    Some((dims, *splat, values))
}

/// The type of an elements attribute (the result type `inferConstantOp` infers).
pub(crate) fn elements_type(m: &Module, a: Attribute) -> Option<Type> {
    match m.attr_data(a) {
        AttrData::DenseElements { ty, .. } | AttrData::DenseStrings { ty, .. } => Some(*ty),
        _ => None,
    }
}

/// The integers of a constant operand (`hlo::matchInts`): the dense integer elements of the
/// op that defines it, when the spec gives that op ODS's `ConstantLike` trait. A constant of
/// more than `max` elements is not expanded (a splat can stand for millions; no shape operand of a checked op
/// can use them): `Err(its element count)`.
pub(crate) fn constant_ints(m: &Module, value: Value, max: usize) -> Option<Result<Vec<i64>, i64>> {
    let ValueDef::Result { op, .. } = m.value_def(value) else {
        return None;
    };
    let name = m.op_name_str(op);
    let constant_like = match StablehloOp::from_name(name) {
        Some(k) => k.is_constant_like(),
        None => name.split_once('.').is_some_and(|(dialect, short)| {
            crate::vhlo::codec_dialect(dialect)
                .and_then(|d| d.op(short))
                .is_some_and(|o| o.traits.contains(&"ConstantLike"))
        }),
    };
    if !constant_like {
        return None;
    }
    // Its value: the one attribute of dense elements it has.
    let a = m
        .properties(op)
        .iter()
        .chain(m.attributes(op))
        .map(|a| a.value)
        .find(|&a| matches!(m.attr_data(a), AttrData::DenseElements { .. }))?;
    let count = shaped(m, elements_type(m, a)?)?
        .dims
        .and_then(num_elements)?;
    if usize::try_from(count).map_or(true, |c| c > max) {
        return Some(Err(count));
    }
    dense_ints(m, a).map(|(_, v)| Ok(v))
}

/// A little-endian integer of `width` bits, sign-extended when `signed`.
fn le_int(bytes: &[u8], width: u32, signed: bool) -> i128 {
    let mut v: u128 = 0;
    for (i, &b) in bytes.iter().take(16).enumerate() {
        v |= u128::from(b) << (8 * i);
    }
    if width == 0 || width >= 128 {
        return v as i128;
    }
    let v = v & ((1u128 << width) - 1);
    if signed && width > 1 && v >> (width - 1) & 1 == 1 {
        (v | !((1u128 << width) - 1)) as i128
    } else {
        v as i128
    }
}

/// The case name of a StableHLO enum attribute.
pub(crate) fn enum_case(m: &Module, a: Attribute) -> Option<&'static str> {
    let AttrData::Dialect(d) = m.attr_data(a) else {
        return None;
    };
    let [Param::Int(v)] = *d.params else {
        return None;
    };
    let spec = crate::text::find_enum(m.str(d.dialect), m.str(d.mnemonic))?;
    spec.cases.iter().find(|c| c.1 == v).map(|c| c.0)
}

/// Field `field` of a struct-like dialect attribute.
pub(crate) fn struct_field<'m>(m: &'m Module, a: Attribute, field: &str) -> Option<&'m Param> {
    let AttrData::Dialect(d) = m.attr_data(a) else {
        return None;
    };
    let spec = crate::text::find_struct(m.str(d.dialect), m.str(d.mnemonic))?;
    let i = spec.fields.iter().position(|(n, _)| n == field)?;
    d.params.get(i).filter(|p| !matches!(p, Param::Absent))
}

/// `inferMostSpecificDimAndBound` of dimension `dim`, over `(size, bound)` pairs: a static size
/// wins (two different ones fail under `rule`, as does one over the other's bound); two bounds
/// give the smaller.
pub(crate) fn most_specific_dim(
    dim: usize,
    (ls, lb): (Dim, i64),
    (rs, rb): (Dim, i64),
    rule: &'static str,
) -> Result<(Dim, i64), super::Failure> {
    if is_dynamic(ls) && is_dynamic(rs) {
        let bound = match (is_dynamic(lb), is_dynamic(rb)) {
            (false, false) => lb.min(rb),
            (false, true) => lb,
            _ => rb,
        };
        return Ok((DYNAMIC, bound));
    }
    super::ensure!(
        is_dynamic(ls) || is_dynamic(rs) || ls == rs,
        rule,
        "Mismatched dimension sizes {ls} and {rs} in dimension {dim}"
    );
    let size = if is_dynamic(ls) { rs } else { ls };
    let bound = if is_dynamic(lb) { rb } else { lb };
    super::ensure!(
        is_dynamic(bound) || size <= bound,
        rule,
        "Mismatched dimension size {size} and bound {bound} in dimension {dim}"
    );
    Ok((size, DYNAMIC))
}

/// A tensor type seen as HLO sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shaped<'m> {
    /// The dimension sizes ([`DYNAMIC`] for `?`); `None` when unranked.
    pub dims: Option<&'m [Dim]>,
    pub element: Type,
    /// The bounds of `#stablehlo.bounds<...>` (one per dimension, [`DYNAMIC`] for none).
    pub bounds: Option<&'m [i64]>,
}

impl<'m> Shaped<'m> {
    pub fn rank(&self) -> Option<usize> {
        self.dims.map(<[Dim]>::len)
    }
    /// Dimension `i` (`DYNAMIC` when unranked or past the rank).
    pub fn dim(&self, i: usize) -> Dim {
        self.dims.and_then(|d| d.get(i).copied()).unwrap_or(DYNAMIC)
    }
    /// The bound of dimension `i`, if it has one.
    pub fn bound(&self, i: usize) -> Option<i64> {
        self.bounds
            .and_then(|b| b.get(i).copied())
            .filter(|&b| !is_dynamic(b))
    }
}

/// The element type of a tensor, memref or vector, or the type itself (MLIR's
/// `getElementTypeOrSelf`).
pub(crate) fn element_or_self(m: &Module, t: Type) -> Type {
    match shaped(m, t) {
        Some(s) => s.element,
        None => (crate::ir::memref_parts(m, t).map(|p| p.1))
            .or_else(|| crate::ir::vector_parts(m, t).map(|p| p.1))
            .unwrap_or(t),
    }
}

/// MLIR's `verifyAtLeastNOperands` and `verifyAtLeastNResults` for one of each, as the traits
/// over operands and results check first.
pub(crate) fn at_least_one_operand_and_result(m: &Module, op: OpId, rule: &'static str) -> Check {
    let operands = m.operands(op).len();
    ensure!(
        operands > 0,
        rule,
        "expected 1 or more operands, but found {operands}"
    );
    ensure!(m.num_results(op) > 0, rule, "expected 1 or more results");
    Ok(())
}

/// The types of the op's operands, then of its results.
fn value_types(m: &Module, op: OpId) -> Vec<Type> {
    let operands = m.operands(op).iter().map(|&v| m.value_type(v));
    operands
        .chain(m.results(op).map(|v| m.value_type(v)))
        .collect()
}

/// A vector with a scalable dimension (`vector<[4]xf32>`).
fn is_scalable_vector(m: &Module, t: Type) -> bool {
    crate::ir::vector_parts(m, t).is_some()
        && matches!(m.type_data(t), TypeData::Dialect(d)
            if matches!(d.params.get(1), Some(Param::Ints(s)) if s.iter().any(|&x| x != 0)))
}

/// MLIR's `verifyCompatibleShapes`: all of `types` shaped (tensors, memrefs, vectors) or none,
/// scalable vectors all or none, and the ranked ones of one rank with at most one static size
/// per dimension.
pub(crate) fn compatible_shapes_of(m: &Module, types: &[Type]) -> bool {
    let shapes: Vec<Option<Option<&[Dim]>>> = types.iter().map(|&t| shaped_dims(m, t)).collect();
    if shapes.iter().any(Option::is_none) {
        return shapes.iter().all(Option::is_none);
    }
    let scalable = types.iter().filter(|&&t| is_scalable_vector(m, t)).count();
    if scalable != 0 && scalable != types.len() {
        return false;
    }
    let ranked: Vec<&[Dim]> = shapes.into_iter().flatten().flatten().collect();
    let rank = ranked.first().map_or(0, |d| d.len());
    ranked.iter().all(|d| d.len() == rank)
        && (0..rank).all(|i| {
            let mut sizes =
                (ranked.iter().filter_map(|d| d.get(i).copied())).filter(|&x| !is_dynamic(x));
            let first = sizes.next();
            sizes.all(|x| Some(x) == first)
        })
}

/// MLIR's `SameOperandsAndResultShape`.
pub(crate) fn same_operands_and_result_shape(m: &Module, op: OpId) -> Check {
    const RULE: &str = "SameOperandsAndResultShape";
    at_least_one_operand_and_result(m, op, RULE)?;
    let types = value_types(m, op);
    ensure!(
        compatible_shapes_of(m, &types),
        RULE,
        "requires the same shape for all operands and results, but got {}",
        types_str(m, &types)
    );
    Ok(())
}

/// MLIR's `Elementwise` (`verifyElementwise`): if any operand or result is a vector or tensor,
/// all results are, and those operands and results have one kind and compatible shapes.
pub(crate) fn elementwise(m: &Module, op: OpId) -> Check {
    const RULE: &str = "Elementwise";
    // The kind of a mappable type: vector, ranked or unranked tensor (MLIR's `TypeID`).
    let kind = |t| match m.type_data(t) {
        TypeData::RankedTensor { .. } => Some(1),
        TypeData::UnrankedTensor { .. } => Some(2),
        _ => crate::ir::vector_parts(m, t).map(|_| 3),
    };
    let mappable = |vs: &mut dyn Iterator<Item = Value>| -> Vec<Type> {
        vs.map(|v| m.value_type(v))
            .filter(|&t| kind(t).is_some())
            .collect()
    };
    let operands = mappable(&mut m.operands(op).iter().copied());
    let results = mappable(&mut m.results(op));
    if operands.is_empty() {
        ensure!(
            results.is_empty(),
            RULE,
            "if a result is non-scalar, then at least one operand must be non-scalar"
        );
        return Ok(());
    }
    ensure!(
        !results.is_empty(),
        RULE,
        "if an operand is non-scalar, then there must be at least one non-scalar result"
    );
    ensure!(
        results.len() == m.num_results(op),
        RULE,
        "if an operand is non-scalar, then all results must be non-scalar"
    );
    let all = [operands, results].concat();
    let one_kind = all.iter().all(|&t| kind(t) == kind(all[0]));
    ensure!(
        one_kind && compatible_shapes_of(m, &all),
        RULE,
        "all non-scalar operands/results must have the same shape and base type, but got {}",
        types_str(m, &all)
    );
    Ok(())
}

/// MLIR's `SameOperandsAndResultElementType`: every result and operand has the first result's
/// element type (`getElementTypeOrSelf`); the message names the first that differs.
pub(crate) fn same_operands_and_result_element(m: &Module, op: OpId, rule: &'static str) -> Check {
    let element = |v: Value| element_or_self(m, m.value_type(v));
    let Some(first) = m.result(op, 0).map(element) else {
        return Ok(());
    };
    let values = m.results(op).chain(m.operands(op).iter().copied());
    if let Some(other) = values.map(element).find(|&e| e != first) {
        super::bail!(
            rule,
            "requires the same element type for all operands and results ({} vs {})",
            type_to_string(m, first),
            type_to_string(m, other)
        );
    }
    Ok(())
}

/// A ranked tensor's sizes; `None` for any other type.
pub(crate) fn tensor_dims(m: &Module, t: Type) -> Option<&[Dim]> {
    match m.type_data(t) {
        TypeData::RankedTensor { shape, .. } => Some(shape),
        _ => None,
    }
}

/// The sizes of a type as `mlir::ShapedType` sees it (a tensor, memref or vector): `None` when
/// it is not shaped, `Some(None)` when unranked.
pub(crate) fn shaped_dims(m: &Module, t: Type) -> Option<Option<&[Dim]>> {
    match shaped(m, t) {
        Some(s) => Some(s.dims),
        None => (crate::ir::memref_parts(m, t).map(|p| p.0))
            .or_else(|| crate::ir::vector_parts(m, t).map(|p| Some(p.0))),
    }
}

/// `mlir::verifyCompatibleShape(Type, Type)`: both shaped or neither; either unranked, or the
/// same rank with compatible sizes.
pub(crate) fn compatible_shape(m: &Module, a: Type, b: Type) -> bool {
    match (shaped_dims(m, a), shaped_dims(m, b)) {
        (None, None) => true,
        (Some(x), Some(y)) => compatible_shapes(x, y),
        _ => false,
    }
}

/// A ranked tensor type: its sizes, element type and bounds (one per dimension, or none).
#[derive(Clone, Copy)]
pub(crate) struct Ranked<'m> {
    pub ty: Type,
    pub dims: &'m [Dim],
    pub element: Type,
    pub bounds: Option<&'m [i64]>,
}

impl Ranked<'_> {
    pub fn rank(&self) -> usize {
        self.dims.len()
    }
    /// Size `i`, [`DYNAMIC`] past the rank.
    pub fn dim(&self, i: usize) -> Dim {
        self.dims.get(i).copied().unwrap_or(DYNAMIC)
    }
    /// Size at a dimension number from an attribute (checked in range by the caller).
    pub fn at(&self, i: i64) -> Dim {
        usize::try_from(i).map_or(DYNAMIC, |i| self.dim(i))
    }
    /// Bound `i` ([`DYNAMIC`] for none).
    pub fn bound(&self, i: usize) -> i64 {
        self.bounds
            .and_then(|b| b.get(i).copied())
            .unwrap_or(DYNAMIC)
    }
    pub fn is_static(&self) -> bool {
        self.dims.iter().all(|&d| !is_dynamic(d))
    }
}

/// `t` as a ranked tensor; `None` for any other type.
pub(crate) fn ranked(m: &Module, t: Type) -> Option<Ranked<'_>> {
    let s = shaped(m, t)?;
    Some(Ranked {
        ty: t,
        dims: s.dims?,
        element: s.element,
        bounds: s.bounds,
    })
}

/// The ranked tensor type of operand `i`. The ODS type constraints (checked before) require
/// ranked tensors, so a missing one only stops the op's own checks.
pub(crate) fn operand<'m>(v: &OpView<'m>, i: usize) -> Option<Ranked<'m>> {
    ranked(v.m, v.operand_type(i)?)
}

/// The ranked tensor type of result `i`.
pub(crate) fn result<'m>(v: &OpView<'m>, i: usize) -> Option<Ranked<'m>> {
    ranked(v.m, v.result_type(i)?)
}

/// `t` as a tensor (ranked or not); `None` for any other type.
pub(crate) fn shaped(m: &Module, t: Type) -> Option<Shaped<'_>> {
    match m.type_data(t) {
        TypeData::RankedTensor {
            shape,
            element,
            encoding,
        } => Some(Shaped {
            dims: Some(shape),
            element: *element,
            bounds: encoding.and_then(|e| bounds_of(m, e)),
        }),
        TypeData::UnrankedTensor { element } => Some(Shaped {
            dims: None,
            element: *element,
            bounds: None,
        }),
        _ => None,
    }
}

/// The bounds of a `#stablehlo.bounds<...>` (or `#vhlo.type_extensions_v1`) encoding.
pub(crate) fn bounds_of(m: &Module, e: Attribute) -> Option<&[i64]> {
    match m.attr_data(e) {
        AttrData::Dialect(d) => match &*d.params {
            [Param::Ints(b)] => Some(b),
            _ => None,
        },
        _ => None,
    }
}

/// Upstream's `isDynamicDimSize`: only the dynamic marker itself (a negative value from an
/// attribute or a constant is a size that matches nothing).
pub(crate) fn is_dynamic(d: Dim) -> bool {
    d == DYNAMIC
}

/// The number of elements of a static shape (`None` if dynamic or overflowing).
pub(crate) fn num_elements(dims: &[Dim]) -> Option<i64> {
    dims.iter().try_fold(1i64, |acc, &d| {
        if is_dynamic(d) {
            None
        } else {
            acc.checked_mul(d)
        }
    })
}

/// MLIR's `mightHaveTrait<IsTerminator>`: an op with the trait, or one MLIR does not know.
pub(crate) fn might_be_terminator(m: &Module, op: OpId) -> bool {
    let c = crate::text::classify(m.op_name_str(op));
    c.terminator || !c.registered || c.unknown
}

/// `1, 0, 3`, integers as upstream prints an `ArrayRef<int64_t>` in messages (the dynamic size
/// as `-9223372036854775808`).
pub(crate) fn ints_str(xs: &[i64]) -> String {
    let parts: Vec<String> = xs.iter().map(i64::to_string).collect();
    parts.join(", ")
}

/// No value twice in `xs`.
pub(crate) fn is_unique(xs: &[i64]) -> bool {
    // Dimension lists are short: compare pairs without allocating; hash long ones.
    if xs.len() <= 16 {
        return xs
            .iter()
            .enumerate()
            .all(|(i, x)| !xs.get(i + 1..).unwrap_or_default().contains(x));
    }
    let mut seen = std::collections::HashSet::with_capacity(xs.len());
    xs.iter().all(|x| seen.insert(*x))
}

/// `checkDimsDistinct`: no dimension in both lists or twice in one (first repeat named).
pub(crate) fn dims_distinct(
    a: &[i64],
    b: &[i64],
    a_name: &str,
    b_name: &str,
    rule: &'static str,
) -> Check {
    let mut seen = crate::ir::FastSet::default();
    for &d in a.iter().chain(b) {
        ensure!(
            seen.insert(d),
            rule,
            "has duplicated dimension from {a_name} and {b_name}: {d}"
        );
    }
    Ok(())
}

/// `[2, ?, 3]`, as upstream prints shapes in messages.
pub(crate) fn dims_str(dims: &[Dim]) -> String {
    let parts: Vec<String> = dims.iter().map(|&d| size_str(d)).collect();
    format!("[{}]", parts.join(", "))
}

/// Two sizes are compatible when equal or either is dynamic.
pub(crate) fn compatible_dim(a: Dim, b: Dim) -> bool {
    a == b || is_dynamic(a) || is_dynamic(b)
}

/// Two shapes are compatible when either is unranked, or they have the same rank and
/// compatible sizes.
pub(crate) fn compatible_shapes(a: Option<&[Dim]>, b: Option<&[Dim]>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| compatible_dim(x, y))
        }
        _ => true,
    }
}

// ---- element types ------------------------------------------------------------------------

/// `i1`, StableHLO's boolean.
pub(crate) fn is_bool(m: &Module, e: Type) -> bool {
    matches!(
        m.type_data(e),
        TypeData::Integer {
            width: 1,
            signedness: Signedness::Signless
        }
    )
}
pub(crate) fn float_kind(m: &Module, e: Type) -> Option<FloatKind> {
    match m.type_data(e) {
        TypeData::Float(k) => Some(*k),
        _ => None,
    }
}
pub(crate) fn is_token(m: &Module, t: Type) -> bool {
    matches!(m.type_data(t), TypeData::Dialect(d) if m.str(d.dialect) == "stablehlo" && m.str(d.mnemonic) == "token")
}
pub(crate) fn bit_width(m: &Module, e: Type) -> Option<u32> {
    match m.type_data(e) {
        TypeData::Integer { width, .. } => Some(*width),
        TypeData::Float(k) => Some(k.bit_width()),
        TypeData::Index => Some(64),
        TypeData::Complex(inner) => bit_width(m, *inner).map(|w| w * 2),
        TypeData::Dialect(_) => quant(m, e).and_then(|q| bit_width(m, q.storage)),
        _ => None,
    }
}

pub(crate) fn is_float(m: &Module, e: Type) -> bool {
    matches!(m.type_data(e), TypeData::Float(_))
}

/// `isPromotableElementType` on element types: the same kind (integer, float, complex, or
/// quantized with the same expressed type) and no narrower (floats of any width when
/// `ignore_fp`).
pub(crate) fn promotable_element(m: &Module, from: Type, to: Type, ignore_fp: bool) -> bool {
    let same_kind = match (m.type_data(from), m.type_data(to)) {
        (TypeData::Integer { .. }, TypeData::Integer { .. })
        | (TypeData::Float(_), TypeData::Float(_))
        | (TypeData::Complex(_), TypeData::Complex(_)) => true,
        _ => match (quant(m, from), quant(m, to)) {
            (Some(a), Some(b)) => a.expressed == b.expressed,
            _ => false,
        },
    };
    if !same_kind {
        return false;
    }
    if ignore_fp && is_float(m, from) {
        return true;
    }
    matches!((bit_width(m, from), bit_width(m, to)), (Some(a), Some(b)) if a <= b)
}

/// The parameters of a `!quant.uniform` element type.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Quant {
    pub signed: bool,
    pub storage: Type,
    pub expressed: Type,
    /// `Some(d)` for per-axis quantization along dimension `d`.
    pub axis: Option<i64>,
    /// One scale per tensor or per slice along the axis.
    pub scales: Vec<f64>,
    pub zero_points: Vec<i64>,
    pub storage_min: i64,
    pub storage_max: i64,
}

pub(crate) fn quant(m: &Module, e: Type) -> Option<Quant> {
    let TypeData::Dialect(d) = m.type_data(e) else {
        return None;
    };
    if m.str(d.dialect) != "quant" || m.str(d.mnemonic) != "uniform" {
        return None;
    }
    let f64_of = |bits: u128| f64::from_bits(bits as u64);
    match &*d.params {
        [Param::UInt(f), Param::Type(s), Param::Type(x), Param::Float { bits, .. }, Param::Int(zp), Param::Int(lo), Param::Int(hi)] => {
            Some(Quant {
                signed: f & 1 == 1,
                storage: *s,
                expressed: *x,
                axis: None,
                scales: vec![f64_of(*bits)],
                zero_points: vec![*zp],
                storage_min: *lo,
                storage_max: *hi,
            })
        }
        [Param::UInt(f), Param::Type(s), Param::Type(x), Param::Int(axis), Param::Floats(sc), Param::Ints(zps), Param::Int(lo), Param::Int(hi)] => {
            Some(Quant {
                signed: f & 1 == 1,
                storage: *s,
                expressed: *x,
                axis: Some(*axis),
                scales: sc.iter().map(|&b| f64_of(b)).collect(),
                zero_points: zps.to_vec(),
                storage_min: *lo,
                storage_max: *hi,
            })
        }
        _ => None,
    }
}

/// Base.cpp's `isCompatibleElementTypeForHloTypeInference`: equal element types, or both
/// quantized with the same storage type and range, expressed type and granularity (their
/// scales and zero points may differ).
pub(crate) fn compatible_element_types(m: &Module, a: Type, b: Type) -> bool {
    let (a, b) = (element_or_self(m, a), element_or_self(m, b));
    if a == b {
        return true;
    }
    match (quant(m, a), quant(m, b)) {
        (Some(qa), Some(qb)) => {
            qa.storage == qb.storage
                && qa.storage_min == qb.storage_min
                && qa.storage_max == qb.storage_max
                && qa.expressed == qb.expressed
                && qa.axis.is_some() == qb.axis.is_some()
        }
        // A quantized type kept as text (as the bytecode reader keeps the quant types of other
        // dialects' ops) is not decoded, so not refused.
        (qa, qb) => (qa.is_none() && is_quant_text(m, a)) || (qb.is_none() && is_quant_text(m, b)),
    }
}

fn is_quant_text(m: &Module, t: Type) -> bool {
    matches!(m.type_data(t), TypeData::Dialect(d) if m.str(d.dialect) == "quant")
}

/// StableHLO's `HLO_CompatibleOperandsAndResultElementType`: every operand's and result's
/// element type is compatible with the first operand's (the first result's when there is no
/// operand), by `isCompatibleElementTypeForHloTypeInference`.
pub(crate) fn compatible_operands_and_result_element(
    m: &Module,
    op: OpId,
    rule: &'static str,
) -> Check {
    let ty = |v: Value| m.value_type(v);
    let operands = m.operands(op).iter().copied();
    let Some(expected) = operands.clone().next().or_else(|| m.result(op, 0)).map(ty) else {
        return Ok(());
    };
    if let Some(other) = operands
        .chain(m.results(op))
        .map(ty)
        .find(|&t| !compatible_element_types(m, expected, t))
    {
        super::bail!(
            rule,
            "requires compatible element types for all operands and results ({} vs {})",
            type_to_string(m, expected),
            type_to_string(m, other)
        );
    }
    Ok(())
}

/// `hlo::isCompatibleForHloTypeInference` on two types: tensors with compatible shapes (each
/// static size within the other's bound) and element types; other types, tuples included, only
/// when equal.
pub(crate) fn compatible_types(m: &Module, a: Type, b: Type) -> bool {
    if a == b {
        return true;
    }
    match (shaped(m, a), shaped(m, b)) {
        (Some(sa), Some(sb)) => {
            compatible_element_types(m, sa.element, sb.element)
                && compatible_shapes(sa.dims, sb.dims)
                && bounds_compatible(&sa, &sb)
        }
        _ => false,
    }
}

/// A static size fits the other's bound; two bounds are always compatible.
fn bounds_compatible(a: &Shaped, b: &Shaped) -> bool {
    let Some(rank) = a.rank().filter(|_| b.rank().is_some()) else {
        return true;
    };
    (0..rank).all(|i| {
        let fits = |s: &Shaped, o: &Shaped| match (o.bound(i), s.dim(i)) {
            (Some(bound), d) if !is_dynamic(d) => d <= bound,
            _ => true,
        };
        fits(a, b) && fits(b, a)
    })
}

// ---- inferred result types ------------------------------------------------------------------

/// A result type a shape function infers (MLIR's `ShapedTypeComponents`): a shape (`None` when
/// unranked), an element type, and bounds for dynamic sizes. Builders turn one into a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Inferred {
    pub dims: Option<Vec<Dim>>,
    pub element: Type,
    /// One per dimension ([`DYNAMIC`] for none), or `None`.
    pub bounds: Option<Vec<i64>>,
}

impl Inferred {
    pub fn ranked(dims: Vec<Dim>, element: Type) -> Self {
        Inferred {
            dims: Some(dims),
            element,
            bounds: None,
        }
    }
}

/// Whether the op's actual result type `actual` is compatible with the inferred one: a
/// compatible element type and shape ([`fits_inferred_shape`]).
pub(crate) fn matches_inferred(m: &Module, inferred: &Inferred, actual: Type) -> bool {
    shaped(m, actual).is_some_and(|s| compatible_element_types(m, inferred.element, s.element))
        && fits_inferred_shape(
            m,
            inferred.dims.as_deref(),
            inferred.bounds.as_deref(),
            actual,
        )
}

/// `verifyCompatibleShapeWithBounds` of an inferred shape (`None`: unranked) and the tensor
/// `actual`: the same rank, each size equal or either dynamic, and each static size within
/// the other side's bound.
pub(crate) fn fits_inferred_shape(
    m: &Module,
    dims: Option<&[Dim]>,
    bounds: Option<&[Dim]>,
    actual: Type,
) -> bool {
    let Some(s) = shaped(m, actual) else {
        return false;
    };
    let (Some(want), Some(have)) = (dims, s.dims) else {
        return true;
    };
    let within = |size: Dim, bound: Option<i64>| {
        bound.is_none_or(|b| is_dynamic(b) || is_dynamic(size) || size <= b)
    };
    want.len() == have.len()
        && want.iter().zip(have).enumerate().all(|(i, (&w, &h))| {
            let inferred_bound = bounds.and_then(|b| b.get(i).copied());
            compatible_dim(w, h) && within(h, inferred_bound) && within(w, s.bound(i))
        })
}

/// A size as upstream prints it in messages (`?` for dynamic).
pub(crate) fn size_str(d: Dim) -> String {
    if is_dynamic(d) {
        "?".to_string()
    } else {
        d.to_string()
    }
}

/// `'tensor<2xf32>'`, a type quoted as MLIR's diagnostics quote it.
pub(crate) fn q(v: &OpView, t: Type) -> String {
    format!("'{}'", v.t(t))
}

/// `'tensor<2xf32>', 'tensor<i1>'`, a list of types as MLIR's diagnostics print a
/// `TypeRange`.
pub(crate) fn types_str(m: &Module, types: &[Type]) -> String {
    let parts: Vec<String> = types
        .iter()
        .map(|&t| format!("'{}'", type_to_string(m, t)))
        .collect();
    parts.join(", ")
}

/// Checks the op's results against types inferred exactly (not only their shapes), with
/// upstream's message for `InferTypeOpInterface` ops.
pub(crate) fn check_inferred_types(v: &OpView, inferred: &[Type], rule: &'static str) -> Check {
    let actual = v.result_types();
    super::ensure!(
        actual.len() == inferred.len()
            && actual
                .iter()
                .zip(inferred)
                .all(|(&a, &b)| compatible_types(v.m, a, b)),
        rule,
        "inferred type(s) {} are incompatible with return type(s) of operation {}",
        types_str(v.m, inferred),
        types_str(v.m, &actual)
    );
    Ok(())
}

/// Checks the op's results against inferred shapes and element types, with upstream's message
/// for `InferTypeOpInterface` ops (the types printed in full).
pub(crate) fn check_inferred_components(
    v: &OpView,
    inferred: &[Inferred],
    rule: &'static str,
) -> Check {
    let actual = v.result_types();
    super::ensure!(
        actual.len() == inferred.len()
            && actual
                .iter()
                .zip(inferred)
                .all(|(&a, want)| matches_inferred(v.m, want, a)),
        rule,
        "inferred type(s) {} are incompatible with return type(s) of operation {}",
        (inferred.iter().map(|i| format!("'{}'", inferred_str(v, i))))
            .collect::<Vec<_>>()
            .join(", "),
        types_str(v.m, &actual)
    );
    Ok(())
}

/// An inferred type as MLIR prints the type it stands for: `tensor<2x?xf32>`.
pub(crate) fn inferred_str(v: &OpView, i: &Inferred) -> String {
    tensor_str(i.dims.as_deref(), &v.t(i.element), i.bounds.as_deref())
}

/// A tensor type as MLIR prints it, `tensor<3x?xf32, #stablehlo.bounds<?, 4>>` (unranked when
/// `dims` is `None`), with the bounds encoding when some bound is known.
pub(crate) fn tensor_str(dims: Option<&[Dim]>, element: &str, bounds: Option<&[Dim]>) -> String {
    let encoding = bounds
        .filter(|b| b.iter().any(|&x| !is_dynamic(x)))
        .map(|b| {
            let parts: Vec<String> = b.iter().map(|&x| size_str(x)).collect();
            format!("#stablehlo.bounds<{}>", parts.join(", "))
        });
    tensor_with_encoding(dims, element, encoding.as_deref())
}

/// A tensor type as MLIR prints it, with the encoding's text when it has one.
pub(crate) fn tensor_with_encoding(
    dims: Option<&[Dim]>,
    element: &str,
    encoding: Option<&str>,
) -> String {
    let Some(dims) = dims else {
        return format!("tensor<*x{element}>");
    };
    let mut s = String::from("tensor<");
    for &d in dims {
        s.push_str(&size_str(d));
        s.push('x');
    }
    s.push_str(element);
    if let Some(e) = encoding {
        s.push_str(", ");
        s.push_str(e);
    }
    s.push('>');
    s
}

/// `CastOpInterface`'s failure: a cast op whose `areCastCompatible` refuses its types.
pub(crate) fn cast_incompatible(m: &Module, from: Type, to: Type) -> super::Failure {
    super::fail(
        "CastOpInterface",
        format!(
            "operand type '{}' and result type '{}' are cast incompatible",
            crate::text::type_to_string(m, from),
            crate::text::type_to_string(m, to)
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MLIR's `verifyCompatibleShapes`, as the traits use it: vectors are shaped, and scalable
    /// ones only mix with scalable ones. jaxlib (StableHLO 1.17.0) accepts the extf of a
    /// scalable vector into one scalable in another dimension, and names the shape trait for a
    /// math.fpowi over vectors of two lengths.
    #[test]
    fn shape_traits_over_vectors() {
        let t = |m: &mut Module, s: &str| crate::text::parse_type(m, s).unwrap();
        let mut m = Module::new();
        let scalable = [
            t(&mut m, "vector<[4]x4xf16>"),
            t(&mut m, "vector<4x[4]xf32>"),
        ];
        assert!(compatible_shapes_of(&m, &scalable));
        let mixed = [t(&mut m, "vector<[4]xf16>"), t(&mut m, "vector<4xf32>")];
        assert!(!compatible_shapes_of(&m, &mixed));
        // Each pair of neighbours is compatible, the three are not (2 and 3 in one dimension).
        let three = ["tensor<2xf32>", "tensor<?xf32>", "tensor<3xf32>"].map(|s| t(&mut m, s));
        assert!(!compatible_shapes_of(&m, &three));
        let extf = "func.func @f(%a: vector<[4]x4xf16>) -> vector<4x[4]xf32> {\n  %r = arith.extf %a : vector<[4]x4xf16> to vector<4x[4]xf32>\n  return %r : vector<4x[4]xf32>\n}\n";
        assert!(crate::text::parse(extf).is_ok());
        let fpowi = "func.func @f(%a: vector<2xf32>, %b: vector<3xi32>) -> vector<2xf32> {\n  %r = \"math.fpowi\"(%a, %b) : (vector<2xf32>, vector<3xi32>) -> vector<2xf32>\n  return %r : vector<2xf32>\n}\n";
        let e = crate::text::parse(fpowi).unwrap_err().to_string();
        assert!(
            e.contains("requires the same shape for all operands and results"),
            "{e}"
        );
    }

    #[test]
    fn compatibility() {
        let mut m = Module::new();
        let t = |m: &mut Module, s: &str| crate::text::parse_type(m, s).unwrap();
        let a = t(&mut m, "tensor<2x?xf32>");
        let b = t(&mut m, "tensor<2x3xf32>");
        let c = t(&mut m, "tensor<3x3xf32>");
        let u = t(&mut m, "tensor<*xf32>");
        let i = t(&mut m, "tensor<2x3xi32>");
        assert!(compatible_types(&m, a, b));
        assert!(!compatible_types(&m, a, c));
        assert!(compatible_types(&m, u, c));
        assert!(!compatible_types(&m, b, i));
        let bounded = t(&mut m, "tensor<?xf32, #stablehlo.bounds<3>>");
        let four = t(&mut m, "tensor<4xf32>");
        let two = t(&mut m, "tensor<2xf32>");
        assert!(!compatible_types(&m, bounded, four));
        assert!(compatible_types(&m, bounded, two));
        // Upstream compares other types, tuples too, for equality (jaxlib refuses a
        // get_tuple_element whose nested tuple differs only in a dynamic size).
        let t1 = t(&mut m, "tuple<tensor<?xf32>>");
        let t2 = t(&mut m, "tuple<tensor<2xf32>>");
        assert!(!compatible_types(&m, t1, t2));
        assert_eq!(dims_str(&[2, DYNAMIC]), "[2, ?]");
    }

    #[test]
    fn dense_values() {
        let mut m = Module::new();
        let a = crate::text::parse_attribute(&mut m, "dense<[[0, 1], [2, -3]]> : tensor<2x2xi64>")
            .unwrap();
        assert_eq!(dense_ints(&m, a), Some((vec![2, 2], vec![0, 1, 2, -3])));
        let s = crate::text::parse_attribute(&mut m, "dense<7> : tensor<3xi32>").unwrap();
        assert_eq!(int_list(&m, s), Some(vec![7, 7, 7]));
        let d = crate::text::parse_attribute(&mut m, "array<i64: 1, -2>").unwrap();
        assert_eq!(int_list(&m, d), Some(vec![1, -2]));
    }
}
