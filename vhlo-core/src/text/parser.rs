//! The parser: MLIR textual IR (generic op form, the func/builtin custom forms, and StableHLO's
//! pretty forms) into a [`Module`].

// Input path: no panics whatever the text.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use crate::ir::{FastMap as HashMap, FastSet};

use super::lexer::{Cursor, ParseError};
use crate::ir::*;

/// Deepest bracket nesting of types, attributes, locations, dense literals and regions accepted:
/// a recursion guard ([`crate::ir::NESTING_GUARD`]); the one limit,
/// [`crate::ir::MAX_NESTING`], is checked on the interned values.
pub const MAX_DEPTH: u32 = crate::ir::NESTING_GUARD as u32;
/// Deepest nesting of regions accepted: the same limit.
pub const MAX_REGION_DEPTH: u32 = crate::ir::MAX_NESTING as u32;

/// Where ops and attribute-dictionary entries are in the text (byte offsets), recorded only
/// when asked for: a verifier error is placed by parsing again.
#[derive(Default, Debug)]
pub(crate) struct Positions {
    /// (op, where its name starts, where it ends, written in generic form).
    pub ops: Vec<(OpId, usize, usize, bool)>,
    /// (name, where its value starts, where its dictionary's `{` is), in text order.
    pub entries: Vec<(Symbol, usize, usize)>,
}

impl Positions {
    /// The byte offset of `place` in `op`.
    pub fn offset_of(
        &self,
        m: &Module,
        op: OpId,
        place: crate::text::verify::Place,
    ) -> Option<usize> {
        use crate::text::verify::Place;
        let &(_, start, end, generic) = self.ops.iter().find(|p| p.0 == op)?;
        let (name, at_dict) = match place {
            Place::Op | Place::Nested(_) => return Some(start),
            Place::AttributeDict(_) if generic => return Some(start),
            Place::AttributeValue(n) => (n, false),
            Place::AttributeDict(n) => (n, true),
        };
        let entry = self
            .entries
            .iter()
            .find(|e| e.1 >= start && e.1 < end && m.str(e.0) == name);
        Some(match entry {
            Some(&(_, value, open)) => {
                if at_dict {
                    open
                } else {
                    value
                }
            }
            None => start,
        })
    }
}

/// The line and column of byte offset `pos` of `src`, as parse errors give them.
pub(crate) fn position(src: &str, pos: usize) -> (u32, u32) {
    line_column(src, &line_starts(src.as_bytes()), pos)
}

/// A value used before its definition: patched when the enclosing region ends.
struct PendingUse<'a> {
    name: &'a str,
    index: u32,
    op: OpId,
    operand: usize,
    pos: usize,
}

#[derive(Default)]
struct Scope<'a> {
    /// Name → (first value, number of values under that name).
    values: ValueNames<'a>,
    pending: Vec<PendingUse<'a>>,
    /// The region of an `IsolatedFromAbove` op (or the top level): names of enclosing
    /// scopes may be defined again inside it. In any other region they may not (MLIR:
    /// "redefinition of SSA value").
    isolated: bool,
}

/// The value names of one scope. MLIR numbers values `%0`, `%1`, ... in order, so a run of
/// consecutive numbers is kept in a vector (no hashing per op, docs/benchmarks.md); any other
/// name, or a number out of that run, goes to the map.
#[derive(Default)]
struct ValueNames<'a> {
    /// The number of `run[0]`.
    base: u32,
    run: Vec<(Value, u32)>,
    other: HashMap<&'a str, (Value, u32)>,
    /// Whether `other` holds a number (which the run could reach later).
    other_has_numbers: bool,
}

/// `n` for a name spelled as MLIR numbers values: decimal digits without a leading zero.
fn value_number(name: &str) -> Option<u32> {
    let b = name.as_bytes();
    match b {
        [b'0'] => Some(0),
        [b'1'..=b'9', rest @ ..] if rest.len() < 9 && rest.iter().all(u8::is_ascii_digit) => {
            name.parse().ok()
        }
        _ => None,
    }
}

impl<'a> ValueNames<'a> {
    /// Adds `name`; false if the scope has it already.
    fn insert(&mut self, name: &'a str, entry: (Value, u32)) -> bool {
        if let Some(n) = value_number(name) {
            let next = (self.base as usize).saturating_add(self.run.len());
            if self.run.is_empty() || n as usize == next {
                if self.other_has_numbers && self.other.contains_key(name) {
                    return false;
                }
                if self.run.is_empty() {
                    self.base = n;
                }
                self.run.push(entry);
                return true;
            }
            if (self.base..).contains(&n) && (n as usize) < next {
                return false;
            }
            self.other_has_numbers = true;
        }
        self.other.insert(name, entry).is_none()
    }

    fn get(&self, name: &str) -> Option<(Value, u32)> {
        if let Some(n) = value_number(name) {
            if let Some(i) = n.checked_sub(self.base) {
                if let Some(&e) = self.run.get(i as usize) {
                    return Some(e);
                }
            }
        }
        self.other.get(name).copied()
    }
}

/// Per-region block names.
#[derive(Default)]
struct BlockScope<'a> {
    blocks: HashMap<&'a str, (Block, bool, usize)>,
}

/// A placeholder operand for a forward reference.
const FORWARD: Value = Value(u32::MAX);

/// One element of a `dense<...>` literal before its type is known.
#[derive(Clone, Debug)]
pub(crate) enum Elem {
    Int {
        negative: bool,
        magnitude: u128,
        hex: bool,
    },
    Float(f64),
    /// An integer too large for `u128` (see [`super::lexer::Number::WideInt`]).
    WideInt {
        negative: bool,
        hex: bool,
        start: usize,
        end: usize,
    },
    Bool(bool),
    Complex(Box<(Elem, Elem)>),
    Str(Vec<u8>),
}

/// Reads an op in custom syntax once its name (and the number of result names before it) is
/// read. The parser core reads the generic form only: [`super::parse`] wires in the custom
/// forms of builtin, func, StableHLO and sdy (`super::custom_forms`).
pub(crate) type CustomOpParser<'a> =
    fn(&mut Parser<'a>, name: &str, pos: usize, named_results: usize) -> PResult<OpId>;

pub struct Parser<'a> {
    pub(crate) c: Cursor<'a>,
    /// The custom op forms; `None`: generic ops only.
    custom_ops: Option<CustomOpParser<'a>>,
    /// Per custom op being parsed: the default dialect it gives its regions' ops (upstream's
    /// `OpAsmOpInterface::getDefaultDialect`; text/custom_forms.rs `default_dialect_of`).
    pub(crate) default_dialects: Vec<&'static str>,
    pub(crate) m: Module,
    depth: u32,
    pub(crate) type_aliases: HashMap<String, Type>,
    pub(crate) attr_aliases: HashMap<String, Attribute>,
    /// Each location alias, with where its definition starts: only an op's or a block
    /// argument's `loc(#alias)` may name one defined further down (MLIR resolves those at the
    /// end); an alias definition or an attribute may not ("undefined symbol alias id").
    pub(crate) loc_aliases: HashMap<String, (Location, usize)>,
    /// Inside an alias definition: its start.
    in_alias_def: Option<usize>,
    /// Ops whose location is a `#loc` alias defined later in the file.
    pending_locs: Vec<(OpId, String, usize)>,
    /// Placeholder locations given to block arguments whose `loc(#alias)` is defined further
    /// down, with the alias; replaced once the file is read.
    pending_arg_locs: HashMap<Location, (String, usize)>,
    /// With a buffer name, ops and block arguments without `loc(...)` get their position in the
    /// text as location, as MLIR's parser does.
    filename: Option<Symbol>,
    /// Byte offsets of line starts, built on the first source location: looking a position up
    /// is then a binary search instead of a scan from the start of the text (quadratic per file).
    line_starts: Vec<usize>,
    /// Ops that had an explicit `loc(...)` (only tracked with `filename`).
    explicit_locs: FastSet<OpId>,
    /// Where each op and each attribute-dictionary entry is, when asked for (to place a
    /// verifier error).
    op_positions: Option<Positions>,
    scopes: Vec<Scope<'a>>,
    /// The name of the op whose regions are read next (custom syntax, or a generic name
    /// without escapes), to tell an isolated region from another.
    region_owner: &'a str,
    block_scopes: Vec<BlockScope<'a>>,
    current_region: Option<Region>,
    /// Set by `parse_attribute_untyped` for the next attribute only.
    pub(crate) untyped_next: bool,
    /// Ops, types and attributes of dialects jaxlib does not register are kept
    /// (`-allow-unregistered-dialect`); else refused as they are read.
    pub(super) allow_unregistered: bool,
    /// What the parser checks of an op by its name, worked out once per name (by symbol).
    op_name_facts: Vec<Option<OpNameFacts>>,
    region_depth: u32,
    /// Builtin tensor types by their text (`tensor<4x8xf32>`): the same few are spelled
    /// thousands of times, and each spelling is parsed once.
    pub(crate) type_cache: HashMap<&'a str, Type>,
    /// Short `dense<...> : tensor<...>` and `array<...>` attributes by their text, likewise
    /// (constants and dimension lists repeat across a program).
    pub(crate) attr_cache: HashMap<&'a str, Attribute>,
    /// One operation state for every generic op, filled just before the op is created (after
    /// its regions are read), so its vectors are allocated once per parse instead of per op.
    op_state: Option<OperationState>,
    /// The operand types of the generic op being finished (reused likewise).
    scratch_types: Vec<Type>,
    /// Operand uses of the generic ops being read, as a stack: each op appends its own above
    /// those of the ops around it and truncates back when done.
    scratch_uses: Vec<ValueUse<'a>>,
    /// Where each key of the dictionaries being read starts (for errors), a stack likewise.
    scratch_positions: Vec<usize>,
}

