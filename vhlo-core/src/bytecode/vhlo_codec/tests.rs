//! Tests of the VHLO codecs: hinted entries round-trip with upstream's bytes; unknown codes and
//! wrong parameters are refused.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use super::*;
use crate::bytecode::encoding::Emitter;
use crate::ir::Attribute;

/// Attribute, type and string tables shared by a writer and a reader: an entry is referred
/// to by its position, as the bytecode's numbering does.
#[derive(Default)]
struct Tables {
    attrs: Vec<Attribute>,
    types: Vec<Type>,
    strings: Vec<Vec<u8>>,
    out: Emitter,
}

fn index_of<T: PartialEq + Copy>(items: &mut Vec<T>, x: T) -> u64 {
    let i = items.iter().position(|&y| y == x).unwrap_or_else(|| {
        items.push(x);
        items.len() - 1
    });
    i as u64
}

impl DialectWriter for Tables {
    fn emitter(&mut self) -> Option<&mut Emitter> {
        Some(&mut self.out)
    }
    fn string(&mut self, s: &[u8]) {
        let i = match self.strings.iter().position(|x| x == s) {
            Some(i) => i,
            None => {
                self.strings.push(s.to_vec());
                self.strings.len() - 1
            }
        };
        self.out.varint(i as u64);
    }
    fn attr(&mut self, _: &mut Module, a: Attribute) -> WriteResult<()> {
        let i = index_of(&mut self.attrs, a);
        self.out.varint(i);
        Ok(())
    }
    fn ty(&mut self, _: &mut Module, t: Type) -> WriteResult<()> {
        let i = index_of(&mut self.types, t);
        self.out.varint(i);
        Ok(())
    }
    fn opt_attr(&mut self, _: &mut Module, a: Option<Attribute>) -> WriteResult<()> {
        match a {
            Some(a) => {
                let i = index_of(&mut self.attrs, a);
                self.out.varint_with_flag(i, true);
            }
            None => self.out.varint(0),
        }
        Ok(())
    }
}

struct Source<'t> {
    t: &'t Tables,
    m: Module,
    cache: Mnemonics,
}

impl VhloSource for Source<'_> {
    fn string(&mut self, c: &mut Cursor<'_>) -> ReadResult<Symbol> {
        let i = c.index()?;
        let s = String::from_utf8(self.t.strings[i].clone()).unwrap();
        Ok(self.m.sym(&s))
    }
    fn attr(&mut self, c: &mut Cursor<'_>) -> ReadResult<Attribute> {
        let i = c.index()?;
        self.attr_at(c, i)
    }
    fn attr_at(&mut self, _: &Cursor<'_>, idx: usize) -> ReadResult<Attribute> {
        Ok(self.t.attrs[idx])
    }
    fn module(&mut self) -> &mut Module {
        &mut self.m
    }
    fn ty(&mut self, c: &mut Cursor<'_>) -> ReadResult<Type> {
        Ok(self.t.types[c.index()?])
    }
    fn mnemonics(&mut self) -> (&mut Mnemonics, &mut Module) {
        (&mut self.cache, &mut self.m)
    }
    fn blob(&self, bytes: &[u8]) -> Blob {
        Blob::from(bytes)
    }
}

use crate::dialect::support::{vhlo_attr as vattr, vhlo_type_with as vty};

