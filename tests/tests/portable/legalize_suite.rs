//! StableHLO -> VHLO legalization against the compatibility suite: every
//! `stablehlo_legalize_to_vhlo[.X_Y_Z].mlir` legalized at its target and printed in generic form
//! satisfies the file's CHECK lines (FileCheck semantics), and converting back gives the source.

use std::path::{Path, PathBuf};

use vhlo_core::convert::{self, LegalizeOptions};
use vhlo_core::ir::{structurally_equal, EqualOptions};
use vhlo_core::text;
use vhlo_core::version::Version;

fn suite_dir() -> Option<PathBuf> {
    vhlo_tests::compat_suite()
}

/// `stablehlo_legalize_to_vhlo.1_5_0.mlir` -> Some(1.5.0); the unversioned file -> None.
fn target_of(name: &str) -> Option<Option<Version>> {
    let rest = name
        .strip_prefix("stablehlo_legalize_to_vhlo")?
        .strip_suffix(".mlir")?;
    if rest.is_empty() {
        return Some(None);
    }
    Version::parse(&rest.strip_prefix('.')?.replace('_', "."))
        .ok()
        .map(Some)
}

/// The release upstream's HEAD was at when the suite was taken: its newest versioned file. The
/// unversioned file targets it (upstream's current then), not ours, which a later release of
/// the spec moves on.
fn suite_version(dir: &Path) -> Version {
    std::fs::read_dir(dir)
        .expect("readable suite directory")
        .filter_map(|e| target_of(e.ok()?.file_name().to_str()?).flatten())
        .max()
        .unwrap_or(vhlo_core::vhlo::CURRENT_VERSION)
}

fn suite_files(dir: &Path) -> Vec<(PathBuf, Version)> {
    let head = suite_version(dir);
    let mut v: Vec<(PathBuf, Version)> = std::fs::read_dir(dir)
        .expect("readable suite directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            if let Ok(only) = std::env::var("LEGALIZE_ONLY") {
                if !name.contains(&only) {
                    return None;
                }
            }
            target_of(&name).map(|t| (p.clone(), t.unwrap_or(head)))
        })
        .collect();
    v.sort();
    v
}

struct Outcome {
    check: Result<(), String>,
    back: Result<(), String>,
}

