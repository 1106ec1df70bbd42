//! The printer: a [`Module`] as MLIR text, generic form or with the custom forms of
//! builtin.module, func.* and StableHLO ops.

use crate::vhlo::{VhloAttr, VhloType};
use std::fmt::Write;
use std::hash::BuildHasher;
use std::sync::Arc;

use super::aliases::{write_alias, AliasKey, AliasTable};
use super::dialects::{self, FieldKind};
use crate::float::{format_float, format_float_into};
use crate::float::{push_decimal, push_i64};
use crate::ir::element_storage_bytes;
use crate::ir::*;

/// How to print.
#[derive(Clone, Copy, Debug, Default)]
pub struct PrintOptions {
    /// Every op in generic form (`stablehlo-opt --mlir-print-op-generic`).
    pub generic: bool,
    /// Print op locations (`--mlir-print-debuginfo`), inline.
    pub debug_info: bool,
    /// Print exactly as MLIR does, also where that loses information: leave out inherent
    /// attributes that equal their default, print a reduce whose body is one binary op in the
    /// compact `applies` form even when the body's locations differ from the op's, and print a
    /// function whose argument or result dictionaries are all empty in its custom form, which
    /// leaves them out. Off by default: the printed text then re-parses to the same IR.
    pub elide_defaults: bool,
    /// With `debug_info`: print op locations as `#loc` aliases defined before and after the
    /// module, as MLIR does by default (off: every location inline and no type or attribute
    /// aliases either, `--mlir-print-local-scope`). Without `debug_info`, type and attribute
    /// aliases (`!tuple`, `#map`, `#sparse`) are always printed, as by `stablehlo-opt`.
    pub location_aliases: bool,
    /// No aliases at all, every type, attribute and location spelled out where it is used
    /// (`--mlir-print-local-scope`, also without `debug_info`).
    pub local_scope: bool,
}

/// How a value is spelled.
#[derive(Clone, Copy, Debug)]
enum ValueName {
    Unnamed,
    /// `%N` (or `%N#i` for result `i` of a multi-result op).
    Number {
        id: u32,
        index: u32,
        multi: bool,
    },
    /// `%argN`.
    Arg(u32),
    /// A custom name (`%cst`, `%cst_0`) shared by an op's results: index into the names table.
    Named {
        name: u32,
        index: u32,
        multi: bool,
    },
    /// A custom name of this value alone (`%iterArg`, `%output_state`).
    Single(u32),
}

/// The custom value names (`cst`, `cst_0`), all in one string: no allocation per name.
#[derive(Clone, Default, Debug)]
struct CustomNames {
    text: String,
    /// Where each name ends in `text` (it starts where the one before ends).
    ends: Vec<usize>,
}

impl CustomNames {
    fn get(&self, i: u32) -> &str {
        let i = i as usize;
        let start = match i.checked_sub(1) {
            Some(j) => self.ends.get(j).copied().unwrap_or(0),
            None => 0,
        };
        let end = self.ends.get(i).copied().unwrap_or(start);
        self.text.get(start..end).unwrap_or_default()
    }
    fn push(&mut self, name: &str) -> u32 {
        self.text.push_str(name);
        self.ends.push(self.text.len());
        (self.ends.len() - 1) as u32
    }
}

/// The custom forms of ops, which the printer core does not know: [`super::print`] wires in
/// those of builtin, func, StableHLO and sdy (`super::custom_forms`). Without them every op
/// prints generically.
pub(crate) struct CustomForms {
    /// Prints an op in its custom form; false when it has none (it prints generically then).
    pub(crate) print: fn(&mut Printer<'_>, OpId) -> bool,
    /// The names MLIR's `getAsmResultNames` gives an op's results, and what they depend on.
    pub(crate) result_names: fn(&Module, OpId) -> (Option<NameHint>, HintDep),
    /// The name MLIR's `getAsmBlockArgumentNames` gives argument `i` of an op's regions.
    pub(crate) block_arg_names: fn(&Module, OpId, usize) -> Option<&'static str>,
}

/// Result names MLIR's `getAsmResultNames` gives (pretty printing only): one base name shared
/// by all results, or one name per result.
#[derive(Clone)]
pub(crate) enum NameHint {
    Shared(std::borrow::Cow<'static, str>),
    PerResult(&'static [&'static str]),
}

/// What an op's result names depend on besides its name (the same for every op of a name):
/// the numbering works each out once per name, or per name and type.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum HintDep {
    /// The number of results.
    ResultCount,
    /// The type of the first result.
    ResultType,
    /// Anything else about the op (its attributes).
    Op,
}

/// The result names found so far, by op name (and result count or first result type).
#[derive(Default)]
struct HintMemo {
    by_count: Vec<Option<(usize, Option<NameHint>)>>,
    by_type: FastMap<(Symbol, Type), Option<NameHint>>,
}

impl HintMemo {
    fn get(&mut self, m: &Module, forms: &CustomForms, op: OpId) -> Option<NameHint> {
        let name = m.op_name(op);
        let n = m.num_results(op);
        if let Some(Some((count, hint))) = self.by_count.get(name.index()) {
            if *count == n {
                return hint.clone();
            }
        }
        let first_type = m.result(op, 0).map(|v| m.value_type(v));
        if let Some(t) = first_type {
            if let Some(hint) = self.by_type.get(&(name, t)) {
                return hint.clone();
            }
        }
        let (hint, dep) = (forms.result_names)(m, op);
        match (dep, first_type) {
            (HintDep::ResultCount, _) => {
                if self.by_count.len() <= name.index() {
                    self.by_count.resize(name.index() + 1, None);
                }
                if let Some(slot) = self.by_count.get_mut(name.index()) {
                    *slot = Some((n, hint.clone()));
                }
            }
            (HintDep::ResultType, Some(t)) => {
                self.by_type.insert((name, t), hint.clone());
            }
            _ => {}
        }
        hint
    }
}

pub(crate) struct Printer<'m> {
    pub(crate) m: &'m Module,
    pub(crate) out: String,
    pub(crate) opts: PrintOptions,
    /// The custom forms; `None` in generic printing.
    forms: Option<&'static CustomForms>,
    // The numbering, shared by the two sides of a cut.
    names: Arc<Vec<ValueName>>,
    custom_names: Arc<CustomNames>,
    /// Block number within its region.
    block_ids: Arc<Vec<u32>>,
    indent: usize,
    /// Per op being printed: the default dialect it gives the ops of its regions (upstream's
    /// `OpAsmOpInterface::getDefaultDialect`: `func` in a `func.func`, so `func.return` prints
    /// as `return` there and only there), `""` for none or when it prints generically.
    default_dialects: Vec<&'static str>,
    /// Per op name (by symbol): the default dialect it gives its regions, once looked up.
    default_dialect_of: Vec<Option<&'static str>>,
    /// Type, attribute and location aliases.
    aliases: Aliases,
    /// Nesting of the op, type, attribute and location being printed. Parsing and reading
    /// refuse more than the one limit; a module built deeper through the API prints
    /// `<<nested too deep>>` there instead of overflowing the caller's stack.
    depth: usize,
    /// The attributes a pretty form prints in its trailing dictionary, reused across ops
    /// (`shlo_pretty::print_rest_attrs`, which prints no ops inside).
    pub(crate) scratch_attrs: Vec<NamedAttr>,
    /// StableHLO op kinds by op-name symbol index (matched once per name, not once per op).
    op_kinds: Vec<Option<Option<crate::vhlo::StablehloOp>>>,
    /// The spellings of types and attributes printed so far, copied on the next use.
    spellings: Spellings,
    /// The deepest `depth` reached by [`Printer::enter`] (for the spellings' heights).
    peak: usize,
    /// Times [`Printer::enter`] refused (a spelling cut short there is not kept).
    refused: u32,
    /// Where the text goes as it prints, between ops (None: it is kept whole in `out`).
    sink: Option<&'m mut dyn std::io::Write>,
    /// Bytes written to `sink`: `out` holds the text from there on, and positions
    /// ([`Printer::mark`]) count from the start of the text.
    flushed: usize,
    /// The sink's first error (nothing more is written then).
    sink_error: Option<std::io::Error>,
    /// `out` goes to the sink once it holds this many bytes.
    pub(crate) drain_at: usize,
    /// The block to print in chunks, until it is reached.
    split: Option<Split<'m>>,
    /// Set once the values are named: whether something printed may have an alias.
    aliasable: Option<bool>,
}

/// A module's value names, as [`Printer::number_values`] leaves them: shared by the printers of
/// one [`super::PrintJob`].
#[derive(Clone, Default)]
pub(crate) struct Names {
    names: Arc<Vec<ValueName>>,
    custom_names: Arc<CustomNames>,
    block_ids: Arc<Vec<u32>>,
    /// Whether something the module prints may have an alias ([`AliasScan`]).
    aliasable: bool,
}

/// What the numbering saw of a module's shape.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Shape {
    /// The block with the most ops (the first found of those) and how many.
    pub(crate) largest_block: Option<(Block, usize)>,
    /// How deep regions nest (1: the top ops' regions).
    pub(crate) region_depth: usize,
}

/// Times a helper checks for the printer's chunks before it sleeps.
const SPIN: usize = 1 << 16;

/// The printer writes what it holds to its sink once it holds this much, between ops.
pub(crate) const DRAIN_AT: usize = 128 << 10;

/// The block whose ops print in chunks, which helper threads may take ([`Printer::help`]).
#[derive(Clone, Copy)]
pub(crate) struct Split<'h> {
    pub(crate) block: Block,
    /// Ops per chunk.
    pub(crate) chunk: usize,
    pub(crate) handoff: &'h Handoff,
}

/// Where the printer stands when it reaches the split block, taken from the printer itself:
/// each chunk prints from this state.
struct ChunkStart {
    block: Block,
    /// The ops of each chunk.
    ranges: Vec<(usize, usize)>,
    indent: usize,
    depth: usize,
    default_dialects: Vec<&'static str>,
    aliases: Arc<AliasTable>,
}

/// The split block's chunks, between the printer and its helpers.
#[derive(Default)]
pub(crate) struct Handoff {
    state: std::sync::Mutex<HandoffState>,
    changed: std::sync::Condvar,
    /// Set with `start` or `over`: what a spinning helper reads, without the lock.
    moved: std::sync::atomic::AtomicBool,
}

#[derive(Default)]
struct HandoffState {
    /// Set when the printer reaches the split block.
    start: Option<Arc<ChunkStart>>,
    /// Chunks taken so far, by any thread.
    taken: usize,
    /// Chunks printed and not yet written, by index.
    printed: std::collections::BTreeMap<usize, String>,
    /// Chunks a helper took and did not hand back (it panicked): the printer prints them.
    dropped: Vec<usize>,
    /// The printing is over, or its sink failed: helpers stop.
    over: bool,
    /// Buffers of written chunks, for the next ones (their memory is paged in already).
    free: Vec<String>,
}

/// What the printer does next in the split block.
enum Step {
    /// Write chunk text (the next in order).
    Write(String),
    /// Print chunk `.0` into the buffer `.1`.
    Print(usize, String),
    /// Every chunk is written (or the printing is over).
    Done,
}

