//! MLIR's `-verify-diagnostics` protocol with `-split-input-file`: a file is cut at `// -----`
//! lines into cases, and each case lists the diagnostics it expects in comments:
//!
//! ```text
//! // expected-error@+1 {{operand has 6 elements}}
//! %0 = stablehlo.reshape %a : (tensor<2x3xf32>) -> tensor<8xf32>
//! ```
//!
//! `expected-error` (also `-warning`, `-remark`, `-note`) marks the line it is on, `@+N`/`@-N` a
//! line relative to it, `@above`/`@below` the line before/after it; the text in `{{...}}` must
//! occur in the diagnostic's message. A case with no expected error must be accepted.

/// The severity an expectation names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Remark,
    Note,
}

/// One `expected-*` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub severity: Severity,
    /// The line the diagnostic must be reported at, 1-based within the whole file.
    pub line: u32,
    /// The line of the comment itself, 1-based within the whole file.
    pub comment_line: u32,
    /// The text that must occur in the message.
    pub message: String,
}

/// One `// -----` split of a file.
#[derive(Clone, Debug)]
pub struct Case {
    /// The case's text; its first line is line `first_line` of the file.
    pub text: String,
    /// The file line of the case's first line (1-based).
    pub first_line: u32,
    pub expected: Vec<Expectation>,
}

impl Case {
    /// The expected errors (the diagnostics that make a case a refusal).
    pub fn errors(&self) -> impl Iterator<Item = &Expectation> {
        self.expected
            .iter()
            .filter(|e| e.severity == Severity::Error)
    }

    /// The file line of line `line` (1-based) of the case's text.
    pub fn file_line(&self, line: u32) -> u32 {
        self.first_line + line.saturating_sub(1)
    }
}

/// Cuts `src` into cases at each line that is `// -----` (as `-split-input-file` does) and
/// reads each case's expectations. Malformed expectations (no `{{...}}`, an offset past the
/// file) are errors naming their line.
pub fn split_cases(src: &str) -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    let mut text = String::new();
    let mut first_line = 1u32;
    let mut lines = 0u32;
    for (i, line) in src.split_inclusive('\n').enumerate() {
        let n = i as u32 + 1;
        if line.trim_end() == "// -----" {
            cases.push(finish(std::mem::take(&mut text), first_line, lines)?);
            first_line = n + 1;
            lines = 0;
            continue;
        }
        text.push_str(line);
        lines += 1;
    }
    cases.push(finish(text, first_line, lines)?);
    Ok(cases)
}

fn finish(text: String, first_line: u32, lines: u32) -> Result<Case, String> {
    let mut expected = Vec::new();
    let last = first_line + lines.saturating_sub(1);
    for (i, line) in text.lines().enumerate() {
        let comment_line = first_line + i as u32;
        let mut rest = line;
        while let Some(at) = rest.find("expected-") {
            rest = &rest[at + "expected-".len()..];
            let (severity, after) = match () {
                _ if rest.starts_with("error") => (Severity::Error, &rest[5..]),
                _ if rest.starts_with("warning") => (Severity::Warning, &rest[7..]),
                _ if rest.starts_with("remark") => (Severity::Remark, &rest[6..]),
                _ if rest.starts_with("note") => (Severity::Note, &rest[4..]),
                _ => continue,
            };
            // `expected-error-re` takes a regex; it is read as text here.
            let after = after.strip_prefix("-re").unwrap_or(after).trim_start();
            let (target, after) = if let Some(spec) = after.strip_prefix('@') {
                let end = spec
                    .find(|c: char| c.is_whitespace() || c == '{')
                    .unwrap_or(spec.len());
                let t = match &spec[..end] {
                    "above" => comment_line.checked_sub(1),
                    "below" => Some(comment_line + 1),
                    s => parse_offset(s).and_then(|d| comment_line.checked_add_signed(d)),
                };
                let t = t.filter(|&t| t >= first_line && t <= last).ok_or_else(|| {
                    format!(
                        "line {comment_line}: bad expected-* offset `@{}`",
                        &spec[..end]
                    )
                })?;
                (t, &spec[end..])
            } else {
                (comment_line, after)
            };
            // An optional count (`expected-error 2 {{...}}`) is read as one expectation.
            let after = after
                .trim_start()
                .trim_start_matches(|c: char| c.is_ascii_digit());
            let Some(open) = after.trim_start().strip_prefix("{{") else {
                return Err(format!(
                    "line {comment_line}: expected-* without {{{{...}}}}"
                ));
            };
            // The message runs to the last `}}` (a regex message holds `{{...}}` of its own).
            let Some(close) = open.rfind("}}") else {
                return Err(format!("line {comment_line}: unterminated {{{{...}}}}"));
            };
            expected.push(Expectation {
                severity,
                line: target,
                comment_line,
                message: open[..close].to_string(),
            });
            rest = &open[close + 2..];
        }
    }
    Ok(Case {
        text,
        first_line,
        expected,
    })
}

