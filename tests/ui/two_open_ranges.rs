// Two versions of one op both reach current.
vhlo_macros::vhlo_dialect!("tests/ui/specs/two_open_ranges");

fn main() {}
