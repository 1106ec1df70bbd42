//! MLIR bytecode: reading and writing the compatibility suite's artifacts, the real artifacts of
//! `../shared/real-artifacts`, seeded mutations and the fuzz mutator, and the artifacts' checks.
//!
//! One module per former test file; see tests/README.md for the index.

mod artifact_checks;
mod bytecode_mutations;
mod bytecode_suite;
mod fuzz_mutator;
mod real_artifacts;
