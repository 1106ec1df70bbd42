// Bytecode wire hints are checked: an unknown one, one that does not apply to its kind, and a
// parameter whose kind needs one, each at its position. The three definitions are released, so each
// edit of their hints is also a lock violation.
vhlo_macros::vhlo_dialect!("tests/ui/specs/wire_hint_errors");

fn main() {}
