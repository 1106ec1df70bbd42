//! The whole `--deserialize` path on mutated bytes (see `common/pipeline.rs` for the property).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "common/pipeline.rs"]
mod pipeline;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = pipeline::check(data) {
        panic!("{e}");
    }
});
