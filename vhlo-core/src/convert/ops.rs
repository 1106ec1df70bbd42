//! Op-level StableHLO <-> VHLO conversion: the op-specific attribute cases (struct attributes
//! split into separate VHLO attributes, channel handles, unit attributes, dense arrays) and the
//! defaults VHLO spells out. The facts come from upstream's StablehloLegalizeToVhlo.cpp and
//! VhloLegalizeToStablehlo.cpp (`convertSpecial`, `addDefaults`, `implodeSpecial`,
//! `removeDefaults`). The defaults are the spec's (`vhlo_default:` of each `stablehlo:`
//! attribute), with the values that depend on the op computed by the named hooks here; a unit
//! attribute is a bool by its ODS type.

use crate::dialect::support::{vhlo_bool, vhlo_enum, vhlo_i64};
use crate::ir::{AttrData, Attribute, Module, NamedAttr, OpId, Param, Signedness, TypeData};
use crate::vhlo::{attrs as vattr, types as vtypes, VhloAttr, VhloEnum, VhloType};
use crate::vhlo::{OdsConstraint, StablehloOp, VhloDefault, VhloOp};

use super::attrs::{self, vhlo_i64_tensor, vhlo_string};
use super::types;

type Named = Vec<(String, Attribute)>;

fn dialect_parts(m: &Module, a: Attribute) -> Option<(&str, &str, &[Param])> {
    match m.attr_data(a) {
        AttrData::Dialect(d) => Some((m.str(d.dialect), m.str(d.mnemonic), &d.params)),
        _ => None,
    }
}

/// The parameters of `#stablehlo.<mnemonic><...>`, if `a` is one.
fn stablehlo_params(m: &Module, a: Attribute, mnemonic: &str) -> Option<Vec<Param>> {
    match dialect_parts(m, a) {
        Some(("stablehlo", mn, ps)) if mn == mnemonic => Some(ps.to_vec()),
        _ => None,
    }
}

fn ints_attr(m: &mut Module, p: &Param) -> Result<Attribute, String> {
    match p {
        Param::Ints(v) => vhlo_i64_tensor(m, &[v.len() as i64], v),
        _ => Err("malformed dimension list".into()),
    }
}

fn int_attr(m: &mut Module, p: &Param) -> Result<Attribute, String> {
    match p {
        Param::Int(v) => Ok(vhlo_i64(m, *v)),
        _ => Err("malformed integer field".into()),
    }
}

/// Splits the fields of a struct attribute into separate VHLO attributes (ints and dim lists).
fn split_fields(
    m: &mut Module,
    params: &[Param],
    names: &[&str],
    out: &mut Named,
) -> Result<(), String> {
    if params.len() != names.len() {
        return Err("malformed struct attribute".into());
    }
    for (p, n) in params.iter().zip(names) {
        let a = match p {
            Param::Ints(_) => ints_attr(m, p)?,
            _ => int_attr(m, p)?,
        };
        out.push((n.to_string(), a));
    }
    Ok(())
}

/// The VHLO attributes that the StableHLO attribute `name` of `k` splits into (spec `vhlo:`).
fn vhlo_fields(k: StablehloOp, name: &str) -> &'static [&'static str] {
    k.attribute_names()
        .iter()
        .zip(k.attribute_vhlo_fields())
        .find(|(n, _)| **n == name)
        .and_then(|(_, f)| *f)
        .unwrap_or(&[])
}

use StablehloOp as S;

/// Whether the StableHLO op has the attribute `name` in the spec, and if so whether it may be
/// absent.
fn spec_attr(k: StablehloOp, name: &str) -> Option<bool> {
    let i = k.attribute_names().iter().position(|n| *n == name)?;
    k.attribute_optional().get(i).copied()
}
/// The collectives whose optional `channel_handle` VHLO splits into `channel_id` and
/// `channel_type` (send and recv require theirs).
fn has_channel_id(k: StablehloOp) -> bool {
    spec_attr(k, "channel_handle") == Some(true)
        && k.to_vhlo().attribute_names().contains(&"channel_id")
}
/// The mnemonic of a `#stablehlo.<mnemonic>` struct attribute that VHLO splits into one
/// integer or dimension list per field (spec `vhlo:`, in the struct's order). The dot algorithm
/// (typed fields, all `none` when absent) and the channel handle (its type kept only by send and
/// recv) have forms of their own.
fn plain_struct(k: StablehloOp, name: &str) -> Option<&'static str> {
    match constraint(k, name)? {
        OdsConstraint::Stablehlo(mn)
            if !matches!(mn, "dot_algorithm" | "channel_handle")
                && k.attribute_names()
                    .iter()
                    .zip(k.attribute_vhlo_fields())
                    .any(|(n, f)| *n == name && f.is_some_and(|f| !f.is_empty())) =>
        {
            Some(mn)
        }
        _ => None,
    }
}

