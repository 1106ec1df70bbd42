//! Step 2: the spec model: immutable, typed, and built once from the raw files.
//!
//! Lowering turns strings into versions, kinds and rules and records an error for each malformed
//! value (with its position); cross-entity rules live in `check.rs`.

use std::collections::BTreeMap;
use std::fmt;

use crate::diag::{Diagnostics, Pos};
use crate::load::{self, pos, RawSpec, SStr};
pub use crate::params::{ParamDef, ParamKind};

/// A StableHLO release number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Version {
    /// Parses `X.Y.Z` strictly (semver without pre-release or build metadata).
    pub fn parse(s: &str) -> Result<Version, String> {
        let v =
            semver::Version::parse(s).map_err(|e| format!("`{s}` is not a version X.Y.Z: {e}"))?;
        if !v.pre.is_empty() || !v.build.is_empty() {
            return Err(format!("`{s}` is not a plain release version X.Y.Z"));
        }
        let conv = |n: u64| u32::try_from(n).map_err(|_| format!("`{s}`: component too large"));
        Ok(Version {
            major: conv(v.major)?,
            minor: conv(v.minor)?,
            patch: conv(v.patch)?,
        })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Inclusive upper bound of a range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Current,
    Version(Version),
}

/// An inclusive version range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionRange {
    pub min: Version,
    pub max: Bound,
}

impl VersionRange {
    /// `0.9.0..=current` style text.
    pub fn describe(&self) -> String {
        match self.max {
            Bound::Current => format!("{}..=current", self.min),
            Bound::Version(v) => format!("{}..={v}", self.min),
        }
    }
}

/// One row of the release table.
#[derive(Clone, Debug)]
pub struct Release {
    pub version: Version,
    pub bytecode: u8,
    pub date: Option<String>,
    pub changes: String,
    pub pos: Pos,
}

/// An upstream release tag (`releases.yaml`, `tags`): the version and the tagger date in UTC.
#[derive(Clone, Debug)]
pub struct Tag {
    pub version: Version,
    /// `YYYY-MM-DDTHH:MM:SSZ`.
    pub tagged: String,
    pub pos: Pos,
}

/// A compatibility requirement preset.
#[derive(Clone, Debug)]
pub struct CompatRequirement {
    pub name: String,
    pub version: CompatTarget,
    pub pos: Pos,
}

/// What a compatibility preset points at.
#[derive(Clone, Copy, Debug)]
pub enum CompatTarget {
    Current,
    Minimum,
    Version(Version),
}

/// A VHLO type or attribute definition (one version of it).
#[derive(Clone, Debug)]
pub struct TypeOrAttrDef {
    /// The mnemonic, `<base>_v<N>`.
    pub name: String,
    pub base: String,
    pub number: u32,
    pub since: Version,
    /// Filled in by `finish_ranges`.
    pub range: VersionRange,
    pub code: u32,
    pub code_with_encoding: Option<u32>,
    pub builtin: String,
    pub description: Option<String>,
    pub params: Vec<ParamDef>,
    /// The bytecode form, in wire order (`wire:` hints and `wire_order:`).
    pub wire: Vec<crate::wire::WireStep>,
    /// The spec's `wire_order:` list, if it has one.
    pub wire_order: Option<Vec<String>>,
    /// Its assembly format (spec `format:`) as written, and where.
    pub format: Option<(String, Pos)>,
    pub pos: Pos,
    pub code_pos: Pos,
}

/// A case of a VHLO enum.
#[derive(Clone, Debug)]
pub struct EnumCase {
    pub name: String,
    pub value: i64,
    /// The release that added the case, when later than its enum's (spec `since:`): a program
    /// for an older release cannot hold it.
    pub since: Option<Version>,
    pub pos: Pos,
}

/// A VHLO enum attribute.
#[derive(Clone, Debug)]
pub struct EnumDef {
    pub name: String,
    pub base: String,
    pub number: u32,
    pub since: Version,
    pub range: VersionRange,
    pub code: u32,
    pub stablehlo: String,
    /// Printed `#stablehlo.<stablehlo><CASE>` in StableHLO (spec `stablehlo_own_mnemonic`).
    pub stablehlo_own_mnemonic: bool,
    pub description: Option<String>,
    pub cases: Vec<EnumCase>,
    pub pos: Pos,
    pub code_pos: Pos,
}

/// An operand, result or region slot of an op.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub variadic: bool,
    pub pos: Pos,
}

/// An attribute of a StableHLO op (latest version only).
#[derive(Clone, Debug)]
pub struct StablehloAttr {
    pub name: String,
    /// The ODS type as spelled (lowered by `crate::ods`).
    pub ty: String,
    pub ty_pos: Pos,
    pub default: Option<String>,
    pub optional: bool,
    /// The VHLO attributes it stands for, when not the one of its own name (spec `vhlo:`).
    pub vhlo: Option<Vec<Field>>,
    /// The value of each VHLO attribute it stands for when the op leaves it out (spec
    /// `vhlo_default:`, upstream's `addDefaults`/`removeDefaults`), with its position.
    pub vhlo_default: Option<(Value, Pos)>,
    pub pos: Pos,
}

/// Another upstream name that maps to the same VHLO op, used on the way back under `parent`.
#[derive(Clone, Debug)]
pub struct AlsoName {
    pub name: String,
    pub parent: String,
    pub pos: Pos,
}

