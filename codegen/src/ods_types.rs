//! ODS operand and result types of the spec's `stablehlo:` blocks (`operand_types:`,
//! `result_types:`, as StablehloOps.td spells them: `HLO_FpOrQuantizedIntTensor`,
//! `Variadic<HLO_Tensor>`, `RankedTensorOf<[HLO_SInt, HLO_Float]>`), lowered to what MLIR's
//! generated verifier checks of each value's type, with the summary its message quotes
//! ("operand #0 must be ranked tensor of ... values, but got ..."). An unknown type is a spec
//! error (check.rs); the lowered constraints are emitted as
//! `StablehloOp::operand_type_constraints` and `result_type_constraints`.
//!
//! The named types are upstream Base.td's, written below in Base.td's own TableGen terms, and
//! lowered by the same small parser as the types the op files spell out.

/// An element type class a tensor constraint allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// `HLO_Float`: the 4/6/8/16/32/64-bit floats (not tf32, f80, f128).
    Float,
    /// `HLO_Float32Or64`.
    Float32Or64,
    /// `HLO_Pred`: `i1`.
    Pred,
    /// `HLO_SInt`: signless integers of 2/4/8/16/32/64 bits.
    SignlessInt,
    /// `HLO_UInt`: unsigned integers of 2/4/8/16/32/64 bits.
    UnsignedInt,
    /// `HLO_Complex`: `complex<f32>` or `complex<f64>`.
    Complex,
    /// `HLO_QuantizedInt`: per-tensor `!quant.uniform` of 2..32-bit storage, zero point in range.
    QuantizedInt,
    /// `HLO_PerAxisQuantizedInt`: the per-axis form.
    PerAxisQuantizedInt,
    /// `Index`.
    Index,
    /// `AnyInteger`.
    AnyInteger,
    /// `I32`.
    I32,
    /// `UI32`.
    UI32,
    /// MLIR's `AnyFloat`: every float type (tf32, f80 and f128 too).
    AnyFloat,
    /// MLIR's `AnySignlessInteger`: signless integers of any width.
    AnySignlessInteger,
    /// Signless integers of any width but 0 (what jaxlib's arith calls "non-zero-bitwidth").
    NonZeroSignlessInteger,
    /// MLIR's `AnyUnsignedInteger`.
    AnyUnsignedInteger,
    /// MLIR's `AnySignedInteger`.
    AnySignedInteger,
    /// MLIR's `AnyComplex`: `complex<T>` of any element type.
    AnyComplex,
    /// MLIR's `Complex<AnyFloat>`: `complex<T>` of any float type.
    ComplexOfAnyFloat,
    /// `AnyType` as an element type: any.
    Any,
}

/// The shape a tensor constraint asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Any,
    /// `HasStaticShapePred`.
    Static,
    /// `HLO_HasStaticOrSingleBoundedShapePred`.
    StaticOrSingleBounded,
    /// `HasRankGreaterOrEqualPred<1>` (an unranked tensor passes: MLIR's
    /// `AnyNon0RankedOrUnrankedTensor` is the only use).
    NonZeroRank,
}

/// One kind of type a constraint accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Alt {
    Tensor {
        /// `RankedTensorOf` (and the rank-fixed forms) rather than `TensorOf`.
        ranked: bool,
        rank: Option<u8>,
        shape: Shape,
        /// `IsValidQuantizedDimension`: a per-axis element's dimension is in range and its scale
        /// count is that dimension's size.
        quantized_dimension: bool,
        elements: Vec<Elem>,
    },
    /// `MemRefOf`.
    Memref(Vec<Elem>),
    Token,
    Future,
    /// `NestedTupleOf`: a tuple whose leaves (through nested tuples) are of these.
    NestedTuple(Vec<Alt>),
    /// MLIR's `TypeOrValueSemanticsContainer`: a scalar of these, or a vector or tensor (ranked
    /// or not) of them.
    Like(Vec<Elem>),
    /// `AnyType`.
    Any,
    /// A scalar of these (an element type used as a type: `Index:$dim`, `I1:$condition`).
    Scalar(Vec<Elem>),
    /// MLIR's `AnyShaped` and its kin: a tensor, memref (ranked or not) or vector of these.
    Shaped(Vec<Elem>),
    /// A type of another dialect, without parameters (`!shape.size`).
    Dialect(String, String),
}

