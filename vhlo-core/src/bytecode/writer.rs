//! The bytecode writer: MLIR's IR numbering (first-seen order, refcount sort, per-byte dialect
//! grouping), then the sections in `BytecodeWriter::write` order.

use std::collections::BTreeMap;

use crate::ir::FastMap as HashMap;

use super::encoding::{
    builtin_attr, builtin_type, op_mask, section, version, Emitter, Encoded, ALIGNMENT_BYTE, MAGIC,
    SEGMENTS,
};
use super::reader::inherent_names;
use super::vhlo_codec::DialectWriter;
use super::UseListOrder;
use super::WriteError;
use crate::ir::{
    AttrData, Attribute, Blob, Block, LocData, Location, Module, NamedAttr, OpId, Region,
    Signedness, Symbol, Type, TypeData, Value,
};
use crate::vhlo::codec_dialect;

/// Nesting limit for attributes/types and for regions: the library's one limit, so that what
/// is written reads back.
const MAX_DEPTH: usize = crate::ir::MAX_NESTING;

/// What to write and the side tables a reader recorded.
#[derive(Clone, Debug)]
pub struct WriteOptions<'a> {
    /// MLIR bytecode format version, 0..=6.
    pub bytecode_version: u64,
    /// Producer string of the header (`StableHLO_v1.0.0`).
    pub producer: &'a str,
    /// Use-list orders to reproduce (from [`ArtifactInfo`](super::ArtifactInfo)).
    pub use_list_orders: Option<&'a BTreeMap<Value, UseListOrder>>,
    /// Block-argument locations (from [`ArtifactInfo`](super::ArtifactInfo)).
    pub block_arg_locations: Option<&'a BTreeMap<Value, Location>>,
}

impl<'a> WriteOptions<'a> {
    /// Options for `bytecode_version` and `producer` without side tables.
    pub fn new(bytecode_version: u64, producer: &'a str) -> Self {
        WriteOptions {
            bytecode_version,
            producer,
            use_list_orders: None,
            block_arg_locations: None,
        }
    }
}

type Result<T> = std::result::Result<T, WriteError>;

fn err<T>(msg: impl Into<String>) -> Result<T> {
    Err(WriteError(msg.into()))
}

/// Writes `module` (exactly one top-level op) as MLIR bytecode.
pub fn write(module: &Module, opts: &WriteOptions<'_>) -> Result<Vec<u8>> {
    // A private copy: writing interns location, dictionary and name attributes.
    write_interning(&mut module.clone(), opts)
}

/// [`write()`] without the copy: the attributes the encoding needs (locations as attributes, op
/// dictionaries) are interned into `module`; its IR is unchanged.
pub fn write_interning(module: &mut Module, opts: &WriteOptions<'_>) -> Result<Vec<u8>> {
    write_encoded(module, opts).map(Encoded::into_vec)
}

/// [`write_interning()`] without assembling the artifact: large constants stay where the
/// module holds them until [`Encoded::write_to`] streams them out.
pub fn write_encoded(module: &mut Module, opts: &WriteOptions<'_>) -> Result<Encoded> {
    // Whatever is written reads back: the reader applies the same limit.
    crate::ir::deepest_interned(module).map_err(|e| WriteError(e.to_string()))?;
    write_on_this_thread(module, opts)
}

fn write_on_this_thread(m: &mut Module, opts: &WriteOptions<'_>) -> Result<Encoded> {
    if opts.bytecode_version > version::MAX_SUPPORTED {
        return err(format!(
            "unsupported bytecode version {}",
            opts.bytecode_version
        ));
    }
    let root = match m.top_ops() {
        [root] => *root,
        ops => {
            return err(format!(
                "expected exactly one top-level op, found {}",
                ops.len()
            ))
        }
    };
    let mut w = Writer {
        version: opts.bytecode_version,
        opts,
        n: Numbering::default(),
        isolated: compute_isolation(m),
        strings: StringTable::default(),
        properties: Vec::new(),
        properties_index: HashMap::default(),
        depth: 0,
        op_info: HashMap::default(),
        op_infos: Vec::new(),
        props_memo: HashMap::default(),
        props_key: Vec::new(),
    };
    w.number_ir(m, root)?;
    w.n.finalize();
    let resources = resource_order(m, &mut w.n)?;

    let mut out = Emitter::default();
    out.bytes(&MAGIC);
    out.varint(opts.bytecode_version);
    out.bytes(opts.producer.as_bytes());
    out.byte(0);

    let dialect_section = w.dialect_section(m);
    out.section(section::DIALECT, &dialect_section);
    // Large constants in the payloads are splices, not copies (`Emitter::blob_bytes`).
    let mut payloads = Emitter::default();
    let offsets = w.attr_type_sections(m, &mut payloads)?;
    out.section(section::ATTR_TYPE_OFFSET, &offsets);
    out.byte(section::ATTR_TYPE);
    out.varint(payloads.len() as u64);
    out.append(payloads);
    let mut ir = Emitter::default();
    ir.varint_with_flag(1, false);
    w.write_op(m, &mut ir, root)?;
    out.section(section::IR, &ir.buf);
    w.resource_sections(m, &resources, &mut out)?;
    out.section(section::STRING, &w.strings.section());
    if opts.bytecode_version >= version::NATIVE_PROPERTIES_ENCODING {
        let mut p = Emitter::default();
        p.varint(w.properties.len() as u64);
        for entry in &w.properties {
            p.bytes(entry);
        }
        out.section(section::PROPERTIES, &p.buf);
    }
    Ok(out.into_encoded())
}

/// The largest blob alignment written: padding to it costs up to as many bytes (MLIR allows
/// any power of two; beyond this a few bytes of text would ask for gigabytes of padding).
const MAX_RESOURCE_ALIGNMENT: u32 = 1 << 16;

/// The referred resources in the order MLIR numbers and writes them: those with data in
/// first-seen order, then declarations (no data, `__elided__`), whose entries are empty.
fn resource_order(m: &Module, n: &mut Numbering) -> Result<Vec<Symbol>> {
    let (with_data, declared): (Vec<Symbol>, Vec<Symbol>) = n
        .resources
        .iter()
        .partition(|&&k| m.resource_blob(k).is_some());
    let order: Vec<Symbol> = with_data.into_iter().chain(declared).collect();
    for (i, &k) in order.iter().enumerate() {
        n.resource_num.insert(k, i as u64);
        if let Some(b) = m.resource_blob(k) {
            // What libStablehlo's reader refuses (`alignTo`: a power of two), or reads as
            // something else, is not written.
            if b.data.is_empty() {
                return err(format!(
                    "resource '{}' has an empty blob, which MLIR writes with alignment 0 and then                      refuses to read",
                    m.str(k)
                ));
            }
            if !b.alignment.is_power_of_two() || b.alignment > MAX_RESOURCE_ALIGNMENT {
                return err(format!(
                    "resource '{}' has alignment {}: a power of two up to {MAX_RESOURCE_ALIGNMENT} \
                     is needed",
                    m.str(k),
                    b.alignment
                ));
            }
        }
    }
    Ok(order)
}