fn parse_offset(s: &str) -> Option<i32> {
    let (sign, digits) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    digits.parse::<i32>().ok().map(|d| sign * d)
}

/// What happened to one case, against its expectations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No error expected and none reported.
    AcceptedAsExpected,
    /// Errors expected; every reported error is at an expected line, and at least one was
    /// reported.
    RefusedAsExpected,
    /// Errors expected and reported, but some reported one is at a line no expectation names.
    RefusedElsewhere { lines: Vec<u32> },
    /// Errors expected, none reported.
    WronglyAccepted,
    /// No error expected, some reported.
    WronglyRefused { first: String },
}

/// A reported error: its file line (if it has one) and its message.
#[derive(Clone, Debug)]
pub struct Reported {
    pub line: Option<u32>,
    pub message: String,
}

/// Judges `reported` (the errors found in `case`) against its expectations.
pub fn judge(case: &Case, reported: &[Reported]) -> Verdict {
    let expected: Vec<u32> = case.errors().map(|e| e.line).collect();
    match (expected.is_empty(), reported.first()) {
        (true, None) => Verdict::AcceptedAsExpected,
        (true, Some(r)) => Verdict::WronglyRefused {
            first: match r.line {
                Some(l) => format!("line {l}: {}", r.message),
                None => r.message.clone(),
            },
        },
        (false, None) => Verdict::WronglyAccepted,
        (false, Some(_)) => {
            let elsewhere: Vec<u32> = reported
                .iter()
                .map(|r| r.line.unwrap_or(0))
                .filter(|l| !expected.contains(l))
                .collect();
            if elsewhere.is_empty() {
                Verdict::RefusedAsExpected
            } else {
                Verdict::RefusedElsewhere { lines: elsewhere }
            }
        }
    }
}

/// The file line in an MLIR location printed as `"name":line:col` (the first one in `loc`).
pub fn line_of_location(loc: &str) -> Option<u32> {
    let after_quote = loc.rfind("\":").map(|i| &loc[i + 2..])?;
    let end = after_quote.find(':')?;
    after_quote[..end].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_offsets() {
        let src = "a\n// expected-error@+1 {{one}}\nb\n// -----\nc // expected-error {{two}}\n// expected-error@above {{three}}\n// expected-error @-2 {{four}}\nd\n";
        let cases = split_cases(src).unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].expected[0].line, 3);
        assert_eq!(cases[1].first_line, 5);
        let lines: Vec<u32> = cases[1].expected.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![5, 5, 5]);
        assert_eq!(cases[1].expected[2].message, "four");
        let re = &split_cases("x\n// expected-error-re@-1{{a {{.*}} b}}\n").unwrap()[0];
        assert_eq!(re.expected[0].line, 1);
        assert_eq!(re.expected[0].message, "a {{.*}} b");
        assert_eq!(cases[1].file_line(2), 6);
    }

    #[test]
    fn bad_offsets_are_errors() {
        assert!(split_cases("// expected-error@+5 {{x}}\n").is_err());
        assert!(split_cases("// expected-error@-1 {{x}}\n").is_err());
        assert!(split_cases("x // expected-error nothing\n").is_err());
    }

    #[test]
    fn verdicts() {
        let case = &split_cases("// expected-error@+1 {{x}}\nop\n").unwrap()[0];
        let at = |l| Reported {
            line: Some(l),
            message: "m".into(),
        };
        assert_eq!(judge(case, &[at(2)]), Verdict::RefusedAsExpected);
        assert_eq!(
            judge(case, &[at(1)]),
            Verdict::RefusedElsewhere { lines: vec![1] }
        );
        assert_eq!(judge(case, &[]), Verdict::WronglyAccepted);
        let ok = &split_cases("op\n").unwrap()[0];
        assert_eq!(judge(ok, &[]), Verdict::AcceptedAsExpected);
        assert!(matches!(
            judge(ok, &[at(1)]),
            Verdict::WronglyRefused { .. }
        ));
        assert_eq!(line_of_location("\"f.mlir\":12:3"), Some(12));
        assert_eq!(line_of_location("unknown"), None);
    }
}
