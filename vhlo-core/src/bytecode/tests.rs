//! Reader/writer tests on hand-built modules: nesting limits and exact encodings.

use super::*;
use crate::ir::{AttrData, DialectAttr, DialectType, LocData, OperationState, Param, TypeData};

/// `builtin.module { vhlo.return_v1 loc(<name chain of `depth`>) }`.
fn module_with_name_chain(depth: usize) -> Module {
    let mut m = Module::new();
    let mut loc = m.unknown_loc();
    for i in 0..depth {
        let name = m.sym(&format!("n{i}"));
        loc = m.loc(LocData::Name {
            name,
            child: Some(loc),
        });
    }
    let region = m.create_region();
    let block = m.append_block(region, &[]);
    let ret = m.sym("vhlo.return_v1");
    let op = m.create_op(OperationState::new(ret, loc));
    m.append_op(block, op);
    let name = m.sym("builtin.module");
    let mut state = OperationState::new(name, m.unknown_loc());
    state.regions.push(region);
    let top = m.create_op(state);
    m.push_top(top);
    m
}

/// `depth` nested `builtin.module`s.
fn nested_modules(depth: usize) -> Module {
    let mut m = Module::new();
    let name = m.sym("builtin.module");
    let mut inner = m.create_op(OperationState::new(name, m.unknown_loc()));
    for _ in 1..depth {
        let region = m.create_region();
        let block = m.append_block(region, &[]);
        m.append_op(block, inner);
        let mut state = OperationState::new(name, m.unknown_loc());
        state.regions.push(region);
        inner = m.create_op(state);
    }
    m.push_top(inner);
    m
}

fn name_chain_depth(m: &Module) -> usize {
    let module = m.top_ops()[0];
    let block = m.blocks(m.regions(module)[0])[0];
    let mut loc = m.op_location(m.block_ops(block)[0]);
    let mut depth = 0;
    while let LocData::Name { child, .. } = m.loc_data(loc) {
        depth += 1;
        loc = child.unwrap_or(m.unknown_loc());
    }
    depth
}

#[test]
fn location_chains_round_trip_at_every_version() {
    let m = module_with_name_chain(40);
    for v in 0..=6 {
        let bytes = write(&m, &WriteOptions::new(v, "StableHLO_v1.0.0")).unwrap();
        let (back, info) = read(&bytes).unwrap();
        assert_eq!(info.bytecode_version, v);
        assert_eq!(name_chain_depth(&back), 40, "version {v}");
        // Writing what was read gives the same bytes.
        assert_eq!(
            write(&back, &WriteOptions::new(v, "StableHLO_v1.0.0")).unwrap(),
            bytes,
            "version {v}"
        );
    }
}

/// The one nesting limit (`ir::MAX_NESTING`): what the writer writes, the reader reads; past
/// it, both refuse.
#[test]
fn too_deep_attributes_are_rejected_not_overflowed() {
    let m = module_with_name_chain(300);
    let bytes = write(&m, &WriteOptions::new(6, "p")).unwrap();
    assert_eq!(name_chain_depth(&read(&bytes).unwrap().0), 300);
    let e = write(&module_with_name_chain(1100), &WriteOptions::new(6, "p")).unwrap_err();
    assert!(e.0.contains("nested more than 1000"), "{e:?}");
}

#[test]
fn too_deep_regions_are_rejected_not_overflowed() {
    let ok = nested_modules(300);
    let bytes = write(&ok, &WriteOptions::new(6, "p")).unwrap();
    let (back, _) = read(&bytes).unwrap();
    let mut count = 0;
    back.walk(|_| count += 1);
    assert_eq!(count, 300);
    assert!(write(&nested_modules(1100), &WriteOptions::new(1, "p")).is_err());
}

