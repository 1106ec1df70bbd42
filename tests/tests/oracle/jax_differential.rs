//! Differential tests against libStablehlo (jaxlib 0.10.2, StableHLO 1.17.0) on our own JAX
//! programs (tests/fixtures/jax, written by gen.py through scripts/oracle):
//! - what jaxlib writes at each target, we read back to the program jaxlib started from;
//! - what we write from the same text is byte for byte what jaxlib wrote, with debug info stripped
//!   and with locations kept (JAX's own `loc(...)`s, and source positions for unlocated ops, as
//!   MLIR's parser assigns them).
//!
//! Known, explained differences are listed in `EXPECTED_DIFFERENCES`; the test fails if the list
//! is wrong in either direction.

use std::path::{Path, PathBuf};

use vhlo_core::text::{self, PrintOptions};
use vhlo_tests::portable::{self, SerializeOptions};

/// (program, reason): byte differences that are not bugs.
const EXPECTED_DIFFERENCES: &[(&str, &str)] = &[
    // StableHLO 1.20.0 legalizes custom_call to custom_call_v2 and rewrites it to v1 for targets
    // before 1.18.0, which leaves a use-list record in the bytecode; jaxlib's 1.17.0 has no v2
    // and legalizes straight to v1 (shared/notes/mlir-bytecode.md, section 6). We follow 1.20.0,
    // as the upstream suite does.
    (
        "shape_poly",
        "custom_call_v2 -> v1 rewrite at HEAD, not in jaxlib 1.17.0",
    ),
    // Its `ApproxTopK` custom_call shares an operand with the other two calls; without it, the
    // program is byte-identical at every target (checked when the fixture was added).
    (
        "top_k",
        "custom_call_v2 -> v1 rewrite at HEAD, not in jaxlib 1.17.0",
    ),
];

fn fixtures() -> PathBuf {
    vhlo_tests::workspace_root().join("tests/fixtures/jax")
}

/// (program, target, artifact path, stripped) for every jaxlib-written artifact.
fn artifacts(dir: &Path) -> Vec<(String, String, PathBuf, bool)> {
    let index = std::fs::read_to_string(dir.join("index.tsv")).expect("index.tsv");
    let mut out = Vec::new();
    for line in index.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        if let [program, kind, target, file, ..] = cols[..] {
            let stripped = match kind {
                "locations" => false,
                "stripped" => true,
                _ => continue,
            };
            out.push((
                program.to_string(),
                target.to_string(),
                dir.join(file),
                stripped,
            ));
        }
    }
    out
}

fn expected(program: &str, target: &str) -> bool {
    // The rewrite happens for every target before custom_call_v2's 1.18.0, and shows in bytecode
    // versions that record use-list orders (3 and later, targets from 0.12.0).
    let Ok(v) = vhlo_core::version::Version::parse(target) else {
        return false;
    };
    let records_use_lists =
        vhlo_core::bytecode::bytecode_version_for_target(v).is_some_and(|b| b >= 3);
    records_use_lists
        && v < vhlo_core::version::Version::new(1, 18, 0)
        && EXPECTED_DIFFERENCES.iter().any(|(p, _)| *p == program)
}

#[test]
fn we_write_what_jaxlib_writes() {
    let dir = fixtures();
    let all = artifacts(&dir);
    assert!(
        all.len() >= 150,
        "fixture index lists {} artifacts",
        all.len()
    );
    let mut identical = 0;
    let mut unexpected = Vec::new();
    for (program, target, bc, stripped) in &all {
        let file = format!("{program}.mlir");
        let src = std::fs::read_to_string(dir.join(&file)).expect("program text");
        let module = text::parse_with_source_locations(&src, &file).expect("fixture parses");
        let opts = SerializeOptions {
            strip_debuginfo: *stripped,
            allow_other_dialects: false,
            ..Default::default()
        };
        let ours = match portable::serialize_portable_artifact(&module, target, opts) {
            Ok(b) => b,
            Err(e) => {
                // jaxlib refused too (the manifest records the minimum target) unless the file exists.
                unexpected.push(format!(
                    "{program}@{target}: we refused what jaxlib wrote: {e}"
                ));
                continue;
            }
        };
        let same = ours == std::fs::read(bc).expect("artifact");
        match (same, expected(program, target)) {
            (true, false) => identical += 1,
            (false, true) => {}
            (false, false) => unexpected.push(format!(
                "{program}@{target} ({}): bytes differ",
                if *stripped { "stripped" } else { "locations" }
            )),
            (true, true) => unexpected.push(format!(
                "{program}@{target}: identical now; drop it from EXPECTED_DIFFERENCES"
            )),
        }
    }
    eprintln!(
        "{identical}/{} jaxlib artifacts reproduced byte for byte",
        all.len()
    );
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}

#[test]
fn we_read_what_jaxlib_writes() {
    let dir = fixtures();
    let mut failures = Vec::new();
    let all = artifacts(&dir);
    for (program, target, bc, stripped) in &all {
        let got =
            match portable::deserialize_portable_artifact(&std::fs::read(bc).expect("artifact")) {
                Ok(m) => m,
                Err(e) => {
                    failures.push(format!("{program}@{target}: {e}"));
                    continue;
                }
            };
        let file = format!("{program}.mlir");
        let src = std::fs::read_to_string(dir.join(&file)).expect("program text");
        let mut want = text::parse_with_source_locations(&src, &file).expect("fixture parses");
        if *stripped {
            portable::strip_debuginfo(&mut want);
        }
        let print = |m: &vhlo_core::ir::Module| {
            text::print(
                m,
                PrintOptions {
                    debug_info: true,
                    elide_defaults: true,
                    ..Default::default()
                },
            )
        };
        if print(&got) != print(&want) {
            failures.push(format!(
                "{program}@{target}: deserializes to a different program"
            ));
        }
    }
    eprintln!(
        "{}/{} jaxlib artifacts read back to their source program",
        all.len() - failures.len(),
        all.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
