//! Float formats: bit patterns to and from `f64`, and MLIR's way of printing a float value.
//!
//! Values are kept as bit patterns everywhere; decimal text goes through `f64` (as MLIR's parser
//! does), and printing follows MLIR's rule: short exponent form when it round-trips exactly,
//! else the longer form with enough digits, else the hexadecimal bit pattern.

use std::fmt::Write;

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
    match kind {
        FloatKind::F64 => Some(f64::from_bits(bits as u64)),
        // Widening is exact (NaN payloads aside, which callers do not look at).
        FloatKind::F32 => Some(f64::from(f32::from_bits(bits as u32))),
        _ => to_f64_by_format(kind, bits),
    }
}

/// [`to_f64`] from the format's description (any kind but f64).
fn to_f64_by_format(kind: FloatKind, bits: u128) -> Option<f64> {
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

/// Rounds `x` to the nearest value of the format (ties to even) and returns its bit pattern,
/// as MLIR's parser does (`APFloat::convert` from the literal's `double`, including its
/// quirks: see `from_f64_exponent_only` and the infinities below); `None` for f80/f128.
pub fn from_f64(kind: FloatKind, x: f64) -> Option<u128> {
    if kind == FloatKind::F32 && x.is_finite() {
        // `as` rounds to nearest, ties to even, and overflows to infinity: IEEE's conversion.
        return Some(u128::from((x as f32).to_bits()));
    }
    from_f64_by_format(kind, x)
}

/// [`from_f64`] for `f8E8M0FNU` (positive powers of two, 0xFF NaN), as `APFloat::convert`
/// gives it: the significand has one bit, so a mantissa of 1.5 or more rounds up (at 1.5, the
/// tie, "to even" goes up: the one bit is odd); zero and values that round to
/// zero give the smallest value 2^-127 (0x00); too large or infinite gives NaN. A negative
/// value keeps its sign in APFloat, whose bit pattern then ORs the sign bit into the top
/// exponent bit: -4.0 gives 0x81 (4.0), -1.0 gives 0xFF (NaN), -0.5 gives 0xFE (2^127).
fn from_f64_exponent_only(x: f64) -> u128 {
    if x.is_nan() || x.is_infinite() {
        return 0xFF;
    }
    let b = x.abs().to_bits();
    let raw_exp = ((b >> 52) & 0x7FF) as i32;
    let m = b & ((1u64 << 52) - 1);
    if raw_exp == 0 {
        // Zero and f64 subnormals: far below 2^-128, they round to zero.
        return 0;
    }
    let exact = raw_exp - 1023;
    let e = if exact < -128 || (exact == -128 && m == 0) {
        // At most half of 2^-127 (2^-128 is the tie, to even): zero, the sign dropped.
        return 0;
    } else if exact == -128 {
        // Above the tie: up to 2^-127, the sign kept (below).
        -127
    } else if m >= 1u64 << 51 {
        exact + 1
    } else {
        exact
    };
    if e > 127 {
        return 0xFF;
    }
    let biased = (e + 127) as u128;
    if x < 0.0 {
        biased | 0x80
    } else {
        biased
    }
}

/// [`from_f64`] from the format's description.
fn from_f64_by_format(kind: FloatKind, x: f64) -> Option<u128> {
    if kind == FloatKind::F64 {
        return Some(x.to_bits() as u128);
    }
    let f = format_of(kind)?;
    if x.is_nan() {
        return Some(f.nan());
    }
    if f.special == Special::ExponentOnly {
        return Some(from_f64_exponent_only(x));
    }
    let sign_shift = f.sign_shift().unwrap_or(0);
    let negative = x.is_sign_negative();
    let sign = if negative { 1u128 << sign_shift } else { 0 };
    // Too large: infinity, else NaN keeping the sign where the format has a signed NaN (`FN`),
    // else the one NaN (`FNUZ`), else (no NaN) the largest finite value (APFloat's
    // `handleOverflow`, `makeInf`, `makeNaN`).
    let overflow = |sign: u128| match f.special {
        Special::Ieee => sign | (((1u128 << f.exp_bits) - 1) << f.man_bits),
        Special::FiniteOnly => sign | f.max_finite(),
        Special::FiniteNanAllOnes => sign | f.nan(),
        Special::FiniteNanNegZero | Special::ExponentOnly => f.nan(),
    };
    if x.is_infinite() {
        // A `double` infinity (`1.0e400`) converts to a format without infinities and NaNs
        // as a zero of its sign (what jaxlib's `APFloat::convert` gives).
        if f.special == Special::FiniteOnly {
            return Some(sign);
        }
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

/// A little-endian base-2^32 natural number, just enough for exact float-to-decimal.
struct Big(Vec<u32>);

impl Big {
    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let v = (*limb as u64) * (m as u64) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }
    /// Divides in place, returning the remainder.
    fn div_small(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let v = (rem << 32) | (*limb as u64);
            *limb = (v / d as u64) as u32;
            rem = v % d as u64;
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        rem as u32
    }
    fn shl(&mut self, bits: u32) {
        for _ in 0..bits / 32 {
            self.0.insert(0, 0);
        }
        let r = bits % 32;
        if r != 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = ((*limb as u64) << r) | carry as u64;
                *limb = v as u32;
                carry = (v >> 32) as u32;
            }
            if carry != 0 {
                self.0.push(carry);
            }
        }
    }
    fn bit_length(&self) -> u32 {
        match self.0.last() {
            None => 0,
            Some(&top) => (self.0.len() as u32 - 1) * 32 + (32 - top.leading_zeros()),
        }
    }
    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
}

