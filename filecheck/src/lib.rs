//! LLVM FileCheck semantics as a library: check a text against the `CHECK` directives of a check file.
//!
//! Supported: `CHECK`, `CHECK-NEXT`, `CHECK-SAME`, `CHECK-NOT`, `CHECK-DAG`, `CHECK-LABEL`, `CHECK-EMPTY`,
//! `CHECK-COUNT-n`, the `{LITERAL}` modifier, custom prefixes, comment prefixes (`COM:`, `RUN:` by default),
//! `{{regex}}`, `[[VAR:regex]]` definitions, `[[VAR]]` uses, `[[@LINE]]`/`[[@LINE+n]]`, `--strict-whitespace`,
//! `--allow-empty`, `--enable-var-scope`, and FileCheck's default whitespace canonicalization (runs of spaces
//! and tabs, in both files, become one space).
//!
//! Not supported (reported as an error, never silently ignored): numeric substitution blocks `[[#...]]`.
//!
//! Regex dialect: FileCheck uses POSIX ERE with `REG_NEWLINE`; here patterns run on the `regex` crate in
//! multi-line mode, with negated bracket expressions made to exclude `\n` as POSIX does. Known differences:
//! alternations pick the leftmost-first branch instead of the longest one, and a backslash inside a bracket
//! expression escapes the next character instead of being literal.

pub mod diagnostics;
mod directives;
mod failure;
mod lit;
mod matcher;
mod pattern;
mod regex_dialect;
mod text;

pub use failure::{CheckFailure, FailureKind, InputNote};
pub use lit::{filecheck_options, run_lines, RunLine};

/// Settings that mirror FileCheck's command-line flags.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Directive prefixes (`--check-prefix`/`--check-prefixes`); `["CHECK"]` by default.
    pub check_prefixes: Vec<String>,
    /// Prefixes whose directives are comments (`--comment-prefixes`); `["COM", "RUN"]` by default.
    pub comment_prefixes: Vec<String>,
    /// `--strict-whitespace`: keep runs of horizontal whitespace as they are.
    pub strict_whitespace: bool,
    /// `--allow-empty`: accept an empty input.
    pub allow_empty_input: bool,
    /// `--enable-var-scope`: variables not starting with `$` are forgotten at each CHECK-LABEL region.
    pub enable_var_scope: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            check_prefixes: vec!["CHECK".to_string()],
            comment_prefixes: vec!["COM".to_string(), "RUN".to_string()],
            strict_whitespace: false,
            allow_empty_input: false,
            enable_var_scope: false,
        }
    }
}

impl Options {
    /// Default options with `prefix` as the only check prefix (`--check-prefix=PREFIX`).
    pub fn with_prefix(prefix: &str) -> Self {
        Options {
            check_prefixes: vec![prefix.to_string()],
            ..Options::default()
        }
    }

    /// Parses FileCheck flags as they appear on a `RUN:` line, e.g. `["--check-prefix=CHECK-WARN"]`.
    /// Positional arguments (the check file, `%s`) are not accepted: pass only flags.
    pub fn from_args<I, S>(args: I) -> Result<Self, String>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut options = Options::default();
        let mut explicit_prefixes: Vec<String> = Vec::new();
        let mut args = args.into_iter().map(|a| a.as_ref().to_string());
        while let Some(arg) = args.next() {
            let flag = arg.trim_start_matches('-');
            if !arg.starts_with('-') {
                return Err(format!("unexpected positional argument '{arg}'"));
            }
            let (name, inline_value) = match flag.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (flag, None),
            };
            let mut value = |name: &str| -> Result<String, String> {
                match &inline_value {
                    Some(v) => Ok(v.clone()),
                    None => args
                        .next()
                        .ok_or_else(|| format!("flag --{name} needs a value")),
                }
            };
            match name {
                "check-prefix" => explicit_prefixes.push(value(name)?),
                "check-prefixes" => {
                    explicit_prefixes.extend(value(name)?.split(',').map(str::to_string))
                }
                "comment-prefixes" => {
                    options.comment_prefixes = value(name)?.split(',').map(str::to_string).collect()
                }
                "strict-whitespace" => options.strict_whitespace = true,
                "allow-empty" => options.allow_empty_input = true,
                "enable-var-scope" => options.enable_var_scope = true,
                _ => return Err(format!("unsupported FileCheck flag '{arg}'")),
            }
        }
        if !explicit_prefixes.is_empty() {
            options.check_prefixes = explicit_prefixes;
        }
        Ok(options)
    }
}

/// Checks `input` against the `CHECK` directives in `check_text`, with default options.
pub fn check(check_text: &str, input: &str) -> Result<(), CheckFailure> {
    check_with(check_text, input, &Options::default())
}

/// Checks `input` against the directives in `check_text` selected by `options`.
pub fn check_with(check_text: &str, input: &str, options: &Options) -> Result<(), CheckFailure> {
    directives::validate_prefixes(options)?;
    let check_canonical = text::canonicalize(check_text, options.strict_whitespace);
    let input_canonical = text::canonicalize(input, options.strict_whitespace);
    let check_strings = directives::parse_check_file(check_text, &check_canonical, options)?;
    if input_canonical.is_empty() && !options.allow_empty_input {
        return Err(CheckFailure::without_check(
            FailureKind::EmptyInput,
            "input is empty (pass --allow-empty to accept it)".to_string(),
        ));
    }
    let mut matcher = matcher::Matcher::new(check_text, &input_canonical);
    matcher.enable_var_scope = options.enable_var_scope;
    matcher.run(&check_strings)
}

#[cfg(test)]
mod tests;
