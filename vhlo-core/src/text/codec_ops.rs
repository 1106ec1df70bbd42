//! The codec dialect syntax the format engine cannot express, written by hand: `chlo.scan`
//! (upstream's `ScanOp::parse`/`print`, stablehlo/dialect/ChloOps.cpp) and the two attribute
//! spellings every dialect shares (an EnumAttr's `#d<mnemonic CASE>`, StableHLO's printStruct).

use std::fmt::Write as _;

use super::op_format::{print_functional_type, FormatOp};
use super::parser::{EntryArg, PResult, Parser, ValueUse as Use};
use super::printer::{write_i64s, Printer};
use crate::dialect::codec::{CodecAttr, CodecDialect, CodecForm};
use crate::ir::{AttrData, Attribute, DialectAttr, NamedAttr, OpId, Param, Type, TypeData, Value};

/// The attributes of `chlo.scan` its syntax spells (the rest go in `attributes {...}`).
const SCAN_SPELLED: &[&str] = &["dimension", "operandSegmentSizes", "resultSegmentSizes"];

/// The two numbers of a `array<i32: a, b>` segment-sizes attribute.
fn segments(m: &crate::ir::Module, a: Attribute) -> Option<(usize, usize)> {
    let AttrData::DenseArray { element, data } = m.attr_data(a) else {
        return None;
    };
    if !matches!(m.type_data(*element), TypeData::Integer { width: 32, .. }) || data.len() != 8 {
        return None;
    }
    let n = |i: usize| {
        let b: [u8; 4] = data.get(i..i + 4)?.try_into().ok()?;
        usize::try_from(i32::from_le_bytes(b)).ok()
    };
    Some((n(0)?, n(4)?))
}

/// chlo.scan's `getAsmBlockArgumentNames`: `input` for the inputs' arguments, `carry` after.
pub(crate) fn scan_block_arg_name(m: &crate::ir::Module, op: OpId, i: usize) -> &'static str {
    let inputs = m
        .properties(op)
        .iter()
        .chain(m.attributes(op))
        .find(|a| m.str(a.name) == "operandSegmentSizes")
        .and_then(|a| segments(m, a.value))
        .map_or(0, |s| s.0);
    if i < inputs {
        "input"
    } else {
        "carry"
    }
}

/// `chlo.scan(%in) inits (%init) dimension=0 [attributes {...}] {region} : (T) -> (U)`; `false`
/// when the op's segments or dimension do not fit the syntax (printed generically then).
pub(crate) fn print_scan(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let prop = |n: &str| {
        m.properties(op)
            .iter()
            .chain(m.attributes(op))
            .find(|a| m.str(a.name) == n)
            .map(|a| a.value)
    };
    let (Some(dim), Some(ins), Some(outs)) = (
        prop("dimension"),
        prop("operandSegmentSizes"),
        prop("resultSegmentSizes"),
    ) else {
        return false;
    };
    let Some(dim) = super::printer::int_attr_of(m, m.attr_data(dim), 64) else {
        return false;
    };
    let (Some((inputs, inits)), Some((_, carries))) = (segments(m, ins), segments(m, outs)) else {
        return false;
    };
    let operands = m.operands(op);
    let regions = m.regions(op);
    if inputs.checked_add(inits) != Some(operands.len())
        || carries != inits
        || regions.len() != 1
        || m.attributes(op)
            .iter()
            .any(|a| SCAN_SPELLED.contains(&m.str(a.name)))
    {
        return false;
    }
    let (Some(ins), Some(carry)) = (operands.get(..inputs), operands.get(inputs..)) else {
        return false;
    };
    p.out.push_str("chlo.scan(");
    p.print_value_list(ins);
    p.out.push_str(") inits (");
    p.print_value_list(carry);
    let _ = write!(p.out, ") dimension={dim} ");
    let rest: Vec<NamedAttr> = m
        .properties(op)
        .iter()
        .chain(m.attributes(op))
        .filter(|a| !SCAN_SPELLED.contains(&m.str(a.name)))
        .copied()
        .collect();
    p.print_attributes_keyword(&rest);
    p.out.push(' ');
    if let Some(&r) = regions.first() {
        p.print_region(r, true, false);
    }
    p.out.push_str(" : ");
    print_functional_type(p, op);
    true
}

