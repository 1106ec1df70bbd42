//! The tables that describe a dialect carried alongside VHLO (Shardy): its attributes, their
//! bytecode encodings and its ops. Generated from `spec/dialects/*.yaml` into `crate::vhlo`
//! (for example `crate::vhlo::SDY_DIALECT`); read by `bytecode::codec` (which picks an encoding
//! and leaves its wire steps to VHLO's engine, `bytecode::vhlo_codec`),
//! `text::sdy` (the text syntax) and the properties code of the bytecode reader and writer.

use super::{Wire, WireStep};
use crate::ir::{AttrData, Attribute, Module, Param};

/// What an attribute-valued parameter may hold.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CodecOf {
    /// Anything (non-attribute parameters).
    Any,
    /// A builtin string attribute.
    String,
    /// A mesh attribute of the dialect or a flat symbol reference.
    MeshOrRef,
    /// The dialect attribute at this index of [`CodecDialect::attrs`].
    Attr(usize),
}

/// One parameter of a dialect attribute.
#[derive(Clone, Copy, Debug)]
pub struct CodecParam {
    pub name: &'static str,
    /// Its bytecode form, which also says what `Param` it is (see [`CodecDialect::check_param`]).
    pub wire: Wire,
    pub of: CodecOf,
    /// Index into [`CodecDialect::enums`] when the integer is an enum case.
    pub enum_: Option<usize>,
    /// The least value of the integer, or of each integer of the list (`min:` in the spec).
    pub min: Option<i64>,
}

/// A dialect attribute: `#dialect.mnemonic<...>`, held as `AttrData::Dialect` with `params` in
/// this order.
#[derive(Clone, Copy, Debug)]
pub struct CodecAttr {
    pub mnemonic: &'static str,
    /// The dialect it belongs to: its codec dialect's, or another's for a text attribute
    /// (math's `fastmath` is `#arith.fastmath`).
    pub dialect: &'static str,
    /// The ODS attribute's summary, quoted when an op's attribute is of another kind.
    pub summary: Option<&'static str>,
    pub params: &'static [CodecParam],
    /// A list attribute's delimiters (its only parameter, a list, printed between them with
    /// `, `), from the spec's `format` (text/sdy.rs).
    pub list: Option<(&'static str, &'static str)>,
    pub form: CodecForm,
    /// A text attribute that op formats spell whole (`#ub.poison`), not stripped.
    pub whole: bool,
}

/// How an attribute is spelled in text (the spec's attribute `format`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CodecForm {
    /// By hand (text/sdy.rs), or a list ([`CodecAttr::list`]).
    Custom,
    /// An EnumAttr: `#dialect<mnemonic CASE>`, its one parameter an enum case.
    Enum,
    /// StableHLO's printStruct: `#dialect.mnemonic<name = [1, 2], ...>`, empty lists left out.
    Struct,
    /// Kept as its text (`AttrData::Opaque`, `#arith.fastmath<fast>`); a format spells it
    /// stripped of `#dialect.mnemonic` (`<fast>`).
    Text,
}

/// An enum of the dialect: (case name, value) pairs.
#[derive(Clone, Copy, Debug)]
pub struct CodecEnum {
    pub name: &'static str,
    pub cases: &'static [(&'static str, i64)],
    /// The width of the integer attribute that holds a case (32 or 64).
    pub width: u32,
}

/// The value a parameter left out of an encoding takes when read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CodecDefault {
    /// An empty list.
    Empty,
    /// An integer.
    Int(i64),
}

/// A condition on an attribute's parameters (indices into its `params`).
#[derive(Clone, Copy, Debug)]
pub enum CodecCondition {
    /// The list parameter is empty (`empty`) or not.
    Empty { param: usize, empty: bool },
    /// The integer parameter equals `value` (`equal`) or differs from it.
    Equals {
        param: usize,
        value: i64,
        equal: bool,
    },
    /// Every (`every`) or some element attribute of the list parameter satisfies `inner`.
    Elements {
        param: usize,
        every: bool,
        inner: &'static CodecCondition,
    },
}

/// One bytecode encoding of an attribute (several for versioned attributes).
#[derive(Clone, Copy, Debug)]
pub struct CodecEncoding {
    /// The varint that starts the entry.
    pub code: u64,
    /// Index into [`CodecDialect::attrs`].
    pub attr: usize,
    /// The encoded parameters (indices into the attribute's `params`), in wire order.
    pub wire: &'static [WireStep],
    /// Values of the parameters the encoding leaves out.
    pub defaults: &'static [(usize, CodecDefault)],
    /// All must hold for the writer to pick this encoding; the first that holds wins.
    pub when: &'static [CodecCondition],
}