/// The exact decimal expansion of `sig * 2^exp`, decimal digits beyond `bits_required` bits
/// dropped by truncation, least significant first and without trailing zeros (which `exp`,
/// then a power of ten, counts), for values that fit in 128 bits; false (nothing written)
/// for the others.
fn small_decimal_digits(sig: u64, exp: &mut i32, bits_required: u32, digits: &mut Vec<u8>) -> bool {
    let mut n = sig as u128;
    let mut e = *exp;
    if e > 0 {
        if e as u32 >= n.leading_zeros() {
            return false;
        }
        n <<= e as u32;
        e = 0;
    } else if e < 0 {
        // N * 2^-e == N * 5^e * 10^-e.
        let mut fives = e.unsigned_abs();
        while fives > 0 {
            let step = fives.min(27);
            match n.checked_mul(5u128.pow(step)) {
                Some(v) => n = v,
                None => return false,
            }
            fives -= step;
        }
    }
    let bits = 128 - n.leading_zeros();
    if bits > bits_required {
        let removable = (bits - bits_required) * 59 / 196;
        // Truncating twice is truncating once; 10^38 < 2^128.
        let mut left = removable;
        while left > 0 {
            let step = left.min(38);
            n /= 10u128.pow(step);
            left -= step;
        }
        e += removable as i32;
    }
    // After the truncation the value almost always fits in 64 bits, where division is cheap.
    let mut in_trail = true;
    let mut push = |d: u8, e: &mut i32| {
        if in_trail && d == 0 {
            *e += 1;
        } else {
            digits.push(b'0' + d);
            in_trail = false;
        }
    };
    while n > u128::from(u64::MAX) {
        push((n % 10) as u8, &mut e);
        n /= 10;
    }
    let mut n = n as u64;
    while n != 0 {
        push((n % 10) as u8, &mut e);
        n /= 10;
    }
    *exp = e;
    true
}