impl Parser<'_> {
    /// `chlo.scan` after its name (upstream's `ScanOp::parse`).
    pub(crate) fn parse_scan(&mut self, name: &str) -> PResult<OpId> {
        let pos = self.c.token_start();
        self.c.expect(b'(', "to open the scan inputs")?;
        let mut uses =
            self.parse_list_until(b')', "between scan inputs", |p| p.parse_value_use())?;
        self.c.expect_keyword("inits", "after the scan inputs")?;
        self.c.expect(b'(', "to open the scan inits")?;
        let inits = self.parse_list_until(b')', "between scan inits", |p| p.parse_value_use())?;
        self.kw_eq("dimension")?;
        let dimension = self.c.int64("as the scan dimension")?;
        let dict = if self.c.eat_keyword("attributes") {
            self.parse_attr_dict()?
        } else {
            Vec::new()
        };
        let region = self.parse_region(None)?;
        self.c.expect(b':', "before the scan's type")?;
        let (n_in, n_init) = (uses.len(), inits.len());
        uses.extend(inits);
        let (ins, outs) = self.functional_type_body(uses.len(), false)?;
        let Some(n_out) = outs.len().checked_sub(n_init) else {
            return Err(self
                .c
                .error_at(pos, "not enough result types to cover the required carries"));
        };
        let seg = |p: &mut Self, a: usize, b: usize| {
            let element = p.m.ty(TypeData::Integer {
                width: 32,
                signedness: crate::ir::Signedness::Signless,
            });
            let data: Vec<u8> = [a, b]
                .iter()
                .flat_map(|&x| (x as i32).to_le_bytes())
                .collect();
            p.m.attr(AttrData::DenseArray {
                element,
                data: data.into(),
            })
        };
        let props = vec![
            self.named_i64("dimension", dimension),
            {
                let a = seg(self, n_in, n_init);
                self.named("operandSegmentSizes", a)
            },
            {
                let a = seg(self, n_out, n_init);
                self.named("resultSegmentSizes", a)
            },
        ];
        self.build_op(name, &uses, &ins, outs, props, dict, vec![region])
    }

    fn named_i64(&mut self, name: &str, v: i64) -> NamedAttr {
        let a = self.i64_attr(v);
        self.named(name, a)
    }

    /// The enum or struct form of attribute `spec` of `cd` (the cursor right after the
    /// mnemonic); `None` for the other forms (text/sdy.rs).
    pub(super) fn parse_attr_form(
        &mut self,
        cd: &'static CodecDialect,
        spec: &CodecAttr,
    ) -> PResult<Option<Vec<Param>>> {
        match spec.form {
            CodecForm::Custom | CodecForm::Text => Ok(None),
            CodecForm::Enum => {
                let at = self.c.token_start();
                let case = self.c.bare_ident().unwrap_or_default();
                let e = spec
                    .params
                    .first()
                    .and_then(|p| p.enum_)
                    .and_then(|i| cd.enums.get(i));
                let Some(&(_, v)) = e.and_then(|e| e.cases.iter().find(|c| c.0 == case)) else {
                    let names: Vec<&str> =
                        e.map_or(Vec::new(), |e| e.cases.iter().map(|c| c.0).collect());
                    return Err(self.c.error_at(
                        at,
                        format!(
                            "unknown {} case '{case}', expected one of {}",
                            spec.mnemonic,
                            names.join(", ")
                        ),
                    ));
                };
                // The enum's one parameter is a `u32` (its wire form a varint).
                let v = u64::try_from(v).map_err(|_| self.c.error_at(at, "negative enum case"))?;
                Ok(Some(vec![Param::UInt(v)]))
            }
            CodecForm::Struct => {
                self.c.expect(b'<', "to open a struct attribute")?;
                let mut params: Vec<Option<Param>> = vec![None; spec.params.len()];
                if !self.c.eat(b'>') {
                    loop {
                        let at = self.c.token_start();
                        let key = self.c.bare_ident().unwrap_or_default();
                        let Some(i) = spec.params.iter().position(|p| p.name == key) else {
                            return Err(self.c.error_at(
                                at,
                                format!("unknown field '{key}' of #{}.{}", cd.name, spec.mnemonic),
                            ));
                        };
                        if params.get(i).is_some_and(Option::is_some) {
                            return Err(self.c.error_at(at, format!("duplicate field '{key}'")));
                        }
                        self.c.expect(b'=', "after a field name")?;
                        let v = self.parse_int_list()?;
                        if let Some(slot) = params.get_mut(i) {
                            *slot = Some(Param::Ints(v.into()));
                        }
                        if !self.c.eat(b',') {
                            break;
                        }
                    }
                    self.c.expect(b'>', "to close a struct attribute")?;
                }
                Ok(Some(
                    params
                        .into_iter()
                        .map(|p| p.unwrap_or(Param::Ints(Box::new([]))))
                        .collect(),
                ))
            }
        }
    }
}

impl Printer<'_> {
    /// The enum or struct form of `d` (`false` for the other forms, text/sdy.rs's).
    pub(super) fn print_attr_form(&mut self, cd: &CodecDialect, d: &DialectAttr) -> bool {
        let m = self.m;
        let mnemonic = m.str(d.mnemonic);
        let Some((_, spec)) = cd.attr(mnemonic) else {
            return false;
        };
        match (spec.form, &d.params[..]) {
            (CodecForm::Enum, [Param::UInt(v)]) => {
                let e = spec
                    .params
                    .first()
                    .and_then(|p| p.enum_)
                    .and_then(|i| cd.enums.get(i));
                let Some(case) =
                    e.and_then(|e| e.cases.iter().find(|c| u64::try_from(c.1) == Ok(*v)))
                else {
                    return false;
                };
                let _ = write!(self.out, "#{}<{mnemonic} {}>", cd.name, case.0);
                true
            }
            (CodecForm::Struct, p) if p.len() == spec.params.len() => {
                let _ = write!(self.out, "#{}.{mnemonic}<", cd.name);
                let mut first = true;
                for (param, value) in spec.params.iter().zip(p) {
                    let Param::Ints(v) = value else {
                        return false;
                    };
                    // printStruct leaves empty lists out.
                    if v.is_empty() {
                        continue;
                    }
                    if !first {
                        self.out.push_str(", ");
                    }
                    first = false;
                    let _ = write!(self.out, "{} = ", param.name);
                    write_i64s(&mut self.out, v);
                }
                self.out.push('>');
                true
            }
            _ => false,
        }
    }
}

/// `arith.select %c, %t, %f [{attrs}] : [C, ]T` (upstream's `SelectOp::print`, ArithOps.cpp):
/// the condition's type is spelled when it is a tensor, else it is i1. `false` when the types
/// do not fit (printed generically then).
pub(crate) fn print_arith_select(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let (&[c, t, f], Some(r), 1) = (m.operands(op), m.result(op, 0), m.num_results(op)) else {
        return false;
    };
    let ty = m.value_type(r);
    let cond = m.value_type(c);
    let shaped = matches!(
        m.type_data(cond),
        TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
    );
    let i1 = matches!(
        m.type_data(cond),
        TypeData::Integer {
            width: 1,
            signedness: crate::ir::Signedness::Signless
        }
    );
    if m.value_type(t) != ty
        || m.value_type(f) != ty
        || !(shaped || i1)
        || !m.regions(op).is_empty()
    {
        return false;
    }
    p.out.push_str("arith.select ");
    p.print_value_list(m.operands(op));
    super::op_format::print_attrs_except(p, op, |_| false);
    p.out.push_str(" : ");
    if shaped {
        p.print_type(cond);
        p.out.push_str(", ");
    }
    p.print_type(ty);
    true
}

impl Parser<'_> {
    /// `arith.select` after its name (upstream's `SelectOp::parse`).
    pub(crate) fn parse_arith_select(&mut self, name: &str) -> PResult<OpId> {
        let pos = self.c.token_start();
        let mut uses = vec![self.parse_value_use()?];
        for _ in 0..2 {
            self.c.expect(b',', "between select operands")?;
            uses.push(self.parse_value_use()?);
        }
        let dict = self.opt_attr_dict()?;
        self.c.expect(b':', "before the select's type")?;
        let first = self.parse_type()?;
        let (cond, ty) = if self.c.eat(b',') {
            (first, self.parse_type()?)
        } else {
            let i1 = self.m.ty(TypeData::Integer {
                width: 1,
                signedness: crate::ir::Signedness::Signless,
            });
            (i1, first)
        };
        let _ = pos;
        self.build_op(
            name,
            &uses,
            &[cond, ty, ty],
            vec![ty],
            Vec::new(),
            dict,
            Vec::new(),
        )
    }
}

