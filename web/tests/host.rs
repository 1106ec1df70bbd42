//! The crate's Rust side on the host: the jax.export reader against what JAX wrote (the
//! fixtures' manifest), the reports and errors the JavaScript API hands on. The JavaScript API
//! itself and the page are tested by `web/tests/*.test.mjs` (node, headless Chromium).

use std::path::{Path, PathBuf};

use vhlo_web::{inspect, jax_export, retarget, serialize, to_text, Loaded, TextOptions};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn manifest() -> serde_json::Value {
    serde_json::from_slice(&read(&fixtures().join("manifest.json"))).unwrap()
}

#[test]
fn jax_export_fields_are_those_jax_wrote() {
    let manifest = manifest();
    let programs = manifest["programs"].as_object().unwrap();
    assert_eq!(programs.len(), 2);
    for (name, want) in programs {
        let bytes = read(&fixtures().join(format!("{name}.jax_exported")));
        let got = jax_export::read(&bytes)
            .unwrap()
            .expect("a jax.export file");
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(got.function_name, want["function_name"].as_str().unwrap());
        assert_eq!(got.platforms, strings(&want["platforms"]), "{name}");
        assert_eq!(got.in_avals, strings(&want["in_avals"]), "{name}");
        assert_eq!(got.out_avals, strings(&want["out_avals"]), "{name}");
        assert_eq!(
            u64::from(got.nr_devices),
            want["nr_devices"].as_u64().unwrap()
        );
        assert_eq!(
            u64::from(got.calling_convention_version),
            want["calling_convention_version"].as_u64().unwrap()
        );
        assert_eq!(
            got.module_offset as u64,
            want["module_offset"].as_u64().unwrap()
        );
        assert_eq!(
            got.module_len as u64,
            want["module_bytes"].as_u64().unwrap()
        );
        // The module is the artifact JAX keeps as mlir_module_serialized.
        let module = read(&fixtures().join(format!("{name}.mlir.bc")));
        assert_eq!(
            &bytes[got.module_offset..got.module_offset + got.module_len],
            &module[..]
        );
    }
}

#[test]
fn other_files_are_not_taken_for_jax_exports() {
    let artifact = read(&fixtures().join("cumsum_cpu.mlir.bc"));
    assert_eq!(jax_export::read(&artifact), Ok(None));
    assert_eq!(jax_export::read(b"func.func @main() {\n}\n"), Ok(None));
    assert_eq!(jax_export::read(b""), Ok(None));
}

#[test]
fn every_prefix_and_byte_flip_of_a_jax_export_reads_or_fails_without_panicking() {
    let bytes = read(&fixtures().join("mlp_sharded.jax_exported"));
    for n in 0..bytes.len() {
        let _ = jax_export::read(&bytes[..n]);
        // And through the whole pipeline, for a sample of prefixes.
        if n % 97 == 0 {
            let _ = inspect(bytes[..n].to_vec(), "prefix");
        }
    }
    for i in 0..bytes.len().min(1500) {
        let mut b = bytes.clone();
        b[i] ^= 0xA5;
        let _ = jax_export::read(&b);
    }
}

#[test]
fn a_jax_export_reads_as_the_artifact_it_holds() {
    for name in ["mlp_sharded", "cumsum_cpu"] {
        let exported =
            inspect(read(&fixtures().join(format!("{name}.jax_exported"))), "x").unwrap();
        let artifact = inspect(read(&fixtures().join(format!("{name}.mlir.bc"))), "x").unwrap();
        assert_eq!(exported.kind, "jax_export");
        assert_eq!(artifact.kind, "artifact");
        assert!(exported.jax_export.is_some());
        assert_eq!(exported.producer, artifact.producer);
        assert_eq!(exported.vhlo_histogram, artifact.vhlo_histogram);
        assert_eq!(exported.histogram, artifact.histogram);
        assert_eq!(exported.functions, artifact.functions);
        assert_eq!(exported.shardings, artifact.shardings);
        let opts = TextOptions {
            generic: true,
            locations: true,
        };
        assert_eq!(
            to_text(
                read(&fixtures().join(format!("{name}.jax_exported"))),
                "x",
                opts
            )
            .unwrap(),
            to_text(read(&fixtures().join(format!("{name}.mlir.bc"))), "x", opts).unwrap()
        );
    }
}

