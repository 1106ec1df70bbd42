//! VHLO types, attributes and enums: kind enums with ranges, bytecode codes and parameter tables,
//! plus a typed Rust enum for every VHLO enum attribute.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{camel, range_tokens};
use crate::model::{ParamKind, Spec, TypeOrAttrDef};

fn param_kind_tokens(k: ParamKind) -> TokenStream {
    let id = format_ident!("{}", camel(k.spelling()));
    quote! { ::vhlo_core::dialect::ParamKind::#id }
}

fn kind_enum(
    spec: &Spec,
    enum_name: &str,
    what: &str,
    defs: &[TypeOrAttrDef],
    with_encoding: bool,
) -> TokenStream {
    let ty = format_ident!("{}", enum_name);
    let variants: Vec<_> = defs
        .iter()
        .map(|d| format_ident!("{}", camel(&d.name)))
        .collect();
    let docs = defs.iter().map(|d| {
        let mut s = format!(
            "`#vhlo.{}` ({what}), legal in {}; stands for `{}`.",
            d.name,
            d.range.describe(),
            d.builtin
        );
        if let Some(desc) = &d.description {
            s = format!("{s} {desc}");
        }
        s
    });
    let names = defs.iter().map(|d| &d.name);
    let codes = defs.iter().map(|d| d.code);
    let ranges = defs.iter().map(|d| range_tokens(spec, d.range));
    let builtins = defs.iter().map(|d| &d.builtin);
    let params = defs.iter().map(|d| {
        let ps = d.params.iter().map(|p| {
            let n = &p.name;
            let k = param_kind_tokens(p.kind);
            let o = p.optional;
            quote! { ::vhlo_core::dialect::ParamSpec { name: #n, kind: #k, optional: #o } }
        });
        quote! { &[ #(#ps),* ] }
    });
    let wires = defs.iter().map(|d| {
        let steps = d.wire.iter().map(|st| {
            let param = st.param;
            let wire = super::codec::wire_tokens(st.wire);
            quote! { ::vhlo_core::dialect::WireStep { param: #param, wire: #wire } }
        });
        quote! { &[ #(#steps),* ] }
    });
    let formats = defs.iter().map(crate::param_format::tokens);
    let from_mnemonic = defs.iter().zip(&variants).map(|(d, v)| {
        let n = &d.name;
        quote! { #n => Some(#ty::#v), }
    });
    let from_code = defs.iter().zip(&variants).map(|(d, v)| {
        let c = d.code;
        let alt = d.code_with_encoding.map(|a| quote! { | #a });
        quote! { #c #alt => Some(#ty::#v), }
    });
    let encoding_fn = if with_encoding {
        let arms = defs.iter().zip(&variants).filter_map(|(d, v)| {
            d.code_with_encoding
                .map(|c| quote! { #ty::#v => Some(#c), })
        });
        quote! {
            /// The bytecode code used when the type carries an encoding attribute, if it differs.
            pub fn code_with_encoding(self) -> Option<u32> {
                match self { #(#arms)* _ => None }
            }
        }
    } else {
        quote! {}
    };
    let doc = format!("Every VHLO {what} version in the spec.");
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum #ty {
            #( #[doc = #docs] #variants, )*
        }
        impl #ty {
            /// All of them, in spec order.
            pub const ALL: &'static [#ty] = &[ #(#ty::#variants),* ];
            /// The mnemonic, e.g. `tensor_v1`.
            pub fn mnemonic(self) -> &'static str {
                const NAMES: &[&str] = &[ #(#names),* ];
                NAMES[self as usize]
            }
            /// The VHLO bytecode code.
            pub fn code(self) -> u32 {
                const CODES: &[u32] = &[ #(#codes),* ];
                CODES[self as usize]
            }
            /// The releases in which it is legal.
            pub fn range(self) -> ::vhlo_core::version::VersionRange {
                const RANGES: &[::vhlo_core::version::VersionRange] = &[ #(#ranges),* ];
                RANGES[self as usize]
            }
            /// True when a program of version `v` may contain it.
            pub fn is_legal_in(self, v: ::vhlo_core::version::Version) -> bool {
                self.range().contains(v)
            }
            /// The builtin or StableHLO entity it stands for.
            pub fn builtin(self) -> &'static str {
                const B: &[&str] = &[ #(#builtins),* ];
                B[self as usize]
            }
            /// Its parameters, in storage order (`ir::Param` per entry).
            pub fn params(self) -> &'static [::vhlo_core::dialect::ParamSpec] {
                const P: &[&[::vhlo_core::dialect::ParamSpec]] = &[ #(#params),* ];
                P[self as usize]
            }
            /// Its bytecode entry after the code: the parameters in wire order, each with its wire
            /// form (the spec's `wire:` hints and `wire_order:`).
            pub fn wire(self) -> &'static [::vhlo_core::dialect::WireStep] {
                const W: &[&[::vhlo_core::dialect::WireStep]] = &[ #(#wires),* ];
                W[self as usize]
            }
            /// Its assembly format after the mnemonic (the spec's `format:`; empty without
            /// parameters), which the text format parses and prints it by.
            pub fn format(self) -> &'static [::vhlo_core::dialect::ParamFormatElem] {
                const F: &[&[::vhlo_core::dialect::ParamFormatElem]] = &[ #(#formats),* ];
                F[self as usize]
            }
            /// Looks one up by mnemonic.
            pub fn from_mnemonic(m: &str) -> Option<#ty> {
                match m { #(#from_mnemonic)* _ => None }
            }
            /// Looks one up by bytecode code.
            pub fn from_code(c: u32) -> Option<#ty> {
                match c { #(#from_code)* _ => None }
            }
            #encoding_fn
        }
    }
}

/// The typed struct modules of [`emit`], alone.
pub(super) fn typed_modules(spec: &Spec) -> TokenStream {
    let (types, _) = typed_structs(&spec.types, true);
    let (attrs, _) = typed_structs(&spec.attrs, false);
    quote! { #types #attrs }
}

pub(super) fn emit(spec: &Spec, typed_modules: bool) -> TokenStream {
    let types = kind_enum(spec, "VhloType", "type", &spec.types, true);
    let attrs = kind_enum(spec, "VhloAttr", "attribute", &spec.attrs, false);
    let (typed_type_mod, typed_types) = typed_structs(&spec.types, true);
    let (typed_attr_mod, typed_attrs) = typed_structs(&spec.attrs, false);
    // Checked in, the modules are a file of their own (`typed_modules`), which `dialect`
    // includes: its value builders use them.
    let typed_mods = if typed_modules {
        quote! { #typed_type_mod #typed_attr_mod }
    } else {
        quote! {}
    };

    let enum_variants: Vec<_> = spec
        .enums
        .iter()
        .map(|e| format_ident!("{}", camel(&e.name)))
        .collect();
    let enum_docs = spec.enums.iter().map(|e| {
        format!(
            "`#vhlo<{} ...>`, legal in {}; stands for `#stablehlo<{} ...>`.",
            e.name,
            e.range.describe(),
            e.stablehlo
        )
    });
    let enum_names = spec.enums.iter().map(|e| &e.name);
    let enum_codes = spec.enums.iter().map(|e| e.code);
    let enum_ranges = spec.enums.iter().map(|e| range_tokens(spec, e.range));
    let enum_shlo = spec.enums.iter().map(|e| &e.stablehlo);
    let enum_own = spec.enums.iter().map(|e| e.stablehlo_own_mnemonic);
    let enum_cases = spec.enums.iter().map(|e| {
        let cs = e.cases.iter().map(|c| {
            let (n, v) = (&c.name, c.value);
            quote! { (#n, #v) }
        });
        quote! { &[ #(#cs),* ] }
    });
    // Per enum, the cases added after it (`since:`): (value, release).
    let enum_late_cases = spec.enums.iter().map(|e| {
        let cs = e.cases.iter().filter_map(|c| {
            let v = c.value;
            let since = super::version_tokens(c.since?);
            Some(quote! { (#v, #since) })
        });
        quote! { &[ #(#cs),* ] }
    });
    let enum_from_mnemonic = spec.enums.iter().zip(&enum_variants).map(|(e, v)| {
        let n = &e.name;
        quote! { #n => Some(VhloEnum::#v), }
    });
    let enum_from_code = spec.enums.iter().zip(&enum_variants).map(|(e, v)| {
        let c = e.code;
        quote! { #c => Some(VhloEnum::#v), }
    });
    // A typed Rust enum per VHLO enum attribute.
    let typed = spec.enums.iter().map(|e| {
        let ty = format_ident!("{}", camel(&e.name));
        let doc = format!("The cases of `#vhlo<{} ...>`, with their numeric values.", e.name);
        let vs: Vec<_> = e.cases.iter().map(|c| format_ident!("{}", camel(&c.name.to_ascii_lowercase()))).collect();
        let case_docs = e.cases.iter().map(|c| format!("`{}` = {}", c.name, c.value));
        let vals: Vec<_> = e.cases.iter().map(|c| c.value).collect();
        let names: Vec<_> = e.cases.iter().map(|c| &c.name).collect();
        let kind = format_ident!("{}", camel(&e.name));
        quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
            pub enum #ty { #( #[doc = #case_docs] #vs, )* }
            impl #ty {
                /// The kind of this enum attribute.
                pub const KIND: VhloEnum = VhloEnum::#kind;
                /// The numeric value stored in bytecode.
                pub fn value(self) -> i64 { match self { #( #ty::#vs => #vals, )* } }
                /// The case name as printed.
                pub fn name(self) -> &'static str { match self { #( #ty::#vs => #names, )* } }
                /// The case with this numeric value.
                pub fn from_value(v: i64) -> Option<#ty> { match v { #( #vals => Some(#ty::#vs), )* _ => None } }
                /// The case with this name.
                pub fn from_name(n: &str) -> Option<#ty> { match n { #( #names => Some(#ty::#vs), )* _ => None } }
            }
        }
    });
    quote! {
        #types
        #attrs
        #typed_mods
        #typed_types
        #typed_attrs
        /// Every VHLO enum attribute in the spec.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum VhloEnum {
            #( #[doc = #enum_docs] #enum_variants, )*
        }
        impl VhloEnum {
            /// All of them, in spec order.
            pub const ALL: &'static [VhloEnum] = &[ #(VhloEnum::#enum_variants),* ];
            /// The mnemonic, e.g. `comparison_direction_v1`.
            pub fn mnemonic(self) -> &'static str {
                const N: &[&str] = &[ #(#enum_names),* ];
                N[self as usize]
            }
            /// The VHLO bytecode code (shared with attributes).
            pub fn code(self) -> u32 {
                const C: &[u32] = &[ #(#enum_codes),* ];
                C[self as usize]
            }
            /// The releases in which it is legal.
            pub fn range(self) -> ::vhlo_core::version::VersionRange {
                const R: &[::vhlo_core::version::VersionRange] = &[ #(#enum_ranges),* ];
                R[self as usize]
            }
            /// True when a program of version `v` may contain it.
            pub fn is_legal_in(self, v: ::vhlo_core::version::Version) -> bool {
                self.range().contains(v)
            }
            /// The StableHLO enum it stands for.
            pub fn stablehlo(self) -> &'static str {
                const S: &[&str] = &[ #(#enum_shlo),* ];
                S[self as usize]
            }
            /// True when StableHLO prints it `#stablehlo.<name><CASE>` rather than
            /// `#stablehlo<<name> CASE>` (spec `stablehlo_own_mnemonic`).
            pub fn stablehlo_own_mnemonic(self) -> bool {
                const O: &[bool] = &[ #(#enum_own),* ];
                O[self as usize]
            }
            /// (case name, value) pairs.
            pub fn cases(self) -> &'static [(&'static str, i64)] {
                const C: &[&[(&str, i64)]] = &[ #(#enum_cases),* ];
                C[self as usize]
            }
            /// The name of the case with value `v`.
            pub fn case_name(self, v: i64) -> Option<&'static str> {
                self.cases().iter().find(|(_, x)| *x == v).map(|(n, _)| *n)
            }
            /// The value of the case called `name`.
            pub fn case_value(self, name: &str) -> Option<i64> {
                self.cases().iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
            }
            /// The release that added the case with value `v`, when it came after the enum
            /// (spec `since:` on the case); older releases cannot hold it.
            pub fn case_since(self, v: i64) -> Option<::vhlo_core::version::Version> {
                const L: &[&[(i64, ::vhlo_core::version::Version)]] = &[ #(#enum_late_cases),* ];
                L[self as usize].iter().find(|(x, _)| *x == v).map(|(_, s)| *s)
            }
            /// Looks one up by mnemonic.
            pub fn from_mnemonic(m: &str) -> Option<VhloEnum> {
                match m { #(#enum_from_mnemonic)* _ => None }
            }
            /// Looks one up by bytecode code.
            pub fn from_code(c: u32) -> Option<VhloEnum> {
                match c { #(#enum_from_code)* _ => None }
            }
        }
        #(#typed)*
    }
}

/// `elementType` -> `element_type`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// How a parameter of kind `k` is held in a typed struct: the field's Rust type, the
/// `ir::Param` pattern that binds `b`, and the `Param` variant that builds one.
fn typed_param(k: ParamKind, b: &proc_macro2::Ident) -> [TokenStream; 3] {
    let (ty, variant) = match k {
        ParamKind::Type => (quote! { Type }, quote! { Type }),
        ParamKind::Types => (quote! { Box<[Type]> }, quote! { Types }),
        ParamKind::Attr => (quote! { Attribute }, quote! { Attr }),
        ParamKind::Attrs => (quote! { Box<[Attribute]> }, quote! { Attrs }),
        ParamKind::AttrPairs => (
            quote! { Box<[(Attribute, Attribute)]> },
            quote! { AttrPairs },
        ),
        ParamKind::Dims | ParamKind::I64s => (quote! { Box<[i64]> }, quote! { Ints }),
        ParamKind::I64 | ParamKind::I32 | ParamKind::Int => (quote! { i64 }, quote! { Int }),
        ParamKind::U32 => (quote! { u64 }, quote! { UInt }),
        ParamKind::Bool => (quote! { bool }, quote! { Bool }),
        ParamKind::String => (quote! { Symbol }, quote! { Str }),
        ParamKind::Floats => (quote! { Box<[u128]> }, quote! { Floats }),
        ParamKind::DenseData => (quote! { Blob }, quote! { Bytes }),
        // (bits, width): read and built by the caller.
        ParamKind::Float => (quote! { (u128, u32) }, quote! { Float }),
    };
    [
        ty,
        quote! { Param::#variant(#b) },
        quote! { Param::#variant },
    ]
}

/// A typed struct per VHLO type or attribute (`pub mod types`, `pub mod attrs`): named fields
/// for its parameters, `read` from the IR and `build` into it. The conversions (`convert/`)
/// use these rather than matching mnemonics and parameter positions by hand.
fn typed_structs(defs: &[TypeOrAttrDef], is_type: bool) -> (TokenStream, TokenStream) {
    let (module, handle, what, kind_enum) = if is_type {
        (
            format_ident!("types"),
            format_ident!("Type"),
            "type",
            format_ident!("VhloType"),
        )
    } else {
        (
            format_ident!("attrs"),
            format_ident!("Attribute"),
            "attribute",
            format_ident!("VhloAttr"),
        )
    };
    let structs = defs.iter().map(|d| {
        let name = format_ident!("{}", camel(&d.name));
        let mnemonic = &d.name;
        let sigil = if is_type { "!" } else { "#" };
        let doc = format!("`{sigil}vhlo.{mnemonic}` with its parameters by name; stands for `{}`.", d.builtin);
        let mut fields = Vec::new();
        let mut pats = Vec::new();
        let mut reads = Vec::new();
        let mut builds = Vec::new();
        for (i, p) in d.params.iter().enumerate() {
            // `type` (a keyword) is the usual Rust `ty`.
            let f = match snake(&p.name).as_str() {
                "type" => format_ident!("ty"),
                other => super::field_ident(other),
            };
            let b = format_ident!("p{}", i);
            let w = format_ident!("w{}", i);
            let fdoc = format!("`{}` ({}).", p.name, p.kind.spelling());
            let [ty, pat, ctor] = typed_param(p.kind, &b);
            let float = p.kind == ParamKind::Float;
            let (ty, pat, read, build) = match (p.optional, float) {
                (false, false) => (
                    ty,
                    pat,
                    quote! { #b.clone() },
                    quote! { #ctor(self.#f.clone()) },
                ),
                (false, true) => (
                    ty,
                    quote! { Param::Float { bits: #b, width: #w } },
                    quote! { (*#b, *#w) },
                    quote! { Param::Float { bits: self.#f.0, width: self.#f.1 } },
                ),
                (true, false) => (
                    quote! { Option<#ty> },
                    quote! { #b },
                    quote! { match #b { Param::Absent => None, #pat => Some(#b.clone()), _ => return None } },
                    quote! { match &self.#f { Some(v) => #ctor(v.clone()), None => Param::Absent } },
                ),
                (true, true) => (
                    quote! { Option<#ty> },
                    quote! { #b },
                    quote! { match #b { Param::Absent => None, Param::Float { bits, width } => Some((*bits, *width)), _ => return None } },
                    quote! { match self.#f { Some((bits, width)) => Param::Float { bits, width }, None => Param::Absent } },
                ),
            };
            fields.push(quote! { #[doc = #fdoc] pub #f: #ty });
            pats.push(pat);
            reads.push(quote! { #f: #read });
            builds.push(build);
        }
        let (data, data_kind, make) = if is_type {
            (quote! { m.type_data(x) }, quote! { TypeData::Dialect(d) }, quote! { m.dialect_type })
        } else {
            (quote! { m.attr_data(x) }, quote! { AttrData::Dialect(d) }, quote! { m.dialect_attr })
        };
        let read_doc = format!("Reads `x` as `{sigil}vhlo.{mnemonic}`: None when it is another {what}, or its parameters do not have the spec's kinds.");
        let build_doc = format!("Interns this `{sigil}vhlo.{mnemonic}` in `m`.");
                let body = if fields.is_empty() {
            quote! { ; }
        } else {
            quote! { { #(#fields,)* } }
        };
        let construct = if reads.is_empty() {
            quote! { Some(#name) }
        } else {
            quote! { Some(#name { #(#reads,)* }) }
        };
        quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq)]
            pub struct #name #body
            impl #name {
                /// Its mnemonic (`tensor_v1` in `!vhlo.tensor_v1<...>`).
                pub const MNEMONIC: &'static str = #mnemonic;
                #[doc = #read_doc]
                #[allow(unused_variables, clippy::clone_on_copy)]
                pub fn read(m: &Module, x: #handle) -> Option<Self> {
                    let #data_kind = #data else { return None };
                    if m.str(d.dialect) != "vhlo" || m.str(d.mnemonic) != #mnemonic {
                        return None;
                    }
                    match &d.params[..] {
                        [#(#pats),*] => #construct,
                        _ => None,
                    }
                }
                #[doc = #build_doc]
                #[allow(clippy::clone_on_copy)]
                pub fn build(&self, m: &mut Module) -> #handle {
                    #make("vhlo", #mnemonic, vec![#(#builds),*])
                }
            }
        }
    });
    let mod_doc = format!("Every VHLO {what} as a typed struct, generated from the spec.");
    let of_doc = format!("The VHLO {what} that `x` is, if it is one (by its mnemonic).");
    let rebuilt_doc = format!(
        "`x` read through its typed struct and interned again: `x` itself when it is a VHLO \
         {what} whose parameters have the spec's kinds, None otherwise."
    );
    let rebuilt_arms = defs.iter().map(|d| {
        let v = format_ident!("{}", camel(&d.name));
        quote! { #kind_enum::#v => #module::#v::read(m, x).map(|t| t.build(m)), }
    });
    let (of_data, of_variant) = if is_type {
        (quote! { m.type_data(x) }, quote! { TypeData::Dialect })
    } else {
        (quote! { m.attr_data(x) }, quote! { AttrData::Dialect })
    };
    let module_tokens = quote! {
        #[doc = #mod_doc]
        pub mod #module {
            #[allow(unused_imports)]
            use ::vhlo_core::ir::{Attribute, AttrData, Blob, Module, Param, Symbol, Type, TypeData};
            #(#structs)*
        }
    };
    let impls = quote! {
        impl #kind_enum {
            #[doc = #rebuilt_doc]
            pub fn rebuilt(m: &mut ::vhlo_core::ir::Module, x: ::vhlo_core::ir::#handle) -> Option<::vhlo_core::ir::#handle> {
                match #kind_enum::of(m, x)? {
                    #(#rebuilt_arms)*
                }
            }
            #[doc = #of_doc]
            pub fn of(m: &::vhlo_core::ir::Module, x: ::vhlo_core::ir::#handle) -> Option<#kind_enum> {
                match #of_data {
                    ::vhlo_core::ir::#of_variant(d) if m.str(d.dialect) == "vhlo" => {
                        #kind_enum::from_mnemonic(m.str(d.mnemonic))
                    }
                    _ => None,
                }
            }
        }
    };
    (module_tokens, impls)
}
