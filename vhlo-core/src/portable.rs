//! The portable-artifact API, mirroring upstream's `stablehlo/dialect/Serialization.h`.
//!
//! Serializing legalizes StableHLO to VHLO, converts to the target version and writes MLIR bytecode
//! with the target's bytecode version and the producer `StableHLO_v<target>`. Deserializing reads
//! the bytecode, upgrades to the current version and legalizes back to StableHLO.

use std::collections::BTreeMap;
use std::fmt;

use crate::bytecode::{self, BytecodeError, Encoded, UseListOrder, WriteOptions};
use crate::convert::{self, Diagnostic, LegalizeOptions};
use crate::ir::{Blob, LocData, Module, Value};
use crate::version::{Version, VersionError};
use crate::vhlo;

/// Options of [`serialize_portable_artifact`].
#[derive(Clone, Copy, Debug, Default)]
pub struct SerializeOptions {
    /// Replace every location with `loc(unknown)` first (`--strip-debuginfo`).
    pub strip_debuginfo: bool,
    /// Keep ops, types and attributes of other dialects (1.11.0+ "mixed" programs).
    pub allow_other_dialects: bool,
    /// Refuse to lose anything (`--strict`): locations the target cannot read, attributes the
    /// legalization would drop. `strip_debuginfo` is an explicit request and still applies.
    pub strict: bool,
    /// Write without verifying the program first (upstream's
    /// `--mlir-very-unsafe-disable-verifier-on-parsing`). Off by default: a program that breaks
    /// a rule may then be written, and refused by its reader.
    pub skip_verification: bool,
}

/// Options of [`deserialize_portable_artifact_with`] and [`read_vhlo_with`].
#[derive(Clone, Copy, Debug, Default)]
pub struct DeserializeOptions {
    /// Refuse to lose anything (`--strict`): attributes the reader or the legalization would
    /// drop.
    pub strict: bool,
    /// Give back the program without verifying it (see [`SerializeOptions::skip_verification`]).
    pub skip_verification: bool,
}

/// Why a portable artifact could not be written or read.
#[derive(Debug)]
#[non_exhaustive]
pub enum PortableError {
    /// A bad target version.
    Version(VersionError),
    /// The bytes are not a readable artifact.
    Bytecode(BytecodeError),
    /// The program cannot be written as bytecode.
    Write(String),
    /// The program cannot be converted; every blocker is listed.
    Convert(Vec<Diagnostic>),
    /// The producer string does not name a StableHLO version.
    NotPortable { producer: String },
}

impl fmt::Display for PortableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortableError::Version(e) => write!(f, "{e}"),
            PortableError::Bytecode(e) => write!(f, "{e}"),
            PortableError::Write(e) => write!(f, "cannot write bytecode: {e}"),
            PortableError::Convert(ds) => {
                write!(
                    f,
                    "cannot convert the program ({} problem{}):",
                    ds.len(),
                    if ds.len() == 1 { "" } else { "s" }
                )?;
                for d in ds {
                    write!(f, "\n  {d}")?;
                }
                Ok(())
            }
            PortableError::NotPortable { producer } => {
                write!(f, "not a StableHLO portable artifact: the producer is {producer:?}, not \"StableHLO_vX.Y.Z\"")
            }
        }
    }
}

impl std::error::Error for PortableError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PortableError::Version(e) => Some(e),
            PortableError::Bytecode(e) => Some(e),
            _ => None,
        }
    }
}

impl From<BytecodeError> for PortableError {
    fn from(e: BytecodeError) -> Self {
        PortableError::Bytecode(e)
    }
}

impl From<VersionError> for PortableError {
    fn from(e: VersionError) -> Self {
        PortableError::Version(e)
    }
}

/// The newest version this library writes and reads.
pub fn current_version() -> Version {
    vhlo::CURRENT_VERSION
}

/// The oldest version this library writes and reads.
pub fn minimum_version() -> Version {
    vhlo::MINIMUM_VERSION
}

/// Replaces every op and block-argument location with `loc(unknown)`.
pub fn strip_debuginfo(m: &mut Module) {
    let unknown = m.loc(LocData::Unknown);
    let mut ops = Vec::new();
    m.walk(|op| ops.push(op));
    for op in ops {
        m.set_op_location(op, unknown);
        let args: Vec<Value> = m
            .regions(op)
            .iter()
            .flat_map(|&r| {
                m.blocks(r)
                    .iter()
                    .flat_map(|&b| m.block_args(b).iter().copied())
            })
            .collect();
        for v in args {
            m.set_value_location(v, unknown);
        }
    }
}

