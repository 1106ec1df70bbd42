//! A downstream crate as a user writes it, against the packaged vhlo-core:
//!
//!   vhlo-downstream-example                 parses a program and writes it for its minimum version
//!   vhlo-downstream-example relu OUT        builds relu(dot_general(x, w) + b) with no result type
//!                                           written by hand, verifies it, serializes it, reads it
//!                                           back and writes the artifact to OUT
//!   vhlo-downstream-example rewrite IN OUT  reads a portable artifact, renames every `lapack_*`
//!                                           custom-call target to `mylib_*`, replaces each
//!                                           `stablehlo.tanh` with `2 * logistic(2 * x) - 1`, and
//!                                           writes it for the version IN was written for
//!
//! CI (`.ci/run`) runs each, and jaxlib reads the artifacts back (`check.py` beside this crate).

use vhlo_core::build::ModuleBuilder;
use vhlo_core::vhlo::stablehlo::{AddOp, ConstantOp, DotGeneralOp, MaximumOp};
use vhlo_core::vhlo::stablehlo_attrs::DotDimensionNumbers;
use vhlo_core::ir::{AttrData, Editor, Module, OpId, OperationState, TypeData, Value};
use vhlo_core::{convert, portable, text};

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] => minimum_version(),
        ["relu", out] => {
            let artifact = relu_artifact()?;
            std::fs::write(out, &artifact)?;
            println!("relu: {} bytes written to {out}", artifact.len());
            Ok(())
        }
        ["rewrite", input, out] => {
            let bytes = std::fs::read(input)?;
            let (artifact, renamed, replaced) = rewrite(&bytes)?;
            std::fs::write(out, &artifact)?;
            println!("rewrite: {renamed} custom-call targets renamed, {replaced} tanh replaced");
            Ok(())
        }
        _ => Err("usage: vhlo-downstream-example [relu OUT | rewrite IN OUT]".into()),
    }
}

fn minimum_version() -> Result<(), Error> {
    let m = text::parse(
        "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n",
    )?;
    let minimum = convert::minimum_version(&m)?;
    let artifact =
        portable::serialize_portable_artifact(&m, &minimum.to_string(), Default::default())?;
    println!(
        "minimum version {minimum}, artifact of {} bytes",
        artifact.len()
    );
    Ok(())
}

/// relu(dot_general(x, w) + b): only the arguments' types are written; each op's result type
/// comes from the verifier's shape functions (a constant's, from its value).
fn relu_artifact() -> Result<Vec<u8>, Error> {
    let mut mb = ModuleBuilder::new();
    let m = mb.module();
    let x = text::parse_type(m, "tensor<2x3xf32>")?;
    let w = text::parse_type(m, "tensor<3x4xf32>")?;
    let b = text::parse_type(m, "tensor<2x4xf32>")?;
    // Struct attributes are typed too: `#stablehlo.dot<...>` with its fields by name.
    let dims = DotDimensionNumbers {
        lhs_contracting_dimensions: vec![1],
        rhs_contracting_dimensions: vec![0],
        ..Default::default()
    }
    .build(m);
    let zero = text::parse_attribute(m, "dense<0.000000e+00> : tensor<2x4xf32>")?;
    let mut f = mb.function("main", &[x, w, b], &[b]);
    let args = f.args();
    // The typed op structs: operands and attributes by name, results inferred.
    let dot = DotGeneralOp::append(&mut f, args[0], args[1], dims, None, None)?;
    let sum = AddOp::append(&mut f, dot, args[2])?;
    let zero = ConstantOp::append(&mut f, zero)?;
    let relu = MaximumOp::append(&mut f, sum, zero)?;
    f.ret(&[relu]);
    let program = mb.finish();
    vhlo_core::verify::verify(&program)?;
    let artifact = portable::serialize_portable_artifact(&program, "1.0.0", Default::default())?;
    let back = portable::deserialize_portable_artifact(&artifact)?;
    let print = |m: &Module| text::print(m, text::PrintOptions::default());
    if print(&back) != print(&program) {
        return Err("the artifact reads back to another program".into());
    }
    Ok(artifact)
}