/// A lowered operand or result type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeConstraint {
    pub variadic: bool,
    pub alternatives: Vec<Alt>,
    /// The summary MLIR's message quotes (`variadic of ranked tensor of ... values`).
    pub summary: String,
}

/// Base.td's element types: name, the classes, the summary.
const ELEMENTS: &[(&str, &[Elem], &str)] = &[
    ("HLO_Pred", &[Elem::Pred], "bool"),
    (
        "HLO_SInt",
        &[Elem::SignlessInt],
        "2/4/8/16/32/64-bit signless integer",
    ),
    (
        "HLO_UInt",
        &[Elem::UnsignedInt],
        "2/4/8/16/32/64-bit unsigned integer",
    ),
    (
        "HLO_Int",
        &[Elem::SignlessInt, Elem::UnsignedInt],
        "2/4/8/16/32/64-bit integer",
    ),
    ("HLO_Float", &[Elem::Float], "4/6/8/16/32/64-bit float"),
    ("HLO_Float32Or64", &[Elem::Float32Or64], "32/64-bit float"),
    (
        "HLO_Complex",
        &[Elem::Complex],
        "complex type with 32/64-bit float elements",
    ),
    (
        "HLO_QuantizedInt",
        &[Elem::QuantizedInt],
        "per-tensor integer quantized",
    ),
    (
        "HLO_PerAxisQuantizedInt",
        &[Elem::PerAxisQuantizedInt],
        "per-axis integer quantized",
    ),
    (
        "HLO_DimensionValue",
        &[Elem::Index, Elem::SignlessInt, Elem::UnsignedInt],
        "index or 2/4/8/16/32/64-bit integer",
    ),
    ("Index", &[Elem::Index], "index"),
    ("AnyInteger", &[Elem::AnyInteger], "integer"),
    ("I32", &[Elem::I32], "32-bit signless integer"),
    ("UI32", &[Elem::UI32], "32-bit unsigned integer"),
    // MLIR's CommonTypeConstraints.td, for the ops of other dialects.
    ("AnyFloat", &[Elem::AnyFloat], "floating-point"),
    (
        "AnySignlessIntegerOrIndex",
        &[Elem::AnySignlessInteger, Elem::Index],
        "signless integer or index",
    ),
    (
        "NonZeroSignlessIntegerOrIndex",
        &[Elem::NonZeroSignlessInteger, Elem::Index],
        "non-zero-bitwidth signless integer or index",
    ),
    ("I1", &[Elem::Pred], "1-bit signless integer"),
    (
        "AnySignlessInteger",
        &[Elem::AnySignlessInteger],
        "signless integer",
    ),
    (
        "NonZeroSignlessInteger",
        &[Elem::NonZeroSignlessInteger],
        "non-zero-bitwidth signless integer",
    ),
    (
        "AnyUnsignedInteger",
        &[Elem::AnyUnsignedInteger],
        "unsigned integer",
    ),
    (
        "AnySignedInteger",
        &[Elem::AnySignedInteger],
        "signed integer",
    ),
    ("AnyComplex", &[Elem::AnyComplex], "complex-type"),
    // jaxlib's MLIR has a builtin token type, which `AnyType` leaves out.
    ("AnyType", &[Elem::Any], "any non-token type"),
];

