//! The checked-in expansion and docs must match what the spec generates (rust-analyzer style):
//! the test fails when they are stale. Outside CI it also rewrites them, so the next run passes
//! and the diff is ready to review and commit.

use std::path::PathBuf;

use vhlo_tests::{in_ci, workspace_root};

fn outputs() -> Vec<(PathBuf, String)> {
    let root = workspace_root();
    let spec = codegen::load_spec(&root.join("spec")).unwrap_or_else(|e| panic!("{e}"));
    codegen::checked_in_outputs(&spec).expect("the generated code parses")
}

#[test]
fn expansion_and_docs_are_up_to_date() {
    let root = workspace_root();
    let mut stale = Vec::new();
    for (rel, text) in outputs() {
        let path = root.join(&rel);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(rel.display().to_string());
            if !in_ci() {
                if let Some(dir) = path.parent() {
                    std::fs::create_dir_all(dir).expect("create docs dir");
                }
                std::fs::write(&path, &text).expect("rewrite generated file");
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files (run `cargo run -p codegen -- expand` and `cargo run -p codegen -- docs`, then commit): {stale:?}"
    );
}

#[test]
fn no_generated_doc_is_orphaned() {
    // A page for an op that left the spec would otherwise linger.
    let root = workspace_root();
    let expected: Vec<PathBuf> = outputs().into_iter().map(|(p, _)| p).collect();
    let dir = root.join("docs/ops");
    for entry in std::fs::read_dir(&dir).expect("docs/ops exists") {
        let name = entry.expect("dir entry").file_name();
        let rel = PathBuf::from("docs/ops").join(&name);
        assert!(
            expected.contains(&rel),
            "{} is not generated from the spec any more; delete it",
            rel.display()
        );
    }
}

#[test]
fn list_matches_upstream_count_and_ranges() {
    let spec = codegen::load_spec(&workspace_root().join("spec")).unwrap_or_else(|e| panic!("{e}"));
    // Upstream facts as of 1.20.0; a later release adds to them and changes nothing here.
    let v1_20 = codegen::model::Version {
        major: 1,
        minor: 20,
        patch: 0,
    };
    let versions: Vec<_> = spec
        .op_versions()
        .filter(|v| v.range.min <= v1_20)
        .collect();
    assert_eq!(
        versions.len(),
        145,
        "StableHLO 1.20.0 has 145 VHLO op versions"
    );
    assert!(spec.current() >= v1_20);
    assert_eq!(spec.minimum().to_string(), "0.9.0");
    // The ranges as of 1.20.0: a version still legal there may end in a later release.
    let exp: Vec<String> = versions
        .iter()
        .filter(|v| v.family == "exponential")
        .map(|v| match v.range.max {
            codegen::model::Bound::Version(max) if max < v1_20 => {
                format!("{} {}..={max}", v.mnemonic, v.range.min)
            }
            _ => format!("{} {}..=1.20.0 or later", v.mnemonic, v.range.min),
        })
        .collect();
    assert_eq!(
        exp,
        [
            "exponential_v1 0.9.0..=1.8.0",
            "exponential_v2 1.9.0..=1.20.0 or later"
        ]
    );
}
