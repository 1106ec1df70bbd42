//! MLIR textual IR: parsing ([`parse`]) and printing ([`print()`]).
//!
//! The parser reads the generic op form, the custom forms of `builtin.module` and `func.*`, and
//! StableHLO's pretty forms, with every builtin, StableHLO, VHLO and `quant` type and attribute
//! the compatibility suite uses. Attributes of unknown dialects are kept as text.
//!
//! Conventions: attributes written in `<{...}>` become properties, those in `{...}` become
//! discardable attributes, except that inherent attributes of StableHLO, VHLO, func and builtin
//! ops written in `{...}` move to the properties; both are sorted by name as MLIR's
//! dictionaries are. Dense i1 data takes one byte per element. See docs/text-format.md.

mod aliases;
mod codec_ops;
mod custom_forms;
mod dialects;
pub mod verify;
pub(crate) use dialects::{find_enum, find_struct};
mod float;
mod lexer;
mod op_format;
mod parse_types_attrs;
mod parser;
mod printer;
mod resources;
mod sdy;
mod sdy_ops;
mod shlo_pretty;
mod sparse;

pub use crate::ir::element_storage_bytes;
pub use float::{format_float, from_f64, to_f64};
pub use lexer::ParseError;
pub use parser::{MAX_DEPTH, MAX_REGION_DEPTH};
pub use printer::{attribute_to_string, location_to_string, type_to_string, PrintOptions};

use crate::ir::Module;

/// Parses a whole MLIR text file and verifies it ([`crate::verify`]), as MLIR's parser does.
/// Top-level ops other than a single `builtin.module` are wrapped in an implicit module, as
/// MLIR does. A verifier error is placed at the line and column of the op it is about.
pub fn parse(src: &str) -> Result<Module, ParseError> {
    verified(parse_unverified(src)?, src)
}

/// [`parse`] without the verifier (upstream's `--mlir-very-unsafe-disable-verifier-on-parsing`):
/// for tools that inspect or repair broken programs. What it returns may break MLIR's rules.
pub fn parse_unverified(src: &str) -> Result<Module, ParseError> {
    on_big_stack(|| {
        parser::Parser::new(src)
            .with_custom_ops(parser::Parser::parse_custom_op)
            .parse_top()
    })
}

/// Like [`parse`], but ops and block arguments without `loc(...)` get their position in the
/// text (`"filename":line:col`) as location, as MLIR's parser (and so `stablehlo-translate`)
/// does for a file called `filename`.
pub fn parse_with_source_locations(src: &str, filename: &str) -> Result<Module, ParseError> {
    verified(parse_with_source_locations_unverified(src, filename)?, src)
}

/// [`parse_with_source_locations`] without the verifier.
pub fn parse_with_source_locations_unverified(
    src: &str,
    filename: &str,
) -> Result<Module, ParseError> {
    on_big_stack(|| {
        parser::Parser::new(src)
            .with_custom_ops(parser::Parser::parse_custom_op)
            .with_source_locations(filename)
            .parse_top()
    })
}

/// `m` when it verifies; else the first error, at the position of its op in `src`. The
/// positions are found by parsing again, only on failure: parsing the same text numbers the
/// ops the same way, so nothing is recorded while parsing a valid program.
fn verified(m: Module, src: &str) -> Result<Module, ParseError> {
    let (diags, ops) = crate::text::verify::verify_parts(&m, crate::text::verify::Parts::ALL);
    let Some(first) = diags.first() else {
        return Ok(m);
    };
    let position = ops.first().copied().flatten().and_then(|(op, place)| {
        let (again, positions) = on_big_stack(|| {
            parser::Parser::new(src)
                .with_custom_ops(parser::Parser::parse_custom_op)
                .with_op_positions()
                .parse_top_positions()
        })
        .ok()?;
        let at = positions.offset_of(&again, op, place)?;
        Some(parser::position(src, at))
    });
    let (line, column) = position.unwrap_or((0, 0));
    Err(ParseError {
        line,
        column,
        message: first.without_location(),
    })
}

/// Stack for the recursive-descent parser: enough for [`MAX_DEPTH`] nested types/attributes
/// inside [`MAX_REGION_DEPTH`] nested regions even in debug builds, whatever the caller's
/// thread stack is. Only the parser uses a thread; where none can be started (wasm32) it runs
/// on the caller's.
const PARSER_STACK: usize = 64 << 20;

