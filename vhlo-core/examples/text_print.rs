//! Parses an MLIR file and prints it:
//! `cargo run --example text_print -- FILE [generic] [debug] [local-scope] [elide] [srcloc]`.
fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: text_print FILE [generic] [debug] [local-scope] [elide] [srcloc]");
        std::process::exit(2);
    };
    let flags: Vec<String> = args.collect();
    let has = |f: &str| flags.iter().any(|a| a == f);
    let src = match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let parsed = if has("srcloc") {
        vhlo_core::text::parse_with_source_locations(&src, "-")
    } else {
        vhlo_core::text::parse(&src)
    };
    match parsed {
        Ok(m) => print!(
            "{}",
            vhlo_core::text::print(
                &m,
                vhlo_core::text::PrintOptions {
                    generic: has("generic"),
                    debug_info: has("debug"),
                    location_aliases: !has("local-scope"),
                    local_scope: has("local-scope"),
                    elide_defaults: has("elide"),
                }
            )
        ),
        Err(e) => println!("error: {e}"),
    }
}