/// Base.td's (and MLIR's) named types, as Base.td defines them.
const NAMED: &[(&str, &str)] = &[
    ("HLO_IntTensor", "RankedTensorOf<[HLO_Int]>"),
    ("HLO_ScalarIntTensor", "0DTensorOf<[HLO_Int]>"),
    ("HLO_FpTensor", "RankedTensorOf<[HLO_Float]>"),
    ("HLO_Fp32Or64Tensor", "RankedTensorOf<[HLO_Float32Or64]>"),
    ("HLO_QuantizedIntTensor", "RankedTensorOf<[HLO_QuantizedInt]>"),
    (
        "HLO_PerAxisQuantizedIntTensor",
        "RankedTensorOf<[HLO_PerAxisQuantizedInt], [IsValidQuantizedDimension]>",
    ),
    (
        "HLO_QuantizedIntOrPerAxisQuantizedIntTensor",
        "RankedTensorOf<[HLO_QuantizedInt, HLO_PerAxisQuantizedInt], [IsValidQuantizedDimension]>",
    ),
    ("HLO_PredTensor", "RankedTensorOf<[HLO_Pred]>"),
    (
        "HLO_Tensor",
        "RankedTensorOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex, HLO_QuantizedInt]>",
    ),
    (
        "HLO_ScalarTensor",
        "0DTensorOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex, HLO_QuantizedInt]>",
    ),
    (
        "HLO_NonQuantizedTensor",
        "RankedTensorOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex]>",
    ),
    (
        "HLO_TensorOrPerAxisQuantizedTensor",
        "RankedTensorOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex, HLO_QuantizedInt, HLO_PerAxisQuantizedInt], [IsValidQuantizedDimension]>",
    ),
    (
        "HLO_FloatOrQuantizedIntOrPerAxisQuantizedIntTensor",
        "RankedTensorOf<[HLO_Float, HLO_QuantizedInt, HLO_PerAxisQuantizedInt], [IsValidQuantizedDimension]>",
    ),
    ("HLO_ComplexTensor", "RankedTensorOf<[HLO_Complex]>"),
    (
        "HLO_Buffer",
        "MemRefOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex, HLO_QuantizedInt]>",
    ),
    (
        "HLO_Tuple",
        "NestedTupleOf<[HLO_Tensor, HLO_Buffer, HLO_PerAxisQuantizedIntTensor, HLO_Token]>",
    ),
    ("HLO_TensorOrToken", "AnyTypeOf<[HLO_Tensor, HLO_Token]>"),
    (
        "HLO_TensorOrPerAxisQuantizedTensorOrToken",
        "AnyTypeOf<[HLO_Tensor, HLO_PerAxisQuantizedIntTensor, HLO_Token]>",
    ),
    (
        "HLO_TensorOrPerAxisQuantizedTensorOrTokenOrBuffer",
        "AnyTypeOf<[HLO_TensorOrPerAxisQuantizedTensorOrToken, HLO_Buffer]>",
    ),
    (
        "HLO_TensorOrTokenOrTuple",
        "AnyTypeOf<[HLO_Tensor, HLO_Token, HLO_Tuple]>",
    ),
    (
        "HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTuple",
        "AnyTypeOf<[HLO_Tensor, HLO_PerAxisQuantizedIntTensor, HLO_Token, HLO_Tuple]>",
    ),
    (
        "HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTupleOrBuffer",
        "AnyTypeOf<[HLO_TensorOrPerAxisQuantizedTensorOrTokenOrTuple, HLO_Buffer]>",
    ),
    ("HLO_DimensionTensor", "1DTensorOf<[HLO_DimensionValue]>"),
    (
        "HLO_AnyTensor",
        "TensorOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex, HLO_QuantizedInt, HLO_PerAxisQuantizedInt], [IsValidQuantizedDimension]>",
    ),
    ("HLO_AnyPredTensor", "TensorOf<[HLO_Pred]>"),
    ("HLO_AnyFpTensor", "TensorOf<[HLO_Float]>"),
    ("HLO_AnyComplexTensor", "TensorOf<[HLO_Complex]>"),
    ("HLO_AnyFpOrComplexTensor", "TensorOf<[HLO_Float, HLO_Complex]>"),
    ("HLO_AnyPredOrIntTensor", "TensorOf<[HLO_Pred, HLO_Int]>"),
    (
        "HLO_CustomCallTuple",
        "NestedTupleOf<[HLO_AnyTensor, HLO_Buffer, HLO_Token]>",
    ),
    (
        "HLO_CustomCallValue",
        "AnyTypeOf<[HLO_AnyTensor, HLO_Buffer, HLO_Token, HLO_CustomCallTuple, HLO_Future]>",
    ),
    ("HLO_IntOrFpTensor", "RankedTensorOf<[HLO_Int, HLO_Float]>"),
    ("HLO_PredOrIntTensor", "RankedTensorOf<[HLO_Pred, HLO_Int]>"),
    ("HLO_FpOrComplexTensor", "RankedTensorOf<[HLO_Float, HLO_Complex]>"),
    (
        "HLO_FpOrQuantizedIntTensor",
        "RankedTensorOf<[HLO_Float, HLO_QuantizedInt]>",
    ),
    (
        "HLO_FpComplexOrQuantizedIntTensor",
        "RankedTensorOf<[HLO_Float, HLO_Complex, HLO_QuantizedInt]>",
    ),
    (
        "HLO_IntFpOrComplexOrQuantizedIntTensor",
        "RankedTensorOf<[HLO_Int, HLO_Float, HLO_Complex, HLO_QuantizedInt]>",
    ),
    (
        "HLO_PredIntOrFpTensor",
        "RankedTensorOf<[HLO_Pred, HLO_Int, HLO_Float]>",
    ),
    (
        "HLO_PredIntFpOrQuantizedTensor",
        "RankedTensorOf<[HLO_Pred, HLO_Int, HLO_Float, HLO_QuantizedInt]>",
    ),
    (
        "HLO_StaticDimensionTensor",
        "RankedTensorOf<[HLO_DimensionValue], [HasStaticShapePred, HasAnyRankOfPred<[1]>], \"statically shaped 1-dimensional tensor\">",
    ),
    (
        "HLO_Static1DIntTensor",
        "RankedTensorOf<[HLO_Int], [HasStaticShapePred, HasAnyRankOfPred<[1]>], \"statically shaped 1-dimensional integer tensor\">",
    ),
    (
        "HLO_Static2DIntTensor",
        "RankedTensorOf<[HLO_Int], [HasStaticShapePred, HasAnyRankOfPred<[2]>], \"statically shaped 2-dimensional integer tensor\">",
    ),
    (
        "HLO_StaticShapeTensor",
        "StaticShapeTensorOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex, HLO_QuantizedInt]>",
    ),
    (
        "HLO_StaticShapeTensorOrPerAxisQuantizedTensor",
        "RankedTensorOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex, HLO_QuantizedInt, HLO_PerAxisQuantizedInt], [IsValidQuantizedDimension, HasStaticShapePred], \"statically shaped tensor\">",
    ),
    (
        "HLO_StaticShapeTensorPerAxisQuantizedTensorOrBoundedTensor",
        "RankedTensorOf<[HLO_Float, HLO_Pred, HLO_Int, HLO_Complex, HLO_QuantizedInt, HLO_PerAxisQuantizedInt], [IsValidQuantizedDimension, HLO_HasStaticOrSingleBoundedShapePred], \"statically shaped or single bounded dimension tensor\">",
    ),
    (
        "HLO_StaticShapeTensorOrPerAxisQuantizedTensorOrToken",
        "AnyTypeOf<[HLO_StaticShapeTensor, HLO_StaticShapeTensorOrPerAxisQuantizedTensor, HLO_Token]>",
    ),
    (
        "HLO_StaticShapeIntOrFpTensor",
        "StaticShapeTensorOf<[HLO_Int, HLO_Float]>",
    ),
    (
        "HLO_StaticShapeIntFpOrComplexTensor",
        "StaticShapeTensorOf<[HLO_Int, HLO_Float, HLO_Complex]>",
    ),
    (
        "HLO_StaticShapeIntFpComplexOrQuantizedTensor",
        "StaticShapeTensorOf<[HLO_Int, HLO_Float, HLO_Complex, HLO_QuantizedInt]>",
    ),
    // MLIR's CommonTypeConstraints.td.
    ("I32RankedTensor", "RankedTensorOf<[I32]>"),
    ("UI32RankedTensor", "RankedTensorOf<[UI32]>"),
    // MLIR's, with the summaries jaxlib's MLIR prints.
    (
        "FloatLike",
        "TypeOrValueSemanticsContainer<[AnyFloat], \"floating-point\">",
    ),
    (
        "SignlessIntegerOrIndexLike",
        "TypeOrValueSemanticsContainer<[NonZeroSignlessIntegerOrIndex], \"signless-non-zero-bitwidth-integer\">",
    ),
    ("BoolLike", "TypeOrValueSemanticsContainer<[I1], \"bool\">"),
    // MathOps.td's integer operands: any signless width (i0 too) or index.
    (
        "SignlessIntegerLike",
        "TypeOrValueSemanticsContainer<[AnySignlessInteger, Index], \"signless-integer\">",
    ),
    ("AnyTensor", "TensorOf<[AnyType]>"),
    ("AnyRankedTensor", "RankedTensorOf<[AnyType]>"),
    ("AnyStaticShapeTensor", "StaticShapeTensorOf<[AnyType]>"),
    (
        "AnyNon0RankedOrUnrankedTensor",
        "AnyTypeOf<[TensorOf<[AnyType], [HasRankGreaterOrEqualPred<1>]>], \"non-0-ranked or unranked tensor\">",
    ),
    ("IndexTensor", "TensorOf<[Index]>"),
    (
        "AnyShaped",
        "ShapedContainerType<[AnyType], IsShapedTypePred, \"shaped\">",
    ),
    // ShapeBase.td's: the shape dialect's types have no summary.
    ("Shape_ShapeType", "DialectType<\"shape\", \"shape\">"),
    ("Shape_SizeType", "DialectType<\"shape\", \"size\">"),
    ("Shape_WitnessType", "DialectType<\"shape\", \"witness\">"),
    ("Shape_ValueShapeType", "DialectType<\"shape\", \"value_shape\">"),
    ("Shape_ExtentTensorType", "1DTensorOf<[Index]>"),
    (
        "Shape_ShapeOrExtentTensorType",
        "AnyTypeOf<[Shape_ShapeType, Shape_ExtentTensorType], \"shape or extent tensor\">",
    ),
    (
        "Shape_SizeOrIndexType",
        "AnyTypeOf<[Shape_SizeType, Index], \"size or index\">",
    ),
    (
        "Shape_ShapeOrSizeType",
        "AnyTypeOf<[Shape_SizeType, Shape_ShapeType], \"shape or size\">",
    ),
    (
        "Shape_AnyShapeOrSizeType",
        "AnyTypeOf<[Shape_SizeOrIndexType, Shape_ShapeOrExtentTensorType], \"any shape or size\">",
    ),
    // ArithOps.td's.
    (
        "SignlessFixedWidthIntegerLike",
        "TypeOrValueSemanticsContainer<[NonZeroSignlessInteger], \"signless-fixed-width-integer\">",
    ),
    (
        "IndexCastTypeConstraint",
        "AnyTypeOf<[SignlessIntegerOrIndexLike, MemRefOf<[NonZeroSignlessInteger, Index]>], \"signless-non-zero-bitwidth-integer-like or memref of signless-integer\">",
    ),
    (
        "BitcastTypeConstraint",
        "AnyTypeOf<[TypeOrValueSemanticsContainer<[NonZeroSignlessInteger, AnyFloat], \"signless-integer-or-float\">, MemRefOf<[NonZeroSignlessInteger, AnyFloat]>], \"non-zero-bitwidth-signless-integer-or-float-like or memref of non-zero-bitwidth signless integer or float\">",
    ),
];

