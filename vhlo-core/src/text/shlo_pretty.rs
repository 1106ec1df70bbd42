//! StableHLO's custom assembly formats (StablehloOps.td `assemblyFormat` and the custom
//! printers/parsers of AssemblyFormat.cpp/StablehloOps.cpp), parse and print.

use super::op_format::{print_functional_type, print_rest_attrs_by};
use super::parser::{PResult, Parser};
use super::printer::{HintDep, NameHint, Printer};
use crate::dialect::codec::{CodecDialect, CodecOp};
use crate::ir::*;
use crate::vhlo::StablehloOp;
use std::fmt::Write as _;

/// `%x` uses not yet resolved: name, result number, position.
type Use<'a> = super::parser::ValueUse<'a>;

/// Inherent attributes (ODS arguments that are attributes) of StableHLO, func and VHLO ops
/// (from the spec's `stablehlo:` blocks and versions) and of `builtin.module`. In generic form
/// MLIR stores these as properties; everything else is discardable.
pub(crate) fn inherent_attrs(op: &str) -> &'static [&'static str] {
    if let Some(k) = StablehloOp::from_name(op) {
        k.attribute_names()
    } else if let Some(k) = crate::vhlo::VhloOp::from_name(op) {
        k.attribute_names()
    } else if op == "builtin.module" {
        &["sym_name", "sym_visibility"]
    } else if let Some(names) = crate::vhlo::attributes::other_func_op_attribute_names(op) {
        names
    } else if let Some((_, o)) = super::sdy_ops::codec_op(op) {
        o.attribute_names
    } else {
        &[]
    }
}

/// Whether reduce's compact `applies` form accepts the op: a StableHLO op with ODS's
/// `Commutative` trait (spec `traits:`).
fn is_commutative(name: &str) -> bool {
    StablehloOp::from_name(name).is_some_and(|k| k.is_commutative())
}

impl<'a> Parser<'a> {
    fn i64_type(&mut self) -> Type {
        self.m.ty(TypeData::Integer {
            width: 64,
            signedness: Signedness::Signless,
        })
    }

    pub(super) fn i64_attr(&mut self, v: i64) -> Attribute {
        let ty = self.i64_type();
        self.m.attr(AttrData::Integer {
            ty,
            value: v as i128,
        })
    }

    pub(super) fn i32_attr(&mut self, v: i64) -> Attribute {
        let ty = self.m.ty(TypeData::Integer {
            width: 32,
            signedness: Signedness::Signless,
        });
        self.m.attr(AttrData::Integer {
            ty,
            value: v as i32 as i128,
        })
    }

    pub(super) fn i64_array_attr(&mut self, v: &[i64]) -> Attribute {
        let element = self.i64_type();
        let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.m.attr(AttrData::DenseArray {
            element,
            data: data.into(),
        })
    }

    pub(super) fn kw_eq(&mut self, kw: &str) -> PResult<()> {
        self.c.expect_keyword(kw, "in operation syntax")?;
        self.c.expect_lazy(b'=', || format!("after '{kw}'"))
    }

