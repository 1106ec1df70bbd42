//! The Shardy (`sdy`) ops in custom form: each runs its assembly format (`spec/dialects/sdy.yaml`
//! `ops[].format`, upstream's `ops.td`) on the format engine (text/op_format.rs), with the
//! attribute spellings and directives of text/sdy.rs; the ops upstream parses and prints by hand
//! are written here.

use super::op_format::{print_attrs_except, FormatOp};
use super::parser::{PResult, Parser};
use super::printer::Printer;
use super::sdy::sdy;
use crate::ir::{AttrData, OpId, OperationState};

/// The sdy ops without an assembly format (upstream's `hasCustomAssemblyFormat`), written here.
#[cfg_attr(not(test), allow(dead_code))] // the list is the test's; dispatch goes by the spec
pub(crate) const HAND_WRITTEN: &[&str] = &["constant"];

/// Prints an sdy op in its custom form; `false` when it does not fit (printed generically then).
pub(crate) fn print_sdy_op(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let Some(cd) = sdy() else { return false };
    let name = m.op_name_str(op);
    let Some(spec) = name.strip_prefix("sdy.").and_then(|s| cd.op(s)) else {
        return false;
    };
    if !m.successors(op).is_empty() {
        return false;
    }
    if let Some(f) = spec.format {
        return super::op_format::print(p, op, FormatOp::Dialect(spec), f);
    }
    // sdy.constant, as stablehlo.constant: `attr-dict $value`, the value's type the result's.
    let value = m.properties(op).iter().chain(m.attributes(op));
    let Some(value) = value
        .filter(|a| m.str(a.name) == "value")
        .map(|a| a.value)
        .next()
    else {
        return false;
    };
    let value_ty = match m.attr_data(value) {
        AttrData::DenseElements { ty, .. }
        | AttrData::DenseStrings { ty, .. }
        | AttrData::DenseResource { ty, .. } => *ty,
        _ => return false,
    };
    let Some(result) = m.result(op, 0) else {
        return false;
    };
    if name != "sdy.constant"
        || !m.operands(op).is_empty()
        || m.num_results(op) != 1
        || !m.regions(op).is_empty()
        || m.value_type(result) != value_ty
    {
        return false;
    }
    p.out.push_str("sdy.constant");
    print_attrs_except(p, op, |n| n == "value");
    p.out.push(' ');
    p.print_attr(value);
    true
}

impl<'a> Parser<'a> {
    /// An sdy op in custom form, after its name; `None` for ops without a custom parser here.
    pub(crate) fn parse_sdy_op(&mut self, name: &str) -> PResult<Option<OpId>> {
        let Some(cd) = sdy() else { return Ok(None) };
        let Some(spec) = name.strip_prefix("sdy.").and_then(|s| cd.op(s)) else {
            return Ok(None);
        };
        if let Some(f) = spec.format {
            return self
                .parse_by_format(name, FormatOp::Dialect(spec), f)
                .map(Some);
        }
        if spec.name != "constant" {
            return Ok(None);
        }
        let sym = self.m.sym(name);
        let mut st = OperationState::new(sym, self.m.unknown_loc());
        st.attributes = self.opt_attr_dict()?;
        let at = self.c.token_start();
        let value = self.parse_attribute()?;
        let ty = match self.m.attr_data(value) {
            AttrData::DenseElements { ty, .. }
            | AttrData::DenseStrings { ty, .. }
            | AttrData::DenseResource { ty, .. } => *ty,
            _ => {
                return Err(self
                    .c
                    .error_at(at, "expected a dense elements value in sdy.constant"))
            }
        };
        st.properties = vec![self.named("value", value)];
        st.result_types = vec![ty];
        self.finish_op(st, &[], &[]).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::{sdy, HAND_WRITTEN};

    /// Every sdy op of the spec has a format or is written by hand, not both.
    #[test]
    fn every_op_has_one_syntax() {
        let cd = sdy().expect("sdy tables");
        for o in cd.ops {
            assert!(
                o.format.is_some() != HAND_WRITTEN.contains(&o.name),
                "sdy.{}: format {}, hand-written {}",
                o.name,
                o.format.is_some(),
                HAND_WRITTEN.contains(&o.name)
            );
        }
        assert!(HAND_WRITTEN.iter().all(|n| cd.op(n).is_some()));
    }
}
