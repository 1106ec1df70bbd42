//! The module graph of vhlo-core (no cycles between its layers): which module of
//! vhlo-core/src names which, and a failure on a cycle.
//!
//! A node is a module: a file (`text::printer`), a directory's mod.rs being the directory's own
//! node. An edge is a path the module's code names: `crate::…` (or `vhlo_core::…`, as generated
//! code writes it), `super::…`, and in a mod.rs `child::…`, each going to the longest module
//! prefix. What a mod.rs only re-exports (`pub use child::{X, Y}`) is the directory's face, not
//! a use: `super::X` from a sibling goes to the child that defines X. Comments and test code
//! (`tests.rs`, `#[cfg(test)]` tails) are left out. Calls of methods defined in `impl` blocks of
//! other files name no path and are not edges.
//!
//! `cargo test -p vhlo-tests --test spec module_graph -- --nocapture` prints the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use vhlo_tests::workspace_root;

struct Module {
    path: Vec<String>,
    /// Code without comments and test tails, with its `include!`d files.
    code: String,
    children: BTreeSet<String>,
}

/// The code of a file without line comments and without what follows `#[cfg(test)]`.
fn code_of(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") {
            break;
        }
        if t.starts_with("//") {
            continue;
        }
        let line = line.split(" // ").next().unwrap_or(line);
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// `mod name;` declarations (any visibility), except test modules.
fn declared_children(code: &str) -> Vec<String> {
    code.lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l
                .strip_prefix("pub ")
                .or_else(|| l.strip_prefix("pub(crate) "))
                .unwrap_or(l);
            let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
            (name != "tests").then(|| name.to_string())
        })
        .collect()
}

/// Reads the module tree from lib.rs through its `mod` declarations.
fn load(src: &Path) -> BTreeMap<String, Module> {
    let mut out = BTreeMap::new();
    let mut todo: Vec<(Vec<String>, PathBuf)> = vec![(Vec::new(), src.join("lib.rs"))];
    while let Some((path, file)) = todo.pop() {
        let mut code = code_of(&file);
        let dir = match file.file_name().and_then(|n| n.to_str()) {
            Some("lib.rs" | "mod.rs") => file.parent().expect("dir").to_path_buf(),
            _ => file.with_extension(""),
        };
        for inc in code.clone().split("include!(\"").skip(1) {
            let rel = inc.split('"').next().unwrap_or("");
            code.push_str(&code_of(&file.parent().expect("dir").join(rel)));
        }
        let mut children = BTreeSet::new();
        for child in declared_children(&code) {
            let flat = dir.join(format!("{child}.rs"));
            let nested = dir.join(&child).join("mod.rs");
            let f = if flat.exists() { flat } else { nested };
            assert!(
                f.exists(),
                "module {child} of {} has no file",
                file.display()
            );
            let mut p = path.clone();
            p.push(child.clone());
            todo.push((p, f));
            children.insert(child);
        }
        out.insert(
            path.join("::"),
            Module {
                path,
                code,
                children,
            },
        );
    }
    out
}

/// Names a `pub use child::…` of a mod.rs re-exports, mapped to that child's node; a glob
/// (`pub use child::*`) maps every `pub` item the child defines.
fn reexports(mods: &BTreeMap<String, Module>, m: &Module) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let node = |child: &str| {
        let mut p = m.path.clone();
        p.push(child.to_string());
        p.join("::")
    };
    for stmt in m.code.split(';') {
        let s = stmt.trim();
        let Some(rest) = s
            .strip_prefix("pub use ")
            .or_else(|| s.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let Some((child, items)) = rest.split_once("::") else {
            continue;
        };
        if !m.children.contains(child) {
            continue;
        }
        if items.trim() == "*" {
            let defs = &mods[&node(child)].code;
            for w in defs.split("pub ").skip(1) {
                let w = w.trim_start_matches("(crate) ");
                let mut words = w.split(|c: char| !(c.is_alphanumeric() || c == '_'));
                if let (
                    Some("struct" | "enum" | "fn" | "type" | "const" | "static" | "trait"),
                    Some(name),
                ) = (words.next(), words.next())
                {
                    out.insert(name.to_string(), node(child));
                }
            }
        } else {
            for item in items
                .trim_matches(|c: char| c == '{' || c == '}' || c.is_whitespace())
                .split(',')
            {
                let name = item
                    .rsplit(" as ")
                    .next()
                    .unwrap_or("")
                    .rsplit("::")
                    .next()
                    .unwrap_or("")
                    .trim();
                if !name.is_empty() {
                    out.insert(name.to_string(), node(child));
                }
            }
        }
    }
    out
}

