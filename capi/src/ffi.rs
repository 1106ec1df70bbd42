//! The exported C functions. See `include/vhlo.h` for the contract; the header is generated
//! from these declarations and their doc comments.
//!
//! Every entry point runs inside `catch_unwind`: a panic in the library becomes a failure with
//! kind [`VHLO_ERROR_INTERNAL`], never an unwind into C.

use std::cell::RefCell;
use std::ffi::{c_char, c_void};

use crate::api::{self, Failure, FailureKind};
use vhlo_core::compatibility::CompatibilityRequirement;

/// A pointer and a length: the bytes are not NUL-terminated and may contain NUL. `data` may be
/// NULL when `length` is 0.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct VhloStringRef {
    pub data: *const c_char,
    pub length: usize,
}

/// Receives a returned string. The bytes are valid only during the call (copy them to keep
/// them); `user_data` is the pointer given to the function. Called at most once per function
/// call, and only on success.
pub type VhloStringCallback =
    Option<unsafe extern "C" fn(string: VhloStringRef, user_data: *mut c_void)>;

/// `NONE`: the current version.
pub const VHLO_COMPATIBILITY_NONE: i32 = 0;
/// `WEEK_4`: the newest release tagged at least 28 days earlier.
pub const VHLO_COMPATIBILITY_WEEK_4: i32 = 1;
/// `WEEK_12`: the newest release tagged at least 84 days earlier.
pub const VHLO_COMPATIBILITY_WEEK_12: i32 = 2;
/// `MAX`: the minimum version.
pub const VHLO_COMPATIBILITY_MAX: i32 = 3;

/// No error on this thread.
pub const VHLO_ERROR_NONE: i32 = 0;
/// Not UTF-8, or MLIR text that does not parse.
pub const VHLO_ERROR_PARSE: i32 = 1;
/// A bad version, target or requirement.
pub const VHLO_ERROR_VERSION: i32 = 2;
/// Not a readable artifact (truncated, corrupt, written by a newer StableHLO).
pub const VHLO_ERROR_BYTECODE: i32 = 3;
/// The program cannot be converted (an op the target is too old for, ...).
pub const VHLO_ERROR_CONVERT: i32 = 4;
/// A bad argument (a NULL pointer with a length, a NULL callback).
pub const VHLO_ERROR_ARGUMENT: i32 = 5;
/// A bug in vhlo-rs (a panic, caught).
pub const VHLO_ERROR_INTERNAL: i32 = 6;

/// Diagnostic field: the op (`stablehlo.tan`).
pub const VHLO_DIAGNOSTIC_OP: i32 = 0;
/// Diagnostic field: the location as MLIR prints it (`"-":2:7`, `unknown`).
pub const VHLO_DIAGNOSTIC_LOCATION: i32 = 1;
/// Diagnostic field: what is refused.
pub const VHLO_DIAGNOSTIC_SUBJECT: i32 = 2;
/// Diagnostic field: the smallest version that would accept it (empty when none would).
pub const VHLO_DIAGNOSTIC_NEEDS: i32 = 3;
/// Diagnostic field: the rule that refused it.
pub const VHLO_DIAGNOSTIC_RULE: i32 = 4;

struct LastError {
    code: i32,
    failure: Failure,
}

thread_local! {
    static LAST_ERROR: RefCell<Option<LastError>> = const { RefCell::new(None) };
}

fn set_error(code: i32, failure: Failure) {
    LAST_ERROR.with(|e| *e.borrow_mut() = Some(LastError { code, failure }));
}

fn clear_error() {
    LAST_ERROR.with(|e| *e.borrow_mut() = None);
}

fn code_of(kind: FailureKind) -> i32 {
    match kind {
        FailureKind::Parse => VHLO_ERROR_PARSE,
        FailureKind::Version => VHLO_ERROR_VERSION,
        FailureKind::Bytecode => VHLO_ERROR_BYTECODE,
        FailureKind::Convert => VHLO_ERROR_CONVERT,
        FailureKind::Internal => VHLO_ERROR_INTERNAL,
    }
}

fn argument_error(message: &str) -> Failure {
    Failure {
        kind: FailureKind::Version,
        message: message.to_string(),
        diagnostics: Vec::new(),
    }
}

