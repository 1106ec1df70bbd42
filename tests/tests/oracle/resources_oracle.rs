//! Live comparison with libStablehlo (jaxlib) of `dense_resource` blobs and discardable
//! attributes of other dialects. For every program of the corpus, at jaxlib's
//! minimum and current targets, with and without `allow_other_dialects`:
//! - our print of the program is jaxlib's print (the `{-# dialect_resources #-}` block included);
//! - we serialize exactly when jaxlib's `serialize_portable_artifact` does, and then write the
//!   same bytes;
//! - jaxlib reads our artifact exactly when it reads its own, to the same program;
//! - we read jaxlib's artifact to the program jaxlib reads from it.
//!
//! jaxlib renames a resource whose key its context has seen (`blob` becomes `blob_1`), so each
//! step runs in a fresh MLIR context. Needs the oracle (scripts/oracle/setup.sh): skipped without
//! it, a failure under CI (`vhlo_tests::oracle_python`).

use std::path::{Path, PathBuf};
use std::process::Command;

use vhlo_core::text::{self, PrintOptions};

/// Runs each step of each case in a fresh context; see the module comment for the files.
const DRIVER: &str = r#"
import os, sys
sys.path.insert(0, sys.argv[1])
import oracle as O
work, mode = sys.argv[2], sys.argv[3]
base = O.Oracle()
if mode == "versions":
    print(base.minimum_version(), base.current_version())
    sys.exit(0)
def fresh():
    o = O.Oracle.__new__(O.Oracle)
    o.jax_mlir, o.ir, o.passmanager, o.stablehlo = base.jax_mlir, base.ir, base.passmanager, base.stablehlo
    o.context = o.jax_mlir.make_ir_context()
    o.diagnostics = []
    o._diagnostic_handler = o.context.attach_diagnostic_handler(o._on_diagnostic)
    return o
def error(o, e):
    return "\n".join(d.formatted() for d in o.take_diagnostics(e)) or str(e) or type(e).__name__
