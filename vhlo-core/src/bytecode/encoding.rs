//! Primitives of the MLIR bytecode format: prefix varints, zigzag, sections, and a bounds-checked
//! cursor whose errors name the section and the absolute byte offset.

// Input path: no panics whatever the bytes. Tests opt out below.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
use super::{BytecodeError, BytecodeErrorKind};
use crate::ir::Blob;

/// The builtin dialect's attribute codes (`BuiltinDialectBytecode.td`), which the reader and the
/// writer name rather than number.
pub(crate) mod builtin_attr {
    pub const ARRAY: u64 = 0;
    pub const DICTIONARY: u64 = 1;
    pub const STRING: u64 = 2;
    pub const STRING_WITH_TYPE: u64 = 3;
    pub const FLAT_SYMBOL_REF: u64 = 4;
    pub const SYMBOL_REF: u64 = 5;
    pub const TYPE: u64 = 6;
    pub const UNIT: u64 = 7;
    pub const INTEGER: u64 = 8;
    pub const FLOAT: u64 = 9;
    pub const CALL_SITE_LOC: u64 = 10;
    pub const FILE_LINE_COL_LOC: u64 = 11;
    pub const FUSED_LOC: u64 = 12;
    pub const FUSED_LOC_WITH_METADATA: u64 = 13;
    pub const NAME_LOC: u64 = 14;
    pub const UNKNOWN_LOC: u64 = 15;
    pub const DENSE_RESOURCE_ELEMENTS: u64 = 16;
    pub const DENSE_ARRAY: u64 = 17;
    pub const DENSE_INT_OR_FP_ELEMENTS: u64 = 18;
    pub const DENSE_STRING_ELEMENTS: u64 = 19;
    pub const FILE_LINE_COL_RANGE: u64 = 22;
}

/// The builtin dialect's type codes (`BuiltinDialectBytecode.td`); those of the float types are
/// in [`BUILTIN_FLOAT_TYPE_CODES`].
pub(crate) mod builtin_type {
    pub const INTEGER: u64 = 0;
    pub const INDEX: u64 = 1;
    pub const FUNCTION: u64 = 2;
    pub const COMPLEX: u64 = 9;
    pub const NONE: u64 = 12;
    pub const RANKED_TENSOR: u64 = 13;
    pub const RANKED_TENSOR_WITH_ENCODING: u64 = 14;
    pub const TUPLE: u64 = 15;
    pub const UNRANKED_TENSOR: u64 = 18;
    pub const VECTOR: u64 = 19;
    pub const VECTOR_WITH_SCALABLE_DIMS: u64 = 20;
}

/// Builtin dialect type codes of the float types: `bf16` to `f128`, then those after
/// `VectorTypeWithScalableDims` (20), as the MLIR in jaxlib 0.10.2 writes them (read off its
/// artifacts). Older MLIR wrote the later ones as text.
pub(crate) const BUILTIN_FLOAT_TYPE_CODES: [(crate::ir::FloatKind, u64); 18] = {
    use crate::ir::FloatKind::*;
    [
        (BF16, 3),
        (F16, 4),
        (F32, 5),
        (F64, 6),
        (F80, 7),
        (F128, 8),
        (TF32, 21),
        (F8E5M2, 22),
        (F8E4M3, 23),
        (F8E4M3FN, 24),
        (F8E5M2FNUZ, 25),
        (F8E4M3FNUZ, 26),
        (F8E4M3B11FNUZ, 27),
        (F8E3M4, 28),
        (F4E2M1FN, 29),
        (F6E2M3FN, 30),
        (F6E3M2FN, 31),
        (F8E8M0FNU, 32),
    ]
};

/// Section ids (`mlir/include/mlir/Bytecode/Encoding.h`).
pub(crate) mod section {
    pub const STRING: u8 = 0;
    pub const DIALECT: u8 = 1;
    pub const ATTR_TYPE: u8 = 2;
    pub const ATTR_TYPE_OFFSET: u8 = 3;
    pub const IR: u8 = 4;
    pub const RESOURCE: u8 = 5;
    pub const RESOURCE_OFFSET: u8 = 6;
    pub const DIALECT_VERSIONS: u8 = 7;
    pub const PROPERTIES: u8 = 8;
    pub const COUNT: usize = 9;

