//! Declarative assembly formats of StableHLO ops (spec `format:`, in the spirit of ODS
//! `assemblyFormat`): parsed into elements, checked against the op's operands, attributes and
//! results, and emitted as `StablehloOp::format`, which the text engine
//! (vhlo-core/src/text/op_format.rs) interprets both to parse and to print. The ops of codec
//! dialects (Shardy, spec/dialects/) go the same way, into `CodecOp::format`.
//!
//! Grammar (a subset of ODS's):
//! ```text
//! elem    := `lit` | $name | operands | attr-dict | type(arg) | functional-type(operands, results)
//!          | custom<Name>(arg, ...) | `(` elem+ `)` [`:` `(` elem* `)`] `?`
//! arg     := $name | operands | results | type(arg) | ref(arg)
//! ```
//! `$name` is an operand group, an attribute or a region group. Inside an optional group one
//! `$name^` (or `type($operand)^`) is the anchor: the group is printed when that attribute is
//! present (or that operand or region group is not empty), and parsed when its first element
//! (a literal, or an operand) is there.

use proc_macro2::TokenStream;
use quote::quote;

use crate::codec_dialect::Op as DialectOp;
use crate::diag::{Diagnostics, Pos};
use crate::model::{EnumDef, Field, StablehloAttr, StablehloOp};
use crate::ods::OdsType;

/// `format: generic`: the op has no custom syntax (upstream declares no assembly format).
pub const GENERIC: &str = "generic";

/// Whether `op` is declared to print generically.
pub fn is_generic(op: &StablehloOp) -> bool {
    op.format.as_ref().is_some_and(|f| f.0 == GENERIC)
}

/// What a custom directive binds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum DirectiveArgs {
    /// Types of operands and results (`type($x)`, `ref(...)`).
    Types,
    /// Attributes, this many.
    Attrs(usize),
    /// One variadic operand group.
    Operands,
    /// One region group.
    Region,
    /// One variadic operand group, then one attribute.
    OperandsAttr,
}

/// The custom directives the engine implements (vhlo-core/src/text/op_format.rs), by name, as
/// upstream's AssemblyFormat.cpp names them.
const DIRECTIVES: &[(&str, DirectiveArgs)] = &[
    ("SameOperandsAndResultType", DirectiveArgs::Types),
    ("VariadicSameOperandsAndResultType", DirectiveArgs::Types),
    ("TupleOpType", DirectiveArgs::Types),
    ("SelectOpType", DirectiveArgs::Types),
    ("ComplexOpType", DirectiveArgs::Types),
    ("DenseI64Array", DirectiveArgs::Attrs(1)),
    ("VariadicOperandWithAttribute", DirectiveArgs::Operands),
    ("SliceRanges", DirectiveArgs::Attrs(3)),
    ("ExponentMantissa", DirectiveArgs::Attrs(2)),
    ("CustomCallTarget", DirectiveArgs::Attrs(1)),
    ("PrecisionConfig", DirectiveArgs::Attrs(1)),
    ("PairwiseOpType", DirectiveArgs::Types),
    ("DotDimensionNumbers", DirectiveArgs::Attrs(1)),
    ("PrecisionConfigAndAlgorithm", DirectiveArgs::Attrs(2)),
    ("ConvolutionDimensions", DirectiveArgs::Attrs(1)),
    ("WindowAttributes", DirectiveArgs::Attrs(5)),
    // Shardy's (parsers.cc, printers.cc).
    (
        "StrippedTensorShardingPerValueAttr",
        DirectiveArgs::Attrs(1),
    ),
    ("SingleBlockRegionNoBlockId", DirectiveArgs::Region),
    // OpAsmPrinter's printOptionalArrowTypeList over the results: ` -> T`, ` -> (T, U)`, or
    // nothing without results (custom printers' spelling, as shape's reduce).
    ("ArrowTypeList", DirectiveArgs::Types),
    // The same when parsing (`-> T` or `-> (T, U)`); printed `-> (T)` always, as the custom
    // printers of scf.if and shape.assuming write it.
    ("ParenArrowTypeList", DirectiveArgs::Types),
    // ViewLikeInterface.cpp's: `[%a, 4, %b]`, the operands where the i64 array holds
    // ShapedType::kDynamic (tensor's slices, pad and expand_shape).
    ("DynamicIndexList", DirectiveArgs::OperandsAttr),
];

