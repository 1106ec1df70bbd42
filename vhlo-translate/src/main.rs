//! vhlo-translate: a drop-in for `stablehlo-translate --serialize/--deserialize`.
//!
//! This first cut answers the version queries; serialization lands with the bytecode writer.

use std::process::ExitCode;

use vhlo_core::vhlo;

const USAGE: &str = "usage: vhlo-translate --print-stablehlo-version | --list-ops [--target X.Y.Z]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--print-stablehlo-version") => {
            println!("Current version: {}", vhlo::CURRENT_VERSION);
            println!("Minimum version: {}", vhlo::MINIMUM_VERSION);
            ExitCode::SUCCESS
        }
        Some("--list-ops") => {
            let target = match args
                .iter()
                .position(|a| a == "--target")
                .and_then(|i| args.get(i + 1))
            {
                None => None,
                Some(t) => match t.parse::<vhlo_core::version::Version>() {
                    Ok(v) if v < vhlo::MINIMUM_VERSION || v > vhlo::CURRENT_VERSION => {
                        eprintln!(
                            "error: target {v} is outside {}..={}",
                            vhlo::MINIMUM_VERSION,
                            vhlo::CURRENT_VERSION
                        );
                        return ExitCode::from(1);
                    }
                    Ok(v) => Some(v),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return ExitCode::from(1);
                    }
                },
            };
            for &op in vhlo::VhloOp::ALL {
                if target.is_none_or(|t| op.is_legal_in(t)) {
                    println!("{}\t{}", op.name(), op.range());
                }
            }
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(1)
        }
    }
}
