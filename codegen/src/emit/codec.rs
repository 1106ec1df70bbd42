//! Emission of the codec dialects (`spec/dialects/*.yaml`) as static tables of
//! `::vhlo_core::dialect::codec` types.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::codec_dialect::{CodecDialect, Condition, DefaultValue, InferAs, Of, TypeSlot};
use crate::model::Spec;

pub(crate) fn emit(spec: &Spec) -> TokenStream {
    let consts = spec.codec_dialects.iter().map(emit_dialect);
    let names = spec
        .codec_dialects
        .iter()
        .map(|d| format_ident!("{}_DIALECT", d.name.to_ascii_uppercase()));
    let registered = spec.registered_ops.iter().map(|(d, names)| {
        quote! { (#d, &[ #(#names),* ]) }
    });
    quote! {
        #(#consts)*
        /// Every dialect the codec engine reads and writes besides VHLO (`spec/dialects/`).
        pub const CODEC_DIALECTS: &[&::vhlo_core::dialect::codec::CodecDialect] = &[ #(&#names),* ];
        /// The op names jaxlib registers in dialects the spec does not model, by dialect, sorted
        /// (`spec/registered_ops.yaml`).
        pub const UNMODELED_OPS: &[(&str, &[&str])] = &[ #(#registered),* ];
    }
}

fn condition(c: &Condition) -> TokenStream {
    match c {
        Condition::Empty { param, empty } => {
            quote! { ::vhlo_core::dialect::codec::CodecCondition::Empty { param: #param, empty: #empty } }
        }
        Condition::Equals {
            param,
            value,
            equal,
        } => {
            quote! { ::vhlo_core::dialect::codec::CodecCondition::Equals { param: #param, value: #value, equal: #equal } }
        }
        Condition::Elements {
            param,
            every,
            inner,
        } => {
            let inner = condition(inner);
            quote! { ::vhlo_core::dialect::codec::CodecCondition::Elements { param: #param, every: #every, inner: &#inner } }
        }
    }
}

fn emit_dialect(d: &CodecDialect) -> TokenStream {
    let ident = format_ident!("{}_DIALECT", d.name.to_ascii_uppercase());
    let name = &d.name;
    let ops_complete = d.ops_complete;
    let allows_unknown_ops = d.allows_unknown_ops;
    let doc = format!(
        " The `{name}` dialect's attributes, encodings and ops (`spec/dialects/{name}.yaml`)."
    );
    let enums = d.enums.iter().map(|e| {
        let n = &e.name;
        let width = e.width;
        let cases = e.cases.iter().map(|(c, v)| quote! { (#c, #v) });
        quote! { ::vhlo_core::dialect::codec::CodecEnum { name: #n, cases: &[ #(#cases),* ], width: #width } }
    });
    let attrs = d.attrs.iter().map(|a| {
        let m = &a.name;
        let params = a.params.iter().map(|p| {
            let n = &p.name;
            let wire = wire_tokens(p.wire);
            let of = match p.of {
                Of::Any => quote! { ::vhlo_core::dialect::codec::CodecOf::Any },
                Of::String => quote! { ::vhlo_core::dialect::codec::CodecOf::String },
                Of::MeshOrRef => quote! { ::vhlo_core::dialect::codec::CodecOf::MeshOrRef },
                Of::Attr(i) => quote! { ::vhlo_core::dialect::codec::CodecOf::Attr(#i) },
            };
            let en = match p.enum_ {
                Some(i) => quote! { Some(#i) },
                None => quote! { None },
            };
            let min = match p.min {
                Some(v) => quote! { Some(#v) },
                None => quote! { None },
            };
            quote! { ::vhlo_core::dialect::codec::CodecParam { name: #n, wire: #wire, of: #of, enum_: #en, min: #min } }
        });
        let list = match &a.list {
            Some((open, close)) => quote! { Some((#open, #close)) },
            None => quote! { None },
        };
        let form = format_ident!("{}", format!("{:?}", a.form));
        let dialect = &a.dialect;
        let whole = a.whole;
        let summary = match &a.summary {
            Some(s) => quote! { Some(#s) },
            None => quote! { None },
        };
        quote! { ::vhlo_core::dialect::codec::CodecAttr { mnemonic: #m, dialect: #dialect, summary: #summary, params: &[ #(#params),* ], list: #list, form: ::vhlo_core::dialect::codec::CodecForm::#form, whole: #whole } }
    });
    let encodings = d.encodings.iter().map(|e| {
        let (code, attr) = (e.code, e.attr);
        let steps = e.fields.iter().map(|&f| {
            let wire = wire_tokens(d.attrs[e.attr].params[f].wire);
            quote! { ::vhlo_core::dialect::WireStep { param: #f, wire: #wire } }
        });
        let defaults = e.defaults.iter().map(|(p, v)| {
            let v = match v {
                DefaultValue::Empty => quote! { ::vhlo_core::dialect::codec::CodecDefault::Empty },
                DefaultValue::Int(i) => {
                    quote! { ::vhlo_core::dialect::codec::CodecDefault::Int(#i) }
                }
            };
            quote! { (#p, #v) }
        });
        let when = e.when.iter().map(condition);
        quote! {
            ::vhlo_core::dialect::codec::CodecEncoding {
                code: #code, attr: #attr, wire: &[ #(#steps),* ],
                defaults: &[ #(#defaults),* ], when: &[ #(#when),* ],
            }
        }
    });
    let ops = d.ops.iter().map(|o| {
        let n = &o.name;
        let operands = &o.operands;
        let results = &o.results;
        let regions = &o.regions;
        let successors = &o.successors;
        let terminator = o.terminator;
        let format = crate::format::dialect_tokens(&d.name, o);
        let names = o.attributes.iter().map(|a| &a.name);
        let attributes = o.attributes.iter().map(|a| {
            let (an, of, opt) = (&a.name, &a.of, a.optional);
            let default = match &a.default {
                Some(d) => quote! { Some(#d) },
                None => quote! { None },
            };
            let min = match a.min {
                Some(v) => quote! { Some(#v) },
                None => quote! { None },
            };
            quote! { ::vhlo_core::dialect::codec::CodecOpAttr { name: #an, of: #of, optional: #opt, default: #default, min: #min } }
        });
        let slot = |s: TypeSlot| match s {
            TypeSlot::Operand(i) => quote! { ::vhlo_core::dialect::codec::TypeSlot::Operand(#i) },
            TypeSlot::Result(i) => quote! { ::vhlo_core::dialect::codec::TypeSlot::Result(#i) },
            TypeSlot::Attr(i) => quote! { ::vhlo_core::dialect::codec::TypeSlot::Attr(#i) },
        };
        let infer = o.infer.iter().map(|r| {
            let to = slot(r.to);
            let from = match r.from {
                Some(f) => {
                    let f = slot(f);
                    quote! { Some(#f) }
                }
                None => quote! { None },
            };
            let as_ = match &r.as_ {
                InferAs::DialectType(d, m) => {
                    quote! { ::vhlo_core::dialect::codec::InferAs::DialectType(#d, #m) }
                }
                other => {
                    let v = format_ident!("{}", format!("{other:?}"));
                    quote! { ::vhlo_core::dialect::codec::InferAs::#v }
                }
            };
            let verifies = match &r.verifies {
                Some(v) => quote! { Some(#v) },
                None => quote! { None },
            };
            let inferred = r.inferred;
            quote! { ::vhlo_core::dialect::codec::CodecInfer { to: #to, from: #from, as_: #as_, verifies: #verifies, inferred: #inferred } }
        });
        let implicit_terminator = match &o.implicit_terminator {
            Some((t, without_results, never)) => quote! {
                Some(::vhlo_core::dialect::codec::ImplicitTerminator { op: #t, elided_without_results: #without_results, never_elided: #never })
            },
            None => quote! { None },
        };
        let parents = &o.parents;
        let traits = &o.traits;
        let block_in_empty_region = o.block_in_empty_region;
        let default_dialect = match &o.default_dialect {
            Some(d) => quote! { Some(#d) },
            None => quote! { None },
        };
        let result_name = match &o.result_name {
            Some(n) => quote! { Some(#n) },
            None => quote! { None },
        };
        quote! {
            ::vhlo_core::dialect::codec::CodecOp {
                name: #n, operands: &[ #(#operands),* ], results: &[ #(#results),* ],
                attributes: &[ #(#attributes),* ], attribute_names: &[ #(#names),* ],
                regions: &[ #(#regions),* ], terminator: #terminator, format: #format,
                infer: &[ #(#infer),* ], result_name: #result_name,
                implicit_terminator: #implicit_terminator,
                parents: &[ #(#parents),* ],
                traits: &[ #(#traits),* ],
                block_in_empty_region: #block_in_empty_region,
                default_dialect: #default_dialect,
                successors: &[ #(#successors),* ],
            }
        }
    });
    quote! {
        #[doc = #doc]
        pub const #ident: ::vhlo_core::dialect::codec::CodecDialect = ::vhlo_core::dialect::codec::CodecDialect {
            name: #name,
            ops_complete: #ops_complete,
            allows_unknown_ops: #allows_unknown_ops,
            enums: &[ #(#enums),* ],
            attrs: &[ #(#attrs),* ],
            encodings: &[ #(#encodings),* ],
            ops: &[ #(#ops),* ],
        };
    }
}

/// A wire form as the runtime `dialect::Wire`.
pub(crate) fn wire_tokens(w: crate::wire::Wire) -> TokenStream {
    let (v, arg) = w.variant();
    let v = format_ident!("{}", v);
    match arg {
        Some(a) => quote! { ::vhlo_core::dialect::Wire::#v(#a) },
        None => quote! { ::vhlo_core::dialect::Wire::#v },
    }
}