/// `scf.for` (upstream's `ForOp::print`, SCF.cpp); `false` when the op does not fit its syntax.
pub(crate) fn print_scf_for(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let ops = m.operands(op);
    let regions = m.regions(op);
    // The one property, `unsignedCmp`, is the keyword `unsigned`.
    let unsigned = match m.properties(op) {
        [] => false,
        [a] if m.str(a.name) == "unsignedCmp" && matches!(m.attr_data(a.value), AttrData::Unit) => {
            true
        }
        _ => return false,
    };
    if ops.len() < 3 || regions.len() != 1 || m.blocks(regions[0]).len() != 1 {
        return false;
    }
    let inits = &ops[3..];
    let args = m.block_args(m.blocks(regions[0])[0]);
    let results: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
    let iv_type = m.value_type(ops[0]);
    if args.len() != inits.len() + 1
        || results.len() != inits.len()
        || ops[..3].iter().any(|&v| m.value_type(v) != iv_type)
        || m.value_type(args[0]) != iv_type
        || args[1..]
            .iter()
            .zip(&results)
            .any(|(&a, &t)| m.value_type(a) != t)
    {
        return false;
    }
    let name = |p: &Printer<'_>, v: Value| p.value_name(v);
    p.out.push_str(&format!(
        "scf.for {}{} = {} to {} step {}",
        if unsigned { "unsigned " } else { "" },
        name(p, args[0]),
        name(p, ops[0]),
        name(p, ops[1]),
        name(p, ops[2])
    ));
    if !inits.is_empty() {
        let pairs: Vec<String> = args[1..]
            .iter()
            .zip(inits)
            .map(|(&a, &v)| format!("{} = {}", name(p, a), name(p, v)))
            .collect();
        p.out
            .push_str(&format!(" iter_args({}) -> (", pairs.join(", ")));
        p.print_type_list(&results);
        p.out.push(')');
    }
    p.out.push(' ');
    // Upstream's ForOp::print: ` : T ` after the space, for a type other than index.
    if !matches!(m.type_data(iv_type), TypeData::Index) {
        p.out.push_str(" : ");
        p.print_type(iv_type);
        p.out.push(' ');
    }
    // The body's `scf.yield` is left out without iter_args (spec/dialects/scf.yaml).
    let scf = crate::vhlo::codec_dialect("scf");
    let elided = scf.and_then(|cd| {
        let spec = cd.op("for")?;
        super::op_format::elided_terminator(m, op, super::op_format::FormatOp::Dialect(cd, spec))
    });
    p.print_region_terminated(regions[0], false, false, elided.as_deref());
    p.print_attributes_keyword(m.attributes(op));
    true
}

impl Parser<'_> {
    /// `scf.for %i = %lb to %ub step %s (iter_args(%a = %init, ...) -> (T, ...))? (: T)? {...}`:
    /// operands `[lb, ub, step, inits...]`, body arguments `(%i, %a...)`.
    pub(crate) fn parse_scf_for(&mut self) -> PResult<OpId> {
        let unsigned = self.c.eat_keyword("unsigned");
        let (iv, _, ivpos) = self.parse_value_use()?;
        self.c.expect(b'=', "after the induction variable")?;
        let lb = self.parse_value_use()?;
        self.c.expect_keyword("to", "in scf.for")?;
        let ub = self.parse_value_use()?;
        self.c.expect_keyword("step", "in scf.for")?;
        let step = self.parse_value_use()?;
        let mut uses = vec![lb, ub, step];
        let mut result_types = Vec::new();
        let mut iter_names = Vec::new();
        if self.c.eat_keyword("iter_args") {
            self.c.expect(b'(', "after 'iter_args'")?;
            let names = self.parse_list_until(b')', "between iter_args", |p| {
                let (n, _, pos) = p.parse_value_use()?;
                p.c.expect(b'=', "in iter_args")?;
                uses.push(p.parse_value_use()?);
                Ok((n, pos))
            })?;
            self.c.expect_punct("->", "before the result types")?;
            result_types = self.parse_result_types()?;
            if result_types.len() != names.len() {
                return Err(self.c.error("iter_args and result types differ in number"));
            }
            iter_names = names;
        }
        // The induction variable's type, after the iter_args (upstream's ForOp::parse).
        let iv_type = if self.c.peek() == Some(b':') {
            self.c.pos += 1;
            self.parse_type()?
        } else {
            self.m.ty(TypeData::Index)
        };
        let iv_loc = self.default_arg_loc(ivpos);
        let mut args = vec![(iv, iv_type, ivpos, iv_loc)];
        for ((n, p), &t) in iter_names.into_iter().zip(&result_types) {
            let loc = self.default_arg_loc(p);
            args.push((n, t, p, loc));
        }
        let mut types = vec![iv_type; 3];
        types.extend(result_types.iter().copied());
        let region = self.parse_region(Some(args))?;
        let scf = crate::vhlo::codec_dialect("scf");
        if let Some((cd, t)) = scf.and_then(|cd| Some((cd, cd.op("for")?.implicit_terminator?))) {
            self.ensure_terminator(region, cd.name, t.op);
        }
        let dict = if self.c.eat_keyword("attributes") {
            self.parse_attr_dict()?
        } else {
            Vec::new()
        };
        let mut st = self.new_state("scf.for");
        if unsigned {
            let unit = self.m.attr(AttrData::Unit);
            st.properties.push(self.named("unsignedCmp", unit));
        }
        st.attributes = dict;
        st.result_types = result_types;
        st.regions.push(region);
        self.finish_op(st, &uses, &types)
    }
}

/// `scf.while` (upstream's `WhileOp::print`, SCF.cpp): `scf.while (%a = %init, ...)? :
/// functional-type {before} do {after} (attributes {...})?`, the before region's arguments
/// spelled by the assignment list; `false` when the op does not fit that syntax.
pub(crate) fn print_scf_while(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let inits = m.operands(op);
    let (&[before, after], true) = (m.regions(op), m.properties(op).is_empty()) else {
        return false;
    };
    let Some(&entry) = m.blocks(before).first() else {
        return false;
    };
    let args = m.block_args(entry);
    if args.len() != inits.len()
        || args
            .iter()
            .zip(inits)
            .any(|(&a, &v)| m.value_type(a) != m.value_type(v))
    {
        return false;
    }
    p.out.push_str("scf.while");
    if !args.is_empty() {
        let pairs: Vec<String> = args
            .iter()
            .zip(inits)
            .map(|(&a, &v)| format!("{} = {}", p.value_name(a), p.value_name(v)))
            .collect();
        let _ = write!(p.out, " ({})", pairs.join(", "));
    }
    p.out.push_str(" : ");
    print_functional_type(p, op);
    p.out.push(' ');
    p.print_region_terminated(before, false, false, None);
    p.out.push_str(" do ");
    p.print_region_terminated(after, true, false, None);
    p.print_attributes_keyword(m.attributes(op));
    true
}

