//! What `load` does when a file's YAML does not parse: it says what is wrong (a tab, a key
//! indented unlike the keys beside it, a missing colon) at the line that is wrong, and keeps
//! every item of the file's top-level lists that parses on its own, so one broken entry of
//! `enums.yaml` leaves the other enums in the model. The names a broken item defines are
//! returned, so that errors which only follow from it are not reported (`Diagnostics::excuse`).
//!
//! Only a file that failed is looked at here: a file that parses is never second-guessed.

use serde::Deserialize;

use crate::diag::{Diagnostics, Pos};

/// A spec file made of top-level lists whose items can be loaded one by one.
pub trait Items: Sized {
    /// Adds `other`'s items (parsed from the same file) to `self`'s.
    fn merge(&mut self, other: Self);
}

/// A file that failed to parse, read item by item.
pub struct Recovered<T> {
    /// What parsed: the file without its broken items. `None` when even the parts outside the
    /// lists do not parse.
    pub value: Option<T>,
    /// What the broken items define (`name:`, `version:`, `stablehlo:` values), to excuse the
    /// errors that only follow from their absence.
    pub broken_names: Vec<String>,
}

/// One top-level key holding a block list: the key's line and the line ranges of its items
/// (0-based, end exclusive).
struct ListSection {
    key_line: usize,
    items: Vec<(usize, usize)>,
}

fn is_content(line: &str) -> bool {
    let t = line.trim_start();
    !t.is_empty() && !t.starts_with('#')
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The block lists at the top level of `lines`, with their items.
fn list_sections(lines: &[&str]) -> Vec<ListSection> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let opens_block = !line.starts_with([' ', '\t', '#', '-'])
            && line
                .split_once(':')
                .is_some_and(|(_, rest)| !is_content(rest));
        if !opens_block {
            i += 1;
            continue;
        }
        let key_line = i;
        let end = (i + 1..lines.len())
            .find(|&j| is_content(lines[j]) && !lines[j].starts_with([' ', '\t']))
            .unwrap_or(lines.len());
        let dash = (i + 1..end)
            .find(|&j| is_content(lines[j]))
            .filter(|&j| lines[j].trim_start().starts_with('-'))
            .map(|j| indent(lines[j]));
        if let Some(d) = dash {
            let starts: Vec<usize> = (i + 1..end)
                .filter(|&j| indent(lines[j]) == d && lines[j][d..].starts_with('-'))
                .collect();
            let items = starts
                .iter()
                .enumerate()
                .map(|(k, &s)| (s, starts.get(k + 1).copied().unwrap_or(end)))
                .collect();
            out.push(ListSection { key_line, items });
        }
        i = end;
    }
    out
}

/// `lines` with the items of every list emptied (`key: []`), except `keep` (section, item).
fn document(lines: &[&str], sections: &[ListSection], keep: Option<(usize, usize)>) -> String {
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    for (s, sec) in sections.iter().enumerate() {
        let kept = keep.filter(|&(ks, _)| ks == s).map(|(_, k)| k);
        if kept.is_none() {
            let key = lines[sec.key_line].split_once(':').map_or("", |(k, _)| k);
            out[sec.key_line] = format!("{key}: []");
        }
        for (k, &(a, b)) in sec.items.iter().enumerate() {
            if Some(k) != kept {
                out[a..b].iter_mut().for_each(String::clear);
            }
        }
    }
    out.join("\n")
}

/// The values of `name:` and `version:` at the top of an item and of `stablehlo:` anywhere in
/// it (the line may be the broken one), and a versioned name without its `_vN` (an enum's
/// StableHLO name, when its own line is too broken to read).
fn names_in(item: &[&str]) -> Vec<String> {
    let Some(first) = item.first() else {
        return Vec::new();
    };
    let col = indent(first) + 2;
    let mut out = Vec::new();
    for (k, l) in item.iter().enumerate() {
        let top = if k == 0 {
            l.get(col..)
        } else {
            l.strip_prefix(&" ".repeat(col)[..])
        };
        let Some((key, value)) = top.unwrap_or(l.trim_start()).split_once(':') else {
            continue;
        };
        let value = value
            .split(" #")
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches('"');
        let wanted = match key {
            "name" | "version" => top.is_some(),
            "stablehlo" => true,
            _ => false,
        };
        if wanted && !value.is_empty() {
            out.push(value.to_string());
            if let Some((base, n)) = value.rsplit_once("_v") {
                if key == "name" && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
                    out.push(base.to_string());
                }
            }
        }
    }
    out
}

