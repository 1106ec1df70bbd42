//! The upstream compatibility suite's own `RUN:` lines, run as lit runs them, with
//! `vhlo-translate` in place of `stablehlo-translate`.
//!
//! A small lit shell: `%s`/`%t` substitution, pipelines with pipefail, `not`, `>` and `2>&1`, and
//! lit's `%if asserts %{ ... %}` (libStablehlo's release builds have no asserts, so it expands to
//! nothing). `stablehlo-translate` is our binary, run as a process. `FileCheck` is the
//! repository's FileCheck library (`filecheck/`) and `diff` compares bytes. `stablehlo-opt` has no
//! counterpart here: its plain forms (no flag, `--strip-debuginfo`, `--mlir-print-op-generic`),
//! which only parse and print, run on our parser and printer; a file that needs any other pass
//! (`--stablehlo-legalize-to-vhlo`, `--verify-diagnostics`, ...) is reported unsupported, and
//! the test says which and why. Every file whose commands are all supported must pass.

// The tests crate's checked writers (`tests/src/checked.rs`): what a run writes is read back
// with verification on.
#[allow(dead_code, unused_imports)]
#[path = "../../tests/src/checked.rs"]
mod checked;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use vhlo_core::text::{self, PrintOptions};

/// The suite: `$VHLO_COMPAT_SUITE`, else `../shared/compat-suite` beside the workspace. Missing,
/// the test skips, except under `CI=true`, where that fails.
fn suite_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("VHLO_COMPAT_SUITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/compat-suite"));
    if dir.is_dir() {
        return Some(dir);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(
        !ci,
        "the compatibility suite is missing at {} (set VHLO_COMPAT_SUITE); required under CI",
        dir.display()
    );
    eprintln!(
        "skipped: no compatibility suite at {} (set VHLO_COMPAT_SUITE)",
        dir.display()
    );
    None
}

/// Result of one pipeline stage or command.
struct Outcome {
    ok: bool,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

enum Verdict {
    Pass,
    Fail(String),
    Unsupported(String),
}

/// Removes lit's `%if asserts %{ ... %}` (no asserts: nothing is left).
fn drop_asserts_blocks(cmd: &str) -> String {
    let mut out = cmd.to_string();
    while let Some(start) = out.find("%if asserts %{") {
        match out[start..].find("%}") {
            Some(end) => out.replace_range(start..start + end + 2, ""),
            None => break,
        }
    }
    out.trim().to_string()
}

/// Splits a stage into words, honouring single and double quotes as sh does.
fn words(stage: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in stage.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                started = true;
            }
            None if c.is_whitespace() => {
                if started || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    started = false;
                }
            }
            None => cur.push(c),
        }
    }
    if started || !cur.is_empty() {
        out.push(cur);
    }
    out
}

struct Tools {
    translate: PathBuf,
}

