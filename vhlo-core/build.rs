//! In the repository, a plain `cargo build` after a spec edit regenerates the checked-in
//! expansion (`src/generated/`) or fails with every spec error, as codegen reports them.
//!
//! The expansion records the digest of the spec it came from (`spec_digest.rs`). When `../spec`
//! exists (the repository; the packaged crate has no spec and this does nothing) and its digest
//! differs, this runs `cargo run -p codegen -- expand` in a target dir of its own
//! (`<target>/spec-codegen`, so it does not wait on the build that runs it). The check costs a
//! read of the spec, and runs only when a file under `../spec` changed.

#[path = "spec_digest.rs"]
mod spec_digest;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const EXPANSION: &str = "src/generated/vhlo_dialect.rs";

fn main() -> ExitCode {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=spec_digest.rs");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.join("..");
    let spec = root.join("spec");
    if !spec.join("releases.yaml").is_file() {
        return ExitCode::SUCCESS;
    }
    println!("cargo::rerun-if-changed=../spec");
    let digest = match spec_digest::spec_digest(&spec) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cannot read the spec at {}: {e}", spec.display());
            return ExitCode::FAILURE;
        }
    };
    let expansion = std::fs::read_to_string(manifest.join(EXPANSION)).unwrap_or_default();
    if expansion.contains(&format!("// spec digest: {digest}\n")) {
        return ExitCode::SUCCESS;
    }
    regenerate(&root)
}

/// `cargo run -p codegen -- expand` in the workspace at `root`: rewrites the expansion, or prints
/// every spec error and fails.
fn regenerate(root: &Path) -> ExitCode {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("spec-codegen");
    println!("cargo::warning=the spec changed since src/generated/ was expanded: regenerating it (`cargo run -p codegen -- expand`)");
    let status = Command::new(cargo)
        .args(["run", "-q", "-p", "codegen", "--", "expand"])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target)
        // What cargo tells this script about the build that runs it (the flags of a wasm build,
        // clippy as the compiler) is not for the host tool.
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .status();
    match status {
        Ok(s) if s.success() => ExitCode::SUCCESS,
        Ok(_) => {
            eprintln!("the spec has errors (above); the expansion in src/generated/ is unchanged");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("cannot run codegen: {e}");
            ExitCode::FAILURE
        }
    }
}
