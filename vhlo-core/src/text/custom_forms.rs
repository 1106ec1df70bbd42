//! Custom (pretty) op syntax, both ways: builtin.module, func.func/return/call, vhlo.func_v1
//! and the like here, and the dispatch to StableHLO's (`shlo_pretty`) and sdy's (`sdy`).
//! The printer and parser cores know no op: `text/mod.rs` hands them [`FORMS`] and
//! `Parser::parse_custom_op`.

use super::parser::{PResult, Parser};
use super::printer::{CustomForms, Printer};
use crate::ir::*;

/// Inherent attributes of func.func that its custom syntax spells out.
const FUNC_ELIDED: &[&str] = &[
    "sym_name",
    "function_type",
    "sym_visibility",
    "arg_attrs",
    "res_attrs",
];

impl<'a> Parser<'a> {
    /// An op in custom syntax, after its name was read: see [`super::parser::CustomOpParser`].
    /// An op of a dialect whose syntax is not known here is refused (unknown_dialect_message).
    pub(crate) fn parse_custom_op(
        &mut self,
        name: &str,
        pos: usize,
        named_results: usize,
    ) -> PResult<OpId> {
        // A name without a dialect is looked up in the default dialect the enclosing op gives
        // its regions (`shape_of` in a `shape.func`); `func`'s ops are known by their short
        // names anywhere.
        let outer = self.default_dialects.last().copied().unwrap_or("");
        let full;
        let name = if outer.is_empty() || outer == "func" || name.contains('.') {
            name
        } else {
            full = format!("{outer}.{name}");
            if super::sdy_ops::codec_op(&full).is_some() {
                full.as_str()
            } else {
                name
            }
        };
        self.default_dialects
            .push(super::dialects::default_dialect_of(name));
        let op = self.parse_custom_op_named(name, pos, named_results);
        self.default_dialects.pop();
        op
    }

    fn parse_custom_op_named(
        &mut self,
        name: &str,
        pos: usize,
        named_results: usize,
    ) -> PResult<OpId> {
        match name {
            "module" | "builtin.module" => self.parse_module_op(),
            "func.func" | "func" => self.parse_func_op("func.func"),
            // shape.func has func.func's syntax (function_interface_impl).
            "shape.func" => self.parse_func_op(name),
            "func.call" | "call" => self.parse_call_op(),
            "func.constant" | "constant" => self.parse_func_constant(),
            "func.call_indirect" | "call_indirect" => self.parse_call_indirect(),
            "vhlo.func_v1" => self.parse_vhlo_func(),
            "func.return" | "return" => {
                let (uses, types) = self.parse_operands_colon_types()?;
                let st = self.new_state("func.return");
                self.finish_op(st, &uses, &types)
            }
            _ => {
                if let Some(op) = self.parse_codec_op(name)? {
                    return Ok(op);
                }
                if let Some(op) = self.parse_stablehlo_pretty(name, pos, named_results)? {
                    return Ok(op);
                }
                if let Some(op) = self.parse_lenient_custom(name, pos, named_results)? {
                    return Ok(op);
                }
                Err(self.c.error_at(pos, unsupported_custom_syntax(name)))
            }
        }
    }

    pub(crate) fn new_state(&mut self, name: &str) -> OperationState {
        let sym = self.m.sym(name);
        OperationState::new(sym, self.m.unknown_loc())
    }

    pub(crate) fn named(&mut self, name: &str, value: Attribute) -> NamedAttr {
        NamedAttr {
            name: self.m.sym(name),
            value,
        }
    }

    pub(crate) fn sort_named(&self, v: &mut [NamedAttr]) {
        let m = &self.m;
        v.sort_by(|a, b| m.str(a.name).cmp(m.str(b.name)));
    }

    fn parse_module_op(&mut self) -> PResult<OpId> {
        let mut st = self.new_state("builtin.module");
        if self.c.peek() == Some(b'@') {
            let s = self.parse_symbol_name()?;
            let v = self.m.attr(AttrData::String { value: s, ty: None });
            let na = self.named("sym_name", v);
            st.properties.push(na);
        }
        if self.c.eat_keyword("attributes") {
            st.attributes = self.parse_attr_dict()?;
        }
        let region = self.parse_region(None)?;
        if self.m.blocks(region).is_empty() {
            self.m.append_block(region, &[]);
        }
        st.regions.push(region);
        Ok(self.m.create_op(st))
    }

