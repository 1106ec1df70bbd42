// Formats of VHLO types and attributes: an optional parameter spelled plainly, a directive given
// parameters of the wrong kinds, and an attribute with parameters and no format.
vhlo_macros::vhlo_dialect!("tests/ui/specs/param_format_errors");

fn main() {}
