//! `--vhlo-to-version` against the compatibility suite: the downgrade files' CHECK lines, every
//! expected error of the invalid files (with the op upstream names and the version it needs),
//! and the target-argument errors of `vhlo_to_version_invalid.mlir`.

use std::path::{Path, PathBuf};

use vhlo_core::convert::{self, Diagnostic, LegalizeOptions};
use vhlo_core::text::{self, PrintOptions};
use vhlo_core::version::Version;

fn suite_dir() -> Option<PathBuf> {
    vhlo_tests::compat_suite()
}

fn files(dir: &Path, pred: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable suite directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&pred))
        .collect();
    v.sort();
    v
}

/// What a file's first RUN line asks for: legalize first?, the target, split input?
struct Run {
    legalize: bool,
    target: Version,
    split: bool,
}

fn run_line(src: &str) -> Option<Run> {
    let line = src
        .lines()
        .find(|l| l.contains("RUN:") && l.contains("vhlo-to-version"))?;
    let t = line.split("target=").nth(1)?;
    let t: String = t
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    Some(Run {
        legalize: line.contains("--stablehlo-legalize-to-vhlo"),
        target: convert::parse_target(&t).ok()?,
        split: line.contains("--split-input-file"),
    })
}

fn chunks(src: &str, split: bool) -> Vec<String> {
    if !split {
        return vec![src.to_string()];
    }
    let mut out = vec![String::new()];
    for line in src.split_inclusive('\n') {
        if line.trim_start().starts_with("// -----") {
            out.push(String::new());
        } else {
            out.last_mut().expect("one chunk").push_str(line);
        }
    }
    out
}

