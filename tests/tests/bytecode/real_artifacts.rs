//! The real artifacts of `../shared/real-artifacts` (448 files from public repositories,
//! 2023-2026, or `$VHLO_REAL_ARTIFACTS`): each is read, with the verifier on, exactly when
//! libStablehlo reads it (its verdict is recorded per file in `index.json`, `oracle_reads`).

#[test]
#[cfg_attr(
    not(has_real_artifacts),
    ignore = "needs ../shared/real-artifacts (or $VHLO_REAL_ARTIFACTS)"
)]
fn each_real_artifact_reads_exactly_when_jaxlib_reads_it() {
    let Some(dir) = vhlo_tests::real_artifacts() else {
        return;
    };
    let index: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
    let entries = index.as_array().expect("index.json is a list");
    let (mut read, mut refused, mut disagree) = (0, 0, Vec::new());
    for e in entries {
        let name = e["name"].as_str().expect("a name");
        let jaxlib_reads = e["oracle_reads"].as_str() == Some("ok");
        let bytes = std::fs::read(dir.join(format!("{name}.mlir.bc"))).unwrap();
        let ours = vhlo_core::portable::deserialize_portable_artifact(&bytes);
        match (&ours, jaxlib_reads) {
            (Ok(_), true) => read += 1,
            (Err(_), false) => refused += 1,
            (Ok(_), false) => disagree.push(format!("{name}: we read it, jaxlib refuses it")),
            (Err(e), true) => disagree.push(format!("{name}: jaxlib reads it, we refuse: {e}")),
        }
    }
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
    assert_eq!(read + refused, entries.len());
    assert!(read > 0 && refused > 0, "read {read}, refused {refused}");
    eprintln!("real artifacts: {read} read and {refused} refused, as jaxlib does");
}