impl Tools {
    /// Runs one command (no pipes, redirections already taken off) on `stdin`.
    fn command(&self, argv: &[String], stdin: &[u8], source: &Path) -> Result<Outcome, String> {
        let (tool, args) = argv.split_first().ok_or("empty command")?;
        match tool.as_str() {
            "stablehlo-translate" => {
                let mut child = Command::new(&self.translate)
                    .args(args)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| format!("cannot run {}: {e}", self.translate.display()))?;
                let mut input = child.stdin.take().ok_or("no stdin")?;
                let data = stdin.to_vec();
                // Fed from a thread so that a large output cannot block the child on a full pipe.
                let feeder = std::thread::spawn(move || {
                    use std::io::Write;
                    let _ = input.write_all(&data);
                });
                let out = child.wait_with_output().map_err(|e| e.to_string())?;
                let _ = feeder.join();
                let argv: Vec<&str> = args.iter().map(String::as_str).collect();
                checked::check_cli_run(&argv, out.status.success(), &out.stdout)?;
                Ok(Outcome {
                    ok: out.status.success(),
                    stdout: out.stdout,
                    stderr: out.stderr,
                })
            }
            "stablehlo-opt" => stablehlo_opt(args, stdin),
            "FileCheck" => {
                let (flags, files): (Vec<&String>, Vec<&String>) =
                    args.iter().partition(|a| a.starts_with('-'));
                let [check_file] = files.as_slice() else {
                    return Err(format!("FileCheck needs one check file, got {files:?}"));
                };
                let options = filecheck::Options::from_args(flags.iter().map(|s| s.as_str()))?;
                let check_text = std::fs::read_to_string(check_file)
                    .map_err(|e| format!("{check_file}: {e}"))?;
                let input = String::from_utf8_lossy(stdin);
                Ok(match filecheck::check_with(&check_text, &input, &options) {
                    Ok(()) => Outcome {
                        ok: true,
                        stdout: Vec::new(),
                        stderr: Vec::new(),
                    },
                    Err(e) => Outcome {
                        ok: false,
                        stdout: Vec::new(),
                        stderr: e.to_string().into_bytes(),
                    },
                })
            }
            "diff" => {
                let [a, b] = args else {
                    return Err(format!("diff needs two files, got {args:?}"));
                };
                let read = |p: &String| std::fs::read(p).map_err(|e| format!("{p}: {e}"));
                let (x, y) = (read(a)?, read(b)?);
                let message = if x == y {
                    Vec::new()
                } else {
                    first_difference(&x, &y).into_bytes()
                };
                Ok(Outcome {
                    ok: x == y,
                    stdout: message,
                    stderr: Vec::new(),
                })
            }
            other => Err(format!(
                "{}: unsupported command `{other}`",
                source.display()
            )),
        }
    }
}

/// Where two outputs first differ, for the failure message.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    for (i, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n< {x}\n> {y}\n", i + 1);
        }
    }
    format!(
        "one output is a prefix of the other ({} vs {} lines)\n",
        a.lines().count(),
        b.lines().count()
    )
}

/// The forms of `stablehlo-opt` that only parse and print, on our parser and printer.
fn stablehlo_opt(args: &[String], stdin: &[u8]) -> Result<Outcome, String> {
    let mut strip = false;
    let mut generic = false;
    let mut input: Option<&String> = None;
    for a in args {
        match a.as_str() {
            "--strip-debuginfo" | "-strip-debuginfo" => strip = true,
            "--mlir-print-op-generic" | "-mlir-print-op-generic" => generic = true,
            flag if flag.starts_with('-') => {
                return Err(format!(
                    "unsupported: stablehlo-opt {flag} (a pass this stand-in does not have)"
                ))
            }
            _ if input.is_some() => return Err("stablehlo-opt with two inputs".into()),
            _ => input = Some(a),
        }
    }
    let bytes = match input {
        Some(p) => std::fs::read(p).map_err(|e| format!("{p}: {e}"))?,
        None => stdin.to_vec(),
    };
    let fail = |msg: String| {
        Ok(Outcome {
            ok: false,
            stdout: Vec::new(),
            stderr: msg.into_bytes(),
        })
    };
    let mut module = if bytes.starts_with(b"ML\xefR") {
        match vhlo_core::bytecode::read_module(&bytes) {
            Ok(m) => m,
            Err(e) => return fail(e.to_string()),
        }
    } else {
        match text::parse(&String::from_utf8_lossy(&bytes)) {
            Ok(m) => m,
            Err(e) => return fail(e.to_string()),
        }
    };
    if strip {
        vhlo_core::portable::strip_debuginfo(&mut module);
    }
    let printed = text::print(
        &module,
        PrintOptions {
            generic,
            elide_defaults: true,
            ..Default::default()
        },
    );
    Ok(Outcome {
        ok: true,
        stdout: printed.into_bytes(),
        stderr: Vec::new(),
    })
}

