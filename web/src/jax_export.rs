//! `jax.export` serialized files: the flatbuffer `Exported.serialize()` writes (schema
//! `jax/_src/export/serialization.fbs` in JAX; no file identifier), read with bounds checks on
//! every offset. Only the fields shown in the page are read; the program is the byte vector
//! `mlir_module_serialized`, a portable artifact.

use serde::Serialize;

/// The fields of the root `Exported` table this crate reads, by vtable slot.
mod slot {
    pub const SERIALIZATION_VERSION: usize = 0;
    pub const FUNCTION_NAME: usize = 1;
    pub const IN_AVALS: usize = 3;
    pub const OUT_AVALS: usize = 5;
    pub const NR_DEVICES_SHORT: usize = 6;
    pub const IN_SHARDINGS: usize = 7;
    pub const OUT_SHARDINGS: usize = 8;
    pub const PLATFORMS: usize = 9;
    pub const ORDERED_EFFECTS: usize = 10;
    pub const UNORDERED_EFFECTS: usize = 11;
    pub const DISABLED_CHECKS: usize = 12;
    pub const MLIR_MODULE_SERIALIZED: usize = 13;
    pub const CALLING_CONVENTION_VERSION: usize = 14;
    pub const NR_DEVICES: usize = 18;
}

/// What the page shows of an `Exported`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct JaxExport {
    pub serialization_version: u16,
    pub function_name: String,
    pub platforms: Vec<String>,
    pub calling_convention_version: u16,
    pub nr_devices: u32,
    /// Each input as JAX prints it, `float32[8,16]` (symbolic dimensions as JAX writes them).
    pub in_avals: Vec<String>,
    pub out_avals: Vec<String>,
    pub in_shardings: usize,
    pub out_shardings: usize,
    pub ordered_effects: usize,
    pub unordered_effects: usize,
    pub disabled_checks: usize,
    /// Where `mlir_module_serialized` starts in the file, and its length.
    pub module_offset: usize,
    pub module_len: usize,
}

/// Why a file is not a readable `Exported`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlatbufferError {
    pub offset: usize,
    pub message: String,
}

type R<T> = Result<T, FlatbufferError>;

fn err<T>(offset: usize, message: impl Into<String>) -> R<T> {
    Err(FlatbufferError {
        offset,
        message: message.into(),
    })
}

struct Buf<'a>(&'a [u8]);

impl Buf<'_> {
    fn bytes<const N: usize>(&self, at: usize) -> R<[u8; N]> {
        match at
            .checked_add(N)
            .and_then(|end| self.0.get(at..end))
            .and_then(|s| <[u8; N]>::try_from(s).ok())
        {
            Some(b) => Ok(b),
            None => err(at, format!("{N} bytes past the end of the file")),
        }
    }
    fn u16(&self, at: usize) -> R<u16> {
        self.bytes::<2>(at).map(u16::from_le_bytes)
    }
    fn u32(&self, at: usize) -> R<u32> {
        self.bytes::<4>(at).map(u32::from_le_bytes)
    }
    fn i8(&self, at: usize) -> R<i8> {
        self.bytes::<1>(at).map(i8::from_le_bytes)
    }
    fn i16(&self, at: usize) -> R<i16> {
        self.bytes::<2>(at).map(i16::from_le_bytes)
    }
    /// Follows a uoffset stored at `at`.
    fn indirect(&self, at: usize) -> R<usize> {
        let off = self.u32(at)? as usize;
        match at.checked_add(off) {
            Some(t) if t < self.0.len() => Ok(t),
            _ => err(at, "an offset points past the end of the file"),
        }
    }
}

/// A table: its position and its vtable's field offsets.
struct Table<'a> {
    buf: &'a Buf<'a>,
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

