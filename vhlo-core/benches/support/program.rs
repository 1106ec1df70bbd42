//! A deterministic, transformer-like StableHLO program of about N ops, in the pretty syntax
//! `stablehlo-opt` prints, for benchmarks. Shared by `benches/portable.rs` and
//! `examples/bench_compare.rs` (which writes it to a file for the jaxlib comparison).
//!
//! Each layer is attention (dot_general, reduce max/sum, broadcast, exp, divide), a residual add,
//! a bias constant, a ReLU (compare + select), a call of a private GELU-like function, and every
//! few layers a while loop; values stay small (8x64) so the text is dominated by ops, not data.

use std::fmt::Write;

const X: &str = "tensor<8x64xf32>";
const W: &str = "tensor<64x64xf32>";
const S: &str = "tensor<8x8xf32>";
/// Layers between two while loops.
const WHILE_EVERY: usize = 8;

struct Gen {
    out: String,
    next: usize,
    ops: usize,
}

impl Gen {
    fn value(&mut self) -> String {
        self.next += 1;
        format!("%{}", self.next - 1)
    }

    /// Emits `%N = <body>` and returns `%N`.
    fn op(&mut self, indent: &str, body: std::fmt::Arguments) -> String {
        let v = self.value();
        self.ops += 1;
        let _ = writeln!(self.out, "{indent}{v} = {body}");
        v
    }

    fn reduce(&mut self, input: &str, init: &str, body: &str) -> String {
        let r = self.op(
            "    ",
            format_args!(
                "stablehlo.reduce({input} init: {init}) applies stablehlo.{body} across dimensions = [1] : ({S}, tensor<f32>) -> tensor<8xf32>"
            ),
        );
        self.ops += 2; // the region's op and return
        r
    }

    fn layer(&mut self, l: usize, x: &str) -> String {
        let i = "    ";
        let q = self.op(i, format_args!("stablehlo.dot_general {x}, %arg1, contracting_dims = [1] x [0] : ({X}, {W}) -> {X}"));
        let k = self.op(i, format_args!("stablehlo.dot_general {x}, %arg2, contracting_dims = [1] x [0] : ({X}, {W}) -> {X}"));
        let v = self.op(i, format_args!("stablehlo.dot_general {x}, %arg3, contracting_dims = [1] x [0] : ({X}, {W}) -> {X}"));
        let s = self.op(
            i,
            format_args!(
                "stablehlo.dot_general {q}, {k}, contracting_dims = [1] x [1] : ({X}, {X}) -> {S}"
            ),
        );
        let scale = self.op(
            i,
            format_args!("stablehlo.constant dense<1.250000e-01> : {S}"),
        );
        let s = self.op(i, format_args!("stablehlo.multiply {s}, {scale} : {S}"));
        let m = self.reduce(&s, "%cst_ninf", "maximum");
        let mb = self.op(
            i,
            format_args!("stablehlo.broadcast_in_dim {m}, dims = [0] : (tensor<8xf32>) -> {S}"),
        );
        let d = self.op(i, format_args!("stablehlo.subtract {s}, {mb} : {S}"));
        let e = self.op(i, format_args!("stablehlo.exponential {d} : {S}"));
        let sum = self.reduce(&e, "%cst_zero", "add");
        let sb = self.op(
            i,
            format_args!("stablehlo.broadcast_in_dim {sum}, dims = [0] : (tensor<8xf32>) -> {S}"),
        );
        let p = self.op(i, format_args!("stablehlo.divide {e}, {sb} : {S}"));
        let o = self.op(
            i,
            format_args!(
                "stablehlo.dot_general {p}, {v}, contracting_dims = [1] x [0] : ({S}, {X}) -> {X}"
            ),
        );
        let o = self.op(i, format_args!("stablehlo.dot_general {o}, %arg4, contracting_dims = [1] x [0] : ({X}, {W}) -> {X}"));
        let r = self.op(i, format_args!("stablehlo.add {x}, {o} : {X}"));
        // A per-layer bias with distinct data, as a trained model has.
        let mut bias = String::new();
        for j in 0..64 {
            let sep = if j == 0 { "" } else { ", " };
            let _ = write!(
                bias,
                "{sep}{:.6e}",
                ((l * 64 + j) * 37 % 1001) as f32 / 1000.0 - 0.5
            );
        }
        let b = self.op(
            i,
            format_args!("stablehlo.constant dense<[{bias}]> : tensor<64xf32>"),
        );
        let bb = self.op(
            i,
            format_args!("stablehlo.broadcast_in_dim {b}, dims = [1] : (tensor<64xf32>) -> {X}"),
        );
        let r = self.op(i, format_args!("stablehlo.add {r}, {bb} : {X}"));
        let z = self.op(
            i,
            format_args!("stablehlo.broadcast_in_dim %cst_zero, dims = [] : (tensor<f32>) -> {X}"),
        );
        let gt = self.op(
            i,
            format_args!("stablehlo.compare  GT, {r}, {z},  FLOAT : ({X}, {X}) -> tensor<8x64xi1>"),
        );
        let relu = self.op(
            i,
            format_args!("stablehlo.select {gt}, {r}, {z} : tensor<8x64xi1>, {X}"),
        );
        let g = self.op(i, format_args!("func.call @gelu({relu}) : ({X}) -> {X}"));
        let t = self.op(
            i,
            format_args!("stablehlo.transpose {g}, dims = [1, 0] : ({X}) -> tensor<64x8xf32>"),
        );
        let t = self.op(
            i,
            format_args!("stablehlo.reshape {t} : (tensor<64x8xf32>) -> tensor<8x64xf32>"),
        );
        let y = self.op(i, format_args!("stablehlo.maximum {t}, {g} : {X}"));
        if l % WHILE_EVERY == WHILE_EVERY - 1 {
            self.while_loop(&y)
        } else {
            y
        }
    }