/// [`small_decimal_digits`] for any value, in arbitrary precision.
fn big_decimal_digits(sig: u64, exp: &mut i32, bits_required: u32, digits: &mut Vec<u8>) {
    let mut n = Big(vec![sig as u32, (sig >> 32) as u32]);
    while n.0.last() == Some(&0) {
        n.0.pop();
    }
    if *exp > 0 {
        n.shl(*exp as u32);
        *exp = 0;
    } else if *exp < 0 {
        // N * 2^-e == N * 5^e * 10^-e: `exp` now counts powers of ten. Thirteen fives at a
        // time (5^13 < 2^31).
        let mut fives = exp.unsigned_abs();
        while fives >= 13 {
            n.mul_small(1_220_703_125);
            fives -= 13;
        }
        if fives > 0 {
            n.mul_small(5u32.pow(fives));
        }
    }
    // Drop decimal digits the precision cannot need (truncating, as upstream does).
    let bits = n.bit_length();
    if bits > bits_required {
        let removable = (bits - bits_required) * 59 / 196;
        // Nine digits at a time: truncating twice is truncating once.
        let mut left = removable;
        while left >= 9 {
            n.div_small(1_000_000_000);
            left -= 9;
        }
        if left > 0 {
            n.div_small(10u32.pow(left));
        }
        *exp += removable as i32;
    }
    // Digits, least significant first, without trailing zeros.
    let mut in_trail = true;
    while !n.is_zero() {
        // Nine digits per division; the most significant chunk has no leading zeros.
        let mut chunk = n.div_small(1_000_000_000);
        let last = n.is_zero();
        for _ in 0..9 {
            if last && chunk == 0 {
                break;
            }
            let d = (chunk % 10) as u8;
            chunk /= 10;
            if in_trail && d == 0 {
                *exp += 1;
            } else {
                digits.push(b'0' + d);
                in_trail = false;
            }
        }
    }
}

/// LLVM's `APFloat::toString` for a finite non-zero value held exactly in `v`, whose format
/// has `precision_bits` of significand: the exact decimal expansion, decimal digits beyond
/// what the precision needs dropped by truncation, then rounded half-up to
/// `format_precision` digits (0: the format's default), then laid out in plain or scientific
/// notation (`max_padding` zeros at most; `truncate_zero` as upstream).
fn apfloat_to_string_into(
    out: &mut String,
    v: f64,
    precision_bits: u32,
    format_precision: u32,
    max_padding: u32,
    truncate_zero: bool,
) {
    let digits = |sig: u64, exp: &mut i32, bits_required: u32| {
        let mut digits: Vec<u8> = Vec::with_capacity(48);
        if !small_decimal_digits(sig, exp, bits_required, &mut digits) {
            big_decimal_digits(sig, exp, bits_required, &mut digits);
        }
        digits
    };
    let args = (precision_bits, format_precision, max_padding, truncate_zero);
    apfloat_to_string_by(out, v, args, digits);
}

/// [`apfloat_to_string_into`] with the significant digits of `sig * 2^exp` (odd `sig`) from
/// `digits`: least significant first, `exp` then counting powers of ten, digits beyond
/// `bits_required` bits of precision dropped.
#[inline]
fn apfloat_to_string_by(
    out: &mut String,
    v: f64,
    (precision_bits, format_precision, max_padding, truncate_zero): (u32, u32, u32, bool),
    digits: impl FnOnce(u64, &mut i32, u32) -> Vec<u8>,
) {
    if v.is_sign_negative() {
        out.push('-');
    }
    let b = v.abs().to_bits();
    let raw_exp = ((b >> 52) & 0x7FF) as i32;
    let (mut sig, mut exp) = if raw_exp == 0 {
        (b & ((1u64 << 52) - 1), -1074)
    } else {
        ((b & ((1u64 << 52) - 1)) | (1u64 << 52), raw_exp - 1075)
    };
    let format_precision = if format_precision == 0 {
        2 + precision_bits * 59 / 196
    } else {
        format_precision
    };
    if sig == 0 {
        out.push_str(if truncate_zero { "0.0E+0" } else { "0.0e+00" });
        return;
    }
    let tz = sig.trailing_zeros();
    sig >>= tz;
    exp += tz as i32;
    // 196/59 slightly overestimates log2(10); upstream's formula.
    #[allow(clippy::manual_div_ceil)]
    let bits_required = (format_precision * 196 + 58) / 59;
    let digits = digits(sig, &mut exp, bits_required);
    lay_out_digits(
        out,
        digits,
        exp,
        format_precision,
        max_padding,
        truncate_zero,
    );
}