/// One parsed element.
#[derive(Clone, Debug, PartialEq)]
pub enum Elem {
    Literal(String),
    /// `$name` of an operand group (index in the spec's `operands:`).
    Operand(usize),
    /// `operands`.
    Operands,
    /// `$name` of an attribute (index in the spec's `attributes:`).
    Attr(usize),
    AttrDict,
    /// `functional-type(operands, results)`.
    FunctionalType,
    /// `type(results)` or `type($result)` of the only result group.
    ResultTypes,
    /// `type($r)` of one result of several (none variadic).
    ResultType(usize),
    /// `type($operand)` of an operand group.
    OperandTypes(usize),
    /// `$name` of a region group (index in the spec's `regions:`).
    Region(usize),
    /// `$name` of a successor (index in the spec's `successors:`).
    Successor(usize),
    /// `custom<Name>(...)`: the directive and the attributes it binds.
    Custom(&'static str, Vec<usize>),
    /// `custom<VariadicOperandWithAttribute>($group)`.
    CustomOperands(&'static str, usize),
    /// `custom<DynamicIndexList>($group, $attr)`.
    CustomOperandsAttr(&'static str, usize, usize),
    Optional {
        anchor: Anchor,
        then: Vec<Elem>,
        otherwise: Vec<Elem>,
    },
}

/// What decides whether an optional group is printed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Anchor {
    Attr(usize),
    Operand(usize),
    Region(usize),
    /// `type($results)^`: the op has results.
    Results,
}

/// A parsed, checked format.
#[derive(Clone, Debug, PartialEq)]
pub struct Format {
    pub elems: Vec<Elem>,
}

pub(crate) struct Lexer<'a> {
    text: &'a str,
    at: usize,
    /// Where the format string starts in its file.
    base: &'a Pos,
}

/// A format error at a byte offset of the format string.
pub(crate) struct Error(usize, String);

impl<'a> Lexer<'a> {
    pub(crate) fn new(text: &'a str, base: &'a Pos) -> Lexer<'a> {
        Lexer { text, at: 0, base }
    }
    /// Where the next token starts.
    pub(crate) fn at(&mut self) -> usize {
        self.skip_ws();
        self.at
    }
    pub(crate) fn expect_str(&mut self, s: &str) -> Result<(), Error> {
        self.expect(s, "here")
    }
    /// A `` `literal` ``, without its quotes.
    pub(crate) fn backquoted(&mut self) -> Result<&'a str, Error> {
        let start = self.at();
        self.expect_str("`")?;
        let rest = &self.text[self.at..];
        let Some(end) = rest.find('`') else {
            return Err(Error(start, "unterminated literal".into()));
        };
        self.at += end + 1;
        Ok(&rest[..end])
    }
    /// The error as a position and a message.
    pub(crate) fn error(&self, e: Error) -> (Pos, String) {
        (self.pos(e.0), e.1)
    }
    pub(crate) fn skip_ws(&mut self) {
        while self.text[self.at..].starts_with([' ', '\t', '\n']) {
            self.at += 1;
        }
    }
    pub(crate) fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.text[self.at..].chars().next()
    }
    pub(crate) fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.text[self.at..].starts_with(s) {
            self.at += s.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, s: &str, what: &str) -> Result<(), Error> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(Error(self.at, format!("expected `{s}` {what}")))
        }
    }
    pub(crate) fn ident(&mut self) -> (usize, &'a str) {
        self.skip_ws();
        let start = self.at;
        let rest = &self.text[start..];
        let n = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        self.at += n;
        (start, &rest[..n])
    }
    pub(crate) fn pos(&self, at: usize) -> Pos {
        let mut p = self.base.clone();
        p.col += at as u32;
        p
    }
}

/// Names an op's fields resolve against.
struct Names<'a> {
    op: &'a StablehloOp,
    /// A codec dialect op's successors.
    successors: &'a [String],
}

#[derive(Clone, Copy)]
enum Named {
    Operand(usize),
    Attr(usize),
    Result(usize),
    Region(usize),
    Successor(usize),
}

impl Names<'_> {
    fn resolve(&self, name: &str) -> Option<Named> {
        let s = self.op;
        if let Some(i) = s.operands.iter().position(|f| f.name == name) {
            return Some(Named::Operand(i));
        }
        if let Some(i) = s.attributes.iter().position(|a| a.name == name) {
            return Some(Named::Attr(i));
        }
        if let Some(i) = s.regions.iter().position(|f| f.name == name) {
            return Some(Named::Region(i));
        }
        if let Some(i) = self.successors.iter().position(|f| f == name) {
            return Some(Named::Successor(i));
        }
        s.results
            .iter()
            .position(|f| f.name == name)
            .map(Named::Result)
    }
    fn all(&self) -> impl Iterator<Item = &str> {
        let s = self.op;
        s.operands
            .iter()
            .map(|f| f.name.as_str())
            .chain(s.attributes.iter().map(|a| a.name.as_str()))
            .chain(s.regions.iter().map(|f| f.name.as_str()))
            .chain(s.results.iter().map(|f| f.name.as_str()))
    }
    fn unknown(&self, at: usize, name: &str) -> Error {
        Error(
            at,
            format!(
                "`${name}` is not an operand, attribute, region or result of `{}`{}",
                self.op.name,
                crate::diag::did_you_mean(name, self.all())
            ),
        )
    }
}

/// What the elements bind, for the completeness check.
#[derive(Default)]
struct Bound {
    operands: Vec<bool>,
    operand_types: Vec<bool>,
    result_types: Vec<bool>,
    attrs: Vec<bool>,
    regions: Vec<bool>,
    successors: Vec<bool>,
    attr_dict: bool,
}

struct FormatParser<'a, 'b> {
    /// The last operand group bound, to keep them in spec order.
    last_operand: Option<usize>,
    lx: Lexer<'a>,
    names: Names<'b>,
    /// Whether each attribute has a bare spelling (`$name` alone).
    bare: Vec<bool>,
    bound: Bound,
}

