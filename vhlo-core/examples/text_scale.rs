//! Times parsing and printing of a generated N-op program: `cargo run --example text_scale -- 100000`.

use std::fmt::Write;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let mut src = String::from("func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n");
    let _ = writeln!(
        src,
        "  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>"
    );
    for i in 1..n {
        if i % 2 == 0 {
            let _ = writeln!(
                src,
                "  %{i} = stablehlo.add %{}, %arg0 : tensor<4xf32>",
                i - 1
            );
        } else {
            let _ = writeln!(
                src,
                "  %{i} = \"stablehlo.multiply\"(%{}, %0) {{attr = {i} : i64}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
                i - 1
            );
        }
    }
    let _ = writeln!(src, "  func.return %{} : tensor<4xf32>\n}}", n - 1);
    let t = Instant::now();
    let m = vhlo_core::text::parse(&src).expect("generated program parses");
    let parse = t.elapsed();
    let t = Instant::now();
    let out = vhlo_core::text::print_generic(&m);
    let print = t.elapsed();
    println!(
        "{n} ops, {} bytes: parse {:?}, print generic {:?} ({} bytes)",
        src.len(),
        parse,
        print,
        out.len()
    );
}