/// `#vhlo.integer_v1<-1 : si32>` is the zero-extended 0xFFFFFFFF zigzagged (`d0 ff ff ff 3f`),
/// and an i1 tensor of 8 elements is bit-packed.
#[test]
fn vhlo_payload_encodings_match_mlir() {
    let mut m = module_with_name_chain(0);
    let vhlo = m.sym("vhlo");
    let i32_name = m.sym("i32_v1");
    let si32 = m.ty(TypeData::Dialect(DialectType {
        dialect: vhlo,
        mnemonic: i32_name,
        params: Box::new([]),
    }));
    let int_name = m.sym("integer_v1");
    let minus_one = m.attr(AttrData::Dialect(DialectAttr {
        dialect: vhlo,
        mnemonic: int_name,
        params: Box::new([Param::Type(si32), Param::Int(-1)]),
    }));
    let bool_name = m.sym("bool_v1");
    let bool_ty = m.ty(TypeData::Dialect(DialectType {
        dialect: vhlo,
        mnemonic: bool_name,
        params: Box::new([]),
    }));
    let tensor_name = m.sym("tensor_v1");
    let bool_tensor = m.ty(TypeData::Dialect(DialectType {
        dialect: vhlo,
        mnemonic: tensor_name,
        params: Box::new([
            Param::Ints(Box::new([8])),
            Param::Type(bool_ty),
            Param::Absent,
        ]),
    }));
    let tensor = m.attr(AttrData::Dialect(DialectAttr {
        dialect: vhlo,
        mnemonic: tensor_name,
        params: Box::new([
            Param::Type(bool_tensor),
            Param::Bytes([1, 0, 0, 0, 0, 0, 0, 1].into()),
        ]),
    }));
    let array_name = m.sym("array_v1");
    let array = m.attr(AttrData::Dialect(DialectAttr {
        dialect: vhlo,
        mnemonic: array_name,
        params: Box::new([Param::Attrs(Box::new([minus_one, tensor]))]),
    }));
    let module = m.top_ops()[0];
    let key = m.sym("test.attr");
    m.set_attributes(
        module,
        &[crate::ir::NamedAttr {
            name: key,
            value: array,
        }],
    );
    let bytes = write(&m, &WriteOptions::new(6, "p")).unwrap();
    let find = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    // integer_v1 code 9, the type index, then the value.
    assert!(
        bytes
            .windows(5)
            .any(|w| w == [0xd0, 0xff, 0xff, 0xff, 0x3f]),
        "{bytes:02x?}"
    );
    // tensor_v1 code 15, the type index, then a 1-byte blob 0b1000_0001.
    assert!(find(&[0x03, 0x81]), "{bytes:02x?}");
    let (back, _) = read(&bytes).unwrap();
    let value = back.attribute(back.top_ops()[0], "test.attr").unwrap();
    let AttrData::Dialect(arr) = back.attr_data(value) else {
        panic!()
    };
    let [Param::Attrs(items)] = &*arr.params else {
        panic!()
    };
    let AttrData::Dialect(int) = back.attr_data(items[0]) else {
        panic!()
    };
    assert_eq!(int.params[1], Param::Int(-1));
    let AttrData::Dialect(t) = back.attr_data(items[1]) else {
        panic!()
    };
    assert_eq!(t.params[1], Param::Bytes([1, 0, 0, 0, 0, 0, 0, 1].into()));
}

/// The spec's `int` kind is the bit pattern sign-extended to 64 bits whatever the signedness:
/// `#vhlo.integer_v1<4294967295 : ui32>` is stored as -1.
#[test]
fn unsigned_integer_values_are_sign_extended_patterns() {
    let mut m = module_with_name_chain(0);
    let vhlo = m.sym("vhlo");
    let ui32_name = m.sym("ui32_v1");
    let ui32 = m.ty(TypeData::Dialect(DialectType {
        dialect: vhlo,
        mnemonic: ui32_name,
        params: Box::new([]),
    }));
    let int_name = m.sym("integer_v1");
    let max = m.attr(AttrData::Dialect(DialectAttr {
        dialect: vhlo,
        mnemonic: int_name,
        params: Box::new([Param::Type(ui32), Param::Int(-1)]),
    }));
    let module = m.top_ops()[0];
    let key = m.sym("test.attr");
    m.set_attributes(
        module,
        &[crate::ir::NamedAttr {
            name: key,
            value: max,
        }],
    );
    let bytes = write(&m, &WriteOptions::new(6, "p")).unwrap();
    assert!(
        bytes
            .windows(5)
            .any(|w| w == [0xd0, 0xff, 0xff, 0xff, 0x3f]),
        "{bytes:02x?}"
    );
    let (back, _) = read(&bytes).unwrap();
    let value = back.attribute(back.top_ops()[0], "test.attr").unwrap();
    let AttrData::Dialect(int) = back.attr_data(value) else {
        panic!()
    };
    assert_eq!(int.params[1], Param::Int(-1));
}

