//! The spec and its generator: the checked-in expansion is up to date, spec errors are compile
//! errors, release fixtures, a new op version from the spec alone, the module graph.
//!
//! One module per former test file; see tests/README.md for the index.

mod fixture_new_version;
mod generated_up_to_date;
mod module_graph;
mod spec_errors;
mod spec_release_fixtures;