/// The rest of [`apfloat_to_string_into`] once the significant digits are known (least
/// significant first, no trailing zeros, value `digits * 10^exp`): rounded half-up to
/// `format_precision` digits, then laid out in plain or scientific notation.
fn lay_out_digits(
    out: &mut String,
    mut digits: Vec<u8>,
    mut exp: i32,
    format_precision: u32,
    max_padding: u32,
    truncate_zero: bool,
) {
    // Round half-up to the requested number of digits.
    let count = digits.len();
    let fp = format_precision as usize;
    if count > fp {
        let mut first = count - fp;
        if digits[first - 1] < b'5' {
            while first < count && digits[first] == b'0' {
                first += 1;
            }
            exp += first as i32;
            digits.drain(..first);
        } else {
            let mut i = first;
            while i != count {
                if digits[i] == b'9' {
                    first += 1;
                } else {
                    digits[i] += 1;
                    break;
                }
                i += 1;
            }
            exp += first as i32;
            if first == count {
                digits = vec![b'1'];
            } else {
                digits.drain(..first);
            }
        }
    }
    let nd = digits.len() as i32;
    let digit = |i: i32| digits[i as usize] as char;
    let scientific = if max_padding == 0 {
        true
    } else if exp >= 0 {
        exp as u32 > max_padding || (nd + exp) as u32 > format_precision
    } else {
        let msd = exp + nd - 1;
        msd < 0 && (-msd) as u32 > max_padding
    };
    if scientific {
        let e = exp + nd - 1;
        out.push(digit(nd - 1));
        out.push('.');
        if nd == 1 && truncate_zero {
            out.push('0');
        } else {
            for i in 1..nd {
                out.push(digit(nd - 1 - i));
            }
        }
        if !truncate_zero && fp as i32 > nd - 1 {
            for _ in 0..(fp as i32 - nd + 1) {
                out.push('0');
            }
        }
        out.push(if truncate_zero { 'E' } else { 'e' });
        out.push(if e >= 0 { '+' } else { '-' });
        let mag = e.unsigned_abs();
        if !truncate_zero && mag < 10 {
            out.push('0');
        }
        push_decimal(out, mag);
        return;
    }
    if exp >= 0 {
        for i in 0..nd {
            out.push(digit(nd - 1 - i));
        }
        for _ in 0..exp {
            out.push('0');
        }
        return;
    }
    let whole = exp + nd;
    let mut i = 0;
    if whole > 0 {
        while i < whole {
            out.push(digit(nd - 1 - i));
            i += 1;
        }
        out.push('.');
    } else {
        out.push_str("0.");
        for _ in 0..(-whole) {
            out.push('0');
        }
    }
    while i < nd {
        out.push(digit(nd - 1 - i));
        i += 1;
    }
}

/// [`apfloat_to_string_into`] as a new string.
#[cfg(test)]
fn apfloat_to_string(
    v: f64,
    precision_bits: u32,
    format_precision: u32,
    max_padding: u32,
    truncate_zero: bool,
) -> String {
    let mut out = String::new();
    apfloat_to_string_into(
        &mut out,
        v,
        precision_bits,
        format_precision,
        max_padding,
        truncate_zero,
    );
    out
}

/// Significand bits of a format (APFloat's `precision`).
fn default_precision_bits(kind: FloatKind) -> u32 {
    match format_of(kind) {
        Some(f) => f.man_bits + 1,
        None => 64,
    }
}

/// Formats a float value the way MLIR prints a float attribute or dense element: 6 digits
/// in exponent form when they parse back to the same value, else the format's full digits,
/// else (infinities, NaNs, no `.`) the hexadecimal bit pattern.
pub fn format_float(kind: FloatKind, bits: u128) -> String {
    let mut out = String::new();
    format_float_into(&mut out, kind, bits);
    out
}