/// Entries without a custom encoding travel as text: an unknown dialect's attribute stays
/// opaque. The narrow builtin float types have codes now (as jaxlib writes them), not text.
#[test]
fn textual_fallback_entries_round_trip() {
    let mut m = module_with_name_chain(0);
    let foo = m.sym("gpu");
    let text = m.sym("#gpu.bar<1, 2>");
    let opaque = m.attr(AttrData::Opaque { dialect: foo, text });
    let f8 = m.ty(TypeData::Float(crate::ir::FloatKind::F8E4M3FN));
    let type_attr = m.attr(AttrData::Type(f8));
    let module = m.top_ops()[0];
    let (k1, k2) = (m.sym("a.opaque"), m.sym("b.type"));
    m.set_attributes(
        module,
        &[
            crate::ir::NamedAttr {
                name: k1,
                value: opaque,
            },
            crate::ir::NamedAttr {
                name: k2,
                value: type_attr,
            },
        ],
    );
    for v in [0, 6] {
        let bytes = write(&m, &WriteOptions::new(v, "p")).unwrap();
        assert!(bytes.windows(15).any(|w| w == b"#gpu.bar<1, 2>\0"));
        assert!(!bytes.windows(9).any(|w| w == b"f8E4M3FN\0"));
        let (back, _) = read(&bytes).unwrap();
        let top = back.top_ops()[0];
        let a = back.attribute(top, "a.opaque").unwrap();
        match back.attr_data(a) {
            AttrData::Opaque { dialect, text } => {
                assert_eq!(
                    (back.str(*dialect), back.str(*text)),
                    ("gpu", "#gpu.bar<1, 2>")
                );
            }
            other => panic!("{other:?}"),
        }
        let t = back.attribute(top, "b.type").unwrap();
        let AttrData::Type(t) = back.attr_data(t) else {
            panic!()
        };
        assert_eq!(
            back.type_data(*t),
            &TypeData::Float(crate::ir::FloatKind::F8E4M3FN)
        );
    }
}

#[test]
fn ir_section_len_is_the_ir_sections_size() {
    // One op more or less in the IR changes the section by that op's bytes, and nothing else.
    let lens: Vec<usize> = [10, 11]
        .map(|n| {
            let bytes = write(&module_with_name_chain(n), &WriteOptions::new(6, "p")).unwrap();
            let ir = ir_section_len(&bytes).unwrap();
            assert!(ir > 0 && ir < bytes.len());
            ir
        })
        .to_vec();
    assert_eq!(
        lens[0], lens[1],
        "a longer location chain is not in the IR section"
    );
    let one = write(&nested_modules(2), &WriteOptions::new(6, "p")).unwrap();
    let two = write(&nested_modules(3), &WriteOptions::new(6, "p")).unwrap();
    assert!(ir_section_len(&two).unwrap() > ir_section_len(&one).unwrap());
    assert_eq!(
        ir_section_len(b"MLIR").unwrap_err().kind,
        BytecodeErrorKind::NotBytecode
    );
    // Cut before its end, the IR section is not found whole: an error, not a length.
    let mut cut = two.len();
    while ir_section_len(&two[..cut]).is_ok() {
        cut -= 1;
    }
    assert!(cut > 0 && ir_section_len(&two[..cut]).is_err());
    assert!((0..cut).all(|n| ir_section_len(&two[..n]).is_err()));
}

#[test]
fn header_errors_name_the_offset() {
    assert_eq!(read(b"MLIR").unwrap_err().offset, 0);
    let e = read(&[0x4D, 0x4C, 0xEF, 0x52, 0x0F, b'p', 0]).unwrap_err();
    assert!(e.message.contains("unsupported bytecode version 7"), "{e}");
    assert_eq!(e.offset, 4);
    let e = read(&[0x4D, 0x4C, 0xEF, 0x52, 0x0D, b'p']).unwrap_err();
    assert!(e.message.contains("unterminated"), "{e}");
    let e = read(&[0x4D, 0x4C, 0xEF, 0x52, 0x0D, b'p', 0]).unwrap_err();
    assert!(e.message.contains("missing string section"), "{e}");
}

