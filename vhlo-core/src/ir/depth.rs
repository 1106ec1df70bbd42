//! The one nesting limit of the library: parsing, reading, converting, printing
//! and writing accept the same depth of types, attributes and locations inside each other, and of
//! regions inside ops. Interned values are DAGs that aliases (`!t1 = tuple<!t0, !t0>`) or
//! bytecode can make deep without any deep text, so their depth is measured here once, with an
//! explicit stack and a memo per interned id, before any recursive walk runs.

use super::{AttrData, Attribute, LocData, Location, Module, Param, Type, TypeData};

/// The deepest nesting accepted: of types, attributes and locations inside each other (a
/// `tuple<tuple<...>>` of this many levels), and of regions inside ops. libStablehlo reads
/// 1,000 levels in practice.
pub const MAX_NESTING: usize = 1000;

/// The recursion guard of the parser, reader and writer, which count brackets or calls rather
/// than the interned depth (a region also counts): loose enough never to refuse what
/// [`MAX_NESTING`] accepts, which [`deepest_interned`] then decides exactly.
pub const NESTING_GUARD: usize = 2 * MAX_NESTING + 16;

/// A type, attribute or location nested deeper than [`MAX_NESTING`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NestingTooDeep {
    /// What is too deep: `"type"`, `"attribute"` or `"location"`.
    pub what: &'static str,
    /// Its interned id.
    pub id: u32,
}

impl std::fmt::Display for NestingTooDeep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "a {} nested more than {MAX_NESTING} levels deep (the nesting limit)",
            self.what
        )
    }
}

/// An interned type, attribute or location: a node of the interned DAG.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Node {
    Type(Type),
    Attr(Attribute),
    Loc(Location),
}

impl Node {
    /// Which of the three interners holds it (types, attributes, locations) and its index there.
    pub(crate) fn slot(self) -> (usize, usize) {
        match self {
            Node::Type(t) => (0, t.index()),
            Node::Attr(a) => (1, a.index()),
            Node::Loc(l) => (2, l.index()),
        }
    }
}

#[inline(always)]
fn push_params(ps: &[Param], out: &mut Vec<Node>) {
    for p in ps {
        match p {
            Param::Type(t) => out.push(Node::Type(*t)),
            Param::Attr(a) => out.push(Node::Attr(*a)),
            Param::Types(ts) => out.extend(ts.iter().map(|&t| Node::Type(t))),
            Param::Attrs(xs) => out.extend(xs.iter().map(|&a| Node::Attr(a))),
            Param::AttrPairs(xs) => {
                out.extend(xs.iter().flat_map(|&(a, b)| [Node::Attr(a), Node::Attr(b)]))
            }
            _ => {}
        }
    }
}

/// The nodes nested in `n`, appended to `out` in MLIR's order (element before encoding,
/// inputs before results, metadata before locations).
#[inline(always)]
pub(crate) fn children(m: &Module, n: Node, out: &mut Vec<Node>) {
    match n {
        Node::Type(t) => match m.type_data(t) {
            TypeData::Complex(e) | TypeData::UnrankedTensor { element: e } => {
                out.push(Node::Type(*e))
            }
            TypeData::RankedTensor {
                element, encoding, ..
            } => {
                out.push(Node::Type(*element));
                out.extend(encoding.map(Node::Attr));
            }
            TypeData::Tuple(ts) => out.extend(ts.iter().map(|&t| Node::Type(t))),
            TypeData::Function { inputs, results } => {
                out.extend(inputs.iter().chain(results.iter()).map(|&t| Node::Type(t)))
            }
            TypeData::Dialect(d) => push_params(&d.params, out),
            _ => {}
        },
        Node::Attr(a) => match m.attr_data(a) {
            AttrData::Integer { ty, .. }
            | AttrData::WideInteger { ty, .. }
            | AttrData::Float { ty, .. }
            | AttrData::Type(ty) => out.push(Node::Type(*ty)),
            AttrData::String { ty, .. } => out.extend(ty.map(Node::Type)),
            AttrData::DenseArray { element: ty, .. }
            | AttrData::DenseElements { ty, .. }
            | AttrData::DenseStrings { ty, .. }
            | AttrData::DenseResource { ty, .. } => out.push(Node::Type(*ty)),
            AttrData::Array(xs) => out.extend(xs.iter().map(|&x| Node::Attr(x))),
            AttrData::Dictionary(xs) => out.extend(xs.iter().map(|&(_, x)| Node::Attr(x))),
            AttrData::Location(l) => out.push(Node::Loc(*l)),
            AttrData::Dialect(d) => push_params(&d.params, out),
            _ => {}
        },
        Node::Loc(l) => match m.loc_data(l) {
            LocData::Name { child, .. } => out.extend(child.map(Node::Loc)),
            LocData::CallSite { callee, caller } => {
                out.extend([Node::Loc(*callee), Node::Loc(*caller)])
            }
            LocData::Fused {
                metadata,
                locations,
            } => {
                out.extend(metadata.map(Node::Attr));
                out.extend(locations.iter().map(|&l| Node::Loc(l)));
            }
            _ => {}
        },
    }
}

