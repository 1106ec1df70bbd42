//! The bytecode reader: header, sections, lazily resolved attribute/type tables, and the IR.

// Input path: no panics whatever the bytes. Tests opt out below.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]
use std::collections::BTreeMap;

use super::encoding::{
    builtin_attr, builtin_type, op_mask, read_apint, read_apint_words, read_shape, section,
    sign_extend, version, Cursor, ALIGNMENT_BYTE, MAGIC,
};
use super::vhlo_codec::VhloSource;
use super::{ArtifactInfo, BytecodeError, BytecodeErrorKind, UseListOrder};
use crate::ir::{
    AttrData, Attribute, Blob, Block, FloatKind, LocData, Location, Module, NamedAttr, OpId,
    OperationState, Region, ResourceBlob, Signedness, Symbol, Type, TypeData, Value,
};
use crate::vhlo::codec_dialect;
use crate::vhlo::VhloOp;

/// The sorted inherent attribute names of a VHLO op (its properties entry), from the spec.
fn vhlo_op_attr_names(mnemonic: &str) -> Option<&'static [&'static str]> {
    VhloOp::from_mnemonic(mnemonic).map(VhloOp::sorted_attribute_names)
}

/// Nesting limit for regions: the library's one limit. Attributes and types referring to each
/// other are guarded by [`crate::ir::NESTING_GUARD`] while reading, and their depth then checked
/// exactly on what was read.
const MAX_DEPTH: usize = crate::ir::MAX_NESTING;

type Result<T> = std::result::Result<T, BytecodeError>;

/// Reads just the header: `(bytecode version, producer)`, without parsing any section.
pub fn read_producer(bytes: &[u8]) -> Result<(u64, String)> {
    let mut c = Cursor::new(bytes, 0, "header");
    read_header(&mut c)
}

fn read_header(c: &mut Cursor<'_>) -> Result<(u64, String)> {
    let magic = c.bytes(4).map_err(|_| {
        c.err_at(0, "file too short for the MLIR bytecode magic")
            .of_kind(BytecodeErrorKind::NotBytecode)
    })?;
    if magic != MAGIC {
        return Err(c
            .err_at(0, "not MLIR bytecode (bad magic)")
            .of_kind(BytecodeErrorKind::NotBytecode));
    }
    let at = c.offset();
    let v = c.varint()?;
    if v > version::MAX_SUPPORTED {
        return Err(c
            .err_at(
                at,
                format!(
                    "unsupported bytecode version {v} (max {})",
                    version::MAX_SUPPORTED
                ),
            )
            .of_kind(BytecodeErrorKind::Unsupported));
    }
    let at = c.offset();
    let producer = c.cstr()?;
    let producer = std::str::from_utf8(producer)
        .map_err(|_| c.err_at(at, "producer string is not UTF-8"))?
        .to_string();
    Ok((v, producer))
}

/// The size in bytes of the top-level IR section, without reading it or any other section:
/// what the ops take in memory grows with it (a caller can size its heap from it), while the
/// attribute and resource sections can hold large constants that the module only views.
pub fn ir_section_len(bytes: &[u8]) -> Result<usize> {
    let mut c = Cursor::new(bytes, 0, "header");
    read_header(&mut c)?;
    while !c.is_empty() {
        let (id, body) = c.section()?;
        if id == section::IR {
            return Ok(body.remaining());
        }
    }
    Err(c.err("no IR section"))
}

/// Reads a whole artifact.
pub fn read(bytes: &[u8]) -> Result<(Module, ArtifactInfo)> {
    read_from(bytes, None)
}

/// [`read()`] from a shared input: large tensor data in the module are views of `input`, which
/// they keep alive, rather than copies (a gigabyte of weights is then held once).
pub fn read_shared(input: &Blob) -> Result<(Module, ArtifactInfo)> {
    read_from(input, Some(input))
}

fn read_from(bytes: &[u8], source: Option<&Blob>) -> Result<(Module, ArtifactInfo)> {
    let (m, info) = read_on_this_thread(bytes, source)?;
    // The one nesting limit, measured on the DAG the sections built.
    crate::ir::deepest_interned(&m).map_err(|e| BytecodeError {
        section: "attribute/type",
        offset: 0,
        message: e.to_string(),
        kind: BytecodeErrorKind::TooDeep,
    })?;
    Ok((m, info))
}

fn read_on_this_thread<'a>(
    bytes: &'a [u8],
    source: Option<&'a Blob>,
) -> Result<(Module, ArtifactInfo)> {
    let mut c = Cursor::new(bytes, 0, "header");
    let (bytecode_version, producer) = read_header(&mut c)?;
    let mut sections: [Option<Cursor<'_>>; section::COUNT] = Default::default();
    while !c.is_empty() {
        let at = c.offset();
        let (id, body) = c.section()?;
        let slot = sections
            .get_mut(usize::from(id))
            .filter(|_| id != section::DIALECT_VERSIONS)
            .ok_or_else(|| c.err_at(at, format!("unknown top-level section id {id}")))?;
        if slot.is_some() {
            return Err(c.err_at(at, format!("duplicate {} section", section::name(id))));
        }
        *slot = Some(body);
    }
    let mut take = |id: u8, required: bool| -> Result<Option<Cursor<'_>>> {
        let s = sections.get_mut(usize::from(id)).and_then(Option::take);
        if s.is_none() && required {
            return Err(BytecodeError {
                section: "header",
                offset: bytes.len(),
                message: format!("missing {} section", section::name(id)),
                kind: BytecodeErrorKind::Malformed,
            });
        }
        Ok(s)
    };
    let strings = take(section::STRING, true)?;
    let dialects = take(section::DIALECT, true)?;
    let attr_types = take(section::ATTR_TYPE, true)?;
    let offsets = take(section::ATTR_TYPE_OFFSET, true)?;
    let ir = take(section::IR, true)?;
    let props = take(
        section::PROPERTIES,
        bytecode_version >= version::NATIVE_PROPERTIES_ENCODING,
    )?;
    let resources = take(section::RESOURCE, false)?;
    let resource_offsets = take(section::RESOURCE_OFFSET, false)?;

    let mut r = Reader {
        version: bytecode_version,
        source,
        module: Module::new(),
        strings: Vec::new(),
        dialects: Vec::new(),
        op_names: Vec::new(),
        attrs: Vec::new(),
        types: Vec::new(),
        properties: Vec::new(),
        decoded_properties: Vec::new(),
        scratch: None,
        last_loc: None,
        scratch_dict: Vec::new(),
        depth: 0,
        region_depth: 0,
        live_values: 0,
        ir_bytes: ir.as_ref().map_or(0, Cursor::remaining),
        use_lists: BTreeMap::new(),
        use_list_offsets: BTreeMap::new(),
        may_break_dominance: false,
        block_arg_locations: BTreeMap::new(),
        shadowed_attributes: Vec::new(),
        vhlo_mnemonics: Default::default(),
        resource_keys: Vec::new(),
    };
    if let Some(mut s) = strings {
        r.read_strings(&mut s)?;
    }
    if let Some(mut s) = dialects {
        r.read_dialects(&mut s)?;
    }
    // Before the attributes: `dense_resource` entries refer to resources by number.
    r.read_resources(resource_offsets, resources)?;
    if let (Some(mut o), Some(d)) = (offsets, attr_types) {
        r.read_attr_type_offsets(&mut o, d)?;
    }
    if let Some(mut p) = props {
        r.read_properties(&mut p)?;
    }
    if let Some(mut s) = ir {
        r.read_ir(&mut s)?;
        r.check_use_list_orders(&s)?;
    }
    let info = ArtifactInfo {
        bytecode_version,
        producer,
        use_list_orders: r.use_lists,
        block_arg_locations: r.block_arg_locations,
        shadowed_attributes: r.shadowed_attributes,
        may_break_dominance: r.may_break_dominance,
    };
    Ok((r.module, info))
}

struct DialectEntry {
    name: Symbol,
}

struct OpNameEntry {
    /// `dialect.name`.
    full: Symbol,
    /// The dialect's name.
    dialect: String,
    /// The name without the dialect prefix.
    short: String,
    /// The inherent attribute names of the op (VHLO and `builtin.module`), interned, in the
    /// order of its properties encoding (shared: decoding holds it while reading attributes).
    inherent: Option<std::rc::Rc<[Symbol]>>,
    /// Why no op of this name can be read, if so (checked when an op uses it).
    refused: Option<String>,
}

/// One row of the attribute/type table: where its payload is, and how it is encoded.
struct Entry<'a, T> {
    dialect: usize,
    custom: bool,
    payload: Cursor<'a>,
    slot: Slot<T>,
}

#[derive(Clone, Copy)]
enum Slot<T> {
    Unresolved,
    InProgress,
    Done(T),
}

/// Value numbering of one isolated scope (MLIR's `ValueScope`).
#[derive(Default)]
struct Scope {
    /// The top-level scope, whose results no region header counts.
    top: bool,
    values: Vec<Option<Value>>,
    next_ids: Vec<usize>,
    /// Operands that referred to a value not defined yet, by value slot: (op, operand index).
    /// Patched when the slot is defined, so the work is linear in the number of operands.
    waiting: BTreeMap<usize, Vec<(OpId, usize)>>,
}

/// Attributes and types: resolved the same way from their own tables.
trait Resolved: Copy + Sized {
    const WHAT: &'static str;
    fn table<'r, 'a>(r: &'r mut Reader<'a>) -> &'r mut Vec<Entry<'a, Self>>;
    fn decode(r: &mut Reader<'_>, dialect: usize, custom: bool, c: &mut Cursor<'_>)
        -> Result<Self>;
}