    /// `%a, %b, ...` stopping before a non-value (a trailing comma stays unconsumed).
    pub(super) fn operand_list(&mut self) -> PResult<Vec<Use<'a>>> {
        let mut v = Vec::new();
        if self.c.peek() != Some(b'%') {
            return Ok(v);
        }
        loop {
            v.push(self.parse_value_use()?);
            if self.c.peek() == Some(b',') && self.c.peek_after_ws_at(1) == Some(b'%') {
                self.c.pos += 1;
                continue;
            }
            return Ok(v);
        }
    }

    /// `: (A, B) -> R` with `n` inputs.
    fn functional_type(&mut self, n: usize) -> PResult<(Vec<Type>, Vec<Type>)> {
        self.c.expect(b':', "before the operation's type")?;
        self.functional_type_body(n, false)
    }

    /// `(A, B) -> R` with `n` inputs, after the `:`; with `same` (SameOperandsAndResultType),
    /// also `T` for every operand and the one result.
    pub(super) fn functional_type_body(
        &mut self,
        n: usize,
        same: bool,
    ) -> PResult<(Vec<Type>, Vec<Type>)> {
        let pos = self.c.token_start();
        let t = self.parse_type()?;
        // No clone of the type: most ops spell one tensor type here.
        let (inputs, results) = match self.m.type_data(t) {
            TypeData::Function { inputs, results } => (inputs.to_vec(), results.to_vec()),
            _ if same => return Ok((vec![t; n], vec![t])),
            _ => {
                return Err(self
                    .c
                    .error_at(pos, "expected a function type '(...) -> ...'"))
            }
        };
        if inputs.len() != n {
            return Err(self.c.error_at(
                pos,
                format!("{n} operands present, but expected {}", inputs.len()),
            ));
        }
        if same && results.len() != 1 {
            return Err(self.c.error_at(pos, "expected single output"));
        }
        Ok((inputs, results))
    }

    /// Creates the op: format attributes are properties, the attr-dict is split into inherent
    /// (properties) and discardable attributes.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn build_op(
        &mut self,
        name: &str,
        uses: &[Use<'a>],
        operand_types: &[Type],
        result_types: Vec<Type>,
        props: Vec<NamedAttr>,
        dict: Vec<NamedAttr>,
        regions: Vec<Region>,
    ) -> PResult<OpId> {
        self.build_op_with_successors(
            name,
            uses,
            operand_types,
            result_types,
            props,
            dict,
            regions,
            Vec::new(),
        )
    }

    /// [`Self::build_op`] of an op with successor blocks.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn build_op_with_successors(
        &mut self,
        name: &str,
        uses: &[Use<'a>],
        operand_types: &[Type],
        result_types: Vec<Type>,
        mut props: Vec<NamedAttr>,
        dict: Vec<NamedAttr>,
        regions: Vec<Region>,
        successors: Vec<Block>,
    ) -> PResult<OpId> {
        let mut attrs = dict;
        self.normalize_inherent(name, &mut props, &mut attrs);
        self.sort_named(&mut props);
        for w in props.windows(2) {
            if w[0].name == w[1].name {
                return Err(self
                    .c
                    .error(format!("duplicate attribute '{}'", self.m.str(w[0].name))));
            }
        }
        let sym = self.m.sym(name);
        let mut st = OperationState::new(sym, self.m.unknown_loc());
        st.result_types = result_types;
        st.properties = props;
        st.attributes = attrs;
        st.regions = regions;
        st.successors = successors;
        self.finish_op(st, uses, operand_types)
    }

    /// Moves inherent attributes ([`inherent_attrs`]) of a generic op written in `{...}` into
    /// its properties.
    pub(crate) fn normalize_inherent(
        &self,
        name: &str,
        props: &mut Vec<NamedAttr>,
        attrs: &mut Vec<NamedAttr>,
    ) {
        let inherent = inherent_attrs(name);
        if inherent.is_empty() {
            return;
        }
        let m = &self.m;
        let is_inherent = |n: &str| inherent.contains(&n);
        let (moved, kept): (Vec<NamedAttr>, Vec<NamedAttr>) = attrs
            .iter()
            .partition(|a| is_inherent(m.str(a.name)) && !props.iter().any(|p| p.name == a.name));
        if moved.is_empty() {
            return;
        }
        props.extend(moved);
        *attrs = kept;
        props.sort_by(|a, b| m.str(a.name).cmp(m.str(b.name)));
    }

    /// Gives a spec dialect's op the defaults of the default-valued attributes it lacks, as
    /// MLIR's `populateDefaultProperties` does when it creates the op (so that the generic
    /// form prints them); `props` stay sorted by name.
    pub(crate) fn add_default_properties(
        &mut self,
        cd: &'static CodecDialect,
        o: &'static CodecOp,
        props: &mut Vec<NamedAttr>,
    ) {
        let mut added = false;
        for a in o.attributes.iter().filter(|a| a.default.is_some()) {
            if !props.iter().any(|p| self.m.str(p.name) == a.name) {
                if let Some(value) = cd.default_value(&mut self.m, a) {
                    let name = self.m.sym(a.name);
                    props.push(NamedAttr { name, value });
                    added = true;
                }
            }
        }
        if added {
            let m = &self.m;
            props.sort_by(|a, b| m.str(a.name).cmp(m.str(b.name)));
        }
    }

    pub(super) fn enum_attr(&mut self, mnemonic: &str) -> PResult<Attribute> {
        let pos = self.c.token_start();
        let case = self
            .c
            .bare_ident()
            .ok_or_else(|| self.c.error_at(pos, format!("expected {mnemonic} value")))?;
        let spec = super::dialects::find_enum("stablehlo", mnemonic).expect("known enum");
        let Some(&(_, v)) = spec.cases.iter().find(|c| c.0 == case) else {
            return Err(self
                .c
                .error_at(pos, format!("unknown {mnemonic} value '{case}'")));
        };
        Ok(self
            .m
            .dialect_attr("stablehlo", mnemonic, vec![Param::Int(v)]))
    }

    pub(super) fn precision_list(&mut self) -> PResult<Attribute> {
        self.kw_eq("precision")?;
        self.c.expect(b'[', "to open precision list")?;
        let mut v = Vec::new();
        self.parse_each_until(b']', "between precisions", |p| {
            v.push(p.enum_attr("precision")?);
            Ok(())
        })?;
        Ok(self.m.attr(AttrData::Array(v.into())))
    }

    /// A StableHLO op in pretty syntax; `None` when `name` has no pretty form here.
    pub(crate) fn parse_stablehlo_pretty(
        &mut self,
        name: &str,
        pos: usize,
        named_results: usize,
    ) -> PResult<Option<OpId>> {
        let _ = named_results;
        let Some(kind) = StablehloOp::from_name(name) else {
            return Ok(None);
        };
        if let Some(f) = kind.format() {
            return self
                .parse_by_format(name, super::op_format::FormatOp::Shlo(kind), f)
                .map(Some);
        }
        let op = match kind {
            StablehloOp::Constant => {
                if self.c.peek() == Some(b'(') {
                    // Generic-ish form `stablehlo.constant() <{value = ...}> {..} : () -> T`.
                    self.c.pos += 1;
                    self.c.expect(b')', "in constant")?;
                    let mut props = Vec::new();
                    if self.c.eat(b'<') {
                        props = self.parse_attr_dict()?;
                        self.c.expect(b'>', "to close properties")?;
                    }
                    let dict = self.opt_attr_dict()?;
                    let (_, outs) = self.functional_type(0)?;
                    self.build_op(name, &[], &[], outs, props, dict, vec![])?
                } else {
                    let dict = self.opt_attr_dict()?;
                    let vpos = self.c.token_start();
                    let value = self.parse_attribute()?;
                    let ty = match self.m.attr_data(value) {
                        AttrData::DenseElements { ty, .. }
                        | AttrData::DenseStrings { ty, .. }
                        | AttrData::DenseResource { ty, .. } => *ty,
                        _ => {
                            return Err(self
                                .c
                                .error_at(vpos, "expected elements attribute for constant"))
                        }
                    };
                    let p = self.named("value", value);
                    self.build_op(name, &[], &[], vec![ty], vec![p], dict, vec![])?
                }
            }
            StablehloOp::Reduce => self.parse_reduce(name, pos)?,
            StablehloOp::While => self.parse_while(name)?,
            _ => return Ok(None),
        };
        Ok(Some(op))
    }

    /// `stablehlo.reduce(%a init: %b), ... applies stablehlo.add across dimensions = [1] : T`
    /// or the `reducer(%x: T, %y: T) { ... }` form.
    fn parse_reduce(&mut self, name: &str, pos: usize) -> PResult<OpId> {
        let mut inputs = Vec::new();
        let mut inits = Vec::new();
        loop {
            if !self.c.eat(b'(') {
                break;
            }
            inputs.push(self.parse_value_use()?);
            self.c.expect_keyword("init", "in reduce operand pair")?;
            self.c.expect(b':', "after 'init'")?;
            inits.push(self.parse_value_use()?);
            self.c.expect(b')', "to close reduce operand pair")?;
            if !self.c.eat(b',') {
                break;
            }
        }
        let mut uses = inputs.clone();
        uses.extend(inits);
        let compact = if self.c.eat_keyword("applies") {
            let ipos = self.c.token_start();
            let inner = self
                .c
                .bare_ident()
                .ok_or_else(|| self.c.error_at(ipos, "expected inner op name"))?
                .to_string();
            if !is_commutative(&inner) {
                return Err(self.c.error_at(
                    ipos,
                    "expected the inner-op to be a commutative binary-op from the stablehlo dialect, with zero region, producing single result",
                ));
            }
            Some(inner)
        } else {
            None
        };
        self.c.expect_keyword("across", "in reduce")?;
        self.kw_eq("dimensions")?;
        let dims = self.parse_int_list()?;
        let dict = self.opt_attr_dict()?;
        let (ins, outs) = self.functional_type(uses.len())?;
        let da = self.i64_array_attr(&dims);
        let props = vec![self.named("dimensions", da)];
        let is_compact = compact.is_some();
        let region = match compact {
            Some(inner) => {
                // Rebuild the implied body: ^bb0(%lhs, %rhs): inner; stablehlo.return.
                let elem = match ins.first().map(|&t| self.m.type_data(t).clone()) {
                    Some(TypeData::RankedTensor { element, .. })
                    | Some(TypeData::UnrankedTensor { element }) => element,
                    _ => {
                        return Err(self
                            .c
                            .error_at(pos, "input types missing in reduce-op function type"))
                    }
                };
                let scalar = self.m.ty(TypeData::RankedTensor {
                    shape: Box::new([]),
                    element: elem,
                    encoding: None,
                });
                let region = self.m.create_region();
                let block = self.m.append_block(region, &[scalar, scalar]);
                let args = self.m.block_args(block).to_vec();
                let inner_sym = self.m.sym(&inner);
                let mut st = OperationState::new(inner_sym, self.m.unknown_loc());
                st.operands = args;
                st.result_types = vec![scalar];
                let inner_op = self.m.create_op(st);
                self.m.append_op(block, inner_op);
                let ret_sym = self.m.sym(StablehloOp::Return.name());
                let mut st = OperationState::new(ret_sym, self.m.unknown_loc());
                st.operands = self.m.results(inner_op).collect();
                let ret = self.m.create_op(st);
                self.m.append_op(block, ret);
                region
            }
            None => {
                self.c.expect_keyword("reducer", "before the reduce body")?;
                let mut firsts = Vec::new();
                let mut seconds = Vec::new();
                while self.c.eat(b'(') {
                    let (n1, _, p1) = self.parse_value_use()?;
                    self.c.expect(b':', "after reducer argument")?;
                    let t1 = self.parse_type()?;
                    let l1 = self.parse_value_loc(p1)?;
                    self.c.expect(b',', "between reducer arguments")?;
                    let (n2, _, p2) = self.parse_value_use()?;
                    self.c.expect(b':', "after reducer argument")?;
                    let t2 = self.parse_type()?;
                    let l2 = self.parse_value_loc(p2)?;
                    self.c.expect(b')', "to close reducer arguments")?;
                    firsts.push((n1, t1, p1, l1));
                    seconds.push((n2, t2, p2, l2));
                }
                firsts.extend(seconds);
                self.parse_region(Some(firsts))?
            }
        };
        let op = self.build_op(name, &uses, &ins, outs, props, dict, vec![region])?;
        if is_compact {
            // The implied body ops take the reduce's location (MLIR does the same).
            self.parse_trailing_loc(Some(op))?;
            let loc = self.m.op_location(op);
            let pending = self.pending_loc_for(op);
            let block = self.m.blocks(region)[0];
            // With a forward `#loc` alias, the arguments get its placeholder, resolved later.
            let arg_loc = match pending.clone() {
                Some((name, pos)) => self.pending_arg_loc(name, pos),
                None => loc,
            };
            for arg in self.m.block_args(block).to_vec() {
                self.m.set_value_location(arg, arg_loc);
            }
            for inner in self.m.block_ops(block).to_vec() {
                self.m.set_op_location(inner, loc);
                if let Some((name, pos)) = pending.clone() {
                    self.push_pending_loc(inner, name, pos);
                }
            }
        }
        Ok(op)
    }

    /// `stablehlo.while(%iterArg = %init, ...) : T, ... attributes {..} cond { } do { }`.
    fn parse_while(&mut self, name: &str) -> PResult<OpId> {
        self.c.expect(b'(', "to open while operands")?;
        let mut iter_args = Vec::new();
        let mut uses = Vec::new();
        self.parse_each_until(b')', "between while operands", |p| {
            let (n, _, at) = p.parse_value_use()?;
            p.c.expect(b'=', "after while iteration argument")?;
            uses.push(p.parse_value_use()?);
            iter_args.push((n, at));
            Ok(())
        })?;
        let mut types = Vec::new();
        if !uses.is_empty() {
            self.c.expect(b':', "before while operand types")?;
            types = self.parse_type_list()?;
            if types.len() != uses.len() {
                return Err(self.c.error("while operand and type counts differ"));
            }
        }
        let dict = if self.c.eat_keyword("attributes") {
            self.parse_attr_dict()?
        } else {
            Vec::new()
        };
        let mut args: Vec<super::parser::EntryArg<'a>> = Vec::with_capacity(iter_args.len());
        for ((n, p), &t) in iter_args.iter().zip(&types) {
            // MLIR gives the iteration arguments their position in the text.
            let loc = self.default_arg_loc(*p);
            args.push((*n, t, *p, loc));
        }
        self.c
            .expect_keyword("cond", "before the while condition")?;
        let cond = self.parse_region(Some(args.clone()))?;
        self.c.expect_keyword("do", "before the while body")?;
        let body = self.parse_region(Some(args))?;
        self.build_op(
            name,
            &uses,
            &types,
            types.clone(),
            vec![],
            dict,
            vec![cond, body],
        )
    }
}

