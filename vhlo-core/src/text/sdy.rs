//! Text syntax of the Shardy (`sdy`) attributes, printer and parser side by side, as Shardy's
//! `attrs.td` assembly formats and `printers.cc`/`parsers.cc` spell them. The attributes, their
//! parameters and their checks come from the spec (`spec/dialects/sdy.yaml`, via
//! `dialect::codec`); this file holds only the spelling.
//!
//! Every attribute has a *stripped* form (what `printStrippedAttrOrType` prints: the form nested
//! attributes take, e.g. `"a":(1)2` for an axis ref) and a full form: `#sdy.` + mnemonic + stripped
//! when that reads as MLIR's pretty dialect form (`#sdy.sharding<@mesh, [{}]>`), else
//! `#sdy<` mnemonic stripped `>` (`#sdy<manual_axes{"a"}>`).

use std::fmt::Write as _;

use super::parser::{PResult, Parser};
use super::printer::{int_attr_of, write_escaped, write_i64s, Printer};
use crate::dialect::codec::{CodecDialect, CodecForm, CodecOf, CodecOpAttr};
use crate::ir::{AttrData, Attribute, DialectAttr, Module, Param, Region, TypeData};

/// `factorSymbolString`: i, j, ..., z, then z_1, z_2, ... (Shardy's `kStartAtZ` is 17).
const START_AT_Z: i64 = (b'z' - b'i') as i64;

pub(crate) fn factor_symbol(out: &mut String, f: i64) {
    if (0..=START_AT_Z).contains(&f) {
        out.push(char::from(b'i' + f as u8));
    } else {
        let _ = write!(out, "z_{}", f - START_AT_Z);
    }
}

/// Whether `#dialect.body` is how MLIR prints `body` (`isDialectSymbolSimpleEnoughForPrettyForm`).
fn pretty_form(body: &str) -> bool {
    let Some(first) = body.chars().next() else {
        return false;
    };
    if !first.is_ascii_alphabetic() {
        return false;
    }
    let rest = body.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_');
    rest.is_empty() || (rest.starts_with('<') && rest.ends_with('>'))
}

// ---- printing -----------------------------------------------------------------------------