/// Whether an op with regions uses no value defined outside them (MLIR numbers such ops as
/// isolated, which restarts value numbering and, from v2, wraps the regions in a section).
fn compute_isolation(m: &Module) -> DenseMap<OpId, ()> {
    use crate::ir::ValueDef;
    // Pre-order positions: `first[op]` and `last[op]` span op and everything nested in it.
    let n = m.num_ops();
    let mut first = vec![0u32; n];
    let mut last = vec![0u32; n];
    let mut counter = 0u32;
    let mut stack: Vec<(OpId, bool)> = m.top_ops().iter().rev().map(|&op| (op, false)).collect();
    while let Some((op, done)) = stack.pop() {
        if done {
            if let Some(l) = last.get_mut(op.index()) {
                *l = counter;
            }
            continue;
        }
        counter = counter.saturating_add(1);
        if let Some(f) = first.get_mut(op.index()) {
            *f = counter;
        }
        stack.push((op, true));
        for &r in m.regions(op).iter().rev() {
            for &b in m.blocks(r).iter().rev() {
                stack.extend(m.block_ops(b).iter().rev().map(|&o| (o, false)));
            }
        }
    }
    let parent_op = |op: OpId| {
        m.op_parent(op)
            .and_then(|b| m.block_parent(b))
            .and_then(|r| m.region_parent(r))
    };
    let contains = |outer: OpId, inner: OpId| {
        let (f, l) = (first[outer.index()], last[outer.index()]);
        (f..=l).contains(&first[inner.index()])
    };
    // An op with regions is isolated unless a use inside it reaches a value defined outside:
    // each use marks the enclosing ops that do not contain the definition, innermost first.
    let mut open = vec![false; n];
    m.walk(|user| {
        for &v in m.operands(user) {
            // The op whose subtree holds the definition: the defining op, or the op owning
            // the block of an argument (which holds it, as the argument is in its region).
            // (An op's own results are outside it.)
            let (def, own_is_inside) = match m.value_def(v) {
                ValueDef::Result { op, .. } => (Some(op), false),
                ValueDef::Argument { block, .. } => {
                    (m.block_parent(block).and_then(|r| m.region_parent(r)), true)
                }
            };
            let mut up = parent_op(user);
            while let Some(x) = up {
                let inside = def.is_some_and(|d| contains(x, d) && (own_is_inside || d != x));
                if inside {
                    break;
                }
                open[x.index()] = true;
                up = parent_op(x);
            }
        }
    });
    let mut isolated = DenseMap::default();
    m.walk(|op| {
        if !m.regions(op).is_empty() && !open[op.index()] {
            isolated.insert(op, ());
        }
    });
    isolated
}

/// A map keyed by an interned id, as a vector indexed by the id: the writer looks up every
/// value, attribute and type of the program, and hashing them was much of its time.
struct DenseMap<K, V> {
    slots: Vec<Option<V>>,
    key: std::marker::PhantomData<K>,
}

impl<K, V> Default for DenseMap<K, V> {
    fn default() -> Self {
        DenseMap {
            slots: Vec::new(),
            key: std::marker::PhantomData,
        }
    }
}

/// Ids usable as [`DenseMap`] keys.
trait DenseKey: Copy + Eq {
    fn dense_index(self) -> usize;
}

macro_rules! dense_keys {
    ($($t:ty),*) => {$(
        impl DenseKey for $t {
            fn dense_index(self) -> usize {
                self.index()
            }
        }
    )*};
}
dense_keys!(Attribute, Type, Symbol, Value, Region, Block, OpId);

impl<K: DenseKey, V> DenseMap<K, V> {
    fn get(&self, k: &K) -> Option<&V> {
        self.slots.get(k.dense_index()).and_then(Option::as_ref)
    }
    /// The entry of `k`, or the error `missing` (the numbering pass did not see `k`).
    fn need(&self, k: K, missing: &str) -> Result<V>
    where
        V: Copy,
    {
        self.get(&k)
            .copied()
            .ok_or_else(|| WriteError(missing.into()))
    }
    fn contains_key(&self, k: &K) -> bool {
        self.get(k).is_some()
    }
    fn insert(&mut self, k: K, v: V) {
        let i = k.dense_index();
        if i >= self.slots.len() {
            self.slots.resize_with(i.saturating_add(1), || None);
        }
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = Some(v);
        }
    }
}

struct NumEntry<T> {
    item: T,
    dialect: usize,
    refcount: u64,
}

#[derive(Default)]
struct Numbering {
    dialects: Vec<String>,
    dialect_index: HashMap<String, usize>,
    attrs: Vec<NumEntry<Attribute>>,
    attr_slot: DenseMap<Attribute, usize>,
    types: Vec<NumEntry<Type>>,
    type_slot: DenseMap<Type, usize>,
    op_names: Vec<NumEntry<Symbol>>,
    op_name_slot: DenseMap<Symbol, usize>,
    /// Final numbers after sorting.
    attr_num: DenseMap<Attribute, u64>,
    type_num: DenseMap<Type, u64>,
    op_name_num: DenseMap<Symbol, u64>,
    values: DenseMap<Value, u64>,
    region_counts: DenseMap<Region, (u64, u64)>,
    blocks: DenseMap<Block, u64>,
    op_dicts: DenseMap<OpId, Attribute>,
    next_value: u64,
    depth: usize,
    /// Builtin resources referred to, in first-seen order, and their final numbers
    /// (`finalizeDialectResourceNumberings`: those with data first, then declarations).
    resources: Vec<Symbol>,
    resource_num: HashMap<Symbol, u64>,
}

impl Numbering {
    fn dialect(&mut self, name: &str) -> usize {
        if let Some(&i) = self.dialect_index.get(name) {
            return i;
        }
        let i = self.dialects.len();
        self.dialects.push(name.to_string());
        self.dialect_index.insert(name.to_string(), i);
        i
    }

    fn finalize(&mut self) {
        fn order<T: DenseKey>(entries: &mut [NumEntry<T>], out: &mut DenseMap<T, u64>) {
            entries.sort_by_key(|e| std::cmp::Reverse(e.refcount));
            group_by_dialect_per_byte(entries);
            for (i, e) in entries.iter().enumerate() {
                out.insert(e.item, i as u64);
            }
        }
        order(&mut self.attrs, &mut self.attr_num);
        order(&mut self.types, &mut self.type_num);
        order(&mut self.op_names, &mut self.op_name_num);
    }
}

/// `groupByDialectPerByte`: within each run of entries whose index needs the same number of
/// varint bytes, stable-sort by dialect with the previous run's last dialect first.
fn group_by_dialect_per_byte<T>(entries: &mut [NumEntry<T>]) {
    let mut preferred = 0usize;
    let mut group_size: u64 = 0;
    let mut start = 0usize;
    for i in 1..9u64 {
        if start >= entries.len() {
            break;
        }
        group_size = (1u64 << (7 * i)) - group_size;
        let end = start
            .saturating_add(usize::try_from(group_size).unwrap_or(usize::MAX))
            .min(entries.len());
        let Some(group) = entries.get_mut(start..end) else {
            break;
        };
        group.sort_by(|a, b| {
            let (ap, bp) = (a.dialect == preferred, b.dialect == preferred);
            match (ap, bp) {
                (true, true) | (false, false) => {
                    a.dialect.cmp(&b.dialect).then(std::cmp::Ordering::Equal)
                }
                (true, false) => std::cmp::Ordering::Less,
                (false, true) => std::cmp::Ordering::Greater,
            }
            .then(std::cmp::Ordering::Equal)
        });
        if let Some(last) = group.last() {
            preferred = last.dialect;
        }
        start = end;
    }
}

/// An attribute or a type of the attribute/type table.
#[derive(Clone, Copy)]
enum Entry {
    Attr(Attribute),
    Type(Type),
}

