//! StableHLO's struct attributes as typed structs (`vhlo::stablehlo_attrs`, from the spec's
//! `stablehlo_structs`): every one in the compatibility suite's programs, read back as
//! StableHLO, reads through its typed struct and builds back to itself.

use vhlo_core::ir::{AttrData, Attribute};
use vhlo_core::vhlo::{stablehlo_attrs, STABLEHLO_STRUCTS};
use vhlo_tests::portable;

#[test]
fn every_stablehlo_struct_attribute_of_the_suite_reads_and_builds_back() {
    let Some(dir) = vhlo_tests::compat_suite() else {
        return;
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut checked = 0usize;
    let mut failures = Vec::new();
    let valid = vhlo_tests::valid_suite_artifacts(&dir);
    for path in valid {
        let bytes = std::fs::read(&path).expect("read an artifact");
        let mut m =
            portable::deserialize_portable_artifact(&bytes).expect("the suite's artifacts read");
        let (_, attrs, _) = m.num_interned();
        for i in 0..attrs as u32 {
            let a = Attribute(i);
            let mnemonic = match m.attr_data(a) {
                AttrData::Dialect(d) if m.str(d.dialect) == "stablehlo" => {
                    m.str(d.mnemonic).to_string()
                }
                _ => continue,
            };
            if !STABLEHLO_STRUCTS.iter().any(|s| s.mnemonic == mnemonic) {
                continue;
            }
            checked += 1;
            if stablehlo_attrs::rebuilt(&mut m, a) != Some(a) {
                failures.push(format!("{}: #stablehlo.{mnemonic} ({i})", path.display()));
            }
            seen.insert(mnemonic);
        }
    }
    assert!(
        failures.is_empty(),
        "not rebuilt to themselves:\n{}",
        failures.join("\n")
    );
    println!(
        "typed StableHLO attributes: {checked} checked; {} of {} struct kinds seen: {seen:?}",
        seen.len(),
        STABLEHLO_STRUCTS.len()
    );
    // The dimension numbers and the other common structs are in every release's programs.
    for k in [
        "dot",
        "gather",
        "scatter",
        "conv",
        "output_operand_alias",
        "channel_handle",
    ] {
        assert!(seen.contains(k), "#stablehlo.{k} not seen in the suite");
    }
}

/// A program built with typed attributes prints as the text spells them, and a struct of
/// another kind is not read as this one.
#[test]
fn typed_struct_attributes_build_what_the_text_spells() {
    let mut m = vhlo_core::ir::Module::new();
    let dot = stablehlo_attrs::DotDimensionNumbers {
        lhs_contracting_dimensions: vec![1],
        rhs_contracting_dimensions: vec![0],
        ..Default::default()
    }
    .build(&mut m);
    assert_eq!(
        vhlo_core::text::attribute_to_string(&m, dot),
        "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>"
    );
    let parsed = vhlo_core::text::parse_attribute(
        &mut m,
        "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>",
    )
    .expect("parses");
    assert_eq!(parsed, dot);
    assert!(stablehlo_attrs::GatherDimensionNumbers::read(&m, dot).is_none());
    let handle = stablehlo_attrs::ChannelHandle {
        handle: 1,
        r#type: 2,
    }
    .build(&mut m);
    assert_eq!(
        vhlo_core::text::attribute_to_string(&m, handle),
        "#stablehlo.channel_handle<handle = 1, type = 2>"
    );
}
