//! The error value: which directive failed, why, and where in the input.

use std::fmt;

use crate::text;

/// What kind of failure a [`CheckFailure`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The check file (or the options) could not be parsed: bad directive, bad regex, no directives.
    InvalidCheckFile,
    /// The input is empty and empty input was not allowed.
    EmptyInput,
    /// A positive directive (CHECK, -LABEL, -DAG, -COUNT, -EMPTY) found no match.
    NotFound,
    /// A -NEXT/-EMPTY match is not on the next line, or a -SAME match is not on the same line.
    WrongLine,
    /// A -NOT pattern matched.
    ExcludedFound,
    /// A pattern uses a variable that no earlier match defined.
    UndefinedVariable,
}

/// A place in the (canonicalized) input, with a label such as "scanning from here", and the nearby lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputNote {
    pub label: String,
    /// 1-based line in the input.
    pub line: usize,
    /// 1-based column (in characters) in the canonicalized input line.
    pub column: usize,
    /// A few input lines starting at `line`, numbered, with a caret under `column`.
    pub excerpt: String,
}

/// Why a check failed, in FileCheck's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckFailure {
    pub kind: FailureKind,
    /// E.g. `CHECK-NEXT: is not on the line after the previous match`.
    pub message: String,
    /// 1-based line of the directive in the check file, when one is to blame.
    pub check_line: Option<usize>,
    /// That line of the check file as written.
    pub check_text: String,
    pub notes: Vec<InputNote>,
}

/// How many input lines an excerpt shows.
const EXCERPT_LINES: usize = 4;

impl CheckFailure {
    pub(crate) fn without_check(kind: FailureKind, message: String) -> Self {
        CheckFailure {
            kind,
            message,
            check_line: None,
            check_text: String::new(),
            notes: Vec::new(),
        }
    }

    pub(crate) fn at_check(
        kind: FailureKind,
        message: String,
        check_file: &str,
        line: usize,
    ) -> Self {
        CheckFailure {
            kind,
            message,
            check_line: Some(line),
            check_text: text::line_text(check_file, line).to_string(),
            notes: Vec::new(),
        }
    }

    pub(crate) fn with_note(mut self, input: &str, offset: usize, label: &str) -> Self {
        let (line, column) = text::line_column(input, offset);
        let mut excerpt = String::new();
        for (i, line_text) in input
            .split('\n')
            .skip(line - 1)
            .take(EXCERPT_LINES)
            .enumerate()
        {
            excerpt.push_str(&format!("{:>6} | {}\n", line + i, line_text));
            if i == 0 {
                excerpt.push_str(&format!("{:>6} | {}^\n", "", " ".repeat(column - 1)));
            }
        }
        self.notes.push(InputNote {
            label: label.to_string(),
            line,
            column,
            excerpt,
        });
        self
    }
}

impl fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.check_line {
            Some(line) => {
                writeln!(f, "check:{line}: error: {}", self.message)?;
                writeln!(f, "{}", self.check_text.trim_end())?;
            }
            None => writeln!(f, "error: {}", self.message)?,
        }
        for note in &self.notes {
            writeln!(
                f,
                "input:{}:{}: note: {}",
                note.line, note.column, note.label
            )?;
            write!(f, "{}", note.excerpt)?;
        }
        Ok(())
    }
}

impl std::error::Error for CheckFailure {}
