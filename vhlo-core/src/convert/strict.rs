//! Strict conversions: the checks that turn a silent loss of information into an error.
//!
//! Each function lists what a conversion would drop, one [`Diagnostic`] per loss, with the op
//! and its location; the conversions run them only when asked to be strict. What is not a loss
//! (and so not refused): attributes written with their default value, which StableHLO leaves
//! implicit and VHLO spells out; `builtin.unrealized_conversion_cast` ops of mixed programs,
//! which the conversion itself inserts and folds.

use crate::bytecode::ShadowedAttribute;
use crate::ir::{LocData, Location, Module, OpId};
use crate::text::verify::{diag, Diagnostic};
use crate::version::Version;
use crate::vhlo::{StablehloOp, VhloOp};

/// Locations StableHLO `target` cannot read (`FileLineColRange` before 1.9.0), on ops and on
/// block arguments: writing them for such a target loses them for its readers. Upstream only
/// logs these (it does not fail the conversion, and jaxlib serializes such programs for older
/// targets), so the conversions refuse them only when strict.
pub fn location_losses(m: &Module, target: Version) -> Vec<Diagnostic> {
    if target.floor_patch() >= FILE_LINE_COL_RANGE_VERSION {
        return Vec::new();
    }
    let rule = format!(
        "strict: StableHLO {target} cannot read location ranges, so the location would be lost"
    );
    let mut out = Vec::new();
    let ranges = range_locations(m);
    m.walk(|op| {
        if has_range_location(&ranges, m.op_location(op)) {
            out.push(diag(
                m,
                op,
                "a FileLineColRange location",
                Some(FILE_LINE_COL_RANGE_VERSION),
                rule.clone(),
            ));
        }
        let args = m
            .regions(op)
            .iter()
            .flat_map(|&r| m.blocks(r).iter().flat_map(|&b| m.block_args(b).iter()));
        for (i, &v) in args.enumerate() {
            if has_range_location(&ranges, m.value_location(v)) {
                out.push(diag(
                    m,
                    op,
                    format!("a FileLineColRange location of region argument #{i}"),
                    Some(FILE_LINE_COL_RANGE_VERSION),
                    rule.clone(),
                ));
            }
        }
    });
    out
}

/// StableHLO to VHLO: a discardable attribute with the name of one of the op's inherent
/// attributes, next to a property of that name. The property wins, so the discardable value
/// would be dropped.
pub(super) fn shadowed_on_legalize(m: &Module, op: OpId, k: StablehloOp) -> Vec<Diagnostic> {
    shadowed_by_properties(m, op, k.attribute_names(), "StableHLO")
}

/// VHLO to StableHLO: a discardable attribute of a VHLO op named like an inherent attribute of
/// the StableHLO op it becomes (or of the VHLO op itself); it would be taken for, or replaced
/// by, the inherent one.
pub fn losses_to_stablehlo(m: &Module) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    m.walk(|op| {
        let Some(kind) = VhloOp::from_name(m.op_name_str(op)) else {
            return;
        };
        let stablehlo_names = kind.stablehlo().attribute_names();
        let vhlo_names = kind.attribute_names();
        for a in m.attributes(op) {
            let name = m.str(a.name);
            if stablehlo_names.contains(&name) || vhlo_names.contains(&name) {
                out.push(diag(
                    m,
                    op,
                    format!("discardable attribute `{name}`"),
                    None,
                    "strict: it has the name of an inherent attribute of the op, which would replace it",
                ));
            }
        }
    });
    out
}

fn shadowed_by_properties(
    m: &Module,
    op: OpId,
    inherent: &[&str],
    dialect: &str,
) -> Vec<Diagnostic> {
    let props = m.properties(op);
    m.attributes(op)
        .iter()
        .filter(|a| {
            inherent.contains(&m.str(a.name)) && props.iter().any(|p| p.name == a.name)
        })
        .map(|a| {
            diag(
                m,
                op,
                format!("discardable attribute `{}`", m.str(a.name)),
                None,
                format!(
                    "strict: the {dialect} op's inherent attribute of that name takes its place, so it would be dropped"
                ),
            )
        })
        .collect()
}

/// Discardable attributes the bytecode reader dropped from an artifact written for StableHLO
/// `version` (an inherent attribute of the same name overwrote them).
pub fn shadowed_on_reading(
    m: &Module,
    shadowed: &[ShadowedAttribute],
    version: Version,
) -> Vec<Diagnostic> {
    shadowed
        .iter()
        .map(|s| {
            diag(
                m,
                s.op,
                format!(
                    "discardable attribute `{}` = {}",
                    m.str(s.name),
                    crate::text::attribute_to_string(m, s.value)
                ),
                None,
                format!(
                    "strict: the artifact (StableHLO {version}) also gives the op an inherent `{}`, which overwrites it on reading, as MLIR does",
                    m.str(s.name)
                ),
            )
        })
        .collect()
}

/// The first version that accepts `FileLineColRange` locations (upstream's `isLegalLocation`).
pub const FILE_LINE_COL_RANGE_VERSION: Version = Version::new(1, 9, 0);

fn has_range_location(ranges: &[bool], l: Location) -> bool {
    ranges.get(l.index()).copied().unwrap_or(false)
}

/// For every interned location, whether it holds a `FileLineColRange`: one pass in id order,
/// since a location is interned after the locations inside it, so each is looked at once however
/// much the locations share.
pub(crate) fn range_locations(m: &Module) -> Vec<bool> {
    let (_, _, n) = m.num_interned();
    let mut out: Vec<bool> = Vec::with_capacity(n);
    for i in 0..n as u32 {
        let get = |out: &Vec<bool>, l: Location| out.get(l.index()).copied().unwrap_or(false);
        let has = match m.loc_data(Location(i)) {
            // A range that is a plain line:column is an ordinary FileLineCol location.
            LocData::FileLineColRange { line_cols, .. } => line_cols.len() != 2,
            LocData::Name { child: Some(c), .. } => get(&out, *c),
            LocData::CallSite { callee, caller } => get(&out, *callee) || get(&out, *caller),
            LocData::Fused { locations, .. } => locations.iter().any(|&x| get(&out, x)),
            _ => false,
        };
        out.push(has);
    }
    out
}
