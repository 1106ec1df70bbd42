//! The parameters of a VHLO type or attribute in text, printed and parsed by its assembly format
//! (the spec's `format:`, as ODS's `assemblyFormat` for types and attributes; codegen resolves
//! the spacing and checks the parameters against the directives: codegen/src/param_format.rs).
//! One table drives both directions, so what prints is what parses.

use std::fmt::Write;

use super::dialects;
use super::parser::{Elem, PResult, Parser};
use super::printer::{elem_kind, float_kind_of_width, write_escaped, ElemKind, Printer};
use crate::dialect::{ParamDirective, ParamFormatElem, ParamKind, ParamSpec, Wire, WireStep};
use crate::float::{format_float, format_float_into};
use crate::ir::FloatKind;
use crate::ir::{AttrData, Param, Signedness, TypeData};
use crate::vhlo::{VhloAttr, VhloType};

/// Which VHLO type or attribute: its parameters, bytecode form (for the irregular values the
/// `wire:` hints name) and format.
#[derive(Clone, Copy)]
struct Described {
    /// `!vhlo.tensor_v1` or `#vhlo.tensor_v1`, for messages.
    pub sigil: char,
    pub mnemonic: &'static str,
    pub params: &'static [ParamSpec],
    pub wire: &'static [WireStep],
    pub format: &'static [ParamFormatElem],
}

impl Described {
    fn of_type(t: crate::vhlo::VhloType) -> Described {
        Described {
            sigil: '!',
            mnemonic: t.mnemonic(),
            params: t.params(),
            wire: t.wire(),
            format: t.format(),
        }
    }

    fn of_attr(a: crate::vhlo::VhloAttr) -> Described {
        Described {
            sigil: '#',
            mnemonic: a.mnemonic(),
            params: a.params(),
            wire: a.wire(),
            format: a.format(),
        }
    }

    /// `struct(params)`: the fields are the parameters.
    fn fields(self) -> dialects::StructSpec {
        dialects::StructSpec {
            dialect: "vhlo",
            mnemonic: self.mnemonic,
            fields: dialects::Fields::Vhlo(self.params),
            omit_defaults: false,
        }
    }

    fn wire_of(self, i: usize) -> Option<Wire> {
        self.wire.iter().find(|s| s.param == i).map(|s| s.wire)
    }
}