    /// Human-readable section name for errors.
    pub fn name(id: u8) -> &'static str {
        match id {
            STRING => "string",
            DIALECT => "dialect",
            ATTR_TYPE => "attribute/type",
            ATTR_TYPE_OFFSET => "attribute/type offset",
            IR => "IR",
            RESOURCE => "resource",
            RESOURCE_OFFSET => "resource offset",
            DIALECT_VERSIONS => "dialect versions",
            PROPERTIES => "properties",
            _ => "unknown",
        }
    }
}

/// The op encoding mask bits (`OpEncodingMask` in Encoding.h).
pub(crate) mod op_mask {
    pub const HAS_ATTRS: u8 = 0x01;
    pub const HAS_RESULTS: u8 = 0x02;
    pub const HAS_OPERANDS: u8 = 0x04;
    pub const HAS_SUCCESSORS: u8 = 0x08;
    pub const HAS_INLINE_REGIONS: u8 = 0x10;
    pub const HAS_USE_LIST_ORDERS: u8 = 0x20;
    pub const HAS_PROPERTIES: u8 = 0x40;
}

/// Bytecode format versions with a behaviour change (Encoding.h).
pub(crate) mod version {
    pub const DIALECT_VERSIONING: u64 = 1;
    pub const LAZY_LOADING: u64 = 2;
    pub const USE_LIST_ORDERING: u64 = 3;
    pub const ELIDE_UNKNOWN_BLOCK_ARG_LOCATION: u64 = 4;
    pub const NATIVE_PROPERTIES_ENCODING: u64 = 5;
    pub const MAX_SUPPORTED: u64 = 6;
}

pub(crate) const MAGIC: [u8; 4] = [0x4D, 0x4C, 0xEF, 0x52];

/// The property of ODS's AttrSizedOperandSegments. Its generated `writeProperties` writes it
/// before the other attributes up to bytecode version 5 and after them, as a sparse array of
/// integers (`writeSparseArray`, BytecodeImplementation.h), from version 6 (writer.rs,
/// reader.rs).
pub(crate) const SEGMENTS: &str = "operandSegmentSizes";

/// The padding byte before aligned sections and blobs (`bytecode::kAlignmentByte`).
pub(crate) const ALIGNMENT_BYTE: u8 = 0xCB;

/// Zigzag-encodes the 64-bit two's-complement pattern.
pub(crate) fn zigzag(v: i64) -> u64 {
    ((v as u64) << 1) ^ ((v >> 63) as u64)
}

/// Inverse of [`zigzag`].
pub(crate) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ ((v & 1) as i64).wrapping_neg()
}

