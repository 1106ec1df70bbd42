//! Portable artifacts and versions: the suite through serialize/deserialize, StableHLO<->VHLO
//! legalization, conversion to each version, version boundaries and windows, minimum versions,
//! newer producers, strict mode and checked writes.
//!
//! One module per former test file; see tests/README.md for the index.

mod checked_writes;
mod compatibility_windows;
mod legalize_suite;
mod minimum_version;
mod newer_producers;
mod portable_suite;
mod strict_mode;
mod version_boundaries;
mod vhlo_to_version_suite;
