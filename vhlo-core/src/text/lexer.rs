//! A byte cursor with the token-level helpers of MLIR's textual syntax. The parser lexes on
//! demand, because some constructs (`2x?xf32`, `e4m3`, `[b, 0, f]`) need context to split.

use super::ParseError;

/// A numeric literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// Integer: sign and magnitude; `hex` when written `0x...`.
    Int {
        negative: bool,
        magnitude: u128,
        hex: bool,
    },
    /// Decimal float literal (has a `.`).
    Float(f64),
}

pub struct Cursor<'a> {
    pub src: &'a str,
    pub bytes: &'a [u8],
    pub pos: usize,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}
fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.'
}
fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.' | b'-')
}

impl<'a> Cursor<'a> {
    pub fn new(src: &'a str) -> Self {
        Cursor {
            src,
            bytes: src.as_bytes(),
            pos: 0,
        }
    }

    /// A parse error at byte offset `pos`.
    pub fn error_at(&self, pos: usize, message: impl Into<String>) -> ParseError {
        let mut pos = pos.min(self.bytes.len());
        while !self.src.is_char_boundary(pos) {
            pos -= 1;
        }
        let before = &self.bytes[..pos];
        let line = before.iter().filter(|&&c| c == b'\n').count() as u32 + 1;
        let line_start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let column = self.src[line_start..pos].chars().count() as u32 + 1;
        ParseError {
            line,
            column,
            message: message.into(),
        }
    }

    /// A parse error at the next token.
    pub fn error(&mut self, message: impl Into<String>) -> ParseError {
        self.skip_ws();
        self.error_at(self.pos, message)
    }

    /// Skips whitespace and `//` comments.
    pub fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() {
            let c = self.bytes[self.pos];
            if c == b' ' || c == b'\n' || c == b'\t' || c == b'\r' {
                self.pos += 1;
            } else if c == b'/' && self.bytes.get(self.pos + 1) == Some(&b'/') {
                while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos >= self.bytes.len()
    }

    /// The next byte after whitespace.
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes.get(self.pos).copied()
    }

    /// The byte `n` positions after the next token start.
    pub fn peek_at(&mut self, n: usize) -> Option<u8> {
        self.skip_ws();
        self.bytes.get(self.pos + n).copied()
    }

