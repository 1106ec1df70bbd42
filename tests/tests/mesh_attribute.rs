//! `#stablehlo.mesh` lists its axes; VHLO's `mesh_v1` holds them in one `#vhlo.array_v1`. The
//! `deserialize_pipeline` fuzzer found the conversion back producing a mesh the printer could not
//! print (and the conversion there refusing every mesh): both directions now agree.

use vhlo_core::convert::{self, LegalizeOptions};
use vhlo_core::ir::{structurally_equal, EqualOptions};
use vhlo_core::text;

const PROGRAM: &str = r#"
func.func @main() attributes {mesh = #stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = "x", size = 2>, #stablehlo.mesh_axis<name = "y", size = 4>]>} {
  return
}
"#;

#[test]
fn a_mesh_attribute_survives_stablehlo_to_vhlo_and_back() {
    let original = text::parse(PROGRAM).unwrap_or_else(|e| panic!("{e}"));
    let mut m = original.clone();
    convert::legalize_to_vhlo(&mut m, LegalizeOptions::default()).unwrap_or_else(|ds| panic!("{ds:?}"));
    let vhlo_text = text::print_generic(&m);
    assert!(vhlo_text.contains("#vhlo.mesh_v1<"), "{vhlo_text}");
    convert::legalize_to_stablehlo(&mut m).unwrap_or_else(|ds| panic!("{ds:?}"));
    structurally_equal(&original, &m, EqualOptions::default()).unwrap_or_else(|d| panic!("{d}"));
    let printed = text::print(&m, text::PrintOptions::default());
    assert!(printed.contains("#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = \"x\", size = 2>"), "{printed}");
}
