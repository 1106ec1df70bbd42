//! The pretty-printing corpora with full FileCheck semantics (`[[VAR:regex]]`, `{{regex}}`,
//! CHECK-NEXT/-SAME/-NOT/-LABEL): our print of our parse, as `stablehlo-opt` prints (default
//! attributes elided; `-mlir-print-debuginfo -mlir-print-local-scope` where the RUN line asks),
//! satisfies each file's CHECK lines, and so does printing that output again (the second RUN
//! line of each file). print_stablehlo.mlir's `@encodings` function checks the attribute aliases
//! (`#sparse = #sparse_tensor.encoding<...>` at the top, `#sparse` at the uses); ops_sparse.mlir
//! checks sparse operands and results of StableHLO ops. These CHECK lines are the reference for
//! sparse encodings: jaxlib's context does not register the sparse_tensor dialect, so the oracle
//! refuses both files.

use std::path::PathBuf;

use vhlo_core::text::{self, PrintOptions};

fn corpus() -> Option<PathBuf> {
    vhlo_tests::stablehlo_tests()
}

#[test]
#[cfg_attr(
    not(has_stablehlo_tests),
    ignore = "needs ../shared/stablehlo-tests (or VHLO_STABLEHLO_TESTS)"
)]
fn pretty_corpora_satisfy_their_check_lines() {
    let Some(dir) = corpus() else { return };
    let mut failures = Vec::new();
    // ops_stablehlo_roundtrip.mlir has no CHECK lines (its RUN lines diff two prints; the
    // round trip is in text_roundtrip.rs).
    for name in [
        "print_stablehlo.mlir",
        "print_reduce.mlir",
        "print_while.mlir",
        "ops_sparse.mlir",
    ] {
        let src = std::fs::read_to_string(dir.join(name)).expect("corpus file");
        if !src.lines().any(|l| l.trim_start().starts_with("// CHECK")) {
            failures.push(format!("{name}: no CHECK lines left to check"));
            continue;
        }
        let debug_info = src.contains("-mlir-print-debuginfo");
        let local_scope = src.contains("-mlir-print-local-scope");
        let opts = PrintOptions {
            debug_info,
            local_scope,
            elide_defaults: true,
            ..Default::default()
        };
        let m = match vhlo_tests::parse_any_dialect(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let once = text::print(&m, opts);
        if let Err(e) = filecheck::check(&src, &once) {
            failures.push(format!("{name}: {e}"));
            continue;
        }
        let twice = vhlo_tests::parse_any_dialect(&once).map(|m2| text::print(&m2, opts));
        match twice {
            Ok(t) => {
                if let Err(e) = filecheck::check(&src, &t) {
                    failures.push(format!("{name} (printed twice): {e}"));
                }
            }
            Err(e) => failures.push(format!("{name}: our print does not re-parse: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
