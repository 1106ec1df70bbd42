//! Structural equality of two modules: same ops, operands (up to renumbering), regions, blocks,
//! types, attributes and (optionally) locations, compared across the two modules' interners.

use super::*;

/// What to compare.
#[derive(Clone, Copy, Debug)]
pub struct EqualOptions {
    /// Compare op locations too.
    pub locations: bool,
    /// Forgive what MLIR's text format itself loses, for comparing a program with its printed
    /// and re-parsed self: a file location range of fewer than two numbers prints its missing
    /// line or column as 0 and comes back as a plain `"file":line:col` location.
    pub text_losses: bool,
}

impl Default for EqualOptions {
    fn default() -> Self {
        EqualOptions {
            locations: true,
            text_losses: false,
        }
    }
}

struct Cmp<'a> {
    a: &'a Module,
    b: &'a Module,
    opts: EqualOptions,
    /// Value of `a` → value of `b`, set as definitions are matched.
    values: HashMap<Value, Value>,
    blocks: HashMap<Block, Block>,
}

use std::collections::HashMap;

/// `Ok(())` when `a` and `b` are structurally equal, else a description of the first difference.
pub fn structurally_equal(a: &Module, b: &Module, opts: EqualOptions) -> Result<(), String> {
    let mut c = Cmp {
        a,
        b,
        opts,
        values: HashMap::new(),
        blocks: HashMap::new(),
    };
    let (ta, tb) = (a.top_ops(), b.top_ops());
    counts(ta.len(), tb.len(), "", "top-level ops")?;
    // Definitions first (so forward references can be matched), then uses.
    for (&x, &y) in ta.iter().zip(tb) {
        c.map_defs(x, y, "")?;
    }
    for (&x, &y) in ta.iter().zip(tb) {
        c.op(x, y, "")?;
    }
    Ok(())
}

type Res = Result<(), String>;

/// `Err("{at}{m} {what} vs {n}")` when the counts `m` and `n` differ.
fn counts(m: usize, n: usize, at: impl std::fmt::Display, what: &str) -> Res {
    if m == n {
        return Ok(());
    }
    Err(format!("{at}{m} {what} vs {n}"))
}

/// `f` on each pair of `x` and `y`, or `mismatch(x.len(), y.len())` when their lengths differ.
fn zip_with<T>(
    x: &[T],
    y: &[T],
    mismatch: impl FnOnce(usize, usize) -> Res,
    mut f: impl FnMut(&T, &T) -> Res,
) -> Res {
    if x.len() != y.len() {
        return mismatch(x.len(), y.len());
    }
    x.iter().zip(y).try_for_each(|(s, t)| f(s, t))
}

/// `f` on two present values, `Ok` on two absent ones, else `differ()`.
fn both<T: Copy>(
    x: Option<T>,
    y: Option<T>,
    differ: impl FnOnce() -> Res,
    f: impl FnOnce(T, T) -> Res,
) -> Res {
    match (x, y) {
        (None, None) => Ok(()),
        (Some(s), Some(t)) => f(s, t),
        _ => differ(),
    }
}

