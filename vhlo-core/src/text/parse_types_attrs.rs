//! Types, attributes, dense literals and dialect attributes/types.

// Input path: no panics whatever the text.
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

use super::dialects::{self, FieldKind};
use super::lexer::Number;
use super::parser::{Elem, PResult, Parser, Unregistered};
use crate::float;
use crate::ir::wide_int;
use crate::ir::*;
use crate::vhlo::{VhloAttr, VhloType};

/// Largest integer bit width accepted (MLIR's limit).
/// `hlo::verifyBounds`: what is wrong with `bounds` (of `#stablehlo.bounds`) for a tensor of
/// `shape`, if anything: one bound per dimension, and bounds only on dynamic dimensions. MLIR
/// checks it as the type is built (`TypeExtensionsAttr::verifyEncoding`), so the parser calls
/// it; a type read from bytecode or built by the API needs the same check.
pub(crate) fn bounds_problem(shape: &[i64], bounds: &[i64]) -> Option<String> {
    let text = crate::text::verify::types::dims_str;
    if bounds.len() != shape.len() {
        return Some(format!(
            "Bounds length is {}, expected to be equal to rank({}) of the tensor (shape {})",
            bounds.len(),
            shape.len(),
            text(shape)
        ));
    }
    let i = shape
        .iter()
        .zip(bounds)
        .position(|(&d, &b)| d >= 0 && b >= 0)?;
    Some(format!(
        "Static dimension {i} cannot have a bound, use ShapedType::kDynamic to indicate a missing bound (shape {}, bounds {})",
        text(shape),
        text(bounds)
    ))
}

/// MLIR's error for `7` where a float literal belongs (`7.` or `7.0` is a float).
const DECIMAL_INT_FOR_FLOAT: &str = "unexpected decimal integer literal for a floating point value (add a trailing dot to make the literal a float)";

/// `IntegerType::kMaxWidth`.
const MAX_INT_WIDTH: u32 = (1 << 24) - 1;

impl<'a> Parser<'a> {
    // ---- types -------------------------------------------------------------------------------

    pub fn parse_type(&mut self) -> PResult<Type> {
        self.enter()?;
        let r = self.parse_type_inner();
        self.leave();
        r
    }

    /// A comma-separated list of types (at least one).
    pub(crate) fn parse_type_list(&mut self) -> PResult<Vec<Type>> {
        let mut v = vec![self.parse_type()?];
        while self.c.eat(b',') {
            v.push(self.parse_type()?);
        }
        Ok(v)
    }

    /// `(T, U)` or `()`.
    pub(crate) fn parse_paren_type_list(&mut self) -> PResult<Vec<Type>> {
        self.parse_delimited_type_list(
            [b'(', b')'],
            ["to open a type list", "to close a type list"],
        )
    }

    /// `<T, U>` or `<>`.
    fn parse_angle_type_list(&mut self) -> PResult<Vec<Type>> {
        self.parse_delimited_type_list(
            [b'<', b'>'],
            ["to open type parameters", "to close type parameters"],
        )
    }

    fn parse_delimited_type_list(
        &mut self,
        [open, close]: [u8; 2],
        what: [&str; 2],
    ) -> PResult<Vec<Type>> {
        self.c.expect(open, what[0])?;
        if self.c.eat(close) {
            return Ok(Vec::new());
        }
        let v = self.parse_type_list()?;
        self.c.expect(close, what[1])?;
        Ok(v)
    }