/// A TableGen value as the spec spells types: a name, an application `Name<args>`, a list
/// `[a, b]`, or a string.
#[derive(Clone, Debug, PartialEq)]
enum Expr {
    Name(String),
    App(String, Vec<Expr>),
    List(Vec<Expr>),
    Str(String),
}

fn parse(text: &str) -> Result<Expr, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    let e = p.expr()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("unexpected `{}` after the type", &text[p.i..]));
    }
    Ok(e)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn list(&mut self, close: u8) -> Result<Vec<Expr>, String> {
        let mut out = Vec::new();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.expr()?);
            if self.eat(close) {
                return Ok(out);
            }
            if !self.eat(b',') {
                return Err(format!("expected `,` or `{}`", close as char));
            }
        }
    }
    fn expr(&mut self) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > 32 {
            return Err("type nested too deeply".into());
        }
        let r = self.expr_inner();
        self.depth -= 1;
        r
    }
    fn expr_inner(&mut self) -> Result<Expr, String> {
        self.ws();
        if self.eat(b'[') {
            return self.list(b']').map(Expr::List);
        }
        if self.eat(b'"') {
            let start = self.i;
            while self.s.get(self.i).is_some_and(|&c| c != b'"') {
                self.i += 1;
            }
            let text = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
            if !self.eat(b'"') {
                return Err("unterminated string".into());
            }
            return Ok(Expr::Str(text));
        }
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.i += 1;
        }
        if start == self.i {
            return Err("expected a type name".into());
        }
        let name = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        if self.eat(b'<') {
            return Ok(Expr::App(name, self.list(b'>')?));
        }
        Ok(Expr::Name(name))
    }
}

