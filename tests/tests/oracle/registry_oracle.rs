//! What jaxlib's MLIR context registers, against what we take to be registered:
//! - its dialects are `dialect::LIBSTABLEHLO_DIALECTS`, and the text parser refuses an op of
//!   any other dialect, as jaxlib's parser does;
//! - an op name of a dialect we model is known to us exactly when jaxlib registers it (but for
//!   StableHLO and VHLO ops newer than jaxlib's StableHLO), so that the verifier refuses the
//!   others with MLIR's "does not allow unknown operations", as jaxlib does; so is one of the
//!   dialects whose op names alone `spec/registered_ops.yaml` lists (gpu, memref, mhlo, ...).
//!
//! jaxlib's op names come from its generated Python op classes (`_*_ops_gen.py`), and for
//! affine, complex and ub, which have none, from the names its library spells: tensor and shape
//! are in neither, so for them only our names are checked against its registry. Needs the
//! oracle: ignored without it, a failure under CI (`vhlo_tests::oracle_python`).

use std::collections::BTreeSet;

use serde_json::json;
use vhlo_core::dialect::LIBSTABLEHLO_DIALECTS;
use vhlo_core::text;
use vhlo_core::version::Version;
use vhlo_core::vhlo::{StablehloOp, VhloOp, CODEC_DIALECTS, UNMODELED_OPS};

/// Our verdict on a lone generic op named `name`: refused as an unknown op of its dialect?
fn unknown_to_us(name: &str) -> bool {
    match text::parse(&format!("\"{name}\"() : () -> ()\n")) {
        Ok(_) => false,
        Err(e) => e.message.contains("unregistered operation"),
    }
}

/// The dialects whose every op we know: the spec's StableHLO and VHLO, `func` and `builtin`,
/// each dialect of `spec/dialects/` that says `ops_complete`, and those whose op names alone
/// `spec/registered_ops.yaml` lists.
fn modeled_dialects() -> BTreeSet<&'static str> {
    let mut d: BTreeSet<&str> = ["stablehlo", "vhlo", "func", "builtin"].into();
    d.extend(
        CODEC_DIALECTS
            .iter()
            .filter(|cd| cd.ops_complete)
            .map(|cd| cd.name),
    );
    d.extend(UNMODELED_OPS.iter().map(|(d, _)| *d));
    d
}

/// The first release that has the StableHLO or VHLO op `name`, if it is one.
fn first_release(name: &str) -> Option<Version> {
    let vhlo = VhloOp::ALL.iter().copied();
    if let Some(op) = StablehloOp::ALL.iter().find(|o| o.name() == name) {
        return vhlo
            .filter(|v| v.stablehlo() == *op)
            .map(|v| v.range().min)
            .min();
    }
    VhloOp::ALL
        .iter()
        .find(|v| v.name() == name)
        .map(|v| v.range().min)
}

