//! Building blocks of the generated change rules and feature checks: constructors of VHLO
//! attributes and in-place edits of an op.

use crate::ir::{AttrData, Attribute, Module, OpId, Param, Type, TypeData};
use crate::version::Version;

use super::typed::{attrs, types};
use super::ConversionError;

/// A `!vhlo.<mnemonic>` type with the given parameters.
pub fn vhlo_type_with(m: &mut Module, mnemonic: &str, params: Vec<Param>) -> Type {
    m.dialect_type("vhlo", mnemonic, params)
}

/// A parameterless `!vhlo.<mnemonic>` type (`none_v1`, `i64_v1`, ...).
pub fn vhlo_type(m: &mut Module, mnemonic: &str) -> Type {
    vhlo_type_with(m, mnemonic, Vec::new())
}

/// A `#vhlo.<name>` attribute with the given parameters.
pub fn vhlo_attr(m: &mut Module, name: &str, params: Vec<Param>) -> Attribute {
    m.dialect_attr("vhlo", name, params)
}

/// `#vhlo.bool_v1<b>`
pub fn vhlo_bool(m: &mut Module, b: bool) -> Attribute {
    Attribute(m.cached_id((0, "", i64::from(b)), |m| {
        attrs::BoolV1 { value: b }.build(m).0
    }))
}

/// `#vhlo.integer_v1<i : i64>`
pub fn vhlo_i64(m: &mut Module, i: i64) -> Attribute {
    Attribute(m.cached_id((3, "", i), |m| {
        let ty = types::I64V1.build(m);
        attrs::IntegerV1 { ty, value: i }.build(m).0
    }))
}

/// `#vhlo.float_v1<f : f64>`
pub fn vhlo_f64(m: &mut Module, f: f64) -> Attribute {
    let ty = types::F64V1.build(m);
    let value = (u128::from(f.to_bits()), 64);
    attrs::FloatV1 { ty, value }.build(m)
}

/// `#vhlo.type_v1<!vhlo.<mnemonic>>`
pub fn vhlo_type_attr(m: &mut Module, mnemonic: &'static str) -> Attribute {
    Attribute(m.cached_id((1, mnemonic, 0), |m| {
        let value = vhlo_type(m, mnemonic);
        attrs::TypeV1 { value }.build(m).0
    }))
}

/// `#vhlo.string_v1<"s">`
pub fn vhlo_string(m: &mut Module, s: &str) -> Attribute {
    let value = m.sym(s);
    attrs::StringV1 { value }.build(m)
}

/// `#vhlo.dict_v1<{...}>` of (key, value) pairs, keys `#vhlo.string_v1`.
pub fn vhlo_dict(m: &mut Module, entries: Vec<(Attribute, Attribute)>) -> Attribute {
    let value = entries.into_boxed_slice();
    attrs::DictV1 { value }.build(m)
}

/// `#vhlo.array_v1<[...]>`
pub fn vhlo_array(m: &mut Module, items: Vec<Attribute>) -> Attribute {
    let value = items.into_boxed_slice();
    attrs::ArrayV1 { value }.build(m)
}

/// `#vhlo<enum_name value>`
pub fn vhlo_enum(m: &mut Module, enum_name: &'static str, value: i64) -> Attribute {
    Attribute(m.cached_id((2, enum_name, value), |m| {
        vhlo_attr(m, enum_name, vec![Param::Int(value)]).0
    }))
}

/// Byte width of a VHLO integer element type, for tensor data.
fn int_width_bytes(element: &str) -> usize {
    let is = |a: &str, b: &str| element == a || element == b;
    if is(types::I8V1::MNEMONIC, types::Ui8V1::MNEMONIC) {
        1
    } else if is(types::I16V1::MNEMONIC, types::Ui16V1::MNEMONIC) {
        2
    } else if is(types::I32V1::MNEMONIC, types::Ui32V1::MNEMONIC) {
        4
    } else {
        8
    }
}