/// Each error says what kind of problem it is, to match on.
#[test]
fn errors_have_a_kind() {
    let kind = |bytes: &[u8]| read(bytes).unwrap_err().kind;
    assert_eq!(kind(b"MLIR"), BytecodeErrorKind::NotBytecode);
    assert_eq!(kind(b"ML"), BytecodeErrorKind::NotBytecode);
    assert_eq!(
        kind(&[0x4D, 0x4C, 0xEF, 0x52, 0x0F, b'p', 0]),
        BytecodeErrorKind::Unsupported
    );
    assert_eq!(
        kind(&[0x4D, 0x4C, 0xEF, 0x52, 0x0D, b'p']),
        BytecodeErrorKind::Truncated
    );
    assert_eq!(
        kind(&[0x4D, 0x4C, 0xEF, 0x52, 0x0D, b'p', 0]),
        BytecodeErrorKind::Malformed
    );
    // A whole artifact cut short, at each length: truncated wherever a read runs out.
    let bytes = write(&nested_modules(3), &WriteOptions::new(6, "p")).unwrap();
    for n in 8..bytes.len() {
        let e = read(&bytes[..n]).unwrap_err();
        assert!(
            matches!(
                e.kind,
                BytecodeErrorKind::Truncated | BytecodeErrorKind::Malformed
            ),
            "{n}: {e}"
        );
    }
    // An op that a newer producer's VHLO has and this reader's does not.
    let mut m = Module::new();
    let name = m.sym("vhlo.future_op_v9");
    let op = m.create_op(OperationState::new(name, m.unknown_loc()));
    m.push_top(op);
    let bytes = write(&m, &WriteOptions::new(6, "p")).unwrap();
    let e = read(&bytes).unwrap_err();
    assert_eq!(e.kind, BytecodeErrorKind::Unsupported, "{e}");
}

#[test]
fn use_list_orders_pick_pairs_when_few_uses_moved() {
    let m = nested_modules(6);
    let mut ops = Vec::new();
    m.walk(|op| ops.push(op));
    let order = OpOrder::new(&m);
    // In memory: descending pre-order except the last two swapped.
    let uses: Vec<(crate::ir::OpId, u32)> =
        [5, 4, 3, 2, 0, 1].iter().map(|&i| (ops[i], 0)).collect();
    let r = order.use_list_order(&uses).unwrap();
    assert!(r.pair_encoding);
    assert_eq!(&*r.indices, &[5, 4, 4, 5]);
    // Ascending order moves every use: a full permutation.
    let uses: Vec<(crate::ir::OpId, u32)> = (0..6).map(|i| (ops[i], 0)).collect();
    let r = order.use_list_order(&uses).unwrap();
    assert!(!r.pair_encoding);
    assert_eq!(&*r.indices, &[5, 4, 3, 2, 1, 0]);
}

/// A flat function of many ops writes and reads back in time linear in its size (a quadratic
/// step would make this test crawl).
#[test]
fn large_programs_are_handled_linearly() {
    let mut m = Module::new();
    let vhlo = m.sym("vhlo");
    let f32_name = m.sym("f32_v1");
    let f32 = m.ty(TypeData::Dialect(DialectType {
        dialect: vhlo,
        mnemonic: f32_name,
        params: Box::new([]),
    }));
    let tensor_name = m.sym("tensor_v1");
    let t = m.ty(TypeData::Dialect(DialectType {
        dialect: vhlo,
        mnemonic: tensor_name,
        params: Box::new([Param::Ints(Box::new([4])), Param::Type(f32), Param::Absent]),
    }));
    let region = m.create_region();
    let block = m.append_block(region, &[t, t]);
    let args = m.block_args(block).to_vec();
    let add = m.sym("vhlo.add_v1");
    let mut prev = args[0];
    let n = 50_000;
    for i in 0..n {
        let mut st = OperationState::new(add, m.unknown_loc());
        st.operands = vec![prev, args[i % 2]];
        st.result_types = vec![t];
        let op = m.create_op(st);
        m.append_op(block, op);
        prev = m.result(op, 0).unwrap();
    }
    let module_name = m.sym("builtin.module");
    let mut st = OperationState::new(module_name, m.unknown_loc());
    st.regions.push(region);
    let top = m.create_op(st);
    m.push_top(top);
    let start = std::time::Instant::now();
    let bytes = write(&m, &WriteOptions::new(6, "p")).unwrap();
    let (back, _) = read(&bytes).unwrap();
    let mut count = 0;
    back.walk(|_| count += 1);
    assert_eq!(count, n + 1);
    assert!(start.elapsed().as_secs() < 20, "took {:?}", start.elapsed());
    eprintln!("{n} ops: {} bytes in {:?}", bytes.len(), start.elapsed());
}

