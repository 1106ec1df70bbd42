//! Strict conversions (`strict` in the portable and legalization options, `--strict` on the
//! command line): each kind of loss is refused when strict, naming what, where and the version,
//! and accepted as before when not.

use vhlo_core::convert::{self, Diagnostic, LegalizeOptions, ToStablehloOptions};
use vhlo_core::ir::{Module, NamedAttr};
use vhlo_core::text;
use vhlo_tests::bytecode;
use vhlo_tests::portable::{self, DeserializeOptions, PortableError, SerializeOptions};

/// Location ranges on an op and on a function argument (readers before 1.9.0 cannot read them).
const RANGES: &str = r#"
func.func @main(%arg0: tensor<f32> loc("a.py":1:2 to 1:9)) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<f32> loc("a.py":3:4 to :8)
  return %0 : tensor<f32> loc("a.py":4:1)
} loc("a.py":1:1)
"#;

/// A compare whose discardable attribute has the inherent attribute's name.
const SHADOWED: &str = r#"
func.func @main(%a: tensor<f32>, %b: tensor<f32>) -> tensor<i1> {
  %0 = "stablehlo.compare"(%a, %b) <{comparison_direction = #stablehlo<comparison_direction EQ>}> {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
  return %0 : tensor<i1>
}
"#;

fn parse(src: &str) -> Module {
    text::parse(src).unwrap_or_else(|e| panic!("{e}"))
}

fn diagnostics(r: Result<Vec<u8>, PortableError>) -> Vec<Diagnostic> {
    match r {
        Err(PortableError::Convert(ds)) => ds,
        Err(e) => panic!("expected conversion diagnostics, got {e}"),
        Ok(_) => panic!("expected a refusal, got an artifact"),
    }
}

fn strict() -> SerializeOptions {
    SerializeOptions {
        strict: true,
        ..Default::default()
    }
}

#[test]
fn location_ranges_below_1_9_0_are_refused_only_when_strict() {
    let m = parse(RANGES);
    portable::serialize_portable_artifact(&m, "1.8.0", SerializeOptions::default())
        .expect("not strict: written as upstream writes it");
    let ds = diagnostics(portable::serialize_portable_artifact(&m, "1.8.0", strict()));
    assert_eq!(ds.len(), 2, "the add's location and the argument's: {ds:?}");
    let add = ds
        .iter()
        .find(|d| d.op == "stablehlo.add")
        .expect("the add is named");
    assert!(
        add.location.contains("a.py") && add.location.contains("3:4"),
        "{add}"
    );
    assert!(add.subject.contains("FileLineColRange"), "{add}");
    assert!(add.rule.contains("1.8.0"), "names the target: {add}");
    assert_eq!(add.needs.map(|v| v.to_string()).as_deref(), Some("1.9.0"));
    let func = ds
        .iter()
        .find(|d| d.op == "func.func")
        .expect("the function is named");
    assert!(func.subject.contains("region argument #0"), "{func}");
    // A target that reads ranges loses nothing; stripping is an explicit request.
    portable::serialize_portable_artifact(&m, "1.9.0", strict()).expect("1.9.0 reads ranges");
    let stripped = SerializeOptions {
        strip_debuginfo: true,
        strict: true,
        ..Default::default()
    };
    portable::serialize_portable_artifact(&m, "1.8.0", stripped).expect("stripping is asked for");
}

#[test]
fn a_discardable_attribute_under_an_inherent_name_is_refused_only_when_strict() {
    let m = parse(SHADOWED);
    let compare = {
        let mut found = None;
        m.walk(|op| {
            if m.op_name_str(op) == "stablehlo.compare" {
                found = Some(op);
            }
        });
        found.expect("compare")
    };
    assert_eq!(
        m.attributes(compare).len(),
        1,
        "the parser keeps both: the test needs that"
    );
    portable::serialize_portable_artifact(&m, "current", SerializeOptions::default())
        .expect("not strict: the discardable one is dropped");
    let ds = diagnostics(portable::serialize_portable_artifact(
        &m,
        "current",
        strict(),
    ));
    assert_eq!(ds.len(), 1, "{ds:?}");
    assert_eq!(ds[0].op, "stablehlo.compare");
    assert!(
        ds[0]
            .subject
            .contains("discardable attribute `comparison_direction`"),
        "{}",
        ds[0]
    );
    // The same through the legalization's own options.
    let mut v = m.clone();
    let opts = LegalizeOptions {
        strict: true,
        ..Default::default()
    };
    assert!(convert::legalize_to_vhlo(&mut v, opts).is_err());
}

/// A VHLO op given a discardable attribute named like an inherent attribute of its StableHLO op.
#[test]
fn a_vhlo_attribute_that_legalization_would_replace_is_refused_only_when_strict() {
    let mut m = parse(
        SHADOWED
            .replace(
                " {comparison_direction = #stablehlo<comparison_direction LT>}",
                "",
            )
            .as_str(),
    );
    convert::legalize_to_vhlo(&mut m, LegalizeOptions::default()).expect("legalizes");
    let mut compare = None;
    m.walk(|op| {
        if m.op_name_str(op).starts_with("vhlo.compare") {
            compare = Some(op);
        }
    });
    let compare = compare.expect("vhlo compare");
    let name = m.sym("compare_type");
    let value = m
        .properties(compare)
        .iter()
        .find(|a| a.name == name)
        .expect("compare_type")
        .value;
    m.set_attributes(compare, &[NamedAttr { name, value }]);
    let before = text::print_generic(&m);
    let err =
        convert::legalize_to_stablehlo_with(&mut m.clone(), ToStablehloOptions { strict: true })
            .expect_err("strict refuses");
    assert!(
        err.iter()
            .any(|d| d.subject.contains("`compare_type`") && d.op.starts_with("vhlo.compare")),
        "{err:?}"
    );
    let mut strict_m = m.clone();
    let _ = convert::legalize_to_stablehlo_with(&mut strict_m, ToStablehloOptions { strict: true });
    assert_eq!(
        text::print_generic(&strict_m),
        before,
        "a refused conversion leaves the module as it was"
    );
    convert::legalize_to_stablehlo_with(&mut m, ToStablehloOptions::default())
        .expect("not strict: converts");
}

/// The reader drops a discardable attribute that the properties entry overwrites (as MLIR);
/// strict reading refuses the artifact, naming the attribute and the artifact's version.
#[test]
fn an_attribute_the_reader_drops_is_refused_only_when_strict() {
    let path = vhlo_tests::workspace_root()
        .join("fuzz/regressions/bytecode/inherent-name-in-dictionary-and-properties");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (_, info) = bytecode::read(&bytes).expect("reads");
    assert!(
        !info.shadowed_attributes.is_empty(),
        "the reader records what it dropped"
    );
    let (_, version) = portable::read_vhlo(&bytes).expect("not strict: read");
    let err = portable::read_vhlo_with(
        &bytes,
        DeserializeOptions {
            strict: true,
            ..Default::default()
        },
    )
    .expect_err("strict refuses");
    let PortableError::Convert(ds) = &err else {
        panic!("{err}")
    };
    assert_eq!(ds.len(), info.shadowed_attributes.len());
    assert!(
        ds[0].subject.starts_with("discardable attribute `"),
        "{}",
        ds[0]
    );
    assert!(
        ds[0].rule.contains(&version.to_string()),
        "names the version: {}",
        ds[0]
    );
    assert!(!ds[0].op.is_empty());
    let strict_deserialize = portable::deserialize_portable_artifact_with(
        &bytes,
        DeserializeOptions {
            strict: true,
            ..Default::default()
        },
    );
    assert!(matches!(strict_deserialize, Err(PortableError::Convert(_))));
}

/// Strict mode changes nothing for the compatibility suite: every artifact deserializes strictly
/// exactly when it deserializes at all, to the same program.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn strict_deserialization_accepts_every_suite_artifact() {
    let Some(dir) = vhlo_tests::compat_suite() else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("suite dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".mlir.bc"))
        .collect();
    files.sort();
    let mut compared = 0;
    for path in &files {
        let bytes = std::fs::read(path).expect("artifact");
        let Ok(plain) = portable::deserialize_portable_artifact(&bytes) else {
            continue;
        };
        let strict = portable::deserialize_portable_artifact_with(
            &bytes,
            DeserializeOptions {
                strict: true,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(
            text::print_generic(&plain),
            text::print_generic(&strict),
            "{}",
            path.display()
        );
        compared += 1;
    }
    assert!(compared >= 32, "only {compared} artifacts deserialized");
}

#[test]
fn location_losses_cover_block_arguments_of_vhlo_programs() {
    let mut m = parse(RANGES);
    convert::legalize_to_vhlo(&mut m, LegalizeOptions::default()).expect("legalizes");
    let v180 = convert::parse_target("1.8.0").expect("target");
    let ds = convert::location_losses(&m, v180);
    assert_eq!(ds.len(), 2, "{ds:?}");
    assert!(
        ds.iter()
            .any(|d| d.op.starts_with("vhlo.func") && d.subject.contains("region argument")),
        "{ds:?}"
    );
    assert!(
        convert::location_losses(&m, convert::parse_target("1.9.0").expect("target")).is_empty()
    );
}