    /// `func.func`, or an op with its syntax (`shape.func`: upstream's
    /// `function_interface_impl::parseFunctionOp`).
    fn parse_func_op(&mut self, op_name: &str) -> PResult<OpId> {
        let mut st = self.new_state(op_name);
        let mut props = Vec::new();
        for vis in ["private", "public", "nested"] {
            if self.c.eat_keyword(vis) {
                let s = self.m.sym(vis);
                let v = self.m.attr(AttrData::String { value: s, ty: None });
                props.push(self.named("sym_visibility", v));
                break;
            }
        }
        let name = self.parse_symbol_name()?;
        let v = self.m.attr(AttrData::String {
            value: name,
            ty: None,
        });
        props.push(self.named("sym_name", v));
        // Arguments: `%a: T {attrs} loc(..)` or, for declarations, bare types.
        self.c.expect(b'(', "to open the argument list")?;
        let mut args: Vec<super::parser::EntryArg<'a>> = Vec::new();
        let mut arg_types = Vec::new();
        let mut arg_attrs: Vec<Attribute> = Vec::new();
        let mut named_args = None;
        self.parse_each_until(b')', "between arguments", |p| {
            p.c.skip_ws();
            let apos = p.c.pos;
            let is_named = p.c.peek() == Some(b'%');
            match named_args {
                None => named_args = Some(is_named),
                Some(n) if n != is_named => {
                    return Err(p
                        .c
                        .error_at(apos, "expected all arguments named or all unnamed"))
                }
                _ => {}
            }
            let named = if is_named {
                let (n, _, at) = p.parse_value_use()?;
                p.c.expect(b':', "after argument name")?;
                Some((n, at))
            } else {
                None
            };
            let ty = p.parse_type()?;
            arg_types.push(ty);
            arg_attrs.push(p.parse_opt_dict_attr()?);
            let loc = p.parse_value_loc(named.map_or(apos, |(_, at)| at))?;
            if let Some((n, at)) = named {
                args.push((n, ty, at, loc));
            }
            Ok(())
        })?;
        let mut result_types = Vec::new();
        let mut res_attrs: Vec<Attribute> = Vec::new();
        if self.c.eat_punct("->") {
            if self.c.peek() == Some(b'(') {
                self.c.pos += 1;
                (result_types, res_attrs) = self
                    .parse_list_until(b')', "between results", |p| {
                        Ok((p.parse_type()?, p.parse_opt_dict_attr()?))
                    })?
                    .into_iter()
                    .unzip();
            } else {
                result_types.push(self.parse_type()?);
                let empty = self.m.attr(AttrData::Dictionary(Box::new([])));
                res_attrs.push(empty);
            }
        }
        let fty = self.m.ty(TypeData::Function {
            inputs: arg_types.clone().into(),
            results: result_types.into(),
        });
        let v = self.m.attr(AttrData::Type(fty));
        props.push(self.named("function_type", v));
        let is_empty_dict = |p: &Self, a: &Attribute| matches!(p.m.attr_data(*a), AttrData::Dictionary(d) if d.is_empty());
        if arg_attrs.iter().any(|a| !is_empty_dict(self, a)) {
            let v = self.m.attr(AttrData::Array(arg_attrs.into()));
            props.push(self.named("arg_attrs", v));
        }
        if res_attrs.iter().any(|a| !is_empty_dict(self, a)) {
            let v = self.m.attr(AttrData::Array(res_attrs.into()));
            props.push(self.named("res_attrs", v));
        }
        if self.c.eat_keyword("attributes") {
            st.attributes = self.parse_attr_dict()?;
        }
        let region = if self.c.peek() == Some(b'{') {
            // Without named arguments the body may spell its entry block, `^bb0(%a: f32):`, as
            // MLIR's function parser allows (the verifier checks it against the signature).
            let labelled = {
                let rest = self.c.src.get(self.c.pos + 1..).unwrap_or_default();
                rest.trim_start().starts_with('^')
            };
            if named_args == Some(false) || (args.is_empty() && labelled) {
                self.parse_region(None)?
            } else {
                self.parse_region(Some(args))?
            }
        } else {
            self.m.create_region()
        };
        let mut attrs = std::mem::take(&mut st.attributes);
        self.normalize_inherent(op_name, &mut props, &mut attrs);
        st.attributes = attrs;
        self.sort_named(&mut props);
        st.properties = props;
        st.regions.push(region);
        Ok(self.m.create_op(st))
    }

    /// `%a, %b : T, U` (both lists may be empty): operands and their types.
    pub(crate) fn parse_operands_colon_types(
        &mut self,
    ) -> PResult<(Vec<super::parser::ValueUse<'a>>, Vec<Type>)> {
        let mut uses = Vec::new();
        if self.c.peek() == Some(b'%') {
            loop {
                uses.push(self.parse_value_use()?);
                if !self.c.eat(b',') {
                    break;
                }
            }
        }
        let mut types = Vec::new();
        if !uses.is_empty() {
            self.c.expect(b':', "before operand types")?;
            types = self.parse_type_list()?;
            if types.len() != uses.len() {
                return Err(self.c.error(format!(
                    "{} operands but {} types",
                    uses.len(),
                    types.len()
                )));
            }
        }
        Ok((uses, types))
    }

