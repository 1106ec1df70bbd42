//! Live differential tests against libStablehlo (jaxlib, through scripts/oracle/oracle.py), for what
//! the committed jaxlib-written fixtures cannot show:
//! 1. artifacts WE write from each JAX fixture program, at every target jaxlib wrote one for, with and
//!    without debug info, are read by jaxlib to the module jaxlib reads from its own artifact;
//! 2. our pretty and generic prints of our parse of each fixture, parsed and printed by jaxlib, equal
//!    jaxlib's own prints of the original text (pretty and generic, with locations);
//! 3. our minimum version of each fixture, and of programs written here that use newer features, is
//!    the smallest target jaxlib serializes to, found live.
//!
//! Oracle calls are batched (one Python process per command, many files). Needs the oracle venv
//! (scripts/oracle/setup.sh); skipped without it unless VHLO_REQUIRE_ORACLE=1, where a missing venv
//! fails. VHLO_ORACLE_PYTHON overrides the interpreter (default: <workspace>/.venv/bin/python).

use std::path::{Path, PathBuf};
use std::process::Command;

use vhlo_core::convert::{self, LegalizeOptions};
use vhlo_core::text::{self, PrintOptions};
use vhlo_tests::portable::{self, SerializeOptions};

/// Runs oracle.py; in --output-dir mode a failed input leaves `<name><suffix>.error` and the exit
/// status is 1, so the caller looks at the files rather than the status.
fn run_oracle(python: &Path, args: &[String]) -> std::process::Output {
    let script = vhlo_tests::workspace_root().join("scripts/oracle/oracle.py");
    Command::new(python)
        .arg(&script)
        .args(args)
        .output()
        .expect("oracle.py runs")
}

/// Output of one batch input: the text, or the oracle's error.
fn batch_output(dir: &Path, input: &Path, suffix: &str) -> Result<String, String> {
    let name = format!("{}{suffix}", input.file_name().unwrap().to_string_lossy());
    let out = dir.join(&name);
    match std::fs::read_to_string(&out) {
        Ok(text) => Ok(text),
        Err(_) => Err(std::fs::read_to_string(dir.join(format!("{name}.error")))
            .unwrap_or_else(|_| format!("oracle left neither {name} nor {name}.error"))),
    }
}

fn fixtures() -> PathBuf {
    vhlo_tests::workspace_root().join("tests/fixtures/jax")
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("oracle_live")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// index.tsv rows of one kind: (program, target, file).
fn index_rows(kind: &str) -> Vec<(String, String, String)> {
    let index = std::fs::read_to_string(fixtures().join("index.tsv")).expect("index.tsv");
    index
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            match cols[..] {
                [program, k, target, file, ..] if k == kind => {
                    Some((program.into(), target.into(), file.into()))
                }
                _ => None,
            }
        })
        .collect()
}

/// First differing line of two texts, for failure messages.
fn first_difference(a: &str, b: &str) -> String {
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n    jaxlib: {x}\n    ours:   {y}", i + 1);
        }
    }
    format!("line counts {} vs {}", a.lines().count(), b.lines().count())
}