/// Runs one RUN command: a pipeline with pipefail, `not` on a stage, `> FILE` and `2>&1` on the last.
fn run_command(tools: &Tools, command: &str, source: &Path) -> Verdict {
    let stages: Vec<&str> = command.split('|').collect();
    let mut data: Vec<u8> = Vec::new();
    let mut failures = Vec::new();
    for (i, stage) in stages.iter().enumerate() {
        let mut argv = words(stage);
        let negate = argv.first().is_some_and(|w| w == "not");
        if negate {
            argv.remove(0);
        }
        let mut merge_stderr = false;
        let mut redirect: Option<String> = None;
        let mut rest = Vec::new();
        let mut it = argv.into_iter();
        while let Some(w) = it.next() {
            match w.as_str() {
                "2>&1" => merge_stderr = true,
                ">" => redirect = it.next(),
                _ => rest.push(w),
            }
        }
        let outcome = match tools.command(&rest, &data, source) {
            Ok(o) => o,
            Err(e) if e.starts_with("unsupported") || e.contains("unsupported command") => {
                return Verdict::Unsupported(e)
            }
            Err(e) => return Verdict::Fail(e),
        };
        let ok = outcome.ok != negate;
        let mut out = outcome.stdout;
        if merge_stderr {
            out.extend_from_slice(&outcome.stderr);
        }
        if !ok {
            failures.push(format!(
                "stage {} `{}` {}: {}{}",
                i + 1,
                stage.trim(),
                if negate {
                    "succeeded under `not`"
                } else {
                    "failed"
                },
                String::from_utf8_lossy(&outcome.stderr),
                String::from_utf8_lossy(&out)
                    .chars()
                    .take(2000)
                    .collect::<String>(),
            ));
        }
        if let Some(path) = redirect {
            if let Err(e) = std::fs::write(&path, &out) {
                return Verdict::Fail(format!("cannot write {path}: {e}"));
            }
            out = Vec::new();
        }
        data = out;
    }
    if failures.is_empty() {
        Verdict::Pass
    } else {
        Verdict::Fail(failures.join("\n"))
    }
}

/// Runs every RUN line of `file`; the first unsupported command makes the file unsupported
/// (checked before anything runs, as a missing tool would make lit fail the whole file).
fn run_file(tools: &Tools, file: &Path, tmp: &Path) -> Verdict {
    let text = std::fs::read_to_string(file).expect("suite file");
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("test");
    let t = tmp.join(format!("{name}.tmp"));
    let commands: Vec<String> = filecheck::run_lines(&text)
        .into_iter()
        .map(|r| {
            drop_asserts_blocks(&r.command)
                .replace("%s", &file.to_string_lossy())
                .replace("%t", &t.to_string_lossy())
        })
        .filter(|c| !c.is_empty())
        .collect();
    if commands.is_empty() {
        return Verdict::Unsupported("no RUN line".into());
    }
    for c in &commands {
        for stage in c.split('|') {
            let argv = words(stage);
            let argv: Vec<&String> = argv.iter().filter(|w| *w != "not").collect();
            match argv.first().map(|s| s.as_str()) {
                Some("stablehlo-translate" | "FileCheck" | "diff") => {}
                Some("stablehlo-opt") => {
                    if let Some(flag) = argv[1..].iter().find(|a| {
                        a.starts_with('-')
                            && !matches!(
                                a.as_str(),
                                "--strip-debuginfo"
                                    | "--mlir-print-op-generic"
                                    | "-mlir-print-op-generic"
                            )
                    }) {
                        return Verdict::Unsupported(format!("needs `stablehlo-opt {flag}`"));
                    }
                }
                other => return Verdict::Unsupported(format!("needs `{}`", other.unwrap_or(""))),
            }
            if argv.iter().any(|a| a.as_str() == "--verify-diagnostics") {
                return Verdict::Unsupported("needs --verify-diagnostics".into());
            }
        }
    }
    for c in &commands {
        match run_command(tools, c, file) {
            Verdict::Pass => {}
            Verdict::Fail(e) => return Verdict::Fail(format!("RUN: {c}\n{e}")),
            Verdict::Unsupported(e) => return Verdict::Unsupported(e),
        }
    }
    Verdict::Pass
}

