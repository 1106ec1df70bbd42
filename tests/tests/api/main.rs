//! The Rust API: editing the IR and the builders with inferred result types.
//!
//! One module per former test file; see tests/README.md for the index.

mod inferred_builders;
mod ir_editing;
