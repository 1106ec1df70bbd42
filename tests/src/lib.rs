//! Shared helpers for the workspace tests.

use std::path::PathBuf;

pub mod checked;

/// Runs `jobs` through `scripts/oracle/batch_json.py` with the oracle's `python`, in one
/// process (one job per value would start jaxlib thousands of times); one result per job.
pub fn oracle_batch(
    python: &std::path::Path,
    jobs: &[serde_json::Value],
) -> Vec<serde_json::Value> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let script = workspace_root().join("scripts/oracle/batch_json.py");
    let mut child = Command::new(python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("oracle batch starts");
    let input = serde_json::to_vec(jobs).expect("jobs are JSON");
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(&input)
        .expect("oracle batch reads its jobs");
    let out = child.wait_with_output().expect("oracle batch runs");
    assert!(
        out.status.success(),
        "oracle batch failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<serde_json::Value> =
        serde_json::from_slice(&out.stdout).expect("oracle batch JSON");
    assert_eq!(results.len(), jobs.len());
    results
}

/// [`vhlo_core::text::parse`] as MLIR's tools parse with `-allow-unregistered-dialect`: ops,
/// types and attributes of dialects jaxlib does not register (a test's made-up `t.op`,
/// upstream's `sparse_tensor` encodings, which `stablehlo-opt` registers) are kept.
pub fn parse_any_dialect(src: &str) -> Result<vhlo_core::ir::Module, vhlo_core::text::ParseError> {
    vhlo_core::text::parse_with(src, &any_dialect(false))
}

/// [`parse_any_dialect`] without the verifier.
pub fn parse_any_dialect_unverified(
    src: &str,
) -> Result<vhlo_core::ir::Module, vhlo_core::text::ParseError> {
    vhlo_core::text::parse_with(src, &any_dialect(true))
}

fn any_dialect(skip_verification: bool) -> vhlo_core::text::ParseOptions<'static> {
    vhlo_core::text::ParseOptions {
        skip_verification,
        allow_unregistered_dialects: true,
        ..Default::default()
    }
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
pub use checked::{assert_reads_back, bytecode, portable, read_back, read_back_cli};

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}

/// True under CI (`CI=true`), where a missing input is a failure rather than a skip.
pub fn in_ci() -> bool {
    std::env::var("CI")
        .map(|v| v == "true" || v == "1")
        .unwrap_or(false)
}

/// An input of the tests beside the workspace: `$var`, else `default` (from the workspace root).
/// Missing, it is `None` (with a message saying the test is skipped and why), except under CI,
/// where a missing input fails the test.
fn shared_input(var: &str, default: &str, what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(default));
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        !in_ci(),
        "{what} missing at {} (set {var}); required under CI",
        dir.display()
    );
    eprintln!("skipped: {what} missing at {} (set {var})", dir.display());
    None
}

/// The upstream compatibility suite: `$VHLO_COMPAT_SUITE`, else `../shared/compat-suite`.
pub fn compat_suite() -> Option<PathBuf> {
    shared_input(
        "VHLO_COMPAT_SUITE",
        "../shared/compat-suite",
        "the compatibility suite is",
    )
}

/// The real artifacts (`index.json` and the files it lists): `$VHLO_REAL_ARTIFACTS`, else
/// `../shared/real-artifacts`.
pub fn real_artifacts() -> Option<PathBuf> {
    shared_input(
        "VHLO_REAL_ARTIFACTS",
        "../shared/real-artifacts",
        "the real artifacts are",
    )
}

/// Every `*.mlir.bc` artifact in the suite directory `dir`, sorted by name.
pub fn suite_artifacts(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read suite dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".mlir.bc"))
        .collect();
    out.sort();
    out
}

/// [`suite_artifacts`] without the suite's `invalid_*` artifacts, which are refused on reading
/// (`portable::portable_suite`).
pub fn valid_suite_artifacts(dir: &std::path::Path) -> Vec<PathBuf> {
    suite_artifacts(dir)
        .into_iter()
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("invalid"))
        })
        .collect()
}