/// An inherent attribute stored among the discardable ones is written as a property, so the
/// bytes match those of the same op with the attribute in its properties.
#[test]
fn inherent_attributes_in_the_attribute_list_are_properties() {
    let build = |as_property: bool| {
        let mut m = module_with_name_chain(0);
        let module = m.top_ops()[0];
        let name = m.sym("sym_name");
        let s = m.sym("main");
        let value = m.attr(AttrData::String { value: s, ty: None });
        let attr = [crate::ir::NamedAttr { name, value }];
        if as_property {
            m.set_properties(module, &attr);
        } else {
            m.set_attributes(module, &attr);
        }
        m
    };
    for v in [0, 6] {
        let a = write(&build(true), &WriteOptions::new(v, "p")).unwrap();
        let b = write(&build(false), &WriteOptions::new(v, "p")).unwrap();
        assert_eq!(a, b, "version {v}");
        let (back, _) = read(&a).unwrap();
        assert_eq!(back.properties(back.top_ops()[0]).len(), 1);
        assert!(back.attributes(back.top_ops()[0]).is_empty());
    }
}

/// `builtin.module { user(defs...) ; defs = producer() }`: one op whose `n` operands are all
/// forward references to the `n` results of the op after it (a graph region).
fn forward_references(n: usize) -> Module {
    let mut m = Module::new();
    let i32 = m.ty(TypeData::Integer {
        width: 32,
        signedness: crate::ir::Signedness::Signless,
    });
    let region = m.create_region();
    let block = m.append_block(region, &[]);
    let add = m.sym("vhlo.add_v1");
    let mut producer = OperationState::new(add, m.unknown_loc());
    producer.result_types = vec![i32; n];
    let producer = m.create_op(producer);
    let defs: Vec<_> = m.results(producer).collect();
    let mut user = OperationState::new(add, m.unknown_loc());
    user.operands = defs;
    let user = m.create_op(user);
    m.append_op(block, user);
    m.append_op(block, producer);
    let module_name = m.sym("builtin.module");
    let mut st = OperationState::new(module_name, m.unknown_loc());
    st.regions.push(region);
    let top = m.create_op(st);
    m.push_top(top);
    m
}

/// Forward references are patched in place: an op with many of them reads in linear time and
/// memory (patching by copying the operand list once per reference was quadratic in both).
#[test]
fn many_forward_references_are_patched_linearly() {
    let n = 40_000;
    let m = forward_references(n);
    let bytes = write(&m, &WriteOptions::new(6, "p")).unwrap();
    let start = std::time::Instant::now();
    let (back, _) = read(&bytes).unwrap();
    let block = back.blocks(back.regions(back.top_ops()[0])[0])[0];
    let [user, producer] = back.block_ops(block) else {
        panic!("expected two ops");
    };
    let defs: Vec<_> = back.results(*producer).collect();
    assert_eq!(back.operands(*user), &defs[..]);
    assert!(start.elapsed().as_secs() < 10, "took {:?}", start.elapsed());
}

/// A region's value count must be definable by the bytes left; the sum over nested regions as
/// well, so that nesting cannot multiply the memory an input claims.
#[test]
fn declared_value_counts_are_bounded_by_the_input() {
    let m = forward_references(3);
    let bytes = write(&m, &WriteOptions::new(6, "p")).unwrap();
    assert!(read(&bytes).is_ok());
    // The IR section: 09 (top-level: one op) then the module op: name, mask, location,
    // region header, then the region's block count and value count.
    let ir_start = find_section(&bytes, 4);
    let mut patched = bytes.clone();
    // Value count of the module's one region: the first byte equal to 0x07 (3 values) after the
    // block count 0x03 (1 block) past the op's fixed header.
    let at = (ir_start..bytes.len())
        .find(|&i| bytes[i] == 0x03 && bytes[i + 1] == 0x07)
        .expect("region header")
        + 1;
    patched[at] = 0xff; // 127 values, more than the few bytes after it can define
    let e = read(&patched).unwrap_err();
    assert!(e.message.contains("value count 127"), "{e}");
    assert_eq!(e.section, "IR");
    assert_eq!(e.offset, at);
}

/// Length of the body of the first top-level section with `id`.
fn section_len(bytes: &[u8], id: u8) -> usize {
    let mut c = encoding::Cursor::new(bytes, 0, "test");
    c.bytes(4).unwrap();
    c.varint().unwrap();
    c.cstr().unwrap();
    loop {
        let (sid, body) = c.section().unwrap();
        if sid == id {
            return body.remaining();
        }
    }
}