impl FormatParser<'_, '_> {
    fn elems(&mut self, in_group: bool, anchor: &mut Option<Anchor>) -> Result<Vec<Elem>, Error> {
        let mut out = Vec::new();
        loop {
            match self.lx.peek() {
                None => return Ok(out),
                Some(')') if in_group => return Ok(out),
                _ => {}
            }
            let e = self.elem(in_group, anchor)?;
            out.push(e);
        }
    }

    fn elem(&mut self, in_group: bool, anchor: &mut Option<Anchor>) -> Result<Elem, Error> {
        let start = {
            self.lx.skip_ws();
            self.lx.at
        };
        if self.lx.eat("`") {
            let rest = &self.lx.text[self.lx.at..];
            let Some(end) = rest.find('`') else {
                return Err(Error(start, "unterminated literal".into()));
            };
            let lit = rest[..end].to_string();
            self.lx.at += end + 1;
            let ok = lit.is_empty()
                || lit == " "
                || lit == "->"
                || (lit.len() == 1 && ":,=<>()[]{}*+?".contains(lit.as_str()))
                || lit
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                    && !lit.starts_with(|c: char| c.is_ascii_digit());
            if !ok {
                return Err(Error(start, format!("`{lit}` is not a valid literal")));
            }
            return Ok(Elem::Literal(lit));
        }
        if self.lx.eat("$") {
            let (at, name) = self.lx.ident();
            let e = match self.names.resolve(name) {
                Some(Named::Operand(i)) => {
                    self.bind(&mut |b| &mut b.operands, i, at, name)?;
                    self.in_order(i, at)?;
                    Elem::Operand(i)
                }
                Some(Named::Attr(i)) => {
                    self.bind(&mut |b| &mut b.attrs, i, at, name)?;
                    let a = &self.names.op.attributes[i];
                    if !self.bare[i] {
                        return Err(Error(
                            at,
                            format!(
                                "attribute `{name}` (`{}`) has no bare spelling in a format; bind it with a custom directive or leave it to attr-dict",
                                a.ty.trim()
                            ),
                        ));
                    }
                    Elem::Attr(i)
                }
                Some(Named::Region(i)) => {
                    self.bind(&mut |b| &mut b.regions, i, at, name)?;
                    // The engine collects regions as it reads them.
                    if self.names.op.regions[..i]
                        .iter()
                        .zip(&self.bound.regions)
                        .any(|(_, b)| !b)
                    {
                        return Err(Error(
                            at,
                            format!("region `{name}` is bound before a region the spec lists before it; bind regions in the order of `regions:`"),
                        ));
                    }
                    Elem::Region(i)
                }
                Some(Named::Successor(i)) => {
                    self.bind(&mut |b| &mut b.successors, i, at, name)?;
                    Elem::Successor(i)
                }
                Some(Named::Result(_)) => {
                    return Err(Error(
                        at,
                        format!("result `{name}` can only be bound as `type(${name})`"),
                    ))
                }
                None => return Err(self.names.unknown(at - 1, name)),
            };
            self.anchor(in_group, anchor, &e)?;
            return Ok(e);
        }
        if self.lx.eat("(") {
            let mut group_anchor = None;
            let then = self.elems(true, &mut group_anchor)?;
            self.lx.expect(")", "to close the optional group")?;
            let mut otherwise = Vec::new();
            if self.lx.eat(":") {
                self.lx.expect("(", "to open the else group")?;
                otherwise = self.elems(true, &mut None)?;
                self.lx.expect(")", "to close the else group")?;
            }
            self.lx.expect("?", "after an optional group")?;
            let Some(anchor) = group_anchor else {
                return Err(Error(
                    start,
                    "an optional group needs an anchor `$name^`".into(),
                ));
            };
            let first = then
                .iter()
                .find(|e| !matches!(e, Elem::Literal(l) if l.is_empty() || l == " "));
            match first {
                Some(Elem::Literal(_)) => {}
                Some(Elem::Operand(i)) if anchor == Anchor::Operand(*i) => {}
                Some(Elem::Attr(i)) if anchor == Anchor::Attr(*i) => {}
                _ => {
                    return Err(Error(
                        start,
                        "an optional group starts with a literal or its anchor operand or attribute (it decides whether the group is there)"
                            .into(),
                    ))
                }
            }
            return Ok(Elem::Optional {
                anchor,
                then,
                otherwise,
            });
        }
        let (at, word) = self.lx.ident();
        match word {
            "operands" => {
                for i in 0..self.names.op.operands.len() {
                    self.bind(&mut |b| &mut b.operands, i, at, word)?;
                    self.in_order(i, at)?;
                }
                Ok(Elem::Operands)
            }
            "attr-dict" => {
                if self.bound.attr_dict {
                    return Err(Error(at, "`attr-dict` appears twice".into()));
                }
                self.bound.attr_dict = true;
                Ok(Elem::AttrDict)
            }
            "functional-type" => {
                self.lx.expect("(", "after `functional-type`")?;
                // `$operands` when the op's operand group has that name (Shardy's).
                let group = self.lx.eat("$");
                self.lx
                    .expect("operands", "as the first argument of `functional-type`")?;
                if group && !matches!(self.names.op.operands[..], [ref f] if f.name == "operands") {
                    return Err(Error(
                        at,
                        "`$operands` is not the op's only operand group".into(),
                    ));
                }
                self.lx
                    .expect(",", "between the arguments of `functional-type`")?;
                self.lx
                    .expect("results", "as the second argument of `functional-type`")?;
                self.lx.expect(")", "to close `functional-type`")?;
                for i in 0..self.names.op.operands.len() {
                    self.bind(&mut |b| &mut b.operand_types, i, at, "operands")?;
                }
                for i in 0..self.names.op.results.len() {
                    self.bind(&mut |b| &mut b.result_types, i, at, "results")?;
                }
                Ok(Elem::FunctionalType)
            }
            "type" => {
                self.lx.expect("(", "after `type`")?;
                self.lx.eat("$");
                let (aat, arg) = self.lx.ident();
                self.lx.expect(")", "to close `type`")?;
                if let Some(Named::Operand(i)) = self.names.resolve(arg) {
                    self.bind(&mut |b| &mut b.operand_types, i, aat, arg)?;
                    let e = Elem::OperandTypes(i);
                    self.anchor(in_group, anchor, &e)?;
                    return Ok(e);
                }
                let n_results = self.names.op.results.len();
                let results = &self.names.op.results;
                if let Some(i) = results
                    .iter()
                    .position(|r| r.name == arg)
                    .filter(|_| n_results > 1 && !results.iter().any(|r| r.variadic))
                {
                    self.bind(&mut |b| &mut b.result_types, i, aat, arg)?;
                    return Ok(Elem::ResultType(i));
                }
                let is_results =
                    arg == "results" || (n_results == 1 && self.names.op.results[0].name == arg);
                if !is_results {
                    return Err(Error(
                        aat,
                        "only the types of an operand group (`type($x)`) or of the results (`type(results)`, or `type($r)` of a result) are supported here; use functional-type or a custom directive".into(),
                    ));
                }
                for i in 0..n_results {
                    self.bind(&mut |b| &mut b.result_types, i, aat, arg)?;
                }
                let e = Elem::ResultTypes;
                self.anchor(in_group, anchor, &e)?;
                Ok(e)
            }
            "custom" => {
                self.lx.expect("<", "after `custom`")?;
                let (nat, name) = self.lx.ident();
                self.lx.expect(">", "after the directive name")?;
                let Some(&(dname, kind)) = DIRECTIVES.iter().find(|d| d.0 == name) else {
                    return Err(Error(
                        nat,
                        format!(
                            "unknown custom directive `{name}` (known: {}){}",
                            DIRECTIVES
                                .iter()
                                .map(|d| d.0)
                                .collect::<Vec<_>>()
                                .join(", "),
                            crate::diag::did_you_mean(name, DIRECTIVES.iter().map(|d| d.0))
                        ),
                    ));
                };
                self.lx.expect("(", "after the directive")?;
                let mut attrs = Vec::new();
                let mut operands = Vec::new();
                loop {
                    if self.lx.eat(")") {
                        break;
                    }
                    self.directive_arg(kind, &mut attrs, &mut operands)?;
                    if !self.lx.eat(",") {
                        self.lx.expect(")", "to close the directive's arguments")?;
                        break;
                    }
                }
                match kind {
                    DirectiveArgs::Types | DirectiveArgs::Region => Ok(Elem::Custom(dname, vec![])),
                    DirectiveArgs::Attrs(n) => {
                        if attrs.len() != n {
                            return Err(Error(
                                nat,
                                format!("`{dname}` binds {n} attribute(s), found {}", attrs.len()),
                            ));
                        }
                        let e = Elem::Custom(dname, attrs);
                        self.anchor(in_group, anchor, &e)?;
                        Ok(e)
                    }
                    DirectiveArgs::Operands => match operands[..] {
                        [g] if self.names.op.operands[g].variadic => {
                            Ok(Elem::CustomOperands(dname, g))
                        }
                        _ => Err(Error(
                            nat,
                            format!("`{dname}` binds one variadic operand group"),
                        )),
                    },
                    DirectiveArgs::OperandsAttr => match (&operands[..], &attrs[..]) {
                        ([g], [a]) if self.names.op.operands[*g].variadic => {
                            Ok(Elem::CustomOperandsAttr(dname, *g, *a))
                        }
                        _ => Err(Error(
                            nat,
                            format!(
                                "`{dname}` binds one variadic operand group, then one attribute"
                            ),
                        )),
                    },
                }
            }
            "" => Err(Error(
                at,
                format!(
                    "unexpected `{}` in format",
                    self.lx.text[at..].chars().next().unwrap_or(' ')
                ),
            )),
            _ => Err(Error(
                at,
                format!(
                    "unknown format element `{word}` (literals are written `{word}` in backquotes)"
                ),
            )),
        }
    }

