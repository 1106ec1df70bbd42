//! The text format: parsing and printing StableHLO/VHLO MLIR text, against upstream's FileCheck
//! tests, round trips, MLIR's semantics and exact values, resources and locations.
//!
//! One module per former test file; see tests/README.md for the index.

mod exact_values;
mod implicit_module_location;
mod pretty_filecheck;
mod resources;
mod text_robustness;
mod text_roundtrip;
mod text_semantics;