impl Printer<'_> {
    /// `#sdy.mnemonic<...>` or `#sdy<mnemonic...>`.
    pub(super) fn print_codec_attr(&mut self, cd: &CodecDialect, d: &DialectAttr) {
        if self.print_attr_form(cd, d) {
            return;
        }
        let mnemonic = self.m.str(d.mnemonic);
        let outer = std::mem::take(&mut self.out);
        self.out.push_str(mnemonic);
        self.sdy_print_stripped(cd, d);
        let body = std::mem::replace(&mut self.out, outer);
        // A stripped form that starts like an identifier (`ij` of a dim_mapping) would run into
        // the mnemonic: jaxlib prints `#sdy.dim_mappingij`, which no parser reads back.
        let stripped = body.get(mnemonic.len()..).unwrap_or("");
        let joins = stripped
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'$');
        if joins {
            let _ = write!(self.out, "#{}<{mnemonic} {stripped}>", cd.name);
        } else if pretty_form(&body) {
            let _ = write!(self.out, "#{}.{body}", cd.name);
        } else {
            let _ = write!(self.out, "#{}<{body}>", cd.name);
        }
    }

    /// An element of a list parameter, stripped when it is an attribute of the dialect.
    fn sdy_print_nested(&mut self, cd: &CodecDialect, a: Attribute) {
        match self.m.attr_data(a) {
            AttrData::Dialect(d) if self.m.str(d.dialect) == cd.name => {
                self.sdy_print_stripped(cd, d)
            }
            _ => self.print_attr(a),
        }
    }

    fn sdy_print_list(&mut self, cd: &CodecDialect, items: &[Attribute], sep: &str) {
        self.print_sep(items, sep, |p, a| p.sdy_print_nested(cd, a));
    }

    fn sdy_print_factors(&mut self, factors: &[i64]) {
        self.print_sep(factors, ", ", |p, f| factor_symbol(&mut p.out, f));
    }

    fn sdy_print_stripped(&mut self, cd: &CodecDialect, d: &DialectAttr) {
        let m = self.m;
        let p = &d.params[..];
        let list = cd.attr(m.str(d.mnemonic)).and_then(|(_, spec)| spec.list);
        match (m.str(d.mnemonic), p) {
            (_, [Param::Attrs(items)]) if list.is_some() => {
                let (open, close) = list.unwrap_or_default();
                self.out.push_str(open);
                self.sdy_print_list(cd, items, ", ");
                self.out.push_str(close);
            }
            ("mesh_axis", [Param::Str(name), Param::Int(size)]) => {
                write_escaped(&mut self.out, m.bytes(*name));
                let _ = write!(self.out, "={size}");
            }
            ("mesh", [Param::Attrs(axes), Param::Ints(ids)]) => {
                self.out.push_str("<[");
                self.sdy_print_list(cd, axes, ", ");
                self.out.push(']');
                if !ids.is_empty() {
                    self.out.push_str(", device_ids=");
                    write_i64s(&mut self.out, ids);
                }
                self.out.push('>');
            }
            ("sub_axis_info", [Param::Int(pre), Param::Int(size)]) => {
                let _ = write!(self.out, "({pre}){size}");
            }
            ("axis_ref", [Param::Str(name), sub]) => {
                write_escaped(&mut self.out, m.bytes(*name));
                if let Param::Attr(s) = sub {
                    self.out.push(':');
                    self.sdy_print_nested(cd, *s);
                }
            }
            ("dimension_sharding", [Param::Attrs(axes), Param::Bool(closed), priority]) => {
                self.out.push('{');
                self.sdy_print_list(cd, axes, ", ");
                if !closed {
                    if !axes.is_empty() {
                        self.out.push_str(", ");
                    }
                    self.out.push('?');
                }
                self.out.push('}');
                if let Param::UInt(pr) = priority {
                    let _ = write!(self.out, "p{pr}");
                }
            }
            (
                "sharding",
                [Param::Attr(mesh), Param::Attrs(dims), Param::Attrs(replicated), Param::Attrs(unreduced), Param::Int(op)],
            ) => {
                self.out.push('<');
                match m.attr_data(*mesh) {
                    AttrData::Dialect(md) if m.str(md.dialect) == cd.name => {
                        self.out.push_str("mesh");
                        self.sdy_print_stripped(cd, md);
                    }
                    _ => self.print_attr(*mesh),
                }
                self.out.push_str(", [");
                self.sdy_print_list(cd, dims, ", ");
                self.out.push(']');
                if !replicated.is_empty() {
                    self.out.push_str(", replicated={");
                    self.sdy_print_list(cd, replicated, ", ");
                    self.out.push('}');
                }
                if !unreduced.is_empty() {
                    self.out.push_str(", unreduced=");
                    if *op != 0 {
                        let case = case_of(cd, "reduction_op", |c| c.1 == *op);
                        let name = case.map_or("<<invalid reduction>>", |c| c.0);
                        self.out.push_str(name);
                    }
                    self.out.push('{');
                    self.sdy_print_list(cd, unreduced, ", ");
                    self.out.push('}');
                }
                self.out.push('>');
            }
            ("dim_mapping", [Param::Ints(factors)]) => {
                for &f in factors.iter() {
                    factor_symbol(&mut self.out, f);
                }
            }
            (
                "op_sharding_rule",
                [Param::Ints(sizes), Param::Attrs(operands), Param::Attrs(results), Param::Ints(reduction), Param::Ints(need_replication), Param::Ints(permutation), Param::Ints(blocked), Param::Bool(custom)],
            ) => {
                self.out.push_str("<(");
                self.sdy_print_list(cd, operands, ", ");
                self.out.push_str(")->(");
                self.sdy_print_list(cd, results, ", ");
                self.out.push(')');
                if !sizes.is_empty() {
                    self.out.push_str(" {");
                    for (i, &s) in sizes.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        factor_symbol(&mut self.out, i as i64);
                        let _ = write!(self.out, "={s}");
                    }
                    self.out.push('}');
                }
                for (kw, list) in
                    FACTOR_LISTS
                        .iter()
                        .zip([reduction, need_replication, permutation, blocked])
                {
                    if !list.is_empty() {
                        let _ = write!(self.out, " {kw}={{");
                        self.sdy_print_factors(list);
                        self.out.push('}');
                    }
                }
                if *custom {
                    self.out.push_str(", custom");
                }
                self.out.push('>');
            }
            ("all_to_all_param", [Param::Attrs(axes), Param::Int(src), Param::Int(tgt)]) => {
                self.out.push('{');
                self.sdy_print_list(cd, axes, ", ");
                let _ = write!(self.out, "}}: {src}->{tgt}");
            }
            _ => {
                // Parameters of the wrong shape (not from our reader or parser): a form the
                // parser refuses rather than a silent loss.
                let _ = write!(self.out, "<<unprintable params {p:?}>>");
            }
        }
    }
}

/// The keywords of `op_sharding_rule`'s factor lists, in parameter order.
const FACTOR_LISTS: [&str; 4] = [
    "reduction",
    "need_replication",
    "permutation",
    "blocked_propagation",
];

/// The first case of the dialect's enum `e` that `is` accepts: (name, value).
fn case_of(
    cd: &CodecDialect,
    e: &str,
    is: impl Fn(&(&str, i64)) -> bool,
) -> Option<(&'static str, i64)> {
    let e = cd.enums.iter().find(|x| x.name == e)?;
    e.cases.iter().find(|c| is(c)).copied()
}

// ---- parsing ------------------------------------------------------------------------------

