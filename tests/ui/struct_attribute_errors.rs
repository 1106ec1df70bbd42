// StableHLO struct attributes (`stablehlo_structs`): a split naming no op attribute, a name and a
// field defined twice, a class that is no type name, an unknown field kind, both `fields` and
// `split`, and neither.
vhlo_macros::vhlo_dialect!("tests/ui/specs/struct_attribute_errors");

fn main() {}
