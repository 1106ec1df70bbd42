// Only the hooks that vhlo-core implements can be named.
vhlo_macros::vhlo_dialect!("tests/ui/specs/unknown_hook");

fn main() {}