impl Parser<'_> {
    /// The stripped form of attribute `mnemonic` (the cursor is right after the mnemonic).
    pub(super) fn parse_codec_attr(
        &mut self,
        cd: &'static CodecDialect,
        mnemonic: &str,
        pos: usize,
    ) -> PResult<Attribute> {
        let Some((_, spec)) = cd.attr(mnemonic) else {
            return Err(self
                .c
                .error_at(pos, format!("unknown attribute '#{}.{mnemonic}'", cd.name)));
        };
        if spec.form == CodecForm::Text {
            return self.parse_text_attr(spec.dialect, spec.mnemonic);
        }
        if let Some(params) = self.parse_attr_form(cd, spec)? {
            return Ok(self.m.dialect_attr(cd.name, spec.mnemonic, params));
        }
        let params = match spec.mnemonic {
            _ if spec.list.is_some() => {
                let (open, close) = spec.list.unwrap_or_default();
                for b in open.bytes() {
                    self.c.expect(b, "to open a list")?;
                }
                let of = spec.params.first().map(|p| p.of);
                let (end, close) = close.as_bytes().split_first().unwrap_or((&b']', &[]));
                let items = self.sdy_list(*end, |p| match of {
                    Some(CodecOf::Attr(i)) => {
                        p.sdy_nested(cd, cd.attrs.get(i).map_or("", |a| a.mnemonic))
                    }
                    _ => p.sdy_string_attr(),
                })?;
                for &b in close {
                    self.c.expect(b, "to close a list")?;
                }
                vec![Param::Attrs(items)]
            }
            "mesh_axis" => {
                let name = self.sdy_string()?;
                self.c.expect(b'=', "after a mesh axis name")?;
                let size = self.c.int64("as mesh axis size")?;
                vec![Param::Str(name), Param::Int(size)]
            }
            "mesh" => {
                self.c.expect(b'<', "to open a mesh")?;
                let axes = self.sdy_bracketed(|p| p.sdy_nested(cd, "mesh_axis"))?;
                let mut ids = Vec::new();
                if self.c.eat(b',') {
                    self.c.expect_keyword("device_ids", "in a mesh")?;
                    self.c.expect(b'=', "after 'device_ids'")?;
                    self.c.expect(b'[', "to open device ids")?;
                    ids = self.parse_list_until(b']', "between device ids", |p| {
                        p.c.int64("as a device id")
                    })?;
                }
                self.c.expect(b'>', "to close a mesh")?;
                vec![Param::Attrs(axes), Param::Ints(ids.into())]
            }
            "sub_axis_info" => {
                self.c.expect(b'(', "to open a sub-axis")?;
                let pre = self.c.int64("as sub-axis pre-size")?;
                self.c.expect(b')', "after a sub-axis pre-size")?;
                let size = self.c.int64("as sub-axis size")?;
                vec![Param::Int(pre), Param::Int(size)]
            }
            "axis_ref" => {
                let name = self.sdy_string()?;
                let sub = if self.c.eat(b':') {
                    Param::Attr(self.sdy_nested(cd, "sub_axis_info")?)
                } else {
                    Param::Absent
                };
                vec![Param::Str(name), sub]
            }
            "dimension_sharding" => {
                self.c.expect(b'{', "to open a dimension sharding")?;
                let mut axes = Vec::new();
                let mut closed = true;
                if !self.c.eat(b'}') {
                    loop {
                        if self.c.eat(b'?') {
                            closed = false;
                            self.c.expect(b'}', "after '?'")?;
                            break;
                        }
                        axes.push(self.sdy_nested(cd, "axis_ref")?);
                        if self.c.eat(b'}') {
                            break;
                        }
                        self.c.expect(b',', "between axes")?;
                    }
                }
                // `p<N>` right after the brace.
                let priority = if self.c.bytes.get(self.c.pos) == Some(&b'p') {
                    let at = self.c.pos;
                    let id = self.c.bare_ident().unwrap_or_default();
                    let n = id
                        .strip_prefix('p')
                        .and_then(|n| n.parse::<u64>().ok())
                        .filter(|n| n >> 63 == 0)
                        .ok_or_else(|| self.c.error_at(at, "expected a priority 'p<N>'"))?;
                    Param::UInt(n)
                } else {
                    Param::Absent
                };
                vec![Param::Attrs(axes.into()), Param::Bool(closed), priority]
            }
            "sharding" => {
                self.c.expect(b'<', "to open a sharding")?;
                self.c.skip_ws();
                let mesh = if self.c.eat_keyword("mesh") {
                    self.sdy_nested(cd, "mesh")?
                } else {
                    self.parse_attribute()?
                };
                self.c.expect(b',', "after the mesh of a sharding")?;
                let dims = self.sdy_bracketed(|p| p.sdy_nested(cd, "dimension_sharding"))?;
                let mut replicated: Box<[Attribute]> = Box::new([]);
                let mut unreduced: Box<[Attribute]> = Box::new([]);
                let mut op = 0;
                while self.c.eat(b',') {
                    let at = self.c.pos;
                    if self.c.eat_keyword("replicated") {
                        self.c.expect(b'=', "after 'replicated'")?;
                        replicated = self.sdy_braced(|p| p.sdy_nested(cd, "axis_ref"))?;
                    } else if self.c.eat_keyword("unreduced") {
                        self.c.expect(b'=', "after 'unreduced'")?;
                        if let Some(kw) = self.c.peek_ident() {
                            op = case_of(cd, "reduction_op", |c| c.0 == kw)
                                .ok_or_else(|| {
                                    self.c.error_at(at, format!("unknown reduction '{kw}'"))
                                })?
                                .1;
                            self.c.bare_ident();
                        }
                        unreduced = self.sdy_braced(|p| p.sdy_nested(cd, "axis_ref"))?;
                    } else {
                        return Err(self.c.error_at(at, "expected 'replicated' or 'unreduced'"));
                    }
                }
                self.c.expect(b'>', "to close a sharding")?;
                vec![
                    Param::Attr(mesh),
                    Param::Attrs(dims),
                    Param::Attrs(replicated),
                    Param::Attrs(unreduced),
                    Param::Int(op),
                ]
            }
            "dim_mapping" => vec![Param::Ints(self.sdy_factors()?.into())],
            "op_sharding_rule" => {
                self.c.expect(b'<', "to open a sharding rule")?;
                self.c.expect(b'(', "to open operand mappings")?;
                let operands = self.sdy_list(b')', |p| p.sdy_nested(cd, "tensor_mapping"))?;
                self.c.expect_punct("->", "in a sharding rule")?;
                self.c.expect(b'(', "to open result mappings")?;
                let results = self.sdy_list(b')', |p| p.sdy_nested(cd, "tensor_mapping"))?;
                let mut sizes = Vec::new();
                if self.c.eat(b'{') {
                    self.parse_one_or_more_until(b'}', "between factor sizes", |p| {
                        let at = p.c.pos;
                        let f = p.sdy_factors()?;
                        if f != [sizes.len() as i64] {
                            return Err(p.c.error_at(at, "factor sizes out of order"));
                        }
                        p.c.expect(b'=', "after a factor")?;
                        sizes.push(p.c.int64("as a factor size")?);
                        Ok(())
                    })?;
                }
                let mut lists: [Vec<i64>; 4] = Default::default();
                loop {
                    let at = self.c.pos;
                    let Some(kw) = self.c.peek_ident() else { break };
                    let Some(i) = FACTOR_LISTS.iter().position(|k| *k == kw) else {
                        return Err(self
                            .c
                            .error_at(at, format!("unexpected '{kw}' in a sharding rule")));
                    };
                    self.c.bare_ident();
                    self.c.expect(b'=', "after a factor list keyword")?;
                    self.c.expect(b'{', "to open a factor list")?;
                    let list = self
                        .parse_list_until(b'}', "between factors", Self::sdy_factors)?
                        .concat();
                    if let Some(slot) = lists.get_mut(i) {
                        *slot = list;
                    }
                }
                let custom = if self.c.eat(b',') {
                    self.c.expect_keyword("custom", "in a sharding rule")?;
                    true
                } else {
                    false
                };
                self.c.expect(b'>', "to close a sharding rule")?;
                let [reduction, need_replication, permutation, blocked] = lists;
                vec![
                    Param::Ints(sizes.into()),
                    Param::Attrs(operands),
                    Param::Attrs(results),
                    Param::Ints(reduction.into()),
                    Param::Ints(need_replication.into()),
                    Param::Ints(permutation.into()),
                    Param::Ints(blocked.into()),
                    Param::Bool(custom),
                ]
            }
            "all_to_all_param" => {
                let axes = self.sdy_braced(|p| p.sdy_nested(cd, "axis_ref"))?;
                self.c.expect(b':', "after all-to-all axes")?;
                let src = self.c.int64("as source dimension")?;
                self.c.expect_punct("->", "between dimensions")?;
                let tgt = self.c.int64("as target dimension")?;
                vec![Param::Attrs(axes), Param::Int(src), Param::Int(tgt)]
            }
            other => {
                return Err(self
                    .c
                    .error_at(pos, format!("no text syntax for '#{}.{other}'", cd.name)))
            }
        };
        // The spec's shape rules (element kinds, enum cases), as the bytecode reader applies them.
        for (p, v) in spec.params.iter().zip(&params) {
            cd.check_param(p, &self.m, v).map_err(|e| {
                self.c.error_at(
                    pos,
                    format!("#{}.{mnemonic} parameter '{}': {e}", cd.name, p.name),
                )
            })?;
        }
        Ok(self.m.dialect_attr(cd.name, spec.mnemonic, params))
    }

    /// Attribute `mnemonic` where the format names its kind: stripped (`<@m, [{}]>`) or in
    /// full (`#sdy.sharding<@m, [{}]>`), as MLIR's `parseCustomAttributeWithFallback` takes
    /// either; a full one of another kind is refused.
    fn sdy_nested(&mut self, cd: &'static CodecDialect, mnemonic: &str) -> PResult<Attribute> {
        let pos = self.c.token_start();
        if self.c.peek() == Some(b'#') {
            let a = self.parse_attribute()?;
            return match self.m.attr_data(a) {
                AttrData::Dialect(d)
                    if self.m.str(d.dialect) == cd.name && self.m.str(d.mnemonic) == mnemonic =>
                {
                    Ok(a)
                }
                _ => Err(self.c.error_at(
                    pos,
                    format!(
                        "invalid kind of attribute specified: expected #{}.{mnemonic}",
                        cd.name
                    ),
                )),
            };
        }
        self.parse_codec_attr(cd, mnemonic, pos)
    }

    /// A string of Shardy's syntax (mesh and axis names): bytes, as MLIR strings are.
    fn sdy_string(&mut self) -> PResult<crate::ir::Symbol> {
        let s = self.c.string_lit_bytes()?;
        Ok(self.m.sym_bytes(&s))
    }

    fn sdy_string_attr(&mut self) -> PResult<Attribute> {
        let value = self.sdy_string()?;
        Ok(self.m.attr(AttrData::String { value, ty: None }))
    }

    /// Items up to `close`, separated by commas (the opening delimiter already eaten).
    fn sdy_list(
        &mut self,
        close: u8,
        item: impl FnMut(&mut Self) -> PResult<Attribute>,
    ) -> PResult<Box<[Attribute]>> {
        Ok(self
            .parse_list_until(close, "between list items", item)?
            .into())
    }

    fn sdy_braced(
        &mut self,
        item: impl FnMut(&mut Self) -> PResult<Attribute>,
    ) -> PResult<Box<[Attribute]>> {
        self.c.expect(b'{', "to open a list")?;
        self.sdy_list(b'}', item)
    }

    fn sdy_bracketed(
        &mut self,
        item: impl FnMut(&mut Self) -> PResult<Attribute>,
    ) -> PResult<Box<[Attribute]>> {
        self.c.expect(b'[', "to open a list")?;
        self.sdy_list(b']', item)
    }

    /// Factor symbols run together (`ij`, `kz_1`): the inverse of `factor_symbol`.
    fn sdy_factors(&mut self) -> PResult<Vec<i64>> {
        let at = self.c.token_start();
        let id = self
            .c
            .bare_ident()
            .ok_or_else(|| self.c.error_at(at, "expected factor symbols"))?;
        let b = id.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while let Some(&ch) = b.get(i) {
            if !(b'i'..=b'z').contains(&ch) {
                return Err(self
                    .c
                    .error_at(at, format!("'{id}' is not a list of factor symbols")));
            }
            i += 1;
            if ch == b'z' && b.get(i) == Some(&b'_') {
                let start = i + 1;
                let mut end = start;
                while b.get(end).is_some_and(u8::is_ascii_digit) {
                    end += 1;
                }
                let n: i64 = id
                    .get(start..end)
                    .and_then(|s| s.parse().ok())
                    .filter(|n: &i64| (1..i64::MAX - START_AT_Z).contains(n))
                    .ok_or_else(|| self.c.error_at(at, format!("bad factor symbol in '{id}'")))?;
                out.push(START_AT_Z + n);
                i = end;
            } else {
                out.push(i64::from(ch - b'i'));
            }
        }
        Ok(out)
    }
}

