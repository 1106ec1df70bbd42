//! Text front end against the upstream corpora: every compatibility-suite source parses, and
//! printing then re-parsing gives a structurally equal module; pretty-syntax corpora parse.

use std::path::{Path, PathBuf};

use vhlo_core::ir::{structurally_equal, EqualOptions};
use vhlo_core::text::{self, PrintOptions};

fn shared_dir(sub: &str, env: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(env).map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..").join("shared").join(sub)
    });
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{} not found (set {env}); required under CI", dir.display());
    }
    eprintln!("skipping: {} not found (set {env})", dir.display());
    None
}

fn files(dir: &Path, pred: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&pred))
        .collect();
    v.sort();
    v
}

/// Splits on MLIR's `// -----` markers (`--split-input-file`).
fn split_chunks(src: &str) -> Vec<String> {
    let mut chunks = vec![String::new()];
    for line in src.split_inclusive('\n') {
        if line.trim_start().starts_with("// -----") {
            chunks.push(String::new());
        } else {
            chunks.last_mut().expect("one chunk").push_str(line);
        }
    }
    chunks
}

/// parse → print → parse gives the same module, and printing is stable.
fn round_trip(src: &str, opts: PrintOptions) -> Result<(), String> {
    let m1 = text::parse(src).map_err(|e| format!("parse: {e}"))?;
    let printed = text::print(&m1, opts);
    let m2 = text::parse(&printed).map_err(|e| format!("re-parse: {e}\n--- printed ---\n{}", excerpt(&printed, &e)))?;
    structurally_equal(&m1, &m2, EqualOptions { locations: opts.debug_info }).map_err(|e| format!("differs after print: {e}"))?;
    let again = text::print(&m2, opts);
    if again != printed {
        return Err("printing is not stable".into());
    }
    Ok(())
}

fn excerpt(s: &str, e: &text::ParseError) -> String {
    s.lines().skip((e.line as usize).saturating_sub(3)).take(5).collect::<Vec<_>>().join("\n")
}

#[test]
fn compat_suite_sources_round_trip_generic() {
    let Some(dir) = shared_dir("compat-suite", "VHLO_COMPAT_SUITE") else { return };
    let files = files(&dir, |n| n.starts_with("stablehlo_legalize_to_vhlo") && n.ends_with(".mlir"));
    assert!(files.len() >= 30, "expected the suite's sources, found {}", files.len());
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable");
        for opts in [PrintOptions { generic: true, debug_info: true }, PrintOptions { generic: false, debug_info: true }] {
            if let Err(e) = round_trip(&src, opts) {
                failures.push(format!("{} ({opts:?}): {e}", f.display()));
            }
        }
    }
    eprintln!("compat suite: {} of {} sources round-trip (generic and pretty)", files.len() - failures.len().min(files.len()), files.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn interpret_corpus_parses_and_round_trips() {
    let Some(dir) = shared_dir("stablehlo-tests", "VHLO_STABLEHLO_TESTS") else { return };
    let files = files(&dir.join("interpret"), |n| n.ends_with(".mlir"));
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    let mut chunks_total = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable");
        for (i, chunk) in split_chunks(&src).iter().enumerate() {
            chunks_total += 1;
            if let Err(e) = round_trip(chunk, PrintOptions::default()) {
                failures.push(format!("{} chunk {i}: {e}", f.display()));
            }
        }
    }
    eprintln!("interpret: {} of {chunks_total} chunks in {} files round-trip", chunks_total - failures.len(), files.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}
