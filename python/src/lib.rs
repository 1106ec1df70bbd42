//! `vhlo._vhlo`: the extension module behind the `vhlo` Python package (`vhlo/__init__.py`).
//!
//! Every conversion runs with the GIL released (`Python::detach`); inputs are borrowed from the
//! caller's `str` or `bytes` for the call. Failures raise `vhlo.VhloError`, a `ValueError`
//! subclass whose attributes carry the diagnostics.

use std::borrow::Cow;

use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

use vhlo::api::{self, Failure};
use vhlo_core::compatibility::CompatibilityRequirement;

create_exception!(
    vhlo,
    VhloError,
    PyValueError,
    "A failed conversion, read or write, with its diagnostics.\n\n\
     Attributes: `kind` (`parse`, `version`, `bytecode`, `convert`, `internal`), `message` (one\n\
     line), `diagnostics` (a list of dicts with `op`, `location`, `subject`, `needs` and `rule`;\n\
     `needs` is the version that would accept it, or None), and `op`, `location` and `needs` of\n\
     the first diagnostic (None when there is none). `str(e)` is the message with one line per\n\
     diagnostic."
);

/// A `VhloError` from a failure.
fn raise(py: Python<'_>, f: Failure) -> PyErr {
    let err = VhloError::new_err(f.full_text());
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("kind", f.kind.name())?;
        value.setattr("message", &f.message)?;
        let list = PyList::empty(py);
        for d in &f.diagnostics {
            let dict = PyDict::new(py);
            dict.set_item("op", &d.op)?;
            dict.set_item("location", &d.location)?;
            dict.set_item("subject", &d.subject)?;
            dict.set_item("needs", d.needs.map(|v| v.to_string()))?;
            dict.set_item("rule", &d.rule)?;
            list.append(dict)?;
        }
        value.setattr("diagnostics", list)?;
        let first = f.diagnostics.first();
        value.setattr("op", first.map(|d| d.op.clone()))?;
        value.setattr("location", first.map(|d| d.location.clone()))?;
        value.setattr("needs", first.and_then(|d| d.needs.map(|v| v.to_string())))?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}

/// The bytes of a `str` (UTF-8; a copy under the 3.9 stable ABI) or `bytes` argument (borrowed
/// for the call).
fn input_bytes<'a>(obj: &'a Bound<'_, PyAny>, name: &str) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(match s.to_cow()? {
            Cow::Borrowed(s) => Cow::Borrowed(s.as_bytes()),
            Cow::Owned(s) => Cow::Owned(s.into_bytes()),
        });
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(b.as_bytes()));
    }
    Err(PyTypeError::new_err(format!(
        "{name} must be str or bytes, not {}",
        obj.get_type().name()?
    )))
}

/// Runs `f` without the GIL, catching panics; a failure raises `VhloError`.
fn detached<T: Send>(
    py: Python<'_>,
    what: &str,
    f: impl FnOnce() -> Result<T, Failure> + Send,
) -> PyResult<T> {
    py.detach(|| api::catching(what, f))
        .map_err(|e| raise(py, e))
}

/// get_api_version() -> int
///
/// The API version of this package (jaxlib's counts its own).
#[pyfunction]
fn get_api_version() -> i32 {
    api::API_VERSION
}

/// get_current_version() -> str
///
/// The current StableHLO version: the newest target, and the newest artifact read.
#[pyfunction]
fn get_current_version() -> String {
    vhlo_core::portable::current_version().to_string()
}

/// get_minimum_version() -> str
///
/// The minimum StableHLO version: the oldest target, and the oldest artifact read.
#[pyfunction]
fn get_minimum_version() -> String {
    vhlo_core::portable::minimum_version().to_string()
}

/// get_smaller_version(version1: str, version2: str) -> str
///
/// The smaller of two `X.Y.Z` versions; VhloError when either is not one.
#[pyfunction]
fn get_smaller_version(py: Python<'_>, version1: &str, version2: &str) -> PyResult<String> {
    api::smaller_version(version1, version2)
        .map(|v| v.to_string())
        .map_err(|e| raise(py, e))
}

