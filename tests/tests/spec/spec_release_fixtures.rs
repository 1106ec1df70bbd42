//! A new release is a spec edit, with 0 lines of Rust and 0 test edits.
//!
//! Each fixture copies the repository's tracked files (`git ls-files`) to
//! `target/spec-fixtures/<name>`, edits only `spec/` there as `tests/fixtures/releases/*.edit`
//! says (the steps of docs/adding-an-op-version.md), regenerates with codegen, builds
//! `vhlo-translate` in the copy, runs the tests that look at versions there (`VERSION_TESTS`,
//! unedited) and checks what the built binary does:
//! - `1.20.0.edit`: the real 1.20.0 removed and re-added gives the 1.20.0 suite artifact byte for
//!   byte, and every suite artifact reads as it does today;
//! - `1.21.0.edit`: a hypothetical release (an attribute with a default on sort, an enum
//!   attribute on reduce_precision, a case added to the released enum `precision_v1`, a new
//!   unary op, a new type) works: programs that omit the new attributes serialize at current, and
//!   a downgrade of a non-default value, of the new case or of the new type fails naming the
//!   release (and the case or type).
//!
//! A build takes minutes, so the fixtures run under CI (`CI=true`, as `.ci/run` sets) or with
//! `VHLO_SPEC_FIXTURES=1`, and are skipped otherwise, saying so.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vhlo_core::text::{self, PrintOptions};
use vhlo_tests::portable::{self, DeserializeOptions};

fn enabled(name: &str) -> bool {
    let on = vhlo_tests::in_ci()
        || std::env::var("VHLO_SPEC_FIXTURES").is_ok_and(|v| v == "1" || v == "true");
    if !on {
        eprintln!(
            "skipped: the {name} release fixture builds vhlo-translate in a copy of the repository \
             (minutes); it runs under CI=true or with VHLO_SPEC_FIXTURES=1"
        );
    }
    on
}

// ---- The edit files ----------------------------------------------------------------------------

#[derive(Debug)]
enum Place {
    After(String),
    Append,
    New,
}

#[derive(Debug)]
struct Edit {
    file: String,
    place: Place,
    lines: Vec<String>,
}

fn read_edits(name: &str) -> Vec<Edit> {
    let path = vhlo_tests::workspace_root().join(format!("tests/fixtures/releases/{name}.edit"));
    let text = std::fs::read_to_string(&path).expect("read the edit file");
    let mut edits: Vec<Edit> = Vec::new();
    for line in text.lines() {
        if let Some(head) = line.strip_prefix("@@ ") {
            let (file, rest) = head.split_once(' ').expect("`@@ FILE PLACE`");
            let place = match rest {
                "append" => Place::Append,
                "new" => Place::New,
                _ => Place::After(
                    rest.strip_prefix("after ")
                        .expect("`after LINE`, `append` or `new`")
                        .to_string(),
                ),
            };
            assert!(
                file.starts_with("spec/"),
                "{name}.edit edits {file}, outside spec/"
            );
            edits.push(Edit {
                file: file.to_string(),
                place,
                lines: Vec::new(),
            });
        } else if let Some(e) = edits.last_mut() {
            e.lines.push(line.to_string());
        } else {
            assert!(
                line.starts_with('#') || line.is_empty(),
                "stray line `{line}`"
            );
        }
    }
    assert!(!edits.is_empty(), "{name}.edit has no blocks");
    edits
}