/// What reads the custom entries of a dialect.
#[derive(Clone, Copy)]
enum EntryCodec {
    Builtin,
    Vhlo,
    /// A dialect of `spec/dialects/`.
    Table(&'static crate::dialect::codec::CodecDialect),
    /// None: its custom entries are refused.
    None,
}

/// Attributes and types resolve alike: (the kind, its name, its table, its decoders of a custom
/// and a textual entry, how the module interns it).
macro_rules! resolved {
    ($kind:ty, $what:literal, $table:ident, $decode:ident, $textual:ident, $intern:ident) => {
        impl Resolved for $kind {
            const WHAT: &'static str = $what;
            fn table<'r, 'a>(r: &'r mut Reader<'a>) -> &'r mut Vec<Entry<'a, Self>> {
                &mut r.$table
            }
            fn decode(
                r: &mut Reader<'_>,
                dialect: usize,
                custom: bool,
                c: &mut Cursor<'_>,
            ) -> Result<Self> {
                let (codec, dsym) = r.entry_dialect(dialect, c)?;
                let data = if custom {
                    r.$decode(codec, dsym, c)?
                } else {
                    let at = c.offset();
                    let text = r.fallback_text(c)?;
                    r.$textual(codec, dsym, text).map_err(|e| c.err_at(at, e))?
                };
                Ok(r.module.$intern(data))
            }
        }
    };
}
resolved!(
    Attribute,
    "attribute",
    attrs,
    decode_attr,
    textual_attr,
    attr
);
resolved!(Type, "type", types, decode_type, textual_type, ty);

struct Reader<'a> {
    version: u64,
    /// The whole input, when the caller shares it: large data then views it.
    source: Option<&'a Blob>,
    module: Module,
    strings: Vec<(&'a [u8], Option<Symbol>)>,
    dialects: Vec<DialectEntry>,
    op_names: Vec<OpNameEntry>,
    attrs: Vec<Entry<'a, Attribute>>,
    types: Vec<Entry<'a, Type>>,
    properties: Vec<Cursor<'a>>,
    /// Decoded properties entries, with the op name they were decoded for.
    decoded_properties: Vec<Option<(usize, Vec<NamedAttr>)>>,
    /// Reused by every op read (see `read_op`).
    /// Boxed: taking it for an op and putting it back moves a pointer, not the struct.
    scratch: Option<Box<OperationState>>,
    /// The attribute index of the last op location read, and that location.
    last_loc: Option<(usize, Location)>,
    scratch_dict: Vec<NamedAttr>,
    /// Nesting of attribute/type resolution.
    depth: usize,
    /// Nesting of regions.
    region_depth: usize,
    /// Value slots declared by the regions being read: each needs a byte of the IR section to
    /// define it, so their sum is bounded by its size (and so is the memory they take).
    live_values: usize,
    /// Size of the top-level IR section.
    ir_bytes: usize,
    use_lists: BTreeMap<Value, UseListOrder>,
    /// Where each use-list order was read, to place an error found once all uses are known.
    use_list_offsets: BTreeMap<Value, usize>,
    /// An operand referred to a value not defined yet, or a region had several blocks.
    may_break_dominance: bool,
    block_arg_locations: BTreeMap<Value, Location>,
    shadowed_attributes: Vec<super::ShadowedAttribute>,
    /// The VHLO mnemonics interned so far (one lookup per kind, not per entry).
    vhlo_mnemonics: super::vhlo_codec::Mnemonics,
    /// The builtin resources by handle number (`dense_resource` refers to them by it).
    resource_keys: Vec<Symbol>,
}

impl<'a> Reader<'a> {
    // ---- strings and dialects ------------------------------------------------------------

    fn read_strings(&mut self, c: &mut Cursor<'a>) -> Result<()> {
        let n = c.count(2)?;
        let mut lens = Vec::with_capacity(n);
        for _ in 0..n {
            lens.push(c.index()?);
        }
        // Lengths are stored last string first.
        lens.reverse();
        for len in lens {
            let at = c.offset();
            if len == 0 {
                return Err(c.err_at(at, "string of length 0 (lengths include the NUL)"));
            }
            let data = c.bytes(len)?;
            let Some((&0, body)) = data.split_last() else {
                return Err(c.err_at(at, "string is not NUL-terminated"));
            };
            self.strings.push((body, None));
        }
        if !c.is_empty() {
            return Err(c.err("trailing bytes after the strings"));
        }
        Ok(())
    }

    fn string(&mut self, c: &Cursor<'_>, idx: usize) -> Result<Symbol> {
        let (bytes, sym) = *self
            .strings
            .get(idx)
            .ok_or_else(|| c.err(format!("string index {idx} out of range")))?;
        if let Some(sym) = sym {
            return Ok(sym);
        }
        // MLIR strings are bytes (binary `backend_config`s); names are checked where used.
        let sym = self.module.sym_bytes(bytes);
        if let Some(slot) = self.strings.get_mut(idx) {
            slot.1 = Some(sym);
        }
        Ok(sym)
    }

    fn read_string_ref(&mut self, c: &mut Cursor<'_>) -> Result<Symbol> {
        let idx = c.index()?;
        self.string(c, idx)
    }

    fn read_dialects(&mut self, c: &mut Cursor<'a>) -> Result<()> {
        let n = c.count(1)?;
        for _ in 0..n {
            let idx = if self.version < version::DIALECT_VERSIONING {
                c.index()?
            } else {
                let (idx, has_version) = c.varint_with_flag()?;
                if has_version {
                    let at = c.offset();
                    let (id, _) = c.section()?;
                    if id != section::DIALECT_VERSIONS {
                        return Err(c.err_at(
                            at,
                            format!("expected a dialect version section, found id {id}"),
                        ));
                    }
                }
                usize::try_from(idx).map_err(|_| c.err("string index too large"))?
            };
            let name = self.string(c, idx)?;
            self.dialects.push(DialectEntry { name });
        }
        if self.version >= version::ELIDE_UNKNOWN_BLOCK_ARG_LOCATION {
            // Total op-name count, a reservation hint only; still bounded by the section size.
            c.count(1)?;
        }
        while !c.is_empty() {
            let at = c.offset();
            let dialect = c.index()?;
            if dialect >= self.dialects.len() {
                return Err(c.err_at(at, format!("dialect index {dialect} out of range")));
            }
            let count = c.count(1)?;
            for _ in 0..count {
                let idx = if self.version >= version::NATIVE_PROPERTIES_ENCODING {
                    c.varint_with_flag()?.0
                } else {
                    c.varint()?
                };
                let idx = usize::try_from(idx).map_err(|_| c.err("string index too large"))?;
                let short_sym = self.string(c, idx)?;
                let short = self.module.str(short_sym).to_string();
                let dname = self.dialect_name(dialect).to_string();
                let full = self.module.sym(&format!("{dname}.{short}"));
                let inherent = match native_properties(&dname, &short) {
                    Some(attrs) => Some(attrs.iter().map(|a| self.module.sym(a.0)).collect()),
                    None => inherent_names(&dname, &short)
                        .map(|names| names.iter().map(|n| self.module.sym(n)).collect()),
                };
                // The builtin dialect allows no unknown op; nor does VHLO (MLIR's registry; the
                // names are the verifier's, text/dialects.rs `classify`).
                let unknown_op = matches!(dname.as_str(), "builtin" | "vhlo")
                    && crate::text::classify(self.module.str(full)).unknown;
                let refused = match dname.as_str() {
                    d if unknown_op => Some(format!(
                        "unregistered operation '{d}.{short}' found in dialect ('{d}') that does not allow unknown operations"
                    )),
                    d => unknown_dialect(d),
                };
                self.op_names.push(OpNameEntry {
                    full,
                    dialect: dname,
                    short,
                    inherent,
                    refused,
                });
            }
        }
        Ok(())
    }

    fn dialect_name(&self, idx: usize) -> &str {
        self.dialects
            .get(idx)
            .map(|d| self.module.str(d.name))
            .unwrap_or("")
    }

    // ---- resources ----------------------------------------------------------------------

    /// The resource offset and resource sections (`ResourceSectionReader::initialize`): groups
    /// of external resources (skipped, as MLIR skips those it has no parser for), then groups
    /// of dialect resources, of which only the builtin dialect's (`dense_resource` blobs) are
    /// supported. Blobs are views of the input when it is shared, never copies of large data.
    fn read_resources(
        &mut self,
        offsets: Option<Cursor<'a>>,
        body: Option<Cursor<'a>>,
    ) -> Result<()> {
        let (mut o, mut body) =
            match (offsets, body) {
                (None, None) => return Ok(()),
                (Some(o), Some(b)) => (o, b),
                (Some(c), None) | (None, Some(c)) => return Err(c.err(
                    "the resource and resource offset sections must both be present or both absent",
                )),
            };
        let at = o.offset();
        // Each group takes at least two bytes (a name or dialect, and a count).
        let external = o
            .count(2)
            .map_err(|_| o.err_at(at, "bad external resource group count"))?;
        for _ in 0..external {
            let _name = self.read_string_ref(&mut o)?;
            self.read_resource_group(&mut o, &mut body, false)?;
        }
        while !o.is_empty() {
            let at = o.offset();
            let d = o.index()?;
            let name = match self.dialects.get(d) {
                Some(e) => self.module.str(e.name).to_string(),
                None => {
                    return Err(o.err_at(
                        at,
                        format!("invalid dialect index {d} for a resource group"),
                    ))
                }
            };
            if name != "builtin" {
                return Err(o.err_at(
                    at,
                    format!("resources of dialect '{name}' are not supported (only the builtin dialect's dense_resource blobs)"),
                ));
            }
            self.read_resource_group(&mut o, &mut body, true)?;
        }
        Ok(())
    }

