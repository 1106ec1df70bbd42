// Several unrelated errors are all reported in one compile.
vhlo_macros::vhlo_dialect!("tests/ui/specs/all_errors_at_once");

fn main() {}
