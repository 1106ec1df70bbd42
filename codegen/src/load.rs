//! Step 1: read the YAML files into raw, span-carrying structs.
//!
//! The raw structs mirror the files one to one and deny unknown keys. Every scalar that a later
//! check may complain about is `Spanned`, so errors point at `spec/<file>.yaml:line:col`.
//! No `flatten`, `untagged` or internally tagged enums: serde-saphyr loses spans inside them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::diag::{Diagnostics, Pos};

/// A string with its position in the spec.
pub type SStr = Spanned<String>;

/// `releases.yaml`
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawReleases {
    pub releases: Vec<RawRelease>,
    pub compatibility_requirements: BTreeMap<String, SStr>,
    /// Every upstream release tag with its tagger date (patch releases included).
    #[serde(default)]
    pub tags: Vec<RawTag>,
}

/// One upstream release tag: `{ version: 1.15.0, tagged: 2026-03-30T19:05:26Z }`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawTag {
    pub version: SStr,
    pub tagged: SStr,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawRelease {
    pub version: SStr,
    pub bytecode: Spanned<u8>,
    #[serde(default)]
    pub date: Option<SStr>,
    pub changes: SStr,
}

/// `types.yaml`
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawTypes {
    pub types: Vec<RawTypeDef>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawTypeDef {
    pub name: SStr,
    pub since: SStr,
    pub code: Spanned<u32>,
    #[serde(default)]
    pub code_with_encoding: Option<Spanned<u32>>,
    pub builtin: SStr,
    /// Its assembly format between the mnemonic and the end (codegen/src/param_format.rs), as
    /// ODS's `assemblyFormat` for types and attributes.
    #[serde(default)]
    pub format: Option<SStr>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub params: Vec<RawParam>,
    /// The parameters in bytecode order, when it is not their storage order.
    #[serde(default)]
    pub wire_order: Option<Vec<SStr>>,
}

/// `attrs.yaml`
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawAttrs {
    pub attributes: Vec<RawAttrDef>,
    #[serde(default)]
    pub retired_codes: Vec<Spanned<u32>>,
    /// StableHLO's struct attributes (`#stablehlo.dot<...>`).
    #[serde(default)]
    pub stablehlo_structs: Vec<RawStablehloStruct>,
}

/// A StableHLO struct attribute: its fields listed, or taken from an op attribute's `vhlo:` split.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawStablehloStruct {
    pub name: SStr,
    pub class: SStr,
    #[serde(default)]
    pub fields: Vec<RawStructField>,
    /// `<op>.<attribute>`: the fields are that StableHLO op attribute's `vhlo:` list.
    #[serde(default)]
    pub split: Option<SStr>,
    #[serde(default)]
    pub omit_defaults: bool,
    #[serde(default)]
    pub own_syntax: bool,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawStructField {
    pub name: SStr,
    pub kind: SStr,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawAttrDef {
    pub name: SStr,
    pub since: SStr,
    pub code: Spanned<u32>,
    pub builtin: SStr,
    /// Its assembly format between the mnemonic and the end (codegen/src/param_format.rs), as
    /// ODS's `assemblyFormat` for types and attributes.
    #[serde(default)]
    pub format: Option<SStr>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub params: Vec<RawParam>,
    /// The parameters in bytecode order, when it is not their storage order.
    #[serde(default)]
    pub wire_order: Option<Vec<SStr>>,
}

/// A parameter of a VHLO type or attribute, or of a codec dialect's attribute.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawParam {
    pub name: SStr,
    pub kind: SStr,
    #[serde(default)]
    pub optional: bool,
    /// A named bytecode encoding hint (`codegen/src/wire.rs`), where the kind's plain wire form
    /// does not apply.
    #[serde(default)]
    pub wire: Option<SStr>,
    /// Dialect attributes only: what an attribute parameter holds.
    #[serde(default)]
    pub of: Option<SStr>,
    /// Dialect attributes only: the enum of an integer parameter.
    #[serde(default, rename = "enum")]
    pub enum_: Option<SStr>,
    /// Dialect attributes only: the least value of an integer parameter (or of each element of
    /// a list of them).
    #[serde(default)]
    pub min: Option<Spanned<i64>>,
}

/// `enums.yaml`
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawEnums {
    pub enums: Vec<RawEnumDef>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawEnumDef {
    pub name: SStr,
    pub since: SStr,
    pub code: Spanned<u32>,
    pub stablehlo: SStr,
    /// StableHLO prints it `#stablehlo.<stablehlo><CASE>` (an EnumAttr with an assembly format
    /// of its own) rather than `#stablehlo<<stablehlo> CASE>`.
    #[serde(default)]
    pub stablehlo_own_mnemonic: bool,
    #[serde(default)]
    pub description: Option<String>,
    pub cases: Vec<RawEnumCase>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawEnumCase {
    pub name: SStr,
    pub value: Spanned<i64>,
    /// The release that added the case to an enum released before it (cases are add-only).
    #[serde(default)]
    pub since: Option<SStr>,
}

/// `ops/<family>.yaml`
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawOpFamily {
    pub op: SStr,
    #[serde(default)]
    pub description: Option<String>,
    pub stablehlo: RawStablehloOp,
    pub versions: Vec<RawOpVersion>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawStablehloOp {
    pub name: SStr,
    #[serde(default)]
    pub also: Vec<RawAlsoName>,
    #[serde(default)]
    pub operands: Vec<SStr>,
    /// The ODS type of each operand, as StablehloOps.td spells it (codegen/src/ods_types.rs).
    #[serde(default)]
    pub operand_types: Vec<SStr>,
    #[serde(default)]
    pub attributes: Vec<RawStablehloAttr>,
    #[serde(default)]
    pub results: Vec<SStr>,
    /// The ODS type of each result.
    #[serde(default)]
    pub result_types: Vec<SStr>,
    #[serde(default)]
    pub regions: Vec<SStr>,
    /// The ODS constraint of each region, as StablehloOps.td spells it: `SizedRegion<1>` (one
    /// block), in `VariadicRegion<...>` for a variadic group, or `AnyRegion`; none: any.
    #[serde(default)]
    pub region_types: Vec<SStr>,
    /// ODS traits, in ODS's order: `compatible_operands_and_result_type` (the verifier checks
    /// it), `commutative` (reduce's compact form), `constant_like` (a constant to
    /// `hlo::matchInts`), `elementwise` (where ODS lists it before
    /// the type traits, the verifier checks it first) and `single_block_implicit_terminator`
    /// (its regions end in `stablehlo.return`).
    #[serde(default)]
    pub traits: Vec<SStr>,
    /// The custom assembly format (codegen/src/format.rs), as ODS `assemblyFormat`.
    #[serde(default)]
    pub format: Option<SStr>,
    /// The name upstream's `getAsmBlockArgumentNames` gives the entry arguments of the op's
    /// regions in pretty printing (while's `iterArg`).
    #[serde(default)]
    pub block_arg_name: Option<SStr>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawAlsoName {
    pub name: SStr,
    /// The op family of the parent op for which the way back uses this name.
    pub parent: SStr,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawStablehloAttr {
    pub name: SStr,
    #[serde(rename = "type")]
    pub ty: SStr,
    #[serde(default)]
    pub default: Option<SStr>,
    #[serde(default)]
    pub optional: bool,
    /// The VHLO attributes it stands for when not one of the same name (a struct split into
    /// fields, or `[]` for none).
    #[serde(default)]
    pub vhlo: Option<Vec<SStr>>,
    /// The value VHLO spells out when the StableHLO op leaves the attribute out (upstream's
    /// `addDefaults`/`removeDefaults`), for each VHLO attribute it stands for.
    #[serde(default)]
    pub vhlo_default: Option<Spanned<RawValue>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawOpVersion {
    pub since: SStr,
    /// Optional explicit last release (`current` or X.Y.Z); it must agree with the derived one.
    #[serde(default)]
    pub until: Option<SStr>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub operands: Vec<SStr>,
    #[serde(default)]
    pub attributes: Vec<SStr>,
    #[serde(default)]
    pub results: Vec<SStr>,
    #[serde(default)]
    pub regions: Vec<SStr>,
    #[serde(default)]
    pub terminator: bool,
    #[serde(default)]
    pub changes: Vec<RawChange>,
    #[serde(default)]
    pub features: Vec<RawFeature>,
}

/// One change rule: how this version differs from the previous one.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum RawChange {
    AddAttribute(RawAttrChange),
    RemoveAttribute(RawAttrChange),
    MakeVariadic(RawRename),
    RenameOperand(RawRename),
    RenameAttribute(RawRename),
    AddRegion(RawNamed),
    Hook(RawNamed),
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawAttrChange {
    pub name: SStr,
    pub default: RawValue,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawRename {
    pub from: SStr,
    pub to: SStr,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawNamed {
    pub name: SStr,
}

/// A VHLO attribute value written in the spec. Exactly one form must be given.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct RawValue {
    #[serde(default)]
    pub bool: Option<Spanned<bool>>,
    #[serde(default)]
    pub int: Option<Spanned<i64>>,
    #[serde(default)]
    pub float: Option<Spanned<f64>>,
    #[serde(default, rename = "type")]
    pub ty: Option<SStr>,
    #[serde(default)]
    pub string: Option<SStr>,
    #[serde(default)]
    pub dict: Option<BTreeMap<String, RawValue>>,
    #[serde(default)]
    pub array: Option<Vec<RawValue>>,
    #[serde(default)]
    pub tensor: Option<RawTensor>,
    #[serde(default, rename = "enum")]
    pub enum_: Option<SStr>,
    #[serde(default)]
    pub case: Option<SStr>,
    #[serde(default)]
    pub attr: Option<SStr>,
    #[serde(default)]
    pub params: Option<BTreeMap<String, RawValue>>,
    #[serde(default)]
    pub hook: Option<SStr>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawTensor {
    pub element: SStr,
    pub shape: Vec<i64>,
    pub values: Vec<i64>,
}

/// A use of an op version that needs a later release than the op version itself.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawFeature {
    pub name: SStr,
    pub since: SStr,
    pub when: RawPredicate,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum RawPredicate {
    /// Operand and result element types differ (reductions that promote their type).
    ElementTypesDiffer,
    /// An attribute is of the given VHLO attribute kind.
    AttributeKind { attribute: SStr, kind: SStr },
    /// An attribute equals the given value.
    AttributeEquals {
        attribute: SStr,
        value: Box<RawValue>,
    },
    /// Some operand has (or contains) the given VHLO type.
    OperandType(SStr),
}

/// `dialects/<dialect>.yaml`: a dialect carried in artifacts without VHLO versions (Shardy),
/// lowered by `codec_dialect`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawCodecDialect {
    pub dialect: SStr,
    /// `ops` lists every op of the dialect that libStablehlo registers: an artifact holding
    /// another op name of the dialect is refused (libStablehlo could not read it).
    #[serde(default)]
    pub ops_complete: bool,
    /// MLIR's dialect takes op names it lacks as unregistered ops (`allowUnknownOperations`:
    /// shape), so no name is refused.
    #[serde(default)]
    pub allows_unknown_ops: bool,
    #[serde(default)]
    pub enums: Vec<RawCodecEnum>,
    #[serde(default)]
    pub attributes: Vec<RawCodecAttr>,
    #[serde(default)]
    pub encodings: Vec<RawEncoding>,
    #[serde(default)]
    pub ops: Vec<RawCodecOp>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawCodecEnum {
    pub name: SStr,
    #[serde(default)]
    pub cases: Vec<RawEnumCase>,
    /// The StableHLO enum (its `stablehlo:` name in spec/enums.yaml) whose cases these are.
    #[serde(default)]
    pub cases_of: Option<SStr>,
    /// The bit width of the integer attribute that holds a case (ODS's `I32EnumAttr` or
    /// `I64EnumAttr`): 32 when absent.
    #[serde(default)]
    pub width: Option<Spanned<u64>>,
    /// Another dialect's enum of this name, taken whole (its cases and width), as an ODS file
    /// includes another dialect's enums (math takes arith's rounding mode).
    #[serde(default)]
    pub from: Option<SStr>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawCodecAttr {
    pub name: SStr,
    #[serde(default)]
    pub syntax: Option<String>,
    /// Upstream's assembly format, of the one shape `list_format` reads.
    #[serde(default)]
    pub format: Option<SStr>,
    #[serde(default)]
    pub params: Vec<RawParam>,
    /// The ODS attribute's summary, which the verifier quotes of a value of another kind
    /// ("failed to satisfy constraint: Floating point fast math flags").
    #[serde(default)]
    pub summary: Option<String>,
    /// Another dialect's `format: text` attribute of this name, taken whole (math's ops hold
    /// arith's `#arith.fastmath`).
    #[serde(default)]
    pub from: Option<SStr>,
    /// A `format: text` attribute that op formats spell whole (`#ub.poison`, as ODS prints an
    /// attribute interface), not stripped of `#dialect.mnemonic`.
    #[serde(default)]
    pub whole: Option<Spanned<bool>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawEncoding {
    pub code: Spanned<u64>,
    pub attr: SStr,
    pub fields: Vec<SStr>,
    #[serde(default)]
    pub defaults: BTreeMap<String, SStr>,
    #[serde(default)]
    pub when: Vec<RawCondition>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawCondition {
    pub param: SStr,
    #[serde(default)]
    pub is: Option<SStr>,
    #[serde(default)]
    pub equals: Option<Spanned<i64>>,
    #[serde(default)]
    pub differs: Option<Spanned<i64>>,
    #[serde(default)]
    pub every: Option<Box<RawCondition>>,
    #[serde(default)]
    pub some: Option<Box<RawCondition>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawCodecOp {
    pub name: SStr,
    #[serde(default)]
    pub operands: Vec<SStr>,
    #[serde(default)]
    pub results: Vec<SStr>,
    #[serde(default)]
    pub attributes: Vec<RawOpAttr>,
    #[serde(default)]
    pub regions: Vec<SStr>,
    /// Its successor blocks (ODS's `successors`).
    #[serde(default)]
    pub successors: Vec<SStr>,
    #[serde(default)]
    pub terminator: bool,
    /// ODS traits the format relies on (`SameOperandsAndResultType`).
    #[serde(default)]
    pub traits: Vec<SStr>,
    /// The ODS type of each operand and result (`HLO_FpTensor`, `Variadic<...>`), lowered by
    /// codegen/src/ods_types.rs and checked by the verifier; none when empty.
    #[serde(default)]
    pub operand_types: Vec<SStr>,
    #[serde(default)]
    pub result_types: Vec<SStr>,
    /// Absent for upstream's `hasCustomAssemblyFormat` ops (text/sdy.rs writes them by hand).
    #[serde(default)]
    pub format: Option<SStr>,
    /// The name of its result as MLIR prints it (the op's `getAsmResultNames`).
    #[serde(default)]
    pub result_name: Option<SStr>,
    /// Types the format does not spell, inferred from another operand's, result's or
    /// attribute's (ODS's `AllTypesMatch`, `TypesMatchWith`).
    #[serde(default)]
    pub infer: Vec<RawInfer>,
    /// The terminator its parser adds to a block that lacks one (ODS's
    /// SingleBlockImplicitTerminator), an op of the same dialect.
    #[serde(default)]
    pub implicit_terminator: Option<SStr>,
    /// The ops of the same dialect it may sit directly in (ODS's HasParent, ParentOneOf).
    #[serde(default)]
    pub parents: Vec<SStr>,
    /// When the printer leaves that terminator out: `when_empty` (ODS's generated printers:
    /// a terminator without operands, results or attributes; the default) or
    /// `without_results` (custom printers that print terminators only when the op has results).
    #[serde(default)]
    pub terminator_elided: Option<SStr>,
    /// Its parser gives an empty region (`{}`) one empty block, as upstream's custom parsers
    /// that `createBlock` it (InParallelOp::parse) do.
    #[serde(default)]
    pub block_in_empty_region: bool,
    /// The dialect whose ops print without their prefix directly inside its regions, and parse
    /// so (upstream's `OpAsmOpInterface::getDefaultDialect`).
    #[serde(default)]
    pub default_dialect: Option<SStr>,
}

/// `{type_of: rhs, from: lhs}`: the type of operand (every operand of a variadic group) or
/// result `type_of` is that of operand, result or attribute `from`, or (`as: i1_shape`) i1 of its
/// shape, or (`as: element`) its element type, or (`as: complex_element`) a complex type's;
/// `{type_of: x, is: index}` is the index type.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawInfer {
    pub type_of: SStr,
    #[serde(default)]
    pub from: Option<SStr>,
    #[serde(default)]
    pub is: Option<SStr>,
    #[serde(default, rename = "as")]
    pub as_: Option<SStr>,
    /// What ODS's trait behind it says (`all of {lhs, rhs, sum} have same type`): the verifier
    /// refuses an op whose types break it, with "failed to verify that ...".
    #[serde(default)]
    pub verifies: Option<SStr>,
    /// The op infers this result type (ODS's `InferTypeOpInterface`): the verifier refuses
    /// another with "inferred type(s) ... are incompatible with return type(s) of operation".
    #[serde(default)]
    pub inferred: bool,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct RawOpAttr {
    pub name: SStr,
    pub of: SStr,
    #[serde(default)]
    pub optional: bool,
    /// ODS's `DefaultValuedAttr`: the value as printed, which a format leaves out.
    #[serde(default)]
    pub default: Option<SStr>,
    /// `0`: an `i64` that is not negative (ODS's `ConfinedAttr<I64Attr, [IntNonNegative]>`).
    #[serde(default)]
    pub min: Option<Spanned<i64>>,
}

/// `registered_ops.yaml`: the op names jaxlib registers in dialects the spec does not model,
/// by dialect (short names, without the dialect).
pub type RawRegisteredOps = std::collections::BTreeMap<String, Vec<SStr>>;

/// All raw files of one spec directory.
#[derive(Debug)]
pub struct RawSpec {
    pub dir: PathBuf,
    pub releases: Option<(String, RawReleases)>,
    pub types: Option<(String, RawTypes)>,
    pub attrs: Option<(String, RawAttrs)>,
    pub enums: Option<(String, RawEnums)>,
    /// (display path, family), sorted by file name.
    pub ops: Vec<(String, RawOpFamily)>,
    /// (display path, dialect) of `dialects/*.yaml`, sorted by file name.
    pub codec_dialects: Vec<(String, RawCodecDialect)>,
    /// `registered_ops.yaml`: (display path, the op names by dialect).
    pub registered_ops: Option<(String, RawRegisteredOps)>,
    /// Every file read, for rebuild tracking.
    pub files: Vec<PathBuf>,
    /// Display paths of the files that could not be read or parsed: what they define is
    /// missing from the model, so the lock does not check it (it would look removed).
    pub unloaded: Vec<String>,
    /// What the items that did not parse define, in files that loaded without them
    /// (`recover::Recovered::broken_names`): missing from the model like an unloaded file's.
    pub broken_names: Vec<String>,
}

impl crate::recover::Items for RawReleases {
    fn merge(&mut self, other: Self) {
        self.releases.extend(other.releases);
        self.tags.extend(other.tags);
    }
}

impl crate::recover::Items for RawTypes {
    fn merge(&mut self, other: Self) {
        self.types.extend(other.types);
    }
}

impl crate::recover::Items for RawAttrs {
    fn merge(&mut self, other: Self) {
        self.attributes.extend(other.attributes);
        self.retired_codes.extend(other.retired_codes);
        self.stablehlo_structs.extend(other.stablehlo_structs);
    }
}

impl crate::recover::Items for RawEnums {
    fn merge(&mut self, other: Self) {
        self.enums.extend(other.enums);
    }
}

/// Reads `dir` (`releases.yaml`, `types.yaml`, `attrs.yaml`, `enums.yaml`, `ops/*.yaml`).
/// `display_root` is how error messages name the directory (e.g. `spec`).
pub fn load_dir(dir: &Path, display_root: &str, diags: &mut Diagnostics) -> RawSpec {
    let mut files = Vec::new();
    let mut read = |rel: &str, diags: &mut Diagnostics| -> Option<(String, String)> {
        let path = dir.join(rel);
        let shown = format!("{display_root}/{rel}");
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                files.push(path);
                Some((shown, text))
            }
            Err(e) => {
                diags.error(
                    Pos::file(&shown),
                    format!("cannot read {}: {e}", path.display()),
                );
                None
            }
        }
    };
    // The list files keep what parses when an item does not (recover.rs).
    let mut broken_names = Vec::new();
    let mut unloaded = Vec::new();
    let mut lost = (&mut unloaded, &mut broken_names);
    let mut list_file = |rel: &str, diags: &mut Diagnostics| {
        let shown = format!("{display_root}/{rel}");
        (read(rel, diags), shown)
    };
    let releases = items(list_file("releases.yaml", diags), &mut lost, diags);
    let types = items(list_file("types.yaml", diags), &mut lost, diags);
    let attrs = items(list_file("attrs.yaml", diags), &mut lost, diags);
    let enums = items(list_file("enums.yaml", diags), &mut lost, diags);
    // Notes `rel` as unloaded when loading it added errors (counted before and after).
    let mut note = |rel: &str, before: usize, diags: &Diagnostics| {
        if diags.errors().len() > before {
            unloaded.push(format!("{display_root}/{rel}"));
        }
    };
    let mut op_files: Vec<String> = match std::fs::read_dir(dir.join("ops")) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".yaml"))
            .collect(),
        Err(e) => {
            diags.error(
                Pos::file(&format!("{display_root}/ops")),
                format!("cannot list op specs: {e}"),
            );
            Vec::new()
        }
    };
    op_files.sort();
    let mut ops = Vec::new();
    for name in op_files {
        let before = diags.errors().len();
        if let Some((f, t)) = read(&format!("ops/{name}"), diags) {
            if let Some(raw) = crate::recover::parse_whole::<RawOpFamily>(&f, &t, diags) {
                ops.push((f, raw));
            }
        }
        note(&format!("ops/{name}"), before, diags);
    }
    // `dialects/` is optional: a spec may describe VHLO alone.
    let mut dialect_files: Vec<String> = std::fs::read_dir(dir.join("dialects"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".yaml"))
                .collect()
        })
        .unwrap_or_default();
    dialect_files.sort();
    let mut codec_dialects = Vec::new();
    for name in dialect_files {
        let before = diags.errors().len();
        if let Some((f, t)) = read(&format!("dialects/{name}"), diags) {
            if let Some(raw) = crate::recover::parse_whole(&f, &t, diags) {
                codec_dialects.push((f, raw));
            }
        }
        note(&format!("dialects/{name}"), before, diags);
    }
    // Optional, as `dialects/` is: a spec without it lists no op names of other dialects.
    let registered_ops = (dir.join("registered_ops.yaml").exists())
        .then(|| read("registered_ops.yaml", diags))
        .flatten()
        .and_then(|(f, t)| crate::recover::parse_whole(&f, &t, diags).map(|r| (f, r)));
    RawSpec {
        dir: dir.to_path_buf(),
        releases,
        types,
        attrs,
        enums,
        ops,
        codec_dialects,
        registered_ops,
        files,
        unloaded,
        broken_names,
    }
}

/// A list file (what `read` gave, and its display path) parsed item by item; `lost` collects
/// the display path when nothing of it loads, and the names its broken items define.
fn items<T: for<'de> Deserialize<'de> + crate::recover::Items>(
    (read, shown): (Option<(String, String)>, String),
    lost: &mut (&mut Vec<String>, &mut Vec<String>),
    diags: &mut Diagnostics,
) -> Option<(String, T)> {
    let got = read.and_then(|(f, t)| {
        let got = crate::recover::parse_items(&f, &t, diags);
        lost.1.extend(got.broken_names);
        got.value.map(|v| (f, v))
    });
    if got.is_none() {
        lost.0.push(shown);
    }
    got
}

/// The position of a spanned value in `file`.
pub fn pos<T>(file: &str, s: &Spanned<T>) -> Pos {
    Pos {
        file: file.to_string(),
        line: s.referenced.line() as u32,
        col: s.referenced.column() as u32,
    }
}

/// Where a string's first character is: columns of format errors count from inside the quotes.
pub fn string_pos(file: &str, s: &SStr) -> Pos {
    let mut p = pos(file, s);
    if s.referenced.span().len() > s.value.chars().count() as u64 {
        p.col += 1;
    }
    p
}