pub(crate) type PResult<T> = Result<T, ParseError>;

/// What MLIR's parser checks of a generic op by its name.
#[derive(Clone, Copy)]
struct OpNameFacts {
    /// Its dialect is registered in jaxlib's context.
    registered_dialect: bool,
    /// A known op that cannot be a terminator: it takes no successors.
    refuses_successors: bool,
    /// Its properties, for an op whose ODS this crate knows: none (written ones are refused),
    /// or these names (others are dropped, for StableHLO's ops); `None`: any.
    properties: Option<&'static [&'static str]>,
    /// Properties it lacks are dropped (StableHLO's ops, whose spec lists every ODS
    /// attribute; the other dialects' spec lists those the formats and checks need).
    drops_other_properties: bool,
    /// A spec dialect's op with default-valued attributes, which it gets when created.
    defaults: Option<(
        &'static crate::dialect::codec::CodecDialect,
        &'static crate::dialect::codec::CodecOp,
    )>,
}

impl OpNameFacts {
    fn of(name: &str) -> Self {
        let dialect = name.split_once('.').map_or("", |d| d.0);
        let class = crate::text::dialects::classify(name);
        let codec = crate::text::dialects::codec_op(name);
        let modeled = crate::vhlo::StablehloOp::from_name(name).is_some() || codec.is_some();
        OpNameFacts {
            registered_dialect: crate::dialect::LIBSTABLEHLO_DIALECTS.contains(&dialect),
            refuses_successors: class.registered && !class.unknown && !class.terminator,
            properties: crate::vhlo::inherent_attribute_names(name).filter(|_| modeled),
            drops_other_properties: name.starts_with("stablehlo."),
            defaults: codec.filter(|(_, o)| o.attributes.iter().any(|a| a.default.is_some())),
        }
    }
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str) -> Self {
        Parser {
            c: Cursor::new(src),
            custom_ops: None,
            default_dialects: Vec::new(),
            m: Module::new(),
            depth: 0,
            type_aliases: HashMap::default(),
            attr_aliases: HashMap::default(),
            loc_aliases: HashMap::default(),
            in_alias_def: None,
            pending_locs: Vec::new(),
            pending_arg_locs: HashMap::default(),
            filename: None,
            line_starts: Vec::new(),
            explicit_locs: FastSet::default(),
            op_positions: None,
            scopes: vec![Scope {
                isolated: true,
                ..Scope::default()
            }],
            region_owner: "",
            block_scopes: Vec::new(),
            current_region: None,
            untyped_next: false,
            allow_unregistered: false,
            op_name_facts: Vec::new(),
            region_depth: 0,
            type_cache: HashMap::default(),
            attr_cache: HashMap::default(),
            op_state: None,
            scratch_types: Vec::new(),
            scratch_uses: Vec::new(),
            scratch_positions: Vec::new(),
        }
    }

    /// Runs `f` on a parser over `src` that interns into `m`, requiring all input consumed.
    pub fn with_module<T>(
        src: &'a str,
        m: &mut Module,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        let mut p = Parser::new(src);
        p.m = std::mem::take(m);
        let r = f(&mut p).and_then(|v| {
            if p.c.at_end() {
                Ok(v)
            } else {
                let found = p.c.describe_next();
                Err(p.c.error(format!("unexpected {found} after the end")))
            }
        });
        *m = std::mem::take(&mut p.m);
        r
    }

    /// The forward `#loc` alias recorded for `op`, if its location is still pending.
    pub(crate) fn pending_loc_for(&self, op: OpId) -> Option<(String, usize)> {
        self.pending_locs
            .iter()
            .rev()
            .find(|p| p.0 == op)
            .map(|p| (p.1.clone(), p.2))
    }
    pub(crate) fn push_pending_loc(&mut self, op: OpId, name: String, pos: usize) {
        self.pending_locs.push((op, name, pos));
    }

    /// Reads ops in custom syntax with `custom_ops`.
    pub(crate) fn with_custom_ops(mut self, custom_ops: CustomOpParser<'a>) -> Self {
        self.custom_ops = Some(custom_ops);
        self
    }

    /// Keeps ops, types and attributes of unregistered dialects (MLIR's
    /// `-allow-unregistered-dialect`).
    pub(crate) fn allowing_unregistered_dialects(mut self, allow: bool) -> Self {
        self.allow_unregistered = allow;
        self
    }

    /// Refuses `what` (an op, or a type or attribute as ``type `!d.x` ``) of `dialect` at
    /// `pos` when jaxlib's context does not register that dialect, in the words of MLIR's
    /// parser, and naming the dialect.
    pub(crate) fn require_registered(
        &self,
        dialect: &str,
        pos: usize,
        what: Unregistered<'_>,
    ) -> PResult<()> {
        if self.allow_unregistered || crate::dialect::LIBSTABLEHLO_DIALECTS.contains(&dialect) {
            return Ok(());
        }
        let message = match what {
            Unregistered::Op(name) if dialect.is_empty() => format!(
                "operation being parsed with an unregistered dialect. If this is intended, \
                 please use -allow-unregistered-dialect with the MLIR tool used (`{name}` has no \
                 dialect: an op name is `dialect.name`)"
            ),
            _ if dialect.is_empty() => {
                format!("{} with no dialect (a name is `dialect.name`)", what.text())
            }
            Unregistered::Op(name) => format!(
                "operation being parsed with an unregistered dialect. If this is intended, \
                 please use -allow-unregistered-dialect with the MLIR tool used (`{name}`: \
                 jaxlib's MLIR context does not register the dialect '{dialect}')"
            ),
            Unregistered::Type(_) | Unregistered::Attribute(_) => format!(
                "{} created with unregistered dialect. If this is intended, please call \
                 allowUnregisteredDialects() on the MLIRContext, or use \
                 -allow-unregistered-dialect with the MLIR opt tool used (jaxlib's MLIR context \
                 does not register the dialect '{dialect}')",
                what.text()
            ),
        };
        Err(self.c.error_at(pos, message))
    }

    /// Records where each op and attribute is (see [`Parser::parse_top_positions`]).
    pub(crate) fn with_op_positions(mut self) -> Self {
        self.op_positions = Some(Positions::default());
        self
    }

    /// [`Parser::parse_top`], also giving where each op and attribute is.
    pub(crate) fn parse_top_positions(mut self) -> PResult<(Module, Positions)> {
        let positions = self.op_positions.take();
        self.op_positions = Some(positions.unwrap_or_default());
        let mut slot = Positions::default();
        let m = self.parse_top_keeping(&mut slot)?;
        Ok((m, slot))
    }

    /// Gives unlocated ops and block arguments their position in `filename` (MLIR's default).
    pub fn with_source_locations(mut self, filename: &str) -> Self {
        self.filename = Some(self.m.sym(filename));
        self
    }

    /// The location of an unlocated block argument written at `pos`: its source position with
    /// source locations on, else unknown.
    pub(crate) fn default_arg_loc(&mut self, pos: usize) -> Location {
        self.source_loc(pos).unwrap_or(self.m.unknown_loc())
    }

    /// `filename:line:col` of byte offset `pos`, when source locations are on.
    fn source_loc(&mut self, pos: usize) -> Option<Location> {
        let file = self.filename?;
        if self.line_starts.is_empty() {
            self.line_starts = line_starts(self.c.bytes);
        }
        let (line, column) = line_column(self.c.src, &self.line_starts, pos);
        Some(self.m.loc(LocData::FileLineCol { file, line, column }))
    }

    /// A placeholder location standing for the forward alias `#name` of a block argument.
    pub(crate) fn pending_arg_loc(&mut self, name: String, pos: usize) -> Location {
        let marker = self.m.sym(&format!("\u{0}pending location alias #{name}"));
        let l = self.m.loc(LocData::Name {
            name: marker,
            child: None,
        });
        self.pending_arg_locs.insert(l, (name, pos));
        l
    }

    /// Replaces the placeholders of forward-aliased block-argument locations.
    fn resolve_pending_arg_locs(&mut self, tops: &[OpId]) -> PResult<()> {
        if self.pending_arg_locs.is_empty() {
            return Ok(());
        }
        let mut stack: Vec<OpId> = tops.to_vec();
        while let Some(op) = stack.pop() {
            for &r in self.m.regions(op).to_vec().iter() {
                for &b in self.m.blocks(r).to_vec().iter() {
                    for v in self.m.block_args(b).to_vec() {
                        let l = self.m.value_location(v);
                        if let Some((name, pos)) = self.pending_arg_locs.get(&l).cloned() {
                            let Some(&(resolved, _)) = self.loc_aliases.get(&name) else {
                                return Err(self
                                    .c
                                    .error_at(pos, format!("undefined location alias '#{name}'")));
                            };
                            self.m.set_value_location(v, resolved);
                        }
                    }
                    stack.extend(self.m.block_ops(b).iter().copied());
                }
            }
        }
        Ok(())
    }

    /// Counts one nesting level; callers pair it with [`Self::leave`] (not on error).
    pub(crate) fn enter(&mut self) -> PResult<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self
                .c
                .error(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        self.depth = self.depth.saturating_add(1);
        Ok(())
    }
    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ---- top level ---------------------------------------------------------------------------

    /// Location aliases are usually defined at the end of the file but used everywhere
    /// (also nested: `fused[#loc1]`), so definitions at the start of a line are read first.
    /// Returns where each one read ends, by its start. Definitions that fail here are read
    /// (and reported) again in order.
    fn prescan_loc_aliases(&mut self) -> HashMap<usize, usize> {
        let mut done = HashMap::default();
        let bytes = self.c.bytes;
        let starts: Vec<usize> = (bytes.first() == Some(&b'#'))
            .then_some(0)
            .into_iter()
            .chain(memchr::memmem::find_iter(bytes, b"\n#").map(|i| i.saturating_add(1)))
            .collect();
        // Two rounds, so a definition may also use one defined below it.
        for _ in 0..2 {
            for &start in &starts {
                if done.contains_key(&start) {
                    continue;
                }
                self.c.pos = start.saturating_add(1);
                let Some(name) = self.c.suffix_id() else {
                    continue;
                };
                let name = name.to_string();
                if !self.c.eat(b'=') || self.c.peek_ident() != Some("loc") {
                    continue;
                }
                self.c.bare_ident();
                if self.c.peek() != Some(b'(') {
                    continue;
                }
                self.in_alias_def = Some(start);
                let parsed = self.parse_loc_body(false);
                self.in_alias_def = None;
                if let Ok(loc) = parsed {
                    if let std::collections::hash_map::Entry::Vacant(e) =
                        self.loc_aliases.entry(name)
                    {
                        e.insert((loc, start));
                        done.insert(start, self.c.pos);
                    }
                }
            }
        }
        self.c.pos = 0;
        done
    }

    pub fn parse_top(self) -> PResult<Module> {
        self.parse_top_keeping(&mut Positions::default())
    }

    fn parse_top_keeping(mut self, positions: &mut Positions) -> PResult<Module> {
        let result = self.parse_top_inner();
        if let Some(p) = self.op_positions.take() {
            *positions = p;
        }
        result
    }

    fn parse_top_inner(&mut self) -> PResult<Module> {
        let mut ops = Vec::new();
        let prescanned = self.prescan_loc_aliases();
        loop {
            if self.c.at_end() {
                break;
            }
            let start = self.c.pos;
            match self.c.peek() {
                Some(b'#') if prescanned.contains_key(&self.c.pos) => {
                    self.c.pos = prescanned.get(&self.c.pos).copied().unwrap_or(self.c.pos);
                }
                Some(b'#') => self.parse_attr_alias_def()?,
                Some(b'!') => self.parse_type_alias_def()?,
                Some(b'{')
                    if self
                        .c
                        .bytes
                        .get(self.c.pos..)
                        .is_some_and(|r| r.starts_with(b"{-#")) =>
                {
                    self.parse_file_metadata()?
                }
                _ => {
                    let op = self.parse_operation()?;
                    ops.push(op);
                }
            }
            debug_assert!(self.c.pos > start);
        }
        self.finish_scope_top()?;
        for (op, name, pos) in std::mem::take(&mut self.pending_locs) {
            match self.loc_aliases.get(&name) {
                Some(&(l, _)) => self.m.set_op_location(op, l),
                None => {
                    return Err(self
                        .c
                        .error_at(pos, format!("undefined location alias '#{name}'")))
                }
            }
        }
        self.resolve_pending_arg_locs(&ops)?;
        let module_name = self.m.sym("builtin.module");
        let single_module = match ops.as_slice() {
            [op] if self.m.op_name(*op) == module_name => Some(*op),
            _ => None,
        };
        if let Some(op) = single_module {
            self.m.push_top(op);
        } else {
            let region = self.m.create_region();
            let block = self.m.append_block(region, &[]);
            for op in ops {
                self.m.append_op(block, op);
            }
            // MLIR names the implicit module `"file":0:0` (unknown without a file name).
            let loc = match self.filename {
                Some(file) => self.m.loc(LocData::FileLineCol {
                    file,
                    line: 0,
                    column: 0,
                }),
                None => self.m.unknown_loc(),
            };
            let mut st = OperationState::new(module_name, loc);
            st.regions.push(region);
            let module = self.m.create_op(st);
            self.m.push_top(module);
        }
        // Aliases nest without nesting the text (`!t1 = tuple<!t0>`): the one limit applies to
        // what was built.
        crate::ir::deepest_interned(&self.m).map_err(|e| self.c.error_at(0, e.to_string()))?;
        // The implicit module's region counts as the reader and writer count it.
        crate::ir::regions_within_limit(&self.m).map_err(|_| {
            self.c.error_at(
                0,
                format!(
                    "regions nested deeper than {} levels",
                    crate::ir::MAX_NESTING
                ),
            )
        })?;
        Ok(std::mem::take(&mut self.m))
    }

    fn parse_attr_alias_def(&mut self) -> PResult<()> {
        let pos = self.c.pos;
        self.c.pos = self.c.pos.saturating_add(1);
        let name = self
            .c
            .suffix_id()
            .ok_or_else(|| self.c.error_at(pos, "expected alias name after '#'"))?;
        self.c.expect(b'=', "in attribute alias definition")?;
        if self.attr_aliases.contains_key(name) || self.loc_aliases.contains_key(name) {
            return Err(self
                .c
                .error_at(pos, format!("redefinition of alias '#{name}'")));
        }
        self.in_alias_def = Some(pos);
        let r = self.parse_attr_alias_body(name, pos);
        self.in_alias_def = None;
        r
    }

    fn parse_attr_alias_body(&mut self, name: &str, pos: usize) -> PResult<()> {
        if self.c.peek_ident() == Some("loc") && self.c.peek_at(3) == Some(b'(') {
            self.c.bare_ident();
            let loc = self.parse_loc_body(false)?;
            self.loc_aliases.insert(name.to_string(), (loc, pos));
        } else {
            let a = self.parse_attribute()?;
            self.attr_aliases.insert(name.to_string(), a);
        }
        Ok(())
    }

    /// Whether a location alias whose definition starts at `start`, named at `pos`, is
    /// defined further down where only defined ones may be named: in an alias definition
    /// (`in_alias_def`), or as an attribute.
    pub(crate) fn later_loc_alias(&self, start: usize, pos: usize, as_attribute: bool) -> bool {
        match self.in_alias_def {
            Some(def) => start > def,
            None => as_attribute && start > pos,
        }
    }

    fn parse_type_alias_def(&mut self) -> PResult<()> {
        let pos = self.c.pos;
        self.c.pos = self.c.pos.saturating_add(1);
        let name = self
            .c
            .suffix_id()
            .ok_or_else(|| self.c.error_at(pos, "expected alias name after '!'"))?;
        self.c.expect(b'=', "in type alias definition")?;
        if self.type_aliases.contains_key(name) {
            return Err(self
                .c
                .error_at(pos, format!("redefinition of type alias '!{name}'")));
        }
        let t = self.parse_type()?;
        self.type_aliases.insert(name.to_string(), t);
        Ok(())
    }

    // ---- values ------------------------------------------------------------------------------

    pub(crate) fn define_value(
        &mut self,
        name: &'a str,
        first: Value,
        count: u32,
        pos: usize,
    ) -> PResult<()> {
        let Some(scope) = self.scopes.last_mut() else {
            return Err(self.c.error_at(pos, "internal error: no value scope"));
        };
        let mut fresh = scope.values.insert(name, (first, count));
        if fresh && !scope.isolated {
            // Names of enclosing regions, up to the nearest isolated one, are taken too.
            for outer in self.scopes.iter().rev().skip(1) {
                if outer.values.get(name).is_some() {
                    fresh = false;
                    break;
                }
                if outer.isolated {
                    break;
                }
            }
        }
        if !fresh {
            return Err(self
                .c
                .error_at(pos, format!("redefinition of SSA value '%{name}'")));
        }
        Ok(())
    }

    /// Looks `%name#index` up through the enclosing scopes.
    fn lookup_value(&self, name: &str, index: u32) -> Option<Result<Value, u32>> {
        for s in self.scopes.iter().rev() {
            if let Some((first, count)) = s.values.get(name) {
                return Some(if index < count {
                    Ok(Value(first.0.saturating_add(index)))
                } else {
                    Err(count)
                });
            }
        }
        None
    }

    /// An operand use `%name` or `%name#i`: its name, index and position.
    pub(crate) fn parse_value_use(&mut self) -> PResult<ValueUse<'a>> {
        let pos = self.c.token_start();
        if !self.c.eat(b'%') {
            let found = self.c.describe_next();
            return Err(self.c.error(format!("expected SSA value, found {found}")));
        }
        let name = self
            .c
            .suffix_id()
            .ok_or_else(|| self.c.error_at(pos, "expected value name after '%'"))?;
        let mut index = 0;
        // As MLIR's lexer: the next token, after any whitespace, is a result number when it
        // starts with `#` (so `%a #sdy.sharding<...>` is refused, not an attribute).
        if self.c.peek() == Some(b'#') {
            let hash = self.c.pos;
            self.c.pos = self.c.pos.saturating_add(1);
            let digits = self.c.suffix_id().unwrap_or("");
            index = digits
                .parse()
                .map_err(|_| self.c.error_at(hash, "invalid SSA value result number"))?;
        }
        Ok((name, index, pos))
    }

    /// Resolves parsed uses to values; unknown names become forward references (returned with
    /// their operand slot so they can be registered once the op exists).
    pub(crate) fn resolve_uses(
        &mut self,
        uses: &[ValueUse<'a>],
        types: Option<&[Type]>,
    ) -> PResult<(Vec<Value>, Vec<PendingUseSlot<'a>>)> {
        let mut vals = Vec::with_capacity(uses.len());
        let fwd = self.resolve_uses_into(uses, types, &mut vals)?;
        Ok((vals, fwd))
    }

    /// [`Parser::resolve_uses`] appending to `vals`.
    fn resolve_uses_into(
        &mut self,
        uses: &[ValueUse<'a>],
        types: Option<&[Type]>,
        vals: &mut Vec<Value>,
    ) -> PResult<Vec<PendingUseSlot<'a>>> {
        let mut fwd = Vec::new();
        for (i, (name, index, pos)) in uses.iter().enumerate() {
            match self.lookup_value(name, *index) {
                Some(Ok(v)) => {
                    if let Some(ts) = types {
                        if let Some(&t) = ts.get(i) {
                            if self.m.value_type(v) != t {
                                return Err(self.c.error_at(
                                    *pos,
                                    format!(
                                        "use of value '%{name}' expects type {} but it has type {}",
                                        super::printer::type_to_string(&self.m, t),
                                        super::printer::type_to_string(
                                            &self.m,
                                            self.m.value_type(v)
                                        )
                                    ),
                                ));
                            }
                        }
                    }
                    vals.push(v)
                }
                Some(Err(count)) => {
                    return Err(self.c.error_at(
                        *pos,
                        format!(
                            "result number {index} out of range: '%{name}' has {count} results"
                        ),
                    ))
                }
                None => {
                    vals.push(FORWARD);
                    fwd.push(PendingUseSlot {
                        name,
                        index: *index,
                        operand: i,
                        pos: *pos,
                    });
                }
            }
        }
        Ok(fwd)
    }

    pub(crate) fn register_forward(&mut self, op: OpId, fwd: Vec<PendingUseSlot<'a>>) {
        // The stack is never empty while ops are parsed (the top scope lives as long as the parser).
        let Some(scope) = self.scopes.last_mut() else {
            return;
        };
        for f in fwd {
            scope.pending.push(PendingUse {
                name: f.name,
                index: f.index,
                op,
                operand: f.operand,
                pos: f.pos,
            });
        }
    }

    /// Resolves the forward references of the innermost scope and pops it; what is still
    /// unknown moves to the enclosing scope.
    fn pop_scope(&mut self) -> PResult<()> {
        let Some(scope) = self.scopes.pop() else {
            return Ok(());
        };
        let mut unresolved = Vec::new();
        for p in scope.pending {
            match scope.values.get(p.name) {
                Some((first, count)) => {
                    if p.index >= count {
                        return Err(self
                            .c
                            .error_at(p.pos, format!("result number {} out of range", p.index)));
                    }
                    self.patch_operand(p.op, p.operand, Value(first.0.saturating_add(p.index)));
                }
                None => unresolved.push(p),
            }
        }
        match self.scopes.last_mut() {
            Some(outer) => outer.pending.extend(unresolved),
            None => {
                if let Some(p) = unresolved.first() {
                    return Err(self
                        .c
                        .error_at(p.pos, format!("use of undeclared SSA value '%{}'", p.name)));
                }
            }
        }
        Ok(())
    }

    fn finish_scope_top(&mut self) -> PResult<()> {
        let Some(top) = self.scopes.first_mut() else {
            return Ok(());
        };
        let scope = std::mem::take(top);
        for p in scope.pending {
            match scope.values.get(p.name) {
                Some((first, count)) if p.index < count => {
                    self.patch_operand(p.op, p.operand, Value(first.0.saturating_add(p.index)))
                }
                _ => {
                    return Err(self
                        .c
                        .error_at(p.pos, format!("use of undefined value '%{}'", p.name)))
                }
            }
        }
        Ok(())
    }

    fn patch_operand(&mut self, op: OpId, operand: usize, v: Value) {
        let mut ops = self.m.operands(op).to_vec();
        if let Some(slot) = ops.get_mut(operand) {
            *slot = v;
        }
        self.m.set_operands(op, &ops);
    }

    // ---- operations --------------------------------------------------------------------------

    /// `%a, %b:2 = op ...`: the result names with their counts.
    /// `%a, %b:2 =`: pushes each name, its count and position onto `scratch_uses`.
    fn parse_result_names(&mut self) -> PResult<()> {
        if self.c.peek() != Some(b'%') {
            return Ok(());
        }
        loop {
            let pos = self.c.token_start();
            self.c.expect(b'%', "for result name")?;
            let name = self
                .c
                .suffix_id()
                .ok_or_else(|| self.c.error_at(pos, "expected result name"))?;
            let mut count = 1;
            if self.c.bytes.get(self.c.pos) == Some(&b':') {
                self.c.pos = self.c.pos.saturating_add(1);
                let n = self.c.int64("as result count")?;
                if n < 1 || n > u32::MAX as i64 {
                    return Err(self.c.error_at(pos, "result count must be positive"));
                }
                count = n as u32;
            }
            self.scratch_uses.push((name, count, pos));
            if !self.c.eat(b',') {
                break;
            }
        }
        self.c.expect(b'=', "after result names")?;
        Ok(())
    }

    pub(crate) fn parse_operation(&mut self) -> PResult<OpId> {
        self.enter()?;
        let r = self.parse_operation_inner();
        self.leave();
        r
    }

    fn parse_operation_inner(&mut self) -> PResult<OpId> {
        // The result names go on the stack of uses, below those of the op's own operands.
        let base = self.scratch_uses.len();
        let r = self.parse_operation_named(base);
        self.scratch_uses.truncate(base);
        r
    }

    fn parse_operation_named(&mut self, base: usize) -> PResult<OpId> {
        self.parse_result_names()?;
        let names_end = self.scratch_uses.len();
        let named: usize = self
            .scratch_uses
            .get(base..)
            .unwrap_or_default()
            .iter()
            .map(|n| n.1 as usize)
            .sum();
        let op_pos = self.c.token_start();
        let op = if self.c.peek() == Some(b'"') {
            self.parse_generic_op()?
        } else {
            let Some(name) = self.c.bare_ident() else {
                let found = self.c.describe_next();
                return Err(self.c.error(format!("expected operation, found {found}")));
            };
            let Some(custom) = self.custom_ops else {
                return Err(self
                    .c
                    .error_at(op_pos, format!("'{name}': custom syntax is not read here")));
            };
            self.region_owner = name;
            custom(self, name, op_pos, named)?
        };
        let num_results = self.m.num_results(op);
        if names_end > base && named != num_results {
            return Err(self.c.error_at(
                op_pos,
                format!("operation defines {num_results} results but {named} were named"),
            ));
        }
        let mut next = 0u32;
        for i in base..names_end {
            let Some(&(name, count, pos)) = self.scratch_uses.get(i) else {
                break;
            };
            let first = self
                .m
                .result(op, next as usize)
                .ok_or_else(|| self.c.error_at(pos, "missing result"))?;
            self.define_value(name, first, count, pos)?;
            next = next.saturating_add(count);
        }
        self.parse_trailing_loc(Some(op))?;
        let end = self.c.pos;
        if let Some(p) = self.op_positions.as_mut() {
            let generic = self.c.bytes.get(op_pos) == Some(&b'"');
            p.ops.push((op, op_pos, end, generic));
        }
        // MLIR locates an unlocated op at its name, after any result names.
        if self.filename.is_some() && !self.explicit_locs.contains(&op) {
            if let Some(l) = self.source_loc(op_pos) {
                self.m.set_op_location(op, l);
            }
        }
        Ok(op)
    }

    /// `loc(...)` after an op (or a value): sets the op's location.
    pub(crate) fn parse_trailing_loc(&mut self, op: Option<OpId>) -> PResult<()> {
        self.parse_trailing_loc_of(op).map(|_| ())
    }

    /// `loc(...)` after a block argument written at `pos`: the location; when absent, unknown,
    /// or the source position with source locations on.
    pub(crate) fn parse_value_loc(&mut self, pos: usize) -> PResult<Location> {
        // A forward alias `loc(#locN)` becomes a placeholder resolved at the end of the file.
        if self.c.peek_ident() == Some("loc") {
            let save = self.c.pos;
            self.c.bare_ident();
            if self.c.eat(b'(') && self.c.peek() == Some(b'#') {
                let apos = self.c.pos;
                self.c.pos = self.c.pos.saturating_add(1);
                let name = self.c.suffix_id().unwrap_or("").to_string();
                if self.c.eat(b')') && !self.loc_aliases.contains_key(&name) {
                    return Ok(self.pending_arg_loc(name, apos));
                }
            }
            self.c.pos = save;
        }
        match self.parse_trailing_loc_of(None)? {
            Some(l) => Ok(l),
            None => Ok(self.source_loc(pos).unwrap_or(self.m.unknown_loc())),
        }
    }

    fn parse_trailing_loc_of(&mut self, op: Option<OpId>) -> PResult<Option<Location>> {
        if self.c.peek_ident() == Some("loc") {
            let save = self.c.pos;
            self.c.bare_ident();
            if self.c.peek() != Some(b'(') {
                self.c.pos = save;
                return Ok(None);
            }
            // Forward alias reference at op level: `loc(#loc3)`.
            let p2 = self.c.pos;
            self.c.expect(b'(', "")?;
            if self.c.peek() == Some(b'#') {
                let apos = self.c.pos;
                self.c.pos = self.c.pos.saturating_add(1);
                let name = self.c.suffix_id().unwrap_or("").to_string();
                if self.c.eat(b')') {
                    let found = self.loc_aliases.get(&name).map(|a| a.0);
                    if let (Some(op), true) = (op, self.filename.is_some()) {
                        self.explicit_locs.insert(op);
                    }
                    match (found, op) {
                        (Some(l), Some(op)) => self.m.set_op_location(op, l),
                        (None, Some(op)) => self.pending_locs.push((op, name, apos)),
                        _ => {}
                    }
                    return Ok(found);
                }
            }
            self.c.pos = p2;
            let loc = self.parse_loc_body(op.is_none())?;
            if let Some(op) = op {
                self.m.set_op_location(op, loc);
                if self.filename.is_some() {
                    self.explicit_locs.insert(op);
                }
            }
            return Ok(Some(loc));
        }
        Ok(None)
    }

    /// `(` location `)` after the `loc` keyword. `lenient` accepts unknown aliases (as unknown).
    pub(crate) fn parse_loc_body(&mut self, lenient: bool) -> PResult<Location> {
        self.c.expect(b'(', "after 'loc'")?;
        let l = self.parse_loc_inner(lenient)?;
        self.c.expect(b')', "to close location")?;
        Ok(l)
    }

    fn parse_loc_inner(&mut self, lenient: bool) -> PResult<Location> {
        self.enter()?;
        let r = self.parse_loc_inner2(lenient);
        self.leave();
        r
    }

    fn parse_loc_inner2(&mut self, lenient: bool) -> PResult<Location> {
        let pos = self.c.token_start();
        match self.c.peek() {
            Some(b'#') => {
                self.c.pos = self.c.pos.saturating_add(1);
                let name = self.c.suffix_id().unwrap_or("");
                match self.loc_aliases.get(name) {
                    Some(&(_, start)) if self.later_loc_alias(start, pos, false) => Err(self
                        .c
                        .error_at(pos, format!("undefined symbol alias id '{name}'"))),
                    Some(&(l, _)) => Ok(l),
                    None if lenient => Ok(self.m.unknown_loc()),
                    None => Err(self
                        .c
                        .error_at(pos, format!("undefined location alias '#{name}'"))),
                }
            }
            Some(b'"') => {
                // Names and file names are bytes, as MLIR's StringAttr (the reader keeps them so).
                let s = self.c.string_lit_bytes()?;
                let sym = self.m.sym_bytes(&s);
                if self.c.peek() == Some(b':')
                    && self.c.peek_at(1).is_some_and(|c| c.is_ascii_digit())
                {
                    self.c.pos = self.c.pos.saturating_add(1);
                    let line = self.c.int64("as location line")?;
                    self.c.expect(b':', "in file location")?;
                    let column = self.c.int64("as location column")?;
                    let line = u32::try_from(line)
                        .map_err(|_| self.c.error_at(pos, "line out of range"))?;
                    let column = u32::try_from(column)
                        .map_err(|_| self.c.error_at(pos, "column out of range"))?;
                    // A range (`to 3:4`, `to :9`): MLIR's FileLineColRange, values in bytecode
                    // order: start line, start column, then the end column (`to :ec`) or the end line and
                    // end column (`to el:ec`).
                    if self.c.eat_keyword("to") {
                        let num = |c: &mut Self, what: &str| -> Result<u32, ParseError> {
                            let at = c.c.pos;
                            let v = c.c.int64(what)?;
                            u32::try_from(v)
                                .map_err(|_| c.c.error_at(at, "location value out of range"))
                        };
                        let line_cols: Box<[u32]> = if self.c.eat(b':') {
                            let end_col = num(self, "as range end column")?;
                            Box::new([line, column, end_col])
                        } else {
                            let end_line = num(self, "as range end line")?;
                            self.c.expect(b':', "in location range")?;
                            let end_col = num(self, "as range end column")?;
                            Box::new([line, column, end_line, end_col])
                        };
                        return Ok(self.m.loc(LocData::FileLineColRange {
                            file: sym,
                            line_cols,
                        }));
                    }
                    return Ok(self.m.loc(LocData::FileLineCol {
                        file: sym,
                        line,
                        column,
                    }));
                }
                let child = if self.c.eat(b'(') {
                    let l = self.parse_loc_inner(lenient)?;
                    self.c.expect(b')', "to close name location")?;
                    Some(l)
                } else {
                    None
                };
                Ok(self.m.loc(LocData::Name { name: sym, child }))
            }
            _ => {
                let Some(kw) = self.c.bare_ident() else {
                    let found = self.c.describe_next();
                    return Err(self.c.error(format!("expected location, found {found}")));
                };
                match kw {
                    "unknown" => Ok(self.m.unknown_loc()),
                    "callsite" => {
                        self.c.expect(b'(', "after 'callsite'")?;
                        let callee = self.parse_loc_inner(lenient)?;
                        self.c.expect_keyword("at", "in callsite location")?;
                        let caller = self.parse_loc_inner(lenient)?;
                        self.c.expect(b')', "to close callsite location")?;
                        Ok(self.m.loc(LocData::CallSite { callee, caller }))
                    }
                    "fused" => {
                        let metadata = if self.c.eat(b'<') {
                            let a = self.parse_attribute()?;
                            self.c.expect(b'>', "after fused location metadata")?;
                            Some(a)
                        } else {
                            None
                        };
                        self.c.expect(b'[', "in fused location")?;
                        let locations =
                            self.parse_list_until(b']', "between fused locations", |p| {
                                p.parse_loc_inner(lenient)
                            })?;
                        Ok(self.m.loc(LocData::Fused {
                            metadata,
                            locations: locations.into(),
                        }))
                    }
                    _ => Err(self
                        .c
                        .error_at(pos, format!("unknown location kind '{kw}'"))),
                }
            }
        }
    }

    fn parse_generic_op(&mut self) -> PResult<OpId> {
        let name_pos = self.c.pos;
        let name = self.c.string_lit()?;
        if name.is_empty() {
            return Err(self.c.error_at(name_pos, "empty operation name"));
        }
        let sym = self.m.sym(&name);
        let facts = match self.op_name_facts.get(sym.index()) {
            Some(Some(f)) => *f,
            _ => {
                let f = OpNameFacts::of(&name);
                if self.op_name_facts.len() <= sym.index() {
                    self.op_name_facts
                        .resize(sym.index().saturating_add(1), None);
                }
                if let Some(slot) = self.op_name_facts.get_mut(sym.index()) {
                    *slot = Some(f);
                }
                f
            }
        };
        if !facts.registered_dialect {
            let dialect = name.split_once('.').map_or("", |d| d.0);
            // MLIR reports it at the token after the name.
            self.c.skip_ws();
            self.require_registered(dialect, self.c.pos, Unregistered::Op(&name))?;
        }
        self.c.expect(b'(', "to open the operand list")?;
        let uses_base = self.scratch_uses.len();
        let r = self.parse_generic_op_after_name(name, sym, facts, uses_base);
        self.scratch_uses.truncate(uses_base);
        r
    }

    /// The rest of a generic op; its operand uses go on `scratch_uses` above `uses_base`.
    fn parse_generic_op_after_name(
        &mut self,
        name: std::borrow::Cow<'a, str>,
        sym: Symbol,
        facts: OpNameFacts,
        uses_base: usize,
    ) -> PResult<OpId> {
        self.parse_each_until(b')', "between operands", |p| {
            let u = p.parse_value_use()?;
            p.scratch_uses.push(u);
            Ok(())
        })?;
        let mut successors = Vec::new();
        if self.c.eat(b'[') {
            if facts.refuses_successors {
                // MLIR's parser: only an op that may be a terminator takes successors.
                let at = self.c.pos.saturating_sub(1);
                return Err(self.c.error_at(at, "successors in non-terminator"));
            }
            self.parse_one_or_more_until(b']', "between successors", |p| {
                successors.push(p.parse_successor()?);
                Ok(())
            })?;
        }
        let mut properties = Vec::new();
        if self.c.peek() == Some(b'<') {
            let at = self.c.pos;
            self.c.pos = self.c.pos.saturating_add(1);
            properties = self.parse_attr_dict()?;
            self.c.expect(b'>', "to close the properties")?;
            self.conform_properties(&name, facts, &mut properties, at)?;
        }
        let mut regions = Vec::new();
        if self.c.peek() == Some(b'(') && self.c.peek_after_ws_at(1) == Some(b'{') {
            self.region_owner = match &name {
                std::borrow::Cow::Borrowed(n) => n,
                std::borrow::Cow::Owned(_) => "",
            };
            self.c.pos = self.c.pos.saturating_add(1);
            self.parse_one_or_more_until(b')', "between regions", |p| {
                regions.push(p.parse_region(None)?);
                Ok(())
            })?;
        }
        let mut attributes = self.opt_attr_dict()?;
        self.normalize_inherent(&name, &mut properties, &mut attributes);
        if let Some((cd, o)) = facts.defaults {
            self.add_default_properties(cd, o, &mut properties);
        }
        self.c
            .expect(b':', "before the operation's function type")?;
        let fpos = self.c.pos;
        let fty = self.parse_type()?;
        let mut inputs = std::mem::take(&mut self.scratch_types);
        inputs.clear();
        let mut st = self
            .op_state
            .take()
            .unwrap_or_else(|| OperationState::new(Symbol(0), Location(0)));
        st.operands.clear();
        st.result_types.clear();
        match self.m.type_data(fty) {
            TypeData::Function {
                inputs: ins,
                results,
            } => {
                inputs.extend_from_slice(ins);
                st.result_types.extend_from_slice(results);
            }
            _ => {
                return Err(self
                    .c
                    .error_at(fpos, "expected a function type for the generic operation"))
            }
        };
        // Taken and put back with no early return between, so the enclosing ops' uses stay.
        let scratch = std::mem::take(&mut self.scratch_uses);
        let uses = scratch.get(uses_base..).unwrap_or_default();
        let fwd = if inputs.len() != uses.len() {
            Err(self.c.error_at(
                fpos,
                format!(
                    "{} operands present, but the function type has {} inputs",
                    uses.len(),
                    inputs.len()
                ),
            ))
        } else {
            self.resolve_uses_into(uses, Some(&inputs), &mut st.operands)
        };
        self.scratch_uses = scratch;
        self.scratch_types = inputs;
        let fwd = fwd?;
        st.name = sym;
        st.location = self.m.unknown_loc();
        st.properties = properties;
        st.attributes = attributes;
        st.regions = regions;
        st.successors = successors;
        let op = self.m.create_op_from(&st);
        self.op_state = Some(st);
        self.register_forward(op, fwd);
        Ok(op)
    }

    /// The properties written for an op, as MLIR converts them: refused for an op whose ODS
    /// declares none (StableHLO's and the spec dialects' ops without attributes), and a name
    /// a StableHLO op lacks dropped for one that has some (its properties hold only its own).
    fn conform_properties(
        &mut self,
        name: &str,
        facts: OpNameFacts,
        properties: &mut Vec<NamedAttr>,
        at: usize,
    ) -> PResult<()> {
        let Some(inherent) = facts.properties.filter(|_| !properties.is_empty()) else {
            return Ok(());
        };
        if !inherent.is_empty() {
            if facts.drops_other_properties {
                properties.retain(|p| inherent.contains(&self.m.str(p.name)));
            }
            return Ok(());
        }
        let entries: Box<[_]> = properties.iter().map(|a| (a.name, a.value)).collect();
        let dict = self.m.attr(AttrData::Dictionary(entries));
        let text = super::attribute_to_string(&self.m, dict);
        Err(self.c.error_at(
            at,
            format!("invalid properties {text} for op {name}: this operation has empty properties"),
        ))
    }

    pub(crate) fn parse_successor(&mut self) -> PResult<Block> {
        let pos = self.c.token_start();
        self.c.expect(b'^', "for successor block")?;
        let name = self
            .c
            .suffix_id()
            .ok_or_else(|| self.c.error_at(pos, "expected block name"))?;
        self.block_ref(name, pos)
    }

    fn block_ref(&mut self, name: &'a str, pos: usize) -> PResult<Block> {
        if let Some(&(b, _, _)) = self.block_scopes.last().and_then(|bs| bs.blocks.get(name)) {
            return Ok(b);
        }
        self.create_forward_block(name, pos)
    }

    fn create_forward_block(&mut self, name: &'a str, pos: usize) -> PResult<Block> {
        let region = self
            .current_region
            .ok_or_else(|| self.c.error_at(pos, "block reference outside of a region"))?;
        let b = self.m.append_block(region, &[]);
        if let Some(bs) = self.block_scopes.last_mut() {
            bs.blocks.insert(name, (b, false, pos));
        }
        Ok(b)
    }

    /// A `{...}` dictionary, empty when none follows.
    pub(crate) fn opt_attr_dict(&mut self) -> PResult<Vec<NamedAttr>> {
        match self.c.peek() {
            Some(b'{') => self.parse_attr_dict(),
            _ => Ok(Vec::new()),
        }
    }

    /// A `{...}` dictionary as an attribute, empty when none follows.
    pub(crate) fn parse_opt_dict_attr(&mut self) -> PResult<Attribute> {
        let d = self.opt_attr_dict()?;
        let entries: Box<[_]> = d.into_iter().map(|a| (a.name, a.value)).collect();
        Ok(self.m.attr(AttrData::Dictionary(entries)))
    }

    /// `%name: T loc(..)`: a region entry argument, `after_name` saying where the colon was
    /// expected.
    pub(crate) fn parse_entry_arg(&mut self, after_name: &str) -> PResult<EntryArg<'a>> {
        let (n, _, p) = self.parse_value_use()?;
        self.c.expect(b':', after_name)?;
        let ty = self.parse_type()?;
        let loc = self.parse_value_loc(p)?;
        Ok((n, ty, p, loc))
    }

    /// `item, item, ... close` (or `close` at once): a list after its opening delimiter, with
    /// `between` saying where a missing comma was expected.
    pub(crate) fn parse_list_until<T>(
        &mut self,
        close: u8,
        between: &str,
        mut item: impl FnMut(&mut Self) -> PResult<T>,
    ) -> PResult<Vec<T>> {
        let mut items = Vec::new();
        self.parse_each_until(close, between, |p| {
            items.push(item(p)?);
            Ok(())
        })?;
        Ok(items)
    }

    /// Comma-separated items up to `close`, perhaps none; `item` parses one and keeps it.
    pub(crate) fn parse_each_until(
        &mut self,
        close: u8,
        between: &str,
        item: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        if self.c.eat(close) {
            return Ok(());
        }
        self.parse_one_or_more_until(close, between, item)
    }

    /// [`Self::parse_each_until`] of at least one item.
    pub(crate) fn parse_one_or_more_until(
        &mut self,
        close: u8,
        between: &str,
        mut item: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        loop {
            item(self)?;
            if self.c.eat(close) {
                return Ok(());
            }
            self.c.expect(b',', between)?;
        }
    }

    /// `{name = attr, unit_name, "quoted" = attr}` sorted by name, as MLIR keeps dictionaries.
    pub(crate) fn parse_attr_dict(&mut self) -> PResult<Vec<NamedAttr>> {
        let open = self.c.token_start();
        self.c.expect(b'{', "to open an attribute dictionary")?;
        let positions_base = self.scratch_positions.len();
        let r = self.parse_attr_dict_entries(open, positions_base);
        self.scratch_positions.truncate(positions_base);
        r
    }

    /// The entries of a dictionary whose `{` is at `open`; where each key starts goes on
    /// `scratch_positions` above `positions_base`.
    fn parse_attr_dict_entries(
        &mut self,
        open: usize,
        positions_base: usize,
    ) -> PResult<Vec<NamedAttr>> {
        let mut out: Vec<NamedAttr> = Vec::new();
        if !self.c.eat(b'}') {
            loop {
                let pos = self.c.token_start();
                let key = if self.c.peek() == Some(b'"') {
                    self.c.string_lit_bytes()?
                } else {
                    match self.c.bare_ident() {
                        Some(k) => std::borrow::Cow::Borrowed(k.as_bytes()),
                        None => {
                            let found = self.c.describe_next();
                            return Err(self
                                .c
                                .error(format!("expected attribute name, found {found}")));
                        }
                    }
                };
                let mut value_pos = pos;
                let value = if self.c.eat(b'=') {
                    value_pos = self.c.token_start();
                    self.parse_attribute()?
                } else {
                    self.m.attr(AttrData::Unit)
                };
                let name = self.m.sym_bytes(&key);
                out.push(NamedAttr { name, value });
                self.scratch_positions.push(pos);
                if let Some(p) = self.op_positions.as_mut() {
                    p.entries.push((name, value_pos, open));
                }
                if self.c.eat(b'}') {
                    break;
                }
                if !self.c.eat(b',') {
                    let found = self.c.describe_next();
                    return Err(self.c.error(format!(
                        "expected ',' or '}}' in attribute dictionary opened at {}, found {found}",
                        {
                            let e = self.c.error_at(open, "");
                            format!("{}:{}", e.line, e.column)
                        }
                    )));
                }
            }
        }
        // Usually printed sorted already: then no name repeats either.
        let m = &self.m;
        if out
            .windows(2)
            .all(|w| matches!(w, [a, b] if m.str(a.name) < m.str(b.name)))
        {
            return Ok(out);
        }
        // Sort (stably) by name, then reject a repeated name at its second occurrence.
        let positions = self
            .scratch_positions
            .get(positions_base..)
            .unwrap_or_default();
        let mut entries: Vec<(NamedAttr, usize)> =
            out.into_iter().zip(positions.iter().copied()).collect();
        // A stable sort: of two equal names, the second occurrence stays second.
        entries.sort_by(|a, b| m.str(a.0.name).cmp(m.str(b.0.name)));
        for w in entries.windows(2) {
            if let [(first, _), (second, second_pos)] = w {
                if first.name == second.name {
                    let key = m.str(second.name).to_string();
                    return Err(self.c.error_at(
                        *second_pos,
                        format!("duplicate key '{key}' in dictionary attribute"),
                    ));
                }
            }
        }
        Ok(entries.into_iter().map(|e| e.0).collect())
    }

    /// A region `{ ... }`. `entry_args` are the entry block's arguments when the op's custom
    /// syntax lists them outside the region (func.func).
    pub(crate) fn parse_region(
        &mut self,
        entry_args: Option<Vec<EntryArg<'a>>>,
    ) -> PResult<Region> {
        if self.region_depth >= MAX_REGION_DEPTH {
            return Err(self.c.error(format!(
                "regions nested deeper than {MAX_REGION_DEPTH} levels"
            )));
        }
        self.enter()?;
        self.region_depth = self.region_depth.saturating_add(1);
        let owner = self.region_owner;
        let isolated = owner == "module" || crate::text::dialects::classify(owner).isolated;
        let r = self.parse_region_inner(entry_args, isolated);
        self.region_owner = owner;
        self.leave();
        self.region_depth = self.region_depth.saturating_sub(1);
        r
    }

    fn parse_region_inner(
        &mut self,
        entry_args: Option<Vec<EntryArg<'a>>>,
        isolated: bool,
    ) -> PResult<Region> {
        self.c.expect(b'{', "to open a region")?;
        let region = self.m.create_region();
        let outer_region = self.current_region.replace(region);
        self.scopes.push(Scope {
            isolated,
            ..Scope::default()
        });
        self.block_scopes.push(BlockScope::default());
        let mut order: Vec<Block> = Vec::new();
        let mut current: Option<Block> = None;
        if entry_args.as_ref().is_some_and(|a| !a.is_empty()) && self.c.peek() == Some(b'^') {
            return Err(self
                .c
                .error("invalid block name in region with named arguments"));
        }
        // No arguments and a label: the label names the entry block (MLIR's parseBlock).
        let entry_args = entry_args.filter(|a| !a.is_empty() || self.c.peek() != Some(b'^'));
        if let Some(args) = entry_args {
            let types: Vec<Type> = args.iter().map(|a| a.1).collect();
            let b = self.m.append_block(region, &types);
            let values = self.m.block_args(b).to_vec();
            for ((name, _, pos, loc), v) in args.iter().zip(values) {
                self.define_value(name, v, 1, *pos)?;
                self.m.set_value_location(v, *loc);
            }
            order.push(b);
            current = Some(b);
        }
        loop {
            match self.c.peek() {
                Some(b'}') => {
                    self.c.pos = self.c.pos.saturating_add(1);
                    break;
                }
                None => return Err(self.c.error("unexpected end of input inside a region")),
                Some(b'^') => {
                    let pos = self.c.pos;
                    self.c.pos = self.c.pos.saturating_add(1);
                    let name = self
                        .c
                        .suffix_id()
                        .ok_or_else(|| self.c.error_at(pos, "expected block name"))?;
                    let block = match self
                        .block_scopes
                        .last()
                        .and_then(|bs| bs.blocks.get(name))
                        .copied()
                    {
                        Some((_, true, _)) => {
                            return Err(self
                                .c
                                .error_at(pos, format!("redefinition of block '^{name}'")))
                        }
                        Some((b, false, _)) => b,
                        None => self.m.append_block(region, &[]),
                    };
                    if let Some(bs) = self.block_scopes.last_mut() {
                        bs.blocks.insert(name, (block, true, pos));
                    }
                    if self.c.eat(b'(') && !self.c.eat(b')') {
                        self.parse_one_or_more_until(b')', "between block arguments", |p| {
                            let (aname, _, apos) = p.parse_value_use()?;
                            p.c.expect(b':', "after block argument name")?;
                            let t = p.parse_type()?;
                            let v = p.m.add_block_arg(block, t);
                            p.define_value(aname, v, 1, apos)?;
                            let loc = p.parse_value_loc(apos)?;
                            p.m.set_value_location(v, loc);
                            Ok(())
                        })?;
                    }
                    self.c.expect(b':', "after block label")?;
                    order.push(block);
                    current = Some(block);
                }
                Some(_) => {
                    let block = match current {
                        Some(b) => b,
                        None => {
                            let b = self.m.append_block(region, &[]);
                            order.push(b);
                            current = Some(b);
                            b
                        }
                    };
                    let op = self.parse_operation()?;
                    self.m.append_op(block, op);
                }
            }
        }
        let bs = self.block_scopes.pop().unwrap_or_default();
        let mut undefined: Vec<_> = bs
            .blocks
            .iter()
            .filter(|(_, v)| !v.1)
            .map(|(k, v)| (v.2, *k))
            .collect();
        undefined.sort();
        if let Some((pos, name)) = undefined.first() {
            return Err(self
                .c
                .error_at(*pos, format!("reference to an undefined block '^{name}'")));
        }
        self.m.reorder_blocks(region, &order);
        self.pop_scope()?;
        self.current_region = outer_region;
        Ok(region)
    }
}

