// Two files define the op `scale`, so `scale_v1` twice.
vhlo_macros::vhlo_dialect!("tests/ui/specs/duplicate_mnemonic");

fn main() {}
