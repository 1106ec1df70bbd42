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
pub(crate) use dialects::{classify, find_enum, find_struct};
mod lexer;
pub(crate) mod op_format;
mod param_format;
mod parse_types_attrs;
mod parser;
mod printer;
mod resources;
mod sdy;
mod sdy_ops;
mod shlo_pretty;
mod sparse;

pub use crate::float::{format_float, from_f64, to_f64};
pub use crate::ir::element_storage_bytes;
pub use lexer::ParseError;
pub use parser::{MAX_DEPTH, MAX_REGION_DEPTH};
pub use printer::{attribute_to_string, location_to_string, type_to_string, PrintOptions};

use crate::ir::Module;

/// Parses a whole MLIR text file and verifies it ([`crate::verify`]), as MLIR's parser does.
/// Top-level ops other than a single `builtin.module` are wrapped in an implicit module, as
/// MLIR does. A verifier error is placed at the line and column of the op it is about.
pub fn parse(src: &str) -> Result<Module, ParseError> {
    parse_with(src, &ParseOptions::default())
}

/// [`parse`] without the verifier (upstream's `--mlir-very-unsafe-disable-verifier-on-parsing`):
/// for tools that inspect or repair broken programs. What it returns may break MLIR's rules.
pub fn parse_unverified(src: &str) -> Result<Module, ParseError> {
    parse_with(
        src,
        &ParseOptions {
            skip_verification: true,
            ..ParseOptions::default()
        },
    )
}

/// Like [`parse`], but ops and block arguments without `loc(...)` get their position in the
/// text (`"filename":line:col`) as location, as MLIR's parser (and so `stablehlo-translate`)
/// does for a file called `filename`.
pub fn parse_with_source_locations(src: &str, filename: &str) -> Result<Module, ParseError> {
    parse_with(
        src,
        &ParseOptions {
            source_locations: Some(filename),
            ..ParseOptions::default()
        },
    )
}

/// [`parse_with_source_locations`] without the verifier.
pub fn parse_with_source_locations_unverified(
    src: &str,
    filename: &str,
) -> Result<Module, ParseError> {
    parse_with(
        src,
        &ParseOptions {
            source_locations: Some(filename),
            skip_verification: true,
            ..ParseOptions::default()
        },
    )
}

/// How [`parse_with`] reads text: the options of MLIR's parser and of its tools.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParseOptions<'a> {
    /// Ops and block arguments without `loc(...)` get their position in the text, in a buffer
    /// of this name ([`parse_with_source_locations`]).
    pub source_locations: Option<&'a str>,
    /// Skip the verifier ([`parse_unverified`]).
    pub skip_verification: bool,
    /// Keep ops, types and attributes of dialects that jaxlib's MLIR context does not register
    /// (`-allow-unregistered-dialect`), as opaque ones. Without it they are refused, as jaxlib
    /// refuses them ([`crate::dialect::LIBSTABLEHLO_DIALECTS`]).
    pub allow_unregistered_dialects: bool,
}

/// Parses a whole MLIR text file with `options` ([`parse`] takes the defaults).
pub fn parse_with(src: &str, options: &ParseOptions<'_>) -> Result<Module, ParseError> {
    let new_parser = || {
        let p = parser::Parser::new(src)
            .with_custom_ops(parser::Parser::parse_custom_op)
            .allowing_unregistered_dialects(options.allow_unregistered_dialects);
        match options.source_locations {
            Some(filename) => p.with_source_locations(filename),
            None => p,
        }
    };
    let m = on_big_stack(|| new_parser().parse_top())?;
    if options.skip_verification {
        Ok(m)
    } else {
        verified(m, src, options)
    }
}

