//! One directive's pattern: parsed from the text after `PREFIX:`, and turned into a regex at match time.

use std::collections::BTreeMap;

use regex::{Regex, RegexBuilder};

use crate::regex_dialect;

/// Upper bound on the compiled size of one pattern, so a hostile check file cannot exhaust memory.
const REGEX_SIZE_LIMIT: usize = 1 << 22;

/// Most compiled regexes kept for reuse (patterns that use variables are rebuilt with their values).
const REGEX_CACHE_ENTRIES: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Plain,
    Next,
    Same,
    Not,
    Dag,
    Label,
    Empty,
    /// Implicit end-of-input match that carries trailing -DAG/-NOT directives.
    Eof,
}

#[derive(Debug)]
pub(crate) enum Piece {
    Literal(String),
    /// A `{{...}}` regex, already translated to the `regex` crate's dialect.
    Regex(String),
    /// `[[NAME:regex]]`, regex translated.
    Def {
        name: String,
        regex: String,
    },
    /// `[[NAME]]`.
    Use {
        name: String,
    },
}

#[derive(Debug)]
pub(crate) enum Body {
    /// Text without regexes or variables: a plain substring search.
    Fixed(String),
    /// Mixed pieces; `compiled` is set when the regex does not depend on variable values.
    Pieces {
        pieces: Vec<Piece>,
        compiled: Option<Regex>,
    },
    /// CHECK-EMPTY: an empty line.
    EmptyLine,
    /// The end of the input.
    EndOfInput,
}

#[derive(Debug)]
pub(crate) struct Pattern {
    pub kind: Kind,
    /// How many consecutive matches are required (`-COUNT-n`), 1 otherwise.
    pub count: usize,
    /// 1-based line in the check file.
    pub line: usize,
    /// The directive as written without the colon, e.g. `CHECK-NEXT`, for messages.
    pub directive: String,
    pub body: Body,
}

impl Pattern {
    pub(crate) fn has_variables(&self) -> bool {
        match &self.body {
            Body::Pieces { pieces, .. } => pieces
                .iter()
                .any(|p| matches!(p, Piece::Def { .. } | Piece::Use { .. })),
            _ => false,
        }
    }
}

/// A regex built for one match attempt, with the named groups that define variables and the group pairs
/// that must capture equal text (a use of a variable defined earlier in the same pattern).
pub(crate) struct Built {
    pub regex: Regex,
    /// (group name, variable name)
    pub defs: Vec<(String, String)>,
    /// (use group, defining group)
    pub equal_groups: Vec<(String, String)>,
}

