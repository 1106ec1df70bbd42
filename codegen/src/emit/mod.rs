//! Step 4: emission. Turns a checked [`Spec`] into the tokens of the generated dialect.
//!
//! The emitted code refers to the runtime only through absolute `::vhlo_core::` paths, so it can be
//! expanded in vhlo-core itself (which declares `extern crate self as vhlo_core`) or in any crate
//! that depends on it (the fixture tests).

mod codec;
mod convert;
mod kinds;
mod ops;
mod structs;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::model::{Bound, Spec, Version, VersionRange};

/// Options for emission.
#[derive(Clone, Debug, Default)]
pub struct EmitOptions {
    /// Emit `include_bytes!` of every spec file so Cargo rebuilds when one changes (macro mode only:
    /// the paths are absolute and machine-specific).
    pub track_files: bool,
    /// Leave out the typed VHLO type and attribute structs (`pub mod types`, `pub mod attrs`),
    /// which the checked-in expansion keeps in a file of its own ([`emit_typed`]).
    pub typed_separately: bool,
}

/// Emits the whole generated dialect.
pub fn emit(spec: &Spec, options: &EmitOptions) -> TokenStream {
    let releases = emit_releases(spec);
    let kinds = kinds::emit(spec, !options.typed_separately);
    let ops = ops::emit(spec);
    let convert = convert::emit(spec);
    let codec = codec::emit(spec);
    let structs = structs::emit(spec);
    let tracking = if options.track_files {
        let files = spec.files.iter().map(|p| p.to_string_lossy().into_owned());
        quote! { #( const _: &[u8] = include_bytes!(#files); )* }
    } else {
        quote! {}
    };
    quote! {
        #tracking
        #releases
        #kinds
        #ops
        #convert
        #codec
        #structs
    }
}

/// The typed VHLO type and attribute structs alone (`pub mod types`, `pub mod attrs`).
pub fn emit_typed(spec: &Spec) -> TokenStream {
    kinds::typed_modules(spec)
}

pub(crate) fn version_tokens(v: Version) -> TokenStream {
    let (a, b, c) = (v.major, v.minor, v.patch);
    quote! { ::vhlo_core::version::Version::new(#a, #b, #c) }
}

pub(crate) fn range_tokens(spec: &Spec, r: VersionRange) -> TokenStream {
    let min = version_tokens(r.min);
    let (max, open) = match r.max {
        Bound::Current => (version_tokens(spec.current()), true),
        Bound::Version(v) => (version_tokens(v), false),
    };
    quote! { ::vhlo_core::version::VersionRange { min: #min, max: #max, open: #open } }
}

/// `all_gather` / `cross-replica-sum` -> `AllGather` / `CrossReplicaSum`.
pub(crate) fn camel(s: &str) -> String {
    s.split(['_', '-'])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// A field or function identifier for a spec name; keywords become raw identifiers.
pub(crate) fn field_ident(name: &str) -> Ident {
    let clean: String = name
        .chars()
        .map(|c| if c == '-' { '_' } else { c })
        .collect();
    if KEYWORDS.contains(&clean.as_str()) {
        Ident::new_raw(&clean, Span::call_site())
    } else {
        format_ident!("{}", clean)
    }
}

fn emit_releases(spec: &Spec) -> TokenStream {
    let rows = spec.releases.iter().map(|r| {
        let v = version_tokens(r.version);
        let bc = r.bytecode;
        let date = match &r.date {
            Some(d) => quote! { Some(#d) },
            None => quote! { None },
        };
        let ch = &r.changes;
        quote! { ::vhlo_core::version::Release { version: #v, bytecode_version: #bc, date: #date, changes: #ch } }
    });
    let current = version_tokens(spec.current());
    let minimum = version_tokens(spec.minimum());
    let compat = spec.compat.iter().map(|c| {
        let name = &c.name;
        let v = match c.version {
            crate::model::CompatTarget::Current => current.clone(),
            crate::model::CompatTarget::Minimum => minimum.clone(),
            crate::model::CompatTarget::Version(v) => version_tokens(v),
        };
        quote! { (#name, #v) }
    });
    let tags = spec.tags.iter().map(|t| {
        let v = version_tokens(t.version);
        let tagged = &t.tagged;
        quote! { ::vhlo_core::version::ReleaseTag { version: #v, tagged: #tagged } }
    });
    quote! {
        /// Every upstream release tag, patch releases included, oldest first, with its tagger
        /// date in UTC (`spec/releases.yaml`, `tags`).
        pub const RELEASE_TAGS: &[::vhlo_core::version::ReleaseTag] = &[ #(#tags),* ];
        /// The release table, oldest first: every minor StableHLO release with the MLIR bytecode
        /// version its artifacts use.
        pub const RELEASES: &[::vhlo_core::version::Release] = &[ #(#rows),* ];
        /// The newest version this dialect knows.
        pub const CURRENT_VERSION: ::vhlo_core::version::Version = #current;
        /// The oldest version this dialect can read or write.
        pub const MINIMUM_VERSION: ::vhlo_core::version::Version = #minimum;
        /// Compatibility requirement presets (`NONE`, `WEEK_4`, `WEEK_12`, `MAX`) and the version each
        /// one targets.
        pub const COMPATIBILITY_REQUIREMENTS: &[(&str, ::vhlo_core::version::Version)] = &[ #(#compat),* ];
    }
}