/// A `UnitAttr` of the StableHLO op that VHLO keeps as a bool of the same name (present: true).
fn is_unit_as_bool(k: StablehloOp, name: &str) -> bool {
    let Some(i) = k.attribute_names().iter().position(|n| *n == name) else {
        return false;
    };
    k.attribute_constraints().get(i) == Some(&OdsConstraint::Unit)
        && k.attribute_vhlo_fields()
            .get(i)
            .copied()
            .flatten()
            .is_none()
}

/// Op-specific conversion of one StableHLO attribute. `None` when it is not a special case.
fn special_to_vhlo(
    m: &mut Module,
    k: StablehloOp,
    name: &str,
    a: Attribute,
    out: &mut Named,
) -> Option<Result<(), String>> {
    let unit_to_true = |m: &mut Module, out: &mut Named| {
        if matches!(m.attr_data(a), AttrData::Unit) {
            let t = vhlo_bool(m, true);
            out.push((name.to_string(), t));
            Ok(())
        } else {
            Err(format!("`{name}` must be a unit attribute"))
        }
    };
    let r = match (k, name) {
        (_, "channel_handle") if has_channel_id(k) || matches!(k, S::Send | S::Recv) => {
            let Some(ps) = stablehlo_params(m, a, "channel_handle") else {
                return Some(Err(
                    "`channel_handle` must be a #stablehlo.channel_handle".into()
                ));
            };
            let [Param::Int(handle), Param::Int(ty)] = ps[..] else {
                return Some(Err("malformed channel handle".into()));
            };
            let id = vhlo_i64(m, handle);
            out.push(("channel_id".into(), id));
            if matches!(k, S::Send | S::Recv) {
                let t = vhlo_i64(m, ty);
                out.push(("channel_type".into(), t));
            }
            Ok(())
        }
        _ if is_unit_as_bool(k, name) => unit_to_true(m, out),
        _ if plain_struct(k, name).is_some() => {
            let mnemonic = plain_struct(k, name).unwrap_or_default();
            match stablehlo_params(m, a, mnemonic) {
                Some(ps) => split_fields(m, &ps, vhlo_fields(k, name), out),
                None => Err(format!("`{name}` must be a #stablehlo.{mnemonic}")),
            }
        }
        (S::DotGeneral, "algorithm") => match stablehlo_params(m, a, "dot_algorithm") {
            Some(ps) if ps.len() == 7 => (|| {
                for (p, n) in ps.iter().zip(vhlo_fields(k, "algorithm")) {
                    let v = match p {
                        Param::Type(t) => {
                            let vt = types::to_vhlo(m, *t, false)?;
                            vattr::TypeV1 { value: vt }.build(m)
                        }
                        Param::Int(i) => vhlo_i64(m, *i),
                        Param::Bool(b) => vhlo_bool(m, *b),
                        _ => return Err("malformed dot algorithm".to_string()),
                    };
                    out.push((n.to_string(), v));
                }
                Ok(())
            })(),
            _ => Err("`algorithm` must be a #stablehlo.dot_algorithm".into()),
        },
        (S::CustomCall, "api_version") => match *m.attr_data(a) {
            AttrData::Integer { value, .. } => match i64::try_from(value)
                .ok()
                .filter(|v| crate::vhlo::ApiVersionV1::from_value(*v).is_some())
            {
                Some(v) => {
                    let e = vhlo_enum(m, VhloEnum::ApiVersionV1.mnemonic(), v);
                    out.push(("api_version".into(), e));
                    Ok(())
                }
                None => Err(format!(
                    "`api_version` {value} is not a custom call API version"
                )),
            },
            _ => Err("`api_version` must be an i32 integer".into()),
        },
        _ => return None,
    };
    Some(r)
}