// ---- printing ----------------------------------------------------------------------------------

/// [`Module::property`] by comparing names: ops have a handful of properties, and this runs
/// for every printed op, where hashing the name costs more than the comparisons.
pub(crate) fn find_prop(m: &Module, op: OpId, name: &str) -> Option<Attribute> {
    m.properties(op)
        .iter()
        .find(|a| m.str(a.name) == name)
        .map(|a| a.value)
}

fn operand_types(m: &Module, op: OpId) -> Vec<Type> {
    m.operands(op).iter().map(|&v| m.value_type(v)).collect()
}

fn result_types(m: &Module, op: OpId) -> Vec<Type> {
    m.results(op).map(|v| m.value_type(v)).collect()
}

/// Prints a StableHLO op in pretty syntax; false when it has none here (generic form then).
pub(crate) fn print_stablehlo(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let name = m.op_name_str(op);
    let Some(kind) = p.stablehlo_kind(op) else {
        return false;
    };
    if kind.prints_generically() {
        return false;
    }
    let nres = m.num_results(op);
    let nops = m.operands(op).len();
    let inherent = kind.attribute_names();
    // Every pretty form below has no successors; region-free unless stated.
    if !m.successors(op).is_empty() {
        return false;
    }
    // The attr-dict of a custom form is split back by name on parsing, so the form is only
    // lossless when every property has an inherent name and no discardable attribute has one.
    if !placement_is_canonical(m, op, inherent) {
        return false;
    }
    if let Some(f) = kind.format() {
        return super::op_format::print(p, op, super::op_format::FormatOp::Shlo(kind), f);
    }
    let no_regions = m.regions(op).is_empty();
    match kind {
        StablehloOp::Constant if nops == 0 && nres == 1 && no_regions => {
            let Some(value) = find_prop(m, op, "value") else {
                return false;
            };
            let vty = match m.attr_data(value) {
                AttrData::DenseElements { ty, .. }
                | AttrData::DenseStrings { ty, .. }
                | AttrData::DenseResource { ty, .. } => *ty,
                _ => return false,
            };
            p.out.push_str(name);
            let Some(rty) = m.results(op).next().map(|v| m.value_type(v)) else {
                return false;
            };
            if vty != rty {
                // The value's type differs (quantized results): MLIR prints the generic body.
                p.out.push_str("() <");
                p.print_attr_dict(m.properties(op), &[]);
                p.out.push('>');
                p.print_op_attrs(op);
                p.out.push_str(" : () -> ");
                // A function-typed result is parenthesized, as in any functional type.
                p.print_result_types(&[rty]);
                return true;
            }
            p.print_op_attrs(op);
            p.out.push(' ');
            p.print_attr(value);
            true
        }
        StablehloOp::Reduce if m.regions(op).len() == 1 => print_reduce(p, op),
        StablehloOp::While if m.regions(op).len() == 2 => print_while(p, op),
        _ => false,
    }
}