fn join_lines(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Applies the edits in `root`.
fn apply(root: &Path, edits: &[Edit]) {
    for e in edits {
        let path = root.join(&e.file);
        let add = join_lines(&e.lines);
        let text = match &e.place {
            Place::New => {
                assert!(!path.exists(), "{} exists already", e.file);
                add
            }
            Place::Append => {
                let mut t = std::fs::read_to_string(&path).expect("read");
                if !t.ends_with('\n') {
                    t.push('\n');
                }
                t + &add
            }
            Place::After(anchor) => {
                let t = std::fs::read_to_string(&path).expect("read");
                let at = line_end_of(&t, anchor)
                    .unwrap_or_else(|| panic!("{}: no line `{anchor}`", e.file));
                format!("{}{add}{}", &t[..at], &t[at..])
            }
        };
        std::fs::write(&path, text).expect("write");
    }
}

/// Removes exactly what `apply` would insert, checking it is there: the inverse of the edit.
fn unapply(root: &Path, edits: &[Edit]) {
    for e in edits.iter().rev() {
        let path = root.join(&e.file);
        let add = join_lines(&e.lines);
        let t = std::fs::read_to_string(&path).expect("read");
        let text = match &e.place {
            Place::New => {
                assert_eq!(t, add, "{} is not the edit's new file", e.file);
                std::fs::remove_file(&path).expect("remove");
                continue;
            }
            Place::Append => t
                .strip_suffix(&add)
                .unwrap_or_else(|| panic!("{} does not end with the edit's lines", e.file))
                .to_string(),
            Place::After(anchor) => {
                let at = line_end_of(&t, anchor)
                    .unwrap_or_else(|| panic!("{}: no line `{anchor}`", e.file));
                assert!(
                    t[at..].starts_with(&add),
                    "{}: the edit's lines do not follow `{anchor}`",
                    e.file
                );
                format!("{}{}", &t[..at], &t[at + add.len()..])
            }
        };
        std::fs::write(&path, text).expect("write");
    }
}

/// The byte offset just past the first line of `text` equal to `line`.
fn line_end_of(text: &str, line: &str) -> Option<usize> {
    let mut at = 0;
    for l in text.split_inclusive('\n') {
        at += l.len();
        if l.trim_end_matches('\n') == line {
            return Some(at);
        }
    }
    None
}

// ---- The copy ----------------------------------------------------------------------------------

fn tracked_files() -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(vhlo_tests::workspace_root())
        .output()
        .expect("run git ls-files");
    assert!(out.status.success(), "git ls-files failed");
    String::from_utf8(out.stdout)
        .expect("UTF-8 paths")
        .split('\0')
        .filter(|p| !p.is_empty())
        // A tracked file deleted in the work tree is not part of it.
        .filter(|p| vhlo_tests::workspace_root().join(p).is_file())
        .map(String::from)
        .collect()
}

fn fixture_root() -> PathBuf {
    vhlo_tests::workspace_root().join("target/spec-fixtures")
}

/// A fresh copy of the tracked files at `target/spec-fixtures/<name>`.
fn copy_repository(name: &str) -> PathBuf {
    let dst = fixture_root().join(name);
    if dst.exists() {
        std::fs::remove_dir_all(&dst).expect("remove the old copy");
    }
    let root = vhlo_tests::workspace_root();
    for f in tracked_files() {
        let to = dst.join(&f);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::copy(root.join(&f), &to).expect("copy");
    }
    dst
}