    /// One resource group: per entry a key, the size of its data in the resource section and
    /// its kind. `keep`: the builtin dialect's group, whose entries become numbered resources;
    /// an empty entry is a declaration (`__elided__`, or a key without data).
    fn read_resource_group(
        &mut self,
        o: &mut Cursor<'a>,
        body: &mut Cursor<'a>,
        keep: bool,
    ) -> Result<()> {
        // Key, size and kind take at least three bytes.
        let n = o.count(3)?;
        for _ in 0..n {
            let key = self.read_string_ref(o)?;
            let size = o.index()?;
            let kind_at = o.offset();
            let kind = o.byte()?;
            let entry_at = body.offset();
            let data = body.bytes(size)?;
            if !keep {
                continue;
            }
            let name = self.module.str(key).to_string();
            if self.resource_keys.contains(&key) {
                return Err(o.err_at(kind_at, format!("resource '{name}' is defined twice")));
            }
            self.resource_keys.push(key);
            if data.is_empty() {
                continue;
            }
            if kind != 0 {
                let found = match kind {
                    1 => "bool".to_string(),
                    2 => "string".to_string(),
                    k => format!("unknown kind {k}"),
                };
                return Err(o.err_at(
                    kind_at,
                    format!("expected a blob resource entry for '{name}', but found a {found} entry instead"),
                ));
            }
            let mut e = Cursor::new(data, entry_at, "resource");
            let align_at = e.offset();
            let alignment = e.varint()?;
            let len = e.index()?;
            let alignment = u32::try_from(alignment)
                .ok()
                .filter(|a| a.is_power_of_two())
                .ok_or_else(|| {
                    e.err_at(
                        align_at,
                        format!("resource '{name}': alignment {alignment} is not a power of two below 2^32"),
                    )
                })?;
            // The padding up to the alignment, counted from the start of the file as MLIR
            // counts it from the start of its (aligned) buffer.
            while !e.offset().is_multiple_of(alignment as usize) {
                if e.byte()? != ALIGNMENT_BYTE {
                    return Err(e.err(format!("resource '{name}': alignment padding is not 0xCB")));
                }
            }
            let bytes = e.bytes(len)?;
            if !e.is_empty() {
                return Err(e.err(format!(
                    "unexpected trailing bytes in resource entry '{name}'"
                )));
            }
            let data = self.blob(bytes);
            self.module
                .set_resource_blob(key, ResourceBlob { alignment, data });
        }
        Ok(())
    }

    /// A resource handle: a builtin resource's number.
    fn read_resource_handle(&mut self, c: &mut Cursor<'_>) -> Result<Symbol> {
        let at = c.offset();
        let i = c.index()?;
        self.resource_keys
            .get(i)
            .copied()
            .ok_or_else(|| c.err_at(at, format!("invalid resource handle index {i}")))
    }

    // ---- attribute and type tables -------------------------------------------------------

    fn read_attr_type_offsets(&mut self, o: &mut Cursor<'a>, data: Cursor<'a>) -> Result<()> {
        let num_attrs = o.count(1)?;
        let num_types = o.count(1)?;
        if num_attrs.saturating_add(num_types) > o.remaining() {
            return Err(o.err("more attribute/type entries than the offset section can describe"));
        }
        // Checked against the input above: room for every entry, so interning them does not
        // rehash the tables again and again (locations are most of the attributes).
        self.module.reserve_interned(num_attrs, num_types);
        let mut data = data;
        for is_type in [false, true] {
            let total = if is_type { num_types } else { num_attrs };
            let mut read = 0usize;
            while read < total {
                let at = o.offset();
                let dialect = o.index()?;
                if dialect >= self.dialects.len() {
                    return Err(o.err_at(at, format!("dialect index {dialect} out of range")));
                }
                let count = o.count(1)?;
                if count > total.saturating_sub(read) {
                    return Err(o.err_at(at, "entry group exceeds the declared entry count"));
                }
                for _ in 0..count {
                    let at = o.offset();
                    let (size, custom) = o.varint_with_flag()?;
                    let size =
                        usize::try_from(size).map_err(|_| o.err_at(at, "entry size too large"))?;
                    let base = data.offset();
                    let payload = data.bytes(size).map_err(|_| {
                        o.err_at(
                            at,
                            format!("entry of {size} bytes runs past the attribute/type section"),
                        )
                    })?;
                    let payload = Cursor::new(payload, base, "attribute/type");
                    if is_type {
                        self.types.push(Entry {
                            dialect,
                            custom,
                            payload,
                            slot: Slot::Unresolved,
                        });
                    } else {
                        self.attrs.push(Entry {
                            dialect,
                            custom,
                            payload,
                            slot: Slot::Unresolved,
                        });
                    }
                }
                read = read.saturating_add(count);
            }
        }
        if !o.is_empty() {
            return Err(o.err("trailing bytes in the offset section"));
        }
        if !data.is_empty() {
            return Err(data.err("attribute/type bytes not covered by the offset table"));
        }
        Ok(())
    }

    fn read_properties(&mut self, c: &mut Cursor<'a>) -> Result<()> {
        let n = c.count(1)?;
        for _ in 0..n {
            let len = c.index()?;
            let base = c.offset();
            let body = c.bytes(len)?;
            self.properties.push(Cursor::new(body, base, "properties"));
        }
        if !c.is_empty() {
            return Err(c.err("trailing bytes in the properties section"));
        }
        Ok(())
    }

    fn enter(&mut self, c: &Cursor<'_>) -> Result<()> {
        self.depth = self.depth.saturating_add(1);
        if self.depth > crate::ir::NESTING_GUARD {
            return Err(c
                .err(format!("nesting deeper than {}", crate::ir::NESTING_GUARD))
                .of_kind(BytecodeErrorKind::TooDeep));
        }
        Ok(())
    }

    /// Resolves entry `idx` of the attribute or type table, decoding it on first use.
    #[inline]
    fn resolve<T: Resolved>(&mut self, c: &Cursor<'_>, idx: usize) -> Result<T> {
        // Nearly every use finds the entry decoded: that path stays inline.
        if let Some(Entry {
            slot: Slot::Done(x),
            ..
        }) = T::table(self).get(idx)
        {
            return Ok(*x);
        }
        self.resolve_first(c, idx)
    }

    #[inline(never)]
    fn resolve_first<T: Resolved>(&mut self, c: &Cursor<'_>, idx: usize) -> Result<T> {
        let entry = T::table(self)
            .get_mut(idx)
            .ok_or_else(|| c.err(format!("{} index {idx} out of range", T::WHAT)))?;
        match entry.slot {
            Slot::Done(x) => return Ok(x),
            Slot::InProgress => return Err(c.err(format!("{} {idx} refers to itself", T::WHAT))),
            Slot::Unresolved => entry.slot = Slot::InProgress,
        }
        let (dialect, custom, mut payload) = (entry.dialect, entry.custom, entry.payload.clone());
        self.enter(c)?;
        let x = T::decode(self, dialect, custom, &mut payload)?;
        if !payload.is_empty() {
            return Err(payload.err(format!("{} {idx} has trailing bytes", T::WHAT)));
        }
        if let Some(e) = T::table(self).get_mut(idx) {
            e.slot = Slot::Done(x);
        }
        self.depth = self.depth.saturating_sub(1);
        Ok(x)
    }

    fn attr(&mut self, c: &Cursor<'_>, idx: usize) -> Result<Attribute> {
        self.resolve(c, idx)
    }

    fn ty(&mut self, c: &Cursor<'_>, idx: usize) -> Result<Type> {
        self.resolve(c, idx)
    }

    fn read_attr(&mut self, c: &mut Cursor<'_>) -> Result<Attribute> {
        let idx = c.index()?;
        self.attr(c, idx)
    }

    fn read_type(&mut self, c: &mut Cursor<'_>) -> Result<Type> {
        let idx = c.index()?;
        self.ty(c, idx)
    }

    fn read_string_attr(&mut self, c: &mut Cursor<'_>) -> Result<Symbol> {
        let at = c.offset();
        let a = self.read_attr(c)?;
        match self.module.attr_data(a) {
            AttrData::String { value, ty: None } => Ok(*value),
            _ => Err(c.err_at(at, "expected a string attribute")),
        }
    }

    fn read_loc(&mut self, c: &mut Cursor<'_>) -> Result<Location> {
        let at = c.offset();
        let idx = c.index()?;
        // Runs of ops share a location (all of them, in a program without any).
        if let Some((last, l)) = self.last_loc {
            if last == idx {
                return Ok(l);
            }
        }
        let a = self.attr(c, idx)?;
        let l = self.as_loc(c, at, a)?;
        self.last_loc = Some((idx, l));
        Ok(l)
    }

    fn as_loc(&self, c: &Cursor<'_>, at: usize, a: Attribute) -> Result<Location> {
        match self.module.attr_data(a) {
            AttrData::Location(l) => Ok(*l),
            _ => Err(c.err_at(at, "expected a location attribute")),
        }
    }

    /// `(flag, text)` of a textual fallback payload.
    fn fallback_text(&mut self, c: &mut Cursor<'_>) -> Result<Symbol> {
        let at = c.offset();
        let raw = c.cstr()?;
        let text =
            std::str::from_utf8(raw).map_err(|_| c.err_at(at, "textual entry is not UTF-8"))?;
        // MLIR parses the text as an attribute or type: nothing, or control characters (which
        // its lexer refuses), are not one.
        if text.trim().is_empty() {
            return Err(c.err_at(at, "textual entry is empty"));
        }
        if text
            .chars()
            .any(|ch| ch.is_control() && !matches!(ch, '\t' | '\n' | '\r'))
        {
            return Err(c.err_at(at, "textual entry has a control character"));
        }
        Ok(self.module.sym(text))
    }

