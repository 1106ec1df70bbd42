//! The Rust API: editing the IR, the builders with inferred result types, and the typed VHLO
//! types and attributes.
//!
//! One module per former test file; see tests/README.md for the index.

mod dense_elements;
mod inferred_builders;
mod ir_editing;
mod typed_stablehlo_attrs;
mod typed_vhlo;