impl Printer<'_> {
    /// Prints the parameters of a VHLO type (`t`, when the mnemonic names one) by its format;
    /// false (nothing printed) when it names none or the parameters do not fit.
    pub(crate) fn print_vhlo_type_params(&mut self, t: Option<VhloType>, p: &[Param]) -> bool {
        t.is_some_and(|t| self.print_params_by_format(Described::of_type(t), p))
    }

    /// As [`Self::print_vhlo_type_params`], for a VHLO attribute.
    pub(crate) fn print_vhlo_attr_params(&mut self, a: Option<VhloAttr>, p: &[Param]) -> bool {
        a.is_some_and(|a| self.print_params_by_format(Described::of_attr(a), p))
    }

    /// Prints `p` by `d`'s format; false (nothing printed) when the parameters do not have the
    /// spec's kinds.
    fn print_params_by_format(&mut self, d: Described, p: &[Param]) -> bool {
        if p.len() != d.params.len() || !fits(d.params, p) {
            return false;
        }
        for e in d.format {
            let (space, param) = match *e {
                ParamFormatElem::Literal(l, space) => {
                    if space {
                        self.out.push(' ');
                    }
                    self.out.push_str(l);
                    continue;
                }
                ParamFormatElem::Param(i, space) => (space, i),
                ParamFormatElem::Custom(dir, args, space) => {
                    if space {
                        self.out.push(' ');
                    }
                    if !self.print_directive(dir, args, p) {
                        return false;
                    }
                    continue;
                }
                ParamFormatElem::Struct(space) => {
                    if space {
                        self.out.push(' ');
                    }
                    self.print_struct_fields(&d.fields(), p, false);
                    continue;
                }
            };
            if space {
                self.out.push(' ');
            }
            match p.get(param) {
                Some(Param::Type(t)) => self.print_type(*t),
                Some(Param::Types(ts)) => self.print_type_list(ts),
                Some(Param::Attr(a)) => self.print_attr(*a),
                Some(Param::Bool(b)) => self.out.push_str(if *b { "true" } else { "false" }),
                Some(Param::Int(v)) => {
                    let _ = write!(self.out, "{v}");
                }
                Some(Param::UInt(v)) => {
                    let _ = write!(self.out, "{v}");
                }
                Some(Param::Float { bits, width }) => self
                    .out
                    .push_str(&format_float(float_kind_of_width(*width), *bits)),
                Some(Param::Floats(fs)) => self.print_sep(fs, ", ", |p, b| {
                    format_float_into(&mut p.out, FloatKind::F64, b)
                }),
                Some(Param::Ints(v)) => self.print_dims(v),
                _ => return false,
            }
        }
        true
    }

    fn print_directive(&mut self, dir: ParamDirective, args: &[usize], p: &[Param]) -> bool {
        let arg = |k: usize| args.get(k).and_then(|&i| p.get(i));
        match (dir, arg(0), arg(1)) {
            (ParamDirective::Shape, Some(Param::Ints(shape)), _) => self.print_shape(shape),
            (ParamDirective::Encoding, Some(Param::Attr(a)), _) => {
                self.out.push_str(", ");
                self.print_attr(*a);
            }
            (ParamDirective::Encoding, Some(Param::Absent), _) => {}
            (ParamDirective::TypeArray, Some(Param::Types(ts)), _) => {
                if ts.is_empty() {
                    self.out.push_str("()");
                } else {
                    self.print_type_list(ts);
                }
            }
            (ParamDirective::AttributeArray, Some(Param::Attrs(xs)), _) => {
                self.wrap("[", "]", |p| p.print_attr_list(xs));
            }
            (ParamDirective::AttributeDictionary, Some(Param::AttrPairs(pairs)), _) => {
                self.wrap("{", "}", |p| {
                    p.print_sep(pairs, ", ", |p, (k, v)| {
                        p.print_attr(k);
                        p.out.push_str(" = ");
                        p.print_attr(v);
                    })
                });
            }
            (ParamDirective::EscapedString, Some(Param::Str(s)), _) => {
                write_escaped(&mut self.out, self.m.bytes(*s));
            }
            (
                ParamDirective::TypedFloat,
                Some(Param::Float { bits, width }),
                Some(Param::Type(t)),
            ) => {
                let kind = match elem_kind(self.m, *t) {
                    Some(ElemKind::Float(k)) => k,
                    _ => float_kind_of_width(*width),
                };
                let _ = write!(self.out, "{} : ", format_float(kind, *bits));
                self.print_type(*t);
            }
            (ParamDirective::BuiltinInteger, Some(Param::Type(t)), Some(Param::Int(v))) => {
                // MLIR's integer attribute: the builtin spelling of the VHLO type.
                let spelled = match self.m.type_data(*t) {
                    TypeData::Dialect(dt) => crate::scalars::builtin_of(self.m.str(dt.mnemonic)),
                    _ => None,
                };
                match spelled {
                    Some("i1") => self
                        .out
                        .push_str(if *v & 1 == 1 { "true" } else { "false" }),
                    Some(s) => {
                        if let Some(w) = s.strip_prefix("ui").and_then(|w| w.parse::<u32>().ok()) {
                            let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
                            let _ = write!(self.out, "{} : {s}", (*v as u64) & mask);
                        } else {
                            let _ = write!(self.out, "{v} : {s}");
                        }
                    }
                    None => {
                        let _ = write!(self.out, "{v} : ");
                        self.print_type(*t);
                    }
                }
            }
            (ParamDirective::BuiltinDense, Some(Param::Type(t)), Some(Param::Bytes(data))) => {
                if !self.print_vhlo_dense(*t, data) {
                    let _ = write!(
                        self.out,
                        "<<unprintable tensor data of {} bytes>>",
                        data.len()
                    );
                }
            }
            _ => return false,
        }
        true
    }
}

/// Whether each parameter has its spec kind.
fn fits(specs: &[ParamSpec], p: &[Param]) -> bool {
    specs.iter().zip(p).all(|(s, p)| {
        matches!(
            (s.kind, p),
            (_, Param::Absent) if s.optional
        ) || matches!(
            (s.kind, p),
            (ParamKind::Type, Param::Type(_))
                | (ParamKind::Types, Param::Types(_))
                | (ParamKind::Attr, Param::Attr(_))
                | (ParamKind::Attrs, Param::Attrs(_))
                | (ParamKind::AttrPairs, Param::AttrPairs(_))
                | (ParamKind::Dims | ParamKind::I64s, Param::Ints(_))
                | (
                    ParamKind::I64 | ParamKind::I32 | ParamKind::Int,
                    Param::Int(_)
                )
                | (ParamKind::U32, Param::UInt(_))
                | (ParamKind::Bool, Param::Bool(_))
                | (ParamKind::String, Param::Str(_))
                | (ParamKind::Float, Param::Float { .. })
                | (ParamKind::Floats, Param::Floats(_))
                | (ParamKind::DenseData, Param::Bytes(_))
        )
    })
}