fn i64_tensor_default(m: &mut Module, shape: &[i64], value: i64) -> Result<Attribute, String> {
    let n = num_elements(shape).ok_or("bad shape")?;
    let values = vec![value; n];
    vhlo_i64_tensor(m, shape, &values)
}

fn bool_tensor_default(m: &mut Module, n: usize, value: bool) -> Result<Attribute, String> {
    let element = m.ty(TypeData::Integer {
        width: 1,
        signedness: Signedness::Signless,
    });
    attrs::vhlo_dense_1d(m, element, n, vec![value as u8; n])
}

fn precision_default(m: &mut Module) -> Attribute {
    let d = vhlo_enum(m, VhloEnum::PrecisionV1.mnemonic(), 0);
    crate::dialect::support::vhlo_array(m, vec![d, d])
}

/// The element count of a static shape; `None` for dynamic dimensions or overflow.
fn num_elements(shape: &[i64]) -> Option<usize> {
    let n = shape.iter().try_fold(
        1i64,
        |acc, &d| if d < 0 { None } else { acc.checked_mul(d) },
    )?;
    usize::try_from(n).ok()
}

/// The number of elements of a StableHLO dim-list attribute (dense array or dense elements).
fn dim_list_len(m: &Module, a: Attribute) -> Option<usize> {
    match m.attr_data(a) {
        AttrData::DenseArray { element, data } => {
            Some(data.len() / types::element_bytes(m, *element)?.max(1))
        }
        AttrData::DenseElements { ty, .. } => match m.type_data(*ty) {
            TypeData::RankedTensor { shape, .. } => num_elements(shape),
            _ => None,
        },
        _ => None,
    }
}

/// The VHLO attributes that a StableHLO attribute stands for: its `vhlo:` fields, or itself.
fn vhlo_names(k: StablehloOp, name: &str) -> &[&str] {
    let i = k.attribute_names().iter().position(|n| *n == name);
    match i.and_then(|i| k.attribute_vhlo_fields().get(i).copied().flatten()) {
        Some(fields) => fields,
        None => std::slice::from_ref(&k.attribute_names()[i.unwrap_or(0)]),
    }
}

/// The VHLO attributes StableHLO leaves implicit (spec `vhlo_default:`, upstream's
/// `addDefaults`), for the attributes the op does not have.
fn defaults_to_vhlo(
    m: &mut Module,
    k: StablehloOp,
    present: &dyn Fn(&str) -> bool,
    get: &dyn Fn(&str) -> Option<Attribute>,
) -> Result<Named, String> {
    let mut out: Named = Vec::new();
    for &name in k.attribute_names() {
        if present(name) {
            continue;
        }
        let Some(d) = k.vhlo_default(m, name) else {
            continue;
        };
        for &field in vhlo_names(k, name) {
            let v = match d {
                VhloDefault::Value(v) => v,
                VhloDefault::Hook(h) => default_hook(m, h, name, get)?,
            };
            out.push((field.to_string(), v));
        }
    }
    Ok(out)
}

