//! The VHLO attribute and type codecs, driven by the spec: an entry is its code (`code:` in
//! `spec/attrs.yaml`, `spec/types.yaml`) then its parameters in the order and wire forms the
//! generated `wire()` tables give (each parameter kind's plain form, or its named `wire:` hint).
//! Each wire form is read and written side by side below, as in MLIR's
//! `BuiltinDialectBytecode.td`; the irregular cases of upstream's `VhloBytecode.cpp` (type-width
//! APInts, i1-packed tensor blobs, the two optional-attribute forms, quantization checks) are
//! hints here, not arms of a per-code match.

// Input path: no panics whatever the bytes.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use super::encoding::{mask, read_apint, read_shape, sign_extend, zigzag, Cursor, Emitter};
use super::BytecodeError;
use super::WriteError;
use crate::dialect::{Wire, WireStep};
use crate::ir::{
    AttrData, Attribute, Blob, DialectAttr, DialectType, Module, Param, Signedness, Symbol, Type,
    TypeData,
};
use crate::vhlo::{VhloAttr, VhloEnum, VhloType};

type ReadResult<T> = std::result::Result<T, BytecodeError>;
type WriteResult<T> = std::result::Result<T, WriteError>;

/// What the codecs read through: the reader's attribute and type references and strings.
pub(super) trait VhloSource {
    fn string(&mut self, c: &mut Cursor<'_>) -> ReadResult<Symbol>;
    fn attr(&mut self, c: &mut Cursor<'_>) -> ReadResult<Attribute>;
    fn attr_at(&mut self, c: &Cursor<'_>, idx: usize) -> ReadResult<Attribute>;
    fn module(&mut self) -> &mut Module;
    fn ty(&mut self, c: &mut Cursor<'_>) -> ReadResult<Type>;
    /// A count and that many type references. Loops, not iterator adapters: each adapter is a
    /// frame on the recursion path of an unoptimized build.
    fn type_list(&mut self, c: &mut Cursor<'_>) -> ReadResult<Box<[Type]>> {
        let n = c.count(1)?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(self.ty(c)?);
        }
        Ok(items.into())
    }
    /// A count and that many (key, value) pairs of attribute references.
    fn attr_pair_list(&mut self, c: &mut Cursor<'_>) -> ReadResult<Box<[(Attribute, Attribute)]>> {
        let n = c.count(2)?;
        let mut pairs = Vec::with_capacity(n);
        for _ in 0..n {
            let k = self.attr(c)?;
            let v = self.attr(c)?;
            pairs.push((k, v));
        }
        Ok(pairs.into())
    }
    /// A count and that many attribute references.
    fn attr_list(&mut self, c: &mut Cursor<'_>) -> ReadResult<Box<[Attribute]>> {
        let n = c.count(1)?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(self.attr(c)?);
        }
        Ok(items.into())
    }
    /// The reader's cache of interned mnemonics, with the module they are interned in.
    fn mnemonics(&mut self) -> (&mut Mnemonics, &mut Module);
    /// Large data of the input as the module holds it (a view when the input is shared).
    fn blob(&self, bytes: &[u8]) -> Blob;
}

/// The symbols of the VHLO mnemonics read so far, by kind: an artifact has thousands of entries
/// of a few kinds.
#[derive(Default)]
pub(super) struct Mnemonics {
    attrs: Vec<Option<Symbol>>,
    types: Vec<Option<Symbol>>,
    enums: Vec<Option<Symbol>>,
}

fn cached_sym(slots: &mut Vec<Option<Symbol>>, i: usize, m: &mut Module, name: &str) -> Symbol {
    if let Some(Some(s)) = slots.get(i) {
        return *s;
    }
    let s = m.sym(name);
    if slots.len() <= i {
        slots.resize(i.saturating_add(1), None);
    }
    if let Some(slot) = slots.get_mut(i) {
        *slot = Some(s);
    }
    s
}

fn attr_sym<S: VhloSource>(s: &mut S, a: VhloAttr) -> Symbol {
    let (cache, m) = s.mnemonics();
    cached_sym(&mut cache.attrs, a as usize, m, a.mnemonic())
}

fn type_sym<S: VhloSource>(s: &mut S, t: VhloType) -> Symbol {
    let (cache, m) = s.mnemonics();
    cached_sym(&mut cache.types, t as usize, m, t.mnemonic())
}

// ---- entries ----------------------------------------------------------------------------------

/// Reads a VHLO attribute entry (`dialect` is the interned `vhlo`).
pub(super) fn read_attr<S: VhloSource>(
    s: &mut S,
    dialect: Symbol,
    c: &mut Cursor<'_>,
) -> ReadResult<AttrData> {
    let at = c.offset();
    let code = c.varint()?;
    let code32 = u32::try_from(code).ok();
    if let Some(e) = code32.and_then(VhloEnum::from_code) {
        let (cache, m) = s.mnemonics();
        let mnemonic = cached_sym(&mut cache.enums, e as usize, m, e.mnemonic());
        return read_enum(e, dialect, mnemonic, c);
    }
    let a = code32.and_then(VhloAttr::from_code).ok_or_else(|| {
        c.err_at(at, format!("unknown vhlo attribute code {code}"))
            .of_kind(super::BytecodeErrorKind::Unsupported)
    })?;
    let specs = a.params();
    let name = |i: usize| specs.get(i).map_or("?", |p| p.name);
    let params = read_params(s, (a.mnemonic(), specs.len(), name), a.wire(), false, c)?;
    let mnemonic = attr_sym(s, a);
    Ok(AttrData::Dialect(DialectAttr {
        dialect,
        mnemonic,
        params,
    }))
}

/// An enum attribute: its case as a varint; like MLIR's symbolize, only defined cases. Not inlined
/// into `read_attr`, whose frame is on the recursion path.
#[inline(never)]
fn read_enum(
    e: VhloEnum,
    dialect: Symbol,
    mnemonic: Symbol,
    c: &mut Cursor<'_>,
) -> ReadResult<AttrData> {
    let case_at = c.offset();
    let v = c.varint()?;
    let case = i64::try_from(v)
        .ok()
        .filter(|&v| e.case_name(v).is_some())
        .ok_or_else(|| c.err_at(case_at, format!("{v} is not a case of {}", e.mnemonic())))?;
    Ok(AttrData::Dialect(DialectAttr {
        dialect,
        mnemonic,
        params: Box::new([Param::Int(case)]),
    }))
}

/// Writes a VHLO attribute entry.
pub(super) fn write_attr(
    m: &mut Module,
    mnemonic: &str,
    params: &[Param],
    w: &mut dyn DialectWriter,
) -> WriteResult<()> {
    let bad = || WriteError(format!("#vhlo.{mnemonic} has unexpected parameters"));
    if let Some(e) = VhloEnum::from_mnemonic(mnemonic) {
        let [Param::Int(v)] = params else {
            return Err(bad());
        };
        w.varint(u64::from(e.code()));
        w.varint(u64::try_from(*v).map_err(|_| bad())?);
        return Ok(());
    }
    let a = VhloAttr::from_mnemonic(mnemonic).ok_or_else(bad)?;
    if params.len() != a.params().len() {
        return Err(bad());
    }
    w.varint(u64::from(a.code()));
    write_params(m, a.wire(), params, w, &bad)
}

/// Reads a VHLO type entry (`dialect` is the interned `vhlo`).
pub(super) fn read_type<S: VhloSource>(
    s: &mut S,
    dialect: Symbol,
    c: &mut Cursor<'_>,
) -> ReadResult<TypeData> {
    let at = c.offset();
    let code = c.varint()?;
    let code32 = u32::try_from(code).ok();
    let t = code32.and_then(VhloType::from_code).ok_or_else(|| {
        c.err_at(at, format!("unknown vhlo type code {code}"))
            .of_kind(super::BytecodeErrorKind::Unsupported)
    })?;
    let by_code = code32.is_some() && code32 == t.code_with_encoding();
    let specs = t.params();
    let name = |i: usize| specs.get(i).map_or("?", |p| p.name);
    let params = read_params(s, (t.mnemonic(), specs.len(), name), t.wire(), by_code, c)?;
    let mnemonic = type_sym(s, t);
    Ok(TypeData::Dialect(DialectType {
        dialect,
        mnemonic,
        params,
    }))
}

/// Writes a VHLO type entry; a `code_with_encoding` type takes that code when its optional
/// parameter is present.
pub(super) fn write_type(
    m: &mut Module,
    mnemonic: &str,
    params: &[Param],
    w: &mut dyn DialectWriter,
) -> WriteResult<()> {
    let bad = || WriteError(format!("!vhlo.{mnemonic} has unexpected parameters"));
    let t = VhloType::from_mnemonic(mnemonic).ok_or_else(bad)?;
    if params.len() != t.params().len() {
        return Err(bad());
    }
    let mut code = t.code();
    if let Some(alt) = t.code_with_encoding() {
        let step = t.wire().iter().find(|s| s.wire == Wire::ByCode);
        match step.and_then(|s| params.get(s.param)) {
            Some(Param::Attr(_)) => code = alt,
            Some(Param::Absent) => {}
            _ => return Err(bad()),
        }
    }
    w.varint(u64::from(code));
    write_params(m, t.wire(), params, w, &bad)
}

/// The type parameter at storage index `p` of what has been read or is being written.
fn type_param(params: &[Param], p: usize) -> Option<Type> {
    match params.get(p) {
        Some(Param::Type(t)) => Some(*t),
        _ => None,
    }
}

// ---- each wire form, read and written ---------------------------------------------------------
//
// The forms that refer to other entries (types, attributes, strings) are read by `read_params`
// and written by `write_params`; the plain ones by `read_plain` and `write_plain`. A reference
// recurses through the reader's `resolve`: keeping those arms in one small frame keeps a deep
// nesting within the stack.

/// Reads the parameters of an entry whose `wire` steps follow its code; `what` is the entry's
/// mnemonic, its parameter count and their names (for errors).
pub(super) fn read_params<S: VhloSource, N: Fn(usize) -> &'static str>(
    s: &mut S,
    what: (&str, usize, N),
    wire: &[WireStep],
    by_code: bool,
    c: &mut Cursor<'_>,
) -> ReadResult<Box<[Param]>> {
    let (mnemonic, len, name_of) = what;
    let mut params: Vec<Param> = Vec::with_capacity(len);
    // Where the last type parameter was read: a type-width APInt or a blob that does not fit
    // its type is reported there.
    let mut type_at = c.offset();
    for step in wire {
        if step.wire == Wire::Type {
            type_at = c.offset();
        }
        let v = match step.wire {
            Wire::Type => Param::Type(s.ty(c)?),
            Wire::Attr => Param::Attr(s.attr(c)?),
            Wire::String => Param::Str(s.string(c)?),
            Wire::Types => Param::Types(s.type_list(c)?),
            Wire::Attrs => Param::Attrs(s.attr_list(c)?),
            Wire::AttrPairs => Param::AttrPairs(s.attr_pair_list(c)?),
            Wire::PresenceFlag => {
                if c.varint()? != 0 {
                    Param::Attr(s.attr(c)?)
                } else {
                    Param::Absent
                }
            }
            Wire::IndexWithFlag => match c.varint_with_flag()? {
                (idx, true) => {
                    let idx =
                        usize::try_from(idx).map_err(|_| c.err("attribute index too large"))?;
                    Param::Attr(s.attr_at(c, idx)?)
                }
                (_, false) => Param::Absent,
            },
            Wire::ByCode => {
                if by_code {
                    Param::Attr(s.attr(c)?)
                } else {
                    Param::Absent
                }
            }
            Wire::PackedI1Blob(p) => read_i1_blob(s, mnemonic, type_param(&params, p), c)?,
            plain => {
                let name = name_of(step.param);
                read_plain(s.module(), plain, &params, c, (mnemonic, name, type_at))?
            }
        };
        if step.param == params.len() {
            params.push(v);
        } else {
            // Out of storage order (`wire_order:`, or the type's leading encoding).
            if step.param >= params.len() {
                params.resize(step.param.saturating_add(1), Param::Absent);
            }
            if let Some(slot) = params.get_mut(step.param) {
                *slot = v;
            }
        }
    }
    if params.len() != len {
        params.resize(len, Param::Absent);
    }
    Ok(params.into_boxed_slice())
}

/// Writes the parameters of an entry as its `wire` steps say (after its code); a parameter
/// that does not fit its step is `bad`.
pub(super) fn write_params(
    m: &mut Module,
    wire: &[WireStep],
    params: &[Param],
    w: &mut dyn DialectWriter,
    bad: &dyn Fn() -> WriteError,
) -> WriteResult<()> {
    for step in wire {
        let v = params.get(step.param).ok_or_else(bad)?;
        match (step.wire, v) {
            (Wire::Type, Param::Type(t)) => w.ty(m, *t)?,
            (Wire::Types, Param::Types(items)) => {
                w.varint(items.len() as u64);
                for &t in items.iter() {
                    w.ty(m, t)?;
                }
            }
            (Wire::Attr, Param::Attr(a)) => w.attr(m, *a)?,
            (Wire::Attrs, Param::Attrs(items)) => {
                w.varint(items.len() as u64);
                for &a in items.iter() {
                    w.attr(m, a)?;
                }
            }
            (Wire::AttrPairs, Param::AttrPairs(pairs)) => {
                w.varint(pairs.len() as u64);
                for &(k, v) in pairs.iter() {
                    w.attr(m, k)?;
                    w.attr(m, v)?;
                }
            }
            (Wire::String, Param::Str(s)) => w.string(m.bytes(*s)),
            (Wire::PresenceFlag, Param::Attr(a)) => {
                w.varint(1);
                w.attr(m, *a)?;
            }
            (Wire::PresenceFlag, Param::Absent) => w.varint(0),
            (Wire::IndexWithFlag, Param::Attr(a)) => w.opt_attr(m, Some(*a))?,
            (Wire::IndexWithFlag, Param::Absent) => w.opt_attr(m, None)?,
            (Wire::ByCode, Param::Attr(a)) => w.attr(m, *a)?,
            (Wire::ByCode, Param::Absent) => {}
            (plain, v) => write_plain(m, plain, v, params, w, bad)?,
        }
    }
    Ok(())
}

/// Reads one parameter of a form that refers to no other entry (`read_params` reads those);
/// `what` is (mnemonic, parameter name, offset of the last type) for errors.
#[inline(never)]
fn read_plain(
    m: &Module,
    wire: Wire,
    params: &[Param],
    c: &mut Cursor<'_>,
    what: (&str, &str, usize),
) -> ReadResult<Param> {
    let (mnemonic, name, type_at) = what;
    Ok(match wire {
        // Read by `read_params`.
        Wire::Type
        | Wire::Types
        | Wire::Attr
        | Wire::Attrs
        | Wire::AttrPairs
        | Wire::PresenceFlag
        | Wire::IndexWithFlag
        | Wire::ByCode
        | Wire::String
        | Wire::PackedI1Blob(_) => return Err(c.err("reference form read as a plain one")),
        Wire::Bool => Param::Bool(c.varint()? != 0),
        Wire::BoolByte => {
            let at = c.offset();
            match c.byte()? {
                0 => Param::Bool(false),
                1 => Param::Bool(true),
                v => return Err(c.err_at(at, format!("{v} is not a boolean"))),
            }
        }
        Wire::OptUVarInt => match c.varint_with_flag()? {
            (v, true) => Param::UInt(v),
            (0, false) => Param::Absent,
            _ => return Err(c.err(format!("{mnemonic} {name}: absent with a value"))),
        },
        Wire::SVarInt => Param::Int(c.signed_varint()?),
        Wire::SVarInts => Param::Ints(c.signed_varints()?),
        Wire::Shape => Param::Ints(read_shape(c)?),
        Wire::VarInt => {
            let v = c.varint()?;
            Param::Int(
                i64::try_from(v).map_err(|_| c.err(format!("{mnemonic} {name} {v} too large")))?,
            )
        }
        Wire::UVarInt => Param::UInt(c.varint()?),
        Wire::QuantFlags => {
            // MLIR's quantization flags define bit 0 (signed) only; another bit has no text form
            // and would be lost on printing.
            let at = c.offset();
            let flags = c.varint()?;
            if flags > 1 {
                return Err(c.err_at(
                    at,
                    format!("quantization flags {flags}: only 0 and 1 (signed) are defined"),
                ));
            }
            Param::UInt(flags)
        }
        Wire::F64 => Param::Float {
            bits: read_apint(c, 64)?,
            width: 64,
        },
        Wire::F64s => {
            let n = c.count(1)?;
            Param::Floats(
                (0..n)
                    .map(|_| read_apint(c, 64))
                    .collect::<ReadResult<_>>()?,
            )
        }
        Wire::QuantScale => Param::Float {
            bits: read_scale(c)?,
            width: 64,
        },
        Wire::QuantScales => {
            let n = c.count(1)?;
            Param::Floats((0..n).map(|_| read_scale(c)).collect::<ReadResult<_>>()?)
        }
        Wire::FloatOfType(p) => {
            let width = type_param(params, p)
                .and_then(|t| vhlo_float_width(m, t))
                .ok_or_else(|| c.err_at(type_at, format!("{mnemonic} of a non-float type")))?;
            Param::Float {
                bits: read_apint(c, width)?,
                width,
            }
        }
        Wire::IntOfType(p) => {
            let (width, _) = type_param(params, p)
                .and_then(|t| vhlo_int_width(m, t))
                .ok_or_else(|| c.err_at(type_at, format!("{mnemonic} of a non-integer type")))?;
            // The spec's `int` kind: the bit pattern sign-extended to 64 bits, whatever the
            // signedness (the type says how to read it).
            Param::Int(sign_extend(read_apint(c, width)?, width) as i64)
        }
    })
}

/// Writes one parameter `v` (of `params`) of a form that refers to no other entry; a parameter
/// of another form is `bad`.
fn write_plain(
    m: &mut Module,
    wire: Wire,
    v: &Param,
    params: &[Param],
    w: &mut dyn DialectWriter,
    bad: &dyn Fn() -> WriteError,
) -> WriteResult<()> {
    match (wire, v) {
        (Wire::Bool, Param::Bool(b)) => w.varint(u64::from(*b)),
        (Wire::BoolByte, Param::Bool(b)) => w.byte(u8::from(*b)),
        // The value and its presence flag in one varint: it must fit in 63 bits.
        (Wire::OptUVarInt, Param::UInt(u)) if u.leading_zeros() > 0 => {
            w.varint(u.wrapping_shl(1) | 1)
        }
        (Wire::OptUVarInt, Param::Absent) => w.varint(0),
        (Wire::SVarInt, Param::Int(i)) => w.signed_varint(*i),
        (Wire::SVarInts | Wire::Shape, Param::Ints(items)) => w.signed_varints(items),
        (Wire::VarInt, Param::Int(i)) => w.varint(u64::try_from(*i).map_err(|_| bad())?),
        (Wire::UVarInt | Wire::QuantFlags, Param::UInt(u)) => w.varint(*u),
        (Wire::F64 | Wire::QuantScale, Param::Float { bits, .. }) => w.apint(*bits, 64),
        (Wire::F64s | Wire::QuantScales, Param::Floats(items)) => {
            w.varint(items.len() as u64);
            for &f in items.iter() {
                w.apint(f, 64);
            }
        }
        (Wire::FloatOfType(p), Param::Float { bits, .. }) => {
            let width = type_param(params, p)
                .and_then(|t| vhlo_float_width(m, t))
                .ok_or_else(bad)?;
            w.apint(*bits, width);
        }
        (Wire::IntOfType(p), Param::Int(v)) => {
            let (width, _) = type_param(params, p)
                .and_then(|t| vhlo_int_width(m, t))
                .ok_or_else(bad)?;
            w.apint(u128::from(*v as u64), width);
        }
        (Wire::PackedI1Blob(p), Param::Bytes(raw)) => {
            let t = type_param(params, p).ok_or_else(bad)?;
            write_i1_blob(m, t, raw, w);
        }
        _ => return Err(bad()),
    }
    Ok(())
}

/// A quantization scale: an f64 that MLIR accepts (`illegal scale` otherwise).
fn read_scale(c: &mut Cursor<'_>) -> ReadResult<u128> {
    let at = c.offset();
    let bits = read_apint(c, 64)?;
    check_quant_scale(c, at, bits)?;
    Ok(bits)
}

/// `packed_i1_blob`, read: the data parameter of a tensor of type `t` (raw dense storage, one
/// element for a splat), i1 payloads unpacked to a byte per element, other data through the
/// reader's `blob` (a view of a shared input).
#[inline(never)]
fn read_i1_blob<S: VhloSource>(
    s: &mut S,
    mnemonic: &str,
    t: Option<Type>,
    c: &mut Cursor<'_>,
) -> ReadResult<Param> {
    let len = c.index()?;
    let blob_at = c.offset();
    let blob = c.bytes(len)?;
    let t = match t {
        Some(t) if vhlo_dense_size_fits(s.module(), t, blob) => t,
        _ => {
            return Err(c.err_at(
                blob_at,
                format!(
                "{mnemonic} data of {len} bytes does not fit its type (a static tensor of scalars)"
            ),
            ))
        }
    };
    let Some(num_elements) = vhlo_bool_tensor_elements(s.module(), t) else {
        return Ok(Param::Bytes(s.blob(blob)));
    };
    let mut data: Vec<u8> = blob.to_vec();
    let packed_size = num_elements.div_ceil(8);
    if num_elements == 0 {
        // A lone `00`/`FF` is valid storage of no elements (`isValidRawBuffer`), but
        // upstream's writer packs by element count and writes it back empty: so do we.
        data.clear();
    } else if blob.len() == 1 && blob.first() == Some(&0xFF) {
        data = vec![1];
    } else if blob.len() == packed_size {
        data = (0..num_elements)
            .map(|i| u8::from(blob.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0)))
            .collect();
    }
    // MLIR keeps all-equal data as a splat.
    if num_elements > 1
        && data.len() == num_elements
        && data.windows(2).all(|w| w.first() == w.last())
    {
        data.truncate(1);
    }
    Ok(Param::Bytes(data.into()))
}