    /// Which codec reads the entries of dialect number `dialect`, and its interned name.
    fn entry_dialect(&self, dialect: usize, c: &Cursor<'_>) -> Result<(EntryCodec, Symbol)> {
        let dsym = self
            .dialects
            .get(dialect)
            .map(|d| d.name)
            .ok_or_else(|| c.err("bad dialect"))?;
        if let Some(why) = unknown_dialect(self.module.str(dsym)) {
            return Err(c.err(why));
        }
        let codec = match self.module.str(dsym) {
            "builtin" => EntryCodec::Builtin,
            "vhlo" => EntryCodec::Vhlo,
            // Dialects described by spec/dialects/ (Shardy): their tables pick the encoding.
            name => codec_dialect(name).map_or(EntryCodec::None, EntryCodec::Table),
        };
        Ok((codec, dsym))
    }

    /// The error for a custom entry of a dialect without a codec.
    fn no_codec(&self, what: &str, dsym: Symbol, c: &Cursor<'_>) -> BytecodeError {
        let dname = self.module.str(dsym);
        c.err(format!(
            "custom {what} encoding of dialect '{dname}' is not supported"
        ))
        .of_kind(BytecodeErrorKind::Unsupported)
    }

    /// An attribute entry without a custom encoding: its text. One of a dialect the spec
    /// describes (Shardy's writer keeps some as text) is read as the text parser reads it, as
    /// MLIR's reader parses it; any other, or one whose syntax the parser lacks
    /// (`#sdy.propagation_edges`), is kept as text.
    fn textual_attr(
        &mut self,
        e: EntryCodec,
        dialect: Symbol,
        text: Symbol,
    ) -> std::result::Result<AttrData, String> {
        if matches!(e, EntryCodec::Table(_)) {
            let src = self.module.str(text).to_string();
            if let Ok(a) = crate::text::parse_attribute(&mut self.module, &src) {
                return Ok(self.module.attr_data(a).clone());
            }
        }
        // A builtin attribute kept as text has an empty dialect, as the text parser gives it.
        let dialect = if self.module.str(dialect) == "builtin" {
            self.module.sym("")
        } else {
            dialect
        };
        Ok(AttrData::Opaque { dialect, text })
    }

    fn decode_attr(&mut self, e: EntryCodec, dsym: Symbol, c: &mut Cursor<'_>) -> Result<AttrData> {
        match e {
            EntryCodec::Builtin => self.decode_builtin_attr(c),
            EntryCodec::Vhlo => super::vhlo_codec::read_attr(self, dsym, c),
            EntryCodec::Table(d) => super::codec::read_attr(d, dsym, self, c),
            EntryCodec::None => Err(self.no_codec("attribute", dsym, c)),
        }
    }

    /// A type entry without a custom encoding: its whole assembly (`!shape.witness`), which
    /// MLIR's reader parses as a type. Read as the text parser reads that type, so that it
    /// prints, converts and compares as the same type written in text does.
    fn textual_type(
        &mut self,
        e: EntryCodec,
        _: Symbol,
        text: Symbol,
    ) -> std::result::Result<TypeData, String> {
        let src = self.module.str(text).to_string();
        if matches!(e, EntryCodec::Builtin) {
            if let Some(t) = builtin_type_keyword(&src) {
                return Ok(t);
            }
        }
        let t = crate::text::parse_type(&mut self.module, &src)
            .map_err(|err| format!("type kept as text `{src}` does not parse: {err}"))?;
        Ok(self.module.type_data(t).clone())
    }

    fn decode_type(&mut self, e: EntryCodec, dsym: Symbol, c: &mut Cursor<'_>) -> Result<TypeData> {
        match e {
            EntryCodec::Builtin => self.decode_builtin_type(c),
            EntryCodec::Vhlo => super::vhlo_codec::read_type(self, dsym, c),
            EntryCodec::Table(_) | EntryCodec::None => Err(self.no_codec("type", dsym, c)),
        }
    }

    // ---- builtin dialect ------------------------------------------------------------------

    fn decode_builtin_attr(&mut self, c: &mut Cursor<'_>) -> Result<AttrData> {
        let at = c.offset();
        let code = c.varint()?;
        Ok(match code {
            builtin_attr::ARRAY => AttrData::Array(self.attr_list(c)?),
            builtin_attr::DICTIONARY => {
                let pairs_at = c.offset();
                let pairs = self.attr_pair_list(c)?;
                let mut entries = Vec::with_capacity(pairs.len());
                for &(k, value) in pairs.iter() {
                    match self.module.attr_data(k) {
                        AttrData::String {
                            value: name,
                            ty: None,
                        } => entries.push((*name, value)),
                        _ => return Err(c.err_at(pairs_at, "dictionary key is not a string")),
                    }
                }
                // MLIR's DictionaryAttr::get sorts by name and allows no duplicate; so does the
                // IR, whatever order the file has.
                let m = &self.module;
                entries.sort_by(|a, b| m.str(a.0).cmp(m.str(b.0)));
                if let Some(w) = entries
                    .windows(2)
                    .find(|w| w.first().map(|e| e.0) == w.last().map(|e| e.0))
                {
                    let name = w.first().map_or("", |e| m.str(e.0));
                    return Err(c.err_at(at, format!("dictionary has the key '{name}' twice")));
                }
                AttrData::Dictionary(entries.into())
            }
            builtin_attr::STRING => AttrData::String {
                value: self.read_string_ref(c)?,
                ty: None,
            },
            builtin_attr::STRING_WITH_TYPE => {
                let value = self.read_string_ref(c)?;
                let ty = self.read_type(c)?;
                AttrData::String {
                    value,
                    ty: Some(ty),
                }
            }
            builtin_attr::FLAT_SYMBOL_REF => AttrData::SymbolRef {
                root: self.read_string_attr(c)?,
                nested: Box::new([]),
            },
            builtin_attr::SYMBOL_REF => {
                let root = self.read_string_attr(c)?;
                let n = c.count(1)?;
                let mut nested = Vec::with_capacity(n);
                for _ in 0..n {
                    let at = c.offset();
                    let a = self.read_attr(c)?;
                    match self.module.attr_data(a) {
                        AttrData::SymbolRef {
                            root,
                            nested: inner,
                        } if inner.is_empty() => nested.push(*root),
                        _ => return Err(c.err_at(at, "expected a flat symbol reference")),
                    }
                }
                AttrData::SymbolRef {
                    root,
                    nested: nested.into(),
                }
            }
            builtin_attr::TYPE => AttrData::Type(self.read_type(c)?),
            builtin_attr::UNIT => AttrData::Unit,
            builtin_attr::INTEGER => {
                let at = c.offset();
                let ty = self.read_type(c)?;
                let (width, signedness) = match self.module.type_data(ty) {
                    TypeData::Integer { width, signedness } => (*width, *signedness),
                    TypeData::Index => (64, Signedness::Signless),
                    _ => return Err(c.err_at(at, "integer attribute of a non-integer type")),
                };
                if width > 128 {
                    let words = read_apint_words(c, width)?;
                    return Ok(AttrData::WideInteger {
                        ty,
                        words: words.into(),
                    });
                }
                let bits = read_apint(c, width)?;
                if width == 1 && signedness == Signedness::Signless {
                    AttrData::Bool(bits & 1 == 1)
                } else {
                    let value = if signedness == Signedness::Unsigned {
                        bits as i128
                    } else {
                        sign_extend(bits, width)
                    };
                    AttrData::Integer { ty, value }
                }
            }
            builtin_attr::FLOAT => {
                let at = c.offset();
                let ty = self.read_type(c)?;
                let width = match self.module.type_data(ty) {
                    TypeData::Float(k) => k.bit_width(),
                    _ => return Err(c.err_at(at, "float attribute of a non-float type")),
                };
                AttrData::Float {
                    ty,
                    bits: read_apint(c, width)?,
                }
            }
            builtin_attr::CALL_SITE_LOC => {
                let callee = self.read_loc(c)?;
                let caller = self.read_loc(c)?;
                AttrData::Location(self.module.loc(LocData::CallSite { callee, caller }))
            }
            builtin_attr::FILE_LINE_COL_LOC => {
                let file = self.read_string_attr(c)?;
                let line = read_u32(c)?;
                let column = read_u32(c)?;
                AttrData::Location(self.module.loc(LocData::FileLineCol { file, line, column }))
            }
            builtin_attr::FUSED_LOC | builtin_attr::FUSED_LOC_WITH_METADATA => {
                let n = c.count(1)?;
                let mut locations = Vec::with_capacity(n);
                for _ in 0..n {
                    locations.push(self.read_loc(c)?);
                }
                let metadata = if code == builtin_attr::FUSED_LOC_WITH_METADATA {
                    Some(self.read_attr(c)?)
                } else {
                    None
                };
                AttrData::Location(self.module.loc(LocData::Fused {
                    metadata,
                    locations: locations.into(),
                }))
            }
            builtin_attr::NAME_LOC => {
                let name = self.read_string_attr(c)?;
                let child = self.read_loc(c)?;
                let child = (child != self.module.unknown_loc()).then_some(child);
                AttrData::Location(self.module.loc(LocData::Name { name, child }))
            }
            builtin_attr::UNKNOWN_LOC => AttrData::Location(self.module.unknown_loc()),
            builtin_attr::FILE_LINE_COL_RANGE => {
                let file = self.read_string_attr(c)?;
                let at = c.offset();
                let n = c.index()?;
                if n > 4 {
                    return Err(c.err_at(at, format!("file range with {n} line/column values")));
                }
                let line_cols = (0..n)
                    .map(|_| read_u32(c))
                    .collect::<Result<Box<[u32]>>>()?;
                AttrData::Location(
                    self.module
                        .loc(LocData::FileLineColRange { file, line_cols }),
                )
            }
            builtin_attr::DENSE_RESOURCE_ELEMENTS => {
                let at = c.offset();
                let ty = self.read_type(c)?;
                if !matches!(
                    self.module.type_data(ty),
                    TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
                ) {
                    return Err(c.err_at(at, "dense_resource of a type that is not shaped"));
                }
                let key = self.read_resource_handle(c)?;
                AttrData::DenseResource { ty, key }
            }
            builtin_attr::DENSE_ARRAY => {
                let element = self.read_type(c)?;
                let _size = c.varint()?;
                let len = c.index()?;
                AttrData::DenseArray {
                    element,
                    data: c.bytes(len)?.into(),
                }
            }
            builtin_attr::DENSE_INT_OR_FP_ELEMENTS => {
                let ty = self.read_type(c)?;
                let len = c.index()?;
                let bytes = c.bytes(len)?;
                if let Some(n) = i1_elements(&self.module, ty) {
                    // MLIR packs i1 elements eight to a byte; a splat is one byte, all ones or
                    // all zeros (`DenseIntOrFPElementsAttr::isValidRawBuffer`). Kept one byte
                    // per element, as everywhere else.
                    let (data, splat) =
                        crate::bytecode::encoding::unpack_i1(bytes, n).ok_or_else(|| {
                            c.err(format!(
                                "dense i1 elements: {len} bytes cannot hold {n} packed elements"
                            ))
                        })?;
                    AttrData::DenseElements {
                        ty,
                        data: data.into(),
                        splat,
                    }
                } else {
                    let data = self.blob(bytes);
                    let splat =
                        builtin_elem_bytes(&self.module, ty).is_some_and(|w| w == data.len());
                    AttrData::DenseElements { ty, data, splat }
                }
            }
            builtin_attr::DENSE_STRING_ELEMENTS => {
                let ty = self.read_type(c)?;
                // A splat stores its one string without a count.
                let splat = c.varint()? != 0;
                let n = if splat { 1 } else { c.count(1)? };
                let mut values = Vec::with_capacity(n);
                for _ in 0..n {
                    values.push(self.read_string_ref(c)?);
                }
                AttrData::DenseStrings {
                    ty,
                    values: values.into(),
                }
            }
            _ => {
                return Err(c
                    .err_at(at, format!("unsupported builtin attribute code {code}"))
                    .of_kind(BytecodeErrorKind::Unsupported))
            }
        })
    }