/// The spec's `vhlo_default: {hook: ...}` values (codegen's KNOWN_DEFAULT_HOOKS), which depend
/// on the op's other attributes.
fn default_hook(
    m: &mut Module,
    hook: &str,
    name: &str,
    get: &dyn Fn(&str) -> Option<Attribute>,
) -> Result<Attribute, String> {
    let conv_rank =
        |m: &Module| match get("dimension_numbers").and_then(|a| stablehlo_params(m, a, "conv")) {
            Some(ps) => match ps.get(2) {
                Some(Param::Ints(v)) => Ok(v.len()),
                _ => Err("malformed `dimension_numbers`".to_string()),
            },
            None => Err("missing `dimension_numbers`".to_string()),
        };
    let window_rank = |m: &Module| {
        get("window_dimensions")
            .and_then(|a| dim_list_len(m, a))
            .ok_or_else(|| "missing or malformed `window_dimensions`".to_string())
    };
    match hook {
        "conv_ones" => i64_tensor_default(m, &[conv_rank(m)? as i64], 1),
        "conv_padding" => i64_tensor_default(m, &[conv_rank(m)? as i64, 2], 0),
        "conv_reversal" => {
            let n = conv_rank(m)?;
            bool_tensor_default(m, n, false)
        }
        "window_ones" => i64_tensor_default(m, &[window_rank(m)? as i64], 1),
        "window_padding" => i64_tensor_default(m, &[window_rank(m)? as i64, 2], 0),
        "precision_config" => Ok(precision_default(m)),
        "backend_config" => {
            // StableHLO's getBackendConfigOrDefault: a dictionary for the typed FFI, else a string.
            let typed_ffi = matches!(
                get("api_version").map(|a| m.attr_data(a).clone()),
                Some(AttrData::Integer { value: 4, .. })
            );
            Ok(if typed_ffi {
                crate::dialect::support::vhlo_dict(m, vec![])
            } else {
                vhlo_string(m, "")
            })
        }
        "layouts" => Ok(crate::dialect::support::vhlo_array(m, vec![])),
        "refused" => Err(format!("missing `{name}`")),
        _ => Err(format!("unknown default hook `{hook}`")),
    }
}

/// Converts the attributes of StableHLO op `op` (kind `k`) to VHLO: inherent attributes become
/// the VHLO op's properties (defaults included), the rest stay discardable.
pub fn attrs_to_vhlo(
    m: &mut Module,
    op: OpId,
    k: StablehloOp,
    allow_other: bool,
) -> Result<(Named, Named), Vec<String>> {
    let inherent = k.attribute_names();
    let mut own: Vec<NamedAttr> = m.properties(op).to_vec();
    let mut discardable = Vec::new();
    for a in m.attributes(op).to_vec() {
        if inherent.contains(&m.str(a.name)) {
            own.push(a);
        } else {
            discardable.push(a);
        }
    }
    let mut errors = Vec::new();
    let mut props: Named = Vec::new();
    for a in &own {
        let name = m.str(a.name).to_string();
        match special_to_vhlo(m, k, &name, a.value, &mut props) {
            Some(Ok(())) => {}
            Some(Err(e)) => errors.push(format!("attribute `{name}`: {e}")),
            None => match attrs::to_vhlo(m, a.value, allow_other) {
                Ok(v) => props.push((name, v)),
                Err(e) => errors.push(format!("attribute `{name}`: {e}")),
            },
        }
    }
    let names: Vec<String> = own.iter().map(|a| m.str(a.name).to_string()).collect();
    let values: Vec<(String, Attribute)> = own
        .iter()
        .map(|a| (m.str(a.name).to_string(), a.value))
        .collect();
    match defaults_to_vhlo(m, k, &|n| names.iter().any(|x| x == n), &|n| {
        values.iter().find(|x| x.0 == n).map(|x| x.1)
    }) {
        Ok(d) => props.extend(d),
        Err(e) => errors.push(e),
    }
    let mut disc: Named = Vec::new();
    for a in discardable {
        let name = m.str(a.name).to_string();
        // Names travel as text here: refuse rather than alter one that is not UTF-8.
        if m.utf8(a.name).is_none() {
            errors.push(format!(
                "attribute name `{name}` is not UTF-8 (not supported)"
            ));
            continue;
        }
        match attrs::to_vhlo(m, a.value, allow_other) {
            Ok(v) => disc.push((name, v)),
            Err(e) => errors.push(format!("attribute `{name}`: {e}")),
        }
    }
    if errors.is_empty() {
        Ok((props, disc))
    } else {
        Err(errors)
    }
}

// ---- VHLO -> StableHLO -------------------------------------------------------------------------

fn vhlo_parts(m: &Module, a: Attribute) -> Option<(&str, &[Param])> {
    match dialect_parts(m, a) {
        Some(("vhlo", mn, ps)) => Some((mn, ps)),
        _ => None,
    }
}

/// Whether a VHLO mnemonic is that of `kind`.
fn is_kind(mnemonic: &str, kind: VhloAttr) -> bool {
    mnemonic == kind.mnemonic()
}

fn vhlo_int(m: &Module, a: Attribute) -> Option<i64> {
    vattr::IntegerV1::read(m, a).map(|x| x.value)
}

