//! Reader and printer against upstream's expected output: for every suite artifact, reading the
//! `.mlir.bc` and printing it in generic form satisfies the source's `// CHECK` lines, which is
//! what upstream's first RUN line (`stablehlo-opt --mlir-print-op-generic %s.bc | FileCheck %s`)
//! promises.

use std::path::PathBuf;

fn suite_dir() -> Option<PathBuf> {
    vhlo_tests::compat_suite()
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn suite_artifacts_print_as_their_check_lines_say() {
    let Some(dir) = suite_dir() else {
        assert!(
            !vhlo_tests::in_ci(),
            "the compatibility suite is missing under CI"
        );
        eprintln!("skipped: no compatibility suite (set VHLO_COMPAT_SUITE or put it at ../shared/compat-suite)");
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("read suite dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("stablehlo_legalize_to_vhlo.") && n.ends_with(".mlir.bc")
            })
        })
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for bc in &files {
        let src = bc.with_extension("");
        let check_text = std::fs::read_to_string(&src).expect("source");
        let bytes = std::fs::read(bc).expect("artifact");
        let (module, _) = match vhlo_core::bytecode::read(&bytes) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{}: {e}", bc.display()));
                continue;
            }
        };
        let printed = vhlo_core::text::print_generic(&module);
        if let Err(e) = filecheck::check(&check_text, &printed) {
            failures.push(format!("{}: {e}", bc.display()));
        }
    }
    eprintln!(
        "{}/{} suite artifacts satisfy their CHECK lines",
        files.len() - failures.len(),
        files.len()
    );
    assert_eq!(files.len(), 32);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
