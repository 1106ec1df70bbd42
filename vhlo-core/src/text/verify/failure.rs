//! What a failed check is, and where failures go.

use super::Diagnostic;
use crate::ir::{Module, OpId};

/// One failed check, before it is given the op's name and location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    /// The constraint: a spec id (`C1`), an ODS trait, or an MLIR rule.
    pub rule: &'static str,
    pub message: String,
    /// Where in the op's text MLIR reports it.
    pub place: Place,
}

/// Where MLIR reports a failure: at the op, or at one of its attributes (an attribute's own
/// verifier runs as the attribute is parsed; an inherent attribute of a custom-syntax op is
/// checked as its attribute dictionary is read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Op,
    /// At the value of the named attribute.
    AttributeValue(&'static str),
    /// At the `{` of the dictionary that holds the named attribute, when the op is in custom
    /// syntax (at the op in generic syntax).
    AttributeDict(&'static str),
    /// At another op, which the op's verifier checks (`scf.forall.in_parallel` its inserts).
    Nested(OpId),
}

impl Failure {
    /// The same failure, placed at `place`.
    pub fn at(mut self, place: Place) -> Failure {
        self.place = place;
        self
    }
}

/// The result of one check.
pub(crate) type Check = Result<(), Failure>;

/// A failed check of `rule`.
pub(crate) fn fail(rule: &'static str, message: impl Into<String>) -> Failure {
    Failure {
        rule,
        message: message.into(),
        place: Place::Op,
    }
}

/// Returns early with a [`Failure`] of `rule`, its message formatted as by `format!`.
macro_rules! bail {
    ($rule:expr, $($fmt:tt)+) => {
        return Err($crate::text::verify::fail($rule, format!($($fmt)+)))
    };
}
/// Fails with `rule` unless `cond` holds.
macro_rules! ensure {
    ($cond:expr, $rule:expr, $($fmt:tt)+) => {
        if !$cond {
            $crate::text::verify::bail!($rule, $($fmt)+);
        }
    };
}
pub(crate) use {bail, ensure};

/// Where failures go: each becomes a [`Diagnostic`] naming its op and location.
pub(crate) struct Sink<'m> {
    pub m: &'m Module,
    pub out: Vec<Diagnostic>,
    /// The ops the diagnostics are about and where in them, in the same order (for callers that
    /// want positions).
    pub ops: Vec<Option<(OpId, Place)>>,
}

impl<'m> Sink<'m> {
    pub(crate) fn new(m: &'m Module) -> Self {
        Sink {
            m,
            out: Vec::new(),
            ops: Vec::new(),
        }
    }

    /// Records `f` against `op`.
    pub fn report(&mut self, op: OpId, mut f: Failure) {
        let m = self.m;
        let op = match f.place {
            Place::Nested(other) => {
                f.place = Place::Op;
                other
            }
            _ => op,
        };
        self.out.push(Diagnostic {
            op: m.op_name_str(op).to_string(),
            location: crate::text::location_to_string(m, m.op_location(op)),
            subject: f.message,
            needs: None,
            rule: f.rule.to_string(),
        });
        self.ops.push(Some((op, f.place)));
    }
}