    /// Function results: `T` or `(T, U)`.
    pub(crate) fn parse_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.c.peek() == Some(b'(') {
            // `(T) -> U` as a single function-typed result is `((T) -> U)`.
            self.parse_paren_type_list()
        } else {
            Ok(vec![self.parse_type()?])
        }
    }

    fn parse_type_inner(&mut self) -> PResult<Type> {
        self.c.skip_ws();
        let pos = self.c.pos;
        let extent = match self.c.bytes.get(pos) {
            Some(b'(') => simple_function_extent(self.c.bytes, pos),
            _ => simple_tensor_extent(self.c.bytes, pos),
        };
        self.parse_cached(
            pos,
            extent,
            |p| &mut p.type_cache,
            Self::parse_type_uncached,
        )
    }

    /// `parse(pos)`, memoized by the text from `pos` to `end` when the scan found that extent
    /// (a text that parses to exactly that extent is the same value wherever it stands).
    #[inline]
    fn parse_cached<T: Copy>(
        &mut self,
        pos: usize,
        end: Option<usize>,
        cache: fn(&mut Self) -> &mut crate::ir::FastMap<&'a str, T>,
        parse: impl FnOnce(&mut Self, usize) -> PResult<T>,
    ) -> PResult<T> {
        let Some((end, key)) = end.and_then(|end| Some((end, self.c.src.get(pos..end)?))) else {
            return parse(self, pos);
        };
        if let Some(&v) = cache(self).get(key) {
            self.c.pos = end;
            return Ok(v);
        }
        let v = parse(self, pos)?;
        if self.c.pos == end {
            cache(self).insert(key, v);
        }
        Ok(v)
    }

    fn parse_type_uncached(&mut self, pos: usize) -> PResult<Type> {
        match self.c.peek() {
            Some(b'!') => {
                let id = self.parse_sigil_name(pos, "expected type name after '!'")?;
                if let Some((dialect, mnemonic)) = id.split_once('.') {
                    return self.parse_dialect_type(dialect, mnemonic, pos);
                }
                if let Some(&t) = self.type_aliases.get(id) {
                    return Ok(t);
                }
                if self.c.bytes.get(self.c.pos) == Some(&b'<') {
                    // `!dialect<...>`: kept as text.
                    let body = self.c.balanced()?;
                    let text = format!("!{id}{body}");
                    self.require_registered(id, pos, Unregistered::Type(&text))?;
                    let dialect = self.m.sym(id);
                    let mnemonic = self.m.sym("");
                    let text = self.m.sym(body);
                    return Ok(self.m.ty(TypeData::Dialect(DialectType {
                        dialect,
                        mnemonic,
                        params: Box::new([Param::Str(text)]),
                    })));
                }
                Err(self
                    .c
                    .error_at(pos, format!("undefined type alias '!{id}'")))
            }
            Some(b'(') => {
                let inputs = self.parse_paren_type_list()?;
                self.c.expect_punct("->", "in function type")?;
                let results = self.parse_result_types()?;
                Ok(self.m.ty(TypeData::Function {
                    inputs: inputs.into(),
                    results: results.into(),
                }))
            }
            _ => {
                let Some(id) = self.c.bare_ident() else {
                    let found = self.c.describe_next();
                    return Err(self.c.error(format!("expected type, found {found}")));
                };
                self.parse_builtin_type(id, pos)
            }
        }
    }

    /// `hlo::verifyBounds`, which MLIR runs as it builds a tensor type whose encoding is
    /// `#stablehlo.bounds` (`TypeExtensionsAttr::verifyEncoding`): one bound per dimension, and
    /// bounds only on dynamic dimensions.
    fn verify_bounds(&self, shape: &[i64], encoding: Attribute, pos: usize) -> PResult<()> {
        let AttrData::Dialect(d) = self.m.attr_data(encoding) else {
            return Ok(());
        };
        if self.m.str(d.dialect) != "stablehlo" || self.m.str(d.mnemonic) != "type_extensions" {
            return Ok(());
        }
        let [Param::Ints(bounds)] = &*d.params else {
            return Ok(());
        };
        match bounds_problem(shape, bounds) {
            Some(problem) => Err(self.c.error_at(pos, problem)),
            None => Ok(()),
        }
    }

    fn parse_builtin_type(&mut self, id: &str, pos: usize) -> PResult<Type> {
        if let Some(k) = FloatKind::ALL.iter().find(|k| k.keyword() == id) {
            return Ok(self.m.ty(TypeData::Float(*k)));
        }
        let int = |prefix: &str, s: Signedness| -> Option<(u32, Signedness)> {
            let digits = id.strip_prefix(prefix)?;
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            digits.parse::<u32>().ok().map(|w| (w, s))
        };
        if let Some((width, signedness)) = int("i", Signedness::Signless)
            .or_else(|| int("si", Signedness::Signed))
            .or_else(|| int("ui", Signedness::Unsigned))
        {
            // Zero widths are valid in every signedness (MLIR prints and parses `0 : ui0`).
            if width > MAX_INT_WIDTH {
                return Err(self
                    .c
                    .error_at(pos, format!("invalid integer width in '{id}': integer bitwidth is limited to {MAX_INT_WIDTH} bits")));
            }
            return Ok(self.m.ty(TypeData::Integer { width, signedness }));
        }
        match id {
            "index" => Ok(self.m.ty(TypeData::Index)),
            "none" => Ok(self.m.ty(TypeData::None)),
            "complex" => {
                self.c.expect(b'<', "after 'complex'")?;
                let t = self.parse_type()?;
                self.c.expect(b'>', "to close complex type")?;
                Ok(self.m.ty(TypeData::Complex(t)))
            }
            "tuple" => {
                self.c.expect(b'<', "after 'tuple'")?;
                let ts = if self.c.eat(b'>') {
                    Vec::new()
                } else {
                    let v = self.parse_type_list()?;
                    self.c.expect(b'>', "to close tuple type")?;
                    v
                };
                Ok(self.m.ty(TypeData::Tuple(ts.into())))
            }
            "tensor" => {
                self.c.expect(b'<', "after 'tensor'")?;
                if self.c.peek() == Some(b'*') {
                    self.c.pos = self.c.pos.saturating_add(1);
                    self.expect_dim_x()?;
                    let at = self.c.pos;
                    let element = self.parse_type()?;
                    self.valid_tensor_element(element, at)?;
                    self.c.expect(b'>', "to close tensor type")?;
                    return Ok(self.m.ty(TypeData::UnrankedTensor { element }));
                }
                let shape = self.parse_dim_list()?;
                let at = self.c.pos;
                let element = self.parse_type()?;
                self.valid_tensor_element(element, at)?;
                let encoding = if self.c.eat(b',') {
                    Some(self.parse_attribute()?)
                } else {
                    None
                };
                self.c.expect(b'>', "to close tensor type")?;
                if let Some(e) = encoding {
                    self.verify_bounds(&shape, e, pos)?;
                }
                Ok(self.m.ty(TypeData::RankedTensor {
                    shape: shape.into(),
                    element,
                    encoding,
                }))
            }
            "vector" => {
                // No builtin variant in the IR: kept as the dialect type `builtin.vector` with
                // (shape, scalable flags, element); `vector<2x[4]xf32>`, `vector<f32>`.
                self.c.expect(b'<', "after 'vector'")?;
                let (mut shape, mut scalable) = (Vec::new(), Vec::new());
                loop {
                    self.c.skip_ws();
                    let at = self.c.pos;
                    let bracketed = self.c.bytes.get(at) == Some(&b'[');
                    let digit_at = if bracketed { at.saturating_add(1) } else { at };
                    if !self.c.bytes.get(digit_at).is_some_and(u8::is_ascii_digit) {
                        break;
                    }
                    if bracketed {
                        self.c.pos = digit_at;
                    }
                    let mut end = self.c.pos;
                    while self.c.bytes.get(end).is_some_and(u8::is_ascii_digit) {
                        end = end.saturating_add(1);
                    }
                    let d: i64 = self.c.src[self.c.pos..end]
                        .parse()
                        .map_err(|_| self.c.error_at(at, "vector dimension out of range"))?;
                    self.c.pos = end;
                    if bracketed {
                        self.c
                            .expect(b']', "to close a scalable vector dimension")?;
                    }
                    if d == 0 {
                        return Err(self
                            .c
                            .error_at(at, "vector types must have positive constant sizes"));
                    }
                    self.expect_dim_x()?;
                    shape.push(d);
                    scalable.push(i64::from(bracketed));
                }
                let element = self.parse_type()?;
                self.c.expect(b'>', "to close vector type")?;
                Ok(self.m.dialect_type(
                    "builtin",
                    "vector",
                    vec![
                        Param::Ints(shape.into()),
                        Param::Ints(scalable.into()),
                        Param::Type(element),
                    ],
                ))
            }
            "memref" => {
                // No builtin variant in the IR: kept as the dialect type `builtin.memref` with
                // (shape or absent when unranked, element, layout or absent, memory space or
                // absent).
                self.c.expect(b'<', "after 'memref'")?;
                if self.c.eat(b'*') {
                    // `memref<*xT[, memory space]>`: no layout.
                    self.expect_dim_x()?;
                    let element = self.parse_type()?;
                    let space = if self.c.eat(b',') {
                        Param::Attr(self.parse_attribute()?)
                    } else {
                        Param::Absent
                    };
                    self.c.expect(b'>', "to close memref type")?;
                    return Ok(self.m.dialect_type(
                        "builtin",
                        "memref",
                        vec![Param::Absent, Param::Type(element), Param::Absent, space],
                    ));
                }
                let shape = self.parse_dim_list()?;
                let element = self.parse_type()?;
                let mut layout = Param::Absent;
                let mut space = Param::Absent;
                if self.c.eat(b',') {
                    let a = self.parse_attribute()?;
                    if self.c.eat(b',') {
                        layout = Param::Attr(a);
                        space = Param::Attr(self.parse_attribute()?);
                    } else if matches!(self.m.attr_data(a), AttrData::Integer { .. }) {
                        space = Param::Attr(a);
                    } else {
                        layout = Param::Attr(a);
                    }
                }
                self.c.expect(b'>', "to close memref type")?;
                Ok(self.m.dialect_type(
                    "builtin",
                    "memref",
                    vec![
                        Param::Ints(shape.into()),
                        Param::Type(element),
                        layout,
                        space,
                    ],
                ))
            }
            _ => Err(self.c.error_at(pos, format!("unknown type '{id}'"))),
        }
    }

    fn expect_dim_x(&mut self) -> PResult<()> {
        // MLIR's lexer takes `42 x i32` as it takes `42xi32`.
        self.c.skip_ws();
        if self.c.bytes.get(self.c.pos) == Some(&b'x') {
            self.c.pos = self.c.pos.saturating_add(1);
            Ok(())
        } else {
            Err(self.c.error("expected 'x' in dimension list"))
        }
    }

    /// `2x?x` prefix of a shaped type (possibly empty).
    pub(crate) fn parse_dim_list(&mut self) -> PResult<Vec<Dim>> {
        let mut dims = Vec::new();
        loop {
            self.c.skip_ws();
            let pos = self.c.pos;
            match self.c.bytes.get(pos) {
                Some(b'?') => {
                    self.c.pos = self.c.pos.saturating_add(1);
                    self.expect_dim_x()?;
                    dims.push(DYNAMIC);
                }
                Some(c) if c.is_ascii_digit() => {
                    let mut end = pos;
                    while end < self.c.bytes.len() && self.c.byte_at(end).is_ascii_digit() {
                        end = end.saturating_add(1);
                    }
                    let d: i64 = self.c.src[pos..end]
                        .parse()
                        .map_err(|_| self.c.error_at(pos, "dimension size out of range"))?;
                    self.c.pos = end;
                    self.expect_dim_x()?;
                    dims.push(d);
                }
                _ => return Ok(dims),
            }
        }
    }

    /// MLIR's `TensorType::isValidElementType`: a builtin element type (integer, index, float,
    /// complex, vector) or a type of another dialect; no tensor, memref, tuple, function or none.
    fn valid_tensor_element(&mut self, t: Type, at: usize) -> PResult<()> {
        let valid = match self.m.type_data(t) {
            TypeData::Integer { .. }
            | TypeData::Index
            | TypeData::Float(_)
            | TypeData::Complex(_) => true,
            TypeData::RankedTensor { .. }
            | TypeData::UnrankedTensor { .. }
            | TypeData::Tuple(_)
            | TypeData::Function { .. }
            | TypeData::None => false,
            TypeData::Dialect(d) => {
                self.m.str(d.dialect) != "builtin" || self.m.str(d.mnemonic) == "vector"
            }
        };
        if valid {
            Ok(())
        } else {
            Err(self.c.error_at(at, "invalid tensor element type"))
        }
    }

    fn parse_dialect_type(&mut self, dialect: &str, mnemonic: &str, pos: usize) -> PResult<Type> {
        let has_body = self.c.bytes.get(self.c.pos) == Some(&b'<');
        if dialect == "builtin" {
            // Builtin types have keywords of their own (`memref<...>`), as in MLIR.
            return Err(self
                .c
                .error_at(pos, "dialect 'builtin' provides no type parsing hook"));
        }
        match (dialect, mnemonic) {
            ("stablehlo", "token") => Ok(self.m.dialect_type(dialect, mnemonic, vec![])),
            ("stablehlo", "future") => {
                let ts = self.parse_angle_type_list()?;
                Ok(self
                    .m
                    .dialect_type(dialect, mnemonic, vec![Param::Types(ts.into())]))
            }
            ("vhlo", m) if crate::scalars::is_parameterless(m) => {
                Ok(self.m.dialect_type(dialect, mnemonic, vec![]))
            }
            ("vhlo", m) if VhloType::from_mnemonic(m).is_some_and(|t| !t.params().is_empty()) => {
                let Some(t) = VhloType::from_mnemonic(m) else {
                    return Err(self.c.error_at(pos, format!("unknown type '!vhlo.{m}'")));
                };
                let params = self.parse_vhlo_type_params(t)?;
                Ok(self.m.dialect_type(dialect, mnemonic, params))
            }
            ("quant", "uniform") => self.parse_quant_uniform(),
            ("quant", "any") => self.parse_quant_any(),
            ("quant", "calibrated") => self.parse_quant_calibrated(),
            ("stablehlo", _) | ("vhlo", _) | ("quant", _) => Err(self
                .c
                .error_at(pos, format!("unknown type '!{dialect}.{mnemonic}'"))),
            _ => {
                let body = if has_body { self.c.balanced()? } else { "" };
                let text = format!("!{dialect}.{mnemonic}{body}");
                // MLIR reports it at the mnemonic.
                let at = pos.saturating_add(dialect.len()).saturating_add(2);
                self.require_registered(dialect, at, Unregistered::Type(&text))?;
                if !mnemonic.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    // MLIR holds `!d.` and `!d..x` as opaque data (`""`, `".x"`) and prints
                    // data that starts with no letter as `!d<...>`; so does the printer from
                    // an empty mnemonic.
                    let wrapped = format!("<{mnemonic}{body}>");
                    // `!d.-` would print as `!d<->`, whose `->` reads as an arrow: jaxlib
                    // prints that and cannot read it back; refuse it here instead.
                    let mut scan = super::lexer::Cursor::new(&wrapped);
                    if scan.balanced().ok().map(str::len) != Some(wrapped.len()) {
                        return Err(self.c.error_at(
                            pos,
                            format!(
                                "type '!{dialect}.{mnemonic}' would print as '!{dialect}{wrapped}', \
                                 which does not parse back"
                            ),
                        ));
                    }
                    let text = self.m.sym(&wrapped);
                    return Ok(self.m.dialect_type(dialect, "", vec![Param::Str(text)]));
                }
                let text = self.m.sym(body);
                Ok(self
                    .m
                    .dialect_type(dialect, mnemonic, vec![Param::Str(text)]))
            }
        }
    }

    /// A float literal as a double parameter; `allow_int`: a decimal integer is taken too (as MLIR's `parseFloat(double&)`
    /// takes it for quantization scales; its APFloat parameters do not).
    pub(super) fn parse_f64_param(&mut self, allow_int: bool) -> PResult<Param> {
        self.c.skip_ws();
        let pos = self.c.pos;
        let bits = match self.c.number() {
            Some(Number::Float(v)) => v.to_bits(),
            Some(Number::Int {
                negative,
                magnitude,
                hex: false,
            }) => {
                if !allow_int {
                    return Err(self.c.error_at(pos, DECIMAL_INT_FOR_FLOAT));
                }
                let v = magnitude as f64;
                (if negative { -v } else { v }).to_bits()
            }
            Some(Number::Int {
                magnitude,
                hex: true,
                ..
            }) if magnitude <= u64::MAX as u128 => magnitude as u64,
            _ => return Err(self.c.error_at(pos, "expected floating point literal")),
        };
        Ok(Param::Float {
            bits: u128::from(bits),
            width: 64,
        })
    }

    /// A quantization scale (a double). An infinite or NaN scale (`1.0e+800` overflows) is
    /// refused here, as MLIR's parser refuses it (out of the expressed type's range): the
    /// printer has no spelling for it that parses back.
    pub(super) fn parse_scale(&mut self) -> PResult<u64> {
        self.c.skip_ws();
        let pos = self.c.pos;
        let Param::Float { bits, .. } = self.parse_f64_param(true)? else {
            return Err(self.c.error_at(pos, "expected floating point literal"));
        };
        let bits = bits as u64;
        if !f64::from_bits(bits).is_finite() {
            return Err(self.c.error_at(
                pos,
                "quantized type: the scale is not a finite number (out of the expressed type's range)",
            ));
        }
        Ok(bits)
    }

    /// `[1, ?, 3]`.
    pub(crate) fn parse_int_list(&mut self) -> PResult<Vec<i64>> {
        self.c.expect(b'[', "to open an integer list")?;
        self.parse_list_until(b']', "between list elements", |p| {
            p.parse_size("in integer list")
        })
    }

    /// A size: an integer, or `?` (dynamic); `what` says where an integer was expected.
    fn parse_size(&mut self, what: &str) -> PResult<i64> {
        match self.c.eat(b'?') {
            true => Ok(DYNAMIC),
            false => self.c.int64(what),
        }
    }

    /// `!quant.any<i8<-8:7>:f32>` (the expressed type optional): params `[flags, storage,
    /// expressed or Absent, min, max]`, as QuantTypes.cpp's AnyQuantizedType.
    fn parse_quant_any(&mut self) -> PResult<Type> {
        self.c.expect(b'<', "after '!quant.any'")?;
        let (signed, storage, min, max) = self.parse_quant_storage()?;
        let expressed = if self.c.eat(b':') {
            Param::Type(self.parse_type()?)
        } else {
            Param::Absent
        };
        self.c.expect(b'>', "to close '!quant.any'")?;
        let params = vec![
            Param::UInt(signed as u64),
            Param::Type(storage),
            expressed,
            Param::Int(min),
            Param::Int(max),
        ];
        Ok(self.m.dialect_type("quant", "any", params))
    }

    /// `!quant.calibrated<f32<-0.998:1.2321>>`: params `[expressed, min, max]` (doubles).
    fn parse_quant_calibrated(&mut self) -> PResult<Type> {
        self.c.expect(b'<', "after '!quant.calibrated'")?;
        let expressed = self.parse_type()?;
        self.c.expect(b'<', "before the calibrated range")?;
        let min = self.parse_f64_param(false)?;
        self.c.expect(b':', "in the calibrated range")?;
        let max = self.parse_f64_param(false)?;
        self.c.expect(b'>', "to close the calibrated range")?;
        self.c.expect(b'>', "to close '!quant.calibrated'")?;
        let params = vec![Param::Type(expressed), min, max];
        Ok(self.m.dialect_type("quant", "calibrated", params))
    }

    /// A quantized type's storage: `i8`, `u8`, `si8`, `ui8`, with an optional `<min:max>`, and
    /// the `:` after it: (signed, storage type, min, max).
    fn parse_quant_storage(&mut self) -> PResult<(bool, Type, i64, i64)> {
        self.c.skip_ws();
        let spos = self.c.pos;
        let id = self
            .c
            .bare_ident()
            .ok_or_else(|| self.c.error_at(spos, "expected storage type"))?;
        let (width, signed, storage) = if let Some(w) = id
            .strip_prefix('u')
            .filter(|w| w.bytes().all(|b| b.is_ascii_digit()))
        {
            let w: u32 = w
                .parse()
                .map_err(|_| self.c.error_at(spos, "invalid storage type"))?;
            (
                w,
                false,
                self.m.ty(TypeData::Integer {
                    width: w,
                    signedness: Signedness::Signless,
                }),
            )
        } else {
            let t = self.parse_builtin_type(id, spos)?;
            match *self.m.type_data(t) {
                TypeData::Integer { width, signedness } => {
                    (width, signedness != Signedness::Unsigned, t)
                }
                _ => return Err(self.c.error_at(spos, "expected integer storage type")),
            }
        };
        if width == 0 || width > 64 {
            return Err(self
                .c
                .error_at(spos, "storage width must be between 1 and 64"));
        }
        let (mut min, mut max) = super::printer::storage_range(width, signed);
        if self.c.eat(b'<') {
            min = self.c.int64("as storage minimum")?;
            self.c.expect(b':', "in storage range")?;
            max = self.c.int64("as storage maximum")?;
            self.c.expect(b'>', "to close storage range")?;
        }
        Ok((signed, storage, min, max))
    }

    /// `!quant.uniform<i8<-128:127>:f32:1, {0.1:2, 0.2}>` and the per-tensor form.
    fn parse_quant_uniform(&mut self) -> PResult<Type> {
        self.c.expect(b'<', "after '!quant.uniform'")?;
        let (signed, storage, min, max) = self.parse_quant_storage()?;
        self.c.expect(b':', "after storage type")?;
        let expressed = self.parse_type()?;
        let per_axis_dim = if self.c.eat(b':') {
            Some(self.c.int64("as quantized dimension")?)
        } else {
            None
        };
        self.c.expect(b',', "before quantization parameters")?;
        let flags = Param::UInt(signed as u64);
        let params = if let Some(qdim) = per_axis_dim {
            self.c.expect(b'{', "to open per-axis parameters")?;
            let mut scales = Vec::new();
            let mut zps = Vec::new();
            self.parse_one_or_more_until(b'}', "between per-axis parameters", |p| {
                let bits = u128::from(p.parse_scale()?);
                scales.push(bits);
                zps.push(if p.c.eat(b':') {
                    p.c.int64("as zero point")?
                } else {
                    0
                });
                Ok(())
            })?;
            vec![
                flags,
                Param::Type(storage),
                Param::Type(expressed),
                Param::Int(qdim),
                Param::Floats(scales.into()),
                Param::Ints(zps.into()),
                Param::Int(min),
                Param::Int(max),
            ]
        } else {
            let scale = Param::Float {
                bits: u128::from(self.parse_scale()?),
                width: 64,
            };
            let zp = if self.c.eat(b':') {
                self.c.int64("as zero point")?
            } else {
                0
            };
            vec![
                flags,
                Param::Type(storage),
                Param::Type(expressed),
                scale,
                Param::Int(zp),
                Param::Int(min),
                Param::Int(max),
            ]
        };
        self.c.expect(b'>', "to close '!quant.uniform'")?;
        Ok(self.m.dialect_type("quant", "uniform", params))
    }

    // ---- attributes --------------------------------------------------------------------------

    pub fn parse_attribute(&mut self) -> PResult<Attribute> {
        self.enter()?;
        let r = self.parse_attribute_inner();
        self.leave();
        r
    }

    fn parse_optional_colon_type(&mut self) -> PResult<Option<Type>> {
        if self.c.peek() == Some(b':') && self.c.peek_at(1) != Some(b':') {
            self.c.pos = self.c.pos.saturating_add(1);
            Ok(Some(self.parse_type()?))
        } else {
            Ok(None)
        }
    }

    /// An attribute whose `: type` suffix (strings, numbers) is not taken: in custom syntax
    /// the colon starts the op's type.
    pub(crate) fn parse_attribute_untyped(&mut self) -> PResult<Attribute> {
        self.untyped_next = true;
        let r = self.parse_attribute();
        self.untyped_next = false;
        r
    }

    fn parse_attribute_inner(&mut self) -> PResult<Attribute> {
        self.c.skip_ws();
        let pos = self.c.pos;
        let untyped = std::mem::take(&mut self.untyped_next);
        let extent = match untyped {
            true => None,
            false => simple_attribute_extent(self.c.bytes, pos),
        };
        self.parse_cached(
            pos,
            extent,
            |p| &mut p.attr_cache,
            |p, pos| p.parse_attribute_at(pos, untyped),
        )
    }

    fn parse_attribute_at(&mut self, pos: usize, untyped: bool) -> PResult<Attribute> {
        match self.c.peek() {
            Some(b'"') => {
                let s = self.c.string_lit_bytes()?;
                let value = self.m.sym_bytes(&s);
                let ty = if untyped {
                    None
                } else {
                    self.parse_optional_colon_type()?
                };
                Ok(self.m.attr(AttrData::String { value, ty }))
            }
            Some(b'[') => {
                self.c.pos = self.c.pos.saturating_add(1);
                let elems =
                    self.parse_list_until(b']', "between array elements", |p| p.parse_attribute())?;
                Ok(self.m.attr(AttrData::Array(elems.into())))
            }
            Some(b'{') => self.parse_opt_dict_attr(),
            Some(b'@') => {
                let root = self.parse_symbol_name()?;
                let mut nested = Vec::new();
                while self.c.peek() == Some(b':') && self.c.peek_at(1) == Some(b':') {
                    self.c.pos = self.c.pos.saturating_add(2);
                    nested.push(self.parse_symbol_name()?);
                }
                Ok(self.m.attr(AttrData::SymbolRef {
                    root,
                    nested: nested.into(),
                }))
            }
            Some(b'#') => self.parse_hash_attr(),
            Some(b'-') | Some(b'0'..=b'9') => {
                let Some(n) = self.c.number() else {
                    return Err(self.c.error_at(pos, "expected number"));
                };
                // `: T` belongs to the number only when T is a scalar type; otherwise it is the
                // enclosing op's type (`tolerance = 0.1 : tensor<f64>` in custom syntax).
                let save = self.c.pos;
                let ty = if untyped {
                    Ok(None)
                } else {
                    self.parse_optional_colon_type()
                };
                let ty = match ty {
                    Ok(Some(t))
                        if matches!(
                            self.m.type_data(t),
                            TypeData::Integer { .. } | TypeData::Index | TypeData::Float(_)
                        ) =>
                    {
                        Some(t)
                    }
                    // An integer type too wide for MLIR is an error, not another `:`.
                    Err(e) if e.message.starts_with("invalid integer width") => return Err(e),
                    _ => {
                        self.c.pos = save;
                        None
                    }
                };
                self.number_attr(n, ty, pos)
            }
            Some(b'!') | Some(b'(') => {
                let t = self.parse_type()?;
                Ok(self.m.attr(AttrData::Type(t)))
            }
            _ => {
                let save = self.c.pos;
                let Some(id) = self.c.bare_ident() else {
                    let found = self.c.describe_next();
                    return Err(self.c.error(format!("expected attribute, found {found}")));
                };
                match id {
                    "true" | "false" => Ok(self.m.attr(AttrData::Bool(id == "true"))),
                    "unit" => Ok(self.m.attr(AttrData::Unit)),
                    "dense" => self.parse_dense(pos),
                    "dense_resource" => self.parse_dense_resource(pos),
                    "array" => self.parse_dense_array(),
                    "loc" if self.c.peek() == Some(b'(') => {
                        let l = self.parse_loc_body(false)?;
                        Ok(self.m.attr(AttrData::Location(l)))
                    }
                    "affine_map" | "affine_set" | "strided"
                        if self.c.bytes.get(self.c.pos) == Some(&b'<') =>
                    {
                        // Builtin attributes with no IR variant: kept as text, with an empty
                        // dialect (printed as written).
                        let body = self.c.balanced()?;
                        let text = format!("{id}{body}");
                        let dialect = self.m.sym("");
                        let text = self.m.sym(&text);
                        Ok(self.m.attr(AttrData::Opaque { dialect, text }))
                    }
                    "sparse" | "affine_map" | "affine_set" | "distinct" | "strided" => Err(self
                        .c
                        .error_at(pos, format!("'{id}' attributes are not supported"))),
                    _ => {
                        self.c.pos = save;
                        let t = self.parse_type()?;
                        Ok(self.m.attr(AttrData::Type(t)))
                    }
                }
            }
        }
    }

    /// `@name` or `@"quoted name"`.
    pub(crate) fn parse_symbol_name(&mut self) -> PResult<Symbol> {
        self.c.skip_ws();
        let pos = self.c.pos;
        self.c.expect(b'@', "for symbol name")?;
        if self.c.bytes.get(self.c.pos) == Some(&b'"') {
            let s = self.c.string_lit_bytes()?;
            return Ok(self.m.sym_bytes(&s));
        }
        let id = self
            .c
            .suffix_id()
            .ok_or_else(|| self.c.error_at(pos, "expected symbol name after '@'"))?;
        Ok(self.m.sym(id))
    }

    fn number_attr(&mut self, n: Number, ty: Option<Type>, pos: usize) -> PResult<Attribute> {
        let ty = match ty {
            Some(t) => t,
            None => match n {
                Number::Float(_) => self.m.ty(TypeData::Float(FloatKind::F64)),
                Number::Int { .. } | Number::WideInt { .. } => self.m.ty(TypeData::Integer {
                    width: 64,
                    signedness: Signedness::Signless,
                }),
            },
        };
        match *self.m.type_data(ty) {
            TypeData::Float(kind) => {
                // MLIR takes a float attribute's value from a float or hexadecimal literal,
                // never from a decimal integer (`7 : f32`).
                let bits = self.float_bits(kind, &Elem::from_number(n), pos)?;
                Ok(self.m.attr(AttrData::Float { ty, bits }))
            }
            // Only signless i1 is a boolean; `1 : ui1` and `-1 : si1` keep their types.
            TypeData::Integer {
                width: 1,
                signedness: Signedness::Signless,
            } => match n {
                Number::Int {
                    negative: false,
                    magnitude: m @ (0 | 1),
                    ..
                } => Ok(self.m.attr(AttrData::Bool(m == 1))),
                _ => Err(self.c.error_at(pos, "integer constant out of range for i1")),
            },
            TypeData::Integer { width, signedness } if width > 128 => {
                let words = self.wide_int_value(width, signedness, &Elem::from_number(n), pos)?;
                Ok(self.m.attr(AttrData::WideInteger {
                    ty,
                    words: words.into(),
                }))
            }
            TypeData::Integer { .. } | TypeData::Index => match n {
                Number::WideInt { .. } => Err(self.c.error_at(
                    pos,
                    format!(
                        "integer literal out of range for {}",
                        super::type_to_string(&self.m, ty)
                    ),
                )),
                Number::Int {
                    negative,
                    magnitude,
                    ..
                } => {
                    let value = self.int_value(ty, negative, magnitude, pos)?;
                    Ok(self.m.attr(AttrData::Integer { ty, value }))
                }
                Number::Float(_) => Err(self
                    .c
                    .error_at(pos, "floating point literal for an integer type")),
            },
            _ => Err(self
                .c
                .error_at(pos, "numeric literal needs an integer, index or float type")),
        }
    }

    /// Checks that a literal fits the integer type and returns it sign-extended.
    fn int_value(
        &self,
        ty: Type,
        negative: bool,
        magnitude: u128,
        pos: usize,
    ) -> PResult<IntValue> {
        let (width, signedness) = match *self.m.type_data(ty) {
            TypeData::Integer { width, signedness } => (width, signedness),
            TypeData::Index => (64, Signedness::Signless),
            _ => return Err(self.c.error_at(pos, "expected integer type")),
        };
        let w = width.min(128);
        if w == 0 {
            return if magnitude == 0 {
                Ok(0)
            } else {
                Err(self.c.error_at(pos, "only 0 fits a 0-bit integer"))
            };
        }
        let err = || {
            self.c.error_at(
                pos,
                format!("integer literal out of range for {}-bit type", width),
            )
        };
        if negative {
            if signedness == Signedness::Unsigned && magnitude != 0 {
                return Err(self
                    .c
                    .error_at(pos, "negative literal for an unsigned type"));
            }
            let limit = if w >= 128 {
                1u128 << 127
            } else {
                1u128 << (w.saturating_sub(1))
            };
            if magnitude > limit {
                return Err(err());
            }
            Ok((magnitude as i128).wrapping_neg())
        } else {
            let limit = match signedness {
                Signedness::Signed => {
                    if w >= 128 {
                        i128::MAX as u128
                    } else {
                        (1u128 << (w.saturating_sub(1))).wrapping_sub(1)
                    }
                }
                _ => {
                    if w >= 128 {
                        u128::MAX
                    } else {
                        (1u128 << w).wrapping_sub(1)
                    }
                }
            };
            if magnitude > limit {
                return Err(err());
            }
            // Signless values above the signed range are stored sign-extended (two's complement).
            if signedness == Signedness::Signless
                && w < 128
                && magnitude >= (1u128 << (w.saturating_sub(1)))
            {
                return Ok((magnitude as i128).wrapping_sub(1i128 << w));
            }
            Ok(magnitude as i128)
        }
    }

    /// The value of an integer literal (`e`) of a type wider than 128 bits, as
    /// [`crate::ir::wide_int`] holds it, range-checked as [`Self::int_value`] checks narrower ones.
    fn wide_int_value(
        &self,
        width: u32,
        signedness: Signedness,
        e: &Elem,
        pos: usize,
    ) -> PResult<Vec<u64>> {
        let (negative, magnitude): (bool, Vec<u64>) = match e {
            Elem::Bool(b) => (false, vec![u64::from(*b)]),
            Elem::Int {
                negative,
                magnitude,
                ..
            } => (
                *negative,
                vec![*magnitude as u64, (*magnitude >> 64) as u64],
            ),
            Elem::WideInt {
                negative,
                hex,
                start,
                end,
            } => match self.c.wide_magnitude(*hex, *start, *end, width) {
                Some(m) => (*negative, m),
                None => {
                    return Err(self.c.error_at(
                        pos,
                        format!("integer literal out of range for {width}-bit type"),
                    ))
                }
            },
            _ => return Err(self.c.error_at(pos, "expected integer elements")),
        };
        let bits = wide_int::bit_length(&magnitude);
        let is_power_of_two = magnitude.iter().map(|w| w.count_ones()).sum::<u32>() == 1;
        let fits = if negative {
            if signedness == Signedness::Unsigned && bits > 0 {
                return Err(self
                    .c
                    .error_at(pos, "negative literal for an unsigned type"));
            }
            // Down to -2^(width-1).
            bits < width || (bits == width && is_power_of_two)
        } else if signedness == Signedness::Signed {
            bits < width
        } else {
            bits <= width
        };
        if !fits {
            return Err(self.c.error_at(
                pos,
                format!("integer literal out of range for {width}-bit type"),
            ));
        }
        Ok(wide_int::from_magnitude(&magnitude, negative, width))
    }

    /// The bit pattern of a float literal in format `kind`.
    pub(super) fn float_bits(&self, kind: FloatKind, e: &Elem, pos: usize) -> PResult<u128> {
        let width = kind.bit_width();
        let from = |v: f64| {
            float::from_f64(kind, v).ok_or_else(|| {
                self.c.error_at(
                    pos,
                    format!(
                        "decimal literals of {} are not supported; use hex",
                        kind.keyword()
                    ),
                )
            })
        };
        match *e {
            Elem::Float(v) => from(v),
            Elem::Int {
                negative: false,
                magnitude,
                hex: true,
            } => {
                if width < 128 && magnitude >> width != 0 {
                    return Err(self.c.error_at(
                        pos,
                        format!("hexadecimal float literal too wide for {}", kind.keyword()),
                    ));
                }
                Ok(magnitude)
            }
            // As MLIR's `parseFloatFromLiteral`: a float is never spelled as a decimal integer.
            Elem::Int { hex: false, .. } => Err(self.c.error_at(pos, DECIMAL_INT_FOR_FLOAT)),
            _ => Err(self.c.error_at(
                pos,
                format!("expected float literal for {}", kind.keyword()),
            )),
        }
    }

    /// The name after the `!` or `#` at `pos` (`missing`: the error when none follows). A
    /// dotted name must name a dialect: as MLIR's parser, `!.x` names none.
    fn parse_sigil_name(&mut self, pos: usize, missing: &str) -> PResult<&'a str> {
        self.c.pos = self.c.pos.saturating_add(1);
        let id = self
            .c
            .suffix_id()
            .ok_or_else(|| self.c.error_at(pos, missing))?;
        if id.starts_with('.') {
            return Err(self.c.error_at(pos, "invalid dialect namespace ''"));
        }
        Ok(id)
    }

    fn parse_hash_attr(&mut self) -> PResult<Attribute> {
        self.c.skip_ws();
        let pos = self.c.pos;
        let id = self.parse_sigil_name(pos, "expected attribute name after '#'")?;
        let next_is_angle = self.c.bytes.get(self.c.pos) == Some(&b'<');
        if let Some((dialect, mnemonic)) = id.split_once('.') {
            return self.parse_dialect_attr(dialect, mnemonic, pos);
        }
        if let Some(&a) = self.attr_aliases.get(id) {
            return Ok(a);
        }
        if let Some(&(l, start)) = self.loc_aliases.get(id) {
            if self.later_loc_alias(start, pos, true) {
                return Err(self
                    .c
                    .error_at(pos, format!("undefined symbol alias id '{id}'")));
            }
            return Ok(self.m.attr(AttrData::Location(l)));
        }
        // `#sdy<manual_axes{"a"}>`: an attribute of a spec'd dialect whose body is not pretty.
        if let Some(cd) = crate::vhlo::codec_dialect(id).filter(|_| next_is_angle) {
            let save = self.c.pos;
            self.c.pos = self.c.pos.saturating_add(1);
            let mpos = self.c.pos;
            if let Some(mnemonic) = self.c.bare_ident().filter(|m| cd.attr(m).is_some()) {
                let a = self.parse_codec_attr(cd, mnemonic, mpos)?;
                self.c.expect(b'>', "to close a dialect attribute")?;
                return Ok(a);
            }
            self.c.pos = save;
        }
        if next_is_angle && matches!(id, "stablehlo" | "vhlo") {
            // `#stablehlo<comparison_direction EQ>`
            self.c.pos = self.c.pos.saturating_add(1);
            let mpos = self.c.pos;
            let mnemonic = self
                .c
                .bare_ident()
                .ok_or_else(|| self.c.error_at(mpos, "expected attribute mnemonic"))?;
            let Some(spec) = dialects::find_enum(id, mnemonic) else {
                return Err(self
                    .c
                    .error_at(mpos, format!("unknown attribute '#{id}<{mnemonic}'")));
            };
            let a = self.parse_enum_case(&spec)?;
            self.c.expect(b'>', "to close enum attribute")?;
            return Ok(a);
        }
        if next_is_angle {
            let body = self.c.balanced()?;
            let text = format!("#{id}{body}");
            self.require_registered(id, pos, Unregistered::Attribute(&text))?;
            let dialect = self.m.sym(id);
            let text = self.m.sym(&text);
            return Ok(self.m.attr(AttrData::Opaque { dialect, text }));
        }
        Err(self
            .c
            .error_at(pos, format!("undefined attribute alias '#{id}'")))
    }

    fn parse_enum_case(&mut self, spec: &dialects::EnumSpec) -> PResult<Attribute> {
        self.c.skip_ws();
        let cpos = self.c.pos;
        let case = self
            .c
            .bare_ident()
            .ok_or_else(|| self.c.error_at(cpos, "expected enum case"))?;
        let Some(&(_, v)) = spec.cases.iter().find(|c| c.0 == case) else {
            let names: Vec<&str> = spec.cases.iter().map(|c| c.0).collect();
            return Err(self.c.error_at(
                cpos,
                format!(
                    "unknown {} case '{case}', expected one of {}",
                    spec.mnemonic,
                    names.join(", ")
                ),
            ));
        };
        Ok(self
            .m
            .dialect_attr(spec.dialect, spec.mnemonic, vec![Param::Int(v)]))
    }

    fn parse_dialect_attr(
        &mut self,
        dialect: &str,
        mnemonic: &str,
        pos: usize,
    ) -> PResult<Attribute> {
        if let Some(cd) = crate::vhlo::codec_dialect(dialect) {
            return self.parse_codec_attr(cd, mnemonic, pos);
        }
        if !matches!(dialect, "stablehlo" | "vhlo") {
            let body = if self.c.bytes.get(self.c.pos) == Some(&b'<') {
                self.c.balanced()?
            } else {
                ""
            };
            let canonical = if (dialect, mnemonic) == ("sparse_tensor", "encoding") {
                super::sparse::canonical_encoding(body)
            } else {
                None
            };
            let text = format!(
                "#{dialect}.{mnemonic}{}",
                canonical.as_deref().unwrap_or(body)
            );
            // MLIR reports it at the mnemonic.
            let at = pos.saturating_add(dialect.len()).saturating_add(2);
            self.require_registered(dialect, at, Unregistered::Attribute(&text))?;
            let dialect = self.m.sym(dialect);
            let text = self.m.sym(&text);
            return Ok(self.m.attr(AttrData::Opaque { dialect, text }));
        }
        if let Some(spec) = dialects::find_enum(dialect, mnemonic) {
            self.c.expect(b'<', "to open enum attribute")?;
            let a = self.parse_enum_case(&spec)?;
            self.c.expect(b'>', "to close enum attribute")?;
            return Ok(a);
        }
        // VHLO's are read by their formats (below).
        if let Some(spec) = dialects::find_struct(dialect, mnemonic).filter(|_| dialect != "vhlo") {
            return self.parse_struct_attr_pub(&spec);
        }
        match (dialect, mnemonic) {
            ("stablehlo", "bounds") => {
                self.c.expect(b'<', "to open bounds")?;
                let bounds =
                    self.parse_list_until(b'>', "between bounds", |p| p.parse_size("as bound"))?;
                Ok(self.m.dialect_attr(
                    "stablehlo",
                    "type_extensions",
                    vec![Param::Ints(bounds.into())],
                ))
            }
            ("stablehlo", "type_extensions") => {
                self.c.expect(b'<', "to open type extensions")?;
                self.c.expect_keyword("bounds", "in type extensions")?;
                self.c.expect(b'=', "after 'bounds'")?;
                let bounds = self.parse_int_list()?;
                self.c.expect(b'>', "to close type extensions")?;
                Ok(self.m.dialect_attr(
                    "stablehlo",
                    "type_extensions",
                    vec![Param::Ints(bounds.into())],
                ))
            }
            ("stablehlo", "sub_axis_info") => self.parse_sub_axis(),
            ("stablehlo", "mesh") => {
                // `<axes = [#stablehlo.mesh_axis<...>, ...], device_ids = dense<...> : T>`
                self.c.expect(b'<', "to open mesh")?;
                self.c.expect_keyword("axes", "in mesh")?;
                self.c.expect(b'=', "after 'axes'")?;
                self.c.expect(b'[', "to open mesh axes")?;
                let axes =
                    self.parse_list_until(b']', "between mesh axes", |p| p.parse_attribute())?;
                let device_ids = if self.c.eat(b',') {
                    self.c.expect_keyword("device_ids", "in mesh")?;
                    self.c.expect(b'=', "after 'device_ids'")?;
                    Param::Attr(self.parse_attribute()?)
                } else {
                    Param::Absent
                };
                self.c.expect(b'>', "to close mesh")?;
                Ok(self.m.dialect_attr(
                    "stablehlo",
                    "mesh",
                    vec![Param::Attrs(axes.into()), device_ids],
                ))
            }
            ("stablehlo", "conv") => {
                self.c.expect(b'<', "to open convolution dimensions")?;
                if self.c.eat_keyword("raw") {
                    return self.parse_struct_body(&dialects::conv_raw());
                }
                let a = self.parse_conv_dims()?;
                self.c.expect(b'>', "to close convolution dimensions")?;
                Ok(a)
            }
            ("vhlo", _) => {
                let Some(a) = VhloAttr::from_mnemonic(mnemonic).filter(|a| !a.params().is_empty())
                else {
                    return Err(self
                        .c
                        .error_at(pos, format!("unknown attribute '#{dialect}.{mnemonic}'")));
                };
                let params = self.parse_vhlo_attr_params(a)?;
                Ok(self.m.dialect_attr(dialect, mnemonic, params))
            }
            _ => Err(self
                .c
                .error_at(pos, format!("unknown attribute '#{dialect}.{mnemonic}'"))),
        }
    }

    /// `true` or `false`; `what` ends the error message.
    pub(super) fn parse_bool_keyword(&mut self, what: &str) -> PResult<bool> {
        if self.c.eat_keyword("true") {
            Ok(true)
        } else if self.c.eat_keyword("false") {
            Ok(false)
        } else {
            Err(self.c.error(format!("expected 'true' or 'false'{what}")))
        }
    }

    /// `(pre)size` of a sub-axis.
    fn parse_sub_axis(&mut self) -> PResult<Attribute> {
        self.c.expect(b'(', "to open sub-axis info")?;
        let pre = self.c.int64("as sub-axis pre-size")?;
        self.c.expect(b')', "to close sub-axis pre-size")?;
        let size = self.c.int64("as sub-axis size")?;
        Ok(self.m.dialect_attr(
            "stablehlo",
            "sub_axis_info",
            vec![Param::Int(pre), Param::Int(size)],
        ))
    }

    pub(crate) fn parse_struct_attr_pub(
        &mut self,
        spec: &dialects::StructSpec,
    ) -> PResult<Attribute> {
        self.c.expect_lazy(b'<', || {
            format!("to open #{}.{}", spec.dialect, spec.mnemonic)
        })?;
        self.parse_struct_body(spec)
    }

    /// The `key = value, ...>` part of a struct-like attribute.
    fn parse_struct_body(&mut self, spec: &dialects::StructSpec) -> PResult<Attribute> {
        let params = self.parse_struct_params(spec)?;
        self.c.expect(b'>', "to close the fields")?;
        Ok(self.m.dialect_attr(spec.dialect, spec.mnemonic, params))
    }

    /// The fields `key = value, ...` of a struct-like attribute, up to its closing `>` (left
    /// unread), as its parameters.
    pub(super) fn parse_struct_params(
        &mut self,
        spec: &dialects::StructSpec,
    ) -> PResult<Vec<Param>> {
        let mut values: Vec<Option<Param>> = vec![None; spec.fields.len()];
        if self.c.peek() != Some(b'>') {
            loop {
                // StableHLO's own struct parser accepts a trailing comma.
                if spec.omit_defaults && self.c.peek() == Some(b'>') {
                    break;
                }
                self.c.skip_ws();
                let kpos = self.c.pos;
                let key = self.c.bare_ident().unwrap_or("");
                let Some(idx) = spec.fields.iter().position(|f| f.0 == key) else {
                    let names: Vec<String> =
                        spec.fields.iter().map(|f| format!("`{}`", f.0)).collect();
                    return Err(self
                        .c
                        .error_at(kpos, format!("expected one of: {}", names.join(", "))));
                };
                if values.get(idx).is_some_and(Option::is_some) {
                    return Err(self.c.error_at(kpos, format!("duplicated `{key}` entry")));
                }
                self.c.expect_lazy(b'=', || format!("after `{key}`"))?;
                let Some((_, kind)) = spec.fields.get(idx) else {
                    return Err(self.c.error_at(kpos, "unknown field"));
                };
                let v = match kind {
                    FieldKind::Dims => Param::Ints(self.parse_int_list()?.into()),
                    FieldKind::Int => Param::Int(self.c.int64(&format!("for `{key}`"))?),
                    FieldKind::Type => Param::Type(self.parse_type()?),
                    FieldKind::Bool => {
                        Param::Bool(self.parse_bool_keyword(&format!(" for `{key}`"))?)
                    }
                    FieldKind::Float => self.parse_f64_param(false)?,
                    FieldKind::Attr | FieldKind::OptAttr => Param::Attr(self.parse_attribute()?),
                    FieldKind::Str => {
                        let s = self.c.string_lit_bytes()?;
                        Param::Str(self.m.sym_bytes(&s))
                    }
                    FieldKind::OptSubAxis => Param::Attr(self.parse_sub_axis()?),
                };
                if let Some(slot) = values.get_mut(idx) {
                    *slot = Some(v);
                }
                if self.c.peek() == Some(b'>') {
                    break;
                }
                self.c.expect(b',', "between fields")?;
            }
        }
        let mut params = Vec::with_capacity(values.len());
        for (v, (name, kind)) in values.into_iter().zip(spec.fields.iter()) {
            params.push(match (v, kind) {
                (Some(v), _) => v,
                (None, FieldKind::OptAttr | FieldKind::OptSubAxis) => Param::Absent,
                (None, FieldKind::Dims) if spec.omit_defaults => Param::Ints(Box::new([])),
                (None, FieldKind::Int) if spec.omit_defaults => Param::Int(0),
                (None, FieldKind::Float) if spec.omit_defaults => {
                    Param::Float { bits: 0, width: 64 }
                }
                (None, _) => {
                    return Err(self.c.error(format!(
                        "missing `{name}` in #{}.{}",
                        spec.dialect, spec.mnemonic
                    )))
                }
            });
        }
        Ok(params)
    }

    /// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]` (StableHLO's compressed convolution layout).
    pub(crate) fn parse_conv_dims(&mut self) -> PResult<Attribute> {
        // Each side: the positions of its two non-spatial letters and its spatial dims in order.
        let side = |p: &mut Self, letters: [u8; 2]| -> PResult<(i64, i64, Vec<i64>)> {
            p.c.expect(b'[', "to open convolution dimensions")?;
            let mut first = None;
            let mut second = None;
            let mut spatial: Vec<(i64, i64)> = Vec::new();
            let mut i = 0i64;
            if !p.c.eat(b']') {
                loop {
                    p.c.skip_ws();
                    let dpos = p.c.pos;
                    if let Some(Number::Int {
                        negative: false,
                        magnitude,
                        ..
                    }) = p.c.number()
                    {
                        let n = i64::try_from(magnitude)
                            .map_err(|_| p.c.error_at(dpos, "dimension out of range"))?;
                        if spatial.iter().any(|s| s.0 == n) {
                            return Err(p
                                .c
                                .error_at(dpos, format!("duplicate spatial dimension {n}")));
                        }
                        spatial.push((n, i));
                    } else {
                        let id = p.c.bare_ident().unwrap_or("");
                        let slot = if id.as_bytes() == [letters[0]] {
                            &mut first
                        } else if id.as_bytes() == [letters[1]] {
                            &mut second
                        } else {
                            return Err(p.c.error_at(
                                dpos,
                                format!("unexpected dimension '{id}', expected {} or {} or a spatial index", letters[0] as char, letters[1] as char),
                            ));
                        };
                        if slot.is_some() {
                            return Err(p.c.error_at(dpos, format!("duplicate dimension '{id}'")));
                        }
                        *slot = Some(i);
                    }
                    i = i.saturating_add(1);
                    if p.c.eat(b']') {
                        break;
                    }
                    p.c.expect(b',', "between convolution dimensions")?;
                }
            }
            let (Some(a), Some(b)) = (first, second) else {
                return Err(p.c.error(format!(
                    "convolution dimensions need both '{}' and '{}'",
                    letters[0] as char, letters[1] as char
                )));
            };
            spatial.sort();
            if spatial.iter().enumerate().any(|(k, s)| s.0 != k as i64) {
                return Err(p.c.error("spatial dimensions must be 0..n"));
            }
            Ok((a, b, spatial.into_iter().map(|s| s.1).collect()))
        };
        let (ib, ifeat, isp) = side(self, [b'b', b'f'])?;
        self.c.skip_ws();
        if !(self.c.eat_keyword("x") || self.c.eat(b'x')) {
            return Err(self
                .c
                .error("expected 'x' between convolution input and kernel dimensions"));
        }
        let (ki, ko, ksp) = side(self, [b'i', b'o'])?;
        self.c
            .expect_punct("->", "before convolution output dimensions")?;
        let (ob, of, osp) = side(self, [b'b', b'f'])?;
        Ok(self.m.dialect_attr(
            "stablehlo",
            "conv",
            vec![
                Param::Int(ib),
                Param::Int(ifeat),
                Param::Ints(isp.into()),
                Param::Int(ki),
                Param::Int(ko),
                Param::Ints(ksp.into()),
                Param::Int(ob),
                Param::Int(of),
                Param::Ints(osp.into()),
            ],
        ))
    }

    /// The float kind of a VHLO float type.
    pub(crate) fn vhlo_float_kind(&self, t: Type) -> Option<FloatKind> {
        let TypeData::Dialect(d) = self.m.type_data(t) else {
            return None;
        };
        if self.m.str(d.dialect) != "vhlo" {
            return None;
        }
        match crate::scalars::type_of(self.m.str(d.mnemonic))? {
            TypeData::Float(k) => Some(k),
            _ => None,
        }
    }

    /// MLIR's builtin-to-VHLO type mapping (used where VHLO attributes print builtin types).
    pub(crate) fn builtin_to_vhlo(&mut self, t: Type) -> Type {
        let data = self.m.type_data(t).clone();
        match data {
            TypeData::Integer { .. } | TypeData::Index | TypeData::None | TypeData::Float(_) => {
                match crate::scalars::vhlo_mnemonic(&data) {
                    Some(name) => self.m.dialect_type("vhlo", name, vec![]),
                    // No VHLO form (`i3`): kept, as other builtin types are, for the conversion
                    // to name.
                    None => t,
                }
            }
            TypeData::Complex(e) => {
                let element_type = self.builtin_to_vhlo(e);
                crate::vhlo::types::ComplexV1 { element_type }.build(&mut self.m)
            }
            TypeData::RankedTensor {
                shape,
                element,
                encoding,
            } => {
                let element_type = self.builtin_to_vhlo(element);
                crate::vhlo::types::TensorV1 {
                    shape,
                    element_type,
                    encoding,
                }
                .build(&mut self.m)
            }
            TypeData::UnrankedTensor { element } => {
                let element_type = self.builtin_to_vhlo(element);
                crate::vhlo::types::UnrankedTensorV1 { element_type }.build(&mut self.m)
            }
            _ => t,
        }
    }

    // ---- dense literals ----------------------------------------------------------------------

    /// One literal element (or nested list) of a `dense<...>` body, flattened into `out`.
    /// Returns the shape of this element.
    fn parse_dense_tree(&mut self, out: &mut Vec<Elem>) -> PResult<Vec<usize>> {
        self.enter()?;
        let r = self.parse_dense_tree_inner(out);
        self.leave();
        r
    }

    fn parse_dense_tree_inner(&mut self, out: &mut Vec<Elem>) -> PResult<Vec<usize>> {
        self.c.skip_ws();
        let pos = self.c.pos;
        if self.c.eat(b'[') {
            if self.c.eat(b']') {
                return Ok(vec![0]);
            }
            let mut count = 0usize;
            let mut inner: Option<Vec<usize>> = None;
            loop {
                let epos = self.c.pos;
                let s = self.parse_dense_tree(out)?;
                match &inner {
                    None => inner = Some(s),
                    Some(prev) if *prev != s => {
                        return Err(self
                            .c
                            .error_at(epos, "dense literal has inconsistent nesting"))
                    }
                    _ => {}
                }
                count = count.saturating_add(1);
                if self.c.eat(b']') {
                    break;
                }
                self.c.expect(b',', "between dense elements")?;
            }
            let mut shape = vec![count];
            shape.extend(inner.unwrap_or_default());
            return Ok(shape);
        }
        out.push(self.parse_dense_scalar(pos)?);
        Ok(Vec::new())
    }

    fn parse_dense_scalar(&mut self, pos: usize) -> PResult<Elem> {
        match self.c.peek() {
            Some(b'(') => {
                self.c.pos = self.c.pos.saturating_add(1);
                let re = self.parse_dense_scalar(self.c.pos)?;
                self.c.expect(b',', "in complex element")?;
                let im = self.parse_dense_scalar(self.c.pos)?;
                self.c.expect(b')', "to close complex element")?;
                Ok(Elem::Complex(Box::new((re, im))))
            }
            Some(b'"') => Ok(Elem::Str(self.c.string_lit_bytes()?.into_owned())),
            _ => {
                if self.c.eat_keyword("true") {
                    return Ok(Elem::Bool(true));
                }
                if self.c.eat_keyword("false") {
                    return Ok(Elem::Bool(false));
                }
                match self.c.number() {
                    Some(n) => Ok(Elem::from_number(n)),
                    None => Err(self.c.error_at(pos, "expected dense element literal")),
                }
            }
        }
    }

    fn parse_dense(&mut self, pos: usize) -> PResult<Attribute> {
        self.c.expect(b'<', "after 'dense'")?;
        let mut elems = Vec::new();
        let mut shape: Option<Vec<usize>> = None;
        let mut hex: Option<Vec<u8>> = None;
        if !self.c.eat(b'>') {
            self.c.skip_ws();
            let lpos = self.c.pos;
            if self.c.peek() == Some(b'"') {
                let s = self.c.string_lit_bytes()?;
                if let Some(h) = std::str::from_utf8(&s)
                    .ok()
                    .and_then(|s| s.strip_prefix("0x"))
                    .filter(|h| h.len() % 2 == 0 && h.bytes().all(|b| b.is_ascii_hexdigit()))
                {
                    let bytes: Vec<u8> = (0..h.len() / 2)
                        .map(|i| {
                            let pair = h
                                .get(i.saturating_mul(2)..i.saturating_mul(2).saturating_add(2))
                                .unwrap_or("");
                            u8::from_str_radix(pair, 16).unwrap_or(0)
                        })
                        .collect();
                    hex = Some(bytes);
                } else {
                    elems.push(Elem::Str(s.into_owned()));
                    shape = Some(Vec::new());
                }
            } else {
                shape = Some(self.parse_dense_tree(&mut elems)?);
            }
            let _ = lpos;
            self.c.expect(b'>', "to close dense literal")?;
        } else {
            shape = Some(vec![0]);
        }
        self.c.expect(b':', "before the type of a dense literal")?;
        let tpos = self.c.pos;
        let ty = self.parse_type()?;
        let (tshape, element) = match self.m.type_data(ty) {
            TypeData::RankedTensor { shape, element, .. } => (shape.to_vec(), *element),
            _ => match crate::ir::vector_parts(&self.m, ty) {
                Some((shape, element)) => (shape.to_vec(), element),
                None => {
                    return Err(self
                        .c
                        .error_at(tpos, "dense literal needs a ranked tensor or vector type"))
                }
            },
        };
        if tshape.iter().any(|&d| d < 0) {
            return Err(self.c.error_at(tpos, "dense literal needs a static shape"));
        }
        // Saturated: a splat of any shape is one element, and a literal
        // listing every element can never reach the saturated count.
        let numel = tshape
            .iter()
            .fold(1u128, |acc, &d| acc.saturating_mul(d as u128));
        let is_strings = elems.iter().any(|e| matches!(e, Elem::Str(_)));
        let elem_bytes = match self.element_bytes(element) {
            Some(n) => n,
            None if is_strings => 0,
            None => return Err(self.c.error_at(tpos, "unsupported dense element type")),
        };
        if let Some(data) = hex {
            if elem_bytes == 0 {
                return Err(self
                    .c
                    .error_at(tpos, "hex data needs a numeric element type"));
            }
            let full = numel.saturating_mul(elem_bytes as u128);
            let splat = data.len() == elem_bytes && numel != 1;
            if !splat && data.len() as u128 != full {
                return Err(self.c.error_at(
                    pos,
                    format!(
                        "hex data has {} bytes, expected {} (or {} for a splat)",
                        data.len(),
                        full,
                        elem_bytes
                    ),
                ));
            }
            return Ok(self.m.attr(AttrData::DenseElements {
                ty,
                data: data.into(),
                splat: splat || numel == 1,
            }));
        }
        let shape = shape.unwrap_or_default();
        if is_strings {
            let values: Vec<Symbol> = elems
                .iter()
                .map(|e| match e {
                    Elem::Str(s) => Ok(self.m.sym_bytes(s)),
                    _ => Err(self
                        .c
                        .error_at(pos, "mixed string and numeric dense elements")),
                })
                .collect::<PResult<_>>()?;
            if !(values.len() == 1 || values.len() as u128 == numel) {
                return Err(self
                    .c
                    .error_at(pos, "dense string literal does not match the tensor shape"));
            }
            return Ok(self.m.attr(AttrData::DenseStrings {
                ty,
                values: values.into(),
            }));
        }
        let is_splat_literal = shape.is_empty();
        if !is_splat_literal {
            let expected: Vec<usize> = tshape.iter().map(|&d| d as usize).collect();
            if shape != expected && !(numel == 0 && elems.is_empty()) {
                return Err(self.c.error_at(
                    pos,
                    format!(
                        "dense literal shape {:?} does not match the tensor shape {:?}",
                        shape, expected
                    ),
                ));
            }
        }
        // Integers wider than 128 bits: a byte of text per element may ask for up to 2 MiB of
        // storage each, so the literal's storage is bounded (docs/bytecode.md).
        if let TypeData::Integer { width, .. } = *self.m.type_data(element) {
            const MAX_WIDE_STORAGE: usize = 1 << 24;
            if width > 128 && elems.len().saturating_mul(elem_bytes) > MAX_WIDE_STORAGE {
                return Err(self.c.error_at(
                    pos,
                    format!(
                        "dense literal of {} i{width} elements needs more than the {} MiB allowed for integers wider than 128 bits",
                        elems.len(),
                        MAX_WIDE_STORAGE >> 20
                    ),
                ));
            }
        }
        let mut data = Vec::with_capacity(elems.len().min(1 << 20).saturating_mul(elem_bytes));
        for e in &elems {
            self.encode_elem(element, e, pos, &mut data)?;
        }
        // MLIR stores all-equal data as a splat.
        let first = data.get(..elem_bytes);
        let splat = !elems.is_empty()
            && elem_bytes > 0
            && data.chunks(elem_bytes).all(|c| Some(c) == first);
        if splat {
            data.truncate(elem_bytes);
        }
        Ok(self.m.attr(AttrData::DenseElements {
            ty,
            data: data.into(),
            splat,
        }))
    }

    /// Storage bytes of one dense element (MLIR pads each to whole bytes; i1 takes one byte).
    pub(crate) fn element_bytes(&self, t: Type) -> Option<usize> {
        crate::ir::element_storage_bytes(&self.m, t)
    }

    fn encode_elem(&self, t: Type, e: &Elem, pos: usize, out: &mut Vec<u8>) -> PResult<()> {
        match self.m.type_data(t) {
            TypeData::Integer { width, signedness } if *width > 128 => {
                let (width, signedness) = (*width, *signedness);
                let words = self.wide_int_value(width, signedness, e, pos)?;
                let n = crate::ir::element_storage_bytes(&self.m, t).unwrap_or(1);
                out.extend(wide_int::to_le_bytes(&words, n));
                Ok(())
            }
            TypeData::Integer { width, .. } => {
                let width = *width;
                let v: i128 = match *e {
                    Elem::Bool(b) => b as i128,
                    Elem::Int {
                        negative,
                        magnitude,
                        ..
                    } => {
                        if width == 1 {
                            match (negative, magnitude) {
                                (false, 0) => 0,
                                (false, 1) => 1,
                                _ => {
                                    return Err(self
                                        .c
                                        .error_at(pos, "integer constant out of range for i1"))
                                }
                            }
                        } else {
                            self.int_value(t, negative, magnitude, pos)?
                        }
                    }
                    Elem::WideInt { .. } => {
                        return Err(self
                            .c
                            .error_at(pos, "integer literal out of range for its element type"))
                    }
                    _ => return Err(self.c.error_at(pos, "expected integer elements")),
                };
                let n = crate::ir::element_storage_bytes(&self.m, t).unwrap_or(1);
                let masked = if width >= 128 {
                    v as u128
                } else {
                    (v as u128) & (1u128 << width).wrapping_sub(1)
                };
                out.extend_from_slice(masked.to_le_bytes().get(..n.min(16)).unwrap_or_default());
                Ok(())
            }
            TypeData::Index => {
                let v = match *e {
                    Elem::Int {
                        negative,
                        magnitude,
                        ..
                    } => self.int_value(t, negative, magnitude, pos)?,
                    Elem::WideInt { .. } => {
                        return Err(self
                            .c
                            .error_at(pos, "integer literal out of range for its element type"))
                    }
                    _ => return Err(self.c.error_at(pos, "expected integer elements")),
                };
                out.extend_from_slice(&(v as i64).to_le_bytes());
                Ok(())
            }
            TypeData::Float(kind) => {
                let kind = *kind;
                let bits = match e {
                    Elem::Bool(_) | Elem::Complex(_) | Elem::Str(_) => {
                        return Err(self.c.error_at(pos, "expected float elements"))
                    }
                    e => self.float_bits(kind, e, pos)?,
                };
                let n = crate::ir::element_storage_bytes(&self.m, t).unwrap_or(1);
                out.extend_from_slice(bits.to_le_bytes().get(..n.min(16)).unwrap_or_default());
                Ok(())
            }
            TypeData::Complex(inner) => {
                let inner = *inner;
                match e {
                    Elem::Complex(parts) => {
                        self.encode_elem(inner, &parts.0, pos, out)?;
                        self.encode_elem(inner, &parts.1, pos, out)
                    }
                    _ => Err(self.c.error_at(pos, "expected complex elements '(re, im)'")),
                }
            }
            _ => Err(self.c.error_at(pos, "unsupported dense element type")),
        }
    }

    fn parse_dense_array(&mut self) -> PResult<Attribute> {
        self.c.expect(b'<', "after 'array'")?;
        self.c.skip_ws();
        let tpos = self.c.pos;
        let element = self.parse_type()?;
        // MLIR's dense arrays: i1, i8, i16, i32, i64, f32, f64.
        match self.m.type_data(element) {
            TypeData::Integer {
                width: 1 | 8 | 16 | 32 | 64,
                signedness: Signedness::Signless,
            }
            | TypeData::Float(FloatKind::F32 | FloatKind::F64) => {}
            _ => {
                return Err(self
                    .c
                    .error_at(tpos, "dense arrays hold i1, i8, i16, i32, i64, f32 or f64"))
            }
        }
        let mut data = Vec::new();
        if self.c.eat(b':') {
            loop {
                self.c.skip_ws();
                let epos = self.c.pos;
                let e = self.parse_dense_scalar(epos)?;
                self.encode_elem(element, &e, epos, &mut data)?;
                if !self.c.eat(b',') {
                    break;
                }
            }
        }
        self.c.expect(b'>', "to close dense array")?;
        Ok(self.m.attr(AttrData::DenseArray {
            element,
            data: data.into(),
        }))
    }
}

