//! A Shardy sharding taken apart and checked against its mesh and its value's type
//! (`verifyTensorShardingAttr`, `MeshAttr::verify`, the axis-ref rules of Shardy's
//! `verifiers.cc`), for the op rules of `sdy.rs` and `sdy/collectives.rs`.

use std::rc::Rc;

use crate::ir::{AttrData, Attribute, FastMap, FastSet, Module, Param, Type, TypeData};

/// The `sdy.mesh` ops of the module by symbol name, and each distinct mesh attribute decoded
/// once (a program references one mesh from every sharding: decoding it per reference would
/// make the check quadratic).
pub(super) struct Meshes {
    pub(super) by_name: FastMap<crate::ir::Symbol, Attribute>,
    pub(super) decoded: std::cell::RefCell<FastMap<Attribute, Option<Decoded>>>,
}

/// A mesh attribute decoded, or why it is not a valid mesh.
pub(super) type Decoded = Rc<Result<Mesh, String>>;

impl Meshes {
    pub(super) fn collect(m: &Module, sdy: crate::ir::Symbol) -> Self {
        let mut by_name = FastMap::default();
        m.walk(|op| {
            if m.op_name_str(op) != "sdy.mesh" {
                return;
            }
            let name = m
                .property(op, "sym_name")
                .and_then(|a| match m.attr_data(a) {
                    AttrData::String { value, .. } => Some(*value),
                    _ => None,
                });
            if let (Some(name), Some(mesh)) = (name, m.property(op, "mesh")) {
                if sdy_params(m, sdy, mesh, "mesh").is_some() {
                    by_name.entry(name).or_insert(mesh);
                }
            }
        });
        Meshes {
            by_name,
            decoded: Default::default(),
        }
    }

    pub(super) fn get(&self, name: crate::ir::Symbol) -> Option<Attribute> {
        self.by_name.get(&name).copied()
    }

    /// The mesh `a` decoded and checked (Shardy's `MeshAttr::verify`), once per attribute.
    pub(super) fn decoded(
        &self,
        m: &Module,
        sdy: crate::ir::Symbol,
        a: Attribute,
    ) -> Option<Rc<Result<Mesh, String>>> {
        if let Some(d) = self.decoded.borrow().get(&a) {
            return d.clone();
        }
        let d = Mesh::of(m, sdy, a).map(|mesh| Rc::new(mesh.check().map(|()| mesh)));
        self.decoded.borrow_mut().insert(a, d.clone());
        d
    }
}

/// The parameters of `a` when it is `#sdy.<mnemonic>`.
pub(super) fn sdy_params<'m>(
    m: &'m Module,
    sdy: crate::ir::Symbol,
    a: Attribute,
    mnemonic: &str,
) -> Option<&'m [Param]> {
    match m.attr_data(a) {
        AttrData::Dialect(d) if d.dialect == sdy && m.str(d.mnemonic) == mnemonic => {
            Some(&d.params)
        }
        _ => None,
    }
}

pub(super) fn attrs(p: Option<&Param>) -> &[Attribute] {
    match p {
        Some(Param::Attrs(a)) => a,
        _ => &[],
    }
}

/// A mesh: its axes (name, size), their positions by name, and device ids.
pub(super) struct Mesh {
    pub(super) axes: Vec<(String, i64)>,
    pub(super) index: FastMap<String, usize>,
    pub(super) device_ids: Vec<i64>,
}

impl Mesh {
    pub(super) fn of(m: &Module, sdy: crate::ir::Symbol, a: Attribute) -> Option<Mesh> {
        let p = sdy_params(m, sdy, a, "mesh")?;
        let axes: Vec<(String, i64)> = attrs(p.first())
            .iter()
            .filter_map(|&ax| {
                let q = sdy_params(m, sdy, ax, "mesh_axis")?;
                match q {
                    [Param::Str(n), Param::Int(size)] => Some((m.str(*n).to_string(), *size)),
                    _ => None,
                }
            })
            .collect();
        let device_ids = match p.get(1) {
            Some(Param::Ints(ids)) => ids.to_vec(),
            _ => Vec::new(),
        };
        let mut index = FastMap::default();
        for (i, (n, _)) in axes.iter().enumerate() {
            index.entry(n.clone()).or_insert(i);
        }
        Some(Mesh {
            axes,
            index,
            device_ids,
        })
    }