impl Handoff {
    fn lock(&self) -> std::sync::MutexGuard<'_, HandoffState> {
        // A helper that panicked holding the lock left the state whole (each change is one
        // statement): go on with it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(
        &self,
        s: std::sync::MutexGuard<'a, HandoffState>,
    ) -> std::sync::MutexGuard<'a, HandoffState> {
        self.changed.wait(s).unwrap_or_else(|e| e.into_inner())
    }

    /// The printing is over: helpers stop (and those yet to start return at once).
    pub(crate) fn end(&self) {
        self.lock().over = true;
        self.moved.store(true, std::sync::atomic::Ordering::Release);
        self.changed.notify_all();
    }

    fn publish(&self, start: Arc<ChunkStart>) {
        self.lock().start = Some(start);
        self.moved.store(true, std::sync::atomic::Ordering::Release);
        self.changed.notify_all();
    }

    /// A helper's next chunk and a buffer for it; None when none is left or the printing is
    /// over.
    fn take(&self) -> Option<(usize, String)> {
        let mut s = self.lock();
        let n = s.start.as_ref().map_or(0, |st| st.ranges.len());
        if s.over || s.taken >= n {
            return None;
        }
        let k = s.taken;
        s.taken += 1;
        Some((k, s.free.pop().unwrap_or_default()))
    }

    /// Chunk `k`'s text, printed.
    fn finish(&self, k: usize, text: String) {
        self.lock().printed.insert(k, text);
        self.changed.notify_all();
    }

    /// The printer's next step, once `written` chunks are written: write the next one if it is
    /// printed, else print one nobody took, else wait for a helper's.
    fn step(&self, written: usize) -> Step {
        let mut s = self.lock();
        loop {
            let n = s.start.as_ref().map_or(0, |st| st.ranges.len());
            if s.over || written >= n {
                return Step::Done;
            }
            if let Some(text) = s.printed.remove(&written) {
                return Step::Write(text);
            }
            let buffer = s.free.pop().unwrap_or_default();
            if let Some(k) = s.dropped.pop() {
                return Step::Print(k, buffer);
            }
            if s.taken < n {
                s.taken += 1;
                return Step::Print(s.taken - 1, buffer);
            }
            s.free.push(buffer);
            s = self.wait(s);
        }
    }

    fn recycle(&self, mut text: String) {
        text.clear();
        self.lock().free.push(text);
    }
}

/// A chunk a helper holds: handed back to the printer if the helper unwinds.
struct Holding<'h> {
    handoff: &'h Handoff,
    chunk: Option<usize>,
}

impl Drop for Holding<'_> {
    fn drop(&mut self) {
        if let Some(k) = self.chunk.take() {
            self.handoff.lock().dropped.push(k);
            self.handoff.changed.notify_all();
        }
    }
}

/// A kept spelling: `text[start..end]`, which printed `height` levels deep.
#[derive(Clone, Copy, Default)]
struct Spelled {
    start: u32,
    end: u32,
    height: u32,
}

/// The text of interned types and attributes as printed, by id: a module's tensor types and
/// constants repeat, and copying their text is cheaper than spelling it again. The
/// text depends on nothing but the value, the options and the alias table, except where the
/// nesting guard cut it short: such text is not kept, and a kept one is not used where the
/// guard would cut it.
#[derive(Default)]
struct Spellings {
    text: String,
    /// By [`AliasKey::slot`] (types, attributes), then by id: 0 when never printed,
    /// [`Self::SEEN`] when printed once, else 1 + the index of its entry in `kept`. Four bytes
    /// an id: a module may intern hundreds of thousands of attributes.
    by_id: [Vec<u32>; 2],
    kept: Vec<Spelled>,
}

impl Spellings {
    /// Longer spellings are not kept (a large constant is rarely printed twice).
    const MAX_LEN: usize = 4096;
    /// Printed once, not kept.
    const SEEN: u32 = u32::MAX;

    fn get(&self, key: AliasKey) -> Option<Spelled> {
        let (k, i) = key.slot();
        let n = *self.by_id.get(k)?.get(i)?;
        if n == 0 || n == Self::SEEN {
            return None;
        }
        self.kept.get(n as usize - 1).copied()
    }

    fn keep(&mut self, m: &Module, key: AliasKey, spelled: &str, height: usize) {
        let (k, i) = key.slot();
        let start = self.text.len();
        let (Some(ids), Ok(start), Ok(end), Ok(height), Ok(next)) = (
            self.by_id.get_mut(k),
            u32::try_from(start),
            u32::try_from(start + spelled.len()),
            u32::try_from(height),
            u32::try_from(self.kept.len() + 1),
        ) else {
            return;
        };
        if ids.len() <= i {
            let (types, attrs, _) = m.num_interned();
            ids.resize(if k == 0 { types } else { attrs }.max(i + 1), 0);
        }
        if let Some(slot) = ids.get_mut(i) {
            // Kept from its second printing on: what prints once (most of a generated
            // program's constants) is not copied, so memory stays in proportion to repeats.
            if *slot != Self::SEEN {
                *slot = Self::SEEN;
                return;
            }
            if next == Self::SEEN {
                return;
            }
            self.text.push_str(spelled);
            self.kept.push(Spelled { start, end, height });
            *slot = next;
        }
    }

    fn clear(&mut self) {
        self.text.clear();
        self.kept.clear();
        for ids in &mut self.by_id {
            ids.clear();
        }
    }
}

/// Whether a type or attribute is worth keeping the spelling of: not a keyword, and not one
/// whose printing sets alias state (locations, opaque attributes).
fn keeps_spelling(m: &Module, key: AliasKey) -> bool {
    match key {
        AliasKey::Type(t) => !matches!(
            m.type_data(t),
            TypeData::Integer { .. } | TypeData::Index | TypeData::Float(_) | TypeData::None
        ),
        AliasKey::Attr(a) => !matches!(
            m.attr_data(a),
            AttrData::Unit
                | AttrData::Bool(_)
                | AttrData::Type(_)
                | AttrData::Location(_)
                | AttrData::Opaque { .. }
        ),
        AliasKey::Loc(_) => false,
    }
}

/// Whether something the module prints may have an alias (a tuple of more than 16 types, a
/// location used as an attribute, an affine map, a sparse encoding): only then can a print
/// without locations need the alias pass. A superset is fine (the pass then finds nothing).
/// The interned values are looked at once each; a bytecode reader interns every op location
/// as an attribute too, so for those only an op's own attributes are looked at, op by op.
struct AliasScan {
    found: bool,
    /// The attributes that are locations, one bit each (a small table, where the attributes
    /// themselves are spread over memory); empty when there are none.
    locations: Vec<u64>,
}

impl AliasScan {
    fn new(m: &Module) -> Self {
        let (types, attrs, _) = m.num_interned();
        let mut scan = AliasScan {
            found: false,
            locations: Vec::new(),
        };
        let mut inner = Vec::new();
        let mut holds_location = |key: AliasKey| {
            inner.clear();
            crate::ir::children(m, key, &mut inner);
            inner.iter().any(|n| {
                matches!(n, AliasKey::Attr(a) if matches!(m.attr_data(*a), AttrData::Location(_)))
            })
        };
        for t in 0..types as u32 {
            let found = match m.type_data(Type(t)) {
                TypeData::Tuple(_) => {
                    super::aliases::alias_name(m, AliasKey::Type(Type(t))).is_some()
                }
                // Only these hold attributes.
                TypeData::RankedTensor {
                    encoding: Some(_), ..
                }
                | TypeData::Dialect(_) => holds_location(AliasKey::Type(Type(t))),
                _ => false,
            };
            if found {
                scan.found = true;
                return scan;
            }
        }
        for a in 0..attrs as u32 {
            let found = match m.attr_data(Attribute(a)) {
                AttrData::Location(_) => {
                    if scan.locations.is_empty() {
                        scan.locations = vec![0; attrs.div_ceil(64)];
                    }
                    if let Some(w) = scan.locations.get_mut(a as usize / 64) {
                        *w |= 1 << (a % 64);
                    }
                    false
                }
                AttrData::Opaque { .. } => {
                    super::aliases::alias_name(m, AliasKey::Attr(Attribute(a))).is_some()
                }
                AttrData::Array(_) | AttrData::Dictionary(_) | AttrData::Dialect(_) => {
                    holds_location(AliasKey::Attr(Attribute(a)))
                }
                _ => false,
            };
            if found {
                scan.found = true;
                return scan;
            }
        }
        scan
    }

    /// An op's attributes: a location among them prints as an alias.
    #[inline]
    fn visit_op(&mut self, m: &Module, op: OpId) {
        if !self.locations.is_empty() && !self.found {
            let is_location = |a: Attribute| {
                let i = a.index();
                self.locations
                    .get(i / 64)
                    .is_some_and(|w| w & (1 << (i % 64)) != 0)
            };
            self.found =
                (m.properties(op).iter().chain(m.attributes(op))).any(|a| is_location(a.value));
        }
    }
}

/// Alias state: the first (visiting) pass, then the assigned aliases.
#[derive(Default)]
struct Aliases {
    /// True during the first pass, which visits what would be printed and writes nothing
    /// that is kept.
    collecting: bool,
    /// Shared with the helpers that print chunks, once assigned.
    table: Arc<AliasTable>,
}

/// A resource key as MLIR prints it (`printKeywordOrString`): bare when it is an identifier,
/// else quoted.
pub(crate) fn push_key(out: &mut String, m: &Module, key: Symbol) {
    match m.utf8(key) {
        Some(k) if is_bare_ident(k) => out.push_str(k),
        _ => write_escaped(out, m.bytes(key)),
    }
}

fn is_bare_ident(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'))
}

/// `"text"` with LLVM's escaping: `\\`, and `\XX` for `"` and non-printable bytes.
pub(crate) fn write_escaped(out: &mut String, s: impl AsRef<[u8]>) {
    let bytes = s.as_ref();
    out.push('"');
    // Runs of printable bytes go out whole (they are ASCII, so always a `str`).
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            continue;
        }
        let plain = bytes.get(run..i).unwrap_or_default();
        out.push_str(std::str::from_utf8(plain).unwrap_or_default());
        run = i + 1;
        if b == b'\\' {
            out.push_str("\\\\");
        } else {
            let _ = write!(out, "\\{:02X}", b);
        }
    }
    let plain = bytes.get(run..).unwrap_or_default();
    out.push_str(std::str::from_utf8(plain).unwrap_or_default());
    out.push('"');
}

/// C's `%e` (`3.400000e+01`) when its seven digits give back `v`'s bits, otherwise the shortest
/// digits that do: a quantization scale such as 1/255 prints so that it parses back exactly.
fn exact_e(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v < 0.0 {
            "-inf".into()
        } else {
            "inf".into()
        };
    }
    let s = c_exponent(format!("{v:.6e}"));
    if s.parse::<f64>().is_ok_and(|x| x.to_bits() == v.to_bits()) {
        return s;
    }
    c_exponent(format!("{v:e}"))
}

/// Rust's `1e3` as C writes it: `1.0e+03` (MLIR's float literals need the point).
fn c_exponent(r: String) -> String {
    match r.split_once('e') {
        Some((m, e)) => {
            let e: i32 = e.parse().unwrap_or(0);
            let dot = if m.contains('.') { "" } else { ".0" };
            format!(
                "{m}{dot}e{}{:02}",
                if e < 0 { '-' } else { '+' },
                e.unsigned_abs()
            )
        }
        None => r,
    }
}

pub(super) fn float_kind_of_width(width: u32) -> FloatKind {
    match width {
        16 => FloatKind::F16,
        32 => FloatKind::F32,
        _ => FloatKind::F64,
    }
}

/// A type as text.
pub fn type_to_string(m: &Module, t: Type) -> String {
    let mut p = Printer::new(m, PrintOptions::default());
    p.print_type(t);
    p.out
}

/// A location as MLIR prints it inside `loc(...)` (diagnostics use this too).
pub fn location_to_string(m: &Module, l: Location) -> String {
    let mut p = Printer::new(m, PrintOptions::default());
    p.print_loc(l);
    p.out
}

/// An attribute as text.
pub fn attribute_to_string(m: &Module, a: Attribute) -> String {
    let mut p = Printer::new(m, PrintOptions::default());
    p.print_attr(a);
    p.out
}

impl<'m> Printer<'m> {
    pub(crate) fn new(m: &'m Module, opts: PrintOptions) -> Self {
        Printer {
            m,
            out: String::new(),
            opts,
            forms: None,
            names: Arc::default(),
            custom_names: Arc::default(),
            block_ids: Arc::default(),
            indent: 0,
            default_dialects: Vec::new(),
            default_dialect_of: Vec::new(),
            aliases: Aliases::default(),
            depth: 0,
            scratch_attrs: Vec::new(),
            op_kinds: Vec::new(),
            spellings: Spellings::default(),
            peak: 0,
            refused: 0,
            sink: None,
            flushed: 0,
            sink_error: None,
            drain_at: DRAIN_AT,
            split: None,
            aliasable: None,
        }
    }

