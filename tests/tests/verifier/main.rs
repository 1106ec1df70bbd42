//! The verifier: upstream's expected-error tests, differential mutants against libStablehlo, type
//! constraints, and Shardy's verifier.
//!
//! One module per former test file; see tests/README.md for the index.

mod sdy_verify;
mod type_constraints;
mod verifier_differential;
mod verifier_upstream;
