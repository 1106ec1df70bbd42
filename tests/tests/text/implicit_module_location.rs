//! MLIR's parser wraps top-level ops other than a single module in an implicit `builtin.module`
//! located at `"file":0:0`; libStablehlo serializes that location (found by tests/tests/oracle/oracle_live.rs:
//! our artifacts of module-less text read back with `loc(unknown)` where jaxlib's had the file).

use vhlo_core::ir::LocData;
use vhlo_core::text::{self, PrintOptions};

const MODULE_LESS: &str =
    "func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n  return %arg0 : tensor<f32>\n}\n";

#[test]
fn implicit_module_is_located_at_file_0_0() {
    let m = text::parse_with_source_locations(MODULE_LESS, "prog.mlir").expect("parses");
    let module = m.top_ops()[0];
    match m.loc_data(m.op_location(module)) {
        LocData::FileLineCol {
            file,
            line: 0,
            column: 0,
        } => assert_eq!(m.str(*file), "prog.mlir"),
        other => panic!("implicit module location {other:?}"),
    }
    let printed = text::print(
        &m,
        PrintOptions {
            generic: true,
            debug_info: true,
            ..Default::default()
        },
    );
    assert!(printed.contains("loc(\"prog.mlir\":0:0)"), "{printed}");
}

#[test]
fn implicit_module_without_file_name_is_unknown() {
    let m = text::parse(MODULE_LESS).expect("parses");
    assert!(matches!(
        m.loc_data(m.op_location(m.top_ops()[0])),
        LocData::Unknown
    ));
}
