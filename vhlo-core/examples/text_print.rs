//! Parses an MLIR file and prints it: `cargo run --example text_print -- FILE [generic]`.
fn main() {
    let src = std::fs::read_to_string(std::env::args().nth(1).unwrap()).unwrap();
    match vhlo_core::text::parse(&src) {
        Ok(m) => print!(
            "{}",
            vhlo_core::text::print(
                &m,
                vhlo_core::text::PrintOptions {
                    generic: std::env::args().nth(2).is_some(),
                    debug_info: false,
                    ..Default::default()
                }
            )
        ),
        Err(e) => println!("error: {e}"),
    }
}
