// Assembly formats (spec `format:`) with a typo'd attribute name and an unknown custom directive.
vhlo_macros::vhlo_dialect!("tests/ui/specs/format_errors");

fn main() {}
