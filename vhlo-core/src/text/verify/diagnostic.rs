//! What a conversion reports: one [`Diagnostic`] per reason it cannot be done.

use std::fmt;

use crate::ir::{Module, OpId};
use crate::text::location_to_string;
use crate::version::Version;

/// One reason a conversion cannot be done. With the `serde` feature it serializes as an object
/// with these fields (`needs` a version string or `null`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Diagnostic {
    /// The op it is about (its name when the problem was found).
    pub op: String,
    /// The op's location, printed as MLIR does (`"file":1:2`, `unknown`).
    pub location: String,
    /// What is refused: an op, an attribute, a type, a location.
    pub subject: String,
    /// The smallest version that would accept it, when a newer target would.
    pub needs: Option<Version>,
    /// The rule that refused it.
    pub rule: String,
}

impl Diagnostic {
    /// The message without its location: `` `op`: subject (rule) ``.
    pub fn without_location(&self) -> String {
        let mut s = format!("`{}`: {}", self.op, self.subject);
        if let Some(v) = self.needs {
            s.push_str(&format!(" needs version {v} or newer"));
        }
        if !self.rule.is_empty() {
            s.push_str(&format!(" ({})", self.rule));
        }
        s
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.without_location())
    }
}

/// Every reason a conversion failed, as one error (`?` works with it; it derefs to the list).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize), serde(transparent))]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        write!(
            f,
            "cannot convert the program ({n} problem{}):",
            if n == 1 { "" } else { "s" }
        )?;
        for d in &self.0 {
            write!(f, "\n  {d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

impl std::error::Error for Diagnostic {}

impl std::ops::Deref for Diagnostics {
    type Target = Vec<Diagnostic>;
    fn deref(&self) -> &Vec<Diagnostic> {
        &self.0
    }
}

impl std::ops::DerefMut for Diagnostics {
    fn deref_mut(&mut self) -> &mut Vec<Diagnostic> {
        &mut self.0
    }
}

impl From<Vec<Diagnostic>> for Diagnostics {
    fn from(ds: Vec<Diagnostic>) -> Self {
        Diagnostics(ds)
    }
}

impl From<Diagnostics> for Vec<Diagnostic> {
    fn from(ds: Diagnostics) -> Self {
        ds.0
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// All diagnostics as text, one per line.
pub fn diagnostics_to_text(ds: &[Diagnostic]) -> String {
    ds.iter().map(|d| format!("{d}\n")).collect()
}

pub(crate) fn diag(
    m: &Module,
    op: OpId,
    subject: impl Into<String>,
    needs: Option<Version>,
    rule: impl Into<String>,
) -> Diagnostic {
    Diagnostic {
        op: m.op_name_str(op).to_string(),
        location: location_to_string(m, m.op_location(op)),
        subject: subject.into(),
        needs,
        rule: rule.into(),
    }
}
