//! Op versions: the `VhloOp` registry enum, a typed struct per VHLO op version and per current
//! StableHLO op, and the StableHLO <-> VHLO map.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::{camel, field_ident, range_tokens};
use crate::model::{Field, OpFamily, OpVersion, Spec};

pub(super) fn vhlo_variant(v: &OpVersion) -> Ident {
    format_ident!("{}V{}", camel(&v.family), v.number)
}

fn vhlo_struct(v: &OpVersion) -> Ident {
    format_ident!("{}OpV{}", camel(&v.family), v.number)
}

fn shlo_variant(f: &OpFamily) -> Ident {
    format_ident!("{}", camel(&f.name))
}

fn shlo_struct(f: &OpFamily) -> Ident {
    format_ident!("{}Op", camel(&f.name))
}

/// What a typed struct field holds.
enum Slot {
    Operand,
    Result,
    Region,
}

/// Field declarations and extraction/building code for one group (operands, results or regions).
struct Group<'a> {
    fields: &'a [Field],
    slot: Slot,
}

impl Group<'_> {
    fn decls(&self, owner: &str) -> Vec<TokenStream> {
        self.fields
            .iter()
            .map(|f| {
                let id = field_ident(&f.name);
                let (one, many, what) = match self.slot {
                    Slot::Operand => (
                        quote! { ::vhlo_core::ir::Value },
                        quote! { Vec<::vhlo_core::ir::Value> },
                        "operand",
                    ),
                    Slot::Result => (
                        quote! { ::vhlo_core::ir::Type },
                        quote! { Vec<::vhlo_core::ir::Type> },
                        "result type",
                    ),
                    Slot::Region => (
                        quote! { ::vhlo_core::ir::Region },
                        quote! { Vec<::vhlo_core::ir::Region> },
                        "region",
                    ),
                };
                let doc = if f.variadic {
                    format!("`{}` of `{owner}` (variadic {what}).", f.name)
                } else {
                    format!("`{}` of `{owner}` ({what}).", f.name)
                };
                let ty = if f.variadic { many } else { one };
                quote! { #[doc = #doc] pub #id: #ty }
            })
            .collect()
    }

    /// `let <field> = ...;` statements reading from `items` (a slice) split by `split_groups`.
    fn extract(&self, items: TokenStream, what: &str) -> TokenStream {
        let pattern2: Vec<bool> = self.fields.iter().map(|f| f.variadic).collect();
        let stmts = self.fields.iter().enumerate().map(|(i, f)| {
            let id = field_ident(&f.name);
            if f.variadic {
                quote! { let #id = __items[__ranges[#i].clone()].to_vec(); }
            } else {
                quote! { let #id = __items[__ranges[#i].start]; }
            }
        });
        if self.fields.is_empty() {
            return quote! {
                ::vhlo_core::dialect::split_groups(__name, #what, (#items).len(), &[])?;
            };
        }
        quote! {
            let __items = #items;
            let __ranges = ::vhlo_core::dialect::split_groups(__name, #what, __items.len(), &[#(#pattern2),*])?;
            #(#stmts)*
        }
    }

    /// Pushes the fields into a `Vec` named `out`.
    fn build(&self, out: &Ident) -> TokenStream {
        let pushes = self.fields.iter().map(|f| {
            let id = field_ident(&f.name);
            if f.variadic {
                quote! { #out.extend(self.#id.iter().copied()); }
            } else {
                quote! { #out.push(self.#id); }
            }
        });
        quote! { #(#pushes)* }
    }
}

/// An attribute field of a typed op struct.
struct AttrField {
    name: String,
    doc: String,
    /// `Option<Attribute>` (StableHLO's optional attributes) instead of `Attribute`.
    optional: bool,
}

/// What a typed op struct is made of; VHLO op versions and StableHLO ops differ only in these.
struct OpStruct<'a> {
    ident: Ident,
    doc: String,
    full: String,
    /// The `OP` constant: its doc, type and value.
    op_const: TokenStream,
    operands: &'a [Field],
    attributes: Vec<AttrField>,
    results: &'a [Field],
    regions: &'a [Field],
    /// The doc lines of `build`.
    build_doc: &'static [&'static str],
    /// A `set_<attribute>` per attribute (the StableHLO structs).
    setters: bool,
}

fn op_struct_tokens(s: OpStruct<'_>) -> TokenStream {
    let OpStruct {
        ident: st,
        doc,
        full,
        op_const,
        build_doc,
        ..
    } = &s;
    let operands = Group {
        fields: s.operands,
        slot: Slot::Operand,
    };
    let results = Group {
        fields: s.results,
        slot: Slot::Result,
    };
    let regions = Group {
        fields: s.regions,
        slot: Slot::Region,
    };
    let from_op_doc = format!("Reads the op `op` of `m`, which must be a `{full}`.");
    let mut decls = operands.decls(full);
    decls.extend(s.attributes.iter().map(|a| {
        let id = field_ident(&a.name);
        let d = &a.doc;
        if a.optional {
            quote! { #[doc = #d] pub #id: Option<::vhlo_core::ir::Attribute> }
        } else {
            quote! { #[doc = #d] pub #id: ::vhlo_core::ir::Attribute }
        }
    }));
    decls.extend(results.decls(full));
    decls.extend(regions.decls(full));
    let ex_operands = operands.extract(quote! { m.operands(op) }, "operand");
    let ex_results = results.extract(quote! { &__result_types[..] }, "result");
    let ex_regions = regions.extract(quote! { m.regions(op) }, "region");
    let attr_lets = s.attributes.iter().map(|a| {
        let id = field_ident(&a.name);
        let n = &a.name;
        if a.optional {
            quote! { let #id = ::vhlo_core::dialect::optional_property(m, op, #n); }
        } else {
            quote! { let #id = ::vhlo_core::dialect::required_property(m, op, __name, #n)?; }
        }
    });
    let all_fields: Vec<_> = s
        .operands
        .iter()
        .map(|f| field_ident(&f.name))
        .chain(s.attributes.iter().map(|a| field_ident(&a.name)))
        .chain(
            s.results
                .iter()
                .chain(s.regions)
                .map(|f| field_ident(&f.name)),
        )
        .collect();
    let out_ops = format_ident!("__operands");
    let out_res = format_ident!("__results");
    let out_regs = format_ident!("__regions");
    let b_ops = operands.build(&out_ops);
    let b_res = results.build(&out_res);
    let b_regs = regions.build(&out_regs);
    let props = s.attributes.iter().map(|a| {
        let id = field_ident(&a.name);
        let n = &a.name;
        if a.optional {
            quote! { if let Some(v) = self.#id { __props.push((#n, v)); } }
        } else {
            quote! { __props.push((#n, self.#id)); }
        }
    });
    let setters = s.attributes.iter().filter(|_| s.setters).map(|a| {
        let n = &a.name;
        let set = format_ident!("set_{}", n.replace('-', "_"));
        let (ty, value) = if a.optional {
            (quote! { Option<::vhlo_core::ir::Attribute> }, quote! { value })
        } else {
            (quote! { ::vhlo_core::ir::Attribute }, quote! { Some(value) })
        };
        let doc = if a.optional {
            format!("Sets (or, with `None`, removes) `{n}` of the op `op` of `m`, which must be a `{full}`.")
        } else {
            format!("Sets `{n}` of the op `op` of `m`, which must be a `{full}`.")
        };
        quote! {
            #[doc = #doc]
            pub fn #set(m: &mut ::vhlo_core::ir::Module, op: ::vhlo_core::ir::OpId, value: #ty) -> Result<(), ::vhlo_core::dialect::OpMismatch> {
                ::vhlo_core::dialect::set_property(m, op, Self::NAME, #n, #value)
            }
        }
    });
    // An op without regions, its results inferred where it is appended (the StableHLO structs).
    let append = (s.setters && s.regions.is_empty()).then(|| {
        let params = s
            .operands
            .iter()
            .map(|f| {
                let id = field_ident(&f.name);
                if f.variadic {
                    quote! { #id: &[::vhlo_core::ir::Value] }
                } else {
                    quote! { #id: ::vhlo_core::ir::Value }
                }
            })
            .chain(s.attributes.iter().map(|a| {
                let id = field_ident(&a.name);
                if a.optional {
                    quote! { #id: Option<::vhlo_core::ir::Attribute> }
                } else {
                    quote! { #id: ::vhlo_core::ir::Attribute }
                }
            }));
        let pushes = s.operands.iter().map(|f| {
            let id = field_ident(&f.name);
            if f.variadic {
                quote! { __operands.extend_from_slice(#id); }
            } else {
                quote! { __operands.push(#id); }
            }
        });
        let props = s.attributes.iter().map(|a| {
            let id = field_ident(&a.name);
            let n = &a.name;
            if a.optional {
                quote! { if let Some(v) = #id { __props.push((#n, v)); } }
            } else {
                quote! { __props.push((#n, #id)); }
            }
        });
        let one = matches!(s.results, [r] if !r.variadic);
        let (ret, call) = if one {
            (
                quote! { ::vhlo_core::ir::Value },
                quote! { body.append_inferred_one(Self::NAME, __operands, &__props) },
            )
        } else {
            (
                quote! { Vec<::vhlo_core::ir::Value> },
                quote! { body.append_inferred(Self::NAME, __operands, &__props) },
            )
        };
        let doc = format!(
            "Appends a `{full}` to `body` (a function body being built), its result types inferred from the operands and attributes, and returns its {}.",
            if one { "result" } else { "results" }
        );
        quote! {
            #[doc = #doc]
            pub fn append<B: ::vhlo_core::dialect::AppendInferred>(body: &mut B, #(#params),*) -> Result<#ret, B::Error> {
                let mut __operands: Vec<::vhlo_core::ir::Value> = Vec::new();
                #(#pushes)*
                let mut __props: Vec<(&str, ::vhlo_core::ir::Attribute)> = Vec::new();
                #(#props)*
                #call
            }
        }
    });
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct #st {
            #(#decls,)*
        }
        impl #st {
            #op_const
            /// The full op name.
            pub const NAME: &'static str = #full;
            #[doc = #from_op_doc]
            pub fn from_op(m: &::vhlo_core::ir::Module, op: ::vhlo_core::ir::OpId) -> Result<Self, ::vhlo_core::dialect::OpMismatch> {
                let __name = Self::NAME;
                ::vhlo_core::dialect::expect_name(m, op, __name)?;
                #ex_operands
                let __result_types: Vec<::vhlo_core::ir::Type> = m.results(op).map(|r| m.value_type(r)).collect();
                #ex_results
                #ex_regions
                #(#attr_lets)*
                Ok(Self { #(#all_fields),* })
            }
            #(#[doc = #build_doc])*
            pub fn build(&self, m: &mut ::vhlo_core::ir::Module, location: ::vhlo_core::ir::Location) -> ::vhlo_core::ir::OpId {
                let mut #out_ops: Vec<::vhlo_core::ir::Value> = Vec::new();
                let mut #out_res: Vec<::vhlo_core::ir::Type> = Vec::new();
                let mut #out_regs: Vec<::vhlo_core::ir::Region> = Vec::new();
                #b_ops
                #b_res
                #b_regs
                let mut __props: Vec<(&str, ::vhlo_core::ir::Attribute)> = Vec::new();
                #(#props)*
                ::vhlo_core::dialect::create_op(m, Self::NAME, #out_ops, #out_res, &__props, #out_regs, location)
            }
            #(#setters)*
            #append
        }
    }
}

fn vhlo_struct_tokens(fam: &OpFamily, v: &OpVersion) -> TokenStream {
    let variant = vhlo_variant(v);
    let full = format!("vhlo.{}", v.mnemonic);
    let mut doc = format!(
        "`{full}`: {}",
        fam.description
            .clone()
            .unwrap_or_else(|| format!("version {} of `{}`.", v.number, fam.name))
    );
    doc.push_str(&format!("\n\nLegal in {}.", v.range.describe()));
    if let Some(d) = &v.description {
        doc.push_str(&format!("\n\n{d}"));
    }
    if v.range.max == crate::model::Bound::Current {
        doc.push_str(&format!(" Maps to `{}`.", fam.stablehlo.name));
    }
    let attributes = v
        .attributes
        .iter()
        .map(|a| AttrField {
            name: a.name.clone(),
            doc: format!(
                "`{}` of `{full}` (attribute; always present in VHLO).",
                a.name
            ),
            optional: false,
        })
        .collect();
    op_struct_tokens(OpStruct {
        ident: vhlo_struct(v),
        doc,
        op_const: quote! {
            /// The op version this struct describes.
            pub const OP: VhloOp = VhloOp::#variant;
        },
        full,
        operands: &v.operands,
        attributes,
        results: &v.results,
        regions: &v.regions,
        build_doc: &[
            " Creates the op in `m` (detached; append it to a block). Properties are stored sorted by",
            " name, as MLIR keeps them.",
        ],
        setters: false,
    })
}

fn shlo_struct_tokens(fam: &OpFamily) -> TokenStream {
    let s = &fam.stablehlo;
    let variant = shlo_variant(fam);
    let full = s.name.clone();
    let doc = format!(
        "`{full}`: {} (the current StableHLO op; maps to the newest `vhlo.{}_vN`).",
        fam.description.clone().unwrap_or_default(),
        fam.name
    );
    let attributes = s
        .attributes
        .iter()
        .map(|a| {
            let mut d = format!("`{}` of `{full}` (attribute `{}`", a.name, a.ty);
            if let Some(def) = &a.default {
                d.push_str(&format!(", default `{def}`"));
            }
            d.push_str(").");
            AttrField {
                name: a.name.clone(),
                doc: d,
                optional: a.optional,
            }
        })
        .collect();
    op_struct_tokens(OpStruct {
        ident: shlo_struct(fam),
        doc,
        op_const: quote! {
            /// The StableHLO op this struct describes.
            pub const OP: StablehloOp = StablehloOp::#variant;
        },
        full,
        operands: &s.operands,
        attributes,
        results: &s.results,
        regions: &s.regions,
        build_doc: &[" Creates the op in `m` (detached). Present attributes become properties, sorted by name."],
        setters: true,
    })
}

pub(super) fn emit(spec: &Spec) -> TokenStream {
    let versions: Vec<&OpVersion> = spec.op_versions().collect();
    let variants: Vec<Ident> = versions.iter().map(|v| vhlo_variant(v)).collect();
    let var_docs = versions
        .iter()
        .map(|v| format!("`vhlo.{}`, legal in {}.", v.mnemonic, v.range.describe()));
    let mnemonics: Vec<&String> = versions.iter().map(|v| &v.mnemonic).collect();
    let full_names: Vec<String> = versions
        .iter()
        .map(|v| format!("vhlo.{}", v.mnemonic))
        .collect();
    let families = versions.iter().map(|v| &v.family);
    let numbers = versions.iter().map(|v| v.number);
    let ranges = versions.iter().map(|v| range_tokens(spec, v.range));
    let terminators = versions.iter().map(|v| v.terminator);
    let attr_names = versions.iter().map(|v| {
        let ns = v.attributes.iter().map(|a| &a.name);
        quote! { &[ #(#ns),* ] }
    });
    let groups = |fs: &[Field]| {
        let items = fs.iter().map(|f| {
            let (n, var) = (&f.name, f.variadic);
            quote! { (#n, #var) }
        });
        quote! { &[ #(#items),* ] }
    };
    let operand_groups = versions.iter().map(|v| groups(&v.operands));
    let result_groups = versions.iter().map(|v| groups(&v.results));
    let region_groups = versions.iter().map(|v| groups(&v.regions));
    let sorted_attr_names = versions.iter().map(|v| {
        let mut ns: Vec<&String> = v.attributes.iter().map(|a| &a.name).collect();
        ns.sort();
        quote! { &[ #(#ns),* ] }
    });
    let from_name = full_names
        .iter()
        .zip(&variants)
        .map(|(n, v)| quote! { #n => Some(VhloOp::#v), });
    let from_mnemonic = mnemonics
        .iter()
        .zip(&variants)
        .map(|(n, v)| quote! { #n => Some(VhloOp::#v), });
    let prev_next = spec.ops.iter().flat_map(|f| {
        f.versions
            .windows(2)
            .map(|w| (vhlo_variant(&w[0]), vhlo_variant(&w[1])))
            .collect::<Vec<_>>()
    });
    let (prev_arms, next_arms): (Vec<_>, Vec<_>) = prev_next
        .map(|(a, b)| {
            (
                quote! { VhloOp::#b => Some(VhloOp::#a), },
                quote! { VhloOp::#a => Some(VhloOp::#b), },
            )
        })
        .unzip();
    let to_shlo = spec.ops.iter().flat_map(|f| {
        let sv = shlo_variant(f);
        f.versions.iter().map(move |v| {
            let vv = vhlo_variant(v);
            quote! { VhloOp::#vv => StablehloOp::#sv, }
        })
    });

    let structs = spec
        .ops
        .iter()
        .flat_map(|f| f.versions.iter().map(move |v| vhlo_struct_tokens(f, v)));

    // StableHLO side.
    let s_variants: Vec<Ident> = spec.ops.iter().map(shlo_variant).collect();
    let s_docs = spec.ops.iter().map(|f| {
        format!(
            "`{}` (maps to `vhlo.{}`).",
            f.stablehlo.name,
            f.versions
                .last()
                .map(|v| v.mnemonic.as_str())
                .unwrap_or("?")
        )
    });
    let s_names = spec.ops.iter().map(|f| &f.stablehlo.name);
    let s_from_name = spec.ops.iter().map(|f| {
        let v = shlo_variant(f);
        let names =
            std::iter::once(&f.stablehlo.name).chain(f.stablehlo.also.iter().map(|a| &a.name));
        quote! { #(#names)|* => Some(StablehloOp::#v), }
    });
    let s_to_vhlo = spec.ops.iter().filter_map(|f| {
        let v = shlo_variant(f);
        f.versions.last().map(|cur| {
            let c = vhlo_variant(cur);
            quote! { StablehloOp::#v => VhloOp::#c, }
        })
    });
    let s_attr_names = spec.ops.iter().map(|f| {
        let ns = f.stablehlo.attributes.iter().map(|a| &a.name);
        quote! { &[ #(#ns),* ] }
    });
    let s_attr_types = spec.ops.iter().map(|f| {
        let ts = f.stablehlo.attributes.iter().map(|a| &a.ty);
        quote! { &[ #(#ts),* ] }
    });
    let s_attr_constraints = spec.ops.iter().map(|f| {
        let cs = f
            .stablehlo
            .attributes
            .iter()
            .filter_map(|a| crate::ods::lower(&a.ty, &spec.enums).ok())
            .map(|t| ods_tokens(spec, &t));
        quote! { &[ #(#cs),* ] }
    });
    // Each distinct operand or result type once, in `VALUE_TYPES`; ops index it.
    let mut distinct: Vec<crate::ods_types::TypeConstraint> = Vec::new();
    let mut index_of = |t: &str| -> Option<usize> {
        let c = crate::ods_types::lower(t).ok()?;
        Some(match distinct.iter().position(|d| *d == c) {
            Some(i) => i,
            None => {
                distinct.push(c);
                distinct.len() - 1
            }
        })
    };
    let mut value_types = |ts: &[(String, crate::diag::Pos)]| {
        let is: Vec<usize> = ts.iter().filter_map(|(t, _)| index_of(t)).collect();
        quote! { &[ #(VALUE_TYPES[#is]),* ] }
    };
    let s_operand_types: Vec<TokenStream> = spec
        .ops
        .iter()
        .map(|f| value_types(&f.stablehlo.operand_types))
        .collect();
    let s_result_types: Vec<TokenStream> = spec
        .ops
        .iter()
        .map(|f| value_types(&f.stablehlo.result_types))
        .collect();
    // The ODS types of the other dialects' ops (spec/dialects/*.yaml), by full op name.
    let s_codec_value_types: Vec<TokenStream> = spec
        .codec_dialects
        .iter()
        .flat_map(|d| d.ops.iter().map(move |o| (d, o)))
        .filter(|(_, o)| !o.operand_types.is_empty() || !o.result_types.is_empty())
        .map(|(d, o)| {
            let full = format!("{}.{}", d.name, o.name);
            let ts = |v: &[String]| -> Vec<(String, crate::diag::Pos)> {
                v.iter().map(|t| (t.clone(), o.pos.clone())).collect()
            };
            let (ins, outs) = (
                value_types(&ts(&o.operand_types)),
                value_types(&ts(&o.result_types)),
            );
            quote! { #full => {
                const OPERANDS: &[OdsValueType] = #ins;
                const RESULTS: &[OdsValueType] = #outs;
                Some((OPERANDS, RESULTS))
            } }
        })
        .collect();
    let s_value_types = distinct.iter().map(value_type_tokens);
    let s_attr_defaults = spec.ops.iter().map(|f| {
        let ds = f.stablehlo.attributes.iter().map(|a| {
            let printed = a.default.as_ref().and_then(|d| {
                let t = crate::ods::lower(&a.ty, &spec.enums).ok()?;
                crate::ods::printed_default(&t, d, &spec.enums).ok()
            });
            match printed {
                Some(p) => quote! { Some(#p) },
                None => quote! { None },
            }
        });
        quote! { &[ #(#ds),* ] }
    });
    let s_vhlo_defaults = spec.ops.iter().flat_map(|f| {
        let v = shlo_variant(f);
        f.stablehlo.attributes.iter().filter_map(move |a| {
            let name = &a.name;
            let body = match &a.vhlo_default.as_ref()?.0 {
                crate::model::Value::Hook(h) => quote! { VhloDefault::Hook(#h) },
                d => {
                    let e = super::convert::value_expr(spec, d);
                    quote! { VhloDefault::Value(#e) }
                }
            };
            Some(quote! { (StablehloOp::#v, #name) => Some(#body), })
        })
    });
    let s_attr_optional = spec.ops.iter().map(|f| {
        let os = f.stablehlo.attributes.iter().map(|a| a.optional);
        quote! { &[ #(#os),* ] }
    });
    let s_attr_vhlo = spec.ops.iter().map(|f| {
        let vs = f.stablehlo.attributes.iter().map(|a| match &a.vhlo {
            Some(fields) => {
                let ns = fields.iter().map(|x| &x.name);
                quote! { Some(&[ #(#ns),* ]) }
            }
            None => quote! { None },
        });
        quote! { &[ #(#vs),* ] }
    });
    let s_formats = spec
        .ops
        .iter()
        .map(|f| crate::format::tokens(spec, &f.stablehlo));
    let s_generic = spec
        .ops
        .iter()
        .map(|f| crate::format::is_generic(&f.stablehlo));
    let s_compatible = spec
        .ops
        .iter()
        .map(|f| f.stablehlo.compatible_operands_and_result_type);
    let s_commutative = spec.ops.iter().map(|f| f.stablehlo.commutative);
    let s_constant_like = spec.ops.iter().map(|f| f.stablehlo.constant_like);
    let s_implicit_terminator = spec.ops.iter().map(|f| f.stablehlo.implicit_terminator);
    let s_elementwise_first = spec.ops.iter().map(|f| f.stablehlo.elementwise_first);
    let s_regions = spec.ops.iter().map(|f| {
        let names = f.stablehlo.regions.iter().map(|r| &r.name);
        let single = &f.stablehlo.single_block_regions;
        quote! { &[ #((#names, #single)),* ] }
    });
    // As ODS's generated `getAsmResultNames`: an op with several result groups names them.
    let s_result_names = spec.ops.iter().map(|f| {
        let rs = &f.stablehlo.results;
        let named = rs.len() > 1 && rs.iter().all(|r| !r.variadic);
        let ns = rs.iter().filter(|_| named).map(|r| &r.name);
        quote! { &[ #(#ns),* ] }
    });
    let s_block_arg_name = spec.ops.iter().map(|f| match &f.stablehlo.block_arg_name {
        Some(n) => quote! { Some(#n) },
        None => quote! { None },
    });
    let back_name = spec.ops.iter().map(|f| {
        let v = shlo_variant(f);
        let main = &f.stablehlo.name;
        let alts = f.stablehlo.also.iter().map(|a| {
            let (n, p) = (&a.name, &a.parent);
            quote! { if parent_family == Some(#p) { return #n; } }
        });
        quote! { StablehloOp::#v => { #(#alts)* #main } }
    });
    let s_structs = spec.ops.iter().map(shlo_struct_tokens);

    quote! {
        /// Every VHLO op version in the spec: the registry of the generated dialect.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum VhloOp {
            #( #[doc = #var_docs] #variants, )*
        }
        impl VhloOp {
            /// All op versions, in spec order.
            pub const ALL: &'static [VhloOp] = &[ #(VhloOp::#variants),* ];
            /// The mnemonic, e.g. `exponential_v2`.
            pub fn mnemonic(self) -> &'static str {
                const N: &[&str] = &[ #(#mnemonics),* ];
                N[self as usize]
            }
            /// The full name, e.g. `vhlo.exponential_v2`.
            pub fn name(self) -> &'static str {
                const N: &[&str] = &[ #(#full_names),* ];
                N[self as usize]
            }
            /// The op family, e.g. `exponential`.
            pub fn family(self) -> &'static str {
                const F: &[&str] = &[ #(#families),* ];
                F[self as usize]
            }
            /// The version number N of `_vN`.
            pub fn version_number(self) -> u32 {
                const N: &[u32] = &[ #(#numbers),* ];
                N[self as usize]
            }
            /// The releases in which this op version is legal.
            pub fn range(self) -> ::vhlo_core::version::VersionRange {
                const R: &[::vhlo_core::version::VersionRange] = &[ #(#ranges),* ];
                R[self as usize]
            }
            /// True when a program of version `v` may contain this op version.
            pub fn is_legal_in(self, v: ::vhlo_core::version::Version) -> bool {
                self.range().contains(v)
            }
            /// True for block terminators.
            pub fn is_terminator(self) -> bool {
                const T: &[bool] = &[ #(#terminators),* ];
                T[self as usize]
            }
            /// Attribute names in declaration order.
            pub fn attribute_names(self) -> &'static [&'static str] {
                const A: &[&[&str]] = &[ #(#attr_names),* ];
                A[self as usize]
            }
            /// Operand groups as (name, variadic), in order. Variadic groups share the operands left
            /// after the single ones equally (`SameVariadicOperandSize`).
            pub fn operand_groups(self) -> &'static [(&'static str, bool)] {
                const G: &[&[(&str, bool)]] = &[ #(#operand_groups),* ];
                G[self as usize]
            }
            /// Result groups as (name, variadic), in order.
            pub fn result_groups(self) -> &'static [(&'static str, bool)] {
                const G: &[&[(&str, bool)]] = &[ #(#result_groups),* ];
                G[self as usize]
            }
            /// Region groups as (name, variadic), in order.
            pub fn region_groups(self) -> &'static [(&'static str, bool)] {
                const G: &[&[(&str, bool)]] = &[ #(#region_groups),* ];
                G[self as usize]
            }
            /// Attribute names sorted, the order of the bytecode properties section.
            pub fn sorted_attribute_names(self) -> &'static [&'static str] {
                const A: &[&[&str]] = &[ #(#sorted_attr_names),* ];
                A[self as usize]
            }
            /// Looks an op version up by full name (`vhlo.add_v1`).
            pub fn from_name(name: &str) -> Option<VhloOp> {
                match name { #(#from_name)* _ => None }
            }
            /// Looks an op version up by mnemonic (`add_v1`), as bytecode stores op names.
            pub fn from_mnemonic(mnemonic: &str) -> Option<VhloOp> {
                match mnemonic { #(#from_mnemonic)* _ => None }
            }
            /// The previous version of the same op.
            pub fn previous(self) -> Option<VhloOp> {
                match self { #(#prev_arms)* _ => None }
            }
            /// The next version of the same op.
            pub fn next(self) -> Option<VhloOp> {
                match self { #(#next_arms)* _ => None }
            }
            /// The StableHLO op of this op's family (the way back is only legal from the newest version).
            pub fn stablehlo(self) -> StablehloOp {
                match self { #(#to_shlo)* }
            }
            /// True for the newest version of its op.
            pub fn is_current(self) -> bool {
                self.next().is_none()
            }
        }

        /// What an ODS attribute type asks of a value (codegen/src/ods.rs lowers the spec's types).
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum OdsConstraint {
            /// An integer of this width, at least `min` when given.
            Int {
                /// Its bit width.
                width: u8,
                /// Its least value (`IntNonNegative`: 0, `IntPositive`: 1).
                min: Option<u8>,
            },
            /// `BoolAttr`.
            Bool,
            /// `UnitAttr`.
            Unit,
            /// `StrAttr`.
            Str,
            /// `F32Attr`.
            F32,
            /// `DenseI64ArrayAttr`.
            DenseI64Array,
            /// `DenseBoolArrayAttr`.
            DenseBoolArray,
            /// `I64ElementsAttr`.
            I64Elements,
            /// `ElementsAttr`.
            Elements,
            /// Dense i64 elements or a `#stablehlo.replica_group_mesh_axes`.
            ReplicaGroups,
            /// `FlatSymbolRefAttr`.
            FlatSymbolRef,
            /// An array of flat symbol references.
            FlatSymbolRefArray,
            /// `DictionaryAttr`.
            Dictionary,
            /// `ArrayAttr` and typed arrays.
            Array,
            /// `DictArrayAttr`.
            DictArray,
            /// `TypeAttr`: any type.
            Type,
            /// `TypeAttrOf<FunctionType>`.
            FunctionType,
            /// A string or a dictionary.
            StrOrDictionary,
            /// A `#stablehlo.<mnemonic>` attribute.
            Stablehlo(&'static str),
            /// A `#stablehlo<NAME CASE>` of exactly this enum, with a known case.
            Enum(VhloEnum),
            /// An array of such enum attributes.
            EnumArray(VhloEnum),
        }

        /// An element type class an ODS operand or result type allows (Base.td's `HLO_Float`,
        /// `HLO_Int`, ...; codegen/src/ods_types.rs).
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum OdsElement {
            /// `HLO_Float`: the 4/6/8/16/32/64-bit floats (not tf32, f80, f128).
            Float,
            /// `HLO_Float32Or64`.
            Float32Or64,
            /// `HLO_Pred`: `i1`.
            Pred,
            /// Signless integers of 2/4/8/16/32/64 bits (`HLO_SInt`).
            SignlessInt,
            /// Unsigned integers of 2/4/8/16/32/64 bits (`HLO_UInt`).
            UnsignedInt,
            /// `complex<f32>` or `complex<f64>` (`HLO_Complex`).
            Complex,
            /// Per-tensor `!quant.uniform` of 2..32-bit storage, its zero point in the storage
            /// range (`HLO_QuantizedInt`).
            QuantizedInt,
            /// The per-axis form (`HLO_PerAxisQuantizedInt`).
            PerAxisQuantizedInt,
            /// `index`.
            Index,
            /// Any integer (`AnyInteger`).
            AnyInteger,
            /// `i32`.
            I32,
            /// `ui32`.
            UI32,
            /// Any float type (MLIR's `AnyFloat`).
            AnyFloat,
            /// Signless integers of any width (MLIR's `AnySignlessInteger`).
            AnySignlessInteger,
            /// Signless integers of any width but 0 (jaxlib's arith: "non-zero-bitwidth").
            NonZeroSignlessInteger,
            /// Unsigned integers of any width (MLIR's `AnyUnsignedInteger`).
            AnyUnsignedInteger,
            /// Signed integers of any width (MLIR's `AnySignedInteger`).
            AnySignedInteger,
            /// `complex<T>` of any element type (MLIR's `AnyComplex`).
            AnyComplex,
            /// `complex<T>` of any float type (MLIR's `Complex<AnyFloat>`).
            ComplexOfAnyFloat,
            /// Any type (`AnyType` as an element type).
            Any,
        }

        /// The shape an ODS tensor type asks for.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum OdsShape {
            /// Any shape.
            Any,
            /// `HasStaticShapePred`.
            Static,
            /// `HLO_HasStaticOrSingleBoundedShapePred`.
            StaticOrSingleBounded,
            /// `HasRankGreaterOrEqualPred<1>`, or unranked.
            NonZeroRank,
        }

        /// One kind of type an ODS operand or result type accepts.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum OdsTypeAlternative {
            /// A tensor.
            Tensor {
                /// `RankedTensorOf` and the rank-fixed forms, rather than `TensorOf`.
                ranked: bool,
                /// The rank it must have.
                rank: Option<u8>,
                /// The shape it must have.
                shape: OdsShape,
                /// `IsValidQuantizedDimension`: a per-axis element's dimension is below the
                /// rank and its scale count is that dimension's size (unless dynamic).
                quantized_dimension: bool,
                /// The element types it may have.
                elements: &'static [OdsElement],
            },
            /// A memref of these elements (`MemRefOf`).
            Memref(&'static [OdsElement]),
            /// `!stablehlo.token`.
            Token,
            /// `!stablehlo.future`.
            Future,
            /// A tuple whose leaves, through nested tuples, are of these (`NestedTupleOf`).
            NestedTuple(&'static [OdsTypeAlternative]),
            /// A scalar of these, or a vector or tensor (ranked or not) of them (MLIR's
            /// `TypeOrValueSemanticsContainer`: `FloatLike`, `BoolLike`, ...).
            Like(&'static [OdsElement]),
            /// Any type (`AnyType`).
            Any,
            /// A scalar of these (an element type used as a type: `Index`, `I1`).
            Scalar(&'static [OdsElement]),
            /// A tensor, memref (ranked or not) or vector of these (MLIR's `AnyShaped`).
            Shaped(&'static [OdsElement]),
            /// The type `!dialect.mnemonic` of another dialect, without parameters.
            Dialect(&'static str, &'static str),
        }

        /// Every distinct ODS operand or result type of the spec, which the ops' lists index.
        const VALUE_TYPES: &[OdsValueType] = &[ #(#s_value_types),* ];

        /// The ODS types of the operands and of the results of an op of another dialect of the
        /// spec (`spec/dialects/*.yaml`, `operand_types:`/`result_types:`), by its full name;
        /// `None` when the spec gives none.
        pub fn codec_op_value_types(
            name: &str,
        ) -> Option<(&'static [OdsValueType], &'static [OdsValueType])> {
            match name {
                #(#s_codec_value_types)*
                _ => None,
            }
        }

        /// An ODS operand or result type (spec `operand_types:`/`result_types:`).
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub struct OdsValueType {
            /// `Variadic<...>`: the constraint holds of each value of the group.
            pub variadic: bool,
            /// The kinds of types it accepts.
            pub alternatives: &'static [OdsTypeAlternative],
            /// What MLIR's message says it must be (`ranked tensor of ... values`).
            pub summary: &'static str,
        }

        /// What the conversions write for a VHLO attribute that a StableHLO op leaves out.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum VhloDefault {
            /// This value.
            Value(::vhlo_core::ir::Attribute),
            /// A value the named hand-written function computes from the op (`convert::ops`).
            Hook(&'static str),
        }

        // The format types are the runtime's (generated from codegen's lists: dialect_kinds.rs).
        pub use ::vhlo_core::dialect::{FormatAnchor, FormatDirective, FormatElem, OpFormat};

        /// Every current StableHLO (and func) op that maps to a VHLO op.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum StablehloOp {
            #( #[doc = #s_docs] #s_variants, )*
        }
        impl StablehloOp {
            /// All of them, in spec order.
            pub const ALL: &'static [StablehloOp] = &[ #(StablehloOp::#s_variants),* ];
            /// The main full name, e.g. `stablehlo.add` or `func.func`.
            pub fn name(self) -> &'static str {
                const N: &[&str] = &[ #(#s_names),* ];
                N[self as usize]
            }
            /// Looks an op up by any of its names (`func.return` and `stablehlo.return` are one).
            pub fn from_name(name: &str) -> Option<StablehloOp> {
                match name { #(#s_from_name)* _ => None }
            }
            /// The current VHLO op version it legalizes to.
            pub fn to_vhlo(self) -> VhloOp {
                match self { #(#s_to_vhlo)* }
            }
            /// Attribute names in declaration order.
            pub fn attribute_names(self) -> &'static [&'static str] {
                const A: &[&[&str]] = &[ #(#s_attr_names),* ];
                A[self as usize]
            }
            /// The ODS types of the attributes (`OptionalAttr<BoolAttr>`), as `attribute_names`.
            pub fn attribute_types(self) -> &'static [&'static str] {
                const A: &[&[&str]] = &[ #(#s_attr_types),* ];
                A[self as usize]
            }
            /// What each attribute's ODS type asks of its value, as `attribute_names` (lowered
            /// by codegen/src/ods.rs, so an unknown type is a spec error).
            pub fn attribute_constraints(self) -> &'static [OdsConstraint] {
                const A: &[&[OdsConstraint]] = &[ #(#s_attr_constraints),* ];
                A[self as usize]
            }
            /// The ODS type of each operand group, in order (spec `operand_types:`, lowered by
            /// codegen/src/ods_types.rs); empty when the spec records none.
            pub fn operand_type_constraints(self) -> &'static [OdsValueType] {
                const T: &[&[OdsValueType]] = &[ #(#s_operand_types),* ];
                T[self as usize]
            }
            /// The ODS type of each result group, as `operand_type_constraints`.
            pub fn result_type_constraints(self) -> &'static [OdsValueType] {
                const T: &[&[OdsValueType]] = &[ #(#s_result_types),* ];
                T[self as usize]
            }
            /// The VHLO attributes each attribute stands for when not the one of its own name
            /// (spec `vhlo:`: a struct split into fields, in the struct's order), as
            /// `attribute_names`.
            pub fn attribute_vhlo_fields(self) -> &'static [Option<&'static [&'static str]>] {
                const A: &[&[Option<&[&str]>]] = &[ #(#s_attr_vhlo),* ];
                A[self as usize]
            }
            /// Whether each attribute may be absent (a unit attribute, or an optional or
            /// default-valued one), as `attribute_names`.
            pub fn attribute_optional(self) -> &'static [bool] {
                const A: &[&[bool]] = &[ #(#s_attr_optional),* ];
                A[self as usize]
            }
            /// Each attribute's default value as MLIR prints it (`-1 : i64`), for attributes
            /// with an ODS default (spec `default:`), as `attribute_names`.
            pub fn attribute_defaults(self) -> &'static [Option<&'static str>] {
                const A: &[&[Option<&str>]] = &[ #(#s_attr_defaults),* ];
                A[self as usize]
            }
            /// What VHLO spells out for each VHLO attribute that the StableHLO attribute
            /// `attribute` stands for, when the op leaves it out (spec `vhlo_default:`), built in `m`.
            #[allow(unused_variables, clippy::match_single_binding)]
            pub fn vhlo_default(self, m: &mut ::vhlo_core::ir::Module, attribute: &str) -> Option<VhloDefault> {
                match (self, attribute) { #(#s_vhlo_defaults)* _ => None }
            }
            /// ODS's `HLO_CompatibleOperandsAndResultType` (spec `traits`): every operand and result
            /// has the same element type and compatible shapes.
            pub fn compatible_operands_and_result_type(self) -> bool {
                const C: &[bool] = &[ #(#s_compatible),* ];
                C[self as usize]
            }
            /// ODS's `Elementwise` listed before the op's type traits (spec `traits`): MLIR
            /// checks it first.
            pub fn elementwise_first(self) -> bool {
                const C: &[bool] = &[ #(#s_elementwise_first),* ];
                C[self as usize]
            }
            /// Each region (group) by name, and whether ODS constrains it to one block (spec
            /// `region_types`: `SizedRegion<1>`); a variadic group is the last.
            pub fn regions(self) -> &'static [(&'static str, bool)] {
                const R: &[&[(&str, bool)]] = &[ #(#s_regions),* ];
                R[self as usize]
            }
            /// ODS's `SingleBlockImplicitTerminator<"ReturnOp">` (spec `traits`): its regions end
            /// in `stablehlo.return`.
            pub fn implicit_terminator(self) -> bool {
                const C: &[bool] = &[ #(#s_implicit_terminator),* ];
                C[self as usize]
            }
            /// ODS's `Commutative` (spec `traits`): reduce's compact `applies` form accepts the op.
            pub fn is_commutative(self) -> bool {
                const C: &[bool] = &[ #(#s_commutative),* ];
                C[self as usize]
            }
            /// ODS's `ConstantLike` (spec `traits`): its value is a constant to `hlo::matchInts`.
            pub fn is_constant_like(self) -> bool {
                const C: &[bool] = &[ #(#s_constant_like),* ];
                C[self as usize]
            }
            /// The pretty names of the results (ODS names an op's results when it has several
            /// result groups, `getAsmResultNames`); empty otherwise.
            pub fn asm_result_names(self) -> &'static [&'static str] {
                const R: &[&[&str]] = &[ #(#s_result_names),* ];
                R[self as usize]
            }
            /// The pretty name of the entry arguments of the op's regions (spec
            /// `block_arg_name:`, as upstream's `getAsmBlockArgumentNames`).
            pub fn asm_block_arg_name(self) -> Option<&'static str> {
                const B: &[Option<&str>] = &[ #(#s_block_arg_name),* ];
                B[self as usize]
            }
            /// The custom assembly format (spec `format:`), which text/op_format.rs interprets to
            /// parse and to print; `None` for ops printed by hand or generically.
            pub fn format(self) -> Option<&'static OpFormat> {
                const F: &[Option<&OpFormat>] = &[ #(#s_formats),* ];
                F[self as usize]
            }
            /// Whether the op has no custom syntax (spec `format: generic`, as an upstream op
            /// without an assembly format): it is printed in generic form.
            pub fn prints_generically(self) -> bool {
                const G: &[bool] = &[ #(#s_generic),* ];
                G[self as usize]
            }
            /// The name to use on the way back from VHLO, which may depend on the parent op's family
            /// (`return_v1` is `func.return` inside a function and `stablehlo.return` elsewhere).
            pub fn name_under(self, parent_family: Option<&str>) -> &'static str {
                match self { #(#back_name)* }
            }
        }

        #(#structs)*

        /// The current StableHLO ops as typed structs (`stablehlo::AddOp`), apart from the VHLO
        /// op versions above (`AddOpV1`): read one from a module with `from_op`, make one with
        /// `build`.
        pub mod stablehlo {
            use super::StablehloOp;
            #(#s_structs)*
        }
    }
}

/// The generated `OdsConstraint` value of a lowered ODS type.
fn ods_tokens(spec: &Spec, t: &crate::ods::OdsType) -> TokenStream {
    use crate::ods::OdsType as T;
    let enum_variant = |i: usize| format_ident!("{}", camel(&spec.enums[i].name));
    match t {
        T::Int { width, min } => {
            let min = match min {
                Some(m) => quote! { Some(#m) },
                None => quote! { None },
            };
            quote! { OdsConstraint::Int { width: #width, min: #min } }
        }
        T::Bool => quote! { OdsConstraint::Bool },
        T::Unit => quote! { OdsConstraint::Unit },
        T::Str => quote! { OdsConstraint::Str },
        T::F32 => quote! { OdsConstraint::F32 },
        T::DenseI64Array => quote! { OdsConstraint::DenseI64Array },
        T::DenseBoolArray => quote! { OdsConstraint::DenseBoolArray },
        T::I64Elements => quote! { OdsConstraint::I64Elements },
        T::Elements => quote! { OdsConstraint::Elements },
        T::ReplicaGroups => quote! { OdsConstraint::ReplicaGroups },
        T::FlatSymbolRef => quote! { OdsConstraint::FlatSymbolRef },
        T::FlatSymbolRefArray => quote! { OdsConstraint::FlatSymbolRefArray },
        T::Dictionary => quote! { OdsConstraint::Dictionary },
        T::Array => quote! { OdsConstraint::Array },
        T::DictArray => quote! { OdsConstraint::DictArray },
        T::Type => quote! { OdsConstraint::Type },
        T::FunctionType => quote! { OdsConstraint::FunctionType },
        T::StrOrDictionary => quote! { OdsConstraint::StrOrDictionary },
        T::Stablehlo(m) => quote! { OdsConstraint::Stablehlo(#m) },
        T::Enum(i) => {
            let v = enum_variant(*i);
            quote! { OdsConstraint::Enum(VhloEnum::#v) }
        }
        T::EnumArray(i) => {
            let v = enum_variant(*i);
            quote! { OdsConstraint::EnumArray(VhloEnum::#v) }
        }
    }
}

/// The generated `OdsValueType` of a lowered operand or result type.
fn value_type_tokens(c: &crate::ods_types::TypeConstraint) -> TokenStream {
    let variadic = c.variadic;
    let summary = &c.summary;
    let alts = c.alternatives.iter().map(alternative_tokens);
    quote! { OdsValueType { variadic: #variadic, alternatives: &[ #(#alts),* ], summary: #summary } }
}

fn alternative_tokens(a: &crate::ods_types::Alt) -> TokenStream {
    use crate::ods_types::{Alt, Elem, Shape};
    let elems = |es: &[Elem]| {
        let es = es.iter().map(|e| format_ident!("{}", format!("{e:?}")));
        quote! { &[ #(OdsElement::#es),* ] }
    };
    match a {
        Alt::Tensor {
            ranked,
            rank,
            shape,
            quantized_dimension,
            elements,
        } => {
            let rank = match rank {
                Some(r) => quote! { Some(#r) },
                None => quote! { None },
            };
            let shape = match shape {
                Shape::Any => quote! { OdsShape::Any },
                Shape::Static => quote! { OdsShape::Static },
                Shape::StaticOrSingleBounded => quote! { OdsShape::StaticOrSingleBounded },
                Shape::NonZeroRank => quote! { OdsShape::NonZeroRank },
            };
            let elements = elems(elements);
            quote! { OdsTypeAlternative::Tensor { ranked: #ranked, rank: #rank, shape: #shape, quantized_dimension: #quantized_dimension, elements: #elements } }
        }
        Alt::Memref(es) => {
            let es = elems(es);
            quote! { OdsTypeAlternative::Memref(#es) }
        }
        Alt::Like(es) => {
            let es = elems(es);
            quote! { OdsTypeAlternative::Like(#es) }
        }
        Alt::Any => quote! { OdsTypeAlternative::Any },
        Alt::Scalar(es) => {
            let es = elems(es);
            quote! { OdsTypeAlternative::Scalar(#es) }
        }
        Alt::Shaped(es) => {
            let es = elems(es);
            quote! { OdsTypeAlternative::Shaped(#es) }
        }
        Alt::Dialect(d, t) => quote! { OdsTypeAlternative::Dialect(#d, #t) },
        Alt::Token => quote! { OdsTypeAlternative::Token },
        Alt::Future => quote! { OdsTypeAlternative::Future },
        Alt::NestedTuple(alts) => {
            let alts = alts.iter().map(alternative_tokens);
            quote! { OdsTypeAlternative::NestedTuple(&[ #(#alts),* ]) }
        }
    }
}