    /// Prints ops in the custom forms of `forms` (unless [`PrintOptions::generic`]).
    pub(crate) fn with_forms(mut self, forms: &'static CustomForms) -> Self {
        self.forms = Some(forms);
        self
    }

    /// Numbers the values of the module ([`Printer::number_values`]): their names, and what
    /// the numbering saw of the module's shape.
    pub(crate) fn numbering(mut self) -> (Names, Shape) {
        let shape = self.number_values(self.m.top_ops());
        let names = Names {
            names: self.names,
            custom_names: self.custom_names,
            block_ids: self.block_ids,
            aliasable: self.aliasable.unwrap_or(true),
        };
        (names, shape)
    }

    /// Prints with these names (numbered for this module and options) rather than numbering.
    pub(crate) fn with_names(mut self, names: &Names) -> Self {
        self.names = Arc::clone(&names.names);
        self.custom_names = Arc::clone(&names.custom_names);
        self.block_ids = Arc::clone(&names.block_ids);
        self.aliasable = Some(names.aliasable);
        self
    }

    /// Writes the text to `sink` as it prints, `split`'s block in chunks that helpers may take.
    pub(crate) fn with_sink(
        mut self,
        sink: &'m mut dyn std::io::Write,
        split: Option<Split<'m>>,
    ) -> Self {
        self.sink = Some(sink);
        self.split = split;
        self
    }

    /// The position in the whole text where the next byte goes (text written out included).
    pub(crate) fn mark(&self) -> usize {
        self.flushed + self.out.len()
    }

    /// Drops the text from `mark` on (a custom form that gave up). Custom forms decide before
    /// they print a region, and text is written out only between a region's ops, so what is
    /// dropped is never written yet; if it were, the printing fails rather than write it twice.
    pub(crate) fn truncate_to(&mut self, mark: usize) {
        match mark.checked_sub(self.flushed) {
            Some(at) => self.out.truncate(at),
            None => {
                debug_assert!(false, "a custom form gave up after its region was written");
                self.sink_error.get_or_insert_with(|| {
                    std::io::Error::other("a custom form gave up after its region was written")
                });
                self.out.clear();
            }
        }
    }

    /// Writes the text held so far to the sink, keeping the buffer (and its pages) for the
    /// next. Nothing is written while aliases are collected, or after the sink failed.
    pub(crate) fn flush(&mut self) {
        if self.aliases.collecting {
            return;
        }
        self.write_out_text(None);
    }

    /// Writes `text` (None: `out`) to the sink, where there is one.
    fn write_out_text(&mut self, text: Option<&str>) {
        let Some(sink) = self.sink.as_mut() else {
            if let Some(t) = text {
                self.out.push_str(t);
            }
            return;
        };
        let bytes = text.unwrap_or(&self.out);
        if self.sink_error.is_none() {
            if let Err(e) = sink.write_all(bytes.as_bytes()) {
                self.sink_error = Some(e);
                if let Some(split) = self.split {
                    split.handoff.end();
                }
            }
        }
        self.flushed += bytes.len();
        if text.is_none() {
            self.out.clear();
        }
    }

    /// The sink's first error, if any, once the printing is done.
    pub(crate) fn sink_result(&mut self) -> std::io::Result<()> {
        self.sink_error.take().map_or(Ok(()), Err)
    }

    /// Prints chunks of the split block that the printer hands out, from the state it had
    /// there, until none is left or the printing is over. Returns at once when it is over.
    pub(crate) fn help(mut self, handoff: &Handoff) {
        // A short spin first: a thread that sleeps is often woken on the printer's own core.
        for _ in 0..SPIN {
            if handoff.moved.load(std::sync::atomic::Ordering::Acquire) {
                break;
            }
            std::hint::spin_loop();
        }
        let start = {
            let mut s = handoff.lock();
            loop {
                if s.over {
                    return;
                }
                if let Some(st) = &s.start {
                    break Arc::clone(st);
                }
                s = handoff.wait(s);
            }
        };
        self.indent = start.indent;
        self.depth = start.depth;
        self.default_dialects.clone_from(&start.default_dialects);
        self.aliases.table = Arc::clone(&start.aliases);
        let mut holding = Holding {
            handoff,
            chunk: None,
        };
        while let Some((k, buffer)) = handoff.take() {
            holding.chunk = Some(k);
            let text = self.print_chunk(&start, k, buffer);
            holding.chunk = None;
            handoff.finish(k, text);
        }
    }

    /// Chunk `k` of the split block, printed into `buffer` from the state of `start` (which
    /// this printer is in).
    fn print_chunk(&mut self, start: &ChunkStart, k: usize, buffer: String) -> String {
        let ops = self.m.block_ops(start.block);
        let (at, end) = start.ranges.get(k).copied().unwrap_or_default();
        let saved = std::mem::replace(&mut self.out, buffer);
        // The chunk's text is written in its turn, whole: none of it goes out before.
        let sink = self.sink.take();
        // Most ops print in less than 96 bytes: a new buffer is not grown op by op.
        self.out.reserve(end.saturating_sub(at).saturating_mul(96));
        for &op in ops.get(at..end).unwrap_or_default() {
            self.newline();
            self.print_op(op);
        }
        self.sink = sink;
        std::mem::replace(&mut self.out, saved)
    }

    /// The split block's ops, in chunks: this printer and any helpers print them, and this
    /// one writes each in order as soon as it and those before it are printed.
    /// `elided`: the block's terminator, left out when it ends the block (as
    /// [`Self::print_region_terminated`] leaves it out of any block).
    fn print_split(&mut self, split: Split<'m>, elided: Option<&str>) {
        let ops = self.m.block_ops(split.block);
        let n = match (elided, ops.last()) {
            (Some(name), Some(&last)) if self.m.op_name_str(last) == name => {
                ops.len().saturating_sub(1)
            }
            _ => ops.len(),
        };
        let chunk = split.chunk.max(1);
        let ranges = (0..n)
            .step_by(chunk)
            .map(|s| (s, (s + chunk).min(n)))
            .collect();
        let start = Arc::new(ChunkStart {
            block: split.block,
            ranges,
            indent: self.indent,
            depth: self.depth,
            default_dialects: self.default_dialects.clone(),
            aliases: Arc::clone(&self.aliases.table),
        });
        self.flush();
        split.handoff.publish(Arc::clone(&start));
        let mut written = 0;
        loop {
            match split.handoff.step(written) {
                Step::Write(text) => {
                    self.write_out_text(Some(&text));
                    written += 1;
                    split.handoff.recycle(text);
                }
                Step::Print(k, buffer) => {
                    let text = self.print_chunk(&start, k, buffer);
                    split.handoff.finish(k, text);
                }
                Step::Done => break,
            }
        }
    }

    /// The StableHLO op kind of `op`'s name, looked up once per name.
    pub(crate) fn stablehlo_kind(&mut self, op: OpId) -> Option<crate::vhlo::StablehloOp> {
        let sym = self.m.op_name(op);
        if let Some(&Some(k)) = self.op_kinds.get(sym.index()) {
            return k;
        }
        let k = crate::vhlo::StablehloOp::from_name(self.m.str(sym));
        if self.op_kinds.len() <= sym.index() {
            self.op_kinds.resize(sym.index() + 1, None);
        }
        self.op_kinds[sym.index()] = Some(k);
        k
    }

    /// Enters one nesting level; past the guard, writes a marker and returns false.
    fn enter(&mut self) -> bool {
        if self.depth >= crate::ir::NESTING_GUARD {
            self.out.push_str("<<nested too deep>>");
            self.refused = self.refused.wrapping_add(1);
            return false;
        }
        self.depth += 1;
        self.peak = self.peak.max(self.depth);
        true
    }

    /// Records a location for aliasing (first pass only).
    fn visit_loc(&mut self, l: Location, can_defer: bool) {
        Arc::make_mut(&mut self.aliases.table).visit(self.m, AliasKey::Loc(l), can_defer);
    }

    fn write_alias_name(&mut self, n: u32) {
        write_alias(&mut self.out, false, "loc", n);
    }

