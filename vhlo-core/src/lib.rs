//! StableHLO portable artifacts in pure Rust: the IR, the generated VHLO dialect (StableHLO's
//! versioned dialect), the MLIR text format, MLIR bytecode, version conversion, and the
//! portable-artifact API of upstream's `stablehlo/dialect/Serialization.h`.
//!
//! Write a program for an older consumer and read it back:
//!
//! ```
//! use vhlo_core::{portable, text};
//!
//! let program = text::parse(
//!     "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %x, %x : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
//! )?;
//! let artifact = portable::serialize_portable_artifact(&program, "1.0.0", Default::default())?;
//! assert_eq!(portable::read_producer_version(&artifact)?.to_string(), "1.0.0");
//!
//! // Reading upgrades to the current version and gives StableHLO back.
//! let read = portable::deserialize_portable_artifact(&artifact)?;
//! assert!(text::print(&read, Default::default()).contains("stablehlo.add"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Build a program with the typed ops and write it for 1.0.0:
//!
//! ```
//! use vhlo_core::build::ModuleBuilder;
//! use vhlo_core::{portable, text, vhlo::stablehlo::AddOp};
//!
//! let mut b = ModuleBuilder::new();
//! let t = text::parse_type(b.module(), "tensor<2x2xf32>")?;
//! let mut f = b.function("main", &[t], &[t]);
//! let x = f.args()[0];
//! // The result type is inferred by the verifier's shape functions.
//! let sum = AddOp::append(&mut f, x, x)?;
//! f.ret(&[sum]);
//! let m = b.finish();
//! let artifact = portable::serialize_portable_artifact(&m, "1.0.0", Default::default())?;
//! assert!(artifact.starts_with(b"ML\xefR"));
//!
//! // A result type written by hand that breaks the op's constraints is refused before anything
//! // is written.
//! let mut b = ModuleBuilder::new();
//! let t = text::parse_type(b.module(), "tensor<2x2xf32>")?;
//! let bad = text::parse_type(b.module(), "tensor<3xf32>")?;
//! let mut f = b.function("main", &[t], &[bad]);
//! let x = f.args()[0];
//! let loc = f.unknown_loc();
//! let add = AddOp { lhs: x, rhs: x, result: bad }.build(f.module(), loc);
//! let sum = f.append(add)[0];
//! f.ret(&[sum]);
//! let err = portable::serialize_portable_artifact(&b.finish(), "1.0.0", Default::default()).unwrap_err();
//! assert!(err.to_string().contains("stablehlo.add"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Find the oldest StableHLO a program can be written for, and handle a target that is too old:
//!
//! ```
//! use vhlo_core::portable::{self, PortableError};
//! use vhlo_core::{convert, text, version::Version};
//!
//! let program = text::parse(
//!     "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %x : tensor<f32>\n  return %0 : tensor<f32>\n}\n",
//! )?;
//! assert_eq!(convert::minimum_version(&program)?, Version::new(1, 4, 0));
//!
//! match portable::serialize_portable_artifact(&program, "1.0.0", Default::default()) {
//!     Err(PortableError::Convert(blockers)) => {
//!         // Each blocker names the op, its location and the version that would accept it.
//!         assert_eq!(blockers[0].needs, Some(Version::new(1, 4, 0)));
//!     }
//!     other => panic!("expected a conversion error, got {other:?}"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// Generated code names this crate by absolute path, also from inside it.
extern crate self as vhlo_core;

pub mod build;
pub mod bytecode;
pub mod compatibility;
pub mod convert;
pub mod dialect;
pub mod elements;
mod float;
pub mod ir;
pub mod portable;
pub mod scalars;
pub mod text;
/// The verifier (it lives beside the text printer its messages use): see [`text::verify`].
pub use text::verify;
pub mod version;
pub mod vhlo;
