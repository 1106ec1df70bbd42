//! Finding directives in the check file and grouping them as FileCheck does.

use crate::failure::{CheckFailure, FailureKind};
use crate::pattern::{parse_body, Body, Kind, Pattern};
use crate::Options;

/// A positive directive with the -DAG/-NOT directives that precede it.
#[derive(Debug)]
pub(crate) struct CheckString {
    pub pattern: Pattern,
    pub dag_nots: Vec<Pattern>,
}

pub(crate) fn validate_prefixes(options: &Options) -> Result<(), CheckFailure> {
    let invalid =
        |message: String| CheckFailure::without_check(FailureKind::InvalidCheckFile, message);
    if options.check_prefixes.is_empty() {
        return Err(invalid("no check prefix given".to_string()));
    }
    let all = options
        .check_prefixes
        .iter()
        .chain(&options.comment_prefixes);
    let mut seen: Vec<&str> = Vec::new();
    for prefix in all {
        let valid = prefix
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && prefix
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !valid {
            return Err(invalid(format!(
                "prefix '{prefix}' must start with a letter and contain only alphanumerics, '-' and '_'"
            )));
        }
        if seen.contains(&prefix.as_str()) {
            return Err(invalid(format!(
                "prefix '{prefix}' is given more than once"
            )));
        }
        seen.push(prefix);
    }
    Ok(())
}

/// What a directive found on a line is.
enum Directive<'a> {
    Comment,
    Check {
        kind: Kind,
        count: usize,
        literal: bool,
        directive: String,
        rest: &'a str,
    },
}

/// Parses `canonical` (the canonicalized check file) into check strings; `original` is for messages.
pub(crate) fn parse_check_file(
    original: &str,
    canonical: &str,
    options: &Options,
) -> Result<Vec<CheckString>, CheckFailure> {
    let fail = |line: usize, message: String| {
        CheckFailure::at_check(FailureKind::InvalidCheckFile, message, original, line)
    };
    let mut check_strings: Vec<CheckString> = Vec::new();
    let mut dag_nots: Vec<Pattern> = Vec::new();
    for (index, line_text) in canonical.split('\n').enumerate() {
        let line = index + 1;
        let found = find_directive(line_text, options).map_err(|m| fail(line, m))?;
        let Some(Directive::Check {
            kind,
            count,
            literal,
            directive,
            rest,
        }) = found
        else {
            continue;
        };
        let text = rest
            .trim_start_matches([' ', '\t'])
            .trim_end_matches([' ', '\t']);
        if kind == Kind::Empty && !text.is_empty() {
            return Err(fail(
                line,
                format!("found non-empty check string for empty check '{directive}:'"),
            ));
        }
        if kind != Kind::Empty && text.is_empty() {
            return Err(fail(
                line,
                format!("found empty check string with '{directive}:'"),
            ));
        }
        if matches!(kind, Kind::Next | Kind::Same | Kind::Empty) && check_strings.is_empty() {
            return Err(fail(
                line,
                format!("found '{directive}' without a previous positive check line"),
            ));
        }
        let body = if kind == Kind::Empty {
            Body::EmptyLine
        } else {
            parse_body(text, literal, line).map_err(|m| fail(line, m))?
        };
        let pattern = Pattern {
            kind,
            count,
            line,
            directive,
            body,
        };
        if kind == Kind::Label && pattern.has_variables() {
            return Err(fail(
                line,
                format!(
                    "found '{}:' with a variable definition or use",
                    pattern.directive
                ),
            ));
        }
        if matches!(kind, Kind::Dag | Kind::Not) {
            dag_nots.push(pattern);
        } else {
            check_strings.push(CheckString {
                pattern,
                dag_nots: std::mem::take(&mut dag_nots),
            });
        }
    }
    if let Some(last) = dag_nots.last() {
        let pattern = Pattern {
            kind: Kind::Eof,
            count: 1,
            line: last.line,
            directive: "end of input".to_string(),
            body: Body::EndOfInput,
        };
        check_strings.push(CheckString { pattern, dag_nots });
    }
    if check_strings.is_empty() {
        let prefixes: Vec<String> = options
            .check_prefixes
            .iter()
            .map(|p| format!("'{p}:'"))
            .collect();
        return Err(CheckFailure::without_check(
            FailureKind::InvalidCheckFile,
            format!("no check strings found with prefix {}", prefixes.join(", ")),
        ));
    }
    Ok(check_strings)
}

