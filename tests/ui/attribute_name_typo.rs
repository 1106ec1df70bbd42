// A typo in a new version's attribute list (`saturte`) is named at the list, with the name it
// likely meant, beside what the change rules cannot explain.
vhlo_macros::vhlo_dialect!("tests/ui/specs/attribute_name_typo");

fn main() {}
