//! Step 3: cross-entity checks. Every rule reports every violation with its position.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::{Diagnostics, Pos};
use crate::model::{
    Bound, ChangeRule, CompatTarget, Field, OpFamily, OpVersion, ParamKind, Predicate, Spec, Value,
    Version,
};

/// Hand-written hooks that vhlo-core implements (`vhlo_core::dialect::hooks`). A spec may name only
/// these; adding one means writing it in vhlo-core first.
pub const KNOWN_HOOKS: &[(&str, &str)] = &[(
    "default_conv_padding",
    "zero padding of shape [rank(lhs) - 2, 2] for dynamic_conv_v1 (depends on the lhs operand type)",
)];

/// Hand-written defaults of the conversions (`vhlo_core::convert::ops`, `default_hook` and
/// `is_default_hook`): VHLO values that depend on the op, for a `stablehlo:` attribute's
/// `vhlo_default: {hook: ...}`.
pub const KNOWN_DEFAULT_HOOKS: &[(&str, &str)] = &[
    (
        "conv_ones",
        "ones, one per spatial dimension of `dimension_numbers`",
    ),
    (
        "conv_padding",
        "zero padding of shape [spatial dimensions, 2]",
    ),
    ("conv_reversal", "false, one per spatial dimension"),
    (
        "window_ones",
        "ones, one per dimension of `window_dimensions`",
    ),
    (
        "window_padding",
        "zero padding of shape [window dimensions, 2]",
    ),
    (
        "precision_config",
        "[DEFAULT, DEFAULT]; any list of DEFAULT is the default on the way back",
    ),
    (
        "backend_config",
        "\"\" or, with the typed FFI (api_version 4), {}",
    ),
    (
        "layouts",
        "[]; left out on the way back only when both layouts are empty",
    ),
    (
        "refused",
        "none: the op cannot be written without it (upstream returns failure)",
    ),
];

/// MLIR bytecode versions that StableHLO targets may map to.
const BYTECODE_VERSIONS: &[u8] = &[0, 1, 3, 4, 5, 6];

/// Runs every check.
pub fn check(spec: &Spec, diags: &mut Diagnostics) {
    check_releases(spec, diags);
    check_types_attrs_enums(spec, diags);
    check_ops(spec, diags);
    check_stablehlo_map(spec, diags);
    check_attribute_correspondence(spec, diags);
    check_vhlo_defaults(spec, diags);
    check_stablehlo_structs(spec, diags);
    crate::format::check(spec, diags);
    crate::param_format::check(spec, diags);
}

/// Struct attributes: one per name and per class, each class a Rust type name, each field a
/// Rust field name once.
fn check_stablehlo_structs(spec: &Spec, diags: &mut Diagnostics) {
    let mut names: BTreeMap<&str, &Pos> = BTreeMap::new();
    let mut classes: BTreeMap<&str, &str> = BTreeMap::new();
    for s in &spec.stablehlo_structs {
        if let Some(first) = names.insert(&s.name, &s.pos) {
            diags.error(
                s.pos.clone(),
                format!(
                    "struct attribute `{}` is defined twice (first at {first})",
                    s.name
                ),
            );
        }
        let camel = s
            .class
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase())
            && s.class.chars().all(|c| c.is_ascii_alphanumeric());
        if !camel {
            diags.error(
                s.pos.clone(),
                format!(
                    "struct attribute `{}`: class `{}` is not an upper camel case name",
                    s.name, s.class
                ),
            );
        }
        if let Some(other) = classes.insert(&s.class, &s.name) {
            diags.error(
                s.pos.clone(),
                format!(
                    "struct attribute `{}`: class `{}` is already `{other}`'s",
                    s.name, s.class
                ),
            );
        }
        let mut fields = std::collections::BTreeSet::new();
        for (f, _) in &s.fields {
            let ident = f.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && f.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !ident || !fields.insert(f.as_str()) {
                diags.error(
                    s.pos.clone(),
                    format!(
                        "struct attribute `{}`: field `{f}` is not a snake_case name used once",
                        s.name
                    ),
                );
            }
        }
    }
}

fn in_table(spec: &Spec, v: Version) -> bool {
    spec.releases.iter().any(|r| r.version == v)
}

fn table_hint(spec: &Spec) -> String {
    match (spec.releases.first(), spec.releases.last()) {
        (Some(a), Some(b)) => format!(
            "the release table in releases.yaml lists {} to {}",
            a.version, b.version
        ),
        _ => "the release table is empty".to_string(),
    }
}

