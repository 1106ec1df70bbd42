//! Runs the CHECK lines of an upstream compatibility-suite file against a text synthesized from those same
//! lines (which must pass), and against mutations of it (which must fail at the mutated directive).
//!
//! The synthesizer is deliberately independent of the library's parser: it reads `// CHECK...:` lines with
//! its own simple rules and writes, for each directive, a text its pattern matches.

use std::path::PathBuf;

use filecheck::{check, check_with, FailureKind, Options};
use regex::Regex;

const SUITE_FILE: &str = "stablehlo_legalize_to_vhlo.1_20_0.mlir";

fn suite_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("VHLO_COMPAT_SUITE") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/compat-suite"),
    };
    if dir.join(SUITE_FILE).is_file() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "compat suite not found at {} (set VHLO_COMPAT_SUITE)",
            dir.display()
        );
    }
    eprintln!(
        "skipping: compat suite not found at {} (set VHLO_COMPAT_SUITE)",
        dir.display()
    );
    None
}

/// One synthesized input line per positive directive, remembering which check line produced it.
struct Synthesized {
    lines: Vec<String>,
    /// For each entry of `lines`: the check-file line (1-based) of the directive that started it, and
    /// whether that directive was a CHECK-NEXT.
    origins: Vec<(usize, bool)>,
}

impl Synthesized {
    fn text(&self) -> String {
        self.lines.join("\n") + "\n"
    }
}

/// A text that the regex `source` matches in full, tried from a few simple candidates.
fn sample_for_regex(source: &str, hint: &str) -> String {
    let full = Regex::new(&format!("^(?:{source})$")).expect("suite regex compiles");
    let literal_prefix: String = source
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ' ')
        .collect();
    let unescaped = source.replace('\\', "");
    let candidates = [
        format!("{literal_prefix}{hint}"),
        literal_prefix.clone(),
        unescaped,
        String::new(),
        "x".to_string(),
    ];
    candidates
        .into_iter()
        .find(|c| full.is_match(c))
        .unwrap_or_else(|| panic!("no sample text for regex {{{{{source}}}}}"))
}