/// Lowers an operand or result type as the spec spells it, or says why it cannot.
pub fn lower(text: &str) -> Result<TypeConstraint, String> {
    let e = parse(text.trim()).map_err(|why| format!("`{}`: {why}", text.trim()))?;
    if let Expr::App(n, args) = &e {
        if n == "Variadic" {
            let [inner] = args.as_slice() else {
                return Err(format!("`{}`: Variadic takes one type", text.trim()));
            };
            let (alternatives, summary) = lower_type(inner, 0)?;
            return Ok(TypeConstraint {
                variadic: true,
                alternatives,
                summary: format!("variadic of {summary}"),
            });
        }
    }
    let (alternatives, summary) = lower_type(&e, 0)?;
    Ok(TypeConstraint {
        variadic: false,
        alternatives,
        summary,
    })
}

fn lower_type(e: &Expr, depth: usize) -> Result<(Vec<Alt>, String), String> {
    if depth > 16 {
        return Err("named types refer to each other too deeply".into());
    }
    match e {
        Expr::Name(n) => match n.as_str() {
            "HLO_Token" => Ok((vec![Alt::Token], "token".into())),
            "HLO_Future" => Ok((vec![Alt::Future], "future".into())),
            // jaxlib's MLIR has a builtin token type, which `AnyType` leaves out.
            "AnyType" => Ok((vec![Alt::Any], "any non-token type".into())),
            _ => match NAMED.iter().find(|(name, _)| name == n) {
                Some((_, def)) => {
                    let e = parse(def).map_err(|why| format!("`{n}` = `{def}`: {why}"))?;
                    lower_type(&e, depth + 1)
                }
                // An element type used as a type: a scalar of it (`Index:$dim`).
                None => match ELEMENTS.iter().find(|(name, _, _)| name == n) {
                    Some((_, es, summary)) => {
                        Ok((vec![Alt::Scalar(es.to_vec())], summary.to_string()))
                    }
                    None => Err(unknown(n)),
                },
            },
        },
        Expr::App(n, args) => {
            let list = |i: usize| match args.get(i) {
                Some(Expr::List(xs)) => Ok(xs.as_slice()),
                None => Ok(&[][..]),
                Some(_) => Err(format!("argument {} of `{n}<...>` must be a list", i + 1)),
            };
            let tensor = |ranked: bool, rank: Option<u8>, shape: Shape, default: &str| {
                let (elements, of) = lower_elements(list(0)?)?;
                let mut t = (ranked, rank, shape, false);
                for p in list(1)? {
                    apply_pred(p, &mut t)?;
                }
                let title = match args.get(2) {
                    Some(Expr::Str(s)) => s.clone(),
                    None => default.to_string(),
                    Some(_) => return Err(format!("argument 3 of `{n}<...>` must be a string")),
                };
                Ok((
                    vec![Alt::Tensor {
                        ranked: t.0,
                        rank: t.1,
                        shape: t.2,
                        quantized_dimension: t.3,
                        elements,
                    }],
                    format!("{title} of {of} values"),
                ))
            };
            match n.as_str() {
                "RankedTensorOf" => tensor(true, None, Shape::Any, "ranked tensor"),
                "TensorOf" => tensor(false, None, Shape::Any, "tensor"),
                "0DTensorOf" => tensor(true, Some(0), Shape::Any, "0D tensor"),
                "1DTensorOf" => tensor(true, Some(1), Shape::Any, "1D tensor"),
                "StaticShapeTensorOf" => {
                    tensor(true, None, Shape::Static, "statically shaped tensor")
                }
                "MemRefOf" => {
                    let (elements, of) = lower_elements(list(0)?)?;
                    Ok((
                        vec![Alt::Memref(elements)],
                        format!("memref of {of} values"),
                    ))
                }
                "AnyTypeOf" | "NestedTupleOf" => {
                    let mut alts = Vec::new();
                    let mut summaries = Vec::new();
                    for x in list(0)? {
                        let (a, s) = lower_type(x, depth + 1)?;
                        alts.extend(a);
                        summaries.push(s);
                    }
                    if n == "AnyTypeOf" {
                        // ODS's second argument: the summary, when given.
                        let summary = match args.get(1) {
                            Some(Expr::Str(s)) => s.clone(),
                            None => summaries.join(" or "),
                            Some(_) => {
                                return Err(format!("argument 2 of `{n}<...>` must be a string"))
                            }
                        };
                        Ok((alts, summary))
                    } else if alts.iter().any(|a| matches!(a, Alt::NestedTuple(_))) {
                        Err(format!("`{n}<...>` of a tuple type"))
                    } else {
                        Ok((
                            vec![Alt::NestedTuple(alts)],
                            format!(
                                "nested tuple with any combination of {} values",
                                summaries.join(" or ")
                            ),
                        ))
                    }
                }
                "ShapedContainerType" => {
                    let (elements, of) = lower_elements(list(0)?)?;
                    if !matches!(args.get(1), Some(Expr::Name(p)) if p == "IsShapedTypePred") {
                        return Err(format!("argument 2 of `{n}<...>` must be IsShapedTypePred"));
                    }
                    let Some(Expr::Str(title)) = args.get(2) else {
                        return Err(format!("argument 3 of `{n}<...>` must be a string"));
                    };
                    Ok((
                        vec![Alt::Shaped(elements)],
                        format!("{title} of {of} values"),
                    ))
                }
                "DialectType" => match args.as_slice() {
                    [Expr::Str(d), Expr::Str(t)] => {
                        Ok((vec![Alt::Dialect(d.clone(), t.clone())], String::new()))
                    }
                    _ => Err(format!("`{n}<\"dialect\", \"mnemonic\">`")),
                },
                "TypeOrValueSemanticsContainer" => {
                    let (elements, _) = lower_elements(list(0)?)?;
                    let Some(Expr::Str(name)) = args.get(1) else {
                        return Err(format!("argument 2 of `{n}<...>` must be a string"));
                    };
                    Ok((vec![Alt::Like(elements)], format!("{name}-like")))
                }
                // MLIR's `Complex<T>` (a scalar): "complex type with " T's summary " elements".
                "Complex" => match args.as_slice() {
                    [Expr::Name(e)] if e == "AnyFloat" => Ok((
                        vec![Alt::Scalar(vec![Elem::ComplexOfAnyFloat])],
                        "complex type with floating-point elements".into(),
                    )),
                    _ => Err("`Complex<AnyFloat>` only".into()),
                },
                "Variadic" => {
                    Err("`Variadic<...>` only at the top of an operand or result type".into())
                }
                _ => Err(unknown(n)),
            }
        }
        Expr::List(_) | Expr::Str(_) => Err("expected a type, not a list or string".into()),
    }
}