/// Runs `f` on a scoped thread with a [`PARSER_STACK`] stack (inline if no thread can be made).
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let slot = std::sync::Mutex::new(Some(f));
    let take = |slot: &std::sync::Mutex<Option<_>>| slot.lock().ok().and_then(|mut g| g.take());
    let spawned = std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .stack_size(PARSER_STACK)
            .spawn_scoped(s, || take(&slot).map(|f: _| f()));
        match handle {
            Ok(h) => match h.join() {
                Ok(v) => v,
                Err(payload) => std::panic::resume_unwind(payload),
            },
            Err(_) => None,
        }
    });
    match spawned {
        Some(v) => v,
        // No thread could be started: run here.
        None => (take(&slot).expect("closure not yet run"))(),
    }
}

/// Prints a module as MLIR text, on the caller's thread: the printer's recursion is bounded by
/// the nesting limit (docs/bytecode.md, "Limits").
pub fn print(m: &Module, opts: PrintOptions) -> String {
    print_numbered(m, opts, None)
}

/// [`print()`], with the names of [`print_threaded_to_file_numbered`].
fn print_numbered(m: &Module, opts: PrintOptions, numbering: Option<Numbering>) -> String {
    let mut p = new_printer(m, opts, numbering);
    p.print_module();
    p.out.push_str(&resources::file_metadata(m));
    p.out
}

/// The printer, with the custom op forms the printer core does not know.
fn new_printer(
    m: &Module,
    opts: PrintOptions,
    numbering: Option<Numbering>,
) -> printer::Printer<'_> {
    printer::Printer::new(m, opts)
        .with_forms(&custom_forms::FORMS)
        .with_numbering(numbering.map(|n| n.0))
}

/// The names a module's values print with, worked out before the printing: while the module
/// was still being legalized (see [`crate::portable::deserialize_portable_numbered`]).
#[derive(Clone, Debug)]
pub struct Numbering(printer::Numbering);

/// The names [`print()`] with `opts` will give the values of `m`, a module read as VHLO, once
/// it is legalized to StableHLO (op names and types converted, every op, value and block kept).
pub(crate) fn numbering_once_legalized(m: &Module, opts: PrintOptions) -> Numbering {
    Numbering(printer::Printer::numbering(
        m,
        opts,
        &custom_forms::FORMS_ONCE_LEGALIZED,
    ))
}

/// [`print()`] on two threads, for callers that allow threads (the library otherwise runs on
/// the caller's thread): the second half of the module's largest block prints on a
/// second thread. Returns the text in pieces, whose concatenation is `print(m, opts)`'s text;
/// one piece when it printed on one thread (a small module, location aliases, type or
/// attribute aliases, or no thread to be had).
pub fn print_threaded(m: &Module, opts: PrintOptions) -> Vec<String> {
    print_threaded_numbered(m, opts, None)
}

/// [`print_threaded`] with the values' names worked out already, as
/// [`print_threaded_to_file_numbered`] takes them.
pub fn print_threaded_numbered(
    m: &Module,
    opts: PrintOptions,
    numbering: Option<Numbering>,
) -> Vec<String> {
    print_threaded_from(m, opts, numbering, THREADED_MIN_OPS)
}

/// [`print_threaded`] written to `file` from its present position as it prints: the two
/// threads take the largest block's ops in chunks and write each in turn, so only a few
/// chunks' text is ever in memory (an 8 MB text held whole costs about 2,000 page faults, and a
/// write after the printing). A regular file ends with the text: what it held past its
/// position is gone. A file that is not regular (a pipe, `/dev/null`) gets the text once
/// printed. If the two threads' text cannot be used after all, the file is written again from
/// its position, on one thread.
pub fn print_threaded_to_file(
    m: &Module,
    opts: PrintOptions,
    file: &mut std::fs::File,
) -> std::io::Result<()> {
    print_threaded_to_file_numbered(m, opts, None, file)
}

/// [`print_threaded_to_file`] with the values' names worked out already: `numbering` is used
/// where it is for this module's values and blocks (and the printing's form), and the names
/// are worked out again where it is not.
pub fn print_threaded_to_file_numbered(
    m: &Module,
    opts: PrintOptions,
    numbering: Option<Numbering>,
    file: &mut std::fs::File,
) -> std::io::Result<()> {
    print_threaded_to_file_from(
        m,
        opts,
        numbering,
        file,
        THREADED_MIN_OPS,
        None,
        printer::DRAIN_AT,
    )
    .map(|_| ())
}

