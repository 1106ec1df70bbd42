//! The ops of the codec dialects (Shardy's `sdy`, CHLO's `chlo`: `spec/dialects/*.yaml`) in
//! custom form: each runs its assembly format (`ops[].format`, upstream's ODS) on the format
//! engine (text/op_format.rs), with the attribute spellings and directives of text/sdy.rs; the
//! ops upstream parses and prints by hand are written here.

use super::op_format::FormatOp;
use super::parser::{PResult, Parser};
use super::printer::Printer;
use crate::ir::OpId;

/// The codec dialect ops without an assembly format the engine runs, written here: upstream's
/// `hasCustomAssemblyFormat` (chlo's scan), and the scf, shape and cf ops upstream parses and
/// prints by hand (text/codec_ops.rs; shape.func's syntax is func.func's, text/custom_forms.rs).
/// The other ops without a format have no custom syntax upstream.
#[cfg_attr(not(test), allow(dead_code))] // the list is the test's; dispatch goes by the spec
pub(crate) const HAND_WRITTEN: &[(&str, &str)] = &[
    ("chlo", "scan"),
    ("arith", "select"),
    ("scf", "for"),
    ("scf", "while"),
    ("scf", "index_switch"),
    ("scf", "parallel"),
    ("scf", "forall"),
    ("shape", "func"),
    ("shape", "function_library"),
    ("cf", "switch"),
];

pub(crate) use super::dialects::codec_op;

/// Prints a codec dialect op in its custom form; `false` when it does not fit (printed
/// generically then).
pub(crate) fn print_codec_op(p: &mut Printer<'_>, op: OpId) -> bool {
    let m = p.m;
    let name = m.op_name_str(op);
    let Some((cd, spec)) = codec_op(name) else {
        return false;
    };
    // Its case destinations are variadic.
    if name == "cf.switch" {
        return super::codec_ops::print_cf_switch(p, op);
    }
    if m.successors(op).len() != spec.successors.len() {
        return false;
    }
    if let Some(f) = spec.format {
        return super::op_format::print(p, op, FormatOp::Dialect(cd, spec), f);
    }
    if spec.name == "scan" {
        return super::codec_ops::print_scan(p, op);
    }
    if name == "arith.select" {
        return super::codec_ops::print_arith_select(p, op);
    }
    if name == "scf.for" {
        return super::codec_ops::print_scf_for(p, op);
    }
    if name == "scf.while" {
        return super::codec_ops::print_scf_while(p, op);
    }
    if name == "scf.index_switch" {
        return super::codec_ops::print_scf_index_switch(p, op);
    }
    if name == "scf.parallel" {
        return super::codec_ops::print_scf_parallel(p, op);
    }
    if name == "scf.forall" {
        return super::codec_ops::print_scf_forall(p, op);
    }
    if name == "shape.function_library" {
        return super::codec_ops::print_function_library(p, op);
    }
    false
}

impl<'a> Parser<'a> {
    /// A codec dialect op in custom form, after its name; `None` for ops without custom syntax.
    pub(crate) fn parse_codec_op(&mut self, name: &str) -> PResult<Option<OpId>> {
        let Some((cd, spec)) = codec_op(name) else {
            return Ok(None);
        };
        if let Some(f) = spec.format {
            return self
                .parse_by_format(name, FormatOp::Dialect(cd, spec), f)
                .map(Some);
        }
        if spec.name == "scan" {
            return self.parse_scan(name).map(Some);
        }
        if name == "arith.select" {
            return self.parse_arith_select(name).map(Some);
        }
        if name == "scf.for" {
            return self.parse_scf_for().map(Some);
        }
        if name == "scf.while" {
            return self.parse_scf_while().map(Some);
        }
        if name == "scf.index_switch" {
            return self.parse_scf_index_switch().map(Some);
        }
        if name == "scf.parallel" {
            return self.parse_scf_parallel().map(Some);
        }
        if name == "scf.forall" {
            return self.parse_scf_forall().map(Some);
        }
        if name == "shape.function_library" {
            return self.parse_function_library().map(Some);
        }
        if name == "cf.switch" {
            return self.parse_cf_switch().map(Some);
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::HAND_WRITTEN;

    /// The constants' format (`attr-dict $value`, the result type the value's): any elements
    /// value prints in it, a resource's too; a value of another kind is refused where it is
    /// parsed, as ODS's parsers refuse it.
    #[test]
    fn constants_print_by_their_format() {
        let src = "func.func @f() -> tensor<2xf32> {
  %0 = \"chlo.constant\"() <{value = dense_resource<k> : tensor<2xf32>}> {a} : () -> tensor<2xf32>
  %1 = \"sdy.constant\"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      k: \"0x040000000000803F00000040\"
    }
  }
#-}
";
        let m = crate::text::parse(src).expect("parsed");
        let out = crate::text::print(&m, Default::default());
        assert!(
            out.contains("%0 = chlo.constant {a} dense_resource<k> : tensor<2xf32>\n"),
            "{out}"
        );
        assert!(
            out.contains("%1 = sdy.constant dense<1.000000e+00> : tensor<2xf32>\n"),
            "{out}"
        );
        let e = crate::text::parse(
            "func.func @f() -> f32 {\n  %0 = sdy.constant 1.0 : f32\n  return %0 : f32\n}\n",
        )
        .expect_err("not an elements value");
        assert!(
            e.to_string()
                .contains("2:21: invalid kind of attribute specified"),
            "{e}"
        );
    }

    /// No op of the spec has both a format and hand-written syntax; every sdy op has one of
    /// them (chlo's constant_like and ragged_dot have no custom syntax upstream).
    #[test]
    fn every_op_has_one_syntax() {
        for cd in crate::vhlo::CODEC_DIALECTS {
            for o in cd.ops {
                let by_hand = HAND_WRITTEN.contains(&(cd.name, o.name));
                assert!(!(o.format.is_some() && by_hand), "{}.{}", cd.name, o.name);
                if cd.name == "sdy" {
                    assert!(o.format.is_some() || by_hand, "sdy.{}", o.name);
                }
            }
        }
        for (d, n) in HAND_WRITTEN {
            let cd = crate::vhlo::codec_dialect(d).expect("a codec dialect");
            assert!(cd.op(n).is_some(), "{d}.{n}");
        }
    }
}