/// An inherent attribute of an op.
#[derive(Clone, Copy, Debug)]
pub struct CodecOpAttr {
    pub name: &'static str,
    /// A dialect attribute mnemonic, an enum name or a builtin kind (`symbol_name`, `string`,
    /// `i64`, `elements`).
    pub of: &'static str,
    /// Stored with a presence flag.
    pub optional: bool,
    /// ODS's `DefaultValuedAttr`: the default as printed, which a format leaves out.
    pub default: Option<&'static str>,
    /// The least value of an `i64` (ODS's `ConfinedAttr<I64Attr, [IntNonNegative]>`: 0).
    pub min: Option<i64>,
}

/// An operand's or result's type, or a typed attribute's (index into `attributes`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TypeSlot {
    Operand(usize),
    Result(usize),
    Attr(usize),
}

/// What an inferred type is made of its source's.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InferAs {
    Same,
    /// i1 of its shape (MLIR's getI1SameShape).
    I1Shape,
    /// Its element type.
    Element,
    /// A complex type's element type.
    ComplexElement,
    /// The index type (without a source).
    Index,
    /// i1 (without a source).
    I1,
    /// The dialect type `!dialect.mnemonic` without parameters (without a source).
    DialectType(&'static str, &'static str),
}

/// A type the op's format does not spell (ODS's `AllTypesMatch`, `TypesMatchWith`): `to`'s
/// type (every operand's of a variadic group) is `from`'s made as `as_` says, or `index`
/// without `from`.
#[derive(Clone, Copy, Debug)]
pub struct CodecInfer {
    pub to: TypeSlot,
    pub from: Option<TypeSlot>,
    pub as_: InferAs,
    /// What the ODS trait behind it says, when the verifier checks it ("failed to verify that
    /// all of {lhs, rhs, sum} have same type").
    pub verifies: Option<&'static str>,
    /// The op infers this result's type (`InferTypeOpInterface`): the verifier refuses another
    /// with "inferred type(s) ... are incompatible with return type(s) of operation ...".
    pub inferred: bool,
}

/// An op of the dialect.
#[derive(Clone, Copy, Debug)]
pub struct CodecOp {
    pub name: &'static str,
    pub operands: &'static [&'static str],
    pub results: &'static [&'static str],
    /// In property order (sorted by name).
    pub attributes: &'static [CodecOpAttr],
    /// The same names, for the properties code.
    pub attribute_names: &'static [&'static str],
    pub regions: &'static [&'static str],
    pub terminator: bool,
    /// The upstream assembly format (text/op_format.rs runs it); `None` for the ops upstream
    /// parses and prints by hand (`hasCustomAssemblyFormat`, text/sdy.rs).
    pub format: Option<&'static super::OpFormat>,
    /// The types the format leaves out, in the order they are inferred.
    pub infer: &'static [CodecInfer],
    /// Its result's name as MLIR prints it (the op's `getAsmResultNames`).
    pub result_name: Option<&'static str>,
    /// ODS's SingleBlockImplicitTerminator.
    pub implicit_terminator: Option<ImplicitTerminator>,
    /// The ops of the same dialect it may sit directly in (ODS's HasParent and ParentOneOf;
    /// spec `parents`); empty for any.
    pub parents: &'static [&'static str],
    /// The ODS traits the verifier checks (spec `traits`), in the op's ODS order.
    pub traits: &'static [&'static str],
    /// Its parser gives an empty region one empty block (spec `block_in_empty_region`).
    pub block_in_empty_region: bool,
    /// The dialect whose ops print and parse without their prefix directly inside its regions
    /// (upstream's `OpAsmOpInterface::getDefaultDialect`; spec `default_dialect`).
    pub default_dialect: Option<&'static str>,
    /// Its successor blocks.
    pub successors: &'static [&'static str],
}

/// The terminator a parser adds to a region's block that lacks one, and the printer leaves out.
#[derive(Clone, Copy, Debug)]
pub struct ImplicitTerminator {
    /// The terminator, an op of the same dialect.
    pub op: &'static str,
    /// Left out whenever the op has no results (upstream's custom printers:
    /// `printBlockTerminators` is whether it has results); otherwise left out when it has no
    /// operands, results or attributes (ODS's generated printers).
    pub elided_without_results: bool,
    /// Never left out, nor added by the parser: only verified (upstream's custom parser and
    /// printer of `shape.reduce`).
    pub never_elided: bool,
}

/// A whole dialect.
#[derive(Clone, Copy, Debug)]
pub struct CodecDialect {
    pub name: &'static str,
    /// `ops` lists every op of the dialect libStablehlo registers: it refuses any other.
    pub ops_complete: bool,
    /// MLIR's dialect takes op names it lacks as unregistered ops (`allowUnknownOperations`),
    /// which libStablehlo reads.
    pub allows_unknown_ops: bool,
    pub enums: &'static [CodecEnum],
    pub attrs: &'static [CodecAttr],
    /// Sorted by code; the code is the index.
    pub encodings: &'static [CodecEncoding],
    pub ops: &'static [CodecOp],
}

