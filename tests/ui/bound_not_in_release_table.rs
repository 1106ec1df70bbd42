// An op version starts at a version that is not a release.
vhlo_macros::vhlo_dialect!("tests/ui/specs/bound_not_in_release_table");

fn main() {}