/// Parses the pattern text of a directive. `line` is its 1-based check-file line (for `[[@LINE]]`).
pub(crate) fn parse_body(text: &str, literal: bool, line: usize) -> Result<Body, String> {
    if literal {
        return Ok(Body::Fixed(text.to_string()));
    }
    let mut pieces = Vec::new();
    let mut literal_run = String::new();
    let mut defined_here: Vec<String> = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        if rest.starts_with("{{") {
            let end = rest
                .find("}}")
                .ok_or("found start of regex string '{{' with no end '}}'")?;
            flush(&mut literal_run, &mut pieces);
            pieces.push(Piece::Regex(regex_dialect::translate(&rest[2..end])?));
            rest = &rest[end + 2..];
        } else if rest.starts_with("[[") {
            let inner = &rest[2..];
            let end = substitution_end(inner)?;
            let block = &inner[..end];
            rest = &inner[end + 2..];
            if block.starts_with('#') {
                return Err(format!(
                    "numeric substitution blocks are not supported: '[[{block}]]'"
                ));
            }
            if let Some(offset) = block.strip_prefix("@LINE") {
                literal_run.push_str(&line_expression(offset, line)?);
                continue;
            }
            let (name, definition) = match block.split_once(':') {
                Some((name, regex)) => (name, Some(regex)),
                None => (block, None),
            };
            // A leading '$' is part of the name and makes the variable global (see --enable-var-scope).
            if !is_variable_name(name.strip_prefix('$').unwrap_or(name)) {
                return Err(format!("invalid variable name in '[[{block}]]'"));
            }
            flush(&mut literal_run, &mut pieces);
            match definition {
                Some(regex) => {
                    if defined_here.iter().any(|n| n == name) {
                        return Err(format!("variable '{name}' defined more than once"));
                    }
                    defined_here.push(name.to_string());
                    let regex = regex_dialect::translate(regex)?;
                    pieces.push(Piece::Def {
                        name: name.to_string(),
                        regex,
                    });
                }
                None => pieces.push(Piece::Use {
                    name: name.to_string(),
                }),
            }
        } else {
            let c = rest.chars().next().unwrap_or_default();
            literal_run.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if pieces.is_empty() {
        return Ok(Body::Fixed(literal_run));
    }
    flush(&mut literal_run, &mut pieces);
    let uses_values = pieces.iter().any(|p| matches!(p, Piece::Use { .. }));
    // Compile now even when values are still unknown, so a bad regex is reported at its check line.
    let empty = BTreeMap::new();
    let trial = build_regex(&pieces, &empty, true, &mut BTreeMap::new()).map_err(|e| match e {
        BuildError::Regex(message) => message,
        // Placeholders stand in for unknown values, so this only arises from a bug here.
        BuildError::Undefined(name) => format!("variable '{name}' has no placeholder"),
    })?;
    let compiled = if uses_values { None } else { Some(trial.regex) };
    Ok(Body::Pieces { pieces, compiled })
}

fn flush(literal_run: &mut String, pieces: &mut Vec<Piece>) {
    if !literal_run.is_empty() {
        pieces.push(Piece::Literal(std::mem::take(literal_run)));
    }
}

/// Offset of the `]]` closing a `[[` block, skipping nested `[...]` and backslash escapes as FileCheck does.
fn substitution_end(block: &str) -> Result<usize, String> {
    let bytes = block.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        if depth == 0 && bytes[i..].starts_with(b"]]") {
            return Ok(i);
        }
        match bytes[i] {
            b'\\' => i += 1,
            b'[' => depth += 1,
            b']' => {
                if depth == 0 {
                    return Err("missing closing ']' for regex variable".to_string());
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    Err("invalid substitution block, no ']]' found".to_string())
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `[[@LINE]]`, `[[@LINE+n]]`, `[[@LINE-n]]`: the check line's number, offset.
fn line_expression(offset: &str, line: usize) -> Result<String, String> {
    let offset = offset.replace(' ', "");
    let line = line as i64;
    let value = if offset.is_empty() {
        line
    } else if let Some(n) = offset.strip_prefix('+') {
        line + n
            .parse::<i64>()
            .map_err(|_| format!("invalid @LINE offset '+{n}'"))?
    } else if let Some(n) = offset.strip_prefix('-') {
        line - n
            .parse::<i64>()
            .map_err(|_| format!("invalid @LINE offset '-{n}'"))?
    } else {
        return Err(format!("invalid @LINE expression '@LINE{offset}'"));
    };
    Ok(value.to_string())
}

pub(crate) enum BuildError {
    Regex(String),
    Undefined(String),
}

/// Builds the regex for `pieces` with the current variable values. With `placeholder_uses`, uses of
/// unknown variables become empty groups (only to validate the syntax).
pub(crate) fn build_regex(
    pieces: &[Piece],
    values: &BTreeMap<String, String>,
    placeholder_uses: bool,
    cache: &mut BTreeMap<String, Regex>,
) -> Result<Built, BuildError> {
    // (?m): ^ and $ match at line boundaries, as POSIX REG_NEWLINE does; `.` never matches `\n`.
    let mut source = String::from("(?m)");
    let mut defs = Vec::new();
    let mut equal_groups = Vec::new();
    let mut defined_here: Vec<(&str, String, &str)> = Vec::new();
    for (index, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Literal(text) => source.push_str(&regex::escape(text)),
            // Parenthesized so that an alternation stays inside its braces.
            Piece::Regex(regex) => source.push_str(&format!("(?:{regex})")),
            Piece::Def { name, regex } => {
                let group = format!("filecheck_def{index}");
                source.push_str(&format!("(?P<{group}>{regex})"));
                defs.push((group.clone(), name.clone()));
                defined_here.push((name, group, regex));
            }
            Piece::Use { name } => {
                if let Some((_, def_group, regex)) = defined_here.iter().find(|(n, _, _)| n == name)
                {
                    // Same-pattern use: match the definition's regex again and require equal text after.
                    let group = format!("filecheck_use{index}");
                    source.push_str(&format!("(?P<{group}>{regex})"));
                    equal_groups.push((group, def_group.clone()));
                } else if let Some(value) = values.get(name) {
                    source.push_str(&regex::escape(value));
                } else if placeholder_uses {
                    source.push_str("(?:)");
                } else {
                    return Err(BuildError::Undefined(name.clone()));
                }
            }
        }
    }
    let regex = match cache.get(&source) {
        Some(regex) => regex.clone(),
        None => {
            let regex = RegexBuilder::new(&source)
                .size_limit(REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| BuildError::Regex(format!("invalid regex: {e}")))?;
            // Bounded: the cache only saves time, so stop adding once it is large.
            if cache.len() < REGEX_CACHE_ENTRIES {
                cache.insert(source, regex.clone());
            }
            regex
        }
    };
    Ok(Built {
        regex,
        defs,
        equal_groups,
    })
}
