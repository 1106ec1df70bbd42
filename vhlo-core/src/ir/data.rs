//! The contents behind interned ids: types, attributes and locations.
//!
//! Builtin types and attributes have their own variants. Every dialect type or attribute
//! (`!vhlo.tensor_v1<...>`, `#stablehlo.gather<...>`, `!quant.uniform<...>`) is a
//! [`DialectType`]/[`DialectAttr`]: a dialect, a mnemonic and a list of parameters. The generated
//! dialect code gives typed views over them.

use super::{Attribute, Blob, Location, Symbol, Type};

/// Signedness of a builtin integer type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Signedness {
    /// `iN`
    Signless,
    /// `siN`
    Signed,
    /// `uiN`
    Unsigned,
}

/// Builtin floating-point types, in MLIR's spelling.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum FloatKind {
    F4E2M1FN,
    F6E2M3FN,
    F6E3M2FN,
    F8E3M4,
    F8E4M3,
    F8E4M3FN,
    F8E4M3FNUZ,
    F8E4M3B11FNUZ,
    F8E5M2,
    F8E5M2FNUZ,
    F8E8M0FNU,
    BF16,
    F16,
    TF32,
    F32,
    F64,
    F80,
    F128,
}

impl FloatKind {
    /// All kinds, for parsers and tests.
    pub const ALL: [FloatKind; 18] = [
        FloatKind::F4E2M1FN,
        FloatKind::F6E2M3FN,
        FloatKind::F6E3M2FN,
        FloatKind::F8E3M4,
        FloatKind::F8E4M3,
        FloatKind::F8E4M3FN,
        FloatKind::F8E4M3FNUZ,
        FloatKind::F8E4M3B11FNUZ,
        FloatKind::F8E5M2,
        FloatKind::F8E5M2FNUZ,
        FloatKind::F8E8M0FNU,
        FloatKind::BF16,
        FloatKind::F16,
        FloatKind::TF32,
        FloatKind::F32,
        FloatKind::F64,
        FloatKind::F80,
        FloatKind::F128,
    ];

    /// The keyword MLIR prints for this type.
    pub fn keyword(self) -> &'static str {
        match self {
            FloatKind::F4E2M1FN => "f4E2M1FN",
            FloatKind::F6E2M3FN => "f6E2M3FN",
            FloatKind::F6E3M2FN => "f6E3M2FN",
            FloatKind::F8E3M4 => "f8E3M4",
            FloatKind::F8E4M3 => "f8E4M3",
            FloatKind::F8E4M3FN => "f8E4M3FN",
            FloatKind::F8E4M3FNUZ => "f8E4M3FNUZ",
            FloatKind::F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
            FloatKind::F8E5M2 => "f8E5M2",
            FloatKind::F8E5M2FNUZ => "f8E5M2FNUZ",
            FloatKind::F8E8M0FNU => "f8E8M0FNU",
            FloatKind::BF16 => "bf16",
            FloatKind::F16 => "f16",
            FloatKind::TF32 => "tf32",
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
            FloatKind::F80 => "f80",
            FloatKind::F128 => "f128",
        }
    }

    /// Storage width in bits.
    pub fn bit_width(self) -> u32 {
        match self {
            FloatKind::F4E2M1FN => 4,
            FloatKind::F6E2M3FN | FloatKind::F6E3M2FN => 6,
            FloatKind::F8E3M4
            | FloatKind::F8E4M3
            | FloatKind::F8E4M3FN
            | FloatKind::F8E4M3FNUZ
            | FloatKind::F8E4M3B11FNUZ
            | FloatKind::F8E5M2
            | FloatKind::F8E5M2FNUZ
            | FloatKind::F8E8M0FNU => 8,
            FloatKind::BF16 | FloatKind::F16 => 16,
            FloatKind::TF32 => 19,
            FloatKind::F32 => 32,
            FloatKind::F64 => 64,
            FloatKind::F80 => 80,
            FloatKind::F128 => 128,
        }
    }
}

/// A dimension size of a ranked shape; [`DYNAMIC`] stands for `?`.
pub type Dim = i64;
/// The value MLIR uses for a dynamic dimension.
pub const DYNAMIC: Dim = i64::MIN;

/// The contents of an interned [`Type`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeData {
    /// `iN`, `siN`, `uiN`.
    Integer { width: u32, signedness: Signedness },
    /// `index`
    Index,
    /// Any builtin float type.
    Float(FloatKind),
    /// `complex<T>`
    Complex(Type),
    /// `tensor<2x?xf32, encoding>`
    RankedTensor {
        shape: Box<[Dim]>,
        element: Type,
        encoding: Option<Attribute>,
    },
    /// `tensor<*xf32>`
    UnrankedTensor { element: Type },
    /// `tuple<...>`
    Tuple(Box<[Type]>),
    /// `(inputs) -> results`
    Function {
        inputs: Box<[Type]>,
        results: Box<[Type]>,
    },
    /// `none`
    None,
    /// A type of a non-builtin dialect.
    Dialect(DialectType),
}

/// A dialect type or attribute: its dialect, mnemonic and parameters.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct DialectItem {
    /// Dialect namespace (`vhlo`, `stablehlo`, `quant`, ...).
    pub dialect: Symbol,
    /// Type or attribute mnemonic (`tensor_v1`, `token`, `uniform`, ...).
    pub mnemonic: Symbol,
    /// Parameters, in the order the dialect defines them.
    pub params: Box<[Param]>,
}