/// `#vhlo.tensor_v1<dense<values> : tensor<shape x element>>` of an integer element type.
pub fn vhlo_int_tensor(m: &mut Module, element: &str, shape: &[i64], values: &[i64]) -> Attribute {
    let width = int_width_bytes(element);
    let element_type = vhlo_type(m, element);
    let ty = types::TensorV1 {
        shape: shape.into(),
        element_type,
        encoding: None,
    }
    .build(m);
    let mut data = Vec::with_capacity(values.len() * width);
    for v in values {
        data.extend_from_slice(&v.to_le_bytes()[..width]);
    }
    // MLIR stores all-equal dense data as one element (a splat); attributes compare by storage.
    if data.len() > width && data.chunks(width).all(|c| c == &data[..width]) {
        data.truncate(width);
    }
    attrs::TensorV1 {
        ty,
        data: data.into(),
    }
    .build(m)
}

/// Sets a property by name.
pub fn set_property(m: &mut Module, op: OpId, name: &'static str, value: Attribute) {
    let sym = m.sym_static(name);
    m.set_property(op, sym, value);
}

/// Removes a property by name.
pub fn remove_property(m: &mut Module, op: OpId, name: &'static str) {
    let sym = m.sym_static(name);
    m.remove_property(op, sym);
}

/// Renames a property, keeping its value.
pub fn rename_property(m: &mut Module, op: OpId, from: &'static str, to: &'static str) {
    if let Some(v) = m.property(op, from) {
        remove_property(m, op, from);
        set_property(m, op, to, v);
    }
}

/// Renames the op (`vhlo.x_v2` -> `vhlo.x_v1`).
pub fn rename_op(m: &mut Module, op: OpId, full_name: &'static str) {
    let sym = m.sym_static(full_name);
    m.set_op_name(op, sym);
}

/// Fails unless property `name` equals `default` (a missing property counts as the default).
pub fn require_default(
    m: &Module,
    op: OpId,
    op_name: &'static str,
    name: &str,
    default: Attribute,
    needs: Version,
) -> Result<(), ConversionError> {
    match m.property(op, name) {
        None => Ok(()),
        Some(v) if v == default || same_float_zero(m, v, default) => Ok(()),
        Some(_) => Err(ConversionError {
            op,
            op_name,
            subject: format!("attribute `{name}` with a non-default value"),
            needs,
            rule: format!(
                "{} -> previous version needs `{name}` = {}",
                short(op_name),
                crate::dialect::support::describe(m, default)
            ),
        }),
    }
}

fn short(op_name: &str) -> &str {
    op_name.strip_prefix("vhlo.").unwrap_or(op_name)
}

/// Upstream compares result-accuracy tolerances with `isZero`, which accepts -0.0 as well.
fn same_float_zero(m: &Module, a: Attribute, b: Attribute) -> bool {
    let (AttrData::Dialect(x), AttrData::Dialect(y)) = (m.attr_data(a), m.attr_data(b)) else {
        return false;
    };
    if x.dialect != y.dialect || x.mnemonic != y.mnemonic || x.params.len() != y.params.len() {
        return false;
    }
    x.params
        .iter()
        .zip(y.params.iter())
        .all(|(p, q)| match (p, q) {
            (Param::Float { bits: a, width: 64 }, Param::Float { bits: b, width: 64 }) => {
                let (a, b) = (f64::from_bits(*a as u64), f64::from_bits(*b as u64));
                a == b
            }
            _ => p == q,
        })
}

/// A short description of an attribute for error messages.
pub fn describe(m: &Module, a: Attribute) -> String {
    let AttrData::Dialect(d) = m.attr_data(a) else {
        return format!("{:?}", m.attr_data(a));
    };
    let name = m.str(d.mnemonic);
    if let Some(b) = attrs::BoolV1::read(m, a) {
        format!("#vhlo.{name}<{}>", b.value)
    } else if attrs::ArrayV1::read(m, a).is_some_and(|x| x.value.is_empty()) {
        format!("#vhlo.{name}<[]>")
    } else if attrs::TensorV1::read(m, a).is_some_and(|t| t.data.is_empty()) {
        format!("an empty #vhlo.{name}")
    } else if let Some(t) = attrs::TypeV1::read(m, a) {
        match m.type_data(t.value) {
            TypeData::Dialect(dt) => format!("#vhlo.{name}<!vhlo.{}>", m.str(dt.mnemonic)),
            _ => format!("#vhlo.{name}<...>"),
        }
    } else if attrs::ResultAccuracyV1::read(m, a).is_some() {
        format!("the default #vhlo.{name} (atol 0, rtol 0, ulps 0, mode DEFAULT)")
    } else {
        format!("#vhlo.{name}<...>")
    }
}