/// Writes `params` as attribute (or type) `mnemonic`, reads the bytes back, and returns the
/// bytes; the parameters read must be the ones written.
fn round_trip(m: &mut Module, is_type: bool, mnemonic: &str, params: &[Param]) -> Vec<u8> {
    let mut t = Tables::default();
    if is_type {
        write_type(m, mnemonic, params, &mut t).unwrap();
    } else {
        write_attr(m, mnemonic, params, &mut t).unwrap();
    }
    let bytes = std::mem::take(&mut t.out).into_encoded().into_vec();
    let mut src = Source {
        t: &t,
        m: m.clone(),
        cache: Mnemonics::default(),
    };
    let dialect = src.m.sym("vhlo");
    let mut c = Cursor::new(&bytes, 0, "attribute/type");
    let back = if is_type {
        match read_type(&mut src, dialect, &mut c).unwrap() {
            TypeData::Dialect(d) => d.params,
            other => panic!("{other:?}"),
        }
    } else {
        match read_attr(&mut src, dialect, &mut c).unwrap() {
            AttrData::Dialect(d) => d.params,
            other => panic!("{other:?}"),
        }
    };
    assert!(c.is_empty(), "{mnemonic}: trailing bytes");
    assert_eq!(&back[..], params, "{mnemonic}");
    bytes
}

/// Every wire program names each parameter exactly once.
#[test]
fn wire_programs_cover_every_parameter_once() {
    let programs = VhloAttr::ALL
        .iter()
        .map(|a| (a.mnemonic(), a.params().len(), a.wire()))
        .chain(
            VhloType::ALL
                .iter()
                .map(|t| (t.mnemonic(), t.params().len(), t.wire())),
        );
    for (name, n, wire) in programs {
        let mut seen: Vec<usize> = wire.iter().map(|s| s.param).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..n).collect::<Vec<_>>(), "{name}");
    }
}

/// The bytes `f` emits (MLIR's prefix varints).
fn emitted(f: impl FnOnce(&mut Emitter)) -> Vec<u8> {
    let mut e = Emitter::default();
    f(&mut e);
    e.into_encoded().into_vec()
}

fn varints(vs: &[u64]) -> Vec<u8> {
    emitted(|e| vs.iter().for_each(|&v| e.varint(v)))
}

