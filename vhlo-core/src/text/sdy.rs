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
use super::printer::{write_escaped, Printer};
use crate::dialect::codec::CodecDialect;
use crate::ir::{
    AttrData, Attribute, DialectAttr, Module, NamedAttr, OpId, OperationState, Param, Region,
    Signedness, Type, TypeData,
};

/// `factorSymbolString`: i, j, ..., z, then z_1, z_2, ... (Shardy's `kStartAtZ` is 17).
const START_AT_Z: i64 = (b'z' - b'i') as i64;

fn factor_symbol(out: &mut String, f: i64) {
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
        match (m.str(d.mnemonic), p) {
            ("manual_axes" | "axis_ref_list", [Param::Attrs(items)]) => {
                self.out.push('{');
                self.sdy_print_list(cd, items, ", ");
                self.out.push('}');
            }
            ("list_of_axis_ref_lists" | "all_to_all_param_list", [Param::Attrs(items)]) => {
                self.out.push('[');
                self.sdy_print_list(cd, items, ", ");
                self.out.push(']');
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
                    self.out.push_str(", device_ids=[");
                    self.sdy_print_ints(ids);
                    self.out.push(']');
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
                        let name = reduction_name(cd, *op);
                        self.out.push_str(name);
                    }
                    self.out.push('{');
                    self.sdy_print_list(cd, unreduced, ", ");
                    self.out.push('}');
                }
                self.out.push('>');
            }
            ("sharding_per_value", [Param::Attrs(items)]) => {
                self.out.push_str("<[");
                self.sdy_print_list(cd, items, ", ");
                self.out.push_str("]>");
            }
            ("dim_mapping", [Param::Ints(factors)]) => {
                for &f in factors.iter() {
                    factor_symbol(&mut self.out, f);
                }
            }
            ("tensor_mapping", [Param::Attrs(dims)]) => {
                self.out.push('[');
                self.sdy_print_list(cd, dims, ", ");
                self.out.push(']');
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

    fn sdy_print_ints(&mut self, v: &[i64]) {
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let _ = write!(self.out, "{x}");
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

fn reduction_name(cd: &CodecDialect, v: i64) -> &'static str {
    cd.enums
        .iter()
        .find(|e| e.name == "reduction_op")
        .and_then(|e| e.cases.iter().find(|c| c.1 == v))
        .map_or("<<invalid reduction>>", |c| c.0)
}

fn reduction_value(cd: &CodecDialect, name: &str) -> Option<i64> {
    cd.enums
        .iter()
        .find(|e| e.name == "reduction_op")
        .and_then(|e| e.cases.iter().find(|c| c.0 == name))
        .map(|c| c.1)
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
        let params = match spec.mnemonic {
            "manual_axes" => vec![Param::Attrs(self.sdy_braced(|p| p.sdy_string_attr())?)],
            "axis_ref_list" => vec![Param::Attrs(
                self.sdy_braced(|p| p.sdy_nested(cd, "axis_ref"))?,
            )],
            "list_of_axis_ref_lists" => {
                vec![Param::Attrs(
                    self.sdy_bracketed(|p| p.sdy_nested(cd, "axis_ref_list"))?,
                )]
            }
            "all_to_all_param_list" => {
                vec![Param::Attrs(
                    self.sdy_bracketed(|p| p.sdy_nested(cd, "all_to_all_param"))?,
                )]
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
                            op = reduction_value(cd, kw).ok_or_else(|| {
                                self.c.error_at(at, format!("unknown reduction '{kw}'"))
                            })?;
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
            "sharding_per_value" => {
                self.c.expect(b'<', "to open shardings per value")?;
                let items = self.sdy_bracketed(|p| p.sdy_nested(cd, "sharding"))?;
                self.c.expect(b'>', "to close shardings per value")?;
                vec![Param::Attrs(items)]
            }
            "dim_mapping" => vec![Param::Ints(self.sdy_factors()?.into())],
            "tensor_mapping" => {
                vec![Param::Attrs(
                    self.sdy_bracketed(|p| p.sdy_nested(cd, "dim_mapping"))?,
                )]
            }
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

    fn sdy_nested(&mut self, cd: &'static CodecDialect, mnemonic: &str) -> PResult<Attribute> {
        self.c.skip_ws();
        let pos = self.c.pos;
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
        self.c.skip_ws();
        let at = self.c.pos;
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
// The assembly formats of `ops.td` (also recorded in the spec, `ops[].format`): printed when the
// op has the shape the format assumes, else the caller prints it generically.

/// The sdy dialect's tables.
fn sdy() -> Option<&'static CodecDialect> {
    crate::vhlo::codec_dialect("sdy")
}

/// An inherent attribute of `op` (properties first, as MLIR keeps them).
fn inherent(m: &Module, op: OpId, name: &str) -> Option<Attribute> {
    m.properties(op)
        .iter()
        .chain(m.attributes(op))
        .find(|a| m.str(a.name) == name)
        .map(|a| a.value)
}

/// The op's attributes that its format does not spell out, for `attr-dict`.
fn other_attrs(m: &Module, op: OpId, spelled: &[&str]) -> Vec<NamedAttr> {
    m.properties(op)
        .iter()
        .chain(m.attributes(op))
        .filter(|a| !spelled.contains(&m.str(a.name)))
        .copied()
        .collect()
}

fn is_sdy(m: &Module, a: Attribute, mnemonic: &str) -> bool {
    matches!(m.attr_data(a), AttrData::Dialect(d) if m.str(d.dialect) == "sdy" && m.str(d.mnemonic) == mnemonic)
}

impl Printer<'_> {
    /// ` {attrs}` when there are any.
    fn sdy_attr_dict(&mut self, attrs: &[NamedAttr]) {
        if !attrs.is_empty() {
            self.out.push(' ');
            self.print_attr_dict(attrs, &[]);
        }
    }

    /// A dialect attribute in its stripped form (the op format knows its kind).
    fn sdy_stripped(&mut self, cd: &CodecDialect, a: Attribute) {
        match self.m.attr_data(a) {
            AttrData::Dialect(d) => self.sdy_print_stripped(cd, d),
            _ => self.print_attr(a),
        }
    }

    /// `[<@mesh, ...>, ...]`: `custom<StrippedTensorShardingPerValueAttr>`.
    fn sdy_per_value(&mut self, cd: &CodecDialect, a: Attribute) {
        if let AttrData::Dialect(d) = self.m.attr_data(a) {
            if let [Param::Attrs(items)] = &d.params[..] {
                self.out.push('[');
                self.sdy_print_list(cd, items, ", ");
                self.out.push(']');
            }
        }
    }

    /// `(%a: T, ...) {region}`: `custom<SingleBlockRegionNoBlockId>`.
    fn sdy_region(&mut self, r: Region) {
        let m = self.m;
        let Some(&entry) = m.blocks(r).first() else {
            return;
        };
        self.wrap("(", ") ", |p| p.print_block_args(m.block_args(entry)));
        self.print_region(r, false, false);
    }
}

/// Prints an sdy op in its custom form; `false` when it does not fit (printed generically then).
pub(crate) fn print_sdy_op(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let Some(cd) = sdy() else { return false };
    let name = m.op_name_str(op);
    let Some(short) = name.strip_prefix("sdy.") else {
        return false;
    };
    let Some(spec) = cd.op(short) else {
        return false;
    };
    // The format's assumptions: every required inherent attribute of its kind, no successors,
    // the declared region count, one result for single-result formats.
    for a in spec.attributes {
        match inherent(m, op, a.name) {
            Some(v) if cd.attr(a.of).is_some() && !is_sdy(m, v, a.of) => return false,
            None if !a.optional => return false,
            _ => {}
        }
    }
    if !m.successors(op).is_empty() || m.regions(op).len() != spec.regions.len() {
        return false;
    }
    let single = |m: &Module| m.operands(op).len() == 1 && m.num_results(op) == 1;
    match short {
        "mesh" => {
            let (Some(sym), Some(mesh)) = (inherent(m, op, "sym_name"), inherent(m, op, "mesh"))
            else {
                return false;
            };
            let AttrData::String { value, ty: None } = m.attr_data(sym) else {
                return false;
            };
            if !m.operands(op).is_empty() || m.num_results(op) != 0 {
                return false;
            }
            p.out.push_str("sdy.mesh ");
            p.print_symbol(*value);
            p.out.push_str(" = ");
            p.sdy_stripped(cd, mesh);
            p.sdy_attr_dict(&other_attrs(m, op, &["sym_name", "mesh"]));
            true
        }
        "sharding_constraint" | "reshard" | "data_flow_edge" => {
            // data_flow_edge's sharding is optional and keyword-led: `(sharding=$sharding^)?`.
            let sharding = inherent(m, op, "sharding");
            if sharding.is_none() && short != "data_flow_edge" {
                return false;
            }
            let Some(result) = m.result(op, 0) else {
                return false;
            };
            let (Some(&input), true) = (m.operands(op).first(), single(m)) else {
                return false;
            };
            if m.value_type(input) != m.value_type(result) {
                return false;
            }
            let _ = write!(p.out, "{name} ");
            p.write_value_name(input, true);
            if let Some(sharding) = sharding {
                p.out.push_str(if short == "data_flow_edge" {
                    " sharding="
                } else {
                    " "
                });
                p.sdy_stripped(cd, sharding);
            }
            p.sdy_attr_dict(&other_attrs(m, op, &["sharding"]));
            p.out.push_str(" : ");
            p.print_type(m.value_type(result));
            true
        }
        "constant" => {
            // As stablehlo.constant: `attr-dict $value`, the value's type being the result's.
            let Some(value) = inherent(m, op, "value") else {
                return false;
            };
            let value_ty = match m.attr_data(value) {
                AttrData::DenseElements { ty, .. } | AttrData::DenseStrings { ty, .. } => *ty,
                _ => return false,
            };
            if !m.operands(op).is_empty() || m.num_results(op) != 1 {
                return false;
            }
            let Some(result) = m.result(op, 0) else {
                return false;
            };
            if m.value_type(result) != value_ty {
                return false;
            }
            p.out.push_str("sdy.constant");
            p.sdy_attr_dict(&other_attrs(m, op, &["value"]));
            p.out.push(' ');
            p.print_attr(value);
            true
        }
        "return" => {
            if m.num_results(op) != 0 {
                return false;
            }
            p.out.push_str("sdy.return");
            p.sdy_attr_dict(&other_attrs(m, op, &[]));
            let operands = m.operands(op);
            if !operands.is_empty() {
                p.out.push(' ');
                p.print_value_list(operands);
                p.out.push_str(" : ");
                let types: Vec<Type> = operands.iter().map(|&v| m.value_type(v)).collect();
                p.print_type_list(&types);
            }
            true
        }
        "manual_computation" | "named_computation" => {
            let Some(&body) = m.regions(op).first() else {
                return false;
            };
            if m.blocks(body).len() != 1 {
                return false;
            }
            p.out.push_str(name);
            if short == "named_computation" {
                let Some(n) = inherent(m, op, "name") else {
                    return false;
                };
                let AttrData::String { value, ty: None } = m.attr_data(n) else {
                    return false;
                };
                p.out.push('<');
                write_escaped(&mut p.out, m.bytes(*value));
                p.out.push('>');
            }
            p.wrap("(", ")", |q| q.print_value_list(m.operands(op)));
            for key in ["in_shardings", "out_shardings"] {
                if let Some(s) = inherent(m, op, key) {
                    let _ = write!(p.out, " {key}=");
                    p.sdy_per_value(cd, s);
                }
            }
            let spelled: &[&str] = if short == "manual_computation" {
                let Some(axes) = inherent(m, op, "manual_axes") else {
                    return false;
                };
                p.out.push_str(" manual_axes=");
                p.sdy_stripped(cd, axes);
                &["in_shardings", "out_shardings", "manual_axes"]
            } else {
                &["name", "in_shardings", "out_shardings"]
            };
            p.out.push(' ');
            p.sdy_region(body);
            p.sdy_attr_dict(&other_attrs(m, op, spelled));
            p.out.push_str(" : ");
            p.print_op_function_type(op);
            true
        }
        "sharding_group" | "propagation_barrier" => {
            let key = if short == "sharding_group" {
                "group_id"
            } else {
                "allowed_direction"
            };
            let Some(v) = inherent(m, op, key) else {
                return false;
            };
            let Some(&input) = m.operands(op).first() else {
                return false;
            };
            let want_results = usize::from(short == "propagation_barrier");
            if m.operands(op).len() != 1 || m.num_results(op) != want_results {
                return false;
            }
            // `group_id=3` (an i64 integer, type elided); `allowed_direction=BOTH`.
            let text = match m.attr_data(v) {
                AttrData::Integer { value, ty }
                    if short == "sharding_group"
                        && matches!(
                            m.type_data(*ty),
                            TypeData::Integer {
                                width: 64,
                                signedness: Signedness::Signless
                            }
                        ) =>
                {
                    value.to_string()
                }
                // An I32EnumAttr: an i32 integer attribute whose value is a case.
                AttrData::Integer { value, ty }
                    if short == "propagation_barrier"
                        && matches!(
                            m.type_data(*ty),
                            TypeData::Integer {
                                width: 32,
                                signedness: Signedness::Signless
                            }
                        ) =>
                {
                    let case = cd
                        .enums
                        .iter()
                        .find(|e| e.name == "propagation_direction")
                        .and_then(|e| e.cases.iter().find(|c| i128::from(c.1) == *value));
                    match case {
                        Some(c) => c.0.to_string(),
                        None => return false,
                    }
                }
                _ => return false,
            };
            let _ = write!(p.out, "{name} ");
            p.write_value_name(input, true);
            let _ = write!(p.out, " {key}={text}");
            p.sdy_attr_dict(&other_attrs(m, op, &[key]));
            p.out.push_str(" : ");
            p.print_type(m.value_type(input));
            true
        }
        _ => match collective_axes(short) {
            Some(axes_key) => {
                // `$axes $tensor out_sharding=<...> attr-dict : type`; a non-default reduction
                // (a newer Shardy's `$reduction_op` prefix) stays generic.
                if inherent(m, op, "reduction_op").is_some() || !single(m) {
                    return false;
                }
                let (Some(&tensor), Some(out)) =
                    (m.operands(op).first(), inherent(m, op, "out_sharding"))
                else {
                    return false;
                };
                let Some(result) = m.result(op, 0) else {
                    return false;
                };
                let _ = write!(p.out, "{name} ");
                let mut spelled = vec!["out_sharding"];
                if let Some(key) = axes_key {
                    let Some(axes) = inherent(m, op, key) else {
                        return false;
                    };
                    p.sdy_stripped(cd, axes);
                    p.out.push(' ');
                    spelled.push(key);
                }
                p.write_value_name(tensor, true);
                p.out.push_str(" out_sharding=");
                p.sdy_stripped(cd, out);
                p.sdy_attr_dict(&other_attrs(m, op, &spelled));
                p.out.push_str(" : ");
                p.print_type(m.value_type(result));
                true
            }
            None => false,
        },
    }
}

/// The collectives' axes attribute (`None` for collective_permute, which has none); `None`
/// outside for other ops.
fn collective_axes(short: &str) -> Option<Option<&'static str>> {
    Some(match short {
        "all_gather" => Some("gathering_axes"),
        "all_slice" => Some("slicing_axes"),
        "all_to_all" => Some("params"),
        "all_reduce" => Some("reduction_axes"),
        "reduce_scatter" => Some("reduce_scatter_axes"),
        "sharded_to_unreduced" | "replicated_to_unreduced" => Some("axes"),
        "collective_permute" => None,
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    /// An sdy op in custom form, after its name; `None` for ops without a custom parser here.
    pub(crate) fn parse_sdy_op(&mut self, name: &str, pos: usize) -> PResult<Option<OpId>> {
        let Some(cd) = sdy() else { return Ok(None) };
        let Some(short) = name.strip_prefix("sdy.") else {
            return Ok(None);
        };
        let sym = self.m.sym(name);
        let mut st = OperationState::new(sym, self.m.unknown_loc());
        let op = match short {
            "mesh" => {
                let sym_name = self.parse_symbol_name()?;
                self.c.expect(b'=', "after the mesh name")?;
                let mesh = self.sdy_nested(cd, "mesh")?;
                let sym_attr = self.m.attr(AttrData::String {
                    value: sym_name,
                    ty: None,
                });
                st.properties = vec![self.named("mesh", mesh), self.named("sym_name", sym_attr)];
                st.attributes = self.opt_attr_dict()?;
                self.m.create_op(st)
            }
            "sharding_constraint" | "reshard" | "data_flow_edge" => {
                let input = self.parse_value_use()?;
                let keyword_led = short == "data_flow_edge";
                if !keyword_led || self.c.eat_keyword("sharding") {
                    if keyword_led {
                        self.c.expect(b'=', "after 'sharding'")?;
                    }
                    let sharding = self.sdy_nested(cd, "sharding")?;
                    st.properties = vec![self.named("sharding", sharding)];
                }
                st.attributes = self.opt_attr_dict()?;
                self.c.expect(b':', "before the result type")?;
                let t = self.parse_type()?;
                st.result_types = vec![t];
                self.finish_op(st, &[input], &[t])?
            }
            "constant" => {
                st.attributes = self.opt_attr_dict()?;
                self.c.skip_ws();
                let at = self.c.pos;
                let value = self.parse_attribute()?;
                let ty = match self.m.attr_data(value) {
                    AttrData::DenseElements { ty, .. } | AttrData::DenseStrings { ty, .. } => *ty,
                    _ => {
                        return Err(self
                            .c
                            .error_at(at, "expected a dense elements value in sdy.constant"))
                    }
                };
                st.properties = vec![self.named("value", value)];
                st.result_types = vec![ty];
                self.finish_op(st, &[], &[])?
            }
            "return" => {
                st.attributes = self.opt_attr_dict()?;
                let (uses, types) = self.parse_operands_colon_types()?;
                self.finish_op(st, &uses, &types)?
            }
            "manual_computation" | "named_computation" => {
                let mut props = Vec::new();
                if short == "named_computation" {
                    self.c.expect(b'<', "to open the computation name")?;
                    let n = self.sdy_string_attr()?;
                    self.c.expect(b'>', "to close the computation name")?;
                    props.push(self.named("name", n));
                }
                self.c.expect(b'(', "to open the operands")?;
                let uses =
                    self.parse_list_until(b')', "between operands", |p| p.parse_value_use())?;
                for key in ["in_shardings", "out_shardings"] {
                    let required = short == "manual_computation";
                    if self.c.eat_keyword(key) {
                        self.c.expect(b'=', "after a shardings keyword")?;
                        let items = self.sdy_bracketed(|p| p.sdy_nested(cd, "sharding"))?;
                        let a = self.m.dialect_attr(
                            "sdy",
                            "sharding_per_value",
                            vec![Param::Attrs(items)],
                        );
                        props.push(self.named(key, a));
                    } else if required {
                        return Err(self.c.error(format!("expected '{key}' in {name}")));
                    }
                }
                if short == "manual_computation" {
                    self.c
                        .expect_keyword("manual_axes", "in sdy.manual_computation")?;
                    self.c.expect(b'=', "after 'manual_axes'")?;
                    let axes = self.sdy_nested(cd, "manual_axes")?;
                    props.push(self.named("manual_axes", axes));
                }
                // `(%arg: T loc(..), ...) { ... }`
                self.c.expect(b'(', "to open the region arguments")?;
                let args = self.parse_list_until(b')', "between region arguments", |p| {
                    p.parse_entry_arg("after a region argument")
                })?;
                let region = self.parse_region(Some(args))?;
                self.sort_named(&mut props);
                st.properties = props;
                st.regions.push(region);
                st.attributes = self.opt_attr_dict()?;
                self.c.expect(b':', "before the functional type")?;
                self.finish_op_typed_by_function(
                    st,
                    &uses,
                    "expected a function type",
                    "operand count does not match the type",
                )?
            }
            "sharding_group" | "propagation_barrier" => {
                let input = self.parse_value_use()?;
                let key = if short == "sharding_group" {
                    "group_id"
                } else {
                    "allowed_direction"
                };
                self.c.expect_keyword(key, &format!("in {name}"))?;
                self.c.expect(b'=', "after the keyword")?;
                let value = if short == "sharding_group" {
                    let v = self.c.int64("as group id")?;
                    let ty = self.m.ty(TypeData::Integer {
                        width: 64,
                        signedness: Signedness::Signless,
                    });
                    self.m.attr(AttrData::Integer {
                        ty,
                        value: i128::from(v),
                    })
                } else {
                    let at = self.c.pos;
                    let case = self.c.bare_ident().unwrap_or_default();
                    let value = cd
                        .enums
                        .iter()
                        .find(|e| e.name == "propagation_direction")
                        .and_then(|e| e.cases.iter().find(|c| c.0 == case))
                        .map(|c| c.1)
                        .ok_or_else(|| {
                            self.c
                                .error_at(at, format!("unknown propagation direction '{case}'"))
                        })?;
                    // An I32EnumAttr: an i32 integer attribute.
                    let ty = self.m.ty(TypeData::Integer {
                        width: 32,
                        signedness: Signedness::Signless,
                    });
                    self.m.attr(AttrData::Integer {
                        ty,
                        value: i128::from(value),
                    })
                };
                st.properties = vec![self.named(key, value)];
                st.attributes = self.opt_attr_dict()?;
                self.c.expect(b':', "before the type")?;
                let t = self.parse_type()?;
                if short == "propagation_barrier" {
                    st.result_types = vec![t];
                }
                self.finish_op(st, &[input], &[t])?
            }
            _ => {
                let Some(axes_key) = collective_axes(short) else {
                    let _ = pos;
                    return Ok(None);
                };
                if let Some(key) = axes_key {
                    // The kind of the axes attribute comes from the spec.
                    let kind = cd
                        .op(short)
                        .and_then(|o| o.attributes.iter().find(|a| a.name == key))
                        .map(|a| a.of)
                        .unwrap_or_default();
                    let axes = self.sdy_nested(cd, kind)?;
                    st.properties.push(self.named(key, axes));
                }
                let tensor = self.parse_value_use()?;
                self.c
                    .expect_keyword("out_sharding", &format!("in {name}"))?;
                self.c.expect(b'=', "after 'out_sharding'")?;
                let out = self.sdy_nested(cd, "sharding")?;
                st.properties.push(self.named("out_sharding", out));
                self.sort_named(&mut st.properties);
                st.attributes = self.opt_attr_dict()?;
                self.c.expect(b':', "before the type")?;
                let t = self.parse_type()?;
                st.result_types = vec![t];
                self.finish_op(st, &[tensor], &[t])?
            }
        };
        Ok(Some(op))
    }
}

#[cfg(test)]
mod tests {
    use super::pretty_form;

    #[test]
    fn pretty_form_follows_mlir() {
        assert!(pretty_form("sharding<@mesh, [{}]>"));
        assert!(pretty_form("mesh<[]>"));
        assert!(!pretty_form("manual_axes{\"a\"}"));
        assert!(!pretty_form("axis_ref\"a\""));
    }
}
