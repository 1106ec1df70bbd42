//! Float formats: bit patterns to and from `f64`, and MLIR's way of printing a float value.
//!
//! Values are kept as bit patterns everywhere; decimal text goes through `f64` (as MLIR's parser
//! does), and printing follows MLIR's rule: short exponent form when it round-trips exactly,
//! else the longer form with enough digits, else the hexadecimal bit pattern.

use crate::ir::FloatKind;

/// How a small float format handles the special values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Special {
    /// IEEE: all-ones exponent holds infinities and NaNs.
    Ieee,
    /// Finite except one NaN pattern per sign: all exponent and mantissa bits set (`FN`).
    FiniteNanAllOnes,
    /// Finite, no negative zero: the negative-zero pattern is the only NaN (`FNUZ`).
    FiniteNanNegZero,
    /// No special values at all.
    FiniteOnly,
    /// `f8E8M0FNU`: exponent only, no sign, 0xFF is NaN.
    ExponentOnly,
}

#[derive(Clone, Copy)]
struct Format {
    exp_bits: u32,
    man_bits: u32,
    bias: i32,
    special: Special,
}

fn format_of(kind: FloatKind) -> Option<Format> {
    use FloatKind::*;
    use Special::*;
    let f = |exp_bits, man_bits, bias, special| {
        Some(Format {
            exp_bits,
            man_bits,
            bias,
            special,
        })
    };
    match kind {
        F4E2M1FN => f(2, 1, 1, FiniteOnly),
        F6E2M3FN => f(2, 3, 1, FiniteOnly),
        F6E3M2FN => f(3, 2, 3, FiniteOnly),
        F8E3M4 => f(3, 4, 3, Ieee),
        F8E4M3 => f(4, 3, 7, Ieee),
        F8E4M3FN => f(4, 3, 7, FiniteNanAllOnes),
        F8E4M3FNUZ => f(4, 3, 8, FiniteNanNegZero),
        F8E4M3B11FNUZ => f(4, 3, 11, FiniteNanNegZero),
        F8E5M2 => f(5, 2, 15, Ieee),
        F8E5M2FNUZ => f(5, 2, 16, FiniteNanNegZero),
        F8E8M0FNU => f(8, 0, 127, ExponentOnly),
        BF16 => f(8, 7, 127, Ieee),
        F16 => f(5, 10, 15, Ieee),
        TF32 => f(8, 10, 127, Ieee),
        F32 => f(8, 23, 127, Ieee),
        F64 => f(11, 52, 1023, Ieee),
        F80 | F128 => None,
    }
}

impl Format {
    fn sign_shift(&self) -> Option<u32> {
        (self.special != Special::ExponentOnly).then_some(self.exp_bits + self.man_bits)
    }
    fn nan(&self) -> u128 {
        let all_exp = ((1u128 << self.exp_bits) - 1) << self.man_bits;
        match self.special {
            Special::Ieee => all_exp | (1u128 << (self.man_bits - 1)),
            Special::FiniteNanAllOnes => all_exp | ((1u128 << self.man_bits) - 1),
            Special::FiniteNanNegZero => 1u128 << (self.exp_bits + self.man_bits),
            Special::FiniteOnly => all_exp | ((1u128 << self.man_bits) - 1),
            Special::ExponentOnly => 0xFF,
        }
    }
    /// Largest finite magnitude pattern.
    fn max_finite(&self) -> u128 {
        let all = (1u128 << (self.exp_bits + self.man_bits)) - 1;
        match self.special {
            Special::Ieee => (((1u128 << self.exp_bits) - 1) << self.man_bits) - 1,
            Special::FiniteNanAllOnes => all - 1,
            Special::FiniteNanNegZero | Special::FiniteOnly => all,
            Special::ExponentOnly => 0xFE,
        }
    }
}

/// The value of a bit pattern as `f64` (exact for every format up to f64); `None` for f80/f128.
pub fn to_f64(kind: FloatKind, bits: u128) -> Option<f64> {
    if kind == FloatKind::F64 {
        return Some(f64::from_bits(bits as u64));
    }
    let f = format_of(kind)?;
    if f.special == Special::ExponentOnly {
        let e = (bits & 0xFF) as i32;
        return Some(if e == 0xFF {
            f64::NAN
        } else {
            2f64.powi(e - 127)
        });
    }
    let sign_shift = f.sign_shift().unwrap_or(0);
    let negative = (bits >> sign_shift) & 1 == 1;
    let mag = bits & ((1u128 << sign_shift) - 1);
    let e = (mag >> f.man_bits) as i32;
    let m = (mag & ((1u128 << f.man_bits) - 1)) as f64;
    let all_exp = (1i32 << f.exp_bits) - 1;
    let v = match f.special {
        Special::Ieee if e == all_exp => {
            if m == 0.0 {
                f64::INFINITY
            } else {
                f64::NAN
            }
        }
        Special::FiniteNanAllOnes if mag == (1u128 << sign_shift) - 1 => f64::NAN,
        Special::FiniteNanNegZero if negative && mag == 0 => return Some(f64::NAN),
        _ => {
            let scale = 2f64.powi(-(f.man_bits as i32));
            if e == 0 {
                m * scale * 2f64.powi(1 - f.bias)
            } else {
                (1.0 + m * scale) * 2f64.powi(e - f.bias)
            }
        }
    };
    Some(if negative { -v } else { v })
}

