//! Live differential test of programs that mix StableHLO with other dialects, against
//! jaxlib (scripts/oracle/dialects_diff.py). The corpus: `tests/fixtures/dialects/<dialect>.mlir`
//! (every op of the dialect in its custom syntax, where upstream has one, and in generic syntax;
//! the coverage is checked against the spec) and upstream's CHLO tests. On each case:
//! 1. jaxlib parses our print to the module it parses the source to (or refuses both), and our
//!    print is jaxlib's print of the source, byte for byte, in custom and in generic form;
//! 2. our serializer succeeds, without and with allow_other_dialects, exactly when jaxlib's does;
//! 3. where both wrote an artifact, jaxlib reads ours to what it reads from its own.
//!
//! Cases that disagree are listed in `tests/fixtures/dialects_known_differences.txt` with their
//! reason; a listed case that agrees fails the test. Required under CI (`oracle_python`).
//! `cargo test -p vhlo-tests --test dialects dialects_differential -- --nocapture` prints the counts.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use vhlo_core::text::{self, PrintOptions};
use vhlo_tests::portable::{self, SerializeOptions};

/// One program of the corpus.
struct Case {
    /// `<dialect>/<file>:<line>`.
    name: String,
    dialect: String,
    src: String,
}

fn corpus_dir() -> PathBuf {
    vhlo_tests::workspace_root().join("tests/fixtures/dialects")
}

/// The `// -----` chunks of `src`, named by the line they start at.
fn chunks(file: &str, dialect: &str, src: &str) -> Vec<Case> {
    let cases = filecheck::diagnostics::split_cases(src).expect("the corpus splits");
    cases
        .into_iter()
        .filter(|c| c.text.contains("func.func") || c.text.contains("module"))
        .map(|c| Case {
            name: format!("{dialect}/{file}:{}", c.first_line),
            dialect: dialect.to_string(),
            src: c.text,
        })
        .collect()
}

fn corpus() -> Vec<Case> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/fixtures/dialects")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    for path in files {
        let dialect = path.file_stem().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(&path).expect("readable");
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        out.extend(chunks(&file, &dialect, &src));
    }
    // Upstream's CHLO tests; infer_chlo.mlir is left out: its cases use the unregistered
    // hlo_test_infer ops, which the oracle's context refuses (no allow_unregistered_dialects).
    if let Some(dir) = vhlo_tests::stablehlo_tests() {
        for file in ["ops_chlo.mlir", "ops_chlo_roundtrip.mlir"] {
            let src = std::fs::read_to_string(dir.join(file)).expect("readable");
            out.extend(chunks(file, "chlo", &src));
        }
    }
    out
}

/// `"..."` with JSON escapes.
fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_opt(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => json_str(out, s),
        None => out.push_str("null"),
    }
}

/// `case check reason` lines.
fn known_differences() -> BTreeMap<(String, String), String> {
    let path = vhlo_tests::workspace_root().join("tests/fixtures/dialects_known_differences.txt");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(3, ' ');
        let (case, check, reason) = (parts.next(), parts.next(), parts.next());
        let (Some(case), Some(check), Some(reason)) = (case, check, reason) else {
            panic!("dialects_known_differences.txt: `case check reason` expected: {line}");
        };
        out.insert((case.to_string(), check.to_string()), reason.to_string());
    }
    out
}

