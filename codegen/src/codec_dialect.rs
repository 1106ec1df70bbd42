//! A dialect that rides along in portable artifacts without being versioned by VHLO (Shardy, `sdy`):
//! its attributes, their bytecode encodings and its ops, from `spec/dialects/<dialect>.yaml`.
//!
//! Same steps as the VHLO spec: `load` (YAML -> raw structs with spans), [`lower`] (raw ->
//! [`CodecDialect`], resolving names to indices) with the checks done while resolving, every error
//! at `file:line:col`. `emit::codec` turns the model into the static tables that
//! `vhlo_core::dialect::codec` describes and `vhlo_core::bytecode::codec` interprets.

use crate::diag::Diagnostics;
use crate::load::{pos, RawCodecDialect, RawCondition, SStr};
use crate::params::{ParamDef, ParamKind};
use crate::wire::Wire;

/// The parameter kinds (`spec/types.yaml`'s) a dialect attribute may have: those the dialect
/// text syntax knows.
const KINDS: &[ParamKind] = &[
    ParamKind::String,
    ParamKind::I64,
    ParamKind::I64s,
    ParamKind::U32,
    ParamKind::Bool,
    ParamKind::Attr,
    ParamKind::Attrs,
];

/// What an attribute-valued parameter holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Of {
    Any,
    String,
    MeshOrRef,
    /// An attribute of this dialect (index into `attrs`).
    Attr(usize),
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub kind: ParamKind,
    pub optional: bool,
    /// Its bytecode form.
    pub wire: Wire,
    pub of: Of,
    /// Index into `enums`.
    pub enum_: Option<usize>,
    /// The least value of an integer (or of each integer of a list).
    pub min: Option<i64>,
}

#[derive(Clone, Debug)]
pub struct Attr {
    pub name: String,
    pub syntax: Option<String>,
    /// The dialect whose attribute this is: the file's, or a `format: text` attribute's
    /// `syntax` names another (math's `#arith.fastmath`).
    pub dialect: String,
    pub summary: Option<String>,
    /// The delimiters of a list attribute's syntax (from its `format`).
    pub list: Option<(String, String)>,
    /// `format: enum` or `format: struct` (see [`AttrForm`]).
    pub form: AttrForm,
    /// A text attribute that op formats spell whole (spec `whole: true`).
    pub whole: bool,
    pub params: Vec<Param>,
}

/// How an attribute is spelled in text, when not by hand (text/sdy.rs) or as a list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrForm {
    /// Written by hand, or a list (`Attr::list`).
    Custom,
    /// An EnumAttr: `#dialect<mnemonic CASE>`, one enum parameter.
    Enum,
    /// StableHLO's printStruct: `#dialect.mnemonic<name = [1, 2], ...>`, integer-list parameters.
    Struct,
    /// Kept as its text (`#arith.fastmath<fast>`), no parameters: a dialect without a bytecode
    /// encoding of its own writes it so. A format spells it stripped (`<fast>`).
    Text,
}

#[derive(Clone, Debug)]
pub struct Enum {
    pub name: String,
    pub cases: Vec<(String, i64)>,
    /// The width of the integer attribute holding a case (32 or 64).
    pub width: u32,
}

/// The value a parameter left out of an encoding takes when read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    Empty,
    Int(i64),
}

#[derive(Clone, Debug)]
pub enum Condition {
    Empty {
        param: usize,
        empty: bool,
    },
    Equals {
        param: usize,
        value: i64,
        equal: bool,
    },
    /// `every` (true) or `some` (false) element attribute of `param` satisfies `inner`.
    Elements {
        param: usize,
        every: bool,
        inner: Box<Condition>,
    },
}

#[derive(Clone, Debug)]
pub struct Encoding {
    pub code: u64,
    pub attr: usize,
    /// The encoded parameters (indices into the attribute's), in wire order.
    pub fields: Vec<usize>,
    pub defaults: Vec<(usize, DefaultValue)>,
    pub when: Vec<Condition>,
}

#[derive(Clone, Debug)]
pub struct OpAttr {
    pub name: String,
    pub of: String,
    pub optional: bool,
    /// The default value as printed (ODS's `DefaultValuedAttr`).
    pub default: Option<String>,
    /// The least value of an `i64` (ODS's `ConfinedAttr`).
    pub min: Option<i64>,
}

/// Where an inferred type comes from or goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeSlot {
    Operand(usize),
    Result(usize),
    /// The type of a typed attribute (index into the op's attributes in spec order).
    Attr(usize),
}

/// What an inferred type is made of its source's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InferAs {
    Same,
    /// i1 of its shape (MLIR's getI1SameShape).
    I1Shape,
    /// Its element type.
    Element,
    /// A complex type's element type (`cast<ComplexType>($_self).getElementType()`).
    ComplexElement,
    /// The index type (without a source).
    Index,
    /// i1 (without a source).
    I1,
    /// A dialect type without parameters, `!dialect.mnemonic` (without a source; shape's
    /// `!shape.size`).
    DialectType(String, String),
}

/// One inferred type: `to` is `from`'s type made as `as_` says, or `index` without `from`.
#[derive(Clone, Debug)]
pub struct Infer {
    pub to: TypeSlot,
    pub from: Option<TypeSlot>,
    pub as_: InferAs,
    /// The wording of the ODS trait the verifier checks it by, if it does.
    pub verifies: Option<String>,
    /// Checked as the op's `InferTypeOpInterface` (a result's type).
    pub inferred: bool,
}

/// The ODS traits of ops of other dialects that the verifier checks (text/verify/walk.rs);
/// `SameOperandsAndResultType` is the format's too.
pub const VERIFIED_TRAITS: &[&str] = &[
    "SameOperandsAndResultType",
    "SameTypeOperands",
    "CompatibleOperandsAndResultType",
    "SameOperandsAndResultElementType",
    "CompatibleOperandsAndResultElementType",
    "Elementwise",
    "SameOperandsAndResultShape",
    // Its value is a constant to `hlo::matchInts` (text/verify/types.rs `constant_ints`).
    "ConstantLike",
    // Structural (text/verify/structure.rs `classify`).
    "IsolatedFromAbove",
    "NoTerminator",
];