/// The element classes of a type list and its summary.
fn lower_elements(xs: &[Expr]) -> Result<(Vec<Elem>, String), String> {
    let mut elements = Vec::new();
    let mut summaries = Vec::new();
    for x in xs {
        let Expr::Name(n) = x else {
            return Err("an element type list holds names of element types".into());
        };
        let Some((_, es, summary)) = ELEMENTS.iter().find(|(name, _, _)| name == n) else {
            let hint = crate::diag::did_you_mean(n, ELEMENTS.iter().map(|e| e.0));
            return Err(format!(
                "unknown element type `{n}` (known: the element types of codegen/src/ods_types.rs){hint}"
            ));
        };
        elements.extend_from_slice(es);
        summaries.push(*summary);
    }
    if elements.is_empty() {
        return Err("a tensor type needs at least one element type".into());
    }
    Ok((elements, summaries.join(" or ")))
}

/// A predicate of a tensor type's second argument.
fn apply_pred(p: &Expr, t: &mut (bool, Option<u8>, Shape, bool)) -> Result<(), String> {
    match p {
        Expr::Name(n) if n == "IsValidQuantizedDimension" => t.3 = true,
        Expr::Name(n) if n == "HasStaticShapePred" => t.2 = Shape::Static,
        Expr::Name(n) if n == "HLO_HasStaticOrSingleBoundedShapePred" => {
            t.2 = Shape::StaticOrSingleBounded
        }
        Expr::App(n, args) if n == "HasRankGreaterOrEqualPred" => match args.as_slice() {
            [Expr::Name(r)] if r == "1" => t.2 = Shape::NonZeroRank,
            _ => return Err("HasRankGreaterOrEqualPred<1> only".into()),
        },
        Expr::App(n, args) if n == "HasAnyRankOfPred" => match args.as_slice() {
            [Expr::List(ranks)] => match ranks.as_slice() {
                [Expr::Name(r)] => {
                    t.1 = Some(r.parse().map_err(|_| format!("rank `{r}` is no small integer"))?)
                }
                _ => return Err("HasAnyRankOfPred with one rank only".into()),
            },
            _ => return Err("HasAnyRankOfPred<[rank]>".into()),
        },
        _ => {
            return Err(format!(
                "unknown type predicate {p:?} (known: IsValidQuantizedDimension, HasStaticShapePred, HLO_HasStaticOrSingleBoundedShapePred, HasAnyRankOfPred<[n]>, HasRankGreaterOrEqualPred<1>)"
            ))
        }
    }
    Ok(())
}

