//! Live differential tests against the oracle (libStablehlo in jaxlib) and JAX's own artifacts and
//! fixtures.
//!
//! One module per former test file; see tests/README.md for the index.

mod filecheck_suite;
mod jax_backcompat;
mod jax_differential;
mod jax_fixtures;
mod oracle_live;
mod registry_oracle;
mod resources_oracle;
