// Broken YAML: an unclosed flow sequence.
vhlo_macros::vhlo_dialect!("tests/ui/specs/yaml_syntax_error");

fn main() {}
