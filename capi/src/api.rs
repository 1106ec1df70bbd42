//! The operations both bindings expose, on bytes and strings, with one error type that carries
//! the diagnostics. The C functions (`ffi`) and the Python module (`python/`) are thin layers
//! over these.

use std::collections::BTreeMap;
use std::fmt;

use vhlo_core::bytecode::{self, WriteOptions};
use vhlo_core::compatibility::{self, CompatibilityRequirement};
use vhlo_core::convert::{self, Diagnostic};
use vhlo_core::ir::Module;
use vhlo_core::portable::{self, DeserializeOptions, PortableError, SerializeOptions};
use vhlo_core::text::{self, PrintOptions};
use vhlo_core::version::{self, Date, Version, VersionError};

/// The API version: bumped when a function of either binding changes its contract.
pub const API_VERSION: i32 = 1;

/// The producer string of the plain (non-portable) MLIR bytecode that deserializing returns, as
/// jaxlib returns its own (`MLIR23.0.0git`); readers ignore it.
pub const PLAIN_PRODUCER: &str = concat!("vhlo-rs ", env!("CARGO_PKG_VERSION"));

/// What went wrong: a kind, a one-line message, and every diagnostic when a conversion refused
/// the program (each with its op, location and the version that would accept it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: FailureKind,
    pub message: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// The class of a [`Failure`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The text is not UTF-8 or does not parse.
    Parse,
    /// A bad version, target or requirement.
    Version,
    /// The bytes are not a readable artifact (truncated, corrupt, too new).
    Bytecode,
    /// The program cannot be converted (e.g. an op the target is too old for).
    Convert,
    /// A bug: the library panicked (caught at the boundary).
    Internal,
}

impl FailureKind {
    /// A stable lower-case name (`parse`, `version`, `bytecode`, `convert`, `internal`).
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Parse => "parse",
            FailureKind::Version => "version",
            FailureKind::Bytecode => "bytecode",
            FailureKind::Convert => "convert",
            FailureKind::Internal => "internal",
        }
    }
}

impl Failure {
    fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
            diagnostics: Vec::new(),
        }
    }

    /// The message followed by one line per diagnostic.
    pub fn full_text(&self) -> String {
        let mut s = self.message.clone();
        for d in &self.diagnostics {
            s.push_str("\n  ");
            s.push_str(&d.to_string());
        }
        s
    }

    /// The diagnostics as a JSON array of `{op, location, subject, needs, rule}`.
    pub fn diagnostics_json(&self) -> String {
        serde_json::to_string(&self.diagnostics).unwrap_or_else(|_| "[]".into())
    }

    /// A failure for a caught panic.
    pub fn internal(what: &str) -> Failure {
        Failure::new(
            FailureKind::Internal,
            format!("internal error in vhlo-rs ({what}): please report it with the input"),
        )
    }

    fn from_portable(context: &str, e: PortableError) -> Failure {
        match e {
            PortableError::Convert(ds) => Failure {
                kind: FailureKind::Convert,
                message: format!(
                    "{context}: cannot convert the program ({} problem{})",
                    ds.len(),
                    if ds.len() == 1 { "" } else { "s" }
                ),
                diagnostics: ds,
            },
            PortableError::Version(v) => {
                Failure::new(FailureKind::Version, format!("{context}: {v}"))
            }
            other => Failure::new(FailureKind::Bytecode, format!("{context}: {other}")),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.full_text())
    }
}

impl std::error::Error for Failure {}

/// MLIR bytecode starts with these bytes; anything else is text, as MLIR decides.
pub fn is_bytecode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"ML\xefR")
}