    /// `name = value` lines for the aliases that are (not) deferred, in MLIR's order.
    fn print_alias_definitions(&mut self, deferred: bool) {
        let defs: Vec<(AliasKey, &'static str, u32)> =
            self.aliases.table.definitions(deferred).collect();
        for (key, name, suffix) in defs {
            write_alias(
                &mut self.out,
                matches!(key, AliasKey::Type(_)),
                name,
                suffix,
            );
            self.out.push_str(" = ");
            match key {
                AliasKey::Type(t) => self.print_type_spelled(t),
                AliasKey::Attr(a) => self.print_attr_spelled(a),
                AliasKey::Loc(l) => self.print_loc_inline(l),
            }
            self.out.push('\n');
        }
    }

    // ---- naming ------------------------------------------------------------------------------

    /// MLIR's SSA numbering: a region is numbered from the counters its parent region reached,
    /// block arguments of entry blocks are `%argN`, other values `%N` (one number per op).
    /// Custom names (`%cst`, `%iterArg`) are made unique within their scope with a shared
    /// `_N` conflict counter.
    ///
    /// Returns what it saw of the module's shape.
    fn number_values(&mut self, top: &[OpId]) -> Shape {
        let mut shape = Shape::default();
        enum Walk {
            Enter {
                region: Region,
                depth: usize,
                next_value: u32,
                next_arg: u32,
                conflict: u32,
            },
            Exit {
                mark: usize,
            },
        }
        // Sized once: growing them value by value copied them about log2(n) times. Filled
        // outside their `Arc`s (no reference count check per value).
        let mut names = std::mem::take(Arc::make_mut(&mut self.names));
        names.clear();
        names.resize(self.m.num_values(), ValueName::Unnamed);
        let mut block_ids = std::mem::take(Arc::make_mut(&mut self.block_ids));
        block_ids.clear();
        block_ids.resize(self.m.num_blocks(), 0);
        let mut set_name = |v: Value, n: ValueName| {
            if let Some(slot) = names.get_mut(v.index()) {
                *slot = n;
            }
        };
        // The custom names in scope, as indices into `custom` hashed by their text (no second
        // copy of each name); each name's hash is kept, so the table grows and frees entries
        // without hashing again.
        let hasher = crate::ir::FastHasher::default();
        let mut used: hashbrown::HashTable<u32> = hashbrown::HashTable::new();
        let mut custom = CustomNames::default();
        let mut hashes: Vec<u64> = Vec::new();
        // The candidate `base_N`, reused.
        let mut candidate = String::new();
        // Custom names (indices) in the order they were taken, to free them per scope.
        let mut log: Vec<u32> = Vec::new();
        let mut stack: Vec<Walk> = Vec::new();
        // Generic form implies MLIR's unique SSA ids: counters run on across regions (never
        // restored), and pending regions are numbered last-pushed first.
        let unique_ids = self.opts.generic;
        let mut global = (0u32, 0u32, 0u32);
        for &op in top.iter().rev() {
            let regions = self.m.regions(op);
            let ordered: Vec<Region> = if unique_ids {
                regions.to_vec()
            } else {
                regions.iter().rev().copied().collect()
            };
            for r in ordered {
                stack.push(Walk::Enter {
                    region: r,
                    depth: 1,
                    next_value: 0,
                    next_arg: 0,
                    conflict: 0,
                });
            }
        }
        let mut nested = Vec::new();
        let mut hints = HintMemo::default();
        let mut scan = AliasScan::new(self.m);
        for &op in top {
            scan.visit_op(self.m, op);
        }
        while let Some(step) = stack.pop() {
            let (region, depth, mut next_value, mut next_arg, mut conflict) = match step {
                Walk::Exit { mark } => {
                    for i in log.drain(mark..) {
                        if let Some(&h) = hashes.get(i as usize) {
                            if let Ok(e) = used.find_entry(h, |&j| j == i) {
                                e.remove();
                            }
                        }
                    }
                    continue;
                }
                Walk::Enter {
                    region,
                    depth,
                    next_value,
                    next_arg,
                    conflict,
                } => {
                    if unique_ids {
                        (region, depth, global.0, global.1, global.2)
                    } else {
                        (region, depth, next_value, next_arg, conflict)
                    }
                }
            };
            shape.region_depth = shape.region_depth.max(depth);
            let mark = log.len();
            // A new custom name: `base`, else `base_N` with the next free N. Its index.
            let mut unique = |base: &str, conflict: &mut u32| -> u32 {
                let taken = |s: &str, h: u64| used.find(h, |&j| custom.get(j) == s).is_some();
                let mut h = hasher.hash_one(base);
                let idx = if !taken(base, h) {
                    custom.push(base)
                } else {
                    loop {
                        candidate.clear();
                        candidate.push_str(base);
                        candidate.push('_');
                        push_decimal(&mut candidate, *conflict);
                        *conflict += 1;
                        h = hasher.hash_one(candidate.as_str());
                        if !taken(&candidate, h) {
                            break custom.push(&candidate);
                        }
                    }
                };
                hashes.push(h);
                used.insert_unique(h, idx, |&j| hashes.get(j as usize).copied().unwrap_or(0));
                log.push(idx);
                idx
            };
            let hint_of = match (self.opts.generic, self.forms) {
                (false, Some(f)) => self
                    .m
                    .region_parent(region)
                    .map(|op| (op, f.block_arg_names)),
                _ => None,
            };
            for (bi, &b) in self.m.blocks(region).iter().enumerate() {
                let n = self.m.block_ops(b).len();
                if shape.largest_block.is_none_or(|(_, most)| n > most) {
                    shape.largest_block = Some((b, n));
                }
                if let Some(slot) = block_ids.get_mut(b.index()) {
                    *slot = bi as u32;
                }
                for (ai, &a) in self.m.block_args(b).iter().enumerate() {
                    if bi == 0 {
                        if let Some(h) = hint_of.and_then(|(op, f)| f(self.m, op, ai)) {
                            let idx = unique(h, &mut conflict);
                            set_name(a, ValueName::Single(idx));
                        } else {
                            set_name(a, ValueName::Arg(next_arg));
                            next_arg += 1;
                        }
                    } else {
                        set_name(
                            a,
                            ValueName::Number {
                                id: next_value,
                                index: 0,
                                multi: false,
                            },
                        );
                        next_value += 1;
                    }
                }
                for &op in self.m.block_ops(b) {
                    scan.visit_op(self.m, op);
                    let n = self.m.num_results(op);
                    if n == 0 {
                        continue;
                    }
                    let multi = n > 1;
                    match self.result_name_hint(op, &mut hints) {
                        Some(NameHint::Shared(base)) => {
                            let idx = unique(&base, &mut conflict);
                            for (i, v) in self.m.results(op).enumerate() {
                                set_name(
                                    v,
                                    ValueName::Named {
                                        name: idx,
                                        index: i as u32,
                                        multi,
                                    },
                                );
                            }
                        }
                        Some(NameHint::PerResult(bases)) => {
                            for (i, v) in self.m.results(op).enumerate() {
                                let base = bases.get(i).copied().unwrap_or("result");
                                let idx = unique(base, &mut conflict);
                                set_name(v, ValueName::Single(idx));
                            }
                        }
                        None => {
                            for (i, v) in self.m.results(op).enumerate() {
                                set_name(
                                    v,
                                    ValueName::Number {
                                        id: next_value,
                                        index: i as u32,
                                        multi,
                                    },
                                );
                            }
                            next_value += 1;
                        }
                    }
                }
            }
            stack.push(Walk::Exit { mark });
            for &b in self.m.blocks(region) {
                for &op in self.m.block_ops(b) {
                    for &r in self.m.regions(op) {
                        nested.push(Walk::Enter {
                            region: r,
                            depth: depth + 1,
                            next_value,
                            next_arg,
                            conflict,
                        });
                    }
                }
            }
            if unique_ids {
                global = (next_value, next_arg, conflict);
                stack.append(&mut nested);
            } else {
                stack.extend(nested.drain(..).rev());
            }
        }
        self.names = Arc::new(names);
        self.block_ids = Arc::new(block_ids);
        self.custom_names = Arc::new(custom);
        self.aliasable = Some(scan.found);
        shape
    }

    /// The names MLIR's `getAsmResultNames` gives an op's results in pretty mode.
    fn result_name_hint(&self, op: OpId, memo: &mut HintMemo) -> Option<NameHint> {
        match self.forms {
            Some(f) if !self.opts.generic => memo.get(self.m, f, op),
            _ => None,
        }
    }

    pub(crate) fn value_name(&self, v: Value) -> String {
        self.value_name_parts(v, true)
    }

    /// `%name` (with `#i` when `with_index` and the op has several results).
    fn value_name_parts(&self, v: Value, with_index: bool) -> String {
        let mut out = String::new();
        self.write_value_name_to(&mut out, v, with_index);
        out
    }

    /// [`Self::value_name_parts`] appended to the output, without an intermediate string.
    pub(crate) fn write_value_name(&mut self, v: Value, with_index: bool) {
        let mut out = std::mem::take(&mut self.out);
        self.write_value_name_to(&mut out, v, with_index);
        self.out = out;
    }

    fn write_value_name_to(&self, out: &mut String, v: Value, with_index: bool) {
        let name = self
            .names
            .get(v.index())
            .copied()
            .unwrap_or(ValueName::Unnamed);
        out.push('%');
        let (index, multi) = match name {
            ValueName::Unnamed => {
                out.push_str("<<UNKNOWN SSA VALUE ");
                push_decimal(out, v.0);
                out.push_str(">>");
                return;
            }
            ValueName::Arg(n) => {
                out.push_str("arg");
                push_decimal(out, n);
                return;
            }
            ValueName::Single(name) => {
                out.push_str(self.custom_names.get(name));
                return;
            }
            ValueName::Number { id, index, multi } => {
                push_decimal(out, id);
                (index, multi)
            }
            ValueName::Named { name, index, multi } => {
                out.push_str(self.custom_names.get(name));
                (index, multi)
            }
        };
        if multi && with_index {
            out.push('#');
            push_decimal(out, index);
        }
    }

    // ---- module and ops ----------------------------------------------------------------------

    /// Prints the whole module, numbering its values first unless they were given
    /// ([`Printer::with_names`]).
    pub(crate) fn print_module(&mut self) {
        let top = self.m.top_ops();
        if self.aliasable.is_none() {
            self.number_values(top);
        }
        if self.sink.is_none() {
            // Most ops print in more than 64 bytes: grow the output a few times less.
            self.out.reserve(self.m.num_ops().saturating_mul(64));
        } else {
            self.out.reserve(self.drain_at.saturating_mul(2));
        }
        // MLIR prints aliases unless told `--mlir-print-local-scope`, which debug info without
        // location aliases also stands for here.
        let aliases_on =
            !self.opts.local_scope && (!self.opts.debug_info || self.opts.location_aliases);
        // The alias pass runs first when something may get an alias: always for locations,
        // else when the numbering met a type or attribute that has one (most modules have
        // none, and so pay nothing for it). What is met and not printed gets no alias.
        if aliases_on && (self.opts.debug_info || self.aliasable.unwrap_or(true)) {
            self.collect_aliases(top);
        }
        self.print_alias_definitions(false);
        for &op in top {
            self.print_op(op);
            self.out.push('\n');
        }
        self.print_alias_definitions(true);
    }

    /// First pass: visits every type, attribute and location in print order, as MLIR's alias
    /// initializer does, and assigns the aliases. Leaves the output as it was.
    fn collect_aliases(&mut self, top: &[OpId]) {
        // Spellings kept so far may lack the aliases about to be assigned.
        self.spellings.clear();
        let mark = self.out.len();
        self.aliases.collecting = true;
        for &op in top {
            self.print_op(op);
        }
        self.aliases.collecting = false;
        self.out.truncate(mark);
        Arc::make_mut(&mut self.aliases.table).assign();
    }

    /// The first pass over an op printed in generic form, in the order MLIR's alias
    /// initializer visits it: regions, operand and result types, then properties and
    /// attributes together by name.
    fn visit_generic_op(&mut self, op: OpId) {
        let m = self.m;
        for &r in m.regions(op) {
            for &b in m.blocks(r) {
                for &v in m.block_args(b) {
                    self.print_type(m.value_type(v));
                    if self.opts.debug_info {
                        self.visit_loc(m.value_location(v), false);
                    }
                }
                for &o in m.block_ops(b) {
                    self.print_op(o);
                }
            }
        }
        for &v in m.operands(op) {
            self.print_type(m.value_type(v));
        }
        for v in m.results(op) {
            self.print_type(m.value_type(v));
        }
        let mut named: Vec<NamedAttr> = m.properties(op).to_vec();
        named.extend_from_slice(m.attributes(op));
        named.sort_by(|a, b| m.str(a.name).cmp(m.str(b.name)));
        for a in named {
            self.print_attr(a.value);
        }
    }

    pub(crate) fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push(' ');
        }
    }

    fn write_indent(&mut self) {
        for _ in 0..self.indent {
            self.out.push(' ');
        }
    }

    /// The default dialect of the op being printed: the one its parent op, printed in custom
    /// form, gives its regions (`""` for none).
    fn enclosing_default_dialect(&self) -> &'static str {
        let n = self.default_dialects.len();
        n.checked_sub(2)
            .and_then(|i| self.default_dialects.get(i))
            .copied()
            .unwrap_or("")
    }

    /// True when the op being printed sits directly in the body of a `func.func` printed in
    /// custom form (where `func` is the default dialect).
    pub(crate) fn in_func_body(&self) -> bool {
        self.enclosing_default_dialect() == "func"
    }

    /// The name of `op` as its custom form prints it: without its dialect's prefix where that
    /// dialect is the default one (as upstream's `OpState::printOpName`).
    pub(crate) fn custom_op_name(&self, op: OpId) -> &'m str {
        let name = self.m.op_name_str(op);
        let default = self.enclosing_default_dialect();
        // `default.` as a prefix (a dialect name has no dot): no search for the dot.
        match name.strip_prefix(default) {
            Some(rest) if !default.is_empty() => rest.strip_prefix('.').unwrap_or(name),
            _ => name,
        }
    }

    /// The default dialect `op` gives the ops of its regions, looked up once per name.
    fn default_dialect(&mut self, op: OpId) -> &'static str {
        let sym = self.m.op_name(op);
        if let Some(&Some(d)) = self.default_dialect_of.get(sym.index()) {
            return d;
        }
        let d = super::dialects::default_dialect_of(self.m.str(sym));
        if self.default_dialect_of.len() <= sym.index() {
            self.default_dialect_of.resize(sym.index() + 1, None);
        }
        if let Some(slot) = self.default_dialect_of.get_mut(sym.index()) {
            *slot = Some(d);
        }
        d
    }

    /// Prints one op (without leading indentation or trailing newline).
    pub(crate) fn print_op(&mut self, op: OpId) {
        if !self.enter() {
            return;
        }
        let default = self.default_dialect(op);
        self.default_dialects.push(default);
        self.print_op_inner(op);
        self.default_dialects.pop();
        self.depth -= 1;
    }

    fn print_op_inner(&mut self, op: OpId) {
        self.visit_op_loc(op);
        let n = self.m.num_results(op);
        if n > 0 {
            let first = self.m.result(op, 0).expect("op has results");
            if matches!(self.names.get(first.index()), Some(ValueName::Single(_))) {
                let names: Vec<String> = self.m.results(op).map(|v| self.value_name(v)).collect();
                self.out.push_str(&names.join(", "));
            } else {
                self.write_value_name(first, false);
                if n > 1 {
                    let _ = write!(self.out, ":{n}");
                }
            }
            self.out.push_str(" = ");
        }
        // A custom printer may give up half-way: drop what it wrote.
        let mark = self.mark();
        let custom = match self.forms {
            Some(f) if !self.opts.generic => (f.print)(self, op),
            _ => false,
        };
        if !custom {
            self.truncate_to(mark);
            // MLIR's parser takes the default dialect (`func` in a function body) only from an op
            // in custom form; inside a generic op the enclosing one still applies.
            if let Some(top) = self.default_dialects.last_mut() {
                *top = "";
            }
            if self.aliases.collecting {
                self.visit_generic_op(op);
            } else {
                self.print_generic_op(op);
            }
        }
        if self.opts.debug_info {
            self.out.push(' ');
            self.print_loc_wrapped(self.m.op_location(op));
        }
    }

    /// Called before an op is printed: MLIR visits its location first.
    fn visit_op_loc(&mut self, op: OpId) {
        if self.aliases.collecting && self.opts.debug_info {
            self.visit_loc(self.m.op_location(op), true);
        }
    }

    pub(crate) fn print_generic_op(&mut self, op: OpId) {
        let m = self.m;
        write_escaped(&mut self.out, m.op_name_str(op));
        self.wrap("(", ")", |p| p.print_value_list(m.operands(op)));
        let succ = m.successors(op);
        if !succ.is_empty() {
            self.wrap("[", "]", |p| {
                p.print_sep(succ, ", ", Self::print_block_name)
            });
        }
        let props = m.properties(op);
        if !props.is_empty() {
            self.wrap(" <", ">", |p| p.print_attr_dict(props, &[]));
        }
        let regions = m.regions(op);
        if !regions.is_empty() {
            self.wrap(" (", ")", |p| {
                p.print_sep(regions, ", ", |p, r| p.print_region(r, true, true))
            });
        }
        let attrs = m.attributes(op);
        if !attrs.is_empty() {
            self.out.push(' ');
            self.print_attr_dict(attrs, &[]);
        }
        self.out.push_str(" : ");
        self.print_op_function_type(op);
    }

    /// `(operand types) -> result types`: an op's type as a function type.
    pub(crate) fn print_op_function_type(&mut self, op: OpId) {
        let m = self.m;
        self.wrap("(", ") -> ", |p| {
            p.print_sep(m.operands(op), ", ", |p, v| p.print_type(m.value_type(v)))
        });
        let results: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
        self.print_result_types(&results);
    }

    /// What `f` prints, between `open` and `close` (`tensor<`, `>`).
    pub(crate) fn wrap(&mut self, open: &str, close: &str, f: impl FnOnce(&mut Self)) {
        self.out.push_str(open);
        f(self);
        self.out.push_str(close);
    }

    /// `items` printed by `each`, separated by `sep`.
    pub(crate) fn print_sep<T: Copy>(
        &mut self,
        items: &[T],
        sep: &str,
        mut each: impl FnMut(&mut Self, T),
    ) {
        for (i, &x) in items.iter().enumerate() {
            if i > 0 {
                self.out.push_str(sep);
            }
            each(self, x);
        }
    }

    pub(crate) fn print_value_list(&mut self, vals: &[Value]) {
        self.print_sep(vals, ", ", |p, v| p.write_value_name(v, true));
    }

    /// `%a: T loc(..), ...`: block arguments with their types and locations.
    pub(crate) fn print_block_args(&mut self, args: &[Value]) {
        let m = self.m;
        self.print_sep(args, ", ", |p, a| {
            p.write_value_name(a, true);
            p.out.push_str(": ");
            p.print_type(m.value_type(a));
            p.print_arg_loc(a);
        });
    }

    pub(crate) fn print_type_list(&mut self, types: &[Type]) {
        self.print_sep(types, ", ", Self::print_type);
    }

    /// ` attributes {...}`, the trailing dictionary of custom forms that spell it with that
    /// keyword; nothing when `attrs` is empty.
    pub(crate) fn print_attributes_keyword(&mut self, attrs: &[NamedAttr]) {
        if !attrs.is_empty() {
            self.out.push_str(" attributes ");
            self.print_attr_dict(attrs, &[]);
        }
    }

    pub(crate) fn print_attr_list(&mut self, attrs: &[Attribute]) {
        self.print_sep(attrs, ", ", Self::print_attr);
    }

    /// Results of a function type: `T`, `(T, U)`, `()`, or `((A) -> B)`.
    pub(crate) fn print_result_types(&mut self, results: &[Type]) {
        let single_plain = results.len() == 1
            && !matches!(self.m.type_data(results[0]), TypeData::Function { .. });
        if single_plain {
            self.print_type(results[0]);
        } else {
            self.wrap("(", ")", |p| p.print_type_list(results));
        }
    }

    pub(crate) fn print_block_name(&mut self, b: Block) {
        let id = self.block_ids.get(b.index()).copied().unwrap_or(0);
        let _ = write!(self.out, "^bb{id}");
    }

    /// `{` blocks `}` at the current indentation. The entry block's header is printed when
    /// `print_entry_args` and it has arguments, or when `print_empty_block` and it is empty.
    pub(crate) fn print_region(
        &mut self,
        r: Region,
        print_entry_args: bool,
        print_empty_block: bool,
    ) {
        self.print_region_terminated(r, print_entry_args, print_empty_block, None);
    }

    /// [`Printer::print_region`], leaving out each block's last op when it is the op named
    /// `elided` (an implicit terminator, as MLIR's `printBlockTerminators = false`;
    /// text/op_format.rs decides).
    pub(crate) fn print_region_terminated(
        &mut self,
        r: Region,
        print_entry_args: bool,
        print_empty_block: bool,
        elided: Option<&str>,
    ) {
        let m = self.m;
        self.out.push('{');
        let blocks = m.blocks(r);
        for (i, &b) in blocks.iter().enumerate() {
            let header = i > 0
                || (print_empty_block && m.block_ops(b).is_empty())
                || (print_entry_args && !m.block_args(b).is_empty());
            if header {
                self.out.push('\n');
                self.write_indent();
                self.print_block_name(b);
                let args = m.block_args(b);
                if !args.is_empty() {
                    self.wrap("(", ")", |p| p.print_block_args(args));
                }
                self.out.push(':');
                if i > 0 {
                    self.print_pred_comment(r, b);
                }
            }
            self.indent += 2;
            match self
                .split
                .filter(|s| s.block == b && !self.aliases.collecting)
            {
                Some(split) => {
                    // Printed in chunks once: printed again (around a custom form that gave up),
                    // the block prints as any other.
                    self.split = None;
                    self.print_split(split, elided);
                }
                None => {
                    let mut ops = m.block_ops(b);
                    if let (Some(name), Some((&last, rest))) = (elided, ops.split_last()) {
                        if m.op_name_str(last) == name {
                            ops = rest;
                        }
                    }
                    for &op in ops {
                        if self.out.len() >= self.drain_at && self.sink.is_some() {
                            self.flush();
                        }
                        self.newline();
                        self.print_op(op);
                    }
                }
            }
            self.indent -= 2;
        }
        self.newline();
        self.out.push('}');
    }

    /// `  // pred: ^bb0` / `  // 2 preds: ^bb0, ^bb1` / `  // no predecessors`.
    fn print_pred_comment(&mut self, r: Region, target: Block) {
        let m = self.m;
        let mut preds: Vec<u32> = Vec::new();
        for &b in m.blocks(r) {
            for &op in m.block_ops(b) {
                for &s in m.successors(op) {
                    if s == target {
                        preds.push(self.block_ids.get(b.index()).copied().unwrap_or(0));
                    }
                }
            }
        }
        // One entry per edge, as MLIR's (a cond_br to one block twice is two predecessors).
        preds.sort();
        match preds.len() {
            0 => self.out.push_str("  // no predecessors"),
            1 => {
                let _ = write!(self.out, "  // pred: ^bb{}", preds[0]);
            }
            n => {
                let _ = write!(self.out, "  // {n} preds: ");
                self.print_sep(&preds, ", ", |p, b| {
                    let _ = write!(p.out, "^bb{b}");
                });
            }
        }
    }

    /// ` {...}` of the op's discardable attributes, or nothing when it has none.
    pub(crate) fn print_op_attrs(&mut self, op: OpId) {
        let attrs = self.m.attributes(op);
        if !attrs.is_empty() {
            self.out.push(' ');
            self.print_attr_dict(attrs, &[]);
        }
    }

    /// `{a = 1 : i64, flag}` without the names in `elide`.
    pub(crate) fn print_attr_dict(&mut self, attrs: &[NamedAttr], elide: &[&str]) {
        let m = self.m;
        self.out.push('{');
        let mut first = true;
        for a in attrs {
            let name = m.str(a.name);
            if elide.contains(&name) {
                continue;
            }
            if !first {
                self.out.push_str(", ");
            }
            first = false;
            self.print_attr_name(a.name);
            if !matches!(m.attr_data(a.value), AttrData::Unit) {
                self.out.push_str(" = ");
                self.print_attr(a.value);
            }
        }
        self.out.push('}');
    }

    /// `name`, bare when an identifier, quoted otherwise (inlined: every attribute prints one).
    #[inline(always)]
    fn print_attr_name(&mut self, name: Symbol) {
        match self.m.utf8(name) {
            Some(text) if is_bare_ident(text) => self.out.push_str(text),
            _ => write_escaped(&mut self.out, self.m.bytes(name)),
        }
    }

    /// `@name`, bare when an identifier (`@"foo-bar"` otherwise), as in MLIR.
    pub(crate) fn print_symbol(&mut self, s: Symbol) {
        self.out.push('@');
        self.print_attr_name(s);
    }

    // ---- locations ---------------------------------------------------------------------------

    /// ` loc(...)` after a block argument, with debug info (always inline, as MLIR does).
    pub(crate) fn print_arg_loc(&mut self, v: Value) {
        if self.opts.debug_info {
            let l = self.m.value_location(v);
            if self.aliases.collecting {
                self.visit_loc(l, false);
            }
            self.out.push(' ');
            self.print_loc_inline(l);
        }
    }

    /// An op's `loc(...)`: `loc(#locN)` when aliases are on.
    pub(crate) fn print_loc_wrapped(&mut self, l: Location) {
        if self.aliases.collecting {
            return;
        }
        if let Some((_, n)) = self.aliases.table.alias(AliasKey::Loc(l)) {
            self.out.push_str("loc(");
            self.write_alias_name(n);
            self.out.push(')');
        } else {
            self.print_loc_inline(l);
        }
    }

    /// A location nested in another: its alias when it has one.
    fn print_nested_loc(&mut self, l: Location) {
        match self.aliases.table.alias(AliasKey::Loc(l)) {
            Some((_, n)) => self.write_alias_name(n),
            None => self.print_loc(l),
        }
    }

    /// `loc(...)` spelled out (no alias for this location itself).
    pub(crate) fn print_loc_inline(&mut self, l: Location) {
        if self.aliases.collecting {
            return;
        }
        self.wrap("loc(", ")", |p| p.print_loc(l));
    }

    fn print_loc(&mut self, l: Location) {
        if self.enter() {
            self.print_loc_spelled(l);
            self.depth -= 1;
        }
    }

    fn print_loc_spelled(&mut self, l: Location) {
        match self.m.loc_data(l).clone() {
            LocData::Unknown => self.out.push_str("unknown"),
            LocData::FileLineCol { file, line, column } => {
                write_escaped(&mut self.out, self.m.bytes(file));
                let _ = write!(self.out, ":{line}:{column}");
            }
            LocData::FileLineColRange { file, line_cols } => {
                write_escaped(&mut self.out, self.m.bytes(file));
                // As MLIR prints them: a missing line or column is 0 (so a range of fewer than
                // two numbers comes back from the text as a plain `"file":line:col`).
                match line_cols[..] {
                    [] => self.out.push_str(":0:0"),
                    [l] => {
                        let _ = write!(self.out, ":{l}:0");
                    }
                    [l, c] => {
                        let _ = write!(self.out, ":{l}:{c}");
                    }
                    [l, c, ec] => {
                        let _ = write!(self.out, ":{l}:{c} to :{ec}");
                    }
                    [l, c, el, ec, ..] => {
                        let _ = write!(self.out, ":{l}:{c} to {el}:{ec}");
                    }
                }
            }
            LocData::Name { name, child } => {
                write_escaped(&mut self.out, self.m.bytes(name));
                if let Some(c) = child {
                    self.wrap("(", ")", |p| p.print_nested_loc(c));
                }
            }
            LocData::CallSite { callee, caller } => {
                self.out.push_str("callsite(");
                self.print_nested_loc(callee);
                self.out.push_str(" at ");
                self.print_nested_loc(caller);
                self.out.push(')');
            }
            LocData::Fused {
                metadata,
                locations,
            } => {
                self.out.push_str("fused");
                if let Some(md) = metadata {
                    self.wrap("<", ">", |p| p.print_attr(md));
                }
                self.wrap("[", "]", |p| {
                    p.print_sep(&locations, ", ", Self::print_nested_loc)
                });
            }
        }
    }

    // ---- types -------------------------------------------------------------------------------

    pub(crate) fn print_type(&mut self, t: Type) {
        self.print_aliasable(AliasKey::Type(t));
    }

    pub(crate) fn print_attr(&mut self, a: Attribute) {
        self.print_aliasable(AliasKey::Attr(a));
    }

    /// A type or attribute: visited in the first pass, then its alias or its spelling.
    #[inline]
    fn print_aliasable(&mut self, key: AliasKey) {
        if self.aliases.collecting {
            Arc::make_mut(&mut self.aliases.table).visit(self.m, key, false);
            return;
        }
        let (is_type, any) = match key {
            AliasKey::Type(_) => (true, self.aliases.table.has_type_aliases()),
            _ => (false, self.aliases.table.has_attr_aliases()),
        };
        if any {
            if let Some((name, n)) = self.aliases.table.alias(key) {
                write_alias(&mut self.out, is_type, name, n);
                return;
            }
        }
        if let Some(s) = self.spellings.get(key) {
            let height = s.height as usize;
            if self.depth + height <= crate::ir::NESTING_GUARD {
                let text = self.spellings.text.get(s.start as usize..s.end as usize);
                self.out.push_str(text.unwrap_or_default());
                self.peak = self.peak.max(self.depth + height);
                return;
            }
        }
        let base = self.depth;
        let outer_peak = std::mem::replace(&mut self.peak, base);
        let refused = self.refused;
        let start = self.out.len();
        if self.enter() {
            match key {
                AliasKey::Type(t) => self.print_type_spelled(t),
                AliasKey::Attr(a) => self.print_attr_spelled(a),
                AliasKey::Loc(l) => self.print_loc_spelled(l),
            }
            self.depth -= 1;
            let whole = self.refused == refused;
            if whole && keeps_spelling(self.m, key) {
                if let Some(text) = self.out.get(start..) {
                    if text.len() <= Spellings::MAX_LEN {
                        self.spellings.keep(self.m, key, text, self.peak - base);
                    }
                }
            }
        }
        self.peak = self.peak.max(outer_peak);
    }

    /// A type spelled out (not its alias; nested ones may be aliases).
    fn print_type_spelled(&mut self, t: Type) {
        let m = self.m;
        match m.type_data(t) {
            TypeData::Integer { width, signedness } => {
                let p = match signedness {
                    Signedness::Signless => "i",
                    Signedness::Signed => "si",
                    Signedness::Unsigned => "ui",
                };
                self.out.push_str(p);
                push_decimal(&mut self.out, *width);
            }
            TypeData::Index => self.out.push_str("index"),
            TypeData::Float(k) => self.out.push_str(k.keyword()),
            TypeData::None => self.out.push_str("none"),
            TypeData::Complex(e) => {
                self.wrap("complex<", ">", |p| p.print_type(*e));
            }
            TypeData::RankedTensor {
                shape,
                element,
                encoding,
            } => {
                self.out.push_str("tensor<");
                self.print_shape(shape);
                self.print_type(*element);
                if let Some(e) = encoding {
                    self.out.push_str(", ");
                    self.print_attr(*e);
                }
                self.out.push('>');
            }
            TypeData::UnrankedTensor { element } => {
                self.out.push_str("tensor<*x");
                self.print_type(*element);
                self.out.push('>');
            }
            TypeData::Tuple(ts) => {
                self.wrap("tuple<", ">", |p| p.print_type_list(ts));
            }
            TypeData::Function { inputs, results } => {
                self.wrap("(", ") -> ", |p| p.print_type_list(inputs));
                self.print_result_types(results);
            }
            TypeData::Dialect(d) => self.print_dialect_type(d),
        }
    }

    /// `open` shape, element type, then the attributes present (a VHLO tensor's encoding, a
    /// memref's layout and memory space), and `>`. Not inlined: the builtin tensor, the hot
    /// case, is written out in `print_type_spelled`.
    #[inline(never)]
    fn print_shaped(
        &mut self,
        open: &str,
        shape: &[Dim],
        element: Type,
        extras: [Option<Attribute>; 2],
    ) {
        self.out.push_str(open);
        self.print_shape(shape);
        self.print_type(element);
        for a in extras.into_iter().flatten() {
            self.out.push_str(", ");
            self.print_attr(a);
        }
        self.out.push('>');
    }

    pub(super) fn print_shape(&mut self, shape: &[Dim]) {
        for &d in shape {
            if d == DYNAMIC || d < 0 {
                self.out.push_str("?x");
            } else {
                match u32::try_from(d) {
                    Ok(small) => push_decimal(&mut self.out, small),
                    Err(_) => {
                        let _ = write!(self.out, "{d}");
                    }
                }
                self.out.push('x');
            }
        }
    }

    fn print_dims_list(&mut self, dims: &[i64]) {
        self.wrap("[", "]", |p| p.print_dims(dims));
    }

    /// `2, ?, 4`: sizes, dynamic ones as `?`.
    pub(super) fn print_dims(&mut self, dims: &[i64]) {
        self.print_sep(dims, ", ", |p, d| {
            if d == DYNAMIC {
                p.out.push('?');
            } else {
                push_i64(&mut p.out, d);
            }
        });
    }

    fn print_dialect_type(&mut self, d: &DialectType) {
        let m = self.m;
        let dialect = m.str(d.dialect);
        let mnemonic = m.str(d.mnemonic);
        let p = &d.params[..];
        if let ("builtin", "vector", [Param::Ints(shape), Param::Ints(scalable), Param::Type(e)]) =
            (dialect, mnemonic, p)
        {
            self.out.push_str("vector<");
            for (i, &d) in shape.iter().enumerate() {
                if scalable.get(i) == Some(&1) {
                    let _ = write!(self.out, "[{d}]x");
                } else {
                    let _ = write!(self.out, "{d}x");
                }
            }
            self.print_type(*e);
            self.out.push('>');
            return;
        }
        if let ("builtin", "memref", [Param::Ints(shape), Param::Type(e), layout, space]) =
            (dialect, mnemonic, p)
        {
            return self.print_shaped("memref<", shape, *e, [layout, space].map(Param::attr));
        }
        if let ("builtin", "memref", [Param::Absent, Param::Type(e), Param::Absent, space]) =
            (dialect, mnemonic, p)
        {
            self.out.push_str("memref<*x");
            return self.print_shaped("", &[], *e, [None, space.attr()]);
        }
        self.out.push('!');
        self.out.push_str(dialect);
        if !mnemonic.is_empty() {
            self.out.push('.');
            self.out.push_str(mnemonic);
        }
        match (dialect, mnemonic, p) {
            (_, _, []) => {}
            ("stablehlo", "future", [Param::Types(ts)]) => {
                self.wrap("<", ">", |p| p.print_type_list(ts));
            }
            ("vhlo", _, _) if self.print_vhlo_type_params(VhloType::from_mnemonic(mnemonic), p) => {
            }
            ("quant", "uniform", params) => self.print_quant_uniform(params),
            (
                "quant",
                "any",
                [Param::UInt(f), Param::Type(s), e, Param::Int(min), Param::Int(max)],
            ) => {
                self.out.push('<');
                self.print_quant_storage(*f, *s, *min, *max);
                if let Param::Type(e) = e {
                    self.out.push(':');
                    self.print_type(*e);
                }
                self.out.push('>');
            }
            (
                "quant",
                "calibrated",
                [Param::Type(e), Param::Float { bits: lo, .. }, Param::Float { bits: hi, .. }],
            ) => {
                // QuantTypes.cpp prints the range through printFloatValue.
                self.out.push('<');
                self.print_type(*e);
                self.out.push('<');
                crate::float::format_float_into(&mut self.out, FloatKind::F64, *lo);
                self.out.push(':');
                crate::float::format_float_into(&mut self.out, FloatKind::F64, *hi);
                self.out.push_str(">>");
            }
            (_, _, [Param::Str(body)]) => self.out.push_str(m.str(*body)),
            _ => {
                // Parameters this printer has no syntax for: printed in a debug form that the
                // parser rejects, rather than silently dropped.
                let _ = write!(self.out, "<<unprintable params {:?}>>", p);
            }
        }
    }

    /// A quantized type's storage (`i8`, `u8<0:15>`, `si8`), as QuantTypes.cpp prints it.
    fn print_quant_storage(&mut self, flags: u64, storage: Type, min: i64, max: i64) {
        let (width, explicit) = match self.m.type_data(storage) {
            TypeData::Integer { width, signedness } => ((*width).clamp(1, 64), *signedness),
            _ => (8, Signedness::Signless),
        };
        let signed = flags & 1 == 1;
        // MLIR prints `i8`/`u8` from the flags; an explicitly signed or unsigned storage type
        // (`si8`, `ui8`) is spelled as such so it survives a round trip.
        let prefix = match explicit {
            Signedness::Signless => {
                if signed {
                    "i"
                } else {
                    "u"
                }
            }
            Signedness::Signed => "si",
            Signedness::Unsigned => "ui",
        };
        let _ = write!(self.out, "{prefix}{width}");
        if (min, max) != storage_range(width, signed) {
            let _ = write!(self.out, "<{min}:{max}>");
        }
    }

    fn print_quant_uniform(&mut self, p: &[Param]) {
        let (flags, storage, expressed) = match p {
            [Param::UInt(f), Param::Type(s), Param::Type(e), ..] => (*f, *s, *e),
            _ => {
                self.out.push_str("<<invalid quant params>>");
                return;
            }
        };
        let (min, max) = match p.len() {
            7 | 8 => match (&p[p.len() - 2], &p[p.len() - 1]) {
                (Param::Int(a), Param::Int(b)) => (*a, *b),
                _ => (0, 0),
            },
            _ => (0, 0),
        };
        self.out.push('<');
        self.print_quant_storage(flags, storage, min, max);
        self.out.push(':');
        self.print_type(expressed);
        match p {
            [_, _, _, Param::Float { bits, .. }, Param::Int(zp), _, _] => {
                let _ = write!(self.out, ", {}", exact_e(f64::from_bits(*bits as u64)));
                if *zp != 0 {
                    let _ = write!(self.out, ":{zp}");
                }
            }
            [_, _, _, Param::Int(qdim), Param::Floats(scales), Param::Ints(zps), _, _] => {
                let _ = write!(self.out, ":{qdim}, {{");
                for (i, (&s, &z)) in scales.iter().zip(zps.iter()).enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.out.push_str(&exact_e(f64::from_bits(s as u64)));
                    if z != 0 {
                        let _ = write!(self.out, ":{z}");
                    }
                }
                self.out.push('}');
            }
            _ => self.out.push_str("<<invalid quant params>>"),
        }
        self.out.push('>');
    }

    // ---- attributes --------------------------------------------------------------------------

    /// An element of an array attribute: MLIR leaves out the type of an i64 integer and of an
    /// f64 float there (its `AttrTypeElision::May`).
    fn print_array_elem(&mut self, a: Attribute) {
        let m = self.m;
        match m.attr_data(a) {
            AttrData::Integer { ty, value }
                if matches!(
                    m.type_data(*ty),
                    TypeData::Integer {
                        width: 64,
                        signedness: Signedness::Signless
                    }
                ) =>
            {
                let _ = write!(self.out, "{value}");
            }
            AttrData::Float { ty, bits }
                if matches!(m.type_data(*ty), TypeData::Float(FloatKind::F64)) =>
            {
                format_float_into(&mut self.out, FloatKind::F64, *bits);
            }
            _ => self.print_attr(a),
        }
    }

    /// An attribute spelled out (not its alias; nested ones may be aliases).
    fn print_attr_spelled(&mut self, a: Attribute) {
        let m = self.m;
        match m.attr_data(a) {
            AttrData::Unit => self.out.push_str("unit"),
            AttrData::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            AttrData::Integer { ty, value } => {
                // Only a signless i1 integer attribute is spelled `true`/`false` (MLIR); `1 : ui1`
                // stays a number (dense elements of any i1 print as booleans, below).
                let value = *value;
                match m.type_data(*ty) {
                    TypeData::Integer {
                        width: 1,
                        signedness,
                    } => match signedness {
                        Signedness::Signless => {
                            self.out
                                .push_str(if value & 1 == 1 { "true" } else { "false" })
                        }
                        Signedness::Signed => {
                            let _ = write!(self.out, "{}", if value & 1 == 1 { -1 } else { 0 });
                        }
                        Signedness::Unsigned => {
                            let _ = write!(self.out, "{}", value & 1);
                        }
                    },
                    // Unsigned types print unsigned (`2^128-1 : ui128`, not -1), as MLIR does.
                    TypeData::Integer {
                        width,
                        signedness: Signedness::Unsigned,
                    } => {
                        let mask = u128::MAX.checked_shr(128 - (*width).min(128)).unwrap_or(0);
                        let _ = write!(self.out, "{}", (value as u128) & mask);
                    }
                    _ => {
                        let _ = write!(self.out, "{value}");
                    }
                }
                self.out.push_str(" : ");
                self.print_type(*ty);
            }
            AttrData::WideInteger { ty, words } => {
                let (width, unsigned) = match m.type_data(*ty) {
                    TypeData::Integer { width, signedness } => {
                        (*width, *signedness == Signedness::Unsigned)
                    }
                    _ => (0, false),
                };
                let digits = crate::ir::wide_int::to_decimal(words, width, unsigned);
                self.out.push_str(&digits);
                self.out.push_str(" : ");
                self.print_type(*ty);
            }
            AttrData::Float { ty, bits } => {
                let kind = match m.type_data(*ty) {
                    TypeData::Float(k) => *k,
                    _ => FloatKind::F64,
                };
                format_float_into(&mut self.out, kind, *bits);
                self.out.push_str(" : ");
                self.print_type(*ty);
            }
            AttrData::String { value, ty } => {
                write_escaped(&mut self.out, m.bytes(*value));
                if let Some(t) = ty {
                    self.out.push_str(" : ");
                    self.print_type(*t);
                }
            }
            AttrData::Type(t) => self.print_type(*t),
            AttrData::Array(elems) => {
                self.wrap("[", "]", |p| {
                    p.print_sep(elems, ", ", Self::print_array_elem)
                });
            }
            AttrData::DenseArray { element, data } => {
                self.out.push_str("array<");
                self.print_type(*element);
                let n = element_storage_bytes(m, *element).unwrap_or(1).max(1);
                if !data.is_empty() {
                    self.out.push_str(": ");
                    let kind = elem_kind(m, *element);
                    for (i, chunk) in data.chunks(n).enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.print_element(kind.as_ref(), chunk);
                    }
                }
                self.out.push('>');
            }
            AttrData::DenseElements { ty, data, splat } => {
                self.wrap("dense<", "> : ", |p| p.print_dense_body(*ty, data, *splat));
                self.print_type(*ty);
            }
            AttrData::DenseResource { ty, key } => {
                self.out.push_str("dense_resource<");
                push_key(&mut self.out, m, *key);
                self.out.push_str("> : ");
                self.print_type(*ty);
            }
            AttrData::DenseStrings { ty, values } => {
                self.out.push_str("dense<");
                let shape = match m.type_data(*ty) {
                    TypeData::RankedTensor { shape, .. } => shape.to_vec(),
                    _ => Vec::new(),
                };
                if values.len() == 1 {
                    write_escaped(&mut self.out, m.bytes(values[0]));
                } else {
                    let strs: Vec<Symbol> = values.to_vec();
                    self.print_nested(&shape, strs.len(), &mut |p: &mut Self, i| {
                        write_escaped(&mut p.out, m.bytes(strs[i]))
                    });
                }
                self.out.push_str("> : ");
                self.print_type(*ty);
            }
            AttrData::Dictionary(entries) => {
                let named: Vec<NamedAttr> = entries
                    .iter()
                    .map(|&(name, value)| NamedAttr { name, value })
                    .collect();
                self.print_attr_dict(&named, &[]);
            }
            AttrData::SymbolRef { root, nested } => {
                self.print_symbol(*root);
                for &n in nested.iter() {
                    self.out.push_str("::");
                    self.print_symbol(n);
                }
            }
            AttrData::Location(l) => {
                // A location attribute prints as its alias alone, like any attribute.
                match self.aliases.table.alias(AliasKey::Loc(*l)) {
                    Some((_, n)) => self.write_alias_name(n),
                    None => self.print_loc_inline(*l),
                }
            }
            AttrData::Dialect(d) => self.print_dialect_attr(d),
            AttrData::Opaque { text, .. } => {
                self.out.push_str(m.str(*text));
            }
        }
    }

    /// `dense<...> : tensor<...>` for a VHLO tensor type and raw data (splat when the data is a
    /// single element). False when the type has no builtin counterpart.
    pub(super) fn print_vhlo_dense(&mut self, t: Type, data: &[u8]) -> bool {
        let m = self.m;
        let TypeData::Dialect(d) = m.type_data(t) else {
            return false;
        };
        let [Param::Ints(shape), Param::Type(elem), encoding] = &d.params[..] else {
            return false;
        };
        let encoding = match encoding {
            Param::Absent => None,
            Param::Attr(a) => Some(*a),
            _ => return false,
        };
        let Some(kind) = elem_kind(m, *elem) else {
            return false;
        };
        let n = kind.bytes();
        let numel: u128 = shape
            .iter()
            .fold(1u128, |n, &x| n.saturating_mul(x.max(0) as u128));
        let mut count = data.len() / n.max(1);
        // Equal elements print as a splat, as MLIR's DenseElementsAttr (which TensorV1Attr
        // prints through) stores them.
        if count > 1
            && data.len().is_multiple_of(n.max(1))
            && data.chunks(n.max(1)).all(|c| c == &data[..n])
        {
            count = 1;
        }
        self.out.push_str("dense<");
        if count == 1 {
            self.print_elem_kind(&kind, &data[..n]);
        } else if count > 1 {
            if count as u128 != numel {
                return false;
            }
            if count > HEX_ABOVE {
                self.print_hex_elements(&kind, &data[..count * n]);
            } else {
                self.print_nested(shape, count, &mut |p: &mut Self, i| {
                    p.print_elem_kind(&kind, &data[i * n..(i + 1) * n])
                });
            }
        }
        self.out.push_str("> : tensor<");
        self.print_shape(shape);
        self.out.push_str(&kind.spelling());
        if let Some(a) = encoding {
            self.out.push_str(", ");
            self.print_attr(a);
        }
        self.out.push('>');
        true
    }

    fn print_elem_kind(&mut self, kind: &ElemKind, bytes: &[u8]) {
        let mut buf = [0u8; 16];
        let n = bytes.len().min(16);
        buf[..n].copy_from_slice(&bytes[..n]);
        let raw = u128::from_le_bytes(buf);
        match kind {
            ElemKind::Int { width, signedness } if *width > 128 => {
                let words = crate::ir::wide_int::from_le_bytes(bytes, *width);
                let unsigned = *signedness == Signedness::Unsigned;
                let digits = crate::ir::wide_int::to_decimal(&words, *width, unsigned);
                self.out.push_str(&digits);
            }
            ElemKind::Int { width, signedness } => {
                let w = (*width).min(128);
                let v = if w == 128 {
                    raw
                } else {
                    raw & ((1u128 << w) - 1)
                };
                if w == 1 {
                    self.out.push_str(if v & 1 == 1 { "true" } else { "false" });
                } else if *signedness == Signedness::Unsigned {
                    let _ = write!(self.out, "{v}");
                } else if w > 0 && w < 128 && (v >> (w - 1)) & 1 == 1 {
                    let _ = write!(self.out, "{}", (v as i128) - (1i128 << w));
                } else {
                    let _ = write!(self.out, "{}", v as i128);
                }
            }
            ElemKind::Index => {
                let _ = write!(self.out, "{}", raw as u64 as i64);
            }
            ElemKind::Float(k) => {
                let w = k.bit_width();
                let v = if w >= 128 {
                    raw
                } else {
                    raw & ((1u128 << w) - 1)
                };
                format_float_into(&mut self.out, *k, v);
            }
            ElemKind::Complex(inner) => {
                let half = bytes.len() / 2;
                self.out.push('(');
                self.print_elem_kind(inner, &bytes[..half]);
                self.out.push(',');
                self.print_elem_kind(inner, &bytes[half..]);
                self.out.push(')');
            }
        }
    }

    /// One element of dense storage (`?` for an element type with no literal syntax).
    fn print_element(&mut self, kind: Option<&ElemKind>, bytes: &[u8]) {
        match kind {
            Some(k) => self.print_elem_kind(k, bytes),
            None => self.out.push('?'),
        }
    }

    fn print_dense_body(&mut self, ty: Type, data: &[u8], splat: bool) {
        let m = self.m;
        let (shape, element) = match m.type_data(ty) {
            TypeData::RankedTensor { shape, element, .. } => (shape.to_vec(), *element),
            _ => match crate::ir::vector_parts(m, ty) {
                Some((shape, element)) => (shape.to_vec(), element),
                None => return,
            },
        };
        let n = element_storage_bytes(m, element).unwrap_or(1).max(1);
        let count = data.len() / n;
        if count == 0 {
            return;
        }
        let kind = elem_kind(m, element);
        if splat || count == 1 {
            self.print_element(kind.as_ref(), &data[..n]);
            return;
        }
        if let Some(k) = kind.as_ref().filter(|_| count > HEX_ABOVE) {
            self.print_hex_elements(k, &data[..count * n]);
            return;
        }
        self.print_nested(&shape, count, &mut |p: &mut Self, i| {
            p.print_element(kind.as_ref(), &data[i * n..(i + 1) * n])
        });
    }

    /// `"0x0A1B..."`: MLIR's spelling of a dense attribute of more than [`HEX_ABOVE`]
    /// elements, not a splat: its raw data in hex, an integer of a width that is not a
    /// whole number of bytes zero-extended from that width (`-8 : i4` is `08`, `true` is `01`).
    fn print_hex_elements(&mut self, kind: &ElemKind, data: &[u8]) {
        const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
        let top_mask = match kind {
            ElemKind::Int { width, .. } if width % 8 != 0 => Some((1u8 << (width % 8)) - 1),
            _ => None,
        };
        let n = kind.bytes().max(1);
        self.out.reserve(data.len() * 2 + 4);
        self.out.push_str("\"0x");
        for (i, &b) in data.iter().enumerate() {
            // Little-endian: an element's last byte holds its top bits.
            let b = match top_mask {
                Some(mask) if i % n == n - 1 => b & mask,
                _ => b,
            };
            self.out.push(DIGITS[usize::from(b >> 4)] as char);
            self.out.push(DIGITS[usize::from(b & 15)] as char);
        }
        self.out.push('"');
    }

    /// `[[a, b], [c, d]]` over `count` row-major elements of `shape`.
    fn print_nested(
        &mut self,
        shape: &[Dim],
        count: usize,
        elem: &mut dyn FnMut(&mut Self, usize),
    ) {
        if shape.is_empty() {
            if count > 0 {
                elem(self, 0);
            }
            return;
        }
        let dims: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
        // strides[k] = product of dims after k
        let mut strides = vec![1usize; dims.len()];
        for k in (0..dims.len().saturating_sub(1)).rev() {
            strides[k] = strides[k + 1].saturating_mul(dims[k + 1]);
        }
        for i in 0..count {
            // Open brackets for every dimension this element starts.
            let opens = (0..dims.len())
                .filter(|&k| i % (strides[k].saturating_mul(dims[k]).max(1)) == 0)
                .count();
            if i > 0 {
                self.out.push_str(", ");
            }
            for _ in 0..opens {
                self.out.push('[');
            }
            elem(self, i);
            let closes = (0..dims.len())
                .filter(|&k| (i + 1) % (strides[k].saturating_mul(dims[k]).max(1)) == 0)
                .count();
            for _ in 0..closes {
                self.out.push(']');
            }
        }
    }

    fn print_dialect_attr(&mut self, d: &DialectAttr) {
        let m = self.m;
        let dialect = m.str(d.dialect);
        let mnemonic = m.str(d.mnemonic);
        let p = &d.params[..];
        if let Some(cd) = crate::vhlo::codec_dialect(dialect) {
            self.print_codec_attr(cd, d);
            return;
        }
        if let Some(spec) = dialects::find_enum(dialect, mnemonic) {
            let case = match p {
                [Param::Int(v)] => spec.cases.iter().find(|c| c.1 == *v).map(|c| c.0),
                _ => None,
            };
            let case = case.map_or_else(|| format!("<<invalid case {:?}>>", p), str::to_string);
            if dialects::enum_uses_pretty_mnemonic(dialect, mnemonic) {
                let _ = write!(self.out, "#{dialect}.{mnemonic}<{case}>");
            } else {
                let _ = write!(self.out, "#{dialect}<{mnemonic} {case}>");
            }
            return;
        }
        let _ = write!(self.out, "#{dialect}.");
        // VHLO's are printed by their formats (below).
        if let Some(spec) = dialects::find_struct(dialect, mnemonic).filter(|_| dialect != "vhlo") {
            self.out.push_str(mnemonic);
            self.out.push('<');
            self.print_struct_fields(&spec, p, spec.omit_defaults);
            self.out.push('>');
            return;
        }
        match (dialect, mnemonic, p) {
            ("stablehlo", "type_extensions", [Param::Ints(bounds)]) => {
                self.wrap("bounds<", ">", |p| p.print_dims(bounds));
            }
            ("stablehlo", "mesh", [Param::Attrs(axes), device_ids]) => {
                self.wrap("mesh<axes = [", "]", |p| p.print_attr_list(axes));
                if let Param::Attr(d) = device_ids {
                    self.out.push_str(", device_ids = ");
                    self.print_attr(*d);
                }
                self.out.push('>');
            }
            ("stablehlo", "sub_axis_info", [Param::Int(a), Param::Int(b)]) => {
                let _ = write!(self.out, "sub_axis_info({a}){b}");
            }
            ("stablehlo", "conv", _) => {
                self.out.push_str("conv<");
                if !self.print_conv_dims(p) {
                    // Numbers the compact layout cannot show: the raw form.
                    self.out.push_str("raw ");
                    // Every number, zeros too.
                    self.print_struct_fields(&dialects::conv_raw(), p, false);
                }
                self.out.push('>');
            }
            ("vhlo", _, _) => {
                self.out.push_str(mnemonic);
                if !self.print_vhlo_attr_params(VhloAttr::from_mnemonic(mnemonic), p) {
                    let _ = write!(self.out, "<<unprintable params {:?}>>", p);
                }
            }
            _ => {
                let _ = write!(self.out, "{mnemonic}<<unprintable params {:?}>>", p);
            }
        }
    }

    /// `name = value, ...`: the present fields of a struct-like attribute (without those at
    /// their default when `omit_defaults`).
    pub(super) fn print_struct_fields(
        &mut self,
        spec: &dialects::StructSpec,
        p: &[Param],
        omit_defaults: bool,
    ) {
        let mut first = true;
        for ((name, kind), param) in spec.fields.iter().zip(p.iter()) {
            let default = match param {
                Param::Absent => true,
                Param::Ints(v) => omit_defaults && v.is_empty(),
                Param::Int(0) => omit_defaults,
                Param::Float { bits, width } => {
                    omit_defaults && *bits & !(1u128 << (width - 1)) == 0
                }
                _ => false,
            };
            if default {
                continue;
            }
            if !first {
                self.out.push_str(", ");
            }
            first = false;
            let _ = write!(self.out, "{name} = ");
            self.print_field(kind, param);
        }
    }

    fn print_field(&mut self, kind: FieldKind, param: &Param) {
        match (kind, param) {
            (_, Param::Ints(v)) => self.print_dims_list(v),
            (_, Param::Int(v)) => {
                let _ = write!(self.out, "{v}");
            }
            (_, Param::Type(t)) => self.print_type(*t),
            (_, Param::Bool(b)) => {
                let _ = write!(self.out, "{b}");
            }
            (_, Param::Float { bits, width }) => {
                self.out
                    .push_str(&format_float(float_kind_of_width(*width), *bits));
            }
            (FieldKind::OptSubAxis, Param::Attr(a)) => match self.m.attr_data(*a) {
                AttrData::Dialect(d) => match &d.params[..] {
                    [Param::Int(x), Param::Int(y)] => {
                        let _ = write!(self.out, "({x}){y}");
                    }
                    _ => self.print_attr(*a),
                },
                _ => self.print_attr(*a),
            },
            (_, Param::Attr(a)) => self.print_attr(*a),
            (_, Param::Str(s)) => write_escaped(&mut self.out, self.m.bytes(*s)),
            _ => {
                let _ = write!(self.out, "<<{:?}>>", param);
            }
        }
    }

    /// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`; false when the numbers are inconsistent.
    pub(crate) fn print_conv_dims(&mut self, p: &[Param]) -> bool {
        let [Param::Int(ib), Param::Int(ifd), Param::Ints(isp), Param::Int(ki), Param::Int(ko), Param::Ints(ksp), Param::Int(ob), Param::Int(of), Param::Ints(osp)] =
            p
        else {
            return false;
        };
        let side = |a: i64, b: i64, sp: &[i64], la: char, lb: char| -> Option<String> {
            let n = sp.len() + 2;
            let mut cells: Vec<Option<String>> = vec![None; n];
            let mut put = |i: i64, s: String| -> Option<()> {
                let i = usize::try_from(i).ok().filter(|&i| i < n)?;
                if cells[i].is_some() {
                    return None;
                }
                cells[i] = Some(s);
                Some(())
            };
            put(a, la.to_string())?;
            put(b, lb.to_string())?;
            for (k, &d) in sp.iter().enumerate() {
                put(d, k.to_string())?;
            }
            let cells: Option<Vec<String>> = cells.into_iter().collect();
            Some(format!("[{}]", cells?.join(", ")))
        };
        match (
            side(*ib, *ifd, isp, 'b', 'f'),
            side(*ki, *ko, ksp, 'i', 'o'),
            side(*ob, *of, osp, 'b', 'f'),
        ) {
            (Some(a), Some(b), Some(c)) => {
                let _ = write!(self.out, "{a}x{b}->{c}");
                true
            }
            _ => false,
        }
    }
}