/// `packed_i1_blob`, written: the data of a tensor of type `t` as one blob, i1 packed; other
/// data through the writer's `shared_blob` (streamed from where it lies).
fn write_i1_blob(m: &Module, t: Type, raw: &Blob, w: &mut dyn DialectWriter) {
    match vhlo_bool_tensor_elements(m, t) {
        Some(n) => w.blob(&pack_bools(raw, n)),
        None => w.shared_blob(raw),
    }
}

/// VHLO's i1 packing: a splat of more than one element is `FF`/`00`, otherwise LSB-first bits.
fn pack_bools(raw: &[u8], n: usize) -> Vec<u8> {
    if raw.len() == 1 && n > 1 {
        return vec![if raw.first().is_some_and(|&b| b != 0) {
            0xFF
        } else {
            0x00
        }];
    }
    let mut out = vec![0u8; n.div_ceil(8)];
    for (i, &b) in raw.iter().enumerate().take(n) {
        if b != 0 {
            if let Some(byte) = out.get_mut(i / 8) {
                *byte |= 1 << (i % 8);
            }
        }
    }
    out
}

// ---- what the hints ask of a type -----------------------------------------------------------

/// MLIR's quantized types need a positive, finite scale (`illegal scale`); NaN or infinity
/// would also print as text that does not parse.
fn check_quant_scale(c: &Cursor<'_>, at: usize, bits: u128) -> ReadResult<()> {
    let scale = f64::from_bits(bits as u64);
    if scale.is_finite() && scale > 0.0 {
        Ok(())
    } else {
        Err(c.err_at(at, format!("illegal quantization scale {scale}")))
    }
}