/// True when re-parsing a custom form would put every attribute back where it is now.
fn placement_is_canonical(m: &Module, op: OpId, table: &[&str]) -> bool {
    let inherent = |n: &str| table.contains(&n);
    m.properties(op).iter().all(|a| inherent(m.str(a.name)))
        && !m.attributes(op).iter().any(|a| inherent(m.str(a.name)))
}

/// The compact `applies` form is used when the body is exactly `inner(arg0, arg1); return`.
fn reduce_compact_inner(m: &Module, op: OpId, mlir_lossy: bool) -> Option<&str> {
    let region = m.regions(op)[0];
    let [block] = m.blocks(region) else {
        return None;
    };
    let ops = m.block_ops(*block);
    let [inner, ret] = ops else { return None };
    let inner_name = m.op_name_str(*inner);
    if !is_commutative(inner_name) || !m.regions(*inner).is_empty() || m.num_results(*inner) != 1 {
        return None;
    }
    if !m.properties(*inner).is_empty() || !m.attributes(*inner).is_empty() {
        return None;
    }
    let operands = m.operands(*inner);
    let ty = m.value_type(m.result(*inner, 0)?);
    if operands.len() != 2 || operands.iter().any(|&v| m.value_type(v) != ty) {
        return None;
    }
    let input = *m.operands(op).first()?;
    let elem = match m.type_data(m.value_type(input)) {
        TypeData::RankedTensor { element, .. } | TypeData::UnrankedTensor { element } => *element,
        _ => return None,
    };
    match m.type_data(ty) {
        TypeData::RankedTensor {
            shape,
            element,
            encoding: None,
        } if shape.is_empty() && *element == elem => {}
        _ => return None,
    }
    if m.block_args(*block) != operands {
        return None;
    }
    if m.op_name_str(*ret) != StablehloOp::Return.name()
        || m.operands(*ret) != [m.result(*inner, 0)?]
    {
        return None;
    }
    // The compact form cannot carry distinct locations of the body ops; MLIR drops them (and so
    // do we when printing as MLIR does), otherwise the region form keeps them.
    let loc = m.op_location(op);
    if !mlir_lossy
        && (m.op_location(*inner) != loc
            || m.op_location(*ret) != loc
            || m.block_args(*block)
                .iter()
                .any(|&a| m.value_location(a) != loc))
    {
        return None;
    }
    Some(inner_name)
}