    fn directive_arg(
        &mut self,
        kind: DirectiveArgs,
        attrs: &mut Vec<usize>,
        operands: &mut Vec<usize>,
    ) -> Result<(), Error> {
        if kind == DirectiveArgs::Types {
            // `type($x)` binds $x's types; `ref($x)` and `ref(type($x))` only refer to them.
            let (wat, word) = self.lx.ident();
            let binds = match word {
                "type" => true,
                "ref" => false,
                _ => return Err(Error(wat, "expected `type($x)` or `ref(...)`".into())),
            };
            self.lx.expect("(", "to open the argument")?;
            let wrapped = !binds && self.lx.eat("type(");
            self.lx.eat("$");
            let (nat, name) = self.lx.ident();
            if wrapped {
                self.lx.expect(")", "to close `type`")?;
            }
            self.lx.expect(")", "to close the argument")?;
            if !binds {
                return match (name, self.names.resolve(name)) {
                    ("operands" | "results", _)
                    | (_, Some(Named::Operand(_) | Named::Result(_))) => Ok(()),
                    (_, Some(Named::Attr(_) | Named::Region(_) | Named::Successor(_))) => {
                        Err(Error(
                            nat,
                            format!("`{name}` is an attribute or a region; it has no type"),
                        ))
                    }
                    (_, None) => Err(self.names.unknown(nat, name)),
                };
            }
            match (name, self.names.resolve(name)) {
                ("operands", _) => {
                    for i in 0..self.names.op.operands.len() {
                        self.bind(&mut |b| &mut b.operand_types, i, nat, name)?;
                    }
                }
                ("results", _) => {
                    for i in 0..self.names.op.results.len() {
                        self.bind(&mut |b| &mut b.result_types, i, nat, name)?;
                    }
                }
                (_, Some(Named::Operand(i))) => {
                    self.bind(&mut |b| &mut b.operand_types, i, nat, name)?
                }
                (_, Some(Named::Result(i))) => {
                    self.bind(&mut |b| &mut b.result_types, i, nat, name)?
                }
                (_, Some(Named::Attr(_) | Named::Region(_) | Named::Successor(_))) => {
                    return Err(Error(
                        nat,
                        format!("`{name}` is an attribute or a region; it has no type"),
                    ))
                }
                (_, None) => return Err(self.names.unknown(nat, name)),
            }
            return Ok(());
        }
        self.lx.expect("$", "before the directive's argument")?;
        let (nat, name) = self.lx.ident();
        match (kind, self.names.resolve(name)) {
            (DirectiveArgs::Attrs(_), Some(Named::Attr(i)))
            | (DirectiveArgs::OperandsAttr, Some(Named::Attr(i)))
                if kind != DirectiveArgs::OperandsAttr || operands.len() == 1 =>
            {
                self.bind(&mut |b| &mut b.attrs, i, nat, name)?;
                attrs.push(i);
            }
            (DirectiveArgs::Operands | DirectiveArgs::OperandsAttr, Some(Named::Operand(i)))
                if kind != DirectiveArgs::OperandsAttr || operands.is_empty() =>
            {
                self.bind(&mut |b| &mut b.operands, i, nat, name)?;
                self.in_order(i, nat)?;
                operands.push(i);
            }
            (DirectiveArgs::Region, Some(Named::Region(i))) => {
                self.bind(&mut |b| &mut b.regions, i, nat, name)?;
            }
            (_, None) => return Err(self.names.unknown(nat, name)),
            _ => {
                return Err(Error(
                    nat,
                    format!(
                        "`${name}` is not {} here",
                        match kind {
                            DirectiveArgs::Operands => "an operand",
                            DirectiveArgs::OperandsAttr => "an operand group, then an attribute,",
                            DirectiveArgs::Region => "a region",
                            _ => "an attribute",
                        }
                    ),
                ))
            }
        }
        Ok(())
    }