/// Splits `items` into maximal runs of one dialect: `(dialect, run)`.
fn dialect_runs<T>(items: &[T], dialect: impl Fn(&T) -> usize) -> Vec<(usize, &[T])> {
    let mut runs = Vec::new();
    let mut rest = items;
    while let Some(first) = rest.first() {
        let d = dialect(first);
        let len = rest.iter().take_while(|x| dialect(x) == d).count();
        let (run, tail) = rest.split_at(len);
        runs.push((d, run));
        rest = tail;
    }
    runs
}

/// Insertion-ordered, deduplicated string table.
#[derive(Default)]
struct StringTable {
    strings: Vec<Vec<u8>>,
    index: HashMap<Vec<u8>, u64>,
}

impl StringTable {
    fn insert(&mut self, s: impl AsRef<[u8]>) -> u64 {
        let s = s.as_ref();
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.strings.len() as u64;
        self.strings.push(s.to_vec());
        self.index.insert(s.to_vec(), i);
        i
    }

    fn section(&self) -> Vec<u8> {
        let mut e = Emitter::default();
        e.varint(self.strings.len() as u64);
        for s in self.strings.iter().rev() {
            e.varint(s.len() as u64 + 1);
        }
        for s in &self.strings {
            e.bytes(s);
            e.byte(0);
        }
        e.buf
    }
}

/// Dialect name of an attribute, and whether we can write it with a custom encoding.
fn attr_dialect(m: &Module, a: Attribute) -> String {
    match m.attr_data(a) {
        AttrData::Dialect(d) => m.str(d.dialect).to_string(),
        // An empty dialect is a builtin attribute kept as text (`affine_map<...>`).
        AttrData::Opaque { dialect, .. } if !m.str(*dialect).is_empty() => {
            m.str(*dialect).to_string()
        }
        _ => "builtin".to_string(),
    }
}

fn type_dialect(m: &Module, t: Type) -> String {
    match m.type_data(t) {
        TypeData::Dialect(d) => m.str(d.dialect).to_string(),
        _ => "builtin".to_string(),
    }
}

fn loc_attr(m: &mut Module, l: Location) -> Attribute {
    m.attr(AttrData::Location(l))
}

fn string_attr(m: &mut Module, s: Symbol) -> Attribute {
    m.attr(AttrData::String { value: s, ty: None })
}

/// Encodes an attribute; `Ok(false)` means it has no custom encoding (written as text).
fn encode_attr(m: &mut Module, a: Attribute, w: &mut dyn DialectWriter) -> Result<bool> {
    // A copy of the entry: large tensor data in it is a shared `Blob`, not copied.
    let data = m.attr_data(a).clone();
    match data {
        AttrData::Dialect(d) => {
            if let Some(cd) = codec_dialect(m.str(d.dialect)) {
                let mnemonic = m.str(d.mnemonic).to_string();
                // No encoding upstream (CHLO's precision, ragged_dot): written as its text.
                let encoded = cd
                    .attr(&mnemonic)
                    .is_some_and(|(i, _)| cd.encodings.iter().any(|e| e.attr == i));
                if !encoded {
                    return Ok(false);
                }
                super::codec::write_attr(cd, m, &mnemonic, &d.params, w)?;
                return Ok(true);
            }
            if m.str(d.dialect) != "vhlo" {
                return Ok(false);
            }
            let mnemonic = m.str(d.mnemonic).to_string();
            super::vhlo_codec::write_attr(m, &mnemonic, &d.params, w)?;
        }
        AttrData::Opaque { .. } => return Ok(false),
        AttrData::Array(items) => {
            w.varint(builtin_attr::ARRAY);
            w.varint(items.len() as u64);
            for &i in items.iter() {
                w.attr(m, i)?;
            }
        }
        AttrData::Dictionary(entries) => {
            w.varint(builtin_attr::DICTIONARY);
            w.varint(entries.len() as u64);
            for &(name, value) in entries.iter() {
                let n = string_attr(m, name);
                w.attr(m, n)?;
                w.attr(m, value)?;
            }
        }
        AttrData::String { value, ty } => {
            let text = m.bytes(value).to_vec();
            match ty {
                None => {
                    w.varint(builtin_attr::STRING);
                    w.string(&text);
                }
                Some(t) => {
                    w.varint(builtin_attr::STRING_WITH_TYPE);
                    w.string(&text);
                    w.ty(m, t)?;
                }
            }
        }
        AttrData::SymbolRef { root, nested } => {
            let r = string_attr(m, root);
            if nested.is_empty() {
                w.varint(builtin_attr::FLAT_SYMBOL_REF);
                w.attr(m, r)?;
            } else {
                w.varint(builtin_attr::SYMBOL_REF);
                w.attr(m, r)?;
                w.varint(nested.len() as u64);
                for &n in nested.iter() {
                    let flat = m.attr(AttrData::SymbolRef {
                        root: n,
                        nested: Box::new([]),
                    });
                    w.attr(m, flat)?;
                }
            }
        }
        AttrData::Type(t) => {
            w.varint(builtin_attr::TYPE);
            w.ty(m, t)?;
        }
        AttrData::Unit => w.varint(builtin_attr::UNIT),
        AttrData::Bool(b) => {
            w.varint(builtin_attr::INTEGER);
            let i1 = m.ty(TypeData::Integer {
                width: 1,
                signedness: Signedness::Signless,
            });
            w.ty(m, i1)?;
            w.apint(u128::from(b), 1);
        }
        AttrData::Integer { ty, value } => {
            let width = match m.type_data(ty) {
                TypeData::Integer { width, .. } => *width,
                TypeData::Index => 64,
                _ => return err("integer attribute of a non-integer type"),
            };
            w.varint(builtin_attr::INTEGER);
            w.ty(m, ty)?;
            w.apint(value as u128, width);
        }
        AttrData::WideInteger { ty, words } => {
            w.varint(builtin_attr::INTEGER);
            w.ty(m, ty)?;
            w.apint_words(&words);
        }
        AttrData::Float { ty, bits } => {
            let width = match m.type_data(ty) {
                TypeData::Float(k) => k.bit_width(),
                _ => return err("float attribute of a non-float type"),
            };
            w.varint(builtin_attr::FLOAT);
            w.ty(m, ty)?;
            w.apint(bits, width);
        }
        AttrData::Location(l) => encode_loc(m, l, w)?,
        AttrData::DenseArray { element, data } => {
            let elem_bytes = match m.type_data(element) {
                TypeData::Integer { .. } | TypeData::Index | TypeData::Float(_) => {
                    crate::ir::element_storage_bytes(m, element).unwrap_or(1)
                }
                _ => return err("dense array of an unsupported element type"),
            };
            w.varint(builtin_attr::DENSE_ARRAY);
            w.ty(m, element)?;
            w.varint((data.len() / elem_bytes.max(1)) as u64);
            w.blob(&data);
        }
        AttrData::DenseElements { ty, data, .. } => {
            w.varint(builtin_attr::DENSE_INT_OR_FP_ELEMENTS);
            w.ty(m, ty)?;
            let i1 = matches!(m.type_data(ty), TypeData::RankedTensor { element, .. } | TypeData::UnrankedTensor { element }
                if matches!(m.type_data(*element), TypeData::Integer { width: 1, .. }));
            if i1 {
                // MLIR's storage: eight elements a byte, a splat one byte (reader.rs).
                w.shared_blob(&crate::bytecode::encoding::pack_i1(&data).into());
            } else {
                w.shared_blob(&data);
            }
        }
        AttrData::DenseResource { ty, key } => {
            w.varint(builtin_attr::DENSE_RESOURCE_ELEMENTS);
            w.ty(m, ty)?;
            w.resource(m, key)?;
        }
        AttrData::DenseStrings { ty, values } => {
            w.varint(builtin_attr::DENSE_STRING_ELEMENTS);
            w.ty(m, ty)?;
            let splat = values.len() == 1;
            w.varint(u64::from(splat));
            if !splat {
                w.varint(values.len() as u64);
            }
            for &v in values.iter() {
                let text = m.bytes(v).to_vec();
                w.string(&text);
            }
        }
    }
    Ok(true)
}

