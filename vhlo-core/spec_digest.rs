//! The digest of a spec directory that the checked-in expansion records
//! (`// spec digest: ...` in `src/generated/vhlo_dialect.rs`): vhlo-core's build script
//! (`build.rs`) compares it with the spec as it is, and codegen (`codegen/src/lib.rs`,
//! `expand_to_string`) writes it. One file, included by both, so they cannot disagree.
//!
//! It covers every `*.yaml` under the directory by relative path and contents; the lock
//! (`released.lock`) does not feed the expansion and is left out. FNV-1a: a change detector,
//! not a defence against crafted collisions.

use std::path::Path;

/// The digest of the spec in `dir`, as `fnv1a64:<16 hex digits>`.
pub fn spec_digest(dir: &Path) -> std::io::Result<String> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let p = e?.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                files.push(p);
            }
        }
    }
    let mut named: Vec<(String, std::path::PathBuf)> = files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(dir).unwrap_or(&p);
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            (rel.join("/"), p)
        })
        .collect();
    named.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for (rel, p) in &named {
        let text = std::fs::read(p)?;
        eat(rel.as_bytes());
        eat(&[0]);
        eat(&(text.len() as u64).to_le_bytes());
        eat(&text);
    }
    Ok(format!("fnv1a64:{h:016x}"))
}
