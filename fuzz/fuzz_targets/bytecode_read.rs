//! The bytecode reader on arbitrary bytes: it must return, and an error must point inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vhlo_core::bytecode;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = bytecode::read(data) {
        assert!(
            e.offset <= data.len(),
            "error offset {} past the {}-byte input: {e}",
            e.offset,
            data.len()
        );
        assert!(!e.message.is_empty());
    }
});
