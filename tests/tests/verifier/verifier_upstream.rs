//! Upstream's verifier tests (`../shared/stablehlo-tests`, run upstream with `stablehlo-opt
//! -verify-diagnostics -split-input-file`): every case with an `expected-error` is refused with
//! our error at an expected line, and every case without one is accepted. Cases we leave out
//! are listed in `tests/fixtures/verifier_left_out.txt`, each with its reason; an entry that
//! now agrees fails the test, so the list only shrinks.
//!
//! `cargo test -p vhlo-tests --test verifier verifier_upstream -- --nocapture` prints the table per file.

use std::collections::BTreeMap;

use filecheck::diagnostics::Verdict;
use vhlo_tests::verify_diagnostics::{run_file, tally};
use vhlo_tests::{stablehlo_tests, workspace_root};

/// The files of upstream's verifier tests, in the order the table lists them.
const FILES: &[&str] = &[
    "ops_stablehlo.mlir",
    "verify_async_ops.mlir",
    "verify_bounds.mlir",
    "verify_convolution.mlir",
    "verify_dynamic_conv.mlir",
    "verify_reduce.mlir",
    "verify_reduce_window.mlir",
    "verify_replica_groups_mesh_axes.mlir",
    "verify_scatter.mlir",
    "verify_select_and_scatter.mlir",
    "verify_while.mlir",
    "print_types_invalid.mlir",
    "ops_stablehlo_quantized.mlir",
    "ops_stablehlo_bounded_dynamism.mlir",
    "ops_dot_general_algorithms.mlir",
    "infer_stablehlo.mlir",
    // CHLO.
    "ops_chlo.mlir",
    "ops_chlo_roundtrip.mlir",
    "infer_chlo.mlir",
];

/// `file:line reason` entries: the cases (by the file line they start at) left out.
fn left_out_list() -> BTreeMap<(String, u32), String> {
    let path = workspace_root().join("tests/fixtures/verifier_left_out.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, reason) = line.split_once(' ').unwrap_or((line, ""));
        let (file, at) = key.rsplit_once(':').expect("file:line");
        let at: u32 = at.parse().expect("a line number");
        assert!(
            !reason.trim().is_empty(),
            "{key}: a left-out case needs a reason"
        );
        out.insert((file.to_string(), at), reason.trim().to_string());
    }
    out
}

#[test]
#[cfg_attr(
    not(has_stablehlo_tests),
    ignore = "needs ../shared/stablehlo-tests (or VHLO_STABLEHLO_TESTS)"
)]
fn upstream_verifier_tests_agree() {
    let Some(dir) = stablehlo_tests() else {
        return;
    };
    let mut listed = left_out_list();
    let mut problems = Vec::new();
    println!(
        "{:<40} {:>6} {:>8} {:>8} {:>8}",
        "file", "cases", "refused", "accepted", "left out"
    );
    for file in FILES {
        let src = std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let results = run_file(&src).unwrap_or_else(|e| panic!("{file}: {e}"));
        let mut t = tally(&results);
        for r in &results {
            let key = (file.to_string(), r.case.first_line);
            let agrees = matches!(
                r.verdict,
                Verdict::AcceptedAsExpected | Verdict::RefusedAsExpected
            ) || r.left_out.is_some();
            match (agrees, listed.remove(&key)) {
                (true, None) => {}
                (true, Some(reason)) => problems.push(format!(
                    "{file}:{}: listed as left out ({reason}) but now agrees: remove it from the list",
                    r.case.first_line
                )),
                (false, Some(_)) => {
                    t.left_out += 1;
                    match r.verdict {
                        Verdict::WronglyAccepted => t.wrongly_accepted -= 1,
                        Verdict::WronglyRefused { .. } => t.wrongly_refused -= 1,
                        Verdict::RefusedElsewhere { .. } => t.refused_elsewhere -= 1,
                        _ => {}
                    }
                }
                (false, None) => {
                    let expected: Vec<String> = r
                        .case
                        .errors()
                        .map(|e| format!("line {}: {}", e.line, e.message))
                        .collect();
                    let ours: Vec<String> = r
                        .reported
                        .iter()
                        .map(|x| format!("line {}: {}", x.line.unwrap_or(0), x.message))
                        .collect();
                    problems.push(format!(
                        "{file}:{}: {:?}\n    expected: {}\n    ours: {}",
                        r.case.first_line,
                        r.verdict,
                        if expected.is_empty() { "accepted".into() } else { expected.join(" | ") },
                        if ours.is_empty() { "accepted".into() } else { ours.join(" | ") }
                    ));
                }
            }
        }
        println!(
            "{:<40} {:>6} {:>8} {:>8} {:>8}",
            file, t.cases, t.refused_as_expected, t.accepted_as_expected, t.left_out
        );
    }
    for ((file, line), reason) in listed {
        problems.push(format!(
            "{file}:{line}: listed ({reason}) but no case starts there"
        ));
    }
    assert!(
        problems.is_empty(),
        "{} cases disagree with upstream's expectations:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
