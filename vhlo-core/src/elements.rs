//! The values of a dense elements attribute (`dense<...> : tensor<...>`), by element type: read
//! them as integers or floats ([`DenseElements`]), or make an attribute from them
//! ([`from_ints`], [`from_floats`]). The storage is MLIR's: little-endian, each element padded to
//! whole bytes, `i1` one byte, and all-equal data stored once (a splat), so that an attribute
//! made here is the one the text parser and the bytecode reader make of the same values.
//!
//! ```
//! use vhlo_core::{elements, ir::Module, text};
//!
//! let mut m = Module::new();
//! let a = text::parse_attribute(&mut m, "dense<[1, -2, 3]> : tensor<3xi8>").unwrap();
//! let values = elements::DenseElements::of(&m, a).unwrap();
//! assert_eq!(values.ints().collect::<Vec<_>>(), vec![1, -2, 3]);
//!
//! let ty = text::parse_type(&mut m, "tensor<2xf16>").unwrap();
//! let half = elements::from_floats(&mut m, ty, &[0.5, 0.5]).unwrap();
//! assert_eq!(text::attribute_to_string(&m, half), "dense<5.000000e-01> : tensor<2xf16>");
//! ```

use std::fmt;

use crate::float::{from_f64, to_f64};
use crate::ir::{AttrData, Attribute, Blob, FloatKind, Module, Signedness, Type, TypeData};

/// What one element is, as far as its value goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scalar {
    /// An integer of `bits` bits (`index`: 64), sign-extended when `signed`.
    Int {
        bits: u32,
        signed: bool,
    },
    Float(FloatKind),
    /// `complex<...>` and anything else: no scalar value.
    Other,
}

fn scalar(t: &TypeData) -> Scalar {
    match *t {
        // Signless integers read as signed, as MLIR prints them; `i1` reads as 0 or 1.
        TypeData::Integer { width, signedness } => Scalar::Int {
            bits: width,
            signed: width > 1 && signedness != Signedness::Unsigned,
        },
        TypeData::Index => Scalar::Int {
            bits: 64,
            signed: true,
        },
        TypeData::Float(k) => Scalar::Float(k),
        _ => Scalar::Other,
    }
}

/// The tensor type's static shape and element type.
fn tensor_parts(m: &Module, ty: Type) -> Option<(&[i64], Type)> {
    match m.type_data(ty) {
        TypeData::RankedTensor { shape, element, .. } if shape.iter().all(|&d| d >= 0) => {
            Some((shape, *element))
        }
        _ => crate::ir::vector_parts(m, ty),
    }
}

/// The values of a `dense<...>` attribute.
#[derive(Clone, Copy, Debug)]
pub struct DenseElements<'m> {
    ty: Type,
    shape: &'m [i64],
    element: Type,
    scalar: Scalar,
    width: usize,
    data: &'m [u8],
    splat: bool,
    len: usize,
}

impl<'m> DenseElements<'m> {
    /// The values of `a`: None unless it is a `dense<...>` attribute of numeric elements (not
    /// `dense_resource`, not strings) whose data fits its type.
    pub fn of(m: &'m Module, a: Attribute) -> Option<DenseElements<'m>> {
        let AttrData::DenseElements { ty, data, splat } = m.attr_data(a) else {
            return None;
        };
        let (shape, element) = tensor_parts(m, *ty)?;
        let width = crate::ir::element_storage_bytes(m, element)?;
        let len = shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))?;
        let stored = if *splat { 1 } else { len };
        if data.len() != stored.checked_mul(width)? {
            return None;
        }
        Some(DenseElements {
            ty: *ty,
            shape,
            element,
            scalar: scalar(m.type_data(element)),
            width,
            data,
            splat: *splat,
            len,
        })
    }

    /// The tensor type.
    pub fn ty(&self) -> Type {
        self.ty
    }

    /// The element type.
    pub fn element_type(&self) -> Type {
        self.element
    }

    /// The static shape.
    pub fn shape(&self) -> &'m [i64] {
        self.shape
    }

    /// How many elements the shape holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the shape holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when every element is the same, stored once.
    pub fn is_splat(&self) -> bool {
        self.splat
    }

    /// The stored bytes of element `i` (little-endian), None past the end.
    pub fn bytes(&self, i: usize) -> Option<&'m [u8]> {
        if i >= self.len {
            return None;
        }
        let at = if self.splat { 0 } else { i * self.width };
        self.data.get(at..at + self.width)
    }

    fn raw(&self, i: usize) -> Option<u128> {
        let b = self.bytes(i)?;
        (b.len() <= 16).then(|| {
            b.iter()
                .rev()
                .fold(0u128, |acc, &byte| (acc << 8) | u128::from(byte))
        })
    }

    /// Element `i` of an integer or `index` tensor (signless ones read as signed, `i1` as 0 or
    /// 1); None past the end, for other element types, or for integers wider than 128 bits.
    pub fn int(&self, i: usize) -> Option<i128> {
        let Scalar::Int { bits, signed } = self.scalar else {
            return None;
        };
        let raw = self.raw(i)?;
        if bits > 128 {
            return None;
        }
        if bits == 1 {
            return Some((raw & 1) as i128);
        }
        let shift = 128 - bits;
        Some(if signed {
            ((raw << shift) as i128) >> shift
        } else {
            (raw & (u128::MAX >> shift)) as i128
        })
    }

    /// Element `i` of a float tensor, widened to `f64` (exact for every float type up to 64
    /// bits); None past the end or for other element types.
    pub fn float(&self, i: usize) -> Option<f64> {
        let Scalar::Float(kind) = self.scalar else {
            return None;
        };
        to_f64(kind, self.raw(i)?)
    }

    /// Every element as [`Self::int`] reads it (nothing for other element types).
    pub fn ints(&self) -> impl Iterator<Item = i128> + '_ {
        (0..self.len).map_while(|i| self.int(i))
    }

    /// Every element as [`Self::float`] reads it (nothing for other element types).
    pub fn floats(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.len).map_while(|i| self.float(i))
    }
}