/// _version_from_requirement(requirement: int, as_of: int | None) -> str
///
/// The version meeting requirement 0..3 (NONE, WEEK_4, WEEK_12, MAX) at `as_of` (Unix
/// seconds; now when None).
#[pyfunction]
#[pyo3(signature = (requirement, as_of=None))]
fn _version_from_requirement(
    py: Python<'_>,
    requirement: i64,
    as_of: Option<i64>,
) -> PyResult<String> {
    let r = usize::try_from(requirement)
        .ok()
        .and_then(|i| CompatibilityRequirement::ALL.get(i).copied())
        .ok_or_else(|| {
            raise(
                py,
                Failure {
                    kind: api::FailureKind::Version,
                    message: format!("{requirement} is not a compatibility requirement (0 to 3)"),
                    diagnostics: Vec::new(),
                },
            )
        })?;
    Ok(api::requirement_version(r, as_of).to_string())
}

/// serialize_portable_artifact_str(module_str: str | bytes, target_version: str, allow_other_dialects: bool = False) -> bytes
///
/// Writes a StableHLO program (MLIR text, or MLIR bytecode) as a portable artifact readable
/// by StableHLO `target_version` and later. Targets: `X.Y.Z`, `current`, `minimum`, and the
/// requirements `WEEK_4`, `WEEK_12`, `MAX` (today's windows). `allow_other_dialects` keeps ops
/// of other dialects (targets 1.11.0+). Raises VhloError with every blocker.
#[pyfunction]
#[pyo3(signature = (module_str, target_version, allow_other_dialects=false))]
fn serialize_portable_artifact_str<'py>(
    py: Python<'py>,
    module_str: &Bound<'py, PyAny>,
    target_version: &str,
    allow_other_dialects: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let input = input_bytes(module_str, "module_str")?;
    let out = detached(py, "serialize_portable_artifact_str", || {
        api::serialize(&input, target_version, allow_other_dialects)
    })?;
    Ok(PyBytes::new(py, &out))
}

/// deserialize_portable_artifact_str(artifact_str: str | bytes) -> bytes
///
/// Reads a portable artifact and returns the program as MLIR bytecode of current StableHLO, not
/// a portable artifact: what jaxlib's function of this name returns (parse it with
/// `jaxlib.mlir.ir.Module.parse`). For text, see deserialize_portable_artifact_to_text.
#[pyfunction]
fn deserialize_portable_artifact_str<'py>(
    py: Python<'py>,
    artifact_str: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let input = input_bytes(artifact_str, "artifact_str")?;
    let out = detached(py, "deserialize_portable_artifact_str", || {
        api::deserialize_to_bytecode(&input)
    })?;
    Ok(PyBytes::new(py, &out))
}

/// deserialize_portable_artifact_to_text(artifact: bytes | str, generic: bool = False, debug_info: bool = False) -> str
///
/// Reads a portable artifact and returns the program as StableHLO text: custom forms unless
/// `generic`, locations when `debug_info` (as `stablehlo-translate --deserialize` prints).
#[pyfunction]
#[pyo3(signature = (artifact, generic=false, debug_info=false))]
fn deserialize_portable_artifact_to_text(
    py: Python<'_>,
    artifact: &Bound<'_, PyAny>,
    generic: bool,
    debug_info: bool,
) -> PyResult<String> {
    let input = input_bytes(artifact, "artifact")?;
    detached(py, "deserialize_portable_artifact_to_text", || {
        api::deserialize_to_text(&input, generic, debug_info)
    })
}

