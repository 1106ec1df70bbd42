//! JAX's own back-compat artifacts, and the reader/printer behaviours they need.
//!
//! The corpus test reads every artifact of `jax/_src/internal_test_util/export_back_compat_test_data/`
//! (and `pallas/`) from the jax wheel in the oracle venv at test time; nothing is copied into the
//! repository. See `corpus` below.

use vhlo_core::text::{self, PrintOptions};
use vhlo_tests::portable::{self, SerializeOptions};

/// An artifact with its producer string replaced (the header is magic, version varint, producer).
fn with_producer(artifact: &[u8], producer: &str) -> Vec<u8> {
    let end = artifact
        .iter()
        .skip(5)
        .position(|&b| b == 0)
        .expect("NUL-terminated producer")
        + 5;
    assert!(artifact[4] < 0x80, "one-byte version varint");
    let mut out = artifact[..5].to_vec();
    out.extend_from_slice(producer.as_bytes());
    out.extend_from_slice(&artifact[end..]);
    out
}

const BYTE_STRINGS: &str = r#"module @"m\FF" {
  func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.custom_call @tpu_custom_call(%arg0) {backend_config = "\00\FF\C3(bin\22\\"} : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
"#;

/// JAX's 2023 artifacts say `MLIRxxx-trunk`: libStablehlo never looks at the producer, nor do we.
#[test]
fn any_producer_reads() {
    let m = text::parse(BYTE_STRINGS).expect("parse");
    let artifact = portable::serialize_portable_artifact(&m, "1.0.0", SerializeOptions::default())
        .expect("serialize");
    for producer in ["MLIRxxx-trunk", "MLIR17.0.0git", ""] {
        let legacy = with_producer(&artifact, producer);
        let back = portable::deserialize_portable_artifact(&legacy)
            .unwrap_or_else(|e| panic!("{producer:?}: {e}"));
        assert_eq!(
            text::print(&back, PrintOptions::default()),
            BYTE_STRINGS,
            "{producer:?}"
        );
        assert!(
            portable::read_producer_version(&legacy).is_err(),
            "no version named by {producer:?}"
        );
        // The version read at is the minimum of the ops inside.
        let (_, version) = portable::read_vhlo(&legacy).expect("read");
        assert_eq!(version.to_string(), "0.9.0");
    }
    assert_eq!(
        portable::producer_version("StableHLO_v1.10.3")
            .map(|v| v.to_string())
            .as_deref(),
        Some("1.10.3")
    );
    assert_eq!(portable::producer_version("MLIRxxx-trunk"), None);
}

/// Strings are bytes: `\XX` escapes of any byte print, parse back, and are written unchanged.
#[test]
fn byte_strings_round_trip() {
    let m = text::parse(BYTE_STRINGS).expect("parse");
    assert_eq!(text::print(&m, PrintOptions::default()), BYTE_STRINGS);
    let artifact = portable::serialize_portable_artifact(
        &m,
        "1.0.0",
        SerializeOptions {
            strip_debuginfo: true,
            ..Default::default()
        },
    )
    .expect("serialize");
    let needle = b"\x00\xFF\xC3(bin\"\\";
    assert!(
        artifact.windows(needle.len()).any(|w| w == needle),
        "the bytes are written unchanged"
    );
    let back = portable::deserialize_portable_artifact(&artifact).expect("read back");
    assert_eq!(text::print(&back, PrintOptions::default()), BYTE_STRINGS);
    // Dense string elements too (builtin attributes of other dialects keep them).
    let dense =
        "module attributes {t.s = dense<[\"\\FF\\00\", \"a\"]> : tensor<2x!t.string>} {\n}\n";
    let m = vhlo_tests::parse_any_dialect(dense).expect("parse dense strings");
    assert_eq!(text::print(&m, PrintOptions::default()), dense);
}

/// Inside a `func.func` printed in generic form (an empty `arg_attrs` dictionary has no custom
/// syntax), `func.return` and `func.call` keep their dialect: MLIR's parser takes the default
/// dialect only from ops in custom form.
#[test]
fn ops_in_a_generic_function_keep_their_dialect() {
    let src = r#"module {
  "func.func"() <{arg_attrs = [{}], function_type = (tensor<f32>) -> tensor<f32>, sym_name = "f", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<f32>):
    %0 = "func.call"(%arg0) <{callee = @f}> : (tensor<f32>) -> tensor<f32>
    "func.return"(%0) : (tensor<f32>) -> ()
  }) : () -> ()
}
"#;
    let m = text::parse(src).expect("parse");
    let printed = text::print(&m, PrintOptions::default());
    assert!(
        printed.contains("\"func.func\"()"),
        "kept generic:\n{printed}"
    );
    assert!(
        printed.contains("func.call @f(%arg0)") && printed.contains("func.return %0"),
        "dialect kept:\n{printed}"
    );
    let again = text::parse(&printed).expect("re-parse");
    assert_eq!(text::print(&again, PrintOptions::default()), printed);
}

