//! Assembly formats of VHLO types and attributes (spec `format:`, as ODS's `assemblyFormat` for
//! attributes and types, whose generator is MLIR's AttrOrTypeFormatGen): parsed and checked
//! here, and emitted as the table the text format parses and prints them by
//! (vhlo-core/src/text/param_format.rs).
//!
//! A format spells what follows the mnemonic. Its elements:
//! - `` `<` ``: a literal (`` `` `` prints no space before the next element);
//! - `$name`: a parameter, in the plain spelling of its kind;
//! - `custom<Name>($a, ...)`: a directive of [`DIRECTIVES`], for spellings of several parameters
//!   or irregular ones (MLIR's `custom<...>` parameter printers);
//! - `struct(params)`: every parameter as `name = value`, comma-separated.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::diag::{Diagnostics, Pos};
use crate::format::{Lexer, Spacing};
use crate::model::{ParamKind, Spec, TypeOrAttrDef};

/// One element of a parsed format.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamElem {
    Literal(String),
    /// A parameter, by storage index.
    Param(usize),
    /// A directive of [`DIRECTIVES`] and its parameters.
    Custom(&'static str, Vec<usize>),
    /// `struct(params)`.
    Struct,
}

/// The custom directives: name, the kinds of their parameters, and what they spell.
pub const DIRECTIVES: &[(&str, &[ParamKind], &str)] = &[
    (
        "Shape",
        &[ParamKind::Dims],
        "`2x?x`: each dimension of a shape followed by `x`",
    ),
    (
        "Encoding",
        &[ParamKind::Attr],
        "`, #enc` when the optional encoding is present",
    ),
    (
        "TypeArray",
        &[ParamKind::Types],
        "a list of types, `()` when empty",
    ),
    ("AttributeArray", &[ParamKind::Attrs], "`[a, b]`"),
    (
        "AttributeDictionary",
        &[ParamKind::AttrPairs],
        "`{k = v, ...}`",
    ),
    (
        "EscapedString",
        &[ParamKind::String],
        "a quoted string, escaped as MLIR escapes it",
    ),
    (
        "TypedFloat",
        &[ParamKind::Float, ParamKind::Type],
        "`1.5 : !vhlo.f32_v1`: the value as its type spells it",
    ),
    (
        "BuiltinInteger",
        &[ParamKind::Type, ParamKind::Int],
        "`5 : i32` (`true` for `i1`): the builtin integer attribute",
    ),
    (
        "BuiltinDense",
        &[ParamKind::Type, ParamKind::DenseData],
        "the builtin dense elements attribute of the type and data",
    ),
];

/// The kinds a `$name` element spells on its own.
const PLAIN_KINDS: &[ParamKind] = &[
    ParamKind::Type,
    ParamKind::Types,
    ParamKind::Attr,
    ParamKind::Bool,
    ParamKind::I64,
    ParamKind::I32,
    ParamKind::U32,
    ParamKind::Float,
    ParamKind::Floats,
    ParamKind::I64s,
];

