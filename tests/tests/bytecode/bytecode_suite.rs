//! The bytecode reader and writer against the upstream compatibility suite artifacts.

use std::path::{Path, PathBuf};

use vhlo_tests::bytecode;

/// The suite directory: `VHLO_COMPAT_SUITE`, else `../shared/compat-suite` from the workspace
/// root. `None` (skip) when absent, except under `CI=true`, where that is a failure.
fn suite_dir() -> Option<PathBuf> {
    vhlo_tests::compat_suite()
}

fn artifacts(dir: &Path) -> Vec<PathBuf> {
    vhlo_tests::suite_artifacts(dir)
}

/// Number of `func.func` in a suite source, for comparing with `vhlo.func_v1` counts.
fn count_source_funcs(src: &str) -> usize {
    src.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| l.matches("func.func ").count())
        .sum()
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn every_suite_artifact_reads() {
    let Some(dir) = suite_dir() else { return };
    let files = artifacts(&dir);
    assert!(
        files.len() >= 33,
        "expected at least 33 artifacts, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("invalid_") {
            continue;
        }
        match bytecode::read(&bytes) {
            Ok((module, info)) => {
                let mut funcs = 0;
                let mut ops = 0;
                module.walk(|op| {
                    ops += 1;
                    if module.op_name_str(op) == "vhlo.func_v1" {
                        funcs += 1;
                    }
                });
                let expected_producer = name
                    .trim_end_matches(".mlir.bc")
                    .rsplit('.')
                    .next()
                    .map(|v| format!("StableHLO_v{}", v.replace('_', ".")))
                    .unwrap();
                assert_eq!(info.producer, expected_producer, "{name}");
                // The spec's release table gives the same bytecode version as libStablehlo.
                let target =
                    vhlo_core::version::Version::parse(info.stablehlo_version().unwrap()).unwrap();
                assert_eq!(
                    bytecode::bytecode_version_for_target(target),
                    Some(info.bytecode_version),
                    "{name}"
                );
                let (v, producer) = bytecode::read_producer(&bytes).unwrap();
                assert_eq!(
                    (v, producer.as_str()),
                    (info.bytecode_version, info.producer.as_str())
                );
                let src_path = path.with_extension("");
                let src = std::fs::read_to_string(&src_path).unwrap();
                assert_eq!(
                    funcs,
                    count_source_funcs(&src),
                    "{name}: func_v1 count vs func.func in source"
                );
                assert_eq!(module.top_ops().len(), 1, "{name}");
                assert_eq!(
                    module.op_name_str(module.top_ops()[0]),
                    "builtin.module",
                    "{name}"
                );
                eprintln!(
                    "{name}: v{} {ops} ops, {funcs} funcs",
                    info.bytecode_version
                );
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn future_op_artifact_is_rejected_with_the_op_name() {
    let Some(dir) = suite_dir() else { return };
    let bytes = std::fs::read(dir.join("invalid_vhlo_future.mlir.bc")).unwrap();
    assert_eq!(
        bytecode::read_producer(&bytes).unwrap(),
        (6, "StableHLO_v2.0.0".to_string())
    );
    let err = bytecode::read(&bytes).unwrap_err();
    assert!(
        err.to_string()
            .contains("unregistered operation 'vhlo.constant_v99'"),
        "{err}"
    );
}

/// Reads each artifact and writes it back at its own bytecode version: the bytes must match.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn every_suite_artifact_round_trips_byte_for_byte() {
    let Some(dir) = suite_dir() else { return };
    let mut identical = 0;
    let mut failures = Vec::new();
    let files: Vec<PathBuf> = artifacts(&dir)
        .into_iter()
        .filter(|p| !p.to_string_lossy().contains("invalid_"))
        .collect();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(path).unwrap();
        let (module, info) = bytecode::read(&bytes).unwrap();
        let opts = bytecode::WriteOptions {
            bytecode_version: info.bytecode_version,
            producer: &info.producer,
            use_list_orders: Some(&info.use_list_orders),
            block_arg_locations: Some(&info.block_arg_locations),
        };
        match bytecode::write(&module, &opts) {
            Ok(out) if out == bytes => identical += 1,
            Ok(out) => {
                let first = out
                    .iter()
                    .zip(&bytes)
                    .position(|(a, b)| a != b)
                    .unwrap_or(out.len().min(bytes.len()));
                failures.push(format!(
                    "{name}: {} bytes written vs {} expected, first difference at byte {first}",
                    out.len(),
                    bytes.len()
                ));
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "{identical}/{} artifacts round-trip byte for byte",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// Every prefix of a small artifact, and every 101st prefix of a large one, is either rejected
/// with an error inside the input or (only the whole file) accepted; nothing panics.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn truncated_artifacts_are_rejected_cleanly() {
    let Some(dir) = suite_dir() else { return };
    for (file, stride) in [
        ("vhlo_emit_version_api.1_1_0.mlir.bc", 1),
        ("stablehlo_legalize_to_vhlo.1_20_0.mlir.bc", 101),
        ("stablehlo_legalize_to_vhlo.0_9_0.mlir.bc", 101),
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        for len in (0..bytes.len()).step_by(stride) {
            let prefix = &bytes[..len];
            match bytecode::read(prefix) {
                Ok(_) => panic!("{file}: prefix of {len} bytes was accepted"),
                Err(e) => assert!(
                    e.offset <= len,
                    "{file}: prefix {len}: error offset {} past the input: {e}",
                    e.offset
                ),
            }
        }
        assert!(bytecode::read(&bytes).is_ok());
    }
}

/// Deterministically corrupted artifacts never panic the reader, and whatever it accepts the
/// writer can write again.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn corrupted_artifacts_do_not_panic() {
    let Some(dir) = suite_dir() else { return };
    // xorshift64: a fixed seed, so failures reproduce.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for file in [
        "vhlo_emit_version_api.1_1_0.mlir.bc",
        "stablehlo_legalize_to_vhlo.0_9_0.mlir.bc",
        "stablehlo_legalize_to_vhlo.1_20_0.mlir.bc",
    ] {
        let original = std::fs::read(dir.join(file)).unwrap();
        for _ in 0..300 {
            let mut bytes = original.clone();
            for _ in 0..1 + next() % 3 {
                let at = (next() % bytes.len() as u64) as usize;
                bytes[at] = next() as u8;
            }
            if let Ok((module, info)) = bytecode::read(&bytes) {
                // unchecked: a corrupted artifact the raw reader took, written again only to see
                // that the writer does not panic; its program may break any rule.
                let _ = vhlo_core::bytecode::write(
                    &module,
                    &bytecode::WriteOptions::new(info.bytecode_version, &info.producer),
                );
            }
        }
    }
}

/// Without any side table the writer needs nothing but the IR: files with no recorded use-list
/// order come out identical, and the others differ exactly by their records.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn writer_needs_only_the_ir_where_no_use_list_order_was_recorded() {
    let Some(dir) = suite_dir() else { return };
    let mut identical = 0;
    let mut with_records = 0;
    for path in artifacts(&dir)
        .iter()
        .filter(|p| !p.to_string_lossy().contains("invalid_"))
    {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(path).unwrap();
        let (module, info) = bytecode::read(&bytes).unwrap();
        let out = bytecode::write(
            &module,
            &bytecode::WriteOptions::new(info.bytecode_version, &info.producer),
        )
        .unwrap();
        if info.use_list_orders.is_empty() {
            assert_eq!(out, bytes, "{name}");
            identical += 1;
        } else {
            with_records += 1;
            assert_ne!(
                out, bytes,
                "{name}: use-list records should change the bytes"
            );
        }
    }
    eprintln!("{identical} identical without side tables, {with_records} carry use-list records");
    assert!(
        identical >= 10,
        "only {identical} files without use-list records"
    );
}

/// A 1.20.0 program written at every bytecode version reads back to a program that writes the
/// same bytes again, at that version and at version 6.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn programs_survive_every_bytecode_version() {
    let Some(dir) = suite_dir() else { return };
    let bytes = std::fs::read(dir.join("stablehlo_legalize_to_vhlo.1_20_0.mlir.bc")).unwrap();
    let (module, info) = bytecode::read(&bytes).unwrap();
    let v6 = bytecode::write(&module, &bytecode::WriteOptions::new(6, &info.producer)).unwrap();
    let mut ops = 0;
    module.walk(|_| ops += 1);
    for v in 0..=6u64 {
        let opts = bytecode::WriteOptions::new(v, &info.producer);
        let at_v = bytecode::write(&module, &opts).unwrap();
        let (back, back_info) = bytecode::read(&at_v).unwrap();
        assert_eq!(back_info.bytecode_version, v);
        let mut back_ops = 0;
        back.walk(|_| back_ops += 1);
        assert_eq!(back_ops, ops, "version {v}");
        assert_eq!(
            bytecode::write(&back, &opts).unwrap(),
            at_v,
            "version {v} is not stable"
        );
        let again_v6 =
            bytecode::write(&back, &bytecode::WriteOptions::new(6, &info.producer)).unwrap();
        assert_eq!(again_v6, v6, "version {v} lost information");
    }
}