    /// `^` after an element in a group makes it the group's anchor.
    fn anchor(
        &mut self,
        in_group: bool,
        anchor: &mut Option<Anchor>,
        e: &Elem,
    ) -> Result<(), Error> {
        if !(in_group && self.lx.eat("^")) {
            return Ok(());
        }
        if anchor.is_some() {
            return Err(Error(self.lx.at - 1, "a group has one anchor `^`".into()));
        }
        *anchor = Some(match *e {
            Elem::Operand(i) | Elem::OperandTypes(i) => Anchor::Operand(i),
            Elem::Attr(i) => Anchor::Attr(i),
            // A directive over one attribute is printed when the attribute is there.
            Elem::Custom(_, ref attrs) if attrs.len() == 1 => Anchor::Attr(attrs[0]),
            Elem::Region(i) => Anchor::Region(i),
            Elem::ResultTypes => Anchor::Results,
            _ => {
                return Err(Error(
                    self.lx.at - 1,
                    "this element cannot be an anchor".into(),
                ))
            }
        });
        Ok(())
    }

    /// Operand groups are bound in the spec's order (the engine collects them as it reads).
    fn in_order(&mut self, i: usize, at: usize) -> Result<(), Error> {
        if self.last_operand.is_some_and(|l| l >= i) {
            return Err(Error(
                at,
                format!(
                    "operand `{}` is bound before an operand the spec lists after it; bind operands in the order of `operands:`",
                    self.names.op.operands[i].name
                ),
            ));
        }
        self.last_operand = Some(i);
        Ok(())
    }

    fn bind(
        &mut self,
        which: &mut dyn FnMut(&mut Bound) -> &mut Vec<bool>,
        i: usize,
        at: usize,
        name: &str,
    ) -> Result<(), Error> {
        let v = which(&mut self.bound);
        if v[i] {
            return Err(Error(at, format!("`{name}` is bound twice")));
        }
        v[i] = true;
        Ok(())
    }
}

