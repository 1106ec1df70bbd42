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
    convert::legalize_to_vhlo(&mut m, LegalizeOptions::default())
        .unwrap_or_else(|ds| panic!("{ds:?}"));
    let vhlo_text = text::print_generic(&m);
    assert!(vhlo_text.contains("#vhlo.mesh_v1<"), "{vhlo_text}");
    convert::legalize_to_stablehlo(&mut m).unwrap_or_else(|ds| panic!("{ds:?}"));
    structurally_equal(&original, &m, EqualOptions::default()).unwrap_or_else(|d| panic!("{d}"));
    let printed = text::print(&m, text::PrintOptions::default());
    assert!(
        printed.contains("#stablehlo.mesh<axes = [#stablehlo.mesh_axis<name = \"x\", size = 2>"),
        "{printed}"
    );
}

/// Upstream's legalization casts each nested parameter to its StableHLO class; a VHLO artifact
/// may hold anything there (`deserialize_pipeline` found an axis reference whose sub-axis info
/// was a replica-group attribute, which printed as text that does not parse).
#[test]
fn nested_mesh_parameters_must_be_of_their_kind() {
    let wrong = [
        (
            r#"#vhlo.axis_ref_v1<name = #vhlo.string_v1<"x">, sub_axis_info = #vhlo.string_v1<"y">>"#,
            "the sub-axis info must be a `sub_axis_info_v1`",
        ),
        (
            r#"#vhlo.mesh_v1<axes = #vhlo.array_v1<[#vhlo.string_v1<"x">]>>"#,
            "each axis must be a `mesh_axis_v1`",
        ),
        (
            r#"#vhlo.replica_group_mesh_axes_v1<mesh = #vhlo.string_v1<"m">, axes = #vhlo.array_v1<[#vhlo.string_v1<"x">]>>"#,
            "each axis must be an `axis_ref_v1`",
        ),
    ];
    for (attr, expected) in wrong {
        let src = format!(
            "\"vhlo.func_v1\"() <{{arg_attrs = #vhlo.array_v1<[]>, function_type = #vhlo.type_v1<!vhlo.func_v1<(!vhlo.tensor_v1<!vhlo.f32_v1>) -> !vhlo.tensor_v1<!vhlo.f32_v1>>>, res_attrs = #vhlo.array_v1<[]>, sym_name = #vhlo.string_v1<\"f\">, sym_visibility = #vhlo.string_v1<\"\">}}> ({{\n^bb0(%a: !vhlo.tensor_v1<!vhlo.f32_v1>):\n  \"vhlo.return_v1\"(%a) : (!vhlo.tensor_v1<!vhlo.f32_v1>) -> ()\n}}) {{x = {attr}}} : () -> ()\n"
        );
        let mut m = text::parse(&src).unwrap_or_else(|e| panic!("{src}: {e}"));
        let ds = convert::legalize_to_stablehlo(&mut m).expect_err(expected);
        assert!(ds.iter().any(|d| d.subject.contains(expected)), "{ds:?}");
    }
}
