//! The text parser on arbitrary input: it must return, and an error must point at a line and
//! column inside the input (or just past its end).
#![no_main]

use libfuzzer_sys::fuzz_target;
use vhlo_core::text;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = text::parse(src) {
        let lines = src.split('\n').count();
        assert!(
            e.line >= 1 && e.line as usize <= lines && e.column >= 1,
            "error position {}:{} outside the {lines}-line input: {e}",
            e.line,
            e.column
        );
        assert!(!e.message.is_empty());
    }
});