impl CodecAttr {
    /// The `<...>` of `text` when it spells this attribute, `#dialect.mnemonic<...>` (empty
    /// for `#dialect.mnemonic`): how a `format: text` attribute is recognized and stripped.
    pub fn text_body<'t>(&self, text: &'t str) -> Option<&'t str> {
        let body = text
            .strip_prefix('#')?
            .strip_prefix(self.dialect)?
            .strip_prefix('.')?
            .strip_prefix(self.mnemonic)?;
        (body.is_empty() || body.starts_with('<')).then_some(body)
    }
}

impl CodecDialect {
    /// The default value of op attribute `a` (ODS's `DefaultValuedAttr`), as MLIR sets it on
    /// an op created without it: a `format: text` attribute (codegen checks) of the dialect
    /// its kind names (math's fastmath is arith's).
    pub fn default_value(&self, m: &mut Module, a: &CodecOpAttr) -> Option<Attribute> {
        let d = a.default?;
        let owner = self.attr(a.of).map_or(self.name, |(_, k)| k.dialect);
        let (dialect, text) = (m.sym(owner), m.sym(d));
        Some(m.attr(crate::ir::AttrData::Opaque { dialect, text }))
    }

    /// The attribute named `mnemonic` and its index.
    pub fn attr(&self, mnemonic: &str) -> Option<(usize, &'static CodecAttr)> {
        self.attrs
            .iter()
            .enumerate()
            .find(|(_, a)| a.mnemonic == mnemonic)
    }

    /// The op named `name` (without the dialect prefix).
    pub fn op(&self, name: &str) -> Option<&'static CodecOp> {
        self.ops.iter().find(|o| o.name == name)
    }

    /// The shape rules of a parameter: its `Param` variant, what its attributes are, enum cases.
    pub fn check_param(&self, p: &CodecParam, m: &Module, v: &Param) -> Result<(), String> {
        let d = self;
        let shape_ok = matches!(
            (p.wire, v),
            (Wire::String, Param::Str(_))
                | (Wire::SVarInt, Param::Int(_))
                | (Wire::BoolByte | Wire::Bool, Param::Bool(_))
                | (Wire::OptUVarInt, Param::UInt(_) | Param::Absent)
                | (Wire::UVarInt, Param::UInt(_))
                | (Wire::Attr, Param::Attr(_))
                | (Wire::IndexWithFlag, Param::Attr(_) | Param::Absent)
                | (Wire::Attrs, Param::Attrs(_))
                | (Wire::SVarInts, Param::Ints(_))
        );
        if !shape_ok {
            return Err(format!("expected {:?}", p.wire));
        }
        if let (Some(e), Param::Int(v)) = (p.enum_.and_then(|e| d.enums.get(e)), v) {
            if !e.cases.iter().any(|(_, c)| c == v) {
                return Err(format!("{v} is not a case of {}", e.name));
            }
        }
        if let Some(min) = p.min {
            let below = match v {
                Param::Int(x) => Some(*x).filter(|x| *x < min),
                Param::Ints(xs) => xs.iter().copied().find(|x| *x < min),
                _ => None,
            };
            if let Some(x) = below {
                return Err(format!("{x} is below its least value, {min}"));
            }
        }
        let attrs: &[Attribute] = match v {
            Param::Attr(a) => std::slice::from_ref(a),
            Param::Attrs(a) => a,
            _ => return Ok(()),
        };
        for &a in attrs {
            let data = m.attr_data(a);
            let ok = match p.of {
                CodecOf::Any => true,
                CodecOf::String => matches!(data, AttrData::String { ty: None, .. }),
                CodecOf::MeshOrRef => match data {
                    AttrData::SymbolRef { nested, .. } => nested.is_empty(),
                    AttrData::Dialect(x) => {
                        m.str(x.dialect) == d.name && m.str(x.mnemonic) == "mesh"
                    }
                    _ => false,
                },
                CodecOf::Attr(i) => match (data, d.attrs.get(i)) {
                    (AttrData::Dialect(x), Some(want)) => {
                        m.str(x.dialect) == d.name && m.str(x.mnemonic) == want.mnemonic
                    }
                    _ => false,
                },
            };
            if !ok {
                let want = match p.of {
                    CodecOf::Attr(i) => d
                        .attrs
                        .get(i)
                        .map_or_else(String::new, |a| format!("#{}.{}", d.name, a.mnemonic)),
                    CodecOf::String => "a string".to_string(),
                    CodecOf::MeshOrRef => format!("#{}.mesh or a symbol reference", d.name),
                    CodecOf::Any => String::new(),
                };
                return Err(format!("expected {want}"));
            }
        }
        Ok(())
    }

    /// The encoding with code `code`.
    pub fn encoding(&self, code: u64) -> Option<&'static CodecEncoding> {
        usize::try_from(code)
            .ok()
            .and_then(|i| self.encodings.get(i))
            .filter(|e| e.code == code)
    }
}