// ---- ops in custom form ---------------------------------------------------------------------
//
// The ops' assembly formats (`ops.td`, recorded in the spec as `ops[].format`) run on the format
// engine (text/op_format.rs); here are the spellings of their attributes and Shardy's custom
// directives (parsers.cc, printers.cc). The ops themselves: text/sdy_ops.rs.

/// The sdy dialect's tables.
pub(super) fn sdy() -> Option<&'static CodecDialect> {
    crate::vhlo::codec_dialect("sdy")
}

fn is_sdy(m: &Module, a: Attribute, mnemonic: &str) -> bool {
    matches!(m.attr_data(a), AttrData::Dialect(d) if m.str(d.dialect) == "sdy" && m.str(d.mnemonic) == mnemonic)
}

/// The case of an I32EnumAttr (an i32 integer attribute) of enum `of`.
fn enum_case(m: &Module, cd: &CodecDialect, of: &str, d: &AttrData) -> Option<&'static str> {
    let e = cd.enums.iter().find(|x| x.name == of)?;
    let v = int_attr_of(m, d, e.width)?;
    case_of(cd, of, |c| c.1 == v).map(|c| c.0)
}

/// The values of a dense array of `width`-bit integers (32 or 64), sign-extended.
fn int_array_values(m: &Module, d: &AttrData, width: u32) -> Option<Vec<i64>> {
    let AttrData::DenseArray { element, data } = d else {
        return None;
    };
    match m.type_data(*element) {
        crate::ir::TypeData::Integer { width: w, .. } if *w == width => {}
        _ => return None,
    }
    match width {
        64 => data
            .chunks_exact(8)
            .map(|c| Some(i64::from_le_bytes(c.try_into().ok()?)))
            .collect(),
        32 => data
            .chunks_exact(4)
            .map(|c| Some(i64::from(i32::from_le_bytes(c.try_into().ok()?))))
            .collect(),
        _ => None,
    }
}