/// Programs that break a StableHLO constraint we verify (the spec's `traits` in
/// `spec/ops/*.yaml`, and composite_c1), with the op the diagnostic must name. Serializing each must fail, here and
/// in libStablehlo (`tests/tests/oracle/oracle_live.rs`).
pub const TYPE_CONSTRAINT_VIOLATIONS: &[(&str, &str, &str)] = &[
    (
        "add_result_rank",
        "stablehlo.add",
        "func.func @main(%a: tensor<2x2xf32>) -> tensor<3xf32> {\n  %0 = stablehlo.add %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<3xf32> loc(\"bad.py\":7:3)\n  return %0 : tensor<3xf32>\n}\n",
    ),
    (
        "add_operand_dims",
        "stablehlo.add",
        "func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %b : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32> loc(\"bad.py\":7:3)\n  return %0 : tensor<2xf32>\n}\n",
    ),
    (
        "multiply_element_type",
        "stablehlo.multiply",
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xi32> {\n  %0 = stablehlo.multiply %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi32> loc(\"bad.py\":7:3)\n  return %0 : tensor<2xi32>\n}\n",
    ),
    (
        "negate_result_shape",
        "stablehlo.negate",
        "func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {\n  %0 = stablehlo.negate %a : (tensor<2xf32>) -> tensor<3xf32> loc(\"bad.py\":7:3)\n  return %0 : tensor<3xf32>\n}\n",
    ),
    // The deprecated cross-replica-sum keeps HLO_CompatibleOperandsAndResultType upstream.
    (
        "cross_replica_sum_element_type",
        "stablehlo.cross-replica-sum",
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xi1> {\n  %0 = \"stablehlo.cross-replica-sum\"(%a) <{replica_groups = dense<0> : tensor<1x1xi64>}> : (tensor<4xf32>) -> tensor<4xi1> loc(\"bad.py\":7:3)\n  return %0 : tensor<4xi1>\n}\n",
    ),
    // Required attributes (ODS: neither optional nor default-valued): MLIR names the first
    // missing one by name, before any type.
    (
        "missing_attribute_reduce_precision",
        "stablehlo.reduce_precision",
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = \"stablehlo.reduce_precision\"(%a) : (tensor<4xf32>) -> tensor<4xf32> loc(\"bad.py\":7:3)\n  return %0 : tensor<4xf32>\n}\n",
    ),
    (
        "missing_attribute_pad",
        "stablehlo.pad",
        "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = \"stablehlo.pad\"(%a, %a) <{edge_padding_low = array<i64: 0>, interior_padding = array<i64: 0>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc(\"bad.py\":7:3)\n  return %0 : tensor<4xf32>\n}\n",
    ),
    (
        "missing_attribute_gather",
        "stablehlo.gather",
        "func.func @main(%a: tensor<4x4xf32>, %i: tensor<2xi64>) -> tensor<2x4xf32> {\n  %0 = \"stablehlo.gather\"(%a, %i) <{slice_sizes = array<i64: 1, 4>}> : (tensor<4x4xf32>, tensor<2xi64>) -> tensor<2x4xf32> loc(\"bad.py\":7:3)\n  return %0 : tensor<2x4xf32>\n}\n",
    ),
    // Shardy's discardable attribute of another kind, in a program with nothing else of Shardy.
    (
        "sdy_sharding_rule_of_another_kind",
        "stablehlo.custom_call",
        "func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {\n  %0 = stablehlo.custom_call @foo(%a) {sdy.sharding_rule = 1 : i64} : (tensor<8xf32>) -> tensor<8xf32> loc(\"bad.py\":7:3)\n  return %0 : tensor<8xf32>\n}\n",
    ),
    // composite_c1: the name must be a namespaced op name (upstream's verifyCompositeOp).
    (
        "composite_name",
        "stablehlo.composite",
        "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\nfunc.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.composite \"my_op\" %a {decomposition = @f} : (tensor<f32>) -> tensor<f32> loc(\"bad.py\":7:3)\n  return %0 : tensor<f32>\n}\n",
    ),
];

/// The control: compatible though not equal (a dynamic dimension), accepted here and by
/// libStablehlo.
pub const TYPE_CONSTRAINT_CONTROL: &str = "func.func @main(%a: tensor<?xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %b : (tensor<?xf32>, tensor<2xf32>) -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";

/// Upstream's other test inputs: `$VHLO_STABLEHLO_TESTS`, else `../shared/stablehlo-tests`.
pub fn stablehlo_tests() -> Option<PathBuf> {
    shared_input(
        "VHLO_STABLEHLO_TESTS",
        "../shared/stablehlo-tests",
        "upstream's tests are",
    )
}

pub mod verify_diagnostics {
    //! Runs a `-verify-diagnostics -split-input-file` file through our parser and verifier.

    use filecheck::diagnostics::{judge, split_cases, Case, Reported, Verdict};

    /// One case's outcome.
    pub struct CaseResult {
        pub case: Case,
        pub reported: Vec<Reported>,
        pub verdict: Verdict,
        /// Why the case is left out, if it is.
        pub left_out: Option<&'static str>,
    }

    /// Why a case is not run here, if it is not.
    pub fn left_out(case: &Case) -> Option<&'static str> {
        if case.text.contains("hlo_test_infer.") || case.text.contains("\"hlo_test_infer") {
            return Some("uses the test-only hlo_test_infer ops");
        }
        None
    }

    /// Parses (and so verifies) `case` as `stablehlo-opt` would (it registers dialects that
    /// jaxlib does not, such as `sparse_tensor`), and reports the errors with their file lines.
    pub fn run_case(case: &Case) -> Vec<Reported> {
        match super::parse_any_dialect(&case.text) {
            Ok(_) => Vec::new(),
            Err(e) => vec![Reported {
                line: (e.line > 0).then(|| case.file_line(e.line)),
                message: e.message,
            }],
        }
    }

    /// Every case of `src`.
    pub fn run_file(src: &str) -> Result<Vec<CaseResult>, String> {
        let cases = split_cases(src)?;
        Ok(cases
            .into_iter()
            .map(|case| {
                let left_out = left_out(&case);
                let reported = if left_out.is_some() {
                    Vec::new()
                } else {
                    run_case(&case)
                };
                let verdict = judge(&case, &reported);
                CaseResult {
                    case,
                    reported,
                    verdict,
                    left_out,
                }
            })
            .collect())
    }

    /// The counts of one file: cases, refused as expected, accepted as expected, left out, and
    /// the cases that disagree.
    #[derive(Default, Debug)]
    pub struct Tally {
        pub cases: usize,
        pub refused_as_expected: usize,
        pub accepted_as_expected: usize,
        pub left_out: usize,
        pub wrongly_accepted: usize,
        pub wrongly_refused: usize,
        pub refused_elsewhere: usize,
    }

    pub fn tally(results: &[CaseResult]) -> Tally {
        let mut t = Tally {
            cases: results.len(),
            ..Tally::default()
        };
        for r in results {
            if r.left_out.is_some() {
                t.left_out += 1;
                continue;
            }
            match r.verdict {
                Verdict::AcceptedAsExpected => t.accepted_as_expected += 1,
                Verdict::RefusedAsExpected => t.refused_as_expected += 1,
                Verdict::RefusedElsewhere { .. } => t.refused_elsewhere += 1,
                Verdict::WronglyAccepted => t.wrongly_accepted += 1,
                Verdict::WronglyRefused { .. } => t.wrongly_refused += 1,
            }
        }
        t
    }
}

/// The oracle's Python (`$VHLO_ORACLE_PYTHON`, else the repository's `.venv`): `None` with a
/// message when missing, a failure under CI or `VHLO_REQUIRE_ORACLE=1`.
pub fn oracle_python() -> Option<PathBuf> {
    let python = match std::env::var_os("VHLO_ORACLE_PYTHON") {
        Some(path) => PathBuf::from(path),
        None => workspace_root().join(".venv/bin/python"),
    };
    if python.exists() {
        return Some(python);
    }
    let why = format!(
        "oracle python not found at {} (run scripts/oracle/setup.sh)",
        python.display()
    );
    let required = in_ci() || std::env::var("VHLO_REQUIRE_ORACLE").is_ok_and(|v| v == "1");
    assert!(!required, "{why}; required under CI");
    eprintln!("skipping: {why}");
    None
}