    /// `for i in 0..4: x = tanh(x) * x`, in the while syntax `stablehlo-opt` prints.
    fn while_loop(&mut self, x: &str) -> String {
        let i0 = self.op(
            "    ",
            format_args!("stablehlo.constant dense<0> : tensor<i64>"),
        );
        let res = self.value();
        self.ops += 1;
        let (it, acc) = (format!("%it{}", self.next), format!("%acc{}", self.next));
        let _ = writeln!(
            self.out,
            "    {res}:2 = stablehlo.while({it} = {i0}, {acc} = {x}) : tensor<i64>, {X}\n    cond {{"
        );
        let c = self.op("      ", format_args!("stablehlo.compare  LT, {it}, %cst_four,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>"));
        self.ops += 1;
        let _ = writeln!(
            self.out,
            "      stablehlo.return {c} : tensor<i1>\n    }} do {{"
        );
        let t = self.op("      ", format_args!("stablehlo.tanh {acc} : {X}"));
        let m = self.op(
            "      ",
            format_args!("stablehlo.multiply {t}, {acc} : {X}"),
        );
        let n = self.op(
            "      ",
            format_args!("stablehlo.add {it}, %cst_one : tensor<i64>"),
        );
        self.ops += 1;
        let _ = writeln!(
            self.out,
            "      stablehlo.return {n}, {m} : tensor<i64>, {X}\n    }}"
        );
        format!("{res}#1")
    }
}

/// A module of about `ops` operations (never fewer than one layer).
pub fn generate(ops: usize) -> String {
    let mut g = Gen {
        out: String::new(),
        next: 0,
        ops: 0,
    };
    g.out.push_str(
        "module @bench attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n",
    );
    g.out.push_str(&format!(
        "  func.func private @gelu(%arg0: {X}) -> {X} {{\n    %0 = stablehlo.constant dense<1.702000e+00> : {X}\n    %1 = stablehlo.multiply %arg0, %0 : {X}\n    %2 = stablehlo.logistic %1 : {X}\n    %3 = stablehlo.multiply %arg0, %2 : {X}\n    return %3 : {X}\n  }}\n"
    ));
    g.ops += 6;
    g.out.push_str(&format!(
        "  func.func public @main(%arg0: {X}, %arg1: {W}, %arg2: {W}, %arg3: {W}, %arg4: {W}) -> ({X}) {{\n"
    ));
    g.out
        .push_str("    %cst_zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n");
    g.out
        .push_str("    %cst_ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>\n");
    g.out
        .push_str("    %cst_one = stablehlo.constant dense<1> : tensor<i64>\n");
    g.out
        .push_str("    %cst_four = stablehlo.constant dense<4> : tensor<i64>\n");
    g.ops += 4 + 2; // the constants, the func op and the module
    let mut x = "%arg0".to_string();
    let mut l = 0;
    while l == 0 || g.ops < ops {
        x = g.layer(l, &x);
        l += 1;
    }
    g.ops += 1;
    let _ = writeln!(g.out, "    return {x} : {X}\n  }}\n}}");
    g.out
}