fn encode_loc(m: &mut Module, l: Location, w: &mut dyn DialectWriter) -> Result<()> {
    match m.loc_data(l).clone() {
        LocData::Unknown => w.varint(builtin_attr::UNKNOWN_LOC),
        LocData::FileLineCol { file, line, column } => {
            w.varint(builtin_attr::FILE_LINE_COL_LOC);
            let f = string_attr(m, file);
            w.attr(m, f)?;
            w.varint(u64::from(line));
            w.varint(u64::from(column));
        }
        LocData::FileLineColRange { file, line_cols } => {
            w.varint(builtin_attr::FILE_LINE_COL_RANGE);
            let f = string_attr(m, file);
            w.attr(m, f)?;
            w.varint(line_cols.len() as u64);
            for &v in line_cols.iter() {
                w.varint(u64::from(v));
            }
        }
        LocData::Name { name, child } => {
            w.varint(builtin_attr::NAME_LOC);
            let n = string_attr(m, name);
            w.attr(m, n)?;
            let child = child.unwrap_or(m.unknown_loc());
            let c = loc_attr(m, child);
            w.attr(m, c)?;
        }
        LocData::CallSite { callee, caller } => {
            w.varint(builtin_attr::CALL_SITE_LOC);
            let a = loc_attr(m, callee);
            w.attr(m, a)?;
            let b = loc_attr(m, caller);
            w.attr(m, b)?;
        }
        LocData::Fused {
            metadata,
            locations,
        } => {
            w.varint(if metadata.is_some() {
                builtin_attr::FUSED_LOC_WITH_METADATA
            } else {
                builtin_attr::FUSED_LOC
            });
            w.varint(locations.len() as u64);
            for &l in locations.iter() {
                let a = loc_attr(m, l);
                w.attr(m, a)?;
            }
            if let Some(md) = metadata {
                w.attr(m, md)?;
            }
        }
    }
    Ok(())
}

/// Encodes a type; `Ok(false)` means textual fallback.
fn encode_type(m: &mut Module, t: Type, w: &mut dyn DialectWriter) -> Result<bool> {
    let data = m.type_data(t).clone();
    match data {
        TypeData::Dialect(d) => {
            // A fixed-size vector as MLIR writes it (scalable ones as text).
            if let Some((shape, element)) = crate::ir::vector_parts(m, t) {
                if matches!(&d.params[..], [_, crate::ir::Param::Ints(s), _] if s.iter().all(|&x| x == 0))
                {
                    let shape = shape.to_vec();
                    w.varint(builtin_type::VECTOR);
                    w.signed_varints(&shape);
                    w.ty(m, element)?;
                    return Ok(true);
                }
            }
            if m.str(d.dialect) != "vhlo" || m.str(d.mnemonic).is_empty() {
                return Ok(false);
            }
            let mnemonic = m.str(d.mnemonic).to_string();
            super::vhlo_codec::write_type(m, &mnemonic, &d.params, w)?;
        }
        TypeData::Integer { width, signedness } => {
            w.varint(builtin_type::INTEGER);
            let s = match signedness {
                Signedness::Signless => 0,
                Signedness::Signed => 1,
                Signedness::Unsigned => 2,
            };
            w.varint((u64::from(width) << 2) | s);
        }
        TypeData::Index => w.varint(builtin_type::INDEX),
        TypeData::Function { inputs, results } => {
            w.varint(builtin_type::FUNCTION);
            types(m, w, &inputs)?;
            types(m, w, &results)?;
        }
        TypeData::Float(k) => match super::encoding::BUILTIN_FLOAT_TYPE_CODES
            .iter()
            .find(|(kind, _)| *kind == k)
        {
            Some(&(_, code)) => w.varint(code),
            None => return Ok(false),
        },
        TypeData::Complex(e) => {
            w.varint(builtin_type::COMPLEX);
            w.ty(m, e)?;
        }
        TypeData::None => w.varint(builtin_type::NONE),
        TypeData::RankedTensor {
            shape,
            element,
            encoding,
        } => {
            match encoding {
                Some(enc) => {
                    w.varint(builtin_type::RANKED_TENSOR_WITH_ENCODING);
                    w.attr(m, enc)?;
                }
                None => w.varint(builtin_type::RANKED_TENSOR),
            }
            w.signed_varints(&shape);
            w.ty(m, element)?;
        }
        TypeData::Tuple(items) => {
            w.varint(builtin_type::TUPLE);
            types(m, w, &items)?;
        }
        TypeData::UnrankedTensor { element } => {
            w.varint(builtin_type::UNRANKED_TENSOR);
            w.ty(m, element)?;
        }
    }
    Ok(true)
}

fn types(m: &mut Module, w: &mut dyn DialectWriter, items: &[Type]) -> Result<()> {
    w.varint(items.len() as u64);
    for &t in items {
        w.ty(m, t)?;
    }
    Ok(())
}

/// The numbering pass's writer: numbers referenced attributes and types, drops bytes.
struct NumberingWriter<'n> {
    n: &'n mut Numbering,
}

impl DialectWriter for NumberingWriter<'_> {
    fn string(&mut self, _: &[u8]) {}
    fn resource(&mut self, _: &Module, key: Symbol) -> Result<()> {
        // The builtin dialect owns `dense_resource` blobs (numbered as MLIR numbers the
        // dialect of a resource it meets).
        self.n.dialect("builtin");
        if let std::collections::hash_map::Entry::Vacant(e) = self.n.resource_num.entry(key) {
            e.insert(0);
            self.n.resources.push(key);
        }
        Ok(())
    }
    fn attr(&mut self, m: &mut Module, a: Attribute) -> Result<()> {
        number_attr(self.n, m, a)
    }
    fn ty(&mut self, m: &mut Module, t: Type) -> Result<()> {
        number_type(self.n, m, t)
    }
    fn opt_attr(&mut self, m: &mut Module, a: Option<Attribute>) -> Result<()> {
        match a {
            Some(a) => number_attr(self.n, m, a),
            None => Ok(()),
        }
    }
}

/// Attributes and types, numbered the same way in their own tables.
trait Numbered: DenseKey {
    const WHAT: &'static str;
    fn table(n: &mut Numbering) -> (&mut Vec<NumEntry<Self>>, &mut DenseMap<Self, usize>);
    fn dialect_name(m: &Module, x: Self) -> String;
    fn encode(m: &mut Module, x: Self, w: &mut dyn DialectWriter) -> Result<bool>;
}

impl Numbered for Attribute {
    const WHAT: &'static str = "attributes";
    fn table(n: &mut Numbering) -> (&mut Vec<NumEntry<Self>>, &mut DenseMap<Self, usize>) {
        (&mut n.attrs, &mut n.attr_slot)
    }
    fn dialect_name(m: &Module, x: Self) -> String {
        attr_dialect(m, x)
    }
    fn encode(m: &mut Module, x: Self, w: &mut dyn DialectWriter) -> Result<bool> {
        encode_attr(m, x, w)
    }
}

