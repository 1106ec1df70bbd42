//! The matching algorithm of FileCheck: label regions, then each check string with its -DAG/-NOT group.

use std::collections::BTreeMap;

use crate::directives::CheckString;
use crate::failure::{CheckFailure, FailureKind};
use crate::pattern::{build_regex, Body, BuildError, Built, Kind, Pattern};
use crate::text;

/// A match as absolute byte offsets in the canonical input.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
}

pub(crate) struct Matcher<'a> {
    check_file: &'a str,
    input: &'a str,
    variables: BTreeMap<String, String>,
    /// Compiled regexes by source, since uses of variables make patterns be rebuilt at every match.
    regex_cache: BTreeMap<String, regex::Regex>,
    /// Forget local (not `$`) variables at each label region after the first.
    pub(crate) enable_var_scope: bool,
}

impl<'a> Matcher<'a> {
    pub(crate) fn new(check_file: &'a str, input: &'a str) -> Self {
        Matcher {
            check_file,
            input,
            variables: BTreeMap::new(),
            regex_cache: BTreeMap::new(),
            enable_var_scope: false,
        }
    }

    /// Runs all check strings. Labels are found first, each splitting off a region of the input in which
    /// the directives before it (and itself) must match.
    pub(crate) fn run(&mut self, check_strings: &[CheckString]) -> Result<(), CheckFailure> {
        let count = check_strings.len();
        let mut next = 0;
        let mut buffer_start = 0;
        loop {
            let mut label = (next..count)
                .find(|&k| check_strings[k].pattern.kind == Kind::Label)
                .unwrap_or(count);
            if next != 0 && self.enable_var_scope {
                self.variables.retain(|name, _| name.starts_with('$'));
            }
            let region_start = buffer_start;
            let region_end = if label == count {
                self.input.len()
            } else {
                let span =
                    self.check_string(&check_strings[label], buffer_start, self.input.len(), true)?;
                buffer_start = span.end;
                label += 1;
                span.end
            };
            let mut position = region_start;
            while next < label {
                let span = self.check_string(&check_strings[next], position, region_end, false)?;
                position = span.end;
                next += 1;
            }
            if label == count {
                return Ok(());
            }
        }
    }

    /// Matches one check string in `[from, end)`. In label-scan mode only the pattern itself is searched.
    fn check_string(
        &mut self,
        check: &CheckString,
        from: usize,
        end: usize,
        label_scan: bool,
    ) -> Result<Span, CheckFailure> {
        let mut not_patterns: Vec<&Pattern> = Vec::new();
        let last_position = if label_scan {
            from
        } else {
            self.check_dag(check, from, end, &mut not_patterns)?
        };
        let pattern = &check.pattern;
        let mut first_start = None;
        let mut last_end = last_position;
        for _ in 0..pattern.count {
            match self.find(pattern, last_end, end, true)? {
                Some(span) => {
                    first_start.get_or_insert(span.start);
                    last_end = span.end;
                }
                None => {
                    let message =
                        format!("{}: expected string not found in input", pattern.directive);
                    return Err(self
                        .failure(FailureKind::NotFound, message, pattern.line)
                        .with_note(self.input, last_end, "scanning from here"));
                }
            }
        }
        let start = first_start.unwrap_or(last_end);
        if !label_scan {
            self.check_line_distance(pattern, last_position, start)?;
            self.check_not(&not_patterns, last_position, start)?;
        }
        Ok(Span {
            start,
            end: last_end,
        })
    }

    /// -NEXT/-EMPTY need exactly one line break since the previous match, -SAME none.
    fn check_line_distance(
        &self,
        pattern: &Pattern,
        previous_end: usize,
        start: usize,
    ) -> Result<(), CheckFailure> {
        let newlines = text::count_newlines(&self.input[previous_end..start]);
        let problem = match pattern.kind {
            Kind::Next | Kind::Empty if newlines == 0 => {
                "is on the same line as the previous match"
            }
            Kind::Next | Kind::Empty if newlines != 1 => {
                "is not on the line after the previous match"
            }
            Kind::Same if newlines != 0 => "is not on the same line as the previous match",
            _ => return Ok(()),
        };
        let message = format!("{}: {problem}", pattern.directive);
        Err(self
            .failure(FailureKind::WrongLine, message, pattern.line)
            .with_note(self.input, start, "match was here")
            .with_note(self.input, previous_end, "previous match ended here"))
    }

