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

pub(super) fn emit(spec: &Spec) -> TokenStream {
    let types = kind_enum(spec, "VhloType", "type", &spec.types, true);
    let attrs = kind_enum(spec, "VhloAttr", "attribute", &spec.attrs, false);

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