/// The hints at work: type-width APInts, i1 packing, the reordered quantized type, the two
/// optional-attribute forms and the encoding chosen by code.
#[test]
fn hinted_entries_round_trip_with_upstream_bytes() {
    use crate::bytecode::encoding::zigzag;
    let mut m = Module::new();
    let i32t = vty(&mut m, "i32_v1", vec![]);
    let bf16 = vty(&mut m, "bf16_v1", vec![]);
    // integer_v1: code 9, the type, a zigzag varint of the 32-bit pattern.
    let bytes = round_trip(
        &mut m,
        false,
        "integer_v1",
        &[Param::Type(i32t), Param::Int(-1)],
    );
    let want = emitted(|e| {
        e.varint(9);
        e.varint(0);
        e.varint(zigzag(0xFFFF_FFFF));
    });
    assert_eq!(bytes, want);
    // float_v1 of bf16: a 16-bit APInt.
    let one = Param::Float {
        bits: 0x3F80,
        width: 16,
    };
    let bytes = round_trip(&mut m, false, "float_v1", &[Param::Type(bf16), one]);
    let want = emitted(|e| {
        e.varint(8);
        e.varint(0);
        e.varint(zigzag(0x3F80));
    });
    assert_eq!(bytes, want);
    // tensor_v1 of i1: three elements packed into one byte.
    let b = vty(&mut m, "bool_v1", vec![]);
    let t3 = vty(
        &mut m,
        "tensor_v1",
        vec![Param::Ints(Box::new([3])), Param::Type(b), Param::Absent],
    );
    let bytes = round_trip(
        &mut m,
        false,
        "tensor_v1",
        &[Param::Type(t3), Param::Bytes(vec![1u8, 0, 1].into())],
    );
    let want = emitted(|e| {
        e.varint(15);
        e.varint(0);
        e.varint(1);
        e.byte(0b101);
    });
    assert_eq!(bytes, want);
    // quant_per_axis_v1 writes min and max before the scales and zero points.
    let f32t = vty(&mut m, "f32_v1", vec![]);
    let i8t = vty(&mut m, "i8_v1", vec![]);
    let scale = 2.0f64.to_bits();
    let bytes = round_trip(
        &mut m,
        true,
        "quant_per_axis_v1",
        &[
            Param::UInt(1),
            Param::Type(i8t),
            Param::Type(f32t),
            Param::Int(0),
            Param::Floats(Box::new([u128::from(scale)])),
            Param::Ints(Box::new([16])),
            Param::Int(-128),
            Param::Int(127),
        ],
    );
    let want = emitted(|e| {
        for v in [
            30,
            1,
            0,
            1,
            0,
            zigzag(-128),
            zigzag(127),
            1,
            zigzag(scale as i64),
        ] {
            e.varint(v);
        }
        e.varint(1);
        e.varint(zigzag(16));
    });
    assert_eq!(bytes, want);
    // tensor_v1 type: code 21 with its encoding first, 20 without.
    let e_sym = m.sym("e");
    let enc = vattr(&mut m, "string_v1", vec![Param::Str(e_sym)]);
    let with = [
        Param::Ints(Box::new([2])),
        Param::Type(f32t),
        Param::Attr(enc),
    ];
    let want = varints(&[21, 0, 1, zigzag(2), 0]);
    assert_eq!(round_trip(&mut m, true, "tensor_v1", &with), want);
    let without = [Param::Ints(Box::new([2])), Param::Type(f32t), Param::Absent];
    let want = varints(&[20, 1, zigzag(2), 0]);
    assert_eq!(round_trip(&mut m, true, "tensor_v1", &without), want);
    // axis_ref_v1: a presence varint; mesh_v1: an index with a presence flag.
    let x = m.sym("x");
    let name = vattr(&mut m, "string_v1", vec![Param::Str(x)]);
    let sub = vattr(
        &mut m,
        "sub_axis_info_v1",
        vec![Param::Int(1), Param::Int(2)],
    );
    let present = [Param::Attr(name), Param::Attr(sub)];
    let absent = [Param::Attr(name), Param::Absent];
    let want = varints(&[22, 0, 1, 1]);
    assert_eq!(round_trip(&mut m, false, "axis_ref_v1", &present), want);
    let want = varints(&[22, 0, 0]);
    assert_eq!(round_trip(&mut m, false, "axis_ref_v1", &absent), want);
    let want = varints(&[25, 0, 0b11]);
    assert_eq!(round_trip(&mut m, false, "mesh_v1", &present), want);
    let want = varints(&[25, 0, 0]);
    assert_eq!(round_trip(&mut m, false, "mesh_v1", &absent), want);
}

/// An unknown code names itself, the dialect and its offset; a parameter of the wrong form
/// is refused on writing.
#[test]
fn unknown_codes_and_wrong_parameters_are_refused() {
    let t = Tables::default();
    let mut src = Source {
        t: &t,
        m: Module::new(),
        cache: Mnemonics::default(),
    };
    let dialect = src.m.sym("vhlo");
    let bytes = emitted(|e| e.varint(64));
    let err = read_attr(
        &mut src,
        dialect,
        &mut Cursor::new(&bytes, 40, "attribute/type"),
    )
    .unwrap_err();
    assert_eq!(
        (err.offset, err.message.as_str()),
        (40, "unknown vhlo attribute code 64")
    );
    let err = read_type(
        &mut src,
        dialect,
        &mut Cursor::new(&bytes, 7, "attribute/type"),
    )
    .unwrap_err();
    assert_eq!(
        (err.offset, err.message.as_str()),
        (7, "unknown vhlo type code 64")
    );
    let mut m = Module::new();
    let mut w = Tables::default();
    let err = write_attr(
        &mut m,
        "integer_v1",
        &[Param::Int(1), Param::Int(2)],
        &mut w,
    )
    .unwrap_err();
    assert_eq!(err.0, "#vhlo.integer_v1 has unexpected parameters");
    let err = write_type(&mut m, "tuple_v1", &[Param::Int(1)], &mut w).unwrap_err();
    assert_eq!(err.0, "!vhlo.tuple_v1 has unexpected parameters");
}