/// The one use-list record of the 1.2.0 artifact (`%arg0` of `op_custom_call_empty_result_layout`,
/// used by `custom_call_v1` and then `return_v1`) is what [`bytecode::OpOrder`] computes when the
/// custom call's use sits first in memory, as after HEAD's `VhloToVersion` rewrite.
#[test]
#[cfg_attr(
    not(has_compat_suite),
    ignore = "needs ../shared/compat-suite (or VHLO_COMPAT_SUITE)"
)]
fn use_list_record_is_recomputed_from_the_in_memory_order() {
    let Some(dir) = suite_dir() else { return };
    let bytes = std::fs::read(dir.join("stablehlo_legalize_to_vhlo.1_2_0.mlir.bc")).unwrap();
    let (module, info) = bytecode::read(&bytes).unwrap();
    assert_eq!(info.use_list_orders.len(), 1);
    let (&value, record) = info.use_list_orders.iter().next().unwrap();
    let mut uses = Vec::new();
    module.walk(|op| {
        for (i, &v) in module.operands(op).iter().enumerate() {
            if v == value {
                uses.push((op, i as u32));
            }
        }
    });
    let names: Vec<&str> = uses.iter().map(|&(op, _)| module.op_name_str(op)).collect();
    assert_eq!(names, ["vhlo.custom_call_v1", "vhlo.return_v1"]);
    let order = bytecode::OpOrder::new(&module);
    assert_eq!(order.use_list_order(&uses).as_ref(), Some(record));
    // The order a reader builds by itself (reverse program order) needs no record.
    uses.reverse();
    assert_eq!(order.use_list_order(&uses), None);
}