/// `text` with every source position in file `parsed` (`loc("<parsed>":L:C)`) replaced by a placeholder.
fn without_positions_in(text: &str, parsed: &Path) -> String {
    let prefix = format!("loc(\"{}\":", parsed.to_string_lossy());
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&prefix) {
        out.push_str(&rest[..at]);
        out.push_str("loc(SOURCE_POSITION");
        rest = &rest[at + prefix.len()..];
        // Skip `L:C`, up to the closing parenthesis.
        let end = rest.find(')').unwrap_or(rest.len());
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Parses a fixture program as MLIR's parser does from `path` (source positions name that path).
fn parse_fixture(path: &Path) -> vhlo_core::ir::Module {
    let src = std::fs::read_to_string(path).expect("fixture text");
    text::parse_with_source_locations(&src, &path.to_string_lossy()).expect("fixture parses")
}

#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn jaxlib_reads_our_artifacts_as_it_reads_its_own() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let dir = fixtures();
    let work = scratch("artifacts");
    let mut cases = Vec::new(); // (label, jaxlib's artifact, ours)
    let mut failures = Vec::new();
    for kind in ["locations", "stripped"] {
        for (program, target, file) in index_rows(kind) {
            let label = format!("{program}@{target} ({kind})");
            // The name the fixtures were parsed under by gen.py, so locations carry the same file.
            let src =
                std::fs::read_to_string(dir.join(format!("{program}.mlir"))).expect("program text");
            let module = text::parse_with_source_locations(&src, &format!("{program}.mlir"))
                .expect("fixture parses");
            let opts = SerializeOptions {
                strip_debuginfo: kind == "stripped",
                allow_other_dialects: false,
                ..Default::default()
            };
            match portable::serialize_portable_artifact(&module, &target, opts) {
                Ok(bytes) => {
                    let ours = work.join(format!("ours.{file}"));
                    std::fs::write(&ours, bytes).expect("write artifact");
                    cases.push((label, dir.join(&file), ours));
                }
                Err(e) => failures.push(format!("{label}: we refused a target jaxlib wrote: {e}")),
            }
        }
    }
    assert!(
        cases.len() >= 200,
        "only {} artifacts to compare",
        cases.len()
    );
    let out = work.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let mut args: Vec<String> = ["deserialize", "--generic", "--debug-info", "--output-dir"]
        .map(String::from)
        .into();
    args.push(out.to_string_lossy().into());
    for (_, theirs, ours) in &cases {
        args.push(theirs.to_string_lossy().into());
        args.push(ours.to_string_lossy().into());
    }
    run_oracle(&python, &args);
    let mut same = 0;
    for (label, theirs, ours) in &cases {
        let want = match batch_output(&out, theirs, ".deserialized.mlir") {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{label}: jaxlib cannot read its own artifact: {e}"));
                continue;
            }
        };
        match batch_output(&out, ours, ".deserialized.mlir") {
            Ok(got) if got == want => same += 1,
            Ok(got) => failures.push(format!(
                "{label}: jaxlib reads our artifact differently: {}",
                first_difference(&want, &got)
            )),
            Err(e) => failures.push(format!("{label}: jaxlib cannot read our artifact: {e}")),
        }
    }
    eprintln!(
        "{same}/{} of our artifacts read by jaxlib as its own",
        cases.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn jaxlib_parses_our_prints_as_the_original() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let dir = fixtures();
    let work = scratch("text");
    // (program, original, our pretty print, our generic print)
    let mut cases = Vec::new();
    // The fixtures, and the module-less programs written here (implicit module, newer features).
    let mut originals: Vec<(String, PathBuf)> = index_rows("text")
        .into_iter()
        .map(|(program, _, file)| (program, dir.join(file)))
        .collect();
    for (name, src) in NEWER_FEATURES {
        let path = work.join(format!("{name}.mlir"));
        std::fs::write(&path, src).unwrap();
        originals.push((name.to_string(), path));
    }
    for (program, original) in originals {
        let module = parse_fixture(&original);
        let pretty = text::print(
            &module,
            PrintOptions {
                debug_info: true,
                elide_defaults: true,
                ..Default::default()
            },
        );
        let generic = text::print(
            &module,
            PrintOptions {
                generic: true,
                debug_info: true,
                ..Default::default()
            },
        );
        let ours_pretty = work.join(format!("{program}.ours_pretty.mlir"));
        let ours_generic = work.join(format!("{program}.ours_generic.mlir"));
        std::fs::write(&ours_pretty, pretty).unwrap();
        std::fs::write(&ours_generic, generic).unwrap();
        cases.push((program, original, ours_pretty, ours_generic));
    }
    assert!(
        cases.len() >= 15 + NEWER_FEATURES.len(),
        "only {} programs",
        cases.len()
    );
    let mut failures = Vec::new();
    let mut same = 0;
    let mut compared = 0;
    // jaxlib's pretty print of an original, written by the first ("pretty") batch below.
    let jaxlib_pretty = |original: &Path| {
        work.join("pretty").join(format!(
            "{}.roundtrip.mlir",
            original.file_name().unwrap().to_string_lossy()
        ))
    };
    for jaxlib_form in ["pretty", "generic"] {
        let out = work.join(jaxlib_form);
        std::fs::create_dir_all(&out).unwrap();
        let mut args: Vec<String> = vec!["roundtrip-text".into(), "--debug-info".into()];
        if jaxlib_form == "generic" {
            args.push("--generic".into());
        }
        args.push("--output-dir".into());
        args.push(out.to_string_lossy().into());
        for (_, original, pretty, generic) in &cases {
            for path in [original, pretty, generic] {
                args.push(path.to_string_lossy().into());
            }
            if jaxlib_form == "generic" {
                args.push(jaxlib_pretty(original).to_string_lossy().into());
            }
        }
        run_oracle(&python, &args);
        for (program, original, pretty, generic) in &cases {
            let want = match batch_output(&out, original, ".roundtrip.mlir") {
                Ok(t) => t,
                Err(e) => {
                    failures.push(format!("{program}: jaxlib cannot parse the original: {e}"));
                    continue;
                }
            };
            for (our_form, path) in [("pretty", pretty), ("generic", generic)] {
                compared += 1;
                let label =
                    format!("{program}: our {our_form} print, jaxlib's {jaxlib_form} print");
                // The pretty syntax of while/case/reduce bodies has no place for region-argument
                // locations, so MLIR's parser gives them source positions in the file it parses, for
                // jaxlib's own pretty print as for ours: compare those modulo the file's name and
                // position. Our generic print carries every location and is compared as is.
                let got = batch_output(&out, path, ".roundtrip.mlir").map(|got| match our_form {
                    "pretty" => without_positions_in(&without_positions_in(&got, path), original),
                    _ => got,
                });
                // MLIR's pretty printers also leave out attributes equal to their default (an explicit
                // `result_accuracy<DEFAULT>`), so the generic print our pretty print must give is that
                // of jaxlib's own pretty print of the original, read back by jaxlib.
                let want = match (our_form, jaxlib_form) {
                    ("pretty", "generic") => {
                        match batch_output(&out, &jaxlib_pretty(original), ".roundtrip.mlir") {
                            Ok(t) => without_positions_in(
                                &without_positions_in(&t, &jaxlib_pretty(original)),
                                original,
                            ),
                            Err(e) => {
                                failures.push(format!(
                                    "{label}: jaxlib cannot parse its own pretty print: {e}"
                                ));
                                continue;
                            }
                        }
                    }
                    ("pretty", _) => without_positions_in(&want, original),
                    _ => want.clone(),
                };
                match got {
                    Ok(got) if got == want => same += 1,
                    Ok(got) => failures.push(format!(
                        "{label} differs: {}",
                        first_difference(&want, &got)
                    )),
                    Err(e) => failures.push(format!("{label}: jaxlib cannot parse ours: {e}")),
                }
            }
        }
    }
    eprintln!("{same}/{compared} (program, our form, jaxlib form) prints equal jaxlib's print of the original");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Programs using features newer than 0.9.0, each with a different minimum version.
const NEWER_FEATURES: &[(&str, &str)] = &[
    (
        "tan",
        r#"func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tan %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"#,
    ),
    (
        "f8e4m3",
        r#"func.func @main(%arg0: tensor<4xf8E4M3>) -> tensor<4xf8E4M3> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf8E4M3>
  return %0 : tensor<4xf8E4M3>
}
"#,
    ),
    (
        "f8e3m4_convert",
        r#"func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf8E3M4> {
  %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf8E3M4>
  return %0 : tensor<4xf8E3M4>
}
"#,
    ),
    (
        "f4e2m1fn",
        r#"func.func @main(%arg0: tensor<4xf4E2M1FN>) -> tensor<4xf4E2M1FN> {
  return %arg0 : tensor<4xf4E2M1FN>
}
"#,
    ),
    (
        "f8e8m0fnu",
        r#"func.func @main(%arg0: tensor<4xf8E8M0FNU>) -> tensor<4xf8E8M0FNU> {
  return %arg0 : tensor<4xf8E8M0FNU>
}
"#,
    ),
    (
        "f8e4m3fnuz",
        r#"func.func @main(%arg0: tensor<4xf8E4M3FNUZ>) -> tensor<4xf8E4M3FNUZ> {
  return %arg0 : tensor<4xf8E4M3FNUZ>
}
"#,
    ),
    (
        "result_accuracy",
        r#"func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.exponential"(%arg0) {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, rtol = 0.000000e+00, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"#,
    ),
    (
        "result_accuracy_default",
        r#"func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.tanh"(%arg0) {result_accuracy = #stablehlo.result_accuracy<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 0, mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"#,
    ),
    (
        "i2",
        r#"func.func @main(%arg0: tensor<4xi2>) -> tensor<4xi2> {
  return %arg0 : tensor<4xi2>
}
"#,
    ),
    (
        "composite",
        r#"func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.composite "my.op" %arg0 {decomposition = @impl, version = 1 : i32} : (tensor<f32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func private @impl(%arg0: tensor<f32>) -> tensor<f32> {
  return %arg0 : tensor<f32>
}
"#,
    ),
    (
        "dot_algorithm",
        r#"func.func @main(%arg0: tensor<2x2xf32>, %arg1: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], algorithm = <lhs_precision_type = tf32, rhs_precision_type = tf32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false> : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
"#,
    ),
];