/// A read position inside one section (or the whole file), bounds-checked everywhere.
#[derive(Clone)]
pub(crate) struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute file offset of `data[0]`.
    base: usize,
    section: &'static str,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], base: usize, section: &'static str) -> Self {
        Cursor {
            data,
            pos: 0,
            base,
            section,
        }
    }

    /// Absolute file offset of the next byte.
    pub fn offset(&self) -> usize {
        self.base.saturating_add(self.pos)
    }

    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// An error at the current position.
    pub fn err(&self, message: impl Into<String>) -> BytecodeError {
        BytecodeError {
            section: self.section,
            offset: self.offset(),
            message: message.into(),
            kind: BytecodeErrorKind::Malformed,
        }
    }

    /// The input ends here before what it announces.
    #[cold]
    pub fn truncated(&self, message: impl Into<String>) -> BytecodeError {
        self.err(message).of_kind(BytecodeErrorKind::Truncated)
    }

    /// An error at an absolute offset inside this cursor's section.
    pub fn err_at(&self, offset: usize, message: impl Into<String>) -> BytecodeError {
        BytecodeError {
            section: self.section,
            offset,
            message: message.into(),
            kind: BytecodeErrorKind::Malformed,
        }
    }

    pub fn byte(&mut self) -> Result<u8, BytecodeError> {
        let b = self
            .data
            .get(self.pos)
            .copied()
            .ok_or_else(|| self.truncated("unexpected end of data"))?;
        self.pos = self.pos.saturating_add(1);
        Ok(b)
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], BytecodeError> {
        if n > self.remaining() {
            return Err(self.truncated(format!(
                "{n} bytes needed but only {} remain",
                self.remaining()
            )));
        }
        let end = self.pos.saturating_add(n);
        let out = self
            .data
            .get(self.pos..end)
            .ok_or_else(|| self.err("out of bounds"))?;
        self.pos = end;
        Ok(out)
    }

    /// A prefix varint: the trailing zeros of the first byte give the number of extra bytes.
    #[inline(always)]
    pub fn varint(&mut self) -> Result<u64, BytecodeError> {
        // Most varints are one byte (values below 128): that case stays inline.
        if let Some(&first) = self.data.get(self.pos) {
            if first & 1 == 1 {
                self.pos = self.pos.saturating_add(1);
                return Ok(u64::from(first >> 1));
            }
            // Two to eight bytes with eight readable (value indices in large functions): one
            // load, no loop.
            if first != 0 {
                let end = self.pos.saturating_add(8);
                if let Some(Ok(raw)) = self.data.get(self.pos..end).map(<[u8; 8]>::try_from) {
                    let w = u64::from_le_bytes(raw);
                    // `first` is even and not zero: 2..=8 bytes.
                    let n = first.trailing_zeros().wrapping_add(1);
                    let kept = w & u64::MAX.wrapping_shr(64u32.wrapping_sub(n.wrapping_mul(8)));
                    self.pos = self.pos.saturating_add(n as usize);
                    return Ok(kept.wrapping_shr(n));
                }
            }
        }
        self.varint_multi_byte()
    }

    #[inline(never)]
    fn varint_multi_byte(&mut self) -> Result<u64, BytecodeError> {
        let start = self.offset();
        let first = self.byte()?;
        if first & 1 == 1 {
            return Ok(u64::from(first >> 1));
        }
        if first == 0 {
            let raw = self.bytes(8).map_err(|_| {
                self.err_at(start, "truncated 9-byte varint")
                    .of_kind(BytecodeErrorKind::Truncated)
            })?;
            let mut buf = [0u8; 8];
            buf.copy_from_slice(raw);
            return Ok(u64::from_le_bytes(buf));
        }
        // 1..=7 extra bytes: the first byte is neither odd nor zero.
        let extra = first.trailing_zeros();
        let raw = self.bytes(extra as usize).map_err(|_| {
            self.err_at(start, "truncated varint")
                .of_kind(BytecodeErrorKind::Truncated)
        })?;
        let mut buf = [0u8; 8];
        for (dst, &src) in buf.iter_mut().zip(std::iter::once(&first).chain(raw)) {
            *dst = src;
        }
        Ok(u64::from_le_bytes(buf).wrapping_shr(extra.wrapping_add(1)))
    }

    pub fn signed_varint(&mut self) -> Result<i64, BytecodeError> {
        Ok(unzigzag(self.varint()?))
    }

    /// A varint with its low bit split off as a flag: `(value, flag)`.
    #[inline]
    pub fn varint_with_flag(&mut self) -> Result<(u64, bool), BytecodeError> {
        let v = self.varint()?;
        Ok((v >> 1, v & 1 == 1))
    }

    /// A varint used as a count or index into an in-memory table; `usize` on every platform here.
    #[inline(always)]
    pub fn index(&mut self) -> Result<usize, BytecodeError> {
        let at = self.offset();
        let v = self.varint()?;
        usize::try_from(v).map_err(|_| self.err_at(at, format!("value {v} too large")))
    }

    /// A count of items that each take at least `min_item_bytes` bytes: rejected when the rest of
    /// the section could not hold that many, so callers may allocate for it.
    #[inline(always)]
    pub fn count(&mut self, min_item_bytes: usize) -> Result<usize, BytecodeError> {
        let at = self.offset();
        let n = self.index()?;
        if n.saturating_mul(min_item_bytes.max(1)) > self.remaining() && min_item_bytes > 0 {
            return Err(self.count_error(at, n));
        }
        Ok(n)
    }

    #[cold]
    fn count_error(&self, at: usize, n: usize) -> BytecodeError {
        self.err_at(
            at,
            format!(
                "count {n} exceeds the {} bytes left in the section",
                self.remaining()
            ),
        )
        .of_kind(BytecodeErrorKind::Truncated)
    }

    /// A count, then that many zigzag varints.
    pub fn signed_varints(&mut self) -> Result<Box<[i64]>, BytecodeError> {
        let n = self.count(1)?;
        (0..n).map(|_| self.signed_varint()).collect()
    }

    /// A NUL-terminated string (the producer in the header).
    pub fn cstr(&mut self) -> Result<&'a [u8], BytecodeError> {
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.truncated("unterminated string"))?;
        let s = self.bytes(len)?;
        // Past the NUL found above.
        self.pos = self.pos.saturating_add(1);
        Ok(s)
    }

    /// A section header and body: `(id, body cursor)`. Alignment padding is checked and skipped.
    pub fn section(&mut self) -> Result<(u8, Cursor<'a>), BytecodeError> {
        let start = self.offset();
        let id_and_align = self.byte()?;
        let id = id_and_align & 0x7f;
        let len = self.index()?;
        if id_and_align & 0x80 != 0 {
            let align = self.index()?;
            if !align.is_power_of_two() || align > 1 << 16 {
                return Err(self.err_at(start, format!("invalid section alignment {align}")));
            }
            while !self.offset().is_multiple_of(align) {
                if self.byte()? != ALIGNMENT_BYTE {
                    return Err(self.err("section alignment padding is not 0xCB"));
                }
            }
        }
        let body_start = self.offset();
        let body = self.bytes(len).map_err(|_| {
            self.err_at(start, format!("section {id} of {len} bytes is truncated"))
                .of_kind(BytecodeErrorKind::Truncated)
        })?;
        Ok((id, Cursor::new(body, body_start, section::name(id))))
    }
}

