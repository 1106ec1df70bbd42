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
mod custom_forms;
mod dialects;
mod float;
mod lexer;
mod op_format;
mod parse_types_attrs;
mod parser;
mod printer;
mod sdy;
mod shlo_pretty;
mod sparse;

pub use crate::ir::element_storage_bytes;
pub use float::{format_float, from_f64, to_f64};
pub use lexer::ParseError;
pub use parser::{MAX_DEPTH, MAX_REGION_DEPTH};
pub use printer::{attribute_to_string, location_to_string, type_to_string, PrintOptions};

use crate::ir::Module;

/// Parses a whole MLIR text file. Top-level ops other than a single `builtin.module` are
/// wrapped in an implicit module, as MLIR does.
pub fn parse(src: &str) -> Result<Module, ParseError> {
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
    on_big_stack(|| {
        parser::Parser::new(src)
            .with_custom_ops(parser::Parser::parse_custom_op)
            .with_source_locations(filename)
            .parse_top()
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
    let mut p = printer::Printer::new(m, opts).with_forms(&custom_forms::FORMS);
    p.print_module();
    p.out
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