/// Our minimum version of a StableHLO program, or why there is none.
fn our_minimum(src: &str) -> Result<String, String> {
    let mut m = text::parse(src).map_err(|e| format!("parse: {e}"))?;
    convert::legalize_to_vhlo(&mut m, LegalizeOptions::default())
        .map_err(|ds| convert::diagnostics_to_text(&ds))?;
    convert::minimum_version(&m)
        .map(|v| v.to_string())
        .map_err(|ds| convert::diagnostics_to_text(&ds))
}

#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn minimum_version_is_jaxlibs_smallest_serializable_target() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let work = scratch("minimum");
    let mut programs: Vec<(String, PathBuf)> = index_rows("text")
        .into_iter()
        .map(|(program, _, file)| (program, fixtures().join(file)))
        .collect();
    let fixture_count = programs.len();
    for (name, src) in NEWER_FEATURES {
        let path = work.join(format!("{name}.mlir"));
        std::fs::write(&path, src).unwrap();
        programs.push((name.to_string(), path));
    }
    let mut args = vec!["min-target".to_string()];
    args.extend(
        programs
            .iter()
            .map(|(_, p)| p.to_string_lossy().into_owned()),
    );
    let output = run_oracle(&python, &args);
    assert!(
        output.status.success(),
        "oracle min-target failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    // Lines are "TARGET INPUT", in input order.
    let jaxlib: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(t, _)| t))
        .collect();
    assert_eq!(jaxlib.len(), programs.len(), "oracle printed:\n{stdout}");
    let mut failures = Vec::new();
    let mut newer = std::collections::BTreeSet::new();
    for ((name, path), want) in programs.iter().zip(&jaxlib) {
        let src = std::fs::read_to_string(path).unwrap();
        match our_minimum(&src) {
            Ok(v) if v == *want => {}
            Ok(v) => failures.push(format!("{name}: our minimum {v}, jaxlib's {want}")),
            Err(e) => failures.push(format!(
                "{name}: we find no target, jaxlib's minimum is {want}: {e}"
            )),
        }
        if path.starts_with(&work) {
            newer.insert(want.to_string());
        }
    }
    eprintln!(
        "{}/{} minimum versions equal jaxlib's ({fixture_count} fixtures, {} written here, with jaxlib minimums {newer:?})",
        programs.len() - failures.len(),
        programs.len(),
        NEWER_FEATURES.len()
    );
    // The programs written here must exercise several different boundaries to mean anything.
    assert!(
        newer.len() >= 4,
        "programs written here only reach {newer:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The programs written here exercise encodings the JAX fixtures do not (tan, f8/f4 types, result
/// accuracy, the dot algorithm, composite): what we write at their minimum version and at 1.17.0 must
/// be read by jaxlib to the module it reads from its own artifact at 1.17.0.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn jaxlib_reads_our_artifacts_of_newer_features() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let work = scratch("newer");
    let mut sources = Vec::new();
    let mut ours = Vec::new(); // (label, source, our artifact)
    let mut failures = Vec::new();
    for (name, src) in NEWER_FEATURES {
        let path = work.join(format!("{name}.mlir"));
        std::fs::write(&path, src).unwrap();
        sources.push(path.clone());
        let minimum = match our_minimum(src) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: no minimum version: {e}"));
                continue;
            }
        };
        let module = text::parse_with_source_locations(src, &path.to_string_lossy())
            .expect("program parses");
        for target in [minimum.as_str(), "1.17.0"] {
            for strip_debuginfo in [false, true] {
                let label = format!(
                    "{name}@{target}{}",
                    if strip_debuginfo { " (stripped)" } else { "" }
                );
                let opts = SerializeOptions {
                    strip_debuginfo,
                    allow_other_dialects: false,
                    ..Default::default()
                };
                match portable::serialize_portable_artifact(&module, target, opts) {
                    Ok(bytes) => {
                        let file =
                            work.join(format!("ours.{name}.{target}.{strip_debuginfo}.mlir.bc"));
                        std::fs::write(&file, bytes).unwrap();
                        ours.push((label, path.clone(), strip_debuginfo, file));
                    }
                    Err(e) => failures.push(format!("{label}: we cannot serialize: {e}")),
                }
            }
        }
    }
    // jaxlib's own artifacts at 1.17.0, with and without debug info.
    let theirs_dir = |strip: bool| work.join(if strip { "theirs_stripped" } else { "theirs" });
    for strip in [false, true] {
        std::fs::create_dir_all(theirs_dir(strip)).unwrap();
        let mut args: Vec<String> = vec!["serialize".into(), "--target".into(), "1.17.0".into()];
        if strip {
            args.push("--strip-debuginfo".into());
        }
        args.push("--output-dir".into());
        args.push(theirs_dir(strip).to_string_lossy().into());
        args.extend(sources.iter().map(|p| p.to_string_lossy().into_owned()));
        run_oracle(&python, &args);
    }
    let out = work.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let theirs_of = |source: &Path, strip: bool| {
        theirs_dir(strip).join(format!(
            "{}.bc",
            source.file_name().unwrap().to_string_lossy()
        ))
    };
    let their_name = |source: &Path, strip: bool| {
        format!(
            "theirs.{strip}.{}.bc",
            source.file_name().unwrap().to_string_lossy()
        )
    };
    // Copy jaxlib's artifacts under distinct names: batch outputs are named after the input file.
    for source in &sources {
        for strip in [false, true] {
            let _ = std::fs::copy(
                theirs_of(source, strip),
                work.join(their_name(source, strip)),
            );
        }
    }
    let mut args: Vec<String> = ["deserialize", "--generic", "--debug-info", "--output-dir"]
        .map(String::from)
        .into();
    args.push(out.to_string_lossy().into());
    for source in &sources {
        for strip in [false, true] {
            args.push(
                work.join(their_name(source, strip))
                    .to_string_lossy()
                    .into(),
            );
        }
    }
    args.extend(
        ours.iter()
            .map(|(_, _, _, f)| f.to_string_lossy().into_owned()),
    );
    run_oracle(&python, &args);
    let mut same = 0;
    for (label, source, strip, file) in &ours {
        let want = match batch_output(
            &out,
            &work.join(their_name(source, *strip)),
            ".deserialized.mlir",
        ) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!(
                    "{label}: jaxlib did not write or read its own artifact: {e}"
                ));
                continue;
            }
        };
        match batch_output(&out, file, ".deserialized.mlir") {
            Ok(got) if got == want => same += 1,
            Ok(got) => failures.push(format!(
                "{label}: jaxlib reads our artifact differently: {}",
                first_difference(&want, &got)
            )),
            Err(e) => failures.push(format!("{label}: jaxlib cannot read our artifact: {e}")),
        }
    }
    eprintln!(
        "{same}/{} of our artifacts of newer features read by jaxlib as its own",
        ours.len()
    );
    assert!(
        ours.len() >= 4 * NEWER_FEATURES.len() - 8,
        "only {} artifacts written",
        ours.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Programs whose prints have aliases: builtin's `!tuple` (more than 16 types), `#map`
/// (`affine_map`), `#set` (`affine_set`) and `#loc` (also a location used as an attribute, fused
/// and call-site locations, a location shared by a block argument and an op), in properties,
/// discardable attributes and regions, with an implicit and an explicit module.
fn alias_programs() -> Vec<String> {
    let t17 = vec!["tensor<f32>"; 17].join(", ");
    vec![
        format!(
            r#"module @m attributes {{mhlo.frontend_attributes = {{a = "b"}}}} {{
  func.func @f(%arg0: tuple<{t17}>, %arg1: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, %arg2: tensor<8xf32>) -> tuple<{t17}> {{
    %0 = stablehlo.add %arg2, %arg2 : tensor<8xf32>
    return %arg0 : tuple<{t17}>
  }} loc("a.py":1:2)
  func.func @g(%arg0: tuple<{t17}, tensor<i32>>, %arg1: tensor<4xf32, #stablehlo.bounds<?>>) -> tuple<{t17}> {{
    %1 = stablehlo.get_tuple_element %arg0[0] : (tuple<{t17}, tensor<i32>>) -> tensor<f32>
    %2 = "stablehlo.tuple"(%1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1) : ({t17}) -> tuple<{t17}>
    return %2 : tuple<{t17}>
  }}
}}
"#
        ),
        r#"func.func @f(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.custom_call @foo(%arg0) {z = affine_map<(d0) -> (d0 + 1)>, backend_config = {x = affine_map<(d0) -> (d0 + 2)>}, api_version = 4 : i32} : (tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.while"(%0) ({
  ^bb0(%a: tensor<f32>):
    %c = stablehlo.constant {b = affine_map<(d0) -> (d0 + 3)>} dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) {c = affine_map<(d0) -> (d0 + 4)>} : (tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
"#
        .to_string(),
        format!(
            r#"func.func @main(%arg0: tensor<f32> loc("x.py":1:1), %arg1: tuple<{t17}>) -> tensor<f32> {{
  %0 = stablehlo.abs %arg0 : tensor<f32> loc(fused<"meta">["x.py":1:1, callsite("f"("y.py":2:2) at "z.py":3:3)])
  %1 = stablehlo.custom_call @foo(%0) {{api_version = 4 : i32, mhlo.loc = loc("w.py":4:4), backend_config = {{m = affine_set<(d0) : (d0 >= 0)>}}}} : (tensor<f32>) -> tensor<f32> loc("f"("y.py":2:2))
  return %1 : tensor<f32> loc(unknown)
}}
"#
        ),
    ]
}

