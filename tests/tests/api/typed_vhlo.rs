//! The typed VHLO types and attributes generated from the spec (`vhlo::types`, `vhlo::attrs`):
//! every VHLO type and attribute of the compatibility suite's artifacts reads through its
//! typed struct and builds back to itself.

use vhlo_core::ir::{Attribute, Type};
use vhlo_core::vhlo::{VhloAttr, VhloType};
use vhlo_tests::portable;

#[test]
fn every_vhlo_type_and_attribute_of_the_suite_reads_and_builds_back() {
    let Some(dir) = vhlo_tests::compat_suite() else {
        return;
    };
    let mut types_seen = std::collections::BTreeSet::new();
    let mut attrs_seen = std::collections::BTreeSet::new();
    let mut checked = 0usize;
    let mut failures = Vec::new();
    {
        let valid = vhlo_tests::valid_suite_artifacts(&dir);
        for path in valid {
            let bytes = std::fs::read(&path).expect("read an artifact");
            let (mut m, _) = portable::read_vhlo(&bytes).expect("the suite's artifacts read");
            let (types, attrs, _) = m.num_interned();
            for i in 0..types as u32 {
                let t = Type(i);
                let Some(kind) = VhloType::of(&m, t) else {
                    continue;
                };
                types_seen.insert(kind);
                checked += 1;
                if VhloType::rebuilt(&mut m, t) != Some(t) {
                    failures.push(format!("{}: type {} ({kind:?})", path.display(), i));
                }
            }
            for i in 0..attrs as u32 {
                let a = Attribute(i);
                let Some(kind) = VhloAttr::of(&m, a) else {
                    continue;
                };
                attrs_seen.insert(kind);
                checked += 1;
                if VhloAttr::rebuilt(&mut m, a) != Some(a) {
                    failures.push(format!("{}: attribute {} ({kind:?})", path.display(), i));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "not rebuilt to themselves:\n{}",
        failures.join("\n")
    );
    println!(
        "typed VHLO: {checked} types and attributes checked; {} of {} type kinds and {} of {} attribute kinds seen",
        types_seen.len(),
        VhloType::ALL.len(),
        attrs_seen.len(),
        VhloAttr::ALL.len()
    );
    // The suite holds programs of every release: the common kinds must all be there.
    for k in [VhloType::TensorV1, VhloType::FuncV1, VhloType::F32V1] {
        assert!(types_seen.contains(&k), "{k:?} not seen in the suite");
    }
    for k in [VhloAttr::TensorV1, VhloAttr::StringV1, VhloAttr::ArrayV1] {
        assert!(attrs_seen.contains(&k), "{k:?} not seen in the suite");
    }
}

#[test]
fn a_malformed_vhlo_attribute_is_not_read() {
    let mut m = vhlo_core::ir::Module::new();
    // `#vhlo.string_v1` with a type where the spec has a string.
    let t = vhlo_core::vhlo::types::F32V1.build(&mut m);
    let a = m.dialect_attr("vhlo", "string_v1", vec![vhlo_core::ir::Param::Type(t)]);
    assert_eq!(VhloAttr::of(&m, a), Some(VhloAttr::StringV1));
    assert!(vhlo_core::vhlo::attrs::StringV1::read(&m, a).is_none());
    assert_eq!(VhloAttr::rebuilt(&mut m, a), None);
}
