//! The `--deserialize` property shared by the pipeline targets: bytes -> read -> upgrade ->
//! legalize to StableHLO -> print (pretty and generic, with locations) -> parse each text again
//! -> the same IR (`ir::structurally_equal`, forgiving what MLIR's text format itself loses;
//! locations only for the generic form, as the pretty forms of some ops, like MLIR's, have no
//! place for block-argument locations). Then serializing the program back at the artifact's own
//! version succeeds or fails with an error value; it never panics. And the program printed with a
//! helper thread (`text::PrintJob::help`) prints as on one thread.
//! The fuzz targets panic on an `Err`; `tests/tests/bytecode/bytecode_mutations.rs` replays the fuzzers'
//! regression inputs through the same function.

use vhlo_core::ir::{structurally_equal, EqualOptions};
use vhlo_core::portable::{self, SerializeOptions};
use vhlo_core::text::{self, PrintOptions};

pub fn check(data: &[u8]) -> Result<(), String> {
    let Ok((mut module, version)) = portable::read_vhlo(data) else {
        return Ok(());
    };
    if vhlo_core::convert::legalize_to_stablehlo(&mut module).is_err() {
        return Ok(());
    }
    // A program the verifier refuses is refused by `--deserialize` (and by its reparse).
    if vhlo_core::verify::verify(&module).is_err() {
        return Ok(());
    }
    for generic in [false, true] {
        let opts = PrintOptions {
            generic,
            debug_info: true,
            ..Default::default()
        };
        let printed = text::print(&module, opts);
        let again = text::parse(&printed).map_err(|e| {
            format!("printed text (generic: {generic}) does not parse: {e}\n{printed}")
        })?;
        let equal = EqualOptions {
            locations: generic,
            text_losses: true,
        };
        if let Err(d) = structurally_equal(&module, &again, equal) {
            // MLIR prints quantization scales with `%e` (7 significant digits), so a scale that
            // needs more comes back rounded: a loss of the text format itself, accepted when
            // that is the only difference (the re-parsed program prints the same text).
            let accepted = d.contains("parameter Float") && text::print(&again, opts) == printed;
            if !accepted {
                return Err(format!(
                    "printed text (generic: {generic}) parses to a different IR: {d}\n{printed}"
                ));
            }
        }
    }
    for generic in [false, true] {
        let opts = PrintOptions {
            generic,
            elide_defaults: true,
            ..Default::default()
        };
        let job = text::PrintJob::new(&module, opts);
        let mut helped = Vec::new();
        std::thread::scope(|s| {
            s.spawn(|| job.help());
            job.print_to(&mut helped)
        })
        .map_err(|e| format!("print with a helper (generic: {generic}): {e}"))?;
        let alone = text::print(&module, opts);
        if helped != alone.as_bytes() {
            return Err(format!(
                "printed with a helper (generic: {generic}), otherwise:\n{}\n---\n{alone}",
                String::from_utf8_lossy(&helped)
            ));
        }
    }
    // Any outcome but a panic is fine: an upgraded program may use what its version lacks.
    let _ = portable::serialize_portable_artifact(
        &module,
        &version.to_string(),
        SerializeOptions::default(),
    );
    Ok(())
}