#[derive(Clone, Debug)]
pub struct Op {
    pub name: String,
    pub operands: Vec<String>,
    pub results: Vec<String>,
    /// Inherent attributes in property order (sorted by name).
    pub attributes: Vec<OpAttr>,
    pub regions: Vec<String>,
    pub successors: Vec<String>,
    pub terminator: bool,
    /// ODS's `SameOperandsAndResultType`: a format spells one type for all.
    pub same_type: bool,
    /// The ODS traits the verifier checks (spec `traits`, [`VERIFIED_TRAITS`]).
    pub traits: Vec<String>,
    /// The assembly format and where its first character is (codegen/src/format.rs).
    pub format: Option<(String, crate::diag::Pos)>,
    /// The types the format leaves out, in order.
    pub infer: Vec<Infer>,
    /// Its result's name as MLIR prints it (`getAsmResultNames`).
    pub result_name: Option<String>,
    /// ODS's SingleBlockImplicitTerminator: the terminator's name (an op of this dialect),
    /// whether the printer leaves it out only when the op has no results (else when empty),
    /// and whether it is never left out nor added (`terminator_elided: never`).
    pub implicit_terminator: Option<(String, bool, bool)>,
    /// ODS's HasParent/ParentOneOf: the ops of this dialect it may sit directly in.
    pub parents: Vec<String>,
    /// An empty region gets one empty block when parsed.
    pub block_in_empty_region: bool,
    /// The default dialect of its regions (`getDefaultDialect`).
    pub default_dialect: Option<String>,
    /// The ODS type of each operand and result (spec `operand_types:`/`result_types:`); empty
    /// when the spec gives none.
    pub operand_types: Vec<String>,
    pub result_types: Vec<String>,
    pub pos: crate::diag::Pos,
}

/// The checked model of one codec dialect.
#[derive(Clone, Debug)]
pub struct CodecDialect {
    pub name: String,
    /// `ops` lists every op libStablehlo registers (spec `ops_complete`).
    pub ops_complete: bool,
    /// Other op names are unregistered ops of the dialect (spec `allows_unknown_ops`).
    pub allows_unknown_ops: bool,
    pub enums: Vec<Enum>,
    pub attrs: Vec<Attr>,
    /// Sorted by code.
    pub encodings: Vec<Encoding>,
    pub ops: Vec<Op>,
}

/// Builtin kinds an op's inherent attribute may hold besides this dialect's attributes.
const BUILTIN_OP_ATTRS: &[&str] = &[
    "symbol_name",
    "string",
    "i64",
    "elements",
    "bool",
    "dense_i64_array",
    "dense_i32_array",
    "typed",
    "array",
    "unit",
    "index",
    "index_elements",
];

/// The cases (name, value) of a StableHLO enum by its `stablehlo:` name: given by the model, so
/// that this module does not depend on it.
pub type StablehloCases<'a> = dyn Fn(&str) -> Option<Vec<(String, i64)>> + 'a;

/// What a dialect file may take from elsewhere in the spec.
pub struct Sources<'a> {
    pub stablehlo_cases: &'a StablehloCases<'a>,
    /// The dialects lowered already, for `from:` (each taken whole from the file that states it).
    pub dialects: &'a [CodecDialect],
}

/// The dialect `from` names, lowered already; an error at `from` when there is none.
fn source_dialect<'s>(
    file: &str,
    from: &SStr,
    sources: &Sources<'s>,
    diags: &mut Diagnostics,
) -> Option<&'s CodecDialect> {
    let found = sources.dialects.iter().find(|d| d.name == from.value);
    if found.is_none() {
        let known: Vec<&str> = sources.dialects.iter().map(|d| d.name.as_str()).collect();
        diags.error(
            pos(file, from),
            format!(
                "no dialect '{}' to take from (the dialects with no `from:` of their own: {})",
                from.value,
                known.join(", ")
            ),
        );
    }
    found
}

