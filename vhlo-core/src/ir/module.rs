//! The arenas: operations, blocks, regions and values, plus the interners.

use super::{
    AttrData, Attribute, Block, DialectAttr, DialectType, Interner, LocData, Location, OpId, Param,
    Region, ResourceBlob, Symbol, Type, TypeData, Value,
};

/// A named attribute (`name = value`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NamedAttr {
    pub name: Symbol,
    pub value: Attribute,
}

/// A slice of one of the module's pools.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start as usize + self.len as usize)
    }
}

/// Where a value comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// Result `index` of `op`.
    Result { op: OpId, index: u32 },
    /// Argument `index` of `block`.
    Argument { block: Block, index: u32 },
}

#[derive(Clone, Debug)]
struct ValueData {
    ty: Type,
    def: ValueDef,
    /// A block argument's own location (`%arg0: T loc(...)`); unknown for op results, whose
    /// location is their op's.
    loc: Location,
}

#[derive(Clone, Debug)]
struct OpData {
    name: Symbol,
    operands: Span,
    first_result: u32,
    num_results: u32,
    /// Inherent attributes (`<{...}>` in generic form, the properties section in bytecode).
    properties: Span,
    /// Discardable attributes (`{...}`).
    attributes: Span,
    /// Index into `Module::nested` of the op's regions and successors, [`NO_NESTED`] for an op
    /// with neither (most ops): 48 bytes an op instead of 72, a third fewer pages to fault in.
    nested: u32,
    location: Location,
    /// The block holding the op, [`NO_PARENT`] when detached.
    parent: Block,
}

/// The regions and successors of an op that has some.
#[derive(Clone, Copy, Debug, Default)]
struct Nested {
    regions: Span,
    successors: Span,
}

/// What [`Module::op_parts`] gives.
#[derive(Clone, Debug)]
pub struct OpParts<'m> {
    pub name: Symbol,
    pub operands: &'m [Value],
    pub results: std::iter::Map<std::ops::Range<u32>, fn(u32) -> Value>,
    pub properties: &'m [NamedAttr],
    pub attributes: &'m [NamedAttr],
    pub regions: &'m [Region],
}

// Every op pays for each byte here.
const _: () = assert!(std::mem::size_of::<OpData>() == 48);

const NO_NESTED: u32 = u32::MAX;
const NO_PARENT: Block = Block(u32::MAX);

#[derive(Clone, Debug, Default)]
struct BlockData {
    args: Vec<Value>,
    ops: Vec<OpId>,
    parent: Option<Region>,
}

#[derive(Clone, Debug, Default)]
struct RegionData {
    blocks: Vec<Block>,
    parent: Option<OpId>,
}

/// Everything needed to create an operation (MLIR's `OperationState`).
#[derive(Clone, Debug)]
pub struct OperationState {
    pub name: Symbol,
    pub operands: Vec<Value>,
    pub result_types: Vec<Type>,
    pub properties: Vec<NamedAttr>,
    pub attributes: Vec<NamedAttr>,
    pub regions: Vec<Region>,
    pub successors: Vec<Block>,
    pub location: Location,
}

impl OperationState {
    /// An empty state for an op called `name`.
    pub fn new(name: Symbol, location: Location) -> Self {
        OperationState {
            name,
            operands: Vec::new(),
            result_types: Vec::new(),
            properties: Vec::new(),
            attributes: Vec::new(),
            regions: Vec::new(),
            successors: Vec::new(),
            location,
        }
    }
}