fn vhlo_bool_value(m: &Module, a: Attribute) -> Option<bool> {
    vattr::BoolV1::read(m, a).map(|x| x.value)
}

/// The most elements a splat `#vhlo.tensor_v1` is expanded to where StableHLO keeps a list
/// (dimension numbers, `DenseI64ArrayAttr`s). These list dimensions, and ranks are far smaller;
/// the limit keeps a 300-byte artifact from asking for terabytes.
pub(crate) const MAX_SPLAT_EXPANSION: u64 = 1 << 16;

/// An integer `#vhlo.tensor_v1`, with a splat kept as one element.
enum IntTensor {
    Splat { value: i64, count: u64 },
    Elements(Vec<i64>),
}

fn vhlo_int_tensor(m: &Module, a: Attribute) -> Option<IntTensor> {
    let vattr::TensorV1 { ty, data } = vattr::TensorV1::read(m, a)?;
    let vtypes::TensorV1 {
        shape,
        element_type: e,
        ..
    } = vtypes::TensorV1::read(m, ty)?;
    let n = shape.iter().try_fold(1u64, |acc, &x| {
        Some(acc.saturating_mul(u64::try_from(x).ok()?))
    })?;
    // Bytes per element of integer dense data: sub-byte integers take a byte each.
    let width = match crate::scalars::type_of(VhloType::of(m, e)?.mnemonic())? {
        TypeData::Integer { width, .. } => usize::try_from(width.div_ceil(8)).ok()?,
        TypeData::Index => 8,
        _ => return None,
    };
    let read = |c: &[u8]| {
        let mut b = [0u8; 8];
        b[..width].copy_from_slice(c);
        // Sign-extend from the element width.
        let v = i64::from_le_bytes(b);
        let shift = 64 - 8 * width as u32;
        (v << shift) >> shift
    };
    if data.len() == width && n != 1 {
        return Some(IntTensor::Splat {
            value: read(&data),
            count: n,
        });
    }
    if data.len() as u64 != n.checked_mul(width as u64)? {
        return None;
    }
    Some(IntTensor::Elements(data.chunks(width).map(read).collect()))
}

/// The elements of an integer `#vhlo.tensor_v1`, a splat expanded (at most
/// [`MAX_SPLAT_EXPANSION`] elements); `Err` says why not, after `attribute ... `.
fn vhlo_tensor_ints(m: &Module, a: Attribute) -> Result<Vec<i64>, String> {
    match vhlo_int_tensor(m, a) {
        None => Err("must be an integer tensor".into()),
        Some(IntTensor::Elements(xs)) => Ok(xs),
        Some(IntTensor::Splat { value, count }) if count <= MAX_SPLAT_EXPANSION => {
            Ok(vec![value; count as usize])
        }
        Some(IntTensor::Splat { count, .. }) => Err(format!(
            "is a splat of {count} elements; a list attribute holds at most {MAX_SPLAT_EXPANSION}"
        )),
    }
}

fn is_splat_of(m: &Module, a: Attribute, v: i64) -> bool {
    match vhlo_int_tensor(m, a) {
        Some(IntTensor::Splat { value, .. }) => value == v,
        Some(IntTensor::Elements(xs)) => xs.iter().all(|&x| x == v),
        None => false,
    }
}

/// Joins separate VHLO attributes back into a StableHLO struct attribute, removing them from `attrs`.
fn implode(
    m: &mut Module,
    attrs: &mut Named,
    names: &[&str],
    mnemonic: &str,
) -> Result<Attribute, String> {
    let mut params = Vec::with_capacity(names.len());
    for n in names {
        let Some(pos) = attrs.iter().position(|x| x.0 == *n) else {
            return Err(format!("attribute `{n}` is missing"));
        };
        let (_, a) = attrs.remove(pos);
        // One dimension (`index_vector_dim`, `input_batch_dimension`) or a list of them.
        let scalar = n.ends_with("_dim") || n.ends_with("_dimension");
        if scalar {
            let v = vhlo_int(m, a).ok_or_else(|| format!("attribute `{n}` must be an integer"))?;
            params.push(Param::Int(v));
        } else {
            let v = vhlo_tensor_ints(m, a).map_err(|e| format!("attribute `{n}` {e}"))?;
            params.push(Param::Ints(v.into()));
        }
    }
    Ok(attrs::stablehlo_attr(m, mnemonic, params))
}