/// The bytes of a string ref.
///
/// # Safety
/// `s.data` must point to `s.length` readable bytes (or be NULL with length 0).
unsafe fn bytes<'a>(s: VhloStringRef, name: &str) -> Result<&'a [u8], (i32, Failure)> {
    if s.length == 0 {
        return Ok(&[]);
    }
    if s.data.is_null() {
        return Err((
            VHLO_ERROR_ARGUMENT,
            argument_error(&format!("`{name}` is NULL with length {}", s.length)),
        ));
    }
    // SAFETY: the caller promises `length` readable bytes at `data`.
    Ok(unsafe { std::slice::from_raw_parts(s.data.cast::<u8>(), s.length) })
}

/// Calls `callback` with `out`.
///
/// # Safety
/// `callback` must be safe to call with `user_data`.
unsafe fn give(callback: VhloStringCallback, user_data: *mut c_void, out: &[u8]) {
    if let Some(cb) = callback {
        let s = VhloStringRef {
            data: out.as_ptr().cast::<c_char>(),
            length: out.len(),
        };
        // SAFETY: the caller's callback contract.
        unsafe { cb(s, user_data) };
    }
}

/// The body of every fallible entry point: clears the thread's error, runs `f` catching panics,
/// hands the result to the callback, records a failure.
///
/// # Safety
/// As [`give`].
unsafe fn run(
    what: &str,
    callback: VhloStringCallback,
    user_data: *mut c_void,
    f: impl FnOnce() -> Result<Vec<u8>, (i32, Failure)>,
) -> bool {
    clear_error();
    if callback.is_none() {
        set_error(
            VHLO_ERROR_ARGUMENT,
            argument_error(&format!("{what}: the callback is NULL")),
        );
        return false;
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .unwrap_or_else(|_| Err((VHLO_ERROR_INTERNAL, Failure::internal(what))));
    match result {
        Ok(out) => {
            // A panic cannot come from here: the callback is C code, which does not unwind.
            // SAFETY: the caller's callback contract.
            unsafe { give(callback, user_data, &out) };
            true
        }
        Err((code, failure)) => {
            set_error(code, failure);
            false
        }
    }
}

fn lift<T>(r: Result<T, Failure>) -> Result<T, (i32, Failure)> {
    r.map_err(|f| (code_of(f.kind), f))
}

/// The API version of this library (upstream's `stablehloGetApiVersion` counts its own).
#[no_mangle]
pub extern "C" fn vhloGetApiVersion() -> i32 {
    api::API_VERSION
}

/// The current StableHLO version (`1.20.0`): the newest target and the newest artifact read.
///
/// # Safety
/// `callback`, if not NULL, must be safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn vhloGetCurrentVersion(
    callback: VhloStringCallback,
    user_data: *mut c_void,
) {
    // SAFETY: forwarded contract.
    unsafe {
        give(
            callback,
            user_data,
            vhlo_core::portable::current_version()
                .to_string()
                .as_bytes(),
        )
    }
}

/// The minimum StableHLO version (`0.9.0`): the oldest target and the oldest artifact read.
///
/// # Safety
/// `callback`, if not NULL, must be safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn vhloGetMinimumVersion(
    callback: VhloStringCallback,
    user_data: *mut c_void,
) {
    // SAFETY: forwarded contract.
    unsafe {
        give(
            callback,
            user_data,
            vhlo_core::portable::minimum_version()
                .to_string()
                .as_bytes(),
        )
    }
}

/// The smaller of two `X.Y.Z` versions. False (and an error) when either is not a version.
///
/// # Safety
/// Each string ref must be valid (see [`VhloStringRef`]); `callback` must be safe to call with
/// `user_data`.
#[no_mangle]
pub unsafe extern "C" fn vhloGetSmallerVersion(
    version1: VhloStringRef,
    version2: VhloStringRef,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        run("vhloGetSmallerVersion", callback, user_data, || {
            let a = String::from_utf8_lossy(bytes(version1, "version1")?).into_owned();
            let b = String::from_utf8_lossy(bytes(version2, "version2")?).into_owned();
            lift(api::smaller_version(&a, &b)).map(|v| v.to_string().into_bytes())
        })
    }
}

fn requirement(code: i32) -> Result<CompatibilityRequirement, (i32, Failure)> {
    usize::try_from(code)
        .ok()
        .and_then(|i| CompatibilityRequirement::ALL.get(i).copied())
        .ok_or_else(|| {
            (
                VHLO_ERROR_ARGUMENT,
                argument_error(&format!(
                    "{code} is not a compatibility requirement (0 to 3)"
                )),
            )
        })
}