/// Fails unless the variadic group `group` holds exactly one value.
#[allow(clippy::too_many_arguments)]
pub fn require_single(
    m: &Module,
    op: OpId,
    op_name: &'static str,
    what: &str,
    group: &str,
    fixed: usize,
    groups: usize,
    needs: Version,
) -> Result<(), ConversionError> {
    let total = if what == "operand" {
        m.operands(op).len()
    } else {
        m.num_results(op)
    };
    let n = total.saturating_sub(fixed) / groups.max(1);
    if n == 1 {
        return Ok(());
    }
    Err(ConversionError {
        op,
        op_name,
        subject: format!("{n} {what}s in `{group}`"),
        needs,
        rule: format!(
            "{} -> previous version needs exactly one {what}",
            short(op_name)
        ),
    })
}

/// Fails unless the variadic region group `group` is empty.
pub fn require_no_regions(
    m: &Module,
    op: OpId,
    op_name: &'static str,
    group: &str,
    fixed: usize,
    needs: Version,
) -> Result<(), ConversionError> {
    let n = m.regions(op).len().saturating_sub(fixed);
    if n == 0 {
        return Ok(());
    }
    Err(ConversionError {
        op,
        op_name,
        subject: format!("{n} region(s) in `{group}`"),
        needs,
        rule: format!(
            "{} -> previous version needs `{group}` to be empty",
            short(op_name)
        ),
    })
}

/// The element type of a VHLO tensor type (ranked or unranked); other types are their own element.
fn element_type(m: &Module, t: Type) -> Type {
    if let Some(r) = types::TensorV1::read(m, t) {
        return r.element_type;
    }
    types::UnrankedTensorV1::read(m, t).map_or(t, |u| u.element_type)
}

/// True when some operand's element type differs from the matching result's (reductions that
/// promote to a wider type, allowed from 0.17.0).
pub fn element_types_differ(m: &Module, op: OpId) -> bool {
    let operands = m.operands(op);
    m.results(op)
        .zip(operands.iter())
        .any(|(r, &o)| element_type(m, m.value_type(r)) != element_type(m, m.value_type(o)))
}

/// True when property `name` is a `#vhlo.<kind>` attribute.
pub fn property_is_kind(m: &Module, op: OpId, name: &str, kind: &str) -> bool {
    match m.property(op, name).map(|a| m.attr_data(a)) {
        Some(AttrData::Dialect(d)) => m.str(d.mnemonic) == kind,
        _ => false,
    }
}

/// True when property `name` is the enum case `value` of `#vhlo<enum_name ...>`.
pub fn property_is_enum_case(
    m: &Module,
    op: OpId,
    name: &str,
    enum_name: &str,
    value: i64,
) -> bool {
    match m.property(op, name).map(|a| m.attr_data(a)) {
        Some(AttrData::Dialect(d)) => {
            m.str(d.mnemonic) == enum_name && d.params.first() == Some(&Param::Int(value))
        }
        _ => false,
    }
}

/// True when property `name` is `#vhlo.bool_v1<b>`.
pub fn property_is_bool(m: &Module, op: OpId, name: &str, b: bool) -> bool {
    m.property(op, name)
        .and_then(|a| attrs::BoolV1::read(m, a))
        .is_some_and(|x| x.value == b)
}

/// True when some operand has the type `!vhlo.<mnemonic>`.
pub fn some_operand_has_type(m: &Module, op: OpId, mnemonic: &str) -> bool {
    m.operands(op)
        .iter()
        .any(|&v| match m.type_data(m.value_type(v)) {
            TypeData::Dialect(d) => m.str(d.mnemonic) == mnemonic,
            _ => false,
        })
}
