//! Bytecode -> text: whatever the bytecode reader accepts prints (pretty and generic forms), the
//! generic text parses back, and printing that gives the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vhlo_core::{bytecode, text};

fuzz_target!(|data: &[u8]| {
    let Ok((module, _)) = bytecode::read(data) else {
        return;
    };
    let _pretty = text::print(&module, text::PrintOptions::default());
    let first = text::print_generic(&module);
    // The raw reader does not verify; neither does this parse.
    let again = match text::parse_unverified(&first) {
        Ok(m) => m,
        Err(e) => panic!("printed text does not parse: {e}\n{first}"),
    };
    let second = text::print_generic(&again);
    assert!(
        first == second,
        "second print differs:\n{first}\n----\n{second}"
    );
});
