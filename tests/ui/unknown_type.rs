// A default value names a type that the spec does not define.
vhlo_macros::vhlo_dialect!("tests/ui/specs/unknown_type");

fn main() {}