/// An output buffer with the writer-side primitives. Large shared data is not copied in: it is
/// recorded as a splice, to be streamed from where it lies ([`Encoded`]).
#[derive(Default, Clone)]
pub(crate) struct Emitter {
    pub buf: Vec<u8>,
    /// `(position in buf, data)`: `data` comes before `buf[position..]`, in order.
    splices: Vec<(usize, Blob)>,
    spliced_len: usize,
}

/// A position in an [`Emitter`] to truncate back to.
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    buf: usize,
    splices: usize,
    spliced_len: usize,
}

impl Emitter {
    /// The number of bytes written, spliced data included.
    pub fn len(&self) -> usize {
        self.buf.len().saturating_add(self.spliced_len)
    }

    /// `data`, by reference when it is shared.
    pub fn blob_bytes(&mut self, data: &Blob) {
        if data.is_shared() {
            self.spliced_len = self.spliced_len.saturating_add(data.len());
            self.splices.push((self.buf.len(), data.clone()));
        } else {
            self.bytes(data);
        }
    }

    pub fn mark(&self) -> Mark {
        Mark {
            buf: self.buf.len(),
            splices: self.splices.len(),
            spliced_len: self.spliced_len,
        }
    }

    /// Forgets everything written after `mark`.
    pub fn truncate(&mut self, mark: Mark) {
        self.buf.truncate(mark.buf);
        self.splices.truncate(mark.splices);
        self.spliced_len = mark.spliced_len;
    }

    /// Appends what `other` holds, its splices included.
    pub fn append(&mut self, other: Emitter) {
        let base = self.buf.len();
        self.buf.extend_from_slice(&other.buf);
        self.splices.extend(
            other
                .splices
                .into_iter()
                .map(|(at, b)| (at.saturating_add(base), b)),
        );
        self.spliced_len = self.spliced_len.saturating_add(other.spliced_len);
    }

    /// The bytes written, as an artifact.
    pub fn into_encoded(self) -> Encoded {
        Encoded {
            buf: self.buf,
            splices: self.splices,
            len: 0,
        }
        .with_len()
    }
    pub fn byte(&mut self, b: u8) {
        self.buf.push(b);
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    /// Shortest prefix varint.
    pub fn varint(&mut self, v: u64) {
        if v < 1 << 7 {
            self.buf.push(((v << 1) | 1) as u8);
            return;
        }
        // The number of bytes is one per 7 value bits, up to 8; beyond 56 bits the 9-byte form.
        let bits = u64::BITS.wrapping_sub(v.leading_zeros());
        let n = bits.div_ceil(7);
        if n >= 9 {
            self.buf.push(0);
            self.buf.extend_from_slice(&v.to_le_bytes());
            return;
        }
        // n is 2..=8 here (v >= 128).
        let encoded = v.wrapping_shl(n) | 1u64.wrapping_shl(n.wrapping_sub(1));
        let bytes = encoded.to_le_bytes();
        self.buf
            .extend_from_slice(bytes.get(..n as usize).unwrap_or_default());
    }

    #[inline]
    pub fn varint_with_flag(&mut self, v: u64, flag: bool) {
        self.varint((v << 1) | u64::from(flag));
    }

    /// A section: id, length, body (never aligned in VHLO artifacts). The body must hold no splices.
    pub fn section(&mut self, id: u8, body: &[u8]) {
        self.byte(id);
        self.varint(body.len() as u64);
        self.bytes(body);
    }
}

/// A written artifact: the writer's bytes with large shared data (tensor constants) spliced in
/// by reference, so that a gigabyte of weights is written from the module's own copy.
pub struct Encoded {
    buf: Vec<u8>,
    splices: Vec<(usize, Blob)>,
    len: usize,
}

impl Encoded {
    fn with_len(mut self) -> Encoded {
        self.len = self
            .splices
            .iter()
            .fold(self.buf.len(), |n, (_, b)| n.saturating_add(b.len()));
        self
    }

