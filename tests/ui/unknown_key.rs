// A misspelt key is an error, not silently ignored.
vhlo_macros::vhlo_dialect!("tests/ui/specs/unknown_key");

fn main() {}