impl Parser<'_> {
    /// `scf.while (%a = %init, ...)? : (T...) -> (U...) {before} do {after} (attributes {...})?`
    /// (upstream's `WhileOp::parse`): the before region's arguments take the input types.
    pub(crate) fn parse_scf_while(&mut self) -> PResult<OpId> {
        let mut uses = Vec::new();
        let mut names = Vec::new();
        if self.c.eat(b'(') {
            names = self.parse_list_until(b')', "between scf.while's assignments", |p| {
                let (n, _, pos) = p.parse_value_use()?;
                p.c.expect(b'=', "in scf.while's assignments")?;
                uses.push(p.parse_value_use()?);
                Ok((n, pos))
            })?;
        }
        self.c.expect(b':', "before scf.while's type")?;
        let at = self.c.token_start();
        let ty = self.parse_type()?;
        let TypeData::Function { inputs, results } = self.m.type_data(ty).clone() else {
            return Err(self.c.error_at(at, "expected a function type in scf.while"));
        };
        if inputs.len() != uses.len() {
            return Err(self.c.error_at(
                at,
                format!(
                    "expected as many input types as operands (expected {} got {})",
                    uses.len(),
                    inputs.len()
                ),
            ));
        }
        let mut args = Vec::with_capacity(names.len());
        for ((n, pos), &t) in names.into_iter().zip(inputs.iter()) {
            let loc = self.default_arg_loc(pos);
            args.push((n, t, pos, loc));
        }
        let before = self.parse_region(Some(args))?;
        self.c.expect_keyword("do", "between scf.while's regions")?;
        let after = self.parse_region(None)?;
        let dict = if self.c.eat_keyword("attributes") {
            self.parse_attr_dict()?
        } else {
            Vec::new()
        };
        let mut st = self.new_state("scf.while");
        st.attributes = dict;
        st.result_types = results.to_vec();
        st.regions = vec![before, after];
        self.finish_op(st, &uses, &inputs)
    }
}

/// `scf.index_switch` (upstream's ODS format `$arg attr-dict (`->` type($results)^)?
/// custom<SwitchCases>($cases, $caseRegions) `\n` `` `default` $defaultRegion`, and SCF.cpp's
/// printSwitchCases): each case on its own line with its terminator; the default region's empty
/// `scf.yield` left out (SingleBlockImplicitTerminator). `false` when the op does not fit.
pub(crate) fn print_scf_index_switch(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let cases = m
        .properties(op)
        .iter()
        .chain(m.attributes(op))
        .find(|a| m.str(a.name) == "cases")
        .and_then(|a| super::op_format::i64_array(m, m.attr_data(a.value)));
    let (Some(cases), &[arg], Some((&default, case_regions))) =
        (cases, m.operands(op), m.regions(op).split_first())
    else {
        return false;
    };
    if cases.len() != case_regions.len()
        || !matches!(m.type_data(m.value_type(arg)), TypeData::Index)
    {
        return false;
    }
    p.out.push_str("scf.index_switch ");
    let name = p.value_name(arg);
    p.out.push_str(&name);
    super::op_format::print_attrs_except(p, op, |n| n == "cases");
    if m.num_results(op) > 0 {
        p.out.push_str(" -> ");
        let types: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
        p.print_type_list(&types);
    }
    p.out.push(' ');
    for (value, &r) in cases.iter().zip(case_regions) {
        p.newline();
        let _ = write!(p.out, "case {value} ");
        p.print_region_terminated(r, false, false, None);
    }
    p.newline();
    p.out.push_str("default ");
    // ODS's printer leaves the default region's empty terminator out (the first region's).
    let elided = super::dialects::codec_op("scf.index_switch")
        .and_then(|(cd, o)| super::op_format::elided_terminator(m, op, FormatOp::Dialect(cd, o)));
    p.print_region_terminated(default, true, false, elided.as_deref());
    true
}

impl Parser<'_> {
    /// `scf.index_switch %arg attr-dict (-> T, ...)? (case N {...})* default {...}`; the default
    /// region gets its `scf.yield` when it has none (SingleBlockImplicitTerminator), the cases
    /// do not (upstream's parseSwitchCases).
    pub(crate) fn parse_scf_index_switch(&mut self) -> PResult<OpId> {
        let arg = self.parse_value_use()?;
        let dict = self.opt_attr_dict()?;
        let result_types = if self.c.eat_punct("->") {
            self.parse_type_list()?
        } else {
            Vec::new()
        };
        let mut cases = Vec::new();
        let mut regions = Vec::new();
        while self.c.eat_keyword("case") {
            cases.push(self.c.int64("as a case value")?);
            regions.push(self.parse_region(None)?);
        }
        self.c.expect_keyword("default", "in scf.index_switch")?;
        let default = self.parse_region(None)?;
        let spec = super::dialects::codec_op("scf.index_switch");
        if let Some((cd, t)) = spec.and_then(|(cd, o)| Some((cd, o.implicit_terminator?))) {
            self.ensure_terminator(default, cd.name, t.op);
        }
        regions.insert(0, default);
        let mut st = self.new_state("scf.index_switch");
        let cases = self.i64_array_attr(&cases);
        st.properties = vec![self.named("cases", cases)];
        st.attributes = dict;
        st.result_types = result_types;
        st.regions = regions;
        let index = self.m.ty(TypeData::Index);
        self.finish_op(st, &[arg], &[index])
    }
}

/// The property or attribute `name` of `op`.
fn named_attr(m: &crate::ir::Module, op: OpId, name: &str) -> Option<Attribute> {
    (m.properties(op).iter())
        .chain(m.attributes(op))
        .find(|a| m.str(a.name) == name)
        .map(|a| a.value)
}

/// Whether every value is of type `index`.
fn all_index(m: &crate::ir::Module, values: &[Value]) -> bool {
    values
        .iter()
        .all(|&v| matches!(m.type_data(m.value_type(v)), TypeData::Index))
}

/// `(%a, %b, ...)` of values.
fn print_paren_values(p: &mut Printer<'_>, values: &[Value]) {
    p.out.push('(');
    p.print_value_list(values);
    p.out.push(')');
}

