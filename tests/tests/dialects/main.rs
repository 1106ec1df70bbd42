//! Dialects beside StableHLO: Shardy (sdy), the mesh attribute, and mixed-dialect programs against
//! libStablehlo.
//!
//! One module per former test file; see tests/README.md for the index.

mod dialects_differential;
mod mesh_attribute;
mod sdy_dialect;