/// The ops MLIR's printer (and ours with [`super::PrintOptions::elide_defaults`]) prints in a
/// compact form that leaves out locations of their bodies: a reduce in the `applies` form whose
/// body ops or arguments are located elsewhere than the reduce, a while whose region arguments
/// are located.
pub(crate) fn compact_forms_dropping_locations(m: &Module) -> Vec<OpId> {
    let mut out = Vec::new();
    m.walk(|op| {
        let hides = match StablehloOp::from_name(m.op_name_str(op)) {
            Some(StablehloOp::Reduce) => {
                m.regions(op).len() == 1
                    && reduce_compact_inner(m, op, true).is_some()
                    && reduce_compact_inner(m, op, false).is_none()
            }
            // `stablehlo.while(%iterArg = %x)` has no place for its arguments' locations.
            Some(StablehloOp::While) => {
                m.regions(op).len() == 2
                    && while_has_pretty_shape(m, op)
                    && m.regions(op).iter().any(|&r| {
                        m.blocks(r).first().is_some_and(|&b| {
                            m.block_args(b).iter().any(|&a| {
                                !matches!(m.loc_data(m.value_location(a)), LocData::Unknown)
                            })
                        })
                    })
            }
            _ => false,
        };
        if hides {
            out.push(op);
        }
    });
    out
}