/// `scf.parallel` (upstream's `ParallelOp::print`, SCF.cpp): `scf.parallel (%i, ...) = (%lb,
/// ...) to (%ub, ...) step (%s, ...) (init (%v, ...))? (-> T, ...)? {body} {attrs}`, the body's
/// terminator printed; `false` when the op does not fit.
pub(crate) fn print_scf_parallel(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let ops = m.operands(op);
    let sizes = named_attr(m, op, "operandSegmentSizes").and_then(|a| segments4(m, a));
    let (Some([l, u, s, i]), &[region]) = (sizes, m.regions(op)) else {
        return false;
    };
    let Some(&entry) = m.blocks(region).first() else {
        return false;
    };
    let ivs = m.block_args(entry);
    let Some(n) = l.checked_add(u).and_then(|x| x.checked_add(s)) else {
        return false;
    };
    if l != u
        || l != s
        || ivs.len() != l
        || n.checked_add(i) != Some(ops.len())
        || !all_index(m, &ops[..n])
        || !all_index(m, ivs)
        || m.num_results(op) != i
        || ops[n..]
            .iter()
            .zip(m.results(op))
            .any(|(&v, r)| m.value_type(v) != m.value_type(r))
    {
        return false;
    }
    p.out.push_str("scf.parallel ");
    print_paren_values(p, ivs);
    p.out.push_str(" = ");
    print_paren_values(p, &ops[..l]);
    p.out.push_str(" to ");
    print_paren_values(p, &ops[l..l + u]);
    p.out.push_str(" step ");
    print_paren_values(p, &ops[l + u..n]);
    if i > 0 {
        p.out.push_str(" init ");
        print_paren_values(p, &ops[n..]);
    }
    print_arrow_types(p, op);
    p.out.push(' ');
    p.print_region_terminated(region, false, false, None);
    super::op_format::print_attrs_except(p, op, |n| n == "operandSegmentSizes");
    true
}

/// OpAsmPrinter's printOptionalArrowTypeList of the results: ` -> T`, ` -> (T, U)`, nothing
/// without results.
fn print_arrow_types(p: &mut Printer<'_>, op: OpId) {
    let m = p.m;
    let types: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
    match types[..] {
        [] => {}
        [t] if !matches!(m.type_data(t), TypeData::Function { .. }) => {
            p.out.push_str(" -> ");
            p.print_type(t);
        }
        _ => {
            p.out.push_str(" -> (");
            p.print_type_list(&types);
            p.out.push(')');
        }
    }
}

/// The four numbers of a `array<i32: a, b, c, d>` segment-sizes attribute.
fn segments4(m: &crate::ir::Module, a: Attribute) -> Option<[usize; 4]> {
    let v = super::verify::types::int_list(m, a)?;
    let [a, b, c, d] = v[..] else { return None };
    let u = |x: i64| usize::try_from(x).ok();
    Some([u(a)?, u(b)?, u(c)?, u(d)?])
}

/// Whether every entry of a dynamic index list is `c`: static, or a value an `arith.constant`
/// of that integer defines (upstream's getConstantIntValue of its OpFoldResults).
fn all_constant(m: &crate::ir::Module, statics: &[i64], values: &[Value], c: i64) -> bool {
    let mut values = values.iter();
    statics.iter().all(|&x| {
        if x != crate::ir::DYNAMIC {
            return x == c;
        }
        let Some(&v) = values.next() else {
            return false;
        };
        let crate::ir::ValueDef::Result { op, .. } = m.value_def(v) else {
            return false;
        };
        m.op_name_str(op) == "arith.constant"
            && named_attr(m, op, "value").is_some_and(|a| {
                matches!(m.attr_data(a), AttrData::Integer { value, .. } if *value == i128::from(c))
            })
    })
}

/// ViewLikeInterface's printDynamicIndexList in parentheses: `(%a, 4, %b)`, the values where
/// `statics` holds ShapedType::kDynamic; `None` when the counts disagree.
fn write_index_list(p: &Printer<'_>, statics: &[i64], values: &[Value]) -> Option<String> {
    let mut out = String::from("(");
    let mut values = values.iter();
    for (i, &s) in statics.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if s == crate::ir::DYNAMIC {
            out.push_str(&p.value_name(*values.next()?));
        } else {
            let _ = write!(out, "{s}");
        }
    }
    out.push(')');
    values.next().is_none().then_some(out)
}

/// `scf.forall` (upstream's `ForallOp::print`, SCF.cpp): `scf.forall (%i, ...) in (ubs)` when
/// the lower bounds are 0 and the steps 1, else `= (lbs) to (ubs) step (steps)`; then
/// `shared_outs(%o = %v, ...) -> (T, ...)`, the body (its `scf.forall.in_parallel` printed only
/// with results) and the attributes but the bounds'. `false` when the op does not fit.
pub(crate) fn print_scf_forall(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let ops = m.operands(op);
    let array =
        |n: &str| named_attr(m, op, n).and_then(|a| super::op_format::i64_array(m, m.attr_data(a)));
    let sizes = named_attr(m, op, "operandSegmentSizes").and_then(|a| segments4(m, a));
    let (Some([l, u, s, o]), Some(lbs), Some(ubs), Some(steps), &[region]) = (
        sizes,
        array("staticLowerBound"),
        array("staticUpperBound"),
        array("staticStep"),
        m.regions(op),
    ) else {
        return false;
    };
    let Some(&entry) = m.blocks(region).first() else {
        return false;
    };
    let args = m.block_args(entry);
    let Some(n) = l.checked_add(u).and_then(|x| x.checked_add(s)) else {
        return false;
    };
    let rank = ubs.len();
    if lbs.len() != rank
        || steps.len() != rank
        || n.checked_add(o) != Some(ops.len())
        || args.len() != rank.saturating_add(o)
        || m.num_results(op) != o
        || !all_index(m, &ops[..n])
        || !all_index(m, &args[..rank])
        || (ops[n..].iter().zip(&args[rank..]).zip(m.results(op))).any(|((&v, &a), r)| {
            m.value_type(v) != m.value_type(r) || m.value_type(a) != m.value_type(r)
        })
    {
        return false;
    }
    let (Some(lb_text), Some(ub_text), Some(step_text)) = (
        write_index_list(p, &lbs, &ops[..l]),
        write_index_list(p, &ubs, &ops[l..l + u]),
        write_index_list(p, &steps, &ops[l + u..n]),
    ) else {
        return false;
    };
    p.out.push_str("scf.forall ");
    print_paren_values(p, &args[..rank]);
    // Upstream's isNormalized asks getConstantIntValue, which also sees through a dynamic
    // bound defined by a constant: jaxlib then prints `in` and leaves that operand out.
    if all_constant(m, &lbs, &ops[..l], 0) && all_constant(m, &steps, &ops[l + u..n], 1) {
        p.out.push_str(" in ");
        p.out.push_str(&ub_text);
    } else {
        let _ = write!(p.out, " = {lb_text} to {ub_text} step {step_text}");
    }
    if o > 0 {
        let pairs: Vec<String> = (args[rank..].iter().zip(&ops[n..]))
            .map(|(&a, &v)| format!("{} = {}", p.value_name(a), p.value_name(v)))
            .collect();
        let _ = write!(p.out, " shared_outs({})", pairs.join(", "));
    }
    p.out.push(' ');
    if o > 0 {
        let types: Vec<Type> = m.results(op).map(|v| m.value_type(v)).collect();
        p.out.push_str("-> (");
        p.print_type_list(&types);
        p.out.push_str(") ");
    }
    let elided = (o == 0).then_some("scf.forall.in_parallel");
    p.print_region_terminated(region, false, false, elided);
    super::op_format::print_attrs_except(p, op, |n| {
        matches!(
            n,
            "operandSegmentSizes" | "staticLowerBound" | "staticUpperBound" | "staticStep"
        )
    });
    true
}