/// The StableHLO (or func) op a family maps to at its current version.
#[derive(Clone, Debug)]
pub struct StablehloOp {
    pub name: String,
    /// ODS's `HLO_CompatibleOperandsAndResultType`: every operand and result has the same
    /// element type and compatible shapes (equal, or a dimension dynamic on one side).
    pub compatible_operands_and_result_type: bool,
    /// ODS's `Commutative`: the compact `applies` form of reduce accepts the op.
    pub commutative: bool,
    /// ODS's `ConstantLike`: its value is a constant to `hlo::matchInts`.
    pub constant_like: bool,
    /// ODS's `SingleBlockImplicitTerminator<"ReturnOp">`: its regions end in `stablehlo.return`.
    pub implicit_terminator: bool,
    /// ODS's `Elementwise` listed before the op's type traits (spec `traits`, in ODS's order):
    /// MLIR checks it first.
    pub elementwise_first: bool,
    pub also: Vec<AlsoName>,
    pub operands: Vec<Field>,
    /// The ODS type of each operand as spelled (`Variadic<HLO_Tensor>`), with its position;
    /// empty when the spec records none (lowered by `crate::ods_types`).
    pub operand_types: Vec<(String, Pos)>,
    pub attributes: Vec<StablehloAttr>,
    pub results: Vec<Field>,
    /// The ODS type of each result, as `operand_types`.
    pub result_types: Vec<(String, Pos)>,
    pub regions: Vec<Field>,
    /// Per region (group), whether ODS constrains it to one block (`SizedRegion<1>`).
    pub single_block_regions: Vec<bool>,
    /// The custom assembly format as written, and where (codegen/src/format.rs).
    pub format: Option<(String, Pos)>,
    /// The pretty name of the entry arguments of the op's regions (ODS's
    /// `getAsmBlockArgumentNames`).
    pub block_arg_name: Option<String>,
    pub pos: Pos,
}

/// A StableHLO struct attribute `#stablehlo.<name><field = value, ...>`.
#[derive(Clone, Debug)]
pub struct StablehloStruct {
    pub name: String,
    /// The AttrDef's C++ class: the typed struct's name.
    pub class: String,
    /// Fields in TableGen order, with their kinds.
    pub fields: Vec<(String, StructFieldKind)>,
    pub omit_defaults: bool,
    pub own_syntax: bool,
    pub pos: Pos,
}

/// The kind of a struct attribute's field (its spelling in `attrs.yaml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StructFieldKind {
    Dims,
    Int,
    Type,
    Bool,
    Float,
    Attr,
    OptionalAttr,
    String,
    SubAxis,
}

impl StructFieldKind {
    /// Each kind: its spelling in the spec, its runtime variant (`dialect::FieldKind`) and what
    /// it holds.
    pub const ALL: [(&'static str, &'static str, StructFieldKind, &'static str); 9] = [
        (
            "dims",
            "Dims",
            StructFieldKind::Dims,
            "`[1, 2]`: `Param::Ints`.",
        ),
        ("int", "Int", StructFieldKind::Int, "`42`: `Param::Int`."),
        (
            "type",
            "Type",
            StructFieldKind::Type,
            "A type: `Param::Type`.",
        ),
        (
            "bool",
            "Bool",
            StructFieldKind::Bool,
            "`true` or `false`: `Param::Bool`.",
        ),
        (
            "float",
            "Float",
            StructFieldKind::Float,
            "A double: `Param::Float` of width 64.",
        ),
        (
            "attr",
            "Attr",
            StructFieldKind::Attr,
            "Any attribute: `Param::Attr`.",
        ),
        (
            "optional_attr",
            "OptAttr",
            StructFieldKind::OptionalAttr,
            "An optional attribute: `Param::Attr` or `Param::Absent`.",
        ),
        (
            "string",
            "Str",
            StructFieldKind::String,
            "`\"text\"`: `Param::Str`.",
        ),
        (
            "sub_axis",
            "OptSubAxis",
            StructFieldKind::SubAxis,
            "`(pre)size`: `Param::Attr` of `#stablehlo.sub_axis_info`, or `Param::Absent`.",
        ),
    ];

    /// Its runtime variant's name.
    pub fn variant(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|e| e.2 == self)
            .map_or("Attr", |e| e.1)
    }
}

/// The `region_types:` of a `stablehlo:` block: per region, whether it is `SizedRegion<1>`.
fn region_constraints(
    file: &str,
    s: &crate::load::RawStablehloOp,
    diags: &mut Diagnostics,
) -> Vec<bool> {
    if s.region_types.is_empty() {
        return vec![false; s.regions.len()];
    }
    if s.region_types.len() != s.regions.len() {
        diags.error(
            pos(file, &s.region_types[0]),
            format!(
                "{} region types for {} regions",
                s.region_types.len(),
                s.regions.len()
            ),
        );
    }
    s.region_types
        .iter()
        .zip(&s.regions)
        .map(|(t, r)| {
            let variadic = r.value.ends_with('*');
            let inner = match t.value.strip_prefix("VariadicRegion<") {
                Some(rest) if variadic => rest.strip_suffix('>'),
                None if !variadic => Some(t.value.as_str()),
                _ => None,
            };
            match inner {
                Some("SizedRegion<1>") => true,
                Some("AnyRegion") => false,
                _ => {
                    diags.error(
                        pos(file, t),
                        format!(
                            "unknown region type `{}` for region `{}` (known: SizedRegion<1>, AnyRegion, in VariadicRegion<...> for a variadic one)",
                            t.value, r.value
                        ),
                    );
                    false
                }
            }
        })
        .collect()
}