/// An operand as written: name, result number, byte position.
pub(crate) type ValueUse<'a> = (&'a str, u32, usize);
/// An entry-block argument given outside its region: name, type, byte position, location.
pub(crate) type EntryArg<'a> = (&'a str, Type, usize, Location);

/// A forward reference found while resolving an op's operands.
pub(crate) struct PendingUseSlot<'a> {
    pub name: &'a str,
    pub index: u32,
    pub operand: usize,
    pub pos: usize,
}

impl Cursor<'_> {
    /// The byte `n` positions after the next token start, skipping whitespace after position
    /// `n - 1` too (for `( {`).
    pub fn peek_after_ws_at(&mut self, n: usize) -> Option<u8> {
        self.skip_ws();
        let mut i = self.pos.saturating_add(n);
        while i < self.bytes.len() && super::lexer::is_whitespace(self.byte_at(i)) {
            i = i.saturating_add(1);
        }
        self.bytes.get(i).copied()
    }
}

/// Byte offset of the start of every line of `bytes` (the first is 0).
fn line_starts(bytes: &[u8]) -> Vec<usize> {
    std::iter::once(0)
        .chain(
            bytes
                .iter()
                .enumerate()
                .filter(|&(_, &c)| c == b'\n')
                .map(|(i, _)| i.saturating_add(1)),
        )
        .collect()
}

