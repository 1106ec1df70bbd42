//! Artifacts from a newer producer: libStablehlo never refuses an artifact for its
//! producer version; it reads the ops, attributes and types it has and refuses the rest. Each
//! jaxlib-written fixture artifact of the newest target, with its producer edited to name a
//! newer StableHLO, must read as the unedited one does, in jaxlib and in ours; with an op renamed
//! to one no version has, both refuse it, and ours names the op and says the producer is newer.
//! One oracle batch (scripts/oracle/batch_json.py); the oracle is required under CI.

use serde_json::json;
use vhlo_core::text;

use vhlo_tests::{hex, oracle_batch};

/// `bytes` with the first `from` replaced by `to`.
fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Option<Vec<u8>> {
    let at = bytes.windows(from.len()).position(|w| w == from)?;
    Some([&bytes[..at], to, &bytes[at + from.len()..]].concat())
}

/// Ours: the artifact read and printed, or the error.
fn ours(bytes: &[u8]) -> Result<String, String> {
    vhlo_core::portable::deserialize_portable_artifact(bytes)
        .map(|m| text::print(&m, Default::default()))
        .map_err(|e| e.to_string())
}

#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn newer_producers_read_as_libstablehlo_reads_them() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let dir = vhlo_tests::workspace_root().join("tests/fixtures/jax");
    // The newest target the fixtures were written for (jaxlib's current version).
    let mut artifacts: Vec<(String, Vec<u8>)> = Vec::new();
    let newest = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            let v = name
                .strip_suffix(".mlir.bc")?
                .rsplit('.')
                .next()?
                .replace('_', ".");
            vhlo_core::version::Version::parse(&v).ok()
        })
        .max()
        .expect("versioned fixtures");
    let suffix = format!(".{}.mlir.bc", newest.to_string().replace('.', "_"));
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(&suffix) && !name.contains(".stripped.") {
            artifacts.push((name, std::fs::read(&path).unwrap()));
        }
    }
    artifacts.sort();
    assert!(
        artifacts.len() >= 10,
        "{} artifacts for {newest}",
        artifacts.len()
    );
    let producer = format!("StableHLO_v{newest}\0");
    let mut jobs = Vec::new();
    let mut cases = Vec::new();
    for (name, bytes) in &artifacts {
        let edits = [
            ("original", None),
            ("StableHLO_v1.99.0", Some(("StableHLO_v1.99.0\0", None))),
            ("StableHLO_v2.0.0", Some(("StableHLO_v2.0.0\0", None))),
            (
                "StableHLO_v1.99.0 with vhlo.return_v9",
                Some(("StableHLO_v1.99.0\0", Some(("return_v1\0", "return_v9\0")))),
            ),
        ];
        for (label, edit) in edits {
            let edited = match edit {
                None => Some(bytes.clone()),
                Some((new_producer, op)) => {
                    let b = replace(bytes, producer.as_bytes(), new_producer.as_bytes());
                    match op {
                        None => b,
                        Some((from, to)) => {
                            b.and_then(|b| replace(&b, from.as_bytes(), to.as_bytes()))
                        }
                    }
                }
            };
            let Some(edited) = edited else {
                panic!("{name}: cannot make the {label} edit");
            };
            jobs.push(json!({"bytecode_hex": hex(&edited), "deserialize": true}));
            cases.push((name.clone(), label, edited));
        }
    }
    let results = oracle_batch(&python, &jobs);
    let mut failures = Vec::new();
    let (mut read, mut refused) = (0, 0);
    for (chunk, results) in cases.chunks(4).zip(results.chunks(4)) {
        let (name, _, original) = &chunk[0];
        let their_original = results[0]["print"]
            .as_str()
            .expect("jaxlib reads its artifact");
        let our_original = ours(original).expect("we read jaxlib's artifact");
        for ((_, label, edited), result) in chunk.iter().zip(results).skip(1) {
            let theirs = result["print"].as_str();
            let mine = ours(edited);
            match (theirs, &mine) {
                (Some(t), Ok(o)) if t == their_original && *o == our_original => read += 1,
                (None, Err(e))
                    if e.contains("vhlo.return_v9") && e.contains("newer than this reader") =>
                {
                    refused += 1
                }
                _ => failures.push(format!(
                    "{name} ({label}): jaxlib {:?} {}; ours {:?}",
                    theirs.map(|t| t == their_original),
                    result["error"],
                    mine.map(|o| o == our_original)
                )),
            }
        }
    }
    eprintln!(
        "{} artifacts of {newest}: {read} newer-producer edits read as the original by both, {refused} with an unknown op refused by both",
        artifacts.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
