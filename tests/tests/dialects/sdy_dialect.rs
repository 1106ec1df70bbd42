//! The Shardy (`sdy`) dialect end to end: text (custom and generic forms), bytecode through the
//! portable API with `allow_other_dialects`, and, live against jaxlib (which registers Shardy in
//! its context), the same prints and byte-identical artifacts. The program is
//! `tests/fixtures/sdy/program.mlir`: every sdy attribute and the ops JAX emits.
//!
//! The oracle part needs the venv (scripts/oracle/setup.sh); it is skipped without it unless
//! VHLO_REQUIRE_ORACLE=1.

use std::path::PathBuf;
use std::process::Command;

use vhlo_core::text::{self, PrintOptions};
use vhlo_tests::portable::{self, SerializeOptions};

fn program_path() -> PathBuf {
    vhlo_tests::workspace_root().join("tests/fixtures/sdy/program.mlir")
}

fn program() -> String {
    std::fs::read_to_string(program_path()).expect("tests/fixtures/sdy/program.mlir")
}

fn allow_other() -> SerializeOptions {
    SerializeOptions {
        allow_other_dialects: true,
        ..SerializeOptions::default()
    }
}

/// What jaxlib 0.10.2's Shardy does not have yet: a sharding with a non-sum reduction (bytecode
/// entry 17, TensorShardingAttrV3) and all_reduce's optional `reduction_op` property (spec/dialects/
/// sdy.yaml follows upstream Shardy, where an absent one still takes its presence flag).
const REDUCTION_MAX: &str = r#"
module {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}], unreduced=min{"x"}>}) -> tensor<8xf32> {
    %0 = sdy.reshard %arg0 <@mesh, [{"x"}]> : tensor<8xf32>
    %1 = sdy.all_reduce {"y"} %0 out_sharding=<@mesh, [{"x"}]> : tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}
"#;

#[test]
fn sdy_text_prints_as_it_parses() {
    for src in [program(), REDUCTION_MAX.to_string()] {
        let m = text::parse(&src).unwrap_or_else(|e| panic!("{e}"));
        let generic = text::print_generic(&m);
        let pretty = text::print(&m, PrintOptions::default());
        for printed in [&generic, &pretty] {
            let again = text::parse(printed).unwrap_or_else(|e| panic!("{e}\n{printed}"));
            assert_eq!(text::print_generic(&again), generic);
        }
    }
    let m = text::parse(&program()).unwrap();
    let pretty = text::print(&m, PrintOptions::default());
    for custom in [
        r#"sdy.mesh @ids = <["a"=2], device_ids=[1, 0]>"#,
        r#"sdy.sharding_constraint %arg0 <@mesh, [{"x"}, {}], unreduced={"y"}> : tensor<8x8xf32>"#,
        r#"manual_axes={"x"} (%arg"#,
        r#"sdy.named_computation<"inner">("#,
        "allowed_direction=FORWARD",
        "group_id=3 :",
    ] {
        assert!(pretty.contains(custom), "{custom} not in\n{pretty}");
    }
}

#[test]
fn sdy_survives_the_portable_api_with_other_dialects_allowed() {
    for src in [program(), REDUCTION_MAX.to_string()] {
        let m = text::parse(&src).unwrap_or_else(|e| panic!("{e}"));
        let bytes = portable::serialize_portable_artifact(&m, "current", allow_other())
            .unwrap_or_else(|e| panic!("{e}"));
        let back =
            portable::deserialize_portable_artifact(&bytes).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(text::print_generic(&back), text::print_generic(&m));
        // Re-written unchanged.
        let again = portable::serialize_portable_artifact(&back, "current", allow_other()).unwrap();
        assert_eq!(again, bytes);
    }
}

/// As libStablehlo: sdy has no VHLO form, so without `allow_other_dialects` it is refused.
#[test]
fn sdy_is_refused_without_other_dialects() {
    let m = text::parse(&program()).unwrap();
    let err = portable::serialize_portable_artifact(&m, "current", SerializeOptions::default())
        .expect_err("sdy needs allow_other_dialects");
    assert!(format!("{err}").contains("sdy."), "{err}");
}