/// 1-based line and column of byte offset `pos` of `src`, as [`Cursor::error_at`] counts them:
/// the column in bytes, as MLIR's source manager counts it, found in
/// `src`'s [`line_starts`] by binary search, so each located op costs O(log lines) (row 3).
fn line_column(src: &str, starts: &[usize], pos: usize) -> (u32, u32) {
    let pos = pos.min(src.len());
    // The last line start at or before `pos`; `starts[0] == 0` so there is always one.
    let line = starts.partition_point(|&s| s <= pos).max(1);
    let start = starts.get(line.saturating_sub(1)).copied().unwrap_or(0);
    (
        line as u32,
        (pos.saturating_sub(start) as u32).saturating_add(1),
    )
}

#[cfg(test)]
mod line_column_tests {
    use super::*;

    /// The indexed lookup gives what the error path's scan gives, at every offset (multi-byte
    /// characters included).
    #[test]
    fn line_column_matches_cursor_error_positions() {
        let src = "a\n\u{e9}b\n\n  c\u{1F600}d\ne";
        let starts = line_starts(src.as_bytes());
        let c = Cursor::new(src);
        for pos in 0..=src.len().saturating_add(2) {
            let e = c.error_at(pos, "");
            assert_eq!(
                line_column(src, &starts, pos),
                (e.line, e.column),
                "offset {pos}"
            );
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)] // tests may fail loudly
mod value_name_tests {
    use super::*;

