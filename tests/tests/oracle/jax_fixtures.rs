//! The JAX fixtures (tests/fixtures/jax, written by gen.py with jaxlib) are intact: every file index.tsv
//! lists exists with its size and sha256, nothing unlisted lies beside them, and each artifact's header
//! names the StableHLO version it was written for. Regenerating needs the oracle venv; this does not.

use std::collections::BTreeSet;
use std::path::PathBuf;

use sha2::{Digest, Sha256};

struct Row {
    program: String,
    kind: String,
    target: String,
    file: String,
    bytes: usize,
    sha256: String,
}

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/jax")
}

fn read_index() -> Vec<Row> {
    let index = std::fs::read_to_string(fixture_dir().join("index.tsv")).expect("index.tsv exists");
    index
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let columns: Vec<&str> = line.split('\t').collect();
            assert_eq!(columns.len(), 6, "index.tsv line has 6 columns: {line}");
            Row {
                program: columns[0].to_string(),
                kind: columns[1].to_string(),
                target: columns[2].to_string(),
                file: columns[3].to_string(),
                bytes: columns[4].parse().expect("byte count"),
                sha256: columns[5].to_string(),
            }
        })
        .collect()
}

/// The producer string of a portable artifact: magic `ML\xEFR`, a varint version, then
/// `StableHLO_vX.Y.Z\0`.
fn producer_version(data: &[u8]) -> Option<&str> {
    let rest = data.strip_prefix(b"ML\xEFR")?;
    // The bytecode version is a one-byte varint (odd byte) in every artifact StableHLO writes.
    let (&version, rest) = rest.split_first()?;
    if version & 1 == 0 {
        return None;
    }
    let end = rest.iter().position(|&b| b == 0)?;
    std::str::from_utf8(&rest[..end])
        .ok()?
        .strip_prefix("StableHLO_v")
}

#[test]
fn fixture_files_match_the_index() {
    let rows = read_index();
    let programs: BTreeSet<&str> = rows.iter().map(|r| r.program.as_str()).collect();
    assert!(programs.len() >= 16, "only {} programs", programs.len());

    for row in &rows {
        let data = std::fs::read(fixture_dir().join(&row.file))
            .unwrap_or_else(|e| panic!("{}: {e}", row.file));
        assert_eq!(data.len(), row.bytes, "{}: size", row.file);
        let digest: String = Sha256::digest(&data)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            digest, row.sha256,
            "{}: sha256 (regenerate with gen.py, never edit)",
            row.file
        );
        match row.kind.as_str() {
            "text" | "generic" => assert!(std::str::from_utf8(&data).is_ok(), "{}", row.file),
            "locations" | "stripped" | "jax_export" => {
                assert_eq!(
                    producer_version(&data),
                    Some(row.target.as_str()),
                    "{}: header",
                    row.file
                )
            }
            other => panic!("{}: unknown kind {other}", row.file),
        }
    }
    // Every program has its text, its generic print and at least one artifact of each jaxlib kind.
    for program in &programs {
        for kind in ["text", "generic", "locations", "stripped"] {
            assert!(
                rows.iter().any(|r| r.program == *program && r.kind == kind),
                "{program} has no {kind} file"
            );
        }
    }

    let listed: BTreeSet<&str> = rows.iter().map(|r| r.file.as_str()).collect();
    let generator_files = ["gen.py", "manifest.json", "index.tsv"];
    for entry in std::fs::read_dir(fixture_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let is_cache = name == "__pycache__";
        assert!(
            listed.contains(name.as_str()) || generator_files.contains(&name.as_str()) || is_cache,
            "{name} is not in index.tsv"
        );
    }
}