fn check_releases(spec: &Spec, diags: &mut Diagnostics) {
    if spec.releases.is_empty() {
        diags.error(
            Pos::file("spec/releases.yaml"),
            "the release table has no releases",
        );
        return;
    }
    for w in spec.releases.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if b.version <= a.version {
            diags.error(
                b.pos.clone(),
                format!(
                    "release {} must come after {} (the table is ordered oldest first)",
                    b.version, a.version
                ),
            );
        }
        if b.bytecode < a.bytecode {
            diags.error(b.pos.clone(), format!("release {} writes bytecode v{} but the earlier {} writes v{}; bytecode versions never go down", b.version, b.bytecode, a.version, a.bytecode));
        }
    }
    for r in &spec.releases {
        if r.version.patch != 0 {
            diags.error(
                r.pos.clone(),
                format!(
                    "release {} is a patch release; the table lists minor releases (X.Y.0) only",
                    r.version
                ),
            );
        }
        if !BYTECODE_VERSIONS.contains(&r.bytecode) {
            diags.error(
                r.pos.clone(),
                format!(
                    "release {} names MLIR bytecode version {}, which is not one of {:?}",
                    r.version, r.bytecode, BYTECODE_VERSIONS
                ),
            );
        }
    }
    for c in &spec.compat {
        if let CompatTarget::Version(v) = c.version {
            let floor = Version { patch: 0, ..v };
            if !in_table(spec, floor) {
                diags.error(c.pos.clone(), format!("compatibility requirement {} points at {v}, whose release {floor} is not in the table", c.name));
            }
        }
    }
}

fn check_since(spec: &Spec, what: &str, since: Version, at: &Pos, diags: &mut Diagnostics) {
    // 0.0.0 stands for a version that failed to parse; that error is already reported.
    if since
        != (Version {
            major: 0,
            minor: 0,
            patch: 0,
        })
        && !in_table(spec, since)
    {
        diags.error(
            at.clone(),
            format!(
                "{what} starts at {since}, which is not a release in the table ({})",
                table_hint(spec)
            ),
        );
    }
}

fn check_types_attrs_enums(spec: &Spec, diags: &mut Diagnostics) {
    let mut seen: BTreeMap<&str, &Pos> = BTreeMap::new();
    let mut codes: BTreeMap<u32, &str> = BTreeMap::new();
    for t in &spec.types {
        check_since(spec, &format!("type `{}`", t.name), t.since, &t.pos, diags);
        if let Some(p) = seen.insert(&t.name, &t.pos) {
            diags.error(
                t.pos.clone(),
                format!("type `{}` is defined twice (first at {p})", t.name),
            );
        }
        for code in std::iter::once(t.code).chain(t.code_with_encoding) {
            if let Some(other) = codes.insert(code, &t.name) {
                diags.error(
                    t.code_pos.clone(),
                    format!(
                        "type bytecode code {code} of `{}` is already used by `{other}`",
                        t.name
                    ),
                );
            }
        }
        check_param_names(&t.params, &format!("type `{}`", t.name), diags);
    }
    // Attributes and enums share one code space.
    let mut seen: BTreeMap<&str, &Pos> = BTreeMap::new();
    let mut codes: BTreeMap<u32, &str> = BTreeMap::new();
    for (c, p) in &spec.retired_attr_codes {
        let _ = p;
        codes.insert(*c, "a retired attribute");
    }
    let attr_like = spec
        .attrs
        .iter()
        .map(|a| (&a.name, a.since, &a.pos, a.code, &a.code_pos, "attribute"))
        .chain(spec.enums.iter().map(|e| {
            (
                &e.name,
                e.since,
                &e.pos,
                e.code,
                &e.code_pos,
                "enum attribute",
            )
        }));
    for (name, since, pos, code, code_pos, what) in attr_like {
        check_since(spec, &format!("{what} `{name}`"), since, pos, diags);
        if let Some(p) = seen.insert(name, pos) {
            diags.error(
                pos.clone(),
                format!("{what} `{name}` is defined twice (first at {p})"),
            );
        }
        if let Some(other) = codes.insert(code, name) {
            diags.error(
                code_pos.clone(),
                format!("attribute bytecode code {code} of `{name}` is already used by {other}"),
            );
        }
    }
    for a in &spec.attrs {
        check_param_names(&a.params, &format!("attribute `{}`", a.name), diags);
    }
    for e in &spec.enums {
        let mut names = BTreeSet::new();
        let mut values = BTreeMap::new();
        if e.cases.is_empty() {
            diags.error(e.pos.clone(), format!("enum `{}` has no cases", e.name));
        }
        for c in &e.cases {
            if !names.insert(&c.name) {
                diags.error(
                    c.pos.clone(),
                    format!("enum `{}` has case `{}` twice", e.name, c.name),
                );
            }
            if let Some(other) = values.insert(c.value, &c.name) {
                diags.error(
                    c.pos.clone(),
                    format!(
                        "enum `{}`: case `{}` has value {} like `{other}`",
                        e.name, c.name, c.value
                    ),
                );
            }
            if let Some(since) = c.since {
                let what = format!("case `{}` of enum `{}`", c.name, e.name);
                check_since(spec, &what, since, &c.pos, diags);
                if since <= e.since {
                    diags.error(
                        c.pos.clone(),
                        format!(
                            "{what} has `since: {since}`, but the enum itself is from {}: a case's `since:` names the later release that added it",
                            e.since
                        ),
                    );
                }
            }
        }
    }
}

