//! One way to read and set an op's attributes, whether the op keeps them as properties
//! (inherent attributes, `<{...}>` in generic form) or as discardable attributes (`{...}`), as
//! MLIR's `op.attributes[...]` does. Which names are inherent comes from the spec: the op's
//! declared attributes (`spec/ops/*.yaml`, `spec/dialects/*.yaml`).

use super::{codec_dialect, StablehloOp, VhloOp};
use crate::ir::{Attribute, Module, NamedAttr, OpId};

/// The inherent attribute names of the op called `name` (`stablehlo.dot_general`,
/// `func.func`, `vhlo.add_v1`, `sdy.mesh`, …), or `None` for an op this crate does not model.
pub fn inherent_attribute_names(name: &str) -> Option<&'static [&'static str]> {
    if name == "builtin.module" {
        return Some(&["sym_name", "sym_visibility"]);
    }
    if let Some(names) = other_func_op_attribute_names(name) {
        return Some(names);
    }
    if let Some(k) = StablehloOp::from_name(name) {
        return Some(k.attribute_names());
    }
    let (dialect, short) = name.split_once('.')?;
    match dialect {
        "vhlo" => VhloOp::from_mnemonic(short).map(VhloOp::sorted_attribute_names),
        d => codec_dialect(d)
            .and_then(|d| d.op(short))
            .map(|o| o.attribute_names),
    }
}

/// The inherent attributes of the `func` ops that StableHLO's spec does not model
/// (FuncOps.td).
pub(crate) fn other_func_op_attribute_names(name: &str) -> Option<&'static [&'static str]> {
    match name {
        "func.constant" => Some(&["value"]),
        "func.call_indirect" => Some(&["arg_attrs", "res_attrs"]),
        _ => None,
    }
}

impl Module {
    /// The attribute `name` of `op`: its property of that name, else its discardable attribute.
    pub fn get_attr(&self, op: OpId, name: &str) -> Option<Attribute> {
        self.property(op, name).or_else(|| self.attribute(op, name))
    }

    /// Sets the attribute `name` of `op`: as a property when the op declares it (or already
    /// has it as one), else as a discardable attribute.
    pub fn set_attr(&mut self, op: OpId, name: &str, value: Attribute) {
        let inherent = self.property(op, name).is_some()
            || inherent_attribute_names(self.op_name_str(op)).is_some_and(|n| n.contains(&name));
        let sym = self.sym(name);
        if inherent {
            self.set_property(op, sym, value);
            return;
        }
        let mut attrs = self.attributes(op).to_vec();
        match attrs.iter_mut().find(|a| a.name == sym) {
            Some(a) => a.value = value,
            None => attrs.push(NamedAttr { name: sym, value }),
        }
        self.set_attributes(op, &attrs);
    }

    /// Removes the attribute `name` of `op` (property or discardable), returning its value.
    pub fn remove_attr(&mut self, op: OpId, name: &str) -> Option<Attribute> {
        let sym = self.lookup_sym(name)?;
        if let Some(v) = self.remove_property(op, sym) {
            return Some(v);
        }
        let mut attrs = self.attributes(op).to_vec();
        let pos = attrs.iter().position(|a| a.name == sym)?;
        let removed = attrs.remove(pos);
        self.set_attributes(op, &attrs);
        Some(removed.value)
    }
}
