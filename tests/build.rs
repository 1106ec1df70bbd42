//! Which inputs of the tests are here, decided when they build, so that a test whose input is
//! missing shows as ignored, with the reason, in `cargo test`'s summary instead of passing
//! without having run: `#[cfg_attr(not(has_oracle), ignore = "...")]` (tests/README.md).
//!
//! The paths and variables are the ones `src/lib.rs` looks at when the test runs (that check
//! stays, as the fallback). Under `CI=true` every input counts as here (the oracle also with
//! `VHLO_REQUIRE_ORACLE=1`), so the test runs and a missing input fails it, as `src/lib.rs` says.

use std::path::{Path, PathBuf};

/// One input: the cfg it sets, the variable that overrides its path, its default path (from the
/// workspace root), and whether it is required (a failure, not a skip, when missing).
struct Input {
    cfg: &'static str,
    var: &'static str,
    default: &'static str,
    required: bool,
}

fn env_is(var: &str, values: &[&str]) -> bool {
    std::env::var(var).is_ok_and(|v| values.contains(&v.as_str()))
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    for var in ["CI", "VHLO_REQUIRE_ORACLE", "VHLO_SPEC_FIXTURES"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().map(Path::to_path_buf).unwrap_or(manifest);
    let ci = env_is("CI", &["true", "1"]);
    let inputs = [
        Input {
            cfg: "has_oracle",
            var: "VHLO_ORACLE_PYTHON",
            default: ".venv/bin/python",
            required: ci || env_is("VHLO_REQUIRE_ORACLE", &["1"]),
        },
        Input {
            cfg: "has_compat_suite",
            var: "VHLO_COMPAT_SUITE",
            default: "../shared/compat-suite",
            required: ci,
        },
        Input {
            cfg: "has_stablehlo_tests",
            var: "VHLO_STABLEHLO_TESTS",
            default: "../shared/stablehlo-tests",
            required: ci,
        },
        Input {
            cfg: "has_real_artifacts",
            var: "VHLO_REAL_ARTIFACTS",
            default: "../shared/real-artifacts",
            required: ci,
        },
        // Shardy's compatibility test (dialects::sdy_dialect), kept beside the real artifacts.
        Input {
            cfg: "has_shardy_compat",
            var: "VHLO_SHARDY_COMPAT_TEST",
            default: "../shared/real-artifacts/non_vhlo/shardy.compatibility_test.mlir",
            required: ci,
        },
    ];
    for input in &inputs {
        println!("cargo::rustc-check-cfg=cfg({})", input.cfg);
        println!("cargo::rerun-if-env-changed={}", input.var);
        let path = std::env::var_os(input.var)
            .map(PathBuf::from)
            .unwrap_or_else(|| root.join(input.default));
        watch(&path, &root);
        if input.required || path.exists() {
            println!("cargo::rustc-cfg={}", input.cfg);
        }
    }
    // The release fixtures build in a copy of the repository for minutes (spec::spec_release_fixtures).
    println!("cargo::rustc-check-cfg=cfg(spec_fixtures)");
    if ci || env_is("VHLO_SPEC_FIXTURES", &["1", "true"]) {
        println!("cargo::rustc-cfg=spec_fixtures");
    }
}

/// Reruns this script when `path` appears or goes: cargo watches the path when it exists, else
/// its nearest existing ancestor, unless that holds the workspace (a directory cargo would scan
/// whole, target/ included, and find changed on every build). So the repository's `.venv` is not
/// watched until it exists: scripts/oracle/setup.sh touches this file when it makes one.
fn watch(path: &Path, root: &Path) {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let mut at = Some(path);
    while let Some(p) = at {
        if p.exists() {
            let real = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
            if !root.starts_with(&real) {
                println!("cargo::rerun-if-changed={}", p.display());
            }
            return;
        }
        at = p.parent();
    }
}