/// Parsing of scf.parallel and scf.forall.
impl<'a> Parser<'a> {
    /// `array<i32: ...>` of segment sizes.
    fn segment_sizes_attr(&mut self, sizes: &[usize]) -> Attribute {
        let element = self.m.ty(TypeData::Integer {
            width: 32,
            signedness: crate::ir::Signedness::Signless,
        });
        let data: Vec<u8> = (sizes.iter())
            .flat_map(|&c| i32::try_from(c).unwrap_or(i32::MAX).to_le_bytes())
            .collect();
        self.m.attr(AttrData::DenseArray {
            element,
            data: data.into(),
        })
    }

    /// `(%a, %b, ...)`: the names of new values (region arguments) and where they stand.
    fn paren_arg_names(&mut self) -> PResult<Vec<(&'a str, usize)>> {
        self.c.expect(b'(', "to open the induction variables")?;
        self.parse_list_until(b')', "between induction variables", |p| {
            let (n, _, pos) = p.parse_value_use()?;
            Ok((n, pos))
        })
    }

    /// `(%a, %b, ...)` of `n` values (any number without `n`).
    fn paren_uses(&mut self, n: Option<usize>, what: &str) -> PResult<Vec<Use<'a>>> {
        let at = self.c.token_start();
        self.c.expect(b'(', "to open an operand list")?;
        let uses = self.parse_list_until(b')', "between operands", |p| p.parse_value_use())?;
        match n {
            Some(n) if n != uses.len() => Err(self
                .c
                .error_at(at, format!("expected {n} {what}, found {}", uses.len()))),
            _ => Ok(uses),
        }
    }

    /// Region arguments of type `ty` named `names`.
    fn entry_args(&mut self, names: &[(&'a str, usize)], ty: &[Type]) -> Vec<EntryArg<'a>> {
        (names.iter().zip(ty))
            .map(|(&(n, pos), &t)| {
                let loc = self.default_arg_loc(pos);
                (n, t, pos, loc)
            })
            .collect()
    }

    /// `scf.parallel (%i, ...) = (...) to (...) step (...) (init (...))? (-> T...)? {body}
    /// attr-dict` (upstream's `ParallelOp::parse`): the body gets its `scf.reduce` when it has
    /// no terminator.
    pub(crate) fn parse_scf_parallel(&mut self) -> PResult<OpId> {
        let ivs = self.paren_arg_names()?;
        let n = Some(ivs.len());
        self.c
            .expect(b'=', "after scf.parallel's induction variables")?;
        let mut uses = self.paren_uses(n, "lower bounds")?;
        self.c.expect_keyword("to", "in scf.parallel")?;
        uses.extend(self.paren_uses(n, "upper bounds")?);
        self.c.expect_keyword("step", "in scf.parallel")?;
        uses.extend(self.paren_uses(n, "steps")?);
        let inits = if self.c.eat_keyword("init") {
            self.paren_uses(None, "init values")?
        } else {
            Vec::new()
        };
        let at = self.c.token_start();
        let result_types = if self.c.eat_punct("->") {
            self.parse_result_types()?
        } else {
            Vec::new()
        };
        if result_types.len() != inits.len() {
            return Err(self.c.error_at(
                at,
                format!(
                    "{} operands present, but expected {}",
                    inits.len(),
                    result_types.len()
                ),
            ));
        }
        let index = self.m.ty(TypeData::Index);
        let args = self.entry_args(&ivs, &vec![index; ivs.len()]);
        let region = self.parse_region(Some(args))?;
        let dict = self.opt_attr_dict()?;
        let spec = super::dialects::codec_op("scf.parallel");
        if let Some((cd, t)) = spec.and_then(|(cd, o)| Some((cd, o.implicit_terminator?))) {
            self.ensure_terminator(region, cd.name, t.op);
        }
        let k = ivs.len();
        let sizes = self.segment_sizes_attr(&[k, k, k, inits.len()]);
        let mut st = self.new_state("scf.parallel");
        st.properties = vec![self.named("operandSegmentSizes", sizes)];
        st.attributes = dict;
        let mut types = vec![index; uses.len()];
        types.extend(result_types.iter().copied());
        uses.extend(inits);
        st.result_types = result_types;
        st.regions.push(region);
        self.finish_op(st, &uses, &types)
    }

    /// ViewLikeInterface's parseDynamicIndexList in parentheses: `(%a, 4, %b)`, the values
    /// pushed to `uses`, ShapedType::kDynamic standing for them in the returned list.
    fn paren_index_list(&mut self, uses: &mut Vec<Use<'a>>) -> PResult<Vec<i64>> {
        self.c.expect(b'(', "to open an index list")?;
        self.parse_list_until(b')', "in an index list", |p| {
            if p.c.peek() == Some(b'%') {
                uses.push(p.parse_value_use()?);
                Ok(crate::ir::DYNAMIC)
            } else {
                p.c.int64("in an index list")
            }
        })
    }

    /// `scf.forall (%i, ...) (in (ubs) | = (lbs) to (ubs) step (steps)) (shared_outs(%o = %v,
    /// ...) -> (T, ...))? {body} attr-dict` (upstream's `ForallOp::parse`): the body gets an
    /// empty `scf.forall.in_parallel` when it has no terminator.
    pub(crate) fn parse_scf_forall(&mut self) -> PResult<OpId> {
        let ivs = self.paren_arg_names()?;
        let rank = ivs.len();
        let (mut lbs_uses, mut ubs_uses, mut steps_uses) = (Vec::new(), Vec::new(), Vec::new());
        let (lbs, ubs, steps);
        if self.c.eat_keyword("in") {
            ubs = self.paren_index_list(&mut ubs_uses)?;
            lbs = vec![0; rank];
            steps = vec![1; rank];
        } else {
            self.c
                .expect(b'=', "after scf.forall's induction variables")?;
            lbs = self.paren_index_list(&mut lbs_uses)?;
            self.c.expect_keyword("to", "in scf.forall")?;
            ubs = self.paren_index_list(&mut ubs_uses)?;
            self.c.expect_keyword("step", "in scf.forall")?;
            steps = self.paren_index_list(&mut steps_uses)?;
        }
        let mut outs = Vec::new();
        let mut out_names = Vec::new();
        let mut result_types = Vec::new();
        let at = self.c.token_start();
        if self.c.eat_keyword("shared_outs") {
            self.c.expect(b'(', "after 'shared_outs'")?;
            out_names = self.parse_list_until(b')', "between shared_outs", |p| {
                let (n, _, pos) = p.parse_value_use()?;
                p.c.expect(b'=', "in shared_outs")?;
                outs.push(p.parse_value_use()?);
                Ok((n, pos))
            })?;
            if self.c.eat_punct("->") {
                result_types = self.parse_result_types()?;
            }
            if result_types.len() != outs.len() {
                return Err(self.c.error_at(
                    at,
                    format!(
                        "number of operands and types do not match: got {} operands and {} types",
                        outs.len(),
                        result_types.len()
                    ),
                ));
            }
        }
        let index = self.m.ty(TypeData::Index);
        let mut args = self.entry_args(&ivs, &vec![index; rank]);
        args.extend(self.entry_args(&out_names, &result_types));
        let region = self.parse_region(Some(args))?;
        self.ensure_in_parallel(region);
        let mut dict = self.opt_attr_dict()?;
        let sizes = [lbs_uses.len(), ubs_uses.len(), steps_uses.len(), outs.len()];
        let sizes = self.segment_sizes_attr(&sizes);
        let mut props = Vec::new();
        for (name, values) in [
            ("operandSegmentSizes", None),
            ("staticLowerBound", Some(&lbs)),
            ("staticStep", Some(&steps)),
            ("staticUpperBound", Some(&ubs)),
        ] {
            let a = match values {
                Some(v) => self.i64_array_attr(v),
                None => sizes,
            };
            props.push(self.named(name, a));
        }
        // `mapping`, written in the dictionary, is inherent.
        self.normalize_inherent("scf.forall", &mut props, &mut dict);
        self.sort_named(&mut props);
        let mut uses = lbs_uses;
        uses.extend(ubs_uses);
        uses.extend(steps_uses);
        let mut types = vec![index; uses.len()];
        types.extend(result_types.iter().copied());
        uses.extend(outs);
        let mut st = self.new_state("scf.forall");
        st.properties = props;
        st.attributes = dict;
        st.result_types = result_types;
        st.regions.push(region);
        self.finish_op(st, &uses, &types)
    }

    /// ForallOp::ensureTerminator: an `scf.forall.in_parallel` whose region has one empty block,
    /// as its builder makes it.
    fn ensure_in_parallel(&mut self, r: crate::ir::Region) {
        let b = match self.m.blocks(r).last() {
            Some(&b) => b,
            None => self.m.append_block(r, &[]),
        };
        let ends = (self.m.block_ops(b).last())
            .is_some_and(|&o| super::dialects::classify(self.m.op_name_str(o)).terminator);
        if ends {
            return;
        }
        let name = self.m.sym("scf.forall.in_parallel");
        let mut st = crate::ir::OperationState::new(name, self.m.unknown_loc());
        let inner = self.m.create_region();
        self.m.append_block(inner, &[]);
        st.regions.push(inner);
        let op = self.m.create_op(st);
        self.m.append_op(b, op);
    }
}

/// `shape.function_library` (upstream's `FunctionLibraryOp::print`, Shape.cpp): `@name
/// (attributes {...})? {body} mapping {...}`; `false` when the op does not fit.
pub(crate) fn print_function_library(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let (Some(name), Some(mapping), &[region]) = (
        named_attr(m, op, "sym_name"),
        named_attr(m, op, "mapping"),
        m.regions(op),
    ) else {
        return false;
    };
    let (AttrData::String { value, ty: None }, AttrData::Dictionary(_)) =
        (m.attr_data(name), m.attr_data(mapping))
    else {
        return false;
    };
    p.out.push_str(p.custom_op_name(op));
    p.out.push(' ');
    p.print_symbol(*value);
    let rest: Vec<NamedAttr> = (m.properties(op).iter())
        .chain(m.attributes(op))
        .filter(|a| !matches!(m.str(a.name), "sym_name" | "mapping"))
        .copied()
        .collect();
    p.print_attributes_keyword(&rest);
    p.out.push(' ');
    p.print_region_terminated(region, false, false, None);
    p.out.push_str(" mapping ");
    p.print_attr(mapping);
    true
}

impl Parser<'_> {
    /// `shape.function_library @name (attributes {...})? {body} mapping {...}` (upstream's
    /// `FunctionLibraryOp::parse`).
    pub(crate) fn parse_function_library(&mut self) -> PResult<OpId> {
        let name = self.parse_symbol_name()?;
        let name = self.m.attr(AttrData::String {
            value: name,
            ty: None,
        });
        let mut dict = if self.c.eat_keyword("attributes") {
            self.parse_attr_dict()?
        } else {
            Vec::new()
        };
        let region = self.parse_region(None)?;
        self.c
            .expect_keyword("mapping", "after shape.function_library's body")?;
        let at = self.c.token_start();
        let mapping = self.parse_attribute()?;
        if !matches!(self.m.attr_data(mapping), AttrData::Dictionary(_)) {
            return Err(self.c.error_at(at, "expected a dictionary as the mapping"));
        }
        let mut props = vec![self.named("sym_name", name), self.named("mapping", mapping)];
        self.normalize_inherent("shape.function_library", &mut props, &mut dict);
        self.sort_named(&mut props);
        let mut st = self.new_state("shape.function_library");
        st.properties = props;
        st.attributes = dict;
        st.regions.push(region);
        self.finish_op(st, &[], &[])
    }
}

/// `^bb1` or `^bb1(%a, %b : T, U)` (OpAsmPrinter's printSuccessorAndUseList).
fn print_successor_and_uses(p: &mut Printer<'_>, dest: crate::ir::Block, values: &[Value]) {
    p.print_block_name(dest);
    if !values.is_empty() {
        p.out.push('(');
        p.print_value_list(values);
        p.out.push_str(" : ");
        let m = p.m;
        let types: Vec<Type> = values.iter().map(|&v| m.value_type(v)).collect();
        p.print_type_list(&types);
        p.out.push(')');
    }
}

/// `cf.switch` (upstream's ODS format `$flag `:` type($flag) `,` `[` `\n`
/// custom<SwitchOpCases>(...) `]` attr-dict` and ControlFlowOps.cpp's printSwitchOpCases):
/// `default: ^bb(...)`, then each case on its own line as its value, zero-extended
/// (`getLimitedValue`); `false` when the op does not fit.
pub(crate) fn print_cf_switch(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let ops = m.operands(op);
    let sizes = named_attr(m, op, "operandSegmentSizes")
        .and_then(|a| super::verify::types::int_list(m, a))
        .and_then(|v| {
            v.iter()
                .map(|&x| usize::try_from(x).ok())
                .collect::<Option<Vec<_>>>()
        });
    let case_sizes = named_attr(m, op, "case_operand_segments")
        .and_then(|a| super::verify::types::int_list(m, a))
        .and_then(|v| {
            v.iter()
                .map(|&x| usize::try_from(x).ok())
                .collect::<Option<Vec<_>>>()
        });
    let (Some(&[1, n_default, n_cases]), Some(case_sizes), Some((&default, case_dests))) =
        (sizes.as_deref(), case_sizes, m.successors(op).split_first())
    else {
        return false;
    };
    let Some(&flag) = ops.first() else {
        return false;
    };
    let TypeData::Integer { width, .. } = *m.type_data(m.value_type(flag)) else {
        return false;
    };
    let values = match named_attr(m, op, "case_values") {
        Some(a) => match super::verify::types::dense_ints(m, a) {
            Some((_, v)) => v,
            None => return false,
        },
        None => Vec::new(),
    };
    if width > 64
        || values.len() != case_dests.len()
        || case_sizes.len() != case_dests.len()
        || case_sizes.iter().sum::<usize>() != n_cases
        || 1 + n_default + n_cases != ops.len()
    {
        return false;
    }
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    p.out.push_str(p.custom_op_name(op));
    p.out.push(' ');
    let name = p.value_name(flag);
    p.out.push_str(&name);
    p.out.push_str(" : ");
    p.print_type(m.value_type(flag));
    p.out.push_str(", [");
    p.newline();
    p.out.push_str("  default: ");
    print_successor_and_uses(p, default, &ops[1..1 + n_default]);
    let mut at = 1 + n_default;
    for ((&v, &dest), &n) in values.iter().zip(case_dests).zip(&case_sizes) {
        p.out.push(',');
        p.newline();
        let _ = write!(p.out, "  {}: ", (v as u64) & mask);
        print_successor_and_uses(p, dest, &ops[at..at + n]);
        at += n;
    }
    if !values.is_empty() {
        p.newline();
    }
    p.out.push(']');
    super::op_format::print_attrs_except(p, op, |n| {
        matches!(
            n,
            "operandSegmentSizes" | "case_values" | "case_operand_segments"
        )
    });
    true
}

impl<'a> Parser<'a> {
    /// `^bb` or `^bb(%a, ... : T, ...)`: the successor, its operands and their types.
    fn successor_and_uses(&mut self) -> PResult<(crate::ir::Block, Vec<Use<'a>>, Vec<Type>)> {
        let dest = self.parse_successor()?;
        let (mut uses, mut types) = (Vec::new(), Vec::new());
        if self.c.eat(b'(') {
            (uses, types) = self.parse_operands_colon_types()?;
            self.c.expect(b')', "to close the successor's operands")?;
            if uses.len() != types.len() {
                return Err(self
                    .c
                    .error("successor operands and types differ in number"));
            }
        }
        Ok((dest, uses, types))
    }

    /// `cf.switch %flag : T, [ default: ^bb(...) (, N: ^bb(...))* ] attr-dict` (upstream's
    /// parseSwitchOpCases). The case values make a `dense<...> : vector<N x T>` attribute.
    pub(crate) fn parse_cf_switch(&mut self) -> PResult<OpId> {
        let flag = self.parse_value_use()?;
        self.c.expect(b':', "after cf.switch's flag")?;
        let flag_type = self.parse_type()?;
        self.c.expect(b',', "after cf.switch's flag type")?;
        self.c.expect(b'[', "to open cf.switch's cases")?;
        self.c.expect_keyword("default", "in cf.switch")?;
        self.c.expect(b':', "after 'default'")?;
        let (default, mut uses, mut types) = self.successor_and_uses()?;
        let n_default = uses.len();
        let (mut values, mut dests, mut case_sizes) = (Vec::new(), Vec::new(), Vec::new());
        while self.c.eat(b',') {
            self.c.skip_ws();
            let at = self.c.pos;
            let v = self.c.int64("as a case value")?;
            self.c.expect(b':', "after a case value")?;
            let (dest, case_uses, case_types) = self.successor_and_uses()?;
            values.push((i128::from(v), at));
            dests.push(dest);
            case_sizes.push(case_uses.len());
            uses.extend(case_uses);
            types.extend(case_types);
        }
        self.c.expect(b']', "to close cf.switch's cases")?;
        let mut dict = self.opt_attr_dict()?;
        let n_cases: usize = case_sizes.iter().sum();
        let sizes = self.segment_sizes_attr(&[1, n_default, n_cases]);
        let case_segments = self.segment_sizes_attr(&case_sizes);
        let mut props = vec![
            self.named("case_operand_segments", case_segments),
            self.named("operandSegmentSizes", sizes),
        ];
        if !values.is_empty() {
            // `dense<[...]> : vector<N x T>` of the flag's type, as upstream builds it.
            let n = i64::try_from(values.len()).unwrap_or(i64::MAX);
            let vector = self.m.dialect_type(
                "builtin",
                "vector",
                vec![
                    Param::Ints(Box::new([n])),
                    Param::Ints(Box::new([0])),
                    Param::Type(flag_type),
                ],
            );
            let ints: Vec<i128> = values.iter().map(|&(v, _)| v).collect();
            let case_values =
                crate::elements::from_ints(&mut self.m, vector, &ints).map_err(|e| {
                    let at = match e {
                        crate::elements::ElementsError::OutOfRange { index } => {
                            values.get(index).map_or(0, |&(_, at)| at)
                        }
                        _ => values.first().map_or(0, |&(_, at)| at),
                    };
                    // Newer MLIR's words (jaxlib 0.10.2 reads the value and truncates it).
                    let message = match e {
                        crate::elements::ElementsError::OutOfRange { .. } => format!(
                            "case value is out of range for '{}'",
                            crate::text::type_to_string(&self.m, flag_type)
                        ),
                        _ => format!("case value: {e} (the flag's type)"),
                    };
                    self.c.error_at(at, message)
                })?;
            props.push(self.named("case_values", case_values));
        }
        self.normalize_inherent("cf.switch", &mut props, &mut dict);
        self.sort_named(&mut props);
        let mut st = self.new_state("cf.switch");
        st.properties = props;
        st.attributes = dict;
        st.successors = std::iter::once(default).chain(dests).collect();
        uses.insert(0, flag);
        types.insert(0, flag_type);
        self.finish_op(st, &uses, &types)
    }
}
