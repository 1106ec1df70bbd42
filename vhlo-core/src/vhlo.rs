//! The generated VHLO dialect, expanded from `spec/` ahead of time (rust-analyzer style) by
//! `cargo run -p codegen -- expand` into `src/generated/vhlo_dialect.rs`, checked in and
//! reviewed; `tests/tests/spec/generated_up_to_date.rs` fails when it is stale. Downstream builds
//! compile it as plain Rust: no proc-macro, no YAML, no spec.
//! Every generated item carries rustdoc taken from the spec; the lint below keeps it that way.
#![deny(missing_docs)]
// Generated code: as when a proc-macro expanded it, style lints are the generator's business.
#![allow(clippy::all)]

include!("generated/vhlo_dialect.rs");

/// The dialect of the codec engine called `name` (of [`CODEC_DIALECTS`]).
pub fn codec_dialect(name: &str) -> Option<&'static crate::dialect::codec::CodecDialect> {
    CODEC_DIALECTS.iter().copied().find(|d| d.name == name)
}

mod attributes;
pub use attributes::inherent_attribute_names;
