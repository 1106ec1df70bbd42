// A released op version was edited instead of adding a version (the lock catches it).
vhlo_macros::vhlo_dialect!("tests/ui/specs/released_definition_edited");

fn main() {}
