//! Text front end against the upstream corpora: every compatibility-suite source parses, and
//! printing then re-parsing gives a structurally equal module; pretty-syntax corpora parse.

use std::path::{Path, PathBuf};

use vhlo_core::ir::{structurally_equal, EqualOptions};
use vhlo_core::text::{self, PrintOptions};

fn shared_dir(sub: &str, env: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(env).map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join("..")
            .join("shared")
            .join(sub)
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
    round_trip_with(src, opts, vhlo_tests::parse_any_dialect)
}

/// [`round_trip`] with `parse` as the parser (`text::parse_unverified` for programs upstream's
/// verifier refuses, whose printing is still tested).
fn round_trip_with(
    src: &str,
    opts: PrintOptions,
    parse: fn(&str) -> Result<vhlo_core::ir::Module, text::ParseError>,
) -> Result<(), String> {
    let m1 = parse(src).map_err(|e| format!("parse: {e}"))?;
    let printed = text::print(&m1, opts);
    let m2 = parse(&printed)
        .map_err(|e| format!("re-parse: {e}\n--- printed ---\n{}", excerpt(&printed, &e)))?;
    structurally_equal(
        &m1,
        &m2,
        EqualOptions {
            locations: opts.debug_info,
            ..Default::default()
        },
    )
    .map_err(|e| format!("differs after print: {e}"))?;
    let again = text::print(&m2, opts);
    if again != printed {
        return Err("printing is not stable".into());
    }
    Ok(())
}

