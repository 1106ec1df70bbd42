//! The Rust glue of both bindings.

use vhlo::api::{self, FailureKind};

const ADD: &str = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %x, %x : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";

/// Plain bytecode (what upstream's deserialize returns) of a program whose attributes and types
/// are all builtin reads back as the program. StableHLO attributes and types (and quant types)
/// are written in MLIR's textual fallback form, which MLIR (jaxlib) parses; vhlo-core's reader
/// keeps such entries opaque, so only jaxlib can check those (python/tests).
#[test]
fn plain_bytecode_reads_back_as_the_program() {
    let artifact = api::serialize(ADD.as_bytes(), "1.0.0", false).expect("serialize");
    let text = api::deserialize_to_text(&artifact, true, true).expect("text");
    let plain = api::deserialize_to_bytecode(&artifact).expect("bytecode");
    assert!(api::is_bytecode(&plain));
    assert!(plain
        .windows(api::PLAIN_PRODUCER.len())
        .any(|w| w == api::PLAIN_PRODUCER.as_bytes()));
    let again = api::deserialize_to_text(&plain, true, true).expect("text of the plain bytecode");
    assert_eq!(text, again);
}

#[test]
fn failures_carry_their_diagnostics() {
    let tan = "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %x : tensor<f32>\n  return %0 : tensor<f32>\n}\n";
    let f = api::serialize(tan.as_bytes(), "1.0.0", false).unwrap_err();
    assert_eq!(f.kind, FailureKind::Convert);
    assert!(
        f.diagnostics[0].op.contains("tan"),
        "{:?}",
        f.diagnostics[0]
    );
    assert_eq!(f.diagnostics[0].location, "\"-\":2:8");
    assert_eq!(
        f.diagnostics[0].needs.map(|v| v.to_string()).as_deref(),
        Some("1.4.0")
    );
    assert_eq!(
        api::minimum_version(tan.as_bytes(), false)
            .unwrap()
            .to_string(),
        "1.4.0"
    );
    let artifact = api::serialize(tan.as_bytes(), "1.4.0", false).unwrap();
    assert_eq!(
        api::deserialize_to_bytecode(&artifact[..artifact.len() / 2])
            .unwrap_err()
            .kind,
        FailureKind::Bytecode
    );
    assert_eq!(
        api::serialize(b"\xff\xfe", "1.0.0", false)
            .unwrap_err()
            .kind,
        FailureKind::Parse
    );
    assert_eq!(
        api::serialize(ADD.as_bytes(), "1.0", false)
            .unwrap_err()
            .kind,
        FailureKind::Version
    );
    assert_eq!(
        api::retarget(&artifact, "1.0.0").unwrap_err().kind,
        FailureKind::Convert
    );
    let info = api::inspect(&artifact).unwrap();
    assert_eq!(info.producer, "StableHLO_v1.4.0");
    assert_eq!(info.histogram.get("stablehlo.tan"), Some(&1));
    assert_eq!(
        info.minimum_version.map(|v| v.to_string()).as_deref(),
        Some("1.4.0")
    );
    // v1.4.0 was tagged on 2024-07-16 (UTC): five years of backward compatibility.
    assert_eq!(
        info.guaranteed_until.map(|d| d.to_string()).as_deref(),
        Some("2029-07-16")
    );
}

#[test]
fn requirement_targets() {
    let (v, producer) = api::resolve_target("WEEK_12", 1_777_593_600).unwrap();
    assert_eq!(
        (v.to_string(), producer.as_str()),
        ("1.13.0".to_string(), "1.13.7")
    );
    let (v, _) = api::resolve_target("MAX", 0).unwrap();
    assert_eq!(v.to_string(), "0.9.0");
}

#[test]
fn verify_reports_every_failed_check() {
    api::verify(ADD.as_bytes()).expect("verifies");
    // The add's result type is not its operands'.
    let bad = "func.func @main(%x: tensor<2xf32>) -> tensor<3xf32> {\n  %0 = stablehlo.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>\n  return %0 : tensor<3xf32>\n}\n";
    let f = api::verify(bad.as_bytes()).unwrap_err();
    assert_eq!(f.kind, FailureKind::Convert);
    assert!(f.diagnostics[0].op.contains("add"), "{f}");
    assert!(f.diagnostics[0].location.contains("2:"), "{f}");
}
