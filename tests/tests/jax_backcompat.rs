//! JAX's own back-compat artifacts (issue 11), and the reader/printer behaviours they need.
//!
//! The corpus test reads every artifact of `jax/_src/internal_test_util/export_back_compat_test_data/`
//! (and `pallas/`) from the jax wheel in the oracle venv at test time; nothing is copied into the
//! repository. See `corpus` below.

use vhlo_core::portable::{self, SerializeOptions};
use vhlo_core::text::{self, PrintOptions};

/// An artifact with its producer string replaced (the header is magic, version varint, producer).
fn with_producer(artifact: &[u8], producer: &str) -> Vec<u8> {
    let end = artifact.iter().skip(5).position(|&b| b == 0).expect("NUL-terminated producer") + 5;
    assert!(artifact[4] < 0x80, "one-byte version varint");
    let mut out = artifact[..5].to_vec();
    out.extend_from_slice(producer.as_bytes());
    out.extend_from_slice(&artifact[end..]);
    out
}

const BYTE_STRINGS: &str = r#"module @"m\FF" {
  func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.custom_call @tpu_custom_call(%arg0) {backend_config = "\00\FF\C3(bin\22\\"} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
"#;

/// JAX's 2023 artifacts say `MLIRxxx-trunk`: libStablehlo never looks at the producer, nor do we.
#[test]
fn any_producer_reads() {
    let m = text::parse(BYTE_STRINGS).expect("parse");
    let artifact = portable::serialize_portable_artifact(&m, "1.0.0", SerializeOptions::default()).expect("serialize");
    for producer in ["MLIRxxx-trunk", "MLIR17.0.0git", ""] {
        let legacy = with_producer(&artifact, producer);
        let back = portable::deserialize_portable_artifact(&legacy).unwrap_or_else(|e| panic!("{producer:?}: {e}"));
        assert_eq!(text::print(&back, PrintOptions::default()), BYTE_STRINGS, "{producer:?}");
        assert!(portable::read_producer_version(&legacy).is_err(), "no version named by {producer:?}");
        // The version read at is the minimum of the ops inside.
        let (_, version) = portable::read_vhlo(&legacy).expect("read");
        assert_eq!(version.to_string(), "0.9.0");
    }
    assert_eq!(portable::producer_version("StableHLO_v1.10.3").map(|v| v.to_string()).as_deref(), Some("1.10.3"));
    assert_eq!(portable::producer_version("MLIRxxx-trunk"), None);
}

/// Strings are bytes: `\XX` escapes of any byte print, parse back, and are written unchanged.
#[test]
fn byte_strings_round_trip() {
    let m = text::parse(BYTE_STRINGS).expect("parse");
    assert_eq!(text::print(&m, PrintOptions::default()), BYTE_STRINGS);
    let artifact = portable::serialize_portable_artifact(&m, "1.0.0", SerializeOptions { strip_debuginfo: true, ..Default::default() })
        .expect("serialize");
    let needle = b"\x00\xFF\xC3(bin\"\\";
    assert!(artifact.windows(needle.len()).any(|w| w == needle), "the bytes are written unchanged");
    let back = portable::deserialize_portable_artifact(&artifact).expect("read back");
    assert_eq!(text::print(&back, PrintOptions::default()), BYTE_STRINGS);
    // Dense string elements too (builtin attributes of other dialects keep them).
    let dense = "module attributes {t.s = dense<[\"\\FF\\00\", \"a\"]> : tensor<2x!t.string>} {\n}\n";
    let m = text::parse(dense).expect("parse dense strings");
    assert_eq!(text::print(&m, PrintOptions::default()), dense);
}