/// Whether `d` is the text-kept attribute `#dialect.mnemonic<...>` (a `format: text` one).
fn is_text_attr(m: &Module, cd: &CodecDialect, mnemonic: &str, d: &AttrData) -> bool {
    let AttrData::Opaque { text, .. } = d else {
        return false;
    };
    (cd.attr(mnemonic)).is_some_and(|(_, k)| k.text_body(m.str(*text)).is_some())
}

/// The dialect of a text attribute kind of `cd` (math's `fastmath` is arith's).
pub(crate) fn text_attr_dialect<'d>(cd: &'d CodecDialect, mnemonic: &str) -> &'d str {
    cd.attr(mnemonic).map_or(cd.name, |(_, a)| a.dialect)
}

/// Whether the attribute has a type of its own (ODS's `TypedAttrInterface`), so that a
/// format may spell it alone (`arith.constant 1 : i32`).
pub(super) fn typed_attr_type(m: &Module, d: &AttrData) -> Option<crate::ir::Type> {
    match d {
        AttrData::DenseElements { ty, .. }
        | AttrData::DenseStrings { ty, .. }
        | AttrData::DenseResource { ty, .. }
        | AttrData::Integer { ty, .. }
        | AttrData::Float { ty, .. } => Some(*ty),
        _ => {
            let _ = m;
            None
        }
    }
}