/// The first interned type, attribute or location (in that order, lowest id first) nested more
/// than [`MAX_NESTING`] levels deep (not counting a function type's own level). Linear in the size of the interned DAG, whatever its depth.
pub fn deepest_interned(m: &Module) -> Result<(), NestingTooDeep> {
    let (nt, na, nl) = m.num_interned();
    if m.interned_checked.get() == (nt, na, nl) {
        return Ok(());
    }
    // 0: not measured yet; otherwise the depth (a leaf is 1).
    let mut depth = [vec![0u32; nt], vec![0u32; na], vec![0u32; nl]];
    let slot = Node::slot;
    let mut stack: Vec<(Node, bool)> = Vec::new();
    let mut kids = Vec::new();
    let roots = (0..nt as u32)
        .map(|i| Node::Type(Type(i)))
        .chain((0..na as u32).map(|i| Node::Attr(Attribute(i))))
        .chain((0..nl as u32).map(|i| Node::Loc(Location(i))));
    for root in roots {
        stack.push((root, false));
        while let Some((n, expanded)) = stack.pop() {
            let (table, i) = slot(n);
            if depth[table].get(i).is_none_or(|&d| d != 0) {
                continue;
            }
            kids.clear();
            children(m, n, &mut kids);
            if expanded {
                let d = 1 + kids
                    .iter()
                    .map(|&k| {
                        let (t, i) = slot(k);
                        depth[t].get(i).copied().unwrap_or(0)
                    })
                    .max()
                    .unwrap_or(0);
                // The text form gives every op a signature `(A, B) -> R` (interned by the
                // parser, absent from bytecode): a function type's own level is not counted,
                // so whatever a value may hold also prints and parses as an op's type.
                let own = match n {
                    Node::Type(t) if matches!(m.type_data(t), TypeData::Function { .. }) => 1,
                    _ => 0,
                };
                if d as usize > MAX_NESTING + own {
                    let (what, id) = match n {
                        Node::Type(t) => ("type", t.0),
                        Node::Attr(a) => ("attribute", a.0),
                        Node::Loc(l) => ("location", l.0),
                    };
                    return Err(NestingTooDeep { what, id });
                }
                if let Some(s) = depth[table].get_mut(i) {
                    *s = d;
                }
            } else {
                stack.push((n, true));
                // Children are interned before their parents, so this never cycles.
                stack.extend(
                    kids.iter()
                        .filter(|&&k| {
                            let (t, i) = slot(k);
                            depth[t].get(i) == Some(&0)
                        })
                        .map(|&k| (k, false)),
                );
            }
        }
    }
    m.interned_checked.set((nt, na, nl));
    Ok(())
}

/// Regions nested more than [`MAX_NESTING`] deep (counting the module's own region), measured
/// with an explicit stack: `Err` holds the depth reached.
pub fn regions_within_limit(m: &Module) -> Result<(), usize> {
    let mut stack: Vec<(super::OpId, usize)> = m.top_ops().iter().map(|&op| (op, 0)).collect();
    while let Some((op, depth)) = stack.pop() {
        let regions = m.regions(op);
        if regions.is_empty() {
            continue;
        }
        if depth + 1 > MAX_NESTING {
            return Err(depth + 1);
        }
        for &r in regions {
            for &b in m.blocks(r) {
                stack.extend(m.block_ops(b).iter().map(|&o| (o, depth + 1)));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuple_chain(m: &mut Module, levels: usize) -> Type {
        let mut t = m.ty(TypeData::Index);
        for _ in 1..levels {
            t = m.ty(TypeData::Tuple(vec![t, t].into()));
        }
        t
    }

    #[test]
    fn depth_is_measured_on_the_dag() {
        let mut m = Module::new();
        tuple_chain(&mut m, MAX_NESTING);
        assert_eq!(deepest_interned(&m), Ok(()));
        let mut m = Module::new();
        tuple_chain(&mut m, MAX_NESTING + 1);
        assert_eq!(deepest_interned(&m).map_err(|e| e.what), Err("type"));
    }

    /// A verdict is remembered for the interners' sizes only: whatever is added later, to the
    /// module or to a copy of it, is measured.
    #[test]
    fn a_remembered_verdict_covers_only_what_was_measured() {
        let mut m = Module::new();
        let t = tuple_chain(&mut m, MAX_NESTING);
        assert_eq!(deepest_interned(&m), Ok(()));
        assert_eq!(deepest_interned(&m), Ok(()));
        let mut copy = m.clone();
        copy.ty(TypeData::Tuple(vec![t].into()));
        assert_eq!(deepest_interned(&copy).map_err(|e| e.what), Err("type"));
        let shallow = m.ty(TypeData::None);
        m.attr(AttrData::Type(shallow));
        assert_eq!(deepest_interned(&m), Ok(()));
        m.attr(AttrData::Type(t));
        assert_eq!(deepest_interned(&m).map_err(|e| e.what), Err("attribute"));
    }

    /// A value type at the limit is also an op's type in text, `() -> tuple<...>`; anything
    /// holding that signature counts it in full.
    #[test]
    fn a_signature_may_wrap_a_type_at_the_limit() {
        let signature = |m: &mut Module, t: Type| {
            m.ty(TypeData::Function {
                inputs: vec![].into(),
                results: vec![t].into(),
            })
        };
        let mut m = Module::new();
        let t = tuple_chain(&mut m, MAX_NESTING);
        let f = signature(&mut m, t);
        assert_eq!(deepest_interned(&m), Ok(()));
        m.ty(TypeData::Tuple(vec![f].into()));
        assert_eq!(deepest_interned(&m).map_err(|e| e.what), Err("type"));
        let mut m = Module::new();
        let t = tuple_chain(&mut m, MAX_NESTING);
        let f = signature(&mut m, t);
        signature(&mut m, f);
        assert_eq!(deepest_interned(&m).map_err(|e| e.what), Err("type"));
    }
}
