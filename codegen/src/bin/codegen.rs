//! The codegen CLI: `list`, `expand`, `docs`, `lock`, and `check` of the checked-in outputs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use codegen::model::Bound;

const USAGE: &str = "usage: codegen [--spec DIR] <command>

commands:
  list     print one line per VHLO op version: vhlo.<mnemonic>\\t<from>\\t<to|current>
  expand   write the formatted expansion to vhlo-core/src/generated/vhlo_dialect.rs
  docs     write the per-op pages, the opset table and the changelog under docs/
  lock     add every definition not yet in spec/released.lock (released ones are never rewritten)
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
    if cmd == "lock" {
        return lock(&spec_dir);
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
                    "expand" => p == Path::new(EXPANSION),
                    "docs" => p != Path::new(EXPANSION),
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

/// The expansion vhlo-core compiles (`include!` in vhlo-core/src/vhlo.rs), so that the published
/// crate needs neither the spec nor the proc-macro.
const EXPANSION: &str = "vhlo-core/src/generated/vhlo_dialect.rs";

/// Every checked-in generated file: (path relative to the workspace root, contents).
fn codegen_outputs(spec: &codegen::Spec) -> Result<Vec<(PathBuf, String)>, String> {
    let mut out = vec![(PathBuf::from(EXPANSION), codegen::expand_to_string(spec)?)];
    for (rel, text) in codegen::docs::render(spec) {
        out.push((PathBuf::from("docs").join(rel), text));
    }
    Ok(out)
}

fn lock(spec_dir: &Path) -> ExitCode {
    // Load without the lock check, then append only the keys that are missing.
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
    let path = spec_dir.join(codegen::lock::LOCK_FILE);
    let fresh = codegen::lock::render(&spec);
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    let known: std::collections::BTreeSet<String> = existing
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut p = l.split_whitespace();
            Some(format!("{} {}", p.next()?, p.next()?))
        })
        .collect();
    let mut text = if existing.is_empty() {
        fresh
            .lines()
            .take_while(|l| l.starts_with('#'))
            .map(|l| format!("{l}\n"))
            .collect()
    } else {
        existing.clone()
    };
    let mut added = 0;
    for line in fresh.lines().filter(|l| !l.starts_with('#')) {
        let mut p = line.split_whitespace();
        let key = format!("{} {}", p.next().unwrap_or(""), p.next().unwrap_or(""));
        if !known.contains(&key) {
            text.push_str(line);
            text.push('\n');
            added += 1;
        }
    }
    if let Err(e) = std::fs::write(&path, text) {
        eprintln!("error: cannot write {}: {e}", path.display());
        return ExitCode::FAILURE;
    }
    println!("{}: {added} new definition(s) locked", path.display());
    ExitCode::SUCCESS
}
