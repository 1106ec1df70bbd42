//! Upgrade and downgrade steps between adjacent op versions, generated from the change rules, and
//! the checks of versioned features.
//!
//! Each step rewrites the op in place (name, properties); discardable attributes, results and
//! uses are untouched, as upstream's `copyDiscardableAttrs` keeps them. A downgrade first checks
//! every precondition and only then mutates, so a refused step leaves the op as it was.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::ops::vhlo_variant;
use super::version_tokens;
use crate::model::{ChangeRule, Field, OpVersion, ParamKind, Predicate, Spec, Value};

/// Code that builds the VHLO attribute `v` in `m` (an expression of type `Attribute`, or
/// `Result<Attribute, ConversionError>` for hooks, which the caller `?`s).
pub(crate) fn value_expr(spec: &Spec, v: &Value) -> TokenStream {
    match v {
        Value::Bool(b) => quote! { ::vhlo_core::dialect::support::vhlo_bool(m, #b) },
        Value::Int(i) => quote! { ::vhlo_core::dialect::support::vhlo_i64(m, #i) },
        Value::Float(f) => quote! { ::vhlo_core::dialect::support::vhlo_f64(m, #f) },
        Value::Type(t) => quote! { ::vhlo_core::dialect::support::vhlo_type_attr(m, #t) },
        Value::Str(s) => quote! { ::vhlo_core::dialect::support::vhlo_string(m, #s) },
        Value::Dict(entries) => {
            let ks = entries.iter().map(|(k, _)| k);
            let xs = entries.iter().map(|(_, x)| value_expr(spec, x));
            quote! { { let __entries = vec![ #( { let __k = ::vhlo_core::dialect::support::vhlo_string(m, #ks); (__k, #xs) } ),* ]; ::vhlo_core::dialect::support::vhlo_dict(m, __entries) } }
        }
        Value::Array(items) => {
            let xs = items.iter().map(|x| value_expr(spec, x));
            quote! { { let __items = vec![ #(#xs),* ]; ::vhlo_core::dialect::support::vhlo_array(m, __items) } }
        }
        Value::Tensor {
            element,
            shape,
            values,
        } => {
            quote! { ::vhlo_core::dialect::support::vhlo_int_tensor(m, #element, &[ #(#shape),* ], &[ #(#values),* ]) }
        }
        Value::Enum { name, case } => {
            let value = spec
                .enums
                .iter()
                .find(|e| &e.name == name)
                .and_then(|e| e.cases.iter().find(|c| &c.name == case))
                .map(|c| c.value)
                .unwrap_or(0);
            quote! { ::vhlo_core::dialect::support::vhlo_enum(m, #name, #value) }
        }
        Value::Attr { name, params } => {
            let def = spec.attrs.iter().find(|a| &a.name == name);
            let ps = def.into_iter().flat_map(|d| d.params.iter()).map(|p| {
                match params.iter().find(|(k, _)| k == &p.name).map(|(_, x)| x) {
                    None => quote! { ::vhlo_core::ir::Param::Absent },
                    Some(x) => match (p.kind, x) {
                        (ParamKind::Float, Value::Float(f)) => {
                            quote! { ::vhlo_core::ir::Param::Float { bits: (#f as f64).to_bits() as u128, width: 64 } }
                        }
                        (ParamKind::U32, Value::Int(i)) => {
                            let u = *i as u64;
                            quote! { ::vhlo_core::ir::Param::UInt(#u) }
                        }
                        (_, Value::Int(i)) => quote! { ::vhlo_core::ir::Param::Int(#i) },
                        (_, Value::Bool(b)) => quote! { ::vhlo_core::ir::Param::Bool(#b) },
                        (ParamKind::Type, Value::Type(t)) => {
                            quote! { ::vhlo_core::ir::Param::Type(::vhlo_core::dialect::support::vhlo_type(m, #t)) }
                        }
                        (_, other) => {
                            let e = value_expr(spec, other);
                            quote! { ::vhlo_core::ir::Param::Attr({ #e }) }
                        }
                    },
                }
            });
            quote! { { let __params = vec![ #(#ps),* ]; ::vhlo_core::dialect::support::vhlo_attr(m, #name, __params) } }
        }
        Value::Hook(h) => {
            let f = format_ident!("{}", h);
            quote! { ::vhlo_core::dialect::hooks::#f(m, op)? }
        }
    }
}

/// True when computing `v` calls a hand-written hook (which may read the op).
fn value_has_hook(v: &Value) -> bool {
    match v {
        Value::Hook(_) => true,
        Value::Array(items) => items.iter().any(value_has_hook),
        Value::Dict(entries) => entries.iter().any(|(_, x)| value_has_hook(x)),
        Value::Attr { params, .. } => params.iter().any(|(_, p)| value_has_hook(p)),
        _ => false,
    }
}

/// (number of non-variadic fields, number of variadic groups) of a field list.
fn counts(fields: &[Field]) -> (usize, usize) {
    let var = fields.iter().filter(|f| f.variadic).count();
    (fields.len() - var, var)
}

fn step_tokens(spec: &Spec, prev: &OpVersion, next: &OpVersion) -> (TokenStream, TokenStream) {
    let pv = vhlo_variant(prev);
    let nv = vhlo_variant(next);
    let needs = version_tokens(next.since);
    let mut up = Vec::new();
    let mut down_checks = Vec::new();
    let mut down = Vec::new();
    for (rule_index, rule) in next.changes.iter().enumerate() {
        match rule {
            ChangeRule::AddAttribute { name, default, .. } => {
                let e = value_expr(spec, default);
                up.push(quote! { { let __v = #e; ::vhlo_core::dialect::support::set_property(m, op, #name, __v); } });
                down_checks.push(quote! {
                    { let __v = #e; ::vhlo_core::dialect::support::require_default(m, op, VhloOp::#nv.name(), #name, __v, #needs)?; }
                });
                down.push(quote! { ::vhlo_core::dialect::support::remove_property(m, op, #name); });
            }
            ChangeRule::RemoveAttribute { name, default, .. } => {
                let e = value_expr(spec, default);
                up.push(quote! { ::vhlo_core::dialect::support::remove_property(m, op, #name); });
                // Hooks may fail, so they run with the checks.
                let var = format_ident!("__removed_default_{}", rule_index);
                down_checks.push(quote! { let #var = #e; });
                down.push(
                    quote! { ::vhlo_core::dialect::support::set_property(m, op, #name, #var); },
                );
            }
            ChangeRule::MakeVariadic { to, .. } => {
                let is_operand = next.operands.iter().any(|f| &f.name == to);
                let (fixed, groups) = if is_operand {
                    counts(&next.operands)
                } else {
                    counts(&next.results)
                };
                let what = if is_operand { "operand" } else { "result" };
                down_checks.push(quote! {
                    ::vhlo_core::dialect::support::require_single(m, op, VhloOp::#nv.name(), #what, #to, #fixed, #groups, #needs)?;
                });
            }
            ChangeRule::AddRegion { name, .. } => {
                let (fixed, _) = counts(&next.regions);
                down_checks.push(quote! {
                    ::vhlo_core::dialect::support::require_no_regions(m, op, VhloOp::#nv.name(), #name, #fixed, #needs)?;
                });
            }
            ChangeRule::RenameAttribute { from, to, .. } => {
                up.push(
                    quote! { ::vhlo_core::dialect::support::rename_property(m, op, #from, #to); },
                );
                down.push(
                    quote! { ::vhlo_core::dialect::support::rename_property(m, op, #to, #from); },
                );
            }
            ChangeRule::RenameOperand { .. } => {}
            ChangeRule::Hook { name, .. } => {
                let u = format_ident!("{}_upgrade", name);
                let d = format_ident!("{}_downgrade", name);
                up.push(quote! { ::vhlo_core::dialect::hooks::#u(m, op)?; });
                down_checks.push(quote! { ::vhlo_core::dialect::hooks::#d(m, op)?; });
            }
        }
    }
    let pname = format!("vhlo.{}", prev.mnemonic);
    let nname = format!("vhlo.{}", next.mnemonic);
    let up_arm = quote! {
        VhloOp::#pv => {
            #(#up)*
            ::vhlo_core::dialect::support::rename_op(m, op, #nname);
            Ok(Some(VhloOp::#nv))
        }
    };
    let down_arm = quote! {
        VhloOp::#nv => {
            #(#down_checks)*
            #(#down)*
            ::vhlo_core::dialect::support::rename_op(m, op, #pname);
            Ok(Some(VhloOp::#pv))
        }
    };
    (up_arm, down_arm)
}

fn predicate_expr(spec: &Spec, p: &Predicate) -> TokenStream {
    match p {
        Predicate::ElementTypesDiffer => {
            quote! { ::vhlo_core::dialect::support::element_types_differ(m, op) }
        }
        Predicate::AttributeKind { attribute, kind } => {
            quote! { ::vhlo_core::dialect::support::property_is_kind(m, op, #attribute, #kind) }
        }
        Predicate::AttributeEquals { attribute, value } => match value {
            Value::Enum { name, case } => {
                let v = spec
                    .enums
                    .iter()
                    .find(|e| &e.name == name)
                    .and_then(|e| e.cases.iter().find(|c| &c.name == case))
                    .map(|c| c.value)
                    .unwrap_or(0);
                quote! { ::vhlo_core::dialect::support::property_is_enum_case(m, op, #attribute, #name, #v) }
            }
            Value::Bool(b) => {
                quote! { ::vhlo_core::dialect::support::property_is_bool(m, op, #attribute, #b) }
            }
            // check.rs keeps other forms out of predicates.
            _ => quote! { false },
        },
        Predicate::OperandType(t) => {
            quote! { ::vhlo_core::dialect::support::some_operand_has_type(m, op, #t) }
        }
    }
}

pub(super) fn emit(spec: &Spec) -> TokenStream {
    let mut ups = Vec::new();
    let mut downs = Vec::new();
    // Upgrades without a hook read and write nothing but properties and the op name.
    let mut hooked_upgrades = Vec::new();
    for fam in &spec.ops {
        for w in fam.versions.windows(2) {
            let (u, d) = step_tokens(spec, &w[0], &w[1]);
            ups.push(u);
            downs.push(d);
            if w[1].changes.iter().any(|c| match c {
                ChangeRule::Hook { .. } => true,
                ChangeRule::AddAttribute { default, .. } => value_has_hook(default),
                _ => false,
            }) {
                hooked_upgrades.push(vhlo_variant(&w[0]));
            }
        }
    }
    let newest_feature_arms = spec.op_versions().filter_map(|v| {
        let var = vhlo_variant(v);
        let newest = version_tokens(v.features.iter().map(|f| f.since).max()?);
        Some(quote! { VhloOp::#var => Some(#newest), })
    });
    let feature_arms = spec.op_versions().filter(|v| !v.features.is_empty()).map(|v| {
        let var = vhlo_variant(v);
        let checks = v.features.iter().map(|f| {
            let name = &f.name;
            let since = version_tokens(f.since);
            let pred = predicate_expr(spec, &f.when);
            quote! {
                if target < #since && #pred {
                    out.push(::vhlo_core::dialect::FeatureUse { op: VhloOp::#var.name(), feature: #name, needs: #since });
                }
            }
        });
        quote! { Some(VhloOp::#var) => { #(#checks)* } }
    });
    quote! {
        /// Upgrades `op` by one version in place (e.g. `exponential_v1` -> `exponential_v2`), applying
        /// the spec's change rules. `Ok(None)` when `op` is not a VHLO op or is already the newest
        /// version of its op.
        pub fn upgrade_one(m: &mut ::vhlo_core::ir::Module, op: ::vhlo_core::ir::OpId) -> Result<Option<VhloOp>, ::vhlo_core::dialect::ConversionError> {
            let Some(kind) = VhloOp::from_name(m.op_name_str(op)) else { return Ok(None) };
            upgrade_op(m, op, kind)
        }

        /// True when upgrading `kind` one version reads and writes only the op's properties and
        /// name (no hook): ops of one kind with equal properties then upgrade alike.
        pub fn upgrade_is_property_only(kind: VhloOp) -> bool {
            const HOOKED: &[VhloOp] = &[ #(VhloOp::#hooked_upgrades),* ];
            !HOOKED.contains(&kind)
        }

        /// [`upgrade_one`] for an op whose kind the caller already knows (`kind` must be its kind).
        pub fn upgrade_op(m: &mut ::vhlo_core::ir::Module, op: ::vhlo_core::ir::OpId, kind: VhloOp) -> Result<Option<VhloOp>, ::vhlo_core::dialect::ConversionError> {
            match kind {
                #(#ups)*
                _ => Ok(None),
            }
        }

        /// Downgrades `op` by one version in place. Fails, leaving the op unchanged, when the op uses
        /// something the older version cannot express; the error names the op, the attribute or
        /// operand, and the version that would accept it. `Ok(None)` when there is no older version.
        pub fn downgrade_one(m: &mut ::vhlo_core::ir::Module, op: ::vhlo_core::ir::OpId) -> Result<Option<VhloOp>, ::vhlo_core::dialect::ConversionError> {
            let Some(kind) = VhloOp::from_name(m.op_name_str(op)) else { return Ok(None) };
            downgrade_op(m, op, kind)
        }

        /// [`downgrade_one`] for an op whose kind the caller already knows (`kind` must be its kind).
        pub fn downgrade_op(m: &mut ::vhlo_core::ir::Module, op: ::vhlo_core::ir::OpId, kind: VhloOp) -> Result<Option<VhloOp>, ::vhlo_core::dialect::ConversionError> {
            match kind {
                #(#downs)*
                _ => Ok(None),
            }
        }

        /// Uses of `op` that need a release newer than `target` although the op version itself is
        /// legal there (for example a dictionary `backend_config` on `custom_call_v1` before 1.3.0).
        pub fn feature_uses(m: &::vhlo_core::ir::Module, op: ::vhlo_core::ir::OpId, target: ::vhlo_core::version::Version) -> Vec<::vhlo_core::dialect::FeatureUse> {
            feature_uses_of(m, op, VhloOp::from_name(m.op_name_str(op)), target)
        }

        /// The newest release a feature check of `kind` needs (`None` when it has none): at or
        /// past it, [`feature_uses_of`] finds nothing, so callers can skip it.
        pub fn newest_feature_of(kind: VhloOp) -> Option<::vhlo_core::version::Version> {
            match kind {
                #(#newest_feature_arms)*
                _ => None,
            }
        }

        /// [`feature_uses`] for an op whose kind the caller already knows (`kind` must be its kind).
        pub fn feature_uses_of(m: &::vhlo_core::ir::Module, op: ::vhlo_core::ir::OpId, kind: Option<VhloOp>, target: ::vhlo_core::version::Version) -> Vec<::vhlo_core::dialect::FeatureUse> {
            let mut out = Vec::new();
            match kind {
                #(#feature_arms)*
                _ => {}
            }
            out
        }
    }
}