/// How [`print_threaded_to_file_from`] went (its tests check that each way is taken).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FilePrint {
    /// On two threads, written chunk by chunk as it printed.
    Chunked,
    /// On two threads, written once printed (not a regular file).
    Threaded,
    /// On one thread, after two threads' text was written in part and cut back.
    Restarted,
    /// On one thread.
    OneThread,
}

/// [`print_threaded_to_file`] for blocks of at least `min_ops` ops, in chunks of `chunk` ops
/// (None: a 64th of the block, within bounds), the head writing its text out whenever it holds
/// `drain_at` bytes.
fn print_threaded_to_file_from(
    m: &Module,
    opts: PrintOptions,
    numbering: Option<Numbering>,
    file: &mut std::fs::File,
    min_ops: usize,
    chunk: Option<usize>,
    drain_at: usize,
) -> std::io::Result<FilePrint> {
    use std::io::{Seek, Write};
    let regular = file.metadata().is_ok_and(|md| md.is_file());
    if !regular {
        let pieces = print_threaded_from(m, opts, numbering, min_ops);
        for piece in &pieces {
            file.write_all(piece.as_bytes())?;
        }
        file.flush()?;
        return Ok(if pieces.len() > 1 {
            FilePrint::Threaded
        } else {
            FilePrint::OneThread
        });
    }
    let start = file.stream_position()?;
    let mut how = FilePrint::OneThread;
    if let Some(mut cut) = cut_for(m, opts, numbering.as_ref(), min_ops) {
        let n = m.block_ops(cut.block).len();
        // About 125 KB of text each on the 100k transformer: a few in memory at a time, and
        // few enough that taking one costs nothing.
        let chunk = chunk.unwrap_or((n / 64).clamp(256, 4096)).max(1);
        // The head prints the first chunk, after whatever comes before the block.
        cut.at = chunk.min(n);
        let mut p = new_printer(m, opts, numbering.clone());
        p.drain_at = drain_at;
        match p.print_chunked(cut, chunk, file) {
            Some(written) => {
                written?;
                file.write_all(resources::file_metadata(m).as_bytes())?;
                how = FilePrint::Chunked;
            }
            // The two threads' text could not be used: start again, on one thread.
            None if file.stream_position()? != start => {
                file.seek(std::io::SeekFrom::Start(start))?;
                how = FilePrint::Restarted;
            }
            None => {}
        }
    }
    if how != FilePrint::Chunked {
        file.write_all(print_numbered(m, opts, numbering).as_bytes())?;
    }
    // An older, longer text (or a restarted one's) ends here.
    let end = file.stream_position()?;
    file.set_len(end)?;
    file.flush()?;
    Ok(how)
}

/// Below this many ops in its largest block, a module prints on one thread: a second thread
/// costs about what it saves.
const THREADED_MIN_OPS: usize = 4096;

/// [`print_threaded`] for blocks of at least `min_ops` ops.
fn print_threaded_from(
    m: &Module,
    opts: PrintOptions,
    numbering: Option<Numbering>,
    min_ops: usize,
) -> Vec<String> {
    if let Some(cut) = cut_for(m, opts, numbering.as_ref(), min_ops) {
        let mut p = new_printer(m, opts, numbering.clone());
        if let Some(pieces) = p.print_cut(cut) {
            let mut pieces: Vec<String> = pieces.into();
            let metadata = resources::file_metadata(m);
            if !metadata.is_empty() {
                pieces.push(metadata);
            }
            return pieces;
        }
    }
    vec![print_numbered(m, opts, numbering)]
}

/// Where to cut for [`print_threaded`]: in the block with the most ops, so that both sides
/// print about as many ops. None for modules too small to gain from a thread.
fn largest_block_cut(m: &Module, min_ops: usize) -> Option<printer::Cut> {
    let mut total = 0usize;
    let mut best: Option<(crate::ir::Block, usize)> = None;
    m.walk(|op| {
        total += 1;
        for &r in m.regions(op) {
            for &b in m.blocks(r) {
                let n = m.block_ops(b).len();
                if best.is_none_or(|(_, most)| n > most) {
                    best = Some((b, n));
                }
            }
        }
    });
    cut_in(best, total, min_ops)
}

/// [`largest_block_cut`], from the largest block `numbering` found where it is for `m`.
fn cut_for(
    m: &Module,
    opts: PrintOptions,
    numbering: Option<&Numbering>,
    min_ops: usize,
) -> Option<printer::Cut> {
    match numbering.and_then(|n| n.0.largest_block(m, opts)) {
        Some((largest, total)) => cut_in(largest, total, min_ops),
        None => largest_block_cut(m, min_ops),
    }
}