/// Now, in Unix seconds (the default `as_of` of the compatibility windows).
pub fn now_unix() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A StableHLO program from MLIR text (ops without a location get `"-":line:col`, as jaxlib's
/// string API gives them) or from MLIR bytecode (a portable artifact or plain bytecode).
pub fn parse_program(input: &[u8]) -> Result<Module, Failure> {
    if is_bytecode(input) {
        return portable::deserialize_portable_artifact(input)
            .map_err(|e| Failure::from_portable("cannot read the bytecode", e));
    }
    let src = std::str::from_utf8(input).map_err(|e| {
        Failure::new(
            FailureKind::Parse,
            format!("the module is neither MLIR bytecode nor UTF-8 text: {e}"),
        )
    })?;
    text::parse_with_source_locations(src, "-").map_err(parse_failure)
}

/// A parse error as a failure with one diagnostic at its line and column.
fn parse_failure(e: text::ParseError) -> Failure {
    Failure {
        kind: FailureKind::Parse,
        message: format!("cannot parse the module: -:{e}"),
        diagnostics: vec![Diagnostic {
            op: String::new(),
            location: format!("\"-\":{}:{}", e.line, e.column),
            subject: e.message.clone(),
            needs: None,
            rule: "MLIR text syntax".into(),
        }],
    }
}

/// A target: `X.Y.Z`, `current`, `minimum`, or a requirement (`NONE`, `WEEK_4`, `WEEK_12`,
/// `MAX`) resolved at `as_of` (Unix seconds). Returns the version to write and the producer
/// spelling (the version as given when numeric).
pub fn resolve_target(target: &str, as_of: i64) -> Result<(Version, String), Failure> {
    let bad =
        |e: VersionError| Failure::new(FailureKind::Version, format!("target `{target}`: {e}"));
    if let Some(req) = CompatibilityRequirement::from_name(target) {
        let v = req.version_as_of(as_of);
        return Ok((convert::check_target(v).map_err(bad)?, v.to_string()));
    }
    let v = convert::parse_target(target).map_err(bad)?;
    let producer = match target {
        "current" | "minimum" => v.to_string(),
        other => other.to_string(),
    };
    Ok((v, producer))
}

/// Writes a program (text or bytecode) as a portable artifact for `target` (see
/// [`resolve_target`]).
pub fn serialize(
    input: &[u8],
    target: &str,
    allow_other_dialects: bool,
) -> Result<Vec<u8>, Failure> {
    let (_, producer) = resolve_target(target, now_unix())?;
    let m = parse_program(input)?;
    let opts = SerializeOptions {
        allow_other_dialects,
        ..Default::default()
    };
    portable::serialize_portable_module(m, &producer, opts)
        .map_err(|e| Failure::from_portable(&format!("cannot serialize for {producer}"), e))
}

/// Reads a portable artifact (or StableHLO text or plain bytecode) as the current StableHLO.
pub fn read_program(artifact: &[u8]) -> Result<Module, Failure> {
    if artifact.is_empty() {
        return Err(Failure::new(
            FailureKind::Bytecode,
            "cannot deserialize: the artifact is empty",
        ));
    }
    if is_bytecode(artifact) {
        portable::deserialize_portable_artifact(artifact)
            .map_err(|e| Failure::from_portable("cannot deserialize the artifact", e))
    } else {
        parse_program(artifact)
    }
}

/// Reads a portable artifact and returns the program as plain MLIR bytecode of StableHLO (not a
/// portable artifact), what upstream's `deserializePortableArtifact` string API returns.
pub fn deserialize_to_bytecode(artifact: &[u8]) -> Result<Vec<u8>, Failure> {
    let m = read_program(artifact)?;
    bytecode::write(&m, &WriteOptions::new(6, PLAIN_PRODUCER)).map_err(|e| {
        Failure::new(
            FailureKind::Bytecode,
            format!("cannot write the program as bytecode: {e}"),
        )
    })
}

/// Reads a portable artifact and prints the program as StableHLO text.
pub fn deserialize_to_text(
    artifact: &[u8],
    generic: bool,
    debug_info: bool,
) -> Result<String, Failure> {
    let m = read_program(artifact)?;
    Ok(text::print(
        &m,
        PrintOptions {
            generic,
            debug_info,
            ..Default::default()
        },
    ))
}

/// The oldest version a program (text or bytecode) can be written for; with
/// `allow_other_dialects`, keeping ops of other dialects as serializing would.
pub fn minimum_version(input: &[u8], allow_other_dialects: bool) -> Result<Version, Failure> {
    let mut m = parse_program(input)?;
    let opts = convert::LegalizeOptions {
        allow_other_dialects,
        ..Default::default()
    };
    convert::legalize_to_vhlo(&mut m, opts).map_err(|ds| {
        Failure::from_portable(
            "cannot find a minimum version",
            PortableError::Convert(ds.into()),
        )
    })?;
    convert::minimum_version(&m).map_err(|ds| {
        Failure::from_portable(
            "no version can hold the program",
            PortableError::Convert(ds.into()),
        )
    })
}

/// Rewrites a portable artifact for another target (artifact to artifact).
pub fn retarget(artifact: &[u8], target: &str) -> Result<Vec<u8>, Failure> {
    let (version, producer) = resolve_target(target, now_unix())?;
    let (mut m, _) = portable::read_vhlo_with(artifact, DeserializeOptions::default())
        .map_err(|e| Failure::from_portable("cannot read the artifact", e))?;
    convert::vhlo_to_version(&mut m, version.floor_patch()).map_err(|ds| {
        Failure::from_portable(
            &format!("cannot retarget to {producer}"),
            PortableError::Convert(ds.into()),
        )
    })?;
    portable::write_vhlo_interning(&mut m, version, &producer)
        .map_err(|e| Failure::from_portable("cannot write the artifact", e))
}

/// Checks a program (MLIR text or bytecode) as MLIR's verifier would: the structural rules and
/// every StableHLO op's constraints ([`vhlo_core::verify`]). Every failed check is a diagnostic.
pub fn verify(input: &[u8]) -> Result<(), Failure> {
    let m = if is_bytecode(input) {
        return parse_program(input).map(|_| ());
    } else {
        let src = std::str::from_utf8(input).map_err(|e| {
            Failure::new(
                FailureKind::Parse,
                format!("the module is neither MLIR bytecode nor UTF-8 text: {e}"),
            )
        })?;
        text::parse_with_source_locations_unverified(src, "-").map_err(parse_failure)?
    };
    vhlo_core::verify::verify(&m).map_err(|ds| Failure {
        kind: FailureKind::Convert,
        message: format!(
            "the program does not verify ({} problem{})",
            ds.len(),
            if ds.len() == 1 { "" } else { "s" }
        ),
        diagnostics: ds.0,
    })
}

/// The smaller of two `X.Y.Z` versions (upstream's `getSmallerVersion`).
pub fn smaller_version(a: &str, b: &str) -> Result<Version, Failure> {
    let parse =
        |s: &str| Version::parse(s).map_err(|e| Failure::new(FailureKind::Version, e.to_string()));
    Ok(parse(a)?.min(parse(b)?))
}

/// What [`inspect`] finds in an artifact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inspection {
    /// The header's producer (`StableHLO_v1.0.0`).
    pub producer: String,
    /// The MLIR bytecode format version.
    pub bytecode_version: u64,
    /// The version the producer names, None for other producers (JAX's 2023 `MLIRxxx-trunk`).
    pub target_version: Option<Version>,
    /// The number of ops.
    pub ops: usize,
    /// Op counts by StableHLO name (`stablehlo.add`, `func.func`), sorted by name.
    pub histogram: BTreeMap<String, usize>,
    /// The oldest version the program can be written for; None when none can.
    pub minimum_version: Option<Version>,
    /// The first tagged release that reads the artifact's version (the consumers it reaches are
    /// that release and later).
    pub first_consumer: Option<version::ReleaseTag>,
    /// Until when newer libStablehlo is guaranteed to read it (5-year backward guarantee); None
    /// when no tagged release reads its version yet.
    pub guaranteed_until: Option<Date>,
}

