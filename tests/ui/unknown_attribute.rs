// A default value names an attribute that the spec does not define.
vhlo_macros::vhlo_dialect!("tests/ui/specs/unknown_attribute");

fn main() {}