/// Writes `module` (StableHLO) as a portable artifact readable by StableHLO `target` and later.
/// `target` is `X.Y.Z`, `current` or `minimum` (see [`convert::parse_target`]); the producer
/// string keeps it as written.
pub fn serialize_portable_artifact(
    module: &Module,
    target: &str,
    options: SerializeOptions,
) -> Result<Vec<u8>, PortableError> {
    serialize_portable_module(module.clone(), target, options)
}

/// [`serialize_portable_artifact`] of a module the caller no longer needs: it is converted in
/// place, with no copy (what the CLI does, to keep its peak memory down).
pub fn serialize_portable_module(
    m: Module,
    target: &str,
    options: SerializeOptions,
) -> Result<Vec<u8>, PortableError> {
    serialize_portable_encoded(m, target, options).map(Encoded::into_vec)
}

/// [`serialize_portable_module`] without assembling the artifact in memory: its large constants
/// are streamed from the module by [`Encoded::write_to`].
pub fn serialize_portable_encoded(
    mut m: Module,
    target: &str,
    options: SerializeOptions,
) -> Result<Encoded, PortableError> {
    // Checked before flooring, as upstream: a target past the current release is refused.
    let version = convert::parse_target(target)?;
    let producer_version = match target {
        "current" | "minimum" => version.to_string(),
        other => other.to_string(),
    };
    // Converted in place: on failure the module is dropped, so the steps need no copies.
    if options.strip_debuginfo {
        strip_debuginfo(&mut m);
    }
    let opts = LegalizeOptions {
        allow_other_dialects: options.allow_other_dialects,
        strict: options.strict,
        skip_verification: options.skip_verification,
    };
    // Locations are checked on the StableHLO program, so that diagnostics name its ops.
    let location_losses = if options.strict {
        convert::location_losses(&m, version.floor_patch())
    } else {
        Vec::new()
    };
    if let Err(mut ds) = convert::legalize_to_vhlo_in_place(&mut m, opts) {
        ds.extend(location_losses);
        return Err(PortableError::Convert(ds));
    }
    if !location_losses.is_empty() {
        return Err(PortableError::Convert(location_losses));
    }
    let steps = convert::vhlo_to_version_in_place(&mut m, version.floor_patch())
        .map_err(|ds| PortableError::Convert(in_stablehlo_terms(ds)))?;
    // Each version step upstream replaces the op, which leaves use lists in an order the
    // bytecode records; this library writes as the current release does.
    let orders = convert::artifact_use_list_orders(&m, &steps, current_version());
    write_vhlo_with(&mut m, version, &producer_version, Some(&orders))
}

/// Diagnostics of a version conversion named by the StableHLO op the user wrote
/// (`stablehlo.tan`), not by its VHLO version (`vhlo.tan_v2`), which is kept in the rule.
fn in_stablehlo_terms(mut ds: Vec<crate::convert::Diagnostic>) -> Vec<crate::convert::Diagnostic> {
    for d in &mut ds {
        let kind =
            d.op.strip_prefix("vhlo.")
                .and_then(crate::vhlo::VhloOp::from_mnemonic);
        if let Some(k) = kind {
            let vhlo = std::mem::replace(&mut d.op, k.stablehlo().name().to_string());
            if d.subject.starts_with("op `vhlo.") {
                d.subject = "the op".to_string();
            }
            if !d.rule.contains("vhlo.") {
                d.rule = format!("{} (as `{vhlo}`)", d.rule);
            }
        }
    }
    ds
}

/// Writes a VHLO module that is already at `version` (for retargeting artifacts).
pub fn write_vhlo(
    m: &Module,
    version: Version,
    producer_version: &str,
) -> Result<Vec<u8>, PortableError> {
    verify_vhlo_structure(m)?;
    write_vhlo_with(&mut m.clone(), version, producer_version, None).map(Encoded::into_vec)
}

/// [`write_vhlo`] without its copy of the module (which for a program of large constants is
/// their size again): the attributes the encoding needs are interned into `m`, whose IR stays
/// as it is (as [`bytecode::write_interning`]).
pub fn write_vhlo_interning(
    m: &mut Module,
    version: Version,
    producer_version: &str,
) -> Result<Vec<u8>, PortableError> {
    verify_vhlo_structure(m)?;
    write_vhlo_with(m, version, producer_version, None).map(Encoded::into_vec)
}

/// [`write_vhlo_interning`] without assembling the artifact in memory: its large constants are
/// streamed from the module by [`Encoded::write_to`].
pub fn write_vhlo_encoded(
    m: &mut Module,
    version: Version,
    producer_version: &str,
) -> Result<Encoded, PortableError> {
    verify_vhlo_structure(m)?;
    write_vhlo_with(m, version, producer_version, None)
}

