//! The text parser recurses on the caller's stack when it cannot start a thread (wasm32):
//! docs/bytecode.md ("Limits") asks for 4 MiB there; wasm32's default is 1 MiB.

fn main() {
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if arch == "wasm32" {
        println!("cargo:rustc-link-arg-cdylib=-zstack-size=8388608");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
