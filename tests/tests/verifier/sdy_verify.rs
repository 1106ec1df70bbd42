//! Shardy's verifier rules for shardings (vhlo-core/src/convert/verify_sdy.rs): each program
//! breaks one rule, and serializing it with `allow_other_dialects` is refused with the op, its
//! location and Shardy's message, since jaxlib refuses to read such an artifact. Live against
//! jaxlib (skipped without the oracle venv unless VHLO_REQUIRE_ORACLE=1): jaxlib refuses to
//! parse each one, with the same message.

use std::path::PathBuf;
use std::process::Command;

use vhlo_core::text;
use vhlo_tests::portable::{self, SerializeOptions};

const MESHES: &str = r#"sdy.mesh @m = <["x"=2, "y"=4]>
sdy.mesh @one = <[], device_ids=[0]>
sdy.mesh @three = <["z"=3]>
"#;

/// (name, body of @main with `%a: tensor<8x8xf32>`, message both refuse with).
const CASES: &[(&str, &str, &str)] = &[
    (
        "maximal_mesh_rank",
        r#"%0 = stablehlo.add %a, %a {sdy.sharding = #sdy.sharding_per_value<[<@one, [{}, {}]>]>} : tensor<8x8xf32>"#,
        "result - a maximal sharding can only have a sharding with rank 0",
    ),
    (
        "unknown_mesh",
        r#"%0 = stablehlo.add %a, %a {sdy.sharding = #sdy.sharding_per_value<[<@nope, [{}, {}]>]>} : tensor<8x8xf32>"#,
        "unknown mesh: @nope",
    ),
    (
        "rank_mismatch",
        r#"%0 = stablehlo.add %a, %a {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}]>]>} : tensor<8x8xf32>"#,
        "sharding doesn't match tensor rank: 1 != 2",
    ),
    (
        "count_mismatch",
        r#"%0 = stablehlo.add %a, %a {sdy.sharding = #sdy.sharding_per_value<[<@m, [{}, {}]>, <@m, [{}, {}]>]>} : tensor<8x8xf32>"#,
        "shardings don't match number of values: 2 shardings vs 1 values",
    ),
    (
        "unknown_axis",
        r#"%0 = sdy.sharding_constraint %a <@m, [{"z"}, {}]> : tensor<8x8xf32>"#,
        "unknown axis name: \"z\"",
    ),
    (
        "duplicate_axis",
        r#"%0 = sdy.reshard %a <@m, [{"x"}, {"x"}]> : tensor<8x8xf32>"#,
        "duplicate axis ref: \"x\"",
    ),
    (
        "replicated_unordered",
        r#"%0 = sdy.sharding_constraint %a <@m, [{}, {}], replicated={"y", "x"}> : tensor<8x8xf32>"#,
        "replicated axes are not ordered w.r.t. mesh",
    ),
    (
        "sub_axis_beside_full_axis",
        r#"%0 = sdy.sharding_constraint %a <@m, [{"y"}, {"y":(1)2}]> : tensor<8x8xf32>"#,
        "both sub-axis and full-axis are used for axis name: \"y\"",
    ),
    (
        "sub_axis_not_dividing",
        r#"%0 = sdy.sharding_constraint %a <@m, [{"y":(1)3}, {}]> : tensor<8x8xf32>"#,
        "sub-axis next pre-size 3 doesn't divide the size of the full axis 4",
    ),
    (
        "sub_axes_mergeable",
        r#"%0 = sdy.sharding_constraint %a <@m, [{"y":(1)2, "y":(2)2}, {}]> : tensor<8x8xf32>"#,
        "two consecutive sub-axes can be merged",
    ),
    (
        "closed_empty_with_priority",
        r#"%0 = sdy.sharding_constraint %a <@m, [{}p1, {}]> : tensor<8x8xf32>"#,
        "dim 0 is empty and closed but has a priority",
    ),
    (
        "manual_axis_after_free_axis",
        r#"%0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"y", "x"}, {}]>] out_shardings=[<@m, [{"y", "x"}, {}]>] manual_axes={"x"} (%b: tensor<4x8xf32>) {
    sdy.return %b : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "operand sharding at index 0 must have all manual axes come before free axes in its dimension sharding at index 0. Saw manual axis \"x\" after free axis \"y\"",
    ),
    (
        "manual_axes_not_dividing",
        r#"%0 = sdy.manual_computation(%a) in_shardings=[<@three, [{"z"}, {}]>] out_shardings=[<@three, [{}, {}]>] manual_axes={"z"} (%b: tensor<2x8xf32>) {
    %c = stablehlo.concatenate %b, %b, %b, %b, dim = 0 : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<8x8xf32>
    sdy.return %c : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "operand dimension size 8 is not divisible by the manual axes size 3",
    ),
    (
        "local_shape_mismatch",
        r#"%0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"x"}, {}]>] out_shardings=[<@m, [{}, {}]>] manual_axes={"x"} (%b: tensor<8x8xf32>) {
    sdy.return %b : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "operand shape, corresponding sharding, and region operand shape at index 0 must match. Expected local shape 'tensor<4x8xf32>', actual local shape 'tensor<8x8xf32>'",
    ),
    (
        "region_argument_count",
        r#"%0 = sdy.manual_computation(%a) in_shardings=[<@m, [{}, {}]>] out_shardings=[<@m, [{}, {}]>] manual_axes={} (%b: tensor<8x8xf32>, %c: tensor<8x8xf32>) {
    sdy.return %b : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "number of op operands and region operands must match. Op has 1 op operands and 2 region operands",
    ),
    (
        "manual_axis_bound_twice",
        r#"%0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"x"}, {}]>] out_shardings=[<@m, [{"x"}, {}]>] manual_axes={"x"} (%b: tensor<4x8xf32>) {
    %c = sdy.manual_computation(%b) in_shardings=[<@m, [{"x"}, {}]>] out_shardings=[<@m, [{"x"}, {}]>] manual_axes={"x"} (%d: tensor<2x8xf32>) {
      sdy.return %d : tensor<2x8xf32>
    } : (tensor<4x8xf32>) -> tensor<4x8xf32> loc("case.py":3:5)
    sdy.return %c : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "operates on axis \"x\" which is already bound by a parent sdy.manual_computation op",
    ),
    (
        "sharding_on_a_bound_axis",
        r#"%0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"x"}, {}]>] out_shardings=[<@m, [{"x"}, {}]>] manual_axes={"x"} (%b: tensor<4x8xf32>) {
    %c = sdy.sharding_constraint %b <@m, [{}, {"x"}]> : tensor<4x8xf32> loc("case.py":3:5)
    sdy.return %c : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "operates on axis \"x\" which is already bound by a parent sdy.manual_computation op",
    ),
    (
        "unknown_manual_axis",
        r#"%0 = sdy.manual_computation(%a) in_shardings=[<@m, [{}, {}]>] out_shardings=[<@m, [{}, {}]>] manual_axes={"q"} (%b: tensor<8x8xf32>) {
    sdy.return %b : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "unknown manual axis: \"q\"",
    ),
    (
        "manual_shardings_on_two_meshes",
        r#"%0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"x"}, {}]>] out_shardings=[<@three, [{}, {}]>] manual_axes={"x"} (%b: tensor<4x8xf32>) {
    %c = stablehlo.concatenate %b, %b, dim = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    sdy.return %c : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "all in and out shardings must be bound to the same mesh or an empty mesh.",
    ),
    // Op sharding rules (`verifyOpShardingRuleAttr`).
    (
        "sharding_rule_of_another_kind",
        r#"%0 = stablehlo.custom_call @foo(%a) {sdy.sharding_rule = 1 : i64} : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "should have a sharding rule attribute of type OpShardingRuleAttr for attr named 'sdy.sharding_rule'",
    ),
    (
        "constant_of_another_type",
        r#"%0 = "sdy.constant"() <{value = dense<1.0> : tensor<8x4xf32>}> : () -> tensor<8x8xf32>"#,
        "inferred type(s) 'tensor<8x4xf32>' are incompatible with return type(s) of operation 'tensor<8x8xf32>'",
    ),
    // MLIR checks an op's discardable attributes before the op: this custom call's operand
    // layouts are one too many as well.
    (
        "sharding_rule_before_the_op",
        r#"%0 = stablehlo.custom_call @foo(%a) {operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([i, j]) {i=8, j=8, k=8, l=8}>} : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "number of operands and mappings must match: 1 != 2",
    ),
    (
        "sharding_rule_mapping_rank",
        r#"%0 = stablehlo.add %a, %a {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i])->([i, j]) {i=8, j=8}>} : tensor<8x8xf32>"#,
        "operand 1 - mapping rank must match: 1 != 2",
    ),
    (
        "sharding_rule_mapping_count",
        r#"%0 = stablehlo.add %a, %a {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([i, j]) {i=8, j=8}>} : tensor<8x8xf32>"#,
        "number of operands and mappings must match: 2 != 1",
    ),
    (
        "sharding_rule_factor_reused",
        r#"%0 = stablehlo.add %a, %a {sdy.sharding_rule = #sdy.op_sharding_rule<([i, i], [i, j])->([i, j]) {i=8, j=8}>} : tensor<8x8xf32>"#,
        "operand 0 - cannot reuse factors for the same tensor value",
    ),
    (
        "sharding_rule_factor_unused",
        r#"%0 = stablehlo.add %a, %a {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=8, k=2}>} : tensor<8x8xf32>"#,
        "has factor k=2 that isn't used in operand and result mappings",
    ),
    (
        "sharding_rule_reduction_in_result",
        r#"%0 = stablehlo.add %a, %a {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, j]) {i=8, j=8} reduction={j}>} : tensor<8x8xf32>"#,
        "reduction factor cannot be in result mappings",
    ),
    (
        "sharding_rule_special_factor_twice",
        r#"%0 = stablehlo.add %a, %a {sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [i, j])->([i, k]) {i=8, j=8, k=8} reduction={j} need_replication={j}>} : tensor<8x8xf32>"#,
        "a factor can only be in one of the reduction, need replication, or permutation factor sets",
    ),
    (
        "propagation_edges_of_another_kind",
        r#"%0 = stablehlo.add %a, %a {sdy.result_propagation_edges = [1, 2]} : tensor<8x8xf32>"#,
        "should have a propagation edges attribute of type ArrayAttr<PropagationEdgesAttr> for attr named 'sdy.result_propagation_edges' or 'sdy.block_arg_propagation_edges'",
    ),
    // Collectives (`verifyCollectiveOp` and each one's `verifySymbolUses`).
    (
        "collective_without_operand_sharding",
        r#"%0 = sdy.all_gather [{}, {}] %a out_sharding=<@m, [{}, {}]> : tensor<8x8xf32>"#,
        "collective on operand without sharding",
    ),
    (
        "all_gather_axis_not_a_suffix",
        r#"%1 = sdy.sharding_constraint %a <@m, [{"x"}, {}]> : tensor<8x8xf32>
  %0 = sdy.all_gather [{"y"}, {}] %1 out_sharding=<@m, [{}, {}]> : tensor<8x8xf32>"#,
        "can't apply gathering axis \"y\" to operand sharding on dimension 0",
    ),
    (
        "all_gather_unexpected_result",
        r#"%1 = sdy.sharding_constraint %a <@m, [{"x", "y"}, {}]> : tensor<8x8xf32>
  %0 = sdy.all_gather [{"y"}, {}] %1 out_sharding=<@m, [{}, {}]> : tensor<8x8xf32>"#,
        "result sharding doesn't match expected sharding [\"x\"] on dimension 0",
    ),
    (
        "all_slice_axes_rank",
        r#"%0 = sdy.all_slice [{"x"}] %a out_sharding=<@m, [{"x"}, {}]> : tensor<8x8xf32>"#,
        "result sharding has rank 2 but collective axes has rank 1",
    ),
    (
        "all_to_all_overlapping_dimensions",
        r#"%1 = sdy.sharding_constraint %a <@m, [{"x"}, {}]> : tensor<8x8xf32>
  %0 = sdy.all_to_all [{"x"}: 0->0] %1 out_sharding=<@m, [{}, {"x"}]> : tensor<8x8xf32>"#,
        "overlapping source/target dimensions in all-to-all params: 0",
    ),
    (
        "collective_permute_sharded_size",
        r#"%1 = sdy.sharding_constraint %a <@m, [{"x"}, {}]> : tensor<8x8xf32>
  %0 = sdy.collective_permute %1 out_sharding=<@m, [{"y"}, {}]> : tensor<8x8xf32>"#,
        "sharded size of result doesn't match operand on dimension 0: 4 != 2",
    ),
    (
        "all_reduce_axis_of_a_dimension",
        r#"%1 = sdy.sharding_constraint %a <@m, [{"x"}, {}]> : tensor<8x8xf32>
  %0 = sdy.all_reduce {"x"} %1 out_sharding=<@m, [{"x"}, {}]> : tensor<8x8xf32>"#,
        "reduction axis \"x\" overlaps with operand dimension sharding or replicated axes",
    ),
    // The ops' own verifiers and `verifySymbolUses`.
    (
        "propagation_barrier_both_ways",
        r#"%0 = sdy.propagation_barrier %a allowed_direction=BOTH : tensor<8x8xf32>"#,
        "cannot specify `BOTH` as the direction. Not blocking propagation direction makes the op redundant.",
    ),
    (
        "data_flow_edge_input_used_twice",
        r#"%1 = stablehlo.add %a, %a : tensor<8x8xf32>
  %2 = stablehlo.negate %1 : tensor<8x8xf32>
  %0 = sdy.data_flow_edge %1 : tensor<8x8xf32>"#,
        "expected input of sdy.data_flow_edge to have a single user",
    ),
    (
        "named_computation_block_argument",
        r#"%0 = sdy.named_computation<"f">(%a) (%b: tensor<4x8xf32>) {
    %c = stablehlo.concatenate %b, %b, dim = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    sdy.return %c : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "expected the type of the 0'th block argument to match the type of the corresponding operand: 'tensor<4x8xf32>' vs 'tensor<8x8xf32>'",
    ),
    (
        "named_computation_returns_another_type",
        r#"%0 = sdy.named_computation<"f">(%a) (%b: tensor<8x8xf32>) {
    %c = stablehlo.slice %b [0:4, 0:8] : (tensor<8x8xf32>) -> tensor<4x8xf32>
    sdy.return %c : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<8x8xf32>'",
    ),
    (
        "named_computation_out_sharding_rank",
        r#"%0 = sdy.named_computation<"f">(%a) out_shardings=[<@m, [{"x"}]>] (%b: tensor<8x8xf32>) {
    sdy.return %b : tensor<8x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
        "out_shardings - sharding doesn't match tensor rank: 1 != 2",
    ),
];