fn run_one(src: &str, target: Version, defaults_only: &std::cell::Cell<usize>) -> Outcome {
    let source = match text::parse(src) {
        Ok(m) => m,
        Err(e) => {
            let msg = format!("parse: {e}");
            return Outcome {
                check: Err(msg.clone()),
                back: Err(msg),
            };
        }
    };
    let mut m = source.clone();
    if let Err(ds) = convert::legalize_to_vhlo_at(&mut m, target, LegalizeOptions::default()) {
        let msg = format!(
            "legalize: {} errors, first: {}",
            ds.len(),
            convert::diagnostics_to_text(&ds[..ds.len().min(5)])
        );
        return Outcome {
            check: Err(msg.clone()),
            back: Err(msg),
        };
    }
    let printed = text::print_generic(&m);
    let check = filecheck::check(src, &printed).map_err(|e| format!("{e}"));
    let back = match convert::legalize_to_stablehlo(&mut m) {
        Err(ds) => Err(format!(
            "back: {}",
            convert::diagnostics_to_text(&ds[..ds.len().min(5)])
        )),
        Ok(()) => structurally_equal(&source, &m, EqualOptions::default()).or_else(|exact| {
            // Upstream drops attributes spelled with their default value (VHLO -> StableHLO
            // removes defaults); compare with the source put through the same normalization.
            let mut normalized = source.clone();
            convert::legalize_to_vhlo(&mut normalized, LegalizeOptions::default())
                .and_then(|()| convert::legalize_to_stablehlo(&mut normalized))
                .map_err(|ds| format!("normalizing: {}", convert::diagnostics_to_text(&ds)))?;
            structurally_equal(&normalized, &m, EqualOptions::default())
                .map_err(|e| format!("{exact}; modulo defaults: {e}"))?;
            defaults_only.set(defaults_only.get() + 1);
            Ok(())
        }),
    };
    if std::env::var_os("LEGALIZE_DUMP").is_some() {
        std::fs::write("/tmp/legalize_dump.mlir", &printed).ok();
        std::fs::write("/tmp/legalize_back.mlir", text::print_generic(&m)).ok();
        std::fs::write("/tmp/legalize_src.mlir", text::print_generic(&source)).ok();
    }
    Outcome { check, back }
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn suite_legalizes_checks_and_round_trips() {
    let Some(dir) = suite_dir() else { return };
    let files = suite_files(&dir);
    assert!(
        !files.is_empty() || std::env::var("LEGALIZE_ONLY").is_ok(),
        "no stablehlo_legalize_to_vhlo files in {}",
        dir.display()
    );
    let (mut checked, mut round_tripped) = (0, 0);
    let mut failures = Vec::new();
    let defaults_only = std::cell::Cell::new(0);
    for (path, target) in &files {
        let src = std::fs::read_to_string(path).expect("readable suite file");
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let out = run_one(&src, *target, &defaults_only);
        match out.check {
            Ok(()) => checked += 1,
            Err(e) => failures.push(format!(
                "{name} (CHECK at {target}): {}",
                e.chars().take(1500).collect::<String>()
            )),
        }
        match out.back {
            Ok(()) => round_tripped += 1,
            Err(e) => failures.push(format!(
                "{name} (round trip): {}",
                e.chars().take(600).collect::<String>()
            )),
        }
    }
    eprintln!(
        "CHECK lines satisfied: {checked}/{}; round trip back to the source: {round_tripped}/{} ({} of them modulo explicitly written defaults)",
        files.len(),
        files.len(),
        defaults_only.get()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// `stablehlo_legalize_to_vhlo_mixed.mlir`: other dialects allowed, casts between VHLO values
/// and foreign ops as upstream materializes them; each `// -----` chunk separately.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn mixed_programs_keep_other_dialects_and_cast_at_the_boundaries() {
    let Some(dir) = suite_dir() else { return };
    let src = std::fs::read_to_string(dir.join("stablehlo_legalize_to_vhlo_mixed.mlir"))
        .expect("mixed suite file");
    let mut outputs = Vec::new();
    for chunk in src.split("// -----") {
        let mut m = text::parse(chunk).unwrap_or_else(|e| panic!("parse: {e}"));
        convert::legalize_to_vhlo(
            &mut m,
            LegalizeOptions {
                allow_other_dialects: true,
                ..Default::default()
            },
        )
        .unwrap_or_else(|ds| panic!("legalize: {}", convert::diagnostics_to_text(&ds)));
        // The RUN line prints with `--mlir-print-local-scope` (no `#map` aliases).
        outputs.push(text::print(
            &m,
            text::PrintOptions {
                local_scope: true,
                ..Default::default()
            },
        ));
        // Back through an old target: the same program, casts folded away.
        let source = text::parse(chunk).expect("parsed above");
        convert::vhlo_to_version(&mut m, Version::new(1, 0, 0))
            .unwrap_or_else(|ds| panic!("to 1.0.0: {}", convert::diagnostics_to_text(&ds)));
        convert::legalize_to_stablehlo(&mut m)
            .unwrap_or_else(|ds| panic!("back: {}", convert::diagnostics_to_text(&ds)));
        structurally_equal(&source, &m, EqualOptions::default()).unwrap_or_else(|e| {
            panic!(
                "mixed round trip: {e}\n{}",
                text::print(&m, text::PrintOptions::default())
            )
        });
    }
    let printed = outputs.join("// -----\n");
    if let Err(e) = filecheck::check(&src, &printed) {
        panic!("{e}\n--- output ---\n{printed}");
    }
}

/// Differential against libStablehlo's own artifacts: legalizing each versioned source at its
/// target gives the module the `.mlir.bc` artifact holds (written with `--strip-debuginfo`), and
/// writing it gives the artifact's bytes.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn legalized_suite_matches_upstream_artifacts() {
    let Some(dir) = suite_dir() else { return };
    let (mut same_module, mut same_bytes, mut total) = (0, 0, 0);
    let mut failures = Vec::new();
    for (path, target) in suite_files(&dir) {
        let bc_path = path.with_extension("mlir.bc");
        let Ok(bytes) = std::fs::read(&bc_path) else {
            continue;
        };
        total += 1;
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let src = std::fs::read_to_string(&path).expect("readable");
        let mut m = text::parse(&src).expect("suite source parses");
        let rewritten = match convert::legalize_to_vhlo(&mut m, LegalizeOptions::default())
            .and_then(|()| convert::vhlo_to_version_tracked(&mut m, target))
        {
            Ok(r) => r,
            Err(ds) => {
                failures.push(format!("{name}: {}", convert::diagnostics_to_text(&ds)));
                continue;
            }
        };
        // The suite was written by upstream HEAD, at the suite's release.
        let use_lists = convert::artifact_use_list_orders(&m, &rewritten, suite_version(&dir));
        let (upstream, info) = match vhlo_core::bytecode::read(&bytes) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}.bc: {e}"));
                continue;
            }
        };
        match structurally_equal(
            &upstream,
            &m,
            EqualOptions {
                locations: false,
                ..Default::default()
            },
        ) {
            Ok(()) => same_module += 1,
            Err(e) => failures.push(format!("{name}: module differs from the artifact: {e}")),
        }
        let mut opts =
            vhlo_core::bytecode::WriteOptions::new(info.bytecode_version, &info.producer);
        opts.use_list_orders = Some(&use_lists);
        let ours = vhlo_tests::bytecode::write(&m, &opts);
        match ours {
            Ok(b) if b == bytes => same_bytes += 1,
            Ok(b) => failures.push(format!(
                "{name}: {} bytes written vs {} in the artifact",
                b.len(),
                bytes.len()
            )),
            Err(e) => failures.push(format!("{name}: write: {e}")),
        }
    }
    eprintln!("legalized modules equal to upstream artifacts: {same_module}/{total}; byte-identical: {same_bytes}/{total}");
    // The one-call API (`portable::serialize_portable_artifact` and its inverse) is checked
    // against the same artifacts in portable_suite.rs.
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Deserialization direction: every suite artifact (VHLO at its version) converted back to
/// StableHLO and legalized again at the artifact's version is the artifact's module; and every
/// artifact survives conversion to every release without panicking (errors are values).
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn upstream_artifacts_convert_back_and_forth() {
    let Some(dir) = suite_dir() else { return };
    let mut list: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("readable suite directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_str().is_some_and(|s| s.ends_with(".mlir.bc")))
        .collect();
    list.sort();
    let (mut total, mut same) = (0, 0);
    let mut failures = Vec::new();
    for path in &list {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let bytes = std::fs::read(path).expect("readable");
        let Ok((artifact, info)) = vhlo_core::bytecode::read(&bytes) else {
            continue;
        };
        let Some(version) = info
            .stablehlo_version()
            .and_then(|v| Version::parse(v).ok())
        else {
            continue;
        };
        for r in vhlo_core::vhlo::RELEASES {
            let _ = convert::vhlo_to_version(&mut artifact.clone(), r.version);
        }
        let _ = convert::minimum_version(&artifact);
        total += 1;
        let mut m = artifact.clone();
        let result = convert::legalize_to_stablehlo(&mut m)
            .and_then(|()| {
                convert::legalize_to_vhlo_at(&mut m, version, LegalizeOptions::default())
            })
            .map_err(|ds| convert::diagnostics_to_text(&ds))
            .and_then(|()| structurally_equal(&artifact, &m, EqualOptions::default()));
        match result {
            Ok(()) => same += 1,
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!("artifacts back to StableHLO and again to their version, unchanged: {same}/{total}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every op version boundary of the spec is crossed by a real program: some suite source,
/// legalized at its target, holds an older version of the op than the current one (so the
/// conversion went down across the boundary, and the round trip above came back up).
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn suite_programs_cross_every_op_version_boundary() {
    use std::collections::BTreeSet;
    use vhlo_core::vhlo::VhloOp;
    let Some(dir) = suite_dir() else { return };
    let mut crossed: BTreeSet<&'static str> = BTreeSet::new();
    for (path, target) in suite_files(&dir) {
        let src = std::fs::read_to_string(&path).expect("readable");
        let mut m = text::parse(&src).expect("suite source parses");
        convert::legalize_to_vhlo_at(&mut m, target, LegalizeOptions::default())
            .expect("legalizes");
        m.walk(|op| {
            let mut kind = VhloOp::from_name(m.op_name_str(op));
            // Each step from this version up to the current one is a boundary crossed.
            while let Some(k) = kind {
                if let Some(next) = k.next() {
                    crossed.insert(next.name());
                }
                kind = k.next();
            }
        });
    }
    let all: Vec<&str> = VhloOp::ALL
        .iter()
        .filter(|k| k.previous().is_some())
        .map(|k| k.name())
        .collect();
    let missing: Vec<&&str> = all.iter().filter(|n| !crossed.contains(**n)).collect();
    eprintln!(
        "op version boundaries crossed by suite programs: {}/{}",
        all.len() - missing.len(),
        all.len()
    );
    assert!(
        missing.is_empty(),
        "boundaries no suite program crosses (into): {missing:?}"
    );
}

/// With other dialects allowed, an op of a dialect libStablehlo does not load is refused, named
/// with its dialect: libStablehlo would refuse to read the artifact ("dialect 'foo' is
/// unknown"). An op of a dialect it loads (`math`) is kept.
#[test]
fn ops_of_dialects_libstablehlo_does_not_load_are_refused() {
    let program = |op: &str| {
        format!(
            "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {{\n  %0 = \"{op}\"(%a) : (tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}}\n"
        )
    };
    let options = LegalizeOptions {
        allow_other_dialects: true,
        ..Default::default()
    };
    let mut m = vhlo_tests::parse_any_dialect(&program("foo.bar")).expect("parse");
    let ds = convert::legalize_to_vhlo(&mut m, options).expect_err("foo.bar kept");
    let message = convert::diagnostics_to_text(&ds);
    assert!(
        message.contains("foo.bar") && message.contains("dialect 'foo'"),
        "{message}"
    );
    let mut m = text::parse(&program("math.sqrt")).expect("parse");
    convert::legalize_to_vhlo(&mut m, options)
        .unwrap_or_else(|ds| panic!("math.sqrt: {}", convert::diagnostics_to_text(&ds)));
}

/// With other dialects allowed, an op name that a dialect whose every op the spec lists
/// (`ops_complete`) does not have is refused, named: libStablehlo would refuse to read the
/// artifact. The verifier refuses it first, as MLIR's does; without the verifier, the
/// conversion still does. The dialect's own ops are kept.
#[test]
fn unknown_ops_of_completely_specified_dialects_are_refused() {
    let options = LegalizeOptions {
        allow_other_dialects: true,
        ..Default::default()
    };
    let complete: Vec<_> = vhlo_core::vhlo::CODEC_DIALECTS
        .iter()
        .filter(|cd| cd.ops_complete && !cd.allows_unknown_ops)
        .collect();
    assert!(!complete.is_empty(), "no dialect claims ops_complete");
    for cd in complete {
        let name = format!("{}.nonexistent", cd.name);
        let src = format!(
            "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {{\n  \"{name}\"() : () -> ()\n  return %a : tensor<2xf32>\n}}\n"
        );
        for (skip_verification, why) in [
            (false, "unregistered operation"),
            (true, "is not an op of dialect"),
        ] {
            let mut m = text::parse_unverified(&src).expect("parse");
            let options = LegalizeOptions {
                skip_verification,
                ..options
            };
            let ds = convert::legalize_to_vhlo(&mut m, options).expect_err("kept");
            let message = convert::diagnostics_to_text(&ds);
            assert!(
                message.contains(&name) && message.contains(why),
                "{message}"
            );
        }
    }
    // An op the spec lists is kept.
    let src =
        "func.func @main(%a: f32) -> f32 {\n  %0 = arith.negf %a : f32\n  return %0 : f32\n}\n";
    let mut m = text::parse(src).expect("parse");
    convert::legalize_to_vhlo(&mut m, options)
        .unwrap_or_else(|ds| panic!("arith.negf: {}", convert::diagnostics_to_text(&ds)));
}