fn vhlo_mnemonic(m: &Module, t: Type) -> Option<(&str, &[Param])> {
    match m.type_data(t) {
        TypeData::Dialect(d) if m.str(d.dialect) == "vhlo" => Some((m.str(d.mnemonic), &d.params)),
        _ => None,
    }
}

/// Element count of a static VHLO tensor type of `bool_v1`, which VHLO writes bit-packed.
fn vhlo_bool_tensor_elements(m: &Module, t: Type) -> Option<usize> {
    let (mnemonic, params) = vhlo_mnemonic(m, t)?;
    if mnemonic != VhloType::TensorV1.mnemonic() {
        return None;
    }
    let [Param::Ints(shape), Param::Type(e), _] = params else {
        return None;
    };
    if vhlo_mnemonic(m, *e)?.0 != VhloType::BoolV1.mnemonic() {
        return None;
    }
    // Saturated: a splat of any shape is one byte.
    shape.iter().try_fold(1usize, |n, &d| {
        Some(n.saturating_mul(usize::try_from(d).ok()?))
    })
}

/// Whether `blob` can be the dense storage of a VHLO tensor type, as MLIR's `DenseElementsAttr`
/// decides: a static shape of integer, float, index or complex elements (anything else has no
/// dense storage), and data for every element or one (a splat), i1 packed eight to a byte or one
/// `00`/`FF` byte for a splat (`isValidRawBuffer`).
fn vhlo_dense_size_fits(m: &Module, t: Type, blob: &[u8]) -> bool {
    let Some((mnemonic, [Param::Ints(shape), Param::Type(e), _])) = vhlo_mnemonic(m, t) else {
        return false;
    };
    if mnemonic != VhloType::TensorV1.mnemonic() {
        return false;
    }
    // Saturated: a splat of any shape is one element.
    let Some(n) = shape.iter().try_fold(1usize, |n, &d| {
        Some(n.saturating_mul(usize::try_from(d).ok()?))
    }) else {
        return false;
    };
    let scalar_bytes = |t: Type| {
        crate::ir::storage_bytes_of(&crate::scalars::type_of(vhlo_mnemonic(m, t)?.0)?, |_| None)
    };
    let element_bytes = match vhlo_mnemonic(m, *e) {
        Some((k, _)) if k == VhloType::BoolV1.mnemonic() => {
            return matches!(blob, [0x00 | 0xFF])
                || (n < usize::MAX && blob.len() == n.div_ceil(8));
        }
        Some((k, [Param::Type(inner)])) if k == VhloType::ComplexV1.mnemonic() => {
            scalar_bytes(*inner).map(|b| b.saturating_mul(2))
        }
        _ => scalar_bytes(*e),
    };
    match element_bytes {
        Some(w) => {
            w > 0 && (blob.len() == w || (n < usize::MAX && Some(blob.len()) == n.checked_mul(w)))
        }
        None => false,
    }
}