/// Parses and checks `op`'s format `text`, written at `base` (the position of its first
/// character). Parsing stops at the first error of a format.
pub fn parse(
    op: &StablehloOp,
    enums: &[EnumDef],
    text: &str,
    base: &Pos,
) -> Result<Format, (Pos, String)> {
    let bare = op.attributes.iter().map(|a| {
        matches!(
            crate::ods::lower(&a.ty, enums),
            Ok(OdsType::Int { .. }
                | OdsType::Bool
                | OdsType::Str
                | OdsType::DenseI64Array
                | OdsType::Enum(_))
        )
    });
    parse_with(op, bare.collect(), false, &[], &[], text, base)
}

/// [`parse`], given which attributes have a bare spelling and whether the op has ODS's
/// `SameOperandsAndResultType` (the types of the operands or of the results then give all).
fn parse_with(
    op: &StablehloOp,
    bare: Vec<bool>,
    same_type: bool,
    inferred: &[crate::codec_dialect::TypeSlot],
    successors: &[String],
    text: &str,
    base: &Pos,
) -> Result<Format, (Pos, String)> {
    let n = |v: &[crate::model::Field]| vec![false; v.len()];
    let mut p = FormatParser {
        last_operand: None,
        lx: Lexer { text, at: 0, base },
        names: Names { op, successors },
        bare,
        bound: Bound {
            operands: n(&op.operands),
            operand_types: n(&op.operands),
            result_types: n(&op.results),
            attrs: vec![false; op.attributes.len()],
            regions: n(&op.regions),
            successors: vec![false; successors.len()],
            attr_dict: false,
        },
    };
    let elems = p
        .elems(false, &mut None)
        .map_err(|Error(at, m)| (p.lx.pos(at), m))?;
    let end = p.lx.pos(text.trim_end().len());
    let b = &mut p.bound;
    if same_type && b.operand_types.iter().chain(&b.result_types).any(|t| *t) {
        b.operand_types.fill(true);
        b.result_types.fill(true);
    }
    for t in inferred {
        use crate::codec_dialect::TypeSlot;
        let slot = match *t {
            TypeSlot::Operand(i) => b.operand_types.get_mut(i),
            TypeSlot::Result(i) => b.result_types.get_mut(i),
            TypeSlot::Attr(_) => None,
        };
        if let Some(s) = slot {
            *s = true;
        }
    }
    if !b.attr_dict {
        return Err((
            end,
            "the format has no `attr-dict` (the attributes it does not bind go there)".into(),
        ));
    }
    let missing = |what: &str, fields: &[crate::model::Field], bound: &[bool]| {
        fields
            .iter()
            .zip(bound)
            .find(|(_, b)| !**b)
            .map(|(f, _)| format!("{what} `{}` is not bound by the format", f.name))
    };
    if let Some(m) = missing("operand", &op.operands, &b.operands)
        .or_else(|| missing("the type of operand", &op.operands, &b.operand_types))
        .or_else(|| missing("the type of result", &op.results, &b.result_types))
        .or_else(|| missing("region", &op.regions, &b.regions))
        .or_else(|| {
            (successors.iter().zip(&b.successors))
                .find(|(_, b)| !**b)
                .map(|(s, _)| format!("successor `{s}` is not bound by the format"))
        })
    {
        return Err((end, m));
    }
    // The engine keeps an op's attributes in a fixed array (text/op_format.rs MAX_ATTRS).
    if op.attributes.len() > 16 {
        return Err((end, "an op with a format has at most 16 attributes".into()));
    }
    if op.regions.len() > 1 && op.regions.iter().any(|r| r.variadic) {
        return Err((
            end,
            "a format binds one variadic region group, or regions that are not variadic (ops with more are written by hand, text/op_format.rs)".into(),
        ));
    }
    Ok(Format { elems })
}

/// A codec dialect's op as the checker sees ops. Every attribute has a bare spelling: a
/// dialect attribute's stripped form, a symbol, a string, an integer or an enum case.
fn dialect_model(dialect: &str, o: &DialectOp) -> StablehloOp {
    let field = |n: &String| Field {
        name: n.trim_end_matches('*').to_string(),
        variadic: n.ends_with('*'),
        pos: o.pos.clone(),
    };
    let attr = |a: &crate::codec_dialect::OpAttr| StablehloAttr {
        name: a.name.clone(),
        ty: a.of.clone(),
        ty_pos: o.pos.clone(),
        default: None,
        optional: a.optional,
        vhlo: None,
        vhlo_default: None,
        pos: o.pos.clone(),
    };
    StablehloOp {
        name: format!("{dialect}.{}", o.name),
        compatible_operands_and_result_type: false,
        elementwise_first: false,
        commutative: false,
        constant_like: false,
        implicit_terminator: false,
        also: Vec::new(),
        operands: o.operands.iter().map(field).collect(),
        operand_types: Vec::new(),
        attributes: o.attributes.iter().map(attr).collect(),
        results: o.results.iter().map(field).collect(),
        result_types: Vec::new(),
        regions: o.regions.iter().map(field).collect(),
        single_block_regions: vec![false; o.regions.len()],
        format: o.format.clone(),
        block_arg_name: None,
        pos: o.pos.clone(),
    }
}

/// A parsed format or the first error, at its position.
type Parsed = Result<Format, (Pos, String)>;

