//! Shared helpers for the workspace tests.

use std::path::PathBuf;

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

/// The upstream compatibility suite: `$VHLO_COMPAT_SUITE`, else `../shared/compat-suite` beside
/// the workspace. Missing, it is `None` (with a message saying the test is skipped and why),
/// except under CI, where a missing suite fails the test.
pub fn compat_suite() -> Option<PathBuf> {
    let dir = std::env::var_os("VHLO_COMPAT_SUITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("../shared/compat-suite"));
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(!in_ci(), "the compatibility suite is missing at {} (set VHLO_COMPAT_SUITE); required under CI", dir.display());
    eprintln!("skipped: no compatibility suite at {} (set VHLO_COMPAT_SUITE)", dir.display());
    None
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