    /// [`crate::text::parse_unverified`] that keeps ops of the made-up dialect `t`.
    fn parse_unverified(src: &str) -> Result<Module, ParseError> {
        let options = crate::text::ParseOptions {
            skip_verification: true,
            allow_unregistered_dialects: true,
            ..Default::default()
        };
        crate::text::parse_with(src, &options)
    }

    /// Numbers in a run, out of it, with leading zeros, and other names: each name is found
    /// as inserted, and a repeat of any of them is refused.
    #[test]
    fn value_names_find_and_refuse_repeats_in_and_out_of_the_run() {
        let names = [
            "3",
            "4",
            "5",
            "arg0",
            "9",
            "6",
            "7",
            "8",
            "05",
            "0",
            "1",
            "10",
            "2",
            "1234567890",
        ];
        let mut v = ValueNames::default();
        for (i, n) in names.iter().enumerate() {
            assert!(v.insert(n, (Value(i as u32), 1)), "{n}");
        }
        for (i, n) in names.iter().enumerate() {
            assert_eq!(v.get(n), Some((Value(i as u32), 1)), "{n}");
            assert!(!v.insert(n, (Value(99), 1)), "{n} inserted twice");
        }
        for n in ["11", "00", "arg1", ""] {
            assert_eq!(v.get(n), None, "{n}");
        }
        // `9` went to the map before the run reached it; the run must not take it again.
        assert!(!v.insert("9", (Value(0), 1)));
    }

