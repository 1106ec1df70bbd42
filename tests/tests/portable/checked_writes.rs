//! Every artifact a test writes is read back by our reader with verification on.
//!
//! The tests write through `vhlo_tests::portable` and `vhlo_tests::bytecode` (checked writers of
//! the same names as `vhlo_core`'s, see `tests/src/checked.rs`), and read back what a
//! `vhlo-translate --serialize`/`--retarget` run writes with `read_back_cli`. This test scans the
//! test sources and fails when one:
//! - imports `vhlo_core::portable` or `vhlo_core::bytecode` (whose writers do not read back), or
//!   `vhlo_core` whole or under another name;
//! - calls a writer as `vhlo_core::portable::NAME` / `vhlo_core::bytecode::NAME` without an
//!   `// unchecked: <why>` comment on the line or the three above it (for inputs written to be
//!   refused: hostile, mutated or deliberately invalid artifacts);
//! - runs `vhlo-translate --serialize`/`--retarget` without reading its output back
//!   (`read_back_cli`), unless it says `// unchecked-cli: <why>`.

use std::path::{Path, PathBuf};

use vhlo_tests::workspace_root;

const PORTABLE_WRITERS: &[&str] = &[
    "serialize_portable_artifact",
    "serialize_portable_module",
    "serialize_portable_encoded",
    "write_vhlo",
    "write_vhlo_interning",
    "write_vhlo_encoded",
];
const BYTECODE_WRITERS: &[&str] = &["write", "write_interning", "write_encoded"];

/// How many lines above a call its `unchecked:` comment may be.
const ALLOW_REACH: usize = 3;

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `word` occurs in `s` as a whole identifier.
fn has_word(s: &str, word: &str) -> bool {
    s.match_indices(word).any(|(i, _)| {
        let before = s[..i].chars().next_back();
        let after = s[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

fn code_part(line: &str) -> &str {
    line.split("//").next().unwrap_or(line)
}

fn allowed(lines: &[&str], at: usize, tag: &str) -> bool {
    lines[at.saturating_sub(ALLOW_REACH)..=at]
        .iter()
        .any(|l| l.contains(tag))
}

/// The violations in one file's text, each `line: what`.
fn scan(src: &str) -> Vec<String> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out = Vec::new();
    // Imports of the unchecked modules, statement by statement (`use ...;` may span lines).
    let mut i = 0;
    while i < lines.len() {
        let code = code_part(lines[i]).trim_start();
        let code = code.strip_prefix("pub ").unwrap_or(code);
        if code.starts_with("use vhlo_core") {
            let start = i;
            let mut stmt = String::new();
            loop {
                stmt.push_str(code_part(lines[i]));
                stmt.push(' ');
                if code_part(lines[i]).contains(';') || i + 1 == lines.len() {
                    break;
                }
                i += 1;
            }
            let whole = stmt.contains("use vhlo_core as") || stmt.contains("use vhlo_core::*");
            let bad = whole || has_word(&stmt, "portable") || has_word(&stmt, "bytecode");
            if bad && !allowed(&lines, start, "unchecked:") {
                out.push(format!(
                    "{}: imports vhlo_core's unchecked writers ({}); use vhlo_tests::portable / vhlo_tests::bytecode",
                    start + 1,
                    stmt.split_whitespace().collect::<Vec<_>>().join(" ")
                ));
            }
        }
        i += 1;
    }
    // Calls of the unchecked writers by their full path.
    for (n, line) in lines.iter().enumerate() {
        let code = code_part(line);
        let compact: String = code.split_whitespace().collect();
        for (module, names) in [
            ("vhlo_core::portable::", PORTABLE_WRITERS),
            ("vhlo_core::bytecode::", BYTECODE_WRITERS),
        ] {
            for (at, _) in compact.match_indices(module) {
                let rest = &compact[at + module.len()..];
                let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
                if names.contains(&name.as_str()) && !allowed(&lines, n, "unchecked:") {
                    out.push(format!(
                        "{}: {module}{name} without an `// unchecked: <why>` comment",
                        n + 1
                    ));
                }
            }
        }
    }
    // vhlo-translate runs that write an artifact.
    let runs_writer = lines.iter().any(|l| {
        let c = code_part(l);
        [
            "\"--serialize\"",
            "\"-serialize\"",
            "\"--retarget\"",
            "\"-retarget\"",
        ]
        .iter()
        .any(|f| c.contains(f))
    });
    let reads_back = src.contains("read_back_cli(") || src.contains("check_cli_run(");
    if runs_writer && !reads_back && !src.contains("unchecked-cli:") {
        out.push(
            "0: runs vhlo-translate --serialize/--retarget but never reads its output back (read_back_cli)"
                .to_string(),
        );
    }
    out
}

fn test_sources() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut files = Vec::new();
    // The test binaries' directories too (tests/tests/<feature>/).
    let mut dirs: Vec<PathBuf> = ["tests/tests", "vhlo-translate/tests"]
        .iter()
        .map(|d| root.join(d))
        .collect();
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).expect("test dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("checked_writes.rs")
            {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_test_write_is_read_back() {
    let mut bad = Vec::new();
    let files = test_sources();
    assert!(files.len() > 30, "found the test sources: {}", files.len());
    for f in &files {
        let src = std::fs::read_to_string(f).expect("read");
        for v in scan(&src) {
            bad.push(format!("{}:{v}", rel(f)));
        }
    }
    assert!(
        bad.is_empty(),
        "test writes that are not read back with verification on:\n{}",
        bad.join("\n")
    );
}

fn rel(p: &Path) -> String {
    p.strip_prefix(workspace_root())
        .unwrap_or(p)
        .display()
        .to_string()
}

/// The scan itself: what it flags and what it lets through.
#[test]
fn scan_flags_unchecked_writes() {
    let flagged = [
        "use vhlo_core::portable::{self, SerializeOptions};\n",
        "use vhlo_core::{\n    bytecode,\n    text,\n};\n",
        "use vhlo_core::bytecode::write;\n",
        "use vhlo_core as core;\n",
        "fn f() { let b = vhlo_core::portable::write_vhlo(&m, v, \"1.0.0\"); }\n",
        "fn f() {\n    let b = vhlo_core::bytecode::write(&m, &o);\n}\n",
        "fn f() { run(&[\"--serialize\", &src, \"-o\", &out]); }\n",
    ];
    for src in flagged {
        assert!(!scan(src).is_empty(), "not flagged: {src}");
    }
    let passed = [
        "use vhlo_tests::portable::{self, SerializeOptions};\nuse vhlo_core::text;\n",
        "use vhlo_core::ir::Module; // portable is elsewhere\n",
        "// unchecked: a hostile input, refused on reading\nlet b = vhlo_core::portable::write_vhlo(&m, v, \"1.0.0\");\n",
        "let b = vhlo_core::portable::deserialize_portable_artifact(&b);\n",
        "let p = vhlo_core::bytecode::read_producer(&b);\n",
        "fn f() { let o = run(&[\"--serialize\", &src]); read_back_cli(&args, &o); }\n",
    ];
    for src in passed {
        assert!(scan(src).is_empty(), "flagged: {src}: {:?}", scan(src));
    }
}