/// Why values do not make a dense attribute of a type.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElementsError {
    /// The type is not a statically shaped tensor.
    NotAStaticTensor,
    /// The element type holds no values of this kind (integers for a float tensor, ...).
    ElementType,
    /// The shape holds `expected` elements; `got` values were given (one value is a splat).
    Count { expected: usize, got: usize },
    /// The value at position `index` does not fit the element type.
    OutOfRange { index: usize },
}

impl fmt::Display for ElementsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElementsError::NotAStaticTensor => {
                write!(f, "the type is not a statically shaped tensor")
            }
            ElementsError::ElementType => write!(f, "the element type does not hold these values"),
            ElementsError::Count { expected, got } => write!(
                f,
                "the shape holds {expected} elements; {got} values were given (one makes a splat)"
            ),
            ElementsError::OutOfRange { index } => {
                write!(
                    f,
                    "the value at position {index} does not fit the element type"
                )
            }
        }
    }
}

impl std::error::Error for ElementsError {}

/// Elements stored as MLIR stores them: a splat when all are equal.
fn store(
    m: &mut Module,
    ty: Type,
    n: usize,
    width: usize,
    mut encode: impl FnMut(usize) -> Result<u128, ElementsError>,
) -> Result<Attribute, ElementsError> {
    let mut data = Vec::with_capacity(n.saturating_mul(width));
    for i in 0..n {
        let bits = encode(i)?;
        data.extend_from_slice(&bits.to_le_bytes()[..width.min(16)]);
    }
    let splat = data.len() > width && data.chunks(width).all(|c| c == &data[..width]);
    if splat || n == 1 {
        data.truncate(width);
    }
    Ok(m.attr(AttrData::DenseElements {
        ty,
        data: Blob::from(data),
        splat: splat || n == 1,
    }))
}

/// The tensor's element count, element kind and storage width; the values must be one (a
/// splat) or one per element.
fn layout(m: &Module, ty: Type, got: usize) -> Result<(usize, Scalar, usize), ElementsError> {
    let (shape, element) = tensor_parts(m, ty).ok_or(ElementsError::NotAStaticTensor)?;
    let len = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))
        .ok_or(ElementsError::NotAStaticTensor)?;
    if got != len && got != 1 {
        return Err(ElementsError::Count { expected: len, got });
    }
    let width = crate::ir::element_storage_bytes(m, element).ok_or(ElementsError::ElementType)?;
    Ok((len, scalar(m.type_data(element)), width))
}

/// A `dense<...>` attribute of tensor type `ty` from integers: one per element, or one for all.
/// Each must fit the element type (a signless one takes signed and unsigned values, as MLIR's
/// parser does; `i1` takes 0 and 1).
pub fn from_ints(m: &mut Module, ty: Type, values: &[i128]) -> Result<Attribute, ElementsError> {
    let (len, _, width) = layout(m, ty, values.len())?;
    let element = tensor_parts(m, ty).map_or(ty, |p| p.1);
    // The values each element type takes.
    let (bits, range) = match *m.type_data(element) {
        TypeData::Integer { width: 1, .. } => (1, 0..=1),
        TypeData::Integer { width, .. } if width > 127 => return Err(ElementsError::ElementType),
        TypeData::Integer { width, signedness } => {
            let (min, max_signed, max) = (
                -(1i128 << (width - 1)),
                (1i128 << (width - 1)) - 1,
                (1i128 << width) - 1,
            );
            let range = match signedness {
                Signedness::Signless => min..=max,
                Signedness::Signed => min..=max_signed,
                Signedness::Unsigned => 0..=max,
            };
            (width, range)
        }
        TypeData::Index => (64, i128::from(i64::MIN)..=i128::from(i64::MAX)),
        _ => return Err(ElementsError::ElementType),
    };
    let n = if values.len() == 1 { 1 } else { len };
    store(m, ty, n, width, |i| {
        let v = values.get(i).copied().unwrap_or(0);
        if !range.contains(&v) {
            return Err(ElementsError::OutOfRange { index: i });
        }
        // Two's complement in `bits` bits.
        Ok(v as u128 & ((1u128 << bits) - 1))
    })
}

/// A `dense<...>` attribute of tensor type `ty` from floats: one per element, or one for all,
/// each rounded to the element type as MLIR's `APFloat` rounds (to nearest, ties to even;
/// saturating or NaN past the range as the type does).
pub fn from_floats(m: &mut Module, ty: Type, values: &[f64]) -> Result<Attribute, ElementsError> {
    let (len, scalar, width) = layout(m, ty, values.len())?;
    let Scalar::Float(kind) = scalar else {
        return Err(ElementsError::ElementType);
    };
    let n = if values.len() == 1 { 1 } else { len };
    store(m, ty, n, width, |i| {
        let v = values.get(i).copied().unwrap_or(0.0);
        from_f64(kind, v).ok_or(ElementsError::OutOfRange { index: i })
    })
}
