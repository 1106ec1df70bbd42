//! The add-only lock: a digest of every released definition, checked in as `spec/released.lock`.
//!
//! Editing a released op version, type, attribute or enum changes its digest and fails the build;
//! the fix is to add a new version. Upper bounds are derived, so adding a version never changes an
//! older definition's digest.

use std::collections::BTreeMap;
use std::fmt::Write;

use sha2::{Digest, Sha256};

use crate::diag::{Diagnostics, Pos};
use crate::model::{ChangeRule, Field, Predicate, Spec, TypeOrAttrDef, Value};

/// The lock file's name inside the spec directory.
pub const LOCK_FILE: &str = "released.lock";

fn fields(out: &mut String, what: &str, fs: &[Field]) {
    let list: Vec<String> = fs
        .iter()
        .map(|f| format!("{}{}", f.name, if f.variadic { "*" } else { "" }))
        .collect();
    let _ = writeln!(out, "{what}: {}", list.join(","));
}

fn value(v: &Value) -> String {
    match v {
        Value::Bool(b) => format!("bool({b})"),
        Value::Int(i) => format!("int({i})"),
        Value::Float(f) => format!("float({:016x})", f.to_bits()),
        Value::Type(t) => format!("type({t})"),
        Value::Array(xs) => format!(
            "array({})",
            xs.iter().map(value).collect::<Vec<_>>().join(",")
        ),
        Value::Tensor {
            element,
            shape,
            values,
        } => format!("tensor({element},{shape:?},{values:?})"),
        Value::Enum { name, case } => format!("enum({name},{case})"),
        Value::Attr { name, params } => {
            let mut ps: Vec<String> = params
                .iter()
                .map(|(k, x)| format!("{k}={}", value(x)))
                .collect();
            ps.sort();
            format!("attr({name},{})", ps.join(","))
        }
        Value::Hook(h) => format!("hook({h})"),
    }
}

/// The canonical text of each released definition, keyed `op <mnemonic>`, `type <name>`, ...
pub fn canonical_forms(spec: &Spec) -> BTreeMap<String, (String, Pos)> {
    let mut out = BTreeMap::new();
    for v in spec.op_versions() {
        let mut s = String::new();
        let _ = writeln!(s, "since: {}", v.since);
        fields(&mut s, "operands", &v.operands);
        fields(&mut s, "attributes", &v.attributes);
        fields(&mut s, "results", &v.results);
        fields(&mut s, "regions", &v.regions);
        let _ = writeln!(s, "terminator: {}", v.terminator);
        for c in &v.changes {
            let line = match c {
                ChangeRule::AddAttribute { name, default, .. } => {
                    format!("add_attribute {name} {}", value(default))
                }
                ChangeRule::RemoveAttribute { name, default, .. } => {
                    format!("remove_attribute {name} {}", value(default))
                }
                ChangeRule::MakeVariadic { from, to, .. } => format!("make_variadic {from} {to}"),
                ChangeRule::RenameOperand { from, to, .. } => format!("rename_operand {from} {to}"),
                ChangeRule::RenameAttribute { from, to, .. } => {
                    format!("rename_attribute {from} {to}")
                }
                ChangeRule::AddRegion { name, .. } => format!("add_region {name}"),
                ChangeRule::Hook { name, .. } => format!("hook {name}"),
            };
            let _ = writeln!(s, "change: {line}");
        }
        for f in &v.features {
            let when = match &f.when {
                Predicate::ElementTypesDiffer => "element_types_differ".to_string(),
                Predicate::AttributeKind { attribute, kind } => {
                    format!("attribute_kind {attribute} {kind}")
                }
                Predicate::AttributeEquals {
                    attribute,
                    value: x,
                } => format!("attribute_equals {attribute} {}", value(x)),
                Predicate::OperandType(t) => format!("operand_type {t}"),
            };
            let _ = writeln!(s, "feature: {} {} {when}", f.name, f.since);
        }
        out.insert(format!("op {}", v.mnemonic), (s, v.pos.clone()));
    }
    let type_or_attr = |what: &str, d: &TypeOrAttrDef| {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "since: {}\ncode: {} {:?}",
            d.since, d.code, d.code_with_encoding
        );
        for p in &d.params {
            let _ = writeln!(s, "param: {} {} {}", p.name, p.kind.spelling(), p.optional);
        }
        (format!("{what} {}", d.name), (s, d.pos.clone()))
    };
    out.extend(spec.types.iter().map(|d| type_or_attr("type", d)));
    out.extend(spec.attrs.iter().map(|d| type_or_attr("attr", d)));
    for e in &spec.enums {
        let mut s = String::new();
        let _ = writeln!(s, "since: {}\ncode: {}", e.since, e.code);
        for c in &e.cases {
            let _ = writeln!(s, "case: {} {}", c.name, c.value);
        }
        out.insert(format!("enum {}", e.name), (s, e.pos.clone()));
    }
    // A release row is what artifacts of that version are written with.
    for r in &spec.releases {
        let s = format!(
            "bytecode: {}\ndate: {}\n",
            r.bytecode,
            r.date.as_deref().unwrap_or("-")
        );
        out.insert(format!("release {}", r.version), (s, r.pos.clone()));
    }
    out
}

fn digest(s: &str) -> String {
    let h = Sha256::digest(s.as_bytes());
    h.iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// The lock file text for the spec as it is.
pub fn render(spec: &Spec) -> String {
    let mut out = String::from(
        "# Generated by `cargo run -p codegen -- lock`: the digest of every released VHLO definition\n\
         # and release row.\n\
         # The build fails when a listed definition changes. Do not edit: add a new version instead.\n",
    );
    for (key, (text, _)) in canonical_forms(spec) {
        let _ = writeln!(out, "{key} {}", digest(&text));
    }
    out
}

/// Checks the spec against the lock text; `lock_name` is the lock's display path. Entries for
/// which `skip(kind, name)` holds (defined in a file that did not load) are not checked.
pub fn check(
    spec: &Spec,
    lock_name: &str,
    lock_text: &str,
    skip: &dyn Fn(&str, &str) -> bool,
    diags: &mut Diagnostics,
) {
    let forms = canonical_forms(spec);
    for (i, line) in lock_text.lines().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split_whitespace();
        let (Some(kind), Some(name), Some(hash), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            diags.error(
                Pos {
                    file: lock_name.to_string(),
                    line: line_no,
                    col: 1,
                },
                "malformed lock line; expected `<kind> <name> <digest>`",
            );
            continue;
        };
        if skip(kind, name) {
            continue;
        }
        let key = format!("{kind} {name}");
        match forms.get(&key) {
            None => diags.error(
                Pos {
                    file: lock_name.to_string(),
                    line: line_no,
                    col: 1,
                },
                format!("released definition `{key}` was removed from the spec; VHLO is add-only"),
            ),
            Some((text, pos)) => {
                if digest(text) != hash {
                    let message = match crate::model::split_versioned(name) {
                        _ if kind == "release" => format!(
                            "release {name} is out (its row is locked in {lock_name}:{line_no}) and was edited; releases are add-only: restore its bytecode version and date"
                        ),
                        Some((base, n)) => format!(
                            "`{name}` is released (its definition is locked in {lock_name}:{line_no}) and was edited; VHLO is add-only: restore it and add `{base}_v{}` instead",
                            n + 1
                        ),
                        None => format!(
                            "`{name}` is released (its definition is locked in {lock_name}:{line_no}) and was edited; VHLO is add-only: restore it and add a new version instead"
                        ),
                    };
                    diags.error(pos.clone(), message);
                }
            }
        }
    }
}