    /// A redefinition is still an error at its position.
    #[test]
    fn a_redefined_number_is_an_error() {
        let src =
            "%0 = \"t.a\"() : () -> i32\n%1 = \"t.a\"() : () -> i32\n%0 = \"t.a\"() : () -> i32\n";
        let Err(e) = parse_unverified(src) else {
            panic!("a redefinition parsed")
        };
        assert!(
            e.to_string().contains("redefinition of SSA value '%0'"),
            "{e}"
        );
        assert_eq!((e.line, e.column), (3, 1));
    }

    /// A region of an op that is not isolated from above may not define a name of an
    /// enclosing region again, block arguments included; an isolated one (func.func) may.
    #[test]
    fn nested_regions_see_the_enclosing_names() {
        let parse = |s: &str| parse_unverified(s).map(|_| ());
        let nested = "%0 = \"t.a\"() : () -> i32\n\"t.r\"() ({\n^bb0(%0: i32):\n  \"t.y\"() : () -> ()\n}) : () -> ()\n";
        let e = parse(nested).expect_err("a block argument redefines %0");
        assert!(e.message.contains("redefinition of SSA value '%0'"), "{e}");
        assert_eq!(e.line, 3);
        let result = nested.replace("^bb0(%0: i32):\n  ", "  %0 = \"t.a\"() : () -> i32\n  ");
        assert!(parse(&result).is_err(), "an op result redefines %0");
        // The same name in a sibling region, or after the region, is no redefinition.
        let siblings = "\"t.r\"() ({\n  %1 = \"t.a\"() : () -> i32\n}, {\n  %1 = \"t.a\"() : () -> i32\n}) : () -> ()\n%1 = \"t.a\"() : () -> i32\n";
        assert_eq!(parse(siblings), Ok(()));
        let isolated = "func.func @f(%x: i32) {\n  \"t.r\"() ({\n  ^bb0(%y: i32):\n    \"t.y\"() : () -> ()\n  }) : () -> ()\n  return\n}\nfunc.func @g(%x: i32) {\n  return\n}\n";
        assert_eq!(parse(isolated), Ok(()));
    }