    /// Matches the -DAG groups of `check` from `from`; -NOTs between groups must not match between them.
    /// Returns where the following match may start; -NOTs after the last group are left in `not_patterns`.
    fn check_dag<'c>(
        &mut self,
        check: &'c CheckString,
        from: usize,
        end: usize,
        not_patterns: &mut Vec<&'c Pattern>,
    ) -> Result<usize, CheckFailure> {
        let mut start = from;
        // Non-overlapping matches of the current group, sorted by position.
        let mut group: Vec<Span> = Vec::new();
        for (index, pattern) in check.dag_nots.iter().enumerate() {
            if pattern.kind == Kind::Not {
                not_patterns.push(pattern);
                continue;
            }
            let mut search_from = start;
            loop {
                let Some(span) = self.find(pattern, search_from, end, true)? else {
                    let message =
                        format!("{}: expected string not found in input", pattern.directive);
                    return Err(self
                        .failure(FailureKind::NotFound, message, pattern.line)
                        .with_note(self.input, start, "scanning from here"));
                };
                match group
                    .iter()
                    .find(|g| span.start < g.end && g.start < span.end)
                {
                    // Overlaps an earlier match of this group: look again after it.
                    Some(overlapped) => search_from = overlapped.end,
                    None => {
                        let at = group.partition_point(|g| g.start <= span.start);
                        group.insert(at, span);
                        break;
                    }
                }
            }
            let group_ends = check
                .dag_nots
                .get(index + 1)
                .is_none_or(|p| p.kind == Kind::Not);
            if group_ends {
                if let (false, Some(first)) = (not_patterns.is_empty(), group.first()) {
                    self.check_not(not_patterns, start, first.start)?;
                    not_patterns.clear();
                }
                if let Some(last) = group.last() {
                    start = start.max(last.end);
                }
                group.clear();
            }
        }
        Ok(start)
    }

    /// Fails if any of `patterns` matches in `[from, to)`.
    fn check_not(
        &mut self,
        patterns: &[&Pattern],
        from: usize,
        to: usize,
    ) -> Result<(), CheckFailure> {
        for pattern in patterns {
            if let Some(span) = self.find(pattern, from, to, false)? {
                let message = format!("{}: excluded string found in input", pattern.directive);
                return Err(self
                    .failure(FailureKind::ExcludedFound, message, pattern.line)
                    .with_note(self.input, span.start, "found here"));
            }
        }
        Ok(())
    }

    /// First match of `pattern` in `[from, end)`; with `define`, its variable definitions take effect.
    fn find(
        &mut self,
        pattern: &Pattern,
        from: usize,
        end: usize,
        define: bool,
    ) -> Result<Option<Span>, CheckFailure> {
        let haystack = &self.input[from..end];
        let relative = match &pattern.body {
            Body::Fixed(text) => haystack.find(text.as_str()).map(|s| (s, s + text.len())),
            Body::EndOfInput => Some((haystack.len(), haystack.len())),
            Body::EmptyLine => empty_line(haystack),
            Body::Pieces { pieces, compiled } => {
                let built;
                let (regex, defs, equal_groups) = match compiled {
                    Some(regex) if !pattern.has_variables() => (regex, &[][..], &[][..]),
                    _ => {
                        built = self.build(pattern, pieces)?;
                        (&built.regex, &built.defs[..], &built.equal_groups[..])
                    }
                };
                match search(regex, equal_groups, haystack) {
                    Some(captures) => {
                        if define {
                            for (group, name) in defs {
                                let value = captures.name(group).map_or("", |m| m.as_str());
                                self.variables.insert(name.clone(), value.to_string());
                            }
                        }
                        let whole = captures.get(0).map_or((0, 0), |m| (m.start(), m.end()));
                        Some(whole)
                    }
                    None => None,
                }
            }
        };
        Ok(relative.map(|(s, e)| Span {
            start: from + s,
            end: from + e,
        }))
    }

    fn build(
        &mut self,
        pattern: &Pattern,
        pieces: &[crate::pattern::Piece],
    ) -> Result<Built, CheckFailure> {
        let built = build_regex(pieces, &self.variables, false, &mut self.regex_cache);
        built.map_err(|e| match e {
            BuildError::Undefined(name) => self.failure(
                FailureKind::UndefinedVariable,
                format!("{}: uses undefined variable \"{name}\"", pattern.directive),
                pattern.line,
            ),
            BuildError::Regex(message) => self.failure(
                FailureKind::InvalidCheckFile,
                format!("{}: {message}", pattern.directive),
                pattern.line,
            ),
        })
    }

    fn failure(&self, kind: FailureKind, message: String, line: usize) -> CheckFailure {
        CheckFailure::at_check(kind, message, self.check_file, line)
    }
}

/// Leftmost match whose same-pattern variable uses equal their definitions.
fn search<'h>(
    regex: &regex::Regex,
    equal_groups: &[(String, String)],
    haystack: &'h str,
) -> Option<regex::Captures<'h>> {
    let mut at = 0;
    loop {
        let captures = regex.captures_at(haystack, at)?;
        let all_equal = equal_groups.iter().all(|(use_group, def_group)| {
            captures.name(use_group).map(|m| m.as_str())
                == captures.name(def_group).map(|m| m.as_str())
        });
        if all_equal {
            return Some(captures);
        }
        let start = captures.get(0)?.start();
        if start >= haystack.len() {
            return None;
        }
        at = text::next_char_boundary(haystack, start);
    }
}

/// CHECK-EMPTY: the start of the first empty line that follows a line break.
fn empty_line(haystack: &str) -> Option<(usize, usize)> {
    let bytes = haystack.as_bytes();
    (0..bytes.len())
        .find(|&i| bytes[i] == b'\n' && (i + 1 == bytes.len() || bytes[i + 1] == b'\n'))
        .map(|i| (i + 1, i + 1))
}