fn check_param_names(params: &[crate::model::ParamDef], what: &str, diags: &mut Diagnostics) {
    let mut names = BTreeSet::new();
    for p in params {
        if !names.insert(&p.name) {
            diags.error(
                p.pos.clone(),
                format!("{what} has parameter `{}` twice", p.name),
            );
        }
        if p.optional && !matches!(p.kind, ParamKind::Attr | ParamKind::Type) {
            diags.error(
                p.pos.clone(),
                format!("{what}: only `attr` and `type` parameters can be optional"),
            );
        }
    }
}

fn is_ident_like(s: &str) -> bool {
    !s.is_empty()
        && s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

fn check_fields(v: &OpVersion, diags: &mut Diagnostics) {
    let mut names: BTreeMap<&str, &Pos> = BTreeMap::new();
    let groups: [(&str, &[Field]); 4] = [
        ("operand", &v.operands),
        ("attribute", &v.attributes),
        ("result", &v.results),
        ("region", &v.regions),
    ];
    for (what, fields) in groups {
        for f in fields {
            if !is_ident_like(&f.name) {
                diags.error(
                    f.pos.clone(),
                    format!(
                        "{what} name `{}` of `{}` must be lower_snake_case",
                        f.name, v.mnemonic
                    ),
                );
            }
            if what == "attribute" && f.variadic {
                diags.error(
                    f.pos.clone(),
                    format!(
                        "attribute `{}` of `{}` cannot be variadic",
                        f.name, v.mnemonic
                    ),
                );
            }
            if let Some(p) = names.insert(&f.name, &f.pos) {
                diags.error(
                    f.pos.clone(),
                    format!(
                        "`{}` has two fields called `{}` (the other at {p})",
                        v.mnemonic, f.name
                    ),
                );
            }
        }
    }
    let variadic_results = v.results.iter().filter(|f| f.variadic).count();
    if variadic_results > 1 {
        diags.error(
            v.pos.clone(),
            format!(
                "`{}` has {variadic_results} variadic result groups; at most one is supported",
                v.mnemonic
            ),
        );
    }
    let variadic_regions = v.regions.iter().filter(|f| f.variadic).count();
    if variadic_regions > 1 {
        diags.error(
            v.pos.clone(),
            format!(
                "`{}` has {variadic_regions} variadic region groups; at most one is supported",
                v.mnemonic
            ),
        );
    }
}

fn check_ops(spec: &Spec, diags: &mut Diagnostics) {
    let mut families: BTreeMap<&str, &Pos> = BTreeMap::new();
    for fam in &spec.ops {
        if !is_ident_like(&fam.name) {
            diags.error(
                fam.pos.clone(),
                format!("op name `{}` must be lower_snake_case", fam.name),
            );
        }
        if let Some(p) = families.insert(&fam.name, &fam.pos) {
            diags.error(
                fam.pos.clone(),
                format!(
                    "duplicate op `{}`: its mnemonics `{}_vN` are already defined at {p}",
                    fam.name, fam.name
                ),
            );
        }
        let expected_file = format!("{}.yaml", fam.name.replace('-', "_"));
        if !fam.file.ends_with(&format!("ops/{expected_file}")) {
            diags.error(
                fam.pos.clone(),
                format!("op `{}` must live in ops/{expected_file}", fam.name),
            );
        }
        if fam.versions.is_empty() {
            diags.error(
                fam.pos.clone(),
                format!("op `{}` has no versions", fam.name),
            );
        }
        check_family_ranges(spec, fam, diags);
        for (i, v) in fam.versions.iter().enumerate() {
            check_fields(v, diags);
            for ft in &v.features {
                check_feature(spec, v, ft, diags);
            }
            if i == 0 {
                if let Some(r) = v.changes.first() {
                    diags.error(r.pos().clone(), format!("`{}` is the first version of `{}`; change rules belong to later versions", v.mnemonic, fam.name));
                }
                continue;
            }
            check_transition(spec, &fam.versions[i - 1], v, diags);
        }
    }
}

fn check_family_ranges(spec: &Spec, fam: &OpFamily, diags: &mut Diagnostics) {
    let mut open = Vec::new();
    for (i, v) in fam.versions.iter().enumerate() {
        check_since(spec, &format!("`{}`", v.mnemonic), v.since, &v.pos, diags);
        if let Some(next) = fam.versions.get(i + 1) {
            if next.since <= v.since {
                diags.error(next.pos.clone(), format!(
                    "overlapping ranges: `{}` starts at {} but `{}` already covers {}..; a new version must start after the previous one",
                    next.mnemonic, next.since, v.mnemonic, v.since
                ));
                continue;
            }
            let derived = spec.release_before(next.since);
            if let Some((until, at)) = &v.until {
                match (until, derived) {
                    (Bound::Current, _) => diags.error(at.clone(), format!(
                        "two open ranges: `{}` says `until: current` but `{}` follows it from {}", v.mnemonic, next.mnemonic, next.since
                    )),
                    (Bound::Version(u), Some(d)) if *u < d => diags.error(at.clone(), format!(
                        "gap: `{}` ends at {u} but `{}` starts at {}; releases after {u} and before {} would have no `{}`",
                        v.mnemonic, next.mnemonic, next.since, next.since, fam.name
                    )),
                    (Bound::Version(u), _) if *u >= next.since => diags.error(at.clone(), format!(
                        "overlapping ranges: `{}` ends at {u} but `{}` starts at {}", v.mnemonic, next.mnemonic, next.since
                    )),
                    _ => {}
                }
            }
        } else if let Some((Bound::Version(u), at)) = &v.until {
            let _ = u;
            open.push(());
            diags.error(at.clone(), format!(
                "no version of `{}` reaches current: `{}` ends at {u}. VHLO is add-only; ops are never retired",
                fam.name, v.mnemonic
            ));
        }
    }
    let _ = open;
}

fn value_errors(spec: &Spec, v: &Value, at: &Pos, diags: &mut Diagnostics) {
    match v {
        Value::Type(t) => {
            if !spec.types.iter().any(|d| &d.name == t) {
                diags.error(at.clone(), format!("unknown type `{t}` (types.yaml)"));
            }
        }
        Value::Array(items) => items.iter().for_each(|x| value_errors(spec, x, at, diags)),
        Value::Tensor {
            element,
            shape,
            values,
        } => {
            if !spec.types.iter().any(|d| &d.name == element) {
                diags.error(
                    at.clone(),
                    format!("unknown tensor element type `{element}` (types.yaml)"),
                );
            }
            let n: i64 = shape.iter().product();
            if shape.iter().any(|d| *d < 0) || n != values.len() as i64 {
                diags.error(
                    at.clone(),
                    format!(
                        "tensor of shape {shape:?} needs {n} values, got {}",
                        values.len()
                    ),
                );
            }
        }
        Value::Enum { name, case } => match spec.enums.iter().find(|e| &e.name == name) {
            None => diags.error(at.clone(), format!("unknown enum `{name}` (enums.yaml)")),
            Some(e) => {
                if !e.cases.iter().any(|c| &c.name == case) {
                    let all: Vec<&str> = e.cases.iter().map(|c| c.name.as_str()).collect();
                    diags.error(
                        at.clone(),
                        format!(
                            "enum `{name}` has no case `{case}`; cases: {}",
                            all.join(", ")
                        ),
                    );
                }
            }
        },
        Value::Attr { name, params } => match spec.attrs.iter().find(|a| &a.name == name) {
            None => diags.error(
                at.clone(),
                format!("unknown attribute `{name}` (attrs.yaml)"),
            ),
            Some(a) => {
                for p in &a.params {
                    if !p.optional && !params.iter().any(|(k, _)| k == &p.name) {
                        diags.error(
                            at.clone(),
                            format!("attribute `{name}` value is missing parameter `{}`", p.name),
                        );
                    }
                }
                for (k, x) in params {
                    match a.params.iter().find(|p| &p.name == k) {
                        None => diags.error(
                            at.clone(),
                            format!("attribute `{name}` has no parameter `{k}`"),
                        ),
                        Some(p) => {
                            let ok = matches!(
                                (p.kind, x),
                                (ParamKind::Float, Value::Float(_))
                                    | (
                                        ParamKind::I64
                                            | ParamKind::I32
                                            | ParamKind::U32
                                            | ParamKind::Int,
                                        Value::Int(_)
                                    )
                                    | (ParamKind::Bool, Value::Bool(_))
                                    | (ParamKind::Attr, _)
                                    | (ParamKind::Type, Value::Type(_))
                            );
                            if !ok {
                                diags.error(at.clone(), format!("parameter `{k}` of `{name}` is a `{}`; the value does not fit", p.kind.spelling()));
                            }
                            value_errors(spec, x, at, diags);
                        }
                    }
                }
            }
        },
        Value::Hook(h) => {
            if !KNOWN_HOOKS.iter().any(|(n, _)| n == h) {
                let all: Vec<&str> = KNOWN_HOOKS.iter().map(|(n, _)| *n).collect();
                diags.error(
                    at.clone(),
                    format!("unknown hook `{h}`; known hooks: {}", all.join(", ")),
                );
            }
        }
        Value::Dict(entries) => entries
            .iter()
            .for_each(|(_, x)| value_errors(spec, x, at, diags)),
        Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Str(_) => {}
    }
}

fn check_feature(spec: &Spec, v: &OpVersion, ft: &crate::model::Feature, diags: &mut Diagnostics) {
    check_since(
        spec,
        &format!("feature `{}` of `{}`", ft.name, v.mnemonic),
        ft.since,
        &ft.pos,
        diags,
    );
    if ft.since <= v.since {
        diags.error(ft.pos.clone(), format!("feature `{}` needs {} but `{}` itself starts at {}; a feature must need a later release", ft.name, ft.since, v.mnemonic, v.since));
    }
    let has_attr = |a: &str| v.attributes.iter().any(|f| f.name == a);
    match &ft.when {
        Predicate::ElementTypesDiffer => {}
        Predicate::AttributeKind { attribute, kind } => {
            if !has_attr(attribute) {
                diags.error(
                    ft.pos.clone(),
                    format!("`{}` has no attribute `{attribute}`", v.mnemonic),
                );
            }
            if !spec.attrs.iter().any(|a| &a.name == kind)
                && !spec.enums.iter().any(|e| &e.name == kind)
            {
                diags.error(
                    ft.pos.clone(),
                    format!("unknown attribute `{kind}` (attrs.yaml)"),
                );
            }
        }
        Predicate::AttributeEquals { attribute, value } => {
            if !has_attr(attribute) {
                diags.error(
                    ft.pos.clone(),
                    format!("`{}` has no attribute `{attribute}`", v.mnemonic),
                );
            }
            value_errors(spec, value, &ft.pos, diags);
        }
        Predicate::OperandType(t) => {
            if !spec.types.iter().any(|d| &d.name == t) {
                diags.error(ft.pos.clone(), format!("unknown type `{t}` (types.yaml)"));
            }
        }
    }
}

/// A version's shape, for replaying change rules.
#[derive(Clone, PartialEq, Debug)]
struct Shape {
    operands: Vec<(String, bool)>,
    attributes: BTreeSet<String>,
    results: Vec<(String, bool)>,
    regions: Vec<(String, bool)>,
}

fn shape(v: &OpVersion) -> Shape {
    let f = |fs: &[Field]| {
        fs.iter()
            .map(|f| (f.name.clone(), f.variadic))
            .collect::<Vec<_>>()
    };
    Shape {
        operands: f(&v.operands),
        attributes: v.attributes.iter().map(|a| a.name.clone()).collect(),
        results: f(&v.results),
        regions: f(&v.regions),
    }
}

fn check_transition(spec: &Spec, prev: &OpVersion, next: &OpVersion, diags: &mut Diagnostics) {
    let step = format!("`{}` -> `{}`", prev.mnemonic, next.mnemonic);
    if next.changes.is_empty() {
        let (a, b) = (shape(prev), shape(next));
        let what = if a == b {
            "a new version must change something, and say what in `changes`".to_string()
        } else {
            describe_diff(&a, &b)
        };
        diags.error(
            next.pos.clone(),
            format!("missing change rule for {step}: {what}"),
        );
        return;
    }
    let mut s = shape(prev);
    let mut hooked = false;
    for rule in &next.changes {
        let at = rule.pos().clone();
        match rule {
            ChangeRule::AddAttribute { name, default, .. } => {
                if !s.attributes.insert(name.clone()) {
                    diags.error(
                        at.clone(),
                        format!(
                            "{step}: `add_attribute {name}` but `{}` already has it",
                            prev.mnemonic
                        ),
                    );
                }
                if matches!(default, Value::Hook(_)) {
                    hooked = true;
                }
                value_errors(spec, default, &at, diags);
            }
            ChangeRule::RemoveAttribute { name, default, .. } => {
                if !s.attributes.remove(name) {
                    diags.error(
                        at.clone(),
                        format!(
                            "{step}: `remove_attribute {name}` but `{}` has no such attribute",
                            prev.mnemonic
                        ),
                    );
                }
                value_errors(spec, default, &at, diags);
            }
            ChangeRule::MakeVariadic { from, to, .. } => {
                let slot = s
                    .operands
                    .iter_mut()
                    .chain(s.results.iter_mut())
                    .find(|(n, var)| n == from && !*var);
                match slot {
                    Some(slot) => *slot = (to.clone(), true),
                    None => diags.error(at, format!("{step}: `make_variadic {from}` but `{}` has no single operand or result `{from}`", prev.mnemonic)),
                }
            }
            ChangeRule::RenameOperand { from, to, .. } => {
                match s.operands.iter_mut().find(|(n, _)| n == from) {
                    Some(slot) => slot.0 = to.clone(),
                    None => diags.error(
                        at,
                        format!(
                            "{step}: `rename_operand {from}` but `{}` has no operand `{from}`",
                            prev.mnemonic
                        ),
                    ),
                }
            }
            ChangeRule::RenameAttribute { from, to, .. } => {
                if s.attributes.remove(from) {
                    s.attributes.insert(to.clone());
                } else {
                    diags.error(
                        at,
                        format!(
                            "{step}: `rename_attribute {from}` but `{}` has no attribute `{from}`",
                            prev.mnemonic
                        ),
                    );
                }
            }
            ChangeRule::AddRegion { name, .. } => {
                if s.regions.iter().any(|(n, _)| n == name) {
                    diags.error(
                        at,
                        format!(
                            "{step}: `add_region {name}` but `{}` already has it",
                            prev.mnemonic
                        ),
                    );
                } else {
                    s.regions.push((name.clone(), true));
                }
            }
            ChangeRule::Hook { name, .. } => {
                hooked = true;
                if !KNOWN_HOOKS.iter().any(|(n, _)| n == name) {
                    let all: Vec<&str> = KNOWN_HOOKS.iter().map(|(n, _)| *n).collect();
                    diags.error(
                        at,
                        format!("unknown hook `{name}`; known hooks: {}", all.join(", ")),
                    );
                }
            }
        }
    }
    let target = shape(next);
    if s != target
        && !(hooked
            && next
                .changes
                .iter()
                .any(|c| matches!(c, ChangeRule::Hook { .. })))
    {
        diags.error(
            next.pos.clone(),
            format!(
                "the change rules of {step} do not explain the difference: {}",
                describe_diff(&s, &target)
            ),
        );
    }
}

fn describe_diff(a: &Shape, b: &Shape) -> String {
    let mut out = Vec::new();
    let added: Vec<&String> = b.attributes.difference(&a.attributes).collect();
    let dropped: Vec<&String> = a.attributes.difference(&b.attributes).collect();
    let near = |x: &str, y: &str| !crate::diag::did_you_mean(x, [y].into_iter()).is_empty();
    for x in &added {
        match dropped.iter().find(|y| near(x, y)) {
            Some(y) => out.push(format!(
                "attribute `{x}` where the rules give `{y}` (a typo?)"
            )),
            None => out.push(format!("attribute `{x}` added without a rule")),
        }
    }
    for y in &dropped {
        if !added.iter().any(|x| near(x, y)) {
            out.push(format!("attribute `{y}` removed without a rule"));
        }
    }
    let list = |v: &[(String, bool)]| {
        v.iter()
            .map(|(n, var)| format!("{n}{}", if *var { "*" } else { "" }))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if a.operands != b.operands {
        out.push(format!(
            "operands [{}] became [{}]",
            list(&a.operands),
            list(&b.operands)
        ));
    }
    if a.results != b.results {
        out.push(format!(
            "results [{}] became [{}]",
            list(&a.results),
            list(&b.results)
        ));
    }
    if a.regions != b.regions {
        out.push(format!(
            "regions [{}] became [{}]",
            list(&a.regions),
            list(&b.regions)
        ));
    }
    if out.is_empty() {
        "no difference".to_string()
    } else {
        out.join("; ")
    }
}

fn check_stablehlo_map(spec: &Spec, diags: &mut Diagnostics) {
    let mut names: BTreeMap<&str, (&str, &Pos)> = BTreeMap::new();
    for fam in &spec.ops {
        let s = &fam.stablehlo;
        let valid = |n: &str| {
            n.split_once('.')
                .is_some_and(|(d, o)| !d.is_empty() && !o.is_empty())
        };
        for (n, p) in
            std::iter::once((&s.name, &s.pos)).chain(s.also.iter().map(|a| (&a.name, &a.pos)))
        {
            if !valid(n) {
                diags.error(
                    p.clone(),
                    format!("`{n}` must be a full op name `dialect.op`"),
                );
            }
            if let Some((other, op)) = names.insert(n, (&fam.name, p)) {
                diags.error(
                    p.clone(),
                    format!(
                        "ambiguous map: `{n}` maps to both `{other}` ({op}) and `{}`",
                        fam.name
                    ),
                );
            }
        }
        for a in &s.also {
            if !spec.ops.iter().any(|f| f.name == a.parent) {
                diags.error(
                    a.pos.clone(),
                    format!(
                        "`{}` is used under parent op `{}`, which is not a VHLO op",
                        a.name, a.parent
                    ),
                );
            }
        }
        let mut seen = BTreeSet::new();
        for f in s.operands.iter().chain(&s.results).chain(&s.regions) {
            if !seen.insert(&f.name) {
                diags.error(
                    f.pos.clone(),
                    format!("`{}` has two fields called `{}`", s.name, f.name),
                );
            }
        }
        check_value_types(s, "operand", &s.operands, &s.operand_types, diags);
        check_value_types(s, "result", &s.results, &s.result_types, diags);
        for a in &s.attributes {
            let printed = crate::ods::lower(&a.ty, &spec.enums).and_then(|t| match &a.default {
                Some(d) => crate::ods::printed_default(&t, d, &spec.enums).map(drop),
                None => Ok(()),
            });
            if a.optional != crate::ods::is_optional(&a.ty) {
                diags.error(
                    a.pos.clone(),
                    format!(
                        "attribute `{}` of `{}` says `optional: {}`, but its ODS type `{}` {}",
                        a.name,
                        s.name,
                        a.optional,
                        a.ty.trim(),
                        if a.optional {
                            "must be present"
                        } else {
                            "may be absent"
                        }
                    ),
                );
            }
            if let Err(why) = printed {
                diags.error(
                    a.ty_pos.clone(),
                    format!("attribute `{}` of `{}`: {why}", a.name, s.name),
                );
            }
            if !seen.insert(&a.name) {
                diags.error(
                    a.pos.clone(),
                    format!("`{}` has two fields called `{}`", s.name, a.name),
                );
            }
        }
    }
}

/// Each StableHLO attribute stands for the VHLO attribute of its name in the op's current
/// version, or for those its `vhlo:` list names; every attribute of the current version is
/// accounted for so. The conversions rely on it both ways.
fn check_attribute_correspondence(spec: &Spec, diags: &mut Diagnostics) {
    for fam in &spec.ops {
        let Some(current) = fam.versions.last() else {
            continue;
        };
        let s = &fam.stablehlo;
        let expected: Vec<&str> = s
            .attributes
            .iter()
            .flat_map(|a| match &a.vhlo {
                Some(fields) => fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(),
                None => vec![a.name.as_str()],
            })
            .collect();
        let actual: Vec<&str> = current.attributes.iter().map(|f| f.name.as_str()).collect();
        for f in &current.attributes {
            if !expected.contains(&f.name.as_str()) {
                diags.error(
                    f.pos.clone(),
                    format!(
                        "attribute `{}` of `{}` (the current version) stands for no attribute of `{}`: add one to the `stablehlo:` block, or name it in an attribute's `vhlo:` list{}",
                        f.name,
                        current.mnemonic,
                        s.name,
                        crate::diag::did_you_mean(&f.name, expected.iter().copied())
                    ),
                );
            }
        }
        for a in &s.attributes {
            for f in a.vhlo.iter().flatten() {
                if !actual.contains(&f.name.as_str()) {
                    diags.error(
                        f.pos.clone(),
                        format!(
                            "`{}` of `{}` names `{}`, which is no attribute of `{}`, the current version{}",
                            a.name,
                            s.name,
                            f.name,
                            current.mnemonic,
                            crate::diag::did_you_mean(&f.name, actual.iter().copied())
                        ),
                    );
                }
            }
            if a.vhlo.is_none() && !actual.contains(&a.name.as_str()) {
                diags.error(
                    a.pos.clone(),
                    format!(
                        "attribute `{}` of `{}` is no attribute of `{}`, its current VHLO version (give it a `vhlo:` list if VHLO splits it or has no form of it){}",
                        a.name,
                        s.name,
                        current.mnemonic,
                        crate::diag::did_you_mean(&a.name, actual.iter().copied())
                    ),
                );
            }
        }
    }
}

/// Each `stablehlo:` attribute that may be absent says what VHLO spells out for it
/// (`vhlo_default:`), so that the conversions never meet an op they cannot complete: a missing
/// one is an error here, not "missing its attribute" when a program is serialized.
fn check_vhlo_defaults(spec: &Spec, diags: &mut Diagnostics) {
    for fam in &spec.ops {
        let s = &fam.stablehlo;
        let current = fam
            .versions
            .last()
            .map(|v| v.mnemonic.as_str())
            .unwrap_or("?");
        for a in &s.attributes {
            let fields: Vec<&str> = match &a.vhlo {
                Some(fs) => fs.iter().map(|f| f.name.as_str()).collect(),
                None => vec![a.name.as_str()],
            };
            match (&a.vhlo_default, a.optional) {
                (None, true) if !fields.is_empty() => diags.error(
                    a.pos.clone(),
                    format!(
                        "`{}` of `{}` may be absent, but `{current}` needs {}: give it a `vhlo_default:` (what upstream's addDefaults writes)",
                        a.name,
                        s.name,
                        fields.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ")
                    ),
                ),
                (Some((_, at)), false) => diags.error(
                    at.clone(),
                    format!("`{}` of `{}` is required: it has no `vhlo_default:`", a.name, s.name),
                ),
                (Some((_, at)), true) if fields.is_empty() => diags.error(
                    at.clone(),
                    format!("`{}` of `{}` stands for no VHLO attribute (`vhlo: []`): it has no `vhlo_default:`", a.name, s.name),
                ),
                _ => {}
            }
            let Some((v, at)) = &a.vhlo_default else {
                continue;
            };
            match v {
                Value::Hook(h) => {
                    if !KNOWN_DEFAULT_HOOKS.iter().any(|(n, _)| n == h) {
                        let all: Vec<&str> = KNOWN_DEFAULT_HOOKS.iter().map(|(n, _)| *n).collect();
                        diags.error(
                            at.clone(),
                            format!("unknown default hook `{h}`; known: {}", all.join(", ")),
                        );
                    }
                }
                _ if value_has_hook(v) => diags.error(
                    at.clone(),
                    "a default hook stands for the whole value, not a part of it",
                ),
                _ => value_errors(spec, v, at, diags),
            }
        }
    }
}

fn value_has_hook(v: &Value) -> bool {
    match v {
        Value::Hook(_) => true,
        Value::Array(xs) => xs.iter().any(value_has_hook),
        Value::Dict(xs) => xs.iter().any(|(_, x)| value_has_hook(x)),
        Value::Attr { params, .. } => params.iter().any(|(_, x)| value_has_hook(x)),
        _ => false,
    }
}

/// A `stablehlo:` block's `operand_types:` or `result_types:`: none, or one ODS type per
/// operand (result) that codegen/src/ods_types.rs lowers, variadic exactly where the field's
/// name ends in `*`.
fn check_value_types(
    s: &crate::model::StablehloOp,
    what: &str,
    fields: &[crate::model::Field],
    types: &[(String, Pos)],
    diags: &mut Diagnostics,
) {
    if types.is_empty() {
        return;
    }
    if types.len() != fields.len() {
        diags.error(
            types[0].1.clone(),
            format!(
                "`{}` has {} {what}s but {} {what}_types",
                s.name,
                fields.len(),
                types.len()
            ),
        );
        return;
    }
    for (f, (t, pos)) in fields.iter().zip(types) {
        match crate::ods_types::lower(t) {
            Err(why) => diags.error(
                pos.clone(),
                format!("{what} `{}` of `{}`: {why}", f.name, s.name),
            ),
            Ok(c) if c.variadic != f.variadic => diags.error(
                pos.clone(),
                format!(
                    "{what} `{}` of `{}` is {}variadic, but its type `{}` is {}",
                    f.name,
                    s.name,
                    if f.variadic { "" } else { "not " },
                    t.trim(),
                    if c.variadic {
                        "`Variadic<...>`"
                    } else {
                        "not `Variadic<...>`"
                    }
                ),
            ),
            Ok(_) => {}
        }
    }
}