/// The storage range a quantized type of `width` (1 to 64) bits has unless it says otherwise:
/// the whole integer range (an unsigned 64-bit one up to `i64::MAX`).
pub(crate) fn storage_range(width: u32, signed: bool) -> (i64, i64) {
    let half = 1i128.wrapping_shl(width.saturating_sub(1));
    if signed {
        (half.wrapping_neg() as i64, half.wrapping_sub(1) as i64)
    } else {
        let max = 1i128.wrapping_shl(width).wrapping_sub(1);
        (0, max.min(i64::MAX as i128) as i64)
    }
}

/// A dense attribute of more elements than this, not a splat, prints as the hex of its data, as
/// MLIR's printer does by default (`--mlir-print-elementsattrs-with-hex-if-larger`).
const HEX_ABOVE: usize = 100;

/// A dense element type, from a builtin or a VHLO scalar type.
pub(super) enum ElemKind {
    Int { width: u32, signedness: Signedness },
    Index,
    Float(FloatKind),
    Complex(Box<ElemKind>),
}

impl ElemKind {
    fn bytes(&self) -> usize {
        let scalar = match *self {
            ElemKind::Int { width, signedness } => TypeData::Integer { width, signedness },
            ElemKind::Index => TypeData::Index,
            ElemKind::Float(k) => TypeData::Float(k),
            ElemKind::Complex(ref inner) => return 2 * inner.bytes(),
        };
        crate::ir::storage_bytes_of(&scalar, |_| None).unwrap_or(1)
    }
    fn spelling(&self) -> String {
        let scalar = match *self {
            ElemKind::Int { width, signedness } => TypeData::Integer { width, signedness },
            ElemKind::Index => TypeData::Index,
            ElemKind::Float(k) => TypeData::Float(k),
            ElemKind::Complex(ref inner) => return format!("complex<{}>", inner.spelling()),
        };
        crate::scalars::builtin_spelling(&scalar)
            .unwrap_or_default()
            .into_owned()
    }
}

