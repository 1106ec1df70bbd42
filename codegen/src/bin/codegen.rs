//! The codegen CLI: `list`, `expand`, `docs`, `lock`, and `check` of the checked-in outputs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use codegen::model::Bound;

const USAGE: &str = "usage: codegen [--spec DIR] <command>

commands:
  list     print one line per VHLO op version: vhlo.<mnemonic>\\t<from>\\t<to|current>
  expand   write the formatted expansion to vhlo-core/src/generated/ (vhlo_dialect.rs, dialect_kinds.rs)
  docs     write the per-op pages, the opset table and the changelog under docs/
  release X.Y.Z [--recut]
           cut release X.Y.Z: lock in spec/released.lock every definition it and earlier
           releases introduced (later ones stay work in progress, free to edit); --recut locks
           what X.Y.Z introduced afresh, for a cut made by mistake before X.Y.Z is published
  check    exit 1 when expand/docs outputs are stale";

fn workspace_root() -> PathBuf {
    // codegen/ is one level below the workspace root.
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let mut spec_dir = root.join("spec");
    if let Some(i) = args.iter().position(|a| a == "--spec") {
        if i + 1 >= args.len() {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
        spec_dir = PathBuf::from(args.remove(i + 1));
        args.remove(i);
    }
    let Some(cmd) = args.first().cloned() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if cmd == "release" {
        let recut = args.iter().any(|a| a == "--recut");
        let Some(v) = args.get(1).filter(|a| *a != "--recut") else {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        };
        return release(&spec_dir, v, recut);
    }
    if cmd == "lock" {
        eprintln!(
            "`lock` is now `release X.Y.Z`: it cuts one release, leaving work in progress unlocked"
        );
        return ExitCode::from(2);
    }
    let spec = match codegen::load_spec(&spec_dir) {
        Ok(s) => s,
        Err(e) => {
            eprint!("{e}");
            return ExitCode::FAILURE;
        }
    };
    match cmd.as_str() {
        "list" => {
            let mut out = String::new();
            for v in spec.op_versions() {
                let to = match v.range.max {
                    Bound::Current => "current".to_string(),
                    Bound::Version(x) => x.to_string(),
                };
                out.push_str(&format!("vhlo.{}\t{}\t{}\n", v.mnemonic, v.since, to));
            }
            print!("{out}");
            ExitCode::SUCCESS
        }
        "expand" | "docs" | "check" => {
            let outputs = match codegen_outputs(&spec) {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let wanted: Vec<&(PathBuf, String)> = outputs
                .iter()
                .filter(|(p, _)| match cmd.as_str() {
                    "expand" => !p.starts_with("docs"),
                    "docs" => p.starts_with("docs"),
                    _ => true,
                })
                .collect();
            let mut stale = 0;
            for (rel, text) in wanted {
                let path = root.join(rel);
                let same = std::fs::read_to_string(&path)
                    .map(|t| &t == text)
                    .unwrap_or(false);
                if cmd == "check" {
                    if !same {
                        eprintln!("stale: {}", rel.display());
                        stale += 1;
                    }
                } else if !same {
                    if let Some(parent) = path.parent() {
                        if let Err(e) = std::fs::create_dir_all(parent) {
                            eprintln!("error: cannot create {}: {e}", parent.display());
                            return ExitCode::FAILURE;
                        }
                    }
                    if let Err(e) = std::fs::write(&path, text) {
                        eprintln!("error: cannot write {}: {e}", path.display());
                        return ExitCode::FAILURE;
                    }
                    println!("wrote {}", rel.display());
                }
            }
            if stale > 0 {
                eprintln!("{stale} generated file(s) are stale: run `cargo run -p codegen -- expand` and `-- docs`");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("unknown command `{cmd}`\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

/// Every checked-in generated file: (path relative to the workspace root, contents).
fn codegen_outputs(spec: &codegen::Spec) -> Result<Vec<(PathBuf, String)>, String> {
    codegen::checked_in_outputs(spec)
}

fn release(spec_dir: &Path, version: &str, recut: bool) -> ExitCode {
    // Load without the lock check (a recut replaces stale digests), then cut.
    let mut diags = codegen::diag::Diagnostics::default();
    let name = spec_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let raw = codegen::load::load_dir(spec_dir, &name, &mut diags);
    let spec = codegen::model::lower(&raw, &mut diags);
    codegen::check::check(&spec, &mut diags);
    if let Err(e) = diags.finish() {
        eprint!("{e}");
        return ExitCode::FAILURE;
    }
    let v = match codegen::model::Version::parse(version) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let path = spec_dir.join(codegen::lock::LOCK_FILE);
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    let (text, added) = match codegen::lock::cut(&spec, &existing, v, recut) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(&path, text) {
        eprintln!("error: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!(
        "{}: release {v} cut, {added} definition(s) and release row(s) locked",
        path.display()
    );
    ExitCode::SUCCESS
}
