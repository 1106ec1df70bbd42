//! Conversions between StableHLO and VHLO, and between VHLO versions.
//!
//! - [`legalize_to_vhlo`]: StableHLO (with `func`) to VHLO at the current version, as upstream's
//!   `stablehlo-legalize-to-vhlo`.
//! - [`vhlo_to_version`]: downgrade or upgrade every VHLO op to a target version, checking that
//!   every op, type and attribute is legal there; every blocker is reported in one pass.
//! - [`legalize_to_stablehlo`]: VHLO at any version back to StableHLO.
//! - [`minimum_version`]: the smallest target a VHLO program can be converted to.
//!
//! All of them work on a copy and replace the module only on success, so a failed conversion
//! leaves the input as it was.

mod attrs;
mod fold;
mod legality;
mod ops;
mod strict;
mod types;

pub use crate::text::verify::{diagnostics_to_text, Diagnostic, Diagnostics};
pub use strict::{
    location_losses, losses_to_stablehlo, shadowed_on_reading, FILE_LINE_COL_RANGE_VERSION,
};

pub(crate) use crate::text::verify::diag;

use crate::ir::{
    AttrData, Attribute, FastMap, Module, NamedAttr, OpId, Param, Type, TypeData, Value,
};
use crate::version::{Version, VersionError};
use crate::vhlo::{self, StablehloOp, VhloAttr, VhloEnum, VhloOp, VhloType};

/// Prints a location as MLIR does inside `loc(...)`: the text printer's, so messages and text
/// agree.
pub use crate::text::location_to_string;

use crate::text::verify::{interned_within_limit, nesting_within_limit, regions_too_deep};

/// [`nesting_within_limit`] and [`all_ops`] in one walk (the same pre-order as
/// [`Module::walk`]).
fn checked_ops(m: &Module) -> Result<Vec<OpId>, Vec<Diagnostic>> {
    let mut ops = Vec::with_capacity(m.num_ops());
    // The blocks being walked, each with the ops still to visit and its depth: a block's ops
    // are not copied onto the stack (a 100k-op block would take 1.6 MB of fresh pages).
    let mut stack = vec![(m.top_ops().iter(), 0usize)];
    while let Some((rest, depth)) = stack.last_mut() {
        let depth = *depth;
        let Some(&op) = rest.next() else {
            stack.pop();
            continue;
        };
        ops.push(op);
        let regions = m.regions(op);
        if regions.is_empty() {
            continue;
        }
        if depth + 1 > crate::ir::MAX_NESTING {
            return Err(regions_too_deep());
        }
        for &r in regions.iter().rev() {
            for &b in m.blocks(r).iter().rev() {
                stack.push((m.block_ops(b).iter(), depth + 1));
            }
        }
    }
    interned_within_limit(m)?;
    Ok(ops)
}

/// Options of [`legalize_to_vhlo`].
#[derive(Clone, Copy, Debug, Default)]
pub struct LegalizeOptions {
    /// Keep ops, types and attributes of other dialects instead of failing (upstream's
    /// `allow-other-dialects`, for "mixed" programs).
    pub allow_other_dialects: bool,
    /// Refuse what the legalization would drop (a discardable attribute that an inherent one
    /// of the same name replaces) instead of dropping it.
    pub strict: bool,
    /// Write the program without verifying it first (upstream's
    /// `--mlir-very-unsafe-disable-verifier-on-parsing`): for those who must. A program that
    /// breaks a rule may then be written, and refused by its reader.
    pub skip_verification: bool,
}