/// Our prints of the alias programs equal jaxlib's (stablehlo-opt's) byte for byte: which values
/// get aliases, their names, numbering and order, deferred `#loc` definitions, and no aliases
/// under `--mlir-print-local-scope`.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn aliases_print_as_jaxlib_prints_them() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let work = scratch("aliases");
    let programs = alias_programs();
    let input = work.join("aliases.mlir");
    std::fs::write(&input, programs.join("// -----\n")).unwrap();
    let modules: Vec<_> = programs
        .iter()
        .map(|p| text::parse_with_source_locations(p, "-").expect("alias program parses"))
        .collect();
    let mut failures = Vec::new();
    let variants: [(&[&str], PrintOptions); 6] = [
        (
            &["--mlir-print-local-scope"],
            PrintOptions {
                local_scope: true,
                elide_defaults: true,
                ..Default::default()
            },
        ),
        (
            &[],
            PrintOptions {
                elide_defaults: true,
                ..Default::default()
            },
        ),
        (
            &["--mlir-print-op-generic"],
            PrintOptions {
                generic: true,
                ..Default::default()
            },
        ),
        (
            &["--mlir-print-debuginfo"],
            PrintOptions {
                debug_info: true,
                location_aliases: true,
                elide_defaults: true,
                ..Default::default()
            },
        ),
        (
            &["--mlir-print-op-generic", "--mlir-print-debuginfo"],
            PrintOptions {
                generic: true,
                debug_info: true,
                location_aliases: true,
                ..Default::default()
            },
        ),
        (
            &["--mlir-print-debuginfo", "--mlir-print-local-scope"],
            PrintOptions {
                debug_info: true,
                elide_defaults: true,
                ..Default::default()
            },
        ),
    ];
    for (flags, opts) in variants {
        let mut args: Vec<String> = vec!["stablehlo-opt".into(), "--split-input-file".into()];
        args.extend(flags.iter().map(|f| f.to_string()));
        args.push(input.to_string_lossy().into());
        let out = run_oracle(&python, &args);
        let want = String::from_utf8_lossy(&out.stdout).into_owned();
        if !out.status.success() {
            failures.push(format!(
                "{flags:?}: oracle failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
            continue;
        }
        let got: Vec<String> = modules.iter().map(|m| text::print(m, opts)).collect();
        let got = got.join("// -----\n");
        if got != want {
            failures.push(format!("{flags:?}: {}", first_difference(&want, &got)));
        }
        // The aliases read back to the same module.
        for (i, printed) in got.split("// -----\n").enumerate() {
            match text::parse_with_source_locations(printed, "-") {
                Ok(again) if text::print(&again, opts) == printed => {}
                Ok(_) => failures.push(format!(
                    "{flags:?}: program {i} prints differently once re-parsed"
                )),
                Err(e) => failures.push(format!("{flags:?}: program {i} does not re-parse: {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// MLIR bytecode holds file location ranges of 0 to 4 numbers; jaxlib prints a missing line or
/// column as 0 (`loc("x.py":0:0)`), and so must we.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn file_location_ranges_of_every_length_print_as_jaxlib_prints_them() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let work = scratch("location_ranges");
    let out = work.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let mut cases = Vec::new();
    for n in 0..=4u32 {
        let mut m = text::parse("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.abs %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n").expect("parses");
        let file = m.sym("x.py");
        let line_cols: Vec<u32> = (11..11 + n).collect();
        let loc = m.loc(vhlo_core::ir::LocData::FileLineColRange {
            file,
            line_cols: line_cols.into(),
        });
        let mut ops = Vec::new();
        m.walk(|op| ops.push(op));
        ops.retain(|&op| m.op_name_str(op) == "stablehlo.abs");
        for op in ops {
            m.set_op_location(op, loc);
        }
        let bytes = portable::serialize_portable_artifact(&m, "1.9.0", SerializeOptions::default())
            .expect("serializes");
        let path = work.join(format!("range{n}.mlir.bc"));
        std::fs::write(&path, &bytes).unwrap();
        let ours = portable::deserialize_portable_artifact(&bytes).expect("deserializes");
        let opts = PrintOptions {
            generic: true,
            debug_info: true,
            location_aliases: true,
            ..Default::default()
        };
        cases.push((path, text::print(&ours, opts)));
    }
    let mut args: Vec<String> = ["deserialize", "--generic", "--debug-info", "--output-dir"]
        .map(String::from)
        .into();
    args.push(out.to_string_lossy().into());
    args.extend(cases.iter().map(|(p, _)| p.to_string_lossy().into_owned()));
    run_oracle(&python, &args);
    let failures: Vec<String> = cases
        .iter()
        .filter_map(
            |(path, ours)| match batch_output(&out, path, ".deserialized.mlir") {
                Ok(theirs) if &theirs == ours => None,
                Ok(theirs) => Some(format!(
                    "{}: {}",
                    path.display(),
                    first_difference(&theirs, ours)
                )),
                Err(e) => Some(format!("{}: jaxlib cannot read it: {e}", path.display())),
            },
        )
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The programs our serializer refuses for a type constraint (`vhlo_tests::TYPE_CONSTRAINT_VIOLATIONS`)
/// are refused by jaxlib too (its verifier runs when it parses them), and the compatible control
/// is serialized by both. A missing required attribute is named as jaxlib names it.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn jaxlib_refuses_the_type_constraint_violations_we_refuse() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let work = scratch("type_constraints");
    let out = work.join("out");
    std::fs::create_dir_all(&out).expect("out dir");
    let mut inputs = Vec::new();
    for (name, _, src) in vhlo_tests::TYPE_CONSTRAINT_VIOLATIONS {
        let path = work.join(format!("{name}.mlir"));
        std::fs::write(&path, src).expect("write program");
        inputs.push((path, true));
    }
    let control = work.join("control.mlir");
    std::fs::write(&control, vhlo_tests::TYPE_CONSTRAINT_CONTROL).expect("write control");
    inputs.push((control, false));
    let mut args: Vec<String> = ["serialize", "--target", "1.0.0", "--output-dir"]
        .map(String::from)
        .into();
    args.push(out.to_string_lossy().into());
    args.extend(inputs.iter().map(|(p, _)| p.to_string_lossy().into_owned()));
    run_oracle(&python, &args);
    let mut failures = Vec::new();
    for (path, refused) in &inputs {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bc = out.join(format!("{name}.bc"));
        let error = out.join(format!("{name}.bc.error"));
        match (refused, bc.exists(), error.exists()) {
            (true, false, true) => {
                let src = std::fs::read_to_string(path).expect("read program");
                let ours = vhlo_core::text::parse(&src)
                    .map(|_| ())
                    .unwrap_err()
                    .to_string();
                let theirs = std::fs::read_to_string(&error).unwrap_or_default();
                if let Some(at) = ours.find("requires attribute '") {
                    let phrase = ours[at..].split_inclusive('\'').take(2).collect::<String>();
                    if !theirs.contains(&phrase) {
                        failures.push(format!("{name}: we say {phrase}, jaxlib: {theirs}"));
                    }
                }
            }
            (false, true, false) => {}
            (true, _, _) => failures.push(format!("{name}: jaxlib serialized it, we refuse it")),
            (false, _, _) => failures.push(format!(
                "{name}: jaxlib refused the control: {}",
                std::fs::read_to_string(&error).unwrap_or_default()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
