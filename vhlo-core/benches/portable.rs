//! `cargo bench -p vhlo-core --bench portable`: text and portable-artifact steps on a generated
//! 100k-op program (see `support/program.rs`). Few samples, so a run takes a few minutes on a small
//! machine; `scripts/bench/compare.py` puts the same steps next to jaxlib's.

#[path = "support/program.rs"]
mod program;

use std::sync::OnceLock;

use divan::Bencher;
use vhlo_core::ir::Module;
use vhlo_core::portable::{self, SerializeOptions};
use vhlo_core::text::{self, PrintOptions};

const OPS: usize = 100_000;

fn source() -> &'static str {
    static SRC: OnceLock<String> = OnceLock::new();
    SRC.get_or_init(|| program::generate(OPS))
}

fn module() -> &'static Module {
    static M: OnceLock<Module> = OnceLock::new();
    M.get_or_init(|| text::parse(source()).expect("the generated program parses"))
}

fn artifact_1_0_0() -> &'static [u8] {
    static A: OnceLock<Vec<u8>> = OnceLock::new();
    A.get_or_init(|| {
        portable::serialize_portable_artifact(module(), "1.0.0", SerializeOptions::default())
            .expect("the generated program serializes at 1.0.0")
    })
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn parse_print_pretty(b: Bencher) {
    b.bench(|| {
        text::print(
            &text::parse(source()).expect("parses"),
            PrintOptions::default(),
        )
    });
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn parse_print_generic(b: Bencher) {
    b.bench(|| text::print_generic(&text::parse(source()).expect("parses")));
}

#[divan::bench(sample_count = 5, sample_size = 1, args = ["1.0.0", "current"])]
fn serialize(b: Bencher, target: &str) {
    let m = module();
    b.bench(|| {
        portable::serialize_portable_artifact(m, target, SerializeOptions::default())
            .expect("serializes")
    });
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn deserialize(b: Bencher) {
    let bytes = artifact_1_0_0();
    b.bench(|| portable::deserialize_portable_artifact(bytes).expect("deserializes"));
}

/// The verifier alone on the parsed program (what `text::parse` and serializing add), and the
/// two steps without it, so that its share of each is measured (docs/benchmarks.md,
/// "Verification"; the goal: at most 10% of serializing and of deserializing).
#[divan::bench(sample_count = 5, sample_size = 1)]
fn verify(b: Bencher) {
    let m = module();
    b.bench(|| vhlo_core::verify::verify(m).expect("verifies"));
}

#[divan::bench(sample_count = 5, sample_size = 1, args = ["1.0.0", "current"])]
fn serialize_unverified(b: Bencher, target: &str) {
    let m = module();
    let options = SerializeOptions {
        skip_verification: true,
        ..SerializeOptions::default()
    };
    b.bench(|| portable::serialize_portable_artifact(m, target, options).expect("serializes"));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn deserialize_unverified(b: Bencher) {
    let bytes = artifact_1_0_0();
    let options = portable::DeserializeOptions {
        skip_verification: true,
        ..Default::default()
    };
    b.bench(|| portable::deserialize_portable_artifact_with(bytes, options).expect("deserializes"));
}

fn main() {
    divan::main();
}
