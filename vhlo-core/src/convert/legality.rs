//! A fast, memoized answer to "is this type/attribute legal at the target?", asked for every
//! value and attribute of every op. Types and attributes are interned, so each distinct one is
//! walked once. It answers only "clean" or "look closer": the diagnostics themselves come from
//! the slow walk in `mod.rs`, which runs only where this says "look closer".

use crate::ir::{AttrData, Attribute, Module, Param, Type, TypeData};
use crate::version::Version;
use crate::vhlo::{VhloAttr, VhloEnum, VhloType};

const UNKNOWN: u8 = 0;
const CLEAN: u8 = 1;
const SUSPECT: u8 = 2;

/// Past this depth the walk gives up and says "look closer"; the conversions refuse anything
/// deeper than the one nesting limit before they start, so it never does.
const MAX_DEPTH: usize = crate::ir::MAX_NESTING + 1;

pub(crate) struct Legality {
    target: Version,
    types: Vec<u8>,
    attrs: Vec<u8>,
}

fn slot(v: &mut Vec<u8>, i: usize) -> &mut u8 {
    if v.len() <= i {
        v.resize(i + 1, UNKNOWN);
    }
    &mut v[i]
}

/// The verdict already known for an entry in state `state` at `depth`: cached, or "look closer"
/// past [`MAX_DEPTH`]; `None` when it has to be walked.
fn known(state: Option<&u8>, depth: usize) -> Option<bool> {
    match state {
        Some(&CLEAN) => Some(true),
        Some(&SUSPECT) => Some(false),
        _ => (depth > MAX_DEPTH).then_some(false),
    }
}

impl Legality {
    pub(crate) fn new(target: Version) -> Self {
        Legality {
            target,
            types: Vec::new(),
            attrs: Vec::new(),
        }
    }

    /// True when `t` and everything inside it is legal at the target.
    #[inline]
    pub(crate) fn type_is_clean(&mut self, m: &Module, t: Type) -> bool {
        // Asked for every value: a type seen before costs one load.
        self.types.get(t.index()) == Some(&CLEAN) || self.ty(m, t, 0)
    }

    /// True when `a` and everything inside it is legal and well formed at the target.
    #[inline]
    pub(crate) fn attr_is_clean(&mut self, m: &Module, a: Attribute) -> bool {
        self.attrs.get(a.index()) == Some(&CLEAN) || self.attr(m, a, 0)
    }

    fn ty(&mut self, m: &Module, t: Type, depth: usize) -> bool {
        if let Some(verdict) = known(self.types.get(t.index()), depth) {
            return verdict;
        }
        let clean = match m.type_data(t) {
            TypeData::Dialect(d) => {
                let own = m.str(d.dialect) != "vhlo"
                    || VhloType::from_mnemonic(m.str(d.mnemonic))
                        .is_none_or(|k| k.range().contains(self.target));
                own && d.params.iter().all(|p| self.param(m, p, depth + 1))
            }
            TypeData::Complex(e) | TypeData::UnrankedTensor { element: e } => {
                self.ty(m, *e, depth + 1)
            }
            TypeData::RankedTensor {
                element, encoding, ..
            } => {
                self.ty(m, *element, depth + 1)
                    && encoding.is_none_or(|a| self.attr(m, a, depth + 1))
            }
            TypeData::Tuple(ts) => ts.iter().all(|&x| self.ty(m, x, depth + 1)),
            TypeData::Function { inputs, results } => inputs
                .iter()
                .chain(results.iter())
                .all(|&x| self.ty(m, x, depth + 1)),
            _ => true,
        };
        *slot(&mut self.types, t.index()) = if clean { CLEAN } else { SUSPECT };
        clean
    }

    fn param(&mut self, m: &Module, p: &Param, depth: usize) -> bool {
        match p {
            Param::Type(t) => self.ty(m, *t, depth),
            Param::Types(ts) => ts.iter().all(|&t| self.ty(m, t, depth)),
            Param::Attr(a) => self.attr(m, *a, depth),
            Param::Attrs(xs) => xs.iter().all(|&a| self.attr(m, a, depth)),
            Param::AttrPairs(xs) => xs
                .iter()
                .all(|&(a, b)| self.attr(m, a, depth) && self.attr(m, b, depth)),
            _ => true,
        }
    }

    fn attr(&mut self, m: &Module, a: Attribute, depth: usize) -> bool {
        if let Some(verdict) = known(self.attrs.get(a.index()), depth) {
            return verdict;
        }
        let clean = match m.attr_data(a) {
            AttrData::Dialect(d) => {
                let own = if m.str(d.dialect) == "vhlo" {
                    let mn = m.str(d.mnemonic);
                    let range = VhloAttr::from_mnemonic(mn)
                        .map(|k| k.range())
                        .or_else(|| VhloEnum::from_mnemonic(mn).map(|k| k.range()));
                    // A case added after its enum (spec `since:` on the case).
                    let case_legal = match &d.params[..] {
                        [Param::Int(v)] => VhloEnum::from_mnemonic(mn)
                            .and_then(|k| k.case_since(*v))
                            .is_none_or(|since| since <= self.target),
                        _ => true,
                    };
                    // Upstream's attribute verifiers (as in the slow walk).
                    let is_vhlo = |a: Attribute| matches!(m.attr_data(a), AttrData::Dialect(x) if m.str(x.dialect) == "vhlo");
                    let verified = match (VhloAttr::from_mnemonic(mn), &d.params[..]) {
                        (Some(VhloAttr::DictV1), [Param::AttrPairs(pairs)]) => {
                            pairs.iter().all(|&(k, _)| is_vhlo(k))
                        }
                        (Some(VhloAttr::ResultAccuracyV1), [_, _, _, Param::Attr(mode)]) => {
                            matches!(m.attr_data(*mode), AttrData::Dialect(x) if m.str(x.dialect) == "vhlo" && m.str(x.mnemonic) == VhloEnum::ResultAccuracyModeV1.mnemonic())
                        }
                        _ => true,
                    };
                    range.is_none_or(|r| r.contains(self.target)) && verified && case_legal
                } else {
                    true
                };
                own && d.params.iter().all(|p| self.param(m, p, depth + 1))
            }
            AttrData::Type(t) => self.ty(m, *t, depth + 1),
            AttrData::Array(xs) => xs.iter().all(|&x| self.attr(m, x, depth + 1)),
            AttrData::Dictionary(xs) => xs.iter().all(|&(_, x)| self.attr(m, x, depth + 1)),
            _ => true,
        };
        *slot(&mut self.attrs, a.index()) = if clean { CLEAN } else { SUSPECT };
        clean
    }
}