/// FileCheck treats a prefix glued to a preceding word character as part of that word.
fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// Finds the first directive on `line`, if any. Like FileCheck, a line holds at most one directive.
fn find_directive<'a>(line: &'a str, options: &Options) -> Result<Option<Directive<'a>>, String> {
    let prefixes = options
        .check_prefixes
        .iter()
        .map(|p| (p.as_str(), false))
        .chain(options.comment_prefixes.iter().map(|p| (p.as_str(), true)));
    let prefixes: Vec<(&str, bool)> = prefixes.collect();
    let mut cursor = 0;
    loop {
        // Earliest occurrence at a word start; the longest prefix wins a tie.
        let mut best: Option<(usize, &str, bool)> = None;
        for &(prefix, is_comment) in &prefixes {
            let Some(position) = find_at_word_start(line, cursor, prefix) else {
                continue;
            };
            let better = match best {
                None => true,
                Some((p, b, _)) => position < p || (position == p && prefix.len() > b.len()),
            };
            if better {
                best = Some((position, prefix, is_comment));
            }
        }
        let Some((position, prefix, is_comment)) = best else {
            return Ok(None);
        };
        let after = &line[position + prefix.len()..];
        if is_comment {
            if after.starts_with(':') {
                return Ok(Some(Directive::Comment));
            }
        } else if let Some(directive) = parse_suffix(prefix, after)? {
            return Ok(Some(directive));
        }
        cursor = position + prefix.len();
    }
}

fn find_at_word_start(line: &str, from: usize, prefix: &str) -> Option<usize> {
    let mut start = from;
    while let Some(offset) = line.get(start..)?.find(prefix) {
        let position = start + offset;
        let preceded_by_word = line[..position]
            .chars()
            .next_back()
            .is_some_and(is_word_char);
        if !preceded_by_word {
            return Some(position);
        }
        start = position + prefix.len();
    }
    None
}

/// Parses what follows a check prefix: `:`, `-NEXT:`, `-COUNT-3:`, `{LITERAL}:`, ...
fn parse_suffix<'a>(prefix: &str, after: &'a str) -> Result<Option<Directive<'a>>, String> {
    let (kind, count, suffix_name, tail) = if let Some(word) = after.strip_prefix('-') {
        const KINDS: [(&str, Kind); 6] = [
            ("NEXT", Kind::Next),
            ("SAME", Kind::Same),
            ("NOT", Kind::Not),
            ("DAG", Kind::Dag),
            ("LABEL", Kind::Label),
            ("EMPTY", Kind::Empty),
        ];
        if let Some(digits_and_rest) = word.strip_prefix("COUNT-") {
            let digits_len = digits_and_rest
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            let digits = &digits_and_rest[..digits_len];
            let count: usize = match digits.parse() {
                Ok(n) if n > 0 => n,
                _ => return Err(format!("invalid count in '{prefix}-COUNT-' specification")),
            };
            (
                Kind::Plain,
                count,
                format!("-COUNT-{digits}"),
                &digits_and_rest[digits_len..],
            )
        } else {
            match KINDS.iter().find(|(name, _)| word.starts_with(name)) {
                Some(&(name, kind)) => (kind, 1, format!("-{name}"), &word[name.len()..]),
                None => return Ok(None),
            }
        }
    } else {
        (Kind::Plain, 1, String::new(), after)
    };
    let (literal, tail) = match tail.strip_prefix("{LITERAL}") {
        Some(t) => (true, t),
        None => (false, tail),
    };
    let Some(rest) = tail.strip_prefix(':') else {
        return Ok(None);
    };
    let directive = format!("{prefix}{suffix_name}");
    Ok(Some(Directive::Check {
        kind,
        count,
        literal,
        directive,
        rest,
    }))
}