/// A dialect type: `!dialect.mnemonic<params>`.
pub type DialectType = DialectItem;

/// A dialect attribute: `#dialect.mnemonic<params>` (or `#dialect<mnemonic ...>` for enums).
pub type DialectAttr = DialectItem;

/// One parameter of a dialect type or attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Param {
    Type(Type),
    Attr(Attribute),
    Bool(bool),
    /// Signed integer (also enum case values).
    Int(i64),
    /// Unsigned integer.
    UInt(u64),
    /// An arbitrary-precision float as its IEEE bit pattern, with its width in bits.
    Float {
        bits: u128,
        width: u32,
    },
    Str(Symbol),
    Ints(Box<[i64]>),
    Floats(Box<[u128]>),
    Types(Box<[Type]>),
    Attrs(Box<[Attribute]>),
    AttrPairs(Box<[(Attribute, Attribute)]>),
    /// Raw bytes (tensor data), shared when large.
    Bytes(Blob),
    /// An absent optional parameter.
    Absent,
}

impl Param {
    /// The attribute of an `Attr` parameter.
    pub fn attr(&self) -> Option<Attribute> {
        match self {
            Param::Attr(a) => Some(*a),
            _ => None,
        }
    }
}

/// An arbitrary-width integer value, stored as two's complement in 128 bits.
pub type IntValue = i128;

/// The contents of an interned [`Attribute`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AttrData {
    /// `unit`
    Unit,
    /// `true` / `false`
    Bool(bool),
    /// `42 : i64`, of an integer type of at most 128 bits (or `index`).
    Integer { ty: Type, value: IntValue },
    /// An integer attribute of a type wider than 128 bits: the value as `APInt` holds it
    /// (little-endian words, bits past the width zero; see [`super::wide_int`]).
    WideInteger { ty: Type, words: Box<[u64]> },
    /// `1.0 : f32`, stored as its bit pattern so every value round-trips exactly.
    Float { ty: Type, bits: u128 },
    /// `"text"`; the symbol holds the raw bytes as written (may not be UTF-8 in MLIR, but is here).
    String { value: Symbol, ty: Option<Type> },
    /// A type used as an attribute.
    Type(Type),
    /// `[a, b]`
    Array(Box<[Attribute]>),
    /// `array<i64: 1, 2>`: the element type and the raw little-endian element bytes.
    DenseArray { element: Type, data: Box<[u8]> },
    /// `dense<...> : tensor<...>`: raw little-endian data as MLIR stores it (one element when splat).
    DenseElements { ty: Type, data: Blob, splat: bool },
    /// `dense_resource<key> : tensor<...>`: elements held in the module's builtin resource
    /// `key` ([`Module::resource_blob`](super::Module::resource_blob)); `__elided__` or any key
    /// without a blob is a declaration, as MLIR keeps it.
    DenseResource { ty: Type, key: Symbol },
    /// `dense<["a", "b"]>` string elements.
    DenseStrings { ty: Type, values: Box<[Symbol]> },
    /// `{a = 1, b}`; entries sorted by name as MLIR keeps them.
    Dictionary(Box<[(Symbol, Attribute)]>),
    /// `@root::@nested`
    SymbolRef { root: Symbol, nested: Box<[Symbol]> },
    /// A location used as an attribute (bytecode stores locations as attributes).
    Location(Location),
    /// A non-builtin dialect attribute.
    Dialect(DialectAttr),
    /// An attribute kept only as text: `text` is its whole assembly (`#foo.bar<"...">` of an
    /// unknown dialect; `affine_map<...>`, with an empty dialect, for builtin ones we keep as
    /// text), printed and written as it is.
    Opaque { dialect: Symbol, text: Symbol },
}

/// The contents of an interned [`Location`].
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum LocData {
    /// `loc(unknown)`
    Unknown,
    /// `loc("file":line:col)`
    FileLineCol {
        file: Symbol,
        line: u32,
        column: u32,
    },
    /// `loc("name"(child))`
    Name {
        name: Symbol,
        child: Option<Location>,
    },
    /// `loc(callsite(callee at caller))`
    CallSite { callee: Location, caller: Location },
    /// `loc(fused<metadata>[locs])`
    Fused {
        metadata: Option<Attribute>,
        locations: Box<[Location]>,
    },
    /// `loc("file":line:col to end_line:end_col)`, MLIR's `FileLineColRange` (JAX emits these).
    /// `line_cols` holds 0 to 4 values in bytecode order: start line, start column, then the end
    /// column alone (`to :ec`) or the end line and end column (`to el:ec`). `Module::loc` turns
    /// exactly two values into `FileLineCol`, which MLIR holds as the same attribute.
    FileLineColRange { file: Symbol, line_cols: Box<[u32]> },
}

/// The data of a builtin dialect resource (`dense_resource` blobs): bytes with the alignment
/// they must have in memory, as MLIR's `AsmResourceBlob` holds them.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ResourceBlob {
    /// A power of two, or 0 for the empty blob MLIR prints as `"0x00000000"`.
    pub alignment: u32,
    /// The bytes: a view of the input when read from a shared artifact.
    pub data: Blob,
}