fn vhlo_float_width(m: &Module, t: Type) -> Option<u32> {
    let (mnemonic, _) = vhlo_mnemonic(m, t)?;
    match crate::scalars::type_of(mnemonic)? {
        TypeData::Float(k) => Some(k.bit_width()),
        _ => None,
    }
}

/// `(width, unsigned)` of a VHLO integer or index type.
fn vhlo_int_width(m: &Module, t: Type) -> Option<(u32, bool)> {
    let (mnemonic, _) = vhlo_mnemonic(m, t)?;
    match crate::scalars::type_of(mnemonic)? {
        TypeData::Integer { width, signedness } => {
            Some((width, signedness == Signedness::Unsigned))
        }
        TypeData::Index => Some((64, false)),
        _ => None,
    }
}

/// What the dialect encoders write through: the numbering pass and the emission pass.
pub(super) trait DialectWriter {
    /// Where the plain forms go: the emission pass's output; none in the numbering pass, which
    /// only numbers what is referred to.
    fn emitter(&mut self) -> Option<&mut Emitter> {
        None
    }
    fn varint(&mut self, v: u64) {
        if let Some(e) = self.emitter() {
            e.varint(v);
        }
    }
    fn signed_varint(&mut self, v: i64) {
        self.varint(zigzag(v));
    }
    fn byte(&mut self, b: u8) {
        if let Some(e) = self.emitter() {
            e.byte(b);
        }
    }
    /// A count, then that many zigzag varints.
    fn signed_varints(&mut self, v: &[i64]) {
        self.varint(v.len() as u64);
        for &x in v {
            self.signed_varint(x);
        }
    }
    fn blob(&mut self, data: &[u8]) {
        if let Some(e) = self.emitter() {
            e.varint(data.len() as u64);
            e.bytes(data);
        }
    }
    /// [`Self::blob`] of data the module holds: written by reference when shared.
    fn shared_blob(&mut self, data: &Blob) {
        self.blob(data);
    }
    fn string(&mut self, s: &[u8]);
    /// A handle to the builtin dialect resource `key` (`dense_resource`): its number among the
    /// artifact's resources.
    fn resource(&mut self, m: &Module, key: Symbol) -> WriteResult<()> {
        Err(WriteError(format!(
            "resource handle '{}' cannot be written here",
            m.str(key)
        )))
    }
    fn attr(&mut self, m: &mut Module, a: Attribute) -> WriteResult<()>;
    fn ty(&mut self, m: &mut Module, t: Type) -> WriteResult<()>;
    fn opt_attr(&mut self, m: &mut Module, a: Option<Attribute>) -> WriteResult<()>;

    /// [`Self::apint`] of a value wider than 128 bits (words as [`crate::ir::wide_int`] holds
    /// them): the active word count (at least one), then one zigzag varint per word.
    fn apint_words(&mut self, words: &[u64]) {
        let active = words
            .iter()
            .rposition(|&w| w != 0)
            .map_or(1, |i| i.saturating_add(1));
        self.varint(active as u64);
        for &w in words.iter().take(active) {
            self.signed_varint(w as i64);
        }
    }

    /// `writeAPIntWithKnownWidth`: a raw byte up to 8 bits, a zigzag varint of the zero-extended
    /// value up to 64, else the active word count and one zigzag varint per word.
    fn apint(&mut self, bits: u128, width: u32) {
        let bits = bits & mask(width);
        if width <= 8 {
            self.byte(bits as u8);
        } else if width <= 64 {
            self.signed_varint(bits as u64 as i64);
        } else {
            let words = if bits >> 64 != 0 { 2 } else { 1 };
            self.varint(words);
            self.signed_varint(bits as u64 as i64);
            if words == 2 {
                self.signed_varint((bits >> 64) as u64 as i64);
            }
        }
    }
}

#[cfg(test)]
mod tests;
