//! The command-line forms `stablehlo-translate` accepts (mode flags, positional input or stdin,
//! stdout or `-o`, `=` and space forms, LLVM's single dash), `--version`, the edges (a target past
//! current, empty input, closed stdin, closed or full stdout) and JSON that round-trips through a
//! JSON parser.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

// The tests crate's checked writers (`tests/src/checked.rs`): what a run or a call writes is read
// back with verification on.
#[allow(dead_code, unused_imports)]
#[path = "../../tests/src/checked.rs"]
mod checked;

const PROGRAM: &str = "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_vhlo-translate")
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs vhlo-translate");
    let mut input = child.stdin.take().expect("stdin");
    // A process that refuses its arguments exits without reading: a broken pipe is fine.
    let _ = input.write_all(stdin);
    drop(input);
    let o = child.wait_with_output().expect("waits");
    checked::read_back_cli(args, &o);
    o
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A directory of its own under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("vhlo-cli-forms-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
    fn file(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn is_artifact(bytes: &[u8], producer: &str) -> bool {
    bytes.starts_with(b"ML\xefR")
        && bytes
            .windows(producer.len())
            .any(|w| w == producer.as_bytes())
}

#[test]
fn serialize_forms_all_write_the_same_artifact() {
    let dir = TempDir::new("forms");
    let src = dir.file("in.mlir");
    std::fs::write(&src, PROGRAM).unwrap();
    // Stripped, so that stdin (`<stdin>` in implicit locations) and the file give the same bytes.
    let reference = run(
        &["--serialize", "--target=1.0.0", "--strip-debuginfo", &src],
        b"",
    );
    assert!(reference.status.success(), "{}", stderr(&reference));
    assert!(is_artifact(&reference.stdout, "StableHLO_v1.0.0"));
    let out = dir.file("out.bc");
    let forms: Vec<Vec<&str>> = vec![
        vec![&src, "--serialize", "--target=1.0.0", "--strip-debuginfo"],
        vec![
            "--serialize",
            "--target",
            "1.0.0",
            &src,
            "--strip-debuginfo",
        ],
        vec!["-serialize", "-target=1.0.0", "-strip-debuginfo", &src],
        vec!["--serialize", "--target=1.0.0", "--strip-debuginfo", "-"],
        vec!["--strip-debuginfo", "--serialize", "--target=1.0.0"],
    ];
    for form in &forms {
        let stdin = if form.contains(&src.as_str()) {
            b"".as_slice()
        } else {
            PROGRAM.as_bytes()
        };
        let o = run(form, stdin);
        assert!(o.status.success(), "{form:?}: {}", stderr(&o));
        assert_eq!(o.stdout, reference.stdout, "{form:?}");
    }
    let o_equals = format!("-o={out}");
    for o_form in [vec!["-o", &out], vec![o_equals.as_str()]] {
        let _ = std::fs::remove_file(&out);
        let mut args = vec!["--serialize", "--target=1.0.0", "--strip-debuginfo", &src];
        args.extend(o_form.iter().copied());
        let o = run(&args, b"");
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
        assert_eq!(std::fs::read(&out).unwrap(), reference.stdout, "{args:?}");
    }
}

#[test]
fn serialize_pipes_into_deserialize() {
    let ser = run(&["--serialize", "--target=current"], PROGRAM.as_bytes());
    assert!(ser.status.success(), "{}", stderr(&ser));
    let de = run(&["--deserialize"], &ser.stdout);
    assert!(de.status.success(), "{}", stderr(&de));
    let text = String::from_utf8(de.stdout).unwrap();
    assert!(
        text.contains("stablehlo.add %arg0, %arg0 : tensor<2xf32>"),
        "{text}"
    );
    let versioned = run(
        &["--deserialize", "--print-stablehlo-version", "-"],
        &ser.stdout,
    );
    let text = String::from_utf8(versioned.stdout).unwrap();
    let current = vhlo_core::portable::current_version();
    assert!(
        text.starts_with(&format!(
            "// Reading portable artifact with StableHLO version: {current}\n"
        )),
        "{text}"
    );
}

#[test]
fn version_flags() {
    let o = run(&["--version"], b"");
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("vhlo-translate {}\n", env!("CARGO_PKG_VERSION"))
    );
    let o = run(&["--print-stablehlo-version"], b"");
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("Current version: "));
}