/// A whole program: the interners and the IR arenas. The top-level op is usually
/// `builtin.module`.
#[derive(Clone, Debug)]
pub struct Module {
    strings: Interner<Box<str>>,
    /// Strings that are not UTF-8 (MLIR strings are bytes: binary `backend_config`s), with a
    /// lossy rendering for messages; their symbols carry [`BYTE_STRING`].
    byte_strings: Interner<Box<[u8]>>,
    byte_strings_lossy: Vec<Box<str>>,
    types: Interner<TypeData>,
    attrs: Interner<AttrData>,
    locs: Interner<LocData>,
    ops: Vec<OpData>,
    nested: Vec<Nested>,
    blocks: Vec<BlockData>,
    regions: Vec<RegionData>,
    values: Vec<ValueData>,
    value_pool: Vec<Value>,
    attr_pool: Vec<NamedAttr>,
    region_pool: Vec<Region>,
    block_pool: Vec<Block>,
    /// Top-level ops, in order.
    top: Vec<OpId>,
    /// The builtin dialect's resources (`dense_resource` data) by key. Only those an attribute
    /// refers to are printed and written, as MLIR does.
    resources: std::collections::BTreeMap<Symbol, ResourceBlob>,
    /// Constants built by `dialect::support` (the defaults version steps add to every op),
    /// keyed by a kind tag, a static name and a value: building one interns several values.
    consts: super::FastMap<(u8, &'static str, i64), u32>,
    /// Symbols of static strings by address and length (the names generated code passes):
    /// found without hashing or comparing the text.
    static_syms: super::FastMap<(usize, usize), Symbol>,
    /// The interner sizes at which the nesting of the interned DAG was last found within the
    /// limit ([`super::deepest_interned`]): entries are never changed, only added, so the same
    /// sizes give the same verdict and the walk is not repeated (reader, then conversions).
    pub(crate) interned_checked: InternedChecked,
}

/// Interner sizes, settable through a shared reference (the printer's threads share the module).
#[derive(Debug, Default)]
pub(crate) struct InternedChecked([std::sync::atomic::AtomicUsize; 3]);

impl InternedChecked {
    pub(crate) fn get(&self) -> (usize, usize, usize) {
        let [a, b, c] = &self.0;
        let load =
            |x: &std::sync::atomic::AtomicUsize| x.load(std::sync::atomic::Ordering::Relaxed);
        (load(a), load(b), load(c))
    }
    pub(crate) fn set(&self, (t, a, l): (usize, usize, usize)) {
        let [x, y, z] = &self.0;
        let relaxed = std::sync::atomic::Ordering::Relaxed;
        x.store(t, relaxed);
        y.store(a, relaxed);
        z.store(l, relaxed);
    }
}

impl Clone for InternedChecked {
    fn clone(&self) -> Self {
        let c = InternedChecked::default();
        c.set(self.get());
        c
    }
}

impl Default for Module {
    fn default() -> Self {
        Self::new()
    }
}

/// The bit of a [`Symbol`] naming a string that is not UTF-8 (`byte_strings`, not `strings`).
const BYTE_STRING: u32 = 1 << 31;

fn to_u32(n: usize) -> u32 {
    // Arenas past 4G entries are not supported; input readers bound counts long before that.
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Module {
    /// An empty module.
    pub fn new() -> Self {
        let mut m = Module {
            strings: Interner::default(),
            byte_strings: Interner::default(),
            byte_strings_lossy: Vec::new(),
            types: Interner::default(),
            attrs: Interner::default(),
            locs: Interner::default(),
            ops: Vec::new(),
            nested: Vec::new(),
            blocks: Vec::new(),
            regions: Vec::new(),
            values: Vec::new(),
            value_pool: Vec::new(),
            attr_pool: Vec::new(),
            region_pool: Vec::new(),
            block_pool: Vec::new(),
            top: Vec::new(),
            resources: Default::default(),
            consts: Default::default(),
            static_syms: Default::default(),
            interned_checked: InternedChecked::default(),
        };
        m.loc(LocData::Unknown);
        m
    }

    // ---- interning -------------------------------------------------------------------------

    /// Interns a string.
    pub fn sym(&mut self, s: &str) -> Symbol {
        Symbol(self.strings.intern_str(s))
    }
    /// Reserves room for about `ops` more operations with as many results and twice as many
    /// operands (readers size it from the input, so growth does not copy the arenas again and
    /// again). Only a hint: the arenas still grow past it.
    pub fn reserve_ops(&mut self, ops: usize) {
        self.ops.reserve(ops);
        self.values.reserve(ops);
        self.value_pool.reserve(ops.saturating_mul(2));
        self.attr_pool.reserve(ops);
    }
    /// Reserves room in the interners for about `attrs` attributes and locations and `types`
    /// types (a hint from a reader's entry counts).
    pub fn reserve_interned(&mut self, attrs: usize, types: usize) {
        self.attrs.reserve(attrs / 2);
        self.locs.reserve(attrs / 2);
        self.types.reserve(types);
    }
    /// Interns a static string (a literal), remembering it by address: the hot path of the
    /// generated version steps. The same text at two addresses gives the same symbol.
    pub fn sym_static(&mut self, s: &'static str) -> Symbol {
        let key = (s.as_ptr() as usize, s.len());
        if let Some(&sym) = self.static_syms.get(&key) {
            return sym;
        }
        let sym = self.sym(s);
        self.static_syms.insert(key, sym);
        sym
    }
    /// The symbol of `s` if it is interned.
    pub fn lookup_sym(&self, s: &str) -> Option<Symbol> {
        self.strings.lookup_str(s).map(Symbol)
    }
    /// Interns a string of any bytes; UTF-8 text gets the same symbol as [`Module::sym`].
    pub fn sym_bytes(&mut self, b: &[u8]) -> Symbol {
        match std::str::from_utf8(b) {
            Ok(s) => self.sym(s),
            Err(_) => {
                let id = self.byte_strings.intern(Box::from(b));
                if id as usize == self.byte_strings_lossy.len() {
                    self.byte_strings_lossy
                        .push(String::from_utf8_lossy(b).into());
                }
                Symbol(id | BYTE_STRING)
            }
        }
    }
    /// The text of a symbol. A string that is not UTF-8 (see [`Module::sym_bytes`]) gives a
    /// lossy rendering, for messages only: printers and writers use [`Module::bytes`].
    pub fn str(&self, s: Symbol) -> &str {
        if s.0 & BYTE_STRING != 0 {
            return self
                .byte_strings_lossy
                .get((s.0 & !BYTE_STRING) as usize)
                .map_or("\u{FFFD}", |t| t);
        }
        self.strings.get(s.0)
    }
    /// The bytes of a symbol.
    pub fn bytes(&self, s: Symbol) -> &[u8] {
        if s.0 & BYTE_STRING != 0 {
            return self.byte_strings.get(s.0 & !BYTE_STRING);
        }
        self.strings.get(s.0).as_bytes()
    }
    /// The text of a symbol when it is UTF-8.
    pub fn utf8(&self, s: Symbol) -> Option<&str> {
        (s.0 & BYTE_STRING == 0).then(|| &**self.strings.get(s.0))
    }
    /// Interns a type.
    pub fn ty(&mut self, t: TypeData) -> Type {
        Type(self.types.intern(t))
    }
    /// The contents of a type.
    pub fn type_data(&self, t: Type) -> &TypeData {
        self.types.get(t.0)
    }
    /// Interns an attribute.
    pub fn attr(&mut self, a: AttrData) -> Attribute {
        Attribute(self.attrs.intern(a))
    }
    /// Interns the type `!dialect.mnemonic<params>`.
    pub fn dialect_type(&mut self, dialect: &str, mnemonic: &str, params: Vec<Param>) -> Type {
        let (dialect, mnemonic) = (self.sym(dialect), self.sym(mnemonic));
        self.ty(TypeData::Dialect(DialectType {
            dialect,
            mnemonic,
            params: params.into(),
        }))
    }
    /// Interns the attribute `#dialect.mnemonic<params>`.
    pub fn dialect_attr(&mut self, dialect: &str, mnemonic: &str, params: Vec<Param>) -> Attribute {
        let (dialect, mnemonic) = (self.sym(dialect), self.sym(mnemonic));
        self.attr(AttrData::Dialect(DialectAttr {
            dialect,
            mnemonic,
            params: params.into(),
        }))
    }
    /// The contents of an attribute.
    pub fn attr_data(&self, a: Attribute) -> &AttrData {
        self.attrs.get(a.0)
    }
    /// Interns a location. A file range of exactly a line and a column is the plain file
    /// location, as in MLIR (where `FileLineColLoc` is such a `FileLineColRange`, one attribute,
    /// written to bytecode in the plain form).
    pub fn loc(&mut self, l: LocData) -> Location {
        let l = match l {
            LocData::FileLineColRange { file, line_cols } if line_cols.len() == 2 => {
                let (line, column) = (
                    line_cols.first().copied().unwrap_or(0),
                    line_cols.last().copied().unwrap_or(0),
                );
                LocData::FileLineCol { file, line, column }
            }
            other => other,
        };
        Location(self.locs.intern(l))
    }
    /// The contents of a location.
    pub fn loc_data(&self, l: Location) -> &LocData {
        self.locs.get(l.0)
    }
    /// How many types, attributes and locations are interned (ids run from 0 up).
    pub fn num_interned(&self) -> (usize, usize, usize) {
        (self.types.len(), self.attrs.len(), self.locs.len())
    }
    /// The interned id `make` builds for `key`, built once per module (`dialect::support`'s
    /// constants; `make` must be a pure function of `key`).
    pub(crate) fn cached_id(
        &mut self,
        key: (u8, &'static str, i64),
        make: impl FnOnce(&mut Module) -> u32,
    ) -> u32 {
        if let Some(&id) = self.consts.get(&key) {
            return id;
        }
        let id = make(self);
        self.consts.insert(key, id);
        id
    }
    /// `loc(unknown)`, always interned first.
    pub fn unknown_loc(&self) -> Location {
        Location(0)
    }

    // ---- construction ----------------------------------------------------------------------

    fn push_values(&mut self, vals: &[Value]) -> Span {
        let start = to_u32(self.value_pool.len());
        // Most lists of an op are empty: no call into the copy.
        if !vals.is_empty() {
            self.value_pool.extend_from_slice(vals);
        }
        Span {
            start,
            len: to_u32(vals.len()),
        }
    }
    fn push_attrs(&mut self, attrs: &[NamedAttr]) -> Span {
        let start = to_u32(self.attr_pool.len());
        if !attrs.is_empty() {
            self.attr_pool.extend_from_slice(attrs);
        }
        Span {
            start,
            len: to_u32(attrs.len()),
        }
    }

    /// Creates a detached operation; its regions are adopted.
    pub fn create_op(&mut self, state: OperationState) -> OpId {
        self.create_op_from(&state)
    }

    /// [`Module::create_op`] from a borrowed state (readers reuse one state for every op).
    pub fn create_op_from(&mut self, state: &OperationState) -> OpId {
        let id = OpId(to_u32(self.ops.len()));
        let operands = self.push_values(&state.operands);
        let properties = self.push_attrs(&state.properties);
        let attributes = self.push_attrs(&state.attributes);
        let nested = if state.regions.is_empty() && state.successors.is_empty() {
            NO_NESTED
        } else {
            let regions = Span {
                start: to_u32(self.region_pool.len()),
                len: to_u32(state.regions.len()),
            };
            self.region_pool.extend_from_slice(&state.regions);
            let successors = Span {
                start: to_u32(self.block_pool.len()),
                len: to_u32(state.successors.len()),
            };
            self.block_pool.extend_from_slice(&state.successors);
            self.nested.push(Nested {
                regions,
                successors,
            });
            to_u32(self.nested.len() - 1)
        };
        let first_result = to_u32(self.values.len());
        for (i, &ty) in state.result_types.iter().enumerate() {
            self.values.push(ValueData {
                ty,
                def: ValueDef::Result {
                    op: id,
                    index: to_u32(i),
                },
                loc: Location(0),
            });
        }
        for &r in &state.regions {
            self.regions[r.index()].parent = Some(id);
        }
        self.ops.push(OpData {
            name: state.name,
            operands,
            first_result,
            num_results: to_u32(state.result_types.len()),
            properties,
            attributes,
            nested,
            location: state.location,
            parent: NO_PARENT,
        });
        id
    }

    /// Creates an empty detached region.
    pub fn create_region(&mut self) -> Region {
        let id = Region(to_u32(self.regions.len()));
        self.regions.push(RegionData::default());
        id
    }

    /// Appends a new block with arguments of the given types to `region`.
    pub fn append_block(&mut self, region: Region, arg_types: &[Type]) -> Block {
        let id = Block(to_u32(self.blocks.len()));
        let mut args = Vec::with_capacity(arg_types.len());
        for (i, &ty) in arg_types.iter().enumerate() {
            let v = Value(to_u32(self.values.len()));
            self.values.push(ValueData {
                ty,
                def: ValueDef::Argument {
                    block: id,
                    index: to_u32(i),
                },
                loc: Location(0),
            });
            args.push(v);
        }
        self.blocks.push(BlockData {
            args,
            ops: Vec::new(),
            parent: Some(region),
        });
        self.regions[region.index()].blocks.push(id);
        id
    }

    /// Appends `op` at the end of `block`.
    pub fn append_op(&mut self, block: Block, op: OpId) {
        self.ops[op.index()].parent = block;
        self.blocks[block.index()].ops.push(op);
    }

    /// Makes room for `n` more ops in `block` (a reader that knows the count grows it once).
    pub(crate) fn reserve_block_ops(&mut self, block: Block, n: usize) {
        if let Some(b) = self.blocks.get_mut(block.index()) {
            b.ops.reserve(n);
        }
    }

    /// Appends `op` to the top level of the module.
    pub fn push_top(&mut self, op: OpId) {
        self.top.push(op);
    }
    /// Removes `op` from the top-level ops; it stays in the arena, unreachable.
    pub fn remove_top(&mut self, op: OpId) {
        self.top.retain(|&o| o != op);
    }

    // ---- queries ---------------------------------------------------------------------------

    /// The top-level ops.
    pub fn top_ops(&self) -> &[OpId] {
        &self.top
    }
    /// Number of ops ever created (including erased ones).
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }
    /// Number of values ever created (including those of erased ops).
    pub fn num_values(&self) -> usize {
        self.values.len()
    }
    /// Number of blocks ever created (including erased ones).
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    /// The op's full name symbol (`vhlo.add_v1`).
    pub fn op_name(&self, op: OpId) -> Symbol {
        self.ops[op.index()].name
    }
    /// The op's name, operands, results, properties, attributes and regions at once (one
    /// lookup of the op, for walks that read them all).
    #[inline]
    pub fn op_parts(&self, op: OpId) -> OpParts<'_> {
        let d = &self.ops[op.index()];
        let regions = match self.nested.get(d.nested as usize) {
            Some(n) => &self.region_pool[n.regions.range()],
            None => &[],
        };
        // Most ops have no discardable attributes: no slice to check for them.
        let attrs = |s: Span| match s.len {
            0 => &[][..],
            _ => &self.attr_pool[s.range()],
        };
        OpParts {
            name: d.name,
            operands: &self.value_pool[d.operands.range()],
            results: (d.first_result..d.first_result + d.num_results)
                .map(Value as fn(u32) -> Value),
            properties: attrs(d.properties),
            attributes: attrs(d.attributes),
            regions,
        }
    }
    /// The op's full name.
    pub fn op_name_str(&self, op: OpId) -> &str {
        self.str(self.op_name(op))
    }
    /// The op's operands.
    pub fn operands(&self, op: OpId) -> &[Value] {
        &self.value_pool[self.ops[op.index()].operands.range()]
    }
    /// The op's results.
    pub fn results(&self, op: OpId) -> impl ExactSizeIterator<Item = Value> + '_ {
        let d = &self.ops[op.index()];
        (d.first_result..d.first_result + d.num_results).map(Value)
    }
    /// Number of results.
    pub fn num_results(&self, op: OpId) -> usize {
        self.ops[op.index()].num_results as usize
    }
    /// Result `i`.
    pub fn result(&self, op: OpId, i: usize) -> Option<Value> {
        let d = &self.ops[op.index()];
        (i < d.num_results as usize).then(|| Value(d.first_result + to_u32(i)))
    }
    /// The op's properties (inherent attributes), in stored order.
    pub fn properties(&self, op: OpId) -> &[NamedAttr] {
        &self.attr_pool[self.ops[op.index()].properties.range()]
    }
    /// The op's discardable attributes, in stored order.
    pub fn attributes(&self, op: OpId) -> &[NamedAttr] {
        &self.attr_pool[self.ops[op.index()].attributes.range()]
    }
    /// The property called `name`.
    pub fn property(&self, op: OpId, name: &str) -> Option<Attribute> {
        let sym = self.lookup_sym(name)?;
        self.properties(op)
            .iter()
            .find(|a| a.name == sym)
            .map(|a| a.value)
    }
    /// The discardable attribute called `name`.
    pub fn attribute(&self, op: OpId, name: &str) -> Option<Attribute> {
        let sym = self.lookup_sym(name)?;
        self.attributes(op)
            .iter()
            .find(|a| a.name == sym)
            .map(|a| a.value)
    }
    /// The op's regions.
    pub fn regions(&self, op: OpId) -> &[Region] {
        match self.nested.get(self.ops[op.index()].nested as usize) {
            Some(n) => &self.region_pool[n.regions.range()],
            None => &[],
        }
    }
    /// The op's successor blocks.
    pub fn successors(&self, op: OpId) -> &[Block] {
        match self.nested.get(self.ops[op.index()].nested as usize) {
            Some(n) => &self.block_pool[n.successors.range()],
            None => &[],
        }
    }
    /// Replaces successor `i` of `op` (readers patch forward references with it).
    pub fn set_successor(&mut self, op: OpId, i: usize, b: Block) {
        let Some(r) = self
            .nested
            .get(self.ops[op.index()].nested as usize)
            .map(|n| n.successors.range())
        else {
            return;
        };
        if let Some(slot) = self.block_pool[r].get_mut(i) {
            *slot = b;
        }
    }
    /// The op's location.
    pub fn op_location(&self, op: OpId) -> Location {
        self.ops[op.index()].location
    }
    /// The block holding `op`.
    pub fn op_parent(&self, op: OpId) -> Option<Block> {
        let p = self.ops[op.index()].parent;
        (p != NO_PARENT).then_some(p)
    }
    /// The op holding `region`.
    pub fn region_parent(&self, region: Region) -> Option<OpId> {
        self.regions[region.index()].parent
    }
    /// The region holding `block`.
    pub fn block_parent(&self, block: Block) -> Option<Region> {
        self.blocks[block.index()].parent
    }
    /// The blocks of a region.
    pub fn blocks(&self, region: Region) -> &[Block] {
        &self.regions[region.index()].blocks
    }
    /// The ops of a block.
    pub fn block_ops(&self, block: Block) -> &[OpId] {
        &self.blocks[block.index()].ops
    }
    /// The arguments of a block.
    pub fn block_args(&self, block: Block) -> &[Value] {
        &self.blocks[block.index()].args
    }
    /// A value's type.
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v.index()].ty
    }
    /// Where a value is defined.
    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v.index()].def
    }

    // ---- in-place rewriting (used by version conversions) ----------------------------------

    /// Renames an op.
    pub fn set_op_name(&mut self, op: OpId, name: Symbol) {
        self.ops[op.index()].name = name;
    }
    /// Replaces the op's operand list.
    pub fn set_operands(&mut self, op: OpId, operands: &[Value]) {
        let span = self.push_values(operands);
        self.ops[op.index()].operands = span;
    }
    /// Replaces the op's properties.
    pub fn set_properties(&mut self, op: OpId, props: &[NamedAttr]) {
        let old = self.ops[op.index()].properties;
        let span = self.reuse_attr_span(old, props);
        self.ops[op.index()].properties = span;
    }
    /// Replaces the op's discardable attributes.
    pub fn set_attributes(&mut self, op: OpId, attrs: &[NamedAttr]) {
        let old = self.ops[op.index()].attributes;
        let span = self.reuse_attr_span(old, attrs);
        self.ops[op.index()].attributes = span;
    }
    /// Stores `attrs` over `old` when it fits (or when `old` ends the pool), else at the end.
    /// Spans are never shared between ops, so overwriting one touches no other list; the pool
    /// never shrinks, so empty spans past the end stay in bounds.
    fn reuse_attr_span(&mut self, old: Span, attrs: &[NamedAttr]) -> Span {
        let start = old.start as usize;
        let at_end = start + old.len as usize == self.attr_pool.len();
        if attrs.len() <= old.len as usize || (at_end && old.len > 0) {
            for (i, a) in attrs.iter().enumerate() {
                match self.attr_pool.get_mut(start + i) {
                    Some(slot) => *slot = *a,
                    None => self.attr_pool.push(*a),
                }
            }
            return Span {
                start: old.start,
                len: to_u32(attrs.len()),
            };
        }
        self.push_attrs(attrs)
    }
    /// Sets (adds or replaces) a property.
    pub fn set_property(&mut self, op: OpId, name: Symbol, value: Attribute) {
        let span = self.ops[op.index()].properties;
        if let Some(a) = self.attr_pool[span.range()]
            .iter_mut()
            .find(|a| a.name == name)
        {
            a.value = value;
            return;
        }
        // Append: in place when the list ends the pool, else after a copy of it to the end.
        let new = NamedAttr { name, value };
        if span.len == 0 || span.range().end != self.attr_pool.len() {
            let start = to_u32(self.attr_pool.len());
            self.attr_pool.extend_from_within(span.range());
            self.ops[op.index()].properties = Span {
                start,
                len: span.len,
            };
        }
        self.attr_pool.push(new);
        self.ops[op.index()].properties.len += 1;
    }
    /// Removes a property, returning its value.
    pub fn remove_property(&mut self, op: OpId, name: Symbol) -> Option<Attribute> {
        // In place: later entries move down one slot and the span shrinks.
        let span = self.ops[op.index()].properties;
        let list = &mut self.attr_pool[span.range()];
        let pos = list.iter().position(|a| a.name == name)?;
        let removed = list[pos].value;
        list.copy_within(pos + 1.., pos);
        self.ops[op.index()].properties.len -= 1;
        Some(removed)
    }
    /// A block argument's location (`loc(unknown)` unless one was set; op results have none of
    /// their own).
    pub fn value_location(&self, v: Value) -> Location {
        self.values[v.index()].loc
    }
    /// Sets a block argument's location.
    pub fn set_value_location(&mut self, v: Value, loc: Location) {
        self.values[v.index()].loc = loc;
    }
    /// Changes the type of a value.
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v.index()].ty = ty;
    }
    /// Changes the location of an op.
    pub fn set_op_location(&mut self, op: OpId, loc: Location) {
        self.ops[op.index()].location = loc;
    }

    /// Adds an argument of type `ty` at the end of `block`'s argument list (text parsers create
    /// blocks on first reference, before their argument list is known).
    pub fn add_block_arg(&mut self, block: Block, ty: Type) -> Value {
        let index = to_u32(self.blocks[block.index()].args.len());
        let v = Value(to_u32(self.values.len()));
        self.values.push(ValueData {
            ty,
            def: ValueDef::Argument { block, index },
            loc: Location(0),
        });
        self.blocks[block.index()].args.push(v);
        v
    }
    /// Reorders the blocks of `region`; `order` must be a permutation of its current blocks.
    /// Returns false (and changes nothing) when it is not.
    pub fn reorder_blocks(&mut self, region: Region, order: &[Block]) -> bool {
        let current = &self.regions[region.index()].blocks;
        if current.len() != order.len() {
            return false;
        }
        let mut a = current.clone();
        let mut b = order.to_vec();
        a.sort();
        b.sort();
        if a != b {
            return false;
        }
        self.regions[region.index()].blocks = order.to_vec();
        true
    }

    /// Visits every op reachable from the top level in pre-order (an op before its regions).
    pub fn walk(&self, mut f: impl FnMut(OpId)) {
        let mut stack: Vec<OpId> = self.top.iter().rev().copied().collect();
        while let Some(op) = stack.pop() {
            f(op);
            for &r in self.regions(op).iter().rev() {
                for &b in self.blocks(r).iter().rev() {
                    stack.extend(self.block_ops(b).iter().rev().copied());
                }
            }
        }
    }
}