/// The jaxlib-written fixtures (`tests/fixtures/jax`, from the oracle work): artifacts with
/// locations kept (`jax_export`) and at several targets. Each one reads and writes back byte for
/// byte, except those using a dialect whose custom encoding is unknown here (Shardy), which
/// must be rejected by name.
#[test]
fn jax_fixtures_round_trip_byte_for_byte() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/jax");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("skipping: no JAX fixtures at {}", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".mlir.bc"))
        .collect();
    files.sort();
    let (mut identical, mut unsupported) = (0, 0);
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let bytes = std::fs::read(path).unwrap();
        match bytecode::read(&bytes) {
            Ok((module, info)) => {
                let opts = bytecode::WriteOptions {
                    bytecode_version: info.bytecode_version,
                    producer: &info.producer,
                    use_list_orders: Some(&info.use_list_orders),
                    block_arg_locations: Some(&info.block_arg_locations),
                };
                let out = bytecode::write(&module, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(out == bytes, "{name}: written bytes differ");
                identical += 1;
            }
            Err(e) if e.message.contains("dialect 'sdy'") => unsupported += 1,
            Err(e) => panic!("{name}: {e}"),
        }
    }
    eprintln!(
        "{identical}/{} JAX fixtures round-trip byte for byte, {unsupported} use Shardy",
        files.len()
    );
    assert!(identical > 0 || files.is_empty());
}

