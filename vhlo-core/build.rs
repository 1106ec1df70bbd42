// Rebuild when any spec file changes or is added: the proc-macro tracks the files it read with
// include_bytes!, and this catches new files in the spec directory.
fn main() {
    println!("cargo:rerun-if-changed=../spec");
}