impl Numbered for Type {
    const WHAT: &'static str = "types";
    fn table(n: &mut Numbering) -> (&mut Vec<NumEntry<Self>>, &mut DenseMap<Self, usize>) {
        (&mut n.types, &mut n.type_slot)
    }
    fn dialect_name(m: &Module, x: Self) -> String {
        type_dialect(m, x)
    }
    fn encode(m: &mut Module, x: Self, w: &mut dyn DialectWriter) -> Result<bool> {
        encode_type(m, x, w)
    }
}

/// `IRNumberingState::number(Attribute|Type)`: a seen entry gains a reference; a new one is
/// appended, then a dummy write numbers what it refers to (parents before children).
fn number<T: Numbered>(n: &mut Numbering, m: &mut Module, x: T) -> Result<()> {
    let (list, slots) = T::table(n);
    if let Some(&slot) = slots.get(&x) {
        if let Some(e) = list.get_mut(slot) {
            e.refcount += 1;
        }
        return Ok(());
    }
    slots.insert(x, list.len());
    let dialect = n.dialect(&T::dialect_name(m, x));
    T::table(n).0.push(NumEntry {
        item: x,
        dialect,
        refcount: 1,
    });
    n.depth += 1;
    if n.depth > crate::ir::NESTING_GUARD {
        return err(format!(
            "{} nested deeper than {}",
            T::WHAT,
            crate::ir::NESTING_GUARD
        ));
    }
    T::encode(m, x, &mut NumberingWriter { n })?;
    n.depth -= 1;
    Ok(())
}

fn number_attr(n: &mut Numbering, m: &mut Module, a: Attribute) -> Result<()> {
    number(n, m, a)
}

fn number_type(n: &mut Numbering, m: &mut Module, t: Type) -> Result<()> {
    number(n, m, t)
}

/// The emission pass's writer: indices from the final numbering, strings into the table.
struct EmitWriter<'w> {
    e: Emitter,
    n: &'w Numbering,
    strings: &'w mut StringTable,
}

impl DialectWriter for EmitWriter<'_> {
    fn emitter(&mut self) -> Option<&mut Emitter> {
        Some(&mut self.e)
    }
    fn shared_blob(&mut self, data: &Blob) {
        self.e.varint(data.len() as u64);
        self.e.blob_bytes(data);
    }
    fn string(&mut self, s: &[u8]) {
        let i = self.strings.insert(s);
        self.e.varint(i);
    }
    fn resource(&mut self, m: &Module, key: Symbol) -> Result<()> {
        match self.n.resource_num.get(&key) {
            Some(&i) => {
                self.e.varint(i);
                Ok(())
            }
            None => err(format!("resource '{}' was not numbered", m.str(key))),
        }
    }
    fn attr(&mut self, _: &mut Module, a: Attribute) -> Result<()> {
        let i = self.n.attr_num.need(a, "attribute was not numbered")?;
        self.e.varint(i);
        Ok(())
    }
    fn ty(&mut self, _: &mut Module, t: Type) -> Result<()> {
        let i = self.n.type_num.need(t, "type was not numbered")?;
        self.e.varint(i);
        Ok(())
    }
    fn opt_attr(&mut self, _: &mut Module, a: Option<Attribute>) -> Result<()> {
        match a {
            Some(a) => {
                let i = self.n.attr_num.need(a, "attribute was not numbered")?;
                self.e.varint((i << 1) | 1);
            }
            None => self.e.varint(0),
        }
        Ok(())
    }
}

struct Writer<'o> {
    version: u64,
    opts: &'o WriteOptions<'o>,
    n: Numbering,
    isolated: DenseMap<OpId, ()>,
    strings: StringTable,
    properties: Vec<Vec<u8>>,
    properties_index: HashMap<Vec<u8>, u64>,
    /// Region nesting of `write_op`.
    depth: usize,
    /// Per op name: index into `op_infos` when its ops store properties.
    op_info: HashMap<Symbol, Option<usize>>,
    op_infos: Vec<OpInfo>,
    /// Properties entry of each (op name, properties, attributes) seen, so ops alike are
    /// encoded once; `props_key` is the reused lookup key.
    props_memo: HashMap<Box<[NamedAttr]>, u64>,
    props_key: Vec<NamedAttr>,
}

/// How ops of one name store their inherent attributes.
struct OpInfo {
    names: &'static [&'static str],
    symbols: Box<[Symbol]>,
    /// Per name: stored with a presence flag (builtin.module's all are; VHLO's none).
    optional: Box<[bool]>,
    /// Per name: the value written when the op lacks it (a codec dialect op's
    /// `DefaultValuedAttr`, which MLIR's properties always hold).
    defaults: Box<[Option<Attribute>]>,
    /// ODS's AttrSizedOperandSegments (see `encoding::SEGMENTS`): the index of `operandSegmentSizes`
    /// in `names`, which from bytecode version 6 is written last as a sparse array.
    segments: Option<usize>,
}

/// The values of a dense i32 array attribute.
pub(crate) fn i32_array(m: &Module, a: Attribute) -> Option<Vec<i32>> {
    let AttrData::DenseArray { element, data } = m.attr_data(a) else {
        return None;
    };
    if !matches!(m.type_data(*element), TypeData::Integer { width: 32, .. }) {
        return None;
    }
    data.chunks_exact(4)
        .map(|c| Some(i32::from_le_bytes(c.try_into().ok()?)))
        .collect()
}

/// MLIR's `writeSparseArray`: dense (size, then each value) unless at least half the values are
/// zero, then sparse (the non-zero count, the bits of an index, then value<<bits|index).
fn write_sparse_array(e: &mut Emitter, values: &[i32]) {
    let nonzero = values.iter().filter(|&&v| v != 0).count();
    let last = values.iter().rposition(|&v| v != 0).unwrap_or(0);
    if last > 256 || nonzero > values.len() / 2 {
        e.varint_with_flag(values.len() as u64, false);
        for &v in values {
            e.varint(u64::from(v as u32));
        }
        return;
    }
    e.varint_with_flag(nonzero as u64, true);
    if nonzero == 0 {
        return;
    }
    // llvm::Log2_32_Ceil(last + 1).
    let bits = (last as u32 + 1).next_power_of_two().trailing_zeros();
    e.varint(u64::from(bits));
    for (i, &v) in values.iter().enumerate().take(last + 1) {
        if v != 0 {
            e.varint((u64::from(v as u32) << bits) | i as u64);
        }
    }
}