    fn decode_builtin_type(&mut self, c: &mut Cursor<'_>) -> Result<TypeData> {
        let at = c.offset();
        let code = c.varint()?;
        Ok(match code {
            builtin_type::INTEGER => {
                let v = c.varint()?;
                let width =
                    u32::try_from(v >> 2).map_err(|_| c.err_at(at, "integer width too large"))?;
                let signedness = match v & 3 {
                    0 => Signedness::Signless,
                    1 => Signedness::Signed,
                    2 => Signedness::Unsigned,
                    _ => return Err(c.err_at(at, "invalid integer signedness")),
                };
                TypeData::Integer { width, signedness }
            }
            builtin_type::INDEX => TypeData::Index,
            builtin_type::FUNCTION => {
                let inputs = self.type_list(c)?;
                let results = self.type_list(c)?;
                TypeData::Function { inputs, results }
            }
            builtin_type::COMPLEX => TypeData::Complex(self.read_type(c)?),
            builtin_type::NONE => TypeData::None,
            builtin_type::RANKED_TENSOR | builtin_type::RANKED_TENSOR_WITH_ENCODING => {
                let encoding = if code == builtin_type::RANKED_TENSOR_WITH_ENCODING {
                    Some(self.read_attr(c)?)
                } else {
                    None
                };
                let shape = read_shape(c)?;
                let element = self.read_type(c)?;
                TypeData::RankedTensor {
                    shape,
                    element,
                    encoding,
                }
            }
            builtin_type::TUPLE => TypeData::Tuple(self.type_list(c)?),
            builtin_type::UNRANKED_TENSOR => TypeData::UnrankedTensor {
                element: self.read_type(c)?,
            },
            // Kept as the dialect type `builtin.vector` (ir::vector_parts).
            builtin_type::VECTOR => {
                let shape = read_shape(c)?;
                if shape.iter().any(|&d| d <= 0) {
                    return Err(c.err_at(at, "vector types must have positive constant sizes"));
                }
                let element = self.read_type(c)?;
                let scalable: Box<[i64]> = vec![0; shape.len()].into();
                let (dialect, mnemonic) = (self.module.sym("builtin"), self.module.sym("vector"));
                TypeData::Dialect(crate::ir::DialectType {
                    dialect,
                    mnemonic,
                    params: Box::new([
                        crate::ir::Param::Ints(shape),
                        crate::ir::Param::Ints(scalable),
                        crate::ir::Param::Type(element),
                    ]),
                })
            }
            builtin_type::VECTOR_WITH_SCALABLE_DIMS => {
                return Err(c
                    .err_at(at, "scalable vector types are not supported")
                    .of_kind(BytecodeErrorKind::Unsupported))
            }
            _ => match super::encoding::BUILTIN_FLOAT_TYPE_CODES
                .iter()
                .find(|(_, c)| *c == code)
            {
                Some(&(kind, _)) => TypeData::Float(kind),
                None => {
                    return Err(c
                        .err_at(at, format!("unsupported builtin type code {code}"))
                        .of_kind(BytecodeErrorKind::Unsupported))
                }
            },
        })
    }

    // ---- large data ----------------------------------------------------------------------

    /// `bytes` of the input as a [`Blob`]: a view of the input when it is shared and the bytes
    /// are many (`read_shared`), else a copy.
    fn blob(&self, bytes: &[u8]) -> Blob {
        self.source
            .and_then(|s| s.sub_blob(bytes))
            .unwrap_or_else(|| Blob::from(bytes))
    }

    // ---- IR ---------------------------------------------------------------------------------

    fn read_ir(&mut self, c: &mut Cursor<'a>) -> Result<()> {
        // An op record takes a dozen bytes or so (name, mask, location, operands, types): a
        // hint bounded by the input, not a count the input claims.
        self.module.reserve_ops(self.ir_bytes / 12);
        let (num_ops, has_args) = c.varint_with_flag()?;
        if has_args {
            return Err(c
                .err("top-level block arguments are not supported")
                .of_kind(BytecodeErrorKind::Unsupported));
        }
        let mut scope = Scope {
            top: true,
            ..Scope::default()
        };
        scope.next_ids.push(0);
        let mut ctx = RegionCtx {
            blocks: Vec::new(),
            forward: Vec::new(),
        };
        // Like MLIR's parseSourceFile<ModuleOp> (and our text parser): anything but a single
        // builtin.module at the top level is wrapped in an implicit module.
        let single_module = num_ops == 1 && {
            let mut peek = c.clone();
            let idx = peek.index()?;
            self.op_names
                .get(idx)
                .is_some_and(|e| self.module.str(e.full) == "builtin.module")
        };
        let block = if single_module {
            None
        } else {
            let region = self.module.create_region();
            let block = self.module.append_block(region, &[]);
            let name = self.module.sym("builtin.module");
            let mut state = OperationState::new(name, self.module.unknown_loc());
            state.regions.push(region);
            let wrapper = self.module.create_op(state);
            self.module.push_top(wrapper);
            Some(block)
        };
        for _ in 0..num_ops {
            self.read_op(c, block, &mut scope, &mut ctx)?;
        }
        if let Some(&(_, _, idx, at)) = ctx.forward.first() {
            return Err(c.err_at(at, format!("successor block {idx} of a top-level op")));
        }
        self.finish_scope(c, &mut scope)?;
        if !c.is_empty() {
            return Err(c.err("trailing bytes after the top-level operations"));
        }
        Ok(())
    }

    #[inline]
    fn define(&mut self, c: &Cursor<'_>, scope: &mut Scope, v: Value) -> Result<()> {
        let next = scope
            .next_ids
            .last_mut()
            .ok_or_else(|| c.err("value defined outside a region"))?;
        let slot = *next;
        *next = slot.saturating_add(1);
        if slot >= scope.values.len() {
            if scope.top && scope.next_ids.len() == 1 {
                // Top-level results: the IR section declares no value count for them.
                scope.values.resize(slot.saturating_add(1), None);
            } else {
                return Err(c.err("region defines more values than its header declared"));
            }
        }
        if let Some(s) = scope.values.get_mut(slot) {
            *s = Some(v);
        }
        // Forward references are rare (graph regions, blocks out of order): no hashing without.
        if scope.waiting.is_empty() {
            return Ok(());
        }
        for (op, i) in scope.waiting.remove(&slot).unwrap_or_default() {
            self.check_dominance(c, op, i, v)?;
            self.module.set_operand(op, i, v);
        }
        Ok(())
    }

    /// A forward reference from `user` to `v`, an op result, is only valid from another block
    /// of a CFG region: when the defining op's block holds `user` or one of its ancestors, the
    /// use comes first there, which MLIR's verifier refuses in the regions of VHLO and func ops
    /// (SSACFG; other dialects' ops may have graph regions, where the order does not matter).
    fn check_dominance(&self, c: &Cursor<'_>, user: OpId, i: usize, v: Value) -> Result<()> {
        let crate::ir::ValueDef::Result { op: def, .. } = self.module.value_def(v) else {
            return Ok(());
        };
        let Some(def_block) = self.module.op_parent(def) else {
            return Ok(());
        };
        let ssacfg = self
            .module
            .block_parent(def_block)
            .and_then(|r| self.module.region_parent(r))
            .is_some_and(|owner| {
                let name = self.module.op_name_str(owner);
                name.starts_with("vhlo.") || name.starts_with("func.")
            });
        if !ssacfg {
            return Ok(());
        }
        // Bounded by the region depth limit.
        let mut at = Some(user);
        while let Some(op) = at {
            let Some(block) = self.module.op_parent(op) else {
                break;
            };
            if block == def_block {
                return Err(c.err(format!(
                    "operand #{i} of op {} does not dominate its use: it is defined later in the same block",
                    self.module.op_name_str(user)
                )));
            }
            at = self
                .module
                .block_parent(block)
                .and_then(|r| self.module.region_parent(r));
        }
        Ok(())
    }