#[test]
fn target_past_current_is_refused() {
    let current = vhlo_core::portable::current_version();
    for past in [
        format!("{}.{}.{}", current.major, current.minor, current.patch + 1),
        format!("{}.{}.0", current.major, current.minor + 1),
    ] {
        let o = run(
            &["--serialize", &format!("--target={past}")],
            PROGRAM.as_bytes(),
        );
        assert_eq!(o.status.code(), Some(1), "{past}");
        assert!(o.stdout.is_empty(), "{past}: wrote an artifact");
        assert!(
            stderr(&o).contains("newer than the current version"),
            "{past}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn empty_input_is_an_error() {
    for (args, input) in [
        (vec!["--serialize", "--target=current"], b"".as_slice()),
        (
            vec!["--serialize", "--target=current"],
            b"  \n\t\n".as_slice(),
        ),
        (vec!["--deserialize"], b"".as_slice()),
    ] {
        let o = run(&args, input);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(o.stdout.is_empty());
        assert!(stderr(&o).contains("empty input"), "{}", stderr(&o));
    }
}

/// Runs `vhlo-translate ARGS` under `sh` with a redirection that closes or fills a descriptor.
#[cfg(unix)]
fn run_sh(args: &str, redirect: &str) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("exec \"$0\" {args} {redirect}"))
        .arg(bin())
        .output()
        .expect("runs sh")
}

#[cfg(unix)]
#[test]
fn closed_stdin_is_an_error() {
    let o = run_sh("--serialize --target=current", "<&-");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("empty input"), "{}", stderr(&o));
}

#[cfg(target_os = "linux")]
#[test]
fn failed_writes_to_stdout_are_errors() {
    let dir = TempDir::new("stdout");
    let src = dir.file("in.mlir");
    std::fs::write(&src, PROGRAM).unwrap();
    for redirect in [">&-", ">/dev/full"] {
        let o = run_sh(&format!("--serialize --target=current '{src}'"), redirect);
        assert_eq!(o.status.code(), Some(1), "{redirect}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot write stdout"),
            "{redirect}: {}",
            stderr(&o)
        );
    }
    let o = run_sh(
        &format!("--serialize --target=current '{src}' -o /dev/full"),
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot write /dev/full"),
        "{}",
        stderr(&o)
    );
    // The control: stdout open on /dev/null is a successful write (of the artifact that `run`
    // writes, and reads back, elsewhere).
    let o = run_sh(
        &format!("--serialize --target=current '{src}'"),
        ">/dev/null",
    );
    assert!(o.status.success(), "{}", stderr(&o));
}

/// An op name that JSON must escape, of a dialect libStablehlo loads that takes any op name
/// (`llvm`, as MLIR's does: an op of a dialect it does not load is refused on writing, and an
/// unknown op of another dialect on parsing): the artifact is for `inspect`, which reads any
/// bytecode.
const AWKWARD: &str = "llvm.op\"},{\"op\":\"forged\",\"count\":9}\t\n\u{1}\\";