fn oracle(python: &PathBuf, args: &[&str]) -> Vec<u8> {
    let script = vhlo_tests::workspace_root().join("scripts/oracle/oracle.py");
    let out = Command::new(python)
        .arg(script)
        .args(args)
        .output()
        .expect("oracle.py runs");
    assert!(
        out.status.success(),
        "oracle {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// jaxlib (StableHLO 1.17.0 with Shardy) and we print the program alike, write byte-identical
/// artifacts of it at every target from the first with mixed programs, and read each other's.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn jaxlib_and_we_agree_on_sdy() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sdy_dialect");
    std::fs::create_dir_all(&dir).unwrap();
    let path = program_path();
    let p = path.to_str().unwrap();
    let m = text::parse_with_source_locations(&program(), p).unwrap_or_else(|e| panic!("{e}"));

    let theirs = String::from_utf8(oracle(&python, &["roundtrip-text", p, "--generic"])).unwrap();
    assert_eq!(text::print_generic(&m), theirs, "generic print");
    let theirs = String::from_utf8(oracle(&python, &["roundtrip-text", p])).unwrap();
    assert_eq!(
        text::print(&m, PrintOptions::default()),
        theirs,
        "pretty print"
    );

    for target in ["1.11.0", "1.15.0", "1.17.0"] {
        let file = dir.join(format!("jaxlib_{target}.bc"));
        let f = file.to_str().unwrap();
        oracle(
            &python,
            &[
                "serialize",
                p,
                "--target",
                target,
                "--allow-other-dialects",
                "-o",
                f,
            ],
        );
        let jax_bytes = std::fs::read(&file).unwrap();
        let ours = portable::serialize_portable_artifact(&m, target, allow_other())
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        assert!(
            ours == jax_bytes,
            "{target}: our artifact differs from jaxlib's"
        );
        let back =
            portable::deserialize_portable_artifact(&jax_bytes).unwrap_or_else(|e| panic!("{e}"));
        let theirs = String::from_utf8(oracle(&python, &["deserialize", f, "--generic"])).unwrap();
        assert_eq!(
            text::print_generic(&back),
            theirs,
            "{target}: deserialized print"
        );
    }
}

/// Parses `path` and checks it against jaxlib: both prints, and jaxlib reading our artifact at
/// 1.17.0 (its StableHLO) back to the program it parsed.
fn agree_with_jaxlib(python: &PathBuf, path: &std::path::Path, tag: &str) -> vhlo_core::ir::Module {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sdy_dialect");
    std::fs::create_dir_all(&dir).unwrap();
    let p = path.to_str().unwrap();
    let src = std::fs::read_to_string(path).unwrap();
    let m = text::parse(&src).unwrap_or_else(|e| panic!("{e}"));
    let generic = text::print_generic(&m);
    let theirs = String::from_utf8(oracle(python, &["roundtrip-text", p, "--generic"])).unwrap();
    assert_eq!(generic, theirs, "{tag}: generic print");
    let pretty = text::print(&m, PrintOptions::default());
    let theirs = String::from_utf8(oracle(python, &["roundtrip-text", p])).unwrap();
    assert_eq!(pretty, theirs, "{tag}: pretty print");
    let ours = portable::serialize_portable_artifact(&m, "1.17.0", allow_other())
        .unwrap_or_else(|e| panic!("{tag}: {e}"));
    let ours_file = dir.join(format!("{tag}_ours.bc"));
    std::fs::write(&ours_file, &ours).unwrap();
    let back = String::from_utf8(oracle(
        python,
        &["deserialize", ours_file.to_str().unwrap()],
    ))
    .unwrap();
    assert_eq!(back, pretty, "{tag}: jaxlib's reading of our artifact");
    // Byte for byte as jaxlib writes it, locations included: parsed as the CLI and jaxlib parse a
    // file, with source locations naming it.
    let located = text::parse_with_source_locations(&src, p).unwrap_or_else(|e| panic!("{e}"));
    let ours = portable::serialize_portable_artifact(&located, "1.17.0", allow_other())
        .unwrap_or_else(|e| panic!("{tag}: {e}"));
    let theirs = oracle(
        python,
        &[
            "serialize",
            p,
            "--target",
            "1.17.0",
            "--allow-other-dialects",
        ],
    );
    assert!(
        ours == theirs,
        "{tag}: our 1.17.0 artifact differs from jaxlib's"
    );
    m
}

/// Our own program with the syntax of Shardy's compatibility test (tests/fixtures/sdy/compat_syntax.mlir):
/// it prints in its custom forms.
#[test]
fn compat_syntax_fixture_prints_its_custom_forms() {
    let path = vhlo_tests::workspace_root().join("tests/fixtures/sdy/compat_syntax.mlir");
    let m = text::parse(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{e}"));
    let pretty = text::print(&m, PrintOptions::default());
    for custom in [
        "sdy.constant dense<[5, -3]>",
        "sdy.data_flow_edge %arg1 :",
        "sharding=<@ab,",
        "group_id=1024 :",
        "z_3z_4]",
        "p3,",
    ] {
        assert!(pretty.contains(custom), "{custom} not in\n{pretty}");
    }
}

/// The same program, live against jaxlib.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn compat_syntax_fixture_agrees_with_jaxlib() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let path = vhlo_tests::workspace_root().join("tests/fixtures/sdy/compat_syntax.mlir");
    let m = text::parse(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{e}"));
    agree_with_jaxlib(&python, &path, "compat_syntax");
    // Plain (unversioned) MLIR bytecode, as Shardy's tools write it: native func and stablehlo
    // ops with their properties in name order. jaxlib writes it; we read it to the same program.
    let plain = oracle(
        &python,
        &["stablehlo-opt", path.to_str().unwrap(), "-emit-bytecode"],
    );
    let back = portable::deserialize_portable_artifact(&plain)
        .unwrap_or_else(|e| panic!("jaxlib's plain bytecode of compat_syntax: {e}"));
    assert_eq!(text::print_generic(&back), text::print_generic(&m));
}

/// Where Shardy's own compatibility test program is (upstream data: only the project's shared/
/// may hold it): $VHLO_SHARDY_COMPAT_TEST or ../shared/shardy-compat/compatibility_test.mlir.
fn shardy_compat_test() -> Option<PathBuf> {
    let path = std::env::var_os("VHLO_SHARDY_COMPAT_TEST")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            vhlo_tests::workspace_root()
                .join("../shared/real-artifacts/non_vhlo/shardy.compatibility_test.mlir")
        });
    if path.exists() {
        return Some(path);
    }
    assert!(
        !vhlo_tests::in_ci(),
        "Shardy's compatibility_test.mlir missing at {}; required under CI",
        path.display()
    );
    eprintln!(
        "skipping: Shardy's compatibility_test.mlir not at {} (set VHLO_SHARDY_COMPAT_TEST, or put ../shared beside the repository)",
        path.display()
    );
    None
}