/// Every file under `dir`, relative to it, skipping `skip` (relative directories).
fn files_under(dir: &Path, skip: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir") {
            let p = e.expect("entry").path();
            let rel = p
                .strip_prefix(dir)
                .expect("prefix")
                .to_string_lossy()
                .into_owned();
            if skip.iter().any(|s| rel == *s) {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// Codegen's outputs (what `codegen -- expand` and `-- docs` write: `src/generated/` holds
/// nothing else), the only other files a release changes.
fn is_generated(rel: &str) -> bool {
    rel.starts_with("vhlo-core/src/generated/") || rel.starts_with("docs/")
}

/// The copy differs from the repository only in spec/ and codegen's outputs: no Rust, no test.
fn only_spec_differs(copy: &Path) {
    let root = vhlo_tests::workspace_root();
    let tracked = tracked_files();
    let mut changed = Vec::new();
    for f in &tracked {
        let a = std::fs::read(root.join(f)).expect("read original");
        match std::fs::read(copy.join(f)) {
            Ok(b) if a == b => {}
            _ => changed.push(f.clone()),
        }
    }
    let mut added: Vec<String> = files_under(copy, &[".git"])
        .into_iter()
        .filter(|f| !tracked.contains(f))
        .collect();
    added.retain(|f| !f.starts_with("target/"));
    let outside: Vec<&String> = changed
        .iter()
        .chain(&added)
        .filter(|f| !f.starts_with("spec/") && !is_generated(f))
        .collect();
    assert!(
        outside.is_empty(),
        "the release edited more than the spec: {outside:?}"
    );
    assert!(
        changed.iter().any(|f| f.starts_with("spec/")),
        "the edit changed nothing"
    );
}

fn load_spec(copy: &Path) -> codegen::Spec {
    codegen::load_spec(&copy.join("spec")).unwrap_or_else(|e| panic!("the edited spec:\n{e}"))
}

/// What `cargo run -p codegen -- expand` and `-- docs` write (every checked-in output: the
/// expansion, the typed structs, the docs), written in the copy.
fn regenerate(copy: &Path) -> codegen::Spec {
    let spec = load_spec(copy);
    for (rel, text) in codegen::checked_in_outputs(&spec).expect("expand") {
        let p = copy.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write a generated file");
    }
    spec
}

/// `codegen -- release X.Y.Z`: locks what the release introduced.
fn cut_release(copy: &Path, version: &str) {
    let spec_dir = copy.join("spec");
    let spec = load_spec_unlocked(&spec_dir);
    let lock = spec_dir.join(codegen::lock::LOCK_FILE);
    let existing = std::fs::read_to_string(&lock).unwrap_or_default();
    let v = codegen::model::Version::parse(version).expect("version");
    let (text, _) = codegen::lock::cut(&spec, &existing, v, false).expect("cut the release");
    std::fs::write(&lock, text).expect("write the lock");
}

/// The spec without the lock check (as `codegen release` loads it).
fn load_spec_unlocked(dir: &Path) -> codegen::Spec {
    let mut diags = codegen::diag::Diagnostics::default();
    let raw = codegen::load::load_dir(dir, "spec", &mut diags);
    let spec = codegen::model::lower(&raw, &mut diags);
    codegen::check::check(&spec, &mut diags);
    diags.finish().unwrap_or_else(|e| panic!("{e}"));
    spec
}

/// Builds `vhlo-translate` in the copy, in a target dir of its own under the workspace's
/// target/ (so that dependencies are built once, and the workspace's binaries are not touched),
/// runs the version tests there ([`run_version_tests`]), and returns a copy of the binary beside
/// the sources: the fixtures share the target dir, whose `debug/vhlo-translate` the last build
/// wins.
fn build(copy: &Path) -> PathBuf {
    static ONE_BUILD_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = ONE_BUILD_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let target = fixture_root().join("target");
    // Cargo names a workspace's artifacts by paths relative to its root, so every copy writes the
    // same files, and one built earlier can look fresh to a copy made before it: clean the
    // crates the spec feeds and the tests (the dependencies stay built).
    let status = Command::new(env!("CARGO"))
        .args([
            "clean",
            "-q",
            "--offline",
            "-p",
            "vhlo-core",
            "-p",
            "vhlo-translate",
            "-p",
            "vhlo-tests",
        ])
        .current_dir(copy)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("run cargo clean");
    assert!(status.success(), "cargo clean -p failed");
    let status = Command::new(env!("CARGO"))
        .args(["build", "-q", "--offline", "-p", "vhlo-translate"])
        .current_dir(copy)
        .env("CARGO_TARGET_DIR", &target)
        // Each build starts from cleaned crates, so incremental state would only fill the disk.
        .env("CARGO_INCREMENTAL", "0")
        .status()
        .expect("run cargo build");
    assert!(
        status.success(),
        "vhlo-translate does not build from the edited spec"
    );
    run_version_tests(copy);
    let bin = copy.join(format!(
        "built-vhlo-translate{}",
        std::env::consts::EXE_SUFFIX
    ));
    std::fs::copy(
        target.join(format!(
            "debug/vhlo-translate{}",
            std::env::consts::EXE_SUFFIX
        )),
        &bin,
    )
    .expect("copy the binary");
    bin
}

/// The tests that look at versions, counts of op versions or the release table, as (test
/// binary, module): a release must pass them unedited, in its copy.
const VERSION_TESTS: &[(&str, &str)] = &[
    ("portable", "version_boundaries"),
    ("portable", "portable_suite"),
    ("spec", "generated_up_to_date"),
    ("portable", "minimum_version"),
    ("portable", "vhlo_to_version_suite"),
    ("portable", "compatibility_windows"),
    ("portable", "legalize_suite"),
];

/// Runs [`VERSION_TESTS`] in the copy (its own sources and spec, the workspace's shared
/// references), as CI would there; [`build`] calls it while it holds the target dir.
fn run_version_tests(copy: &Path) {
    let root = vhlo_tests::workspace_root();
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args([
        "test",
        "-q",
        "--offline",
        "--no-fail-fast",
        "-p",
        "vhlo-tests",
    ]);
    let mut binaries: Vec<&str> = VERSION_TESTS.iter().map(|(bin, _)| *bin).collect();
    binaries.sort_unstable();
    binaries.dedup();
    for bin in binaries {
        cmd.args(["--test", bin]);
    }
    // Only those modules of the binaries: a filter per module (`<module>::<test>`).
    cmd.arg("--");
    for (_, module) in VERSION_TESTS {
        cmd.arg(format!("{module}::"));
    }
    // The references beside the repository are not beside the copy.
    for (var, default) in [
        ("VHLO_COMPAT_SUITE", "../shared/compat-suite"),
        ("VHLO_STABLEHLO_TESTS", "../shared/stablehlo-tests"),
        ("VHLO_ORACLE_PYTHON", ".venv/bin/python"),
    ] {
        let value = std::env::var_os(var).unwrap_or_else(|| root.join(default).into_os_string());
        cmd.env(var, value);
    }
    let out = cmd
        .current_dir(copy)
        .env("CARGO_TARGET_DIR", fixture_root().join("target"))
        .env("CARGO_INCREMENTAL", "0")
        .output()
        .expect("run cargo test in the copy");
    assert!(
        out.status.success(),
        "the version tests fail in {}:\n{}\n{}",
        copy.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "{}: the version tests ({}) pass unedited",
        copy.display(),
        VERSION_TESTS
            .iter()
            .map(|(bin, module)| format!("{bin}::{module}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

fn run(bin: &Path, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .output()
        .expect("run vhlo-translate")
}

fn stdout_ok(bin: &Path, args: &[&str]) -> Vec<u8> {
    let out = run(bin, args);
    assert!(
        out.status.success(),
        "vhlo-translate {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn current_of(spec: &codegen::Spec) -> String {
    spec.releases.last().expect("a release").version.to_string()
}

// ---- The checks --------------------------------------------------------------------------------

/// Every suite artifact reads with the built binary as it reads today (this build), pretty and
/// generic with locations; and every source serializes at its version byte for byte.
fn suite_reads_as_today(bin: &Path, suite: &Path) -> usize {
    let mut n = 0;
    for bc in vhlo_tests::suite_artifacts(suite) {
        let bytes = std::fs::read(&bc).expect("artifact");
        let shown = bc.display().to_string();
        let today = match portable::deserialize_portable_artifact_with(
            &bytes,
            DeserializeOptions::default(),
        ) {
            Ok(m) => m,
            // `*_invalid*` and future artifacts: refused today, refused there.
            Err(_) => {
                assert!(
                    !run(bin, &["--deserialize", &shown]).status.success(),
                    "{shown}"
                );
                continue;
            }
        };
        for generic in [false, true] {
            let opts = PrintOptions {
                generic,
                debug_info: generic,
                elide_defaults: true,
                location_aliases: true,
                ..Default::default()
            };
            let want = text::print(&today, opts);
            let mut args = vec!["--deserialize", shown.as_str()];
            if generic {
                args.extend(["--mlir-print-op-generic", "--mlir-print-debuginfo"]);
            }
            let got = String::from_utf8(stdout_ok(bin, &args)).expect("UTF-8");
            assert_eq!(got, want, "{shown} (generic: {generic}) reads differently");
        }
        // The suite's own pair: `X.mlir` serialized at X.Y.Z is `X.mlir.bc`.
        let name = bc.file_name().expect("name").to_string_lossy().into_owned();
        if let Some(v) = name
            .strip_prefix("stablehlo_legalize_to_vhlo.")
            .and_then(|r| r.strip_suffix(".mlir.bc"))
        {
            let v = v.replace('_', ".");
            let src = bc.with_extension("").display().to_string();
            let target = format!("--target={v}");
            // unchecked-cli: byte-identical to the suite artifact, which was read above with
            // verification on; the other runs here are of a build with an edited spec (a release
            // newer than ours, whose new ops our reader refuses), read back by that build's
            // own `--deserialize`, which verifies.
            let out = stdout_ok(bin, &["--serialize", &src, &target, "--strip-debuginfo"]);
            assert!(
                out == bytes,
                "{src} at {v} is not byte-identical to {shown}"
            );
        }
        n += 1;
    }
    n
}

/// The attributes that op versions of release `v` have and their previous versions lack.
fn added_attributes(spec: &codegen::Spec, v: &str) -> Vec<String> {
    let mut out = Vec::new();
    for fam in &spec.ops {
        for w in fam.versions.windows(2) {
            if w[1].since.to_string() == v {
                for a in &w[1].attributes {
                    if !w[0].attributes.iter().any(|b| b.name == a.name) {
                        out.push(a.name.clone());
                    }
                }
            }
        }
    }
    out
}

/// No hand-written Rust of the library or the CLI (generated code aside) spells these names.
/// The ops' own constraints (`text/verify/ops`, upstream's C1...Cn as code) may name
/// any attribute they check: with the release removed the attribute is absent and the check is
/// inert, so the release still takes no Rust (the fixture builds and runs without them).
fn no_hand_written_source_names(names: &[String]) {
    let root = vhlo_tests::workspace_root();
    for dir in ["vhlo-core/src", "vhlo-translate/src"] {
        for rel in files_under(&root.join(dir), &["generated", "text/verify/ops"]) {
            if !rel.ends_with(".rs") {
                continue;
            }
            let text = std::fs::read_to_string(root.join(dir).join(&rel)).expect("source");
            for n in names {
                assert!(
                    !text.contains(&format!("\"{n}\"")),
                    "{dir}/{rel} names `{n}`: a fact the spec should hold"
                );
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(all(spec_fixtures, has_compat_suite)),
    ignore = "runs under CI=true or VHLO_SPEC_FIXTURES=1 (it builds a copy of the repository for minutes), with ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn release_1_20_0_removed_and_re_added_as_the_doc_says() {
    if !enabled("1.20.0") {
        return;
    }
    let Some(suite) = vhlo_tests::compat_suite() else {
        return;
    };
    let edits = read_edits("1.20.0");
    let copy = copy_repository("release-1.20.0");
    let original = load_spec(&copy);
    let current = current_of(&original);
    assert_eq!(current, "1.20.0", "the fixture re-adds the current release");
    let previous = original.releases[original.releases.len() - 2]
        .version
        .to_string();

    // What the release added is known to the spec alone: no hand-written source names it.
    let added = added_attributes(&original, &current);
    assert!(!added.is_empty(), "{current} adds attributes");
    no_hand_written_source_names(&added);

    // Remove 1.20.0: its lines, and the lock's entries for what it introduced.
    unapply(&copy, &edits);
    let introduced: Vec<String> = original
        .op_versions()
        .filter(|v| v.since.to_string() == current)
        .map(|v| format!("op {} ", v.mnemonic))
        .chain([format!("release {current} ")])
        .collect();
    let lock = copy.join("spec").join(codegen::lock::LOCK_FILE);
    let text = std::fs::read_to_string(&lock).expect("lock");
    let kept: String = text
        .lines()
        .filter(|l| !introduced.iter().any(|p| l.starts_with(p.as_str())))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        text.lines().count() - kept.lines().count(),
        introduced.len(),
        "the lock holds each of {introduced:?} once"
    );
    std::fs::write(&lock, kept).expect("write the lock");
    let without = load_spec(&copy);
    assert_eq!(
        current_of(&without),
        previous,
        "without it, the spec ends at {previous}"
    );

    // Re-add it as the doc says, and cut it.
    apply(&copy, &edits);
    cut_release(&copy, &current);
    let spec = regenerate(&copy);
    assert_eq!(current_of(&spec), current);
    only_spec_differs(&copy);
    let bin = build(&copy);
    let version = String::from_utf8(stdout_ok(&bin, &["--print-stablehlo-version"])).expect("utf8");
    assert!(
        version.contains(&format!("Current version: {current}")),
        "{version}"
    );
    let n = suite_reads_as_today(&bin, &suite);
    assert!(n >= 32, "only {n} suite artifacts");
    eprintln!(
        "release {current} re-added: {n} suite artifacts read as today and serialize byte for byte"
    );
}

/// A fixture program and what its header says of it: `// minimum: current|previous` (the oldest
/// release that can read it), `// keeps: TEXT` (read back, the program shows TEXT), `// lacks:
/// TEXT` (read back, it does not: a default is left out), `// refused: TEXT` (the error at the
/// release before names TEXT, besides the release). `// skip: WHY` skips it, saying why.
struct Program {
    path: PathBuf,
    minimum_is_current: bool,
    keeps: Vec<String>,
    lacks: Vec<String>,
    refused: Vec<String>,
}

fn programs(dir: &Path) -> Vec<Program> {
    let mut out = Vec::new();
    for rel in files_under(dir, &[]) {
        if !rel.ends_with(".mlir") {
            continue;
        }
        let path = dir.join(&rel);
        let text = std::fs::read_to_string(&path).expect("program");
        let mut p = Program {
            path,
            minimum_is_current: false,
            keeps: Vec::new(),
            lacks: Vec::new(),
            refused: Vec::new(),
        };
        let mut minimum = None;
        if let Some(why) = text.lines().find_map(|l| l.strip_prefix("// skip: ")) {
            eprintln!("skipped: {rel}: {why}");
            continue;
        }
        for line in text.lines().filter_map(|l| l.strip_prefix("// ")) {
            if let Some(m) = line.strip_prefix("minimum: ") {
                minimum = Some(m == "current");
                assert!(m == "current" || m == "previous", "{rel}: minimum `{m}`");
            } else if let Some(k) = line.strip_prefix("keeps: ") {
                p.keeps.push(k.to_string());
            } else if let Some(k) = line.strip_prefix("lacks: ") {
                p.lacks.push(k.to_string());
            } else if let Some(k) = line.strip_prefix("refused: ") {
                p.refused.push(k.to_string());
            }
        }
        p.minimum_is_current = minimum.unwrap_or_else(|| panic!("{rel}: no `// minimum:`"));
        out.push(p);
    }
    assert!(!out.is_empty(), "no programs in {}", dir.display());
    out
}

#[test]
#[cfg_attr(
    not(spec_fixtures),
    ignore = "runs under CI=true or VHLO_SPEC_FIXTURES=1 (it builds a copy of the repository for minutes)"
)]
fn release_1_21_0_hypothetical_is_a_spec_edit() {
    if !enabled("1.21.0") {
        return;
    }
    let edits = read_edits("1.21.0");
    let copy = copy_repository("release-1.21.0");
    let before = current_of(&load_spec(&copy));
    apply(&copy, &edits);
    let spec = regenerate(&copy);
    // The release is the edit's: the last row of the edited table, after today's current.
    let current = current_of(&spec);
    let previous = spec.releases[spec.releases.len() - 2].version.to_string();
    assert_eq!(previous, before, "the edit appends one release");
    cut_release(&copy, &current);
    only_spec_differs(&copy);
    let bin = build(&copy);
    let version = String::from_utf8(stdout_ok(&bin, &["--print-stablehlo-version"])).expect("utf8");
    assert!(
        version.contains(&format!("Current version: {current}")),
        "{version}"
    );

    let dir = vhlo_tests::workspace_root().join(format!("tests/fixtures/releases/{current}"));
    let tmp = fixture_root().join(format!("release-{current}-artifacts"));
    std::fs::create_dir_all(&tmp).expect("mkdir");
    let mut checked = 0;
    for p in programs(&dir) {
        let src = p.path.display().to_string();
        let name = p
            .path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        // The program as the new release prints it, read from its text.
        let printed = String::from_utf8(stdout_ok(&bin, &["--deserialize", &src])).expect("utf8");
        for k in &p.keeps {
            assert!(
                printed.contains(k.as_str()),
                "{name}: printed without `{k}`:\n{printed}"
            );
        }
        for k in &p.lacks {
            assert!(
                !printed.contains(k.as_str()),
                "{name}: printed with `{k}`:\n{printed}"
            );
        }
        for (target, readable) in [(&current, true), (&previous, !p.minimum_is_current)] {
            let out_path = tmp.join(format!("{name}.{target}.mlir.bc"));
            let out = out_path.display().to_string();
            let r = run(
                &bin,
                &[
                    "--serialize",
                    &src,
                    &format!("--target={target}"),
                    "-o",
                    &out,
                ],
            );
            let stderr = String::from_utf8_lossy(&r.stderr);
            if readable {
                assert!(r.status.success(), "{name} at {target}: {stderr}");
                let back =
                    String::from_utf8(stdout_ok(&bin, &["--deserialize", &out])).expect("utf8");
                assert_eq!(back, printed, "{name} at {target} reads back differently");
            } else {
                assert!(!r.status.success(), "{name} serialized at {target}");
                for want in std::iter::once(&current).chain(&p.refused) {
                    assert!(
                        stderr.contains(want.as_str()),
                        "{name} at {target}: the error does not name {want}: {stderr}"
                    );
                }
            }
        }
        checked += 1;
    }
    eprintln!("release {current}: {checked} programs checked at {current} and {previous}");
}