#[test]
fn suite_run_lines_pass_with_vhlo_translate_as_stablehlo_translate() {
    let Some(dir) = suite_dir() else { return };
    let tmp = std::env::temp_dir().join(format!("vhlo-suite-run-lines-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let tools = Tools {
        translate: PathBuf::from(env!("CARGO_BIN_EXE_vhlo-translate")),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("suite dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    let (mut passed, mut failed, mut unsupported) = (Vec::new(), Vec::new(), Vec::new());
    for f in &files {
        let name = f
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        match run_file(&tools, f, &tmp) {
            Verdict::Pass => passed.push(name),
            Verdict::Fail(e) => failed.push(format!("{name}:\n{e}")),
            Verdict::Unsupported(why) => unsupported.push(format!("{name}: {why}")),
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    eprintln!(
        "{} passed, {} failed, {} unsupported of {} suite files",
        passed.len(),
        failed.len(),
        unsupported.len(),
        files.len()
    );
    for u in &unsupported {
        eprintln!("  unsupported {u}");
    }
    assert!(
        failed.is_empty(),
        "{} suite file(s) fail their RUN lines:\n\n{}",
        failed.len(),
        failed.join("\n\n")
    );
    // Every versioned suite file (32 artifacts) and the version-API file run with no stand-in
    // pass beyond parse-and-print.
    let versioned = passed
        .iter()
        .filter(|n| n.starts_with("stablehlo_legalize_to_vhlo.") && n.ends_with("_0.mlir"))
        .count();
    assert_eq!(versioned, 32, "passed: {passed:?}");
    assert!(
        passed
            .iter()
            .any(|n| n == "vhlo_emit_version_api.1_1_0.mlir"),
        "passed: {passed:?}"
    );
}

/// The runner itself: a file whose CHECK lines hold passes, one whose CHECK is wrong or whose
/// `not` stage succeeds fails, and an unknown pass is reported unsupported.
#[test]
fn the_runner_fails_what_lit_would_fail() {
    let tmp = std::env::temp_dir().join(format!("vhlo-run-lines-self-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    let tools = Tools {
        translate: PathBuf::from(env!("CARGO_BIN_EXE_vhlo-translate")),
    };
    let program = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.abs %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n";
    let case = |name: &str, header: &str| {
        let path = tmp.join(name);
        std::fs::write(&path, format!("{header}\n{program}")).expect("write case");
        run_file(&tools, &path, &tmp)
    };
    let pipeline = "// RUN: stablehlo-translate --serialize --target=1.0.0 %s | stablehlo-translate --deserialize | FileCheck %s";
    assert!(matches!(
        case("good.mlir", &format!("{pipeline}\n// CHECK: stablehlo.abs")),
        Verdict::Pass
    ));
    assert!(matches!(
        case(
            "bad.mlir",
            &format!("{pipeline}\n// CHECK: stablehlo.negate")
        ),
        Verdict::Fail(_)
    ));
    assert!(matches!(
        case(
            "not.mlir",
            "// RUN: not stablehlo-translate --deserialize %s.missing"
        ),
        Verdict::Pass
    ));
    assert!(matches!(
        case(
            "notfail.mlir",
            "// RUN: not stablehlo-translate --serialize --target=1.0.0 %s > %t"
        ),
        Verdict::Fail(_)
    ));
    assert!(matches!(
        case("opt.mlir", "// RUN: stablehlo-opt --canonicalize %s"),
        Verdict::Unsupported(_)
    ));
    let _ = std::fs::remove_dir_all(&tmp);
}