/// The module graph: module -> the modules its code names.
fn graph(mods: &BTreeMap<String, Module>) -> BTreeMap<String, BTreeSet<String>> {
    let faces: BTreeMap<&String, BTreeMap<String, String>> =
        mods.iter().map(|(k, m)| (k, reexports(mods, m))).collect();
    let resolve = |path: &[String]| -> Option<String> {
        (0..=path.len()).rev().find_map(|k| {
            let node = path[..k].join("::");
            mods.get(&node)?;
            Some(
                path.get(k)
                    .and_then(|next| faces[&node].get(next).cloned())
                    .unwrap_or(node),
            )
        })
    };
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (key, m) in mods {
        let edges = g.entry(key.clone()).or_default();
        // A mod.rs's re-exports are not uses.
        let code: String = m
            .code
            .split_inclusive(';')
            .filter(|s| {
                let s = s.trim_start();
                let re = s
                    .strip_prefix("pub use ")
                    .or_else(|| s.strip_prefix("pub(crate) use "));
                !re.is_some_and(|r| r.split("::").next().is_some_and(|c| m.children.contains(c)))
            })
            .collect();
        let bytes = code.as_bytes();
        let ident = |i: usize| {
            bytes
                .get(i)
                .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
        };
        let mut i = 0;
        while i < bytes.len() {
            // A path starts after a non-identifier, or after a leading `::` (`::vhlo_core::ir`).
            let starts = i == 0
                || !(ident(i - 1) || bytes[i - 1] == b':')
                || (code[..i].ends_with("::")
                    && (i < 3 || !(ident(i - 3) || bytes[i - 3] == b'>')));
            if ident(i) && starts {
                let start = i;
                // A path: identifiers joined by `::`, possibly ending in a `{…}` group.
                let mut end = i;
                while end < bytes.len() && (ident(end) || code[end..].starts_with("::")) {
                    end += if ident(end) { 1 } else { 2 };
                }
                let text = &code[start..end];
                let segs: Vec<&str> = text.split("::").filter(|s| !s.is_empty()).collect();
                let group: Vec<String> = if text.ends_with("::") && code[end..].starts_with('{') {
                    let close = code[end..].find('}').map_or(code.len(), |c| end + c);
                    code[end + 1..close]
                        .split(',')
                        .map(|s| s.trim().split("::").next().unwrap_or("").to_string())
                        .filter(|s| !s.is_empty() && s != "self")
                        .collect()
                } else {
                    vec![String::new()]
                };
                // The module the path starts from, and the segments after it.
                let from = match segs.first().copied() {
                    Some("crate" | "vhlo_core") => Some((Vec::new(), &segs[1..])),
                    Some("super") => {
                        let ups = segs.iter().take_while(|s| **s == "super").count();
                        let base = m.path[..m.path.len().saturating_sub(ups)].to_vec();
                        Some((base, &segs[ups..]))
                    }
                    Some(first) if m.children.contains(first) => Some((m.path.clone(), &segs[..])),
                    _ => None,
                };
                if let Some((base, rest)) = from.filter(|_| segs.len() > 1 || text.ends_with("::"))
                {
                    for g in &group {
                        let mut p = base.clone();
                        p.extend(rest.iter().map(|s| s.to_string()));
                        if !g.is_empty() {
                            p.push(g.clone());
                        }
                        if let Some(t) = resolve(&p).filter(|t| t != key) {
                            edges.insert(t);
                        }
                    }
                }
                i = end.max(i + 1);
            } else {
                i += 1;
            }
        }
    }
    g
}

/// The strongly connected components with more than one node (Tarjan).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'g> {
        g: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(t: &mut T<'g>, v: &'g str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        for w in t.g.get(v).into_iter().flatten() {
            if !t.index.contains_key(w.as_str()) {
                visit(t, w);
                let lw = t.low[w.as_str()];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if t.stack.contains(&w.as_str()) {
                let iw = t.index[w.as_str()];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

/// The graph between top-level modules (`text`, `bytecode`, ...).
fn top_level(g: &BTreeMap<String, BTreeSet<String>>) -> BTreeMap<String, BTreeSet<String>> {
    let top = |m: &str| m.split("::").next().unwrap_or("").to_string();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, bs) in g {
        let e = out.entry(top(a)).or_default();
        e.extend(bs.iter().map(|b| top(b)).filter(|b| *b != top(a)));
    }
    out
}

fn show(g: &BTreeMap<String, BTreeSet<String>>) -> String {
    let name = |m: &str| {
        if m.is_empty() {
            "crate".to_string()
        } else {
            m.to_string()
        }
    };
    g.iter()
        .map(|(a, bs)| {
            format!(
                "{} -> {}\n",
                name(a),
                bs.iter().map(|b| name(b)).collect::<Vec<_>>().join(", ")
            )
        })
        .collect()
}

fn vhlo_core_graph() -> BTreeMap<String, BTreeSet<String>> {
    graph(&load(&workspace_root().join("vhlo-core/src")))
}

#[test]
fn top_level_modules_form_a_dag() {
    let top = top_level(&vhlo_core_graph());
    println!("{}", show(&top));
    assert!(
        top.len() > 5,
        "the module tree was not read:\n{}",
        show(&top)
    );
    assert_eq!(
        cycles(&top),
        Vec::<Vec<String>>::new(),
        "cycles between top-level modules:\n{}",
        show(&top)
    );
    // The data flow: ir -> dialect -> text / bytecode / convert -> portable.
    let uses = |a: &str, b: &str| top.get(a).is_some_and(|s| s.contains(b));
    for (low, high) in [
        ("ir", "dialect"),
        ("ir", "text"),
        ("dialect", "text"),
        ("text", "convert"),
        ("bytecode", "convert"),
        ("convert", "portable"),
    ] {
        assert!(
            !uses(low, high),
            "`{low}` names `{high}`, which is built on it"
        );
    }
}

#[test]
fn modules_form_a_dag() {
    let g = vhlo_core_graph();
    println!("{}", show(&g));
    let found = cycles(&g);
    assert!(found.is_empty(), "module cycles: {found:?}\n{}", show(&g));
}

#[test]
fn a_cycle_is_found() {
    let g: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]
        .iter()
        .fold(BTreeMap::new(), |mut g, (x, y)| {
            g.entry(x.to_string())
                .or_insert_with(BTreeSet::new)
                .insert(y.to_string());
            g
        });
    assert_eq!(
        cycles(&g),
        vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
    );
}