/// The value of `[-]d.dddddde±XX` (the six-digit form) when one exact operation gives it
/// correctly rounded, as `str::parse` would (Clinger's fast path: integer significand below
/// 2^53 and a power of ten up to 10^22, both exact in `f64`); `None` otherwise.
fn parse_short_form(s: &str) -> Option<f64> {
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let b = s.as_bytes();
    if b.len() < 5 || b[1] != b'.' {
        return None;
    }
    let e_at = b.iter().position(|&c| c == b'e')?;
    let mut significand: u64 = 0;
    let mut fraction_digits: i32 = 0;
    for (i, &c) in b[..e_at].iter().enumerate() {
        if i == 1 {
            continue;
        }
        if !c.is_ascii_digit() || significand > (1 << 49) {
            return None;
        }
        significand = significand * 10 + u64::from(c - b'0');
        if i > 1 {
            fraction_digits += 1;
        }
    }
    let exp: i32 = s.get(e_at + 1..)?.parse().ok()?;
    let scale = exp - fraction_digits;
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let m = significand as f64;
    let v = if scale >= 0 {
        m * *POW10.get(scale as usize)?
    } else {
        m / *POW10.get(scale.unsigned_abs() as usize)?
    };
    Some(if negative { -v } else { v })
}

/// [`format_float`] appended to `out` (the printer's path: no string per number).
pub(crate) fn format_float_into(out: &mut String, kind: FloatKind, bits: u128) {
    let start = out.len();
    if let Some(v) = to_f64(kind, bits) {
        if v.is_finite() {
            let precision_bits = default_precision_bits(kind);
            if v == 0.0 {
                out.push_str(if v.is_sign_negative() {
                    "-0.000000e+00"
                } else {
                    "0.000000e+00"
                });
                return;
            }
            apfloat_to_string_into(out, v, precision_bits, 6, 0, false);
            let short = &out[start..];
            let parsed = parse_short_form(short).or_else(|| short.parse::<f64>().ok());
            if parsed.and_then(|p| from_f64(kind, p)) == Some(bits) {
                return;
            }
            out.truncate(start);
            apfloat_to_string_into(out, v, precision_bits, 0, 3, true);
            if out[start..].contains('.') {
                return;
            }
            out.truncate(start);
        }
    }
    let _ = write!(out, "0x{:X}", bits);
}

/// "00" to "99", for writing two digits at a time.
const DIGIT_PAIRS: &str = concat!(
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839",
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879",
    "8081828384858687888990919293949596979899",
);

/// Appends `n` in decimal (the printer's hot path: no formatting machinery).
pub(crate) fn push_decimal(out: &mut String, n: u32) {
    // Unrolled by magnitude, no recursion or loop: this prints every value number and
    // dimension. Each push has a constant length (an inlined store, no copy call) and each
    // division a constant divisor.
    let pair = |out: &mut String, k: u32| {
        let at = 2 * k as usize;
        out.push_str(DIGIT_PAIRS.get(at..at + 2).unwrap_or_default());
    };
    // One or two digits.
    let lead = |out: &mut String, k: u32| {
        if k < 10 {
            out.push(char::from(b'0' + k as u8));
        } else {
            pair(out, k);
        }
    };
    if n < 100 {
        lead(out, n);
    } else if n < 10_000 {
        lead(out, n / 100);
        pair(out, n % 100);
    } else if n < 1_000_000 {
        lead(out, n / 10_000);
        let r = n % 10_000;
        pair(out, r / 100);
        pair(out, r % 100);
    } else {
        let top = n / 1_000_000;
        if top < 100 {
            lead(out, top);
        } else {
            // At most 4294: four digits.
            lead(out, top / 100);
            pair(out, top % 100);
        }
        let r = n % 1_000_000;
        pair(out, r / 10_000);
        pair(out, r / 100 % 100);
        pair(out, r % 100);
    }
}

