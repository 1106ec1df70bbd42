//! The generated VHLO dialect, expanded from `spec/` by `vhlo_macros::vhlo_dialect!`.
//!
//! The same expansion, formatted, is checked in at `docs/generated/vhlo_dialect.rs` for review.

vhlo_macros::vhlo_dialect!("../spec");
