//! Typed element access to dense attributes (`vhlo_core::elements`): values read back as the
//! text spells them, and attributes made from values are the ones the parser and the bytecode
//! reader make (same storage, same splat rule).

use vhlo_core::elements::{self, DenseElements, ElementsError};
use vhlo_core::ir::{AttrData, Attribute, Module};
use vhlo_core::text;
use vhlo_tests::portable;

/// Rebuilt from its values, `a` is itself: true when it was rebuilt, false when its elements
/// have no scalar values (complex) or hold a NaN (whose payload `f64` does not keep).
fn rebuilds_to_itself(m: &mut Module, a: Attribute) -> Result<bool, String> {
    let Some(d) = DenseElements::of(m, a) else {
        return Ok(false);
    };
    let (ty, len) = (d.ty(), d.len());
    let ints: Vec<i128> = d.ints().collect();
    let floats: Vec<f64> = d.floats().collect();
    let built = if ints.len() == len && len > 0 {
        elements::from_ints(m, ty, &ints)
    } else if floats.len() == len && len > 0 {
        if floats.iter().any(|f| f.is_nan()) {
            return Ok(false);
        }
        elements::from_floats(m, ty, &floats)
    } else {
        return Ok(false);
    };
    match built {
        Ok(b) if b == a => Ok(true),
        Ok(_) => Err(format!(
            "{} rebuilt differently",
            text::attribute_to_string(m, a)
        )),
        Err(e) => Err(format!("{}: {e}", text::attribute_to_string(m, a))),
    }
}

#[test]
fn values_read_as_the_text_spells_them_and_rebuild_the_same_attribute() {
    let cases: &[(&str, &[f64])] = &[
        ("dense<[1, -2, 3]> : tensor<3xi32>", &[1.0, -2.0, 3.0]),
        ("dense<255> : tensor<2x2xui8>", &[255.0; 4]),
        ("dense<[-128, 127]> : tensor<2xsi8>", &[-128.0, 127.0]),
        ("dense<[true, false]> : tensor<2xi1>", &[1.0, 0.0]),
        ("dense<7> : tensor<1xi64>", &[7.0]),
        ("dense<[7]> : tensor<1xindex>", &[7.0]),
        ("dense<[1.5, -0.25]> : tensor<2xf32>", &[1.5, -0.25]),
        ("dense<1.000000e+00> : tensor<3xbf16>", &[1.0; 3]),
        ("dense<[0.5, 448.0]> : tensor<2xf8E4M3FN>", &[0.5, 448.0]),
        ("dense<[2.0, 4.0]> : tensor<2xf64>", &[2.0, 4.0]),
    ];
    for &(src, want) in cases {
        let mut m = Module::new();
        let a = text::parse_attribute(&mut m, src).expect(src);
        let d = DenseElements::of(&m, a).expect(src);
        let got: Vec<f64> = match d.float(0) {
            Some(_) => d.floats().collect(),
            None => d.ints().map(|v| v as f64).collect(),
        };
        assert_eq!(got, want, "{src}");
        assert_eq!(rebuilds_to_itself(&mut m, a), Ok(true), "{src}");
    }
}

#[test]
fn values_that_do_not_fit_are_refused() {
    let mut m = Module::new();
    let i8s = text::parse_type(&mut m, "tensor<2xi8>").unwrap();
    let f32s = text::parse_type(&mut m, "tensor<2xf32>").unwrap();
    let dynamic = text::parse_type(&mut m, "tensor<?xf32>").unwrap();
    // A signless i8 takes -128 to 255, as MLIR's parser does.
    assert!(elements::from_ints(&mut m, i8s, &[-128, 255]).is_ok());
    assert_eq!(
        elements::from_ints(&mut m, i8s, &[0, 256]),
        Err(ElementsError::OutOfRange { index: 1 })
    );
    assert_eq!(
        elements::from_ints(&mut m, i8s, &[1, 2, 3]),
        Err(ElementsError::Count {
            expected: 2,
            got: 3
        })
    );
    assert_eq!(
        elements::from_ints(&mut m, f32s, &[1, 2]),
        Err(ElementsError::ElementType)
    );
    assert_eq!(
        elements::from_floats(&mut m, dynamic, &[1.0]),
        Err(ElementsError::NotAStaticTensor)
    );
    let splat = elements::from_floats(&mut m, f32s, &[3.0]).unwrap();
    assert_eq!(
        text::attribute_to_string(&m, splat),
        "dense<3.000000e+00> : tensor<2xf32>"
    );
}

/// Every integer and float dense attribute of the suite's programs, read back as StableHLO.
#[test]
fn every_dense_attribute_of_the_suite_rebuilds_from_its_values() {
    let Some(dir) = vhlo_tests::compat_suite() else {
        return;
    };
    let (mut rebuilt, mut failures) = (0usize, Vec::new());
    let valid = vhlo_tests::valid_suite_artifacts(&dir);
    for path in valid {
        let bytes = std::fs::read(&path).expect("read an artifact");
        let mut m = portable::deserialize_portable_artifact(&bytes).expect("the suite reads");
        let (_, attrs, _) = m.num_interned();
        for i in 0..attrs as u32 {
            let a = Attribute(i);
            if !matches!(m.attr_data(a), AttrData::DenseElements { .. }) {
                continue;
            }
            match rebuilds_to_itself(&mut m, a) {
                Ok(true) => rebuilt += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("dense elements: {rebuilt} attributes of the suite rebuilt from their values");
    assert!(
        rebuilt > 100,
        "only {rebuilt} dense attributes found in the suite"
    );
}

/// The builtin vector type (cf.switch's case values): read and built as tensors are, printed
/// as MLIR prints it, and written to bytecode as MLIR writes it (builtin type code 19), which
/// reads back to the same program.
#[test]
fn vector_typed_dense_attributes_read_build_and_round_trip() {
    let mut m = Module::new();
    let a = text::parse_attribute(&mut m, "dense<[42, -3]> : vector<2xi32>").unwrap();
    let d = DenseElements::of(&m, a).expect("a dense vector");
    assert_eq!(d.ints().collect::<Vec<_>>(), vec![42, -3]);
    assert_eq!(rebuilds_to_itself(&mut m, a), Ok(true));
    assert_eq!(
        text::attribute_to_string(&m, a),
        "dense<[42, -3]> : vector<2xi32>"
    );
    let scalable = text::parse_type(&mut m, "vector<2x[4]xf32>").unwrap();
    assert_eq!(text::type_to_string(&m, scalable), "vector<2x[4]xf32>");
    assert!(text::parse_type(&mut m, "vector<0xf32>").is_err());

    let program = "func.func @main(%f: i32, %t: tensor<2xf32>) -> tensor<2xf32> {\n  cf.switch %f : i32, [\n    default: ^bb1,\n    42: ^bb1,\n    -3: ^bb2\n  ]\n^bb1:\n  return %t : tensor<2xf32>\n^bb2:\n  %0 = stablehlo.abs %t : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n";
    let m = text::parse(program).expect("parses");
    let options = portable::SerializeOptions {
        allow_other_dialects: true,
        ..Default::default()
    };
    let bytes = portable::serialize_portable_artifact(&m, "current", options).expect("serializes");
    let back = portable::deserialize_portable_artifact(&bytes).expect("reads back");
    assert_eq!(
        text::print(&back, Default::default()),
        text::print(&m, Default::default())
    );
}