    /// Shardy's `MeshAxisAttr::verify` and `MeshAttr::verify`.
    pub(super) fn check(&self) -> Result<(), String> {
        for (_, size) in &self.axes {
            if *size <= 0 {
                return Err(format!("axis size must be at least 1, got: {size}"));
            }
        }
        if let Some(id) = self.device_ids.iter().find(|&&d| d < 0) {
            return Err(format!("device id must be non-negative, got: {id}"));
        }
        if self.axes.is_empty() {
            if self.device_ids.len() > 1 {
                return Err("axes is empty and device_ids has more than one element".into());
            }
            return Ok(());
        }
        if self.index.len() != self.axes.len() {
            let mut seen = FastMap::default();
            for (n, _) in &self.axes {
                if seen.insert(n.as_str(), ()).is_some() {
                    return Err(format!("duplicate axis name: \"{n}\""));
                }
            }
        }
        if self.device_ids.is_empty() {
            return Ok(());
        }
        let total = self
            .axes
            .iter()
            .try_fold(1i64, |acc, (_, s)| acc.checked_mul(*s));
        let count = self.device_ids.len() as i64;
        if total != Some(count) {
            let total =
                total.map_or_else(|| "an overflowing product".to_string(), |t| t.to_string());
            return Err(format!(
                "total product of axis sizes must match total number of device ids, got: {total} != {count}"
            ));
        }
        let mut sorted = self.device_ids.clone();
        sorted.sort_unstable();
        if sorted.iter().enumerate().any(|(i, &d)| d != i as i64) {
            let shown: Vec<String> = sorted.iter().map(i64::to_string).collect();
            return Err(format!(
                "sorted device ids must be iota(product(axes)), got: {}",
                shown.join(", ")
            ));
        }
        if self.device_ids.windows(2).all(|w| w[0] <= w[1]) {
            return Err("if the ordered device ids are the same as iota(product(axes)), no need to specify them for simplicity".into());
        }
        Ok(())
    }

    pub(super) fn is_empty(&self) -> bool {
        self.axes.is_empty() && self.device_ids.is_empty()
    }

    pub(super) fn is_maximal(&self) -> bool {
        self.axes.is_empty() && self.device_ids.len() == 1
    }

    pub(super) fn axis_index(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }
}

/// An axis ref: name and optional sub-axis (pre-size, size).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct AxisRef {
    pub(super) name: String,
    pub(super) sub: Option<(i64, i64)>,
}

impl AxisRef {
    pub(super) fn of(m: &Module, sdy: crate::ir::Symbol, a: Attribute) -> Option<AxisRef> {
        let p = sdy_params(m, sdy, a, "axis_ref")?;
        let name = match p.first() {
            Some(Param::Str(n)) => m.str(*n).to_string(),
            _ => return None,
        };
        let sub = match p.get(1) {
            Some(Param::Attr(s)) => match sdy_params(m, sdy, *s, "sub_axis_info")? {
                [Param::Int(pre), Param::Int(size)] => Some((*pre, *size)),
                _ => return None,
            },
            _ => None,
        };
        Some(AxisRef { name, sub })
    }

    pub(super) fn text(&self) -> String {
        match self.sub {
            Some((pre, size)) => format!("\"{}\":({pre}){size}", self.name),
            None => format!("\"{}\"", self.name),
        }
    }

    /// Shardy's order within one axis name: the full axis first unless a sub-axis starts at 1;
    /// sub-axes by pre-size, then size.
    pub(super) fn same_name_less(&self, rhs: &AxisRef) -> bool {
        match (self.sub, rhs.sub) {
            (None, None) => false,
            (None, Some((pre, _))) => pre > 1,
            (Some((pre, _)), None) => pre == 1,
            (Some(a), Some(b)) => a < b,
        }
    }

    /// Mergeable with the next sub-axis of the same axis: `rhs` starts where `self` ends.
    pub(super) fn can_merge(&self, rhs: &AxisRef) -> bool {
        match (self.sub, rhs.sub) {
            (Some((pre, size)), Some((rpre, _))) => self.name == rhs.name && pre * size == rpre,
            _ => false,
        }
    }
}

pub(super) fn mesh_of(
    m: &Module,
    meshes: &Meshes,
    sdy: crate::ir::Symbol,
    sharding: Attribute,
) -> Option<Rc<Result<Mesh, String>>> {
    let p = sdy_params(m, sdy, sharding, "sharding")?;
    let Some(Param::Attr(mesh_or_ref)) = p.first() else {
        return None;
    };
    let mesh = match m.attr_data(*mesh_or_ref) {
        AttrData::SymbolRef { root, nested } if nested.is_empty() => meshes.get(*root)?,
        _ => *mesh_or_ref,
    };
    meshes.decoded(m, sdy, mesh)
}

