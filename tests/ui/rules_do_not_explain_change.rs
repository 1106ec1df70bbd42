// The rule adds one attribute but v2 also drops `factor`.
vhlo_macros::vhlo_dialect!("tests/ui/specs/rules_do_not_explain_change");

fn main() {}
