//! `--strict` on the command line: --serialize, --deserialize and --retarget refuse a loss
//! (exit 1, naming the op, its location and the version) and do as before without it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

// The tests crate's checked writers (`tests/src/checked.rs`): what a run or a call writes is read
// back with verification on.
#[allow(dead_code, unused_imports)]
#[path = "../../tests/src/checked.rs"]
mod checked;

const PROGRAM: &str = r#"func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<f32> loc("a.py":3:4 to :8)
  return %0 : tensor<f32>
}
"#;

fn run(args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_vhlo-translate"))
        .args(args)
        .output()
        .expect("runs vhlo-translate");
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
            std::env::temp_dir().join(format!("vhlo-strict-cli-{name}-{}", std::process::id()));
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

fn path(p: &str) -> &Path {
    Path::new(p)
}

#[test]
fn strict_refuses_losses_on_serialize_deserialize_and_retarget() {
    let dir = TempDir::new("all");
    let src = dir.file("in.mlir");
    std::fs::write(&src, PROGRAM).expect("write source");

    // --serialize: a location range that 1.8.0 readers cannot read.
    let old = dir.file("old.mlir.bc");
    let o = run(&[
        "--serialize",
        &src,
        "--target=1.8.0",
        "--strict",
        "-o",
        &old,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("stablehlo.add")
            && e.contains("FileLineColRange")
            && e.contains("1.8.0")
            && e.contains("a.py"),
        "{e}"
    );
    assert!(!path(&old).exists(), "nothing written on refusal");
    let o = run(&["--serialize", &src, "--target=1.8.0", "-o", &old]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&[
        "--serialize",
        &src,
        "--target=1.8.0",
        "--strict",
        "--strip-debuginfo",
        "-o",
        &dir.file("stripped.mlir.bc"),
    ]);
    assert!(
        o.status.success(),
        "stripping is an explicit request: {}",
        stderr(&o)
    );

    // --deserialize: printing without debug info would leave the locations out.
    let new = dir.file("new.mlir.bc");
    let o = run(&[
        "--serialize",
        &src,
        "--target=1.9.0",
        "--strict",
        "-o",
        &new,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = run(&["--deserialize", &new, "--strict"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--mlir-print-debuginfo") && stderr(&o).contains("stablehlo.add"),
        "{}",
        stderr(&o)
    );
    let o = run(&["--deserialize", &new, "--strict", "--mlir-print-debuginfo"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("a.py"),
        "locations printed"
    );
    assert!(run(&["--deserialize", &new]).status.success());

    // --retarget: the 1.9.0 artifact down to 1.8.0 would carry the range to readers that cannot read it.
    let o = run(&[
        "--retarget",
        &new,
        "--target=1.8.0",
        "--strict",
        "-o",
        &dir.file("re.mlir.bc"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("vhlo.add") && e.contains("FileLineColRange") && e.contains("1.8.0"),
        "{e}"
    );
    let o = run(&[
        "--retarget",
        &new,
        "--target=1.8.0",
        "-o",
        &dir.file("re.mlir.bc"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));

    // JSON errors carry the same diagnostics.
    let o = run(&[
        "--serialize",
        &src,
        "--target=1.8.0",
        "--strict",
        "--json",
        "-o",
        &old,
    ]);
    assert!(
        stderr(&o).contains("\"subject\":\"a FileLineColRange location\""),
        "{}",
        stderr(&o)
    );
}

/// MLIR's compact reduce (`applies stablehlo.add`) and pretty while
/// (`while(%iterArg = %x)`) print no locations for their body or region arguments, even with
/// `--mlir-print-debuginfo`. `--strict` refuses that print, naming the op; the generic form
/// keeps every location and passes; without `--strict` the print is MLIR's.
#[test]
fn strict_refuses_compact_forms_that_drop_inner_locations() {
    const REDUCE: &str = r#"func.func @main(%a: tensor<8xf32>, %i: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.reduce(%a init: %i) across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
   reducer(%x: tensor<f32> loc("inner.py":2:2), %y: tensor<f32> loc("inner.py":2:3)) {
    %s = stablehlo.add %x, %y : tensor<f32> loc("inner.py":3:3)
    stablehlo.return %s : tensor<f32> loc("inner.py":4:4)
  } loc("outer.py":1:1)
  return %0 : tensor<f32>
}
"#;
    const WHILE: &str = r#"func.func @main(%a: tensor<i32>) -> tensor<i32> {
  %0 = "stablehlo.while"(%a) ({
  ^bb0(%x: tensor<i32> loc("argx.py":9:9)):
    %c = stablehlo.compare LT, %x, %x : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%y: tensor<i32> loc("argy.py":8:8)):
    stablehlo.return %y : tensor<i32>
  }) : (tensor<i32>) -> tensor<i32> loc("w.py":3:3)
  return %0 : tensor<i32>
}
"#;
    let dir = TempDir::new("compact");
    for (name, src, op, inner, at) in [
        (
            "reduce",
            REDUCE,
            "stablehlo.reduce",
            "inner.py",
            "outer.py\":1:1",
        ),
        ("while", WHILE, "stablehlo.while", "argx.py", "w.py\":3:3"),
    ] {
        let input = dir.file(&format!("{name}.mlir"));
        std::fs::write(&input, src).expect("write source");
        let bc = dir.file(&format!("{name}.bc"));
        let o = run(&["--serialize", &input, "--target=current", "-o", &bc]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        // MLIR's print drops them, and so does ours without --strict.
        let o = run(&["--deserialize", &bc, "--mlir-print-debuginfo"]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert!(
            !String::from_utf8_lossy(&o.stdout).contains(inner),
            "{name}"
        );
        let o = run(&["--deserialize", &bc, "--mlir-print-debuginfo", "--strict"]);
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(op) && e.contains(at), "{name}: {e}");
        let o = run(&[
            "--deserialize",
            &bc,
            "--mlir-print-debuginfo",
            "--mlir-print-op-generic",
            "--strict",
        ]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains(inner), "{name}");
    }
}
