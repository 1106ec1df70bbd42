//! vhlo-core in WebAssembly: what the artifact inspector page (`web/www`) and the JavaScript API
//! (`inspect`, `toText`, `retarget`, `serialize`, and the `Artifact` class that reads a file
//! once for all of them) are made of.
//!
//! The work is done by plain Rust ([`Loaded`], [`Report`], [`WebError`]), which the host-side
//! tests run; `bindings` turns results into JavaScript objects (through JSON) and errors into
//! thrown JavaScript `Error`s carrying the same fields.
//!
//! An input is one of: a portable artifact (MLIR bytecode, `ML\xefR`), a `jax.export` serialized
//! file (the flatbuffer `Exported.serialize()` writes, whose `mlir_module_serialized` is read as
//! the artifact), or MLIR text (StableHLO or VHLO, as `vhlo-translate --deserialize` takes it).

mod bindings;
pub mod error;
pub mod jax_export;
pub mod report;

use std::sync::Arc;

use vhlo_core::convert::{self, Diagnostic, LegalizeOptions};
use vhlo_core::ir::{Blob, Module};
use vhlo_core::portable::{self, DeserializeOptions, SerializeOptions};
use vhlo_core::text::{self, PrintOptions};
use vhlo_core::version::Version;
use vhlo_core::vhlo;

pub use error::WebError;
pub use jax_export::JaxExport;
pub use report::Report;

/// What kind of file was opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A portable artifact: its header's producer and bytecode version.
    Artifact {
        producer: String,
        bytecode_version: u64,
    },
    /// A `jax.export` file holding an artifact.
    JaxExport {
        meta: JaxExport,
        producer: String,
        bytecode_version: u64,
    },
    /// MLIR text.
    Text,
}

/// How to print the program (`vhlo-translate --deserialize`'s flags).
#[derive(Clone, Copy, Debug, Default)]
pub struct TextOptions {
    /// `--mlir-print-op-generic`.
    pub generic: bool,
    /// `--mlir-print-debuginfo`.
    pub locations: bool,
}

impl TextOptions {
    /// The printer's options, as `vhlo-translate --deserialize` sets them.
    pub fn print_options(self) -> PrintOptions {
        PrintOptions {
            generic: self.generic,
            debug_info: self.locations,
            elide_defaults: true,
            location_aliases: true,
            ..Default::default()
        }
    }
}

/// A file read once: the program as StableHLO, and as VHLO where it has (or can be given) that
/// form, for the inspector's questions.
pub struct Loaded {
    /// The file's name (text input's implicit locations name it, as MLIR's parser does).
    pub name: String,
    /// The file's size in bytes.
    pub size: usize,
    pub source: Source,
    /// The program as current StableHLO (what `--deserialize` prints).
    pub stablehlo: Module,
    /// The program as VHLO: as read from an artifact, or legalized from text (`Err`: what
    /// refused it).
    pub vhlo: Result<Module, Vec<Diagnostic>>,
    /// The version an artifact is read at (what its producer names, else the oldest release its
    /// ops allow); None for text.
    pub version: Option<Version>,
    minimum: std::sync::OnceLock<Result<Version, Vec<Diagnostic>>>,
}

/// MLIR bytecode's magic number.
pub const BYTECODE_MAGIC: &[u8] = b"ML\xefR";

fn has_op_prefix(m: &Module, prefix: &str) -> bool {
    let mut found = false;
    m.walk(|op| found |= m.op_name_str(op).starts_with(prefix));
    found
}

/// Whether a StableHLO program holds ops of dialects other than StableHLO, func and builtin
/// (Shardy's, for example), which need `allow_other_dialects` to be written.
fn has_other_dialects(m: &Module) -> bool {
    let mut found = false;
    m.walk(|op| {
        let d = m.op_name_str(op).split('.').next().unwrap_or("");
        found |= !matches!(d, "stablehlo" | "func" | "builtin" | "chlo");
    });
    found
}

