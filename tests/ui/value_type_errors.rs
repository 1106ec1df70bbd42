// Operand and result ODS types: an unknown named type, and a variadic type for a field that is
// not variadic.
vhlo_macros::vhlo_dialect!("tests/ui/specs/value_type_errors");

fn main() {}
