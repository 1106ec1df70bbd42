//! Parses a StableHLO program, finds its minimum version and writes it for that version.

use vhlo_core::{convert, portable, text};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let m = text::parse(
        "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n",
    )?;
    let minimum = convert::minimum_version(&m)?;
    let artifact = portable::serialize_portable_artifact(&m, &minimum.to_string(), Default::default())?;
    println!("minimum version {minimum}, artifact of {} bytes", artifact.len());
    Ok(())
}