/// Whether `a` has the bare spelling (`$name` in a format) of an op attribute of kind `of` of
/// dialect `cd` (the kinds of codegen/src/codec_dialect.rs's `BUILTIN_OP_ATTRS`, or an
/// attribute or enum of the dialect).
pub(super) fn bare_ok(m: &Module, cd: &CodecDialect, of: &str, a: Attribute) -> bool {
    let d = m.attr_data(a);
    match of {
        "symbol_name" | "string" => matches!(d, AttrData::String { ty: None, .. }),
        "i64" => int_attr_of(m, d, 64).is_some(),
        "index" => index_attr(m, d).is_some(),
        "index_elements" => index_elements(m, d).is_some(),
        "bool" => matches!(d, AttrData::Bool(_)),
        "elements" => matches!(
            d,
            AttrData::DenseElements { .. }
                | AttrData::DenseStrings { .. }
                | AttrData::DenseResource { .. }
        ),
        "unit" => matches!(d, AttrData::Unit),
        // `true`/`false` carry no type: i1, as the parser reads them.
        "typed" => typed_attr_type(m, d).is_some() || matches!(d, AttrData::Bool(_)),
        "array" => matches!(d, AttrData::Array(_)),
        "dense_i64_array" => int_array_values(m, d, 64).is_some(),
        "dense_i32_array" => int_array_values(m, d, 32).is_some(),
        // A reduction before a collective's axes (a newer Shardy's) stays in generic form.
        "reduction_op" => false,
        _ if cd.attr(of).is_some_and(|(_, a)| a.form == CodecForm::Text) => {
            is_text_attr(m, cd, of, d)
        }
        _ if cd.attr(of).is_some() => {
            matches!(d, AttrData::Dialect(x) if m.str(x.dialect) == cd.name && m.str(x.mnemonic) == of)
        }
        _ => enum_case(m, cd, of, d).is_some(),
    }
}

/// The value of an integer attribute of type `index` (ODS's IndexAttr).
fn index_attr(m: &Module, d: &AttrData) -> Option<i64> {
    match d {
        AttrData::Integer { ty, value } if matches!(m.type_data(*ty), TypeData::Index) => {
            i64::try_from(*value).ok()
        }
        _ => None,
    }
}

/// The elements of a dense `tensor<Nxindex>` (ODS's IndexElementsAttr, rank 1 as shape's
/// const_shape holds it), a splat expanded.
fn index_elements(m: &Module, d: &AttrData) -> Option<Vec<i64>> {
    let AttrData::DenseElements { ty, data, splat } = d else {
        return None;
    };
    let TypeData::RankedTensor {
        shape,
        element,
        encoding: None,
    } = m.type_data(*ty)
    else {
        return None;
    };
    let (&[n], TypeData::Index) = (&shape[..], m.type_data(*element)) else {
        return None;
    };
    let n = usize::try_from(n).ok()?;
    let values: Vec<i64> = data
        .chunks_exact(8)
        .map(|c| c.try_into().map(i64::from_le_bytes))
        .collect::<Result<_, _>>()
        .ok()?;
    match (*splat, &values[..]) {
        (true, &[v]) => Some(vec![v; n]),
        (false, _) if values.len() == n => Some(values),
        _ => None,
    }
}

/// The shardings of a `#sdy.sharding_per_value`.
pub(super) fn per_value_items(m: &Module, a: Attribute) -> Option<&[Attribute]> {
    match m.attr_data(a) {
        AttrData::Dialect(d) if is_sdy(m, a, "sharding_per_value") => match &d.params[..] {
            [Param::Attrs(items)] => Some(items),
            _ => None,
        },
        _ => None,
    }
}

