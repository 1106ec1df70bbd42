//! The invariants MLIR checks when it builds a type, so that a module holding a malformed type is
//! refused wherever the type is used: `quant.uniform` parameters (MLIR's
//! `UniformQuantizedType::verifyInvariants` and the per-axis one), and StableHLO's bounds
//! encoding (`hlo::verifyBounds`: one bound per dimension, and only on dynamic ones).
//! Each distinct type is checked once.

use super::{bail, ensure, fail, Failure};
use crate::ir::{AttrData, Module, OpId, Type, TypeData};
use crate::text::type_to_string;

/// The types checked so far, by interned id (a program has few distinct types; most ops
/// repeat one): 0 unknown, 1 good.
pub(crate) struct TypeMemo<'m> {
    m: &'m Module,
    good: Vec<bool>,
}

impl<'m> TypeMemo<'m> {
    pub fn new(m: &'m Module) -> Self {
        TypeMemo {
            m,
            good: vec![false; m.num_interned().0],
        }
    }

    /// Checks `t` and the types inside it, each distinct type once (a type DAG such as
    /// `tuple<!t, !t>` nested 200 deep is walked in linear time). Bounded by the nesting limit
    /// checked before verifying.
    fn check(&mut self, t: Type) -> Result<(), Failure> {
        if self.good.get(t.index()).copied().unwrap_or(false) {
            return Ok(());
        }
        let m = self.m;
        match m.type_data(t) {
            TypeData::RankedTensor {
                shape,
                element,
                encoding,
            } => {
                if let Some(e) = encoding {
                    if let Some(bounds) = super::types::bounds_of(m, *e) {
                        check_bounds(m, t, shape, bounds)?;
                    }
                }
                self.check(*element)?;
            }
            TypeData::UnrankedTensor { element } | TypeData::Complex(element) => {
                self.check(*element)?;
            }
            TypeData::Tuple(xs) => {
                for &x in xs.iter() {
                    self.check(x)?;
                }
            }
            TypeData::Function { inputs, results } => {
                for &x in inputs.iter().chain(results.iter()) {
                    self.check(x)?;
                }
            }
            TypeData::Dialect(d)
                if m.str(d.dialect) == "quant" && m.str(d.mnemonic) == "uniform" =>
            {
                super::quant::check(m, &d.params).map_err(|e| fail("quant.uniform", e))?;
            }
            TypeData::Dialect(d) if m.str(d.dialect) == "quant" => {
                super::quant::check_any_or_calibrated(m, &d.params)
                    .map_err(|e| fail("quant types", e))?;
            }
            _ => {}
        }
        if let Some(g) = self.good.get_mut(t.index()) {
            *g = true;
        }
        Ok(())
    }

    /// The types an op introduces: its results', its regions' block arguments', and a
    /// function's signature.
    pub fn check_op(&mut self, op: OpId, has_function_type: bool) -> Result<(), Failure> {
        let m = self.m;
        for v in m.results(op) {
            self.check(m.value_type(v))?;
        }
        for &r in m.regions(op) {
            for &b in m.blocks(r) {
                for &a in m.block_args(b) {
                    self.check(m.value_type(a))?;
                }
            }
        }
        if has_function_type {
            if let Some(AttrData::Type(t)) = m.property(op, "function_type").map(|a| m.attr_data(a))
            {
                self.check(*t)?;
            }
        }
        Ok(())
    }
}

/// `hlo::verifyBounds`, with upstream's messages.
fn check_bounds(m: &Module, t: Type, shape: &[i64], bounds: &[i64]) -> Result<(), Failure> {
    ensure!(
        bounds.len() == shape.len(),
        "bounds",
        "Bounds length is {}, expected to be equal to rank({}) of the tensor {}",
        bounds.len(),
        shape.len(),
        type_to_string(m, t)
    );
    for (dim, (&size, &bound)) in shape.iter().zip(bounds).enumerate() {
        if !super::types::is_dynamic(bound) && !super::types::is_dynamic(size) {
            bail!("bounds", "Static dimension {dim} cannot have a bound, use ShapedType::kDynamic to indicate a missing bound in tensor {}",
                    type_to_string(m, t));
        }
    }
    Ok(())
}