/// How an op's attributes are stored at a given version.
enum OpAttrs {
    /// Properties entry (sorted inherent attributes, `None` for an absent optional one) and the
    /// discardable attributes.
    Props(Vec<(&'static str, Option<Attribute>, bool)>, Vec<NamedAttr>),
    /// Everything in the attribute dictionary.
    Dict(Vec<NamedAttr>),
}

impl Writer<'_> {
    /// The resource offset and resource sections (`writeResourceSection`): no external group,
    /// then the builtin dialect's group when any resource is referred to. Each blob is padded
    /// to its alignment from the start of the resource section, and that section to the largest
    /// alignment from the start of the file, as MLIR's emitter aligns nested sections.
    fn resource_sections(&mut self, m: &Module, order: &[Symbol], out: &mut Emitter) -> Result<()> {
        let mut offsets = Emitter::default();
        offsets.varint(0);
        let mut body = Emitter::default();
        let mut max_align = 1u32;
        if !order.is_empty() {
            let builtin = self
                .n
                .dialect_index
                .get("builtin")
                .copied()
                .ok_or_else(|| WriteError("resources without the builtin dialect".into()))?;
            offsets.varint(builtin as u64);
            offsets.varint(order.len() as u64);
            for &k in order {
                let start = body.len();
                if let Some(b) = m.resource_blob(k) {
                    body.varint(u64::from(b.alignment));
                    body.varint(b.data.len() as u64);
                    if b.alignment > 1 {
                        let align = b.alignment as usize;
                        while !body.len().is_multiple_of(align) {
                            body.byte(ALIGNMENT_BYTE);
                        }
                        max_align = max_align.max(b.alignment);
                    }
                    body.blob_bytes(&b.data);
                }
                let key = self.strings.insert(m.bytes(k));
                offsets.varint(key);
                offsets.varint((body.len() - start) as u64);
                // AsmResourceEntryKind::Blob (declarations too, as MLIR writes them).
                offsets.byte(0);
            }
        }
        out.section(section::RESOURCE_OFFSET, &offsets.buf);
        let id_at = out.buf.len();
        out.byte(section::RESOURCE);
        out.varint(body.len() as u64);
        let align = max_align as usize;
        if align > 1 && !out.len().is_multiple_of(align) {
            // The high bit of the id says an alignment and padding follow.
            if let Some(id) = out.buf.get_mut(id_at) {
                *id |= 0x80;
            }
            out.varint(u64::from(max_align));
            while !out.len().is_multiple_of(align) {
                out.byte(ALIGNMENT_BYTE);
            }
        }
        out.append(body);
        Ok(())
    }

    /// Records how ops named like `op` store properties (once per name).
    fn learn_op_name(&mut self, m: &mut Module, op: OpId) {
        let name = m.op_name(op);
        if self.op_info.contains_key(&name) {
            return;
        }
        let info = if self.version < version::NATIVE_PROPERTIES_ENCODING {
            None
        } else {
            let full = m.op_name_str(op).to_string();
            full.split_once('.').and_then(|(dialect, short)| {
                // Ops without inherent attributes have no properties storage at all.
                let names = inherent_names(dialect, short).filter(|n| !n.is_empty())?;
                let symbols = names.iter().map(|n| m.sym(n)).collect();
                // builtin.module's attributes are all optional; VHLO's all required; a codec
                // dialect's op says per attribute.
                let codec_op = codec_dialect(dialect).and_then(|d| d.op(short));
                let optional = names
                    .iter()
                    .enumerate()
                    .map(|(i, _)| match codec_op {
                        Some(op) => op.attributes.get(i).is_some_and(|a| a.optional),
                        None => dialect == "builtin",
                    })
                    .collect();
                let defaults = names
                    .iter()
                    .enumerate()
                    .map(|(i, _)| {
                        let a = codec_op?.attributes.get(i)?;
                        codec_dialect(dialect)?.default_value(m, a)
                    })
                    .collect();
                // chlo.scan also has result segments, whose encoding is not known here: kept as
                // attributes, as before.
                let segments = codec_op
                    .filter(|o| !o.attribute_names.contains(&"resultSegmentSizes"))
                    .and_then(|_| names.iter().position(|n| *n == SEGMENTS));
                Some(OpInfo {
                    names,
                    symbols,
                    optional,
                    defaults,
                    segments,
                })
            })
        };
        let slot = info.map(|i| {
            self.op_infos.push(i);
            self.op_infos.len() - 1
        });
        self.op_info.insert(name, slot);
    }

    fn uses_properties(&self, m: &Module, op: OpId) -> Option<&OpInfo> {
        self.op_info
            .get(&m.op_name(op))
            .copied()
            .flatten()
            .and_then(|i| self.op_infos.get(i))
    }

    fn op_attrs(&self, m: &Module, op: OpId) -> Result<OpAttrs> {
        let props = m.properties(op);
        let attrs = m.attributes(op);
        match self.uses_properties(m, op) {
            Some(info) => {
                for p in props {
                    if !info.symbols.contains(&p.name) {
                        return err(format!(
                            "{}: '{}' is not an inherent attribute",
                            m.op_name_str(op),
                            m.str(p.name)
                        ));
                    }
                }
                // An inherent attribute found among the discardable ones counts as inherent, as
                // when MLIR parses a generic attribute dictionary.
                let find = |list: &[NamedAttr], name: Symbol| {
                    list.iter().find(|a| a.name == name).map(|a| a.value)
                };
                let mut entry = Vec::with_capacity(info.names.len());
                for (((&name, &sym), &optional), &default) in info
                    .names
                    .iter()
                    .zip(info.symbols.iter())
                    .zip(info.optional.iter())
                    .zip(info.defaults.iter())
                {
                    let value = find(props, sym).or_else(|| find(attrs, sym)).or(default);
                    if value.is_none() && !optional {
                        return err(format!(
                            "{} is missing its '{name}' attribute",
                            m.op_name_str(op)
                        ));
                    }
                    entry.push((name, value, optional));
                }
                let discardable = attrs
                    .iter()
                    .filter(|a| !info.symbols.contains(&a.name))
                    .copied()
                    .collect();
                Ok(OpAttrs::Props(entry, discardable))
            }
            None => Ok(OpAttrs::Dict(props.iter().chain(attrs).copied().collect())),
        }
    }

    /// The op's attribute dictionary as an interned builtin dictionary (sorted by name).
    fn dict_attr(m: &mut Module, attrs: &[NamedAttr]) -> Option<Attribute> {
        if attrs.is_empty() {
            return None;
        }
        let mut entries: Vec<(Symbol, Attribute)> =
            attrs.iter().map(|a| (a.name, a.value)).collect();
        entries.sort_by(|a, b| m.str(a.0).cmp(m.str(b.0)));
        Some(m.attr(AttrData::Dictionary(entries.into())))
    }

    // ---- numbering ---------------------------------------------------------------------------

    fn number_ir(&mut self, m: &mut Module, root: OpId) -> Result<()> {
        self.number_op(m, root)?;
        let mut stack: Vec<(Region, u64)> = m
            .regions(root)
            .iter()
            .map(|&r| (r, self.n.next_value))
            .collect();
        while let Some((region, first)) = stack.pop() {
            self.n.next_value = first;
            self.number_region(m, region)?;
            for &b in m.blocks(region).to_vec().iter() {
                for &op in m.block_ops(b).to_vec().iter() {
                    let start = if self.isolated.contains_key(&op) {
                        0
                    } else {
                        self.n.next_value
                    };
                    for &r in m.regions(op) {
                        stack.push((r, start));
                    }
                }
            }
        }
        Ok(())
    }

    fn number_region(&mut self, m: &mut Module, region: Region) -> Result<()> {
        let blocks = m.blocks(region).to_vec();
        if blocks.is_empty() {
            return Ok(());
        }
        let first = self.n.next_value;
        for (i, &b) in blocks.iter().enumerate() {
            self.n.blocks.insert(b, i as u64);
            for &arg in m.block_args(b).to_vec().iter() {
                self.n.values.insert(arg, self.n.next_value);
                self.n.next_value += 1;
                let loc = self.arg_loc(m, arg);
                let la = loc_attr(m, loc);
                number_attr(&mut self.n, m, la)?;
                let t = m.value_type(arg);
                number_type(&mut self.n, m, t)?;
            }
            for &op in m.block_ops(b).to_vec().iter() {
                self.number_op(m, op)?;
            }
        }
        self.n
            .region_counts
            .insert(region, (blocks.len() as u64, self.n.next_value - first));
        Ok(())
    }

    fn arg_loc(&self, m: &Module, arg: Value) -> Location {
        self.opts
            .block_arg_locations
            .and_then(|t| t.get(&arg).copied())
            .unwrap_or_else(|| m.value_location(arg))
    }

    fn number_op(&mut self, m: &mut Module, op: OpId) -> Result<()> {
        self.learn_op_name(m, op);
        let name = m.op_name(op);
        if let Some(&slot) = self.n.op_name_slot.get(&name) {
            if let Some(e) = self.n.op_names.get_mut(slot) {
                e.refcount += 1;
            }
        } else {
            let full = m.op_name_str(op);
            let dialect = full
                .split_once('.')
                .map(|(d, _)| d)
                .unwrap_or("")
                .to_string();
            let d = self.n.dialect(&dialect);
            self.n.op_name_slot.insert(name, self.n.op_names.len());
            self.n.op_names.push(NumEntry {
                item: name,
                dialect: d,
                refcount: 1,
            });
        }
        for i in 0..m.num_results(op) {
            let Some(v) = m.result(op, i) else { continue };
            self.n.values.insert(v, self.n.next_value);
            self.n.next_value += 1;
            let t = m.value_type(v);
            number_type(&mut self.n, m, t)?;
        }
        let (props, dict) = match self.op_attrs(m, op)? {
            OpAttrs::Props(p, d) => (Some(p), d),
            OpAttrs::Dict(d) => (None, d),
        };
        if let Some(d) = Self::dict_attr(m, &dict) {
            self.n.op_dicts.insert(op, d);
            number_attr(&mut self.n, m, d)?;
        }
        let native_segments = self.version > version::NATIVE_PROPERTIES_ENCODING
            && self
                .uses_properties(m, op)
                .is_some_and(|i| i.segments.is_some());
        if let Some(props) = props {
            for (name, value, _) in props {
                if native_segments && name == SEGMENTS {
                    continue;
                }
                if let Some(a) = value {
                    number_attr(&mut self.n, m, a)?;
                }
            }
        }
        let loc = m.op_location(op);
        let la = loc_attr(m, loc);
        number_attr(&mut self.n, m, la)
    }

    // ---- emission ------------------------------------------------------------------------------

    fn dialect_section(&mut self, m: &Module) -> Vec<u8> {
        let mut e = Emitter::default();
        e.varint(self.n.dialects.len() as u64);
        for name in &self.n.dialects {
            let i = self.strings.insert(name);
            if self.version < version::DIALECT_VERSIONING {
                e.varint(i);
            } else {
                e.varint_with_flag(i, false);
            }
        }
        if self.version >= version::ELIDE_UNKNOWN_BLOCK_ARG_LOCATION {
            e.varint(self.n.op_names.len() as u64);
        }
        for (dialect, run) in dialect_runs(&self.n.op_names, |e| e.dialect) {
            e.varint(dialect as u64);
            e.varint(run.len() as u64);
            let dialect_name = self.n.dialects.get(dialect).map(String::as_str);
            let codec = dialect_name.and_then(codec_dialect);
            for entry in run {
                let full = m.str(entry.item);
                let short = full.split_once('.').map(|(_, s)| s).unwrap_or(full);
                // Ops of a dialect we describe are registered, as in JAX's context.
                let registered = matches!(dialect_name, Some("vhlo" | "builtin"))
                    || codec.is_some_and(|d| d.op(short).is_some());
                let idx = self.strings.insert(short);
                if self.version < version::NATIVE_PROPERTIES_ENCODING {
                    e.varint(idx);
                } else {
                    e.varint_with_flag(idx, registered);
                }
            }
        }
        e.buf
    }

    /// Appends the attribute and type payloads to `payloads`; returns the offset section.
    fn attr_type_sections(&mut self, m: &mut Module, payloads: &mut Emitter) -> Result<Vec<u8>> {
        let mut offsets = Emitter::default();
        offsets.varint(self.n.attrs.len() as u64);
        offsets.varint(self.n.types.len() as u64);
        let attrs = self
            .n
            .attrs
            .iter()
            .map(|e| (e.dialect, Entry::Attr(e.item)));
        let types = self
            .n
            .types
            .iter()
            .map(|e| (e.dialect, Entry::Type(e.item)));
        // Attributes and types are grouped separately: a run never spans the two lists.
        for list in [attrs.collect::<Vec<_>>(), types.collect::<Vec<_>>()] {
            for (dialect, run) in dialect_runs(&list, |(d, _)| *d) {
                offsets.varint(dialect as u64);
                offsets.varint(run.len() as u64);
                for &(_, entry) in run {
                    let start = payloads.mark();
                    let start_len = payloads.len();
                    let mut w = EmitWriter {
                        e: std::mem::take(payloads),
                        n: &self.n,
                        strings: &mut self.strings,
                    };
                    let custom = match entry {
                        Entry::Attr(a) => encode_attr(m, a, &mut w),
                        Entry::Type(t) => encode_type(m, t, &mut w),
                    };
                    *payloads = w.e;
                    let custom = custom?;
                    if !custom {
                        let text = match entry {
                            Entry::Attr(a) => attr_text(m, a)?,
                            Entry::Type(t) => type_text(m, t)?,
                        };
                        payloads.truncate(start);
                        payloads.bytes(text.as_bytes());
                        payloads.byte(0);
                    }
                    let len = payloads.len().saturating_sub(start_len);
                    offsets.varint_with_flag(len as u64, custom);
                }
            }
        }
        Ok(offsets.buf)
    }

    fn attr_num(&self, a: Attribute) -> Result<u64> {
        self.n.attr_num.need(a, "attribute was not numbered")
    }

    fn type_num(&self, t: Type) -> Result<u64> {
        self.n.type_num.need(t, "type was not numbered")
    }

    fn value_num(&self, v: Value) -> Result<u64> {
        let missing = "operand value is not defined in the written IR";
        self.n.values.need(v, missing)
    }

    fn write_op(&mut self, m: &mut Module, e: &mut Emitter, op: OpId) -> Result<()> {
        let name = m.op_name(op);
        let name_num = self.n.op_name_num.need(name, "op name was not numbered")?;
        e.varint(name_num);
        let mask_at = e.buf.len();
        e.byte(0);
        let mut mask = 0u8;
        let loc = m.op_location(op);
        let la = loc_attr(m, loc);
        e.varint(self.attr_num(la)?);
        if let Some(&d) = self.n.op_dicts.get(&op) {
            mask |= op_mask::HAS_ATTRS;
            e.varint(self.attr_num(d)?);
        }
        // The entry depends on the op name, its properties and its attributes (an inherent
        // one may sit among the latter): the key lists them with two separators.
        let mut key = std::mem::take(&mut self.props_key);
        key.clear();
        let separator = Attribute(u32::MAX);
        key.push(NamedAttr {
            name,
            value: separator,
        });
        key.extend_from_slice(m.properties(op));
        key.push(NamedAttr {
            name,
            value: separator,
        });
        key.extend_from_slice(m.attributes(op));
        let memo = self.props_memo.get(key.as_slice()).copied();
        if let Some(idx) = memo {
            mask |= op_mask::HAS_PROPERTIES;
            e.varint(idx);
        } else if let OpAttrs::Props(props, _) = self.op_attrs(m, op)? {
            let segmented = self
                .uses_properties(m, op)
                .is_some_and(|i| i.segments.is_some());
            let mut w = EmitWriter {
                e: Emitter::default(),
                n: &self.n,
                strings: &mut self.strings,
            };
            let native = self.version > version::NATIVE_PROPERTIES_ENCODING;
            let segments = props
                .iter()
                .find(|p| segmented && p.0 == SEGMENTS)
                .and_then(|p| p.1);
            // Up to version 5, the segment sizes come first, as an attribute.
            if let (Some(a), false) = (segments, native) {
                w.attr(m, a)?;
            }
            for (name, value, optional) in props {
                if segmented && name == SEGMENTS {
                    continue;
                }
                if optional {
                    w.opt_attr(m, value)?;
                } else if let Some(a) = value {
                    w.attr(m, a)?;
                }
            }
            if let (Some(a), true) = (segments, native) {
                let Some(values) = i32_array(m, a) else {
                    return err(format!(
                        "{}: '{SEGMENTS}' is not a dense i32 array",
                        m.op_name_str(op)
                    ));
                };
                write_sparse_array(&mut w.e, &values);
            }
            let mut entry = Emitter::default();
            entry.varint(w.e.buf.len() as u64);
            entry.bytes(&w.e.buf);
            let next = self.properties.len() as u64;
            let idx = *self
                .properties_index
                .entry(entry.buf.clone())
                .or_insert(next);
            if idx == next {
                self.properties.push(entry.buf);
            }
            self.props_memo.insert(key.clone().into_boxed_slice(), idx);
            mask |= op_mask::HAS_PROPERTIES;
            e.varint(idx);
        }
        self.props_key = key;
        let num_results = m.num_results(op);
        if num_results > 0 {
            mask |= op_mask::HAS_RESULTS;
            e.varint(num_results as u64);
            for r in m.results(op) {
                e.varint(self.type_num(m.value_type(r))?);
            }
        }
        let operands = m.operands(op);
        if !operands.is_empty() {
            mask |= op_mask::HAS_OPERANDS;
            e.varint(operands.len() as u64);
            for &v in operands {
                e.varint(self.value_num(v)?);
            }
        }
        let successors = m.successors(op);
        if !successors.is_empty() {
            mask |= op_mask::HAS_SUCCESSORS;
            e.varint(successors.len() as u64);
            for &b in successors {
                let i = self.n.blocks.need(b, "successor block is not numbered")?;
                e.varint(i);
            }
        }
        if self.version >= version::USE_LIST_ORDERING && self.write_op_use_lists(e, m, op) {
            mask |= op_mask::HAS_USE_LIST_ORDERS;
        }
        let regions = m.regions(op).to_vec();
        if !regions.is_empty() {
            mask |= op_mask::HAS_INLINE_REGIONS;
        }
        if let Some(b) = e.buf.get_mut(mask_at) {
            *b = mask;
        }
        if !regions.is_empty() {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return err(format!("regions nested deeper than {MAX_DEPTH}"));
            }
            let isolated = self.isolated.contains_key(&op);
            e.varint_with_flag(regions.len() as u64, isolated);
            if isolated && self.version >= version::LAZY_LOADING {
                let mut nested = Emitter::default();
                for r in regions {
                    self.write_region(m, &mut nested, r)?;
                }
                e.section(section::IR, &nested.buf);
            } else {
                for r in regions {
                    self.write_region(m, e, r)?;
                }
            }
            self.depth -= 1;
        }
        Ok(())
    }