/// [`largest_block_cut`] of a module of `total` ops whose largest block is `largest`.
fn cut_in(
    largest: Option<(crate::ir::Block, usize)>,
    total: usize,
    min_ops: usize,
) -> Option<printer::Cut> {
    let (block, n) = largest?;
    if n < min_ops.max(2) {
        return None;
    }
    // The head prints the ops outside the block too.
    let outside = total.saturating_sub(n);
    let at = (n.saturating_sub(outside) / 2).clamp(1, n - 1);
    Some(printer::Cut {
        block,
        at,
        tail: false,
        span: None,
        hits: 0,
    })
}

/// The ops that [`print()`] with `elide_defaults` (MLIR's own printing) puts in a compact form
/// that leaves out the locations inside them, so that `--mlir-print-debuginfo` loses them: a
/// reduce printed as `applies stablehlo.add` whose body is located elsewhere. The generic form
/// and the default printing (without `elide_defaults`) keep them.
pub fn compact_forms_dropping_locations(m: &Module) -> Vec<crate::ir::OpId> {
    shlo_pretty::compact_forms_dropping_locations(m)
}

/// Prints every op in generic form, like `stablehlo-opt --mlir-print-op-generic`.
pub fn print_generic(m: &Module) -> String {
    print(
        m,
        PrintOptions {
            generic: true,
            debug_info: false,
            ..Default::default()
        },
    )
}

/// Parses one type (the whole of `src`) into `m`.
pub fn parse_type(m: &mut Module, src: &str) -> Result<crate::ir::Type, ParseError> {
    on_big_stack(|| parser::Parser::with_module(src, m, |p| p.parse_type()))
}