/// Offset of the body of the first top-level section with `id`.
fn find_section(bytes: &[u8], id: u8) -> usize {
    let mut c = encoding::Cursor::new(bytes, 0, "test");
    c.bytes(4).unwrap();
    c.varint().unwrap();
    c.cstr().unwrap();
    loop {
        let (sid, body) = c.section().unwrap();
        if sid == id {
            return body.offset();
        }
    }
}

/// VHLO ops have no optional attributes: one written without its properties entry, and so
/// without `callee`, is refused by name (the fuzzer found the reader accepting it and the
/// writer then refusing to write it).
#[test]
fn vhlo_op_without_its_inherent_attribute_is_rejected() {
    let mut m = Module::new();
    let region = m.create_region();
    let block = m.append_block(region, &[]);
    let call = m.sym("vhlo.call_v1");
    let op = m.create_op(OperationState::new(call, m.unknown_loc()));
    m.append_op(block, op);
    let module_name = m.sym("builtin.module");
    let mut st = OperationState::new(module_name, m.unknown_loc());
    st.regions.push(region);
    let top = m.create_op(st);
    m.push_top(top);
    // The writer refuses it at v5+ (properties), but writes it at v4 as a plain dictionary.
    assert!(write(&m, &WriteOptions::new(6, "p")).is_err());
    let bytes = write(&m, &WriteOptions::new(4, "p")).unwrap();
    let e = read(&bytes).unwrap_err();
    assert!(
        e.message
            .contains("vhlo.call_v1 is missing its inherent attribute 'callee'"),
        "{e}"
    );
    assert_eq!(e.section, "IR");
}

/// A top level other than one `builtin.module` is wrapped in an implicit module, as MLIR's
/// `parseSourceFile<ModuleOp>` and the text parser do; unknown builtin ops are refused.
#[test]
fn top_level_ops_are_wrapped_in_a_module() {
    let mut m = Module::new();
    let ret = m.sym("vhlo.return_v1");
    let op = m.create_op(OperationState::new(ret, m.unknown_loc()));
    m.push_top(op);
    let bytes = write(&m, &WriteOptions::new(6, "p")).unwrap();
    let (back, _) = read(&bytes).unwrap();
    let [top] = back.top_ops() else {
        panic!("expected one top-level op")
    };
    assert_eq!(back.op_name_str(*top), "builtin.module");
    let block = back.blocks(back.regions(*top)[0])[0];
    let inner: Vec<_> = back
        .block_ops(block)
        .iter()
        .map(|&o| back.op_name_str(o))
        .collect();
    assert_eq!(inner, ["vhlo.return_v1"]);

    let mut m = Module::new();
    let bogus = m.sym("builtin.modnle");
    let op = m.create_op(OperationState::new(bogus, m.unknown_loc()));
    m.push_top(op);
    let bytes = write(&m, &WriteOptions::new(6, "p")).unwrap();
    let e = read(&bytes).unwrap_err();
    assert!(
        e.message
            .contains("unregistered operation 'builtin.modnle'"),
        "{e}"
    );
}

/// Each region's value count may fit the bytes left while their sum over the open regions does
/// not: nested regions would then claim a multiple of the input in memory. Two nested modules
/// whose regions each declare 100 values, around 50 ops that define none.
#[test]
fn value_counts_of_nested_regions_are_bounded_in_sum() {
    let mut m = Module::new();
    let region = m.create_region();
    let block = m.append_block(region, &[]);
    let ret = m.sym("vhlo.return_v1");
    for _ in 0..50 {
        let op = m.create_op(OperationState::new(ret, m.unknown_loc()));
        m.append_op(block, op);
    }
    let module_name = m.sym("builtin.module");
    let mut inner = {
        let mut st = OperationState::new(module_name, m.unknown_loc());
        st.regions.push(region);
        m.create_op(st)
    };
    for _ in 0..2 {
        let region = m.create_region();
        let block = m.append_block(region, &[]);
        m.append_op(block, inner);
        let mut st = OperationState::new(module_name, m.unknown_loc());
        st.regions.push(region);
        inner = m.create_op(st);
    }
    m.push_top(inner);
    // Version 1: regions inline (no nested sections), so a one-byte patch keeps every length.
    let bytes = write(&m, &WriteOptions::new(1, "p")).unwrap();
    assert!(read(&bytes).is_ok());
    let ir = find_section(&bytes, 4);
    // Region header of an outer module: one isolated region (07), one block (03), no values
    // (01), one op without arguments (05).
    let headers: Vec<usize> = (ir..bytes.len() - 3)
        .filter(|&i| bytes[i..i + 4] == [0x07, 0x03, 0x01, 0x05])
        .collect();
    assert_eq!(headers.len(), 2, "{bytes:02x?}");
    let ir_len = section_len(&bytes, 4);
    assert!(ir_len > 110 && ir_len < 200, "IR section of {ir_len} bytes");
    let mut patched = bytes.clone();
    for &h in &headers {
        patched[h + 2] = 0xC9; // 100 values: each fits the bytes left, the two together do not
    }
    let e = read(&patched).unwrap_err();
    assert!(e.message.contains("value count 100 exceeds"), "{e}");
    assert_eq!(e.offset, headers[1] + 2);
}

