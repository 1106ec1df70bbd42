// A version must be X.Y.Z.
vhlo_macros::vhlo_dialect!("tests/ui/specs/malformed_version");

fn main() {}