fn print_reduce(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let dims = find_prop(m, op, "dimensions");
    let Some(dims) = dims.and_then(|a| super::op_format::i64_array_data(m, m.attr_data(a))) else {
        return false;
    };
    let operands = m.operands(op);
    if operands.is_empty() || !operands.len().is_multiple_of(2) || m.properties(op).len() != 1 {
        return false;
    }
    let n = operands.len() / 2;
    let region = m.regions(op)[0];
    let compact = reduce_compact_inner(m, op, p.opts.elide_defaults);
    if compact.is_none() {
        let [block] = m.blocks(region) else {
            return false;
        };
        if m.block_args(*block).len() != operands.len() {
            return false;
        }
    }
    p.out.push_str(m.op_name_str(op));
    for i in 0..n {
        if i > 0 {
            p.out.push_str(", ");
        }
        let a = p.value_name(operands[i]);
        let b = p.value_name(operands[i + n]);
        let _ = write!(p.out, "({a} init: {b})");
    }
    if let Some(inner) = compact {
        p.out.push_str(" applies ");
        p.out.push_str(inner);
    }
    p.out.push_str(" across dimensions = ");
    super::op_format::write_i64_data(&mut p.out, dims);
    print_rest_attrs_by(p, op, StablehloOp::Reduce, |n| n == "dimensions");
    p.out.push_str(" : ");
    print_functional_type(p, op);
    if compact.is_none() {
        let block = m.blocks(region)[0];
        let args = m.block_args(block).to_vec();
        p.newline();
        p.out.push_str(" reducer");
        for i in 0..n {
            p.out.push('(');
            for (j, &a) in [args[i], args[i + n]].iter().enumerate() {
                if j > 0 {
                    p.out.push_str(", ");
                }
                let nm = p.value_name(a);
                p.out.push_str(&nm);
                p.out.push_str(": ");
                p.print_type(m.value_type(a));
                p.print_arg_loc(a);
            }
            p.out.push_str(") ");
        }
        p.out.push(' ');
        p.print_region(region, false, false);
    }
    true
}