fn unknown(n: &str) -> String {
    let names = NAMED
        .iter()
        .map(|(n, _)| *n)
        .chain(["HLO_Token", "HLO_Future", "AnyType"]);
    let hint = crate::diag::did_you_mean(n, names);
    format!(
        "unknown ODS type `{n}` (known: Base.td's named types in codegen/src/ods_types.rs, and \
         RankedTensorOf, TensorOf, 0DTensorOf, 1DTensorOf, StaticShapeTensorOf, MemRefOf, \
         AnyTypeOf, NestedTupleOf, TypeOrValueSemanticsContainer, ShapedContainerType, \
         DialectType, AnyType, the element types of ELEMENTS as scalars, Variadic of them){hint}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_mlirs() {
        let t = lower("HLO_FpOrQuantizedIntTensor").unwrap();
        assert_eq!(
            t.summary,
            "ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized values"
        );
        let t = lower("Variadic<HLO_ScalarIntTensor>").unwrap();
        assert!(t.variadic);
        assert_eq!(
            t.summary,
            "variadic of 0D tensor of 2/4/8/16/32/64-bit integer values"
        );
        let t = lower("HLO_StaticDimensionTensor").unwrap();
        assert_eq!(
            t.summary,
            "statically shaped 1-dimensional tensor of index or 2/4/8/16/32/64-bit integer values"
        );
        assert_eq!(
            t.alternatives,
            vec![Alt::Tensor {
                ranked: true,
                rank: Some(1),
                shape: Shape::Static,
                quantized_dimension: false,
                elements: vec![Elem::Index, Elem::SignlessInt, Elem::UnsignedInt],
            }]
        );
        let t = lower("HLO_TensorOrPerAxisQuantizedTensorOrToken").unwrap();
        assert_eq!(t.alternatives.len(), 3);
        assert!(t
            .summary
            .ends_with("ranked tensor of per-axis integer quantized values or token"));
        let t = lower("Variadic<HLO_CustomCallValue>").unwrap();
        assert!(t
            .summary
            .contains("or token or nested tuple with any combination of tensor of"));
        assert!(
            t.summary.ends_with("or token values or future"),
            "{}",
            t.summary
        );
        // MLIR's "-like" types: a scalar, vector or tensor of the elements.
        let t = lower("FloatLike").unwrap();
        assert_eq!(t.summary, "floating-point-like");
        assert_eq!(t.alternatives, vec![Alt::Like(vec![Elem::AnyFloat])]);
        // AnyTypeOf's own summary, when it has one.
        let t = lower("IndexCastTypeConstraint").unwrap();
        assert_eq!(
            t.summary,
            "signless-non-zero-bitwidth-integer-like or memref of signless-integer"
        );
        assert_eq!(t.alternatives.len(), 2);
        assert_eq!(lower("AnyType").unwrap().alternatives, vec![Alt::Any]);
    }

    #[test]
    fn every_named_type_lowers() {
        for (n, _) in NAMED {
            lower(n).unwrap_or_else(|e| panic!("{n}: {e}"));
        }
    }

    #[test]
    fn errors_name_the_problem() {
        let e = lower("HLO_Tensr").unwrap_err();
        assert!(e.contains("did you mean `HLO_Tensor`?"), "{e}");
        let e = lower("RankedTensorOf<[HLO_Flot]>").unwrap_err();
        assert!(e.contains("unknown element type `HLO_Flot`"), "{e}");
        assert!(lower("RankedTensorOf<[HLO_Float]").is_err());
        assert!(lower("Variadic<Variadic<HLO_Tensor>>").is_err());
    }
}