#[test]
fn the_sharded_export_lists_its_mesh_functions_and_shardings() {
    let r = inspect(read(&fixtures().join("mlp_sharded.jax_exported")), "x").unwrap();
    assert_eq!(r.meshes.len(), 1, "{:?}", r.meshes);
    assert_eq!(
        r.meshes[0].axes,
        vec![("x".to_string(), 4), ("y".to_string(), 2)]
    );
    let main = r.functions.iter().find(|f| f.name == "main").unwrap();
    assert_eq!(main.visibility, "public");
    assert_eq!(main.args.len(), 3);
    assert_eq!(main.args[2].ty, "tensor<32x4xbf16>");
    assert_eq!(main.results.len(), 2);
    // Three arguments and two results carry an sdy.sharding.
    let on_main: Vec<_> = r
        .shardings
        .iter()
        .filter(|s| s.owner == "@main" && s.attr == "sdy.sharding")
        .collect();
    assert_eq!(on_main.len(), 5, "{:?}", r.shardings);
    assert_eq!(on_main[0].place, "argument 0");
    assert!(on_main[0].value.contains("@mesh"), "{}", on_main[0].value);
    assert_eq!(r.shardings_total, r.shardings.len());
    // The histogram's counts add up to the program's ops.
    assert_eq!(
        r.histogram.iter().map(|c| c.count).sum::<usize>(),
        r.stablehlo_ops
    );
}

#[test]
fn a_truncated_artifact_is_an_error_at_a_byte_offset() {
    let bytes = read(&fixtures().join("cumsum_cpu.mlir.bc"));
    let e = inspect(bytes[..bytes.len() / 2].to_vec(), "half").unwrap_err();
    assert_eq!(e.kind, "bytecode");
    let offset = e.offset.expect("an offset");
    assert!(offset <= bytes.len() / 2, "{offset}");
    assert!(
        e.message.contains(&format!("byte {offset}")),
        "{}",
        e.message
    );
    // Inside a jax.export file, the offset is the file's.
    let exported = read(&fixtures().join("cumsum_cpu.jax_exported"));
    let meta = jax_export::read(&exported).unwrap().unwrap();
    let mut cut = exported.clone();
    // Cut the module short inside the file: its vector keeps its length, so fill with zeros.
    for b in
        &mut cut[meta.module_offset + meta.module_len / 2..meta.module_offset + meta.module_len]
    {
        *b = 0;
    }
    let e = inspect(cut, "cut").unwrap_err();
    assert_eq!(e.kind, "bytecode", "{e:?}");
    let at = e.offset.unwrap();
    assert!(at >= meta.module_offset, "{at}");
    assert!(
        e.message.contains(&format!("byte {at} of the file")),
        "{}",
        e.message
    );
}

#[test]
fn empty_and_binary_inputs_are_input_errors() {
    assert_eq!(inspect(Vec::new(), "e").unwrap_err().kind, "input");
    assert_eq!(inspect(b" \n".to_vec(), "e").unwrap_err().kind, "input");
    assert_eq!(
        inspect(vec![0xff, 0xfe, 0x00, 0x01], "b").unwrap_err().kind,
        "input"
    );
}

#[test]
fn text_errors_name_the_line_and_column() {
    let e = inspect(
        b"func.func @main() {\n  %0 = stablehlo.bogus\n}\n".to_vec(),
        "t.mlir",
    )
    .unwrap_err();
    assert_eq!(e.kind, "parse");
    assert_eq!(e.line, Some(2), "{e:?}");
    assert!(e.column.is_some());
    assert!(e.message.starts_with("t.mlir:2:"), "{}", e.message);
}

const TAN: &str = "func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %x : tensor<f32>\n  return %0 : tensor<f32>\n}\n";

#[test]
fn serialize_refuses_a_target_too_old_for_the_program_with_its_blockers() {
    let e = serialize(TAN, "1.0.0", "t.mlir", false).unwrap_err();
    assert_eq!(e.kind, "convert");
    assert_eq!(e.diagnostics.len(), 1);
    assert!(
        e.diagnostics[0].op.contains("tan"),
        "{:?}",
        e.diagnostics[0]
    );
    assert_eq!(
        e.diagnostics[0].needs.map(|v| v.to_string()),
        Some("1.4.0".into())
    );
    assert!(
        e.diagnostics[0].location.contains("t.mlir"),
        "{:?}",
        e.diagnostics[0]
    );
    assert_eq!(
        serialize(TAN, "9.9.9", "t.mlir", false).unwrap_err().kind,
        "version"
    );
    let artifact = serialize(TAN, "1.4.0", "t.mlir", false).unwrap();
    let r = inspect(artifact, "a").unwrap();
    assert_eq!(r.target_version.as_deref(), Some("1.4.0"));
    assert_eq!(r.minimum.unwrap().version.as_deref(), Some("1.4.0"));
}

