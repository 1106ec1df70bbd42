//! MLIR's quantized-type invariants (`QuantizedType::verifyInvariants` and the uniform and
//! per-axis ones in `mlir/lib/Dialect/Quant/IR/QuantTypes.cpp`), checked on both conversions so
//! that we never write, nor print, a `!quant.uniform` that libStablehlo refuses.

use crate::ir::{FloatKind, Module, Param, Signedness, TypeData};

/// MLIR's `QuantizedType::MaxStorageBits`.
const MAX_STORAGE_BITS: u32 = 32;

/// The smallest positive and the largest finite value of a float type, as MLIR bounds a scale
/// (`APFloat::getSmallest` / `getLargest` of the expressed type).
fn scale_range(kind: FloatKind) -> (f64, f64) {
    use crate::float::to_f64;
    match kind {
        FloatKind::F32 => (f64::from(f32::from_bits(1)), f64::from(f32::MAX)),
        FloatKind::F64 | FloatKind::F80 | FloatKind::F128 => (f64::from_bits(1), f64::MAX),
        // TF32: f32's exponent, 10 fraction bits.
        FloatKind::TF32 => ((-136f64).exp2(), (2.0 - (-10f64).exp2()) * 127f64.exp2()),
        _ => {
            let (mut lo, mut hi) = (f64::INFINITY, 0f64);
            for bits in 0..(1u128 << kind.bit_width()) {
                if let Some(x) = to_f64(kind, bits).filter(|x| x.is_finite() && *x > 0.0) {
                    lo = lo.min(x);
                    hi = hi.max(x);
                }
            }
            (lo, hi)
        }
    }
}

/// `Err` names the invariant a `quant.uniform` type's parameters (builtin layout: flags, storage,
/// expressed, then scale/zero point or axis/scales/zero points, then storage min and max) break.
pub(crate) fn check(m: &Module, params: &[Param]) -> Result<(), String> {
    let (flags, storage, expressed, min, max) = match params {
        [Param::UInt(f), Param::Type(s), Param::Type(e), .., Param::Int(lo), Param::Int(hi)] => {
            (*f, *s, *e, *lo, *hi)
        }
        _ => return Err("malformed quantized type".into()),
    };
    check_storage(m, flags, storage, min, max)?;
    let TypeData::Float(kind) = *m.type_data(expressed) else {
        return Err("quantized type: expressed type must be a float".into());
    };
    let (lo, hi) = scale_range(kind);
    let check_scale = |bits: u128| {
        let s = f64::from_bits(bits as u64);
        if s.is_finite() && s >= lo && s <= hi {
            Ok(())
        } else {
            Err(format!(
                "quantized type: scale {s:e} out of the expressed type's range [{lo:e}, {hi:e}]"
            ))
        }
    };
    match params {
        [_, _, _, Param::Float { bits, .. }, Param::Int(_), _, _] => check_scale(*bits),
        [_, _, _, Param::Int(axis), Param::Floats(scales), Param::Ints(zps), _, _] => {
            if *axis < 0 {
                return Err(format!(
                    "quantized type: illegal quantized dimension {axis}"
                ));
            }
            if scales.len() != zps.len() {
                return Err(format!(
                    "quantized type: {} scales but {} zero points",
                    scales.len(),
                    zps.len()
                ));
            }
            scales.iter().try_for_each(|&b| check_scale(b))
        }
        _ => Err("malformed quantized type".into()),
    }
}

/// `!quant.any` (`[flags, storage, expressed or Absent, min, max]`: its storage as a uniform
/// type's, and a float expressed type if it has one) and `!quant.calibrated` (`[expressed,
/// min, max]`: a float, and min below max, as QuantTypes.cpp refuses otherwise).
pub(crate) fn check_any_or_calibrated(m: &Module, params: &[Param]) -> Result<(), String> {
    let float = |t: crate::ir::Type| matches!(m.type_data(t), TypeData::Float(_));
    match params {
        [Param::UInt(f), Param::Type(s), e, Param::Int(lo), Param::Int(hi)] => {
            check_storage(m, *f, *s, *lo, *hi)?;
            match e {
                Param::Type(e) if !float(*e) => {
                    Err("quantized type: expressed type must be a float (invalid kind of type specified)".into())
                }
                _ => Ok(()),
            }
        }
        [Param::Type(e), Param::Float { bits: lo, .. }, Param::Float { bits: hi, .. }] => {
            if !float(*e) {
                return Err("calibrated type: expecting float expressed type".into());
            }
            let (lo, hi) = (f64::from_bits(*lo as u64), f64::from_bits(*hi as u64));
            if lo.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) {
                return Err(format!(
                    "calibrated type: illegal min and max: ({lo:e}:{hi:e})"
                ));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A quantized type's storage: an integer of 1 to 32 bits, and a range it holds.
fn check_storage(
    m: &Module,
    flags: u64,
    storage: crate::ir::Type,
    min: i64,
    max: i64,
) -> Result<(), String> {
    let TypeData::Integer { width, signedness } = *m.type_data(storage) else {
        return Err("quantized type: storage type must be integral".into());
    };
    if width == 0 || width > MAX_STORAGE_BITS {
        return Err(format!(
            "quantized type: illegal storage type size {width} (1 to {MAX_STORAGE_BITS} bits)"
        ));
    }
    let signed = flags & 1 == 1 || signedness == Signedness::Signed;
    let (dmin, dmax) = if signed {
        (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1)
    } else {
        (0, (1i64 << width) - 1)
    };
    // MLIR: `storageTypeMax - storageTypeMin <= 0` is refused too.
    if max.checked_sub(min).is_none_or(|d| d <= 0) || min < dmin || max > dmax {
        return Err(format!(
            "quantized type: illegal storage min and storage max ({min}:{max}); the storage type holds {dmin} to {dmax} and min must be below max"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_ranges_match_the_formats() {
        assert_eq!(scale_range(FloatKind::F16), ((-24f64).exp2(), 65504.0));
        assert_eq!(scale_range(FloatKind::F8E4M3FN), ((-9f64).exp2(), 448.0));
        assert_eq!(scale_range(FloatKind::F32).1, f64::from(f32::MAX));
        // TF32 by its format: the largest finite value has all 10 fraction bits set.
        assert_eq!(
            crate::float::to_f64(FloatKind::TF32, 0x3_FBFF),
            Some(scale_range(FloatKind::TF32).1)
        );
        assert_eq!(
            crate::float::to_f64(FloatKind::TF32, 1),
            Some(scale_range(FloatKind::TF32).0)
        );
    }
}
