// A default value names an enum case that does not exist.
vhlo_macros::vhlo_dialect!("tests/ui/specs/unknown_enum_case");

fn main() {}