impl Printer<'_> {
    /// An op attribute of kind `of` in its bare spelling (`bare_ok` holds).
    pub(super) fn print_sdy_bare(&mut self, cd: &CodecDialect, of: &str, a: Attribute) {
        let m = self.m;
        match m.attr_data(a) {
            // A unit attribute is its anchor's keyword alone.
            AttrData::Unit => {}
            AttrData::Opaque { text, .. } => {
                let text = m.str(*text);
                self.out.push_str(
                    cd.attr(of)
                        .filter(|(_, k)| !k.whole)
                        .and_then(|(_, k)| k.text_body(text))
                        .unwrap_or(text),
                );
            }
            _ if matches!(of, "typed" | "array" | "elements") => self.print_attr(a),
            d if of == "dense_i64_array" => {
                let values = int_array_values(m, d, 64).unwrap_or_default();
                write_i64s(&mut self.out, &values);
            }
            d if of == "dense_i32_array" => {
                let values = int_array_values(m, d, 32).unwrap_or_default();
                write_i64s(&mut self.out, &values);
            }
            d if of == "index_elements" => {
                write_i64s(&mut self.out, &index_elements(m, d).unwrap_or_default());
            }
            d if of == "index" => {
                let _ = write!(self.out, "{}", index_attr(m, d).unwrap_or_default());
            }
            AttrData::String { value, .. } if of == "symbol_name" => self.print_symbol(*value),
            AttrData::String { value, .. } => write_escaped(&mut self.out, m.bytes(*value)),
            AttrData::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            AttrData::Dialect(d) => self.sdy_print_stripped(cd, d),
            d => match enum_case(m, cd, of, d) {
                Some(case) => self.out.push_str(case),
                None => {
                    let _ = write!(self.out, "{}", int_attr_of(m, d, 64).unwrap_or_default());
                }
            },
        }
    }

    /// `[<@mesh, ...>, ...]`: `custom<StrippedTensorShardingPerValueAttr>`.
    pub(super) fn sdy_per_value(&mut self, a: Attribute) {
        if let (Some(cd), Some(items)) = (sdy(), per_value_items(self.m, a)) {
            self.out.push('[');
            self.sdy_print_list(cd, items, ", ");
            self.out.push(']');
        }
    }

    /// `(%a: T, ...) {region}`: `custom<SingleBlockRegionNoBlockId>`.
    pub(super) fn sdy_region(&mut self, r: Region) {
        let m = self.m;
        let Some(&entry) = m.blocks(r).first() else {
            return;
        };
        self.wrap("(", ") ", |p| p.print_block_args(m.block_args(entry)));
        self.print_region(r, false, false);
    }
}

impl<'a> Parser<'a> {
    /// An op attribute of kind `of` in its bare spelling.
    pub(super) fn parse_sdy_bare(
        &mut self,
        cd: &'static CodecDialect,
        attr: &CodecOpAttr,
    ) -> PResult<Attribute> {
        let of = attr.of;
        let value = match of {
            "symbol_name" => self.parse_symbol_name()?,
            "bool" | "typed" | "array" => return self.parse_attribute(),
            // As ODS's generated parsers (`parseAttribute<ElementsAttr>`).
            "elements" => {
                let at = self.c.token_start();
                let a = self.parse_attribute()?;
                if !bare_ok(&self.m, cd, of, a) {
                    return Err(self.c.error_at(at, "invalid kind of attribute specified"));
                }
                return Ok(a);
            }
            "dense_i64_array" => {
                let v = self.parse_int_list()?;
                return Ok(self.i64_array_attr(&v));
            }
            "dense_i32_array" => {
                let at = self.c.token_start();
                let v = self.parse_int_list()?;
                let data: Option<Vec<u8>> = v
                    .iter()
                    .map(|&x| i32::try_from(x).ok().map(i32::to_le_bytes))
                    .collect::<Option<Vec<[u8; 4]>>>()
                    .map(|w| w.concat());
                let Some(data) = data else {
                    return Err(self.c.error_at(at, format!("{} does not fit i32", attr.name)));
                };
                let element = self.m.ty(crate::ir::TypeData::Integer {
                    width: 32,
                    signedness: crate::ir::Signedness::Signless,
                });
                return Ok(self.m.attr(AttrData::DenseArray {
                    element,
                    data: data.into(),
                }));
            }
            "unit" => return Ok(self.m.attr(AttrData::Unit)),
            "string" => return self.sdy_string_attr(),
            "i64" => {
                let v = self.c.int64(&format!("as {}", attr.name))?;
                return Ok(self.i64_attr(v));
            }
            "index" => {
                let v = self.c.int64(&format!("as {}", attr.name))?;
                let ty = self.m.ty(TypeData::Index);
                return Ok(self.m.attr(AttrData::Integer {
                    ty,
                    value: i128::from(v),
                }));
            }
            "index_elements" => {
                let v = self.parse_int_list()?;
                return Ok(self.index_elements_attr(&v));
            }
            "reduction_op" => {
                return Err(self.c.error(
                    "a reduction before the axes has no custom syntax here; write the op in generic form",
                ))
            }
            _ if cd.attr(of).is_some_and(|(_, a)| a.form == CodecForm::Text) => {
                let dialect = text_attr_dialect(cd, of);
                if cd.attr(of).is_some_and(|(_, a)| a.whole) {
                    // `#dialect.mnemonic` first, then its body as a stripped one.
                    let at = self.c.token_start();
                    let spelled = format!("#{dialect}.{of}");
                    if !self.c.bytes.get(at..).is_some_and(|r| r.starts_with(spelled.as_bytes())) {
                        return Err(self.c.error_at(at, format!("expected {spelled}")));
                    }
                    self.c.pos = at.saturating_add(spelled.len());
                }
                return self.parse_text_attr(dialect, of);
            }
            _ if cd.attr(of).is_some() => return self.sdy_nested(cd, of),
            _ => {
                let at = self.c.token_start();
                let case = self.c.bare_ident().unwrap_or_default();
                let Some(c) = case_of(cd, of, |c| c.0 == case) else {
                    return Err(self.c.error_at(at, format!("unknown {of} '{case}'")));
                };
                let wide = cd.enums.iter().any(|e| e.name == of && e.width == 64);
                return Ok(if wide { self.i64_attr(c.1) } else { self.i32_attr(c.1) });
            }
        };
        Ok(self.m.attr(AttrData::String { value, ty: None }))
    }