def put(name, data):
    with open(os.path.join(work, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
for line in open(os.path.join(work, "cases.txt")):
    case, target, allow = line.split()
    src = open(os.path.join(work, case + ".mlir")).read()
    stem = f"{case}.{target}.{allow}"
    o = fresh()
    with o.context:
        try:
            put(case + ".print", o.ir.Module.parse(src).operation.get_asm())
        except Exception as e:
            put(case + ".print.err", error(o, e))
            continue
    o = fresh()
    with o.context:
        m = o.ir.Module.parse(src)
        o.strip_debuginfo(m)
        try:
            put(stem + ".jax.bc", bytes(o.stablehlo.serialize_portable_artifact(m, target, allow == "1")))
        except Exception as e:
            put(stem + ".jax.err", error(o, e))
    for who in ("jax", "ours"):
        path = os.path.join(work, f"{stem}.{who}.bc")
        if not os.path.exists(path):
            continue
        o = fresh()
        with o.context:
            try:
                d = o.stablehlo.deserialize_portable_artifact(o.context, open(path, "rb").read())
                put(f"{stem}.{who}.deser", d.operation.get_asm())
            except Exception as e:
                put(f"{stem}.{who}.deser.err", error(o, e))
"#;

const RESOURCES: &str = "{-#\n  dialect_resources: {\n    builtin: {\n      %s\n    }\n  }\n#-}\n";

fn with_resources(program: &str, entries: &str) -> String {
    format!("{program}{}", RESOURCES.replace("%s", entries))
}

fn constant(value: &str, ty: &str) -> String {
    format!("func.func @main() -> {ty} {{\n  %0 = stablehlo.constant {value} : {ty}\n  return %0 : {ty}\n}}\n")
}

fn on_func(attrs: &str) -> String {
    format!("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> attributes {{{attrs}}} {{\n  return %a : tensor<2xf32>\n}}\n")
}

/// The corpus: (name, program).
fn corpus() -> Vec<(&'static str, String)> {
    let blob = "\"0x040000000000803F00000040\"";
    let two = "func.func @main() -> (tensor<5xi8>, tensor<2xf32>) {\n  %0 = stablehlo.constant dense_resource<a> : tensor<5xi8>\n  %1 = stablehlo.constant dense_resource<b> : tensor<2xf32>\n  return %0, %1 : tensor<5xi8>, tensor<2xf32>\n}\n";
    let shared = "func.func @main() -> (tensor<2xf32>, tensor<2xf32>) {\n  %0 = stablehlo.constant dense_resource<__elided__> : tensor<2xf32>\n  %1 = stablehlo.constant dense_resource<b> : tensor<2xf32>\n  %2 = stablehlo.constant dense_resource<b> : tensor<2xf32>\n  %3 = stablehlo.add %1, %2 : tensor<2xf32>\n  return %0, %3 : tensor<2xf32>, tensor<2xf32>\n}\n";
    let weights = format!("\"0x10000000{}\"", "0000803F".repeat(2048));
    vec![
        ("blob", with_resources(&constant("dense_resource<blob1>", "tensor<2xf32>"), &format!("blob1: {blob}"))),
        ("elided", constant("dense_resource<__elided__>", "tensor<2xf32>")),
        ("declared", constant("dense_resource<nodata>", "tensor<2xf32>")),
        ("two_alignments", with_resources(two, &format!("a: \"0x010000000102030405\",\n      b: {blob}"))),
        // jaxlib's reader needs its buffer aligned to 64, which Python bytes are not: neither
        // reads the artifact back, and both say why.
        ("aligned_64", with_resources(two, &format!("a: \"0x400000000102030405\",\n      b: {blob}"))),
        ("declared_and_shared", with_resources(shared, &format!("b: {blob}"))),
        ("quoted_key", with_resources(&constant("dense_resource<\"my key\">", "tensor<2xf32>"), &format!("\"my key\": {blob}"))),
        ("weights", with_resources(&constant("dense_resource<w>", "tensor<2048xf32>"), &format!("w: {weights}"))),
        ("unused_blob", with_resources(&constant("dense<1.0>", "tensor<2xf32>"), &format!("u: {blob}"))),
        ("resource_on_func", with_resources(&on_func("foo.r = dense_resource<w> : tensor<2xf32>"), &format!("w: {blob}"))),
        ("unit_on_func", on_func("_from_xla_call_module")),
        ("unit_dotted", on_func("foo.bar")),
        ("unit_in_dict", on_func("foo.d = {a, b = 1 : i32}")),
        ("unit_in_array", on_func("foo.d = [unit, 1 : i32]")),
        ("affine_map", on_func("foo.m = affine_map<(d0) -> (d0)>")),
        ("unregistered_attr", on_func("foo.x = #foo.baz<\"x\", 1>")),
        ("sdy_attr", "module @m attributes {mhlo.frontend_attributes = {xla.sdy.meshes = \"{}\"}} {\n  sdy.mesh @mesh = <[\"x\"=2]>\n  func.func @main(%a: tensor<2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}]>}) -> tensor<2xf32> {\n    return %a : tensor<2xf32>\n  }\n}\n".to_string()),
        ("unit_on_op", "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %a {foo.bar} : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n".to_string()),
        ("unit_on_arg", "func.func @main(%a: tensor<2xf32> {foo.x}) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n".to_string()),
        ("unit_on_module", "module attributes {foo.m} {\n  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n    return %a : tensor<2xf32>\n  }\n}\n".to_string()),
    ]
}

fn read(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

fn read_text(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn run_driver(python: &Path, work: &Path, mode: &str) -> String {
    let oracle_dir = vhlo_tests::workspace_root().join("scripts/oracle");
    let out = Command::new(python)
        .arg("-c")
        .arg(DRIVER)
        .arg(&oracle_dir)
        .arg(work)
        .arg(mode)
        .output()
        .expect("the oracle runs");
    assert!(
        out.status.success(),
        "oracle driver failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("resources_oracle");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn resources_and_discardable_attributes_as_libstablehlo() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let work = scratch();
    let versions = run_driver(&python, &work, "versions");
    let targets: Vec<String> = versions.split_whitespace().map(String::from).collect();
    assert_eq!(targets.len(), 2, "oracle versions: {versions}");

    let cases = corpus();
    let mut list = String::new();
    for (name, src) in &cases {
        std::fs::write(work.join(format!("{name}.mlir")), src).unwrap();
        let parsed = text::parse(src);
        for target in &targets {
            for allow in [false, true] {
                let stem = format!("{name}.{target}.{}", u8::from(allow));
                list.push_str(&format!("{name} {target} {}\n", u8::from(allow)));
                let opts = vhlo_tests::portable::SerializeOptions {
                    strip_debuginfo: true,
                    allow_other_dialects: allow,
                    ..Default::default()
                };
                let written = match &parsed {
                    // unchecked: compared with jaxlib's outcome below, refusals included.
                    Ok(m) => vhlo_core::portable::serialize_portable_artifact(m, target, opts)
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                match written {
                    Ok(bytes) => std::fs::write(work.join(format!("{stem}.ours.bc")), bytes),
                    Err(e) => std::fs::write(work.join(format!("{stem}.ours.err")), e),
                }
                .unwrap();
            }
        }
    }
    std::fs::write(work.join("cases.txt"), list).unwrap();
    run_driver(&python, &work, "run");

    let mut failures = Vec::new();
    let (mut same_bytes, mut both_refuse, mut printed) = (0, 0, 0);
    for (name, src) in &cases {
        let jax_print = read_text(&work.join(format!("{name}.print")));
        match (&jax_print, text::parse(src)) {
            (Some(theirs), Ok(m)) => {
                let ours = text::print(&m, PrintOptions::default());
                if &ours == theirs {
                    printed += 1;
                } else {
                    failures.push(format!(
                        "{name}: print differs\n  jaxlib:\n{theirs}\n  ours:\n{ours}"
                    ));
                }
            }
            (Some(_), Err(e)) => failures.push(format!("{name}: jaxlib parses, we refuse: {e}")),
            // jaxlib refuses the text; we may parse it, but must write nothing (checked below).
            (None, _) => {}
        }
        for target in &targets {
            for allow in ["0", "1"] {
                let stem = format!("{name}.{target}.{allow}");
                let label = format!("{name} at {target}, allow_other_dialects={allow}");
                let file = |suffix: &str| work.join(format!("{stem}.{suffix}"));
                let ours = read(&file("ours.bc"));
                let theirs = read(&file("jax.bc"));
                match (&ours, &theirs) {
                    (Some(a), Some(b)) if a == b => same_bytes += 1,
                    (Some(a), Some(b)) => failures.push(format!(
                        "{label}: bytes differ ({} vs jaxlib's {})",
                        a.len(),
                        b.len()
                    )),
                    (None, None) => both_refuse += 1,
                    (Some(_), None) => failures.push(format!(
                        "{label}: we write, jaxlib refuses: {}",
                        read_text(&file("jax.err"))
                            .or_else(|| read_text(&work.join(format!("{name}.print.err"))))
                            .unwrap_or_default()
                    )),
                    (None, Some(_)) => failures.push(format!(
                        "{label}: jaxlib writes, we refuse: {}",
                        read_text(&file("ours.err")).unwrap_or_default()
                    )),
                }
                if ours.is_some() {
                    // jaxlib reads ours as it reads its own (both fail the same way when its
                    // buffer is not aligned enough).
                    let ours_back = read_text(&file("ours.deser"));
                    let own_back = read_text(&file("jax.deser"));
                    if theirs.is_some() && ours_back != own_back {
                        failures.push(format!(
                            "{label}: jaxlib reads our artifact as {:?}, its own as {:?}; error {:?}",
                            ours_back,
                            own_back,
                            read_text(&file("ours.deser.err"))
                        ));
                    }
                }
                if let (Some(bytes), Some(expected)) = (&theirs, read_text(&file("jax.deser"))) {
                    // We read jaxlib's artifact to the program jaxlib reads from it.
                    match vhlo_core::portable::deserialize_portable_artifact(bytes) {
                        Ok(m) => {
                            let ours = text::print(&m, PrintOptions::default());
                            if ours != expected {
                                failures.push(format!(
                                    "{label}: our read of jaxlib's artifact prints\n{ours}\n  jaxlib's:\n{expected}"
                                ));
                            }
                        }
                        Err(e) => {
                            failures.push(format!("{label}: we cannot read jaxlib's artifact: {e}"))
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "{} programs x {} targets x 2: {same_bytes} byte-identical artifacts, {both_refuse} refused by both, {printed} prints equal to jaxlib's",
        cases.len(),
        targets.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(same_bytes > 0 && both_refuse > 0);
}
