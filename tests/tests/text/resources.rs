//! `dense_resource` and MLIR bytecode's resource sections: text round trips, the
//! artifact round trip, blobs borrowed from the input rather than copied, and hostile resource
//! sections (misaligned, truncated, huge sizes, bad alignments), each refused with a clear
//! error. The live comparison with libStablehlo is `resources_oracle.rs`.

use vhlo_core::ir::{AttrData, Blob, Module};
use vhlo_core::text::{self, PrintOptions};
use vhlo_tests::portable::{self, SerializeOptions};

const ALLOW: SerializeOptions = SerializeOptions {
    strip_debuginfo: true,
    allow_other_dialects: true,
    strict: false,
    skip_verification: false,
};

/// A `main` returning one `stablehlo.constant` of `value : ty`, then `resources` (the inside of
/// the builtin group) in a file metadata block when not empty.
fn constant(value: &str, ty: &str, resources: &str) -> String {
    let mut s = format!(
        "func.func @main() -> {ty} {{\n  %0 = stablehlo.constant {value} : {ty}\n  return %0 : {ty}\n}}\n"
    );
    if !resources.is_empty() {
        s.push_str(&format!(
            "{{-#\n  dialect_resources: {{\n    builtin: {{\n      {resources}\n    }}\n  }}\n#-}}\n"
        ));
    }
    s
}

fn print(m: &Module) -> String {
    text::print(m, PrintOptions::default())
}

fn current() -> String {
    portable::current_version().to_string()
}

/// Prefix varint, as MLIR bytecode writes it.
fn varint(v: u64) -> Vec<u8> {
    let mut n = 1;
    while n < 9 && v >> (7 * n) != 0 {
        n += 1;
    }
    if n == 9 {
        let mut out = vec![0];
        out.extend_from_slice(&v.to_le_bytes());
        return out;
    }
    let encoded = ((v << 1) | 1) << (n - 1);
    encoded.to_le_bytes()[..n].to_vec()
}

/// Reads a prefix varint at `*at`.
fn read_varint(b: &[u8], at: &mut usize) -> u64 {
    let first = b[*at];
    if first == 0 {
        let v = u64::from_le_bytes(b[*at + 1..*at + 9].try_into().unwrap());
        *at += 9;
        return v;
    }
    let n = first.trailing_zeros() as usize + 1;
    let mut buf = [0u8; 8];
    buf[..n].copy_from_slice(&b[*at..*at + n]);
    *at += n;
    u64::from_le_bytes(buf) >> n
}

/// A section of an artifact: its id, its whole bytes, its body.
type Section = (u8, std::ops::Range<usize>, std::ops::Range<usize>);

/// The sections of an artifact: (id, whole section bytes, body range), after the header.
fn sections(b: &[u8]) -> (usize, Vec<Section>) {
    let mut at = 4;
    read_varint(b, &mut at);
    at += b[at..].iter().position(|&c| c == 0).unwrap() + 1;
    let header = at;
    let mut out = Vec::new();
    while at < b.len() {
        let start = at;
        let id = b[at];
        at += 1;
        let len = read_varint(b, &mut at) as usize;
        if id & 0x80 != 0 {
            let align = read_varint(b, &mut at) as usize;
            while !at.is_multiple_of(align) {
                at += 1;
            }
        }
        out.push((id & 0x7f, start..at + len, at..at + len));
        at += len;
    }
    (header, out)
}

/// `artifact` with its resource sections replaced by `offsets` and `body`; the resource section
/// starts at a multiple of `align` from the start of the file (its id's high bit and padding, as
/// MLIR writes an aligned section).
fn with_resources(artifact: &[u8], offsets: &[u8], body: &[u8], align: usize) -> Vec<u8> {
    let (header, secs) = sections(artifact);
    let mut out = artifact[..header].to_vec();
    for (id, whole, _) in &secs {
        if *id != 5 && *id != 6 {
            out.extend_from_slice(&artifact[whole.clone()]);
        }
    }
    out.push(6);
    out.extend(varint(offsets.len() as u64));
    out.extend_from_slice(offsets);
    out.push(if align > 1 { 0x85 } else { 5 });
    out.extend(varint(body.len() as u64));
    if align > 1 {
        out.extend(varint(align as u64));
        while !out.len().is_multiple_of(align) {
            out.push(0xCB);
        }
    }
    out.extend_from_slice(body);
    out
}