/// Parses and checks a codec dialect op's format (`None` without one).
fn parse_dialect_op(dialect: &str, o: &DialectOp) -> Option<(StablehloOp, Parsed)> {
    let (text, pos) = o.format.as_ref()?;
    let op = dialect_model(dialect, o);
    let inferred: Vec<_> = o.infer.iter().map(|r| r.to).collect();
    let f = parse_with(
        &op,
        vec![true; op.attributes.len()],
        o.same_type,
        &inferred,
        &o.successors,
        text,
        pos,
    );
    Some((op, f))
}

/// Checks every `format:` of the spec, the codec dialects' too.
pub fn check(spec: &crate::model::Spec, diags: &mut Diagnostics) {
    for fam in &spec.ops {
        let s = &fam.stablehlo;
        if let Some((text, pos)) = s.format.as_ref().filter(|f| f.0 != GENERIC) {
            if let Err((p, m)) = parse(s, &spec.enums, text, pos) {
                diags.error(p, format!("format of `{}`: {m}", s.name));
            }
        }
    }
    for d in &spec.codec_dialects {
        for o in &d.ops {
            if let Some((op, Err((p, m)))) = parse_dialect_op(&d.name, o) {
                diags.error(p, format!("format of `{}`: {m}", op.name));
            }
        }
    }
}

/// The tokens of one op's format table (`None` without a format).
pub fn tokens(spec: &crate::model::Spec, op: &StablehloOp) -> TokenStream {
    let Some((text, pos)) = op.format.as_ref().filter(|f| f.0 != GENERIC) else {
        return quote! { None };
    };
    match parse(op, &spec.enums, text, pos) {
        Ok(f) => table_tokens(op, &f, false),
        Err(_) => quote! { None },
    }
}

/// The tokens of a codec dialect op's format table (`None` without a format).
pub fn dialect_tokens(dialect: &str, o: &DialectOp) -> TokenStream {
    match parse_dialect_op(dialect, o) {
        Some((op, Ok(f))) => table_tokens(&op, &f, o.same_type),
        _ => quote! { None },
    }
}

