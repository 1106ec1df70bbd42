//! Every op version boundary of the real spec, converted both ways, plus the refusals.
//!
//! For each `X_vN -> X_vN+1` boundary a generic `X_vN` op is built from the registry's shape
//! (one value per operand/result group, a placeholder attribute per attribute), upgraded and
//! downgraded again. The completeness test fails when a boundary in the spec was not converted.

use std::collections::BTreeSet;

use vhlo_core::dialect::support;
use vhlo_core::ir::{Module, OpId};
use vhlo_core::version::Version;
use vhlo_core::vhlo::{self, VhloOp};

/// Builds a detached `kind` op with `per_group` values in each variadic operand/result group.
fn build(m: &mut Module, kind: VhloOp, per_group: usize) -> OpId {
    let f32 = support::vhlo_type(m, "f32_v1");
    let t = support::vhlo_type_with(
        m,
        "tensor_v1",
        vec![
            vhlo_core::ir::Param::Ints(vec![2, 3].into()),
            vhlo_core::ir::Param::Type(f32),
            vhlo_core::ir::Param::Absent,
        ],
    );
    let count = |groups: &[(&str, bool)]| {
        groups
            .iter()
            .map(|(_, v)| if *v { per_group } else { 1 })
            .sum::<usize>()
    };
    let n_operands = count(kind.operand_groups());
    let region = m.create_region();
    let block = m.append_block(region, &vec![t; n_operands]);
    let operands = m.block_args(block).to_vec();
    let results = vec![t; count(kind.result_groups())];
    let mut regions = Vec::new();
    for (_, variadic) in kind.region_groups() {
        if !variadic {
            regions.push(m.create_region());
        }
    }
    let placeholder = support::vhlo_i64(m, 7);
    let props: Vec<(&str, _)> = kind
        .attribute_names()
        .iter()
        .map(|n| (*n, placeholder))
        .collect();
    let loc = m.unknown_loc();
    let op = vhlo_core::dialect::create_op(m, kind.name(), operands, results, &props, regions, loc);
    m.append_op(block, op);
    op
}