/// Parses `text`; on failure, reports every broken item of its top-level lists (each with what
/// is wrong) and returns the rest.
pub fn parse_items<T: for<'de> Deserialize<'de> + Items>(
    file: &str,
    text: &str,
    diags: &mut Diagnostics,
) -> Recovered<T> {
    let whole = match serde_saphyr::from_str::<T>(text) {
        Ok(v) => {
            return Recovered {
                value: Some(v),
                broken_names: Vec::new(),
            }
        }
        Err(e) => e,
    };
    let lines: Vec<&str> = text.split('\n').collect();
    let sections = list_sections(&lines);
    let skeleton = document(&lines, &sections, None);
    let mut value = match serde_saphyr::from_str::<T>(&skeleton) {
        Ok(v) => v,
        Err(e) => {
            report(file, &lines, 0, lines.len(), &e, diags);
            return Recovered {
                value: None,
                broken_names: Vec::new(),
            };
        }
    };
    let mut broken_names = Vec::new();
    let mut broken = false;
    for (s, sec) in sections.iter().enumerate() {
        for (k, &(a, b)) in sec.items.iter().enumerate() {
            let doc = document(&lines, &sections, Some((s, k)));
            match serde_saphyr::from_str::<T>(&doc) {
                Ok(v) => value.merge(v),
                Err(e) => {
                    broken = true;
                    report(file, &lines, a, b, &e, diags);
                    broken_names.extend(names_in(&lines[a..b]));
                }
            }
        }
    }
    if !broken {
        // Every item parses alone: what is wrong lies between them.
        report(file, &lines, 0, lines.len(), &whole, diags);
    }
    Recovered {
        value: Some(value),
        broken_names,
    }
}

/// Parses `text` as a whole, reporting what is wrong when it does not parse.
pub fn parse_whole<T: for<'de> Deserialize<'de>>(
    file: &str,
    text: &str,
    diags: &mut Diagnostics,
) -> Option<T> {
    match serde_saphyr::from_str::<T>(text) {
        Ok(v) => Some(v),
        Err(e) => {
            let lines: Vec<&str> = text.split('\n').collect();
            report(file, &lines, 0, lines.len(), &e, diags);
            None
        }
    }
}

/// Reports the parser's error `e` for lines `a..b` of `file`, or, when the lines show what is
/// wrong more plainly (a tab, a misplaced key), that.
fn report(
    file: &str,
    lines: &[&str],
    a: usize,
    b: usize,
    e: &serde_saphyr::Error,
    diags: &mut Diagnostics,
) {
    if let Some((line, col, what)) = layout_problem(lines, a, b) {
        diags.error(
            Pos {
                file: file.to_string(),
                line: u32::try_from(line + 1).unwrap_or(u32::MAX),
                col: u32::try_from(col + 1).unwrap_or(u32::MAX),
            },
            format!("YAML error: {what}"),
        );
        return;
    }
    let pos = match e.location() {
        Some(loc) => Pos {
            file: file.to_string(),
            line: loc.line() as u32,
            col: loc.column() as u32,
        },
        None => Pos::file(file),
    };
    // The library's message may repeat the location; keep its first line only.
    let msg = e.to_string();
    let mut first = msg.lines().next().unwrap_or("invalid YAML").trim();
    // Drop the library's own "error: line L column C:" prefix; the position is ours.
    first = first.strip_prefix("error:").unwrap_or(first).trim_start();
    if first.starts_with("line ") {
        if let Some((_, rest)) = first.split_once(": ") {
            first = rest;
        }
    }
    let hint = if first.contains("simple key expected ':'") {
        " (a key without its colon?)"
    } else if first.contains("mapping values are not allowed") {
        " (a key indented deeper than the keys beside it, or a `: ` inside an unquoted value?)"
    } else if first.contains("found a tab") {
        " (YAML indents with spaces only)"
    } else {
        ""
    };
    diags.error(pos, format!("YAML error: {first}{hint}"));
}