    /// The artifact's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the artifact is empty (never, for a written one).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The artifact's bytes, in order, in pieces.
    pub fn chunks(&self) -> impl Iterator<Item = &[u8]> {
        let mut at = 0;
        let mut out = Vec::with_capacity(self.splices.len().saturating_mul(2).saturating_add(1));
        for (pos, b) in &self.splices {
            out.push(self.buf.get(at..*pos).unwrap_or_default());
            out.push(&**b);
            at = *pos;
        }
        out.push(self.buf.get(at..).unwrap_or_default());
        out.into_iter().filter(|c| !c.is_empty())
    }

    /// Writes the artifact to `out` without assembling it in memory.
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        for c in self.chunks() {
            out.write_all(c)?;
        }
        Ok(())
    }

    /// The artifact in one buffer.
    pub fn into_vec(self) -> Vec<u8> {
        if self.splices.is_empty() {
            return self.buf;
        }
        let mut v = Vec::with_capacity(self.len);
        for c in self.chunks() {
            v.extend_from_slice(c);
        }
        v
    }
}

/// `DialectReader::readAPIntWithKnownWidth`: the raw bits, zero-extended to 128.
pub(crate) fn read_apint(c: &mut Cursor<'_>, width: u32) -> Result<u128, BytecodeError> {
    if width <= 8 {
        // A byte for up to 8 bits; MLIR's APInt keeps the low `width` bits of it.
        return Ok(u128::from(c.byte()?) & mask(width));
    }
    if width <= 64 {
        return Ok(u128::from(c.signed_varint()? as u64) & mask(width));
    }
    let at = c.offset();
    let words = c.index()?;
    if words > 2 || words > c.remaining() {
        return Err(c
            .err_at(at, format!("{words} words of APInt data are not supported"))
            .of_kind(BytecodeErrorKind::Unsupported));
    }
    let mut v = 0u128;
    for shift in [0u32, 64].into_iter().take(words) {
        v |= u128::from(c.signed_varint()? as u64).wrapping_shl(shift);
    }
    Ok(v & mask(width))
}

/// [`read_apint`] of a width above 128 bits: the active word count, then one zigzag varint per
/// word; the value as [`crate::ir::wide_int`] holds it.
pub(crate) fn read_apint_words(c: &mut Cursor<'_>, width: u32) -> Result<Vec<u64>, BytecodeError> {
    let at = c.offset();
    let count = crate::ir::wide_int::word_count(width);
    let active = c.index()?;
    if active > count || active > c.remaining() {
        return Err(c.err_at(
            at,
            format!("{active} words of APInt data for a {width}-bit integer"),
        ));
    }
    let mut words = vec![0u64; count];
    for w in words.iter_mut().take(active) {
        *w = c.signed_varint()? as u64;
    }
    crate::ir::wide_int::clear_above(&mut words, width);
    Ok(words)
}

pub(crate) fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        1u128.wrapping_shl(width).wrapping_sub(1)
    }
}

pub(crate) fn sign_extend(bits: u128, width: u32) -> i128 {
    if width == 0 || width >= 128 {
        return bits as i128;
    }
    // 1..=127 here.
    let shift = 128u32.wrapping_sub(width);
    (bits.wrapping_shl(shift) as i128).wrapping_shr(shift)
}

/// A shaped type's dimensions: each a size (>= 0) or dynamic (MLIR's verifier refuses
/// other negative values; they would print as `?` and come back dynamic).
pub(crate) fn read_shape(c: &mut Cursor<'_>) -> Result<Box<[i64]>, BytecodeError> {
    let at = c.offset();
    let shape = c.signed_varints()?;
    if let Some(d) = shape.iter().find(|&&d| d < 0 && d != crate::ir::DYNAMIC) {
        return Err(c.err_at(at, format!("invalid dimension size {d}")));
    }
    Ok(shape)
}

