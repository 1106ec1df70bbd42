//! Text helpers: FileCheck's buffer canonicalization and offset -> line:column.

/// FileCheck's canonicalization: drop the `\r` of `\r\n`, and unless `strict_whitespace`, turn each run of
/// spaces and tabs into one space. Newlines are kept, so line numbers stay those of the original text.
pub(crate) fn canonicalize(text: &str, strict_whitespace: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if !strict_whitespace && (c == ' ' || c == '\t') {
            out.push(' ');
            while matches!(chars.peek(), Some(' ') | Some('\t')) {
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    out
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(text, offset);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// The text of 1-based line `line` of `text`, without its newline (empty past the end).
pub(crate) fn line_text(text: &str, line: usize) -> &str {
    text.split('\n').nth(line.saturating_sub(1)).unwrap_or("")
}

pub(crate) fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// Byte offset just past the character starting at `offset`.
pub(crate) fn next_char_boundary(text: &str, offset: usize) -> usize {
    match text[offset..].chars().next() {
        Some(c) => offset + c.len_utf8(),
        None => offset + 1,
    }
}

/// Number of line breaks in `text`, counting `\n\r` and `\r\n` pairs once, as FileCheck does for -NEXT/-SAME.
pub(crate) fn count_newlines(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\n' || bytes[i] == b'\r' {
            count += 1;
            let pair = i + 1 < bytes.len()
                && (bytes[i + 1] == b'\n' || bytes[i + 1] == b'\r')
                && bytes[i + 1] != bytes[i];
            i += if pair { 2 } else { 1 };
        } else {
            i += 1;
        }
    }
    count
}
