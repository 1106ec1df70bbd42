//! Integers wider than 128 bits (MLIR allows up to 16,777,215): values as little-endian 64-bit
//! words, the low `width` bits significant and the rest zero, as `llvm::APInt` holds them.
//! Just the arithmetic the parser, printer and bytecode need: decimal and hexadecimal digits in
//! and out, negation and range checks.

// Input path: no panics whatever the text or bytes.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

/// MLIR's widest integer type (`IntegerType::kMaxWidth`).
pub const MAX_WIDTH: u32 = 16_777_215;

/// Words of a `width`-bit value.
pub fn word_count(width: u32) -> usize {
    (width as usize).div_ceil(64).max(1)
}

/// The magnitude of the digits `text` (decimal, or hexadecimal without `0x` when `hex`), or
/// `None` when it needs more than `max_bits` bits. Decimal costs quadratic time in the digit
/// count, as `APInt::fromString` does; the digit count is checked against `max_bits` first.
pub fn parse_magnitude(text: &str, hex: bool, max_bits: u32) -> Option<Vec<u64>> {
    let digits = text.trim_start_matches('0');
    let bits_per_digit = if hex { 4.0 } else { std::f64::consts::LOG2_10 };
    // More digits than `max_bits` can hold (with one to spare for rounding): out of range.
    if digits.len() as f64 > f64::from(max_bits) / bits_per_digit + 1.0 {
        return None;
    }
    let mut words: Vec<u64> = Vec::with_capacity((digits.len() / 16).saturating_add(1));
    if hex {
        for chunk in digits.as_bytes().rchunks(16) {
            let s = std::str::from_utf8(chunk).ok()?;
            words.push(u64::from_str_radix(s, 16).ok()?);
        }
    } else {
        // Nineteen decimal digits at a time: 10^19 < 2^64.
        let bytes = digits.as_bytes();
        let first = bytes.len() % 19;
        let mut chunks: Vec<&[u8]> = Vec::new();
        if first > 0 {
            chunks.push(bytes.get(..first)?);
        }
        chunks.extend(bytes.get(first..)?.chunks(19));
        for chunk in chunks {
            let s = std::str::from_utf8(chunk).ok()?;
            let value: u64 = s.parse().ok()?;
            let scale = 10u64.checked_pow(chunk.len() as u32)?;
            mul_add(&mut words, scale, value);
        }
    }
    trim(&mut words);
    (bit_length(&words) <= max_bits).then_some(words)
}

/// `words = words * scale + add`.
fn mul_add(words: &mut Vec<u64>, scale: u64, add: u64) {
    let mut carry = u128::from(add);
    for w in words.iter_mut() {
        let v = u128::from(*w)
            .wrapping_mul(u128::from(scale))
            .wrapping_add(carry);
        *w = v as u64;
        carry = v >> 64;
    }
    if carry != 0 {
        words.push(carry as u64);
    }
}

/// Drops high zero words.
fn trim(words: &mut Vec<u64>) {
    while words.last() == Some(&0) {
        words.pop();
    }
}

/// Bits up to the highest set one.
pub fn bit_length(words: &[u64]) -> u32 {
    match words.iter().rposition(|&w| w != 0) {
        None => 0,
        Some(i) => {
            let top = words.get(i).copied().unwrap_or(0);
            (i as u32)
                .saturating_mul(64)
                .saturating_add(64u32.saturating_sub(top.leading_zeros()))
        }
    }
}

/// `magnitude` as a `width`-bit value, negated (two's complement) when `negative`.
pub fn from_magnitude(magnitude: &[u64], negative: bool, width: u32) -> Vec<u64> {
    let mut words = vec![0u64; word_count(width)];
    for (w, m) in words.iter_mut().zip(magnitude) {
        *w = *m;
    }
    if negative {
        negate(&mut words);
    }
    clear_above(&mut words, width);
    words
}

/// Two's complement negation in place.
fn negate(words: &mut [u64]) {
    let mut carry = true;
    for w in words.iter_mut() {
        let (v, c) = (!*w).overflowing_add(u64::from(carry));
        *w = v;
        carry = c;
    }
}

