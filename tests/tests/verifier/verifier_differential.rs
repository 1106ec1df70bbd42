//! The verifier against libStablehlo's: single-change mutants of JAX's back-compat
//! programs, judged by jaxlib and by us.
//!
//! `scripts/oracle/mutants.py generate` parses each module text of the jax wheel's back-compat data
//! (and, for the ops that data lacks, the programs of tests/fixtures/jax and tests/fixtures/jax_mesh)
//! with jaxlib, makes up to 12 mutants of it through MLIR's Python API (one op result's type with a
//! dimension +1, its last dimension dropped or another element type, a region argument with
//! another element type, one integer of an op's attribute +1 or -1 or its type changed, one
//! attribute removed or replaced by a string, two operands swapped, or an operand of an op in a
//! region replaced by the function's argument of its type, from outside the region), prints
//! them without verifying, and asks jaxlib whether it parses each (MLIR verifies after parsing).
//! Each module also gives a control: its text unchanged, as jaxlib prints it.
//!
//! Here each is parsed with [`text::parse`], which verifies; what we accept is serialized at
//! jaxlib's current version (which verifies again) and read back by our reader (which verifies
//! too: we never write what we refuse). `mutants.py check` then has jaxlib deserialize our artifact
//! of each mutant both accept and compare it with its own parse of the mutant.
//!
//! Every mutant must agree: the same verdict, and where both accept, the same program read back.
//! What jaxlib refuses (its verifier runs as it parses), our parse must refuse too, not only a
//! later step, and a missing required attribute is the one jaxlib names.
//! Exceptions are listed with a reason in `tests/fixtures/verifier_differential_known.txt`
//! (`name reason`, one a line); an entry that agrees now fails the test, so the list only shrinks.
//!
//! Needs the oracle venv (scripts/oracle/setup.sh); skipped without it, except under CI or with
//! VHLO_REQUIRE_ORACLE=1. VHLO_ORACLE_PYTHON overrides the interpreter; VHLO_MUTANTS_FILTER keeps
//! the modules whose name contains it (and relaxes the minimum counts).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use vhlo_core::text;
use vhlo_tests::portable::{self, SerializeOptions};

const KNOWN: &str = "tests/fixtures/verifier_differential_known.txt";

fn run_mutants_py(python: &Path, args: &[&str]) {
    let script = vhlo_tests::workspace_root().join("scripts/oracle/mutants.py");
    let out = Command::new(python)
        .arg(&script)
        .args(args)
        .output()
        .expect("mutants.py runs");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "mutants.py {args:?} failed (status {})",
        out.status
    );
}

/// One row of manifest.tsv.
struct Mutant {
    name: String,
    kind: String,
    op: String,
    description: String,
    /// "accept", "refuse" or "crash".
    jaxlib: String,
    jaxlib_message: String,
}

/// The manifest's escapes (`\t`, `\n`, `\\`) undone.
fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

fn read_manifest(dir: &Path) -> Vec<Mutant> {
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).expect("manifest.tsv");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("name\tsource\tkind\top\tdescription\tjaxlib\tmessage"),
        "manifest header"
    );
    lines
        .map(|line| {
            let f: Vec<String> = line.split('\t').map(unescape).collect();
            assert_eq!(f.len(), 7, "manifest row {line:?}");
            Mutant {
                name: f[0].clone(),
                kind: f[2].clone(),
                op: f[3].clone(),
                description: f[4].clone(),
                jaxlib: f[5].clone(),
                jaxlib_message: f[6].clone(),
            }
        })
        .collect()
}

/// The known disagreements: name -> reason.
fn read_known() -> BTreeMap<String, String> {
    let path = vhlo_tests::workspace_root().join(KNOWN);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut known = BTreeMap::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        assert!(
            !reason.trim().is_empty(),
            "{KNOWN}:{}: `{name}` has no reason",
            number + 1
        );
        assert!(
            known
                .insert(name.to_string(), reason.trim().to_string())
                .is_none(),
            "{KNOWN}:{}: `{name}` listed twice",
            number + 1
        );
    }
    known
}

/// Our verdict on one mutant.
enum Ours {
    /// Parsed, verified, serialized and read back.
    Accept,
    /// Refused, with where and why.
    Refuse(String),
    /// We wrote an artifact that our own reader refuses (never acceptable).
    Unreadable(String),
}