/// The version meeting a compatibility requirement today (`VHLO_COMPATIBILITY_*`): WEEK_4 and
/// WEEK_12 are computed from the release tag dates as upstream's release script computes them.
/// False for a value outside 0..3.
///
/// # Safety
/// `callback` must be safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn vhloVersionFromCompatibilityRequirement(
    requirement_code: i32,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        run(
            "vhloVersionFromCompatibilityRequirement",
            callback,
            user_data,
            || {
                let r = requirement(requirement_code)?;
                Ok(api::requirement_version(r, None).to_string().into_bytes())
            },
        )
    }
}

/// [`vhloVersionFromCompatibilityRequirement`] at a given moment, in Unix seconds (a day's
/// 00:00:00 UTC for a day).
///
/// # Safety
/// `callback` must be safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn vhloVersionFromCompatibilityRequirementAsOf(
    requirement_code: i32,
    unix_seconds: i64,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        run(
            "vhloVersionFromCompatibilityRequirementAsOf",
            callback,
            user_data,
            || {
                let r = requirement(requirement_code)?;
                Ok(api::requirement_version(r, Some(unix_seconds))
                    .to_string()
                    .into_bytes())
            },
        )
    }
}

/// Writes a StableHLO program (MLIR text, or MLIR bytecode) as a portable artifact for
/// `target_version` (`X.Y.Z`, `current`, `minimum`, `WEEK_4`, `WEEK_12`, `MAX`). The callback
/// receives the artifact's bytes.
///
/// # Safety
/// Each string ref must be valid (see [`VhloStringRef`]); `callback` must be safe to call with
/// `user_data`.
#[no_mangle]
pub unsafe extern "C" fn vhloSerializePortableArtifactFromStringRef(
    module_str: VhloStringRef,
    target_version: VhloStringRef,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        vhloSerializePortableArtifactWithOptions(
            module_str,
            target_version,
            false,
            callback,
            user_data,
        )
    }
}

/// [`vhloSerializePortableArtifactFromStringRef`], keeping ops, types and attributes of other
/// dialects when `allow_other_dialects` (targets 1.11.0 and later).
///
/// # Safety
/// As [`vhloSerializePortableArtifactFromStringRef`].
#[no_mangle]
pub unsafe extern "C" fn vhloSerializePortableArtifactWithOptions(
    module_str: VhloStringRef,
    target_version: VhloStringRef,
    allow_other_dialects: bool,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        run("vhloSerializePortableArtifact", callback, user_data, || {
            let input = bytes(module_str, "module_str")?;
            let target =
                String::from_utf8_lossy(bytes(target_version, "target_version")?).into_owned();
            lift(api::serialize(input, &target, allow_other_dialects))
        })
    }
}

/// Reads a portable artifact and returns the program as MLIR bytecode of current StableHLO
/// (not a portable artifact), as upstream's `stablehloDeserializePortableArtifact` does.
///
/// # Safety
/// `artifact` must be valid (see [`VhloStringRef`]); `callback` must be safe to call with
/// `user_data`.
#[no_mangle]
pub unsafe extern "C" fn vhloDeserializePortableArtifact(
    artifact: VhloStringRef,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        run(
            "vhloDeserializePortableArtifact",
            callback,
            user_data,
            || lift(api::deserialize_to_bytecode(bytes(artifact, "artifact")?)),
        )
    }
}

/// Reads a portable artifact and returns the program as StableHLO text (custom forms unless
/// `generic`; locations when `debug_info`).
///
/// # Safety
/// As [`vhloDeserializePortableArtifact`].
#[no_mangle]
pub unsafe extern "C" fn vhloDeserializePortableArtifactToText(
    artifact: VhloStringRef,
    generic: bool,
    debug_info: bool,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        run(
            "vhloDeserializePortableArtifactToText",
            callback,
            user_data,
            || {
                lift(api::deserialize_to_text(
                    bytes(artifact, "artifact")?,
                    generic,
                    debug_info,
                ))
                .map(String::into_bytes)
            },
        )
    }
}

/// The oldest version a program (MLIR text or bytecode) can be written for; with
/// `allow_other_dialects`, keeping ops of other dialects as serializing would.
///
/// # Safety
/// As [`vhloDeserializePortableArtifact`].
#[no_mangle]
pub unsafe extern "C" fn vhloMinimumVersionOf(
    module_str: VhloStringRef,
    allow_other_dialects: bool,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        run("vhloMinimumVersionOf", callback, user_data, || {
            lift(api::minimum_version(
                bytes(module_str, "module_str")?,
                allow_other_dialects,
            ))
            .map(|v| v.to_string().into_bytes())
        })
    }
}