/// Renames `lapack_*` custom-call targets and replaces `stablehlo.tanh`, through the editor's
/// use lists; returns the artifact for IN's version and the two counts.
fn rewrite(bytes: &[u8]) -> Result<(Vec<u8>, usize, usize), Error> {
    let version = portable::read_producer_version(bytes)?;
    let mut m = portable::deserialize_portable_artifact(bytes)?;
    let mut ops = Vec::new();
    m.walk(|op| ops.push(op));
    let (mut renamed, mut replaced) = (0, 0);
    let mut e = Editor::new(&mut m);
    for op in ops {
        match e.module().op_name_str(op) {
            "stablehlo.custom_call" => {
                renamed += usize::from(rename_lapack_target(e.module_mut(), op))
            }
            "stablehlo.tanh" => replaced += usize::from(replace_tanh(&mut e, op)?),
            _ => {}
        }
    }
    vhlo_core::verify::verify(&m)?;
    // JAX's artifacts carry Shardy's attributes, which it writes with the other dialects kept.
    let options = portable::SerializeOptions {
        allow_other_dialects: true,
        ..Default::default()
    };
    let artifact = portable::serialize_portable_artifact(&m, &version.to_string(), options)?;
    Ok((artifact, renamed, replaced))
}

/// `lapack_X` -> `mylib_X`; true when renamed.
fn rename_lapack_target(m: &mut Module, op: OpId) -> bool {
    let Some(target) = m.get_attr(op, "call_target_name") else {
        return false;
    };
    let AttrData::String { value, .. } = m.attr_data(target) else {
        return false;
    };
    let Some(rest) = m.str(*value).strip_prefix("lapack_").map(str::to_string) else {
        return false;
    };
    let name = m.sym(&format!("mylib_{rest}"));
    let renamed = m.attr(AttrData::String {
        value: name,
        ty: None,
    });
    m.set_attr(op, "call_target_name", renamed);
    true
}

/// `tanh(x)` -> `2 * logistic(2 * x) - 1`, for a statically shaped float tensor (others are
/// left as they are); true when replaced.
fn replace_tanh(e: &mut Editor<'_>, tanh: OpId) -> Result<bool, Error> {
    let m = e.module();
    let x = m.operands(tanh)[0];
    let ty = m.value_type(x);
    let static_float = match m.type_data(ty) {
        TypeData::RankedTensor { shape, element, .. } => {
            shape.iter().all(|&d| d >= 0) && matches!(m.type_data(*element), TypeData::Float(_))
        }
        _ => false,
    };
    if !static_float {
        return Ok(false);
    }
    let loc = m.op_location(tanh);
    let make = |e: &mut Editor<'_>,
                name: &str,
                operands: &[Value],
                value: Option<f64>|
     -> Result<Value, Error> {
        let m = e.module_mut();
        let mut state = OperationState::new(m.sym(name), loc);
        state.operands.extend_from_slice(operands);
        state.result_types.push(ty);
        if let Some(v) = value {
            // A splat of `v` in the tensor's element type (typed element access).
            let value = vhlo_core::elements::from_floats(m, ty, &[v])?;
            state.properties.push(vhlo_core::ir::NamedAttr {
                name: m.sym("value"),
                value,
            });
        }
        let op = e.create_op(&state);
        e.insert_before(tanh, op)?;
        Ok(e.module().result(op, 0).ok_or("an op without a result")?)
    };
    let two = make(e, "stablehlo.constant", &[], Some(2.0))?;
    let one = make(e, "stablehlo.constant", &[], Some(1.0))?;
    let twice = make(e, "stablehlo.multiply", &[two, x], None)?;
    let logistic = make(e, "stablehlo.logistic", &[twice], None)?;
    let scaled = make(e, "stablehlo.multiply", &[two, logistic], None)?;
    let result = make(e, "stablehlo.subtract", &[scaled, one], None)?;
    let old = e.module().result(tanh, 0).ok_or("tanh without a result")?;
    e.replace_all_uses_with(old, result);
    e.erase_op(tanh)?;
    Ok(true)
}