impl Elem {
    pub(crate) fn from_number(n: Number) -> Elem {
        match n {
            Number::Int {
                negative,
                magnitude,
                hex,
            } => Elem::Int {
                negative,
                magnitude,
                hex,
            },
            Number::Float(v) => Elem::Float(v),
            Number::WideInt {
                negative,
                hex,
                start,
                end,
            } => Elem::WideInt {
                negative,
                hex,
                start,
                end,
            },
        }
    }
}

/// The end of a `tensor<...>` type at `pos` whose text holds only names, sizes, `?`, `x`,
/// commas, spaces and nested `<...>` (no strings, maps or comments): such text always parses to
/// the same type, so it can be cached by its spelling. `None` for anything else.
/// The end of a short `dense<...> : tensor<...>` or `array<...>` attribute at `pos` whose body
/// holds no string, nested bracket or location (so its text alone decides what it is).
fn simple_attribute_extent(bytes: &[u8], pos: usize) -> Option<usize> {
    /// Longer spellings are rare repeats; hashing them would cost more than it saves.
    const MAX: usize = 160;
    let rest = bytes.get(pos..)?;
    let dense = rest.starts_with(b"dense<");
    if !dense && !rest.starts_with(b"array<") {
        return None;
    }
    let body = rest.get(6..)?;
    let close = body.iter().take(MAX).position(|&b| {
        !matches!(b, b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'+' | b',' | b' ' | b':' | b'_')
    })?;
    if body.get(close) != Some(&b'>') {
        return None;
    }
    let end = pos.checked_add(6)?.checked_add(close)?.checked_add(1)?;
    if !dense {
        return Some(end);
    }
    if bytes.get(end..end.checked_add(3)?)? != b" : " {
        return None;
    }
    let end = simple_tensor_extent(bytes, end.checked_add(3)?)?;
    (end.checked_sub(pos)? <= MAX).then_some(end)
}