/// Large tensor data is held once: read from a shared input it views the input buffer, and
/// writing streams it from there (a 1 GiB artifact round-trips in about 1 GiB).
#[test]
fn large_constants_are_views_of_the_input_and_written_from_it() {
    let n = 4 * crate::ir::Blob::SHARE_FROM;
    let hex: String = (0..n)
        .map(|i| format!("{:02X}", (i * 7 + 1) % 251))
        .collect();
    let src = format!(
        "func.func @main() -> tensor<{n}xi8> {{\n  %0 = stablehlo.constant dense<\"0x{hex}\"> : tensor<{n}xi8>\n  return %0 : tensor<{n}xi8>\n}}\n"
    );
    let m = crate::text::parse(&src).unwrap();
    let artifact =
        crate::portable::serialize_portable_artifact(&m, "current", Default::default()).unwrap();
    let input = crate::ir::Blob::from(artifact.clone());
    assert!(input.is_shared());
    let (mut back, _) = read_shared(&input).unwrap();
    // The tensor's bytes lie inside the input buffer.
    let mut views = Vec::new();
    back.walk(|op| {
        for a in back.properties(op).iter().chain(back.attributes(op)) {
            if let AttrData::Dialect(d) = back.attr_data(a.value) {
                for p in d.params.iter() {
                    if let Param::Bytes(b) = p {
                        if b.len() == n {
                            views.push(b.clone());
                        }
                    }
                }
            }
        }
    });
    let [data] = &views[..] else {
        panic!("one tensor of {n} bytes, found {}", views.len())
    };
    assert!(data.is_shared());
    let start = input.as_ptr() as usize;
    let at = data.as_ptr() as usize;
    assert!(
        at > start && at + n <= start + input.len(),
        "not a view of the input"
    );
    // Written back, one piece of the output is that same memory, and the whole is the input.
    let (bytecode_version, producer) = read_producer(&artifact).unwrap();
    let opts = WriteOptions::new(bytecode_version, &producer);
    let out = write_encoded(&mut back, &opts).unwrap();
    assert!(out
        .chunks()
        .any(|c| c.as_ptr() == data.as_ptr() && c.len() == n));
    let mut streamed = Vec::new();
    out.write_to(&mut streamed).unwrap();
    assert_eq!(out.len(), streamed.len());
    assert_eq!(streamed, out.into_vec());
    assert_eq!(streamed, artifact);
}

/// A type of another dialect that the artifact keeps as text (`!shape.witness`, its whole
/// assembly, as MLIR writes it) reads back as the text parser reads it: the program prints as
/// its source, with no cast left between the converted argument and the kept op.
#[test]
fn types_kept_as_text_read_as_the_text_parser_reads_them() {
    let src = "func.func @main(%arg0: !shape.witness, %arg1: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = shape.assuming %arg0 -> (tensor<2xf32>) {\n    %1 = stablehlo.abs %arg1 : tensor<2xf32>\n    shape.assuming_yield %1 : tensor<2xf32>\n  }\n  return %0 : tensor<2xf32>\n}\n";
    let m = crate::text::parse(src).unwrap();
    let opts = crate::portable::SerializeOptions {
        allow_other_dialects: true,
        ..Default::default()
    };
    let artifact = crate::portable::serialize_portable_artifact(&m, "current", opts).unwrap();
    let back = crate::portable::deserialize_portable_artifact(&artifact).unwrap();
    let print = |m: &Module| crate::text::print(m, Default::default());
    assert_eq!(print(&back), print(&m));
}
