// A YAML error in one file does not hide a lock violation in another: both in one build.
vhlo_macros::vhlo_dialect!("tests/ui/specs/yaml_error_and_lock_violation");

fn main() {}