/// Whether a while's operands, results and both regions' arguments fit the pretty form (one
/// type list); the names of the arguments are checked when printing.
fn while_has_pretty_shape(m: &Module, op: OpId) -> bool {
    let regions = m.regions(op);
    let (cond, body) = (regions[0], regions[1]);
    let operands = m.operands(op);
    for r in [cond, body] {
        let blocks = m.blocks(r);
        let Some(&entry) = blocks.first() else {
            return false;
        };
        if m.block_args(entry).len() != operands.len() {
            return false;
        }
    }
    if !m.properties(op).is_empty() {
        return false;
    }
    // One type list serves operands, results and both regions' arguments.
    let types = operand_types(m, op);
    if result_types(m, op) != types {
        return false;
    }
    for r in [cond, body] {
        let args = m.block_args(m.blocks(r)[0]);
        if args
            .iter()
            .map(|&a| m.value_type(a))
            .ne(types.iter().copied())
        {
            return false;
        }
    }
    true
}

fn print_while(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    if !while_has_pretty_shape(m, op) {
        return false;
    }
    let regions = m.regions(op);
    let (cond, body) = (regions[0], regions[1]);
    let operands = m.operands(op);
    let body_args = m.block_args(m.blocks(body)[0]).to_vec();
    let cond_args = m.block_args(m.blocks(cond)[0]).to_vec();
    // Both regions share the printed iteration-argument names.
    for (a, b) in cond_args.iter().zip(&body_args) {
        if p.value_name(*a) != p.value_name(*b) {
            return false;
        }
    }
    p.out.push_str(m.op_name_str(op));
    p.out.push('(');
    for (i, (&a, &v)) in body_args.iter().zip(operands).enumerate() {
        if i > 0 {
            p.out.push_str(", ");
        }
        let an = p.value_name(a);
        let vn = p.value_name(v);
        let _ = write!(p.out, "{an} = {vn}");
    }
    p.out.push(')');
    if !operands.is_empty() {
        p.out.push_str(" : ");
        p.print_type_list(&operand_types(m, op));
    }
    p.print_attributes_keyword(m.attributes(op));
    p.newline();
    p.out.push_str("cond ");
    p.print_region(cond, false, false);
    p.out.push_str(" do ");
    p.print_region(body, false, false);
    true
}

