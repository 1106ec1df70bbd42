// v2 adds an attribute but says nothing about how to convert.
vhlo_macros::vhlo_dialect!("tests/ui/specs/missing_change_rule");

fn main() {}