/// Parses (verifying), serializes at `target` (verifying again) to `bc` and reads it back.
fn our_verdict(src: &str, target: &str, bc: &Path) -> Ours {
    let run = || -> Ours {
        let module = match text::parse(src) {
            Ok(m) => m,
            Err(e) => return Ours::Refuse(format!("parse: {e}")),
        };
        let options = SerializeOptions {
            // JAX keeps Shardy's dialect when it serializes with sdy (as tests/tests/oracle/jax_backcompat.rs).
            allow_other_dialects: src.contains("sdy."),
            ..Default::default()
        };
        // unchecked: read back just below with verification on, where a refusal is reported
        // as `Unreadable` (the checked writer's panic would be caught and counted a refusal).
        let bytes = match vhlo_core::portable::serialize_portable_artifact(&module, target, options)
        {
            Ok(b) => b,
            Err(e) => return Ours::Refuse(format!("serialize: {e}")),
        };
        if let Err(e) = portable::deserialize_portable_artifact(&bytes) {
            return Ours::Unreadable(format!("our reader refuses our artifact: {e}"));
        }
        std::fs::write(bc, bytes).expect("write artifact");
        Ours::Accept
    };
    std::panic::catch_unwind(run).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Ours::Refuse(format!("panic: {why}"))
    })
}

/// The attribute a message says is missing (`requires attribute 'NAME'`, MLIR's wording).
fn missing_attribute(message: &str) -> Option<&str> {
    let rest = message.split("requires attribute '").nth(1)?;
    rest.split('\'').next()
}

/// A file `mutants.py check` wrote: its text, or jaxlib's error.
fn jaxlib_output(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|_| {
        std::fs::read_to_string(format!("{}.error", path.display()))
            .map(|e| e.trim().to_string())
            .unwrap_or_else(|_| format!("no {}", path.display()))
    })
}

fn first_difference(ours: &str, jaxlib: &str) -> String {
    let line = ours
        .lines()
        .zip(jaxlib.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| ours.lines().count().min(jaxlib.lines().count()));
    format!(
        "line {}: ours read back `{}`, jaxlib's parse `{}`",
        line + 1,
        ours.lines().nth(line).unwrap_or("<end>").trim(),
        jaxlib.lines().nth(line).unwrap_or("<end>").trim()
    )
}

/// How one mutant came out.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Outcome {
    BothRefuse,
    BothAcceptSame,
    /// Both accept; jaxlib reads our artifact to what it reads its own artifact of the mutant to,
    /// which is not quite the mutant (the conversion to VHLO and back loses something).
    BothAcceptAsJaxlib,
    /// jaxlib refuses what we accept (and write).
    WeAcceptJaxlibRefuses,
    /// jaxlib's verifier refuses it when it parses it; ours accepts it there, and only a later
    /// step refuses it (a program our API would hand out as valid).
    RefusedOnlyLater,
    /// Both refuse a missing required attribute, but we name another one than jaxlib.
    OtherMissingAttribute,
    /// We refuse what jaxlib accepts.
    WeRefuseJaxlibAccepts,
    /// Both accept, but jaxlib reads our artifact to another program (or not at all).
    RoundTripDiffers,
    /// Our reader refuses what we wrote.
    OursUnreadable,
    /// jaxlib died on the mutant.
    JaxlibCrashed,
}

impl Outcome {
    fn agrees(self) -> bool {
        matches!(
            self,
            Outcome::BothRefuse | Outcome::BothAcceptSame | Outcome::BothAcceptAsJaxlib
        )
    }

    fn label(self) -> &'static str {
        match self {
            Outcome::BothRefuse => "both refuse",
            Outcome::BothAcceptSame => "both accept, same program read back",
            Outcome::BothAcceptAsJaxlib => {
                "both accept, read back as jaxlib reads back its own artifact"
            }
            Outcome::WeAcceptJaxlibRefuses => "jaxlib refuses, we accept",
            Outcome::RefusedOnlyLater => "jaxlib's verifier refuses, ours accepts (refused later)",
            Outcome::OtherMissingAttribute => "both refuse, naming another missing attribute",
            Outcome::WeRefuseJaxlibAccepts => "jaxlib accepts, we refuse",
            Outcome::RoundTripDiffers => "both accept, jaxlib reads our artifact differently",
            Outcome::OursUnreadable => "we write what our reader refuses",
            Outcome::JaxlibCrashed => "jaxlib crashed",
        }
    }
}

/// Mutants by (outcome, op, kind of change), with the detail of each.
type Groups<'a> = BTreeMap<(Outcome, &'a str, &'a str), Vec<(&'a Mutant, &'a String)>>;