    pub(crate) fn finish_op(
        &mut self,
        mut st: OperationState,
        uses: &[super::parser::ValueUse<'a>],
        types: &[Type],
    ) -> PResult<OpId> {
        let (operands, fwd) = self.resolve_uses(uses, Some(types))?;
        st.operands = operands;
        let op = self.m.create_op(st);
        self.register_forward(op, fwd);
        Ok(op)
    }

    fn parse_call_op(&mut self) -> PResult<OpId> {
        let callee = self.parse_symbol_name()?;
        self.c.expect(b'(', "to open call operands")?;
        let uses = self.parse_list_until(b')', "between call operands", |p| p.parse_value_use())?;
        let mut st = self.new_state("func.call");
        if self.c.peek() == Some(b'{') {
            st.attributes = self.parse_attr_dict()?;
        }
        self.c.expect(b':', "before the callee's function type")?;
        let v = self.m.attr(AttrData::SymbolRef {
            root: callee,
            nested: Box::new([]),
        });
        st.properties.push(self.named("callee", v));
        self.finish_op_typed_by_function(
            st,
            &uses,
            "expected function type",
            "call operand count does not match the function type",
        )
    }

    /// `func.constant attr-dict @f : T` (FuncOps.td's format).
    fn parse_func_constant(&mut self) -> PResult<OpId> {
        let dict = self.opt_attr_dict()?;
        let root = self.parse_symbol_name()?;
        self.c.expect(b':', "before the constant's type")?;
        let ty = self.parse_type()?;
        let value = self.m.attr(AttrData::SymbolRef {
            root,
            nested: Box::new([]),
        });
        let mut st = self.new_state("func.constant");
        st.attributes = dict;
        st.properties.push(self.named("value", value));
        st.result_types.push(ty);
        self.finish_op(st, &[], &[])
    }

    /// `func.call_indirect %f(%a, ...) attr-dict : (T, ...) -> R` (FuncOps.td's format): the
    /// callee's function type gives the arguments' types and the results'.
    fn parse_call_indirect(&mut self) -> PResult<OpId> {
        let callee = self.parse_value_use()?;
        self.c.expect(b'(', "to open call operands")?;
        let args = self.parse_list_until(b')', "between call operands", |p| p.parse_value_use())?;
        let dict = self.opt_attr_dict()?;
        self.c.expect(b':', "before the callee's function type")?;
        self.c.skip_ws();
        let fpos = self.c.pos;
        let fty = self.parse_type()?;
        let TypeData::Function { inputs, results } = self.m.type_data(fty).clone() else {
            return Err(self.c.error_at(fpos, "expected function type"));
        };
        if inputs.len() != args.len() {
            return Err(self
                .c
                .error_at(fpos, "call operand count does not match the function type"));
        }
        let mut uses = vec![callee];
        uses.extend(args);
        let mut types = vec![fty];
        types.extend(inputs.iter().copied());
        let mut st = self.new_state("func.call_indirect");
        st.attributes = dict;
        st.result_types = results.to_vec();
        self.finish_op(st, &uses, &types)
    }

    /// The `(T, ...) -> R` type that ends an op: its operands' types and its result types;
    /// `not_function` and `bad_count` are the errors when it is no function type or its
    /// inputs are not one per operand.
    pub(crate) fn finish_op_typed_by_function(
        &mut self,
        mut st: OperationState,
        uses: &[super::parser::ValueUse<'a>],
        not_function: &str,
        bad_count: &str,
    ) -> PResult<OpId> {
        self.c.skip_ws();
        let fpos = self.c.pos;
        let fty = self.parse_type()?;
        let TypeData::Function { inputs, results } = self.m.type_data(fty).clone() else {
            return Err(self.c.error_at(fpos, not_function));
        };
        if inputs.len() != uses.len() {
            return Err(self.c.error_at(fpos, bad_count));
        }
        st.result_types = results.to_vec();
        self.finish_op(st, uses, &inputs)
    }

    /// Ops of test dialects (`check.expect_eq_const %0, dense<...> : tensor<...>`), kept with
    /// their operands and trailing attribute in a generic shape: operands, then an optional
    /// `value` attribute, then an optional attribute dictionary and `: types`.
    fn parse_lenient_custom(
        &mut self,
        name: &str,
        _pos: usize,
        named_results: usize,
    ) -> PResult<Option<OpId>> {
        // jaxlib registers neither dialect: their ops are read only where unregistered dialects
        // are allowed (the interpreter's tests), as their generic form is.
        let test_dialect = name.starts_with("check.") || name.starts_with("interpreter.");
        if !(test_dialect && self.allow_unregistered) {
            return Ok(None);
        }
        let mut st = self.new_state(name);
        let mut uses = Vec::new();
        let mut props = Vec::new();
        // Comma-separated operands, `key = attr` entries and a bare constant.
        loop {
            match self.c.peek() {
                Some(b'{') | Some(b':') | None => break,
                Some(b'%') => uses.push(self.parse_value_use()?),
                _ => {
                    if self.c.peek_ident() == Some("loc") {
                        break;
                    }
                    let save = self.c.pos;
                    let mut keyed = false;
                    if let Some(id) = self.c.bare_ident() {
                        if self.c.peek() == Some(b'=') {
                            self.c.pos += 1;
                            let a = self.parse_attribute_untyped()?;
                            props.push(self.named(id, a));
                            keyed = true;
                        } else {
                            self.c.pos = save;
                        }
                    }
                    if !keyed {
                        let a = self.parse_attribute()?;
                        props.push(self.named("value", a));
                    }
                }
            }
            if !self.c.eat(b',') {
                break;
            }
        }
        if self.c.peek() == Some(b'{') {
            st.attributes = self.parse_attr_dict()?;
        }
        let mut types = Vec::new();
        if self.c.eat(b':') {
            types = self.parse_type_list()?;
        }
        if types.is_empty() && !uses.is_empty() {
            // Operand types unknown: take them from the values.
            for (n, i, p) in &uses {
                let v = match self.resolve_uses(&[(*n, *i, *p)], None)?.0[0] {
                    Value(u32::MAX) => {
                        return Err(self
                            .c
                            .error_at(*p, "forward reference in a test op needs explicit types"))
                    }
                    v => v,
                };
                types.push(self.m.value_type(v));
            }
        }
        if types.len() != uses.len() {
            // `check.expect_eq %a, %b : tensor<T>` gives one type for both operands.
            if types.len() == 1 {
                types = vec![types[0]; uses.len()];
            } else {
                return Err(self.c.error("operand and type counts differ"));
            }
        }
        // Results (`interpreter.probe`) have the types of the leading operands.
        if types.len() < named_results {
            return Err(self
                .c
                .error(format!("cannot infer the types of {named_results} results")));
        }
        st.result_types = types[..named_results].to_vec();
        self.sort_named(&mut props);
        if let Some(w) = props.windows(2).find(|w| w[0].name == w[1].name) {
            let key = self.m.str(w[0].name).to_string();
            return Err(self
                .c
                .error(format!("duplicate attribute '{key}' in '{name}'")));
        }
        st.properties = props;
        self.finish_op(st, &uses, &types).map(Some)
    }
}

/// `name %a, %b : T, U`: a terminator's custom form, which has only operands to show.
fn print_terminator(p: &mut Printer<'_>, op: OpId, name: &str) -> bool {
    let m = p.m;
    if !m.properties(op).is_empty()
        || !m.attributes(op).is_empty()
        || m.num_results(op) != 0
        || !m.regions(op).is_empty()
        || !m.successors(op).is_empty()
    {
        return false;
    }
    p.out.push_str(name);
    print_operands_colon_types(p, m.operands(op));
    true
}

/// Prints `op` in custom syntax when there is one; false to fall back to the generic form.
pub(crate) fn print_custom(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    match m.op_name_str(op) {
        "builtin.module" => print_module_op(p, op),
        "func.func" | "shape.func" => print_func_op(p, op),
        // `func` is the default dialect only directly inside a function body.
        "func.return" => {
            let name = func_op_name(p, "func.return");
            print_terminator(p, op, name)
        }
        "func.call" => print_call_op(p, op),
        "func.constant" => print_func_constant(p, op),
        "func.call_indirect" => print_call_indirect(p, op),
        // Most ops: no codec dialect to look up (a search of the name per op otherwise).
        n if n.starts_with("stablehlo.") => super::shlo_pretty::print_stablehlo(p, op),
        n if super::sdy_ops::codec_op(n).is_some() => super::sdy_ops::print_codec_op(p, op),
        "vhlo.func_v1" => print_vhlo_func(p, op),
        name @ "builtin.unrealized_conversion_cast" => {
            if !m.properties(op).is_empty() || m.operands(op).len() != 1 || m.num_results(op) != 1 {
                return false;
            }
            p.out.push_str(name);
            p.out.push(' ');
            p.print_value_list(m.operands(op));
            p.print_op_attrs(op);
            p.out.push_str(" : ");
            p.print_type(m.value_type(m.operands(op)[0]));
            p.out.push_str(" to ");
            p.print_type(m.value_type(m.result(op, 0).expect("one result")));
            true
        }
        _ => super::shlo_pretty::print_stablehlo(p, op),
    }
}

pub(crate) fn print_operands_colon_types(p: &mut Printer<'_>, vals: &[Value]) {
    if vals.is_empty() {
        return;
    }
    p.out.push(' ');
    p.print_value_list(vals);
    p.out.push_str(" : ");
    let types: Vec<Type> = vals.iter().map(|&v| p.m.value_type(v)).collect();
    p.print_type_list(&types);
}

impl<'a> Parser<'a> {
    /// `vhlo.func_v1 @name(%arg0: T) -> (R) { body } {attrs}`: name and type become the
    /// `sym_name`/`function_type` properties, the trailing dictionary holds the other ones.
    fn parse_vhlo_func(&mut self) -> PResult<OpId> {
        let name = self.parse_symbol_name()?;
        self.c.expect(b'(', "to open the argument list")?;
        let args = self.parse_list_until(b')', "between arguments", |p| {
            p.parse_entry_arg("after argument name")
        })?;
        self.c.expect_punct("->", "before the result types")?;
        let results = self.parse_paren_type_list()?;
        let inputs: Vec<Type> = args.iter().map(|a| a.1).collect();
        let region = self.parse_region(Some(args))?;
        self.c.skip_ws();
        let dict_pos = self.c.pos;
        let dict = self.opt_attr_dict()?;
        // The name and the signature are the `sym_name` and `function_type` properties.
        if let Some(a) = dict
            .iter()
            .find(|a| matches!(self.m.str(a.name), "sym_name" | "function_type"))
        {
            let key = self.m.str(a.name).to_string();
            return Err(self.c.error_at(
                dict_pos,
                format!("duplicate attribute '{key}' in 'vhlo.func_v1': the custom form gives it"),
            ));
        }
        let name_attr = crate::vhlo::attrs::StringV1 { value: name }.build(&mut self.m);
        let value = crate::vhlo::types::FuncV1 {
            inputs: inputs.into(),
            outputs: results.into(),
        }
        .build(&mut self.m);
        let type_attr = crate::vhlo::attrs::TypeV1 { value }.build(&mut self.m);
        let mut props = vec![
            self.named("sym_name", name_attr),
            self.named("function_type", type_attr),
        ];
        let mut attrs = Vec::new();
        for a in dict {
            // VHLO ops keep every registered attribute as a property; dotted names are
            // discardable (`some.unregistered_attr`).
            if self.m.str(a.name).contains('.') {
                attrs.push(a);
            } else {
                props.push(a);
            }
        }
        self.sort_named(&mut props);
        let mut st = self.new_state("vhlo.func_v1");
        st.properties = props;
        st.attributes = attrs;
        st.regions.push(region);
        Ok(self.m.create_op(st))
    }
}

fn print_vhlo_func(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    // The trailing dictionary is split back by name: dotted names are discardable.
    if m.properties(op).iter().any(|a| m.str(a.name).contains('.'))
        || m.attributes(op)
            .iter()
            .any(|a| !m.str(a.name).contains('.'))
    {
        return false;
    }
    // `#vhlo.string_v1<"name">` and `#vhlo.type_v1<!vhlo.func_v1<...>>`.
    let prop = |key| super::shlo_pretty::find_prop(m, op, key);
    let Some(name) = prop("sym_name").and_then(|a| crate::vhlo::attrs::StringV1::read(m, a)) else {
        return false;
    };
    let Some(fty) = prop("function_type").and_then(|a| crate::vhlo::attrs::TypeV1::read(m, a))
    else {
        return false;
    };
    let Some(crate::vhlo::types::FuncV1 {
        inputs: ins,
        outputs: outs,
    }) = crate::vhlo::types::FuncV1::read(m, fty.value)
    else {
        return false;
    };
    let name = &name.value;
    let regions = m.regions(op);
    if regions.len() != 1 || m.blocks(regions[0]).is_empty() {
        return false;
    }
    let entry = m.blocks(regions[0])[0];
    let args = m.block_args(entry);
    if !values_typed(m, args, &ins) {
        return false;
    }
    p.out.push_str("vhlo.func_v1 ");
    p.print_symbol(*name);
    p.out.push('(');
    p.print_block_args(args);
    p.wrap(") -> (", ") ", |q| q.print_type_list(&outs));
    p.print_region(regions[0], false, false);
    let mut rest: Vec<NamedAttr> = m
        .properties(op)
        .iter()
        .filter(|a| !matches!(m.str(a.name), "sym_name" | "function_type"))
        .copied()
        .collect();
    rest.extend(m.attributes(op).iter().copied());
    if !rest.is_empty() {
        rest.sort_by(|a, b| m.str(a.name).cmp(m.str(b.name)));
        p.out.push(' ');
        p.print_attr_dict(&rest, &[]);
    }
    true
}

fn print_module_op(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let regions = m.regions(op);
    if regions.len() != 1
        || m.blocks(regions[0]).len() != 1
        || !m.block_args(m.blocks(regions[0])[0]).is_empty()
    {
        return false;
    }
    if m.properties(op).iter().any(|a| m.str(a.name) != "sym_name") {
        return false;
    }
    // `module @name` spells an untyped string only; any other value needs the generic form.
    if m.property(op, "sym_name")
        .is_some_and(|a| !matches!(m.attr_data(a), AttrData::String { ty: None, .. }))
    {
        return false;
    }
    p.out.push_str("module");
    if let Some(a) = super::shlo_pretty::find_prop(m, op, "sym_name") {
        if let AttrData::String { value, .. } = m.attr_data(a) {
            p.out.push(' ');
            p.print_symbol(*value);
        }
    }
    p.print_attributes_keyword(m.attributes(op));
    p.out.push(' ');
    p.print_region(regions[0], false, false);
    true
}

/// `func.func`, or an op with its syntax (`shape.func`: upstream's
/// `function_interface_impl::printFunctionOp`).
fn print_func_op(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    // Lossless only when properties and attributes sit where re-parsing puts them.
    let inherent = super::shlo_pretty::inherent_attrs(m.op_name_str(op));
    if m.properties(op)
        .iter()
        .any(|a| !inherent.contains(&m.str(a.name)))
        || m.attributes(op)
            .iter()
            .any(|a| inherent.contains(&m.str(a.name)))
    {
        return false;
    }
    let prop = |key| super::shlo_pretty::find_prop(m, op, key).map(|a| m.attr_data(a));
    let (Some(AttrData::Type(fty)), Some(AttrData::String { value: name, .. })) =
        (prop("function_type"), prop("sym_name"))
    else {
        return false;
    };
    let TypeData::Function { inputs, results } = m.type_data(*fty) else {
        return false;
    };
    let regions = m.regions(op);
    if regions.len() != 1 {
        return false;
    }
    let body = m.blocks(regions[0]);
    if let Some(&entry) = body.first() {
        // The pretty form spells each argument once, with the signature's type: arguments of
        // other types (MLIR's verifier refuses them) need the generic form.
        if !values_typed(m, m.block_args(entry), inputs) {
            return false;
        }
    }
    let dict_list = |key: &str| -> Vec<Option<Attribute>> {
        match super::shlo_pretty::find_prop(m, op, key).map(|a| m.attr_data(a)) {
            Some(AttrData::Array(v)) => v.iter().map(|&a| Some(a)).collect(),
            _ => Vec::new(),
        }
    };
    let arg_attrs = dict_list("arg_attrs");
    let res_attrs = dict_list("res_attrs");
    // Per-argument and per-result dictionaries, one each, or the custom form would drop them.
    let dict_len = |a: &Option<Attribute>| match a.map(|a| m.attr_data(a)) {
        Some(AttrData::Dictionary(d)) => Some(d.len()),
        _ => None,
    };
    // One dictionary per entry, not all empty (the parser would then leave the property out),
    // unless printing as MLIR does, which drops all-empty lists (JAX's functions have them).
    let well_formed = |list: &[Option<Attribute>], n: usize, key: &str| {
        super::shlo_pretty::find_prop(m, op, key).is_none()
            || (list.len() == n
                && list.iter().all(|a| dict_len(a).is_some())
                && (p.opts.elide_defaults
                    || list.iter().any(|a| dict_len(a).is_some_and(|l| l > 0))))
    };
    if !well_formed(&arg_attrs, inputs.len(), "arg_attrs")
        || !well_formed(&res_attrs, results.len(), "res_attrs")
    {
        return false;
    }
    // A visibility other than the three keywords has no pretty spelling: print it generically.
    let visibility_ok = m.property(op, "sym_visibility").is_none_or(|v| {
        matches!(m.attr_data(v), AttrData::String { value, ty: None }
            if matches!(m.str(*value), "public" | "private" | "nested"))
    });
    if !visibility_ok {
        return false;
    }
    p.out.push_str(p.custom_op_name(op));
    p.out.push(' ');
    if let Some(v) = super::shlo_pretty::find_prop(m, op, "sym_visibility") {
        if let AttrData::String { value, .. } = m.attr_data(v) {
            p.out.push_str(m.str(*value));
            p.out.push(' ');
        }
    }
    p.print_symbol(*name);
    p.out.push('(');
    for (i, &t) in inputs.iter().enumerate() {
        if i > 0 {
            p.out.push_str(", ");
        }
        if let Some(&entry) = body.first() {
            let n = p.value_name(m.block_args(entry)[i]);
            p.out.push_str(&n);
            p.out.push_str(": ");
        }
        p.print_type(t);
        print_nonempty_dict(p, arg_attrs.get(i).copied().flatten());
        if let Some(&entry) = body.first() {
            p.print_arg_loc(m.block_args(entry)[i]);
        }
    }
    p.out.push(')');
    let any_res_attrs = res_attrs.iter().any(|a| {
        a.is_some_and(|a| !matches!(m.attr_data(a), AttrData::Dictionary(d) if d.is_empty()))
    });
    if !results.is_empty() {
        p.out.push_str(" -> ");
        let parens = results.len() > 1
            || any_res_attrs
            || matches!(m.type_data(results[0]), TypeData::Function { .. });
        if parens {
            p.out.push('(');
        }
        for (i, &t) in results.iter().enumerate() {
            if i > 0 {
                p.out.push_str(", ");
            }
            p.print_type(t);
            print_nonempty_dict(p, res_attrs.get(i).copied().flatten());
        }
        if parens {
            p.out.push(')');
        }
    }
    let mut extra: Vec<NamedAttr> = m.attributes(op).to_vec();
    extra.extend(
        m.properties(op)
            .iter()
            .filter(|a| !FUNC_ELIDED.contains(&m.str(a.name)))
            .copied(),
    );
    extra.sort_by(|a, b| m.str(a.name).cmp(m.str(b.name)));
    p.print_attributes_keyword(&extra);
    if !body.is_empty() {
        p.out.push(' ');
        p.print_region(regions[0], false, false);
    }
    true
}

fn print_nonempty_dict(p: &mut Printer<'_>, a: Option<Attribute>) {
    if let Some(a) = a {
        if let AttrData::Dictionary(d) = p.m.attr_data(a) {
            if !d.is_empty() {
                p.out.push(' ');
                p.print_attr(a);
            }
        }
    }
}

fn print_call_op(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let Some(callee) = super::shlo_pretty::find_prop(m, op, "callee") else {
        return false;
    };
    // The custom form spells a flat symbol (`@f`); anything else needs the generic form.
    let flat_symbol =
        matches!(m.attr_data(callee), AttrData::SymbolRef { nested, .. } if nested.is_empty());
    if m.properties(op).len() != 1 || !flat_symbol {
        return false;
    }
    p.out.push_str(func_op_name(p, "func.call"));
    p.out.push(' ');
    p.print_attr(callee);
    p.wrap("(", ")", |q| q.print_value_list(m.operands(op)));
    p.print_op_attrs(op);
    p.out.push_str(" : ");
    p.print_op_function_type(op);
    true
}

/// `name` (`func.call`) as MLIR prints it: without its dialect directly inside a function body,
/// where `func` is the default dialect.
fn func_op_name<'n>(p: &Printer<'_>, name: &'n str) -> &'n str {
    match name.strip_prefix("func.") {
        Some(short) if p.in_func_body() => short,
        _ => name,
    }
}

/// `func.constant @f : T`; `false` when the op does not fit that syntax.
fn print_func_constant(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let [value] = m.properties(op) else {
        return false;
    };
    let flat =
        matches!(m.attr_data(value.value), AttrData::SymbolRef { nested, .. } if nested.is_empty());
    let Some(result) = m.result(op, 0) else {
        return false;
    };
    if m.str(value.name) != "value" || !flat || !m.operands(op).is_empty() || m.num_results(op) != 1
    {
        return false;
    }
    p.out.push_str(func_op_name(p, "func.constant"));
    p.print_op_attrs(op);
    p.out.push(' ');
    p.print_attr(value.value);
    p.out.push_str(" : ");
    p.print_type(m.value_type(result));
    true
}

/// `func.call_indirect %f(%a, ...) : (T, ...) -> R`; `false` when the op does not fit that
/// syntax (its callee's type does not give its operands' and results' types).
fn print_call_indirect(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let Some((&callee, args)) = m.operands(op).split_first() else {
        return false;
    };
    let fty = m.value_type(callee);
    let TypeData::Function { inputs, results } = m.type_data(fty) else {
        return false;
    };
    let fits = m.properties(op).is_empty()
        && values_typed(m, args, inputs)
        && m.results(op)
            .map(|v| m.value_type(v))
            .eq(results.iter().copied());
    if !fits {
        return false;
    }
    p.out.push_str(func_op_name(p, "func.call_indirect"));
    p.out.push(' ');
    p.print_value_list(&[callee]);
    p.wrap("(", ")", |q| q.print_value_list(args));
    p.print_op_attrs(op);
    p.out.push_str(" : ");
    p.print_type(fty);
    true
}

/// Whether `values` have the types `types`, one each: the pretty function forms spell each
/// argument once, with the signature's type.
fn values_typed(m: &Module, values: &[Value], types: &[Type]) -> bool {
    values.len() == types.len()
        && values
            .iter()
            .zip(types)
            .all(|(&v, &t)| m.value_type(v) == t)
}

/// The custom forms the printer prints ops in: see [`CustomForms`].
pub(crate) static FORMS: CustomForms = CustomForms {
    print: print_custom,
    result_names: super::shlo_pretty::result_name_hint,
    block_arg_names: super::shlo_pretty::block_arg_name_hint,
};

/// The dialects whose custom syntax this parser knows, besides the codec dialects of
/// spec/dialects/. An op of any other dialect in custom syntax is refused as being of an
/// unknown dialect: its syntax cannot be guessed (MLIR refuses it the same way when the dialect
/// is not registered). The interpreter's test ops (`check.`, `interpreter.`) are read where
/// unregistered dialects are allowed ([`Parser::parse_lenient_custom`]).
const KNOWN_DIALECTS: &[&str] = &["builtin", "func", "stablehlo", "vhlo"];

/// The error for an op in custom syntax that no parser here reads.
fn unsupported_custom_syntax(name: &str) -> String {
    let dialect = name.split_once('.').map_or(name, |d| d.0);
    if crate::text::dialects::classify(name).unknown {
        format!("custom op '{name}' is unknown: dialect '{dialect}' has no such op")
    } else if KNOWN_DIALECTS.contains(&dialect) || crate::vhlo::codec_dialect(dialect).is_some() {
        format!("custom syntax of operation '{name}' is not supported; write it in generic form")
    } else if crate::dialect::LIBSTABLEHLO_DIALECTS.contains(&dialect) {
        format!(
            "operation '{name}' is of dialect '{dialect}', whose custom syntax is not read here; write it in generic form (\"{name}\"(...) : (...) -> ...)"
        )
    } else {
        format!(
            "operation '{name}' is of dialect '{dialect}', which jaxlib's MLIR context does not register: its custom syntax cannot be read"
        )
    }
}

#[cfg(test)]
mod tests {
    /// The function forms print as they parse: `vhlo.func_v1` (name and signature from its
    /// `#vhlo.string_v1`/`#vhlo.type_v1` properties), `func.func` and `func.return`.
    #[test]
    fn function_forms_print_as_written() {
        for src in [
            "module {\n  vhlo.func_v1 @main(%arg0: !vhlo.f32_v1) -> (!vhlo.f32_v1) {\n    \"vhlo.return_v1\"(%arg0) : (!vhlo.f32_v1) -> ()\n  } {sym_visibility = #vhlo.string_v1<\"public\">}\n}\n",
            "module {\n  func.func private @f(%arg0: tensor<f32>) -> tensor<f32> {\n    return %arg0 : tensor<f32>\n  }\n}\n",
        ] {
            let m = super::super::parse(src).unwrap_or_else(|e| panic!("{src}: {e}"));
            assert_eq!(super::super::print(&m, Default::default()), src);
        }
    }

    /// The interpreter's test ops are of dialects jaxlib does not register: refused in custom
    /// syntax as in generic form, and read in both where unregistered dialects are allowed
    /// (found by the text_round_trip fuzzer: the custom form was read, its generic print not).
    #[test]
    fn test_dialect_ops_need_unregistered_dialects() {
        let src = "func.func @f() {\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n  check.expect_eq_const %0, dense<1> : tensor<i32>\n  func.return\n}\n";
        let e = super::super::parse(src).expect_err("check is not registered");
        assert!(
            e.message
                .contains("which jaxlib's MLIR context does not register"),
            "{e}"
        );
        let allowing = super::super::ParseOptions {
            allow_unregistered_dialects: true,
            ..Default::default()
        };
        let m = super::super::parse_with(src, &allowing).expect("read where allowed");
        let generic = super::super::print_generic(&m);
        assert!(
            generic.contains("\"check.expect_eq_const\"(%0)"),
            "{generic}"
        );
        assert!(super::super::parse(&generic).is_err());
        let again = super::super::parse_with(&generic, &allowing).expect("generic form reads");
        assert_eq!(super::super::print_generic(&again), generic);
    }
}
