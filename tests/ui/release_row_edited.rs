// A released row of the release table was edited (its bytecode version): the lock catches it.
vhlo_macros::vhlo_dialect!("tests/ui/specs/release_row_edited");

fn main() {}
