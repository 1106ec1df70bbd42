// A StableHLO attribute that may be absent without a `vhlo_default:` (the conversions could not
// complete the VHLO op), and a required one with one.
vhlo_macros::vhlo_dialect!("tests/ui/specs/missing_vhlo_default");

fn main() {}
