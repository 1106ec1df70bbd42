//! vhlo-rs for C and other languages with a C FFI, and the Rust glue its Python package shares.
//!
//! The C functions (`include/vhlo.h`, generated from [`ffi`] by cbindgen and checked in) mirror
//! the portable-artifact functions of upstream's `stablehlo/integrations/c/StablehloDialectApi.h`
//! under the `vhlo` prefix, with the same callback style for returned strings and an error API
//! that returns the diagnostics. [`api`] is the safe Rust layer both bindings call.

pub mod api;
#[cfg(feature = "ffi")]
pub mod ffi;