/// The builtin dialect's resources (`dense_resource` blobs).
impl Module {
    /// Sets the blob of resource `key` (a later blob for the same key replaces the earlier one,
    /// as in MLIR's parser).
    pub fn set_resource_blob(&mut self, key: Symbol, blob: ResourceBlob) {
        self.resources.insert(key, blob);
    }
    /// Whether any resource has a blob (most modules have none, and skip looking for them).
    pub fn has_resource_blobs(&self) -> bool {
        !self.resources.is_empty()
    }
    /// The blob of resource `key`; `None` for a declaration without data (`__elided__`).
    pub fn resource_blob(&self, key: Symbol) -> Option<&ResourceBlob> {
        self.resources.get(&key)
    }
}

/// Insertion in the middle of a block (the mixed StableHLO/other-dialect conversion inserts
/// casts next to the values they convert).
impl Module {
    /// Inserts the detached `op` into `block` before position `index` (at the end when `index`
    /// is past it).
    pub fn insert_op(&mut self, block: Block, index: usize, op: OpId) {
        self.ops[op.index()].parent = block;
        let ops = &mut self.blocks[block.index()].ops;
        let at = index.min(ops.len());
        ops.insert(at, op);
    }

    /// The position of `op` in its block.
    pub fn op_position(&self, op: OpId) -> Option<usize> {
        let block = self.op_parent(op)?;
        self.blocks[block.index()].ops.iter().position(|&o| o == op)
    }
}