impl Parser<'_> {
    /// The parameters of VHLO type `t`, read by its format (the mnemonic read already).
    pub(crate) fn parse_vhlo_type_params(&mut self, t: VhloType) -> PResult<Vec<Param>> {
        self.parse_params_by_format(Described::of_type(t))
    }

    /// The parameters of VHLO attribute `a`, read by its format.
    pub(crate) fn parse_vhlo_attr_params(&mut self, a: VhloAttr) -> PResult<Vec<Param>> {
        self.parse_params_by_format(Described::of_attr(a))
    }

    /// The parameters of `d`, read by its format (the mnemonic read already).
    fn parse_params_by_format(&mut self, d: Described) -> PResult<Vec<Param>> {
        let what = || format!("{}vhlo.{}", d.sigil, d.mnemonic);
        let mut params: Vec<Option<Param>> = vec![None; d.params.len()];
        let set = |params: &mut Vec<Option<Param>>, i: usize, v: Param| {
            if let Some(slot) = params.get_mut(i) {
                *slot = Some(v);
            }
        };
        for e in d.format {
            match *e {
                ParamFormatElem::Literal("", _) => {}
                ParamFormatElem::Literal(l, _) => match l.as_bytes() {
                    [b] => self.c.expect_lazy(*b, || format!("in {}", what()))?,
                    _ => self.c.expect_punct(l, &format!("in {}", what()))?,
                },
                ParamFormatElem::Param(i, _) => {
                    let v = self.parse_plain_param(d, i)?;
                    set(&mut params, i, v);
                }
                ParamFormatElem::Custom(dir, args, _) => {
                    let vs = self.parse_directive(dir, &what)?;
                    for (&i, v) in args.iter().zip(vs) {
                        set(&mut params, i, v);
                    }
                }
                ParamFormatElem::Struct(_) => {
                    for (i, v) in self
                        .parse_struct_params(&d.fields())?
                        .into_iter()
                        .enumerate()
                    {
                        set(&mut params, i, v);
                    }
                }
            }
        }
        // Codegen checked that the format sets every parameter.
        Ok(params
            .into_iter()
            .map(|p| p.unwrap_or(Param::Absent))
            .collect())
    }

    /// A parameter in the plain spelling of its kind.
    fn parse_plain_param(&mut self, d: Described, i: usize) -> PResult<Param> {
        let Some(spec) = d.params.get(i) else {
            return Err(self.c.error("no such parameter"));
        };
        let scale = d.wire_of(i) == Some(Wire::QuantScale);
        let name = spec.name;
        Ok(match spec.kind {
            ParamKind::Type => Param::Type(self.parse_type()?),
            ParamKind::Types => {
                // A list that may be empty: it ends where the next literal starts.
                if matches!(self.c.peek(), Some(b'>' | b')' | b']')) {
                    Param::Types(Box::new([]))
                } else {
                    Param::Types(self.parse_type_list()?.into())
                }
            }
            ParamKind::Attr => Param::Attr(self.parse_attribute()?),
            ParamKind::Bool => Param::Bool(self.parse_bool_keyword("")?),
            ParamKind::I64 | ParamKind::I32 | ParamKind::Int => {
                Param::Int(self.c.int64(&format!("as {name}"))?)
            }
            ParamKind::U32 => Param::UInt(self.c.int64(&format!("as {name}"))? as u64),
            ParamKind::Float if scale => Param::Float {
                bits: u128::from(self.parse_scale()?),
                width: 64,
            },
            ParamKind::Float => self.parse_f64_param(false)?,
            ParamKind::Floats => {
                let mut v = Vec::new();
                if self.c.peek() != Some(b']') {
                    loop {
                        v.push(u128::from(self.parse_scale()?));
                        if !self.c.eat(b',') {
                            break;
                        }
                    }
                }
                Param::Floats(v.into())
            }
            ParamKind::I64s | ParamKind::Dims => {
                let mut v = Vec::new();
                if self.c.peek() != Some(b']') {
                    loop {
                        v.push(self.c.int64(&format!("in {name}"))?);
                        if !self.c.eat(b',') {
                            break;
                        }
                    }
                }
                Param::Ints(v.into())
            }
            ParamKind::Attrs | ParamKind::AttrPairs | ParamKind::String | ParamKind::DenseData => {
                return Err(self
                    .c
                    .error(format!("parameter `{name}` has no plain spelling")))
            }
        })
    }

    /// The parameters a directive spells, in its argument order.
    fn parse_directive(
        &mut self,
        dir: ParamDirective,
        what: &dyn Fn() -> String,
    ) -> PResult<Vec<Param>> {
        Ok(match dir {
            ParamDirective::Shape => vec![Param::Ints(self.parse_dim_list()?.into())],
            ParamDirective::Encoding => vec![if self.c.eat(b',') {
                Param::Attr(self.parse_attribute()?)
            } else {
                Param::Absent
            }],
            ParamDirective::TypeArray => {
                // An empty array is itself spelled `()`.
                if self.c.peek() == Some(b'(') && self.c.peek_after_ws_at(1) == Some(b')') {
                    self.c.pos = self.c.pos.saturating_add(1);
                    self.c.expect(b')', "to close an empty type list")?;
                    vec![Param::Types(Box::new([]))]
                } else {
                    vec![Param::Types(self.parse_type_list()?.into())]
                }
            }
            ParamDirective::AttributeArray => {
                self.c.skip_ws();
                let pos = self.c.pos;
                let a = self.parse_attribute()?;
                let AttrData::Array(elems) = self.m.attr_data(a).clone() else {
                    return Err(self.c.error_at(pos, format!("expected '[' in {}", what())));
                };
                vec![Param::Attrs(elems)]
            }
            ParamDirective::AttributeDictionary => {
                self.c.expect(b'{', "to open dictionary")?;
                let pairs = self.parse_list_until(b'}', "between dictionary entries", |p| {
                    let k = p.parse_attribute()?;
                    p.c.expect(b'=', "in dictionary entry")?;
                    Ok((k, p.parse_attribute()?))
                })?;
                vec![Param::AttrPairs(pairs.into())]
            }
            ParamDirective::EscapedString => {
                let s = self.c.string_lit_bytes()?;
                vec![Param::Str(self.m.sym_bytes(&s))]
            }
            ParamDirective::TypedFloat => {
                self.c.skip_ws();
                let vpos = self.c.pos;
                let n = self
                    .c
                    .number()
                    .ok_or_else(|| self.c.error_at(vpos, "expected float literal"))?;
                self.c.expect(b':', "before float type")?;
                let ty = self.parse_type()?;
                let kind = self
                    .vhlo_float_kind(ty)
                    .ok_or_else(|| self.c.error_at(vpos, "expected a VHLO float type"))?;
                let bits = self.float_bits(kind, &Elem::from_number(n), vpos)?;
                vec![
                    Param::Float {
                        bits,
                        width: kind.bit_width(),
                    },
                    Param::Type(ty),
                ]
            }
            ParamDirective::BuiltinInteger => {
                self.c.skip_ws();
                let vpos = self.c.pos;
                let a = self.parse_attribute()?;
                let (ty, value) = match self.m.attr_data(a).clone() {
                    AttrData::Integer { ty, value } => (ty, value),
                    AttrData::Bool(b) => (
                        self.m.ty(TypeData::Integer {
                            width: 1,
                            signedness: Signedness::Signless,
                        }),
                        b as i128,
                    ),
                    _ => return Err(self.c.error_at(vpos, "expected integer attribute")),
                };
                vec![
                    Param::Type(self.builtin_to_vhlo(ty)),
                    Param::Int(value as i64),
                ]
            }
            ParamDirective::BuiltinDense => {
                self.c.skip_ws();
                let vpos = self.c.pos;
                let a = self.parse_attribute()?;
                // The VHLO type and MLIR's raw dense storage (one element when splat).
                let AttrData::DenseElements { ty, data, .. } = self.m.attr_data(a).clone() else {
                    return Err(self
                        .c
                        .error_at(vpos, "expected numeric dense elements attribute"));
                };
                vec![Param::Type(self.builtin_to_vhlo(ty)), Param::Bytes(data)]
            }
        })
    }
}