pub(crate) fn result_name_hint(m: &Module, op: OpId) -> (Option<NameHint>, HintDep) {
    let name = m.op_name_str(op);
    if name == "arith.constant" {
        return (arith_constant_name(m, op), HintDep::Op);
    }
    // FuncOps.cpp's ConstantOp::getAsmResultNames.
    if name == "func.constant" {
        return (Some(NameHint::Shared("f".into())), HintDep::ResultCount);
    }
    // ODS names the results of an op with several, none variadic (top_k's %values, %indices).
    if let Some((_, o)) = super::sdy_ops::codec_op(name) {
        // `c{value}`: the integer attribute `value` in the name (shape's const_size).
        if let (Some((pre, rest)), 1) = (
            o.result_name.and_then(|r| r.split_once('{')),
            m.num_results(op),
        ) {
            let hint = rest.split_once('}').and_then(|(attr, post)| {
                let a = find_prop(m, op, attr)?;
                let AttrData::Integer { value, .. } = m.attr_data(a) else {
                    return None;
                };
                Some(NameHint::Shared(format!("{pre}{value}{post}").into()))
            });
            return (hint, HintDep::Op);
        }
        if let (Some(r), 1) = (o.result_name, m.num_results(op)) {
            return (Some(NameHint::Shared(r.into())), HintDep::ResultCount);
        }
        let n = m.num_results(op);
        let fixed = !o.results.iter().any(|r| r.ends_with('*'));
        let hint =
            (n >= 2 && n == o.results.len() && fixed).then_some(NameHint::PerResult(o.results));
        return (hint, HintDep::ResultCount);
    }
    if name != StablehloOp::Constant.name() {
        let n = m.num_results(op);
        let names = StablehloOp::from_name(name).map_or(&[][..], |k| k.asm_result_names());
        let hint = (n >= 2 && n == names.len()).then_some(NameHint::PerResult(names));
        return (hint, HintDep::ResultCount);
    }
    let integer = |r| match m.type_data(m.value_type(r)) {
        TypeData::RankedTensor { element, .. } | TypeData::UnrankedTensor { element } => {
            matches!(m.type_data(*element), TypeData::Integer { .. })
        }
        _ => false,
    };
    let hint = m.result(op, 0).map(|r| constant_name(integer(r)));
    (hint, HintDep::ResultType)
}

/// Upstream's ConstantOp::getAsmResultNames, for a result that is a tensor of integers or not.
fn constant_name(integer: bool) -> NameHint {
    NameHint::Shared(if integer { "c" } else { "cst" }.into())
}

/// `%c0` / `%c42_i32` for integers, `%true`/`%false` for i1, `%cst` otherwise.
fn arith_constant_name(m: &Module, op: OpId) -> Option<NameHint> {
    let value = find_prop(m, op, "value")?;
    let name = match m.attr_data(value) {
        AttrData::Bool(b) => if *b { "true" } else { "false" }.to_string(),
        AttrData::Integer { ty, value } => match m.type_data(*ty) {
            TypeData::Integer { width: 1, .. } => {
                if *value & 1 == 1 { "true" } else { "false" }.to_string()
            }
            TypeData::Integer { .. } => {
                format!("c{value}_{}", super::printer::type_to_string(m, *ty))
            }
            _ => format!("c{value}"),
        },
        _ => "cst".to_string(),
    };
    Some(NameHint::Shared(name.into()))
}

/// Block argument names MLIR's `getAsmBlockArgumentNames` gives (pretty printing only).
pub(crate) fn block_arg_name_hint(m: &Module, op: OpId, i: usize) -> Option<&'static str> {
    let name = m.op_name_str(op);
    if name == "chlo.scan" {
        return Some(super::codec_ops::scan_block_arg_name(m, op, i));
    }
    StablehloOp::from_name(name)?.asm_block_arg_name()
}
