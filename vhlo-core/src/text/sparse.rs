//! `#sparse_tensor.encoding<{...}>` in MLIR's printed spelling.
//!
//! The IR keeps attributes of dialects other than StableHLO/VHLO as text; for sparse encodings
//! (which StableHLO tensors may carry) the text is respaced as MLIR prints it, so that two
//! spellings of one encoding are one attribute and printing matches `stablehlo-opt`:
//! `<{ map = (d0, d1) -> (d0 : dense, d1 : compressed), posWidth = 32 }>`, entries in MLIR's
//! order, zero widths left out. Expressions are kept as written (MLIR would also simplify
//! affine expressions and respell `explicitVal`/`implicitVal` numbers).

/// One token of an encoding body.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tok<'a> {
    /// Identifier, keyword or number.
    Word(&'a str),
    /// Punctuation or operator.
    Punct(&'a str),
}

const MAX_TOKENS: usize = 1 << 16;

fn tokenize(s: &str) -> Option<Vec<Tok<'_>>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if out.len() >= MAX_TOKENS {
            return None;
        }
        let start = i;
        if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' {
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'.' | b'$'))
            {
                i += 1;
            }
            // Float exponents: `1.0e-03`.
            if c.is_ascii_digit()
                && i < b.len()
                && matches!(b[i], b'+' | b'-')
                && matches!(b[i - 1], b'e' | b'E')
            {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            out.push(Tok::Word(&s[start..i]));
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            if i >= b.len() {
                return None;
            }
            i += 1;
            out.push(Tok::Word(&s[start..i]));
        } else if c == b'-' && b.get(i + 1) == Some(&b'>') {
            i += 2;
            out.push(Tok::Punct("->"));
        } else if b"()[]{}<>,:=+-*#?".contains(&c) {
            i += 1;
            out.push(Tok::Punct(&s[start..i]));
        } else {
            return None;
        }
    }
    Some(out)
}

fn is_binary_op(t: Tok<'_>) -> bool {
    matches!(
        t,
        Tok::Punct("->" | "=" | ":" | "+" | "*") | Tok::Word("floordiv" | "ceildiv" | "mod")
    )
}

/// Writes `toks` with MLIR's spacing: `(d0, d1) -> (d0 floordiv 2 : dense)`, `compressed(nonunique)`,
/// `#sparse_tensor<slice(1, ?, 1)>`.
fn write_spaced(toks: &[Tok<'_>], out: &mut String) {
    let mut prev: Option<Tok<'_>> = None;
    // Whether `prev` is a unary minus.
    let mut prev_unary = false;
    for &t in toks {
        let text = match t {
            Tok::Word(w) | Tok::Punct(w) => w,
        };
        let unary = t == Tok::Punct("-")
            && match prev {
                None => true,
                Some(p) => is_binary_op(p) || matches!(p, Tok::Punct("(" | "[" | "<" | "," | "-")),
            };
        let space = match prev {
            None => false,
            Some(p) => {
                // No space inside brackets, before a separator, after a unary minus, or
                // between a name and its bracketed arguments (`compressed(...)`, `[s0](d0)`).
                let tight = matches!(t, Tok::Punct(")" | "]" | ">" | ","))
                    || prev_unary
                    || matches!(p, Tok::Punct("(" | "[" | "<" | "#"))
                    || (matches!(t, Tok::Punct("(" | "[" | "<"))
                        && matches!(p, Tok::Word(_) | Tok::Punct(")" | "]")));
                !tight
                    && (is_binary_op(t)
                        || is_binary_op(p)
                        || (t == Tok::Punct("-") && !unary)
                        || p == Tok::Punct("-")
                        || p == Tok::Punct(",")
                        || matches!(
                            (p, t),
                            (
                                Tok::Word(_) | Tok::Punct(")" | "]" | ">" | "?"),
                                Tok::Word(_) | Tok::Punct("?" | "#")
                            )
                        ))
            }
        };
        if space {
            out.push(' ');
        }
        out.push_str(text);
        prev = Some(t);
        prev_unary = unary;
    }
}

/// Splits `toks` at commas outside brackets.
fn split_top_level<'t, 'a>(toks: &'t [Tok<'a>]) -> Option<Vec<&'t [Tok<'a>]>> {
    let mut parts = Vec::new();
    let mut depth: usize = 0;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Punct("(" | "[" | "{" | "<") => depth += 1,
            Tok::Punct(")" | "]" | "}" | ">") => depth = depth.checked_sub(1)?,
            Tok::Punct(",") if depth == 0 => {
                parts.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return None;
    }
    parts.push(&toks[start..]);
    Some(parts)
}

