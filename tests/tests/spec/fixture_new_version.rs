//! The design card's promise: a new op version with a defaulted attribute is a spec edit only.
//!
//! `tests/fixtures/spec-edited` is `tests/fixtures/spec-base` plus one release and `scale_v2`
//! (which adds `saturate`, default false), and nothing else: `only_yaml_differs` checks that.
//! The rest of this file uses what the generator made from the edited spec.

use vhlo_core::ir::{Module, OpId, TypeData};
use vhlo_core::version::Version;

mod base {
    vhlo_macros::vhlo_dialect!("tests/fixtures/spec-base");
}
mod edited {
    vhlo_macros::vhlo_dialect!("tests/fixtures/spec-edited");
}

use edited::{ScaleOpV1, ScaleOpV2, VhloOp};

#[test]
fn only_yaml_differs() {
    let root = vhlo_tests::workspace_root().join("tests/fixtures");
    let list = |dir: &str| -> Vec<(String, String)> {
        let mut out = Vec::new();
        let base = root.join(dir);
        let mut stack = vec![base.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).expect("read fixture dir") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p.strip_prefix(&base).expect("prefix").display().to_string();
                    out.push((rel, std::fs::read_to_string(&p).expect("read fixture file")));
                }
            }
        }
        out.sort();
        out
    };
    let (a, b) = (list("spec-base"), list("spec-edited"));
    let names = |v: &[(String, String)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "the edit adds or removes no file");
    let changed: Vec<&str> = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x.1 != y.1)
        .map(|(x, _)| x.0.as_str())
        .collect();
    assert_eq!(changed, ["ops/scale.yaml", "releases.yaml"]);
    // The edit only inserts lines: every old line survives, in order (add-only).
    for ((name, old), (_, new)) in a.iter().zip(&b) {
        let mut new_lines = new.lines();
        for line in old.lines() {
            assert!(
                new_lines.any(|l| l == line),
                "{name}: the edit removed or changed `{line}`"
            );
        }
    }
}

#[test]
fn the_new_version_exists_with_its_range() {
    assert_eq!(base::VhloOp::ALL.len(), 3);
    assert_eq!(VhloOp::ALL.len(), 4);
    assert_eq!(edited::CURRENT_VERSION, Version::new(1, 2, 0));
    let v1 = VhloOp::ScaleV1.range();
    let v2 = VhloOp::ScaleV2.range();
    assert_eq!(
        (v1.min, v1.max, v1.open),
        (Version::new(1, 0, 0), Version::new(1, 1, 0), false)
    );
    assert_eq!((v2.min, v2.open), (Version::new(1, 2, 0), true));
    assert!(VhloOp::ScaleV1.is_legal_in(Version::new(1, 1, 0)));
    assert!(!VhloOp::ScaleV1.is_legal_in(Version::new(1, 2, 0)));
    assert!(VhloOp::ScaleV2.is_legal_in(Version::new(1, 2, 3)));
    assert!(!VhloOp::ScaleV2.is_legal_in(Version::new(1, 1, 0)));
    assert_eq!(VhloOp::ScaleV1.next(), Some(VhloOp::ScaleV2));
    assert_eq!(VhloOp::from_name("vhlo.scale_v2"), Some(VhloOp::ScaleV2));
    assert_eq!(VhloOp::ScaleV2.attribute_names(), ["factor", "saturate"]);
    // The base spec's op is open-ended: before the edit, scale_v1 reached current.
    assert!(base::VhloOp::ScaleV1.range().open);
}

fn scale_v2(m: &mut Module, saturate: bool) -> OpId {
    let f32 = vhlo_core::dialect::support::vhlo_type(m, "f32_v1");
    let region = m.create_region();
    let block = m.append_block(region, &[f32]);
    let arg = m.block_args(block)[0];
    let factor = vhlo_core::dialect::support::vhlo_i64(m, 3);
    let saturate = vhlo_core::dialect::support::vhlo_bool(m, saturate);
    let loc = m.unknown_loc();
    let op = ScaleOpV2 {
        operand: arg,
        factor,
        saturate,
        result: f32,
    }
    .build(m, loc);
    m.append_op(block, op);
    op
}

#[test]
fn downgrade_drops_the_default_and_upgrade_restores_it() {
    let mut m = Module::new();
    let op = scale_v2(&mut m, false);
    assert_eq!(
        edited::downgrade_one(&mut m, op).expect("default downgrades"),
        Some(VhloOp::ScaleV1)
    );
    let v1 = ScaleOpV1::from_op(&m, op).expect("now a scale_v1");
    assert!(m.property(op, "saturate").is_none());
    assert!(matches!(m.type_data(v1.result), TypeData::Dialect(_)));
    assert_eq!(
        edited::upgrade_one(&mut m, op).expect("upgrade"),
        Some(VhloOp::ScaleV2)
    );
    let v2 = ScaleOpV2::from_op(&m, op).expect("a scale_v2 again");
    let default = vhlo_core::dialect::support::vhlo_bool(&mut m, false);
    assert_eq!(v2.saturate, default);
    assert_eq!(
        edited::upgrade_one(&mut m, op).expect("no newer version"),
        None
    );
}

#[test]
fn downgrade_refuses_a_non_default_value_and_says_why() {
    let mut m = Module::new();
    let op = scale_v2(&mut m, true);
    let err = edited::downgrade_one(&mut m, op).expect_err("saturate = true has no v1 form");
    assert_eq!(err.op_name, "vhlo.scale_v2");
    assert_eq!(err.needs, Version::new(1, 2, 0));
    let text = err.to_string();
    assert!(
        text.contains("saturate") && text.contains("1.2.0"),
        "{text}"
    );
    // A refused step leaves the op as it was.
    assert_eq!(m.op_name_str(op), "vhlo.scale_v2");
    assert!(m.property(op, "saturate").is_some());
}