/// The op traits a `stablehlo:` block's `traits:` may name.
const OP_TRAITS: &[&str] = &[
    "compatible_operands_and_result_type",
    "commutative",
    "constant_like",
    "elementwise",
    "single_block_implicit_terminator",
];

/// A VHLO attribute value written in the spec (defaults of change rules, predicate values).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Float(f64),
    /// `#vhlo.type_v1<!vhlo.<name>>`
    Type(String),
    /// `#vhlo.string_v1<"...">`
    Str(String),
    /// `#vhlo.dict_v1<{...}>`, keys as strings.
    Dict(Vec<(String, Value)>),
    Array(Vec<Value>),
    /// `#vhlo.tensor_v1` of a ranked tensor with element type `element`.
    Tensor {
        element: String,
        shape: Vec<i64>,
        values: Vec<i64>,
    },
    Enum {
        name: String,
        case: String,
    },
    /// Any VHLO attribute, with named parameters.
    Attr {
        name: String,
        params: Vec<(String, Value)>,
    },
    /// A named hand-written function computes the value from the op.
    Hook(String),
}

/// How a version differs from the previous one, read in the upgrade direction.
#[derive(Clone, Debug)]
pub enum ChangeRule {
    /// Upgrade inserts `default`; downgrade requires the value to equal it and drops it.
    AddAttribute {
        name: String,
        default: Value,
        pos: Pos,
    },
    /// Upgrade drops the attribute; downgrade inserts `default`.
    RemoveAttribute {
        name: String,
        default: Value,
        pos: Pos,
    },
    /// A single operand/result becomes a variadic group; downgrade needs exactly one.
    MakeVariadic { from: String, to: String, pos: Pos },
    /// An operand is renamed (no effect on the IR).
    RenameOperand { from: String, to: String, pos: Pos },
    /// An attribute is renamed.
    RenameAttribute { from: String, to: String, pos: Pos },
    /// A variadic region group is added; downgrade needs it empty.
    AddRegion { name: String, pos: Pos },
    /// A named hand-written conversion.
    Hook { name: String, pos: Pos },
}

impl ChangeRule {
    /// Where the rule is written.
    pub fn pos(&self) -> &Pos {
        match self {
            ChangeRule::AddAttribute { pos, .. }
            | ChangeRule::RemoveAttribute { pos, .. }
            | ChangeRule::MakeVariadic { pos, .. }
            | ChangeRule::RenameOperand { pos, .. }
            | ChangeRule::RenameAttribute { pos, .. }
            | ChangeRule::AddRegion { pos, .. }
            | ChangeRule::Hook { pos, .. } => pos,
        }
    }
}

/// A condition on an op that marks a use needing a later release.
#[derive(Clone, Debug)]
pub enum Predicate {
    ElementTypesDiffer,
    AttributeKind { attribute: String, kind: String },
    AttributeEquals { attribute: String, value: Value },
    OperandType(String),
}

/// A use of an op version that needs `since`.
#[derive(Clone, Debug)]
pub struct Feature {
    pub name: String,
    pub since: Version,
    pub when: Predicate,
    pub pos: Pos,
}

/// One VHLO op version.
#[derive(Clone, Debug)]
pub struct OpVersion {
    /// `<family>_v<number>`.
    pub mnemonic: String,
    pub family: String,
    pub number: u32,
    pub since: Version,
    pub range: VersionRange,
    /// The explicit `until`, if written (checked against the derived bound).
    pub until: Option<(Bound, Pos)>,
    pub description: Option<String>,
    pub operands: Vec<Field>,
    pub attributes: Vec<Field>,
    pub results: Vec<Field>,
    pub regions: Vec<Field>,
    pub terminator: bool,
    /// Rules from the previous version to this one (empty for v1).
    pub changes: Vec<ChangeRule>,
    pub features: Vec<Feature>,
    pub pos: Pos,
    pub file: String,
}

/// All versions of one op.
#[derive(Clone, Debug)]
pub struct OpFamily {
    pub name: String,
    pub description: Option<String>,
    pub stablehlo: StablehloOp,
    pub versions: Vec<OpVersion>,
    pub file: String,
    pub pos: Pos,
}

/// The whole spec.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    pub releases: Vec<Release>,
    pub compat: Vec<CompatRequirement>,
    /// Upstream release tags, in tag-date order.
    pub tags: Vec<Tag>,
    pub types: Vec<TypeOrAttrDef>,
    pub attrs: Vec<TypeOrAttrDef>,
    pub retired_attr_codes: Vec<(u32, Pos)>,
    pub enums: Vec<EnumDef>,
    pub ops: Vec<OpFamily>,
    /// Dialects carried alongside VHLO (`dialects/*.yaml`).
    pub codec_dialects: Vec<crate::codec_dialect::CodecDialect>,
    /// The op names jaxlib registers in dialects not modeled (`registered_ops.yaml`), by
    /// dialect, sorted.
    pub registered_ops: Vec<(String, Vec<String>)>,
    /// StableHLO's struct attributes (`attrs.yaml`, `stablehlo_structs`).
    pub stablehlo_structs: Vec<StablehloStruct>,
    /// Files read, for rebuild tracking.
    pub files: Vec<std::path::PathBuf>,
    /// The directory it was read from.
    pub dir: std::path::PathBuf,
}