impl Cmp<'_> {
    /// Pairs up results, block arguments and blocks of `x` and `y` and everything nested in
    /// them (iteratively: nesting depth is not bounded by the stack).
    fn map_defs(&mut self, x: OpId, y: OpId, path: &str) -> Result<(), String> {
        let (a, b) = (self.a, self.b);
        let mut stack = vec![(x, y, path.to_string())];
        while let Some((x, y, path)) = stack.pop() {
            let here = format!("{path}/{}", a.op_name_str(x));
            let (nx, ny) = (a.num_results(x), b.num_results(y));
            counts(nx, ny, format_args!("{here}: "), "results")?;
            for (u, v) in a.results(x).zip(b.results(y)) {
                self.values.insert(u, v);
            }
            let (ra, rb) = (a.regions(x), b.regions(y));
            counts(ra.len(), rb.len(), format_args!("{here}: "), "regions")?;
            for (ri, (&r1, &r2)) in ra.iter().zip(rb).enumerate() {
                let (ba, bb) = (a.blocks(r1), b.blocks(r2));
                let at = format!("{here} region {ri}: ");
                counts(ba.len(), bb.len(), &at, "blocks")?;
                for (bi, (&b1, &b2)) in ba.iter().zip(bb).enumerate() {
                    self.blocks.insert(b1, b2);
                    let (aa, ab) = (a.block_args(b1), b.block_args(b2));
                    let at = format!("{here} region {ri} block {bi}: ");
                    counts(aa.len(), ab.len(), &at, "arguments")?;
                    for (&u, &v) in aa.iter().zip(ab) {
                        self.values.insert(u, v);
                    }
                    let (oa, ob) = (a.block_ops(b1), b.block_ops(b2));
                    counts(oa.len(), ob.len(), &at, "ops")?;
                    for (&o1, &o2) in oa.iter().zip(ob).rev() {
                        stack.push((o1, o2, here.clone()));
                    }
                }
            }
        }
        Ok(())
    }

    /// Compares `x` and `y` and everything nested in them, in pre-order.
    fn op(&mut self, x: OpId, y: OpId, path: &str) -> Result<(), String> {
        let mut stack = vec![(x, y, path.to_string())];
        while let Some((x, y, path)) = stack.pop() {
            let here = self.op_here(x, y, &path)?;
            let (a, b) = (self.a, self.b);
            let mut nested = Vec::new();
            for (&r1, &r2) in a.regions(x).iter().zip(b.regions(y)) {
                for (&b1, &b2) in a.blocks(r1).iter().zip(b.blocks(r2)) {
                    for (&u, &v) in a.block_args(b1).iter().zip(b.block_args(b2)) {
                        self.ty(a.value_type(u), b.value_type(v))
                            .map_err(|e| format!("{here}: block argument: {e}"))?;
                        if self.opts.locations {
                            self.loc(a.value_location(u), b.value_location(v))
                                .map_err(|e| format!("{here}: block argument location: {e}"))?;
                        }
                    }
                    for (&o1, &o2) in a.block_ops(b1).iter().zip(b.block_ops(b2)) {
                        nested.push((o1, o2, here.clone()));
                    }
                }
            }
            stack.extend(nested.into_iter().rev());
        }
        Ok(())
    }

    /// Compares one op's own contents (not its regions); returns its path.
    fn op_here(&mut self, x: OpId, y: OpId, path: &str) -> Result<String, String> {
        let (a, b) = (self.a, self.b);
        let here = format!("{path}/{}", a.op_name_str(x));
        if a.op_name_str(x) != b.op_name_str(y) {
            return Err(format!(
                "{path}: op {} vs {}",
                a.op_name_str(x),
                b.op_name_str(y)
            ));
        }
        let (oa, ob) = (a.operands(x), b.operands(y));
        counts(oa.len(), ob.len(), format_args!("{here}: "), "operands")?;
        for (i, (u, v)) in oa.iter().zip(ob).enumerate() {
            if self.values.get(u) != Some(v) {
                return Err(format!("{here}: operand {i} refers to a different value"));
            }
        }
        for (u, v) in a.results(x).zip(b.results(y)) {
            self.ty(a.value_type(u), b.value_type(v))
                .map_err(|e| format!("{here}: result type: {e}"))?;
        }
        self.named(a.properties(x), b.properties(y))
            .map_err(|e| format!("{here}: properties: {e}"))?;
        self.named(a.attributes(x), b.attributes(y))
            .map_err(|e| format!("{here}: attributes: {e}"))?;
        let (sa, sb) = (a.successors(x), b.successors(y));
        if sa.len() != sb.len()
            || sa
                .iter()
                .zip(sb)
                .any(|(s, t)| self.blocks.get(s) != Some(t))
        {
            return Err(format!("{here}: successors differ"));
        }
        if self.opts.locations {
            self.loc(a.op_location(x), b.op_location(y))
                .map_err(|e| format!("{here}: location: {e}"))?;
        }
        Ok(here)
    }

    fn named(&self, x: &[NamedAttr], y: &[NamedAttr]) -> Result<(), String> {
        let mismatch = |m, n| Err(format!("{m} entries vs {n}"));
        zip_with(x, y, mismatch, |p, q| {
            let (n1, n2) = (self.a.str(p.name), self.b.str(q.name));
            if n1 != n2 {
                return Err(format!("name {n1} vs {n2}"));
            }
            self.attr(p.value, q.value)
                .map_err(|e| format!("{n1}: {e}"))
        })
    }

    fn sym(&self, x: Symbol, y: Symbol) -> Result<(), String> {
        if self.a.bytes(x) == self.b.bytes(y) {
            return Ok(());
        }
        Err(format!("\"{}\" vs \"{}\"", self.a.str(x), self.b.str(y)))
    }

    fn types(&self, x: &[Type], y: &[Type]) -> Result<(), String> {
        let mismatch = |m, n| Err(format!("{m} types vs {n}"));
        zip_with(x, y, mismatch, |&s, &t| self.ty(s, t))
    }

    fn ty(&self, x: Type, y: Type) -> Result<(), String> {
        use TypeData as T;
        let (p, q) = (self.a.type_data(x), self.b.type_data(y));
        let differ = || Err(format!("type {p:?} vs {q:?}"));
        let same = |eq: bool| if eq { Ok(()) } else { differ() };
        match (p, q) {
            (T::Integer { .. }, T::Integer { .. })
            | (T::Index, T::Index)
            | (T::Float(_), T::Float(_))
            | (T::None, T::None) => same(p == q),
            (T::Complex(s), T::Complex(t)) => self.ty(*s, *t),
            (
                T::RankedTensor {
                    shape: s1,
                    element: e1,
                    encoding: n1,
                },
                T::RankedTensor {
                    shape: s2,
                    element: e2,
                    encoding: n2,
                },
            ) => {
                same(s1 == s2)?;
                self.ty(*e1, *e2)?;
                both(*n1, *n2, differ, |s, t| self.attr(s, t))
            }
            (T::UnrankedTensor { element: s }, T::UnrankedTensor { element: t }) => self.ty(*s, *t),
            (T::Tuple(s), T::Tuple(t)) => self.types(s, t),
            (
                T::Function {
                    inputs: i1,
                    results: r1,
                },
                T::Function {
                    inputs: i2,
                    results: r2,
                },
            ) => {
                self.types(i1, i2)?;
                self.types(r1, r2)
            }
            (T::Dialect(s), T::Dialect(t)) => self.dialect(s, t),
            _ => differ(),
        }
    }

    fn dialect(&self, x: &DialectItem, y: &DialectItem) -> Res {
        self.sym(x.dialect, y.dialect)?;
        self.sym(x.mnemonic, y.mnemonic)?;
        self.params(&x.params, &y.params)
    }

    fn params(&self, x: &[Param], y: &[Param]) -> Result<(), String> {
        let mismatch = |m, n| Err(format!("{m} parameters vs {n}"));
        zip_with(x, y, mismatch, |p, q| {
            match (p, q) {
                (Param::Type(s), Param::Type(t)) => self.ty(*s, *t)?,
                (Param::Attr(s), Param::Attr(t)) => self.attr(*s, *t)?,
                (Param::Str(s), Param::Str(t)) => self.sym(*s, *t)?,
                (Param::Types(s), Param::Types(t)) => self.types(s, t)?,
                (Param::Attrs(s), Param::Attrs(t)) => self.attrs(s, t)?,
                (Param::AttrPairs(s), Param::AttrPairs(t)) => {
                    let uneven = |_, _| Err("pair counts differ".into());
                    zip_with(s, t, uneven, |a, b| {
                        self.attr(a.0, b.0)?;
                        self.attr(a.1, b.1)
                    })?
                }
                (Param::Bool(_), Param::Bool(_))
                | (Param::Int(_), Param::Int(_))
                | (Param::UInt(_), Param::UInt(_))
                | (Param::Float { .. }, Param::Float { .. })
                | (Param::Ints(_), Param::Ints(_))
                | (Param::Floats(_), Param::Floats(_))
                | (Param::Bytes(_), Param::Bytes(_))
                | (Param::Absent, Param::Absent) => {
                    if p != q {
                        return Err(format!("parameter {p:?} vs {q:?}"));
                    }
                }
                _ => return Err(format!("parameter {p:?} vs {q:?}")),
            }
            Ok(())
        })
    }

    fn attrs(&self, x: &[Attribute], y: &[Attribute]) -> Result<(), String> {
        let mismatch = |m, n| Err(format!("{m} attributes vs {n}"));
        zip_with(x, y, mismatch, |&s, &t| self.attr(s, t))
    }

    fn attr(&self, x: Attribute, y: Attribute) -> Result<(), String> {
        use AttrData as A;
        let (p, q) = (self.a.attr_data(x), self.b.attr_data(y));
        let differ = || Err(format!("attribute {p:?} vs {q:?}"));
        let same = |eq: bool| if eq { Ok(()) } else { differ() };
        let uneven = |_, _| differ();
        match (p, q) {
            (A::Unit, A::Unit) => Ok(()),
            (A::Bool(s), A::Bool(t)) => same(s == t),
            (A::Integer { ty: t1, value: v1 }, A::Integer { ty: t2, value: v2 }) => {
                same(v1 == v2)?;
                self.ty(*t1, *t2)
            }
            (A::Float { ty: t1, bits: b1 }, A::Float { ty: t2, bits: b2 }) => {
                same(b1 == b2)?;
                self.ty(*t1, *t2)
            }
            (A::String { value: v1, ty: t1 }, A::String { value: v2, ty: t2 }) => {
                self.sym(*v1, *v2)?;
                both(*t1, *t2, differ, |s, t| self.ty(s, t))
            }
            (A::Type(s), A::Type(t)) => self.ty(*s, *t),
            (A::Array(s), A::Array(t)) => self.attrs(s, t),
            (
                A::DenseArray {
                    element: e1,
                    data: d1,
                },
                A::DenseArray {
                    element: e2,
                    data: d2,
                },
            ) => {
                same(d1 == d2)?;
                self.ty(*e1, *e2)
            }
            (
                A::DenseElements {
                    ty: t1,
                    data: d1,
                    splat: s1,
                },
                A::DenseElements {
                    ty: t2,
                    data: d2,
                    splat: s2,
                },
            ) => {
                same(d1 == d2 && s1 == s2)?;
                self.ty(*t1, *t2)
            }
            (A::DenseResource { ty: t1, key: k1 }, A::DenseResource { ty: t2, key: k2 }) => {
                // The same key with the same data (or none).
                self.sym(*k1, *k2)?;
                same(self.a.resource_blob(*k1) == self.b.resource_blob(*k2))?;
                self.ty(*t1, *t2)
            }
            (A::DenseStrings { ty: t1, values: v1 }, A::DenseStrings { ty: t2, values: v2 }) => {
                zip_with(v1, v2, uneven, |&s, &t| self.sym(s, t))?;
                self.ty(*t1, *t2)
            }
            (A::Dictionary(s), A::Dictionary(t)) => zip_with(s, t, uneven, |e1, e2| {
                self.sym(e1.0, e2.0)?;
                self.attr(e1.1, e2.1)
            }),
            (
                A::SymbolRef {
                    root: r1,
                    nested: n1,
                },
                A::SymbolRef {
                    root: r2,
                    nested: n2,
                },
            ) => {
                self.sym(*r1, *r2)?;
                zip_with(n1, n2, uneven, |&s, &t| self.sym(s, t))
            }
            (A::Location(s), A::Location(t)) => self.loc(*s, *t),
            (A::Dialect(s), A::Dialect(t)) => self.dialect(s, t),
            (
                A::Opaque {
                    dialect: d1,
                    text: t1,
                },
                A::Opaque {
                    dialect: d2,
                    text: t2,
                },
            ) => {
                self.sym(*d1, *d2)?;
                self.sym(*t1, *t2)
            }
            _ => differ(),
        }
    }

    fn loc(&self, x: Location, y: Location) -> Result<(), String> {
        use LocData as L;
        let (p, q) = (self.a.loc_data(x), self.b.loc_data(y));
        let differ = || Err(format!("location {p:?} vs {q:?}"));
        let same = |eq: bool| if eq { Ok(()) } else { differ() };
        let uneven = |_, _| differ();
        // A short range prints as `"f":line:col`, which parses as a plain file location.
        let short_range_and_point = |r: &LocData, pt: &LocData| match (r, pt) {
            (
                L::FileLineColRange {
                    file: f1,
                    line_cols,
                },
                L::FileLineCol {
                    file: f2,
                    line,
                    column,
                },
            ) => {
                let mut v = line_cols.to_vec();
                v.resize(2, 0);
                (line_cols.len() < 2 && v == [*line, *column]).then_some((*f1, *f2))
            }
            _ => None,
        };
        if self.opts.text_losses {
            if let Some((f1, f2)) = short_range_and_point(p, q) {
                return self.sym(f1, f2);
            }
        }
        match (p, q) {
            (L::Unknown, L::Unknown) => Ok(()),
            (
                L::FileLineCol {
                    file: f1,
                    line: l1,
                    column: c1,
                },
                L::FileLineCol {
                    file: f2,
                    line: l2,
                    column: c2,
                },
            ) => {
                same(l1 == l2 && c1 == c2)?;
                self.sym(*f1, *f2)
            }
            (
                L::FileLineColRange {
                    file: f1,
                    line_cols: v1,
                },
                L::FileLineColRange {
                    file: f2,
                    line_cols: v2,
                },
            ) => {
                same(v1 == v2)?;
                self.sym(*f1, *f2)
            }
            (
                L::Name {
                    name: n1,
                    child: c1,
                },
                L::Name {
                    name: n2,
                    child: c2,
                },
            ) => {
                self.sym(*n1, *n2)?;
                both(*c1, *c2, differ, |s, t| self.loc(s, t))
            }
            (
                L::CallSite {
                    callee: c1,
                    caller: r1,
                },
                L::CallSite {
                    callee: c2,
                    caller: r2,
                },
            ) => {
                self.loc(*c1, *c2)?;
                self.loc(*r1, *r2)
            }
            (
                L::Fused {
                    metadata: m1,
                    locations: l1,
                },
                L::Fused {
                    metadata: m2,
                    locations: l2,
                },
            ) => {
                both(*m1, *m2, differ, |s, t| self.attr(s, t))?;
                zip_with(l1, l2, uneven, |&s, &t| self.loc(s, t))
            }
            _ => differ(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first difference `structurally_equal` reports between two programs.
    fn diff(a: &str, b: &str) -> Result<(), String> {
        let (a, b) = (
            crate::text::parse_unverified(a).unwrap(),
            crate::text::parse_unverified(b).unwrap(),
        );
        structurally_equal(&a, &b, EqualOptions::default())
    }

    const BASE: &str = r#"func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a {x = 1 : i32, s = "k", d = {p = 2 : i64}} : tensor<2xf32>
  return %0 : tensor<2xf32>
}"#;

    #[test]
    fn reports_the_first_difference() {
        assert_eq!(diff(BASE, BASE), Ok(()));
        let cases = [
            ("2xf32", "3xf32"),
            ("x = 1 : i32", "x = 2 : i32"),
            ("x = 1 : i32", "x = 1 : i64"),
            (", s = \"k\"", ""),
            ("s = \"k\"", "s = \"j\""),
            ("p = 2 : i64", "p = 2 : i64, q = 3 : i64"),
            ("%a, %a", "%a, %0"),
            (
                "  return",
                "  %1 = stablehlo.add %a, %a : tensor<2xf32>\n  return",
            ),
        ];
        let got: Vec<String> = cases
            .iter()
            .map(|(from, to)| diff(BASE, &BASE.replace(from, to)).unwrap_err())
            .collect();
        let want = [
            "/builtin.module/func.func: properties: function_type: type RankedTensor { shape: [2], element: Type(0), encoding: None } vs RankedTensor { shape: [3], element: Type(0), encoding: None }",
            "/builtin.module/func.func/stablehlo.add: attributes: x: attribute Integer { ty: Type(3), value: 1 } vs Integer { ty: Type(3), value: 2 }",
            "/builtin.module/func.func/stablehlo.add: attributes: x: type Integer { width: 32, signedness: Signless } vs Integer { width: 64, signedness: Signless }",
            "/builtin.module/func.func/stablehlo.add: attributes: 3 entries vs 2",
            "/builtin.module/func.func/stablehlo.add: attributes: s: \"k\" vs \"j\"",
            "/builtin.module/func.func/stablehlo.add: attributes: d: attribute Dictionary([(Symbol(7), Attribute(5))]) vs Dictionary([(Symbol(7), Attribute(5)), (Symbol(8), Attribute(6))])",
            "/builtin.module/func.func/stablehlo.add: operand 1 refers to a different value",
            "/builtin.module/func.func region 0 block 0: 2 ops vs 3",
        ];
        assert_eq!(got, want);
    }
}