/// Checks a program (MLIR text or bytecode) as MLIR's verifier would; false with every failed
/// check as a diagnostic (kind `VHLO_ERROR_CONVERT`) when it does not verify. The callback
/// receives `ok` on success.
///
/// # Safety
/// As [`vhloDeserializePortableArtifact`].
#[no_mangle]
pub unsafe extern "C" fn vhloVerify(
    module_str: VhloStringRef,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        run("vhloVerify", callback, user_data, || {
            lift(api::verify(bytes(module_str, "module_str")?)).map(|()| b"ok".to_vec())
        })
    }
}

/// Rewrites a portable artifact for another target (artifact to artifact).
///
/// # Safety
/// As [`vhloSerializePortableArtifactFromStringRef`].
#[no_mangle]
pub unsafe extern "C" fn vhloRetargetPortableArtifact(
    artifact: VhloStringRef,
    target_version: VhloStringRef,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: forwarded contract.
    unsafe {
        run("vhloRetargetPortableArtifact", callback, user_data, || {
            let input = bytes(artifact, "artifact")?;
            let target =
                String::from_utf8_lossy(bytes(target_version, "target_version")?).into_owned();
            lift(api::retarget(input, &target))
        })
    }
}

/// True when the last call on this thread failed.
#[no_mangle]
pub extern "C" fn vhloHasError() -> bool {
    LAST_ERROR.with(|e| e.borrow().is_some())
}

/// The kind of the last failure on this thread (`VHLO_ERROR_*`; `VHLO_ERROR_NONE` after a
/// success).
#[no_mangle]
pub extern "C" fn vhloGetErrorKind() -> i32 {
    LAST_ERROR.with(|e| e.borrow().as_ref().map_or(VHLO_ERROR_NONE, |e| e.code))
}

/// The message of the last failure on this thread, one diagnostic a line after the first
/// (the callback is not called when there is none).
///
/// # Safety
/// `callback`, if not NULL, must be safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn vhloGetErrorMessage(callback: VhloStringCallback, user_data: *mut c_void) {
    let text = LAST_ERROR.with(|e| e.borrow().as_ref().map(|e| e.failure.full_text()));
    if let Some(t) = text {
        // SAFETY: forwarded contract.
        unsafe { give(callback, user_data, t.as_bytes()) }
    }
}

/// The diagnostics of the last failure on this thread as a JSON array of objects with `op`,
/// `location`, `subject`, `needs` (a version or null) and `rule` (`[]` when there is none).
///
/// # Safety
/// `callback`, if not NULL, must be safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn vhloGetErrorDiagnosticsJson(
    callback: VhloStringCallback,
    user_data: *mut c_void,
) {
    let json = LAST_ERROR.with(|e| e.borrow().as_ref().map(|e| e.failure.diagnostics_json()));
    // SAFETY: forwarded contract.
    unsafe {
        give(
            callback,
            user_data,
            json.as_deref().unwrap_or("[]").as_bytes(),
        )
    }
}

/// The number of diagnostics of the last failure on this thread.
#[no_mangle]
pub extern "C" fn vhloGetErrorDiagnosticCount() -> usize {
    LAST_ERROR.with(|e| {
        e.borrow()
            .as_ref()
            .map_or(0, |e| e.failure.diagnostics.len())
    })
}

/// One field (`VHLO_DIAGNOSTIC_*`) of diagnostic `index` of the last failure on this thread.
/// False when there is no such diagnostic or field.
///
/// # Safety
/// `callback`, if not NULL, must be safe to call with `user_data`.
#[no_mangle]
pub unsafe extern "C" fn vhloGetErrorDiagnostic(
    index: usize,
    field: i32,
    callback: VhloStringCallback,
    user_data: *mut c_void,
) -> bool {
    let value = LAST_ERROR.with(|e| {
        let e = e.borrow();
        let d = e.as_ref()?.failure.diagnostics.get(index)?;
        Some(match field {
            VHLO_DIAGNOSTIC_OP => d.op.clone(),
            VHLO_DIAGNOSTIC_LOCATION => d.location.clone(),
            VHLO_DIAGNOSTIC_SUBJECT => d.subject.clone(),
            VHLO_DIAGNOSTIC_NEEDS => d.needs.map(|v| v.to_string()).unwrap_or_default(),
            VHLO_DIAGNOSTIC_RULE => d.rule.clone(),
            _ => return None,
        })
    });
    match value {
        Some(v) => {
            // SAFETY: forwarded contract.
            unsafe { give(callback, user_data, v.as_bytes()) };
            true
        }
        None => false,
    }
}

/// Forgets the last failure on this thread.
#[no_mangle]
pub extern "C" fn vhloClearError() {
    clear_error();
}