fn oracle_target(python: &Path) -> String {
    let script = vhlo_tests::workspace_root().join("scripts/oracle/oracle.py");
    let out = Command::new(python)
        .arg(script)
        .arg("version")
        .output()
        .expect("oracle.py runs");
    assert!(out.status.success(), "oracle.py version failed");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Every op of each codec dialect that has a corpus file appears there in generic syntax, and in
/// its custom syntax when it has one.
#[test]
fn corpus_covers_every_op() {
    let mut missing = Vec::new();
    for cd in vhlo_core::vhlo::CODEC_DIALECTS {
        let path = corpus_dir().join(format!("{}.mlir", cd.name));
        let Ok(src) = std::fs::read_to_string(&path) else {
            continue;
        };
        for o in cd.ops {
            let full = format!("{}.{}", cd.name, o.name);
            if !src.contains(&format!("\"{full}\"(")) {
                missing.push(format!("{full} in generic syntax"));
            }
            // Ops without custom syntax upstream print generically (constant_like, ragged_dot);
            // these have syntax written by hand (text/sdy_ops.rs HAND_WRITTEN).
            let custom = o.format.is_some()
                || [
                    "constant",
                    "scan",
                    "select",
                    "for",
                    "while",
                    "index_switch",
                    "parallel",
                    "forall",
                    "func",
                    "function_library",
                    "switch",
                ]
                .contains(&o.name);
            // An op without results (a terminator) starts its line.
            let starts_line = |l: &str| {
                let l = l.trim_start();
                l.trim_end() == full
                    || l.starts_with(&format!("{full} "))
                    || l.starts_with(&format!("{full}("))
            };
            if custom
                && !src.contains(&format!("= {full} "))
                && !src.contains(&format!("= {full}("))
                && !src.lines().any(starts_line)
            {
                missing.push(format!("{full} in custom syntax"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "the corpus lacks: {}",
        missing.join(", ")
    );
}

#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn mixed_dialect_programs_agree_with_jaxlib() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let target = oracle_target(&python);
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("dialects_differential");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("scratch dir");
    let cases = corpus();
    let mut json = String::from("[");
    for (i, c) in cases.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        let parsed = text::parse(&c.src).ok();
        let print = parsed
            .as_ref()
            .map(|m| text::print(m, PrintOptions::default()));
        let generic = PrintOptions {
            generic: true,
            ..PrintOptions::default()
        };
        let print_generic = parsed.as_ref().map(|m| text::print(m, generic));
        let artifact = |allow: bool| -> Option<String> {
            let m = parsed.as_ref()?;
            let opts = SerializeOptions {
                allow_other_dialects: allow,
                ..Default::default()
            };
            let bytes = portable::serialize_portable_artifact(m, &target, opts).ok()?;
            let path = work.join(format!("{i}-{allow}.bc"));
            std::fs::write(&path, bytes).expect("written");
            Some(path.to_string_lossy().to_string())
        };
        let (plain, allow) = (artifact(false), artifact(true));
        json.push_str("{\"name\":");
        json_str(&mut json, &c.name);
        json.push_str(",\"src\":");
        json_str(&mut json, &c.src);
        json.push_str(",\"ours_print\":");
        json_opt(&mut json, print.as_deref());
        json.push_str(",\"ours_generic\":");
        json_opt(&mut json, print_generic.as_deref());
        json.push_str(",\"ours_artifacts\":{\"plain\":");
        json_opt(&mut json, plain.as_deref());
        json.push_str(",\"allow\":");
        json_opt(&mut json, allow.as_deref());
        json.push_str("}}");
    }
    json.push(']');
    let input = work.join("cases.json");
    std::fs::write(&input, json).expect("written");
    let script = vhlo_tests::workspace_root().join("scripts/oracle/dialects_diff.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(&input)
        .arg(&target)
        .output()
        .expect("dialects_diff.py runs");
    assert!(
        out.status.success(),
        "dialects_diff.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dialect_of: BTreeMap<&str, &str> = cases
        .iter()
        .map(|c| (c.name.as_str(), c.dialect.as_str()))
        .collect();
    let mut known = known_differences();
    // Per dialect: cases, checks, agreeing checks, known differences.
    let mut counts: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut problems = Vec::new();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut seen_cases = std::collections::BTreeSet::new();
    for line in stdout.lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(case), Some(check), Some(verdict)) = (parts.next(), parts.next(), parts.next())
        else {
            panic!("dialects_diff.py: unexpected line {line}");
        };
        let dialect = dialect_of.get(case).copied().unwrap_or("?").to_string();
        let n = counts.entry(dialect).or_default();
        if seen_cases.insert(case.to_string()) {
            n[0] += 1;
        }
        n[1] += 1;
        let listed = known.remove(&(case.to_string(), check.to_string()));
        match (verdict == "ok", listed) {
            (true, None) => n[2] += 1,
            (true, Some(reason)) => problems.push(format!(
                "{case} {check}: listed as a known difference ({reason}) but agrees: remove it"
            )),
            (false, Some(_)) => n[3] += 1,
            (false, None) => problems.push(format!("{case} {check}: {verdict}")),
        }
    }
    println!(
        "{:<10} {:>6} {:>7} {:>7} {:>6}",
        "dialect", "cases", "checks", "agree", "known"
    );
    for (d, [c, k, a, x]) in &counts {
        println!("{d:<10} {c:>6} {k:>7} {a:>7} {x:>6}");
    }
    for ((case, check), reason) in known {
        problems.push(format!("{case} {check}: listed ({reason}) but not checked"));
    }
    assert_eq!(seen_cases.len(), cases.len(), "every case was checked");
    assert!(
        problems.is_empty(),
        "{} disagreements with jaxlib:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Single-change mutants of the corpus (`scripts/oracle/mutants.py generate`: a result type
/// with a dimension +1, dropped or another element type, an attribute's integer +1 or -1, an
/// attribute removed, made a string or given another integer type, two operands swapped, a
/// block argument of another type, an operand taken from outside its region), judged by jaxlib's parser (which verifies) and by
/// [`text::parse`]. Every verdict must agree; where jaxlib crashes or hangs, we refuse (it
/// cannot read such a program).
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn mutants_of_the_corpus_get_jaxlibs_verdict() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("dialects_mutants");
    let _ = std::fs::remove_dir_all(&work);
    // mutants.py names each program `<directory>.<file stem>`.
    let programs = work.join("dialects_corpus");
    let mutants = work.join("mutants");
    std::fs::create_dir_all(&programs).expect("scratch dir");
    let cases = corpus();
    for (i, c) in cases.iter().enumerate() {
        let stem = format!("{}_{i}", c.dialect);
        std::fs::write(programs.join(format!("{stem}.mlir")), &c.src).expect("written");
    }
    let script = vhlo_tests::workspace_root().join("scripts/oracle/mutants.py");
    let out = Command::new(&python)
        .arg(&script)
        .args(["generate", mutants.to_str().expect("UTF-8 path")])
        .args(["--filter", "dialects_corpus.", "--per-module", "6"])
        .args(["--fixtures", programs.to_str().expect("UTF-8 path")])
        .output()
        .expect("mutants.py runs");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "mutants.py generate failed");

    let manifest =
        std::fs::read_to_string(mutants.join("manifest.tsv")).expect("mutants.py's manifest");
    let mut counts: BTreeMap<(String, &str), usize> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let mut total = 0;
    for line in manifest.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let [name, _source, kind, op, description, jaxlib, message] = fields[..] else {
            panic!("manifest.tsv: seven fields expected: {line}");
        };
        let src = std::fs::read_to_string(mutants.join(format!("{name}.mlir"))).expect("mutant");
        let ours = match text::parse(&src) {
            Ok(_) => "accept",
            Err(_) => "refuse",
        };
        // What jaxlib cannot read (it crashed or hung on it) we refuse.
        let want = if jaxlib == "crash" { "refuse" } else { jaxlib };
        total += 1;
        *counts.entry((jaxlib.to_string(), ours)).or_default() += 1;
        if ours != want {
            disagreements.push(format!(
                "{name} ({kind} of {op}: {description}): jaxlib {jaxlib} ({message}), we {ours}"
            ));
        }
    }
    eprintln!(
        "{total} programs (mutants and their controls) of {} corpus cases:",
        cases.len()
    );
    for ((jaxlib, ours), n) in &counts {
        eprintln!("  jaxlib {jaxlib:<6}  we {ours:<6}  {n}");
    }
    // The corpus has hundreds of programs; a handful would mean mutants.py made none.
    assert!(
        total >= cases.len(),
        "only {total} mutants and controls of {} cases",
        cases.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} of {total} verdicts differ from jaxlib's:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