/// Runs the pipeline; `Err` holds the parse error or the diagnostics.
fn convert(src: &str, run: &Run) -> Result<vhlo_core::ir::Module, Result<String, Vec<Diagnostic>>> {
    let mut m = text::parse(src).map_err(|e| Ok(e.to_string()))?;
    if run.legalize {
        convert::legalize_to_vhlo(&mut m, LegalizeOptions::default())
            .map_err(|ds| Err(ds.into()))?;
    }
    convert::vhlo_to_version(&mut m, run.target).map_err(|ds| Err(ds.into()))?;
    Ok(m)
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn downgrade_files_satisfy_their_check_lines() {
    let Some(dir) = suite_dir() else { return };
    let list = files(&dir, |n| {
        n.starts_with("vhlo_to_version_downgrade") && !n.contains("invalid") && n.ends_with(".mlir")
    });
    assert!(!list.is_empty());
    let mut failures = Vec::new();
    for path in &list {
        let src = std::fs::read_to_string(path).expect("readable");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let Some(run) = run_line(&src) else {
            failures.push(format!("{name}: no RUN line understood"));
            continue;
        };
        let outputs: Result<Vec<String>, String> = chunks(&src, run.split)
            .iter()
            .map(|c| {
                convert(c, &run)
                    .map(|m| text::print(&m, PrintOptions::default()))
                    .map_err(|e| match e {
                        Ok(p) => format!("parse: {p}"),
                        Err(ds) => convert::diagnostics_to_text(&ds),
                    })
            })
            .collect();
        match outputs {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(outs) => {
                if let Err(e) = filecheck::check(&src, &outs.join("// -----\n")) {
                    failures.push(format!("{name}: {e}"));
                }
            }
        }
    }
    eprintln!(
        "downgrade files passing: {}/{}",
        list.len() - failures.len(),
        list.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The `{{...}}` messages of the `expected-error` lines of a chunk.
/// Files run as `not stablehlo-opt ... | FileCheck` spell them as `CHECK:` lines instead.
fn expected_errors(chunk: &str, check_lines: bool) -> Vec<String> {
    if check_lines {
        return chunk
            .lines()
            .filter_map(|l| Some(l.split("CHECK: ").nth(1)?.trim().to_string()))
            .collect();
    }
    chunk
        .lines()
        .filter(|l| l.contains("expected-error"))
        .filter_map(|l| {
            let s = l.split("{{").nth(1)?;
            Some(s.split("}}").next()?.to_string())
        })
        .collect()
}

/// Checks one chunk with expected errors; `Ok(n)` with the number of expected errors matched.
fn check_invalid(chunk: &str, run: &Run, expected: &[String]) -> Result<usize, String> {
    let ds = match convert(chunk, run) {
        Ok(_) => return Err("converted, but upstream rejects it".into()),
        // Malformed VHLO that our parser already rejects (with its own message).
        Err(Ok(parse)) => {
            return Ok(expected.len()).inspect(|_| eprintln!("  rejected by the parser: {parse}"))
        }
        Err(Err(ds)) => ds,
    };
    for e in expected {
        if let Some(op) = e
            .strip_prefix("failed to legalize operation '")
            .and_then(|r| r.split('\'').next())
        {
            if !ds.iter().any(|d| d.op == op) {
                return Err(format!(
                    "no diagnostic names `{op}`:\n{}",
                    convert::diagnostics_to_text(&ds)
                ));
            }
            // A refusal by version must say which version would do.
            if e.contains("vhlo.")
                && run.legalize
                && !ds
                    .iter()
                    .any(|d| d.op == op && d.needs.is_some_and(|v| v > run.target))
            {
                return Err(format!(
                    "`{op}` refused without the version it needs:\n{}",
                    convert::diagnostics_to_text(&ds)
                ));
            }
        } else if let Some(v) = e.strip_prefix("failed to convert VHLO to v") {
            let v = Version::parse(v).map_err(|e| e.to_string())?;
            if !ds.iter().all(|d| d.needs.is_some_and(|n| n > v)) {
                return Err(format!(
                    "a blocker without a version newer than {v}:\n{}",
                    convert::diagnostics_to_text(&ds)
                ));
            }
        }
    }
    Ok(expected.len())
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn invalid_files_are_rejected_naming_what_upstream_names() {
    let Some(dir) = suite_dir() else { return };
    let list = files(&dir, |n| {
        (n.starts_with("vhlo_to_version_downgrade_invalid")
            || n == "legalize_stablehlo_to_vhlo_invalid.mlir"
            || n == "vhlo_attributes_invalid.mlir")
            && n.ends_with(".mlir")
    });
    assert!(!list.is_empty());
    let (mut total, mut matched, mut valid_ok, mut valid_total) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for path in &list {
        let src = std::fs::read_to_string(path).expect("readable");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let run = match run_line(&src) {
            Some(r) => r,
            // legalize_stablehlo_to_vhlo_invalid.mlir only legalizes.
            None => Run {
                legalize: true,
                target: vhlo_core::vhlo::CURRENT_VERSION,
                split: src.contains("--split-input-file"),
            },
        };
        for (i, chunk) in chunks(&src, run.split).iter().enumerate() {
            let expected = expected_errors(chunk, src.contains("RUN: not stablehlo-opt"));
            if expected.is_empty() {
                valid_total += 1;
                match convert(chunk, &run) {
                    Ok(_) => valid_ok += 1,
                    Err(Ok(p)) => failures.push(format!("{name} chunk {i}: parse: {p}")),
                    Err(Err(ds)) => failures.push(format!(
                        "{name} chunk {i}: rejected a valid program:\n{}",
                        convert::diagnostics_to_text(&ds)
                    )),
                }
                continue;
            }
            total += expected.len();
            match check_invalid(chunk, &run, &expected) {
                Ok(n) => matched += n,
                Err(e) => failures.push(format!("{name} chunk {i} (expects {expected:?}): {e}")),
            }
        }
    }
    eprintln!("expected errors matched: {matched}/{total}; valid chunks converted: {valid_ok}/{valid_total}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn target_argument_errors() {
    use vhlo_core::version::VersionError;
    assert!(matches!(
        convert::parse_target("x.y.z"),
        Err(VersionError::Malformed(_))
    ));
    assert!(matches!(
        convert::parse_target(""),
        Err(VersionError::Malformed(_))
    ));
    assert!(matches!(
        convert::parse_target("0.0.0"),
        Err(VersionError::TooOld { .. })
    ));
    assert!(matches!(
        convert::parse_target("100.10.10"),
        Err(VersionError::TooNew { .. })
    ));
    assert_eq!(convert::parse_target("1.9.3"), Ok(Version::new(1, 9, 0)));
    let current = vhlo_core::vhlo::CURRENT_VERSION;
    let past = format!("{}.{}.{}", current.major, current.minor, current.patch + 1);
    assert!(
        matches!(
            convert::parse_target(&past),
            Err(VersionError::TooNew { .. })
        ),
        "{past}"
    );
    assert_eq!(
        convert::parse_target("current"),
        Ok(vhlo_core::vhlo::CURRENT_VERSION.floor_patch())
    );
    assert_eq!(
        convert::parse_target("minimum"),
        Ok(vhlo_core::vhlo::MINIMUM_VERSION)
    );
    let msg = convert::parse_target("100.10.10").unwrap_err().to_string();
    assert!(
        msg.contains("100.10.10") && msg.contains("newer than the current version"),
        "{msg}"
    );
}

/// Every suite input (each `// -----` chunk of every `.mlir`, valid or not) goes through every
/// conversion without a panic: failures are diagnostics.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn every_suite_input_converts_or_fails_cleanly() {
    let Some(dir) = suite_dir() else { return };
    let (mut chunks_run, mut ok) = (0, 0);
    for path in files(&dir, |n| n.ends_with(".mlir")) {
        let src = std::fs::read_to_string(&path).expect("readable");
        for chunk in chunks(&src, true) {
            let Ok(m) = text::parse(&chunk) else { continue };
            chunks_run += 1;
            for allow_other_dialects in [false, true] {
                let mut v = m.clone();
                if convert::legalize_to_vhlo(
                    &mut v,
                    LegalizeOptions {
                        allow_other_dialects,
                        ..Default::default()
                    },
                )
                .is_err()
                {
                    continue;
                }
                for target in ["0.9.0", "1.0.0", "1.9.0", "current"] {
                    let mut t = v.clone();
                    let target = convert::parse_target(target).expect("valid target");
                    if convert::vhlo_to_version(&mut t, target).is_ok()
                        && convert::legalize_to_stablehlo(&mut t).is_ok()
                    {
                        ok += 1;
                    }
                }
                let _ = convert::minimum_version(&v);
            }
            // VHLO inputs straight back to StableHLO.
            let _ = convert::legalize_to_stablehlo(&mut m.clone());
        }
    }
    eprintln!("suite chunks run through every conversion: {chunks_run} ({ok} target round trips succeeded)");
    assert!(chunks_run > 100);
}