impl Spec {
    /// The current version: the last release.
    pub fn current(&self) -> Version {
        self.releases.last().map(|r| r.version).unwrap_or(Version {
            major: 0,
            minor: 9,
            patch: 0,
        })
    }
    /// The minimum version: the first release.
    pub fn minimum(&self) -> Version {
        self.releases.first().map(|r| r.version).unwrap_or(Version {
            major: 0,
            minor: 9,
            patch: 0,
        })
    }
    /// Every op version, in spec order (families by file name, then version).
    pub fn op_versions(&self) -> impl Iterator<Item = &OpVersion> {
        self.ops.iter().flat_map(|f| f.versions.iter())
    }
    /// The release before `v` in the table.
    pub fn release_before(&self, v: Version) -> Option<Version> {
        let i = self.releases.iter().position(|r| r.version == v)?;
        i.checked_sub(1).map(|j| self.releases[j].version)
    }
}

fn version(file: &str, s: &SStr, diags: &mut Diagnostics) -> Version {
    match Version::parse(s.value.trim()) {
        Ok(v) => v,
        Err(e) => {
            diags.error(pos(file, s), e);
            Version {
                major: 0,
                minor: 0,
                patch: 0,
            }
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` with digits where digits go (ranges are checked by the runtime's date
/// parser; this keeps the table's shape fixed).
fn is_utc_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// Splits `name_vN` into (`name`, N).
pub fn split_versioned(name: &str) -> Option<(&str, u32)> {
    let (base, n) = name.rsplit_once("_v")?;
    let n: u32 = n.parse().ok()?;
    (!base.is_empty() && n > 0).then_some((base, n))
}

fn field(file: &str, s: &SStr) -> Field {
    let (name, variadic) = match s.value.strip_suffix('*') {
        Some(n) => (n.to_string(), true),
        None => (s.value.clone(), false),
    };
    Field {
        name,
        variadic,
        pos: pos(file, s),
    }
}

fn lower_value(file: &str, at: &Pos, v: &load::RawValue, diags: &mut Diagnostics) -> Value {
    let mut forms: Vec<Value> = Vec::new();
    if let Some(b) = &v.bool {
        forms.push(Value::Bool(b.value));
    }
    if let Some(i) = &v.int {
        forms.push(Value::Int(i.value));
    }
    if let Some(f) = &v.float {
        forms.push(Value::Float(f.value));
    }
    if let Some(t) = &v.ty {
        forms.push(Value::Type(t.value.clone()));
    }
    if let Some(s) = &v.string {
        forms.push(Value::Str(s.value.clone()));
    }
    if let Some(d) = &v.dict {
        forms.push(Value::Dict(
            d.iter()
                .map(|(k, x)| (k.clone(), lower_value(file, at, x, diags)))
                .collect(),
        ));
    }
    if let Some(a) = &v.array {
        forms.push(Value::Array(
            a.iter().map(|x| lower_value(file, at, x, diags)).collect(),
        ));
    }
    if let Some(t) = &v.tensor {
        forms.push(Value::Tensor {
            element: t.element.value.clone(),
            shape: t.shape.clone(),
            values: t.values.clone(),
        });
    }
    match (&v.enum_, &v.case) {
        (Some(e), Some(c)) => forms.push(Value::Enum {
            name: e.value.clone(),
            case: c.value.clone(),
        }),
        (Some(e), None) => diags.error(pos(file, e), "`enum` needs a `case`"),
        (None, Some(c)) => diags.error(pos(file, c), "`case` needs an `enum`"),
        (None, None) => {}
    }
    match (&v.attr, &v.params) {
        (Some(a), params) => {
            let params = params
                .iter()
                .flatten()
                .map(|(k, x)| (k.clone(), lower_value(file, at, x, diags)))
                .collect();
            forms.push(Value::Attr {
                name: a.value.clone(),
                params,
            });
        }
        (None, Some(_)) => diags.error(at.clone(), "`params` needs an `attr`"),
        (None, None) => {}
    }
    if let Some(h) = &v.hook {
        forms.push(Value::Hook(h.value.clone()));
    }
    match forms.len() {
        1 => forms.pop().unwrap_or(Value::Bool(false)),
        0 => {
            diags.error(at.clone(), "a value needs one of: bool, int, float, type, string, dict, array, tensor, enum+case, attr(+params), hook");
            Value::Bool(false)
        }
        _ => {
            diags.error(at.clone(), "a value must have exactly one form (bool, int, float, type, string, dict, array, tensor, enum, attr, hook)");
            forms.swap_remove(0)
        }
    }
}

fn lower_params(file: &str, raw: &[load::RawParam], diags: &mut Diagnostics) -> Vec<ParamDef> {
    raw.iter()
        .map(|p| {
            // The keys only a codec dialect's parameters have (the raw schema is shared).
            let dialect_only = [
                ("of", p.of.as_ref().map(|s| pos(file, s))),
                ("enum", p.enum_.as_ref().map(|s| pos(file, s))),
                ("min", p.min.as_ref().map(|s| pos(file, s))),
            ];
            for (key, at) in dialect_only {
                if let Some(at) = at {
                    diags.error(
                        at,
                        format!(
                            "`{key}:` is for the parameters of a dialect's attributes (spec/dialects/), not VHLO's"
                        ),
                    );
                }
            }
            let kind = match ParamKind::ALL.iter().find(|(s, _)| *s == p.kind.value) {
                Some((_, k)) => *k,
                None => {
                    let all: Vec<&str> = ParamKind::ALL.iter().map(|(s, _)| *s).collect();
                    diags.error(
                        pos(file, &p.kind),
                        format!(
                            "unknown parameter kind `{}`; expected one of {}",
                            p.kind.value,
                            all.join(", ")
                        ),
                    );
                    ParamKind::Attr
                }
            };
            ParamDef {
                name: p.name.value.clone(),
                kind,
                optional: p.optional,
                wire: p.wire.as_ref().map(|w| (w.value.clone(), pos(file, w))),
                pos: pos(file, &p.name),
            }
        })
        .collect()
}

const PLACEHOLDER_RANGE: VersionRange = VersionRange {
    min: Version {
        major: 0,
        minor: 0,
        patch: 0,
    },
    max: Bound::Current,
};

fn versioned_name(file: &str, s: &SStr, what: &str, diags: &mut Diagnostics) -> (String, u32) {
    match split_versioned(&s.value) {
        Some((b, n)) => (b.to_string(), n),
        None => {
            diags.error(
                pos(file, s),
                format!(
                    "{what} name `{}` must be `<name>_v<N>` with N >= 1",
                    s.value
                ),
            );
            (s.value.clone(), 1)
        }
    }
}

#[allow(clippy::too_many_arguments)] // one call per kind; a struct would only rename the fields
fn lower_type_or_attr(
    file: &str,
    name: &SStr,
    since: &SStr,
    code: &serde_saphyr::Spanned<u32>,
    code_with_encoding: Option<&serde_saphyr::Spanned<u32>>,
    builtin: &SStr,
    description: &Option<String>,
    params: &[load::RawParam],
    wire_order: Option<&[SStr]>,
    what: &str,
    diags: &mut Diagnostics,
) -> TypeOrAttrDef {
    let (base, number) = versioned_name(file, name, what, diags);
    let mut def = TypeOrAttrDef {
        name: name.value.clone(),
        base,
        number,
        since: version(file, since, diags),
        range: PLACEHOLDER_RANGE,
        code: code.value,
        code_with_encoding: code_with_encoding.map(|c| c.value),
        builtin: builtin.value.clone(),
        description: description.clone(),
        params: lower_params(file, params, diags),
        wire: Vec::new(),
        wire_order: wire_order.map(|l| l.iter().map(|n| n.value.clone()).collect()),
        format: None,
        pos: pos(file, name),
        code_pos: pos(file, code),
    };
    let order: Option<Vec<(String, Pos)>> =
        wire_order.map(|l| l.iter().map(|n| (n.value.clone(), pos(file, n))).collect());
    def.wire = crate::wire::lower(
        &def.name,
        &def.params,
        (def.code_with_encoding, &def.code_pos),
        order.as_deref(),
        what,
        diags,
    );
    def
}

fn lower_predicate(
    file: &str,
    at: &Pos,
    p: &load::RawPredicate,
    diags: &mut Diagnostics,
) -> Predicate {
    match p {
        load::RawPredicate::ElementTypesDiffer => Predicate::ElementTypesDiffer,
        load::RawPredicate::AttributeKind { attribute, kind } => Predicate::AttributeKind {
            attribute: attribute.value.clone(),
            kind: kind.value.clone(),
        },
        load::RawPredicate::AttributeEquals { attribute, value } => Predicate::AttributeEquals {
            attribute: attribute.value.clone(),
            value: lower_value(file, at, value, diags),
        },
        load::RawPredicate::OperandType(t) => Predicate::OperandType(t.value.clone()),
    }
}

fn lower_change(file: &str, c: &load::RawChange, diags: &mut Diagnostics) -> ChangeRule {
    use load::RawChange as R;
    match c {
        R::AddAttribute(a) => {
            let p = pos(file, &a.name);
            ChangeRule::AddAttribute {
                name: a.name.value.clone(),
                default: lower_value(file, &p, &a.default, diags),
                pos: p,
            }
        }
        R::RemoveAttribute(a) => {
            let p = pos(file, &a.name);
            ChangeRule::RemoveAttribute {
                name: a.name.value.clone(),
                default: lower_value(file, &p, &a.default, diags),
                pos: p,
            }
        }
        R::MakeVariadic(r) => ChangeRule::MakeVariadic {
            from: r.from.value.clone(),
            to: r.to.value.clone(),
            pos: pos(file, &r.from),
        },
        R::RenameOperand(r) => ChangeRule::RenameOperand {
            from: r.from.value.clone(),
            to: r.to.value.clone(),
            pos: pos(file, &r.from),
        },
        R::RenameAttribute(r) => ChangeRule::RenameAttribute {
            from: r.from.value.clone(),
            to: r.to.value.clone(),
            pos: pos(file, &r.from),
        },
        R::AddRegion(n) => ChangeRule::AddRegion {
            name: n.name.value.clone(),
            pos: pos(file, &n.name),
        },
        R::Hook(n) => ChangeRule::Hook {
            name: n.name.value.clone(),
            pos: pos(file, &n.name),
        },
    }
}

/// Lowers the raw files. Ranges are completed from the release table afterwards.
pub fn lower(raw: &RawSpec, diags: &mut Diagnostics) -> Spec {
    let mut spec = Spec {
        files: raw.files.clone(),
        dir: raw.dir.clone(),
        ..Spec::default()
    };
    if let Some((file, r)) = &raw.releases {
        for rel in &r.releases {
            spec.releases.push(Release {
                version: version(file, &rel.version, diags),
                bytecode: rel.bytecode.value,
                date: rel.date.as_ref().map(|d| d.value.clone()),
                changes: rel.changes.value.clone(),
                pos: pos(file, &rel.version),
            });
        }
        for (name, target) in &r.compatibility_requirements {
            let version = match target.value.as_str() {
                "current" => CompatTarget::Current,
                "minimum" => CompatTarget::Minimum,
                _ => CompatTarget::Version(version(file, target, diags)),
            };
            spec.compat.push(CompatRequirement {
                name: name.clone(),
                version,
                pos: pos(file, target),
            });
        }
        let mut last: Option<&str> = None;
        for t in &r.tags {
            let v = version(file, &t.version, diags);
            let tagged = t.tagged.value.trim();
            if !is_utc_timestamp(tagged) {
                diags.error(
                    pos(file, &t.tagged),
                    format!("`tagged: {tagged}` is not a UTC timestamp `YYYY-MM-DDTHH:MM:SSZ`"),
                );
            } else if last.is_some_and(|l| l > tagged) {
                diags.error(
                    pos(file, &t.tagged),
                    format!("tag {v} is dated {tagged}, before the tag above it: tags are listed oldest first"),
                );
            }
            if spec.tags.iter().any(|o| o.version == v) {
                diags.error(pos(file, &t.version), format!("tag {v} is listed twice"));
            }
            if !spec
                .releases
                .iter()
                .any(|rel| rel.version == Version { patch: 0, ..v })
            {
                diags.error(
                    pos(file, &t.version),
                    format!("tag {v} is not a patch of a release in the table"),
                );
            }
            last = Some(tagged);
            spec.tags.push(Tag {
                version: v,
                tagged: tagged.to_string(),
                pos: pos(file, &t.version),
            });
        }
    }
    if let Some((file, t)) = &raw.types {
        for d in &t.types {
            spec.types.push(lower_type_or_attr(
                file,
                &d.name,
                &d.since,
                &d.code,
                d.code_with_encoding.as_ref(),
                &d.builtin,
                &d.description,
                &d.params,
                d.wire_order.as_deref(),
                "type",
                diags,
            ));
            if let (Some(t), Some(f)) = (spec.types.last_mut(), &d.format) {
                t.format = Some((f.value.clone(), crate::load::string_pos(file, f)));
            }
        }
    }
    if let Some((file, a)) = &raw.attrs {
        for d in &a.attributes {
            spec.attrs.push(lower_type_or_attr(
                file,
                &d.name,
                &d.since,
                &d.code,
                None,
                &d.builtin,
                &d.description,
                &d.params,
                d.wire_order.as_deref(),
                "attribute",
                diags,
            ));
            if let (Some(a), Some(f)) = (spec.attrs.last_mut(), &d.format) {
                a.format = Some((f.value.clone(), crate::load::string_pos(file, f)));
            }
        }
        spec.retired_attr_codes = a
            .retired_codes
            .iter()
            .map(|c| (c.value, pos(file, c)))
            .collect();
    }
    if let Some((file, e)) = &raw.enums {
        for d in &e.enums {
            let (base, number) = versioned_name(file, &d.name, "enum", diags);
            spec.enums.push(EnumDef {
                name: d.name.value.clone(),
                base,
                number,
                since: version(file, &d.since, diags),
                range: PLACEHOLDER_RANGE,
                code: d.code.value,
                stablehlo: d.stablehlo.value.clone(),
                stablehlo_own_mnemonic: d.stablehlo_own_mnemonic,
                description: d.description.clone(),
                cases: d
                    .cases
                    .iter()
                    .map(|c| EnumCase {
                        name: c.name.value.clone(),
                        value: c.value.value,
                        since: c.since.as_ref().map(|s| version(file, s, diags)),
                        pos: pos(file, &c.name),
                    })
                    .collect(),
                pos: pos(file, &d.name),
                code_pos: pos(file, &d.code),
            });
        }
    }
    // After the enums, before the ops: a codec dialect's enum may take a StableHLO enum's cases
    // (`cases_of`). The dialects that take entries from others (`from:`) come second, each
    // from the first ones; the list keeps file order.
    let enums = &spec.enums;
    // The cases of a StableHLO enum by its `stablehlo:` name (its newest version).
    let cases = |name: &str| {
        enums
            .iter()
            .rev()
            .find(|x| x.stablehlo == name)
            .map(|x| x.cases.iter().map(|c| (c.name.clone(), c.value)).collect())
    };
    let takes = |d: &crate::load::RawCodecDialect| {
        d.enums.iter().any(|e| e.from.is_some()) || d.attributes.iter().any(|a| a.from.is_some())
    };
    let mut first = Vec::new();
    for (file, d) in raw.codec_dialects.iter().filter(|(_, d)| !takes(d)) {
        let sources = crate::codec_dialect::Sources {
            stablehlo_cases: &cases,
            dialects: &[],
        };
        first.push(crate::codec_dialect::lower(file, d, &sources, diags));
    }
    let mut second = Vec::new();
    for (file, d) in raw.codec_dialects.iter().filter(|(_, d)| takes(d)) {
        let sources = crate::codec_dialect::Sources {
            stablehlo_cases: &cases,
            dialects: &first,
        };
        second.push(crate::codec_dialect::lower(file, d, &sources, diags));
    }
    let (mut first, mut second) = (first.into_iter(), second.into_iter());
    for (_, d) in &raw.codec_dialects {
        let next = if takes(d) {
            second.next()
        } else {
            first.next()
        };
        spec.codec_dialects.extend(next);
    }
    if let Some((file, r)) = &raw.registered_ops {
        for (dialect, names) in r {
            if spec.codec_dialects.iter().any(|d| &d.name == dialect) {
                diags.error(
                    Pos::file(file),
                    format!("dialect '{dialect}' is modeled by dialects/{dialect}.yaml, which lists its ops"),
                );
            }
            let mut seen = std::collections::HashSet::with_capacity(names.len());
            for n in names {
                if !seen.insert(n.value.as_str()) {
                    diags.error(
                        pos(file, n),
                        format!("'{dialect}.{}' is listed twice", n.value),
                    );
                }
            }
            let mut sorted: Vec<String> = seen.into_iter().map(str::to_string).collect();
            sorted.sort();
            spec.registered_ops.push((dialect.clone(), sorted));
        }
    }
    for (file, f) in &raw.ops {
        let s = &f.stablehlo;
        for t in &s.traits {
            if !OP_TRAITS.contains(&t.value.as_str()) {
                diags.error(
                    pos(file, t),
                    format!(
                        "unknown op trait `{}` (known: {})",
                        t.value,
                        OP_TRAITS.join(", ")
                    ),
                );
            }
        }
        let stablehlo = StablehloOp {
            name: s.name.value.clone(),
            compatible_operands_and_result_type: s
                .traits
                .iter()
                .any(|t| t.value == "compatible_operands_and_result_type"),
            commutative: s.traits.iter().any(|t| t.value == "commutative"),
            constant_like: s.traits.iter().any(|t| t.value == "constant_like"),
            implicit_terminator: s
                .traits
                .iter()
                .any(|t| t.value == "single_block_implicit_terminator"),
            elementwise_first: {
                let at = |name: &str| s.traits.iter().position(|t| t.value == name);
                at("elementwise").is_some_and(|e| {
                    at("compatible_operands_and_result_type").is_none_or(|c| e < c)
                })
            },
            also: s
                .also
                .iter()
                .map(|a| AlsoName {
                    name: a.name.value.clone(),
                    parent: a.parent.value.clone(),
                    pos: pos(file, &a.name),
                })
                .collect(),
            operands: s.operands.iter().map(|x| field(file, x)).collect(),
            operand_types: s
                .operand_types
                .iter()
                .map(|t| (t.value.clone(), crate::load::string_pos(file, t)))
                .collect(),
            attributes: s
                .attributes
                .iter()
                .map(|a| StablehloAttr {
                    name: a.name.value.clone(),
                    ty: a.ty.value.clone(),
                    ty_pos: pos(file, &a.ty),
                    default: a.default.as_ref().map(|d| d.value.clone()),
                    optional: a.optional,
                    vhlo: a
                        .vhlo
                        .as_ref()
                        .map(|fs| fs.iter().map(|x| field(file, x)).collect()),
                    vhlo_default: a.vhlo_default.as_ref().map(|d| {
                        let at = pos(file, d);
                        (lower_value(file, &at, &d.value, diags), at)
                    }),
                    pos: pos(file, &a.name),
                })
                .collect(),
            results: s.results.iter().map(|x| field(file, x)).collect(),
            result_types: s
                .result_types
                .iter()
                .map(|t| (t.value.clone(), crate::load::string_pos(file, t)))
                .collect(),
            regions: s.regions.iter().map(|x| field(file, x)).collect(),
            single_block_regions: region_constraints(file, s, diags),
            format: s
                .format
                .as_ref()
                .map(|f| (f.value.clone(), crate::load::string_pos(file, f))),
            block_arg_name: s.block_arg_name.as_ref().map(|b| {
                let ok = b.value.starts_with(|c: char| c.is_ascii_alphabetic())
                    && b.value
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !ok {
                    diags.error(
                        pos(file, b),
                        format!("block_arg_name `{}` is not a bare identifier", b.value),
                    );
                } else if s.regions.is_empty() {
                    diags.error(
                        pos(file, b),
                        format!("block_arg_name on `{}`, which has no regions", s.name.value),
                    );
                }
                b.value.clone()
            }),
            pos: pos(file, &s.name),
        };
        let family = f.op.value.clone();
        let versions = f
            .versions
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
                let vpos = pos(file, &v.since);
                OpVersion {
                    mnemonic: format!("{family}_v{number}"),
                    family: family.clone(),
                    number,
                    since: version(file, &v.since, diags),
                    range: PLACEHOLDER_RANGE,
                    until: v.until.as_ref().map(|u| {
                        let b = if u.value == "current" {
                            Bound::Current
                        } else {
                            Bound::Version(version(file, u, diags))
                        };
                        (b, pos(file, u))
                    }),
                    description: v.description.clone(),
                    operands: v.operands.iter().map(|x| field(file, x)).collect(),
                    attributes: v.attributes.iter().map(|x| field(file, x)).collect(),
                    results: v.results.iter().map(|x| field(file, x)).collect(),
                    regions: v.regions.iter().map(|x| field(file, x)).collect(),
                    terminator: v.terminator,
                    changes: v
                        .changes
                        .iter()
                        .map(|c| lower_change(file, c, diags))
                        .collect(),
                    features: v
                        .features
                        .iter()
                        .map(|ft| {
                            let p = pos(file, &ft.name);
                            Feature {
                                name: ft.name.value.clone(),
                                since: version(file, &ft.since, diags),
                                when: lower_predicate(file, &p, &ft.when, diags),
                                pos: p,
                            }
                        })
                        .collect(),
                    pos: vpos,
                    file: file.clone(),
                }
            })
            .collect();
        spec.ops.push(OpFamily {
            name: family,
            description: f.description.clone(),
            stablehlo,
            versions,
            file: file.clone(),
            pos: pos(file, &f.op),
        });
    }
    if let Some((file, a)) = &raw.attrs {
        spec.stablehlo_structs = a
            .stablehlo_structs
            .iter()
            .map(|d| lower_stablehlo_struct(file, d, &spec.ops, diags))
            .collect();
    }
    finish_ranges(&mut spec, diags);
    spec
}

/// A struct attribute's fields: listed, or the `vhlo:` split of the op attribute `split` names.
fn lower_stablehlo_struct(
    file: &str,
    d: &crate::load::RawStablehloStruct,
    ops: &[OpFamily],
    diags: &mut Diagnostics,
) -> StablehloStruct {
    let mut fields = Vec::new();
    for f in &d.fields {
        match StructFieldKind::ALL.iter().find(|e| e.0 == f.kind.value) {
            Some(e) => fields.push((f.name.value.clone(), e.2)),
            None => {
                let known: Vec<&str> = StructFieldKind::ALL.iter().map(|e| e.0).collect();
                diags.error(
                    pos(file, &f.kind),
                    format!(
                        "unknown field kind `{}` of struct attribute `{}` (one of: {})",
                        f.kind.value,
                        d.name.value,
                        known.join(", ")
                    ),
                );
            }
        }
    }
    match (&d.split, d.fields.is_empty()) {
        (Some(split), true) => {
            let found = split.value.split_once('.').and_then(|(op, attr)| {
                let shlo = ops.iter().map(|f| &f.stablehlo).find(|s| {
                    s.name.strip_prefix("stablehlo.") == Some(op)
                })?;
                shlo.attributes.iter().find(|a| a.name == attr)
            });
            match found.and_then(|a| a.vhlo.as_ref()) {
                Some(names) => {
                    for n in names {
                        // A dimension, or a list of them.
                        let one = n.name.ends_with("_dim") || n.name.ends_with("_dimension");
                        let k = if one { StructFieldKind::Int } else { StructFieldKind::Dims };
                        fields.push((n.name.clone(), k));
                    }
                }
                None => diags.error(
                    pos(file, split),
                    format!(
                        "struct attribute `{}`: `split: {}` names no StableHLO op attribute with a `vhlo:` list (`<op>.<attribute>`, as `dot_general.dot_dimension_numbers`)",
                        d.name.value, split.value
                    ),
                ),
            }
        }
        (Some(split), false) => diags.error(
            pos(file, split),
            format!(
                "struct attribute `{}` has both `fields` and `split`; its fields come from one of them",
                d.name.value
            ),
        ),
        (None, true) => diags.error(
            pos(file, &d.name),
            format!(
                "struct attribute `{}` has no fields: list them, or name an op attribute's `split`",
                d.name.value
            ),
        ),
        (None, false) => {}
    }
    StablehloStruct {
        name: d.name.value.clone(),
        class: d.class.value.clone(),
        fields,
        omit_defaults: d.omit_defaults,
        own_syntax: d.own_syntax,
        pos: pos(file, &d.name),
    }
}

/// Derives each version's upper bound from the next version's `since`: the release before it.
fn finish_ranges(spec: &mut Spec, diags: &mut Diagnostics) {
    let releases: Vec<Version> = spec.releases.iter().map(|r| r.version).collect();
    let before = |v: Version| -> Option<Version> {
        let i = releases.iter().position(|r| *r == v)?;
        i.checked_sub(1).map(|j| releases[j])
    };
    for fam in &mut spec.ops {
        let sinces: Vec<(Version, Pos)> = fam
            .versions
            .iter()
            .map(|v| (v.since, v.pos.clone()))
            .collect();
        for (i, v) in fam.versions.iter_mut().enumerate() {
            let max = match sinces.get(i + 1) {
                None => v.until.as_ref().map(|(b, _)| *b).unwrap_or(Bound::Current),
                Some((next, p)) => match before(*next) {
                    Some(b) => Bound::Version(b),
                    None => {
                        // Reported by the release-table check; keep a well-formed range.
                        let _ = p;
                        Bound::Version(*next)
                    }
                },
            };
            v.range = VersionRange { min: v.since, max };
        }
    }
    // Types, attributes and enums: versions of one base chain the same way.
    fn chain<T>(
        items: &mut [T],
        key: impl Fn(&T) -> (String, u32, Version),
        set: impl Fn(&mut T, VersionRange),
        before: &dyn Fn(Version) -> Option<Version>,
    ) {
        let keys: Vec<(String, u32, Version)> = items.iter().map(&key).collect();
        for (i, item) in items.iter_mut().enumerate() {
            let (base, n, since) = &keys[i];
            let next = keys.iter().find(|(b, m, _)| b == base && *m == n + 1);
            let max = match next {
                None => Bound::Current,
                Some((_, _, nv)) => Bound::Version(before(*nv).unwrap_or(*nv)),
            };
            set(item, VersionRange { min: *since, max });
        }
    }
    chain(
        &mut spec.types,
        |t| (t.base.clone(), t.number, t.since),
        |t, r| t.range = r,
        &before,
    );
    chain(
        &mut spec.attrs,
        |t| (t.base.clone(), t.number, t.since),
        |t, r| t.range = r,
        &before,
    );
    chain(
        &mut spec.enums,
        |t| (t.base.clone(), t.number, t.since),
        |t, r| t.range = r,
        &before,
    );
    let _ = diags;
}

/// Map from names to items, for lookups during checks and emission.
pub fn index_by_name<T>(items: &[T], name: impl Fn(&T) -> &str) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for (i, it) in items.iter().enumerate() {
        m.entry(name(it).to_string()).or_insert(i);
    }
    m
}
