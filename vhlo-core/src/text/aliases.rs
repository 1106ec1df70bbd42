//! MLIR's alias table: which types, attributes and locations print as `!name`/`#name` with a
//! `name = ...` definition at the top (or, for op locations, the bottom) of the file.
//!
//! The rules are those of MLIR's `AsmPrinter` with the dialect alias hooks of the dialects
//! this crate prints: builtin gives `#loc` to every location, `#map` to `affine_map<...>`,
//! `#set` to `affine_set<...>` and `!tuple` to tuples of more than 16 types;
//! sparse_tensor gives `#sparse` to its encodings. StableHLO, CHLO, VHLO and quant register
//! none. Every visited value gets an alias depth (1 for an aliased leaf, one more than its
//! deepest child otherwise); aliases are ordered by depth, types before attributes, then name,
//! then first visit, and repeated names get suffixes `1`, `2`, ... (`_1` after a trailing digit).

use std::fmt::Write;

use crate::ir::*;

/// A value that can have an alias. A location used as an attribute is its location.
pub(crate) use crate::ir::Node as AliasKey;

#[derive(Clone)]
struct Entry {
    key: AliasKey,
    name: Option<&'static str>,
    depth: u32,
    can_defer: bool,
    children: Vec<u32>,
}

/// Visited values and, after [`AliasTable::assign`], their alias names.
#[derive(Clone, Default)]
pub(crate) struct AliasTable {
    entries: Vec<Entry>,
    /// Entry index + 1 per type/attribute/location id; 0 = not visited. Vectors rather than hash
    /// maps: the printer looks every printed type up. Indexed by `AliasKey::slot`.
    slots: [Vec<u32>; 3],
    /// Per entry, its alias suffix (only meaningful for aliased entries).
    suffix: Vec<u32>,
    /// Aliased entries in definition order.
    order: Vec<u32>,
    has_type_aliases: bool,
    has_attr_aliases: bool,
    /// Nesting of the visit; past the guard children are not visited (the printer then prints
    /// `<<nested too deep>>` there).
    visit_depth: usize,
}

/// The alias a dialect's `getAlias` hook gives `key`, if any.
pub(crate) fn alias_name(m: &Module, key: AliasKey) -> Option<&'static str> {
    match key {
        AliasKey::Type(t) => match m.type_data(t) {
            TypeData::Tuple(ts) if ts.len() > 16 => Some("tuple"),
            _ => None,
        },
        AliasKey::Attr(a) => match m.attr_data(a) {
            AttrData::Opaque { dialect, text } => opaque_alias_name(m.str(*dialect), m.str(*text)),
            AttrData::Location(_) => Some("loc"),
            _ => None,
        },
        AliasKey::Loc(_) => Some("loc"),
    }
}

/// Alias of an attribute kept as text (see [`AttrData::Opaque`]).
pub(crate) fn opaque_alias_name(dialect: &str, text: &str) -> Option<&'static str> {
    match dialect {
        "" if text.starts_with("affine_map<") => Some("map"),
        "" if text.starts_with("affine_set<") => Some("set"),
        "sparse_tensor" if text.starts_with("#sparse_tensor.encoding<") => Some("sparse"),
        _ => None,
    }
}

/// The nested values MLIR visits when it looks for aliases inside `key`, in its order: those of
/// the interned DAG, except the type of an integer, float or dense array attribute and a
/// name location's unknown child.
fn sub_elements(m: &Module, key: AliasKey, out: &mut Vec<AliasKey>) {
    let skipped = match key {
        AliasKey::Attr(a) => matches!(
            m.attr_data(a),
            AttrData::Integer { .. }
                | AttrData::WideInteger { .. }
                | AttrData::Float { .. }
                | AttrData::DenseArray { .. }
        ),
        AliasKey::Loc(l) => matches!(m.loc_data(l),
            LocData::Name { child: Some(c), .. } if matches!(m.loc_data(*c), LocData::Unknown)),
        AliasKey::Type(_) => false,
    };
    if !skipped {
        crate::ir::children(m, key, out);
    }
}

impl AliasTable {
    fn slot(&self, key: AliasKey) -> Option<u32> {
        let (k, i) = key.slot();
        match self.slots[k].get(i) {
            Some(&s) if s > 0 => Some(s - 1),
            _ => None,
        }
    }

    fn set_slot(&mut self, key: AliasKey, entry: u32) {
        let (k, i) = key.slot();
        let v = &mut self.slots[k];
        if v.len() <= i {
            v.resize(i + 1, 0);
        }
        v[i] = entry + 1;
    }

