//! Portable artifacts end to end: a StableHLO module to the bytes libStablehlo writes for a
//! target (legalization, version conversion, use-list records, bytecode), and back.

use crate::bytecode;
use crate::ir::Module;
use crate::version::Version;

use super::{Diagnostic, LegalizeOptions};

/// What stops an artifact from being written or read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArtifactError {
    /// The program cannot be converted (every blocker).
    Convert(Vec<Diagnostic>),
    /// The bytecode writer refused the module.
    Write(bytecode::WriteError),
    /// The bytes are not a readable artifact.
    Read(bytecode::BytecodeError),
}

impl std::fmt::Display for ArtifactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArtifactError::Convert(ds) => {
                write!(f, "{}", super::diagnostics_to_text(ds).trim_end())
            }
            ArtifactError::Write(e) => write!(f, "{e}"),
            ArtifactError::Read(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ArtifactError {}

/// `stablehlo-translate --serialize --target=<target>`: the artifact libStablehlo (the current
/// release) writes for this StableHLO module. Locations are kept as they are in the module.
pub fn serialize_portable_artifact(
    m: &Module,
    target: Version,
    opts: LegalizeOptions,
) -> Result<Vec<u8>, ArtifactError> {
    let target = super::check_target(target).map_err(|e| {
        ArtifactError::Convert(vec![Diagnostic {
            op: String::new(),
            location: "unknown".into(),
            subject: e.to_string(),
            needs: None,
            rule: "target version".into(),
        }])
    })?;
    let mut w = m.clone();
    super::legalize_to_vhlo(&mut w, opts).map_err(ArtifactError::Convert)?;
    let steps = super::vhlo_to_version_tracked(&mut w, target).map_err(ArtifactError::Convert)?;
    let use_lists = super::artifact_use_list_orders(&w, &steps, crate::vhlo::CURRENT_VERSION);
    let bytecode_version = bytecode::bytecode_version_for_target(target).ok_or_else(|| {
        ArtifactError::Write(bytecode::WriteError(format!(
            "no bytecode version for {target}"
        )))
    })?;
    let producer = format!("StableHLO_v{target}");
    let mut wo = bytecode::WriteOptions::new(bytecode_version, &producer);
    wo.use_list_orders = Some(&use_lists);
    bytecode::write(&w, &wo).map_err(ArtifactError::Write)
}

/// `stablehlo-translate --deserialize`: the StableHLO module of an artifact of any version.
pub fn deserialize_portable_artifact(bytes: &[u8]) -> Result<Module, ArtifactError> {
    let mut m = bytecode::read_module(bytes).map_err(ArtifactError::Read)?;
    super::legalize_to_stablehlo(&mut m).map_err(ArtifactError::Convert)?;
    Ok(m)
}
