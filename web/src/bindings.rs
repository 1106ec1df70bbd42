//! The JavaScript API (wasm-bindgen). Objects cross as JSON (`JSON.parse` on the JavaScript
//! side); a failure is thrown as a JavaScript `Error` named `VhloError` whose own fields are
//! those of [`WebError`]: `kind`, `message`, `offset` and `section` (bytecode), `line` and
//! `column` (text), and `diagnostics` (each with `op`, `location`, `subject`, `needs`, `rule`).
//!
//! On the host these functions compile (for clippy and the crate's tests) but are not called:
//! wasm-bindgen's imports exist only in WebAssembly.

use std::cell::RefCell;

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::report::{self, Report};
use crate::{Loaded, TextOptions, WebError};

// The few JavaScript built-ins this module calls (declared here rather than taking js-sys and
// its futures dependencies for four functions).
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = Error)]
    type ErrorObject;
    #[wasm_bindgen(constructor, js_class = "Error")]
    fn new_error(message: &str) -> ErrorObject;
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(text: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = Object, js_name = assign)]
    fn object_assign(target: &JsValue, source: &JsValue) -> JsValue;
    #[wasm_bindgen(js_namespace = Reflect, js_name = get, catch)]
    fn reflect_get(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;
}

thread_local! {
    /// The message of the last panic, for `lastPanic()` (a panic aborts the WebAssembly call
    /// with a `RuntimeError: unreachable` that says nothing of why).
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs when the module is instantiated: panics leave their message for `lastPanic()`.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info.to_string();
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(msg));
    }));
}

/// The message of the last panic (a bug: the instance should then be dropped), or undefined.
#[wasm_bindgen(js_name = lastPanic)]
pub fn last_panic() -> Option<String> {
    LAST_PANIC.with(|p| p.borrow().clone())
}

/// A JavaScript value of `value` (through JSON, which these plain structs always give).
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    let json = serde_json::to_string(value).map_err(|e| JsValue::from_str(&e.to_string()))?;
    json_parse(&json)
}

/// The own fields of a thrown error.
#[derive(Serialize)]
struct Thrown<'a> {
    name: &'static str,
    #[serde(flatten)]
    error: &'a WebError,
}

/// A thrown `VhloError` carrying `e`'s fields.
fn throw(e: WebError) -> JsValue {
    let err: JsValue = ErrorObject::new_error(&e.message).into();
    if let Ok(fields) = to_js(&Thrown {
        name: "VhloError",
        error: &e,
    }) {
        object_assign(&err, &fields);
    }
    err
}

/// A boolean field of an options object (`undefined` and absent fields are false).
fn flag(opts: &JsValue, name: &str) -> bool {
    opts.is_object()
        && reflect_get(opts, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
}

/// A string field of an options object.
fn field(opts: &JsValue, name: &str) -> Option<String> {
    if !opts.is_object() {
        return None;
    }
    reflect_get(opts, &JsValue::from_str(name))
        .ok()
        .and_then(|v| v.as_string())
}

fn text_options(opts: &JsValue) -> TextOptions {
    TextOptions {
        generic: flag(opts, "generic"),
        locations: flag(opts, "locations"),
    }
}

/// The newest StableHLO version this module reads and writes.
#[wasm_bindgen(js_name = currentVersion)]
pub fn current_version() -> String {
    vhlo_core::portable::current_version().to_string()
}

/// The releases of StableHLO, oldest first: `{version, date, bytecode_version}`.
#[wasm_bindgen]
pub fn releases() -> Result<JsValue, JsValue> {
    let rows: Vec<report::ReleaseRow> = vhlo_core::vhlo::RELEASES.iter().map(Into::into).collect();
    to_js(&rows)
}

/// `inspect(bytes, name?)`: the report of an artifact, a `jax.export` file or MLIR text, with
/// its minimum version.
#[wasm_bindgen]
pub fn inspect(bytes: Vec<u8>, name: Option<String>) -> Result<JsValue, JsValue> {
    let report = crate::inspect(bytes, name.as_deref().unwrap_or("<input>")).map_err(throw)?;
    to_js(&report)
}

/// `toText(bytes, {generic, locations, name})`: the program as `vhlo-translate --deserialize`
/// prints it (`--mlir-print-op-generic`, `--mlir-print-debuginfo`).
#[wasm_bindgen(js_name = toText)]
pub fn to_text(bytes: Vec<u8>, opts: JsValue) -> Result<String, JsValue> {
    let name = field(&opts, "name").unwrap_or_else(|| "<input>".into());
    crate::to_text(bytes, &name, text_options(&opts)).map_err(throw)
}

/// `retarget(bytes, version)`: an artifact for StableHLO `version` (`X.Y.Z`, `current`,
/// `minimum`), as a `Uint8Array`.
#[wasm_bindgen]
pub fn retarget(bytes: Vec<u8>, version: &str) -> Result<Vec<u8>, JsValue> {
    crate::retarget(bytes, version).map_err(throw)
}

/// `serialize(text, version, {allowOtherDialects, name})`: StableHLO text as an artifact for
/// `version`.
#[wasm_bindgen]
pub fn serialize(text: &str, version: &str, opts: JsValue) -> Result<Vec<u8>, JsValue> {
    let name = field(&opts, "name").unwrap_or_else(|| "<input>".into());
    crate::serialize(text, version, &name, flag(&opts, "allowOtherDialects")).map_err(throw)
}

/// A file read once, for a page that asks several questions of it (`inspect` and the others
/// read the file again at each call).
#[wasm_bindgen]
pub struct Artifact {
    loaded: Loaded,
}

#[wasm_bindgen]
impl Artifact {
    /// Reads `bytes` (throws a `VhloError` when it cannot).
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: Vec<u8>, name: Option<String>) -> Result<Artifact, JsValue> {
        let loaded = Loaded::open(bytes, name.as_deref().unwrap_or("<input>")).map_err(throw)?;
        Ok(Artifact { loaded })
    }

    /// The report without the minimum version (quick even for a large program).
    pub fn summary(&self) -> Result<JsValue, JsValue> {
        to_js(&Report::of(&self.loaded, false))
    }

    /// `{version, blockers, writable_for}`: the oldest release the program can be written for.
    pub fn minimum(&self) -> Result<JsValue, JsValue> {
        to_js(&report::minimum_of(&self.loaded))
    }

    /// The program as text (`{generic, locations}`).
    pub fn text(&self, opts: JsValue) -> String {
        self.loaded.text(text_options(&opts))
    }

    /// An artifact for StableHLO `version`.
    pub fn retarget(&self, version: &str) -> Result<Vec<u8>, JsValue> {
        self.loaded.retarget(version).map_err(throw)
    }
}
