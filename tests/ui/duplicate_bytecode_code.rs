// Two types share bytecode code 4.
vhlo_macros::vhlo_dialect!("tests/ui/specs/duplicate_bytecode_code");

fn main() {}