    /// One op and, recursively, its regions. The recursion (one level per region nesting, at
    /// most [`MAX_DEPTH`]) keeps only this small frame and `read_regions`'s: the op itself is
    /// decoded by `read_op_body`, which is never inlined here (docs/bytecode.md, "Limits").
    fn read_op(
        &mut self,
        c: &mut Cursor<'a>,
        block: Option<Block>,
        scope: &mut Scope,
        region: &mut RegionCtx,
    ) -> Result<()> {
        let Some((isolated, regions)) = self.read_op_body(c, block, scope, region)? else {
            return Ok(());
        };
        self.region_depth = self.region_depth.saturating_add(1);
        if self.region_depth > MAX_DEPTH {
            return Err(c
                .err(format!("regions nesting deeper than {MAX_DEPTH}"))
                .of_kind(BytecodeErrorKind::TooDeep));
        }
        if isolated && self.version >= version::LAZY_LOADING {
            let at = c.offset();
            let (id, mut body) = c.section()?;
            if id != section::IR {
                return Err(c.err_at(at, format!("expected a nested IR section, found id {id}")));
            }
            self.read_regions(&mut body, &regions, true, scope)?;
            if !body.is_empty() {
                return Err(body.err("trailing bytes in a nested IR section"));
            }
        } else {
            self.read_regions(c, &regions, isolated, scope)?;
        }
        self.region_depth = self.region_depth.saturating_sub(1);
        Ok(())
    }

    /// An op without its regions: `Some((isolated, regions))` when it has regions to read.
    #[inline(never)]
    fn read_op_body(
        &mut self,
        c: &mut Cursor<'a>,
        block: Option<Block>,
        scope: &mut Scope,
        region: &mut RegionCtx,
    ) -> Result<Option<(bool, Vec<Region>)>> {
        let op_at = c.offset();
        let name_idx = c.index()?;
        let Some(entry) = self.op_names.get(name_idx) else {
            return Err(c.err_at(op_at, format!("op name index {name_idx} out of range")));
        };
        if let Some(why) = &entry.refused {
            return Err(c
                .err_at(op_at, why.clone())
                .of_kind(BytecodeErrorKind::Unsupported));
        }
        let name = entry.full;
        let is_vhlo = entry.dialect == "vhlo";
        let mask = c.byte()?;
        if self.version < version::NATIVE_PROPERTIES_ENCODING && mask & op_mask::HAS_PROPERTIES != 0
            || self.version < version::USE_LIST_ORDERING && mask & op_mask::HAS_USE_LIST_ORDERS != 0
            || mask & 0x80 != 0
        {
            return Err(c.err(format!("invalid op encoding mask {mask:#04x}")));
        }
        let location = self.read_loc(c)?;
        // One state reused for every op (no allocations per op); nested ops are read only
        // after this one is created, so the recursion never needs two at once.
        let mut state = self
            .scratch
            .take()
            .unwrap_or_else(|| Box::new(OperationState::new(name, location)));
        state.name = name;
        state.location = location;
        for v in [&mut state.properties, &mut state.attributes] {
            v.clear();
        }
        state.operands.clear();
        state.result_types.clear();
        state.regions.clear();
        state.successors.clear();
        let mut dict = std::mem::take(&mut self.scratch_dict);
        dict.clear();
        if mask & op_mask::HAS_ATTRS != 0 {
            let at = c.offset();
            let a = self.read_attr(c)?;
            match self.module.attr_data(a) {
                AttrData::Dictionary(entries) => {
                    dict.extend(
                        entries
                            .iter()
                            .map(|&(name, value)| NamedAttr { name, value }),
                    );
                }
                _ => return Err(c.err_at(at, "op attributes are not a dictionary")),
            }
        }
        let is_inherent = |name: Symbol, entry: &OpNameEntry| {
            entry
                .inherent
                .as_ref()
                .is_some_and(|names| names.contains(&name))
        };
        // Dictionary entries the properties overwrite (strict mode reports them).
        let mut shadowed = false;
        if mask & op_mask::HAS_PROPERTIES != 0 {
            let at = c.offset();
            let idx = c.index()?;
            self.properties_of(c, at, idx, name_idx, &mut state.properties)?;
            // As in MLIR's Operation::create: dictionary entries with an inherent name go to the
            // properties, which the properties entry then overwrites.
            if let Some(entry) = self.op_names.get(name_idx) {
                state
                    .attributes
                    .extend(dict.iter().filter(|a| !is_inherent(a.name, entry)));
                shadowed = state.attributes.len() != dict.len();
            }
        } else if let Some(entry) = self.op_names.get(name_idx).filter(|e| e.inherent.is_some()) {
            // Before native properties, and for an op written without its properties entry,
            // inherent attributes live in the dictionary (MLIR's `setAttrs` moves them over).
            for &a in &dict {
                if is_inherent(a.name, entry) {
                    state.properties.push(a);
                } else {
                    state.attributes.push(a);
                }
            }
        } else {
            state.attributes.extend_from_slice(&dict);
        }
        // VHLO ops have no optional attributes: MLIR's verifier refuses an op without one.
        if is_vhlo {
            if let Some(entry) = self.op_names.get(name_idx) {
                let names = entry.inherent.as_deref().unwrap_or_default();
                if let Some(&missing) = names
                    .iter()
                    .find(|&&n| !state.properties.iter().any(|a| a.name == n))
                {
                    return Err(c.err_at(
                        op_at,
                        format!(
                            "op vhlo.{} is missing its inherent attribute '{}'",
                            entry.short,
                            self.module.str(missing)
                        ),
                    ));
                }
            }
        }
        if mask & op_mask::HAS_RESULTS != 0 {
            let n = c.count(1)?;
            for _ in 0..n {
                let t = self.read_type(c)?;
                state.result_types.push(t);
            }
        }
        let mut fixups = Vec::new();
        let mut forward = Vec::new();
        if mask & op_mask::HAS_OPERANDS != 0 {
            let n = c.count(1)?;
            for i in 0..n {
                let at = c.offset();
                let slot = c.index()?;
                match scope.values.get(slot) {
                    Some(Some(v)) => state.operands.push(*v),
                    Some(None) => {
                        fixups.push((i, slot));
                        state.operands.push(Value(u32::MAX));
                    }
                    None => return Err(c.err_at(at, format!("value index {slot} out of range"))),
                }
            }
        }
        if mask & op_mask::HAS_SUCCESSORS != 0 {
            let n = c.count(1)?;
            for i in 0..n {
                let at = c.offset();
                let idx = c.index()?;
                match region.blocks.get(idx) {
                    Some(&b) => state.successors.push(b),
                    None => {
                        forward.push((i, idx, at));
                        state.successors.push(Block(u32::MAX));
                    }
                }
            }
        }
        let use_lists = if mask & op_mask::HAS_USE_LIST_ORDERS != 0 {
            read_use_list_orders(c, state.result_types.len())?
        } else {
            Vec::new()
        };
        let mut regions_header = None;
        if mask & op_mask::HAS_INLINE_REGIONS != 0 {
            let (n, isolated) = c.varint_with_flag()?;
            let n = usize::try_from(n).map_err(|_| c.err("region count too large"))?;
            if n > c.remaining() {
                return Err(c.err(format!("region count {n} exceeds the remaining bytes")));
            }
            for _ in 0..n {
                let r = self.module.create_region();
                state.regions.push(r);
            }
            regions_header = Some(isolated);
        }
        let regions = if regions_header.is_some() {
            state.regions.clone()
        } else {
            Vec::new()
        };
        let op = self.module.create_op_from(&state);
        self.scratch = Some(state);
        // Forward successors, forward operands and use-list orders are rare: an empty list is
        // neither iterated nor dropped through a call (2% of the read on the 100k transformer).
        if !forward.is_empty() {
            region
                .forward
                .extend(forward.into_iter().map(|(i, idx, at)| (op, i, idx, at)));
        }
        if shadowed {
            if let Some(entry) = self.op_names.get(name_idx) {
                let dropped = dict.iter().filter(|a| is_inherent(a.name, entry));
                self.shadowed_attributes
                    .extend(dropped.map(|a| super::ShadowedAttribute {
                        op,
                        name: a.name,
                        value: a.value,
                    }));
            }
        }
        self.scratch_dict = dict;
        match block {
            Some(b) => self.module.append_op(b, op),
            None => self.module.push_top(op),
        }
        if !fixups.is_empty() {
            for (i, slot) in fixups {
                scope.waiting.entry(slot).or_default().push((op, i));
                self.may_break_dominance = true;
            }
        }
        // An op's results are consecutive values.
        if let Some(Value(first)) = self.module.result(op, 0) {
            for k in 0..self.module.num_results(op) {
                self.define(c, scope, Value(first.saturating_add(k as u32)))?;
            }
        }
        if !use_lists.is_empty() {
            for (idx, order, at) in use_lists {
                let v = self
                    .module
                    .result(op, idx)
                    .ok_or_else(|| c.err("use-list order for a missing result"))?;
                self.use_lists.insert(v, order);
                self.use_list_offsets.insert(v, at);
            }
        }
        Ok(regions_header.map(|isolated| (isolated, regions)))
    }