    /// The parse-level rules of MLIR's builtin syntax.
    #[test]
    fn literals_and_types_mlir_refuses() {
        let attr = |a: &str| {
            parse_unverified(&format!("\"t.a\"() {{a = {a}}} : () -> ()\n"))
                .map(|_| ())
                .map_err(|e| e.message)
        };
        assert!(attr("7 : f32")
            .unwrap_err()
            .contains("decimal integer literal"));
        assert!(attr("dense<[1, 2]> : tensor<2xf32>").is_err());
        assert_eq!(attr("7.0 : f32"), Ok(()));
        assert_eq!(attr("0x40E00000 : f32"), Ok(()));
        assert_eq!(attr("dense<[1.0, 0x7F800000]> : tensor<2xf32>"), Ok(()));
        assert!(attr("1 : i16777216").unwrap_err().contains("16777215"));
        assert_eq!(attr("1 : i16777215"), Ok(()));
        let ty = |t: &str| {
            parse_unverified(&format!("\"t.a\"() : () -> {t}\n"))
                .map(|_| ())
                .map_err(|e| e.message)
        };
        assert!(ty("tensor<?x?xf32, #stablehlo.bounds<3>>")
            .unwrap_err()
            .contains("Bounds length is 1"));
        assert!(ty("tensor<3xf32, #stablehlo.bounds<3>>")
            .unwrap_err()
            .contains("Static dimension 0"));
        assert_eq!(ty("tensor<3x?xf32, #stablehlo.bounds<?, 3>>"), Ok(()));
    }