#[test]
fn retarget_writes_an_artifact_that_reads_back_to_the_same_program() {
    let bytes = read(&fixtures().join("mlp_sharded.mlir.bc"));
    let loaded = Loaded::open(bytes.clone(), "a").unwrap();
    let opts = TextOptions {
        generic: true,
        locations: true,
    };
    for target in ["1.11.0", "1.20.0", "current"] {
        let out = retarget(bytes.clone(), target).unwrap();
        let back = Loaded::open(out, "b").unwrap();
        assert_eq!(back.text(opts), loaded.text(opts), "{target}");
    }
    assert_eq!(loaded.retarget("1.x").unwrap_err().kind, "version");
    // tan needs 1.4.0: an older target is refused, saying why.
    let tan = Loaded::open(serialize(TAN, "1.4.0", "t.mlir", false).unwrap(), "tan").unwrap();
    let e = tan.retarget("1.0.0").unwrap_err();
    assert_eq!(e.kind, "convert", "{e:?}");
    assert_eq!(
        e.diagnostics[0].needs.map(|v| v.to_string()),
        Some("1.4.0".into())
    );
    assert!(
        e.message.starts_with("cannot retarget to 1.0.0"),
        "{}",
        e.message
    );
}

#[test]
fn a_suite_artifact_from_2023_reads_at_its_ops_version() {
    // JAX's 2023 artifacts name no StableHLO version (`MLIRxxx-trunk`); they are read at the
    // oldest release their ops allow, and that release and the later ones read them.
    let dir = repo().join("../shared/real-artifacts");
    let path = dir.join("jax.cpu_ducc_fft.data_2023_03_17.mlir.bc");
    if !path.exists() {
        eprintln!("skipped: {} is not here", path.display());
        return;
    }
    let r = inspect(read(&path), "fft").unwrap();
    assert_eq!(r.producer.as_deref(), Some("MLIRxxx-trunk"));
    assert_eq!(r.target_version, None);
    let at = r.read_at.clone().unwrap();
    assert_eq!(r.readable_by.first().map(|x| x.version.clone()), Some(at));
    assert!(
        r.custom_calls.iter().any(|c| c.target.contains("fft")),
        "{:?}",
        r.custom_calls
    );
}

#[test]
fn function_attributes_printed_as_one_array_split_into_each_dictionary() {
    // The report prints a function's `arg_attrs` once and splits the text: each piece must be
    // what printing that dictionary alone gives.
    use vhlo_core::ir::AttrData;
    use vhlo_core::text::attribute_to_string;
    let mut dirs = vec![
        repo().join("tests/fixtures/jax"),
        repo().join("tests/fixtures/jax_mesh"),
    ];
    dirs.push(fixtures());
    let mut checked = 0;
    for dir in dirs {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if !path.to_string_lossy().ends_with(".mlir.bc") {
                continue;
            }
            let Ok(loaded) = Loaded::open(read(&path), "f") else {
                continue;
            };
            let m = &loaded.stablehlo;
            m.walk(|op| {
                if m.op_name_str(op) != "func.func" {
                    return;
                }
                for name in ["arg_attrs", "res_attrs"] {
                    let Some(a) = m.property(op, name).or_else(|| m.attribute(op, name)) else {
                        continue;
                    };
                    let AttrData::Array(items) = m.attr_data(a) else {
                        continue;
                    };
                    let printed = attribute_to_string(m, a);
                    let pieces = vhlo_web::report::split_printed_array(&printed).unwrap();
                    let each: Vec<String> =
                        items.iter().map(|&d| attribute_to_string(m, d)).collect();
                    assert_eq!(pieces, each, "{}", path.display());
                    checked += 1;
                }
            });
        }
    }
    assert!(checked > 50, "{checked}");
}