    fn read_regions(
        &mut self,
        c: &mut Cursor<'a>,
        regions: &[Region],
        isolated: bool,
        outer: &mut Scope,
    ) -> Result<()> {
        let mut fresh = Scope::default();
        let scope = if isolated { &mut fresh } else { outer };
        for &region in regions {
            let num_blocks = c.count(1)?;
            if num_blocks == 0 {
                continue;
            }
            self.may_break_dominance |= num_blocks > 1;
            let at = c.offset();
            let num_values = c.index()?;
            let live = self
                .live_values
                .checked_add(num_values)
                .filter(|&n| num_values <= c.remaining() && n <= self.ir_bytes)
                .ok_or_else(|| {
                    c.err_at(
                        at,
                        format!(
                            "value count {num_values} exceeds what the remaining bytes can define"
                        ),
                    )
                })?;
            self.live_values = live;
            let start = scope.values.len();
            scope.next_ids.push(start);
            scope.values.resize(start.saturating_add(num_values), None);
            let mut ctx = RegionCtx {
                blocks: Vec::new(),
                forward: Vec::new(),
            };
            for _ in 0..num_blocks {
                let (block, num_ops) = self.read_block_header(c, region, scope)?;
                ctx.blocks.push(block);
                for _ in 0..num_ops {
                    self.read_op(c, Some(block), scope, &mut ctx)?;
                }
            }
            for (op, i, idx, at) in std::mem::take(&mut ctx.forward) {
                let b = ctx.blocks.get(idx).copied().ok_or_else(|| {
                    c.err_at(
                        at,
                        format!(
                            "successor block {idx} is not in the region ({} blocks)",
                            ctx.blocks.len()
                        ),
                    )
                })?;
                self.module.set_successor(op, i, b);
            }
            self.resolve_pending(c, scope, start)?;
            scope.values.truncate(start);
            scope.next_ids.pop();
            self.live_values = self.live_values.saturating_sub(num_values);
        }
        if isolated {
            self.finish_scope(c, &mut fresh)?;
        }
        Ok(())
    }

    /// A block's header: its arguments (types, locations, use-list orders) and op count. Kept
    /// out of `read_regions`'s frame, which the region recursion repeats.
    #[inline(never)]
    fn read_block_header(
        &mut self,
        c: &mut Cursor<'a>,
        region: Region,
        scope: &mut Scope,
    ) -> Result<(Block, usize)> {
        let (num_ops, has_args) = c.varint_with_flag()?;
        let mut arg_types = Vec::new();
        let mut arg_locs = Vec::new();
        if has_args {
            let n = c.count(1)?;
            for _ in 0..n {
                if self.version >= version::ELIDE_UNKNOWN_BLOCK_ARG_LOCATION {
                    let (t, has_loc) = c.varint_with_flag()?;
                    let t = usize::try_from(t).map_err(|_| c.err("type index too large"))?;
                    arg_types.push(self.ty(c, t)?);
                    arg_locs.push(if has_loc {
                        Some(self.read_loc(c)?)
                    } else {
                        None
                    });
                } else {
                    arg_types.push(self.read_type(c)?);
                    arg_locs.push(Some(self.read_loc(c)?));
                }
            }
        }
        let block = self.module.append_block(region, &arg_types);
        let args: Vec<Value> = self.module.block_args(block).to_vec();
        for &v in &args {
            self.define(c, scope, v)?;
        }
        // Block-argument locations live in the IR; the side table keeps the known ones
        // for callers of `ArtifactInfo` too.
        for (&v, loc) in args.iter().zip(arg_locs) {
            if let Some(l) = loc.filter(|&l| l != self.module.unknown_loc()) {
                self.module.set_value_location(v, l);
                self.block_arg_locations.insert(v, l);
            }
        }
        if has_args && self.version >= version::USE_LIST_ORDERING {
            let mask = c.byte()?;
            if mask & op_mask::HAS_USE_LIST_ORDERS != 0 {
                for (idx, order, at) in read_use_list_orders(c, args.len())? {
                    let v = args
                        .get(idx)
                        .copied()
                        .ok_or_else(|| c.err("use-list order for a missing argument"))?;
                    self.use_lists.insert(v, order);
                    self.use_list_offsets.insert(v, at);
                }
            } else if mask != 0 {
                return Err(c.err(format!("invalid block argument mask {mask:#04x}")));
            }
        }
        let num_ops = usize::try_from(num_ops).map_err(|_| c.err("op count too large"))?;
        if num_ops > c.remaining() {
            return Err(c.err(format!("op count {num_ops} exceeds the remaining bytes")));
        }
        // Bounded by the bytes left, as checked above.
        self.module.reserve_block_ops(block, num_ops);
        Ok((block, num_ops))
    }

    /// At the end of a region whose value slots start at `from`: forward references into them
    /// that are still waiting can never be defined.
    fn resolve_pending(&mut self, c: &Cursor<'_>, scope: &mut Scope, from: usize) -> Result<()> {
        match scope.waiting.range(from..).next() {
            Some((slot, _)) => Err(c.err(format!("operand refers to undefined value {slot}"))),
            None => Ok(()),
        }
    }

    /// Every use-list order read is a valid order of its value's uses (counted once, in one
    /// walk, and only when the artifact has orders).
    fn check_use_list_orders(&self, c: &Cursor<'_>) -> Result<()> {
        if self.use_lists.is_empty() {
            return Ok(());
        }
        let mut uses: BTreeMap<Value, usize> = self.use_lists.keys().map(|&v| (v, 0)).collect();
        let m = &self.module;
        m.walk(|op| {
            for v in m.operands(op) {
                if let Some(n) = uses.get_mut(v) {
                    *n = n.saturating_add(1);
                }
            }
        });
        for (v, order) in &self.use_lists {
            let n = uses.get(v).copied().unwrap_or(0);
            if let Err(e) = check_use_list_order(order, n) {
                let at = self.use_list_offsets.get(v).copied().unwrap_or(0);
                return Err(c.err_at(at, e));
            }
        }
        Ok(())
    }

    fn finish_scope(&mut self, c: &Cursor<'_>, scope: &mut Scope) -> Result<()> {
        self.resolve_pending(c, scope, 0)
    }

    /// The properties entry `idx` decoded for the op name `name_idx`. Entries are shared by
    /// ops with equal properties, so each (entry, op name) pair is decoded once.
    fn properties_of(
        &mut self,
        c: &Cursor<'a>,
        at: usize,
        idx: usize,
        name_idx: usize,
        out: &mut Vec<NamedAttr>,
    ) -> Result<()> {
        if let Some(Some((n, props))) = self.decoded_properties.get(idx) {
            if *n == name_idx {
                out.extend_from_slice(props);
                return Ok(());
            }
        }
        let mut p = self
            .properties
            .get(idx)
            .cloned()
            .ok_or_else(|| c.err_at(at, format!("properties index {idx} out of range")))?;
        let Some(entry) = self.op_names.get(name_idx) else {
            return Err(c.err_at(at, format!("op name index {name_idx} out of range")));
        };
        let is_module = entry.dialect == "builtin" && entry.short == "module";
        let codec_op = codec_dialect(&entry.dialect).and_then(|d| d.op(&entry.short));
        let native = native_properties(&entry.dialect, &entry.short);
        let optional: Vec<bool> = match (codec_op, &native) {
            (Some(op), _) => op.attributes.iter().map(|a| a.optional).collect(),
            (None, Some(attrs)) => attrs.iter().map(|a| a.1).collect(),
            (None, None) => Vec::new(),
        };
        let names = match entry.inherent.clone() {
            Some(names)
                if entry.dialect == "vhlo"
                    || is_module
                    || codec_op.is_some()
                    || native.is_some() =>
            {
                names
            }
            _ => {
                return Err(p.err(format!(
                    "properties of op {}.{} are not supported",
                    entry.dialect, entry.short
                )))
            }
        };
        let optional = |i: usize| is_module || optional.get(i).copied().unwrap_or(false);
        // ODS's AttrSizedOperandSegments (encoding.rs SEGMENTS): the segment sizes come first up
        // to version 5, last as a sparse array from version 6.
        let segments = codec_op
            .filter(|o| !o.attribute_names.contains(&"resultSegmentSizes"))
            .filter(|o| o.attribute_names.contains(&super::encoding::SEGMENTS))
            .map(|o| o.operands.len());
        let props = match segments {
            Some(groups) => self.decode_segmented_properties(&mut p, &names, &optional, groups)?,
            None => self.decode_properties(&mut p, &names, &optional)?,
        };
        if !p.is_empty() {
            let e = self.op_names.get(name_idx);
            let (d, s) = e.map_or(("", ""), |e| (e.dialect.as_str(), e.short.as_str()));
            return Err(p.err(format!("trailing bytes in the properties of {d}.{s}")));
        }
        if self.decoded_properties.len() < self.properties.len() {
            self.decoded_properties.resize(self.properties.len(), None);
        }
        out.extend_from_slice(&props);
        if let Some(slot) = self.decoded_properties.get_mut(idx) {
            *slot = Some((name_idx, props));
        }
        Ok(())
    }

    /// A properties entry: VHLO ops store every attribute in `names` order; `builtin.module`
    /// stores each of its two as an optional attribute index.
    /// [`Self::decode_properties`] of an op with `groups` operand groups sized by its
    /// `operandSegmentSizes`.
    fn decode_segmented_properties(
        &mut self,
        p: &mut Cursor<'_>,
        names: &[Symbol],
        optional: &dyn Fn(usize) -> bool,
        groups: usize,
    ) -> Result<Vec<NamedAttr>> {
        let seg = super::encoding::SEGMENTS;
        let Some(at) = names.iter().position(|&n| self.module.str(n) == seg) else {
            return Err(p.err(format!("no '{seg}' among the op's attributes")));
        };
        let native = self.version > version::NATIVE_PROPERTIES_ENCODING;
        let first = if native {
            None
        } else {
            Some(self.read_attr(p)?)
        };
        let rest: Vec<Symbol> = (names.iter())
            .enumerate()
            .filter(|&(i, _)| i != at)
            .map(|(_, &n)| n)
            .collect();
        let shift = |i: usize| if i >= at { i.saturating_add(1) } else { i };
        let mut out = self.decode_properties(p, &rest, &|i| optional(shift(i)))?;
        let value = match first {
            Some(a) => a,
            None => {
                let sizes = read_sparse_array(p, groups)?;
                let element = self.module.ty(TypeData::Integer {
                    width: 32,
                    signedness: crate::ir::Signedness::Signless,
                });
                let data: Vec<u8> = sizes.iter().flat_map(|v| v.to_le_bytes()).collect();
                self.module.attr(AttrData::DenseArray {
                    element,
                    data: data.into(),
                })
            }
        };
        if let Some(&name) = names.get(at) {
            out.push(NamedAttr { name, value });
        }
        let m = &self.module;
        out.sort_by(|a, b| m.str(a.name).cmp(m.str(b.name)));
        Ok(out)
    }