impl<'a> Table<'a> {
    fn at(buf: &'a Buf<'a>, pos: usize) -> R<Table<'a>> {
        let soff = i64::from(buf.u32(pos)? as i32);
        let vtable = pos as i64 - soff;
        if vtable < 0 || vtable as usize >= buf.0.len() {
            return err(pos, "a table's vtable is outside the file");
        }
        let vtable = vtable as usize;
        let vtable_len = usize::from(buf.u16(vtable)?);
        let table_len = usize::from(buf.u16(vtable + 2)?);
        if vtable_len < 4 || vtable_len % 2 != 0 || pos.saturating_add(table_len) > buf.0.len() {
            return err(vtable, "a malformed vtable");
        }
        Ok(Table {
            buf,
            pos,
            vtable,
            vtable_len,
        })
    }

    /// The absolute position of field `slot`, if present.
    fn field(&self, slot: usize) -> R<Option<usize>> {
        let entry = 4 + 2 * slot;
        if entry + 2 > self.vtable_len {
            return Ok(None);
        }
        match self.buf.u16(self.vtable + entry)? {
            0 => Ok(None),
            off => Ok(Some(self.pos + usize::from(off))),
        }
    }

    fn u16(&self, slot: usize) -> R<u16> {
        self.field(slot)?.map_or(Ok(0), |at| self.buf.u16(at))
    }
    fn i16(&self, slot: usize) -> R<i16> {
        self.field(slot)?.map_or(Ok(0), |at| self.buf.i16(at))
    }
    fn u32(&self, slot: usize) -> R<u32> {
        self.field(slot)?.map_or(Ok(0), |at| self.buf.u32(at))
    }
    fn i8(&self, slot: usize) -> R<i8> {
        self.field(slot)?.map_or(Ok(0), |at| self.buf.i8(at))
    }

    /// A vector field: the position of its first element and its length.
    fn vector(&self, slot: usize, elem: usize) -> R<Option<(usize, usize)>> {
        let Some(at) = self.field(slot)? else {
            return Ok(None);
        };
        let v = self.buf.indirect(at)?;
        let len = self.buf.u32(v)? as usize;
        let start = v + 4;
        match len.checked_mul(elem).and_then(|n| n.checked_add(start)) {
            Some(end) if end <= self.buf.0.len() => Ok(Some((start, len))),
            _ => err(
                v,
                format!("a vector of {len} elements runs past the end of the file"),
            ),
        }
    }

    fn vector_len(&self, slot: usize) -> R<usize> {
        Ok(self.vector(slot, 4)?.map_or(0, |(_, n)| n))
    }

    fn string(&self, slot: usize) -> R<String> {
        match self.field(slot)? {
            None => Ok(String::new()),
            Some(at) => string_at(self.buf, self.buf.indirect(at)?),
        }
    }

    fn strings(&self, slot: usize) -> R<Vec<String>> {
        let Some((start, len)) = self.vector(slot, 4)? else {
            return Ok(Vec::new());
        };
        (0..len)
            .map(|i| string_at(self.buf, self.buf.indirect(start + 4 * i)?))
            .collect()
    }

    fn tables(&self, slot: usize) -> R<Vec<Table<'a>>> {
        let Some((start, len)) = self.vector(slot, 4)? else {
            return Ok(Vec::new());
        };
        (0..len)
            .map(|i| Table::at(self.buf, self.buf.indirect(start + 4 * i)?))
            .collect()
    }
}

fn string_at(buf: &Buf<'_>, at: usize) -> R<String> {
    let len = buf.u32(at)? as usize;
    match (at + 4)
        .checked_add(len)
        .and_then(|end| buf.0.get(at + 4..end))
    {
        Some(s) => Ok(String::from_utf8_lossy(s).into_owned()),
        None => err(at, "a string runs past the end of the file"),
    }
}

/// JAX's `DType` enum, by value, named as JAX prints an aval (`float32[8,16]`).
const DTYPES: &[&str] = &[
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "bfloat16",
    "int4",
    "uint4",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float0",
    "float8_e4m3",
    "float8_e3m4",
    "float8_e8m0fnu",
    "float4_e2m1fn",
    "key<fry>",
    "key<rbg>",
    "key<unsafe_rbg>",
];

/// An `AbstractValue` as `float32[8,16]` (or `token`).
fn aval(t: &Table<'_>) -> R<String> {
    // kind 1: abstractToken.
    if t.i8(0)? == 1 {
        return Ok("token".into());
    }
    let shape = t.strings(1)?;
    let dtype = t.i8(2)?;
    let name = usize::try_from(dtype)
        .ok()
        .and_then(|d| DTYPES.get(d))
        .map_or_else(|| format!("dtype{dtype}"), |s| (*s).to_string());
    Ok(format!("{name}[{}]", shape.join(",")))
}

/// Reads `bytes` as a serialized `Exported`. `Ok(None)` when the bytes are not one (so that
/// other readers can be tried); an error when they look like one but cannot be read.
pub fn read(bytes: &[u8]) -> R<Option<JaxExport>> {
    let buf = Buf(bytes);
    // A flatbuffer starts with the root table's offset; MLIR bytecode and text do not look like
    // one, and a file whose module vector does not hold an artifact is not taken for one.
    let Ok(root) = buf.indirect(0) else {
        return Ok(None);
    };
    let Ok(t) = Table::at(&buf, root) else {
        return Ok(None);
    };
    let Ok(Some((module_offset, module_len))) = t.vector(slot::MLIR_MODULE_SERIALIZED, 1) else {
        return Ok(None);
    };
    if !bytes
        .get(module_offset..)
        .is_some_and(|m| m.starts_with(b"ML\xefR"))
    {
        return Ok(None);
    }
    let nr_devices = match t.u32(slot::NR_DEVICES)? {
        0 => u32::try_from(t.i16(slot::NR_DEVICES_SHORT)?).unwrap_or(0),
        n => n,
    };
    let avals = |slot| -> R<Vec<String>> { t.tables(slot)?.iter().map(aval).collect() };
    Ok(Some(JaxExport {
        serialization_version: t.u16(slot::SERIALIZATION_VERSION)?,
        function_name: t.string(slot::FUNCTION_NAME)?,
        platforms: t.strings(slot::PLATFORMS)?,
        calling_convention_version: t.u16(slot::CALLING_CONVENTION_VERSION)?,
        nr_devices,
        in_avals: avals(slot::IN_AVALS)?,
        out_avals: avals(slot::OUT_AVALS)?,
        in_shardings: t.vector_len(slot::IN_SHARDINGS)?,
        out_shardings: t.vector_len(slot::OUT_SHARDINGS)?,
        ordered_effects: t.vector_len(slot::ORDERED_EFFECTS)?,
        unordered_effects: t.vector_len(slot::UNORDERED_EFFECTS)?,
        disabled_checks: t.vector_len(slot::DISABLED_CHECKS)?,
        module_offset,
        module_len,
    }))
}
