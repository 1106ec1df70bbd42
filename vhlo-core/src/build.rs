//! Builders for a StableHLO module, a function and its `func.return`, to use with the typed op
//! structs of [`crate::vhlo::stablehlo`]: `AddOp::append(&mut f, lhs, rhs)` infers the result
//! type, `AddOp { .. }.build(m, loc)` takes it. See the crate docs for an example.

use crate::ir::{
    AttrData, Block, Location, Module, NamedAttr, OpId, OperationState, Type, TypeData, Value,
};

/// A `builtin.module` being filled with functions.
pub struct ModuleBuilder {
    m: Module,
    body: Block,
}

impl Default for ModuleBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl ModuleBuilder {
    /// An empty module (`module { }`), located `unknown`.
    pub fn new() -> Self {
        let mut m = Module::new();
        let region = m.create_region();
        let body = m.append_block(region, &[]);
        let name = m.sym("builtin.module");
        let mut st = OperationState::new(name, m.unknown_loc());
        st.regions.push(region);
        let module = m.create_op(st);
        m.push_top(module);
        ModuleBuilder { m, body }
    }

    /// The module, to intern types and attributes or build ops.
    pub fn module(&mut self) -> &mut Module {
        &mut self.m
    }

    /// Starts `func.func @name(inputs) -> results`; its body is finished by
    /// [`FunctionBuilder::ret`].
    pub fn function(
        &mut self,
        name: &str,
        inputs: &[Type],
        results: &[Type],
    ) -> FunctionBuilder<'_> {
        let m = &mut self.m;
        let region = m.create_region();
        let block = m.append_block(region, inputs);
        let name_sym = m.sym(name);
        let sym_name = m.attr(AttrData::String {
            value: name_sym,
            ty: None,
        });
        let fty = m.ty(TypeData::Function {
            inputs: inputs.into(),
            results: results.into(),
        });
        let function_type = m.attr(AttrData::Type(fty));
        let func = m.sym("func.func");
        let mut st = OperationState::new(func, m.unknown_loc());
        // Sorted by name, as the parser keeps properties.
        st.properties = vec![
            NamedAttr {
                name: m.sym("function_type"),
                value: function_type,
            },
            NamedAttr {
                name: m.sym("sym_name"),
                value: sym_name,
            },
        ];
        st.regions.push(region);
        let op = m.create_op(st);
        m.append_op(self.body, op);
        FunctionBuilder { m, block, op }
    }

    /// The finished module.
    pub fn finish(self) -> Module {
        self.m
    }
}

/// The body of a `func.func` being built.
pub struct FunctionBuilder<'a> {
    m: &'a mut Module,
    block: Block,
    op: OpId,
}

impl FunctionBuilder<'_> {
    /// The module, to intern types or build ops.
    pub fn module(&mut self) -> &mut Module {
        self.m
    }

    /// The function's arguments.
    pub fn args(&self) -> Vec<Value> {
        self.m.block_args(self.block).to_vec()
    }

    /// Location `unknown`, for ops without one.
    pub fn unknown_loc(&self) -> Location {
        self.m.unknown_loc()
    }

    /// Appends a built op to the body and returns its results.
    pub fn append(&mut self, op: OpId) -> Vec<Value> {
        self.m.append_op(self.block, op);
        self.m.results(op).collect()
    }

    /// Appends the StableHLO op `name` with `operands` and `properties` (inherent attributes),
    /// its result types inferred by the verifier's shape functions
    /// ([`crate::verify::infer_result_types`]), and returns its results. Ops whose results the
    /// shape functions cannot give (a `reshape`, a `convert`, …) are refused: build those with
    /// their result types.
    pub fn op(
        &mut self,
        name: &str,
        operands: &[Value],
        properties: &[(&str, crate::ir::Attribute)],
    ) -> Result<Vec<Value>, crate::verify::Diagnostic> {
        let mut st = OperationState::new(self.m.sym(name), self.m.unknown_loc());
        st.operands = operands.to_vec();
        st.properties = properties
            .iter()
            .map(|&(n, value)| crate::ir::NamedAttr {
                name: self.m.sym(n),
                value,
            })
            .collect();
        self.op_inferred(st)
    }

    /// Appends the op `state` describes, with the result types its shape function infers
    /// (those in `state` are ignored), and returns its results.
    pub fn op_inferred(
        &mut self,
        mut state: OperationState,
    ) -> Result<Vec<Value>, crate::verify::Diagnostic> {
        // The shape functions read an op of the module: a probe without results, left
        // detached (and unreachable) once the real op is made.
        state.result_types.clear();
        let probe = self.m.create_op_from(&state);
        state.result_types = crate::verify::infer_result_types(self.m, probe)?;
        let op = self.m.create_op(state);
        Ok(self.append(op))
    }

    /// Ends the body with `func.return values` and returns the `func.func` op.
    pub fn ret(self, values: &[Value]) -> OpId {
        let name = self.m.sym("func.return");
        let mut st = OperationState::new(name, self.m.unknown_loc());
        st.operands = values.to_vec();
        let ret = self.m.create_op(st);
        self.m.append_op(self.block, ret);
        self.op
    }
}

impl crate::dialect::AppendInferred for FunctionBuilder<'_> {
    type Error = crate::verify::Diagnostic;

    fn append_inferred(
        &mut self,
        name: &'static str,
        operands: Vec<Value>,
        properties: &[(&str, crate::ir::Attribute)],
    ) -> Result<Vec<Value>, Self::Error> {
        let mut props = properties.to_vec();
        props.sort_by(|a, b| a.0.cmp(b.0));
        self.op(name, &operands, &props)
    }

    fn append_inferred_one(
        &mut self,
        name: &'static str,
        operands: Vec<Value>,
        properties: &[(&str, crate::ir::Attribute)],
    ) -> Result<Value, Self::Error> {
        let results = self.append_inferred(name, operands, properties)?;
        match results[..] {
            [one] => Ok(one),
            _ => Err(crate::verify::Diagnostic {
                op: name.to_string(),
                location: "unknown".into(),
                subject: format!("{} results inferred where one was expected", results.len()),
                needs: None,
                rule: "the op struct has one result".into(),
            }),
        }
    }
}
