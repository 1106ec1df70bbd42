//! Spec diagnostics: every error carries `file:line:col`, and all of them are reported together.

use std::fmt;

/// A position in a spec file (1-based line and column; 0 when unknown).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

impl Pos {
    /// A position naming only the file.
    pub fn file(file: &str) -> Pos {
        Pos {
            file: file.to_string(),
            line: 0,
            col: 0,
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.col) {
            (0, _) => write!(f, "{}", self.file),
            (l, 0) => write!(f, "{}:{l}", self.file),
            (l, c) => write!(f, "{}:{l}:{c}", self.file),
        }
    }
}

/// One spec error.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    pub pos: Pos,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}", self.pos, self.message)
    }
}

/// Collects errors from every step; a step never stops at the first one.
#[derive(Default, Debug)]
pub struct Diagnostics {
    errors: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Records an error.
    pub fn error(&mut self, pos: Pos, message: impl Into<String>) {
        self.errors.push(Diagnostic {
            pos,
            message: message.into(),
        });
    }
    /// True when no error was recorded.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }
    /// The errors, in the order they were found.
    pub fn errors(&self) -> &[Diagnostic] {
        &self.errors
    }
    /// Drops the errors that only follow from a definition that did not load: those whose
    /// message contains one of `tokens` (the YAML errors that lost it stay).
    pub fn excuse(&mut self, tokens: &[String]) {
        self.errors.retain(|d| {
            d.message.starts_with("YAML error")
                || !tokens.iter().any(|t| d.message.contains(t.as_str()))
        });
    }
    /// Ends collection: `Err` with every error when there is any, by file and line (the order
    /// a reader fixes them in; errors at one position keep the order they were found in).
    pub fn finish(mut self) -> Result<(), SpecErrors> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            self.errors.sort_by(|a, b| a.pos.cmp(&b.pos));
            Err(SpecErrors(self.errors))
        }
    }
}

/// The errors of a spec that failed to load or check.
#[derive(Debug, Clone)]
pub struct SpecErrors(pub Vec<Diagnostic>);

impl fmt::Display for SpecErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        writeln!(
            f,
            "the VHLO spec has {n} error{}:",
            if n == 1 { "" } else { "s" }
        )?;
        for d in &self.0 {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for SpecErrors {}

/// The closest of `names` to `typo` at edit distance 1 or 2, as a hint (empty when none is).
pub(crate) fn did_you_mean<'a>(typo: &str, names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| (edit_distance(typo, n), n))
        .filter(|(d, _)| *d > 0 && *d <= 2)
        .min()
        .map(|(_, n)| format!("; did you mean `{n}`?"))
        .unwrap_or_default()
}

/// Levenshtein distance, for typo hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
