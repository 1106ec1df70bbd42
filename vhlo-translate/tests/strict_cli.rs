//! `--strict` on the command line: --serialize, --deserialize and --retarget refuse a loss
//! (exit 1, naming the op, its location and the version) and do as before without it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const PROGRAM: &str = r#"func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<f32> loc("a.py":3:4 to :8)
  return %0 : tensor<f32>
}
"#;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_vhlo-translate"))
        .args(args)
        .output()
        .expect("runs vhlo-translate")
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