/// The offsets section of `artifact` up to its first resource key (external count, dialect,
/// count, key), for building entries that refer to the same key.
fn offsets_prefix(artifact: &[u8]) -> Vec<u8> {
    let (_, secs) = sections(artifact);
    let (_, _, body) = secs.iter().find(|(id, _, _)| *id == 6).unwrap().clone();
    let b = &artifact[body.clone()];
    let mut at = 0;
    for _ in 0..4 {
        read_varint(b, &mut at);
    }
    b[..at].to_vec()
}

/// An artifact of a constant backed by a 64-byte blob `key` (alignment 16).
fn artifact_with_blob() -> Vec<u8> {
    let hex: String = (0..16).map(|i| format!("{:02X}000000", i)).collect();
    let src = constant(
        "dense_resource<weights>",
        "tensor<16xi32>",
        &format!("weights: \"0x10000000{hex}\""),
    );
    let m = vhlo_tests::parse_any_dialect(&src).expect("parses");
    portable::serialize_portable_artifact(&m, &current(), ALLOW).expect("serializes")
}

#[test]
fn text_prints_as_it_parses() {
    let cases = [
        constant(
            "dense_resource<blob1>",
            "tensor<2xf32>",
            "blob1: \"0x040000000000803F00000040\"",
        ),
        constant("dense_resource<__elided__>", "tensor<2xf32>", ""),
        constant(
            "dense_resource<\"my key\">",
            "tensor<2xf32>",
            "\"my key\": \"0x040000000000803F00000040\"",
        ),
        // An empty blob prints with alignment 0, as MLIR prints it.
        constant("dense_resource<e>", "tensor<0xf32>", "e: \"0x00000000\""),
    ];
    for src in &cases {
        let m = vhlo_tests::parse_any_dialect(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        let printed = print(&m);
        let again = print(&vhlo_tests::parse_any_dialect(&printed).expect("our print parses"));
        assert_eq!(printed, again, "print is not stable for\n{src}");
        for key in ["blob1", "__elided__", "\"my key\"", "e"] {
            if src.contains(&format!("dense_resource<{key}>")) {
                assert!(
                    printed.contains(&format!("dense_resource<{key}>")),
                    "{printed}"
                );
            }
        }
        // Only resources with data get a metadata block.
        assert_eq!(printed.contains("{-#"), src.contains("{-#"), "{printed}");
    }
    // Unreferenced resources are not printed (MLIR prints those its printer met).
    let unused = constant(
        "dense<1.0>",
        "tensor<2xf32>",
        "blob1: \"0x040000000000803F00000040\"",
    );
    assert!(!print(&vhlo_tests::parse_any_dialect(&unused).unwrap()).contains("{-#"));
}

#[test]
fn artifacts_round_trip_with_their_resources() {
    let two = "func.func @main() -> (tensor<5xi8>, tensor<2xf32>, tensor<2xf32>) {\n  %0 = stablehlo.constant dense_resource<a> : tensor<5xi8>\n  %1 = stablehlo.constant dense_resource<b> : tensor<2xf32>\n  %2 = stablehlo.constant dense_resource<__elided__> : tensor<2xf32>\n  return %0, %1, %2 : tensor<5xi8>, tensor<2xf32>, tensor<2xf32>\n}\n{-#\n  dialect_resources: {\n    builtin: {\n      a: \"0x010000000102030405\",\n      b: \"0x400000000000803F00000040\"\n    }\n  }\n#-}\n";
    let on_func = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> attributes {foo.r = dense_resource<w> : tensor<2xf32>, foo.u} {\n  return %a : tensor<2xf32>\n}\n{-#\n  dialect_resources: {\n    builtin: {\n      w: \"0x080000000000803F00000040\"\n    }\n  }\n#-}\n";
    for src in [two, on_func] {
        let m = vhlo_tests::parse_any_dialect(src).expect("parses");
        for target in ["1.0.0".to_string(), current()] {
            let bytes = portable::serialize_portable_artifact(&m, &target, ALLOW)
                .unwrap_or_else(|e| panic!("{target}: {e}"));
            let back = portable::deserialize_portable_artifact(&bytes).expect("reads back");
            assert_eq!(print(&back), print(&m), "round trip at {target}");
            // Every blob lies at a multiple of its alignment from the start of the file.
            let (back_vhlo, _) = portable::read_vhlo(&bytes).unwrap();
            let mut blobs = 0;
            for key in ["a", "b", "w"] {
                if let Some(sym) = back_vhlo.lookup_sym(key) {
                    if let Some(b) = back_vhlo.resource_blob(sym) {
                        let at = bytes
                            .windows(b.data.len())
                            .position(|w| w == &b.data[..])
                            .unwrap();
                        assert_eq!(at % b.alignment as usize, 0, "'{key}' at byte {at}");
                        blobs += 1;
                    }
                }
            }
            assert!(blobs >= 1);
        }
    }
}

#[test]
fn other_dialect_content_needs_allow_other_dialects() {
    let cases = [
        (
            constant(
                "dense_resource<b>",
                "tensor<2xf32>",
                "b: \"0x040000000000803F00000040\"",
            ),
            "stablehlo.constant",
        ),
        (
            "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> attributes {_from_xla_call_module} {\n  return %a : tensor<2xf32>\n}\n".to_string(),
            "_from_xla_call_module",
        ),
    ];
    let deny = SerializeOptions {
        allow_other_dialects: false,
        ..ALLOW
    };
    for (src, named) in &cases {
        let m = vhlo_tests::parse_any_dialect(src).unwrap();
        // unchecked: refused, nothing is written.
        let e = vhlo_core::portable::serialize_portable_artifact(&m, &current(), deny)
            .expect_err("refused without allow_other_dialects")
            .to_string();
        assert!(e.contains(named), "{e}");
        portable::serialize_portable_artifact(&m, &current(), ALLOW).expect("kept with it");
    }
}

#[test]
fn what_mlir_cannot_read_back_is_not_written() {
    // An empty blob: MLIR writes it with alignment 0, then refuses to read it.
    let empty = constant("dense_resource<e>", "tensor<0xf32>", "e: \"0x04000000\"");
    // An attribute of a dialect libStablehlo does not load.
    let foreign = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> attributes {foo.x = #foo.bar<1>} {\n  return %a : tensor<2xf32>\n}\n";
    // Padding to a 1 MiB alignment is more than this writer pads to.
    let huge = constant(
        "dense_resource<h>",
        "tensor<1xf32>",
        "h: \"0x000010000000803F\"",
    );
    for (src, why) in [
        (empty.as_str(), "empty blob"),
        (foreign, "libStablehlo does not load"),
        (huge.as_str(), "alignment 1048576"),
    ] {
        let m = vhlo_tests::parse_any_dialect(src).unwrap_or_else(|e| panic!("{src}: {e}"));
        // unchecked: refused, nothing is written.
        let e = vhlo_core::portable::serialize_portable_artifact(&m, &current(), ALLOW)
            .expect_err(why)
            .to_string();
        assert!(e.contains(why), "{e}");
    }
}

#[test]
fn text_errors_are_mlirs() {
    let blob = |v: &str| constant("dense_resource<b>", "tensor<2xf32>", &format!("b: {v}"));
    let cases = [
        (blob("\"0x0400\""), "expected hex string blob for key 'b' to encode alignment in first 4 bytes", 8),
        (blob("\"0x03000000AA\""), "but got non-power-of-2 value: 3", 8),
        (blob("\"0x00000000AA\""), "non-power-of-2 value: 0", 8),
        (blob("\"0x0400000\""), "expected hex string blob for key 'b'", 8),
        (blob("\"0x04000000zz\""), "expected hex string blob for key 'b'", 8),
        (blob("10"), "expected hex string blob for key 'b'", 8),
        (
            constant("dense_resource<b>", "tensor<2xf32>", "").replace(
                "}\n",
                "}\n{-#\n  dialect_resources: {\n    foobar: {\n      b: \"0x04000000\"\n    }\n  }\n#-}\n",
            ),
            "dialect 'foobar' is unknown",
            7,
        ),
        (
            format!("{}{{-#\n  some_key: {{}}\n#-}}\n", constant("dense<1.0>", "tensor<2xf32>", "")),
            "unknown key 'some_key' in file metadata dictionary",
            6,
        ),
        (
            "func.func @main() -> f32 {\n  %0 = \"foo.c\"() {v = dense_resource<b> : f32} : () -> f32\n  return %0 : f32\n}\n".to_string(),
            "`dense_resource` expected a shaped type",
            2,
        ),
    ];
    for (src, message, line) in &cases {
        let e = vhlo_tests::parse_any_dialect(src).expect_err(message);
        assert!(e.message.contains(message), "{src}\n{e}");
        assert_eq!(e.line, *line, "{src}\n{e}");
    }
    // External resources are skipped, as MLIR skips those it has no parser for.
    let external = format!(
        "{}{{-#\n  external_resources: {{\n    mlir_reproducer: {{\n      pipeline: \"builtin.module(cse)\",\n      disable_threading: true\n    }}\n  }}\n#-}}\n",
        constant("dense<1.0>", "tensor<2xf32>", "")
    );
    vhlo_tests::parse_any_dialect(&external).expect("external resources are skipped");
}

#[test]
fn large_blobs_are_borrowed_from_the_input() {
    // 1 MiB of weights: a view of the artifact after reading, never a copy.
    let n = 1 << 18;
    let hex: String = "0000803F".repeat(n);
    let src = constant(
        "dense_resource<weights>",
        &format!("tensor<{n}xf32>"),
        &format!("weights: \"0x40000000{hex}\""),
    );
    let m = vhlo_tests::parse_any_dialect(&src).unwrap();
    let bytes = portable::serialize_portable_artifact(&m, &current(), ALLOW).unwrap();
    let input = Blob::from(bytes);
    let range = input.as_ptr() as usize..input.as_ptr() as usize + input.len();
    let (vhlo, _) = portable::read_vhlo_shared(&input, Default::default()).unwrap();
    let back = portable::deserialize_portable_shared(&input, Default::default()).unwrap();
    for m in [&vhlo, &back] {
        let key = m.lookup_sym("weights").unwrap();
        let blob = m.resource_blob(key).expect("the blob");
        assert_eq!(blob.data.len(), 4 * n);
        assert_eq!(blob.alignment, 64);
        assert!(blob.data.is_shared(), "the blob is a view, not a copy");
        let at = blob.data.as_ptr() as usize;
        assert!(
            range.contains(&at) && at + blob.data.len() <= range.end,
            "the blob's bytes lie inside the input buffer"
        );
        assert_eq!(
            (at - range.start) % 64,
            0,
            "aligned from the start of the file"
        );
        let found = m.walk_attrs_find_dense_resource();
        assert_eq!(found, Some(key));
    }
}

/// The key of the first `dense_resource` attribute of a module's ops.
trait FindDenseResource {
    fn walk_attrs_find_dense_resource(&self) -> Option<vhlo_core::ir::Symbol>;
}

impl FindDenseResource for Module {
    fn walk_attrs_find_dense_resource(&self) -> Option<vhlo_core::ir::Symbol> {
        let mut found = None;
        self.walk(|op| {
            for a in self.properties(op).iter().chain(self.attributes(op)) {
                if let AttrData::DenseResource { key, .. } = self.attr_data(a.value) {
                    found = found.or(Some(*key));
                }
            }
        });
        found
    }
}

/// Reads `bytes` with both readers; the error text (no panic, whatever the bytes).
fn refused(bytes: &[u8]) -> String {
    let shared = Blob::from(bytes.to_vec());
    let e1 = vhlo_core::bytecode::read(bytes)
        .expect_err("refused")
        .to_string();
    let e2 = vhlo_core::bytecode::read_shared(&shared)
        .expect_err("refused")
        .to_string();
    assert_eq!(e1, e2);
    e1
}

#[test]
fn hostile_resource_sections_are_refused_clearly() {
    let good = artifact_with_blob();
    vhlo_core::bytecode::read(&good).expect("the base artifact reads");
    let prefix = offsets_prefix(&good);
    let data: Vec<u8> = (0..64).collect();
    // One entry: alignment, size, padding to `pad_to` from the (16-aligned) section start.
    let entry = |align: u64, size: u64, pad: usize, pad_byte: u8, data: &[u8]| {
        let mut e = varint(align);
        e.extend(varint(size));
        while e.len() < pad {
            e.push(pad_byte);
        }
        e.extend_from_slice(data);
        e
    };
    let offsets_for = |entry_len: usize, kind: u8| {
        let mut o = prefix.clone();
        o.extend(varint(entry_len as u64));
        o.push(kind);
        o
    };
    let case = |body: Vec<u8>, kind: u8, align: usize| {
        with_resources(&good, &offsets_for(body.len(), kind), &body, align)
    };
    // The base, rebuilt by the helpers, reads: the cases below differ from it in one thing.
    let base = entry(16, 64, 16, 0xCB, &data);
    vhlo_core::bytecode::read(&case(base.clone(), 0, 16)).expect("the rebuilt artifact reads");

    let checks: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "alignment 3",
            case(entry(3, 64, 2, 0xCB, &data), 0, 16),
            "alignment 3 is not a power of two",
        ),
        (
            "alignment 0",
            case(entry(0, 64, 2, 0xCB, &data), 0, 16),
            "alignment 0 is not a power of two",
        ),
        (
            "alignment past 32 bits",
            case(entry(1 << 40, 64, 16, 0xCB, &data), 0, 16),
            "is not a power of two",
        ),
        (
            "bad padding byte",
            case(entry(16, 64, 16, 0x00, &data), 0, 16),
            "padding is not 0xCB",
        ),
        // The data lies 16 bytes past a 32-byte boundary, and asks for 32.
        (
            "misaligned blob",
            case(entry(32, 64, 16, 0xCB, &data), 0, 32),
            "padding is not 0xCB",
        ),
        (
            "blob longer than its entry",
            case(entry(16, 65, 16, 0xCB, &data), 0, 16),
            "65 bytes needed but only 64 remain",
        ),
        (
            "huge blob size",
            case(entry(16, 1 << 62, 16, 0xCB, &data), 0, 16),
            "bytes needed but only",
        ),
        (
            "trailing bytes",
            case([base.clone(), vec![0]].concat(), 0, 16),
            "unexpected trailing bytes in resource entry 'weights'",
        ),
        (
            "bool entry",
            case(base.clone(), 1, 16),
            "found a bool entry",
        ),
        (
            "entry past the section",
            with_resources(&good, &offsets_for(base.len() + 1, 0), &base, 16),
            "bytes needed but only",
        ),
        (
            "huge entry size",
            with_resources(&good, &offsets_for(usize::MAX >> 2, 0), &base, 16),
            "bytes needed but only",
        ),
        (
            "huge entry count",
            with_resources(
                &good,
                &[1, 1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
                &base,
                16,
            ),
            "",
        ),
        (
            "group of an unknown dialect index",
            with_resources(&good, &[1, 0x7f, 3, 3, 3, 1], &base, 16),
            "invalid dialect index 63",
        ),
        (
            "group of the vhlo dialect",
            with_resources(
                &good,
                &[
                    [1u8, 3].as_slice(),
                    &prefix[2..],
                    &varint(base.len() as u64),
                    &[0],
                ]
                .concat(),
                &base,
                16,
            ),
            "resources of dialect 'vhlo' are not supported",
        ),
        (
            "key defined twice",
            {
                let mut o = prefix.clone();
                o[2] = 5; // two entries
                o.extend(varint(base.len() as u64));
                o.push(0);
                o.extend_from_slice(&prefix[3..]);
                o.extend(varint(0));
                o.push(0);
                with_resources(&good, &o, &base, 16)
            },
            "resource 'weights' is defined twice",
        ),
        (
            "no resource handle",
            with_resources(&good, &[1], &[], 1),
            "invalid resource handle index 0",
        ),
    ];
    for (what, bytes, message) in &checks {
        let e = refused(bytes);
        assert!(e.contains(message), "{what}: {e}");
        assert!(
            e.contains("byte "),
            "{what}: the error gives a position: {e}"
        );
    }
    // Truncated anywhere in the resource sections: an error, never a panic.
    let (_, secs) = sections(&good);
    let (_, whole, _) = secs.iter().find(|(id, _, _)| *id == 5).unwrap().clone();
    for cut in (whole.start..whole.end).step_by(3) {
        let _ = refused(&good[..cut]);
    }
    // A resource section without its offset section.
    let (header, secs) = sections(&good);
    let mut lone = good[..header].to_vec();
    for (id, whole, _) in &secs {
        if *id != 5 && *id != 6 {
            lone.extend_from_slice(&good[whole.clone()]);
        }
    }
    lone.push(5);
    lone.extend(varint(base.len() as u64));
    lone.extend_from_slice(&base);
    let e = refused(&lone);
    assert!(e.contains("must both be present"), "{e}");
}