    /// Records `key` and everything nested in it as printed (MLIR's `AliasInitializer::visit`);
    /// returns its alias depth and entry index. `can_defer`: the value is an op location (or
    /// nested in one), whose alias may be defined after the module.
    pub(crate) fn visit(&mut self, m: &Module, key: AliasKey, can_defer: bool) -> (u32, u32) {
        // A location attribute is the location itself.
        let key = match key {
            AliasKey::Attr(a) => match m.attr_data(a) {
                AttrData::Location(l) => AliasKey::Loc(*l),
                _ => key,
            },
            _ => key,
        };
        if let Some(i) = self.slot(key) {
            if !can_defer {
                self.mark_non_deferrable(i);
            }
            return (self.entries[i as usize].depth, i);
        }
        let i = self.entries.len() as u32;
        let name = alias_name(m, key);
        self.entries.push(Entry {
            key,
            name,
            depth: u32::from(name.is_some()),
            can_defer,
            children: Vec::new(),
        });
        self.set_slot(key, i);
        let mut nested = Vec::new();
        sub_elements(m, key, &mut nested);
        let mut children = Vec::with_capacity(nested.len());
        let mut max_depth = 0;
        if self.visit_depth < crate::ir::NESTING_GUARD {
            self.visit_depth += 1;
            for c in nested {
                let (d, ci) = self.visit(m, c, can_defer);
                children.push(ci);
                max_depth = max_depth.max(d);
            }
            self.visit_depth -= 1;
        }
        let e = &mut self.entries[i as usize];
        e.children = children;
        if max_depth > 0 {
            e.depth = max_depth + 1;
        }
        (e.depth, i)
    }

    fn mark_non_deferrable(&mut self, i: u32) {
        let mut stack = vec![i];
        while let Some(i) = stack.pop() {
            let e = &mut self.entries[i as usize];
            if !e.can_defer {
                continue;
            }
            e.can_defer = false;
            stack.extend(e.children.iter().copied());
        }
    }

    /// Orders the aliased values and numbers repeated names.
    pub(crate) fn assign(&mut self) {
        let mut order: Vec<u32> = (0..self.entries.len() as u32)
            .filter(|&i| self.entries[i as usize].name.is_some())
            .collect();
        // Stable: equal keys keep their visit order.
        order.sort_by_key(|&i| {
            let e = &self.entries[i as usize];
            (e.depth, !matches!(e.key, AliasKey::Type(_)), e.name)
        });
        self.suffix = vec![0; self.entries.len()];
        let mut counts: Vec<(&'static str, u32)> = Vec::new();
        for &i in &order {
            let e = &self.entries[i as usize];
            let name = e.name.unwrap_or("");
            let n = match counts.iter_mut().find(|c| c.0 == name) {
                Some(c) => {
                    c.1 += 1;
                    c.1 - 1
                }
                None => {
                    counts.push((name, 1));
                    0
                }
            };
            self.suffix[i as usize] = n;
            match e.key {
                AliasKey::Type(_) => self.has_type_aliases = true,
                AliasKey::Attr(_) => self.has_attr_aliases = true,
                AliasKey::Loc(_) => {}
            }
        }
        self.order = order;
    }

    /// Whether any type has an alias (a fast path for the printer).
    pub(crate) fn has_type_aliases(&self) -> bool {
        self.has_type_aliases
    }

    /// Whether any non-location attribute has an alias.
    pub(crate) fn has_attr_aliases(&self) -> bool {
        self.has_attr_aliases
    }

    /// The alias of `key` after [`Self::assign`]: its name and suffix.
    pub(crate) fn alias(&self, key: AliasKey) -> Option<(&'static str, u32)> {
        if self.order.is_empty() {
            return None;
        }
        let i = self.slot(key)? as usize;
        let name = self.entries[i].name?;
        Some((name, self.suffix.get(i).copied().unwrap_or(0)))
    }

    /// The aliased values defined before (`deferred` false) or after the module, in order.
    pub(crate) fn definitions(
        &self,
        deferred: bool,
    ) -> impl Iterator<Item = (AliasKey, &'static str, u32)> + '_ {
        self.order.iter().filter_map(move |&i| {
            let e = &self.entries[i as usize];
            (e.can_defer == deferred)
                .then(|| (e.key, e.name.unwrap_or(""), self.suffix[i as usize]))
        })
    }
}

/// `#name`, `#name3`, `!name` or `#name2_1` (a trailing digit in the name gets a `_`).
pub(crate) fn write_alias(out: &mut String, is_type: bool, name: &str, suffix: u32) {
    out.push(if is_type { '!' } else { '#' });
    out.push_str(name);
    if suffix > 0 {
        if name.ends_with(|c: char| c.is_ascii_digit()) {
            out.push('_');
        }
        let _ = write!(out, "{suffix}");
    }
}

#[cfg(test)]
mod tests {
    use super::write_alias;
    use crate::float::push_decimal;

    #[test]
    fn alias_names_and_decimals() {
        let mut out = String::new();
        write_alias(&mut out, false, "map", 0);
        write_alias(&mut out, true, "tuple", 12);
        write_alias(&mut out, false, "x2", 1);
        assert_eq!(out, "#map!tuple12#x2_1");
        for n in [0u32, 7, 10, 99, 100, 101, 1000, 65_535, 1_000_000, u32::MAX] {
            let mut s = String::new();
            push_decimal(&mut s, n);
            assert_eq!(s, n.to_string());
        }
    }
}