fn take(attrs: &mut Named, name: &str) -> Option<Attribute> {
    let pos = attrs.iter().position(|x| x.0 == name)?;
    Some(attrs.remove(pos).1)
}

fn is_none_type_attr(m: &Module, a: Attribute) -> bool {
    vattr::TypeV1::read(m, a).is_some_and(|t| VhloType::of(m, t.value) == Some(VhloType::NoneV1))
}

/// What the ODS type of the StableHLO op's attribute `name` asks of it, if the op has one.
fn constraint(k: StablehloOp, name: &str) -> Option<OdsConstraint> {
    let i = k.attribute_names().iter().position(|n| *n == name)?;
    k.attribute_constraints().get(i).copied()
}

fn dense_array(m: &mut Module, width: u32, values: &[i64]) -> Attribute {
    let element = m.ty(TypeData::Integer {
        width,
        signedness: Signedness::Signless,
    });
    let data: Vec<u8> = if width == 1 {
        values.iter().map(|&v| (v != 0) as u8).collect()
    } else {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    };
    m.attr(AttrData::DenseArray {
        element,
        data: data.into(),
    })
}

fn symbol_ref(m: &mut Module, a: Attribute) -> Option<Attribute> {
    let s = vattr::StringV1::read(m, a)?.value;
    Some(m.attr(AttrData::SymbolRef {
        root: s,
        nested: Box::new([]),
    }))
}

/// Whether VHLO attribute `a` is the default `d`, as upstream's `removeDefaults` compares: an
/// integer by value (whatever its width), an integer tensor by its elements (a splat or not, any
/// element type), a float by value (-0.0 is 0.0), and the rest by structure.
fn same_default(m: &Module, a: Attribute, d: Attribute) -> bool {
    if a == d {
        return true;
    }
    match (vhlo_parts(m, a), vhlo_parts(m, d)) {
        (Some((x, _)), Some((y, _))) if x == y && is_kind(x, VhloAttr::IntegerV1) => {
            vhlo_int(m, a) == vhlo_int(m, d)
        }
        (Some((x, _)), Some((y, _))) if x == y && is_kind(x, VhloAttr::TensorV1) => {
            match (vhlo_tensor_ints(m, a), vhlo_tensor_ints(m, d)) {
                (Ok(x), Ok(y)) => x == y,
                _ => false,
            }
        }
        (Some((x, ps)), Some((y, qs))) if x == y && ps.len() == qs.len() => {
            ps.iter().zip(qs).all(|(p, q)| match (p, q) {
                (Param::Float { bits: a, .. }, Param::Float { bits: b, .. }) => {
                    f64::from_bits(*a as u64) == f64::from_bits(*b as u64)
                }
                (Param::Attr(x), Param::Attr(y)) => same_default(m, *x, *y),
                _ => p == q,
            })
        }
        _ => false,
    }
}

/// Whether `a`, the VHLO attribute `field`, holds what the default hook `hook` writes.
fn is_default_hook(m: &Module, hook: &str, a: Attribute, attrs: &Named) -> bool {
    let is_empty_array =
        |a: Attribute| vattr::ArrayV1::read(m, a).is_some_and(|x| x.value.is_empty());
    match hook {
        "conv_ones" | "window_ones" => is_splat_of(m, a, 1),
        "conv_padding" | "window_padding" | "conv_reversal" => is_splat_of(m, a, 0),
        "precision_config" => vattr::ArrayV1::read(m, a).is_some_and(|xs| {
            xs.value.iter().all(|&x| {
                matches!(vhlo_parts(m, x), Some((e, [Param::Int(0)])) if e == VhloEnum::PrecisionV1.mnemonic())
            })
        }),
        "backend_config" => {
            vattr::StringV1::read(m, a).is_some_and(|s| m.str(s.value).is_empty())
                || vattr::DictV1::read(m, a).is_some_and(|d| d.value.is_empty())
        }
        // Upstream drops the layouts only together.
        "layouts" => ["operand_layouts", "result_layouts"]
            .iter()
            .all(|n| attrs.iter().any(|x| x.0 == *n && is_empty_array(x.1))),
        _ => false,
    }
}

