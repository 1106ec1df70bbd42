//! Errors of the JavaScript API: one struct that becomes a JavaScript `Error` with these fields
//! (see `bindings.rs`), so that a page can show where the problem is.

use serde::Serialize;
use vhlo_core::convert::Diagnostic;
use vhlo_core::portable::PortableError;

/// Why a call failed.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct WebError {
    /// `bytecode`, `parse`, `convert`, `version`, `not_portable`, `write`,
    /// `jax_export` or `input`.
    pub kind: &'static str,
    /// The whole message, as `vhlo-translate` prints it.
    pub message: String,
    /// For `bytecode` and `jax_export`: the byte offset in the file (for a `jax_export` file
    /// whose module fails, the offset in the whole file) and the bytecode section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<&'static str>,
    /// For `parse`: the 1-based line and column in the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// For `convert`: every blocker, with its op, location, subject, needed version and rule.
    pub diagnostics: Vec<Diagnostic>,
}

impl WebError {
    /// An error of `kind` with only a message.
    pub fn new(kind: &'static str, message: impl Into<String>) -> WebError {
        WebError {
            kind,
            message: message.into(),
            offset: None,
            section: None,
            line: None,
            column: None,
            diagnostics: Vec::new(),
        }
    }

    /// A conversion failure listing its blockers.
    pub fn convert(message: impl Into<String>, diagnostics: Vec<Diagnostic>) -> WebError {
        let mut e = WebError::new("convert", message);
        let lines: Vec<String> = diagnostics.iter().map(|d| format!("  {d}")).collect();
        if !lines.is_empty() {
            e.message = format!("{}:\n{}", e.message, lines.join("\n"));
        }
        e.diagnostics = diagnostics;
        e
    }

    /// Shifts a bytecode offset by where the artifact starts in the file (a `jax.export`
    /// file holds its artifact after the flatbuffer's header).
    pub fn at_file_offset(mut self, start: usize) -> WebError {
        if start != 0 {
            if let Some(o) = self.offset.as_mut() {
                *o += start;
                self.message = format!(
                    "{} (byte {} of the file: the module starts at byte {start})",
                    self.message, *o
                );
            }
        }
        self
    }
}

impl std::fmt::Display for WebError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WebError {}

impl From<PortableError> for WebError {
    fn from(e: PortableError) -> WebError {
        let message = e.to_string();
        match e {
            PortableError::Bytecode(b) => WebError {
                offset: Some(b.offset),
                section: Some(b.section),
                ..WebError::new("bytecode", message)
            },
            PortableError::Convert(ds) => WebError::convert("cannot convert the program", ds),
            PortableError::Version(_) => WebError::new("version", message),
            PortableError::NotPortable { .. } => WebError::new("not_portable", message),
            PortableError::Write(_) => WebError::new("write", message),
            // A kind added to the library later: its message, under a generic kind.
            _ => WebError::new("error", message),
        }
    }
}

impl From<vhlo_core::bytecode::BytecodeError> for WebError {
    fn from(e: vhlo_core::bytecode::BytecodeError) -> WebError {
        PortableError::Bytecode(e).into()
    }
}

impl From<vhlo_core::text::ParseError> for WebError {
    fn from(e: vhlo_core::text::ParseError) -> WebError {
        WebError {
            line: Some(e.line),
            column: Some(e.column),
            ..WebError::new("parse", e.to_string())
        }
    }
}