/// The first tab in an indentation, or key indented unlike every key it could belong to, in
/// lines `a..b`: (line, column, what is wrong). Block scalars (`|`, `>`) are skipped.
fn layout_problem(lines: &[&str], a: usize, b: usize) -> Option<(usize, usize, String)> {
    // The columns of the keys of the open mappings, innermost last.
    let mut open: Vec<usize> = Vec::new();
    // A key whose value is a block on the following lines: the column it must pass.
    let mut opening: Option<usize> = None;
    let mut scalar_block: Option<usize> = None;
    for (i, line) in lines.iter().enumerate().take(b).skip(a) {
        if !is_content(line) {
            continue;
        }
        let lead = &line[..line.len() - line.trim_start().len()];
        if let Some(t) = lead.find('\t') {
            return Some((
                i,
                t,
                "a tab in the indentation (YAML indents with spaces only)".into(),
            ));
        }
        let ind = indent(line);
        if let Some(s) = scalar_block {
            if ind > s {
                continue;
            }
            scalar_block = None;
        }
        // The key on this line, after any `- ` item markers, and its column.
        let mut col = ind;
        let mut rest = &line[ind..];
        while let Some(r) = rest.strip_prefix("- ") {
            let r2 = r.trim_start_matches(' ');
            col += 2 + (r.len() - r2.len());
            rest = r2;
        }
        let item = col != ind;
        let key = rest
            .split_once(':')
            .filter(|(k, v)| {
                !k.is_empty()
                    && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && (v.is_empty() || v.starts_with(' '))
            })
            .map(|(k, v)| (k, v.split(" #").next().unwrap_or("").trim()));
        let Some((key, value)) = key else {
            // A list item or a continuation: it fills a block that was opened.
            if opening.is_some_and(|o| ind > o) {
                opening = None;
            }
            continue;
        };
        match opening.take() {
            Some(o) if col > o => {}
            Some(o) if item && col == o + 2 && ind == o => {}
            _ => {
                let beside = open.last().copied();
                while open.last().is_some_and(|&c| c > col) {
                    open.pop();
                }
                if let (Some(beside), false) = (beside, item || open.last() == Some(&col)) {
                    return Some((
                        i,
                        ind,
                        format!(
                            "`{key}:` is indented {ind} spaces, the key before it {beside}: a key belongs with the keys at its own indentation"
                        ),
                    ));
                }
            }
        }
        while open.last().is_some_and(|&c| c >= col) {
            open.pop();
        }
        open.push(col);
        if value.is_empty() {
            opening = Some(col);
        } else if value.starts_with(['|', '>']) {
            scalar_block = Some(col);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(text: &str) -> Option<(usize, usize, String)> {
        let lines: Vec<&str> = text.split('\n').collect();
        layout_problem(&lines, 0, lines.len())
    }

    #[test]
    fn well_laid_out_files_have_no_layout_problem() {
        let spec = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
        let mut files = vec![spec.join("enums.yaml"), spec.join("types.yaml")];
        files.extend([spec.join("attrs.yaml"), spec.join("releases.yaml")]);
        for dir in ["ops", "dialects"] {
            for e in std::fs::read_dir(spec.join(dir)).unwrap() {
                files.push(e.unwrap().path());
            }
        }
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(problem(&text), None, "{}", path.display());
        }
    }

    #[test]
    fn a_misplaced_key_or_a_tab_is_named_at_its_line() {
        let base = "enums:\n  - name: a_v1\n    since: 1.0.0\n    code: 3\n    stablehlo: a\n";
        let deeper = base.replace("    stablehlo", "      stablehlo");
        let (line, _, what) = problem(&deeper).unwrap();
        assert_eq!(line, 4, "{what}");
        assert!(
            what.contains("`stablehlo:` is indented 6 spaces, the key before it 4"),
            "{what}"
        );
        let shallower = base.replace("    stablehlo", "   stablehlo");
        let (line, _, what) = problem(&shallower).unwrap();
        assert_eq!(line, 4, "{what}");
        assert!(what.contains("indented 3 spaces"), "{what}");
        let tab = base.replace("    stablehlo", "\tstablehlo");
        let (line, _, what) = problem(&tab).unwrap();
        assert_eq!(line, 4);
        assert!(what.contains("tab"), "{what}");
    }
}

#[cfg(test)]
mod one_round {
    use std::path::{Path, PathBuf};

    /// A copy of the repository's spec in a directory of its own, with `edits` (file, from, to)
    /// made.
    fn broken_spec(test: &str, edits: &[(&str, &str, &str)]) -> PathBuf {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../spec");
        let dir = std::env::temp_dir().join(format!("vhlo-recover-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut stack = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            std::fs::create_dir_all(dir.join(&rel)).unwrap();
            for e in std::fs::read_dir(from.join(&rel)).unwrap() {
                let e = e.unwrap();
                let r = rel.join(e.file_name());
                if e.file_type().unwrap().is_dir() {
                    stack.push(r);
                } else {
                    std::fs::copy(e.path(), dir.join(&r)).unwrap();
                }
            }
        }
        for (file, a, b) in edits {
            let p = dir.join(file);
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(text.contains(a), "{file} has no `{a}`");
            std::fs::write(&p, text.replacen(a, b, 1)).unwrap();
        }
        dir
    }

    fn errors(dir: &Path) -> Vec<String> {
        let errs = crate::load_spec_named(dir, "spec").unwrap_err();
        let _ = std::fs::remove_dir_all(dir);
        errs.0.iter().map(|d| d.to_string()).collect()
    }

    #[test]
    fn a_yaml_error_in_one_file_keeps_the_rest_and_the_other_files_errors() {
        // A mis-indented key in one enum (which 12 op versions use), a release row with a
        // bytecode version MLIR lacks, and an op version starting at no release.
        let enum_at =
            "  - name: result_accuracy_mode_v1\n    since: 1.9.0\n    code: 19\n    stablehlo:";
        let dir = broken_spec(
            "indent",
            &[
                (
                    "enums.yaml",
                    enum_at,
                    "  - name: result_accuracy_mode_v1\n    since: 1.9.0\n    code: 19\n      stablehlo:",
                ),
                ("releases.yaml", "bytecode: 1", "bytecode: 2"),
                ("ops/abs.yaml", "since: 0.9.0", "since: 0.9.7"),
            ],
        );
        let enums = std::fs::read_to_string(dir.join("enums.yaml")).unwrap();
        let line = enums
            .lines()
            .position(|l| l == "      stablehlo: result_accuracy_mode")
            .unwrap()
            + 1;
        let got = errors(&dir);
        let want_yaml = format!(
            "spec/enums.yaml:{line}:7: error: YAML error: `stablehlo:` is indented 6 spaces"
        );
        assert!(got.iter().any(|e| e.starts_with(&want_yaml)), "{got:#?}");
        assert!(
            got.iter()
                .any(|e| e.contains("names MLIR bytecode version 2")),
            "{got:#?}"
        );
        assert!(
            got.iter().any(|e| e.contains("`abs_v1` starts at 0.9.7")),
            "{got:#?}"
        );
        // The other enums are in the model, and nothing that only follows from the broken one
        // is reported: one YAML error, and the errors of the other two files.
        assert_eq!(
            got.iter().filter(|e| e.contains("enums.yaml")).count(),
            1,
            "{got:#?}"
        );
        assert!(
            !got.iter().any(|e| e.contains("result_accuracy_mode")),
            "{got:#?}"
        );
        assert!(
            got.iter().all(|e| e.contains("spec/enums.yaml")
                || e.contains("spec/releases.yaml")
                || e.contains("spec/ops/abs.yaml")),
            "{got:#?}"
        );
    }

    #[test]
    fn a_tab_and_a_missing_colon_are_named() {
        for (test, broken, want) in [
            ("tab", "\tstablehlo:", "a tab in the indentation"),
            ("colon", "    stablehlo ", "a key without its colon"),
        ] {
            let dir = broken_spec(
                test,
                &[(
                    "enums.yaml",
                    "    stablehlo: result_accuracy_mode",
                    &format!("{broken} result_accuracy_mode"),
                )],
            );
            let got = errors(&dir);
            assert_eq!(got.len(), 1, "{test}: {got:#?}");
            assert!(got[0].contains(want), "{test}: {got:#?}");
        }
    }
}