/// minimum_version(module_str: str | bytes, allow_other_dialects: bool = False) -> str
///
/// The oldest StableHLO version the program (text or bytecode) can be written for; with
/// `allow_other_dialects`, keeping ops of other dialects as serializing would.
#[pyfunction]
#[pyo3(signature = (module_str, allow_other_dialects=false))]
fn minimum_version(
    py: Python<'_>,
    module_str: &Bound<'_, PyAny>,
    allow_other_dialects: bool,
) -> PyResult<String> {
    let input = input_bytes(module_str, "module_str")?;
    detached(py, "minimum_version", || {
        api::minimum_version(&input, allow_other_dialects)
    })
    .map(|v| v.to_string())
}

/// retarget(artifact: bytes, target_version: str) -> bytes
///
/// Rewrites a portable artifact for another target, artifact to artifact.
#[pyfunction]
fn retarget<'py>(
    py: Python<'py>,
    artifact: &Bound<'py, PyAny>,
    target_version: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let input = input_bytes(artifact, "artifact")?;
    let out = detached(py, "retarget", || api::retarget(&input, target_version))?;
    Ok(PyBytes::new(py, &out))
}

/// verify(module_str: str | bytes) -> None
///
/// Checks a program as MLIR's verifier would (structure and every StableHLO op's
/// constraints); raises VhloError with every failed check.
#[pyfunction]
fn verify(py: Python<'_>, module_str: &Bound<'_, PyAny>) -> PyResult<()> {
    let input = input_bytes(module_str, "module_str")?;
    detached(py, "verify", || api::verify(&input))
}

/// _inspect(artifact: bytes) -> dict
///
/// See vhlo.inspect.
#[pyfunction]
fn _inspect<'py>(py: Python<'py>, artifact: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let input = input_bytes(artifact, "artifact")?;
    let i = detached(py, "inspect", || api::inspect(&input))?;
    let d = PyDict::new(py);
    d.set_item("producer", &i.producer)?;
    d.set_item("bytecode_version", i.bytecode_version)?;
    d.set_item("target_version", i.target_version.map(|v| v.to_string()))?;
    d.set_item("ops", i.ops)?;
    let hist = PyDict::new(py);
    for (name, n) in &i.histogram {
        hist.set_item(name, n)?;
    }
    d.set_item("histogram", hist)?;
    d.set_item("minimum_version", i.minimum_version.map(|v| v.to_string()))?;
    d.set_item(
        "first_consumer_release",
        i.first_consumer.map(|t| t.version.to_string()),
    )?;
    d.set_item(
        "first_consumer_tagged",
        i.first_consumer.map(|t| t.tagged.to_string()),
    )?;
    d.set_item(
        "guaranteed_readable_until",
        i.guaranteed_until.map(|d| d.to_string()),
    )?;
    Ok(d)
}

/// _forward_guarantee_target(as_of: int) -> str
///
/// The target every consumer under the 2-year forward guarantee reads, at `as_of` (Unix seconds).
#[pyfunction]
fn _forward_guarantee_target(as_of: i64) -> String {
    vhlo_core::compatibility::forward_guarantee_target(as_of).to_string()
}

#[pymodule]
fn _vhlo(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("VhloError", m.py().get_type::<VhloError>())?;
    m.add_function(wrap_pyfunction!(get_api_version, m)?)?;
    m.add_function(wrap_pyfunction!(get_current_version, m)?)?;
    m.add_function(wrap_pyfunction!(get_minimum_version, m)?)?;
    m.add_function(wrap_pyfunction!(get_smaller_version, m)?)?;
    m.add_function(wrap_pyfunction!(_version_from_requirement, m)?)?;
    m.add_function(wrap_pyfunction!(serialize_portable_artifact_str, m)?)?;
    m.add_function(wrap_pyfunction!(deserialize_portable_artifact_str, m)?)?;
    m.add_function(wrap_pyfunction!(deserialize_portable_artifact_to_text, m)?)?;
    m.add_function(wrap_pyfunction!(minimum_version, m)?)?;
    m.add_function(wrap_pyfunction!(retarget, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(_inspect, m)?)?;
    m.add_function(wrap_pyfunction!(_forward_guarantee_target, m)?)?;
    Ok(())
}