/// Instantiates a pattern: literals as written, `{{re}}` and `[[V:re]]` as samples, `[[V]]` as V's value.
fn instantiate(
    pattern: &str,
    variables: &mut std::collections::BTreeMap<String, String>,
) -> String {
    let mut out = String::new();
    let mut rest = pattern;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("{{") {
            let end = after.find("}}").expect("regex block closes");
            out.push_str(&sample_for_regex(&after[..end], ""));
            rest = &after[end + 2..];
        } else if let Some(after) = rest.strip_prefix("[[") {
            let end = after.find("]]").expect("variable block closes");
            let block = &after[..end];
            match block.split_once(':') {
                Some((name, regex)) => {
                    let value = sample_for_regex(regex, &format!("_{}", name.to_lowercase()));
                    variables.insert(name.to_string(), value.clone());
                    out.push_str(&value);
                }
                None => out.push_str(variables.get(block).expect("variable defined before use")),
            }
            rest = &after[end + 2..];
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// Builds the input: CHECK, CHECK-LABEL and CHECK-NEXT start a new line, CHECK-SAME extends the current
/// one, and CHECK-NOT contributes nothing.
fn synthesize(check_file: &str) -> Synthesized {
    let directive =
        Regex::new(r"^\s*//\s*CHECK(-NEXT|-SAME|-LABEL|-NOT|-DAG)?(\{LITERAL\})?:(.*)$").unwrap();
    let mut variables = std::collections::BTreeMap::new();
    let mut synthesized = Synthesized {
        lines: Vec::new(),
        origins: Vec::new(),
    };
    for (index, line) in check_file.lines().enumerate() {
        let Some(captures) = directive.captures(line) else {
            continue;
        };
        let kind = captures.get(1).map_or("", |m| m.as_str());
        let pattern = captures[3].trim();
        let text = if captures.get(2).is_some() {
            pattern.to_string()
        } else {
            instantiate(pattern, &mut variables)
        };
        match kind {
            "-NOT" => {}
            "-SAME" => {
                let current = synthesized
                    .lines
                    .last_mut()
                    .expect("CHECK-SAME follows a line");
                current.push(' ');
                current.push_str(&text);
            }
            _ => {
                synthesized.lines.push(text);
                synthesized.origins.push((index + 1, kind == "-NEXT"));
            }
        }
    }
    synthesized
}

#[test]
fn suite_checks_pass_on_synthesized_text_and_fail_on_mutations() {
    let Some(dir) = suite_dir() else { return };
    let check_file = std::fs::read_to_string(dir.join(SUITE_FILE)).unwrap();
    let synthesized = synthesize(&check_file);
    assert!(
        synthesized.lines.len() > 500,
        "synthesized only {} lines",
        synthesized.lines.len()
    );

    if let Err(failure) = check(&check_file, &synthesized.text()) {
        panic!("synthesized text must pass:\n{failure}");
    }

    // Mutation 1: an extra line before a CHECK-NEXT line breaks exactly that directive.
    let next_positions: Vec<usize> = (0..synthesized.lines.len())
        .filter(|&i| synthesized.origins[i].1)
        .collect();
    assert!(next_positions.len() > 100);
    for &victim in [next_positions[0], next_positions[next_positions.len() / 2]].iter() {
        let mut lines = synthesized.lines.clone();
        lines.insert(victim, "// an extra line".to_string());
        let failure =
            check(&check_file, &(lines.join("\n") + "\n")).expect_err("extra line must fail");
        assert_eq!(failure.kind, FailureKind::WrongLine, "{failure}");
        assert_eq!(
            failure.check_line,
            Some(synthesized.origins[victim].0),
            "{failure}"
        );
    }

    // Mutation 2: dropping a line that a CHECK (in a function's label region) needs.
    let victim = synthesized
        .lines
        .iter()
        .position(|l| l.contains("#vhlo<comparison_direction_v1 GE>"))
        .unwrap();
    let mut lines = synthesized.lines.clone();
    lines[victim] = lines[victim].replace("GE>", "GT>");
    let failure =
        check(&check_file, &(lines.join("\n") + "\n")).expect_err("changed attribute must fail");
    assert_eq!(failure.kind, FailureKind::NotFound, "{failure}");
    assert_eq!(
        failure.check_line,
        Some(synthesized.origins[victim].0),
        "{failure}"
    );
}

#[test]
fn suite_warn_prefix() {
    let Some(dir) = suite_dir() else { return };
    let check_file = std::fs::read_to_string(dir.join(SUITE_FILE)).unwrap();
    let warn = Options::from_args(["--check-prefix=CHECK-WARN"]).unwrap();
    check_with(&check_file, "debug: serialized vhlo.add_v1\n", &warn).unwrap();
    let failure = check_with(&check_file, "debug: Not Implemented: foo\n", &warn).unwrap_err();
    assert_eq!(failure.kind, FailureKind::ExcludedFound);
}

#[test]
fn suite_run_lines_name_their_prefixes() {
    let Some(dir) = suite_dir() else { return };
    let text = std::fs::read_to_string(dir.join("vhlo_emit_version_api.1_1_0.mlir")).unwrap();
    let prefixes: Vec<Vec<String>> = filecheck::run_lines(&text)
        .iter()
        .filter_map(|run| filecheck::filecheck_options(&run.command))
        .map(|options| options.expect("suite FileCheck flags parse").check_prefixes)
        .collect();
    assert!(
        prefixes.contains(&vec!["CHECK-VERSION".to_string()]),
        "{prefixes:?}"
    );
    assert!(
        prefixes.contains(&vec!["CHECK-VERSION-LATEST".to_string()]),
        "{prefixes:?}"
    );
    // Every prefix a RUN line names has directives in the file.
    for prefix in prefixes.iter().flatten() {
        let options = Options::with_prefix(prefix);
        let failure = check_with(&text, "x\n", &options).err();
        assert_ne!(
            failure.map(|f| f.kind),
            Some(FailureKind::InvalidCheckFile),
            "prefix {prefix}"
        );
    }
}