    /// A dense `tensor<Nxindex>` of `values`, stored as MLIR stores it (all-equal as a splat).
    fn index_elements_attr(&mut self, values: &[i64]) -> Attribute {
        let index = self.m.ty(TypeData::Index);
        let n = i64::try_from(values.len()).unwrap_or(i64::MAX);
        let ty = self.m.ty(TypeData::RankedTensor {
            shape: Box::new([n]),
            element: index,
            encoding: None,
        });
        let splat = values
            .first()
            .is_some_and(|f| values.iter().all(|v| v == f));
        let kept = if splat {
            values.get(..1).unwrap_or(&[])
        } else {
            values
        };
        let data: Vec<u8> = kept.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.m.attr(AttrData::DenseElements {
            ty,
            data: data.into(),
            splat,
        })
    }

    /// A `format: text` attribute's `<...>` (or nothing), the cursor after its mnemonic or
    /// where a format spells it stripped: kept as its text.
    pub(super) fn parse_text_attr(&mut self, dialect: &str, mnemonic: &str) -> PResult<Attribute> {
        let body = if self.c.peek() == Some(b'<') {
            self.c.skip_ws();
            self.c.balanced()?
        } else {
            ""
        };
        let text = format!("#{dialect}.{mnemonic}{body}");
        let (dialect, text) = (self.m.sym(dialect), self.m.sym(&text));
        Ok(self.m.attr(AttrData::Opaque { dialect, text }))
    }

    /// `custom<StrippedTensorShardingPerValueAttr>`.
    pub(super) fn parse_sdy_per_value(&mut self) -> PResult<Attribute> {
        let Some(cd) = sdy() else {
            return Err(self.c.error("no sdy dialect tables"));
        };
        let items = self.sdy_bracketed(|p| p.sdy_nested(cd, "sharding"))?;
        Ok(self
            .m
            .dialect_attr("sdy", "sharding_per_value", vec![Param::Attrs(items)]))
    }

    /// `custom<SingleBlockRegionNoBlockId>`: `(%arg: T loc(..), ...) { ... }`.
    pub(super) fn parse_sdy_region(&mut self) -> PResult<Region> {
        self.c.expect(b'(', "to open the region arguments")?;
        let args = self.parse_list_until(b')', "between region arguments", |p| {
            p.parse_entry_arg("after a region argument")
        })?;
        self.parse_region(Some(args))
    }
}

#[cfg(test)]
mod tests {
    use super::pretty_form;

    /// Formats spell one type for `SameOperandsAndResultType` ops: an op whose types differ
    /// prints generically, and the spelled type gives the operand's and the result's.
    #[test]
    fn same_operands_and_result_type() {
        let src = r#"module {
  sdy.mesh @mesh = <["a"=2]>
  func.func @f(%a: tensor<8xf32>, %b: tensor<8xi32>) -> tensor<8xf32> {
    %0 = sdy.propagation_barrier %a allowed_direction=FORWARD : tensor<8xf32>
    %1 = "sdy.all_gather"(%b) <{gathering_axes = #sdy<list_of_axis_ref_lists[{"a"}]>, out_sharding = #sdy.sharding<@mesh, [{}]>}> : (tensor<8xi32>) -> tensor<8xf32>
    %2 = "sdy.func_data_flow_edge"(%1) : (tensor<8xf32>) -> tensor<8xf32>
    return %2 : tensor<8xf32>
  }
}"#;
        // The all_gather breaks its SameOperandsAndResultType: read without the verifier.
        let m = crate::text::parse_unverified(src).expect("parses");
        let out = crate::text::print(&m, Default::default());
        assert!(
            out.contains(
                "%0 = sdy.propagation_barrier %arg0 allowed_direction=FORWARD : tensor<8xf32>"
            ),
            "{out}"
        );
        assert!(out.contains(r#"%1 = "sdy.all_gather"(%arg1)"#), "{out}");
        assert!(
            out.contains("%2 = sdy.func_data_flow_edge %1 : tensor<8xf32>"),
            "{out}"
        );
        let back = crate::text::parse_unverified(&out).expect("reparses");
        assert_eq!(crate::text::print(&back, Default::default()), out);
    }

    #[test]
    fn pretty_form_follows_mlir() {
        assert!(pretty_form("sharding<@mesh, [{}]>"));
        assert!(pretty_form("mesh<[]>"));
        assert!(!pretty_form("manual_axes{\"a\"}"));
        assert!(!pretty_form("axis_ref\"a\""));
    }
}
