//! The add-only lock: a digest of every released definition, checked in as `spec/released.lock`.
//!
//! Editing a released op version, type, attribute (its bytecode `wire:` hints and `wire_order:`
//! included) or enum changes its digest and fails the build; the fix is to add a new version.
//! Upper bounds are derived, so adding a version never changes an older definition's digest.

use std::collections::BTreeMap;
use std::fmt::Write;

use sha2::{Digest, Sha256};

use crate::diag::{Diagnostics, Pos};
use crate::model::{ChangeRule, Field, Predicate, Spec, TypeOrAttrDef, Value, Version};

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
        Value::Str(s) => format!("string({s:?})"),
        Value::Dict(xs) => format!(
            "dict({})",
            xs.iter()
                .map(|(k, x)| format!("{k:?}={}", value(x)))
                .collect::<Vec<_>>()
                .join(",")
        ),
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
        // The bytecode form is locked too. A hint or a `wire_order:` adds to the line it changes,
        // so the digests of definitions without them are what they were before hints were locked.
        for p in &d.params {
            let _ = write!(s, "param: {} {} {}", p.name, p.kind.spelling(), p.optional);
            if let Some((hint, _)) = &p.wire {
                let _ = write!(s, " wire:{hint}");
            }
            s.push('\n');
        }
        if let Some(order) = &d.wire_order {
            let _ = writeln!(s, "wire_order: {}", order.join(","));
        }
        (format!("{what} {}", d.name), (s, d.pos.clone()))
    };
    out.extend(spec.types.iter().map(|d| type_or_attr("type", d)));
    out.extend(spec.attrs.iter().map(|d| type_or_attr("attr", d)));
    for e in &spec.enums {
        let mut s = String::new();
        let _ = writeln!(s, "since: {}\ncode: {}", e.since, e.code);
        // A case added later (`since:`) is locked on its own, so adding one leaves the enum's
        // digest as it was, and editing one is caught by its own.
        for c in e.cases.iter().filter(|c| c.since.is_none()) {
            let _ = writeln!(s, "case: {} {}", c.name, c.value);
        }
        out.insert(format!("enum {}", e.name), (s, e.pos.clone()));
        for c in &e.cases {
            if let Some(since) = c.since {
                let s = format!("since: {since}\nvalue: {}\n", c.value);
                out.insert(format!("case {}.{}", e.name, c.name), (s, c.pos.clone()));
            }
        }
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

/// The release each lockable definition belongs to: its `since`, or a release row's version.
fn introduced_in(spec: &Spec) -> BTreeMap<String, Version> {
    let mut out = BTreeMap::new();
    for v in spec.op_versions() {
        out.insert(format!("op {}", v.mnemonic), v.since);
    }
    for d in &spec.types {
        out.insert(format!("type {}", d.name), d.since);
    }
    for d in &spec.attrs {
        out.insert(format!("attr {}", d.name), d.since);
    }
    for e in &spec.enums {
        out.insert(format!("enum {}", e.name), e.since);
        for c in &e.cases {
            if let Some(since) = c.since {
                out.insert(format!("case {}.{}", e.name, c.name), since);
            }
        }
    }
    for r in &spec.releases {
        out.insert(format!("release {}", r.version), r.version);
    }
    out
}

/// The `<kind> <name>` key of a lock line.
fn key_of(line: &str) -> Option<String> {
    let mut p = line.split_whitespace();
    Some(format!("{} {}", p.next()?, p.next()?))
}

/// The lock text after cutting release `v`: every definition introduced in `v` or earlier that
/// the lock does not hold yet is added, with the release rows. Definitions of later releases are
/// work in progress and stay unlocked. With `recut`, what `v` introduced is locked afresh (for a
/// release cut by mistake before it was published); no later release may be cut then. Returns the
/// text and how many lines were added or replaced.
pub fn cut(
    spec: &Spec,
    existing: &str,
    v: Version,
    recut: bool,
) -> Result<(String, usize), String> {
    if !spec.releases.iter().any(|r| r.version == v) {
        return Err(format!("{v} is not a release in releases.yaml"));
    }
    let since = introduced_in(spec);
    let cut_releases: Vec<Version> = existing
        .lines()
        .filter_map(|l| l.strip_prefix("release "))
        .filter_map(|l| Version::parse(l.split_whitespace().next()?).ok())
        .collect();
    if cut_releases.contains(&v) && !recut {
        return Err(format!(
            "release {v} is already cut; `release {v} --recut` locks what it introduced afresh, \
             which is only right before {v} is published"
        ));
    }
    if recut {
        if let Some(later) = cut_releases.iter().find(|&&c| c > v) {
            return Err(format!(
                "release {later}, after {v}, is cut: {v} cannot be cut again"
            ));
        }
    }
    let mut text = String::new();
    let mut known = std::collections::BTreeSet::new();
    for line in existing.lines() {
        let key = key_of(line).filter(|_| !line.starts_with('#'));
        if let Some(key) = &key {
            if recut && since.get(key) == Some(&v) {
                continue;
            }
            known.insert(key.clone());
        }
        text.push_str(line);
        text.push('\n');
    }
    if text.is_empty() {
        text = render_header();
    }
    let mut added = 0;
    for (key, (form, _)) in canonical_forms(spec) {
        if known.contains(&key) || since.get(&key).is_none_or(|&s| s > v) {
            continue;
        }
        let _ = writeln!(text, "{key} {}", digest(&form));
        added += 1;
    }
    Ok((text, added))
}

fn render_header() -> String {
    String::from(
        "# Generated by `cargo run -p codegen -- release X.Y.Z`, which cuts a release: the digest of\n\
         # every definition and release row of the releases cut so far.\n\
         # The build fails when a listed definition changes. Do not edit: add a new version instead.\n",
    )
}

fn digest(s: &str) -> String {
    let h = Sha256::digest(s.as_bytes());
    h.iter().take(12).map(|b| format!("{b:02x}")).collect()
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
    // A definition of a release already cut must be in the lock: adding one is an edit too.
    let locked: std::collections::BTreeSet<String> = lock_text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(key_of)
        .collect();
    let newest_cut = lock_text
        .lines()
        .filter_map(|l| l.strip_prefix("release "))
        .filter_map(|l| Version::parse(l.split_whitespace().next()?).ok())
        .max();
    if let Some(cut) = newest_cut {
        for (key, v) in introduced_in(spec) {
            if v <= cut && !locked.contains(&key) {
                if let Some((_, pos)) = forms.get(&key) {
                    diags.error(
                        pos.clone(),
                        format!(
                            "`{key}` is new but belongs to {v}, and releases up to {cut} are cut (locked in {lock_name}); VHLO is add-only: add it to a release in progress"
                        ),
                    );
                }
            }
        }
    }
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
                        _ if kind == "case" => format!(
                            "enum case `{name}` is released (locked in {lock_name}:{line_no}) and was edited; enum cases are add-only: restore it and add a new case with `since:` the release in progress"
                        ),
                        Some(_) if kind == "enum" => format!(
                            "`{name}` is released (its cases are locked in {lock_name}:{line_no}) and was edited; enum cases are add-only: restore the released cases, and give a new case `since:` the release in progress"
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> (Spec, String) {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/spec-edited");
        let spec = crate::load_spec(&dir).unwrap_or_else(|e| panic!("{e}"));
        let lock = std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap();
        (spec, lock)
    }

    fn version(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn cutting_locks_only_what_the_release_and_earlier_ones_introduced() {
        let (spec, lock) = fixture();
        // The fixture's lock holds 1.0.0's definitions; scale_v2 (1.2.0) is work in progress.
        let (text, added) = cut(&spec, &lock, version("1.1.0"), false).unwrap();
        assert_eq!(added, 2, "{text}");
        assert!(text.contains("release 1.0.0 ") && text.contains("release 1.1.0 "));
        assert!(!text.contains("scale_v2") && !text.contains("release 1.2.0"));
        let (text, added) = cut(&spec, &text, version("1.2.0"), false).unwrap();
        assert_eq!(added, 2, "{text}");
        assert!(text.contains("op scale_v2 ") && text.contains("release 1.2.0 "));
        // What the lock held stays as it was.
        assert!(text.starts_with(&lock));
    }

    #[test]
    fn a_definition_added_to_a_cut_release_is_an_error() {
        let (spec, lock) = fixture();
        let (text, _) = cut(&spec, &lock, version("1.2.0"), false).unwrap();
        let without = text
            .lines()
            .filter(|l| !l.starts_with("op scale_v2 "))
            .map(|l| format!("{l}\n"))
            .collect::<String>();
        let mut diags = Diagnostics::default();
        check(&spec, "released.lock", &without, &|_, _| false, &mut diags);
        let err = diags.finish().unwrap_err().to_string();
        assert!(
            err.contains(
                "`op scale_v2` is new but belongs to 1.2.0, and releases up to 1.2.0 are cut"
            ),
            "{err}"
        );
        let mut diags = Diagnostics::default();
        check(&spec, "released.lock", &text, &|_, _| false, &mut diags);
        assert!(diags.finish().is_ok());
    }

    /// The fixture spec with `case` appended to the cases of its enum `rounding_v1`, in a
    /// directory of its own.
    fn fixture_with_case(test: &str, case: &str) -> std::path::PathBuf {
        let from =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/spec-edited");
        let dir = std::env::temp_dir().join(format!("vhlo-lock-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("ops")).unwrap();
        for rel in ["attrs.yaml", "types.yaml", "releases.yaml", LOCK_FILE] {
            std::fs::copy(from.join(rel), dir.join(rel)).unwrap();
        }
        for e in std::fs::read_dir(from.join("ops")).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join("ops").join(e.file_name())).unwrap();
        }
        let enums = std::fs::read_to_string(from.join("enums.yaml")).unwrap();
        std::fs::write(dir.join("enums.yaml"), format!("{enums}      - {case}\n")).unwrap();
        dir
    }

    #[test]
    fn an_enum_case_is_added_with_its_release_and_never_edited() {
        // Added in the release in progress: the released enum's digest is what it was.
        let dir = fixture_with_case("add", "{name: UP, value: 2, since: 1.2.0}");
        let spec = crate::load_spec(&dir).unwrap_or_else(|e| panic!("{e}"));
        let lock = std::fs::read_to_string(dir.join(LOCK_FILE)).unwrap();
        let (cut_text, _) = cut(&spec, &lock, version("1.2.0"), false).unwrap();
        assert!(cut_text.contains("case rounding_v1.UP "), "{cut_text}");
        assert!(cut_text.contains(lock.lines().find(|l| l.starts_with("enum ")).unwrap()));
        // Once cut, editing the case is an error naming it.
        std::fs::write(dir.join(LOCK_FILE), &cut_text).unwrap();
        let enums = std::fs::read_to_string(dir.join("enums.yaml")).unwrap();
        std::fs::write(
            dir.join("enums.yaml"),
            enums.replace("value: 2", "value: 5"),
        )
        .unwrap();
        let err = crate::load_spec(&dir).unwrap_err().to_string();
        assert!(
            err.contains("enum case `rounding_v1.UP` is released") && err.contains("add-only"),
            "{err}"
        );
        // A case without `since:` edits the released enum; one as old as its enum says so.
        for (test, case, want) in [
            (
                "bare",
                "{name: UP, value: 2}",
                "`rounding_v1` is released (its cases are locked",
            ),
            (
                "old",
                "{name: UP, value: 2, since: 1.0.0}",
                "names the later release that added it",
            ),
        ] {
            let dir = fixture_with_case(test, case);
            let err = crate::load_spec(&dir).unwrap_err().to_string();
            assert!(err.contains(want), "{test}: {err}");
            let _ = std::fs::remove_dir_all(&dir);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_cut_release_is_cut_again_only_on_purpose_and_only_the_newest() {
        let (spec, lock) = fixture();
        let (text, _) = cut(&spec, &lock, version("1.2.0"), false).unwrap();
        let err = cut(&spec, &text, version("1.2.0"), false).unwrap_err();
        assert!(
            err.contains("already cut") && err.contains("--recut"),
            "{err}"
        );
        // A stale digest of scale_v2 is replaced by recutting.
        let stale = text.replace(
            &text
                .lines()
                .find(|l| l.starts_with("op scale_v2 "))
                .unwrap()
                .to_string(),
            "op scale_v2 000000000000000000000000",
        );
        let (again, replaced) = cut(&spec, &stale, version("1.2.0"), true).unwrap();
        assert_eq!(replaced, 2);
        assert_eq!(
            again
                .lines()
                .filter(|l| l.starts_with("op scale_v2 "))
                .count(),
            1
        );
        assert!(!again.contains("000000000000000000000000"));
        let err = cut(&spec, &text, version("1.1.0"), true).unwrap_err();
        assert!(err.contains("1.2.0, after 1.1.0, is cut"), "{err}");
        let err = cut(&spec, &text, version("9.9.9"), false).unwrap_err();
        assert!(err.contains("not a release"), "{err}");
    }
}