impl Loaded {
    /// Reads `bytes` (an artifact, a `jax.export` file or MLIR text) named `name`.
    pub fn open(bytes: Vec<u8>, name: &str) -> Result<Loaded, WebError> {
        let size = bytes.len();
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(WebError::new(
                "input",
                format!("{name}: empty input (expected a program or a portable artifact)"),
            ));
        }
        if bytes.starts_with(BYTECODE_MAGIC) {
            let (producer, bytecode_version) = header(&bytes)?;
            let (vhlo, stablehlo, version) = read_artifact(bytes)?;
            return Ok(Loaded {
                name: name.to_string(),
                size,
                source: Source::Artifact {
                    producer,
                    bytecode_version,
                },
                stablehlo,
                vhlo: Ok(vhlo),
                version: Some(version),
                minimum: Default::default(),
            });
        }
        match jax_export::read(&bytes) {
            Ok(Some(meta)) => {
                let start = meta.module_offset;
                let module = bytes
                    .get(start..start + meta.module_len)
                    .unwrap_or_default()
                    .to_vec();
                drop(bytes);
                let (producer, bytecode_version) =
                    header(&module).map_err(|e| e.at_file_offset(start))?;
                let (vhlo, stablehlo, version) =
                    read_artifact(module).map_err(|e| e.at_file_offset(start))?;
                return Ok(Loaded {
                    name: name.to_string(),
                    size,
                    source: Source::JaxExport {
                        meta,
                        producer,
                        bytecode_version,
                    },
                    stablehlo,
                    vhlo: Ok(vhlo),
                    version: Some(version),
                    minimum: Default::default(),
                });
            }
            Ok(None) => {}
            Err(e) => {
                return Err(WebError {
                    offset: Some(e.offset),
                    ..WebError::new(
                        "jax_export",
                        format!("jax.export file, byte {}: {}", e.offset, e.message),
                    )
                })
            }
        }
        let src = String::from_utf8(bytes).map_err(|_| {
            WebError::new(
                "input",
                format!("{name}: neither MLIR bytecode, a jax.export file nor UTF-8 text"),
            )
        })?;
        let parsed = text::parse_with_source_locations(&src, name).map_err(|e| {
            let mut w = WebError::from(e);
            w.message = format!("{name}:{}", w.message);
            w
        })?;
        drop(src);
        let (stablehlo, vhlo) = if has_op_prefix(&parsed, "vhlo.") {
            // VHLO text: upgraded and legalized, as `--deserialize` does.
            let mut s = parsed.clone();
            let fail =
                |ds: convert::Diagnostics| WebError::convert("cannot convert the program", ds.0);
            convert::vhlo_to_version(&mut s, vhlo::CURRENT_VERSION).map_err(fail)?;
            convert::legalize_to_stablehlo(&mut s).map_err(fail)?;
            (s, Ok(parsed))
        } else {
            let mut v = parsed.clone();
            let opts = LegalizeOptions {
                allow_other_dialects: true,
                ..Default::default()
            };
            let vhlo = convert::legalize_to_vhlo(&mut v, opts)
                .map(|()| v)
                .map_err(|ds| ds.0);
            (parsed, vhlo)
        };
        Ok(Loaded {
            name: name.to_string(),
            size,
            source: Source::Text,
            stablehlo,
            vhlo,
            version: None,
            minimum: Default::default(),
        })
    }

    /// The oldest release the program can be written for (computed once; on a large program
    /// it converts the program to each candidate release).
    pub fn minimum_version(&self) -> &Result<Version, Vec<Diagnostic>> {
        self.minimum.get_or_init(|| match &self.vhlo {
            Ok(m) => convert::minimum_version(m).map_err(|ds| ds.0),
            Err(ds) => Err(ds.clone()),
        })
    }

    /// The program as text.
    pub fn text(&self, opts: TextOptions) -> String {
        text::print(&self.stablehlo, opts.print_options())
    }

    /// A portable artifact for StableHLO `target` (`X.Y.Z`, `current` or `minimum`): an
    /// artifact is converted as `vhlo-translate --retarget` does, text serialized as
    /// `--serialize` does (keeping other dialects' ops when it has some).
    pub fn retarget(&self, target: &str) -> Result<Vec<u8>, WebError> {
        let version = convert::parse_target(target)
            .map_err(|e| WebError::new("version", format!("target {target}: {e}")))?;
        if matches!(self.source, Source::Text) {
            let opts = SerializeOptions {
                allow_other_dialects: has_other_dialects(&self.stablehlo),
                ..Default::default()
            };
            return Ok(portable::serialize_portable_module(
                self.stablehlo.clone(),
                target,
                opts,
            )?);
        }
        let mut m = match &self.vhlo {
            Ok(m) => m.clone(),
            Err(ds) => return Err(WebError::convert("cannot convert the program", ds.clone())),
        };
        convert::vhlo_to_version(&mut m, version.floor_patch())
            .map_err(|ds| WebError::convert(format!("cannot retarget to {target}"), ds.0))?;
        // The producer names the target as given (`1.4.1` stays `1.4.1`), the presets by number.
        let producer = if matches!(target, "current" | "minimum") {
            version.to_string()
        } else {
            target.to_string()
        };
        Ok(portable::write_vhlo_encoded(&mut m, version, &producer)?.into_vec())
    }
}