#[test]
fn inspect_json_round_trips_with_quotes_and_control_characters() {
    let dir = TempDir::new("json");
    let escaped: String = AWKWARD
        .chars()
        .map(|c| match c {
            '"' => "\\\"".to_string(),
            '\\' => "\\\\".to_string(),
            '\t' => "\\t".to_string(),
            '\n' => "\\n".to_string(),
            c if (c as u32) < 0x20 => format!("\\{:02X}", c as u32),
            c => c.to_string(),
        })
        .collect();
    let src = format!(
        "func.func @main(%a: tensor<f32>) -> tensor<f32> {{\n  %0 = \"{escaped}\"(%a) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}}\n"
    );
    // A file name with a quote, a tab and a newline.
    let artifact = dir.file("a \"b\"\tc\n.bc");
    let o = run(
        &[
            "--serialize",
            "--target=current",
            "--allow-other-dialects",
            "-o",
            &artifact,
        ],
        src.as_bytes(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(
        &["inspect", &artifact, "--json", "--readable-by", "1.0.0"],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value =
        serde_json::from_slice(&o.stdout).expect("inspect --json is JSON");
    assert_eq!(report["file"], artifact.as_str());
    let ops: Vec<(&str, u64)> = report["histogram"]
        .as_array()
        .expect("histogram")
        .iter()
        .map(|e| (e["op"].as_str().unwrap(), e["count"].as_u64().unwrap()))
        .collect();
    assert!(ops.contains(&(AWKWARD, 1)), "{ops:?}");
    assert!(!ops.iter().any(|(op, _)| *op == "forged"), "{ops:?}");
    // An error naming the awkward file, as JSON on stderr.
    let missing = dir.file("no \"such\"\tfile\u{1}");
    let o = run(&["--deserialize", &missing, "--json"], b"");
    assert_eq!(o.status.code(), Some(1));
    let error: serde_json::Value =
        serde_json::from_slice(&o.stderr).expect("--json errors are JSON");
    assert!(
        error["error"].as_str().expect("error").contains(&missing),
        "{error}"
    );
    assert!(error["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .is_empty());
}

#[test]
fn json_diagnostics_round_trip() {
    // `tan` needs 1.4.0: a conversion error with diagnostics, as JSON.
    let src = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %a : tensor<f32> loc(\"q\\\"uote\\t.py\":1:2)\n  return %0 : tensor<f32>\n}\n";
    let o = run(&["--serialize", "--target=1.0.0", "--json"], src.as_bytes());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let error: serde_json::Value = serde_json::from_slice(&o.stderr).expect("JSON");
    let ds = error["diagnostics"].as_array().expect("diagnostics");
    let tan = ds
        .iter()
        .find(|d| d["op"].as_str().is_some_and(|op| op.contains("tan")))
        .expect("a tan diagnostic");
    assert_eq!(tan["needs"], "1.4.0");
    assert!(tan["location"].as_str().unwrap().contains("uote"), "{tan}");
}

/// Large constants take the CLI's own paths (a shared input, an artifact streamed in pieces to
/// the file or stdout); the bytes are those of the library's plain, copying calls.
#[test]
fn large_constants_stream_to_the_same_bytes() {
    use crate::checked::portable::{self, SerializeOptions};
    use vhlo_core::text;
    let n = 20_000;
    let floats: String = (0..n)
        .map(|i| {
            format!(
                "{:08X}",
                (i as u32).wrapping_mul(2_654_435_761) & 0x3FFF_FFFF
            )
        })
        .collect();
    let bools: String = (0..n)
        .map(|i| if i % 3 == 0 { "01" } else { "00" })
        .collect();
    let src = format!(
        "func.func @main() -> (tensor<{n}xf32>, tensor<{n}xi1>) {{\n  %0 = stablehlo.constant dense<\"0x{floats}\"> : tensor<{n}xf32>\n  %1 = stablehlo.constant dense<\"0x{bools}\"> : tensor<{n}xi1>\n  return %0, %1 : tensor<{n}xf32>, tensor<{n}xi1>\n}}\n"
    );
    let dir = TempDir::new("large");
    let (input, artifact, back) = (dir.file("in.mlir"), dir.file("a.bc"), dir.file("b.bc"));
    std::fs::write(&input, &src).expect("write input");
    let module = text::parse(&src).expect("parses");
    let stripped = SerializeOptions {
        strip_debuginfo: true,
        ..Default::default()
    };
    let expected =
        portable::serialize_portable_artifact(&module, "current", stripped).expect("serializes");
    let o = run(
        &[
            "--serialize",
            &input,
            "--target=current",
            "--strip-debuginfo",
            "-o",
            &artifact,
        ],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&artifact).expect("artifact"), expected);
    for target in ["current", "1.0.0"] {
        let (m, _) = portable::read_vhlo(&expected).expect("reads");
        let mut m = m;
        let version = vhlo_core::convert::parse_target(target).expect("target");
        vhlo_core::convert::vhlo_to_version(&mut m, version).expect("converts");
        let want = portable::write_vhlo(&m, version, &version.to_string()).expect("writes");
        let args = ["--retarget", &artifact, &format!("--target={target}")];
        let to_file = run(&[&args[..], &["-o", &back]].concat(), b"");
        assert!(to_file.status.success(), "{}", stderr(&to_file));
        assert_eq!(std::fs::read(&back).expect("retargeted"), want, "{target}");
        let to_stdout = run(&args, b"");
        assert!(to_stdout.status.success(), "{}", stderr(&to_stdout));
        assert_eq!(to_stdout.stdout, want, "{target} on stdout");
    }
    let printed = run(&["--deserialize", &artifact], b"");
    assert!(printed.status.success(), "{}", stderr(&printed));
    let m = portable::deserialize_portable_artifact(&expected).expect("deserializes");
    let opts = text::PrintOptions {
        elide_defaults: true,
        location_aliases: true,
        ..Default::default()
    };
    assert_eq!(
        String::from_utf8_lossy(&printed.stdout),
        text::print(&m, opts)
    );
}

/// `--deserialize -o F` opens F while it converts. As stablehlo-translate (MLIR's
/// `ToolOutputFile`), a run that fails leaves no F, also when F held an older output; a run that
/// succeeds replaces an older, longer F whole; the output may be the input file.
#[test]
fn deserialize_output_file_on_success_and_failure() {
    let dir = TempDir::new("early-output");
    let (src, art, out) = (dir.file("p.mlir"), dir.file("p.bc"), dir.file("out.mlir"));
    std::fs::write(&src, PROGRAM).unwrap();
    let o = run(&["--serialize", &src, "--target=current", "-o", &art], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(&out, "x".repeat(100_000)).unwrap();
    let o = run(&["--deserialize", &art, "-o", &out], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("module") && text.contains("stablehlo.add") && !text.contains("xxx"),
        "{text}"
    );
    let bad = dir.file("bad.bc");
    std::fs::write(&bad, b"ML\xefR\x00").unwrap();
    let o = run(&["--deserialize", &bad, "-o", &out], b"");
    assert!(!o.status.success());
    assert!(
        !std::path::Path::new(&out).exists(),
        "a failed run left {out}"
    );
    let copy = dir.file("same.bc");
    std::fs::copy(&art, &copy).unwrap();
    let o = run(&["--deserialize", &copy, "-o", &copy], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&copy)
        .unwrap()
        .contains("stablehlo.add"));
}

/// An artifact that reads but breaks an op's rule (written with the verifier off, as only that
/// flag lets it be written): `--deserialize` verifies it on its second thread while the first
/// names the values, and refuses it with the op, the place and the rule, leaving no output file
/// (an older one included) and nothing on stdout. With the verifier off it prints.
#[test]
fn deserialize_refuses_an_artifact_that_breaks_an_op_rule() {
    let dir = TempDir::new("op-rule");
    let (src, art, out) = (dir.file("p.mlir"), dir.file("p.bc"), dir.file("out.mlir"));
    let program = "func.func @main(%arg0: tensor<2xf32>) -> tensor<2x3xf32> {\n  %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2] : (tensor<2xf32>) -> tensor<2x3xf32>\n  return %0 : tensor<2x3xf32>\n}\n";
    std::fs::write(&src, program).unwrap();
    // unchecked: this artifact is meant to be refused when read (`run` would read it back).
    let o = Command::new(bin())
        .args(["--serialize", &src, "--target=current"])
        .args(["--mlir-very-unsafe-disable-verifier-on-parsing", "-o", &art])
        .output()
        .expect("runs vhlo-translate");
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(&out, "an older output").unwrap();
    for to_file in [true, false] {
        let args: &[&str] = if to_file {
            &["--deserialize", &art, "-o", &out]
        } else {
            &["--deserialize", &art]
        };
        let o = run(args, b"");
        assert!(!o.status.success(), "{args:?} was not refused");
        let e = stderr(&o);
        assert!(
            e.contains("p.mlir\":2:8")
                && e.contains("`stablehlo.broadcast_in_dim`")
                && e.contains("broadcast_dimensions size (3) does not match operand rank (1) (C2)"),
            "{args:?}: {e}"
        );
        assert!(o.stdout.is_empty(), "{args:?} printed to stdout");
        assert!(
            !std::path::Path::new(&out).exists(),
            "a refused run left {out}"
        );
    }
    let o = run(
        &[
            "--deserialize",
            &art,
            "--mlir-very-unsafe-disable-verifier-on-parsing",
        ],
        b"",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("stablehlo.broadcast_in_dim"));
}

/// A block large enough for two threads (`--deserialize -o F` prints it in chunks written in
/// turn, stdout in two halves): both give the same text, in each printing mode, also over an
/// older, longer F. Constants and reduce bodies spread through the block check the names.
#[test]
fn deserialize_of_a_large_block_to_a_file_is_the_stdout_text() {
    let dir = TempDir::new("large-block");
    let (src, art, out) = (dir.file("p.mlir"), dir.file("p.bc"), dir.file("out.mlir"));
    let mut text = String::from("func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n");
    let mut last = "%arg0".to_string();
    for i in 0..6000 {
        let line = match i % 500 {
            7 => format!(
                "  %v{i} = stablehlo.reduce({last} init: %c{}) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n  %w{i} = stablehlo.broadcast_in_dim %v{i}, dims = [] : (tensor<f32>) -> tensor<4xf32>\n",
                i - 1
            ),
            6 => format!("  %c{i} = stablehlo.constant dense<{i}.0> : tensor<f32>\n"),
            _ => format!("  %w{i} = stablehlo.add {last}, {last} : tensor<4xf32>\n"),
        };
        text.push_str(&line);
        if i % 500 != 6 {
            last = format!("%w{i}");
        }
    }
    text.push_str(&format!("  return {last} : tensor<4xf32>\n}}\n"));
    text.push_str("func.func private @after(%a: tensor<i32>) -> tensor<i32> {\n  return %a : tensor<i32>\n}\n");
    std::fs::write(&src, text).unwrap();
    let o = run(&["--serialize", &src, "--target=current", "-o", &art], b"");
    assert!(o.status.success(), "{}", stderr(&o));
    for flags in [
        &[][..],
        &["--mlir-print-op-generic"],
        &["--mlir-print-debuginfo"],
    ] {
        let args: Vec<&str> = ["--deserialize", art.as_str()]
            .iter()
            .chain(flags)
            .copied()
            .collect();
        let o = run(&args, b"");
        assert!(o.status.success(), "{}", stderr(&o));
        let want = String::from_utf8(o.stdout).unwrap();
        assert!(
            want.contains("%cst_9") && want.contains("applies stablehlo.add") || flags.len() == 1
        );
        std::fs::write(&out, "x".repeat(want.len() + 100_000)).unwrap();
        let with_file: Vec<&str> = args.iter().copied().chain(["-o", out.as_str()]).collect();
        let o = run(&with_file, b"");
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(std::fs::read_to_string(&out).unwrap() == want, "{flags:?}");
    }
}
