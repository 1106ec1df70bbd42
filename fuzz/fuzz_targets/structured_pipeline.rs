//! The `deserialize_pipeline` property with structure-aware mutation: an input that reads as a
//! VHLO artifact is mutated in the IR (a property value, a result type, an op name, an operand
//! or the artifact version changed to another the module already holds or the registry knows),
//! or grown (`common/grow.rs`: wider shapes, more dimensions, types and attributes nested around
//! the nesting limit), and written back as valid bytecode, so the mutants reach the conversions and printers
//! instead of stopping at the reader. Inputs that do not read fall back to byte mutation.
#![no_main]

use libfuzzer_sys::{fuzz_mutator, fuzz_target};
use vhlo_core::ir::{Attribute, OpId, Type, Value};
use vhlo_core::portable;
use vhlo_core::vhlo::{VhloOp, RELEASES};

#[path = "common/pipeline.rs"]
mod pipeline;

#[path = "common/grow.rs"]
mod grow;
use grow::Rng;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = pipeline::check(data) {
        panic!("{e}");
    }
});

fn mutate_ir(bytes: &[u8], seed: u32) -> Option<Vec<u8>> {
    let (mut m, mut version) = portable::read_vhlo(bytes).ok()?;
    let mut rng = Rng(u64::from(seed) << 16 | 0x9e37);
    let mut ops: Vec<OpId> = Vec::new();
    m.walk(|op| ops.push(op));
    let (mut attrs, mut types, mut values): (Vec<Attribute>, Vec<Type>, Vec<Value>) =
        Default::default();
    for &op in &ops {
        attrs.extend(
            m.properties(op)
                .iter()
                .chain(m.attributes(op))
                .map(|a| a.value),
        );
        values.extend(m.results(op));
    }
    types.extend(values.iter().map(|&v| m.value_type(v)));
    if ops.is_empty() {
        return None;
    }
    for _ in 0..1 + rng.below(3) {
        let op = ops[rng.below(ops.len())];
        match rng.below(8) {
            0 if !attrs.is_empty() && !m.properties(op).is_empty() => {
                let props = m.properties(op);
                let name = props[rng.below(props.len())].name;
                let value = attrs[rng.below(attrs.len())];
                m.set_property(op, name, value);
            }
            1 if !types.is_empty() && m.num_results(op) > 0 => {
                let Some(v) = m.result(op, rng.below(m.num_results(op))) else {
                    continue;
                };
                m.set_value_type(v, types[rng.below(types.len())]);
            }
            2 => {
                let kind = VhloOp::ALL[rng.below(VhloOp::ALL.len())];
                let name = m.sym(kind.name());
                m.set_op_name(op, name);
            }
            3 if !values.is_empty() && !m.operands(op).is_empty() => {
                // Values defined earlier in walk order: mostly in scope, sometimes not.
                let here = values.len();
                let i = rng.below(m.operands(op).len());
                m.set_operand(op, i, values[rng.below(here)]);
            }
            4 if !m.properties(op).is_empty() => {
                let props = m.properties(op);
                let name = props[rng.below(props.len())].name;
                m.remove_property(op, name);
            }
            5 | 6 => {
                grow::grow(&mut m, op, &mut rng);
            }
            _ => version = RELEASES[rng.below(RELEASES.len())].version,
        }
    }
    portable::write_vhlo(&m, version, &version.to_string()).ok()
}

fuzz_mutator!(|data: &mut [u8], size: usize, max_size: usize, seed: u32| {
    // One mutant in four is a byte-level one, so the reader's own paths stay covered.
    if seed % 4 != 0 {
        if let Some(out) = data.get(..size).and_then(|input| mutate_ir(input, seed)) {
            if out.len() <= max_size {
                data[..out.len()].copy_from_slice(&out);
                return out.len();
            }
        }
    }
    libfuzzer_sys::fuzzer_mutate(data, size, max_size)
});
