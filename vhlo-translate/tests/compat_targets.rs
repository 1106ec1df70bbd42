//! `--target=WEEK_4|WEEK_12|MAX|NONE|current`: requirements resolve from the release
//! tag dates at `--as-of` (today when absent), and the producer names the version they resolve to.

use std::io::Write;
use std::process::{Command, Stdio};

// The tests crate's checked writers (`tests/src/checked.rs`): what a run or a call writes is read
// back with verification on.
#[allow(dead_code, unused_imports)]
#[path = "../../tests/src/checked.rs"]
mod checked;

const ADD: &str = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %x, %x : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";

fn serialize(args: &[&str]) -> (bool, Vec<u8>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vhlo-translate"))
        .arg("--serialize")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run vhlo-translate");
    // A refused target exits before reading stdin: the write may then fail (EPIPE), harmlessly.
    let _ = child.stdin.take().expect("stdin").write_all(ADD.as_bytes());
    let out = child.wait_with_output().expect("wait");
    checked::read_back_cli(&[&["--serialize"], args].concat(), &out);
    (
        out.status.success(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn producer(args: &[&str]) -> String {
    let (ok, artifact, err) = serialize(args);
    assert!(ok, "{args:?}: {err}");
    vhlo_core::bytecode::read_producer(&artifact)
        .expect("producer")
        .1
}

#[test]
fn requirement_targets() {
    // jaxlib 0.10.2 answers WEEK_4 -> 1.15.0 and WEEK_12 -> 1.13.7: the anchors of 2026-05-01.
    assert_eq!(
        producer(&["--target=WEEK_4", "--as-of=2026-05-01"]),
        "StableHLO_v1.15.0"
    );
    assert_eq!(
        producer(&["--target", "WEEK_12", "--as-of", "2026-05-01"]),
        "StableHLO_v1.13.7"
    );
    assert_eq!(producer(&["-target=MAX"]), "StableHLO_v0.9.0");
    let current = format!("StableHLO_v{}", vhlo_core::vhlo::CURRENT_VERSION);
    assert_eq!(producer(&["--target=current"]), current);
    assert_eq!(producer(&["--target=NONE"]), current);
    // Today's WEEK_4: a tagged release, in the supported range.
    let today = producer(&["--target=WEEK_4"]);
    let v = vhlo_core::version::Version::parse(today.trim_start_matches("StableHLO_v")).unwrap();
    assert!(
        vhlo_core::vhlo::RELEASE_TAGS.iter().any(|t| t.version == v),
        "{today}"
    );
    let (ok, _, err) = serialize(&["--target=WEEK_4", "--as-of=2026-13-01"]);
    assert!(!ok && err.contains("--as-of=2026-13-01"), "{err}");
    let (ok, _, err) = serialize(&["--target=WEEK_5"]);
    assert!(!ok && err.contains("WEEK_5"), "{err}");
}

/// `inspect` names the first tagged release that reads an artifact and until when newer ones are
/// guaranteed to (five years after it).
#[test]
fn inspect_names_the_readers() {
    let (ok, artifact, err) = serialize(&["--target=1.0.0"]);
    assert!(ok, "{err}");
    let dir = std::env::temp_dir().join(format!("vhlo-compat-targets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("a.mlir.bc");
    std::fs::write(&path, &artifact).unwrap();
    let run = |json: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vhlo-translate"));
        cmd.arg("inspect").arg(&path);
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().expect("inspect");
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let report: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    assert_eq!(report["first_consumer_release"], "1.0.0");
    assert_eq!(report["first_consumer_tagged"], "2024-05-14T17:42:58Z");
    assert_eq!(report["guaranteed_readable_until"], "2029-05-14");
    assert!(run(false)
        .contains("StableHLO 1.0.0 (tagged 2024-05-14) and later; guaranteed until 2029-05-14"));
    std::fs::remove_dir_all(&dir).ok();
}
