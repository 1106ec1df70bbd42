//! Building a program with no result type written by hand: `FunctionBuilder::op` (by op name)
//! and the typed structs' `append` (`AddOp::append(&mut f, lhs, rhs)`) infer each op's results
//! with the verifier's shape functions. The program is verified, serialized and
//! read back; jaxlib reads the artifact back too (live, with the oracle: a test of its own).

use vhlo_core::build::ModuleBuilder;
use vhlo_core::text::{self, PrintOptions};
use vhlo_tests::portable::{self, SerializeOptions};

/// The types `x`, `w`, `b` of relu(dot_general(x, w) + b), its dot dimension numbers and its
/// zero, interned in a new module.
fn relu_parts() -> (
    ModuleBuilder,
    [vhlo_core::ir::Type; 3],
    vhlo_core::ir::Attribute,
    vhlo_core::ir::Attribute,
) {
    let mut mb = ModuleBuilder::new();
    let m = mb.module();
    let x = text::parse_type(m, "tensor<2x3xf32>").unwrap();
    let w = text::parse_type(m, "tensor<3x4xf32>").unwrap();
    let b = text::parse_type(m, "tensor<2x4xf32>").unwrap();
    let dims = text::parse_attribute(
        m,
        "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>",
    )
    .unwrap();
    let zero = text::parse_attribute(m, "dense<0.000000e+00> : tensor<2x4xf32>").unwrap();
    (mb, [x, w, b], dims, zero)
}

/// relu(dot_general(x, w) + b), with only the arguments' types written.
fn relu_dense() -> vhlo_core::ir::Module {
    let (mut mb, [x, w, b], dims, zero) = relu_parts();
    let mut f = mb.function("main", &[x, w, b], &[b]);
    let args = f.args();
    let dot = f
        .op(
            "stablehlo.dot_general",
            &[args[0], args[1]],
            &[("dot_dimension_numbers", dims)],
        )
        .unwrap();
    let sum = f.op("stablehlo.add", &[dot[0], args[2]], &[]).unwrap();
    let zero = f.op("stablehlo.constant", &[], &[("value", zero)]).unwrap();
    let relu = f.op("stablehlo.maximum", &[sum[0], zero[0]], &[]).unwrap();
    f.ret(&relu);
    mb.finish()
}

#[test]
fn relu_of_a_dense_layer_is_built_with_inferred_types() {
    let m = relu_dense();
    vhlo_core::verify::verify(&m).unwrap();
    let printed = text::print(&m, PrintOptions::default());
    assert!(
        printed.contains("stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>"),
        "{printed}"
    );
    let artifact =
        portable::serialize_portable_artifact(&m, "1.0.0", SerializeOptions::default()).unwrap();
    let back = portable::deserialize_portable_artifact(&artifact).unwrap();
    assert_eq!(text::print(&back, PrintOptions::default()), printed);
}

/// jaxlib reads the built program's artifact back to the same ops and result types.
#[test]
#[cfg_attr(
    not(has_oracle),
    ignore = "needs the oracle (scripts/oracle/setup.sh, or VHLO_ORACLE_PYTHON)"
)]
fn jaxlib_reads_the_built_program() {
    let Some(python) = vhlo_tests::oracle_python() else {
        return;
    };
    let artifact =
        portable::serialize_portable_artifact(&relu_dense(), "1.0.0", SerializeOptions::default())
            .unwrap();
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("inferred_builders");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("relu.mlir.bc");
    std::fs::write(&path, &artifact).unwrap();
    let script = "import sys\nfrom jaxlib.mlir import ir\nfrom jaxlib.mlir.dialects import stablehlo\nwith ir.Context() as ctx:\n    stablehlo.register_dialect(ctx)\n    m = stablehlo.deserialize_portable_artifact(ctx, open(sys.argv[1], 'rb').read())\n    print(m)\n";
    let out = std::process::Command::new(&python)
        .args(["-c", script, path.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "jaxlib: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("stablehlo.maximum"), "{stdout}");
    assert!(stdout.contains("-> tensor<2x4xf32>"), "{stdout}");
}

#[test]
fn ops_without_a_shape_function_or_with_bad_operands_are_refused() {
    let mut mb = ModuleBuilder::new();
    let m = mb.module();
    let x = text::parse_type(m, "tensor<2x3xf32>").unwrap();
    let w = text::parse_type(m, "tensor<4x4xf32>").unwrap();
    let dims = text::parse_attribute(
        m,
        "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>",
    )
    .unwrap();
    let mut f = mb.function("main", &[x, w], &[x]);
    let args = f.args();
    let e = f
        .op(
            "stablehlo.dot_general",
            &[args[0], args[1]],
            &[("dot_dimension_numbers", dims)],
        )
        .unwrap_err();
    assert!(e.to_string().contains("stablehlo.dot_general"), "{e}");
    let e = f.op("stablehlo.reshape", &[args[0]], &[]).unwrap_err();
    assert!(e.to_string().contains("give its result types"), "{e}");
    let e = f.op("foo.bar", &[args[0]], &[]).unwrap_err();
    assert!(e.to_string().contains("not a StableHLO op"), "{e}");
}

/// The typed structs' `append` builds the same program as `FunctionBuilder::op` by name, and
/// refuses what it refuses.
#[test]
fn typed_ops_append_with_inferred_types() {
    use vhlo_core::vhlo::stablehlo::{AddOp, ConstantOp, DotGeneralOp, MaximumOp, ReshapeOp};
    let (mut mb, [x, w, b], dims, zero) = relu_parts();
    let mut f = mb.function("main", &[x, w, b], &[b]);
    let args = f.args();
    let dot = DotGeneralOp::append(&mut f, args[0], args[1], dims, None, None).unwrap();
    let sum = AddOp::append(&mut f, dot, args[2]).unwrap();
    let zero = ConstantOp::append(&mut f, zero).unwrap();
    let relu = MaximumOp::append(&mut f, sum, zero).unwrap();
    // A reshape's result cannot be inferred: refused, naming what to do.
    let e = ReshapeOp::append(&mut f, args[0]).unwrap_err();
    assert!(e.to_string().contains("give its result types"), "{e}");
    // Operands that break the op's constraints are refused.
    let e = DotGeneralOp::append(&mut f, args[1], args[1], dims, None, None).unwrap_err();
    assert!(e.to_string().contains("stablehlo.dot_general"), "{e}");
    f.ret(&[relu]);
    let typed = mb.finish();
    let opts = PrintOptions::default();
    assert_eq!(text::print(&typed, opts), text::print(&relu_dense(), opts));
}