    /// An op's `loc(#alias)` may name an alias defined further down; an alias definition or an
    /// attribute may not (MLIR: "undefined symbol alias id").
    #[test]
    fn only_op_locations_name_later_aliases() {
        let parse = |s: &str| parse_unverified(s).map(|_| ()).map_err(|e| e.message);
        let op_use = "\"t.a\"() : () -> () loc(#l1)\n#l1 = loc(\"x\":1:2)\n";
        assert_eq!(parse(op_use), Ok(()));
        let in_order = "#l0 = loc(\"x\":1:2)\n#l1 = loc(callsite(#l0 at #l0))\n\"t.a\"() : () -> () loc(#l1)\n";
        assert_eq!(parse(in_order), Ok(()));
        let def_use = "#l1 = loc(callsite(#l2 at #l2))\n#l2 = loc(\"x\":1:2)\n\"t.a\"() : () -> () loc(#l1)\n";
        assert!(parse(def_use)
            .unwrap_err()
            .contains("undefined symbol alias id 'l2'"));
        let attr_use = "\"t.a\"() {a = #l2} : () -> ()\n#l2 = loc(\"x\":1:2)\n";
        assert!(parse(attr_use)
            .unwrap_err()
            .contains("undefined symbol alias id 'l2'"));
    }

    /// A missing token is reported after the previous one when the next token starts a
    /// line (comments skipped), as MLIR's `emitWrongTokenError` does.
    #[test]
    fn missing_tokens_are_reported_on_the_line_that_lacks_them() {
        let src = "\"t.a\"() : (i32)\n  // a comment\n\n\"t.b\"() : () -> ()\n";
        let e = parse_unverified(src).expect_err("no '->'");
        assert_eq!((e.line, e.column), (1, 16), "{e}");
    }
}

/// What [`Parser::require_registered`] refuses.
#[derive(Clone, Copy)]
pub(crate) enum Unregistered<'a> {
    /// An op, by its name.
    Op(&'a str),
    /// A type, by its text.
    Type(&'a str),
    /// An attribute, by its text.
    Attribute(&'a str),
}

impl Unregistered<'_> {
    fn text(self) -> String {
        match self {
            Unregistered::Op(name) => format!("operation '{name}'"),
            Unregistered::Type(t) => format!("type `{t}`"),
            Unregistered::Attribute(a) => format!("attribute `{a}`"),
        }
    }
}