/// `n` in decimal, as `{n}` formats it, without the formatting machinery for the usual sizes.
pub(crate) fn push_i64(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    match u32::try_from(n.unsigned_abs()) {
        Ok(small) => push_decimal(out, small),
        Err(_) => {
            let _ = write!(out, "{}", n.unsigned_abs());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`apfloat_to_string`] with its digits from [`reference_digits`], the exact expansion
    /// one digit at a time: kept to check the faster digit generation.
    fn apfloat_to_string_reference(
        v: f64,
        precision_bits: u32,
        format_precision: u32,
        max_padding: u32,
        truncate_zero: bool,
    ) -> String {
        let mut out = String::new();
        let args = (precision_bits, format_precision, max_padding, truncate_zero);
        apfloat_to_string_by(&mut out, v, args, reference_digits);
        out
    }

    /// The decimal digits of `sig * 2^exp` as [`apfloat_to_string_by`] wants them, by big-number
    /// arithmetic.
    fn reference_digits(sig: u64, exp: &mut i32, bits_required: u32) -> Vec<u8> {
        let mut n = Big(vec![sig as u32, (sig >> 32) as u32]);
        while n.0.last() == Some(&0) {
            n.0.pop();
        }
        if *exp > 0 {
            n.shl(*exp as u32);
            *exp = 0;
        } else if *exp < 0 {
            // N * 2^-e == N * 5^e * 10^-e: `exp` now counts powers of ten.
            for _ in 0..(-*exp) {
                n.mul_small(5);
            }
        }
        // Drop decimal digits the precision cannot need (truncating, as upstream does).
        let bits = n.bit_length();
        if bits > bits_required {
            let removable = (bits - bits_required) * 59 / 196;
            for _ in 0..removable {
                n.div_small(10);
            }
            *exp += removable as i32;
        }
        // Digits, least significant first, without trailing zeros.
        let mut digits: Vec<u8> = Vec::new();
        let mut in_trail = true;
        while !n.is_zero() {
            let d = n.div_small(10) as u8;
            if in_trail && d == 0 {
                *exp += 1;
            } else {
                digits.push(b'0' + d);
                in_trail = false;
            }
        }
        digits
    }

    #[test]
    fn f32_fast_paths_match_the_format_description() {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for i in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bits = u128::from(x as u32);
            let a = to_f64(FloatKind::F32, bits).unwrap();
            let b = to_f64_by_format(FloatKind::F32, bits).unwrap();
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{bits:#x}"
            );
            // f64 values near f32 ones, halfway points and out-of-range ones.
            let v = match i % 3 {
                0 => f64::from_bits(x),
                1 => a + a * f64::EPSILON * f64::from(i % 7),
                _ => f64::from(f32::from_bits(x as u32)) * (1.0 + 2f64.powi(-24)),
            };
            if v.is_finite() {
                assert_eq!(
                    from_f64(FloatKind::F32, v),
                    from_f64_by_format(FloatKind::F32, v),
                    "{v:e}"
                );
            }
        }
    }

    #[test]
    fn short_form_fast_parse_matches_str_parse() {
        let mut x: u64 = 0x1234_5678_9ABC_DEF1;
        let mut fast = 0;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x);
            if !v.is_finite() {
                continue;
            }
            let text = format!("{v:.6e}").replace('e', "e+").replace("e+-", "e-");
            if let Some(p) = parse_short_form(&text) {
                assert_eq!(
                    p.to_bits(),
                    text.parse::<f64>().unwrap().to_bits(),
                    "{text}"
                );
                fast += 1;
            }
            let small = f64::from(x as u32 as f32);
            let text = format!("{small:.6e}")
                .replace('e', "e+")
                .replace("e+-", "e-");
            if let Some(p) = parse_short_form(&text) {
                assert_eq!(
                    p.to_bits(),
                    text.parse::<f64>().unwrap().to_bits(),
                    "{text}"
                );
                fast += 1;
            }
        }
        assert!(fast > 20_000, "{fast}");
        for text in ["1.000000e+01", "-2.500000e-03", "9.999990e-06", "1.0E+0"] {
            assert_eq!(
                parse_short_form(text),
                text.parse::<f64>().ok().filter(|_| text.contains('e')),
                "{text}"
            );
        }
    }

    #[test]
    fn chunked_digits_match_digit_at_a_time() {
        // xorshift: deterministic bit patterns across every exponent.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut checked = 0;
        for i in 0..12_000u32 {
            let r = next();
            let v = match i % 3 {
                0 => f64::from_bits(r),
                1 => f32::from_bits(r as u32) as f64,
                _ => f64::from_bits((r & !(0x7FFu64 << 52)) | (u64::from(i % 2047) << 52)),
            };
            if !v.is_finite() || v == 0.0 {
                continue;
            }
            for precision_bits in [11, 24, 53] {
                for (fp, pad, tz) in [(6, 0, false), (0, 3, true)] {
                    assert_eq!(
                        apfloat_to_string(v, precision_bits, fp, pad, tz),
                        apfloat_to_string_reference(v, precision_bits, fp, pad, tz),
                        "{v:e} ({:#x}), {precision_bits} bits",
                        v.to_bits()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 30_000);
    }

    #[test]
    fn push_i64_formats_as_display() {
        for n in [
            0i64,
            7,
            -7,
            4_294_967_295,
            4_294_967_296,
            -4_294_967_296,
            i64::MIN,
            i64::MAX,
        ] {
            let mut s = String::new();
            push_i64(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }

    #[test]
    fn push_decimal_at_every_digit_count() {
        let mut cases = vec![0u32, u32::MAX];
        let mut p = 1u32;
        while let Some(next) = p.checked_mul(10) {
            cases.extend([p - 1, p, p + 1, next / 2 + 7]);
            p = next;
        }
        cases.extend([p - 1, p, p + 1]);
        for n in cases {
            let mut s = String::from("x");
            push_decimal(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
    }

    #[test]
    fn prints_like_mlir() {
        let f32b = |x: f32| x.to_bits() as u128;
        assert_eq!(format_float(FloatKind::F32, f32b(34.0)), "3.400000e+01");
        // APFloat truncates before rounding: the 6-digit form of f32 1e-5 is 9.999990e-06,
        // which does not parse back, so MLIR prints nine digits.
        assert_eq!(format_float(FloatKind::F32, f32b(1e-5)), "9.99999974E-6");
        assert_eq!(format_float(FloatKind::F32, f32b(0.1)), "1.000000e-01");
        assert_eq!(format_float(FloatKind::F32, f32b(1.1234567)), "1.12345672");
        assert_eq!(
            format_float(FloatKind::F64, 1.0e-20f64.to_bits() as u128),
            "9.9999999999999995E-21"
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
        // Values computed with the same algorithm as upstream (checked against MLIR output).
        let f64b = |x: f64| x.to_bits() as u128;
        assert_eq!(format_float(FloatKind::F64, f64b(0.3)), "3.000000e-01");
        assert_eq!(format_float(FloatKind::F64, f64b(1e10)), "1.000000e+10");
        assert_eq!(format_float(FloatKind::F64, f64b(5e-324)), "4.940660e-324");
        assert_eq!(
            format_float(FloatKind::F64, f64b(f64::MAX)),
            "1.7976931348623157E+308"
        );
        assert_eq!(format_float(FloatKind::F32, f32b(3.0e-6)), "3.000000e-06");
        assert_eq!(format_float(FloatKind::F32, f32b(123.456)), "1.234560e+02");
        assert_eq!(
            format_float(FloatKind::F32, f32b(f32::MIN_POSITIVE)),
            "1.17549435E-38"
        );
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
        for kind in FloatKind::ALL.into_iter().filter(|k| k.bit_width() <= 8) {
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