/// MLIR's spelling of an encoding body `<{...}>`, or `None` when the body is not one this
/// function understands (the caller then keeps the text as written).
pub(crate) fn canonical_encoding(body: &str) -> Option<String> {
    let toks = tokenize(body)?;
    let inner = match toks.as_slice() {
        [Tok::Punct("<"), Tok::Punct("{"), inner @ .., Tok::Punct("}"), Tok::Punct(">")] => inner,
        _ => return None,
    };
    const KEYS: [&str; 5] = ["map", "posWidth", "crdWidth", "explicitVal", "implicitVal"];
    let mut values: [Option<&[Tok<'_>]>; 5] = [None; 5];
    for entry in split_top_level(inner)? {
        let [Tok::Word(key), Tok::Punct("="), value @ ..] = entry else {
            return None;
        };
        let k = KEYS.iter().position(|k| k == key)?;
        if values[k].is_some() || value.is_empty() {
            return None;
        }
        values[k] = Some(value);
    }
    values[0]?;
    let mut out = String::from("<{ ");
    for (k, value) in KEYS.iter().zip(values) {
        let Some(value) = value else { continue };
        // Bit widths of 0 (the default) are not printed.
        if (*k == "posWidth" || *k == "crdWidth") && value == [Tok::Word("0")] {
            continue;
        }
        if out.len() > 3 {
            out.push_str(", ");
        }
        out.push_str(k);
        out.push_str(" = ");
        write_spaced(value, &mut out);
    }
    out.push_str(" }>");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::canonical_encoding;

    #[test]
    fn respaces_as_mlir_prints() {
        let cases = [
            (
                "<{\n  map = (d0, d1) -> (d0 : dense, d1 : compressed)\n}>",
                "<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>",
            ),
            (
                "<{posWidth=32,map=(i,j)->(j:dense,i:compressed(nonunique, nonordered)),crdWidth=0}>",
                "<{ map = (i, j) -> (j : dense, i : compressed(nonunique, nonordered)), posWidth = 32 }>",
            ),
            (
                "<{ map = [s0](d0, d1) -> (d0 floordiv 2 : dense, d1 mod 4 : structured[2, 4], d0 * 2 + -1 : singleton) }>",
                "<{ map = [s0](d0, d1) -> (d0 floordiv 2 : dense, d1 mod 4 : structured[2, 4], d0 * 2 + -1 : singleton) }>",
            ),
            (
                "<{ map = (d0 : #sparse_tensor<slice(1, ?, 1)>, d1 : #sparse_tensor<slice(?, 4, 2)>) -> (d0 : dense, d1 - 1 : compressed) }>",
                "<{ map = (d0 : #sparse_tensor<slice(1, ?, 1)>, d1 : #sparse_tensor<slice(?, 4, 2)>) -> (d0 : dense, d1 - 1 : compressed) }>",
            ),
        ];
        for (input, want) in cases {
            assert_eq!(canonical_encoding(input).as_deref(), Some(want), "{input}");
        }
    }

    #[test]
    fn unknown_shapes_are_left_alone() {
        for input in [
            "<{ lvl = 3 }>",
            "<{ map = (d0) -> (d0 : dense), map = (d0) -> (d0 : dense) }>",
            "<(d0)>",
            "<{ posWidth = 8 }>",
            "<{ map = ((d0) }>",
        ] {
            assert_eq!(canonical_encoding(input), None, "{input}");
        }
    }
}
