// Assembly formats (spec `format:`) with a typo'd attribute name and an unknown custom directive,
// a dialect (spec dialects/) with a list attribute format of another shape, an op binding an
// attribute where a region goes and a trait unknown,
// and a `block_arg_name:` on an op without regions.
vhlo_macros::vhlo_dialect!("tests/ui/specs/format_errors");

fn main() {}