fn prop_names(m: &Module, op: OpId) -> BTreeSet<String> {
    m.properties(op)
        .iter()
        .map(|a| m.str(a.name).to_string())
        .collect()
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn every_boundary_converts_both_ways() {
    let mut converted = BTreeSet::new();
    for &old in VhloOp::ALL {
        let Some(new) = old.next() else { continue };
        let mut m = Module::new();
        let op = build(&mut m, old, 1);
        let before: Vec<_> = m.properties(op).to_vec();
        assert_eq!(
            vhlo::upgrade_one(&mut m, op).unwrap_or_else(|e| panic!("{e}")),
            Some(new),
            "{old:?}"
        );
        assert_eq!(m.op_name_str(op), new.name());
        assert_eq!(
            prop_names(&m, op),
            names(new.attribute_names()),
            "{new:?} attributes after upgrade"
        );
        // Upgrades insert defaults, which downgrade accepts.
        assert_eq!(
            vhlo::downgrade_one(&mut m, op).unwrap_or_else(|e| panic!("{e}")),
            Some(old),
            "{new:?}"
        );
        assert_eq!(m.op_name_str(op), old.name());
        assert_eq!(
            prop_names(&m, op),
            names(old.attribute_names()),
            "{old:?} attributes after downgrade"
        );
        // Attributes the step did not touch keep their values.
        for a in &before {
            if let Some(v) = m.property(op, m.str(a.name)) {
                if old.family() != "dynamic_conv" {
                    assert_eq!(v, a.value, "{old:?}: `{}` changed", m.str(a.name));
                }
            }
        }
        converted.insert((old.mnemonic(), new.mnemonic()));
    }
    // Completeness: the boundaries converted are exactly the spec's.
    let spec = codegen::load_spec(&vhlo_tests::workspace_root().join("spec"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut expected = BTreeSet::new();
    for fam in &spec.ops {
        for w in fam.versions.windows(2) {
            expected.insert((w[0].mnemonic.clone(), w[1].mnemonic.clone()));
        }
    }
    let converted: BTreeSet<(String, String)> = converted
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(converted, expected);
    // An upstream fact about a cut release, which a later release adds to and never changes.
    let v1_20 = codegen::model::Version::parse("1.20.0").expect("version");
    let up_to_1_20 = spec
        .ops
        .iter()
        .flat_map(|fam| fam.versions.windows(2))
        .filter(|w| w[1].since <= v1_20)
        .count();
    assert_eq!(
        up_to_1_20, 25,
        "StableHLO 1.20.0 has 25 op version boundaries"
    );
}

#[test]
fn downgrade_refuses_non_default_attributes() {
    // Every add_attribute boundary: a placeholder (integer 7) is never the default.
    let mut refused = BTreeSet::new();
    for &new in VhloOp::ALL {
        let Some(old) = new.previous() else { continue };
        let added: Vec<&str> = new
            .attribute_names()
            .iter()
            .filter(|n| !old.attribute_names().contains(n))
            .copied()
            .collect();
        if added.is_empty() {
            continue;
        }
        let mut m = Module::new();
        let op = build(&mut m, new, 1);
        let err =
            vhlo::downgrade_one(&mut m, op).expect_err("a non-default value blocks the downgrade");
        assert_eq!(err.op_name, new.name());
        assert_eq!(err.needs, new.range().min, "{new:?}");
        assert!(added.iter().any(|a| err.subject.contains(a)), "{err}");
        assert_eq!(
            m.op_name_str(op),
            new.name(),
            "a refused step leaves the op unchanged"
        );
        refused.insert(new.mnemonic().to_string());
    }
    // The refusals are exactly the spec's op versions that add an attribute.
    let spec = codegen::load_spec(&vhlo_tests::workspace_root().join("spec"))
        .unwrap_or_else(|e| panic!("{e}"));
    let adding: BTreeSet<String> = spec
        .op_versions()
        .filter(|v| {
            v.changes
                .iter()
                .any(|c| matches!(c, codegen::model::ChangeRule::AddAttribute { .. }))
        })
        .map(|v| v.mnemonic.clone())
        .collect();
    assert_eq!(refused, adding);
    // Up to the cut release 1.20.0: 12 result_accuracy ops, collective_broadcast, custom_call,
    // dot_general, gather, dynamic_gather, scatter, send, recv.
    let v1_20 = codegen::model::Version::parse("1.20.0").expect("version");
    let up_to_1_20 = spec
        .op_versions()
        .filter(|v| adding.contains(&v.mnemonic) && v.since <= v1_20)
        .count();
    assert_eq!(up_to_1_20, 20);
}

#[test]
fn downgrade_refuses_several_operands_for_variadic_collectives() {
    for kind in [VhloOp::AllGatherV2, VhloOp::AllReduceV2, VhloOp::AllToAllV2] {
        let mut m = Module::new();
        let op = build(&mut m, kind, 2);
        let err = vhlo::downgrade_one(&mut m, op).expect_err("two operands have no v1 form");
        assert_eq!(err.needs, Version::new(1, 5, 0));
        assert!(err.to_string().contains("2 operands"), "{err}");
        // One operand converts.
        let mut m = Module::new();
        let op = build(&mut m, kind, 1);
        assert_eq!(
            vhlo::downgrade_one(&mut m, op).expect("single operand"),
            kind.previous()
        );
    }
}

#[test]
fn dynamic_conv_downgrade_computes_padding_from_the_lhs_rank() {
    let mut m = Module::new();
    let op = build(&mut m, VhloOp::DynamicConvV2, 1);
    assert_eq!(
        vhlo::downgrade_one(&mut m, op).expect("ranked lhs"),
        Some(VhloOp::DynamicConvV1)
    );
    let padding = m.property(op, "padding").expect("padding inserted");
    // lhs is tensor<2x3xf32>: rank 2, so padding is tensor<0x2xi64>.
    let expected = support::vhlo_int_tensor(&mut m, "i64_v1", &[0, 2], &[]);
    assert_eq!(padding, expected);
}

#[test]
fn features_need_later_releases() {
    let mut m = Module::new();
    let op = build(&mut m, VhloOp::CustomCallV1, 1);
    let dict = support::vhlo_attr(
        &mut m,
        "dict_v1",
        vec![vhlo_core::ir::Param::AttrPairs(Vec::new().into())],
    );
    support::set_property(&mut m, op, "backend_config", dict);
    let uses = vhlo::feature_uses(&m, op, Version::new(1, 2, 0));
    assert_eq!(uses.len(), 1);
    assert_eq!(uses[0].needs, Version::new(1, 3, 0));
    assert!(vhlo::feature_uses(&m, op, Version::new(1, 3, 0)).is_empty());
}

#[test]
fn registry_and_map() {
    // Counts come from the spec, so a release is a spec edit with no test to edit.
    let spec = codegen::load_spec(&vhlo_tests::workspace_root().join("spec"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(VhloOp::ALL.len(), spec.op_versions().count());
    assert_eq!(vhlo::StablehloOp::ALL.len(), spec.ops.len());
    assert_eq!(vhlo::VhloType::ALL.len(), spec.types.len());
    assert_eq!(vhlo::VhloAttr::ALL.len(), spec.attrs.len());
    assert_eq!(vhlo::VhloEnum::ALL.len(), spec.enums.len());
    assert_eq!(vhlo::RELEASES.len(), spec.releases.len());
    assert_eq!(
        vhlo::CURRENT_VERSION.to_string(),
        spec.current().to_string()
    );
    // VHLO starts at 0.9.0, and every StableHLO op has at least one VHLO version.
    assert_eq!(vhlo::RELEASES[0].version, Version::new(0, 9, 0));
    assert!(vhlo::StablehloOp::ALL.len() <= VhloOp::ALL.len());
    let ret = vhlo::StablehloOp::from_name("func.return").expect("func.return maps");
    assert_eq!(
        ret,
        vhlo::StablehloOp::from_name("stablehlo.return").expect("stablehlo.return maps")
    );
    assert_eq!(ret.to_vhlo(), VhloOp::ReturnV1);
    assert_eq!(ret.name_under(Some("func")), "func.return");
    assert_eq!(ret.name_under(Some("reduce")), "stablehlo.return");
    assert_eq!(
        vhlo::StablehloOp::from_name("stablehlo.exponential").map(|s| s.to_vhlo()),
        Some(VhloOp::ExponentialV2)
    );
    assert_eq!(
        VhloOp::from_name("vhlo.cross-replica-sum_v1").map(|k| k.family()),
        Some("cross-replica-sum")
    );
    assert_eq!(
        vhlo::VhloType::from_code(21),
        Some(vhlo::VhloType::TensorV1)
    );
    assert_eq!(vhlo::VhloType::TensorV1.code_with_encoding(), Some(21));
    assert_eq!(
        vhlo::VhloEnum::from_code(19).map(|e| e.mnemonic()),
        Some("result_accuracy_mode_v1")
    );
    assert_eq!(
        vhlo::ComparisonDirectionV1::from_name("GT").map(|c| c.value()),
        Some(3)
    );
    assert!(!vhlo::VhloType::F8E4M3V1.is_legal_in(Version::new(1, 6, 0)));
    assert!(vhlo::VhloType::F8E4M3V1.is_legal_in(Version::new(1, 7, 0)));
    for &k in VhloOp::ALL {
        assert_eq!(VhloOp::from_name(k.name()), Some(k));
        assert!(k.range().min <= k.range().max);
    }
}