    /// [`Writer::write_use_lists`] of an op's results (allocating only when one has a record).
    fn write_op_use_lists(&self, e: &mut Emitter, m: &Module, op: OpId) -> bool {
        let Some(table) = self.opts.use_list_orders else {
            return false;
        };
        if table.is_empty() || !m.results(op).any(|v| table.contains_key(&v)) {
            return false;
        }
        let results: Vec<Value> = m.results(op).collect();
        self.write_use_lists(e, &results)
    }

    /// Writes the recorded use-list orders of `values`; true when anything was written.
    fn write_use_lists(&self, e: &mut Emitter, values: &[Value]) -> bool {
        let Some(table) = self.opts.use_list_orders else {
            return false;
        };
        let records: Vec<(usize, &UseListOrder)> = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| table.get(v).map(|r| (i, r)))
            .collect();
        if records.is_empty() {
            return false;
        }
        let num_values = values.len();
        if num_values != 1 {
            e.varint(records.len() as u64);
        }
        for (i, r) in records {
            if num_values != 1 {
                e.varint(i as u64);
            }
            e.varint_with_flag(r.indices.len() as u64, r.pair_encoding);
            for &x in r.indices.iter() {
                e.varint(x);
            }
        }
        true
    }

    fn write_region(&mut self, m: &mut Module, e: &mut Emitter, region: Region) -> Result<()> {
        let blocks = m.blocks(region).to_vec();
        if blocks.is_empty() {
            e.varint(0);
            return Ok(());
        }
        let missing = "region was not numbered";
        let (nb, nv) = self.n.region_counts.need(region, missing)?;
        e.varint(nb);
        e.varint(nv);
        for b in blocks {
            let args = m.block_args(b).to_vec();
            let ops = m.block_ops(b).to_vec();
            e.varint_with_flag(ops.len() as u64, !args.is_empty());
            if !args.is_empty() {
                e.varint(args.len() as u64);
                for &a in &args {
                    let t = self.type_num(m.value_type(a))?;
                    let loc = self.arg_loc(m, a);
                    let la = loc_attr(m, loc);
                    if self.version >= version::ELIDE_UNKNOWN_BLOCK_ARG_LOCATION {
                        let known = loc != m.unknown_loc();
                        e.varint_with_flag(t, known);
                        if known {
                            e.varint(self.attr_num(la)?);
                        }
                    } else {
                        e.varint(t);
                        e.varint(self.attr_num(la)?);
                    }
                }
                if self.version >= version::USE_LIST_ORDERING {
                    let mask_at = e.buf.len();
                    e.byte(0);
                    if self.write_use_lists(e, &args) {
                        if let Some(b) = e.buf.get_mut(mask_at) {
                            *b = op_mask::HAS_USE_LIST_ORDERS;
                        }
                    }
                }
            }
            for op in ops {
                self.write_op(m, e, op)?;
            }
        }
        Ok(())
    }
}

/// Text of an attribute without a custom encoding: its whole assembly, as MLIR's writer
/// prints it (an opaque attribute keeps its text).
fn attr_text(m: &Module, a: Attribute) -> Result<String> {
    match m.attr_data(a) {
        AttrData::Opaque { text, .. } => Ok(m.str(*text).to_string()),
        AttrData::Dialect(_) => Ok(crate::text::attribute_to_string(m, a)),
        _ => err("builtin attribute without an encoding"),
    }
}

/// Text of a type without a custom encoding: builtin float keywords and kept textual types.
fn type_text(m: &Module, t: Type) -> Result<String> {
    match m.type_data(t) {
        TypeData::Float(k) => Ok(k.keyword().to_string()),
        // Its whole assembly, `!dialect` included, as the reader reads it back.
        TypeData::Dialect(_) => Ok(crate::text::type_to_string(m, t)),
        _ => err("builtin type without an encoding"),
    }
}
