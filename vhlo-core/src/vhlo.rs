//! The generated VHLO dialect, expanded from `spec/` by `vhlo_macros::vhlo_dialect!`.
//!
//! The same expansion, formatted, is checked in at `docs/generated/vhlo_dialect.rs` for review.
//! Every generated item carries rustdoc taken from the spec; the lint below keeps it that way.
#![deny(missing_docs)]

vhlo_macros::vhlo_dialect!("../spec");