fn excerpt(s: &str, e: &text::ParseError) -> String {
    s.lines()
        .skip((e.line as usize).saturating_sub(3))
        .take(5)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn compat_suite_sources_round_trip_generic() {
    let Some(dir) = shared_dir("compat-suite", "VHLO_COMPAT_SUITE") else {
        return;
    };
    let files = files(&dir, |n| {
        n.starts_with("stablehlo_legalize_to_vhlo") && n.ends_with(".mlir")
    });
    assert!(
        files.len() >= 30,
        "expected the suite's sources, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable");
        for opts in [
            PrintOptions {
                generic: true,
                debug_info: true,
                ..Default::default()
            },
            PrintOptions {
                generic: false,
                debug_info: true,
                ..Default::default()
            },
        ] {
            if let Err(e) = round_trip(&src, opts) {
                failures.push(format!("{} ({opts:?}): {e}", f.display()));
            }
        }
    }
    eprintln!(
        "compat suite: {} of {} sources round-trip (generic and pretty)",
        files.len() - failures.len().min(files.len()),
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
#[cfg_attr(
    not(has_stablehlo_tests),
    ignore = "needs ../shared/stablehlo-tests (or VHLO_STABLEHLO_TESTS)"
)]
fn interpret_corpus_parses_and_round_trips() {
    let Some(dir) = shared_dir("stablehlo-tests", "VHLO_STABLEHLO_TESTS") else {
        return;
    };
    let files = files(&dir.join("interpret"), |n| n.ends_with(".mlir"));
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    let mut chunks_total = 0usize;
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable");
        for (i, chunk) in split_chunks(&src).iter().enumerate() {
            chunks_total += 1;
            for generic in [false, true] {
                let opts = PrintOptions {
                    generic,
                    debug_info: true,
                    ..Default::default()
                };
                if let Err(e) = round_trip(chunk, opts) {
                    failures.push(format!(
                        "{} chunk {i} (generic: {generic}): {e}",
                        f.display()
                    ));
                }
            }
        }
    }
    eprintln!(
        "interpret: {} of {chunks_total} chunks in {} files round-trip",
        chunks_total.saturating_sub(failures.len()),
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Balanced `#vhlo...`/`!vhlo...` expressions in the suite's CHECK lines (skipping FileCheck
/// patterns): each must parse, and print back to the same text.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn vhlo_types_and_attributes_print_like_upstream() {
    let Some(dir) = shared_dir("compat-suite", "VHLO_COMPAT_SUITE") else {
        return;
    };
    let src =
        std::fs::read_to_string(dir.join("stablehlo_legalize_to_vhlo.mlir")).expect("readable");
    let mut fragments = std::collections::BTreeSet::new();
    for line in src
        .lines()
        .filter(|l| l.trim_start().starts_with("// CHECK"))
    {
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if (b[i] == b'#' || b[i] == b'!') && line[i + 1..].starts_with("vhlo") {
                // Extend over the identifier and a balanced `<...>`.
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'.')
                {
                    j += 1;
                }
                if j < b.len() && b[j] == b'<' {
                    let mut depth = 0i32;
                    while j < b.len() {
                        match b[j] {
                            b'<' => depth += 1,
                            b'>' if b[j - 1] != b'-' => {
                                depth -= 1;
                                if depth == 0 {
                                    j += 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                        j += 1;
                    }
                    if depth != 0 {
                        break;
                    }
                }
                let frag = &line[i..j];
                if !frag.contains("[[") && !frag.contains("{{") {
                    fragments.insert(frag.to_string());
                }
                i = j;
            } else {
                i += 1;
            }
        }
    }
    assert!(
        fragments.len() > 50,
        "found only {} fragments",
        fragments.len()
    );
    let mut failures = Vec::new();
    for f in &fragments {
        let mut m = vhlo_core::ir::Module::new();
        let printed = if f.starts_with('!') {
            text::parse_type(&mut m, f).map(|t| text::type_to_string(&m, t))
        } else {
            text::parse_attribute(&mut m, f).map(|a| text::attribute_to_string(&m, a))
        };
        match printed {
            Ok(p) if &p == f => {}
            Ok(p) => failures.push(format!("{f}\n   printed as {p}")),
            Err(e) => failures.push(format!("{f}\n   {e}")),
        }
    }
    eprintln!(
        "VHLO fragments: {} of {} print back identically",
        fragments.len() - failures.len(),
        fragments.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every other suite input (downgrade cases, invalid programs split on `// -----`) either
/// round-trips or is rejected with a located error, never a panic; the non-`invalid` ones
/// must round-trip.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn other_suite_inputs_round_trip_or_fail_cleanly() {
    let Some(dir) = shared_dir("compat-suite", "VHLO_COMPAT_SUITE") else {
        return;
    };
    let files = files(&dir, |n| {
        n.ends_with(".mlir") && !n.starts_with("stablehlo_legalize_to_vhlo.")
    });
    let (mut ok, mut total) = (0, 0);
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable");
        let must_pass =
            !f.to_string_lossy().contains("invalid") && !f.to_string_lossy().contains("_mixed");
        for (i, chunk) in split_chunks(&src).iter().enumerate() {
            total += 1;
            match round_trip(
                chunk,
                PrintOptions {
                    generic: true,
                    debug_info: true,
                    ..Default::default()
                },
            ) {
                Ok(()) => ok += 1,
                Err(e) if must_pass => failures.push(format!("{} chunk {i}: {e}", f.display())),
                Err(e) => eprintln!(
                    "rejected (allowed): {} chunk {i}: {}",
                    f.display(),
                    e.lines().next().unwrap_or("")
                ),
            }
        }
    }
    eprintln!("other suite inputs: {ok} of {total} chunks round-trip");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The pretty-syntax corpora: report how many chunks parse and round-trip (pretty printing).
#[test]
#[cfg_attr(
    not(has_stablehlo_tests),
    ignore = "needs ../shared/stablehlo-tests (or VHLO_STABLEHLO_TESTS)"
)]
fn pretty_corpora_round_trip() {
    let Some(dir) = shared_dir("stablehlo-tests", "VHLO_STABLEHLO_TESTS") else {
        return;
    };
    let mut failures = Vec::new();
    let mut total = 0;
    for name in [
        "ops_stablehlo_roundtrip.mlir",
        "print_stablehlo.mlir",
        "print_reduce.mlir",
        "print_while.mlir",
        "ops_stablehlo_quantized.mlir",
    ] {
        let src = std::fs::read_to_string(dir.join(name)).expect("readable");
        for (i, chunk) in split_chunks(&src).iter().enumerate() {
            total += 1;
            // A case upstream's verifier refuses: refused by ours (tests/tests/verifier/verifier_upstream.rs
            // checks where), and its printing round-trips without the verifier.
            let refused = chunk.contains("expected-error");
            if refused && vhlo_tests::parse_any_dialect(chunk).is_ok() {
                failures.push(format!("{name} chunk {i}: accepted, upstream refuses it"));
            }
            let parse = if refused {
                vhlo_tests::parse_any_dialect_unverified
            } else {
                vhlo_tests::parse_any_dialect
            };
            for generic in [false, true] {
                let opts = PrintOptions {
                    generic,
                    debug_info: true,
                    ..Default::default()
                };
                if let Err(e) = round_trip_with(chunk, opts, parse) {
                    failures.push(format!(
                        "{name} chunk {i} (generic: {generic}): {}",
                        e.lines().next().unwrap_or("")
                    ));
                }
            }
        }
    }
    eprintln!(
        "pretty corpora: {} of {total} chunks round-trip",
        total - failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A FileCheck subset: the literal `CHECK`/`CHECK-NEXT`/`CHECK-LABEL` lines of the pretty-print
/// tests (those without `[[`/`{{` patterns) must appear, in order, in what we print.
#[test]
#[cfg_attr(
    not(has_stablehlo_tests),
    ignore = "needs ../shared/stablehlo-tests (or VHLO_STABLEHLO_TESTS)"
)]
fn pretty_printing_matches_upstream_check_lines() {
    let Some(dir) = shared_dir("stablehlo-tests", "VHLO_STABLEHLO_TESTS") else {
        return;
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    for name in [
        "print_stablehlo.mlir",
        "print_reduce.mlir",
        "ops_stablehlo_roundtrip.mlir",
    ] {
        let src = std::fs::read_to_string(dir.join(name)).expect("readable");
        for (ci, chunk) in split_chunks(&src).iter().enumerate() {
            let Ok(m) = vhlo_tests::parse_any_dialect(chunk) else {
                continue;
            };
            let debug_info = chunk.contains("mlir-print-debuginfo");
            let out = text::print(
                &m,
                PrintOptions {
                    generic: false,
                    debug_info,
                    elide_defaults: true,
                    ..Default::default()
                },
            );
            let mut at = 0usize;
            for line in chunk.lines() {
                let t = line.trim_start();
                let Some(rest) = ["// CHECK-NEXT:", "// CHECK-LABEL:", "// CHECK:"]
                    .iter()
                    .find_map(|p| t.strip_prefix(p))
                else {
                    continue;
                };
                let want = rest.trim();
                if want.is_empty()
                    || want.contains("[[")
                    || want.contains("{{")
                    || want.starts_with("func @")
                {
                    continue;
                }
                checked += 1;
                // FileCheck treats any run of horizontal whitespace as one space.
                let squash = |s: &str| {
                    s.split(' ')
                        .filter(|w| !w.is_empty())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let want = squash(want);
                let out = squash(&out);
                match out[at.min(out.len())..].find(&want) {
                    Some(i) => at += i + want.len(),
                    None => failures.push(format!("{name} chunk {ci}: missing `{want}`")),
                }
            }
        }
    }
    eprintln!(
        "CHECK lines: {} of {checked} literal lines found in order",
        checked - failures.len()
    );
    // `elide_defaults` prints as MLIR does, including the compact reduce that drops differing
    // body locations, so every literal CHECK line must be found.
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The JAX-produced text fixtures (`tests/fixtures/jax/*.mlir`, printed by MLIR with debug
/// info): parsing then printing the way MLIR does (location aliases, default attributes left
/// out) reproduces each file byte for byte; the `.generic.mlir` ones in generic form.
#[test]
fn jax_text_fixtures_print_back_byte_for_byte() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/jax");
    let files = files(&dir, |n| n.ends_with(".mlir"));
    assert!(files.len() >= 30, "found {} fixtures", files.len());
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).expect("readable");
        let generic = f.to_string_lossy().ends_with(".generic.mlir");
        let m = match vhlo_tests::parse_any_dialect(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}: {e}", f.display()));
                continue;
            }
        };
        let debug_info = src.contains("loc(");
        let opts = PrintOptions {
            generic,
            debug_info,
            elide_defaults: true,
            location_aliases: true,
            local_scope: false,
        };
        let out = text::print(&m, opts);
        if out != src {
            let line = out
                .lines()
                .zip(src.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            failures.push(format!(
                "{}: line {}\n  ours:   {}\n  theirs: {}",
                f.display(),
                line + 1,
                out.lines().nth(line).unwrap_or("<end>"),
                src.lines().nth(line).unwrap_or("<end>")
            ));
        }
    }
    eprintln!(
        "JAX text fixtures: {} of {} print back byte for byte",
        files.len() - failures.len(),
        files.len()
    );
    for f in &failures {
        eprintln!("  {f}");
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Every VHLO type and attribute of the suite's artifacts, printed as VHLO text by its spec
/// format, parses back to the same module: the formats' two directions agree on real programs.
#[test]
fn vhlo_text_of_every_suite_artifact_parses_back_to_itself() {
    let Some(dir) = vhlo_tests::compat_suite() else {
        return;
    };
    let mut failures = Vec::new();
    let mut checked = 0;
    let valid = vhlo_tests::valid_suite_artifacts(&dir);
    for path in valid {
        let bytes = std::fs::read(&path).expect("read an artifact");
        let (m, _) = vhlo_tests::portable::read_vhlo(&bytes).expect("the suite's artifacts read");
        let opts = PrintOptions {
            generic: true,
            debug_info: true,
            ..Default::default()
        };
        let printed = text::print(&m, opts);
        checked += 1;
        match vhlo_tests::parse_any_dialect_unverified(&printed) {
            Ok(back) => {
                let again = text::print(&back, opts);
                if again != printed {
                    failures.push(format!(
                        "{}: prints differently once parsed",
                        path.display()
                    ));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(checked > 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
