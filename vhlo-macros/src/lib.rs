//! `vhlo_dialect!("path/to/spec")`: expands the VHLO spec into the generated dialect.
//!
//! The path is resolved against the invoking crate's directory (`CARGO_MANIFEST_DIR`), then
//! against its ancestors (so trybuild's copies under `target/` find workspace-relative specs).
//! Spec errors become one `compile_error!` listing every `spec/<file>.yaml:line:col: ...`. The
//! macro never panics.

use std::path::{Path, PathBuf};

use proc_macro::TokenStream;
use syn::parse::{Parse, ParseStream};
use syn::{LitStr, Token};

struct Input {
    path: LitStr,
}

impl Parse for Input {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // Accept `"dir"` or `spec = "dir"`.
        if input.peek(syn::Ident) {
            let key: syn::Ident = input.parse()?;
            if key != "spec" {
                return Err(syn::Error::new(
                    key.span(),
                    "expected `spec = \"<dir>\"` or a string literal",
                ));
            }
            input.parse::<Token![=]>()?;
        }
        let path: LitStr = input.parse()?;
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the spec path"));
        }
        Ok(Input { path })
    }
}

fn resolve(rel: &str) -> Result<PathBuf, String> {
    let given = Path::new(rel);
    if given.is_absolute() {
        return Ok(given.to_path_buf());
    }
    let mut roots = Vec::new();
    if let Ok(root) = std::env::var("VHLO_SPEC_ROOT") {
        roots.push(PathBuf::from(root));
    }
    let manifest = std::env::var("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("."));
    roots.extend(manifest.ancestors().map(Path::to_path_buf));
    for root in &roots {
        let candidate = root.join(given);
        if candidate.join("releases.yaml").is_file() {
            return Ok(candidate);
        }
    }
    Err(format!(
        "cannot find the VHLO spec `{rel}` (looked for `{rel}/releases.yaml` under {} and its parent directories)",
        manifest.display()
    ))
}

/// Expands the spec directory named by the string literal into the generated dialect.
#[proc_macro]
pub fn vhlo_dialect(input: TokenStream) -> TokenStream {
    let input = match syn::parse::<Input>(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error().into(),
    };
    let dir = match resolve(&input.path.value()) {
        Ok(d) => d,
        Err(msg) => {
            return syn::Error::new(input.path.span(), msg)
                .to_compile_error()
                .into()
        }
    };
    let literal = input.path.value();
    let mut shown = literal.as_str();
    while let Some(rest) = shown
        .strip_prefix("../")
        .or_else(|| shown.strip_prefix("./"))
    {
        shown = rest;
    }
    match codegen::load_spec_named(&dir, shown.trim_end_matches('/')) {
        Ok(spec) => codegen::emit(
            &spec,
            &codegen::EmitOptions {
                track_files: true,
                ..Default::default()
            },
        )
        .into(),
        Err(errors) => {
            let mut combined: Option<syn::Error> = None;
            for d in &errors.0 {
                let e = syn::Error::new(input.path.span(), d.to_string());
                match &mut combined {
                    Some(c) => c.combine(e),
                    None => combined = Some(e),
                }
            }
            match combined {
                Some(c) => c.to_compile_error().into(),
                None => TokenStream::new(),
            }
        }
    }
}