    fn decode_properties(
        &mut self,
        p: &mut Cursor<'_>,
        names: &[Symbol],
        optional: &dyn Fn(usize) -> bool,
    ) -> Result<Vec<NamedAttr>> {
        let mut out = Vec::with_capacity(names.len());
        for (i, &name) in names.iter().enumerate() {
            // An optional attribute the entry ends before was added to the op after the writer's
            // time (custom_call's result_tilings in 1.18.0): absent.
            if optional(i) && p.is_empty() {
                continue;
            }
            if optional(i) {
                let (idx, present) = p.varint_with_flag()?;
                if present {
                    let idx =
                        usize::try_from(idx).map_err(|_| p.err("attribute index too large"))?;
                    let value = self.attr(p, idx)?;
                    out.push(NamedAttr { name, value });
                } else if idx != 0 {
                    return Err(p.err("invalid optional attribute encoding"));
                }
            } else {
                let value = self.read_attr(p)?;
                out.push(NamedAttr { name, value });
            }
        }
        Ok(out)
    }
}

/// MLIR's `readSparseArray` of `size` 32-bit integers (writer.rs `write_sparse_array` writes it).
fn read_sparse_array(p: &mut Cursor<'_>, size: usize) -> Result<Vec<i32>> {
    let mut out = vec![0i32; size];
    let (count, sparse) = p.varint_with_flag()?;
    let value = |v: u64, p: &Cursor<'_>| {
        i32::try_from(v as u32 as i64).map_err(|_| p.err("segment size out of range"))
    };
    if !sparse {
        if count > size as u64 {
            return Err(p.err(format!("{count} segment sizes for {size} operand groups")));
        }
        for slot in out.iter_mut().take(count as usize) {
            let v = p.varint()?;
            *slot = value(v, p)?;
        }
        return Ok(out);
    }
    if count == 0 {
        return Ok(out);
    }
    if count > size as u64 {
        return Err(p.err(format!("{count} segment sizes for {size} operand groups")));
    }
    let bits = p.varint()?;
    if bits > 32 {
        return Err(p.err("segment index width out of range"));
    }
    let mask = (1u64 << bits).wrapping_sub(1);
    for _ in 0..count {
        let pair = p.varint()?;
        let index = usize::try_from(pair & mask).map_err(|_| p.err("segment index too large"))?;
        let Some(slot) = out.get_mut(index) else {
            return Err(p.err(format!(
                "segment index {index} beyond {size} operand groups"
            )));
        };
        *slot = value(pair >> bits, p)?;
    }
    Ok(out)
}

struct RegionCtx {
    blocks: Vec<Block>,
    /// Successors naming a block later in the region: (op, successor position, block index,
    /// offset), patched when the region's blocks are all read (MLIR allows them).
    forward: Vec<(OpId, usize, usize, usize)>,
}

impl super::vhlo_codec::VhloSource for Reader<'_> {
    fn string(&mut self, c: &mut Cursor<'_>) -> Result<Symbol> {
        self.read_string_ref(c)
    }
    fn attr(&mut self, c: &mut Cursor<'_>) -> Result<Attribute> {
        self.read_attr(c)
    }
    fn attr_at(&mut self, c: &Cursor<'_>, idx: usize) -> Result<Attribute> {
        Reader::attr(self, c, idx)
    }
    fn module(&mut self) -> &mut Module {
        &mut self.module
    }
    fn ty(&mut self, c: &mut Cursor<'_>) -> Result<Type> {
        self.read_type(c)
    }
    fn mnemonics(&mut self) -> (&mut super::vhlo_codec::Mnemonics, &mut Module) {
        (&mut self.vhlo_mnemonics, &mut self.module)
    }
    fn blob(&self, bytes: &[u8]) -> Blob {
        Reader::blob(self, bytes)
    }
}

/// A native (unversioned) StableHLO or func op, as plain MLIR bytecode holds it (Shardy's own
/// artifacts do): its inherent attributes in name order, as ODS writes properties, each with
/// whether it is optional (written as an attribute index with a presence flag). From the spec's
/// `stablehlo:` blocks and their ODS types.
fn native_properties(dialect: &str, short: &str) -> Option<Vec<(&'static str, bool)>> {
    if !matches!(dialect, "stablehlo" | "func") {
        return None;
    }
    let op = crate::vhlo::StablehloOp::from_name(&format!("{dialect}.{short}"))?;
    let mut attrs: Vec<(&'static str, bool)> = op
        .attribute_names()
        .iter()
        .zip(op.attribute_optional())
        .map(|(&name, &optional)| (name, optional))
        .collect();
    attrs.sort_unstable_by_key(|a| a.0);
    Some(attrs)
}

/// The inherent attribute names of an op, for splitting a pre-properties attribute dictionary.
pub(crate) fn inherent_names(dialect: &str, short: &str) -> Option<&'static [&'static str]> {
    match (dialect, short) {
        ("vhlo", s) => vhlo_op_attr_names(s),
        ("builtin", "module") => Some(&["sym_name", "sym_visibility"]),
        (d, s) => codec_dialect(d)
            .and_then(|d| d.op(s))
            .map(|o| o.attribute_names),
    }
}

fn read_use_list_orders(
    c: &mut Cursor<'_>,
    num_values: usize,
) -> Result<Vec<(usize, UseListOrder, usize)>> {
    let n = if num_values > 1 { c.count(2)? } else { 1 };
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let at = c.offset();
        let idx = if num_values > 1 { c.index()? } else { 0 };
        let (len, pair_encoding) = c.varint_with_flag()?;
        let len = usize::try_from(len).map_err(|_| c.err("use-list length too large"))?;
        if len > c.remaining() {
            return Err(c.err(format!("use-list length {len} exceeds the remaining bytes")));
        }
        let indices = (0..len)
            .map(|_| c.varint())
            .collect::<Result<Box<[u64]>>>()?;
        out.push((
            idx,
            UseListOrder {
                pair_encoding,
                indices,
            },
            at,
        ));
    }
    Ok(out)
}

/// MLIR's reader applies a use-list order only when it is a permutation of the value's uses
/// (or, pair-encoded, a list of (from, to) positions among them), and fails otherwise.
fn check_use_list_order(order: &UseListOrder, uses: usize) -> std::result::Result<(), String> {
    let n = order.indices.len();
    if order.pair_encoding {
        if !n.is_multiple_of(2) {
            return Err(format!("pair-encoded use-list order has an odd length {n}"));
        }
        if let Some(&i) = order.indices.iter().find(|&&i| i >= uses as u64) {
            return Err(format!(
                "use-list order names use {i} of a value with {uses} uses"
            ));
        }
        return Ok(());
    }
    if n != uses {
        return Err(format!(
            "use-list order of length {n} for a value with {uses} uses"
        ));
    }
    let mut seen = vec![false; n];
    for &i in order.indices.iter() {
        match usize::try_from(i).ok().and_then(|i| seen.get_mut(i)) {
            Some(s) if !*s => *s = true,
            _ => {
                return Err(format!(
                    "use-list order {:?} is not a permutation of the value's {uses} uses",
                    order.indices
                ))
            }
        }
    }
    Ok(())
}

/// MLIR's reader loads a dialect when an op, attribute or type of it is first used, and fails
/// on one its context does not register (jaxlib's: [`crate::dialect::LIBSTABLEHLO_DIALECTS`]).
fn unknown_dialect(name: &str) -> Option<String> {
    (!crate::dialect::LIBSTABLEHLO_DIALECTS.contains(&name)).then(|| {
        format!(
            "dialect '{name}' is unknown. If this is intended, please call \
             allowUnregisteredDialects() on the MLIRContext, or use -allow-unregistered-dialect \
             with the MLIR tool used."
        )
    })
}

fn read_u32(c: &mut Cursor<'_>) -> Result<u32> {
    let at = c.offset();
    let v = c.varint()?;
    u32::try_from(v).map_err(|_| c.err_at(at, format!("value {v} does not fit 32 bits")))
}

fn builtin_type_keyword(text: &str) -> Option<TypeData> {
    if let Some(k) = FloatKind::ALL.iter().find(|k| k.keyword() == text) {
        return Some(TypeData::Float(*k));
    }
    let (signedness, digits) = if let Some(d) = text.strip_prefix("si") {
        (Signedness::Signed, d)
    } else if let Some(d) = text.strip_prefix("ui") {
        (Signedness::Unsigned, d)
    } else {
        (Signedness::Signless, text.strip_prefix('i')?)
    };
    let width = digits.parse::<u32>().ok()?;
    Some(TypeData::Integer { width, signedness })
}

/// Bytes per element of a builtin shaped type's dense storage.
/// The number of elements of a statically shaped tensor of `i1`.
fn i1_elements(m: &Module, t: Type) -> Option<usize> {
    let TypeData::RankedTensor { shape, element, .. } = m.type_data(t) else {
        return None;
    };
    if !matches!(m.type_data(*element), TypeData::Integer { width: 1, .. }) {
        return None;
    }
    shape.iter().try_fold(1usize, |n, &d| {
        usize::try_from(d).ok().and_then(|d| n.checked_mul(d))
    })
}

fn builtin_elem_bytes(m: &Module, t: Type) -> Option<usize> {
    match m.type_data(t) {
        TypeData::RankedTensor { element, .. } | TypeData::UnrankedTensor { element } => {
            crate::ir::element_storage_bytes(m, *element)
        }
        _ => None,
    }
}