    /// Consumes `c` when it comes next.
    pub fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Consumes the punctuation `s` when it comes next.
    pub fn eat_punct(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.bytes[self.pos..].starts_with(s.as_bytes()) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, c: u8, context: &str) -> Result<(), ParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            let found = self.describe_next();
            Err(self.error(format!("expected '{}' {context}, found {found}", c as char)))
        }
    }

    pub fn expect_punct(&mut self, s: &str, context: &str) -> Result<(), ParseError> {
        if self.eat_punct(s) {
            Ok(())
        } else {
            let found = self.describe_next();
            Err(self.error(format!("expected '{s}' {context}, found {found}")))
        }
    }

    /// A short description of the next token for error messages.
    pub fn describe_next(&mut self) -> String {
        self.skip_ws();
        if self.pos >= self.bytes.len() {
            return "end of input".into();
        }
        let rest = &self.src[self.pos..];
        let end = rest
            .char_indices()
            .find(|&(i, ch)| i > 0 && (ch.is_whitespace() || "(){}[]<>,:=".contains(ch)))
            .map_or(rest.len(), |(i, _)| i)
            .min(24);
        let mut end = end.max(1);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        format!("'{}'", &rest[..end])
    }

    /// A bare identifier `[A-Za-z_][A-Za-z0-9_$.]*`.
    pub fn bare_ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let start = self.pos;
        if !self.bytes.get(start).copied().is_some_and(is_ident_start) {
            return None;
        }
        let mut end = start + 1;
        while end < self.bytes.len() && is_ident_char(self.bytes[end]) {
            end += 1;
        }
        self.pos = end;
        Some(&self.src[start..end])
    }

    /// Peeks at the bare identifier that comes next without consuming it.
    pub fn peek_ident(&mut self) -> Option<&'a str> {
        let save = self.pos;
        let r = self.bare_ident();
        self.pos = save;
        r
    }

    /// Consumes the keyword `kw` (a whole identifier) when it comes next.
    pub fn eat_keyword(&mut self, kw: &str) -> bool {
        let save = self.pos;
        match self.bare_ident() {
            Some(id) if id == kw => true,
            _ => {
                self.pos = save;
                false
            }
        }
    }

    pub fn expect_keyword(&mut self, kw: &str, context: &str) -> Result<(), ParseError> {
        if self.eat_keyword(kw) {
            Ok(())
        } else {
            let found = self.describe_next();
            Err(self.error(format!("expected '{kw}' {context}, found {found}")))
        }
    }

    /// The identifier after a sigil (`%`, `^`, `#`, `!`): digits, or a letter-led run of
    /// letters, digits and `$._-`. The sigil must already be consumed.
    pub fn suffix_id(&mut self) -> Option<&'a str> {
        let start = self.pos;
        let first = *self.bytes.get(start)?;
        let mut end = start;
        if first.is_ascii_digit() {
            while end < self.bytes.len() && self.bytes[end].is_ascii_digit() {
                end += 1;
            }
        } else if is_suffix_char(first) {
            while end < self.bytes.len() && is_suffix_char(self.bytes[end]) {
                end += 1;
            }
        } else {
            return None;
        }
        self.pos = end;
        Some(&self.src[start..end])
    }

    /// A string literal with MLIR escapes (`\n`, `\t`, `\"`, `\\`, `\XX`).
    pub fn string_lit(&mut self) -> Result<String, ParseError> {
        self.skip_ws();
        let start = self.pos;
        if self.bytes.get(start) != Some(&b'"') {
            let found = self.describe_next();
            return Err(self.error(format!("expected string literal, found {found}")));
        }
        let mut out: Vec<u8> = Vec::new();
        let mut i = start + 1;
        loop {
            let Some(&c) = self.bytes.get(i) else {
                return Err(self.error_at(start, "unterminated string literal"));
            };
            match c {
                b'"' => {
                    i += 1;
                    break;
                }
                b'\n' => return Err(self.error_at(start, "unterminated string literal")),
                b'\\' => {
                    let Some(&e) = self.bytes.get(i + 1) else {
                        return Err(self.error_at(i, "unterminated escape in string literal"));
                    };
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        _ => {
                            let hex = |b: Option<&u8>| b.and_then(|&b| (b as char).to_digit(16));
                            match (hex(self.bytes.get(i + 1)), hex(self.bytes.get(i + 2))) {
                                (Some(h), Some(l)) => {
                                    out.push((h * 16 + l) as u8);
                                    i += 3;
                                    continue;
                                }
                                _ => {
                                    return Err(self.error_at(i, "unknown escape in string literal"))
                                }
                            }
                        }
                    }
                    i += 2;
                }
                _ => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        self.pos = i;
        String::from_utf8(out)
            .map_err(|_| self.error_at(start, "string literal is not valid UTF-8"))
    }

    /// An optionally negative integer or float literal.
    pub fn number(&mut self) -> Option<Number> {
        self.skip_ws();
        let start = self.pos;
        let mut i = start;
        let negative = self.bytes.get(i) == Some(&b'-');
        if negative {
            i += 1;
            while i < self.bytes.len() && (self.bytes[i] == b' ' || self.bytes[i] == b'\t') {
                i += 1;
            }
        }
        let digits_start = i;
        if !self.bytes.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        if self.bytes[i] == b'0'
            && self.bytes.get(i + 1) == Some(&b'x')
            && self.bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            i += 2;
            let hs = i;
            while i < self.bytes.len() && self.bytes[i].is_ascii_hexdigit() {
                i += 1;
            }
            let text = &self.src[hs..i];
            let magnitude = u128::from_str_radix(text, 16).ok()?;
            self.pos = i;
            return Some(Number::Int {
                negative,
                magnitude,
                hex: true,
            });
        }
        while i < self.bytes.len() && self.bytes[i].is_ascii_digit() {
            i += 1;
        }
        if self.bytes.get(i) == Some(&b'.') {
            i += 1;
            while i < self.bytes.len() && self.bytes[i].is_ascii_digit() {
                i += 1;
            }
            if matches!(self.bytes.get(i), Some(b'e' | b'E')) {
                let mut j = i + 1;
                if matches!(self.bytes.get(j), Some(b'+' | b'-')) {
                    j += 1;
                }
                if self.bytes.get(j).is_some_and(u8::is_ascii_digit) {
                    while j < self.bytes.len() && self.bytes[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                }
            }
            let v: f64 = self.src[digits_start..i].parse().ok()?;
            self.pos = i;
            return Some(Number::Float(if negative { -v } else { v }));
        }
        let magnitude: u128 = self.src[digits_start..i].parse().ok()?;
        self.pos = i;
        Some(Number::Int {
            negative,
            magnitude,
            hex: false,
        })
    }

    /// A plain decimal integer that fits `i64` (with optional `-`).
    pub fn int64(&mut self, context: &str) -> Result<i64, ParseError> {
        let start = {
            self.skip_ws();
            self.pos
        };
        match self.number() {
            Some(Number::Int {
                negative,
                magnitude,
                ..
            }) => {
                let v = if negative {
                    if magnitude > (i64::MAX as u128) + 1 {
                        None
                    } else {
                        Some((magnitude as i128).wrapping_neg() as i64)
                    }
                } else {
                    i64::try_from(magnitude).ok()
                };
                v.ok_or_else(|| self.error_at(start, format!("integer out of range {context}")))
            }
            _ => {
                self.pos = start;
                let found = self.describe_next();
                Err(self.error(format!("expected integer {context}, found {found}")))
            }
        }
    }

    /// Skips a balanced `<...>` (with nested brackets and strings) starting at `<`, returning
    /// the text including the delimiters.
    pub fn balanced(&mut self) -> Result<&'a str, ParseError> {
        let start = self.pos;
        let mut stack: Vec<u8> = Vec::new();
        let mut i = self.pos;
        while i < self.bytes.len() {
            let c = self.bytes[i];
            match c {
                b'<' | b'(' | b'[' | b'{' => {
                    if stack.len() >= 512 {
                        return Err(self.error_at(i, "nesting too deep"));
                    }
                    stack.push(c)
                }
                b'>' | b')' | b']' | b'}' => {
                    // `->` inside a body is not a closing bracket, nor is the `>=` of an
                    // `affine_set` constraint.
                    if c == b'>'
                        && ((i > 0 && self.bytes[i - 1] == b'-')
                            || self.bytes.get(i + 1) == Some(&b'='))
                    {
                        i += 1;
                        continue;
                    }
                    let open = match c {
                        b'>' => b'<',
                        b')' => b'(',
                        b']' => b'[',
                        _ => b'{',
                    };
                    if stack.pop() != Some(open) {
                        return Err(
                            self.error_at(i, "unbalanced brackets in dialect attribute or type")
                        );
                    }
                    if stack.is_empty() {
                        self.pos = i + 1;
                        return Ok(&self.src[start..i + 1]);
                    }
                }
                b'"' => {
                    i += 1;
                    while i < self.bytes.len() && self.bytes[i] != b'"' {
                        if self.bytes[i] == b'\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Err(self.error_at(start, "unterminated '<' in dialect attribute or type"))
    }
}