// ---- Reader rules on hand-edited bytes ----------------------------------------------------------

/// `%0` (the abs) and `%a` each have three uses; the function body defines six values.
const THREE_USES: &str = "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.abs %a : tensor<f32>\n  %1 = stablehlo.add %0, %a : tensor<f32>\n  %2 = stablehlo.multiply %1, %0 : tensor<f32>\n  %3 = stablehlo.subtract %2, %0 : tensor<f32>\n  %4 = stablehlo.add %3, %a : tensor<f32>\n  return %4 : tensor<f32>\n}\n";

/// The VHLO module of [`THREE_USES`] as our writer writes it (read back, verifying), with the
/// abs's result and the function's argument.
fn three_uses() -> (
    vhlo_core::ir::Module,
    bytecode::ArtifactInfo,
    vhlo_core::ir::Value,
    vhlo_core::ir::Value,
) {
    let m = vhlo_core::text::parse(THREE_USES).expect("parses");
    let artifact = vhlo_tests::portable::serialize_portable_artifact(
        &m,
        "current",
        vhlo_tests::portable::SerializeOptions::default(),
    )
    .expect("serializes");
    let (m, info) = bytecode::read(&artifact).expect("reads");
    let mut ops = Vec::new();
    m.walk(|op| ops.push(op));
    let op = |name: &str| {
        *ops.iter()
            .find(|&&op| m.op_name_str(op) == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    let abs = m.result(op("vhlo.abs_v1"), 0).expect("abs result");
    let body = m.regions(op("vhlo.func_v1"))[0];
    let arg = m.block_args(m.blocks(body)[0])[0];
    (m, info, abs, arg)
}

/// Writes `m` with the non-pair use-list order `indices` recorded for `v` (read back by the
/// checked writer: a valid order reads).
fn with_order(
    m: &vhlo_core::ir::Module,
    info: &bytecode::ArtifactInfo,
    v: vhlo_core::ir::Value,
    indices: &[u64],
) -> Vec<u8> {
    let mut orders = std::collections::BTreeMap::new();
    orders.insert(
        v,
        bytecode::UseListOrder {
            pair_encoding: false,
            indices: indices.into(),
        },
    );
    let mut opts = bytecode::WriteOptions::new(info.bytecode_version, &info.producer);
    opts.use_list_orders = Some(&orders);
    bytecode::write(m, &opts).expect("writes")
}

/// A use-list order that is not a permutation of its value's uses is refused, naming the byte
/// where the order starts, as MLIR's reader refuses it; a valid one reads. Each bad order is an
/// in-place edit of the bytes of a valid one (`varintWithFlag(len, isPairs)`, then `len`
/// varints; non-shortest varints keep the record's size), in an op record (the abs, mask bit
/// HAS_USE_LIST_ORDERS) and in a block's argument mask.
#[test]
fn use_list_orders_that_are_not_permutations_are_refused_at_their_offset() {
    let (m, info, abs, arg) = three_uses();
    for (what, v) in [("op result", abs), ("block argument", arg)] {
        // Two valid orders differ only in their three index bytes: that places the record.
        let a = with_order(&m, &info, v, &[2, 0, 1]);
        let b = with_order(&m, &info, v, &[1, 2, 0]);
        assert_eq!(a.len(), b.len(), "{what}");
        let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
        assert_eq!(diff.len(), 3, "{what}: {diff:?}");
        let p = diff[0];
        assert_eq!(diff, [p, p + 1, p + 2], "{what}");
        let header = p - 1;
        // varintWithFlag(3, false) = 6, a one-byte varint; then 2, 0, 1.
        assert_eq!(a[header..p + 3], [0x0D, 0x05, 0x01, 0x03], "{what}");

        // The valid order reads, and is the one recorded.
        let (_, read) = bytecode::read(&a).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(
            read.use_list_orders
                .values()
                .any(|o| !o.pair_encoding && *o.indices == [2, 0, 1]),
            "{what}: {:?}",
            read.use_list_orders
        );
        vhlo_tests::portable::deserialize_portable_artifact(&a)
            .unwrap_or_else(|e| panic!("{what}: {e}"));

        let cases: [(&str, [u8; 4], &str); 5] = [
            // [2, 0, 0]
            (
                "a repeated index",
                [0x0D, 0x05, 0x01, 0x01],
                "is not a permutation of the value's 3 uses",
            ),
            // [2, 0, 5]
            (
                "an index out of range",
                [0x0D, 0x05, 0x01, 0x0B],
                "is not a permutation of the value's 3 uses",
            ),
            // [2, 0]: length 2, the 0 as a two-byte varint.
            (
                "the wrong length",
                [0x09, 0x05, 0x02, 0x00],
                "use-list order of length 2 for a value with 3 uses",
            ),
            // Pairs, length 3: (2, 0) and a lone 1.
            (
                "an odd-length pair encoding",
                [0x0F, 0x05, 0x01, 0x03],
                "pair-encoded use-list order has an odd length 3",
            ),
            // Pairs, length 2: (0, 7), the 7 as a two-byte varint.
            (
                "a pair naming a use out of range",
                [0x0B, 0x01, 0x1E, 0x00],
                "use-list order names use 7 of a value with 3 uses",
            ),
        ];
        for (case, record, message) in cases {
            let mut bad = a.clone();
            bad[header..header + 4].copy_from_slice(&record);
            let e = bytecode::read(&bad)
                .err()
                .unwrap_or_else(|| panic!("{what}, {case}: read"));
            assert_eq!(e.offset, header, "{what}, {case}: {e}");
            let shown = e.to_string();
            assert!(
                shown.contains(message) && shown.contains(&format!("byte {header}")),
                "{what}, {case}: {shown}"
            );
            let e = vhlo_tests::portable::deserialize_portable_artifact(&bad)
                .err()
                .unwrap_or_else(|| panic!("{what}, {case}: deserialized"))
                .to_string();
            assert!(e.contains(message), "{what}, {case}: {e}");
        }
    }
}

/// An isolated region (a function body, in a nested IR section) whose header declares fewer
/// values than it defines is refused, as MLIR's reader refuses it; the header as written reads.
#[test]
fn a_region_that_defines_more_values_than_declared_is_refused() {
    let (m, info, _, _) = three_uses();
    let artifact = bytecode::write(
        &m,
        &bytecode::WriteOptions::new(info.bytecode_version, &info.producer),
    )
    .expect("writes");
    // The function's regions: varintWithFlag(1 region, isolated) = 07, a nested IR section
    // (04, its length), then the region: 1 block (03), 6 values (the argument and five results:
    // 0D). The module's own region declares 0 values.
    let at: Vec<usize> = (0..artifact.len().saturating_sub(5))
        .filter(|&i| {
            let w = &artifact[i..i + 5];
            w[0] == 0x07
                && w[1] == 0x04
                && w[2] & 1 == 1
                && i + 3 + usize::from(w[2] >> 1) <= artifact.len()
                && w[3] == 0x03
                && w[4] == 0x0D
        })
        .map(|i| i + 4)
        .collect();
    assert_eq!(at.len(), 1, "the function body's header: {at:?}");
    let count = at[0];
    bytecode::read(&artifact).expect("the header as written reads");
    // 5 and 0 values declared (varint 0B, 01).
    for declared in [0x0B, 0x01] {
        let mut bad = artifact.clone();
        bad[count] = declared;
        let e = bytecode::read(&bad)
            .err()
            .unwrap_or_else(|| panic!("declared {}: read", declared >> 1))
            .to_string();
        assert!(
            e.contains("region defines more values than its header declared"),
            "declared {}: {e}",
            declared >> 1
        );
        let e = vhlo_tests::portable::deserialize_portable_artifact(&bad)
            .err()
            .unwrap_or_else(|| panic!("declared {}: deserialized", declared >> 1))
            .to_string();
        assert!(
            e.contains("region defines more values than its header declared"),
            "{e}"
        );
    }
}
