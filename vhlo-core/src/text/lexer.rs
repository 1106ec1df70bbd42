//! A byte cursor with the token-level helpers of MLIR's textual syntax. The parser lexes on
//! demand, because some constructs (`2x?xf32`, `e4m3`, `[b, 0, f]`) need context to split.

// Input path: no panics whatever the text.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

/// A parse error with its 1-based line and column (columns count characters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for ParseError {}

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
    /// Integer too large for `u128`: where its digits are in the source (without `0x`), for
    /// [`Cursor::wide_magnitude`].
    WideInt {
        negative: bool,
        hex: bool,
        start: usize,
        end: usize,
    },
}

use crate::ir::wide_int;

pub struct Cursor<'a> {
    pub src: &'a str,
    pub bytes: &'a [u8],
    pub pos: usize,
}

/// Bytes between tokens: MLIR's whitespace and NUL (see [`Cursor::skip_ws`]).
pub(crate) fn is_whitespace(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\t' | b'\r' | 0)
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

    /// The byte at `i`, or 0 past the end (callers check the bound, or treat 0 as "no match").
    #[inline]
    pub(crate) fn byte_at(&self, i: usize) -> u8 {
        self.bytes.get(i).copied().unwrap_or(0)
    }

    /// A parse error at byte offset `pos`.
    pub fn error_at(&self, pos: usize, message: impl Into<String>) -> ParseError {
        let pos = pos.min(self.bytes.len());
        let before = self.bytes.get(..pos).unwrap_or_default();
        let line = (before.iter().filter(|&&c| c == b'\n').count() as u32).saturating_add(1);
        let line_start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p.saturating_add(1));
        // In bytes, as MLIR counts columns.
        let column = (pos.saturating_sub(line_start) as u32).saturating_add(1);
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

    /// Skips whitespace and comments; where the next token starts (to point errors at it).
    pub fn token_start(&mut self) -> usize {
        self.skip_ws();
        self.pos
    }

    /// Skips whitespace and `//` comments. A NUL byte counts as whitespace: MLIR's lexer
    /// (`Lexer::lexToken`) skips one anywhere but at its buffer's end, and our buffer has no
    /// terminator to confuse it with.
    pub fn skip_ws(&mut self) {
        while self.pos < self.bytes.len() {
            let c = self.byte_at(self.pos);
            if is_whitespace(c) {
                self.pos = self.pos.saturating_add(1);
            } else if c == b'/' && self.bytes.get(self.pos.saturating_add(1)) == Some(&b'/') {
                while self.pos < self.bytes.len() && self.byte_at(self.pos) != b'\n' {
                    self.pos = self.pos.saturating_add(1);
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
        self.bytes.get(self.pos.saturating_add(n)).copied()
    }

    /// Consumes `c` when it comes next.
    pub fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos = self.pos.saturating_add(1);
            true
        } else {
            false
        }
    }

    /// Consumes the punctuation `s` when it comes next.
    pub fn eat_punct(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self
            .bytes
            .get(self.pos..)
            .unwrap_or_default()
            .starts_with(s.as_bytes())
        {
            self.pos = self.pos.saturating_add(s.len());
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
            let at = self.wrong_token_pos();
            Err(self.error_at(
                at,
                format!("expected '{}' {context}, found {found}", c as char),
            ))
        }
    }

    /// Where MLIR reports a missing token (`Parser::emitWrongTokenError`): at the next token,
    /// unless only blanks and comments precede it on its line; then at the end of the last
    /// code before it (the end of the previous line, before any `//` comment), so that the error
    /// is on the line of the construct that is missing the token.
    pub fn wrong_token_pos(&mut self) -> usize {
        self.skip_ws();
        let original = self.pos.min(self.bytes.len());
        // At the end of the input, MLIR moves back one character.
        let mut end = if original >= self.bytes.len() {
            original.saturating_sub(1)
        } else {
            original
        };
        let at = end;
        loop {
            while end > 0 && matches!(self.byte_at(end.saturating_sub(1)), b' ' | b'\t') {
                end = end.saturating_sub(1);
            }
            if end == 0 {
                return at;
            }
            if !matches!(self.byte_at(end.saturating_sub(1)), b'\n' | b'\r') {
                return end;
            }
            end = end.saturating_sub(1);
            let before = self.bytes.get(..end).unwrap_or_default();
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n' || b == b'\r')
                .unwrap_or(0);
            let line = before.get(line_start..).unwrap_or_default();
            if let Some(comment) = line.windows(2).position(|w| w == b"//") {
                end = line_start.saturating_add(comment);
            }
        }
    }

    /// [`Cursor::expect`] with the context built only for the error (hot paths).
    pub fn expect_lazy(
        &mut self,
        c: u8,
        context: impl FnOnce() -> String,
    ) -> Result<(), ParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            self.expect(c, &context())
        }
    }

    pub fn expect_punct(&mut self, s: &str, context: &str) -> Result<(), ParseError> {
        if self.eat_punct(s) {
            Ok(())
        } else {
            let found = self.describe_next();
            let at = self.wrong_token_pos();
            Err(self.error_at(at, format!("expected '{s}' {context}, found {found}")))
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
            end = end.saturating_add(1);
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
        let mut end = start.saturating_add(1);
        while end < self.bytes.len() && is_ident_char(self.byte_at(end)) {
            end = end.saturating_add(1);
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
            while end < self.bytes.len() && self.byte_at(end).is_ascii_digit() {
                end = end.saturating_add(1);
            }
        } else if is_suffix_char(first) {
            while end < self.bytes.len() && is_suffix_char(self.byte_at(end)) {
                end = end.saturating_add(1);
            }
        } else {
            return None;
        }
        self.pos = end;
        Some(&self.src[start..end])
    }

    /// A string literal that must be UTF-8 text (names, keywords).
    pub fn string_lit(&mut self) -> Result<std::borrow::Cow<'a, str>, ParseError> {
        let start = self.pos;
        let err = |c: &Self| c.error_at(start, "string literal is not valid UTF-8");
        match self.string_lit_bytes()? {
            std::borrow::Cow::Borrowed(b) => std::str::from_utf8(b)
                .map(std::borrow::Cow::Borrowed)
                .map_err(|_| err(self)),
            std::borrow::Cow::Owned(v) => String::from_utf8(v)
                .map(std::borrow::Cow::Owned)
                .map_err(|_| err(self)),
        }
    }

    /// A string literal with MLIR escapes (`\n`, `\t`, `\"`, `\\`, `\XX`): MLIR strings are
    /// bytes, so `\XX` may spell any byte. Borrowed from the text when it has no escape.
    pub fn string_lit_bytes(&mut self) -> Result<std::borrow::Cow<'a, [u8]>, ParseError> {
        self.skip_ws();
        let start = self.pos;
        if self.bytes.get(start) == Some(&b'"') {
            let body = self
                .bytes
                .get(start.saturating_add(1)..)
                .unwrap_or_default();
            if let Some(n) = body.iter().position(|&c| matches!(c, b'"' | b'\\' | b'\n')) {
                if body.get(n) == Some(&b'"') {
                    self.pos = start.saturating_add(n).saturating_add(2);
                    return Ok(std::borrow::Cow::Borrowed(
                        body.get(..n).unwrap_or_default(),
                    ));
                }
            }
        }
        self.string_lit_owned().map(std::borrow::Cow::Owned)
    }

    fn string_lit_owned(&mut self) -> Result<Vec<u8>, ParseError> {
        let start = self.pos;
        if self.bytes.get(start) != Some(&b'"') {
            let found = self.describe_next();
            return Err(self.error(format!("expected string literal, found {found}")));
        }
        let mut out: Vec<u8> = Vec::new();
        let mut i = start.saturating_add(1);
        loop {
            let Some(&c) = self.bytes.get(i) else {
                return Err(self.error_at(start, "unterminated string literal"));
            };
            match c {
                b'"' => {
                    i = i.saturating_add(1);
                    break;
                }
                b'\n' => return Err(self.error_at(start, "unterminated string literal")),
                b'\\' => {
                    let Some(&e) = self.bytes.get(i.saturating_add(1)) else {
                        return Err(self.error_at(i, "unterminated escape in string literal"));
                    };
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        _ => {
                            let hex = |b: Option<&u8>| b.and_then(|&b| (b as char).to_digit(16));
                            match (
                                hex(self.bytes.get(i.saturating_add(1))),
                                hex(self.bytes.get(i.saturating_add(2))),
                            ) {
                                (Some(h), Some(l)) => {
                                    out.push((h << 4 | l) as u8);
                                    i = i.saturating_add(3);
                                    continue;
                                }
                                _ => {
                                    return Err(self.error_at(i, "unknown escape in string literal"))
                                }
                            }
                        }
                    }
                    i = i.saturating_add(2);
                }
                _ => {
                    out.push(c);
                    i = i.saturating_add(1);
                }
            }
        }
        self.pos = i;
        Ok(out)
    }

    /// An optionally negative integer or float literal.
    pub fn number(&mut self) -> Option<Number> {
        self.skip_ws();
        let start = self.pos;
        let mut i = start;
        let negative = self.bytes.get(i) == Some(&b'-');
        if negative {
            i = i.saturating_add(1);
            while i < self.bytes.len() && matches!(self.byte_at(i), b' ' | b'\t' | 0) {
                i = i.saturating_add(1);
            }
        }
        let digits_start = i;
        if !self.bytes.get(i).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        if self.byte_at(i) == b'0'
            && self.bytes.get(i.saturating_add(1)) == Some(&b'x')
            && self
                .bytes
                .get(i.saturating_add(2))
                .is_some_and(u8::is_ascii_hexdigit)
        {
            i = i.saturating_add(2);
            let hs = i;
            while i < self.bytes.len() && self.byte_at(i).is_ascii_hexdigit() {
                i = i.saturating_add(1);
            }
            let text = self.src.get(hs..i)?;
            self.pos = i;
            return Some(match u128::from_str_radix(text, 16) {
                Ok(magnitude) => Number::Int {
                    negative,
                    magnitude,
                    hex: true,
                },
                Err(_) => Number::WideInt {
                    negative,
                    hex: true,
                    start: hs,
                    end: i,
                },
            });
        }
        while i < self.bytes.len() && self.byte_at(i).is_ascii_digit() {
            i = i.saturating_add(1);
        }
        if self.bytes.get(i) == Some(&b'.') {
            i = i.saturating_add(1);
            while i < self.bytes.len() && self.byte_at(i).is_ascii_digit() {
                i = i.saturating_add(1);
            }
            if matches!(self.bytes.get(i), Some(b'e' | b'E')) {
                let mut j = i.saturating_add(1);
                if matches!(self.bytes.get(j), Some(b'+' | b'-')) {
                    j = j.saturating_add(1);
                }
                if self.bytes.get(j).is_some_and(u8::is_ascii_digit) {
                    while j < self.bytes.len() && self.byte_at(j).is_ascii_digit() {
                        j = j.saturating_add(1);
                    }
                    i = j;
                }
            }
            let v: f64 = self.src[digits_start..i].parse().ok()?;
            self.pos = i;
            return Some(Number::Float(if negative { -v } else { v }));
        }
        let text = self.src.get(digits_start..i)?;
        self.pos = i;
        Some(match text.parse::<u128>() {
            Ok(magnitude) => Number::Int {
                negative,
                magnitude,
                hex: false,
            },
            Err(_) => Number::WideInt {
                negative,
                hex: false,
                start: digits_start,
                end: i,
            },
        })
    }

    /// The magnitude of a [`Number::WideInt`]'s digits, `None` beyond `max_bits` bits.
    pub fn wide_magnitude(
        &self,
        hex: bool,
        start: usize,
        end: usize,
        max_bits: u32,
    ) -> Option<Vec<u64>> {
        wide_int::parse_magnitude(self.src.get(start..end)?, hex, max_bits)
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
                    if magnitude > u128::from(i64::MIN.unsigned_abs()) {
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
            let c = self.byte_at(i);
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
                        && ((i > 0 && self.byte_at(i.saturating_sub(1)) == b'-')
                            || self.bytes.get(i.saturating_add(1)) == Some(&b'='))
                    {
                        i = i.saturating_add(1);
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
                        self.pos = i.saturating_add(1);
                        return Ok(self.src.get(start..=i).unwrap_or(""));
                    }
                }
                b'"' => {
                    i = i.saturating_add(1);
                    while i < self.bytes.len() && self.byte_at(i) != b'"' {
                        if self.byte_at(i) == b'\\' {
                            i = i.saturating_add(1);
                        }
                        i = i.saturating_add(1);
                    }
                }
                _ => {}
            }
            i = i.saturating_add(1);
        }
        Err(self.error_at(start, "unterminated '<' in dialect attribute or type"))
    }
}