/// No dimension is sharded and nothing is replicated or unreduced explicitly.
pub(super) fn fully_replicated(m: &Module, sdy: crate::ir::Symbol, sharding: Attribute) -> bool {
    let Some(p) = sdy_params(m, sdy, sharding, "sharding") else {
        return false;
    };
    attrs(p.get(1)).iter().all(|&d| {
        sdy_params(m, sdy, d, "dimension_sharding").is_some_and(|q| attrs(q.first()).is_empty())
    }) && attrs(p.get(2)).is_empty()
        && attrs(p.get(3)).is_empty()
}

/// One `#sdy.sharding` against the type of its value (`None`: no value); Shardy's message.
pub(super) fn tensor(
    m: &Module,
    meshes: &Meshes,
    sdy: crate::ir::Symbol,
    sharding: Attribute,
    ty: Option<Type>,
    bound: &Bound,
) -> Option<String> {
    let p = sdy_params(m, sdy, sharding, "sharding")?;
    let Some(decoded) = mesh_of(m, meshes, sdy, sharding) else {
        let name = match p.first() {
            Some(Param::Attr(a)) => match m.attr_data(*a) {
                AttrData::SymbolRef { root, .. } => format!("@{}", m.str(*root)),
                _ => "?".into(),
            },
            _ => "?".into(),
        };
        return Some(format!("unknown mesh: {name}"));
    };
    let mesh = match &*decoded {
        Ok(mesh) => mesh,
        Err(e) => return Some(e.clone()),
    };
    let dims = attrs(p.get(1));
    let replicated = attrs(p.get(2));
    let unreduced = attrs(p.get(3));
    let rank0_only = dims.is_empty() && replicated.is_empty() && unreduced.is_empty();
    if mesh.is_maximal() || (ty.is_none() && fully_replicated(m, sdy, sharding)) {
        return (!rank0_only).then(|| {
            "a maximal sharding can only have a sharding with rank 0 and no replicated or unreduced axes.".into()
        });
    }
    let mut ty = ty?;
    if let TypeData::Tuple(elems) = m.type_data(ty) {
        if elems.len() != 1 {
            return Some(format!(
                "ops can only have a sharding for a tuple of size 1: {}",
                crate::text::type_to_string(m, ty)
            ));
        }
        ty = elems[0];
    }
    let shape = match m.type_data(ty) {
        TypeData::RankedTensor { shape, .. } => shape.clone(),
        TypeData::UnrankedTensor { .. } => {
            return Some(format!(
                "only ranked tensors can have a sharding. type: {}",
                crate::text::type_to_string(m, ty)
            ))
        }
        _ => {
            return (!rank0_only).then(|| {
                format!(
                    "non-shaped tensors can only have a sharding with rank 0 and no replicated or unreduced axes. type: {}",
                    crate::text::type_to_string(m, ty)
                )
            })
        }
    };
    if dims.len() != shape.len() {
        return Some(format!(
            "sharding doesn't match tensor rank: {} != {}",
            dims.len(),
            shape.len()
        ));
    }
    let mut seen: Seen = Seen::default();
    for (dim, &d) in dims.iter().enumerate() {
        let q = sdy_params(m, sdy, d, "dimension_sharding")?;
        let closed = matches!(q.get(1), Some(Param::Bool(true)));
        let axes = attrs(q.first());
        if let Some(Param::UInt(priority)) = q.get(2) {
            if i64::try_from(*priority).is_err() {
                return Some(format!("dim {dim} has a negative priority"));
            }
            if closed && axes.is_empty() {
                return Some(format!("dim {dim} is empty and closed but has a priority"));
            }
        }
        if let Some(e) = axis_list(m, sdy, mesh, axes, &mut seen) {
            return Some(e);
        }
    }
    for (list, what) in [(replicated, "replicated"), (unreduced, "unreduced")] {
        let refs: Vec<AxisRef> = list
            .iter()
            .filter_map(|&a| AxisRef::of(m, sdy, a))
            .collect();
        let sorted = refs.windows(2).all(|w| !mesh_less(mesh, &w[1], &w[0]));
        if !sorted {
            return Some(format!("{what} axes are not ordered w.r.t. mesh"));
        }
        if let Some(e) = axis_list(m, sdy, mesh, list, &mut seen) {
            return Some(e);
        }
    }
    sub_axes(mesh, &seen).or_else(|| bound_axis(bound, &seen))
}