/// Removal of ops (folding casts away after a conversion).
impl Module {
    /// Detaches `op` from its block; it stays in the arena, unreachable.
    pub fn detach_op(&mut self, op: OpId) {
        if let Some(block) = self.op_parent(op) {
            self.ops[op.index()].parent = NO_PARENT;
            self.blocks[block.index()].ops.retain(|&o| o != op);
        }
    }
}

impl Module {
    /// Replaces operand `index` of `op` in place (no copy of the operand list, unlike
    /// [`Module::set_operands`]); `false` if the op has no such operand. Readers patching forward
    /// references use it so that the work stays linear in the number of operands.
    pub fn set_operand(&mut self, op: OpId, index: usize, value: Value) -> bool {
        let Some(span) = self.ops.get(op.index()).map(|o| o.operands) else {
            return false;
        };
        if index >= span.len as usize {
            return false;
        }
        match self.value_pool.get_mut(span.start as usize + index) {
            Some(slot) => {
                *slot = value;
                true
            }
            None => false,
        }
    }
}

/// The shape and element type of a builtin `vector<...>` type, which the IR keeps as the
/// dialect type `builtin.vector` with (shape, scalable flags (0 or 1 per dimension), element).
pub fn vector_parts(m: &Module, t: Type) -> Option<(&[i64], Type)> {
    match m.type_data(t) {
        TypeData::Dialect(d) if m.str(d.dialect) == "builtin" && m.str(d.mnemonic) == "vector" => {
            match &d.params[..] {
                [Param::Ints(shape), Param::Ints(_), Param::Type(e)] => Some((shape, *e)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The dimensions (`None` when unranked) and element type of a `memref` (the dialect type
/// `builtin.memref`: shape or absent, element, layout, memory space; text/parse_types_attrs.rs).
pub fn memref_parts(m: &Module, t: Type) -> Option<(Option<&[i64]>, Type)> {
    match m.type_data(t) {
        TypeData::Dialect(d) if m.str(d.dialect) == "builtin" && m.str(d.mnemonic) == "memref" => {
            match &d.params[..] {
                [Param::Ints(shape), Param::Type(e), _, _] => Some((Some(shape), *e)),
                [Param::Absent, Param::Type(e), _, _] => Some((None, *e)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Storage bytes of one dense element of type `t` (MLIR pads each to whole bytes; i1 takes
/// one byte; index takes 8).
pub fn element_storage_bytes(m: &Module, t: Type) -> Option<usize> {
    storage_bytes_of(m.type_data(t), |e| element_storage_bytes(m, e))
}

/// [`element_storage_bytes`] of a type's data, `complex` giving a complex type's element's: the
/// one place element sizes are worked out (the printer, the readers and the writers ask here).
pub fn storage_bytes_of(
    t: &TypeData,
    complex: impl FnOnce(Type) -> Option<usize>,
) -> Option<usize> {
    match t {
        TypeData::Integer { width, .. } => Some((*width as usize).div_ceil(8).max(1)),
        TypeData::Index => Some(8),
        TypeData::Float(k) => Some((k.bit_width() as usize).div_ceil(8)),
        TypeData::Complex(inner) => complex(*inner).map(|n| n.saturating_mul(2)),
        _ => None,
    }
}
