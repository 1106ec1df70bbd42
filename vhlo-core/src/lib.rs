//! vhlo-core: the IR, the generated VHLO dialect, conversions, MLIR bytecode and the
//! portable-artifact API.

// Generated code names this crate by absolute path, also from inside it.
extern crate self as vhlo_core;

pub mod bytecode;
pub mod dialect;
pub mod ir;
pub mod text;
pub mod version;
pub mod vhlo;
