//! Read -> write -> read -> write: whatever the reader accepts, the writer writes back at the same
//! bytecode version (with the side tables the reader recorded), the reader accepts that again as
//! the same IR (`ir::structurally_equal`, locations included), and a second write gives the same
//! bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vhlo_core::bytecode::{self, WriteOptions};
use vhlo_core::ir::{structurally_equal, EqualOptions};

fuzz_target!(|data: &[u8]| {
    let Ok((module, info)) = bytecode::read(data) else {
        return;
    };
    let first = match bytecode::write(&module, &opts(&info)) {
        Ok(b) => b,
        Err(e) => panic!("read but cannot write back: {e}"),
    };
    let (again, info2) = match bytecode::read(&first) {
        Ok(x) => x,
        Err(e) => panic!("cannot read what we wrote: {e}"),
    };
    if let Err(difference) = structurally_equal(&module, &again, EqualOptions::default()) {
        panic!("read back to a different IR: {difference}");
    }
    let second = match bytecode::write(&again, &opts(&info2)) {
        Ok(b) => b,
        Err(e) => panic!("second write failed: {e}"),
    };
    assert!(first == second, "second round trip wrote different bytes");
});

/// Options that write the module back as it was read: same version, producer and side tables.
fn opts(info: &bytecode::ArtifactInfo) -> WriteOptions<'_> {
    WriteOptions {
        bytecode_version: info.bytecode_version,
        producer: &info.producer,
        use_list_orders: Some(&info.use_list_orders),
        block_arg_locations: Some(&info.block_arg_locations),
    }
}