/// Lowers and checks one file.
pub fn lower(
    file: &str,
    raw: &RawCodecDialect,
    sources: &Sources<'_>,
    diags: &mut Diagnostics,
) -> CodecDialect {
    let mut enums: Vec<Enum> = Vec::new();
    for e in &raw.enums {
        if enums.iter().any(|x| x.name == e.name.value) {
            diags.error(
                pos(file, &e.name),
                format!("duplicate enum '{}'", e.name.value),
            );
        }
        if let Some(from) = &e.from {
            if !e.cases.is_empty() || e.cases_of.is_some() || e.width.is_some() {
                diags.error(
                    pos(file, from),
                    format!(
                        "enum '{}' is taken from '{}': it has no `cases`, `cases_of` or `width` here",
                        e.name.value, from.value
                    ),
                );
            }
            let taken = source_dialect(file, from, sources, diags).and_then(|d| {
                let found = d.enums.iter().find(|x| x.name == e.name.value);
                if found.is_none() {
                    diags.error(
                        pos(file, &e.name),
                        format!("dialect '{}' has no enum '{}'", from.value, e.name.value),
                    );
                }
                found
            });
            enums.push(taken.cloned().unwrap_or_else(|| Enum {
                name: e.name.value.clone(),
                cases: Vec::new(),
                width: 32,
            }));
            continue;
        }
        for c in &e.cases {
            if let Some(s) = &c.since {
                diags.error(
                    pos(file, s),
                    "`since:` is for the cases of VHLO enums; a dialect's enums are not versioned",
                );
            }
        }
        let mut cases: Vec<(String, i64)> = e
            .cases
            .iter()
            .map(|c| (c.name.value.clone(), c.value.value))
            .collect();
        match (&e.cases_of, cases.is_empty()) {
            (Some(of), true) => match (sources.stablehlo_cases)(&of.value) {
                Some(x) => cases = x,
                None => diags.error(
                    pos(file, of),
                    format!("no StableHLO enum '{}' in spec/enums.yaml", of.value),
                ),
            },
            (Some(of), false) => diags.error(pos(file, of), "both `cases` and `cases_of`"),
            (None, true) => diags.error(pos(file, &e.name), "an enum without cases"),
            (None, false) => {}
        }
        let width = match &e.width {
            None => 32,
            Some(w) if w.value == 32 || w.value == 64 => w.value as u32,
            Some(w) => {
                diags.error(pos(file, w), "an enum's `width` is 32 or 64");
                32
            }
        };
        enums.push(Enum {
            name: e.name.value.clone(),
            cases,
            width,
        });
    }
    let attr_names: Vec<&str> = raw
        .attributes
        .iter()
        .map(|a| a.name.value.as_str())
        .collect();
    let mut attrs = Vec::new();
    for (i, a) in raw.attributes.iter().enumerate() {
        if attr_names[..i].contains(&a.name.value.as_str()) {
            diags.error(
                pos(file, &a.name),
                format!("duplicate attribute '{}'", a.name.value),
            );
        }
        if let Some(from) = &a.from {
            if a.syntax.is_some()
                || a.format.is_some()
                || !a.params.is_empty()
                || a.summary.is_some()
            {
                diags.error(
                    pos(file, from),
                    format!(
                        "attribute '{}' is taken from '{}': it has no `syntax`, `format`, `params` or `summary` here",
                        a.name.value, from.value
                    ),
                );
            }
            let taken = source_dialect(file, from, sources, diags).and_then(|d| {
                let found = d.attrs.iter().find(|x| x.name == a.name.value);
                match found {
                    None => diags.error(
                        pos(file, &a.name),
                        format!("dialect '{}' has no attribute '{}'", from.value, a.name.value),
                    ),
                    // Another kind would bring encodings, which name this dialect's codes.
                    Some(x) if x.form != AttrForm::Text => diags.error(
                        pos(file, &a.name),
                        format!(
                            "attribute '{}' of '{}' is not `format: text`: only a text attribute is taken from another dialect",
                            a.name.value, from.value
                        ),
                    ),
                    Some(_) => {}
                }
                found.filter(|x| x.form == AttrForm::Text)
            });
            attrs.push(taken.cloned().unwrap_or_else(|| Attr {
                name: a.name.value.clone(),
                syntax: None,
                dialect: from.value.clone(),
                summary: None,
                list: None,
                form: AttrForm::Text,
                whole: false,
                params: Vec::new(),
            }));
            continue;
        }
        let mut params: Vec<Param> = Vec::new();
        for p in &a.params {
            if params.iter().any(|q| q.name == p.name.value) {
                diags.error(
                    pos(file, &p.name),
                    format!("duplicate parameter '{}'", p.name.value),
                );
            }
            let kind = match KINDS.iter().find(|k| k.spelling() == p.kind.value) {
                Some(k) => *k,
                None => {
                    let names: Vec<&str> = KINDS.iter().map(|k| k.spelling()).collect();
                    diags.error(
                        pos(file, &p.kind),
                        format!(
                            "unknown parameter kind '{}' (expected one of {})",
                            p.kind.value,
                            names.join(", ")
                        ),
                    );
                    // Not an attribute kind, so no follow-on error about `of`.
                    ParamKind::I64
                }
            };
            let holds_attrs = matches!(kind, ParamKind::Attr | ParamKind::Attrs);
            let of = match &p.of {
                None if holds_attrs => {
                    diags.error(
                        pos(file, &p.name),
                        format!("attribute parameter '{}' needs `of`", p.name.value),
                    );
                    Of::Any
                }
                None => Of::Any,
                Some(o) if !holds_attrs => {
                    diags.error(
                        pos(file, o),
                        format!("`of` on a parameter of kind '{}'", p.kind.value),
                    );
                    Of::Any
                }
                Some(o) => match o.value.as_str() {
                    "any" => Of::Any,
                    "string" => Of::String,
                    "mesh_or_ref" => Of::MeshOrRef,
                    n => match attr_names.iter().position(|x| *x == n) {
                        Some(j) => Of::Attr(j),
                        None => {
                            diags.error(pos(file, o), format!("unknown attribute '{n}' in `of`"));
                            Of::Any
                        }
                    },
                },
            };
            let enum_ = p.enum_.as_ref().and_then(|e| {
                let found = enums.iter().position(|x| x.name == e.value);
                if found.is_none() {
                    diags.error(pos(file, e), format!("unknown enum '{}'", e.value));
                }
                found
            });
            let min = p.min.as_ref().and_then(|m| {
                let integer = matches!(kind, ParamKind::I64 | ParamKind::I64s);
                if !integer {
                    diags.error(
                        pos(file, m),
                        format!("`min` on a parameter of kind '{}'", p.kind.value),
                    );
                }
                integer.then_some(m.value)
            });
            let def = ParamDef {
                name: p.name.value.clone(),
                kind,
                optional: p.optional,
                wire: p.wire.as_ref().map(|w| (w.value.clone(), pos(file, w))),
                pos: pos(file, &p.name),
            };
            // No type parameters, so no hint that depends on one; no `code_with_encoding`.
            let wire = crate::wire::param_wire(&def, &a.name.value, None, false, diags);
            params.push(Param {
                name: p.name.value.clone(),
                kind,
                optional: p.optional,
                wire,
                of,
                enum_,
                min,
            });
        }
        let form = match a.format.as_ref().map(|f| f.value.as_str()) {
            Some("enum") => AttrForm::Enum,
            Some("struct") => AttrForm::Struct,
            Some("text") => AttrForm::Text,
            _ => AttrForm::Custom,
        };
        let bad_form = match form {
            AttrForm::Enum => !matches!(&params[..], [p] if p.enum_.is_some()),
            AttrForm::Struct => params.iter().any(|p| p.kind != ParamKind::I64s),
            AttrForm::Text => !params.is_empty(),
            AttrForm::Custom => false,
        };
        if let (true, Some(f)) = (bad_form, &a.format) {
            diags.error(
                pos(file, f),
                format!(
                    "format of '{}': `enum` takes one enum parameter, `struct` integer lists, `text` none",
                    a.name.value
                ),
            );
        }
        let list = a
            .format
            .as_ref()
            .filter(|_| form == AttrForm::Custom)
            .and_then(|f| {
                let only = match &params[..] {
                    [p] if p.kind == ParamKind::Attrs => Some(p.name.as_str()),
                    _ => None,
                };
                list_format(&f.value, only)
                    .map_err(|(at, m)| {
                        let mut p = crate::load::string_pos(file, f);
                        p.col += at as u32;
                        diags.error(p, format!("format of '{}': {m}", a.name.value));
                    })
                    .ok()
            });
        // `#dialect.mnemonic<...>`: a text attribute may be another dialect's.
        let named = (a.syntax.as_deref())
            .and_then(|s| s.strip_prefix('#'))
            .and_then(|s| s.split_once('.'))
            .filter(|(_, rest)| rest.split('<').next() == Some(a.name.value.as_str()));
        let dialect = match (form, named) {
            (AttrForm::Text, Some((d, _))) => d.to_string(),
            (AttrForm::Text, None) => {
                diags.error(
                    pos(file, &a.name),
                    format!(
                        "text attribute '{}' needs a `syntax` of the form `#dialect.{}<...>`",
                        a.name.value, a.name.value
                    ),
                );
                raw.dialect.value.clone()
            }
            _ => raw.dialect.value.clone(),
        };
        let whole = a.whole.as_ref().is_some_and(|w| w.value);
        if let (Some(w), false) = (&a.whole, form == AttrForm::Text) {
            diags.error(
                pos(file, w),
                format!(
                    "`whole` of '{}': only a `format: text` attribute is spelled whole",
                    a.name.value
                ),
            );
        }
        attrs.push(Attr {
            name: a.name.value.clone(),
            syntax: a.syntax.clone(),
            dialect,
            summary: a.summary.clone(),
            list,
            form,
            whole,
            params,
        });
    }

    let mut encodings: Vec<Encoding> = Vec::new();
    for (i, e) in raw.encodings.iter().enumerate() {
        if e.code.value != i as u64 {
            diags.error(
                pos(file, &e.code),
                format!(
                    "encoding code {} out of order: codes are the list index ({i} here)",
                    e.code.value
                ),
            );
        }
        let Some(attr) = attr_names.iter().position(|x| *x == e.attr.value) else {
            diags.error(
                pos(file, &e.attr),
                format!("unknown attribute '{}'", e.attr.value),
            );
            continue;
        };
        let a = &attrs[attr];
        let param_of = |name: &SStr, diags: &mut Diagnostics| {
            let found = a.params.iter().position(|p| p.name == name.value);
            if found.is_none() {
                diags.error(
                    pos(file, name),
                    format!("'{}' is not a parameter of '{}'", name.value, a.name),
                );
            }
            found
        };
        let mut fields = Vec::new();
        for f in &e.fields {
            if let Some(p) = param_of(f, diags) {
                if fields.contains(&p) {
                    diags.error(pos(file, f), format!("field '{}' listed twice", f.value));
                }
                fields.push(p);
            }
        }
        let mut defaults = Vec::new();
        for (name, value) in &e.defaults {
            let Some(p) = a.params.iter().position(|q| &q.name == name) else {
                diags.error(
                    pos(file, value),
                    format!("default for '{name}', not a parameter of '{}'", a.name),
                );
                continue;
            };
            if fields.contains(&p) {
                diags.error(
                    pos(file, value),
                    format!("default for '{name}', which the encoding carries"),
                );
            }
            let kind = a.params[p].kind;
            let v = match (value.value.as_str(), kind) {
                ("empty", ParamKind::Attrs | ParamKind::I64s) => DefaultValue::Empty,
                (s, ParamKind::I64) if s.parse::<i64>().is_ok() => {
                    DefaultValue::Int(s.parse().unwrap_or(0))
                }
                (s, _) => {
                    diags.error(
                        pos(file, value),
                        format!("default '{s}' does not fit '{name}' ({})", kind.spelling()),
                    );
                    continue;
                }
            };
            defaults.push((p, v));
        }
        for (p, param) in a.params.iter().enumerate() {
            if !fields.contains(&p) && !defaults.iter().any(|(d, _)| *d == p) && !param.optional {
                diags.error(
                    pos(file, &e.attr),
                    format!(
                        "encoding {} leaves out '{}' of '{}' without a default",
                        e.code.value, param.name, a.name
                    ),
                );
            }
        }
        let when = e
            .when
            .iter()
            .filter_map(|c| condition(file, &attrs, attr, c, diags))
            .collect();
        encodings.push(Encoding {
            code: e.code.value,
            attr,
            fields,
            defaults,
            when,
        });
    }
    // Every attribute has an encoding, and every encoding but the last of an attribute has a
    // condition (the writer takes the first that holds).
    for (i, a) in attrs.iter().enumerate() {
        let of_attr: Vec<&Encoding> = encodings.iter().filter(|e| e.attr == i).collect();
        // An attribute upstream's bytecode interface does not encode is written as its text
        // (CHLO's precision and ragged_dot); a hand-written syntax needs an encoding.
        if of_attr.is_empty() && a.form == AttrForm::Custom {
            if let Some(r) = raw.attributes.get(i) {
                diags.error(
                    pos(file, &r.name),
                    format!("attribute '{}' has no encoding", a.name),
                );
            }
        }
        // Judged on the file (a condition that failed to lower has been reported already).
        let unconditional = raw
            .encodings
            .iter()
            .any(|e| e.attr.value == a.name && e.when.is_empty());
        if of_attr.len() > 1 && unconditional {
            if let Some(r) = raw.attributes.get(i) {
                diags.error(
                    pos(file, &r.name),
                    format!(
                        "attribute '{}' has several encodings, so each needs a `when`",
                        a.name
                    ),
                );
            }
        }
    }

    let mut ops: Vec<Op> = Vec::new();
    for o in &raw.ops {
        if ops.iter().any(|x| x.name == o.name.value) {
            diags.error(
                pos(file, &o.name),
                format!("duplicate op '{}'", o.name.value),
            );
        }
        let mut attributes: Vec<OpAttr> = Vec::new();
        for a in &o.attributes {
            let known = BUILTIN_OP_ATTRS.contains(&a.of.value.as_str())
                || attr_names.contains(&a.of.value.as_str())
                || enums.iter().any(|e| e.name == a.of.value);
            if !known {
                diags.error(
                    pos(file, &a.of),
                    format!("unknown attribute kind '{}'", a.of.value),
                );
            }
            if attributes.iter().any(|x| x.name == a.name.value) {
                diags.error(
                    pos(file, &a.name),
                    format!("duplicate attribute '{}'", a.name.value),
                );
            }
            // The bytecode writer writes a default an op lacks as the attribute's text.
            let text_attr = (raw.attributes.iter())
                .zip(&attrs)
                .any(|(r, x)| r.name.value == a.of.value && x.form == AttrForm::Text);
            if let (Some(d), false) = (&a.default, text_attr) {
                diags.error(
                    pos(file, d),
                    "a `default` is for attributes of a `format: text` attribute kind",
                );
            }
            if let Some(min) = &a.min {
                if a.of.value != "i64" || min.value != 0 {
                    diags.error(
                        pos(file, min),
                        "`min: 0` (ODS's IntNonNegative) is the one `min` known, for attributes `of: i64`",
                    );
                }
            }
            attributes.push(OpAttr {
                name: a.name.value.clone(),
                of: a.of.value.clone(),
                optional: a.optional,
                default: a.default.as_ref().map(|d| d.value.clone()),
                min: a.min.as_ref().map(|m| m.value),
            });
        }
        // Inferred types name operands, results and (as sources) attributes in spec order.
        let operand_names: Vec<&str> = o
            .operands
            .iter()
            .map(|s| s.value.trim_end_matches('*'))
            .collect();
        let result_names: Vec<&str> = o
            .results
            .iter()
            .map(|s| s.value.trim_end_matches('*'))
            .collect();
        let slot = |n: &SStr, attrs_ok: bool, diags: &mut Diagnostics| {
            let v = n.value.as_str();
            let found = if let Some(i) = operand_names.iter().position(|x| *x == v) {
                Some(TypeSlot::Operand(i))
            } else if let Some(i) = result_names.iter().position(|x| *x == v) {
                Some(TypeSlot::Result(i))
            } else if let Some(i) = o.attributes.iter().position(|a| a.name.value == v) {
                attrs_ok.then_some(TypeSlot::Attr(i))
            } else {
                None
            };
            if found.is_none() {
                diags.error(
                    pos(file, n),
                    format!(
                        "'{v}' is not an operand or result{}",
                        if attrs_ok { " or attribute" } else { "" }
                    ),
                );
            }
            found
        };
        let mut infer = Vec::new();
        for r in &o.infer {
            let to = slot(&r.type_of, false, diags);
            let mut constant = None;
            let from = match (&r.from, &r.is) {
                (Some(f), None) => slot(f, true, diags).map(Some),
                (None, Some(is)) if is.value == "index" || is.value == "i1" => {
                    constant = Some(if is.value == "index" {
                        InferAs::Index
                    } else {
                        InferAs::I1
                    });
                    Some(None)
                }
                (None, Some(is)) => match dialect_type(&is.value) {
                    Some((d, m)) => {
                        constant = Some(InferAs::DialectType(d.into(), m.into()));
                        Some(None)
                    }
                    None => {
                        diags.error(
                            pos(file, is),
                            format!(
                                "unknown `is: {}` (known: index, i1, or a dialect type without parameters, `!dialect.name`)",
                                is.value
                            ),
                        );
                        None
                    }
                },
                _ => {
                    diags.error(
                        pos(file, &r.type_of),
                        "an inferred type takes one of `from` and `is`",
                    );
                    None
                }
            };
            let as_ = match r.as_.as_ref().map(|a| a.value.as_str()) {
                None => InferAs::Same,
                Some("i1_shape") => InferAs::I1Shape,
                Some("element") => InferAs::Element,
                Some("complex_element") => InferAs::ComplexElement,
                Some(other) => {
                    if let Some(a) = &r.as_ {
                        diags.error(
                            pos(file, a),
                            format!(
                                "unknown `as: {other}` (known: i1_shape, element, complex_element)"
                            ),
                        );
                    }
                    InferAs::Same
                }
            };
            let as_ = constant.unwrap_or(as_);
            if r.inferred && (r.verifies.is_some() || !matches!(to, Some(TypeSlot::Result(_)))) {
                diags.error(
                    pos(file, &r.type_of),
                    "`inferred: true` is a result's type, checked as the op's InferTypeOpInterface (not also `verifies`)",
                );
            }
            if let (Some(to), Some(from)) = (to, from) {
                let verifies = r.verifies.as_ref().map(|v| v.value.clone());
                infer.push(Infer {
                    to,
                    from,
                    as_,
                    verifies,
                    inferred: r.inferred,
                });
            }
        }
        attributes.sort_by(|a, b| a.name.cmp(&b.name));
        // Attribute slots index the sorted (property-order) list.
        for r in &mut infer {
            if let Some(TypeSlot::Attr(i)) = r.from {
                let name = &o.attributes[i].name.value;
                if let Some(j) = attributes.iter().position(|a| &a.name == name) {
                    r.from = Some(TypeSlot::Attr(j));
                }
            }
        }
        for t in &o.traits {
            if !VERIFIED_TRAITS.contains(&t.value.as_str()) {
                diags.error(
                    pos(file, t),
                    format!(
                        "unknown trait '{}' (known: {})",
                        t.value,
                        VERIFIED_TRAITS.join(", ")
                    ),
                );
            }
        }
        let (without_results, never) = match o
            .terminator_elided
            .as_ref()
            .map(|t| (t, t.value.as_str()))
        {
            None | Some((_, "when_empty")) => (false, false),
            Some((_, "without_results")) => (true, false),
            Some((_, "never")) => (false, true),
            Some((t, other)) => {
                diags.error(
                        pos(file, t),
                        format!(
                            "unknown `terminator_elided: {other}` (known: when_empty, without_results, never)"
                        ),
                    );
                (false, false)
            }
        };
        if let (Some(d), true) = (&o.default_dialect, o.regions.is_empty()) {
            diags.error(pos(file, d), "a `default_dialect` on an op without regions");
        }
        if o.block_in_empty_region && o.regions.is_empty() {
            diags.error(
                pos(file, &o.name),
                "`block_in_empty_region` on an op without regions",
            );
        }
        if let (Some(t), None) = (&o.terminator_elided, &o.implicit_terminator) {
            diags.error(
                pos(file, t),
                "`terminator_elided` without an `implicit_terminator`",
            );
        }
        let implicit_terminator = o.implicit_terminator.as_ref().map(|t| {
            let found = raw.ops.iter().find(|x| x.name.value == t.value);
            if !found.is_some_and(|x| x.terminator) {
                diags.error(
                    pos(file, t),
                    format!(
                        "`implicit_terminator: {}` is not a terminator op of this dialect",
                        t.value
                    ),
                );
            }
            if o.regions.is_empty() {
                diags.error(
                    pos(file, t),
                    "an `implicit_terminator` on an op without regions",
                );
            }
            (t.value.clone(), without_results, never)
        });
        for p in &o.parents {
            if !raw
                .ops
                .iter()
                .any(|x| x.name.value == p.value && !x.regions.is_empty())
            {
                diags.error(
                    pos(file, p),
                    format!(
                        "parent `{}` is not an op with regions of this dialect",
                        p.value
                    ),
                );
            }
        }
        for (what, fields, types) in [
            ("operand", &o.operands, &o.operand_types),
            ("result", &o.results, &o.result_types),
        ] {
            if types.is_empty() {
                continue;
            }
            if types.len() != fields.len() {
                diags.error(
                    pos(file, &types[0]),
                    format!(
                        "`{}` has {} {what}s but {} {what}_types",
                        o.name.value,
                        fields.len(),
                        types.len()
                    ),
                );
                continue;
            }
            for (f, t) in fields.iter().zip(types) {
                match crate::ods_types::lower(&t.value) {
                    Err(why) => diags.error(
                        pos(file, t),
                        format!("{what} `{}` of `{}`: {why}", f.value, o.name.value),
                    ),
                    Ok(c) if c.variadic != f.value.ends_with('*') => diags.error(
                        pos(file, t),
                        format!(
                            "{what} `{}` of `{}`: a variadic {what} (spelled `name*`) takes `Variadic<...>`, and only it",
                            f.value, o.name.value
                        ),
                    ),
                    Ok(_) => {}
                }
            }
        }
        ops.push(Op {
            name: o.name.value.clone(),
            operands: o.operands.iter().map(|s| s.value.clone()).collect(),
            results: o.results.iter().map(|s| s.value.clone()).collect(),
            attributes,
            regions: o.regions.iter().map(|s| s.value.clone()).collect(),
            successors: o.successors.iter().map(|s| s.value.clone()).collect(),
            terminator: o.terminator,
            same_type: o
                .traits
                .iter()
                .any(|t| t.value == "SameOperandsAndResultType"),
            traits: o.traits.iter().map(|t| t.value.clone()).collect(),
            format: o
                .format
                .as_ref()
                .map(|f| (f.value.clone(), crate::load::string_pos(file, f))),
            infer,
            result_name: o.result_name.as_ref().map(|r| r.value.clone()),
            implicit_terminator,
            parents: o.parents.iter().map(|p| p.value.clone()).collect(),
            block_in_empty_region: o.block_in_empty_region,
            default_dialect: o.default_dialect.as_ref().map(|d| d.value.clone()),
            operand_types: o.operand_types.iter().map(|t| t.value.clone()).collect(),
            result_types: o.result_types.iter().map(|t| t.value.clone()).collect(),
            pos: pos(file, &o.name),
        });
    }
    CodecDialect {
        name: raw.dialect.value.clone(),
        ops_complete: raw.ops_complete,
        allows_unknown_ops: raw.allows_unknown_ops,
        enums,
        attrs,
        encodings,
        ops,
    }
}

