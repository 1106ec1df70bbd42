//! Reading, converting, printing and writing run on the caller's thread (the library
//! must work where threads cannot be started, wasm32 or embedders that forbid them). A test
//! without libtest's harness, so `main` is the only thread; an allocator counts allocations made
//! on any thread not marked as the worker, which is where a spawned thread's work would show.
//! Then the same at the nesting limit on a thread with a small stack: the recursion is bounded.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use vhlo_core::text::{self, PrintOptions};
use vhlo_tests::portable::{self, SerializeOptions};

struct Counting;

/// Allocations on threads other than the marked worker since the last reset.
static ELSEWHERE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static WORKER: Cell<bool> = const { Cell::new(false) };
}

fn on_worker() -> bool {
    WORKER.try_with(Cell::get).unwrap_or(false)
}

// SAFETY: forwards to the system allocator; the bookkeeping neither allocates nor unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !on_worker() {
            ELSEWHERE.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !on_worker() {
            ELSEWHERE.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f` as the worker on this thread and fails if anything allocated on another thread.
fn on_this_thread_only<T>(what: &str, f: impl FnOnce() -> T) -> T {
    WORKER.with(|w| w.set(true));
    ELSEWHERE.store(0, Ordering::Relaxed);
    let out = f();
    let elsewhere = ELSEWHERE.load(Ordering::Relaxed);
    assert_eq!(
        elsewhere, 0,
        "{what}: {elsewhere} allocations on another thread (the library started one)"
    );
    out
}

/// The whole CLI round trip minus the text parser (which keeps a thread where it can start
/// one): read, upgrade, legalize, print; convert back, downgrade, write.
fn round_trip(name: &str, artifact: &[u8]) {
    let m = portable::deserialize_portable_artifact(artifact)
        .unwrap_or_else(|e| panic!("{name}: read: {e}"));
    let printed = text::print(&m, PrintOptions::default());
    assert!(printed.contains("func.func"), "{name}: printed");
    // Written to a sink, with no helper lent: the printing takes every chunk itself.
    let mut written = Vec::new();
    text::PrintJob::new(&m, PrintOptions::default())
        .print_to(&mut written)
        .unwrap_or_else(|e| panic!("{name}: print to a sink: {e}"));
    assert!(written == printed.as_bytes(), "{name}: printed to a sink");
    let target = vhlo_core::bytecode::read_producer(artifact)
        .ok()
        .and_then(|(_, p)| p.strip_prefix("StableHLO_v").map(str::to_string))
        .unwrap_or_else(|| "current".into());
    portable::serialize_portable_module(m, &target, SerializeOptions::default())
        .unwrap_or_else(|e| panic!("{name}: write at {target}: {e}"));
}

/// `levels` nested `stablehlo.case` ops, each region holding the next.
fn nested_cases(levels: usize) -> String {
    let mut body = String::from("\"stablehlo.return\"(%a) : (tensor<f32>) -> ()");
    for _ in 0..levels {
        body = format!("%r = \"stablehlo.case\"(%i) ({{\n{body}\n}}) : (tensor<i32>) -> tensor<f32>\n\"stablehlo.return\"(%r) : (tensor<f32>) -> ()");
    }
    let body = body
        .strip_suffix("\"stablehlo.return\"(%r) : (tensor<f32>) -> ()")
        .expect("the outer return");
    format!("func.func @main(%i: tensor<i32>, %a: tensor<f32>) -> tensor<f32> {{\n{body}return %r : tensor<f32>\n}}\n")
}

/// `!t{i} = tuple<!t{i-1}>`: a type `levels + 1` deep from flat text.
fn alias_chain(levels: usize) -> String {
    let mut s = String::from("!t0 = tuple<f32>\n");
    for i in 1..levels {
        s.push_str(&format!("!t{i} = tuple<!t{}>\n", i - 1));
    }
    let t = format!("!t{}", levels - 1);
    s.push_str(&format!(
        "func.func @main(%a: {t}) -> {t} {{\n  return %a : {t}\n}}\n"
    ));
    s
}

/// Stack for the runs at the nesting limit: what the tests' debug build needs (about 1.7 KiB
/// per region level when reading; docs/bytecode.md, "Limits"), with room to spare.
/// `VHLO_NO_THREAD_STACK_KIB` sets another size, to measure.
fn small_stack() -> usize {
    std::env::var("VHLO_NO_THREAD_STACK_KIB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(4 << 20, |kib| kib << 10)
}

fn main() {
    WORKER.with(|w| w.set(true));
    let mut checked = 0;
    if let Some(dir) = vhlo_tests::compat_suite() {
        // The suite's programs (its other artifact, invalid_vhlo_future, is refused on purpose).
        let programs = vhlo_tests::suite_artifacts(&dir).into_iter().filter(|p| {
            p.file_name().is_some_and(|n| {
                n.to_string_lossy()
                    .starts_with("stablehlo_legalize_to_vhlo")
            })
        });
        for path in programs {
            let bytes = std::fs::read(&path).expect("read artifact");
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            on_this_thread_only(&name, || round_trip(&name, &bytes));
            checked += 1;
        }
    }
    // At the nesting limit, in regions and in types: artifacts made up front (the parser may use
    // its thread), then read, printed and written again on a small stack, on one thread.
    let limit = vhlo_core::ir::MAX_NESTING;
    let programs = [
        ("regions at the limit", nested_cases(limit - 2)),
        ("types at the limit", alias_chain(limit - 3)),
    ];
    for (what, src) in programs {
        let m = text::parse(&src).unwrap_or_else(|e| panic!("{what}: {e}"));
        let artifact =
            portable::serialize_portable_module(m, "current", SerializeOptions::default())
                .unwrap_or_else(|e| panic!("{what}: {e}"));
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(small_stack())
                .spawn_scoped(s, || {
                    on_this_thread_only(what, || round_trip(what, &artifact))
                })
                .expect("a test thread")
                .join()
                .expect("no panic and no overflow");
        });
        checked += 1;
    }
    println!("no_thread: {checked} programs read, printed and written on one thread");
}