/// An attribute with no custom encoding (builtin `affine_map`) is written as its whole assembly
/// text (MLIR's fallback, as jaxlib writes it: `tests/tests/oracle/resources_oracle.rs`), and read back
/// to the same attribute. One of a dialect libStablehlo does not load is refused: libStablehlo
/// would refuse to read it back.
#[test]
fn attributes_without_an_encoding_are_written_as_text() {
    let program = |attr: &str| {
        format!(
            r#"module {{
  func.func @main(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {{
    %0 = stablehlo.custom_call @lapack_spotrf_ffi(%arg0) {{foo.rule = {attr}}} : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }}
}}
"#
        )
    };
    let options = SerializeOptions {
        allow_other_dialects: true,
        strip_debuginfo: true,
        ..Default::default()
    };
    let m = text::parse(&program("affine_map<(d0, d1) -> (d1, d0)>")).expect("parse");
    let artifact = portable::serialize_portable_artifact(&m, "1.15.0", options).expect("serialize");
    let text = b"affine_map<(d0, d1) -> (d1, d0)>\0";
    assert!(
        artifact.windows(text.len()).any(|w| w == text),
        "written as its whole text"
    );
    let back =
        portable::deserialize_portable_artifact(&artifact).expect("our reader reads what we write");
    assert_eq!(
        text::print(&back, PrintOptions::default()),
        text::print(&m, PrintOptions::default())
    );
    let foreign =
        vhlo_tests::parse_any_dialect(&program("#foo.rule<([i, j])->([k, l]) {i=4, j=4}, custom>"))
            .expect("parse");
    // unchecked: refused, nothing is written.
    let e = vhlo_core::portable::serialize_portable_artifact(&foreign, "1.15.0", options)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("dialect 'foo', which libStablehlo does not load"),
        "{e}"
    );
}

// ---- the corpus ------------------------------------------------------------------------------

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use vhlo_core::convert;

fn run_driver(python: &Path, args: &[&str]) {
    let script = vhlo_tests::workspace_root().join("scripts/oracle/jax_backcompat.py");
    let out = Command::new(python)
        .arg(&script)
        .args(args)
        .output()
        .expect("jax_backcompat.py runs");
    assert!(
        out.status.success(),
        "jax_backcompat.py {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A file the driver wrote: its text, or jaxlib's error.
fn jaxlib_output(path: &Path) -> Result<String, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(_) => Err(std::fs::read_to_string(format!("{}.error", path.display()))
            .map(|e| e.trim().to_string())
            .unwrap_or_else(|_| format!("no {}", path.display()))),
    }
}

/// The name of the first top-level bytecode section in which two artifacts differ ("header"
/// when the header does), to say why a re-written artifact is not byte-identical.
fn first_differing_section(a: &[u8], b: &[u8]) -> String {
    fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
        let first = *bytes.get(*at)?;
        let n = first.trailing_zeros() as usize + 1;
        if n > 8 {
            let v = u64::from_le_bytes(bytes.get(*at + 1..*at + 9)?.try_into().ok()?);
            *at += 9;
            return Some(v);
        }
        let mut raw = [0u8; 8];
        raw[..n].copy_from_slice(bytes.get(*at..*at + n)?);
        *at += n;
        Some(u64::from_le_bytes(raw) >> n)
    }
    /// The header, and each section's body by id.
    type Sections = (Vec<u8>, BTreeMap<u8, Vec<u8>>);
    fn sections(bytes: &[u8]) -> Option<Sections> {
        let mut at = 4;
        varint(bytes, &mut at)?;
        at += bytes.get(at..)?.iter().position(|&b| b == 0)? + 1;
        let header = bytes.get(..at)?.to_vec();
        let mut out = BTreeMap::new();
        while at < bytes.len() {
            let id = *bytes.get(at)?;
            at += 1;
            let len = varint(bytes, &mut at)? as usize;
            if id & 0x80 != 0 {
                let align = varint(bytes, &mut at)? as usize;
                while align > 1 && bytes.get(at) == Some(&0xCB) && at % align != 0 {
                    at += 1;
                }
            }
            out.insert(id & 0x7f, bytes.get(at..at + len)?.to_vec());
            at += len;
        }
        Some((header, out))
    }
    const NAMES: [&str; 9] = [
        "string",
        "dialect",
        "attr/type",
        "attr/type offsets",
        "IR",
        "resource",
        "resource offsets",
        "dialect versions",
        "properties",
    ];
    let (Some((ha, sa)), Some((hb, sb))) = (sections(a), sections(b)) else {
        return "unparsable sections".into();
    };
    if ha != hb {
        return "header".into();
    }
    for id in sa.keys().chain(sb.keys()) {
        if sa.get(id) != sb.get(id) {
            return format!(
                "{} section",
                NAMES.get(usize::from(*id)).unwrap_or(&"unknown")
            );
        }
    }
    "section layout".into()
}

