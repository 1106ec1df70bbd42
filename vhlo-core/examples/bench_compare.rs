//! The Rust side of `scripts/bench/compare.py`:
//!   bench_compare gen OPS OUT.mlir          writes the generated benchmark program
//!   bench_compare time IN.mlir REPS OUTDIR  times each step in process, prints JSON (seconds,
//!                                           fastest of REPS), and writes OUTDIR/ours-<target>.mlir.bc
//!   bench_compare repeat STEP IN N          runs one step N times (for `perf record`); STEP is
//!                                           parse, print, serialize, deserialize or
//!                                           deserialize_unverified (IN: .mlir or .mlir.bc)
//! Only the measured call is inside the timer (no process start, no file I/O), as on the jaxlib side.

#[path = "../benches/support/program.rs"]
mod program;

use std::time::{Duration, Instant};

use vhlo_core::portable::{self, SerializeOptions};
use vhlo_core::text::{self, PrintOptions};

fn fastest<T>(reps: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed());
        last = Some(v);
    }
    (best, last.expect("at least one repetition"))
}

fn fail(msg: String) -> ! {
    eprintln!("bench_compare: {msg}");
    std::process::exit(1)
}

trait WalkCount {
    fn walk_count(&self) -> usize;
}

impl WalkCount for vhlo_core::ir::Module {
    fn walk_count(&self) -> usize {
        let mut n = 0usize;
        self.walk(|_| n += 1);
        n
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["gen", ops, out] => {
            let ops: usize = ops
                .parse()
                .unwrap_or_else(|_| fail(format!("bad op count {ops:?}")));
            std::fs::write(out, program::generate(ops))
                .unwrap_or_else(|e| fail(format!("{out}: {e}")));
        }
        ["time", input, reps, outdir] => {
            let reps: usize = reps
                .parse()
                .unwrap_or_else(|_| fail(format!("bad repetition count {reps:?}")));
            let src =
                std::fs::read_to_string(input).unwrap_or_else(|e| fail(format!("{input}: {e}")));
            let parse = || text::parse(&src).unwrap_or_else(|e| fail(format!("{input}: {e}")));
            let mut results: Vec<(String, f64)> = Vec::new();
            let (t, _) = fastest(reps, || {
                text::print(&parse(), PrintOptions::default()).len()
            });
            results.push(("parse_print_pretty".into(), t.as_secs_f64()));
            let (t, _) = fastest(reps, || text::print_generic(&parse()).len());
            results.push(("parse_print_generic".into(), t.as_secs_f64()));
            let (t, module) = fastest(reps, parse);
            results.push(("parse".into(), t.as_secs_f64()));
            let ops = {
                let mut n = 0usize;
                module.walk(|_| n += 1);
                n
            };
            for target in ["1.0.0", "current"] {
                let (t, bytes) = fastest(reps, || {
                    portable::serialize_portable_artifact(
                        &module,
                        target,
                        SerializeOptions::default(),
                    )
                    .unwrap_or_else(|e| fail(format!("serialize at {target}: {e}")))
                });
                results.push((format!("serialize_{target}"), t.as_secs_f64()));
                let path = format!("{outdir}/ours-{target}.mlir.bc");
                std::fs::write(&path, &bytes).unwrap_or_else(|e| fail(format!("{path}: {e}")));
            }
            let artifact = std::fs::read(format!("{outdir}/ours-1.0.0.mlir.bc"))
                .unwrap_or_else(|e| fail(e.to_string()));
            let (t, _) = fastest(reps, || {
                portable::deserialize_portable_artifact(&artifact)
                    .unwrap_or_else(|e| fail(format!("deserialize: {e}")))
            });
            results.push(("deserialize_1.0.0".into(), t.as_secs_f64()));
            let fields: Vec<String> = results
                .iter()
                .map(|(k, v)| format!("\"{k}\": {v:.6}"))
                .collect();
            println!("{{\"ops\": {ops}, {}}}", fields.join(", "));
        }
        ["repeat", step, input, n] => {
            let n: usize = n
                .parse()
                .unwrap_or_else(|_| fail(format!("bad repetition count {n:?}")));
            let bytes = std::fs::read(input).unwrap_or_else(|e| fail(format!("{input}: {e}")));
            let text_module = || {
                let src =
                    std::str::from_utf8(&bytes).unwrap_or_else(|e| fail(format!("{input}: {e}")));
                text::parse(src).unwrap_or_else(|e| fail(format!("{input}: {e}")))
            };
            let mut sink = 0usize;
            match *step {
                "parse" => (0..n).for_each(|_| sink += text_module().walk_count()),
                "print" => {
                    let m = text_module();
                    (0..n).for_each(|_| sink += text::print(&m, PrintOptions::default()).len())
                }
                "serialize" => {
                    let m = text_module();
                    (0..n).for_each(|_| {
                        sink += portable::serialize_portable_artifact(
                            &m,
                            "1.0.0",
                            SerializeOptions::default(),
                        )
                        .unwrap_or_else(|e| fail(format!("serialize: {e}")))
                        .len()
                    })
                }
                "deserialize" => (0..n).for_each(|_| {
                    sink += portable::deserialize_portable_artifact(&bytes)
                        .unwrap_or_else(|e| fail(format!("deserialize: {e}")))
                        .walk_count()
                }),
                "deserialize_unverified" => {
                    let options = portable::DeserializeOptions {
                        skip_verification: true,
                        ..Default::default()
                    };
                    (0..n).for_each(|_| {
                        sink += portable::deserialize_portable_artifact_with(&bytes, options)
                            .unwrap_or_else(|e| fail(format!("deserialize: {e}")))
                            .walk_count()
                    })
                }
                _ => fail(format!("unknown step {step:?}")),
            }
            println!("{sink}");
        }
        _ => fail("usage: bench_compare gen OPS OUT | time IN REPS OUTDIR".into()),
    }
}