/// Rounds `x` to the nearest value of the format (ties to even) and returns its bit pattern;
/// `None` for f80/f128.
pub fn from_f64(kind: FloatKind, x: f64) -> Option<u128> {
    if kind == FloatKind::F64 {
        return Some(x.to_bits() as u128);
    }
    let f = format_of(kind)?;
    if x.is_nan() {
        return Some(f.nan());
    }
    if f.special == Special::ExponentOnly {
        if x <= 0.0 {
            return Some(0xFF);
        }
        // Round log2 to nearest: a mantissa at or above 1.5 goes up (ties to even exponent).
        let b = x.to_bits();
        let e = ((b >> 52) & 0x7FF) as i32 - 1023;
        let m = b & ((1u64 << 52) - 1);
        let half = 1u64 << 51;
        let e = if m > half || (m == half && (e + 127) % 2 != 0) {
            e + 1
        } else {
            e
        };
        return Some(if e > 127 {
            0xFF
        } else if e < -127 {
            0
        } else {
            (e + 127) as u128
        });
    }
    let sign_shift = f.sign_shift().unwrap_or(0);
    let negative = x.is_sign_negative();
    let sign = if negative { 1u128 << sign_shift } else { 0 };
    let overflow = |sign: u128| match f.special {
        Special::Ieee => sign | (((1u128 << f.exp_bits) - 1) << f.man_bits),
        Special::FiniteOnly => sign | f.max_finite(),
        _ => f.nan(),
    };
    if x.is_infinite() {
        return Some(overflow(sign));
    }
    let a = x.abs();
    if a == 0.0 {
        return Some(if f.special == Special::FiniteNanNegZero {
            0
        } else {
            sign
        });
    }
    // a = sig * 2^e2 exactly.
    let b = a.to_bits();
    let raw_exp = ((b >> 52) & 0x7FF) as i32;
    let (sig, e2) = if raw_exp == 0 {
        (b & ((1u64 << 52) - 1), -1074)
    } else {
        ((b & ((1u64 << 52) - 1)) | (1u64 << 52), raw_exp - 1075)
    };
    let top = 63 - sig.leading_zeros() as i32; // a in [2^(top+e2), 2^(top+e2+1))
    let unbiased = top + e2;
    let emin = 1 - f.bias;
    let q_exp = unbiased.max(emin) - f.man_bits as i32;
    let shift = e2 - q_exp;
    let q: u128 = if shift >= 0 {
        if shift > 100 {
            return Some(overflow(sign));
        }
        (sig as u128) << shift
    } else {
        let s = (-shift) as u32;
        if s > 64 {
            0
        } else {
            let sig = sig as u128;
            let kept = sig >> s;
            let rem = sig & ((1u128 << s) - 1);
            let half = 1u128 << (s - 1);
            if rem > half || (rem == half && kept & 1 == 1) {
                kept + 1
            } else {
                kept
            }
        }
    };
    let biased_minus_one = (unbiased.max(emin) + f.bias - 1) as i128;
    let field = ((biased_minus_one as u128) << f.man_bits) + q;
    if field > f.max_finite() {
        return Some(overflow(sign));
    }
    if field == 0 && f.special == Special::FiniteNanNegZero {
        return Some(0);
    }
    Some(sign | field)
}

