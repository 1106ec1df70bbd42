//! Parse -> print (generic form) -> parse -> print: whatever the parser accepts, the printer
//! prints in a form the parser accepts again, and printing that gives the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vhlo_core::text;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = text::parse(src) else {
        return;
    };
    let first = text::print_generic(&module);
    let again = match text::parse(&first) {
        Ok(m) => m,
        Err(e) => panic!("printed text does not parse: {e}\n{first}"),
    };
    let second = text::print_generic(&again);
    assert!(
        first == second,
        "second print differs:\n{first}\n----\n{second}"
    );
});
