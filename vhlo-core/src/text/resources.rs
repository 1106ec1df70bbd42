//! Dialect resources in text: `dense_resource<key>` and the file metadata block
//! `{-# dialect_resources: { builtin: { key: "0x..." } } #-}` (MLIR's `Parser.cpp`,
//! `parseFileMetadataDictionary`, and `AsmPrinter.cpp`, `printResourceFileMetadata`).
//!
//! A blob is written as one hex string: its alignment as 4 little-endian bytes, then its data.
//! Only the builtin dialect's resources (`dense_resource` data) are kept; `external_resources`
//! are skipped, as MLIR skips those no client registered a parser for.

use std::collections::HashSet;

use super::lexer::ParseError;
use super::parser::Parser;
use super::printer::push_key;
use crate::ir::{
    children, AttrData, Attribute, Blob, Module, Node, ResourceBlob, Symbol, TypeData,
};

type PResult<T> = Result<T, ParseError>;

/// `hex` (without `0x`) as bytes: pairs of hex digits, as `Token::getHexStringValue` takes.
fn decode_hex(hex: &[u8]) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let nibble = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    hex.chunks_exact(2)
        .map(|pair| match pair {
            [hi, lo] => Some(nibble(*hi)?.wrapping_shl(4) | nibble(*lo)?),
            _ => None,
        })
        .collect()
}

impl Parser<'_> {
    /// A resource key: a bare identifier or a string (`parseOptionalKeywordOrString`).
    fn resource_key(&mut self, what: &str) -> PResult<Vec<u8>> {
        match self.c.peek() {
            Some(b'"') => Ok(self.c.string_lit_bytes()?.into_owned()),
            _ => match self.c.bare_ident() {
                Some(id) => Ok(id.as_bytes().to_vec()),
                None => Err(self
                    .c
                    .error(format!("expected identifier key for '{what}' entry"))),
            },
        }
    }

    /// `dense_resource<key> : type`, after the keyword (`parseDenseResourceElementsAttr`).
    pub(crate) fn parse_dense_resource(&mut self, pos: usize) -> PResult<Attribute> {
        self.c.expect(b'<', "after 'dense_resource'")?;
        let key = self.resource_key("resource")?;
        self.c.expect(b'>', "to close 'dense_resource'")?;
        let _ = pos;
        self.c.expect(b':', "before the type of 'dense_resource'")?;
        let tpos = self.c.token_start();
        let ty = self.parse_type()?;
        if !matches!(
            self.m.type_data(ty),
            TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
        ) {
            return Err(self
                .c
                .error_at(tpos, "`dense_resource` expected a shaped type"));
        }
        let key = self.m.sym_bytes(&key);
        Ok(self.m.attr(AttrData::DenseResource { ty, key }))
    }

    /// `{-# key: value, ... #-}` at the top level of a file, from `{-#`.
    pub(crate) fn parse_file_metadata(&mut self) -> PResult<()> {
        if !self.c.eat_punct("{-#") {
            return Err(self.c.error("expected '{-#'"));
        }
        if self.c.eat_punct("#-}") {
            return Ok(());
        }
        loop {
            let kpos = self.c.token_start();
            let Some(key) = self.c.bare_ident() else {
                return Err(self
                    .c
                    .error("expected identifier key in file metadata dictionary"));
            };
            self.c.expect(b':', "after a file metadata key")?;
            match key {
                "dialect_resources" => self.resource_groups(true)?,
                "external_resources" => self.resource_groups(false)?,
                _ => {
                    return Err(self.c.error_at(
                        kpos,
                        format!("unknown key '{key}' in file metadata dictionary"),
                    ))
                }
            }
            if self.c.eat_punct("#-}") {
                return Ok(());
            }
            if !self.c.eat(b',') {
                let found = self.c.describe_next();
                return Err(self.c.error(format!(
                    "expected ',' or '#-}}' in file metadata, found {found}"
                )));
            }
        }
    }

    /// `{ name: { key: value, ... }, ... }`: dialect groups (`dialect_resources`) or external
    /// groups, whose entries are skipped.
    fn resource_groups(&mut self, dialects: bool) -> PResult<()> {
        self.c.expect(b'{', "to open a resource dictionary")?;
        self.comma_list_until_brace(|p| {
            let npos = p.c.token_start();
            let Some(name) = p.c.bare_ident() else {
                return Err(p.c.error("expected identifier key for 'resource' entry"));
            };
            p.c.expect(b':', "after a resource group name")?;
            p.c.expect(b'{', "to open a resource group")?;
            if dialects && name != "builtin" {
                let why = if crate::dialect::LIBSTABLEHLO_DIALECTS.contains(&name) {
                    format!("unexpected 'resource' section for dialect '{name}'")
                } else {
                    format!("dialect '{name}' is unknown")
                };
                return Err(p.c.error_at(npos, why));
            }
            p.comma_list_until_brace(|p| {
                let what = if dialects {
                    "resource"
                } else {
                    "external_resources"
                };
                let key = p.resource_key(what)?;
                p.c.expect(b':', "after a resource key")?;
                if dialects {
                    p.builtin_blob(&key)
                } else {
                    p.skip_resource_value()
                }
            })
        })
    }

    /// Items separated by commas up to `}` (consumed); the list may be empty.
    fn comma_list_until_brace(
        &mut self,
        mut item: impl FnMut(&mut Self) -> PResult<()>,
    ) -> PResult<()> {
        if self.c.eat(b'}') {
            return Ok(());
        }
        loop {
            item(self)?;
            if self.c.eat(b'}') {
                return Ok(());
            }
            self.c.expect(b',', "or '}' in a resource dictionary")?;
        }
    }

    /// One value token of an external resource, skipped.
    fn skip_resource_value(&mut self) -> PResult<()> {
        match self.c.peek() {
            Some(b'"') => self.c.string_lit_bytes().map(|_| ()),
            Some(c) if c.is_ascii_alphanumeric() || c == b'-' || c == b'_' => {
                self.c.skip_ws();
                let start = self.c.pos;
                while self.c.bytes.get(self.c.pos).is_some_and(|&b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'$')
                }) {
                    self.c.pos = self.c.pos.saturating_add(1);
                }
                if self.c.pos == start {
                    return Err(self.c.error("expected a resource value"));
                }
                Ok(())
            }
            _ => Err(self.c.error("expected a resource value")),
        }
    }

    /// A builtin resource entry's value: the hex string of a blob (`parseAsBlob`).
    fn builtin_blob(&mut self, key: &[u8]) -> PResult<()> {
        let vpos = self.c.token_start();
        let key_text = String::from_utf8_lossy(key).into_owned();
        let key_text = key_text.as_str();
        let bad = |p: &Self, extra: &str| {
            p.c.error_at(
                vpos,
                format!("expected hex string blob for key '{key_text}'{extra}"),
            )
        };
        if self.c.peek() != Some(b'"') {
            // The value is one token, whatever it is.
            let _ = self.skip_resource_value();
            return Err(bad(self, ""));
        }
        let text = self.c.string_lit_bytes()?;
        let Some(bytes) = text.strip_prefix(b"0x").and_then(decode_hex) else {
            return Err(bad(self, ""));
        };
        let Some((align, data)) = bytes.split_first_chunk::<4>() else {
            return Err(bad(self, " to encode alignment in first 4 bytes"));
        };
        let alignment = u32::from_le_bytes(*align);
        let blob = if alignment != 0 && !alignment.is_power_of_two() {
            return Err(bad(
                self,
                &format!(
                    " to encode alignment in first 4 bytes, but got non-power-of-2 value: {alignment}"
                ),
            ));
        } else if data.is_empty() {
            // MLIR keeps an empty blob, with no alignment (printed `"0x00000000"`).
            ResourceBlob {
                alignment: 0,
                data: Blob::from(Vec::new()),
            }
        } else if alignment != 0 {
            ResourceBlob {
                alignment,
                data: Blob::from(data.to_vec()),
            }
        } else {
            // MLIR lets 0 through to its allocator, which fails.
            return Err(bad(
                self,
                &format!(
                    " to encode alignment in first 4 bytes, but got non-power-of-2 value: {alignment}"
                ),
            ));
        };
        let key = self.m.sym_bytes(key);
        self.m.set_resource_blob(key, blob);
        Ok(())
    }
}