/// MLIR's storage of dense `i1` elements (`DenseIntOrFPElementsAttr`), from one byte per element
/// (0 or 1): one byte, all ones or all zeros, when every element is the same; else eight
/// elements a byte, the first in the lowest bit.
pub(crate) fn pack_i1(elements: &[u8]) -> Vec<u8> {
    match elements.first() {
        Some(&first) if elements.iter().all(|&b| b & 1 == first & 1) => {
            vec![if first & 1 == 1 { 0xff } else { 0 }]
        }
        _ => elements
            .chunks(8)
            .map(|c| {
                c.iter()
                    .enumerate()
                    .fold(0u8, |byte, (i, &b)| byte | ((b & 1) << i))
            })
            .collect(),
    }
}

/// [`pack_i1`] undone for `n` elements: one byte per element, and whether it was a splat.
/// `None` when `bytes` is neither a splat nor `n` packed elements.
pub(crate) fn unpack_i1(bytes: &[u8], n: usize) -> Option<(Vec<u8>, bool)> {
    if let [b @ (0 | 0xff)] = bytes {
        return Some((vec![*b & 1], true));
    }
    if bytes.len() != n.div_ceil(8) {
        return None;
    }
    let elements = (0..n)
        .map(|i| bytes.get(i / 8).map_or(0, |byte| (byte >> (i % 8)) & 1))
        .collect();
    Some((elements, false))
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
mod tests {
    use super::*;

    #[test]
    fn varint_round_trips_at_every_length() {
        let samples = [
            0u64,
            1,
            6,
            127,
            128,
            180,
            (1 << 14) - 1,
            1 << 14,
            (1 << 56) - 1,
            1 << 56,
            u64::MAX,
            i64::MIN as u64,
        ];
        for v in samples {
            let mut e = Emitter::default();
            e.varint(v);
            let mut c = Cursor::new(&e.buf, 0, "test");
            assert_eq!(c.varint().unwrap(), v, "value {v:#x} bytes {:02x?}", e.buf);
            assert!(c.is_empty());
        }
        // Every length, 1 to 63 bits, with bytes after it (the one-load path) and without.
        for bits in 0..63 {
            for v in [1u64 << bits, (1u64 << bits) - 1, (1u64 << bits) | 0x55] {
                let mut e = Emitter::default();
                e.varint(v);
                let len = e.buf.len();
                e.buf.extend_from_slice(&[0xff; 9]);
                let mut c = Cursor::new(&e.buf, 0, "test");
                assert_eq!(c.varint().unwrap(), v, "value {v:#x} bytes {:02x?}", e.buf);
                assert_eq!(c.offset(), len);
            }
        }
        let mut e = Emitter::default();
        e.varint(180);
        assert_eq!(e.buf, [0xd2, 0x02]);
        let mut e = Emitter::default();
        e.varint(i64::MIN as u64);
        assert_eq!(e.buf, [0, 0, 0, 0, 0, 0, 0, 0, 0x80]);
    }

    #[test]
    fn zigzag_matches_mlir() {
        assert_eq!(zigzag(-1), 1);
        assert_eq!(zigzag(1), 2);
        assert_eq!(unzigzag(zigzag(i64::MIN)), i64::MIN);
        assert_eq!(unzigzag(zigzag(i64::MAX)), i64::MAX);
    }

    #[test]
    fn truncated_varint_is_an_error() {
        let mut c = Cursor::new(&[0x02], 10, "test");
        let e = c.varint().unwrap_err();
        assert_eq!(e.offset, 10);
    }

    /// MLIR's storage of dense i1 elements, as jaxlib writes them.
    #[test]
    fn dense_bools_pack_eight_a_byte() {
        assert_eq!(pack_i1(&[0, 1, 1]), vec![6]);
        assert_eq!(pack_i1(&[1, 0, 1, 1, 0, 0, 1, 1, 0]), vec![205, 0]);
        assert_eq!(pack_i1(&[1, 1]), vec![0xff]);
        assert_eq!(pack_i1(&[0]), vec![0]);
        assert_eq!(unpack_i1(&[6], 3), Some((vec![0, 1, 1], false)));
        assert_eq!(
            unpack_i1(&[205, 0], 9),
            Some((vec![1, 0, 1, 1, 0, 0, 1, 1, 0], false))
        );
        assert_eq!(unpack_i1(&[0xff], 5), Some((vec![1], true)));
        assert_eq!(unpack_i1(&[1, 0, 1], 3), None);
    }
}
