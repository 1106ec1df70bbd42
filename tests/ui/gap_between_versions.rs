// v1 ends at 1.0.0 but v2 starts at 1.2.0: 1.1.0 has no scale.
vhlo_macros::vhlo_dialect!("tests/ui/specs/gap_between_versions");

fn main() {}
