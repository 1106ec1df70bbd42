// A released type's bytecode form was edited (a `wire:` hint added): the lock covers wire hints,
// so this is an edit of a released definition like any other.
vhlo_macros::vhlo_dialect!("tests/ui/specs/released_wire_hint_edited");

fn main() {}
