//! Minimum version of a module and the differential against jaxlib: for every JAX fixture, the
//! smallest target we can convert to equals the smallest target jaxlib's serializer accepted
//! (`min_target` in tests/fixtures/jax/manifest.json), and every release from 0.9.0 to 1.17.0
//! converts exactly when it is at least that version. Also: every blocker reported at once, as
//! text and JSON.

use std::path::Path;

use vhlo_core::convert::{self, LegalizeOptions};
use vhlo_core::text;
use vhlo_core::version::Version;

fn fixture_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join("jax")
}

/// `(program, min_target)` from the manifest, read with plain string search (no JSON dependency):
/// each program object holds exactly one `"min_target": "X.Y.Z"`.
fn manifest_min_targets() -> Vec<(String, Version)> {
    let text = std::fs::read_to_string(fixture_dir().join("manifest.json")).expect("manifest.json");
    let programs = text.split("\"programs\"").nth(1).expect("programs object");
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut current: Option<String> = None;
    let mut i = 0;
    let bytes = programs.as_bytes();
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b'"' => {
                // The closing quote: skip backslash escapes.
                let mut end = i + 1;
                while end < bytes.len() && bytes[end] != b'"' {
                    end += if bytes[end] == b'\\' { 2 } else { 1 };
                }
                assert!(end < bytes.len(), "unterminated string in manifest.json");
                let key = &programs[i + 1..end];
                if depth == 1 && programs[end + 1..].trim_start().starts_with(':') {
                    current = Some(key.to_string());
                } else if depth == 2 && key == "min_target" {
                    let rest = &programs[end + 1..];
                    let v = rest.split('"').nth(1).expect("min_target value");
                    out.push((
                        current.clone().expect("program name"),
                        Version::parse(v).expect("version"),
                    ));
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

#[test]
fn jax_programs_minimum_version_matches_jaxlib() {
    let programs = manifest_min_targets();
    assert!(
        programs.len() >= 20,
        "expected the JAX fixture programs, found {}",
        programs.len()
    );
    let last = Version::new(1, 17, 0);
    let mut failures = Vec::new();
    for (name, expected) in &programs {
        let src = std::fs::read_to_string(fixture_dir().join(format!("{name}.mlir")))
            .expect("fixture text");
        let mut m = match text::parse(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}: parse: {e}"));
                continue;
            }
        };
        if let Err(ds) = convert::legalize_to_vhlo(&mut m, LegalizeOptions::default()) {
            failures.push(format!(
                "{name}: legalize: {}",
                convert::diagnostics_to_text(&ds)
            ));
            continue;
        }
        match convert::minimum_version(&m) {
            Ok(v) if v == *expected => {}
            Ok(v) => failures.push(format!("{name}: minimum {v}, jaxlib {expected}")),
            Err(ds) => failures.push(format!(
                "{name}: no target works: {}",
                convert::diagnostics_to_text(&ds)
            )),
        }
        for r in vhlo_core::vhlo::RELEASES
            .iter()
            .filter(|r| r.version <= last && r.version.patch == 0)
        {
            let ok = convert::vhlo_to_version(&mut m.clone(), r.version).is_ok();
            if ok != (r.version >= *expected) {
                failures.push(format!(
                    "{name}: target {} {} but jaxlib's minimum is {expected}",
                    r.version,
                    if ok { "converts" } else { "fails" }
                ));
            }
        }
    }
    eprintln!(
        "JAX programs whose minimum version matches jaxlib: {}/{}",
        programs.len() - failures.len(),
        programs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const TWO_BLOCKERS: &str = r#"
func.func @f(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.tan"(%arg0) : (tensor<f32>) -> tensor<f32>
  %1 = "stablehlo.exponential"(%0) {
    result_accuracy = #stablehlo.result_accuracy<atol = 0.000000e+00, rtol = 0.000000e+00, ulps = 0, mode = #stablehlo.result_accuracy_mode<HIGHEST>>
  } : (tensor<f32>) -> tensor<f32>
  func.return %1 : tensor<f32>
}
"#;

#[test]
fn every_blocker_is_reported_in_one_pass_with_the_version_it_needs() {
    let mut m = text::parse(TWO_BLOCKERS).expect("parses");
    convert::legalize_to_vhlo(&mut m, LegalizeOptions::default()).expect("legalizes");
    let before = text::print_generic(&m);
    let ds = convert::vhlo_to_version(&mut m, Version::new(1, 3, 0)).expect_err("tan needs 1.4.0");
    // Unchanged on failure.
    assert_eq!(text::print_generic(&m), before);
    let tan = ds
        .iter()
        .find(|d| d.op == "vhlo.tan_v2")
        .expect("tan blocker");
    assert_eq!(tan.needs, Some(Version::new(1, 4, 0)));
    let exp = ds
        .iter()
        .find(|d| d.op == "vhlo.exponential_v2")
        .expect("exponential blocker");
    // exponential_v2 (with result_accuracy) is in the 1.9.0 opset (upstream VhloOps.td).
    assert_eq!(exp.needs, Some(Version::new(1, 9, 0)));
    assert!(exp.subject.contains("result_accuracy"), "{}", exp.subject);
    assert!(exp.rule.contains("exponential_v2"), "{}", exp.rule);
    eprintln!("{}", convert::diagnostics_to_text(&ds));
    let text = convert::diagnostics_to_text(&ds);
    assert_eq!(text.lines().count(), ds.len());
    assert_eq!(convert::minimum_version(&m), Ok(Version::new(1, 9, 0)));
}

#[test]
fn minimum_of_a_plain_program_is_the_minimum_version() {
    let mut m = text::parse("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.add %a, %a : tensor<f32>\n  func.return %0 : tensor<f32>\n}\n").expect("parses");
    convert::legalize_to_vhlo(&mut m, LegalizeOptions::default()).expect("legalizes");
    assert_eq!(
        convert::minimum_version(&m),
        Ok(vhlo_core::vhlo::MINIMUM_VERSION)
    );
}

#[test]
fn type_too_new_names_the_type_and_its_version() {
    let mut m = text::parse("func.func @f(%a: tensor<f8E4M3>) -> tensor<f8E4M3> {\n  func.return %a : tensor<f8E4M3>\n}\n").expect("parses");
    convert::legalize_to_vhlo(&mut m, LegalizeOptions::default()).expect("legalizes");
    let ds =
        convert::vhlo_to_version(&mut m, Version::new(1, 6, 0)).expect_err("f8E4M3 needs 1.7.0");
    assert!(
        ds.iter().any(|d| d.op == "vhlo.func_v1"
            && d.subject.contains("f8E4M3_v1")
            && d.needs == Some(Version::new(1, 7, 0))),
        "{ds:?}"
    );
    assert_eq!(convert::minimum_version(&m), Ok(Version::new(1, 7, 0)));
}

#[test]
fn foreign_ops_are_refused_unless_allowed() {
    let src = "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = arith.addf %a, %a : tensor<f32>\n  func.return %0 : tensor<f32>\n}\n";
    let mut m = text::parse(src).expect("parses");
    let ds = convert::legalize_to_vhlo(&mut m, LegalizeOptions::default())
        .expect_err("arith is not StableHLO");
    assert!(ds.iter().any(|d| d.op == "arith.addf"), "{ds:?}");
    convert::legalize_to_vhlo(
        &mut m,
        LegalizeOptions {
            allow_other_dialects: true,
            ..Default::default()
        },
    )
    .expect("allowed");
}

#[test]
fn compatibility_presets() {
    for (name, v) in vhlo_core::vhlo::COMPATIBILITY_REQUIREMENTS {
        assert_eq!(convert::compatibility_requirement(name), Some(*v));
        assert!(
            convert::check_target(*v).is_ok(),
            "{name} -> {v} is a legal target"
        );
    }
    assert_eq!(convert::compatibility_requirement("NOPE"), None);
}

/// Differential against jaxlib's artifacts: each JAX program legalized at each artifact target
/// is the module jaxlib wrote (stripped artifacts must be equal; the ones with locations are
/// counted), and writing the stripped ones gives jaxlib's bytes, use-list records included
/// (jaxlib 0.10.2 is StableHLO 1.17.0: it legalizes straight to its own newest op versions).
/// The libStablehlo release inside the jaxlib that wrote the fixtures (`stablehlo_current`).
fn jaxlib_stablehlo() -> Version {
    let text = std::fs::read_to_string(fixture_dir().join("manifest.json")).expect("manifest.json");
    let v = text
        .split("\"stablehlo_current\"")
        .nth(1)
        .and_then(|r| r.split('"').nth(1))
        .expect("stablehlo_current");
    Version::parse(v).expect("a version")
}

#[test]
fn jax_programs_legalize_to_jaxlibs_artifacts() {
    let programs = manifest_min_targets();
    let (mut total, mut same, mut same_stripped, mut bytes_same) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for (name, _) in &programs {
        let src = std::fs::read_to_string(fixture_dir().join(format!("{name}.mlir")))
            .expect("fixture text");
        for stripped in [false, true] {
            for target in ["0.9.0", "1.0.0", "1.5.0", "1.10.0", "1.17.0"] {
                let file = format!(
                    "{name}.{}{}.mlir.bc",
                    if stripped { "stripped." } else { "" },
                    target.replace('.', "_")
                );
                let Ok(bytes) = std::fs::read(fixture_dir().join(&file)) else {
                    continue;
                };
                total += 1;
                let mut m = text::parse(&src).expect("fixture parses");
                let t = Version::parse(target).expect("version");
                let rewritten = match convert::legalize_to_vhlo(&mut m, LegalizeOptions::default())
                    .and_then(|()| convert::vhlo_to_version_tracked(&mut m, t))
                {
                    Ok(r) => r,
                    Err(ds) => {
                        failures.push(format!("{file}: {}", convert::diagnostics_to_text(&ds)));
                        continue;
                    }
                };
                let Ok((theirs, info)) = vhlo_core::bytecode::read(&bytes) else {
                    failures.push(format!("{file}: unreadable"));
                    continue;
                };
                // With locations, differences come from the text and bytecode location models
                // (counted, not failed here); the programs themselves must be equal.
                match vhlo_core::ir::structurally_equal(
                    &theirs,
                    &m,
                    vhlo_core::ir::EqualOptions {
                        locations: !stripped,
                        ..Default::default()
                    },
                ) {
                    Ok(()) => {
                        same += 1;
                        same_stripped += usize::from(stripped);
                    }
                    Err(e) if stripped => failures.push(format!("{file}: {e}")),
                    Err(_) => {}
                }
                let use_lists =
                    convert::artifact_use_list_orders(&m, &rewritten, jaxlib_stablehlo());
                let mut opts =
                    vhlo_core::bytecode::WriteOptions::new(info.bytecode_version, &info.producer);
                opts.use_list_orders = Some(&use_lists);
                if !stripped {
                    continue;
                }
                // `--strip-debuginfo`: every location unknown, block arguments' included.
                vhlo_core::portable::strip_debuginfo(&mut m);
                match vhlo_tests::bytecode::write(&m, &opts) {
                    Ok(b) if b == bytes => bytes_same += 1,
                    Ok(b) => failures.push(format!(
                        "{file}: {} bytes written vs {} in the artifact",
                        b.len(),
                        bytes.len()
                    )),
                    Err(e) => failures.push(format!("{file}: write: {e}")),
                }
            }
        }
    }
    eprintln!(
        "JAX artifacts equal to our legalization: {same}/{total} (stripped: {same_stripped}/{}); stripped ones byte-identical: {bytes_same}/{}",
        total / 2,
        total / 2
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Exactness: every JAX program converted to VHLO at every target it can reach (from its
/// minimum version to the current one) and back is the program it was.
#[test]
fn jax_programs_round_trip_through_every_reachable_target() {
    let programs = manifest_min_targets();
    let (mut total, mut exact) = (0, 0);
    let mut failures = Vec::new();
    for (name, _) in &programs {
        let src = std::fs::read_to_string(fixture_dir().join(format!("{name}.mlir")))
            .expect("fixture text");
        let source = text::parse(&src).expect("fixture parses");
        let mut vhlo = source.clone();
        convert::legalize_to_vhlo(&mut vhlo, LegalizeOptions::default()).expect("legalizes");
        let min = convert::minimum_version(&vhlo).expect("some target works");
        for r in vhlo_core::vhlo::RELEASES
            .iter()
            .filter(|r| r.version >= min && r.version.patch == 0)
        {
            total += 1;
            let mut m = vhlo.clone();
            let back = convert::vhlo_to_version(&mut m, r.version)
                .and_then(|()| convert::legalize_to_stablehlo(&mut m));
            match back
                .map_err(|ds| convert::diagnostics_to_text(&ds))
                .and_then(|()| vhlo_core::ir::structurally_equal(&source, &m, Default::default()))
            {
                Ok(()) => exact += 1,
                Err(e) => failures.push(format!("{name} via {}: {e}", r.version)),
            }
        }
    }
    eprintln!("JAX round trips through every reachable target: {exact}/{total}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// MLIR's ODS verifiers check each VHLO op's operand, result and region counts when a program
/// is read; the version conversion does the same, for both directions.
#[test]
fn op_counts_must_match_the_signature_of_the_op_version() {
    let cases = [
        (
            "%0 = \"stablehlo.add\"(%a, %a, %a) : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<f32>",
            "3 operands where `vhlo.add_v1` (0.9.0..=current) takes (lhs, rhs)",
        ),
        (
            "%0:2 = \"stablehlo.abs\"(%a) : (tensor<f32>) -> (tensor<f32>, tensor<f32>)",
            "2 results where `vhlo.abs_v1` (0.9.0..=current) takes (result)",
        ),
        (
            "%0 = \"stablehlo.while\"(%a) ({\n  \"stablehlo.return\"(%a) : (tensor<f32>) -> ()\n}) : (tensor<f32>) -> tensor<f32>",
            "1 regions where `vhlo.while_v1` (0.9.0..=current) takes (cond, body)",
        ),
    ];
    for (op, expected) in cases {
        let src = format!(
            "func.func @f(%a: tensor<f32>) -> tensor<f32> {{\n  {op}\n  func.return %a : tensor<f32>\n}}\n"
        );
        // The verifier refuses the op's arity; the VHLO module built without it is refused by
        // the version conversion.
        assert!(text::parse(&src).is_err(), "{src}: the verifier accepts it");
        let mut m = text::parse_unverified(&src).unwrap_or_else(|e| panic!("{src}: {e}"));
        let unverified = LegalizeOptions {
            skip_verification: true,
            ..LegalizeOptions::default()
        };
        convert::legalize_to_vhlo(&mut m, unverified).expect("legalizes");
        for target in [Version::new(1, 0, 0), vhlo_core::vhlo::CURRENT_VERSION] {
            let ds = convert::vhlo_to_version(&mut m.clone(), target).expect_err(expected);
            assert!(
                ds.iter()
                    .any(|d| d.subject == expected && d.rule == "malformed VHLO"),
                "{target}: {ds:?}"
            );
        }
    }
}

/// Attributes are checked against their StableHLO ODS types, as MLIR's verifier would: before
/// serializing, and on the way back (VHLO attributes are untyped, so an artifact can hold anything).
#[test]
fn attributes_must_meet_their_ods_types() {
    let cases = [
        (
            "%0 = \"stablehlo.iota\"() <{iota_dimension = 0 : i32}> : () -> tensor<4xf32>",
            "%0 = \"vhlo.iota_v1\"() <{iota_dimension = #vhlo.integer_v1<0 : i32>}> : () -> !vhlo.tensor_v1<4x!vhlo.f32_v1>",
            "attribute 'iota_dimension' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative",
        ),
        (
            "%0 = \"stablehlo.cholesky\"(%a) <{lower = 1 : i32}> : (tensor<4xf32>) -> tensor<4xf32>",
            "%0 = \"vhlo.cholesky_v1\"(%a) <{lower = #vhlo.integer_v1<1 : i32>}> : (!vhlo.tensor_v1<4x!vhlo.f32_v1>) -> !vhlo.tensor_v1<4x!vhlo.f32_v1>",
            "attribute 'lower' failed to satisfy constraint: bool attribute",
        ),
    ];
    for (stablehlo, vhlo, expected) in cases {
        let src = format!(
            "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {{\n  {stablehlo}\n  func.return %0 : tensor<4xf32>\n}}\n"
        );
        // The parser's verifier refuses it, and so does the legalization of a module built
        // without one.
        let e = text::parse(&src).expect_err(expected);
        assert!(e.message.contains(expected), "{e}");
        let mut m = text::parse_unverified(&src).unwrap_or_else(|e| panic!("{src}: {e}"));
        let ds = convert::legalize_to_vhlo(&mut m, LegalizeOptions::default()).expect_err(expected);
        assert!(ds.iter().any(|d| d.subject.starts_with(expected)), "{ds:?}");
        let t = "!vhlo.tensor_v1<4x!vhlo.f32_v1>";
        let src = format!(
            "\"vhlo.func_v1\"() <{{arg_attrs = #vhlo.array_v1<[]>, function_type = #vhlo.type_v1<!vhlo.func_v1<({t}) -> {t}>>, res_attrs = #vhlo.array_v1<[]>, sym_name = #vhlo.string_v1<\"f\">, sym_visibility = #vhlo.string_v1<\"\">}}> ({{\n^bb0(%a: {t}):\n  {vhlo}\n  \"vhlo.return_v1\"(%0) : ({t}) -> ()\n}}) : () -> ()\n"
        );
        let mut m = text::parse(&src).unwrap_or_else(|e| panic!("{src}: {e}"));
        let ds = convert::legalize_to_stablehlo(&mut m).expect_err(expected);
        assert!(
            ds.iter()
                .any(|d| d.subject.starts_with(expected) && d.rule == "malformed VHLO"),
            "{ds:?}"
        );
    }
}

/// `minimum_version` gives the right answer on what `text::parse` returns (StableHLO, not yet
/// legalized), and its error works with `?` (`Diagnostics` is an `Error`).
#[test]
fn minimum_version_of_parsed_stablehlo_text() -> Result<(), Box<dyn std::error::Error>> {
    let program = |body: &str, ty: &str| {
        format!("func.func @f(%a: {ty}) -> {ty} {{\n  %0 = {body} : {ty}\n  func.return %0 : {ty}\n}}\n")
    };
    let tan = text::parse(&program("stablehlo.tan %a", "tensor<f32>"))?;
    assert_eq!(convert::minimum_version(&tan)?, Version::new(1, 4, 0));
    let add = text::parse(&program("stablehlo.add %a, %a", "tensor<f32>"))?;
    assert_eq!(
        convert::minimum_version(&add)?,
        vhlo_core::vhlo::MINIMUM_VERSION
    );
    // The same answer after legalizing by hand.
    let mut legalized = tan.clone();
    convert::legalize_to_vhlo(&mut legalized, LegalizeOptions::default())?;
    assert_eq!(convert::minimum_version(&legalized)?, Version::new(1, 4, 0));
    Ok(())
}