/// Drops VHLO attributes that hold StableHLO's implicit default (spec `vhlo_default:`,
/// upstream's `removeDefaults`).
fn remove_defaults(m: &mut Module, k: StablehloOp, attrs: &mut Named) {
    let mut erase: Vec<&str> = Vec::new();
    for &name in k.attribute_names() {
        let Some(d) = k.vhlo_default(m, name) else {
            continue;
        };
        for &field in vhlo_names(k, name) {
            let Some(a) = attrs.iter().find(|x| x.0 == field).map(|x| x.1) else {
                continue;
            };
            let is = match d {
                VhloDefault::Value(v) => same_default(m, a, v),
                VhloDefault::Hook(h) => is_default_hook(m, h, a, attrs),
            };
            if is {
                erase.push(field);
            }
        }
    }
    attrs.retain(|x| !erase.contains(&x.0.as_str()));
}

/// Converts the (current-version) VHLO properties of an op of kind `k` to StableHLO attributes.
pub fn attrs_from_vhlo(
    m: &mut Module,
    k: StablehloOp,
    mut attrs: Named,
) -> Result<Named, Vec<String>> {
    let mut out: Named = Vec::new();
    let mut errors = Vec::new();
    let mut push_implode =
        |m: &mut Module, attrs: &mut Named, names: &[&str], mnemonic: &str, as_name: &str| {
            match implode(m, attrs, names, mnemonic) {
                Ok(a) => out.push((as_name.to_string(), a)),
                Err(e) => errors.push(e),
            }
        };
    // Struct attributes that VHLO splits into fields (spec `vhlo:`), put back together.
    for &name in k.attribute_names() {
        if let Some(mnemonic) = plain_struct(k, name) {
            push_implode(m, &mut attrs, vhlo_fields(k, name), mnemonic, name);
        }
    }
    if k == S::DotGeneral {
        let fields: Vec<Option<Attribute>> = vhlo_fields(k, "algorithm")
            .iter()
            .map(|n| take(&mut attrs, n))
            .collect();
        let all_none = fields
            .iter()
            .all(|f| f.is_some_and(|a| is_none_type_attr(m, a)));
        if !all_none {
            let mut params = Vec::new();
            for (i, (f, n)) in fields.iter().zip(vhlo_fields(k, "algorithm")).enumerate() {
                let Some(a) = *f else {
                    errors.push(format!("attribute `{n}` is missing"));
                    continue;
                };
                // Three types, three counts, one flag, in the spec's `vhlo:` order.
                let typed = (
                    vattr::TypeV1::read(m, a),
                    vhlo_int(m, a),
                    vhlo_bool_value(m, a),
                );
                let p = match (i, typed) {
                    (0..=2, (Some(t), _, _)) => types::from_vhlo(m, t.value).map(Param::Type),
                    (3..=5, (_, Some(v), _)) => Ok(Param::Int(v)),
                    (6, (_, _, Some(b))) => Ok(Param::Bool(b)),
                    _ => Err(format!("attribute `{n}` has an unexpected form (a dot algorithm is all none types or all set)")),
                };
                match p {
                    Ok(p) => params.push(p),
                    Err(e) => errors.push(e),
                }
            }
            if params.len() == 7 {
                let a = attrs::stablehlo_attr(m, "dot_algorithm", params);
                out.push(("algorithm".into(), a));
            }
        }
    }
    if matches!(k, S::Send | S::Recv) {
        match (
            take(&mut attrs, "channel_id").and_then(|a| vhlo_int(m, a)),
            take(&mut attrs, "channel_type").and_then(|a| vhlo_int(m, a)),
        ) {
            (Some(id), Some(ty)) => {
                let a = attrs::stablehlo_attr(
                    m,
                    "channel_handle",
                    vec![Param::Int(id), Param::Int(ty)],
                );
                out.push(("channel_handle".into(), a));
            }
            _ => errors.push("attributes `channel_id` and `channel_type` must be integers".into()),
        }
    }
    remove_defaults(m, k, &mut attrs);
    for (name, a) in attrs {
        let r: Result<Option<(String, Attribute)>, String> = (|| {
            if has_channel_id(k) && name == "channel_id" {
                let id = vhlo_int(m, a).ok_or("`channel_id` must be an integer")?;
                return Ok(Some((
                    "channel_handle".into(),
                    attrs::stablehlo_attr(m, "channel_handle", vec![Param::Int(id), Param::Int(0)]),
                )));
            }
            if is_unit_as_bool(k, &name) {
                let b = vhlo_bool_value(m, a).ok_or(format!("`{name}` must be a boolean"))?;
                return Ok(b.then(|| (name.clone(), m.attr(AttrData::Unit))));
            }
            let ods = constraint(k, &name);
            let symbols = ods == Some(OdsConstraint::FlatSymbolRefArray);
            if symbols || ods == Some(OdsConstraint::FlatSymbolRef) {
                // VHLO keeps a symbol (MLIR's FlatSymbolRefAttr) as a string, an array of them
                // as an array of strings.
                let array = vattr::ArrayV1::read(m, a).map(|x| x.value.into_vec());
                if array.is_some() != symbols {
                    return Err(format!(
                        "`{name}` must be {}",
                        if symbols {
                            "an array of strings"
                        } else {
                            "a string"
                        }
                    ));
                }
                let conv = if let Some(xs) = array {
                    let refs = xs
                        .iter()
                        .map(|&x| symbol_ref(m, x))
                        .collect::<Option<Vec<_>>>()
                        .ok_or(format!("`{name}` must hold strings"))?;
                    m.attr(AttrData::Array(refs.into()))
                } else {
                    symbol_ref(m, a).ok_or(format!("`{name}` must be a string"))?
                };
                return Ok(Some((name.clone(), conv)));
            }
            // Dense arrays (`array<i64: ...>`) in StableHLO, tensors in VHLO.
            let width = match ods {
                Some(OdsConstraint::DenseI64Array) => Some(64),
                Some(OdsConstraint::DenseBoolArray) => Some(1),
                _ => None,
            };
            if let Some(width) = width {
                let v = vhlo_tensor_ints(m, a).map_err(|e| format!("`{name}` {e}"))?;
                return Ok(Some((name.clone(), dense_array(m, width, &v))));
            }
            if k == S::ReducePrecision && (name == "exponent_bits" || name == "mantissa_bits") {
                // StableHLO's verifier: at least one exponent bit, no negative mantissa width
                // (the custom form `e<E>m<M>` cannot spell anything else).
                let least = if name == "exponent_bits" { 1 } else { 0 };
                match vhlo_int(m, a) {
                    Some(v) if v >= least => {}
                    Some(v) => return Err(format!("{name} is {v}; it must be at least {least}")),
                    None => return Err(format!("`{name}` must be an integer")),
                }
            }
            if k == S::Func && name == "sym_visibility" {
                let v = attrs::from_vhlo(m, a)?;
                // MLIR's symbol verifier accepts these three only (the default "" is gone here).
                let valid = matches!(m.attr_data(v), AttrData::String { value, ty: None }
                    if matches!(m.str(*value), "public" | "private" | "nested"));
                if !valid {
                    let shown = crate::text::attribute_to_string(m, v);
                    return Err(format!(
                        "visibility {shown} is not \"public\", \"private\" or \"nested\""
                    ));
                }
                return Ok(Some((name.clone(), v)));
            }
            Ok(Some((name.clone(), attrs::from_vhlo(m, a)?)))
        })();
        match r {
            Ok(Some(x)) => out.push(x),
            Ok(None) => {}
            Err(e) => errors.push(format!("attribute `{name}`: {e}")),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Sorted named attributes, as MLIR stores dictionaries and properties.
pub fn to_named(m: &mut Module, mut v: Named) -> Vec<NamedAttr> {
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v.dedup_by(|a, b| a.0 == b.0);
    v.into_iter()
        .map(|(n, value)| NamedAttr {
            name: m.sym(&n),
            value,
        })
        .collect()
}

/// The VHLO op kind of a StableHLO op kind at its current version.
pub fn current_vhlo(k: StablehloOp) -> VhloOp {
    k.to_vhlo()
}
