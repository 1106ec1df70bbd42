//! StableHLO's struct attributes (`attrs.yaml`, `stablehlo_structs`): the table the text format
//! parses and prints them by (`STABLEHLO_STRUCTS`), and a typed struct per attribute
//! (`pub mod stablehlo_attrs`) with the fields by name.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{Spec, StructFieldKind};

pub(super) fn emit(spec: &Spec) -> TokenStream {
    let table = spec.stablehlo_structs.iter().map(|s| {
        let mnemonic = &s.name;
        let fields = s.fields.iter().map(|(name, k)| {
            let kind = format_ident!("{}", k.variant());
            quote! { (#name, ::vhlo_core::dialect::FieldKind::#kind) }
        });
        let (omit, own) = (s.omit_defaults, s.own_syntax);
        quote! {
            ::vhlo_core::dialect::StructAttrSpec {
                mnemonic: #mnemonic,
                fields: &[#(#fields),*],
                omit_defaults: #omit,
                own_syntax: #own,
            }
        }
    });
    let structs = spec.stablehlo_structs.iter().map(|s| {
        let name = format_ident!("{}", s.class);
        let mnemonic = &s.name;
        let defaults = s.omit_defaults
            && s.fields.iter().all(|(_, k)| {
                matches!(
                    k,
                    StructFieldKind::Dims | StructFieldKind::Int | StructFieldKind::Float
                )
            });
        let mut fields = Vec::new();
        let mut pats = Vec::new();
        let mut reads = Vec::new();
        let mut builds = Vec::new();
        for (i, (fname, k)) in s.fields.iter().enumerate() {
            let f = super::field_ident(fname);
            let b = format_ident!("p{}", i);
            let (ty, pat, read, build) = match k {
                StructFieldKind::Dims => (
                    quote! { Vec<i64> },
                    quote! { Param::Ints(#b) },
                    quote! { #b.to_vec() },
                    quote! { Param::Ints(self.#f.clone().into()) },
                ),
                StructFieldKind::Int => (
                    quote! { i64 },
                    quote! { Param::Int(#b) },
                    quote! { *#b },
                    quote! { Param::Int(self.#f) },
                ),
                StructFieldKind::Type => (
                    quote! { Type },
                    quote! { Param::Type(#b) },
                    quote! { *#b },
                    quote! { Param::Type(self.#f) },
                ),
                StructFieldKind::Bool => (
                    quote! { bool },
                    quote! { Param::Bool(#b) },
                    quote! { *#b },
                    quote! { Param::Bool(self.#f) },
                ),
                StructFieldKind::Float => (
                    quote! { f64 },
                    quote! { Param::Float { bits: #b, width: 64 } },
                    quote! { f64::from_bits(*#b as u64) },
                    quote! { Param::Float { bits: u128::from(self.#f.to_bits()), width: 64 } },
                ),
                StructFieldKind::Attr => (
                    quote! { Attribute },
                    quote! { Param::Attr(#b) },
                    quote! { *#b },
                    quote! { Param::Attr(self.#f) },
                ),
                StructFieldKind::OptionalAttr | StructFieldKind::SubAxis => (
                    quote! { Option<Attribute> },
                    quote! { #b @ (Param::Attr(_) | Param::Absent) },
                    quote! { #b.attr() },
                    quote! { self.#f.map_or(Param::Absent, Param::Attr) },
                ),
                StructFieldKind::String => (
                    quote! { String },
                    quote! { Param::Str(#b) },
                    quote! { m.str(*#b).to_string() },
                    quote! { Param::Str(m.sym(&self.#f)) },
                ),
            };
            let fdoc = format!(" `{fname}`.");
            fields.push(quote! { #[doc = #fdoc] pub #f: #ty });
            pats.push(pat);
            reads.push(quote! { #f: #read });
            builds.push(build);
        }
        let doc = format!(" `#stablehlo.{mnemonic}<...>` (StableHLO's `{}`), its fields by name.", s.class);
        let read_doc = format!(" Reads `a` as `#stablehlo.{mnemonic}`: None when it is another attribute, or its fields do not have the spec's kinds.");
        let build_doc = format!(" Interns this `#stablehlo.{mnemonic}` in `m`.");
        let derive = if defaults {
            quote! { #[derive(Clone, Debug, PartialEq, Default)] }
        } else {
            quote! { #[derive(Clone, Debug, PartialEq)] }
        };
        quote! {
            #[doc = #doc]
            #derive
            pub struct #name { #(#fields,)* }
            impl #name {
                /// Its mnemonic: `#stablehlo.<MNEMONIC><...>`.
                pub const MNEMONIC: &'static str = #mnemonic;
                #[doc = #read_doc]
                #[allow(unused_variables)]
                pub fn read(m: &Module, a: Attribute) -> Option<Self> {
                    let AttrData::Dialect(d) = m.attr_data(a) else { return None };
                    if m.str(d.dialect) != "stablehlo" || m.str(d.mnemonic) != #mnemonic {
                        return None;
                    }
                    match &d.params[..] {
                        [#(#pats),*] => Some(#name { #(#reads,)* }),
                        _ => None,
                    }
                }
                #[doc = #build_doc]
                pub fn build(&self, m: &mut Module) -> Attribute {
                    let params = vec![#(#builds),*];
                    m.dialect_attr("stablehlo", #mnemonic, params)
                }
            }
        }
    });
    let rebuilt_arms = spec.stablehlo_structs.iter().map(|s| {
        let name = format_ident!("{}", s.class);
        let mnemonic = &s.name;
        quote! { #mnemonic => #name::read(m, a).map(|t| t.build(m)), }
    });
    quote! {
        /// StableHLO's struct attributes (`#stablehlo.dot<...>`, ...): how the text format parses
        /// and prints them, from the spec.
        pub const STABLEHLO_STRUCTS: &[::vhlo_core::dialect::StructAttrSpec] = &[#(#table),*];

        /// StableHLO's struct attributes as typed structs, generated from the spec: `read` one
        /// from the IR, `build` one into it.
        pub mod stablehlo_attrs {
            #[allow(unused_imports)]
            use ::vhlo_core::ir::{Attribute, AttrData, Module, Param, Type};
            #(#structs)*

            /// `a` read through its typed struct and interned again: `a` itself when it is a
            /// StableHLO struct attribute whose fields have the spec's kinds, None otherwise.
            pub fn rebuilt(m: &mut Module, a: Attribute) -> Option<Attribute> {
                let AttrData::Dialect(d) = m.attr_data(a) else { return None };
                if m.str(d.dialect) != "stablehlo" {
                    return None;
                }
                match m.str(d.mnemonic).to_string().as_str() {
                    #(#rebuilt_arms)*
                    _ => None,
                }
            }
        }
    }
}