/// The structural rules (terminators, dominance) of a VHLO module about to be written as it is:
/// nothing the reader would refuse is written. Its ops' constraints are checked as StableHLO by
/// [`verify_read_program`] (the CLI's `--retarget` does).
fn verify_vhlo_structure(m: &Module) -> Result<(), PortableError> {
    crate::text::verify::nesting_within_limit(m).map_err(PortableError::Convert)?;
    let structure = crate::text::verify::Parts {
        structure: true,
        dominance: true,
        ops: false,
    };
    let (ds, _) = crate::text::verify::verify_parts(m, structure);
    if ds.is_empty() {
        Ok(())
    } else {
        Err(PortableError::Convert(ds))
    }
}

fn write_vhlo_with(
    m: &mut Module,
    version: Version,
    producer_version: &str,
    use_list_orders: Option<&BTreeMap<Value, UseListOrder>>,
) -> Result<Encoded, PortableError> {
    let bytecode_version = bytecode::bytecode_version_for_target(version.floor_patch()).ok_or(
        PortableError::Version(VersionError::TooNew {
            target: version,
            current: current_version(),
        }),
    )?;
    let producer = format!("StableHLO_v{producer_version}");
    let mut opts = WriteOptions::new(bytecode_version, &producer);
    opts.use_list_orders = use_list_orders;
    bytecode::write_encoded(m, &opts).map_err(|e| PortableError::Write(e.0))
}

/// The StableHLO version an artifact was written for, from its header only.
pub fn read_producer_version(bytes: &[u8]) -> Result<Version, PortableError> {
    let (_, producer) = bytecode::read_producer(bytes)?;
    producer_version(&producer).ok_or(PortableError::NotPortable { producer })
}

/// The StableHLO version a producer string names (`StableHLO_v1.0.0`), found as upstream's
/// `getPortableArtifactVersion` finds it; `None` for other producers (JAX's 2023 artifacts say
/// `MLIRxxx-trunk`).
pub fn producer_version(producer: &str) -> Option<Version> {
    const PREFIX: &str = "StableHLO_v";
    let at = producer.find(PREFIX)?;
    producer
        .get(at + PREFIX.len()..)
        .and_then(|v| Version::parse(v).ok())
}

/// The version an artifact is read at: the one its producer names (at most the current one),
/// else the minimum version of the ops inside. libStablehlo's reader never looks at the
/// producer: it reads the ops, attributes and types it knows and converts every op from its
/// own version (`deserializePortableArtifact`, `VhloToVersion`), so an artifact of a newer
/// producer whose contents all exist here is read, and one with an op, attribute or type this
/// version lacks is refused by the reader, naming it.
fn reading_version(m: &Module, producer: &str) -> Version {
    match producer_version(producer) {
        Some(v) => v.min(current_version()),
        None => convert::minimum_version(m).unwrap_or(current_version()),
    }
}

/// Reads an artifact as VHLO at the version it was written for (see [`producer_version`]; for a
/// producer that names none, the minimum version of the ops inside).
pub fn read_vhlo(bytes: &[u8]) -> Result<(Module, Version), PortableError> {
    read_vhlo_from(bytes, None, DeserializeOptions::default())
}

/// [`read_vhlo`] with options: when strict, an artifact from which the reader dropped
/// something (see [`bytecode::ArtifactInfo::shadowed_attributes`]) is refused.
pub fn read_vhlo_with(
    bytes: &[u8],
    options: DeserializeOptions,
) -> Result<(Module, Version), PortableError> {
    read_vhlo_from(bytes, None, options)
}

/// [`read_vhlo_with`] of a shared input: the module's large constants are views of `input`
/// rather than copies (see [`bytecode::read_shared`]).
pub fn read_vhlo_shared(
    input: &Blob,
    options: DeserializeOptions,
) -> Result<(Module, Version), PortableError> {
    read_vhlo_from(input, Some(input), options)
}

fn read_vhlo_from(
    bytes: &[u8],
    shared: Option<&Blob>,
    options: DeserializeOptions,
) -> Result<(Module, Version), PortableError> {
    let (_, producer) = bytecode::read_producer(bytes)?;
    let read = match shared {
        Some(input) => bytecode::read_shared(input),
        None => bytecode::read(bytes),
    };
    let (m, info) = read.map_err(|mut e| {
        // What a newer producer wrote that this version lacks: say so beside what it is.
        if let Some(v) = producer_version(&producer).filter(|v| *v > current_version()) {
            e.message = format!(
                "{} (the artifact was written by StableHLO {v}, newer than this reader's {}: it \
                 reads what exists in {} and refuses the rest)",
                e.message,
                current_version(),
                current_version()
            );
        }
        e
    })?;
    let version = reading_version(&m, &producer);
    // As MLIR verifies what it reads. The reader's scopes give dominance unless a value was used
    // before its definition or a region has several blocks; the rest is checked once the
    // program is legalized (`verify_ops`), which keeps its structure.
    if !options.skip_verification && info.may_break_dominance {
        let dominance = crate::text::verify::Parts {
            structure: false,
            dominance: true,
            ops: false,
        };
        let (ds, _) = crate::text::verify::verify_parts(&m, dominance);
        if !ds.is_empty() {
            return Err(PortableError::Convert(ds));
        }
    }
    if options.strict {
        let losses = convert::shadowed_on_reading(&m, &info.shadowed_attributes, version);
        if !losses.is_empty() {
            return Err(PortableError::Convert(losses));
        }
    }
    Ok((m, version))
}