/// One row of the table: a case and the verdict of each check.
struct Row {
    name: String,
    producer: String,
    deserialize: Verdict,
    retarget: Verdict,
    serialize: Verdict,
}

#[derive(Clone)]
enum Verdict {
    Pass(&'static str),
    Skip(String),
    Fail(String),
}

impl Verdict {
    fn cell(&self) -> String {
        match self {
            Verdict::Pass(how) => format!("ok{how}"),
            Verdict::Skip(_) => "skip".into(),
            Verdict::Fail(_) => "FAIL".into(),
        }
    }
}

fn compare(
    ours: Result<String, String>,
    reference: &Result<String, String>,
    what: &str,
) -> Verdict {
    match (ours, reference) {
        (Ok(a), Ok(b)) if &a == b => Verdict::Pass(""),
        (Ok(a), Ok(b)) => {
            let line = a
                .lines()
                .zip(b.lines())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            Verdict::Fail(format!(
                "{what}: jaxlib's reading differs at line {}:\n    ours:   {}\n    jaxlib: {}",
                line + 1,
                a.lines().nth(line).unwrap_or("<end>"),
                b.lines().nth(line).unwrap_or("<end>")
            ))
        }
        (Err(e), _) => Verdict::Fail(format!("{what}: {e}")),
        (Ok(_), Err(e)) => Verdict::Skip(format!("{what}: jaxlib fails too: {e}")),
    }
}

/// Every artifact of JAX's back-compat data, three ways (module doc of scripts/oracle/jax_backcompat.py):
/// `--deserialize` text that jaxlib parses to what it deserializes; `--retarget` to the producer's
/// version read back by jaxlib as its own artifact (and how many are byte-identical); JAX's text
/// serialized at that version read back by jaxlib as it parses the text. `VHLO_JAX_CASES=substring`
/// runs the cases whose name contains it.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn corpus() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    check_cases(&python, "jax_backcompat", None, 100);
}

/// Programs exported here with `jax.export` on an 8-device CPU mesh (tests/fixtures/jax_mesh/gen.py):
/// NamedSharding inputs and outputs, with_sharding_constraint, shard_map, a LAPACK custom call. The
/// same three checks as [`corpus`]; all carry Shardy attributes or ops.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn mesh_fixtures() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let fixtures = vhlo_tests::workspace_root().join("tests/fixtures/jax_mesh");
    check_cases(&python, "jax_mesh", Some(&fixtures), 4);
}

