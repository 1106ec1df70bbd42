//! The generated VHLO dialect, expanded from `spec/` ahead of time (rust-analyzer style) by
//! `cargo run -p codegen -- expand` into `src/generated/vhlo_dialect.rs`, checked in and
//! reviewed; `tests/tests/spec/generated_up_to_date.rs` fails when it is stale. Downstream builds
//! compile it as plain Rust: no proc-macro, no YAML, no spec.
//! Every generated item carries rustdoc taken from the spec; the lint below keeps it that way.
//!
//! Each VHLO type and attribute has a typed struct with the spec's parameters as named fields
//! ([`types`], [`attrs`]): `read` one from the IR, `build` one into it.
//!
//! ```
//! use vhlo_core::ir::Module;
//! use vhlo_core::vhlo::{attrs, types, VhloType};
//!
//! let mut m = Module::new();
//! let element_type = types::F32V1.build(&mut m);
//! let shape: Box<[i64]> = Box::new([2]);
//! let ty = types::TensorV1 { shape, element_type, encoding: None }.build(&mut m);
//! let value = attrs::TensorV1 { ty, data: vec![0u8; 8].into() }.build(&mut m);
//!
//! let read = attrs::TensorV1::read(&m, value).expect("a #vhlo.tensor_v1");
//! assert_eq!(VhloType::of(&m, read.ty), Some(VhloType::TensorV1));
//! assert_eq!(types::TensorV1::read(&m, read.ty).map(|t| t.shape.to_vec()), Some(vec![2]));
//! assert!(attrs::StringV1::read(&m, value).is_none());
//! ```
#![deny(missing_docs)]
// Generated code: as when a proc-macro expanded it, style lints are the generator's business.
#![allow(clippy::all)]

include!("generated/vhlo_dialect.rs");

pub use crate::dialect::typed::{attrs, types};

/// The dialect of the codec engine called `name` (of [`CODEC_DIALECTS`]).
pub fn codec_dialect(name: &str) -> Option<&'static crate::dialect::codec::CodecDialect> {
    CODEC_DIALECTS.iter().copied().find(|d| d.name == name)
}

pub(crate) mod attributes;
pub use attributes::inherent_attribute_names;