/// [`deserialize_portable_artifact`] with options: when strict, whatever the reader or the
/// legalization would drop is refused, each loss named with its op and location.
pub fn deserialize_portable_artifact_with(
    bytes: &[u8],
    options: DeserializeOptions,
) -> Result<Module, PortableError> {
    let (m, _) = read_vhlo_with(bytes, options)?;
    legalize_read_module(m, options)
}

/// [`deserialize_portable_artifact_with`] of a shared input: the program's large constants are
/// views of `input` rather than copies.
pub fn deserialize_portable_shared(
    input: &Blob,
    options: DeserializeOptions,
) -> Result<Module, PortableError> {
    let (m, _) = read_vhlo_shared(input, options)?;
    legalize_read_module(m, options)
}

fn legalize_read_module(
    mut m: Module,
    options: DeserializeOptions,
) -> Result<Module, PortableError> {
    let losses = if options.strict {
        convert::losses_to_stablehlo(&m)
    } else {
        Vec::new()
    };
    // The module is ours and dropped on failure: no transactional copy needed.
    let converted = convert::legalize_to_stablehlo_in_place(&mut m);
    if !losses.is_empty() {
        let mut all = losses;
        all.extend(converted.err().unwrap_or_default());
        return Err(PortableError::Convert(all));
    }
    converted.map_err(PortableError::Convert)?;
    // As MLIR verifies the module it read: its ops, once legalized (the legalization keeps the
    // structure the reader checked).
    if !options.skip_verification {
        verify_deserialized(&m)?;
    }
    Ok(m)
}

/// The checks [`deserialize_portable_artifact`] makes of the program it read, once legalized:
/// for a caller that read it with [`DeserializeOptions::skip_verification`] and checks it
/// later, for example beside naming its values for printing ([`crate::text::PrintJob::new`]) on a
/// thread of its own.
pub fn verify_deserialized(m: &Module) -> Result<(), PortableError> {
    verify_ops(m)
}

/// Terminators, types and op constraints of a program read and legalized (dominance was checked
/// on reading).
fn verify_ops(m: &Module) -> Result<(), PortableError> {
    let ops = crate::text::verify::Parts {
        structure: true,
        dominance: false,
        ops: true,
    };
    let (ds, _) = crate::text::verify::verify_parts(m, ops);
    if ds.is_empty() {
        Ok(())
    } else {
        Err(PortableError::Convert(ds))
    }
}

/// Checks the ops of a VHLO module read with [`read_vhlo`] (whose structure the reader checked)
/// as MLIR would check them in StableHLO: on a legalized copy. For programs written again as
/// VHLO (a retarget), so that nothing libStablehlo would refuse is written.
pub fn verify_read_program(m: &Module) -> Result<(), PortableError> {
    let mut copy = m.clone();
    convert::vhlo_to_version(&mut copy, current_version())
        .map_err(|d| PortableError::Convert(d.0))?;
    convert::legalize_to_stablehlo(&mut copy).map_err(|d| PortableError::Convert(d.0))?;
    verify_ops(&copy)
}

/// Reads a portable artifact and returns the program as current StableHLO.
pub fn deserialize_portable_artifact(bytes: &[u8]) -> Result<Module, PortableError> {
    deserialize_portable_artifact_with(bytes, DeserializeOptions::default())
}

#[cfg(test)]
mod tests {
    use std::error::Error;

    #[test]
    fn errors_chain_to_their_cause() {
        let e = super::deserialize_portable_artifact(b"ML\xefR\x06 not an artifact").unwrap_err();
        let cause = e.source().expect("a bytecode error has its cause");
        assert!(cause.is::<crate::bytecode::BytecodeError>(), "{cause}");
        let e = super::serialize_portable_artifact(
            &crate::ir::Module::new(),
            "0.1.0",
            Default::default(),
        )
        .unwrap_err();
        assert!(
            e.source()
                .is_some_and(|c| c.is::<crate::version::VersionError>()),
            "{e}"
        );
    }
}
