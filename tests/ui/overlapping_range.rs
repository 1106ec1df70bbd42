// A new version that starts where the previous one starts.
vhlo_macros::vhlo_dialect!("tests/ui/specs/overlapping_range");

fn main() {}