/// Shardy's order of axis refs for a mesh: by the axes' order in the mesh, then within a name.
pub(super) fn mesh_less(mesh: &Mesh, a: &AxisRef, b: &AxisRef) -> bool {
    if a.name == b.name {
        return a.same_name_less(b);
    }
    match (mesh.axis_index(&a.name), mesh.axis_index(&b.name)) {
        (Some(x), Some(y)) => x < y,
        _ => a.name < b.name,
    }
}

/// An axis-ref list: known names, no axis ref twice (across the whole sharding), no two
/// consecutive sub-axes that merge.
pub(super) fn axis_list(
    m: &Module,
    sdy: crate::ir::Symbol,
    mesh: &Mesh,
    list: &[Attribute],
    seen: &mut Seen,
) -> Option<String> {
    let mut prev: Option<AxisRef> = None;
    for &a in list {
        let r = AxisRef::of(m, sdy, a)?;
        if mesh.axis_index(&r.name).is_none() {
            return Some(format!("unknown axis name: \"{}\"", r.name));
        }
        if !seen.refs.insert(r.clone()) {
            return Some(format!("duplicate axis ref: {}", r.text()));
        }
        seen.order.push(r.clone());
        if r.sub.is_some() {
            if let Some(p) = prev.as_ref().filter(|p| p.can_merge(&r)) {
                return Some(format!(
                    "two consecutive sub-axes can be merged: {}, {}",
                    p.text(),
                    r.text()
                ));
            }
        }
        prev = Some(r);
    }
    None
}

/// The axis refs a sharding uses: a set for duplicates, and the order they came in.
#[derive(Default)]
pub(super) struct Seen {
    pub(super) refs: FastSet<AxisRef>,
    pub(super) order: Vec<AxisRef>,
}

/// The sub-axes used, per axis: valid sizes, within the full axis, not overlapping, and not used
/// beside the full axis. Linear in the refs: grouped by axis once, each group sorted.
pub(super) fn sub_axes(mesh: &Mesh, seen: &Seen) -> Option<String> {
    let mut groups: FastMap<usize, (bool, Vec<&AxisRef>)> = FastMap::default();
    for r in &seen.order {
        let Some(i) = mesh.axis_index(&r.name) else {
            continue;
        };
        let g = groups.entry(i).or_default();
        match r.sub {
            Some(_) => g.1.push(r),
            None => g.0 = true,
        }
    }
    let mut axes: Vec<usize> = groups
        .iter()
        .filter(|(_, g)| !g.1.is_empty())
        .map(|(&i, _)| i)
        .collect();
    axes.sort_unstable();
    for i in axes {
        let (Some((name, size)), Some((full, subs))) = (mesh.axes.get(i), groups.get_mut(&i))
        else {
            continue;
        };
        if *full {
            return Some(format!(
                "both sub-axis and full-axis are used for axis name: \"{name}\""
            ));
        }
        subs.sort_by(|a, b| {
            if a.same_name_less(b) {
                std::cmp::Ordering::Less
            } else if b.same_name_less(a) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
        let mut prev: Option<&AxisRef> = None;
        for &r in subs.iter() {
            let Some((pre, sub)) = r.sub else { continue };
            if pre < 1 {
                return Some(format!(
                    "sub-axis pre-size must be at least 1: {}",
                    r.text()
                ));
            }
            if sub <= 1 {
                return Some(format!(
                    "sub-axis sizes must be greater than 1: {}",
                    r.text()
                ));
            }
            let next = pre.saturating_mul(sub);
            if next == 0 || size % next != 0 {
                return Some(format!(
                    "sub-axis next pre-size {next} doesn't divide the size of the full axis {size}: {}",
                    r.text()
                ));
            }
            if sub == *size {
                return Some(format!(
                    "sub-axis size is equal to the full axis size: {}",
                    r.text()
                ));
            }
            if let Some(p) = prev {
                let prev_next = p.sub.map_or(1, |(pp, ps)| pp.saturating_mul(ps));
                if prev_next > pre {
                    return Some(format!("overlapping sub-axes: {}, {}", p.text(), r.text()));
                }
            }
            prev = Some(r);
        }
    }
    None
}

/// The manual axes bound around an op by its enclosing `sdy.manual_computation`s (Shardy's
/// `getParentManualComputationOps`), by axis name.
pub(super) type Bound = FastSet<String>;

/// The first axis of a sharding already bound by an enclosing manual computation.
pub(super) fn bound_axis(bound: &Bound, seen: &Seen) -> Option<String> {
    let r = seen.order.iter().find(|r| bound.contains(&r.name))?;
    Some(format!(
        "operates on axis \"{}\" which is already bound by a parent sdy.manual_computation op",
        r.name
    ))
}