#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn jaxlibs_registry_is_ours() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let ours: Vec<String> = StablehloOp::ALL
        .iter()
        .map(|o| o.name().to_string())
        .chain(VhloOp::ALL.iter().map(|v| v.name().to_string()))
        .chain(CODEC_DIALECTS.iter().flat_map(|cd| {
            cd.ops
                .iter()
                .map(move |o| format!("{}.{}", cd.name, o.name))
        }))
        .chain(
            (UNMODELED_OPS.iter()).flat_map(|(d, ops)| ops.iter().map(move |o| format!("{d}.{o}"))),
        )
        .collect();
    // An op in custom syntax of a dialect jaxlib does not know: its error lists the dialects
    // it has.
    let unknown_dialect = "func.func @f() {\n  foo.bar\n  return\n}\n";
    let results = vhlo_tests::oracle_batch(
        &python,
        &[json!({"registry": ours}), json!({"text": unknown_dialect})],
    );
    let registry = &results[0];
    let version: Version = registry["version"]
        .as_str()
        .expect("version")
        .parse()
        .expect("a version");
    let mut wrong = Vec::new();

    // The dialects.
    let error = results[1]["error"]
        .as_str()
        .expect("jaxlib refuses foo.bar");
    let listed = error
        .split("Available dialects: ")
        .nth(1)
        .expect("jaxlib lists its dialects");
    let theirs: BTreeSet<&str> = listed
        .split(" (* corresponding")
        .next()
        .unwrap_or(listed)
        .split(", ")
        .map(|d| d.trim_end_matches(" (*)"))
        .collect();
    let ours_dialects: BTreeSet<&str> = LIBSTABLEHLO_DIALECTS.iter().copied().collect();
    if theirs != ours_dialects {
        wrong.push(format!(
            "jaxlib's dialects {theirs:?}, LIBSTABLEHLO_DIALECTS {ours_dialects:?}"
        ));
    }
    for d in ["foo", "linalg", "sparse_tensor", "tosa"] {
        assert!(!theirs.contains(d), "jaxlib registers {d}");
        let src = format!("\"{d}.op\"() : () -> ()\n");
        match text::parse(&src) {
            Err(e) if e.message.contains("unregistered dialect") => {}
            other => wrong.push(format!("{d}.op: {other:?}")),
        }
    }

    // Our op names: registered in jaxlib, unless newer than it; and known to us.
    let registered = registry["registered"].as_array().expect("registered");
    assert_eq!(registered.len(), ours.len());
    for (name, yes) in ours.iter().zip(registered) {
        let newer = first_release(name).is_some_and(|v| v > version);
        if yes.as_bool() != Some(true) && !newer {
            wrong.push(format!(
                "{name}: ours, and jaxlib {version} does not register it"
            ));
        }
        if unknown_to_us(name) {
            wrong.push(format!("{name}: ours, and our verifier calls it unknown"));
        }
    }
    // jaxlib's op names of the dialects we model: known to us.
    let modeled = modeled_dialects();
    let mut checked = 0;
    for name in registry["ops_gen"].as_array().expect("ops_gen") {
        let name = name.as_str().expect("a name");
        let dialect = name.split('.').next().unwrap_or("");
        if modeled.contains(dialect) {
            checked += 1;
            if unknown_to_us(name) {
                wrong.push(format!(
                    "{name}: jaxlib registers it, and we call it unknown"
                ));
            }
        }
    }
    // A made-up name in each dialect we model is refused exactly when jaxlib refuses it
    // (shape takes it as an unregistered op).
    let made_up: Vec<String> = modeled.iter().map(|d| format!("{d}.no_such_op")).collect();
    let jobs: Vec<_> = made_up
        .iter()
        .map(|n| json!({ "text": format!("\"{n}\"() : () -> ()\n") }))
        .collect();
    for (name, verdict) in made_up.iter().zip(vhlo_tests::oracle_batch(&python, &jobs)) {
        let refused = verdict["error"]
            .as_str()
            .is_some_and(|e| e.contains("unregistered operation"));
        if refused != unknown_to_us(name) {
            wrong.push(format!(
                "{name}: jaxlib refuses it: {refused}; we do: {}",
                !refused
            ));
        }
    }
    assert!(
        checked > 200,
        "only {checked} of jaxlib's op names are of dialects we model"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The cases of `tests/fixtures/registry_cases.mlir`: each accepted exactly when jaxlib
/// accepts it. Where both refuse, our message is jaxlib's in most cases (printed; ours may
/// say more, such as the op and dialect an unregistered name has).
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn registry_cases_get_jaxlibs_verdict() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let path = vhlo_tests::workspace_root().join("tests/fixtures/registry_cases.mlir");
    let src = std::fs::read_to_string(&path).expect("registry_cases.mlir");
    let cases: Vec<&str> = src.split("\n// -----\n").collect();
    let jobs: Vec<_> = cases.iter().map(|c| json!({ "text": c })).collect();
    let theirs = vhlo_tests::oracle_batch(&python, &jobs);
    let (mut wrong, mut same_message) = (Vec::new(), 0);
    for (case, jax) in cases.iter().zip(&theirs) {
        let ours = text::parse(case);
        let jax_error = jax["error"].as_str();
        match (&ours, jax_error) {
            (Ok(_), None) => {}
            (Err(e), Some(j)) => {
                // jaxlib's first diagnostic, without its position and the op's name.
                let first = j.lines().nth(1).unwrap_or(j);
                let core = first.split(" error: ").nth(1).unwrap_or(first);
                let core = core.split(" op ").last().unwrap_or(core).trim();
                // A refusal for an unregistered dialect: at jaxlib's place, and for an op in
                // jaxlib's words.
                if core.contains("with unregistered dialect")
                    || core.starts_with("operation being parsed with an unregistered dialect")
                {
                    let place = first.trim().split(": error:").next().unwrap_or("");
                    let ours_place = format!("-:{}:{}", e.line, e.column);
                    let op_words = !core.starts_with("operation") || e.message.contains(core);
                    if place != ours_place || !op_words {
                        wrong.push(format!(
                            "{}
  jaxlib: {first}
  ours: {ours_place}: {}",
                            case.lines().find(|l| !l.starts_with("//")).unwrap_or(""),
                            e.message
                        ));
                    }
                }
                if e.message.contains(core) {
                    same_message += 1;
                } else {
                    eprintln!(
                        "message differs:\n  jaxlib: {core}\n  ours:   {}",
                        e.message
                    );
                }
            }
            _ => wrong.push(format!(
                "{}\n  jaxlib: {}\n  ours: {:?}",
                case.lines().find(|l| !l.starts_with("//")).unwrap_or(""),
                jax_error.unwrap_or("accepts"),
                ours.as_ref().map(|_| "accepts").map_err(|e| e.to_string())
            )),
        }
    }
    eprintln!(
        "registry cases: {} agree on the verdict, {same_message} refused with jaxlib's message",
        cases.len() - wrong.len()
    );
    assert!(cases.len() >= 39, "{} cases", cases.len());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