/// Describes a portable artifact.
pub fn inspect(artifact: &[u8]) -> Result<Inspection, Failure> {
    let bad = |e: PortableError| Failure::from_portable("cannot inspect the artifact", e);
    let (bytecode_version, producer) =
        bytecode::read_producer(artifact).map_err(|e| bad(PortableError::Bytecode(e)))?;
    let (vhlo, version) = portable::read_vhlo(artifact).map_err(bad)?;
    let m = portable::deserialize_portable_artifact(artifact).map_err(bad)?;
    let mut histogram = BTreeMap::new();
    let mut ops = 0;
    m.walk(|op| {
        *histogram.entry(m.op_name_str(op).to_string()).or_insert(0) += 1;
        ops += 1;
    });
    Ok(Inspection {
        target_version: portable::producer_version(&producer).map(|_| version),
        producer,
        bytecode_version,
        ops,
        histogram,
        minimum_version: convert::minimum_version(&vhlo).ok(),
        first_consumer: compatibility::first_tag_reaching(version.floor_patch()),
        guaranteed_until: compatibility::backward_guarantee_until(version.floor_patch()),
    })
}

/// The version a compatibility requirement targets at `as_of` (Unix seconds; now when None).
pub fn requirement_version(req: CompatibilityRequirement, as_of: Option<i64>) -> Version {
    req.version_as_of(as_of.unwrap_or_else(now_unix))
}

/// Runs `f`, turning a panic into a [`FailureKind::Internal`] failure.
pub fn catching<T>(what: &str, f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err(Failure::internal(what)))
}
