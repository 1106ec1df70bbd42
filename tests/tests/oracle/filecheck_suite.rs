//! The compatibility suite's own RUN line, `stablehlo-opt --mlir-print-op-generic %s.bc | FileCheck %s`, with
//! libStablehlo (jaxlib, through scripts/oracle/oracle.py print-vhlo) in place of stablehlo-opt and this
//! crate in place of FileCheck: every suite file the oracle can read must pass, and a mutated print must fail.
//!
//! Needs the oracle venv (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON) and the suite; shown as
//! ignored without them (tests/build.rs), a failure under CI.

use std::path::{Path, PathBuf};
use std::process::Command;

use filecheck::{check, FailureKind};

fn run_oracle(python: &Path, args: &[&str]) -> String {
    let script = vhlo_tests::workspace_root().join("scripts/oracle/oracle.py");
    let output = Command::new(python)
        .arg(&script)
        .args(args)
        .output()
        .expect("oracle runs");
    assert!(
        output.status.success(),
        "oracle {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("oracle prints UTF-8")
}

/// (major, minor) of a suite file name like `stablehlo_legalize_to_vhlo.1_16_0.mlir`.
fn file_version(name: &str) -> Option<(u32, u32)> {
    let version = name
        .strip_prefix("stablehlo_legalize_to_vhlo.")?
        .strip_suffix(".mlir")?;
    let mut parts = version.split('_').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??))
}

#[test]
#[cfg_attr(
    not(all(has_oracle, has_compat_suite)),
    ignore = "needs the oracle (scripts/oracle/setup.sh) and ../shared/compat-suite"
)]
fn suite_check_lines_pass_on_libstablehlo_output() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let Some(suite) = vhlo_tests::compat_suite() else {
        return;
    };
    let current = run_oracle(&python, &["version"]);
    let mut current_parts = current
        .trim()
        .split('.')
        .map(|p| p.parse::<u32>().expect("version number"));
    let current = (current_parts.next().unwrap(), current_parts.next().unwrap());

    let mut sources: Vec<(String, PathBuf)> = std::fs::read_dir(&suite)
        .unwrap()
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_name()?.to_str()?.to_string();
            let version = file_version(&name)?;
            (version <= current && path.with_extension("mlir.bc").exists()).then_some((name, path))
        })
        .collect();
    sources.sort();
    assert!(
        sources.len() >= 20,
        "only {} suite files found in {}",
        sources.len(),
        suite.display()
    );

    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("oracle_suite");
    std::fs::create_dir_all(&out_dir).unwrap();
    let artifacts: Vec<String> = sources
        .iter()
        .map(|(_, path)| format!("{}.bc", path.display()))
        .collect();
    let mut args = vec!["print-vhlo", "--output-dir", out_dir.to_str().unwrap()];
    args.extend(artifacts.iter().map(String::as_str));
    run_oracle(&python, &args);

    let mut failures = Vec::new();
    for (name, path) in &sources {
        let check_file = std::fs::read_to_string(path).unwrap();
        let printed =
            std::fs::read_to_string(out_dir.join(format!("{name}.bc.vhlo.mlir"))).unwrap();
        if let Err(failure) = check(&check_file, &printed) {
            failures.push(format!("{name}:\n{failure}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files failed:\n{}",
        failures.len(),
        sources.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} suite files passed their CHECK lines on libStablehlo output",
        sources.len()
    );

    // The same output with one attribute changed must fail at the directive that checks it.
    let (name, path) = sources.last().unwrap();
    let check_file = std::fs::read_to_string(path).unwrap();
    let printed = std::fs::read_to_string(out_dir.join(format!("{name}.bc.vhlo.mlir"))).unwrap();
    let mutated = printed.replacen(
        "comparison_direction_v1 GE>",
        "comparison_direction_v1 GT>",
        1,
    );
    assert_ne!(mutated, printed, "{name}: nothing to mutate");
    let failure = check(&check_file, &mutated).expect_err("mutated output must fail");
    assert_eq!(failure.kind, FailureKind::NotFound, "{failure}");
    assert!(
        failure.check_text.contains("comparison_direction_v1 GE>"),
        "{failure}"
    );
}

/// `stablehlo-opt %s [-mlir-print-debuginfo -mlir-print-local-scope] | FileCheck %s` on the pretty-syntax
/// corpora, with the oracle's parse-and-print in place of stablehlo-opt. (print_stablehlo.mlir is left
/// out: jaxlib does not register the sparse_tensor dialect its encodings need.)
#[test]
#[cfg_attr(
    not(all(has_oracle, has_stablehlo_tests)),
    ignore = "needs the oracle (scripts/oracle/setup.sh) and ../shared/stablehlo-tests"
)]
fn pretty_corpora_check_lines_pass_on_libstablehlo_output() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let Some(corpora) = vhlo_tests::stablehlo_tests() else {
        return;
    };
    // (file, oracle print flags, a text whose first line in the output a CHECK-NEXT needs)
    let cases: [(&str, &[&str], &str); 2] = [
        ("print_while.mlir", &[], "cond {"),
        (
            "print_reduce.mlir",
            &["--debug-info", "--local-scope"],
            "loc(\"not_foo\")",
        ),
    ];
    for (name, flags, needed) in cases {
        let path = corpora.join(name);
        assert!(path.exists(), "{} not found", path.display());
        let path_text = path.to_str().unwrap();
        let mut args = vec!["roundtrip-text", path_text];
        args.extend(flags);
        let printed = run_oracle(&python, &args);
        let check_file = std::fs::read_to_string(&path).unwrap();
        if let Err(failure) = check(&check_file, &printed) {
            panic!("{name}:\n{failure}");
        }
        // Dropping a line that a CHECK-NEXT matches must make the check fail.
        let lines: Vec<&str> = printed.lines().collect();
        let victim = lines
            .iter()
            .position(|l| l.contains(needed))
            .expect("the needed line");
        let mutated: Vec<&str> = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != victim)
            .map(|(_, l)| *l)
            .collect();
        assert!(
            check(&check_file, &(mutated.join("\n") + "\n")).is_err(),
            "{name}: mutation not caught"
        );
    }
}