#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn our_verdicts_are_libstablehlos() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("verifier_differential");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let d = dir.to_str().expect("UTF-8 path");
    let filter = std::env::var("VHLO_MUTANTS_FILTER").unwrap_or_default();
    let root = vhlo_tests::workspace_root();
    let fixtures = |name: &str| {
        root.join("tests/fixtures")
            .join(name)
            .to_str()
            .expect("UTF-8 path")
            .to_string()
    };
    let (jax, jax_mesh) = (fixtures("jax"), fixtures("jax_mesh"));
    run_mutants_py(
        &python,
        &[
            "generate",
            d,
            "--filter",
            &filter,
            "--per-module",
            "12",
            "--fixtures",
            &jax,
            "--fixtures",
            &jax_mesh,
        ],
    );
    let target = std::fs::read_to_string(dir.join("target")).expect("target");
    let target = target.trim();
    let mutants = read_manifest(&dir);
    let changed = mutants.iter().filter(|m| m.kind != "control").count();
    let controls = mutants.len() - changed;
    if filter.is_empty() {
        // 142 modules of jax 0.10.2's back-compat data and 26 fixture programs, up to 12
        // mutants each (2,012).
        assert!(
            controls >= 160 && changed >= 1500,
            "only {controls} modules and {changed} mutants"
        );
    } else {
        assert!(changed > 0, "no mutant of a module matching {filter:?}");
    }

    // Our side, in process.
    let mut ours = BTreeMap::new();
    for m in &mutants {
        let src = std::fs::read_to_string(dir.join(format!("{}.mlir", m.name))).expect("mutant");
        let bc = dir.join(format!("{}.ours.bc", m.name));
        ours.insert(m.name.clone(), our_verdict(&src, target, &bc));
    }
    // jaxlib reads back what we wrote of the mutants it accepts.
    run_mutants_py(&python, &["check", d]);

    let mut outcomes = Vec::new(); // (mutant, outcome, detail)
    for m in &mutants {
        let (outcome, detail) = match (m.jaxlib.as_str(), &ours[&m.name]) {
            (_, Ours::Unreadable(why)) => (Outcome::OursUnreadable, why.clone()),
            ("crash", _) => (Outcome::JaxlibCrashed, m.jaxlib_message.clone()),
            ("refuse", Ours::Refuse(why)) if !why.starts_with("parse: ") => {
                (Outcome::RefusedOnlyLater, why.clone())
            }
            ("refuse", Ours::Refuse(why)) => match missing_attribute(&m.jaxlib_message) {
                Some(theirs) if missing_attribute(why) != Some(theirs) => (
                    Outcome::OtherMissingAttribute,
                    format!("ours: {why}; jaxlib: {}", m.jaxlib_message),
                ),
                _ => (Outcome::BothRefuse, why.clone()),
            },
            ("refuse", Ours::Accept) => (
                Outcome::WeAcceptJaxlibRefuses,
                format!("jaxlib: {}", m.jaxlib_message),
            ),
            ("accept", Ours::Refuse(why)) => {
                (Outcome::WeRefuseJaxlibAccepts, format!("ours: {why}"))
            }
            ("accept", Ours::Accept) => {
                let base = dir.join(&m.name);
                let ours_read =
                    jaxlib_output(Path::new(&format!("{}.ours.jax.mlir", base.display())));
                let theirs = jaxlib_output(Path::new(&format!("{}.jax.mlir", base.display())));
                let own = jaxlib_output(Path::new(&format!("{}.jax_rt.mlir", base.display())));
                match (ours_read, theirs) {
                    (Ok(a), Ok(b)) if a == b => (Outcome::BothAcceptSame, String::new()),
                    // jaxlib's own artifact loses the same (a channel_handle's type, for one).
                    (Ok(a), Ok(b)) if own.as_ref().is_ok_and(|own| *own == a) => {
                        (Outcome::BothAcceptAsJaxlib, first_difference(&a, &b))
                    }
                    (Ok(a), Ok(b)) => (Outcome::RoundTripDiffers, first_difference(&a, &b)),
                    (Err(e), _) => (
                        Outcome::RoundTripDiffers,
                        format!("jaxlib cannot read our artifact: {e}"),
                    ),
                    (Ok(_), Err(e)) => (
                        Outcome::RoundTripDiffers,
                        format!("jaxlib cannot parse its own print again: {e}"),
                    ),
                }
            }
            (other, _) => panic!("{}: unknown jaxlib verdict {other:?}", m.name),
        };
        outcomes.push((m, outcome, detail));
    }

    // The table.
    let mut report = String::new();
    let count = |kinds: &dyn Fn(&Mutant) -> bool, o: &dyn Fn(Outcome) -> bool| {
        outcomes
            .iter()
            .filter(|(m, outcome, _)| kinds(m) && o(*outcome))
            .count()
    };
    report.push_str(&format!(
        "{changed} mutants of {controls} modules (jaxlib's StableHLO {target}), and {controls} controls\n\n"
    ));
    // A row per kind of change, the controls, then all mutants.
    let mut labels: Vec<&str> = mutants
        .iter()
        .map(|m| m.kind.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    labels.push("mutants");
    let width = labels.iter().map(|l| l.len()).max().unwrap_or(0);
    report.push_str(&format!(
        "{:<width$} | mutants | jaxlib refuses | jaxlib accepts | we refuse | we accept | agree | both accept, same program\n",
        "kind"
    ));
    for label in labels {
        let of_kind = |m: &Mutant| match label {
            "mutants" => m.kind != "control",
            kind => m.kind == kind,
        };
        let of_kind = &of_kind;
        let total = count(of_kind, &|_| true);
        let jaxlib_refuses = mutants
            .iter()
            .filter(|m| of_kind(m) && m.jaxlib == "refuse")
            .count();
        let jaxlib_accepts = mutants
            .iter()
            .filter(|m| of_kind(m) && m.jaxlib == "accept")
            .count();
        let we_refuse = mutants
            .iter()
            .filter(|m| of_kind(m) && matches!(ours[&m.name], Ours::Refuse(_)))
            .count();
        let agree = count(of_kind, &|o| o.agrees());
        let both_accept = count(of_kind, &|o| {
            matches!(
                o,
                Outcome::BothAcceptSame | Outcome::BothAcceptAsJaxlib | Outcome::RoundTripDiffers
            )
        });
        let same = count(of_kind, &|o| {
            matches!(o, Outcome::BothAcceptSame | Outcome::BothAcceptAsJaxlib)
        });
        report.push_str(&format!(
            "{label:<width$} | {total:>7} | {jaxlib_refuses:>14} | {jaxlib_accepts:>14} | {we_refuse:>9} | {:>9} | {agree:>5} ({:.1}%) | {same}/{both_accept}\n",
            total - we_refuse,
            100.0 * agree as f64 / total.max(1) as f64
        ));
    }
    let refused_by_jaxlib = mutants
        .iter()
        .filter(|m| m.kind != "control" && m.jaxlib == "refuse")
        .count();
    let refused_by_both = count(&|m| m.kind != "control", &|o| o == Outcome::BothRefuse);
    report.push_str(&format!(
        "\nof the {refused_by_jaxlib} mutants jaxlib refuses, we refuse {refused_by_both} ({:.1}%)\n",
        100.0 * refused_by_both as f64 / refused_by_jaxlib.max(1) as f64
    ));

    // Disagreements, grouped by outcome, op and kind of change.
    let known = read_known();
    let mut groups: Groups = BTreeMap::new();
    let mut failures = Vec::new();
    let mut seen = BTreeSet::new();
    for (m, outcome, detail) in &outcomes {
        seen.insert(m.name.as_str());
        let listed = known.contains_key(&m.name);
        if !matches!(outcome, Outcome::BothRefuse | Outcome::BothAcceptSame) {
            groups
                .entry((*outcome, m.op.as_str(), m.kind.as_str()))
                .or_default()
                .push((m, detail));
        }
        if !outcome.agrees() {
            if !listed {
                failures.push(format!(
                    "{} ({} of {}: {}): {}: {detail}",
                    m.name,
                    m.kind,
                    m.op,
                    m.description,
                    outcome.label()
                ));
            }
        } else if listed {
            failures.push(format!(
                "{}: agrees now ({}); drop it from {KNOWN}",
                m.name,
                outcome.label()
            ));
        }
    }
    for name in known.keys() {
        if !seen.contains(name.as_str()) && filter.is_empty() {
            failures.push(format!(
                "{name}: listed in {KNOWN} but no such mutant was made"
            ));
        }
    }
    if !groups.is_empty() {
        report.push_str(
            "\ndisagreements, and agreements by way of jaxlib's own round trip (outcome | op | kind | count | example):\n",
        );
        for ((outcome, op, kind), members) in &groups {
            let (example, detail) = members[0];
            report.push_str(&format!(
                "  {} | {op} | {kind} | {} | {}: {}; {detail}\n",
                outcome.label(),
                members.len(),
                example.name,
                example.description
            ));
        }
    }
    if !failures.is_empty() {
        report.push_str(&format!(
            "\n{} unexpected (not in {KNOWN}):\n",
            failures.len()
        ));
        for f in &failures {
            report.push_str(&format!("  {f}\n"));
        }
    }
    eprintln!("{report}");
    std::fs::write(dir.join("report.txt"), &report).expect("report");
    assert!(
        failures.is_empty(),
        "{} mutant(s) disagree with libStablehlo and are not listed in {KNOWN}, or are listed and agree; see the table above and {}",
        failures.len(),
        dir.join("report.txt").display()
    );
}
