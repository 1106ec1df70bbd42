//! Translation of FileCheck's POSIX-ERE-with-REG_NEWLINE regexes into `regex` crate syntax.

/// Rewrites a FileCheck regex so that the `regex` crate (in multi-line mode) matches what POSIX would:
/// a negated bracket expression `[^...]` never matches a newline, a `]` right after `[` or `[^` is a
/// literal, and `[`, `&`, `~` inside a bracket expression are literals rather than class syntax.
pub(crate) fn translate(source: &str) -> Result<String, String> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                let Some(&next) = chars.get(i + 1) else {
                    return Err("regex ends with a lone backslash".to_string());
                };
                out.push('\\');
                out.push(next);
                i += 2;
            }
            '[' => i = translate_bracket(&chars, i, &mut out)?,
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Translates the bracket expression starting at `chars[start] == '['`; returns the index after its `]`.
fn translate_bracket(chars: &[char], start: usize, out: &mut String) -> Result<usize, String> {
    let mut i = start + 1;
    out.push('[');
    if chars.get(i) == Some(&'^') {
        // POSIX with REG_NEWLINE: a non-matching list does not match newline.
        out.push_str("^\\n");
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        out.push_str("\\]");
        i += 1;
    }
    loop {
        let Some(&c) = chars.get(i) else {
            return Err("unterminated bracket expression '['".to_string());
        };
        match c {
            ']' => {
                out.push(']');
                return Ok(i + 1);
            }
            '[' if chars.get(i + 1) == Some(&':') => {
                // Character class name such as [:alpha:], which both dialects spell the same way.
                let rest: String = chars[i..].iter().collect();
                let Some(end) = rest.find(":]") else {
                    return Err("unterminated character class '[:'".to_string());
                };
                out.push_str(&rest[..end + 2]);
                i += rest[..end + 2].chars().count();
            }
            '[' if matches!(chars.get(i + 1), Some('=') | Some('.')) => {
                return Err("collating elements '[=' and '[.' are not supported".to_string());
            }
            '[' | '&' | '~' => {
                out.push('\\');
                out.push(c);
                i += 1;
            }
            '\\' => {
                let Some(&next) = chars.get(i + 1) else {
                    return Err("unterminated bracket expression '['".to_string());
                };
                out.push('\\');
                out.push(next);
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn negated_class_excludes_newline() {
        assert_eq!(translate("[^,]*").unwrap(), "[^\\n,]*");
        let re = regex::Regex::new(&translate("a[^,]*z").unwrap()).unwrap();
        assert!(re.is_match("abz"));
        assert!(!re.is_match("a\nz"));
    }

    #[test]
    fn posix_literals_inside_brackets() {
        assert_eq!(translate("[]a]").unwrap(), "[\\]a]");
        assert_eq!(translate("[[:digit:]x]").unwrap(), "[[:digit:]x]");
        assert_eq!(translate("[a[&]").unwrap(), "[a\\[\\&]");
        assert!(translate("[abc").is_err());
        assert!(translate("abc\\").is_err());
    }
}
