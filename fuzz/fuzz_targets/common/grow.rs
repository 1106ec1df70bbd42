//! Mutations that grow a VHLO program instead of swapping values it already holds:
//! wider shapes, more dimensions, types and attributes nested around the one nesting limit.
//! Used by the `structured_pipeline` fuzz target and tested by `tests/tests/bytecode/fuzz_mutator.rs`.

use vhlo_core::ir::{AttrData, DialectAttr, DialectType, Module, OpId, Param, TypeData};

/// xorshift64*: deterministic in libFuzzer's seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n.max(1)
    }
}

/// Nesting depths to try: just under, at and just past the limit, and far past it.
fn depth(rng: &mut Rng) -> usize {
    let limit = vhlo_core::ir::MAX_NESTING;
    [1, 8, limit - 4, limit - 1, limit, limit + 1, 4 * limit][rng.below(7)]
}

/// Grows one thing of `op`; false when `op` has nothing of that kind.
pub fn grow(m: &mut Module, op: OpId, rng: &mut Rng) -> bool {
    match rng.below(4) {
        0 => grow_shape(m, op, rng),
        1 => add_dimensions(m, op, rng),
        2 => nest_type(m, op, rng),
        _ => nest_attribute(m, op, rng),
    }
}

/// A result's `!vhlo.tensor_v1` type with one dimension multiplied (up to overflow).
fn grow_shape(m: &mut Module, op: OpId, rng: &mut Rng) -> bool {
    with_result_tensor(m, op, rng, |dims, rng| {
        let i = rng.below(dims.len());
        if let Some(d) = dims.get_mut(i) {
            let factor = [10, 1 << 20, 1 << 40, i64::MAX][rng.below(4)];
            *d = d.saturating_mul(factor).max(factor);
        }
    })
}

/// A result's tensor type with dimensions added.
fn add_dimensions(m: &mut Module, op: OpId, rng: &mut Rng) -> bool {
    with_result_tensor(m, op, rng, |dims, rng| {
        let n = [1, 8, 100, 10_000][rng.below(4)];
        dims.extend(std::iter::repeat_n(2, n));
    })
}

fn with_result_tensor(
    m: &mut Module,
    op: OpId,
    rng: &mut Rng,
    change: impl FnOnce(&mut Vec<i64>, &mut Rng),
) -> bool {
    let n = m.num_results(op);
    let Some(v) = (n > 0).then(|| m.result(op, rng.below(n))).flatten() else {
        return false;
    };
    let TypeData::Dialect(d) = m.type_data(m.value_type(v)).clone() else {
        return false;
    };
    if m.str(d.mnemonic) != "tensor_v1" {
        return false;
    }
    let mut params = d.params.to_vec();
    let Some(Param::Ints(dims)) = params.first_mut() else {
        return false;
    };
    let mut grown = dims.to_vec();
    change(&mut grown, rng);
    *dims = grown.into();
    let t = m.ty(TypeData::Dialect(DialectType {
        dialect: d.dialect,
        mnemonic: d.mnemonic,
        params: params.into(),
    }));
    m.set_value_type(v, t);
    true
}

/// A result's type wrapped in `!vhlo.tuple_v1` many levels deep.
fn nest_type(m: &mut Module, op: OpId, rng: &mut Rng) -> bool {
    let n = m.num_results(op);
    let Some(v) = (n > 0).then(|| m.result(op, rng.below(n))).flatten() else {
        return false;
    };
    let vhlo = m.sym("vhlo");
    let tuple = m.sym("tuple_v1");
    let mut t = m.value_type(v);
    for _ in 0..depth(rng) {
        t = m.ty(TypeData::Dialect(DialectType {
            dialect: vhlo,
            mnemonic: tuple,
            params: Box::new([Param::Types(Box::new([t]))]),
        }));
    }
    m.set_value_type(v, t);
    true
}

/// A property wrapped in `#vhlo.array_v1` many levels deep.
fn nest_attribute(m: &mut Module, op: OpId, rng: &mut Rng) -> bool {
    let props = m.properties(op);
    if props.is_empty() {
        return false;
    }
    let p = props[rng.below(props.len())];
    let vhlo = m.sym("vhlo");
    let array = m.sym("array_v1");
    let mut a = p.value;
    for _ in 0..depth(rng) {
        a = m.attr(AttrData::Dialect(DialectAttr {
            dialect: vhlo,
            mnemonic: array,
            params: Box::new([Param::Attrs(Box::new([a]))]),
        }));
    }
    m.set_property(op, p.name, a);
    true
}
