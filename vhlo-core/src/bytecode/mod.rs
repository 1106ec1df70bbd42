//! MLIR bytecode: the container of StableHLO portable artifacts, with the VHLO dialect's
//! attribute and type encodings.
//!
//! [`read`] turns an artifact into a [`Module`] plus [`ArtifactInfo`] (bytecode version, producer,
//! recorded use-list orders); [`write()`] emits a module at a chosen bytecode version with MLIR's
//! numbering and ordering rules, so that reading and writing an upstream artifact at the same
//! version reproduces it byte for byte. `../shared/notes/mlir-bytecode.md` maps the format.
//!
//! How dialect content lands in the IR (one [`Param`](crate::ir::Param) per parameter, with the
//! kinds of `spec/attrs.yaml` and `spec/types.yaml`):
//! - VHLO enum attributes: `[Int(case)]`.
//! - `#vhlo.integer_v1`: `[Type, Int]`, the value's bit pattern sign-extended to 64 bits whatever
//!   the signedness (`ui32` 4294967295 is -1).
//! - `#vhlo.float_v1`: `[Type, Float { bits, width }]`.
//! - `#vhlo.tensor_v1`: `[Type, Bytes]`, the raw data as MLIR holds dense elements in memory
//!   (i1 one byte per element, a single element for splats).
//! - Optional parameters (`axis_ref_v1.sub_axis_info`, `mesh_v1.device_ids`,
//!   `tensor_v1` type's `encoding`) are `Absent` when missing.
//! - Content stored in textual form (flag 0 in the offset table) is kept, not parsed: attributes as
//!   [`AttrData::Opaque`](crate::ir::AttrData::Opaque), types as a dialect type with an empty
//!   mnemonic and the full text as its one `Str` parameter (builtin float/int keywords are
//!   recognized and become builtin types).

mod codec;
mod encoding;
mod reader;
mod use_lists;
mod vhlo_codec;
mod writer;

use std::collections::BTreeMap;

use crate::ir::{Location, Module, Value};

pub use encoding::Encoded;
pub use reader::{ir_section_len, read, read_producer, read_shared};
pub use use_lists::OpOrder;
pub use writer::{write, write_encoded, write_interning, WriteOptions};

/// The module cannot be written: what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WriteError(pub String);

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bytecode writer: {}", self.0)
    }
}

impl std::error::Error for WriteError {}

/// A malformed or unsupported artifact: which section, the absolute byte offset, what is wrong,
/// and what kind of problem it is (to match on).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BytecodeError {
    /// The section being read (`header` for the file header).
    pub section: &'static str,
    /// Absolute offset in the input.
    pub offset: usize,
    /// What went wrong.
    pub message: String,
    pub kind: BytecodeErrorKind,
}

/// What kind of problem a [`BytecodeError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BytecodeErrorKind {
    /// Not MLIR bytecode: the magic number is missing.
    NotBytecode,
    /// The input, or a section, ends before what it announces.
    Truncated,
    /// Bytes that break the format: a bad varint, an index out of range, a missing or
    /// duplicate section, an entry that does not decode.
    Malformed,
    /// Well-formed MLIR bytecode that this reader does not read: a newer bytecode version, an
    /// op, attribute or type code it does not know (a newer producer's), a dialect without a
    /// codec here.
    Unsupported,
    /// Nested deeper than the library's limit (`ir::MAX_NESTING`).
    TooDeep,
}

impl BytecodeError {
    /// The same error, of another kind.
    pub(crate) fn of_kind(mut self, kind: BytecodeErrorKind) -> Self {
        self.kind = kind;
        self
    }
}

impl std::fmt::Display for BytecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "bytecode {} section, byte {}: {}",
            self.section, self.offset, self.message
        )
    }
}

impl std::error::Error for BytecodeError {}

/// One recorded use-list order: the permutation MLIR stored for a value whose uses are not in
/// the order a fresh reader would produce (it depends on pass history, so it is kept as read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UseListOrder {
    /// True when `indices` holds (from, to) pairs instead of a full permutation.
    pub pair_encoding: bool,
    pub indices: Box<[u64]>,
}

/// Facts about an artifact that are not part of the program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArtifactInfo {
    /// The MLIR bytecode format version (0..=6).
    pub bytecode_version: u64,
    /// The producer string of the header (`StableHLO_v1.0.0` for portable artifacts).
    pub producer: String,
    /// Use-list orders recorded in the file, by value.
    pub use_list_orders: BTreeMap<Value, UseListOrder>,
    /// Locations of block arguments other than `loc(unknown)` (the IR has no place for them).
    pub block_arg_locations: BTreeMap<Value, Location>,
    /// Discardable attributes the reader dropped because they carry an inherent attribute's
    /// name and the op's properties entry overwrites them (as MLIR's `Operation::create` does),
    /// in reading order. Strict conversions refuse such artifacts.
    pub shadowed_attributes: Vec<ShadowedAttribute>,
    /// The reader's scopes do not ensure dominance: an operand referred to a value defined later
    /// in the file, or a region has several blocks (a value of one block is in scope in the
    /// others). Dominance then needs a check of its own.
    pub may_break_dominance: bool,
}

/// A discardable attribute dropped on reading: see [`ArtifactInfo::shadowed_attributes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShadowedAttribute {
    /// The op that carried it.
    pub op: crate::ir::OpId,
    /// Its name (also the name of one of the op's inherent attributes).
    pub name: crate::ir::Symbol,
    /// The dropped value.
    pub value: crate::ir::Attribute,
}

impl ArtifactInfo {
    /// The StableHLO version of the producer string (`1.0.0` from `StableHLO_v1.0.0`).
    pub fn stablehlo_version(&self) -> Option<&str> {
        self.producer.strip_prefix("StableHLO_v")
    }
}

/// The bytecode format version libStablehlo writes for a target StableHLO version, from the
/// spec's release table (`spec/releases.yaml`; every patch of a minor release shares it). `None`
/// for a version outside the table (below 0.9.0 or past the current release).
pub fn bytecode_version_for_target(target: crate::version::Version) -> Option<u64> {
    crate::vhlo::RELEASES
        .iter()
        .find(|r| (r.version.major, r.version.minor) == (target.major, target.minor))
        .map(|r| u64::from(r.bytecode_version))
}

/// Reads an artifact into a module. See [`read`].
pub fn read_module(bytes: &[u8]) -> Result<Module, BytecodeError> {
    read(bytes).map(|(m, _)| m)
}

#[cfg(test)]
mod tests;
