// Broken edits in three files come in one build: a YAML error (scale.yaml) does not hide a lock
// violation (enums.yaml) or an ODS type typo (func.yaml), each at its position.
vhlo_macros::vhlo_dialect!("tests/ui/specs/broken_edits_in_one_build");

fn main() {}