/// Parses `def`'s format; the error's byte offset is into the format.
pub fn parse(def: &TypeOrAttrDef, text: &str, base: &Pos) -> Result<Vec<ParamElem>, (Pos, String)> {
    let mut lx = Lexer::new(text, base);
    let mut elems = Vec::new();
    let mut seen = vec![false; def.params.len()];
    let param = |lx: &mut Lexer<'_>, seen: &mut Vec<bool>| -> Result<usize, (Pos, String)> {
        lx.expect_str("$").map_err(|e| lx.error(e))?;
        let (at, name) = lx.ident();
        let Some(i) = def.params.iter().position(|p| p.name == name) else {
            return Err((
                lx.pos(at),
                format!("`{}` has no parameter `{name}`", def.name),
            ));
        };
        if std::mem::replace(&mut seen[i], true) {
            return Err((lx.pos(at), format!("parameter `{name}` is used twice")));
        }
        Ok(i)
    };
    while let Some(c) = lx.peek() {
        let at = lx.at();
        if c == '`' {
            elems.push(ParamElem::Literal(
                lx.backquoted().map_err(|e| lx.error(e))?.to_string(),
            ));
        } else if c == '$' {
            let i = param(&mut lx, &mut seen)?;
            let kind = def.params[i].kind;
            if !PLAIN_KINDS.contains(&kind) || def.params[i].optional {
                return Err((
                    lx.pos(at),
                    format!(
                        "parameter `{}` ({}{}) has no plain spelling: use a custom directive",
                        def.params[i].name,
                        if def.params[i].optional {
                            "optional "
                        } else {
                            ""
                        },
                        kind.spelling()
                    ),
                ));
            }
            elems.push(ParamElem::Param(i));
        } else if lx.eat("custom") {
            lx.expect_str("<").map_err(|e| lx.error(e))?;
            let (nat, name) = lx.ident();
            let Some(&(name, kinds, _)) = DIRECTIVES.iter().find(|d| d.0 == name) else {
                let known: Vec<&str> = DIRECTIVES.iter().map(|d| d.0).collect();
                return Err((
                    lx.pos(nat),
                    format!(
                        "unknown directive `custom<{name}>` (one of: {})",
                        known.join(", ")
                    ),
                ));
            };
            lx.expect_str(">").map_err(|e| lx.error(e))?;
            lx.expect_str("(").map_err(|e| lx.error(e))?;
            let mut args = Vec::new();
            loop {
                let aat = lx.at();
                let i = param(&mut lx, &mut seen)?;
                let want = kinds.get(args.len()).copied();
                if want != Some(def.params[i].kind) {
                    return Err((
                        lx.pos(aat),
                        format!(
                            "`custom<{name}>` takes {} parameters of kinds {}; `{}` is {}",
                            kinds.len(),
                            kinds
                                .iter()
                                .map(|k| k.spelling())
                                .collect::<Vec<_>>()
                                .join(", "),
                            def.params[i].name,
                            def.params[i].kind.spelling()
                        ),
                    ));
                }
                args.push(i);
                if !lx.eat(",") {
                    break;
                }
            }
            lx.expect_str(")").map_err(|e| lx.error(e))?;
            if args.len() != kinds.len() {
                return Err((
                    lx.pos(at),
                    format!("`custom<{name}>` takes {} parameters", kinds.len()),
                ));
            }
            elems.push(ParamElem::Custom(name, args));
        } else if lx.eat("struct") {
            for s in ["(", "params", ")"] {
                lx.expect_str(s).map_err(|e| lx.error(e))?;
            }
            if seen.iter().any(|&s| s) {
                return Err((
                    lx.pos(at),
                    "`struct(params)` takes every parameter; another element uses one".into(),
                ));
            }
            seen.iter_mut().for_each(|s| *s = true);
            elems.push(ParamElem::Struct);
        } else {
            return Err((
                lx.pos(at),
                format!("unexpected `{c}` in a type or attribute format"),
            ));
        }
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        return Err((
            base.clone(),
            format!(
                "the format of `{}` leaves out parameter `{}`",
                def.name, def.params[i].name
            ),
        ));
    }
    Ok(elems)
}

/// Every VHLO type and attribute with parameters has a format, and each parses.
pub fn check(spec: &Spec, diags: &mut Diagnostics) {
    for (def, what) in spec
        .types
        .iter()
        .map(|d| (d, "type"))
        .chain(spec.attrs.iter().map(|d| (d, "attribute")))
    {
        match &def.format {
            Some((text, at)) => {
                if let Err((p, msg)) = parse(def, text, at) {
                    diags.error(p, format!("format of {what} `{}`: {msg}", def.name));
                }
            }
            None if !def.params.is_empty() => diags.error(
                def.pos.clone(),
                format!(
                    "{what} `{}` has parameters and no `format:` to spell them",
                    def.name
                ),
            ),
            None => {}
        }
    }
}

/// The format of `def` as the runtime's `ParamFormatElem`s, its spacing resolved as MLIR's
/// AttrOrTypeFormatGen resolves it.
pub fn tokens(def: &TypeOrAttrDef) -> TokenStream {
    let Some(elems) = def.format.as_ref().and_then(|(t, p)| parse(def, t, p).ok()) else {
        return quote! { &[] };
    };
    let mut sp = Spacing::new();
    let es = elems.iter().filter_map(|e| Some(match e {
        // Only its effect on the spacing is printed.
        ParamElem::Literal(l) if l.is_empty() => {
            sp.literal(l);
            return None;
        }
        ParamElem::Literal(l) => {
            let printed = sp.literal(l);
            let space = printed.starts_with(' ') && l != " ";
            let l = l.as_str();
            quote! { ::vhlo_core::dialect::ParamFormatElem::Literal(#l, #space) }
        }
        ParamElem::Param(i) => {
            let space = sp.param();
            quote! { ::vhlo_core::dialect::ParamFormatElem::Param(#i, #space) }
        }
        ParamElem::Custom(name, args) => {
            let space = sp.param();
            let d = format_ident!("{}", name);
            quote! { ::vhlo_core::dialect::ParamFormatElem::Custom(::vhlo_core::dialect::ParamDirective::#d, &[#(#args),*], #space) }
        }
        ParamElem::Struct => {
            let space = sp.param();
            quote! { ::vhlo_core::dialect::ParamFormatElem::Struct(#space) }
        }
    }));
    quote! { &[#(#es),*] }
}