/// The end of a function type spelled only with simple tensor types, `(T, U) -> V` or
/// `(T) -> (U, V)`, starting at `pos`: in generic form every op spells one out, and the same
/// spellings repeat, so the parser caches them by spelling as it does tensor types.
fn simple_function_extent(bytes: &[u8], pos: usize) -> Option<usize> {
    let inputs_end = simple_type_group_end(bytes, pos)?;
    let mut i = inputs_end;
    while bytes.get(i) == Some(&b' ') {
        i = i.checked_add(1)?;
    }
    if bytes.get(i..i.checked_add(2)?)? != b"->" {
        return None;
    }
    i = i.checked_add(2)?;
    while bytes.get(i) == Some(&b' ') {
        i = i.checked_add(1)?;
    }
    match bytes.get(i) {
        Some(b'(') => simple_type_group_end(bytes, i),
        _ => simple_tensor_extent(bytes, i),
    }
}

/// The end of `(T, U, ...)` at `pos` where each type is a simple tensor type (or `()`).
fn simple_type_group_end(bytes: &[u8], pos: usize) -> Option<usize> {
    if bytes.get(pos) != Some(&b'(') {
        return None;
    }
    let mut i = pos.checked_add(1)?;
    if bytes.get(i) == Some(&b')') {
        return i.checked_add(1);
    }
    loop {
        i = simple_tensor_extent(bytes, i)?;
        match bytes.get(i) {
            Some(b')') => return i.checked_add(1),
            Some(b',') if bytes.get(i.checked_add(1)?) == Some(&b' ') => i = i.checked_add(2)?,
            _ => return None,
        }
    }
}

fn simple_tensor_extent(bytes: &[u8], pos: usize) -> Option<usize> {
    let rest = bytes.get(pos..)?;
    if !rest.starts_with(b"tensor<") {
        return None;
    }
    let mut depth = 0usize;
    for (i, &b) in rest.iter().enumerate() {
        match SIMPLE_TYPE_BYTE.get(usize::from(b)).copied().unwrap_or(0) {
            PLAIN => {}
            OPEN => depth = depth.checked_add(1)?,
            CLOSE => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return pos.checked_add(i)?.checked_add(1);
                }
            }
            _ => return None,
        }
    }
    None
}

const PLAIN: u8 = 1;
const OPEN: u8 = 2;
const CLOSE: u8 = 3;

/// What each byte is in a simple tensor type's spelling (0: not allowed), as a table: the
/// parser scans every op's types with it. (Indices below 256 into a 256-entry array.)
#[allow(clippy::indexing_slicing)]
static SIMPLE_TYPE_BYTE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || matches!(b, b'?' | b',' | b' ' | b'_' | b'.' | b'#' | b'!')
        {
            t[c] = PLAIN;
        }
        c += 1;
    }
    t[b'<' as usize] = OPEN;
    t[b'>' as usize] = CLOSE;
    t
};
