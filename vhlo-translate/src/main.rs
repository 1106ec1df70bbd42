//! vhlo-translate: serialize and deserialize StableHLO portable artifacts.

fn main() {
    eprintln!("vhlo-translate: serialization is not implemented yet (see the open issues)");
    std::process::exit(1);
}