pub(super) fn elem_kind(m: &Module, t: Type) -> Option<ElemKind> {
    let vhlo_scalar;
    let scalar = match m.type_data(t) {
        TypeData::Complex(inner) => {
            return Some(ElemKind::Complex(Box::new(elem_kind(m, *inner)?)))
        }
        TypeData::Dialect(d) if m.str(d.dialect) == "vhlo" => {
            if let Some(c) = crate::vhlo::types::ComplexV1::read(m, t) {
                return Some(ElemKind::Complex(Box::new(elem_kind(m, c.element_type)?)));
            }
            vhlo_scalar = crate::scalars::type_of(m.str(d.mnemonic))?;
            &vhlo_scalar
        }
        td => td,
    };
    match *scalar {
        TypeData::Integer { width, signedness } => Some(ElemKind::Int { width, signedness }),
        TypeData::Index => Some(ElemKind::Index),
        TypeData::Float(k) => Some(ElemKind::Float(k)),
        _ => None,
    }
}

/// `[1, 2]`.
pub(crate) fn write_i64s(out: &mut String, v: &[i64]) {
    out.push('[');
    for (i, &x) in v.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        push_i64(out, x);
    }
    out.push(']');
}

/// The value of a signless integer attribute of exactly `width` bits.
pub(crate) fn int_attr_of(m: &Module, a: &AttrData, width: u32) -> Option<i64> {
    let AttrData::Integer { ty, value } = a else {
        return None;
    };
    match m.type_data(*ty) {
        TypeData::Integer {
            width: w,
            signedness: Signedness::Signless,
        } if *w == width => i64::try_from(*value).ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of plain bytes and escapes interleave as LLVM's `printEscapedString` writes them.
    #[test]
    fn escapes_byte_by_byte() {
        let all: Vec<u8> = (0..=255u8).chain(*b"ab\\c\"d").collect();
        let mut want = String::from("\"");
        for &b in &all {
            match b {
                b'\\' => want.push_str("\\\\"),
                0x20..0x7f if b != b'"' => want.push(char::from(b)),
                _ => want.push_str(&format!("\\{b:02X}")),
            }
        }
        want.push('"');
        for cut in [0, 1, 34, 92, 200, all.len()] {
            let mut out = String::new();
            write_escaped(&mut out, &all[cut..]);
            let mut head = String::new();
            write_escaped(&mut head, &all[..cut]);
            assert!(want.ends_with(&out[1..]));
            assert!(want.starts_with(&head[..head.len() - 1]));
        }
        let mut out = String::new();
        write_escaped(&mut out, &all);
        assert_eq!(out, want);
    }

    /// A kept spelling is used only where the nesting guard would not cut it short: the text is
    /// the same as spelling it there, whichever depth printed it first.
    #[test]
    fn kept_spellings_respect_the_nesting_guard() {
        let run = || {
            let mut m = Module::new();
            let mut t = m.ty(TypeData::Float(FloatKind::F32));
            for _ in 0..crate::ir::NESTING_GUARD - 10 {
                t = m.ty(TypeData::Complex(t));
            }
            let fresh = |depth: usize| {
                let mut p = Printer::new(&m, PrintOptions::default());
                p.depth = depth;
                p.print_type(t);
                p.out
            };
            let (shallow, deep) = (fresh(0), fresh(20));
            assert!(!shallow.contains("<<nested too deep>>"));
            assert!(deep.contains("<<nested too deep>>"));
            let mut p = Printer::new(&m, PrintOptions::default());
            for (depth, want) in [(20, &deep), (0, &shallow), (20, &deep), (5, &fresh(5))] {
                p.out.clear();
                p.depth = depth;
                p.print_type(t);
                assert_eq!(&p.out, want, "at depth {depth}");
            }
        };
        // Two thousand nested types take more than a test thread's stack in a debug build.
        let spawned = std::thread::Builder::new().stack_size(64 << 20).spawn(run);
        spawned.expect("thread starts").join().expect("test passes");
    }
}