/// `(dialect, mnemonic)` of a dialect type without parameters spelled `!dialect.mnemonic`.
fn dialect_type(text: &str) -> Option<(&str, &str)> {
    let (d, m) = text.strip_prefix('!')?.split_once('.')?;
    let word = |w: &str| {
        w.starts_with(|c: char| c.is_ascii_lowercase())
            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    (word(d) && word(m)).then_some((d, m))
}

/// The delimiters of a list attribute's assembly format, the one shape read here (ODS's
/// `ArrayOfAttr`'s): ``open (`close`) : ($list^ `close`)? rest``, printed as `open`, the items
/// separated by `, `, then `close` `rest`. `list` is the attribute's only parameter, a list.
/// Errors at a byte offset of the format.
fn list_format(text: &str, list: Option<&str>) -> Result<(String, String), (usize, String)> {
    // Tokens: literals (`` `x` ``, empty ones dropped) and the punctuation between them.
    let mut toks: Vec<(usize, String)> = Vec::new();
    let mut i = 0;
    while let Some(c) = text[i..].chars().next() {
        match c {
            ' ' => i += 1,
            '`' => {
                let end = text[i + 1..]
                    .find('`')
                    .ok_or((i, "unterminated literal".to_string()))?;
                let lit = &text[i + 1..i + 1 + end];
                if !lit.is_empty() {
                    toks.push((i, format!("`{lit}`")));
                }
                i += end + 2;
            }
            '$' => {
                let n = text[i + 1..]
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(text.len() - i - 1);
                toks.push((i, text[i..i + 1 + n].to_string()));
                i += 1 + n;
            }
            _ => {
                toks.push((i, c.to_string()));
                i += c.len_utf8();
            }
        }
    }
    let lit = |t: &str| {
        t.strip_prefix('`')
            .and_then(|t| t.strip_suffix('`'))
            .map(str::to_string)
    };
    let shape = "expected the list shape ``open (`close`) : ($list^ `close`)? rest``";
    let open_end = toks
        .iter()
        .position(|t| lit(&t.1).is_none())
        .unwrap_or(toks.len());
    let group: Vec<&str> = toks[open_end..].iter().map(|t| t.1.as_str()).collect();
    let at = toks.get(open_end).map_or(text.len(), |t| t.0);
    let ["(", close, ")", ":", "(", param, "^", close2, ")", "?", rest @ ..] = &group[..] else {
        return Err((at, shape.into()));
    };
    let Some(close) = lit(close).filter(|_| close == close2) else {
        return Err((at, shape.into()));
    };
    if list != param.strip_prefix('$') {
        return Err((
            at,
            format!("`{param}` is not the attribute's only parameter, a list"),
        ));
    }
    let rest: Option<Vec<String>> = rest.iter().map(|t| lit(t)).collect();
    let Some(rest) = rest else {
        return Err((at, shape.into()));
    };
    let open: String = toks[..open_end].iter().filter_map(|t| lit(&t.1)).collect();
    Ok((open, close + &rest.concat()))
}

fn condition(
    file: &str,
    attrs: &[Attr],
    attr: usize,
    c: &RawCondition,
    diags: &mut Diagnostics,
) -> Option<Condition> {
    let a = attrs.get(attr)?;
    let Some(param) = a.params.iter().position(|p| p.name == c.param.value) else {
        diags.error(
            pos(file, &c.param),
            format!("'{}' is not a parameter of '{}'", c.param.value, a.name),
        );
        return None;
    };
    let p = &a.params[param];
    let forms = [
        c.is.is_some(),
        c.equals.is_some(),
        c.differs.is_some(),
        c.every.is_some(),
        c.some.is_some(),
    ];
    if forms.iter().filter(|x| **x).count() != 1 {
        diags.error(
            pos(file, &c.param),
            "a condition takes exactly one of `is`, `equals`, `differs`, `every`, `some`",
        );
        return None;
    }
    let bad_kind = |diags: &mut Diagnostics, what: &str| {
        diags.error(
            pos(file, &c.param),
            format!(
                "`{what}` does not apply to '{}' ({})",
                p.name,
                p.kind.spelling()
            ),
        );
        None
    };
    if let Some(is) = &c.is {
        if !matches!(p.kind, ParamKind::Attrs | ParamKind::I64s) {
            return bad_kind(diags, "is");
        }
        return match is.value.as_str() {
            "empty" => Some(Condition::Empty { param, empty: true }),
            "nonempty" => Some(Condition::Empty {
                param,
                empty: false,
            }),
            other => {
                diags.error(
                    pos(file, is),
                    format!("`is: {other}`: expected empty or nonempty"),
                );
                None
            }
        };
    }
    if let Some(v) = c.equals.as_ref().or(c.differs.as_ref()) {
        if p.kind != ParamKind::I64 {
            return bad_kind(diags, "equals/differs");
        }
        return Some(Condition::Equals {
            param,
            value: v.value,
            equal: c.equals.is_some(),
        });
    }
    let (inner, every) = match (&c.every, &c.some) {
        (Some(i), _) => (i, true),
        (_, Some(i)) => (i, false),
        _ => return None,
    };
    let (ParamKind::Attrs, Of::Attr(elem)) = (p.kind, &p.of) else {
        return bad_kind(diags, "every/some");
    };
    let inner = condition(file, attrs, *elem, inner, diags)?;
    Some(Condition::Elements {
        param,
        every,
        inner: Box::new(inner),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(yaml: &str) -> Vec<String> {
        lowered(yaml, &[]).1
    }

    /// The dialect `yaml` lowers to, with `dialects` lowered before it, and the errors.
    fn lowered(yaml: &str, dialects: &[CodecDialect]) -> (CodecDialect, Vec<String>) {
        let raw: RawCodecDialect = serde_saphyr::from_str(yaml).expect("valid YAML");
        let mut diags = Diagnostics::default();
        let sources = Sources {
            stablehlo_cases: &|_| None,
            dialects,
        };
        let d = lower("spec/dialects/x.yaml", &raw, &sources, &mut diags);
        let errs = match diags.finish() {
            Ok(()) => Vec::new(),
            Err(e) => e.0.iter().map(|d| d.to_string()).collect(),
        };
        (d, errs)
    }

    /// `from:` takes another dialect's enum or text attribute whole (math's from arith), so
    /// that a fact is stated once; what it names must exist, be text, and not be restated.
    #[test]
    fn entries_taken_from_another_dialect() {
        let (a, errs) = lowered(
            "\
dialect: a
enums:
  - {name: e, cases: [{name: x, value: 0}], width: 64}
attributes:
  - {name: t, syntax: \"#a.t<x>\", format: text, summary: S}
  - {name: c, params: []}
encodings:
  - {code: 0, attr: c, fields: []}
",
            &[],
        );
        assert!(errs.is_empty(), "{errs:#?}");
        let (b, errs) = lowered(
            "dialect: b\nenums: [{name: e, from: a}]\nattributes: [{name: t, from: a}]\n",
            std::slice::from_ref(&a),
        );
        assert!(errs.is_empty(), "{errs:#?}");
        assert_eq!((b.enums[0].cases.len(), b.enums[0].width), (1, 64));
        assert_eq!(b.attrs[0].dialect, "a");
        assert_eq!(b.attrs[0].summary.as_deref(), Some("S"));
        let (_, errs) = lowered(
            "\
dialect: b
enums:
  - {name: e, from: a, width: 32}
  - {name: f, from: a}
  - {name: g, from: z}
attributes:
  - {name: c, from: a}
  - {name: t, from: a, summary: S}
",
            &[a],
        );
        let want = [
            "spec/dialects/x.yaml:3:21: error: enum 'e' is taken from 'a': it has no `cases`, `cases_of` or `width` here",
            "spec/dialects/x.yaml:4:12: error: dialect 'a' has no enum 'f'",
            "spec/dialects/x.yaml:5:21: error: no dialect 'z' to take from (the dialects with no `from:` of their own: a)",
            "spec/dialects/x.yaml:7:12: error: attribute 'c' of 'a' is not `format: text`",
            "spec/dialects/x.yaml:8:21: error: attribute 't' is taken from 'a': it has no `syntax`",
        ];
        assert_eq!(errs.len(), want.len(), "{errs:#?}");
        for w in want {
            assert!(
                errs.iter().any(|e| e.starts_with(w)),
                "missing {w:?} in {errs:#?}"
            );
        }
    }

    /// `whole: true` (a format spells the attribute whole, `#ub.poison`) is a text attribute's.
    #[test]
    fn whole_is_a_text_attributes() {
        let (d, errs) = lowered(
            "dialect: a\nattributes:\n  - {name: t, syntax: \"#a.t\", format: text, whole: true}\n",
            &[],
        );
        assert!(errs.is_empty(), "{errs:#?}");
        assert!(d.attrs[0].whole);
        let (_, errs) = lowered(
            "dialect: a\nattributes:\n  - {name: c, params: [], whole: true}\n",
            &[],
        );
        let want = "spec/dialects/x.yaml:3:34: error: `whole` of 'c': only a `format: text` attribute is spelled whole";
        assert!(errs.iter().any(|e| e.starts_with(want)), "{errs:#?}");
    }

    /// `inferred: true` marks a result type the op infers (InferTypeOpInterface): the verifier
    /// checks it with that interface's words, so it is a result's and has no `verifies`.
    #[test]
    fn inferred_result_types() {
        let op = |infer: &str| {
            format!(
                "dialect: a\nops:\n  - name: c\n    operands: [x]\n    results: [r]\n    attributes:\n      - {{name: value, of: elements}}\n    infer:\n      - {infer}\n"
            )
        };
        let (a, errs) = lowered(&op("{type_of: r, from: value, inferred: true}"), &[]);
        assert!(errs.is_empty(), "{errs:#?}");
        assert!(a.ops[0].infer[0].inferred);
        for bad in [
            "{type_of: x, from: value, inferred: true}",
            "{type_of: r, from: value, inferred: true, verifies: \"all types match\"}",
        ] {
            let (_, errs) = lowered(&op(bad), &[]);
            let want = "spec/dialects/x.yaml:9:19: error: `inferred: true` is a result's type";
            assert!(
                errs.len() == 1 && errs[0].starts_with(want),
                "{bad}: {errs:#?}"
            );
        }
    }

    /// List attributes' formats: ODS's `ArrayOfAttr` shape and Shardy's variants of it.
    #[test]
    fn list_formats() {
        let ok = |f: &str| list_format(f, Some("value")).map_err(|e| e.1);
        let pair = |a: &str, b: &str| Ok((a.to_string(), b.to_string()));
        assert_eq!(ok("`[` (`]`) : ($value^ `]`)?"), pair("[", "]"));
        assert_eq!(ok("`{` (`}`) : ($value^ `` `}`)?"), pair("{", "}"));
        assert_eq!(ok("`<` `[` (`]`):($value^ `]`)? `>`"), pair("<[", "]>"));
        assert_eq!(ok("`` `[` (`]`):($value^ `]`)? ``"), pair("[", "]"));
        assert!(ok("`[` $value `]`").is_err());
        assert!(ok("`[` (`]`) : ($other^ `]`)?").is_err());
        assert!(list_format("`[` (`]`) : ($value^ `]`)?", None).is_err());
    }

    /// An op's ODS types: one per operand and result, each one codegen/src/ods_types.rs
    /// lowers, `Variadic<...>` exactly for a variadic one.
    #[test]
    fn op_value_types_are_checked() {
        let yaml = "\
dialect: x
ops:
  - name: o
    operands: [a, \"b*\"]
    operand_types: [\"HLO_AnyFpTensor\", \"HLO_AnyFpTensor\"]
    results: [r]
    result_types: [\"HLO_Nope\"]
  - name: p
    operands: [a]
    operand_types: [\"HLO_AnyFpTensor\", \"HLO_AnyFpTensor\"]
  - name: q
    operands: [a]
    operand_types: [\"HLO_AnyPredTensor\"]
    results: [r]
    result_types: [\"HLO_AnyFpOrComplexTensor\"]
";
        let errs = errors(yaml);
        assert_eq!(errs.len(), 3, "{errs:#?}");
        assert!(
            errs[0].contains("operand `b*` of `o`: a variadic operand"),
            "{errs:#?}"
        );
        assert!(
            errs[1].contains("result `r` of `o`: unknown ODS type `HLO_Nope`"),
            "{errs:#?}"
        );
        assert!(
            errs[2].contains("`p` has 1 operands but 2 operand_types"),
            "{errs:#?}"
        );
    }

    /// The repository's own file lowers without errors.
    #[test]
    fn the_sdy_spec_is_clean() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../spec/dialects/sdy.yaml");
        let text = std::fs::read_to_string(path).expect("spec/dialects/sdy.yaml");
        assert_eq!(errors(&text), Vec::<String>::new());
    }

    /// A typo anywhere (a wire hint too) is an error at its line and column; all are reported
    /// together.
    #[test]
    fn typos_are_spec_errors_with_positions() {
        let yaml = "\
dialect: x
attributes:
  - name: a
    params:
      - {name: n, kind: i46}
      - {name: l, kind: attrs, of: nope, min: 0}
      - {name: f, kind: bool, wire: bite}
  - name: b
    params:
      - {name: u, kind: attrs, of: a}
      - {name: r, kind: i64}
encodings:
  - {code: 0, attr: a, fields: [n, l, f]}
  - {code: 2, attr: b, fields: [u], when: [{param: u, is: empty}]}
  - code: 2
    attr: b
    fields: [u, r]
    when: [{param: r, is: empty}]
ops:
  - {name: o, attributes: [{name: k, of: c}], format: \"\"}
";
        let errs = errors(yaml);
        let want = [
            "spec/dialects/x.yaml:5:25: error: unknown parameter kind 'i46'",
            "spec/dialects/x.yaml:6:36: error: unknown attribute 'nope' in `of`",
            "spec/dialects/x.yaml:6:47: error: `min` on a parameter of kind 'attrs'",
            "spec/dialects/x.yaml:7:37: error: unknown `wire:` hint `bite` on parameter `f` of `a`",
            "spec/dialects/x.yaml:14:12: error: encoding code 2 out of order",
            "spec/dialects/x.yaml:14:21: error: encoding 2 leaves out 'r' of 'b' without a default",
            "spec/dialects/x.yaml:18:20: error: `is` does not apply to 'r'",
            "spec/dialects/x.yaml:20:42: error: unknown attribute kind 'c'",
        ];
        assert_eq!(errs.len(), want.len(), "{errs:#?}");
        for w in want {
            assert!(
                errs.iter().any(|e| e.starts_with(w)),
                "missing {w:?} in {errs:#?}"
            );
        }
    }
}