fn program(body: &str) -> String {
    format!(
        "{MESHES}func.func @main(%a: tensor<8x8xf32>) -> tensor<8x8xf32> {{\n  {body} loc(\"case.py\":3:5)\n  return %0 : tensor<8x8xf32>\n}}\n"
    )
}

/// The function's own argument sharding, checked against the argument type.
const FUNC_ARG: &str = r#"sdy.mesh @m = <["x"=2, "y"=4]>
func.func @main(%a: tensor<8x8xf32> {sdy.sharding = #sdy.sharding<@m, [{"x"}]>}) -> tensor<8x8xf32> {
  return %a : tensor<8x8xf32>
}
"#;

/// Serializes a program read without the verifier: writing verifies it, with its locations.
/// (`text::parse` refuses the same programs, at their line and column.)
fn serialize(src: &str) -> Result<Vec<u8>, String> {
    let verdict = text::parse(src).map(|_| ()).map_err(|e| e.message);
    let m = text::parse_unverified(src).map_err(|e| format!("parse: {e}"))?;
    let options = SerializeOptions {
        allow_other_dialects: true,
        ..SerializeOptions::default()
    };
    let written =
        portable::serialize_portable_module(m, "current", options).map_err(|e| e.to_string());
    assert_eq!(
        verdict.is_ok(),
        written.is_ok(),
        "the parser's verdict ({verdict:?}) and the writer's differ"
    );
    written
}

/// jaxlib's diagnostics when it parses `src` (it verifies after parsing), or `None` if it accepts it.
fn jaxlib_refusal(python: &PathBuf, name: &str, src: &str) -> Option<String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("sdy_verify");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.mlir"));
    std::fs::write(&path, src).unwrap();
    let out = Command::new(python)
        .arg(vhlo_tests::workspace_root().join("scripts/oracle/oracle.py"))
        .args(["roundtrip-text", path.to_str().unwrap()])
        .output()
        .expect("oracle.py runs");
    (!out.status.success()).then(|| String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The programs that break one rule each: (name, program, Shardy's message).
fn refused_cases() -> Vec<(String, String, String)> {
    let mut cases: Vec<(String, String, String)> = CASES
        .iter()
        .map(|(n, body, msg)| (n.to_string(), program(body), msg.to_string()))
        .collect();
    cases.push((
        "func_arg_rank".into(),
        FUNC_ARG.into(),
        "'func.func' op arg 0 - sharding doesn't match tensor rank: 1 != 2".into(),
    ));
    cases
}

#[test]
fn shardings_that_break_shardys_rules_are_refused() {
    for (name, src, msg) in &refused_cases() {
        let e = serialize(src)
            .err()
            .unwrap_or_else(|| panic!("{name}: written"));
        assert!(e.contains(msg), "{name}: {e}");
        if name != "func_arg_rank" {
            assert!(e.contains("case.py\":3:5"), "{name}: no location in {e}");
        }
    }
}

/// The parser reports the first rule broken as MLIR does: an op's Shardy attributes before the
/// op's own constraints.
#[test]
fn an_ops_shardy_attributes_are_checked_before_the_op() {
    let (_, src, msg) = refused_cases()
        .into_iter()
        .find(|(n, ..)| n == "sharding_rule_before_the_op")
        .expect("the case");
    let e = text::parse(&src).expect_err("refused");
    assert!(e.message.contains(&msg), "{e}");
    let m = text::parse_unverified(&src).expect("parses");
    let all = vhlo_core::verify::verify(&m)
        .expect_err("refused")
        .to_string();
    assert!(
        all.contains("operand layouts"),
        "the op's own rule is broken too: {all}"
    );
}

/// jaxlib refuses the same programs with the same messages.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn jaxlib_refuses_them_alike() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    for (name, src, msg) in &refused_cases() {
        let theirs = jaxlib_refusal(&python, name, src)
            .unwrap_or_else(|| panic!("{name}: jaxlib accepts it"));
        assert!(theirs.contains(msg), "{name}: jaxlib says {theirs}");
    }
}

/// The programs of [`refused_cases`] with the rule kept (bodies for [`program`]).
const VALID: &[&str] = &[
    r#"%0 = stablehlo.add %a, %a {sdy.sharding = #sdy.sharding_per_value<[<@one, []>]>} : tensor<8x8xf32>"#,
    r#"%0 = stablehlo.add %a, %a {sdy.sharding = #sdy.sharding_per_value<[<@m, [{"x"}, {"y"}]>]>} : tensor<8x8xf32>"#,
    r#"%0 = sdy.sharding_constraint %a <@m, [{"y":(1)2}, {"y":(2)2}], replicated={"x"}> : tensor<8x8xf32>"#,
    r#"%0 = sdy.sharding_constraint %a <@m, [{"x"}p1, {}]> : tensor<8x8xf32>"#,
    r#"%0 = sdy.manual_computation(%a) in_shardings=[<@m, [{"x", "y"}, {}]>] out_shardings=[<@m, [{"x"}, {}]>] manual_axes={"x"} (%b: tensor<4x8xf32>) {
    %c = sdy.sharding_constraint %b <@m, [{"y"}, {}]> : tensor<4x8xf32>
    %d = sdy.manual_computation(%c) in_shardings=[<@m, [{"y"}, {}]>] out_shardings=[<@m, [{"y"}, {}]>] manual_axes={"y"} (%e: tensor<1x8xf32>) {
      sdy.return %e : tensor<1x8xf32>
    } : (tensor<4x8xf32>) -> tensor<4x8xf32>
    sdy.return %d : tensor<4x8xf32>
  } : (tensor<8x8xf32>) -> tensor<8x8xf32>"#,
    r#"%1 = sdy.sharding_constraint %a <@m, [{"x", "y"}, {}]> : tensor<8x8xf32>
  %0 = sdy.all_gather [{"y"}, {}] %1 out_sharding=<@m, [{"x"}, {}]> : tensor<8x8xf32>"#,
    r#"%1 = sdy.sharding_constraint %a <@m, [{"x"}, {}]> : tensor<8x8xf32>
  %0 = sdy.all_to_all [{"x"}: 0->1] %1 out_sharding=<@m, [{}, {"x"}]> : tensor<8x8xf32>"#,
    r#"%1 = sdy.sharding_constraint %a <@m, [{"x"}, {}]> : tensor<8x8xf32>
  %0 = sdy.all_reduce {"y"} %1 out_sharding=<@m, [{"x"}, {}]> : tensor<8x8xf32>"#,
    // Equivalent shardings: replicated axes do not count (`isEquivalent`).
    r#"%1 = sdy.sharding_constraint %a <@m, [{"x"}, {}]> : tensor<8x8xf32>
  %0 = sdy.all_reduce {"y"} %1 out_sharding=<@m, [{"x"}, {}], replicated={"y"}> : tensor<8x8xf32>"#,
    r#"%0 = sdy.all_slice [{"x"}, {"y":(1)2}] %a out_sharding=<@m, [{"x"}, {"y":(1)2}]> : tensor<8x8xf32>"#,
];

/// The same programs with the rule kept are written, so the checks are not simply refusing sdy.
#[test]
fn valid_shardings_are_written() {
    for body in VALID {
        serialize(&program(body)).unwrap_or_else(|e| panic!("{body}: {e}"));
    }
}

/// jaxlib accepts them too.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn jaxlib_accepts_the_valid_shardings() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    for (i, body) in VALID.iter().enumerate() {
        let refusal = jaxlib_refusal(&python, &format!("valid_{i}"), &program(body));
        assert!(refusal.is_none(), "{body}: jaxlib refuses: {refusal:?}");
    }
}