/// Shardy's compatibility test program: with its `.mlir.bc` beside it, our reading of that
/// artifact must be the source program. Upstream removed the directory later; openxla/shardy
/// commit 50f6e89a holds both files (plain bytecode v6 with native func and stablehlo ops,
/// func.func's `no_inline` among their properties).
#[test]
#[cfg_attr(
    not(has_shardy_compat),
    ignore = "needs Shardy's compatibility_test.mlir (../shared/real-artifacts/non_vhlo, or VHLO_SHARDY_COMPAT_TEST)"
)]
fn shardy_compatibility_test_program() {
    let Some(path) = shardy_compat_test() else {
        return;
    };
    let src = std::fs::read_to_string(&path).unwrap();
    let m = text::parse(&src).unwrap_or_else(|e| panic!("{e}"));
    let bc = PathBuf::from(format!("{}.bc", path.display()));
    if bc.exists() {
        let back = portable::deserialize_portable_artifact(&std::fs::read(&bc).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", bc.display()));
        assert_eq!(
            text::print_generic(&back),
            text::print_generic(&m),
            "{}",
            bc.display()
        );
    } else {
        eprintln!(
            "note: no {} beside it; the artifact check is skipped",
            bc.display()
        );
    }
}

/// The same program, as jaxlib reads, prints and serializes it.
#[test]
#[cfg_attr(
    not(all(has_shardy_compat, has_oracle)),
    ignore = "needs Shardy's compatibility_test.mlir (VHLO_SHARDY_COMPAT_TEST) and the oracle"
)]
fn shardy_compatibility_test_program_in_jaxlib() {
    let Some(path) = shardy_compat_test() else {
        return;
    };
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    agree_with_jaxlib(&python, &path, "shardy_compat");
}