/// MLIR's `APFloat::toString` digit layout for a finite value with `precision` significant
/// digits, trailing zeros dropped, at most 3 padding zeros before scientific notation.
fn apfloat_default_string(v: f64, precision: usize) -> String {
    let s = format!("{:.*e}", precision.saturating_sub(1), v.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: Vec<u8> = mant.bytes().filter(|c| c.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    let n = digits.len() as i32;
    // value = digits * 10^(exp10)
    let exp10 = exp - (n - 1);
    let scientific = if exp10 >= 0 {
        exp10 > 3 || n + exp10 > precision as i32
    } else {
        let msd = exp10 + n - 1;
        msd < 0 && -msd > 3
    };
    let mut out = String::new();
    if v.is_sign_negative() {
        out.push('-');
    }
    let d = |i: usize| digits[i] as char;
    if scientific {
        out.push(d(0));
        out.push('.');
        if n == 1 {
            out.push('0');
        } else {
            for i in 1..n as usize {
                out.push(d(i));
            }
        }
        out.push('E');
        out.push(if exp >= 0 { '+' } else { '-' });
        out.push_str(&exp.abs().to_string());
    } else if exp10 >= 0 {
        for i in 0..n as usize {
            out.push(d(i));
        }
        for _ in 0..exp10 {
            out.push('0');
        }
    } else {
        let whole = exp10 + n;
        let mut i = 0usize;
        if whole > 0 {
            while (i as i32) < whole {
                out.push(d(i));
                i += 1;
            }
            out.push('.');
        } else {
            out.push_str("0.");
            for _ in 0..(-whole) {
                out.push('0');
            }
        }
        while (i as i32) < n {
            out.push(d(i));
            i += 1;
        }
    }
    out
}

/// Significant decimal digits MLIR's default float printing uses for a format.
fn default_precision(kind: FloatKind) -> usize {
    let bits_of_precision = match format_of(kind) {
        Some(f) => f.man_bits as usize + 1,
        None => 64,
    };
    2 + bits_of_precision * 59 / 196
}

/// Formats a float value the way MLIR prints a float attribute or dense element.
pub fn format_float(kind: FloatKind, bits: u128) -> String {
    if let Some(v) = to_f64(kind, bits) {
        if v.is_finite() {
            let s = format!("{:.5e}", v);
            if let Some((mant, exp)) = s.split_once('e') {
                let exp: i32 = exp.parse().unwrap_or(0);
                let short = format!(
                    "{}0e{}{:02}",
                    mant,
                    if exp < 0 { '-' } else { '+' },
                    exp.unsigned_abs()
                );
                if short.parse::<f64>().ok().and_then(|p| from_f64(kind, p)) == Some(bits) {
                    return short;
                }
            }
            let long = apfloat_default_string(v, default_precision(kind));
            if long.contains('.')
                && long.parse::<f64>().ok().and_then(|p| from_f64(kind, p)) == Some(bits)
            {
                return long;
            }
        }
    }
    format!("0x{:X}", bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_like_mlir() {
        let f32b = |x: f32| x.to_bits() as u128;
        assert_eq!(format_float(FloatKind::F32, f32b(34.0)), "3.400000e+01");
        assert_eq!(format_float(FloatKind::F32, f32b(1e-5)), "1.000000e-05");
        assert_eq!(format_float(FloatKind::F32, f32b(1.1234567)), "1.12345672");
        assert_eq!(
            format_float(FloatKind::F64, 1.0e-20f64.to_bits() as u128),
            "1.000000e-20"
        );
        assert_eq!(
            format_float(FloatKind::F64, 1.234567891e-20f64.to_bits() as u128),
            "1.2345678909999999E-20"
        );
        assert_eq!(
            format_float(FloatKind::F64, 123456789.0f64.to_bits() as u128),
            "0x419D6F3454000000"
        );
        assert_eq!(
            format_float(FloatKind::F64, 1e-5f64.to_bits() as u128),
            "1.000000e-05"
        );
        assert_eq!(format_float(FloatKind::F32, f32b(-0.0)), "-0.000000e+00");
        assert_eq!(format_float(FloatKind::F32, 0x7FC0_0000), "0x7FC00000");
        assert_eq!(format_float(FloatKind::F32, 0x7F80_0000), "0x7F800000");
        assert_eq!(
            format_float(FloatKind::F64, std::f64::consts::PI.to_bits() as u128),
            "3.1415926535897931"
        );
        assert_eq!(
            format_float(FloatKind::F32, f32b(std::f32::consts::PI)),
            "3.14159274"
        );
    }

    #[test]
    fn small_formats_round_trip_every_pattern() {
        use FloatKind::*;
        for kind in [
            F4E2M1FN,
            F6E2M3FN,
            F6E3M2FN,
            F8E3M4,
            F8E4M3,
            F8E4M3FN,
            F8E4M3FNUZ,
            F8E4M3B11FNUZ,
            F8E5M2,
            F8E5M2FNUZ,
            F8E8M0FNU,
        ] {
            let width = kind.bit_width();
            for bits in 0u128..(1 << width) {
                let v = to_f64(kind, bits).unwrap();
                if v.is_nan() {
                    continue;
                }
                if v.is_infinite() {
                    assert_eq!(from_f64(kind, v), Some(bits), "{kind:?} {bits:#x}");
                    continue;
                }
                assert_eq!(from_f64(kind, v), Some(bits), "{kind:?} {bits:#x} = {v}");
            }
        }
        assert_eq!(from_f64(F16, 65520.0), Some(0x7C00));
        assert_eq!(from_f64(BF16, 1.0), Some(0x3F80));
        assert_eq!(from_f64(F8E4M3FN, 448.0), Some(0x7E));
    }
}