/// The producer and bytecode version of an artifact's header.
fn header(bytes: &[u8]) -> Result<(String, u64), WebError> {
    let (bytecode_version, producer) = vhlo_core::bytecode::read_producer(bytes)?;
    Ok((producer, bytecode_version))
}

/// Reads an artifact as VHLO and as StableHLO, as `vhlo-translate inspect` and `--deserialize`
/// do; large constants stay in `bytes`, which both modules share.
fn read_artifact(bytes: Vec<u8>) -> Result<(Module, Module, Version), WebError> {
    let blob = Blob::from_owner(Arc::new(bytes));
    let (vhlo, version) = portable::read_vhlo_shared(&blob, DeserializeOptions::default())?;
    let mut stablehlo = vhlo.clone();
    convert::legalize_to_stablehlo(&mut stablehlo)
        .map_err(|ds| WebError::convert("cannot convert the program", ds.0))?;
    Ok((vhlo, stablehlo, version))
}

/// `inspect(bytes)`: everything the page's cards show.
pub fn inspect(bytes: Vec<u8>, name: &str) -> Result<Report, WebError> {
    let loaded = Loaded::open(bytes, name)?;
    Ok(Report::of(&loaded, true))
}

/// `toText(bytes, opts)`: the program as `vhlo-translate --deserialize` prints it.
pub fn to_text(bytes: Vec<u8>, name: &str, opts: TextOptions) -> Result<String, WebError> {
    Ok(Loaded::open(bytes, name)?.text(opts))
}

/// `retarget(bytes, version)`: the artifact (or program) as an artifact for `target`.
pub fn retarget(bytes: Vec<u8>, target: &str) -> Result<Vec<u8>, WebError> {
    Loaded::open(bytes, "<input>")?.retarget(target)
}

/// `serialize(text, version)`: StableHLO text as a portable artifact for `target`, as
/// `vhlo-translate --serialize --target=TARGET` writes it (with `allow_other_dialects`, as
/// `--allow-other-dialects`).
pub fn serialize(
    src: &str,
    target: &str,
    name: &str,
    allow_other_dialects: bool,
) -> Result<Vec<u8>, WebError> {
    let module = text::parse_with_source_locations(src, name).map_err(|e| {
        let mut w = WebError::from(e);
        w.message = format!("{name}:{}", w.message);
        w
    })?;
    let opts = SerializeOptions {
        allow_other_dialects,
        ..Default::default()
    };
    Ok(portable::serialize_portable_module(module, target, opts)?)
}