/// `m` when it verifies; else the first error, at the position of its op in `src`. The
/// positions are found by parsing again, only on failure: parsing the same text numbers the
/// ops the same way, so nothing is recorded while parsing a valid program.
fn verified(m: Module, src: &str, options: &ParseOptions<'_>) -> Result<Module, ParseError> {
    let (diags, ops) = crate::text::verify::verify_parts(&m, crate::text::verify::Parts::ALL);
    let Some(first) = diags.first() else {
        return Ok(m);
    };
    let position = ops.first().copied().flatten().and_then(|(op, place)| {
        let (again, positions) = on_big_stack(|| {
            parser::Parser::new(src)
                .with_custom_ops(parser::Parser::parse_custom_op)
                .allowing_unregistered_dialects(options.allow_unregistered_dialects)
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
    PrintJob::new(m, opts).print()
}

/// A module to print, its values named once (MLIR's numbering): printed whole into a string,
/// or written to any sink as it prints, with the help of threads the caller owns.
///
/// The library starts no thread. A caller with a second core lends it with
/// [`PrintJob::help`]: the ops of the module's largest block then print in chunks that both
/// threads take in turn, and the printing thread writes each chunk as soon as it and those
/// before it are printed, so only a few chunks' text is held at a time.
///
/// ```
/// # let m = vhlo_core::text::parse("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n").unwrap();
/// use vhlo_core::text::{PrintJob, PrintOptions};
/// let job = PrintJob::new(&m, PrintOptions::default());
/// let mut text = Vec::new();
/// std::thread::scope(|s| {
///     s.spawn(|| job.help());
///     job.print_to(&mut text)
/// })
/// .unwrap();
/// assert_eq!(String::from_utf8(text).unwrap(), vhlo_core::text::print(&m, PrintOptions::default()));
/// ```
pub struct PrintJob<'m> {
    m: &'m Module,
    opts: PrintOptions,
    names: printer::Names,
    /// The block printed in chunks and the ops per chunk, when the module has one worth it.
    split: Option<(crate::ir::Block, usize)>,
    handoff: printer::Handoff,
    /// Set by the first [`PrintJob::print_to`]: only it hands out chunks.
    started: std::sync::atomic::AtomicBool,
}

/// Below this many ops in its largest block, a module prints without chunks: a second thread
/// costs about what it saves.
const SPLIT_MIN_OPS: usize = 4096;

/// Chunks are printed only where regions nest at most this deep: a helper thread's stack (a
/// caller's, of any size) holds that much recursion.
const SPLIT_MAX_DEPTH: usize = 32;

impl<'m> PrintJob<'m> {
    /// Names the values of `m` as they print with `opts`.
    pub fn new(m: &'m Module, opts: PrintOptions) -> Self {
        Self::with_split(m, opts, SPLIT_MIN_OPS, None)
    }

    /// [`PrintJob::new`], splitting a block of at least `min_ops` ops into chunks of `chunk`
    /// ops (None: a 64th of the block, within bounds).
    fn with_split(m: &'m Module, opts: PrintOptions, min_ops: usize, chunk: Option<usize>) -> Self {
        let (names, shape) = new_printer(m, opts).numbering();
        let split = shape
            .largest_block
            .filter(|&(_, n)| n >= min_ops.max(2) && shape.region_depth <= SPLIT_MAX_DEPTH)
            // About 125 KB of text each on the 100k transformer: a few in memory at a time,
            // and few enough that taking one costs nothing.
            .map(|(b, n)| (b, chunk.unwrap_or((n / 64).clamp(256, 4096)).max(1)));
        PrintJob {
            m,
            opts,
            names,
            split,
            handoff: printer::Handoff::default(),
            started: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The text, on this thread alone.
    pub fn print(&self) -> String {
        let mut p = new_printer(self.m, self.opts).with_names(&self.names);
        p.print_module();
        p.out.push_str(&resources::file_metadata(self.m));
        p.out
    }

    /// Writes the text to `sink` as it prints. The first call takes help from the threads
    /// running [`PrintJob::help`]; when it returns, they have returned or are about to.
    pub fn print_to(&self, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.print_to_draining(sink, printer::DRAIN_AT)
    }

    /// [`PrintJob::print_to`], writing the text held whenever it reaches `drain_at` bytes.
    fn print_to_draining(
        &self,
        sink: &mut dyn std::io::Write,
        drain_at: usize,
    ) -> std::io::Result<()> {
        /// The helpers stop however the printing ends.
        struct End<'h>(&'h printer::Handoff);
        impl Drop for End<'_> {
            fn drop(&mut self) {
                self.0.end();
            }
        }
        let _end = End(&self.handoff);
        let first = !self
            .started
            .swap(true, std::sync::atomic::Ordering::Relaxed);
        let split = self
            .split
            .filter(|_| first)
            .map(|(block, chunk)| printer::Split {
                block,
                chunk,
                handoff: &self.handoff,
            });
        let mut p = new_printer(self.m, self.opts)
            .with_names(&self.names)
            .with_sink(sink, split);
        p.drain_at = drain_at;
        p.print_module();
        p.out.push_str(&resources::file_metadata(self.m));
        p.flush();
        p.sink_result()
    }

    /// Lends the calling thread to the printing: prints chunks that [`PrintJob::print_to`],
    /// running on another thread, hands out, and returns when it has none left (at once if
    /// the module has no block worth splitting, or the printing is over). Call it only while
    /// `print_to` is about to run or running: before, it waits for it.
    pub fn help(&self) {
        if self.split.is_some() {
            new_printer(self.m, self.opts)
                .with_names(&self.names)
                .help(&self.handoff);
        }
    }
}

/// The printer, with the custom op forms the printer core does not know.
fn new_printer(m: &Module, opts: PrintOptions) -> printer::Printer<'_> {
    printer::Printer::new(m, opts).with_forms(&custom_forms::FORMS)
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

    /// `job` written to a buffer with a helper thread, writing out whenever `drain_at` bytes
    /// are held.
    fn print_helped(job: &PrintJob<'_>, drain_at: usize) -> std::io::Result<String> {
        let mut text = Vec::new();
        std::thread::scope(|s| {
            s.spawn(|| job.help());
            job.print_to_draining(&mut text, drain_at)
        })?;
        Ok(String::from_utf8(text).expect("UTF-8"))
    }

    /// Split anywhere, in chunks of any size, written out at every op or rarely, with a helper
    /// thread, the text is the one-thread text in every printing mode: JAX fixtures (custom
    /// forms, regions, locations and their aliases) and a location used as an attribute.
    #[test]
    fn print_with_a_helper_is_the_one_thread_print() {
        let late = r#"func.func @main(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<f32>
  %1 = stablehlo.add %0, %0 {x = loc("here")} : tensor<f32>
  %2 = stablehlo.add %1, %1 : tensor<f32>
  %3 = stablehlo.add %2, %2 : tensor<f32>
  return %3 : tensor<f32>
}
"#;
        // The largest block ends in an implicit terminator, left out in chunks as elsewhere.
        let mut elided = String::from(
            "func.func @main(%lb: index, %t: tensor<f32>) -> tensor<f32> {\n  scf.for %i = %lb to %lb step %lb {\n",
        );
        for i in 0..8 {
            elided.push_str(&format!("    %{i} = stablehlo.add %t, %t : tensor<f32>\n"));
        }
        elided.push_str("  }\n  return %t : tensor<f32>\n}\n");
        let sources = jax_fixture_texts()
            .iter()
            .map(|f| {
                (
                    f.display().to_string(),
                    std::fs::read_to_string(f).expect("read"),
                )
            })
            .chain([
                ("late".to_string(), late.to_string()),
                ("elided".to_string(), elided),
            ])
            .collect::<Vec<_>>();
        let mut split = 0;
        for (f, src) in &sources {
            let Ok(m) = parse(src) else {
                assert!(f != "late" && f != "elided", "{:?}", parse(src));
                continue;
            };
            for bits in 0..32u32 {
                let opts = print_mode(bits);
                let want = print(&m, opts);
                let chunk = if bits % 3 == 0 { 3 } else { 1 };
                let drain_at = if bits % 2 == 0 { 0 } else { printer::DRAIN_AT };
                let job = PrintJob::with_split(&m, opts, 2, Some(chunk));
                split += usize::from(job.split.is_some());
                let got = print_helped(&job, drain_at).expect("print");
                assert!(
                    got == want,
                    "{f} {opts:?} chunks of {chunk}, drained at {drain_at}"
                );
                // Printed again, the job prints alone.
                assert_eq!(print_helped(&job, drain_at).expect("print"), want);
                assert_eq!(job.print(), want);
            }
        }
        assert!(split > 100, "only {split} prints were split");
    }

    /// A sink that refuses writes is an error, whenever it comes: the helper stops, nothing
    /// hangs or panics.
    #[test]
    fn print_to_a_sink_that_refuses_writes_is_an_error() {
        /// Takes `left` bytes, then refuses.
        struct Refusing {
            left: usize,
        }
        impl std::io::Write for Refusing {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                if self.left < buf.len() {
                    return Err(std::io::Error::other("full"));
                }
                self.left -= buf.len();
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
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
        let whole = print(&m, PrintOptions::default()).len();
        for (chunk, drain_at) in [(1, 0), (7, 0), (7, 1 << 20), (1000, 1 << 20)] {
            for left in [0, 100, whole / 2, whole - 1] {
                let job = PrintJob::with_split(&m, PrintOptions::default(), 2, Some(chunk));
                let mut sink = Refusing { left };
                let got = std::thread::scope(|s| {
                    s.spawn(|| job.help());
                    job.print_to_draining(&mut sink, drain_at)
                });
                assert!(
                    got.is_err(),
                    "chunks of {chunk}, drained at {drain_at}, {left} taken"
                );
            }
        }
    }

    /// A helper returns at once where there is nothing to split, or once the printing is over.
    #[test]
    fn a_helper_returns_when_there_is_nothing_to_help_with() {
        let m =
            parse("func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  return %a : tensor<f32>\n}\n")
                .expect("parse");
        PrintJob::new(&m, PrintOptions::default()).help();
        let job = PrintJob::with_split(&m, PrintOptions::default(), 1, Some(1));
        job.print_to(&mut Vec::new()).expect("print");
        job.help();
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