fn table_tokens(op: &StablehloOp, f: &Format, same_type: bool) -> TokenStream {
    let operand_groups = op.operands.len() as u8;
    // ODS's AttrSizedOperandSegments: the engine sizes the groups by `operandSegmentSizes`.
    let segment_attr = op
        .attributes
        .iter()
        .position(|a| a.name == "operandSegmentSizes");
    let segments: u16 = match segment_attr {
        Some(_) => op
            .operands
            .iter()
            .enumerate()
            .filter(|(_, o)| o.variadic)
            .fold(0, |acc, (i, _)| acc | 1 << i),
        None => 0,
    };
    let variadic = match op.operands.iter().position(|f| f.variadic) {
        Some(i) => {
            let i = i as u8;
            quote! { Some(#i) }
        }
        None => quote! { None },
    };
    let results = op.results.len() as u8;
    let variadic_results = op.results.iter().any(|f| f.variadic);
    let regions = op.regions.len() as u8;
    let variadic_regions = op.regions.iter().any(|f| f.variadic);
    let elems = elems_tokens(&f.elems, &mut Spacing::new());
    // The elements whose printer can refuse a value, checked before anything is printed:
    // attributes, optional groups, and directives over attributes or a tuple type.
    let checked: Vec<Elem> = f
        .elems
        .iter()
        .filter(|e| match e {
            Elem::Attr(_) | Elem::Optional { .. } => true,
            Elem::CustomOperandsAttr(..) => true,
            Elem::Custom(name, attrs) => {
                !attrs.is_empty()
                    || [
                        "TupleOpType",
                        "PairwiseOpType",
                        "SingleBlockRegionNoBlockId",
                    ]
                    .contains(name)
            }
            _ => false,
        })
        .cloned()
        .collect();
    let checked = elems_tokens(&checked, &mut Spacing::new());
    // The segment sizes are spelled by the groups, never in attr-dict.
    let bound_attrs: u64 = bound_attrs(&f.elems) | segment_attr.map_or(0, |i| 1 << i);
    quote! {
        Some(&OpFormat {
            elems: #elems,
            checked: #checked,
            bound_attrs: #bound_attrs,
            operand_groups: #operand_groups,
            variadic_operands: #variadic,
            results: #results,
            variadic_results: #variadic_results,
            regions: #regions,
            variadic_regions: #variadic_regions,
            same_type: #same_type,
            segments: #segments,
        })
    }
}

/// The attributes the elements bind, as a bit per attribute index.
fn bound_attrs(elems: &[Elem]) -> u64 {
    elems.iter().fold(0, |acc, e| {
        acc | match e {
            Elem::Attr(i) => 1 << i,
            Elem::Custom(_, attrs) => attrs.iter().fold(0, |a, i| a | 1 << i),
            Elem::CustomOperandsAttr(_, _, a) => 1 << a,
            Elem::Optional {
                then, otherwise, ..
            } => bound_attrs(then) | bound_attrs(otherwise),
            _ => 0,
        }
    })
}

/// Where the spacing of printed elements stands, as MLIR's format generator decides it: the
/// spaces are resolved here, once, not while printing.
pub(crate) struct Spacing {
    emit_space: bool,
    last_was_punct: bool,
}

impl Spacing {
    pub(crate) fn new() -> Spacing {
        Spacing {
            emit_space: true,
            last_was_punct: false,
        }
    }

    /// The literal as printed, with its leading space when it takes one.
    pub(crate) fn literal(&mut self, lit: &str) -> String {
        match lit {
            "" => {
                self.emit_space = false;
                self.last_was_punct = true;
                return String::new();
            }
            " " => {
                self.emit_space = false;
                self.last_was_punct = false;
                return " ".into();
            }
            _ => {}
        }
        let first = lit.as_bytes()[0];
        let space_before = if lit.len() != 1 {
            true
        } else if self.last_was_punct {
            !b">)}],".contains(&first)
        } else {
            !b"<>(){}[],".contains(&first)
        };
        let printed = if self.emit_space && space_before {
            format!(" {lit}")
        } else {
            lit.to_string()
        };
        self.emit_space = lit.len() != 1 || !b"<({[".contains(&first);
        self.last_was_punct = first != b'_' && !first.is_ascii_alphabetic();
        printed
    }

    /// Whether a parameter of a type or attribute format is printed after a space
    /// (AttrOrTypeFormatGen: also after a word, where an op format's element is not).
    pub(crate) fn param(&mut self) -> bool {
        let space = self.emit_space || !self.last_was_punct;
        self.emit_space = true;
        self.last_was_punct = false;
        space
    }

    /// Whether a non-literal element is printed after a space.
    fn element(&mut self) -> bool {
        let space = self.emit_space;
        self.emit_space = true;
        self.last_was_punct = false;
        space
    }
}

fn elems_tokens(elems: &[Elem], sp: &mut Spacing) -> TokenStream {
    let es: Vec<TokenStream> = elems
        .iter()
        .map(|e| match e {
            Elem::Literal(l) => {
                let printed = sp.literal(l);
                quote! { FormatElem::Literal(#printed) }
            }
            Elem::Operand(i) => {
                let (i, space) = (*i as u8, sp.element());
                quote! { FormatElem::Operand(#i, #space) }
            }
            Elem::Operands => {
                let space = sp.element();
                quote! { FormatElem::Operands(#space) }
            }
            Elem::Attr(i) => {
                let (i, space) = (*i as u8, sp.element());
                quote! { FormatElem::Attr(#i, #space) }
            }
            Elem::AttrDict => quote! { FormatElem::AttrDict },
            Elem::FunctionalType => {
                let space = sp.element();
                quote! { FormatElem::FunctionalType(#space) }
            }
            Elem::ResultTypes => {
                let space = sp.element();
                quote! { FormatElem::ResultTypes(#space) }
            }
            Elem::ResultType(i) => {
                let (i, space) = (*i as u8, sp.element());
                quote! { FormatElem::ResultType(#i, #space) }
            }
            Elem::OperandTypes(i) => {
                let (i, space) = (*i as u8, sp.element());
                quote! { FormatElem::OperandTypes(#i, #space) }
            }
            Elem::Region(i) => {
                let (i, space) = (*i as u8, sp.element());
                quote! { FormatElem::Region(#i, #space) }
            }
            Elem::Successor(i) => {
                let (i, space) = (*i as u8, sp.element());
                quote! { FormatElem::Successor(#i, #space) }
            }
            Elem::Custom(name, attrs) => {
                let d = quote::format_ident!("{}", name);
                let attrs = attrs.iter().map(|&i| i as u8);
                let space = sp.element();
                quote! { FormatElem::Custom(FormatDirective::#d, &[ #(#attrs),* ], #space) }
            }
            Elem::CustomOperands(name, g) => {
                let d = quote::format_ident!("{}", name);
                let (g, space) = (*g as u8, sp.element());
                quote! { FormatElem::CustomOperands(FormatDirective::#d, #g, #space) }
            }
            Elem::CustomOperandsAttr(name, g, a) => {
                let d = quote::format_ident!("{}", name);
                let (g, a, space) = (*g as u8, *a as u8, sp.element());
                quote! { FormatElem::CustomOperandsAttr(FormatDirective::#d, #g, #a, #space) }
            }
            Elem::Optional {
                anchor,
                then,
                otherwise,
            } => {
                let anchor = match anchor {
                    Anchor::Attr(i) => {
                        let i = *i as u8;
                        quote! { FormatAnchor::Attr(#i) }
                    }
                    Anchor::Operand(i) => {
                        let i = *i as u8;
                        quote! { FormatAnchor::Operand(#i) }
                    }
                    Anchor::Region(i) => {
                        let i = *i as u8;
                        quote! { FormatAnchor::Region(#i) }
                    }
                    Anchor::Results => quote! { FormatAnchor::Results },
                };
                // As MLIR's generator: the else branch continues from the then branch's state.
                let then = elems_tokens(then, sp);
                let otherwise = elems_tokens(otherwise, sp);
                quote! { FormatElem::Optional { anchor: #anchor, then: #then, otherwise: #otherwise } }
            }
        })
        .collect();
    quote! { &[ #(#es),* ] }
}

/// The directive names, for the generated `FormatDirective` enum.
pub fn directive_names() -> impl Iterator<Item = &'static str> {
    DIRECTIVES.iter().map(|d| d.0)
}