/// Runs the three checks on every case of JAX's back-compat data (`fixtures` = None) or of a
/// fixture directory, prints the table and the summary, and fails on any failure.
fn check_cases(python: &Path, label: &str, fixtures: Option<&Path>, at_least: usize) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(label);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let filter = std::env::var("VHLO_JAX_CASES").unwrap_or_default();
    let d = dir.to_str().expect("UTF-8 path");
    match fixtures {
        None => run_driver(python, &["extract", d, &filter]),
        Some(f) => run_driver(
            python,
            &[
                "extract",
                d,
                &filter,
                "--fixtures",
                f.to_str().expect("UTF-8 path"),
            ],
        ),
    }
    let cases: Vec<(String, String)> = std::fs::read_to_string(dir.join("cases.tsv"))
        .expect("cases.tsv")
        .lines()
        .filter_map(|l| {
            let mut cols = l.split('\t');
            Some((cols.next()?.to_string(), cols.next()?.to_string()))
        })
        .collect();
    assert!(
        filter.is_empty() || !cases.is_empty(),
        "no case matches VHLO_JAX_CASES={filter:?}"
    );
    if filter.is_empty() {
        assert!(
            cases.len() >= at_least,
            "only {} artifacts found ({label})",
            cases.len()
        );
    }

    // Our side, in process: what the CLI's --deserialize, --retarget and --serialize do.
    let mut byte_identical = 0usize;
    let mut serialized_identical = 0usize;
    let mut serialize_differ: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut differ_why: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut early: BTreeMap<String, [Option<Verdict>; 3]> = BTreeMap::new();
    for (name, producer) in &cases {
        let base = dir.join(name);
        let artifact = std::fs::read(format!("{}.bc", base.display())).expect("artifact");
        let mut verdicts: [Option<Verdict>; 3] = [None, None, None];
        match portable::deserialize_portable_artifact(&artifact) {
            Ok(m) => {
                let opts = PrintOptions {
                    elide_defaults: true,
                    ..Default::default()
                };
                std::fs::write(
                    format!("{}.ours.mlir", base.display()),
                    text::print(&m, opts),
                )
                .expect("write");
                // Locations in the generic form, where every block argument shows its own: custom
                // forms print none for some (stablehlo.while, as MLIR's printer does), and a parser
                // then gives them their source position.
                let opts = PrintOptions {
                    debug_info: true,
                    generic: true,
                    ..opts
                };
                std::fs::write(
                    format!("{}.ours_loc.mlir", base.display()),
                    text::print(&m, opts),
                )
                .expect("write");
            }
            Err(e) => verdicts[0] = Some(Verdict::Fail(format!("deserialize: {e}"))),
        }
        // A producer naming no StableHLO version (2023's `MLIRxxx-trunk`): the version it is read
        // at, the minimum of its ops (never byte-identical: our producer string differs).
        let version = portable::producer_version(producer)
            .or_else(|| portable::read_vhlo(&artifact).ok().map(|(_, v)| v));
        match version {
            None => {
                let why = format!("the producer {producer:?} names no StableHLO version and the artifact does not read");
                verdicts[1] = Some(Verdict::Fail(why.clone()));
                verdicts[2] = Some(Verdict::Fail(why));
            }
            Some(v) => {
                let target = v.to_string();
                let retargeted = portable::read_vhlo(&artifact)
                    .map_err(|e| e.to_string())
                    .and_then(|(mut m, _)| {
                        convert::vhlo_to_version(&mut m, v.floor_patch())
                            .map_err(|ds| format!("{} blocker(s): {}", ds.len(), ds[0]))?;
                        portable::write_vhlo(&m, v, &target).map_err(|e| e.to_string())
                    });
                match retargeted {
                    Ok(bytes) => {
                        // Never write what we cannot read ourselves.
                        if let Err(e) = portable::read_vhlo(&bytes) {
                            verdicts[1] = Some(Verdict::Fail(format!(
                                "retarget: our own reader refuses our artifact: {e}"
                            )));
                        }
                        if bytes == artifact {
                            byte_identical += 1;
                        } else {
                            differ_why
                                .entry(first_differing_section(&bytes, &artifact))
                                .or_default()
                                .push(name.clone());
                        }
                        std::fs::write(format!("{}.retarget.bc", base.display()), bytes)
                            .expect("write");
                    }
                    Err(e) => {
                        verdicts[1] = Some(Verdict::Fail(format!("retarget to {target}: {e}")))
                    }
                }
                std::fs::write(format!("{}.target", base.display()), &target).expect("write");
                let source =
                    std::fs::read_to_string(format!("{}.mlir", base.display())).expect("text");
                let options = SerializeOptions {
                    // JAX keeps Shardy's dialect when it serializes with sdy (_export.py, serialize_with_sdy).
                    allow_other_dialects: source.contains("sdy."),
                    ..Default::default()
                };
                let serialized = text::parse_with_source_locations(&source, "-")
                    .map_err(|e| format!("parse: {e}"))
                    .and_then(|m| {
                        portable::serialize_portable_artifact(&m, &target, options)
                            .map_err(|e| e.to_string())
                    });
                match serialized {
                    Ok(bytes) => {
                        if let Err(e) = portable::read_vhlo(&bytes) {
                            verdicts[2] = Some(Verdict::Fail(format!(
                                "serialize: our own reader refuses our artifact: {e}"
                            )));
                        }
                        if bytes == artifact {
                            serialized_identical += 1;
                        } else {
                            serialize_differ
                                .entry(first_differing_section(&bytes, &artifact))
                                .or_default()
                                .push(name.clone());
                        }
                        std::fs::write(format!("{}.serialize.bc", base.display()), bytes)
                            .expect("write");
                    }
                    Err(e) => {
                        verdicts[2] = Some(Verdict::Fail(format!("serialize at {target}: {e}")))
                    }
                }
            }
        }
        early.insert(name.clone(), verdicts);
    }

    // jaxlib reads what we wrote, in one process.
    run_driver(python, &["check", d]);
    let mut rows = Vec::new();
    let mut as_jaxlib = Vec::new();
    let mut same_as_jaxlib_serialize = 0usize;
    let (mut printed_identical, mut read_back_differs) = (0usize, Vec::new());
    let (mut custom_call_rewrite, mut unexplained) = (Vec::new(), Vec::new());
    for (name, producer) in &cases {
        let base = format!("{}/{name}", dir.display());
        let [de, re, se] = early.remove(name).unwrap_or_default();
        let out = |suffix: &str| jaxlib_output(Path::new(&format!("{base}.{suffix}")));
        // Our --deserialize text against jaxlib's, byte for byte.
        let printed_as_jaxlib = matches!(
            (out("ours.mlir"), out("jax_printed.mlir")),
            (Ok(a), Ok(b)) if a == b
        );
        printed_identical += usize::from(printed_as_jaxlib);
        // Without locations (as --deserialize prints by default), then generic with them.
        let deserialize = de.unwrap_or_else(|| {
            let with_locations = || {
                compare(
                    out("ours_loc.jax.mlir"),
                    &out("jax_deserialized_loc.mlir"),
                    "deserialize with locations",
                )
            };
            let verdict = match compare(
                out("ours.jax.mlir"),
                &out("jax_deserialized.mlir"),
                "deserialize",
            ) {
                Verdict::Pass(_) => with_locations(),
                // jaxlib's own text leaves out the same (a function's argument or result
                // dictionaries when all are empty, which JAX writes): the generic form keeps them.
                Verdict::Fail(_) if printed_as_jaxlib => match with_locations() {
                    Verdict::Pass(_) => {
                        read_back_differs.push(name.clone());
                        Verdict::Pass(" (as jaxlib prints)")
                    }
                    other => other,
                },
                other => other,
            };
            // Then the bytes: the text must be jaxlib's own, as stablehlo-translate prints it.
            match (verdict, printed_as_jaxlib) {
                (Verdict::Pass(how), false) => match compare(
                    out("ours.mlir"),
                    &out("jax_printed.mlir"),
                    "deserialize text (against jaxlib's print)",
                ) {
                    Verdict::Skip(_) => Verdict::Pass(how),
                    other => other,
                },
                (verdict, _) => verdict,
            }
        });
        let retarget = re.unwrap_or_else(|| {
            compare(
                out("retarget.jax.mlir"),
                &out("jax_deserialized_loc.mlir"),
                "retarget",
            )
        });
        if let (Ok(a), Ok(b)) = (
            std::fs::read(format!("{base}.serialize.bc")),
            std::fs::read(format!("{base}.jax_serialize.bc")),
        ) {
            if a == b {
                same_as_jaxlib_serialize += 1;
            } else if std::fs::read_to_string(format!("{base}.mlir"))
                .is_ok_and(|t| t.contains("stablehlo.custom_call"))
            {
                // StableHLO 1.20.0 (ours) legalizes custom_call to custom_call_v2 and rewrites it to
                // v1 for targets before 1.18.0, leaving a use-list record; jaxlib's 1.17.0 goes
                // straight to v1 (tests/tests/oracle/jax_differential.rs, EXPECTED_DIFFERENCES).
                custom_call_rewrite.push(name.clone());
            } else {
                unexplained.push(name.clone());
            }
        }
        let serialize = se.unwrap_or_else(|| {
            let ours = out("serialize.jax.mlir");
            match compare(ours.clone(), &out("jax_text.mlir"), "serialize") {
                // Where jaxlib's own serialization at that version does not read back to its parse
                // of the text either (an old target drops something), we must read back as it does.
                Verdict::Fail(why) => match (ours, out("jax_serialize.mlir")) {
                    (Ok(a), Ok(b)) if a == b => {
                        as_jaxlib.push(format!(
                            "{name}: jaxlib's own serialization reads back the same way; {why}"
                        ));
                        Verdict::Pass(" (as jaxlib)")
                    }
                    _ => Verdict::Fail(why),
                },
                other => other,
            }
        });
        rows.push(Row {
            name: name.clone(),
            producer: producer.clone(),
            deserialize,
            retarget,
            serialize,
        });
    }

    // The table, the failures, and the summary.
    let mut report = String::from("case | producer | deserialize | retarget | serialize\n");
    for r in &rows {
        report.push_str(&format!(
            "{} | {} | {} | {} | {}\n",
            r.name,
            r.producer,
            r.deserialize.cell(),
            r.retarget.cell(),
            r.serialize.cell()
        ));
    }
    let mut failures = Vec::new();
    let mut skips = Vec::new();
    for r in &rows {
        for v in [&r.deserialize, &r.retarget, &r.serialize] {
            match v {
                Verdict::Fail(e) => failures.push(format!("{}: {e}", r.name)),
                Verdict::Skip(e) => skips.push(format!("{}: {e}", r.name)),
                Verdict::Pass(_) => {}
            }
        }
    }
    let count = |f: fn(&Row) -> &Verdict| {
        let passed = rows
            .iter()
            .filter(|r| matches!(f(r), Verdict::Pass(_)))
            .count();
        let skipped = rows
            .iter()
            .filter(|r| matches!(f(r), Verdict::Skip(_)))
            .count();
        format!("{passed}/{} passed, {skipped} not applicable", rows.len())
    };
    let retargeted = rows
        .iter()
        .filter(|r| matches!(r.retarget, Verdict::Pass(_)))
        .count();
    report.push_str(&format!(
        "\ndeserialize: {}\nretarget:    {}\nserialize:   {}\n",
        count(|r| &r.deserialize),
        count(|r| &r.retarget),
        count(|r| &r.serialize)
    ));
    report.push_str(&format!(
        "deserialize text byte-identical to jaxlib's print of the artifact: {printed_identical} of {}\n",
        rows.len()
    ));
    if !read_back_differs.is_empty() {
        report.push_str(&format!(
            "  of which jaxlib reads back less than it deserializes, from its own text as from ours: {}\n",
            read_back_differs.join(", ")
        ));
    }
    report.push_str(&format!("retarget byte-identical to JAX's artifact: {byte_identical} (of {retargeted} read back the same)\n"));
    // Why the others differ, found by looking at them: two Pallas artifacts
    // store a true i1 splat as 0xFF, which MLIR reads as true and we write as 0x01; in five 2023
    // dynamic-shape artifacts some ops refer to attribute entry 2 where ours refer to entry 3, in
    // an identical table whose two entries read back equal (jaxlib reads both to the same VHLO
    // and StableHLO, locations included).
    for (why, names) in &differ_why {
        report.push_str(&format!(
            "  differ first in the {why}: {} ({})\n",
            names.len(),
            names.join(", ")
        ));
    }
    // JAX's artifacts were written by the libStablehlo of their day from JAX's in-memory module,
    // not from its text: string and attribute tables follow that module's history.
    report.push_str(&format!(
        "serialized text byte-identical to JAX's artifact: {serialized_identical}\n"
    ));
    report.push_str(&format!(
        "serialized text byte-identical to jaxlib's own serialization of it (same version, same locations): {same_as_jaxlib_serialize}\n"
    ));
    report.push_str(&format!(
        "  the others: {} with a custom_call (1.20.0's v2 -> v1 rewrite record), {} otherwise{}\n",
        custom_call_rewrite.len(),
        unexplained.len(),
        if unexplained.is_empty() {
            String::new()
        } else {
            format!(" ({})", unexplained.join(", "))
        }
    ));
    for (why, names) in &serialize_differ {
        report.push_str(&format!(
            "  differ from JAX's first in the {why}: {}\n",
            names.len()
        ));
    }
    if !as_jaxlib.is_empty() {
        report.push_str("\nserialized as jaxlib serializes, not as it parses the text:\n");
        for s in &as_jaxlib {
            report.push_str(&format!("  {s}\n"));
        }
    }
    if !skips.is_empty() {
        report.push_str("\nnot applicable:\n");
        for s in &skips {
            report.push_str(&format!("  {s}\n"));
        }
    }
    let sdy = failures.iter().filter(|f| f.contains("sdy")).count();
    if !failures.is_empty() {
        report.push_str(&format!(
            "\n{} failure(s), {sdy} mentioning sdy:\n",
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
        "{} failure(s); see the table above and {}",
        failures.len(),
        dir.join("report.txt").display()
    );
}