/// The builtin resources the attributes of `m` refer to, in the order a printer meets them
/// (ops in pre-order; each op's properties, then its attributes, depth first).
pub(crate) fn referenced_resources(m: &Module) -> Vec<Symbol> {
    let mut keys = Vec::new();
    let mut seen_keys = HashSet::new();
    let mut seen = HashSet::new();
    let mut stack: Vec<Node> = Vec::new();
    let mut kids = Vec::new();
    m.walk(|op| {
        let attrs = m.properties(op).iter().chain(m.attributes(op).iter());
        for a in attrs {
            stack.push(Node::Attr(a.value));
            while let Some(n) = stack.pop() {
                if !seen.insert(n) {
                    continue;
                }
                if let Node::Attr(x) = n {
                    if let AttrData::DenseResource { key, .. } = m.attr_data(x) {
                        if seen_keys.insert(*key) {
                            keys.push(*key);
                        }
                    }
                }
                kids.clear();
                children(m, n, &mut kids);
                stack.extend(kids.drain(..).rev());
            }
        }
    });
    keys
}

/// The file metadata block MLIR prints after the module for the resources it refers to that
/// have data; empty when there are none.
pub(crate) fn file_metadata(m: &Module) -> String {
    if !m.has_resource_blobs() {
        return String::new();
    }
    let blobs: Vec<(Symbol, &ResourceBlob)> = referenced_resources(m)
        .into_iter()
        .filter_map(|k| m.resource_blob(k).map(|b| (k, b)))
        .collect();
    if blobs.is_empty() {
        return String::new();
    }
    let size: usize = blobs.iter().map(|(_, b)| b.data.len() * 2 + 32).sum();
    let mut out = String::with_capacity(size + 64);
    out.push_str("\n{-#\n  dialect_resources: {\n    builtin: {\n");
    for (i, (k, b)) in blobs.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str("      ");
        push_key(&mut out, m, *k);
        out.push_str(": \"0x");
        push_hex(&mut out, &b.alignment.to_le_bytes());
        push_hex(&mut out, &b.data);
        out.push('"');
    }
    out.push_str("\n    }\n  }\n#-}\n");
    out
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
}

#[cfg(test)]
mod tests {
    use super::decode_hex;

    #[test]
    fn hex_is_pairs_of_digits() {
        assert_eq!(decode_hex(b"04000000ff"), Some(vec![4, 0, 0, 0, 255]));
        assert_eq!(decode_hex(b"aB"), Some(vec![0xab]));
        assert_eq!(decode_hex(b"abc"), None);
        assert_eq!(decode_hex(b"zz"), None);
        assert_eq!(decode_hex(b""), Some(vec![]));
    }
}