/// Whether libStablehlo's conversion rewrites an op of this name (into VHLO).
fn is_converted(name: &str) -> bool {
    ["stablehlo.", "vhlo.", "func."]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Whether the conversion to VHLO changes a value's type (or has changed it): every type but
/// those of other dialects, which it keeps (`!shape.size`; `!shape.witness` becomes VHLO's).
fn type_changes(m: &Module, t: Type) -> bool {
    match m.type_data(t) {
        TypeData::Dialect(d) => {
            let (dialect, mnemonic) = (m.str(d.dialect), m.str(d.mnemonic));
            matches!(dialect, "vhlo" | "stablehlo" | "quant" | "builtin")
                || (dialect, mnemonic) == ("shape", "witness")
        }
        _ => true,
    }
}

/// The values that ops the conversion rewrites take as operands.
fn values_used_by_converted(m: &Module) -> crate::ir::FastSet<Value> {
    let mut used = crate::ir::FastSet::default();
    m.walk(|op| {
        if is_converted(m.op_name_str(op)) {
            used.extend(m.operands(op).iter().copied());
        }
    });
    used
}

/// Why libStablehlo's conversion without allow_other_dialects fails on `op` (of another
/// dialect), if it does: it keeps such an op as it is, so a value whose type it changes may
/// not pass between the op and a converted one (it would need a cast; "failed to legalize").
fn crossing(m: &Module, op: OpId, used_by_converted: &crate::ir::FastSet<Value>) -> Option<String> {
    let converted_def = |v: Value| match m.value_def(v) {
        crate::ir::ValueDef::Result { op, .. } => is_converted(m.op_name_str(op)),
        crate::ir::ValueDef::Argument { block, .. } => (m.block_parent(block))
            .and_then(|r| m.region_parent(r))
            .is_some_and(|o| is_converted(m.op_name_str(o))),
    };
    let why = |what: &str, v: Value| {
        Some(format!(
            "{what} of type `{}`, which becomes a VHLO type while this op is kept as it is (libStablehlo refuses it; allow other dialects to keep it)",
            crate::text::type_to_string(m, m.value_type(v))
        ))
    };
    for &v in m.operands(op) {
        if converted_def(v) && type_changes(m, m.value_type(v)) {
            return why("it takes a value from a converted op", v);
        }
    }
    let made = m.results(op).chain(
        (m.regions(op).iter())
            .flat_map(|&r| m.blocks(r))
            .flat_map(|&b| m.block_args(b).iter().copied()),
    );
    for v in made {
        if used_by_converted.contains(&v) && type_changes(m, m.value_type(v)) {
            return why("a converted op uses its value", v);
        }
    }
    None
}

fn all_ops(m: &Module) -> Vec<OpId> {
    let mut ops = Vec::new();
    m.walk(|op| ops.push(op));
    ops
}

/// VHLO op kinds by op-name symbol: each name is matched against the registry once per pass.
#[derive(Default)]
struct OpKinds(Vec<Option<Option<VhloOp>>>);

impl OpKinds {
    #[inline]
    fn of(&mut self, m: &Module, op: OpId) -> Option<VhloOp> {
        let name = m.op_name(op);
        if let Some(Some(k)) = self.0.get(name.index()) {
            return *k;
        }
        let k = VhloOp::from_name(m.str(name));
        if self.0.len() <= name.index() {
            self.0.resize(name.index() + 1, None);
        }
        self.0[name.index()] = Some(k);
        k
    }
}

/// What a chain of property-only upgrades made of an op: its new name, its properties
/// (sorted) and the kinds it stepped from, in order.
struct UpgradeResult {
    name: crate::ir::Symbol,
    props: Box<[NamedAttr]>,
    from: Box<[VhloOp]>,
}

/// Results of a conversion by op kind and attribute lists (what the conversion depends on):
/// ops alike convert once. `key` is the reused lookup key: the kind and the number of
/// properties, then the properties and the discardable attributes (when they count), each
/// entry one `u64` (a slice of integers hashes as one run of bytes).
struct AttrListMemo<V> {
    map: FastMap<Box<[u64]>, V>,
    key: Vec<u64>,
    /// Set when the key is that of a conversion to be inserted once it succeeds.
    pending: bool,
}

impl<V> Default for AttrListMemo<V> {
    fn default() -> Self {
        AttrListMemo {
            map: FastMap::default(),
            key: Vec::new(),
            pending: false,
        }
    }
}

impl<V> AttrListMemo<V> {
    /// Sets the key to `op`'s (`kind` is the op kind's index), with its discardable attributes
    /// when `with_attributes`.
    fn key_of(&mut self, m: &Module, op: OpId, kind: u32, with_attributes: bool) {
        let entry = |a: &NamedAttr| (u64::from(a.name.0) << 32) | u64::from(a.value.0);
        let p = m.properties(op);
        self.key.clear();
        self.key.push((u64::from(kind) << 32) | p.len() as u64);
        self.key.extend(p.iter().map(entry));
        if with_attributes {
            self.key.extend(m.attributes(op).iter().map(entry));
        }
    }

    fn get(&self) -> Option<&V> {
        self.map.get(self.key.as_slice())
    }

    fn insert(&mut self, value: V) {
        self.map.insert(self.key.as_slice().into(), value);
    }
}

/// Upgrades by op kind and properties (the upgrade reads nothing else).
type UpgradeMemo = AttrListMemo<UpgradeResult>;

/// Converted attributes by op kind, properties and discardable attributes.
type AttrsMemo = AttrListMemo<ConvertedAttrs>;

/// Converted properties and discardable attributes.
type ConvertedAttrs = (Vec<NamedAttr>, Vec<NamedAttr>);

/// The results of a type conversion, by type id (types are interned, so each distinct type is
/// converted once per pass). Failures are not kept: they end the pass anyway.
#[derive(Default)]
struct TypeMemo(Vec<Option<Type>>);

impl TypeMemo {
    fn convert(
        &mut self,
        m: &mut Module,
        t: Type,
        f: impl FnOnce(&mut Module, Type) -> Result<Type, String>,
    ) -> Result<Type, String> {
        if let Some(Some(done)) = self.0.get(t.index()) {
            return Ok(*done);
        }
        let done = f(m, t)?;
        if self.0.len() <= t.index() {
            self.0.resize(t.index() + 1, None);
        }
        self.0[t.index()] = Some(done);
        Ok(done)
    }
}

/// Whether a type is a function type (no StableHLO op takes one), by type id: each type is
/// looked at once (1 function-typed, 2 not).
#[derive(Default)]
struct FunctionTypes(Vec<u8>);

impl FunctionTypes {
    #[inline]
    fn is(&mut self, m: &Module, t: Type) -> bool {
        match self.0.get(t.index()) {
            Some(&2) => false,
            Some(&1) => true,
            _ => self.look(m, t),
        }
    }

    #[cold]
    #[inline(never)]
    fn look(&mut self, m: &Module, t: Type) -> bool {
        let yes = match m.type_data(t) {
            TypeData::Function { .. } => true,
            TypeData::Dialect(_) => VhloType::of(m, t) == Some(VhloType::FuncV1),
            _ => false,
        };
        if self.0.len() <= t.index() {
            self.0.resize(t.index() + 1, 0);
        }
        if let Some(slot) = self.0.get_mut(t.index()) {
            *slot = if yes { 1 } else { 2 };
        }
        yes
    }
}

/// Converts value types of `op`'s results and region arguments with `f`.
fn convert_value_types(
    m: &mut Module,
    op: OpId,
    mut f: impl FnMut(&mut Module, Type) -> Result<Type, String>,
) -> Result<(), String> {
    for i in 0..m.num_results(op) {
        if let Some(v) = m.result(op, i) {
            let nt = f(m, m.value_type(v))?;
            m.set_value_type(v, nt);
        }
    }
    for r in 0..m.regions(op).len() {
        let Some(&region) = m.regions(op).get(r) else {
            break;
        };
        for b in 0..m.blocks(region).len() {
            let Some(&block) = m.blocks(region).get(b) else {
                break;
            };
            for i in 0..m.block_args(block).len() {
                if let Some(&v) = m.block_args(block).get(i) {
                    let nt = f(m, m.value_type(v))?;
                    m.set_value_type(v, nt);
                }
            }
        }
    }
    Ok(())
}

/// StableHLO (and `func.func`/`func.call`/`func.return`) to VHLO at the current version.
/// On failure `m` is left as it was.
pub fn legalize_to_vhlo(m: &mut Module, opts: LegalizeOptions) -> Result<(), Diagnostics> {
    transactional(m, |w| legalize_to_vhlo_in_place(w, opts))
}

/// Runs `f` on a copy of `m` and keeps the copy only when `f` succeeds.
fn transactional<T>(
    m: &mut Module,
    f: impl FnOnce(&mut Module) -> Result<T, Vec<Diagnostic>>,
) -> Result<T, Diagnostics> {
    let mut w = m.clone();
    let r = f(&mut w).map_err(Diagnostics)?;
    *m = w;
    Ok(r)
}

/// [`legalize_to_vhlo`] without the copy: on failure `m` is left half converted (for callers
/// that drop it then, such as the portable-artifact API).
pub(crate) fn legalize_to_vhlo_in_place(
    w: &mut Module,
    opts: LegalizeOptions,
) -> Result<(), Vec<Diagnostic>> {
    // The nesting limit first: the verifier below walks the program.
    nesting_within_limit(w)?;
    // As libStablehlo verifies before it serializes: a program it would refuse is not written.
    if !opts.skip_verification {
        let (problems, _) = crate::text::verify::verify_parts(w, crate::text::verify::Parts::ALL);
        if !problems.is_empty() {
            return Err(problems);
        }
    }
    // As libStablehlo's conversion folds them before it converts: ops of other dialects that
    // forward an operand are replaced by it (fold.rs).
    fold::fold_forwarding_ops(w);
    let allow = opts.allow_other_dialects;
    let mut diags = Vec::new();
    // Whether the last op of the first block of `op`'s first region is a StableHLO op.
    let body_ends_in_stablehlo = |w: &Module, op: OpId| {
        let last = w
            .regions(op)
            .first()
            .and_then(|&r| w.blocks(r).first())
            .and_then(|&b| w.block_ops(b).last());
        last.is_some_and(|&t| StablehloOp::from_name(w.op_name_str(t)).is_some())
    };
    // Without allow_other_dialects: the values converted ops use (made on the first op of
    // another dialect; see `crossing`).
    let mut used_by_converted: Option<crate::ir::FastSet<Value>> = None;
    let mut type_memo = TypeMemo::default();
    let mut attrs_memo = AttrsMemo::default();
    // StableHLO op kinds by op-name symbol (matched once per name).
    let mut kinds: Vec<Option<Option<StablehloOp>>> = Vec::new();
    for op in all_ops(w) {
        let sym = w.op_name(op);
        let known = kinds.get(sym.index()).copied().flatten();
        let kind = match known {
            Some(k) => k,
            None => {
                let k = StablehloOp::from_name(w.str(sym));
                if kinds.len() <= sym.index() {
                    kinds.resize(sym.index() + 1, None);
                }
                kinds[sym.index()] = Some(k);
                k
            }
        };
        let Some(k) = kind else {
            let name = w.str(sym).to_string();
            if allow && name == "chlo.scan" && body_ends_in_stablehlo(w, op) {
                // chlo.scan infers its result types from its body's terminator (ChloOps.cpp,
                // InferTensorType); once that terminator is a VHLO op the inference fails, and
                // libStablehlo's serializer refuses the program ("terminator operand 0 is not
                // ranked").
                diags.push(diag(
                    w,
                    op,
                    "op `chlo.scan`".to_string(),
                    None,
                    "its body's StableHLO terminator becomes VHLO, from which chlo.scan cannot infer its result types (libStablehlo refuses it)",
                ));
                continue;
            }
            // libStablehlo's conversion marks `func` illegal and converts only func.func,
            // func.call and func.return: any other op of it is refused, even with other dialects
            // allowed.
            if name.starts_with("func.") {
                let why = format!(
                    "failed to legalize operation '{name}' that was explicitly marked illegal: the conversion to VHLO takes func.func, func.call and func.return, and no other op of func"
                );
                diags.push(diag(w, op, format!("op `{name}`"), None, &why));
                continue;
            }
            // A branch of another dialect (cf.br) to a block whose arguments have builtin types:
            // those become VHLO types, the branch's operands do not, and libStablehlo's
            // serializer refuses the program ("type mismatch for bb argument").
            let builtin_arg = w.successors(op).iter().any(|&b| {
                w.block_args(b)
                    .iter()
                    // (A function's blocks may have been converted already: VHLO types count.)
                    .any(|&a| match w.type_data(w.value_type(a)) {
                        TypeData::Dialect(d) => w.str(d.dialect) == "vhlo",
                        _ => true,
                    })
            });
            if allow && builtin_arg {
                diags.push(diag(
                    w,
                    op,
                    format!("op `{name}`"),
                    None,
                    "it passes values to a block whose arguments become VHLO types while its operands do not (libStablehlo refuses it)",
                ));
                continue;
            }
            if name == "builtin.module" || name.starts_with("vhlo.") {
                continue;
            }
            if allow {
                // Kept, unless libStablehlo could not read it back.
                let (dialect, short) = name.split_once('.').unwrap_or(("", ""));
                if let Some(why) = crate::dialect::unknown_to_libstablehlo(dialect) {
                    diags.push(diag(w, op, format!("op `{name}`"), None, &why));
                }
                // An op a dialect whose every op the spec lists does not have.
                let cd = crate::vhlo::codec_dialect(dialect);
                if cd.is_some_and(|cd| {
                    cd.ops_complete && !cd.allows_unknown_ops && cd.op(short).is_none()
                }) {
                    let why = format!(
                        "is not an op of dialect '{dialect}' (spec/dialects/{dialect}.yaml lists every op libStablehlo registers): it would refuse to read the artifact"
                    );
                    diags.push(diag(w, op, format!("op `{name}`"), None, &why));
                }
                continue;
            }
            // Kept as it is, as libStablehlo's conversion keeps it, unless a value crosses between
            // it and a converted op with a type the conversion changes.
            let used = used_by_converted.get_or_insert_with(|| values_used_by_converted(w));
            if let Some(why) = crossing(w, op, used) {
                diags.push(diag(w, op, format!("op `{name}`"), None, &why));
            }
            let dialect = name.split_once('.').map_or("", |(d, _)| d);
            if let Some(why) = crate::dialect::unknown_to_libstablehlo(dialect) {
                diags.push(diag(w, op, format!("op `{name}`"), None, &why));
            }
            continue;
        };
        if opts.strict {
            diags.extend(strict::shadowed_on_legalize(w, op, k));
        }
        attrs_memo.key_of(w, op, k as u32, true);
        let converted = match attrs_memo.get() {
            Some((props, disc)) => {
                w.set_properties(op, props);
                w.set_attributes(op, disc);
                Ok(None)
            }
            None => {
                // MLIR's verifier would have refused the StableHLO op before serializing.
                let wrong = crate::text::verify::ods::violations(w, k, w.properties(op));
                if wrong.is_empty() {
                    ops::attrs_to_vhlo(w, op, k, allow).map(|(props, disc)| {
                        Some((ops::to_named(w, props), ops::to_named(w, disc)))
                    })
                } else {
                    Err(wrong)
                }
            }
        };
        match converted {
            Ok(None) => {}
            Ok(Some((props, disc))) => {
                w.set_properties(op, &props);
                w.set_attributes(op, &disc);
                attrs_memo.insert((props, disc));
            }
            Err(es) => {
                for e in es {
                    diags.push(diag(w, op, e, None, "no VHLO form"));
                }
            }
        }
        if let Err(e) = convert_value_types(w, op, |m, t| {
            type_memo.convert(m, t, |m, t| types::to_vhlo(m, t, allow))
        }) {
            diags.push(diag(w, op, e, None, "no VHLO form"));
        }
        let sym = w.sym_static(ops::current_vhlo(k).name());
        w.set_op_name(op, sym);
    }
    if diags.is_empty() && allow {
        insert_mixed_casts(w);
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

fn is_vhlo_type(m: &Module, t: Type) -> bool {
    matches!(m.type_data(t), TypeData::Dialect(d) if m.str(d.dialect) == "vhlo")
}

/// Where a cast of `v` goes: at the start of its block (block arguments) or right after its
/// defining op.
fn cast_position(m: &Module, v: crate::ir::Value) -> Option<(crate::ir::Block, usize)> {
    match m.value_def(v) {
        crate::ir::ValueDef::Argument { block, .. } => Some((block, 0)),
        crate::ir::ValueDef::Result { op, .. } => Some((m.op_parent(op)?, m.op_position(op)? + 1)),
    }
}

/// Mixed programs: `builtin.unrealized_conversion_cast` between VHLO values and ops of other
/// dialects, both ways, as upstream's dialect conversion materializes them (one cast per value,
/// next to its definition).
fn insert_mixed_casts(m: &mut Module) {
    use std::collections::BTreeMap;
    let mut to_builtin: BTreeMap<crate::ir::Value, crate::ir::Value> = BTreeMap::new();
    let mut to_vhlo: BTreeMap<crate::ir::Value, crate::ir::Value> = BTreeMap::new();
    let cast_name = m.sym("builtin.unrealized_conversion_cast");
    for op in all_ops(m) {
        let name = m.op_name_str(op);
        if name == "builtin.module" || name == "builtin.unrealized_conversion_cast" {
            continue;
        }
        let is_vhlo_op = name.starts_with("vhlo.");
        let mut operands = m.operands(op).to_vec();
        let mut changed = false;
        for v in operands.iter_mut() {
            let t = m.value_type(*v);
            let vhlo_value = is_vhlo_type(m, t);
            if is_vhlo_op == vhlo_value {
                continue;
            }
            let (cache, target) = if vhlo_value {
                (&mut to_builtin, types::from_vhlo(m, t))
            } else {
                (&mut to_vhlo, types::to_vhlo(m, t, true))
            };
            let Ok(target) = target else { continue };
            if target == t {
                continue;
            }
            let cast_result = match cache.get(v) {
                Some(&c) => c,
                None => {
                    let Some((block, at)) = cast_position(m, *v) else {
                        continue;
                    };
                    // Where upstream's conversion puts it: a cast to VHLO at the VHLO op that
                    // needs it; a cast back at the value's definition (its op, or the block
                    // argument's own location).
                    let loc = match (vhlo_value, m.value_def(*v)) {
                        (false, _) => m.op_location(op),
                        (true, crate::ir::ValueDef::Result { op: def, .. }) => m.op_location(def),
                        (true, crate::ir::ValueDef::Argument { .. }) => m.value_location(*v),
                    };
                    let mut st = crate::ir::OperationState::new(cast_name, loc);
                    st.operands = vec![*v];
                    st.result_types = vec![target];
                    let cast = m.create_op(st);
                    m.insert_op(block, at, cast);
                    let Some(r) = m.result(cast, 0) else { continue };
                    cache.insert(*v, r);
                    r
                }
            };
            *v = cast_result;
            changed = true;
        }
        if changed {
            m.set_operands(op, &operands);
        }
    }
}

/// The version named by a target string: `current`, `minimum` or `X.Y.Z` (patch floored to 0,
/// since opsets change only in minor releases). Targets outside the supported range are errors.
pub fn parse_target(s: &str) -> Result<Version, VersionError> {
    let v = match s {
        "current" => vhlo::CURRENT_VERSION,
        "minimum" => vhlo::MINIMUM_VERSION,
        _ => Version::parse(s)?,
    };
    check_target(v)
}

/// Checks a target against the supported range and floors its patch.
pub fn check_target(v: Version) -> Result<Version, VersionError> {
    // As upstream: compared before flooring, so 1.20.5 is past a current 1.20.0.
    if v > vhlo::CURRENT_VERSION {
        return Err(VersionError::TooNew {
            target: v,
            current: vhlo::CURRENT_VERSION,
        });
    }
    if v < vhlo::MINIMUM_VERSION {
        return Err(VersionError::TooOld {
            target: v,
            minimum: vhlo::MINIMUM_VERSION,
        });
    }
    Ok(v.floor_patch())
}

fn range_min_of_type(m: &Module, t: Type) -> Option<(String, crate::version::VersionRange)> {
    let TypeData::Dialect(d) = m.type_data(t) else {
        return None;
    };
    if m.str(d.dialect) != "vhlo" {
        return None;
    }
    VhloType::from_mnemonic(m.str(d.mnemonic))
        .map(|k| (format!("type `!vhlo.{}`", k.mnemonic()), k.range()))
}

/// Types and attributes inside `t` (itself included) that are not legal at `target`.
fn illegal_in_type(
    m: &Module,
    t: Type,
    target: Version,
    out: &mut Vec<(String, Option<Version>)>,
    depth: usize,
) {
    if depth > 256 {
        return;
    }
    if let Some((what, range)) = range_min_of_type(m, t) {
        if !range.contains(target) {
            out.push((what, Some(range.min)));
        }
    }
    match m.type_data(t) {
        TypeData::Dialect(d) => {
            for p in d.params.iter() {
                illegal_in_param(m, p, target, out, depth + 1);
            }
        }
        TypeData::Complex(e) | TypeData::UnrankedTensor { element: e } => {
            illegal_in_type(m, *e, target, out, depth + 1)
        }
        TypeData::RankedTensor {
            element, encoding, ..
        } => {
            illegal_in_type(m, *element, target, out, depth + 1);
            if let Some(a) = encoding {
                illegal_in_attr(m, *a, target, out, depth + 1);
            }
        }
        TypeData::Tuple(ts) => ts
            .iter()
            .for_each(|&x| illegal_in_type(m, x, target, out, depth + 1)),
        TypeData::Function { inputs, results } => inputs
            .iter()
            .chain(results.iter())
            .for_each(|&x| illegal_in_type(m, x, target, out, depth + 1)),
        _ => {}
    }
}

fn illegal_in_param(
    m: &Module,
    p: &Param,
    target: Version,
    out: &mut Vec<(String, Option<Version>)>,
    depth: usize,
) {
    match p {
        Param::Type(t) => illegal_in_type(m, *t, target, out, depth),
        Param::Types(ts) => ts
            .iter()
            .for_each(|&t| illegal_in_type(m, t, target, out, depth)),
        Param::Attr(a) => illegal_in_attr(m, *a, target, out, depth),
        Param::Attrs(xs) => xs
            .iter()
            .for_each(|&a| illegal_in_attr(m, a, target, out, depth)),
        Param::AttrPairs(xs) => xs.iter().for_each(|&(a, b)| {
            illegal_in_attr(m, a, target, out, depth);
            illegal_in_attr(m, b, target, out, depth);
        }),
        _ => {}
    }
}

fn illegal_in_attr(
    m: &Module,
    a: Attribute,
    target: Version,
    out: &mut Vec<(String, Option<Version>)>,
    depth: usize,
) {
    if depth > 256 {
        return;
    }
    match m.attr_data(a) {
        AttrData::Dialect(d) if m.str(d.dialect) == "vhlo" => {
            let mn = m.str(d.mnemonic);
            let range = VhloAttr::from_mnemonic(mn)
                .map(|k| (format!("attribute `#vhlo.{mn}`"), k.range()))
                .or_else(|| {
                    VhloEnum::from_mnemonic(mn)
                        .map(|k| (format!("attribute `#vhlo<{mn}>`"), k.range()))
                });
            if let Some((what, range)) = range {
                if !range.contains(target) {
                    out.push((what, Some(range.min)));
                }
            }
            // A case added after its enum (spec `since:` on the case), as upstream refuses
            // `API_VERSION_TYPED_FFI` before 1.3.0.
            if let (Some(k), [Param::Int(v)]) = (VhloEnum::from_mnemonic(mn), &d.params[..]) {
                if let Some(since) = k.case_since(*v).filter(|&s| s > target) {
                    let case = k.case_name(*v).unwrap_or("?");
                    out.push((
                        format!("case `{case}` of `#vhlo<{mn}>` (added in {since})"),
                        Some(since),
                    ));
                }
            }
            // Upstream's attribute verifiers: dictionary keys and accuracy modes must be VHLO.
            let is_vhlo = |a: Attribute| matches!(m.attr_data(a), AttrData::Dialect(x) if m.str(x.dialect) == "vhlo");
            let is_mode = |a: Attribute| matches!(m.attr_data(a), AttrData::Dialect(x) if m.str(x.dialect) == "vhlo" && m.str(x.mnemonic) == VhloEnum::ResultAccuracyModeV1.mnemonic());
            match (VhloAttr::from_mnemonic(mn), &d.params[..]) {
                (Some(k @ VhloAttr::DictV1), [Param::AttrPairs(pairs)])
                    if pairs.iter().any(|&(k, _)| !is_vhlo(k)) =>
                {
                    out.push((
                        format!("expected VHLO key attribute in `#vhlo.{}`", k.mnemonic()),
                        None,
                    ));
                }
                (Some(k @ VhloAttr::ResultAccuracyV1), [_, _, _, Param::Attr(mode)])
                    if !is_mode(*mode) =>
                {
                    out.push((
                        format!(
                            "expected VHLO result accuracy mode in `#vhlo.{}`",
                            k.mnemonic()
                        ),
                        None,
                    ));
                }
                _ => {}
            }
            for p in d.params.iter() {
                illegal_in_param(m, p, target, out, depth + 1);
            }
        }
        AttrData::Dialect(d) => d
            .params
            .iter()
            .for_each(|p| illegal_in_param(m, p, target, out, depth + 1)),
        AttrData::Type(t) => illegal_in_type(m, *t, target, out, depth + 1),
        AttrData::Array(xs) => xs
            .iter()
            .for_each(|&x| illegal_in_attr(m, x, target, out, depth + 1)),
        AttrData::Dictionary(xs) => xs
            .iter()
            .for_each(|&(_, x)| illegal_in_attr(m, x, target, out, depth + 1)),
        _ => {}
    }
}

/// Converts every VHLO op to the version of its op legal at `target` (downgrading or upgrading
/// step by step), then checks that every type and attribute is legal there. Reports every
/// blocker at once.
pub fn vhlo_to_version(m: &mut Module, target: Version) -> Result<(), Diagnostics> {
    vhlo_to_version_tracked(m, target).map(|_| ())
}

/// One version step [`vhlo_to_version_tracked`] applied: `op` was rewritten from `from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionStep {
    pub op: OpId,
    pub from: VhloOp,
}

/// [`vhlo_to_version`], also returning its version steps in the order they were applied (what
/// [`artifact_use_list_orders`] needs).
pub fn vhlo_to_version_tracked(
    m: &mut Module,
    target: Version,
) -> Result<Vec<VersionStep>, Diagnostics> {
    transactional(m, |w| vhlo_to_version_in_place(w, target))
}

/// [`vhlo_to_version_tracked`] without the copy (on failure `w` is left half converted).
/// How `op`'s operand, result, region or successor counts break `kind`'s signature, if they do.
/// Variadic groups share what the single ones leave equally (`SameVariadicOperandSize`).
fn arity_problem(w: &Module, op: OpId, kind: VhloOp) -> Option<String> {
    fn fits(groups: &[(&str, bool)], len: usize) -> bool {
        let variadic = groups.iter().filter(|g| g.1).count();
        crate::dialect::variadic_group_size(len, groups.len() - variadic, variadic).is_some()
    }
    let expected = |groups: &[(&str, bool)]| {
        let names: Vec<String> = groups
            .iter()
            .map(|(n, v)| {
                if *v {
                    format!("{n}*")
                } else {
                    (*n).to_string()
                }
            })
            .collect();
        format!("({})", names.join(", "))
    };
    let range = kind.range();
    let checks = [
        ("operands", kind.operand_groups(), w.operands(op).len()),
        ("results", kind.result_groups(), w.num_results(op)),
        ("regions", kind.region_groups(), w.regions(op).len()),
    ];
    for (what, groups, len) in checks {
        if !fits(groups, len) {
            return Some(format!(
                "{len} {what} where `{}` ({range}) takes {}",
                kind.name(),
                expected(groups)
            ));
        }
    }
    let successors = w.successors(op).len();
    (successors != 0).then(|| format!("{successors} successors where VHLO ops take none"))
}

pub(crate) fn vhlo_to_version_in_place(
    w: &mut Module,
    target: Version,
) -> Result<Vec<VersionStep>, Vec<Diagnostic>> {
    let ops = checked_ops(w)?;
    version_ops(w, &ops, target, &mut Vec::new())
}

/// The version pass over `ops` (every op, in walk order). `final_kinds` gets each op's VHLO kind
/// after its steps, by op index (what the legalization to StableHLO needs next).
fn version_ops(
    w: &mut Module,
    ops: &[OpId],
    target: Version,
    final_kinds: &mut Vec<Option<VhloOp>>,
) -> Result<Vec<VersionStep>, Vec<Diagnostic>> {
    // Writable, the checks never stop for want of it.
    version_ops_with(Access::Write(w), ops, target, final_kinds).unwrap_or_else(|| Ok(Vec::new()))
}

/// The module as [`version_ops_with`] holds it: read-only, the checks stop at the first op
/// that needs a version step (which writes).
enum Access<'a> {
    Read(&'a Module),
    Write(&'a mut Module),
}

impl Access<'_> {
    fn m(&self) -> &Module {
        match self {
            Access::Read(m) => m,
            Access::Write(w) => w,
        }
    }
}

/// [`version_ops`]; None when an op needs a version step and `access` is read-only.
fn version_ops_with(
    mut access: Access<'_>,
    ops: &[OpId],
    target: Version,
    final_kinds: &mut Vec<Option<VhloOp>>,
) -> Option<Result<Vec<VersionStep>, Vec<Diagnostic>>> {
    let mut rewritten = Vec::new();
    let target = match check_target(target) {
        Ok(t) => t,
        Err(e) => {
            return Some(Err(vec![Diagnostic {
                op: String::new(),
                location: "unknown".into(),
                subject: e.to_string(),
                needs: None,
                rule: "target version".into(),
            }]))
        }
    };
    let mut diags = Vec::new();
    let mut legal = legality::Legality::new(target);
    let mut kinds = OpKinds::default();
    let mut sort_orders: FastMap<Box<[crate::ir::Symbol]>, Option<Vec<usize>>> = FastMap::default();
    let mut names: Vec<crate::ir::Symbol> = Vec::new();
    let mut sorted: Vec<NamedAttr> = Vec::new();
    let mut upgrades = UpgradeMemo::default();
    // The operand, result and region counts last found to fit each kind: ops of one kind mostly
    // have the same ones, so the signature is checked once for them.
    let mut fitting: Vec<Option<[usize; 3]>> = vec![None; VhloOp::ALL.len()];
    // Per kind: whether the op version is legal at the target, and whether its feature checks
    // can find anything there (not at or past the newest release they need).
    let verdict = |k: VhloOp| {
        let features = vhlo::newest_feature_of(k).is_some_and(|v| target < v);
        (k.range().contains(target), features)
    };
    let mut at_target: Vec<Option<(bool, bool)>> = vec![None; VhloOp::ALL.len()];
    for &k in VhloOp::ALL {
        if let Some(slot) = at_target.get_mut(k as usize) {
            *slot = Some(verdict(k));
        }
    }
    let at_target = |k: VhloOp| {
        at_target
            .get(k as usize)
            .copied()
            .flatten()
            .unwrap_or_else(|| verdict(k))
    };
    final_kinds.clear();
    final_kinds.resize(access.m().num_ops(), None);
    let mut found = Vec::new();
    for &op in ops {
        let w = access.m();
        // Diagnostics name the op as the input spelled it, before any version step.
        let first = diags.len();
        let original = w.op_name(op);
        let first_step = rewritten.len();
        // MLIR verifies every VHLO op's operand, result and region counts against its ODS
        // signature when it reads a program; a step or a legalization relies on them.
        let start_kind = kinds.of(w, op);
        if let Some(kind) = start_kind {
            let counts = [w.operands(op).len(), w.num_results(op), w.regions(op).len()];
            let slot = fitting.get_mut(kind as usize);
            let known = slot.as_ref().is_some_and(|s| **s == Some(counts));
            if !known || !w.successors(op).is_empty() {
                if let Some(problem) = arity_problem(w, op, kind) {
                    diags.push(diag(w, op, problem, None, "malformed VHLO"));
                    continue;
                }
                if let Some(slot) = slot {
                    *slot = Some(counts);
                }
            }
        }
        let mut kind = start_kind;
        // Most ops are legal at the target already: no step.
        if start_kind.is_some_and(|k| !at_target(k).0) {
            let Access::Write(w) = &mut access else {
                return None;
            };
            let (stepped, from_memo) = step_op(
                w,
                op,
                target,
                start_kind,
                (&mut kinds, &mut upgrades, &mut rewritten, &mut diags),
            );
            kind = stepped;
            // Change rules append added attributes; MLIR keeps properties sorted by name
            // (readers and the parser sort them, so only rewritten ops can be out of order).
            // Ops stepped alike have the same names in the same order, so the sorting order
            // is worked out once per name list. A memoized result is sorted already.
            if rewritten.len() > first_step && !from_memo {
                names.clear();
                names.extend(w.properties(op).iter().map(|a| a.name));
                let order = match sort_orders.get(names.as_slice()) {
                    Some(o) => o,
                    None => {
                        let mut o: Vec<usize> = (0..names.len()).collect();
                        o.sort_by(|&a, &b| w.str(names[a]).cmp(w.str(names[b])));
                        let o = (o.iter().enumerate().any(|(i, &j)| i != j)).then_some(o);
                        sort_orders
                            .entry(names.clone().into_boxed_slice())
                            .or_insert(o)
                    }
                };
                if let Some(order) = order {
                    let props = w.properties(op);
                    sorted.clear();
                    sorted.extend(order.iter().filter_map(|&i| props.get(i).copied()));
                    w.set_properties(op, &sorted);
                }
                if upgrades.pending && diags.len() == first {
                    let from = rewritten[first_step..].iter().map(|s| s.from).collect();
                    upgrades.insert(UpgradeResult {
                        name: w.op_name(op),
                        props: w.properties(op).into(),
                        from,
                    });
                }
            }
        }
        upgrades.pending = false;
        let w = access.m();
        if let Some(slot) = final_kinds.get_mut(op.index()) {
            *slot = kind;
        }
        // Feature checks find nothing at or past the newest release they need.
        if kind.is_some_and(|k| at_target(k).1) {
            for f in vhlo::feature_uses_of(w, op, kind, target) {
                diags.push(diag(
                    w,
                    op,
                    f.feature.to_string(),
                    Some(f.needs),
                    format!("`{}` at {target} cannot express {}", f.op, f.feature),
                ));
            }
        }
        found.clear();
        for v in w.results(op) {
            let t = w.value_type(v);
            if !legal.type_is_clean(w, t) {
                illegal_in_type(w, t, target, &mut found, 0);
            }
        }
        for &r in w.regions(op) {
            for &b in w.blocks(r) {
                for &v in w.block_args(b) {
                    let t = w.value_type(v);
                    if !legal.type_is_clean(w, t) {
                        illegal_in_type(w, t, target, &mut found, 0);
                    }
                }
            }
        }
        // When the op itself cannot be converted, its attributes are reported by that error.
        let op_failed = diags.len() > first;
        for a in w
            .properties(op)
            .iter()
            .filter(|_| !op_failed)
            .chain(w.attributes(op))
        {
            if legal.attr_is_clean(w, a.value) {
                continue;
            }
            let mut here = Vec::new();
            illegal_in_attr(w, a.value, target, &mut here, 0);
            found.extend(
                here.into_iter()
                    .map(|(what, v)| (format!("{what} in attribute `{}`", w.str(a.name)), v)),
            );
        }
        if !found.is_empty() {
            found.sort();
            found.dedup();
            for (what, v) in found.drain(..) {
                let rule = if v.is_some() {
                    format!("not in the VHLO opset of {target}")
                } else {
                    "malformed VHLO".to_string()
                };
                diags.push(diag(w, op, what, v, rule));
            }
        }
        for d in &mut diags[first..] {
            d.op = w.str(original).to_string();
        }
    }
    Some(if diags.is_empty() {
        Ok(rewritten)
    } else {
        Err(diags)
    })
}

/// Steps `op` (of kind `start_kind`, not legal at `target`) version by version towards
/// `target`, from the upgrade memo when it can; returns its kind after the steps and whether
/// the memo gave them. Leaves `upgrades.pending` set when the result is to be memoized under
/// the key it set.
fn step_op(
    w: &mut Module,
    op: OpId,
    target: Version,
    start_kind: Option<VhloOp>,
    (kinds, upgrades, rewritten, diags): (
        &mut OpKinds,
        &mut UpgradeMemo,
        &mut Vec<VersionStep>,
        &mut Vec<Diagnostic>,
    ),
) -> (Option<VhloOp>, bool) {
    // Ops of one kind with equal properties upgrade alike when no step reads more.
    let memo_key = start_kind
        .filter(|k| target > k.range().max && !k.range().contains(target))
        .filter(|&k| vhlo::upgrade_is_property_only(k))
        .map(|k| upgrades.key_of(w, op, k as u32, false));
    if let Some(hit) = memo_key.and_then(|()| upgrades.get()) {
        let (name, props, from) = (hit.name, &hit.props, &hit.from);
        w.set_properties(op, props);
        w.set_op_name(op, name);
        rewritten.extend(from.iter().map(|&from| VersionStep { op, from }));
        return (kinds.of(w, op), true);
    }
    let mut property_only = memo_key.is_some();
    // Bounded: each step moves one version along a finite chain.
    for _ in 0..64 {
        let Some(kind) = kinds.of(w, op) else {
            break;
        };
        let range = kind.range();
        if range.contains(target) {
            break;
        }
        let step = if target < range.min {
            vhlo::downgrade_op(w, op, kind)
        } else {
            property_only &= vhlo::upgrade_is_property_only(kind);
            vhlo::upgrade_op(w, op, kind)
        };
        match step {
            Ok(Some(_)) => rewritten.push(VersionStep { op, from: kind }),
            Ok(None) => {
                // Said in StableHLO's terms: the user wrote `stablehlo.tan`, not `vhlo.tan_v1`.
                let shlo = kind.stablehlo().name();
                let rule = if target < range.min {
                    format!(
                        "`{shlo}` came in StableHLO {} (as `{}`) and has no older form; the target is {target}",
                        range.min,
                        kind.name(),
                    )
                } else {
                    format!(
                        "`{shlo}` was removed after StableHLO {} (as `{}`) and has no newer form; the target is {target}",
                        range.max,
                        kind.name(),
                    )
                };
                diags.push(diag(
                    w,
                    op,
                    format!("op `{}`", kind.name()),
                    (target < range.min).then_some(range.min),
                    rule,
                ));
                break;
            }
            Err(e) => {
                diags.push(diag(
                    w,
                    op,
                    e.subject.clone(),
                    Some(e.needs),
                    e.rule.clone(),
                ));
                break;
            }
        }
    }
    upgrades.pending = property_only;
    (kinds.of(w, op), false)
}

/// The use-list order records libStablehlo writes for a module it legalized and then converted
/// to a target, where `steps` lists the version steps ([`vhlo_to_version_tracked`]) and
/// `producer` is the libStablehlo release that writes (jaxlib 0.10.2 is 1.17.0): a producer
/// legalizes straight to its own newest op versions, so steps from versions it does not know
/// never happened there.
///
/// MLIR keeps a use list per value, newest use first; a freshly built module has every list in
/// reverse program order, which readers restore without a record. Each version step creates a
/// new op: its operand uses go to the front of their lists, and moving the old op's result uses
/// to it one by one reverses them (docs: shared notes, section 6).
#[doc(hidden)]
pub fn artifact_use_list_orders(
    m: &Module,
    steps: &[VersionStep],
    producer: Version,
) -> std::collections::BTreeMap<crate::ir::Value, crate::bytecode::UseListOrder> {
    use std::collections::BTreeMap;
    // Only values a step touched can leave their natural order (which needs no record).
    let steps: Vec<&VersionStep> = steps
        .iter()
        .filter(|s| s.from.is_legal_in(producer))
        .collect();
    // Mixed programs: upstream's conversion builds each VHLO op on the unconverted operands and
    // then swaps in the cast to VHLO one use at a time, which leaves the cast result's use list
    // in program order (oldest use first) instead of newest first.
    let mut in_program_order = crate::ir::FastSet::default();
    let mut cast_ops = crate::ir::FastSet::default();
    if let Some(cast) = m.lookup_sym("builtin.unrealized_conversion_cast") {
        m.walk(|op| {
            if m.op_name(op) == cast {
                cast_ops.insert(op);
                for r in m.results(op) {
                    if is_vhlo_type(m, m.value_type(r)) {
                        in_program_order.insert(r);
                    }
                }
            }
        });
    }
    if steps.is_empty() && cast_ops.is_empty() {
        return BTreeMap::new();
    }
    let mut touched = in_program_order.clone();
    for s in &steps {
        touched.extend(m.operands(s.op).iter().copied());
        touched.extend(m.results(s.op));
    }
    // Every use of a touched value, grouped by value (a stable sort keeps program order inside
    // a group), each group then reversed: newest use first, as MLIR keeps use lists.
    let mut uses: Vec<(crate::ir::Value, OpId, u32)> = Vec::new();
    m.walk(|op| {
        for (i, &v) in m.operands(op).iter().enumerate() {
            if touched.contains(&v) {
                uses.push((v, op, i as u32));
            }
        }
    });
    uses.sort_by_key(|u| u.0);
    let mut groups: crate::ir::FastMap<crate::ir::Value, std::ops::Range<usize>> =
        Default::default();
    let mut start = 0;
    while start < uses.len() {
        let v = uses[start].0;
        let end = start + uses[start..].iter().take_while(|u| u.0 == v).count();
        if !in_program_order.contains(&v) {
            uses[start..end].reverse();
        }

        groups.insert(v, start..end);
        start = end;
    }
    // Each step makes a new op. Its operand uses join the front of their lists as it is made,
    // newest first, except where the operand's producer was stepped before it: the new op then
    // takes the producer's new result (the conversion's value mapping), whose list the old
    // result's uses join only when the conversion commits, each moved to the front (so reversed,
    // as below); those new uses end up last, newest first. Linear in the uses: one stable sort
    // per value, not one move per use.
    let stepped: crate::ir::FastSet<OpId> = steps.iter().map(|s| s.op).collect();
    let producer_stepped = |v: crate::ir::Value| match m.value_def(v) {
        crate::ir::ValueDef::Result { op, .. } => stepped.contains(&op),
        _ => false,
    };
    // Per value, the new ops' uses of it in the order they were made.
    let mut made: crate::ir::FastMap<crate::ir::Value, Vec<(OpId, u32)>> = Default::default();
    let mut seen = crate::ir::FastSet::default();
    for step in &steps {
        let op = step.op;
        // An op stepped several times (its steps are consecutive) makes its last new op in its
        // first step's place in the walk: its uses count once.
        if seen.insert(op) {
            for (i, &v) in m.operands(op).iter().enumerate() {
                made.entry(v).or_default().push((op, i as u32));
            }
        }
        for r in m.results(op) {
            if let Some(range) = groups.get(&r) {
                uses[range.clone()].reverse();
            }
        }
    }
    for (v, made) in &made {
        if let Some(range) = groups.get(v) {
            let rank: crate::ir::FastMap<(OpId, u32), usize> = made
                .iter()
                .rev()
                .enumerate()
                .map(|(k, &u)| (u, k))
                .collect();
            let new_uses_last = producer_stepped(*v);
            // Stable: the other uses keep their order.
            uses[range.clone()].sort_by_key(|u| match rank.get(&(u.1, u.2)) {
                Some(&k) => (new_uses_last, k),
                None => (!new_uses_last, 0),
            });
        }
    }
    let order = crate::bytecode::OpOrder::new(m);
    let mut out = BTreeMap::new();
    let mut list = Vec::new();
    for chunk in uses.chunk_by(|a, b| a.0 == b.0) {
        list.clear();
        list.extend(chunk.iter().map(|u| (u.1, u.2)));
        if let (Some(first), Some(o)) = (chunk.first(), order.use_list_order(&list)) {
            out.insert(first.0, o);
        }
    }
    out
}

/// VHLO (any version) back to StableHLO: upgrades every op to its current version, then maps
/// it to its StableHLO op, attributes and types.
pub fn legalize_to_stablehlo(m: &mut Module) -> Result<(), Diagnostics> {
    transactional(m, legalize_to_stablehlo_in_place)
}

/// [`legalize_to_stablehlo`] without the copy (on failure `w` is left half converted).
pub(crate) fn legalize_to_stablehlo_in_place(w: &mut Module) -> Result<(), Vec<Diagnostic>> {
    // The version pass leaves each op's kind by op index: no name is matched again.
    let checked = {
        let m: &Module = w;
        let ops = checked_ops(m)?;
        let mut kinds = Vec::new();
        let done = version_ops_with(Access::Read(m), &ops, vhlo::CURRENT_VERSION, &mut kinds);
        let stepped = match done {
            Some(r) => r.map(|_| false)?,
            None => true,
        };
        Ok::<_, Vec<Diagnostic>>((ops, stepped, kinds))
    };
    let (ops_list, stepped, mut kinds) = checked?;
    if stepped {
        version_ops(w, &ops_list, vhlo::CURRENT_VERSION, &mut kinds)?;
    }
    let kind_of = |op: OpId| kinds.get(op.index()).copied().flatten();
    let mut attrs_memo = AttrsMemo::default();
    // StableHLO kinds whose ops without properties or attributes convert to none (most
    // elementwise ops): no memo key to build, nothing to set.
    let mut plain = vec![false; StablehloOp::ALL.len()];
    let mut type_memo = TypeMemo::default();
    let mut diags = Vec::new();
    let mut name_syms: Vec<Option<(&'static str, crate::ir::Symbol)>> =
        vec![None; StablehloOp::ALL.len()];
    // The family of the op holding the last block seen (consecutive ops mostly share one).
    let mut family_of: Option<(crate::ir::Block, Option<&'static str>)> = None;
    let mut function_types = FunctionTypes::default();
    for &op in &ops_list {
        let Some(kind) = kind_of(op) else {
            continue;
        };
        // A `return_v1` becomes `func.return` or `stablehlo.return` by its parent's family.
        let block = w.op_parent(op);
        let family = match (family_of, block) {
            (Some((b, f)), Some(block)) if b == block => f,
            _ => {
                let f = block
                    .and_then(|b| w.block_parent(b))
                    .and_then(|r| w.region_parent(r))
                    .and_then(kind_of)
                    .map(|p| p.family());
                family_of = block.map(|b| (b, f));
                f
            }
        };
        let k = kind.stablehlo();
        let new_name = k.name_under(family);
        let bare = w.properties(op).is_empty() && w.attributes(op).is_empty();
        if bare && plain.get(k as usize).copied().unwrap_or(false) {
            // Converts to no properties and no attributes, which the op has already.
        } else if let Some((p, d)) = {
            // Ops with the same kind and attributes convert alike; only successes are kept.
            attrs_memo.key_of(w, op, k as u32, true);
            attrs_memo.get()
        } {
            // Most ops have no discardable attributes before or after.
            if !(p.is_empty() && w.properties(op).is_empty()) {
                w.set_properties(op, p);
            }
            if !(d.is_empty() && w.attributes(op).is_empty()) {
                w.set_attributes(op, d);
            }
        } else {
            let first = diags.len();
            let props: Vec<(String, Attribute)> = w
                .properties(op)
                .iter()
                .map(|a| (w.str(a.name).to_string(), a.value))
                .collect();
            let mut p = match ops::attrs_from_vhlo(w, k, props) {
                Ok(p) => ops::to_named(w, p),
                Err(es) => {
                    es.into_iter()
                        .for_each(|e| diags.push(diag(w, op, e, None, "malformed VHLO")));
                    Vec::new()
                }
            };
            let mut disc = Vec::new();
            for a in w.attributes(op).to_vec() {
                // Names travel as text here: refuse rather than alter one that is not UTF-8.
                if w.utf8(a.name).is_none() {
                    let what = format!(
                        "attribute name `{}` is not UTF-8 (not supported)",
                        w.str(a.name)
                    );
                    diags.push(diag(w, op, what, None, "malformed VHLO"));
                    continue;
                }
                match attrs::from_vhlo(w, a.value) {
                    Ok(v) => disc.push((w.str(a.name).to_string(), v)),
                    Err(e) => diags.push(diag(
                        w,
                        op,
                        format!("attribute `{}`: {e}", w.str(a.name)),
                        None,
                        "malformed VHLO",
                    )),
                }
            }
            let mut d = ops::to_named(w, disc);
            // MLIR splits an op's attribute dictionary by name: a discardable attribute named
            // like an inherent one of the StableHLO op becomes that property, unless the op has
            // the property already (which wins, as when reading bytecode; `--strict` refuses).
            let inherent = k.attribute_names();
            if d.iter().any(|a| inherent.contains(&w.str(a.name))) {
                let (taken, kept): (Vec<NamedAttr>, Vec<NamedAttr>) =
                    d.iter().partition(|a| inherent.contains(&w.str(a.name)));
                d = kept;
                for a in taken {
                    if !p.iter().any(|x| x.name == a.name) {
                        p.push(a);
                    }
                }
                p.sort_by(|a, b| w.str(a.name).cmp(w.str(b.name)));
            }
            // MLIR's verifier checks the legalized op's attributes against their ODS types.
            for v in crate::text::verify::ods::violations(w, k, &p) {
                diags.push(diag(w, op, v, None, "malformed VHLO"));
            }
            if diags.len() == first {
                if bare && p.is_empty() && d.is_empty() {
                    if let Some(slot) = plain.get_mut(k as usize) {
                        *slot = true;
                    }
                }
                w.set_properties(op, &p);
                w.set_attributes(op, &d);
                attrs_memo.insert((p, d));
            }
        }
        if let Err(e) = convert_value_types(w, op, |m, t| type_memo.convert(m, t, types::from_vhlo))
        {
            diags.push(diag(w, op, e, None, "malformed VHLO"));
        }
        // No StableHLO op's type constraints admit a function-typed value (func ops take any
        // type); MLIR's verifier refuses one, and its text would read as the op's own signature.
        if new_name.starts_with("stablehlo.") {
            let mut found = None;
            for &v in w.operands(op) {
                if function_types.is(w, w.value_type(v)) {
                    found = Some(v);
                    break;
                }
            }
            if found.is_none() {
                for v in w.results(op) {
                    if function_types.is(w, w.value_type(v)) {
                        found = Some(v);
                        break;
                    }
                }
            }
            if let Some(v) = found {
                let what = if w.results(op).any(|r| r == v) {
                    "a result"
                } else {
                    "an operand"
                };
                diags.push(diag(
                    w,
                    op,
                    format!("{what} of function type"),
                    None,
                    "malformed VHLO",
                ));
            }
        }
        // One symbol per StableHLO op (a `return` has two names, so the text is checked too).
        let slot = name_syms.get_mut(k as usize);
        let sym = match slot {
            Some(Some((text, sym))) if std::ptr::eq(*text, new_name) => *sym,
            _ => {
                let sym = w.sym_static(new_name);
                if let Some(slot) = name_syms.get_mut(k as usize) {
                    *slot = Some((new_name, sym));
                }
                sym
            }
        };
        w.set_op_name(op, sym);
    }
    if diags.is_empty() {
        fold_identity_casts(w);
        Ok(())
    } else {
        Err(diags)
    }
}

/// Options of [`legalize_to_stablehlo_with`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ToStablehloOptions {
    /// Refuse what the legalization would drop ([`losses_to_stablehlo`]).
    pub strict: bool,
}

/// [`legalize_to_stablehlo`] with options: when strict, every loss is reported (with the
/// conversion's own blockers) and the module is left as it was.
pub fn legalize_to_stablehlo_with(
    m: &mut Module,
    opts: ToStablehloOptions,
) -> Result<(), Diagnostics> {
    let losses = if opts.strict {
        losses_to_stablehlo(m)
    } else {
        Vec::new()
    };
    if losses.is_empty() {
        return legalize_to_stablehlo(m);
    }
    let mut all = losses;
    if let Err(ds) = legalize_to_stablehlo(&mut m.clone()) {
        all.extend(ds);
    }
    Err(all.into())
}

/// Removes `builtin.unrealized_conversion_cast` ops that became identities (mixed programs
/// after VHLO -> StableHLO), rewiring their users to the cast operand. False when the program
/// has no cast, and so was left as it was.
fn fold_identity_casts(m: &mut Module) -> bool {
    use std::collections::BTreeMap;
    // A program without casts has no such name interned: no walk.
    let Some(cast) = m.lookup_sym("builtin.unrealized_conversion_cast") else {
        return false;
    };
    let mut replace: BTreeMap<crate::ir::Value, crate::ir::Value> = BTreeMap::new();
    let mut casts = Vec::new();
    for op in all_ops(m) {
        if m.op_name(op) != cast || m.operands(op).len() != 1 || m.num_results(op) != 1 {
            continue;
        }
        let (Some(&from), Some(to)) = (m.operands(op).first(), m.result(op, 0)) else {
            continue;
        };
        // The cast's own result type is still VHLO (it is not a VHLO op, so nothing converted it).
        if let Ok(t) = types::from_vhlo(m, m.value_type(to)) {
            m.set_value_type(to, t);
        }
        if m.value_type(from) == m.value_type(to) && m.attributes(op).is_empty() {
            replace.insert(to, from);
            casts.push(op);
        }
    }
    if casts.is_empty() {
        return true;
    }
    let resolve = |mut v: crate::ir::Value| {
        // Chains of casts are short; bound the walk anyway.
        for _ in 0..64 {
            match replace.get(&v) {
                Some(&w) => v = w,
                None => break,
            }
        }
        v
    };
    for op in all_ops(m) {
        let operands = m.operands(op).to_vec();
        if operands.iter().any(|v| replace.contains_key(v)) {
            let new: Vec<_> = operands.into_iter().map(resolve).collect();
            m.set_operands(op, &new);
        }
    }
    for op in casts {
        m.detach_op(op);
    }
    true
}

/// StableHLO to VHLO at `target`.
pub fn legalize_to_vhlo_at(
    m: &mut Module,
    target: Version,
    opts: LegalizeOptions,
) -> Result<(), Diagnostics> {
    let mut w = m.clone();
    legalize_to_vhlo(&mut w, opts)?;
    vhlo_to_version(&mut w, target)?;
    *m = w;
    Ok(())
}

/// The smallest release a program can be written for: a VHLO program (as read from an
/// artifact), or a StableHLO one (as [`crate::text::parse`] returns it), which is legalized to
/// VHLO first (keeping other dialects' ops, as `--allow-other-dialects` does). `Err` holds the
/// blockers at the current version when even that fails.
pub fn minimum_version(m: &Module) -> Result<Version, Diagnostics> {
    let mut stablehlo = false;
    m.walk(|op| {
        let name = m.op_name_str(op);
        stablehlo |= name.starts_with("stablehlo.") || name.starts_with("func.");
    });
    if stablehlo {
        let mut w = m.clone();
        legalize_to_vhlo_in_place(
            &mut w,
            LegalizeOptions {
                allow_other_dialects: true,
                ..Default::default()
            },
        )?;
        return minimum_vhlo_version(&w);
    }
    minimum_vhlo_version(m)
}

fn minimum_vhlo_version(m: &Module) -> Result<Version, Diagnostics> {
    // Every `needs` is a lower bound, so start at the largest one reported at the minimum.
    let mut from = vhlo::MINIMUM_VERSION;
    if let Err(ds) = vhlo_to_version(&mut m.clone(), vhlo::MINIMUM_VERSION) {
        from = ds
            .iter()
            .filter_map(|d| d.needs)
            .max()
            .unwrap_or(from)
            .max(from);
    } else {
        return Ok(vhlo::MINIMUM_VERSION);
    }
    let mut last = Diagnostics::default();
    for r in vhlo::RELEASES
        .iter()
        .filter(|r| r.version >= from && r.version.patch == 0)
    {
        match vhlo_to_version(&mut m.clone(), r.version) {
            Ok(()) => return Ok(r.version),
            Err(ds) => last = ds,
        }
    }
    Err(last)
}

/// The release each compatibility requirement preset (`NONE`, `WEEK_4`, `WEEK_12`, `MAX`) targets.
pub fn compatibility_requirement(name: &str) -> Option<Version> {
    vhlo::COMPATIBILITY_REQUIREMENTS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| *v)
}