/// Parses one attribute (the whole of `src`) into `m`.
pub fn parse_attribute(m: &mut Module, src: &str) -> Result<crate::ir::Attribute, ParseError> {
    on_big_stack(|| parser::Parser::with_module(src, m, |p| p.parse_attribute()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Print mode `bits` of 32 (each bit one option).
    fn print_mode(bits: u32) -> PrintOptions {
        PrintOptions {
            generic: bits & 1 != 0,
            debug_info: bits & 2 != 0,
            elide_defaults: bits & 4 != 0,
            location_aliases: bits & 8 != 0,
            local_scope: bits & 16 != 0,
        }
    }

    /// The JAX fixtures' text files, in name order.
    fn jax_fixture_texts() -> Vec<std::path::PathBuf> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/jax");
        let mut files: Vec<_> = std::fs::read_dir(root)
            .expect("fixtures")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
            .collect();
        files.sort();
        files
    }

    /// Cut anywhere, the pieces printed on two threads make the one-thread text, in every
    /// printing mode: JAX fixtures (custom forms, regions, locations) and the text corpus.
    #[test]
    fn threaded_print_is_the_one_thread_print() {
        let files = jax_fixture_texts();
        let mut cut = 0;
        for f in &files {
            let src = std::fs::read_to_string(f).expect("read");
            let Ok(m) = parse(&src) else { continue };
            for bits in 0..32u32 {
                let opts = print_mode(bits);
                let pieces = print_threaded_from(&m, opts, None, 2);
                cut += usize::from(pieces.len() > 1);
                assert_eq!(pieces.concat(), print(&m, opts), "{} {opts:?}", f.display());
            }
        }
        assert!(cut > 100, "only {cut} prints were cut");
    }

    /// Written to a file as it prints, the text is the one-thread text, after what the file
    /// held: streamed at every op, cut back and printed again when the cut fails late.
    #[test]
    fn threaded_print_to_a_file_is_the_one_thread_print() {
        use std::io::{Read, Seek, Write};
        let files = jax_fixture_texts();
        let path = std::env::temp_dir().join(format!("vhlo-print-to-file-{}", std::process::id()));
        let mut seen = std::collections::BTreeMap::new();
        // A location as an attribute is known to need the alias pass only once printed: the
        // head has written its text by then.
        let late = r#"func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<f32>
  %1 = stablehlo.add %0, %0 {x = loc("here")} : tensor<f32>
  %2 = stablehlo.add %1, %1 : tensor<f32>
  %3 = stablehlo.add %2, %2 : tensor<f32>
  return %3 : tensor<f32>
}
"#;
        let sources = files
            .iter()
            .map(|f| {
                (
                    f.display().to_string(),
                    std::fs::read_to_string(f).expect("read"),
                )
            })
            .chain([("late".to_string(), late.to_string())]);
        for (f, src) in sources {
            let Ok(m) = parse(&src) else {
                assert!(f != "late", "{:?}", parse(&src));
                continue;
            };
            // Without `local_scope`, which only matters with debug info and no location aliases.
            for bits in 0..16u32 {
                let opts = print_mode(bits);
                let mut file = std::fs::File::options()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(&path)
                    .expect("temp file");
                // Old text past the start, longer than any printing: the printing cuts it off.
                file.write_all(b"// kept\n").expect("write");
                file.write_all(&[b'x'; 1 << 16]).expect("write");
                file.seek(std::io::SeekFrom::Start(8)).expect("seek");
                // Chunks of one op or of a few: every way the threads can interleave.
                let chunk = if bits % 3 == 0 { 3 } else { 1 };
                let how = print_threaded_to_file_from(&m, opts, None, &mut file, 2, Some(chunk), 0)
                    .expect("print to file");
                *seen.entry(format!("{how:?}")).or_insert(0) += 1;
                // The chunk printers start from the state predicted at the block, which the
                // head must reach: only the late location makes the head start again.
                assert!(
                    how != FilePrint::Restarted || f == "late",
                    "{f} {opts:?} restarted"
                );
                let mut text = String::new();
                file.rewind().expect("rewind");
                file.read_to_string(&mut text).expect("read back");
                let want = format!("// kept\n{}", print(&m, opts));
                assert!(text == want, "{f} {opts:?} {how:?}");
            }
        }
        let _ = std::fs::remove_file(&path);
        for how in ["Chunked", "Restarted", "OneThread"] {
            assert!(
                seen.get(how).is_some_and(|&n| n > 0),
                "never {how}: {seen:?}"
            );
        }
    }

    /// A file that refuses writes (opened to read) is an error from whichever thread writes
    /// first, and both threads stop: no hang, no panic.
    #[test]
    fn threaded_print_to_a_file_that_refuses_writes_is_an_error() {
        let mut src = String::from("func.func @main(%a: tensor<f32>) -> tensor<f32> {\n");
        for i in 0..300 {
            let x = if i == 0 {
                "%a".to_string()
            } else {
                format!("%v{}", i - 1)
            };
            src.push_str(&format!("  %v{i} = stablehlo.add {x}, {x} : tensor<f32>\n"));
        }
        src.push_str("  return %v299 : tensor<f32>\n}\n");
        let m = parse(&src).expect("parse");
        let path = std::env::temp_dir().join(format!("vhlo-print-refused-{}", std::process::id()));
        std::fs::write(&path, "").expect("temp file");
        for (chunk, drain_at) in [(1, 0), (7, 0), (7, 1 << 20), (1000, 1 << 20)] {
            let mut file = std::fs::File::open(&path).expect("open to read");
            let opts = PrintOptions::default();
            let got =
                print_threaded_to_file_from(&m, opts, None, &mut file, 2, Some(chunk), drain_at);
            assert!(
                got.is_err(),
                "chunks of {chunk}, drained at {drain_at}: {got:?}"
            );
        }
        let _ = std::fs::remove_file(&path);
    }

    /// JAX writes functions whose argument dictionaries are all empty. MLIR's printer (and ours
    /// with `elide_defaults`, as `vhlo-translate --deserialize`) gives them the custom form,
    /// which leaves the dictionaries out; the default printing keeps them, in generic form.
    #[test]
    fn all_empty_argument_dictionaries_print_as_mlir_prints_them() {
        let src = r#""func.func"() <{arg_attrs = [{}, {}], function_type = (tensor<f32>, tensor<f32>) -> tensor<f32>, sym_name = "f"}> ({
^bb0(%a: tensor<f32>, %b: tensor<f32>):
  "func.return"(%a) : (tensor<f32>) -> ()
}) : () -> ()
"#;
        let m = parse(src).expect("parse");
        let mlir = print(
            &m,
            PrintOptions {
                elide_defaults: true,
                ..Default::default()
            },
        );
        assert!(
            mlir.contains("func.func @f(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<f32> {"),
            "{mlir}"
        );
        let lossless = print(&m, PrintOptions::default());
        assert!(lossless.contains("arg_attrs = [{}, {}]"), "{lossless}");
        assert_eq!(
            print(&parse(&lossless).expect("reparse"), PrintOptions::default()),
            lossless
        );
    }
}
