//! vhlo-core: the IR, the generated VHLO dialect, conversions, MLIR bytecode and the
//! portable-artifact API.

pub mod bytecode;
pub mod ir;