/// Zeroes the bits at and above `width`.
pub fn clear_above(words: &mut [u64], width: u32) {
    let keep = width % 64;
    let full = (width / 64) as usize;
    for (i, w) in words.iter_mut().enumerate() {
        if i > full || (i == full && keep == 0) {
            *w = 0;
        } else if i == full {
            *w &= (1u64 << keep).wrapping_sub(1);
        }
    }
}

/// Whether bit `width - 1` (the sign bit of a signed reading) is set.
pub fn sign_bit(words: &[u64], width: u32) -> bool {
    let Some(top) = width.checked_sub(1) else {
        return false;
    };
    words
        .get((top / 64) as usize)
        .is_some_and(|w| (w >> (top % 64)) & 1 == 1)
}

/// The value in decimal: signed (two's complement over `width` bits) unless `unsigned`, as
/// `APInt::toString` prints it.
pub fn to_decimal(words: &[u64], width: u32, unsigned: bool) -> String {
    let mut magnitude = words.to_vec();
    clear_above(&mut magnitude, width);
    let negative = !unsigned && sign_bit(&magnitude, width);
    if negative {
        negate(&mut magnitude);
        clear_above(&mut magnitude, width);
    }
    trim(&mut magnitude);
    // Nineteen digits per division by 10^19.
    let mut chunks: Vec<u64> = Vec::new();
    const TEN19: u64 = 10_000_000_000_000_000_000;
    while !magnitude.is_empty() {
        let mut rem = 0u128;
        for w in magnitude.iter_mut().rev() {
            let v = (rem << 64) | u128::from(*w);
            *w = v.checked_div(u128::from(TEN19)).unwrap_or(0) as u64;
            rem = v.checked_rem(u128::from(TEN19)).unwrap_or(0);
        }
        chunks.push(rem as u64);
        trim(&mut magnitude);
    }
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    match chunks.split_last() {
        None => out.push('0'),
        Some((top, rest)) => {
            out.push_str(&top.to_string());
            for c in rest.iter().rev() {
                out.push_str(&format!("{c:019}"));
            }
        }
    }
    out
}

/// The value from little-endian storage bytes (dense elements).
pub fn from_le_bytes(bytes: &[u8], width: u32) -> Vec<u64> {
    let mut words = vec![0u64; word_count(width)];
    for (w, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
        let mut b = [0u8; 8];
        for (d, s) in b.iter_mut().zip(chunk) {
            *d = *s;
        }
        *w = u64::from_le_bytes(b);
    }
    clear_above(&mut words, width);
    words
}

/// `n` storage bytes of the value (dense elements): `APInt`'s raw bytes, so the bits past
/// `width` are zero whatever the sign (jaxlib writes -2 : i129 as `FE FF .. FF 01`).
pub fn to_le_bytes(words: &[u64], n: usize) -> Vec<u8> {
    let mut out: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    out.resize(n, 0);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::arithmetic_side_effects)]
mod tests {
    use super::*;

    #[test]
    fn decimal_round_trips_at_many_widths() {
        let two_200 = "1606938044258990275541962092341162602522202993782792835301376";
        let m = parse_magnitude(two_200, false, 256).unwrap();
        assert_eq!(bit_length(&m), 201);
        assert_eq!(
            to_decimal(&from_magnitude(&m, false, 256), 256, false),
            two_200
        );
        let neg = from_magnitude(&m, true, 256);
        assert_eq!(to_decimal(&neg, 256, false), format!("-{two_200}"));
        assert_eq!(
            to_decimal(&neg, 256, true),
            "115792089237316193816632940749697632311307892324477961517254590225120294338560"
        );
        assert_eq!(parse_magnitude(two_200, false, 200), None);
        assert_eq!(
            parse_magnitude("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", true, 132).map(|m| bit_length(&m)),
            Some(132)
        );
        assert_eq!(to_decimal(&[0, 0, 0], 129, false), "0");
        assert_eq!(to_decimal(&[u64::MAX, u64::MAX, 1], 129, false), "-1");
        assert_eq!(
            to_le_bytes(&[u64::MAX - 1, u64::MAX, 1], 17),
            [vec![0xFE], vec![0xFF; 15], vec![0x01]].concat()
        );
    }
}
