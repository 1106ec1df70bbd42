//! `inspect`'s answer: the header, the versions and releases, the op histograms, the
//! functions, the custom calls, and the meshes and shardings of a [`Loaded`] program.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use vhlo_core::convert::Diagnostic;
use vhlo_core::ir::{AttrData, Attribute, Module, NamedAttr, OpId, Type, TypeData};
use vhlo_core::portable;
use vhlo_core::text::{attribute_to_string, location_to_string, type_to_string};
use vhlo_core::version::{Release, Version};
use vhlo_core::vhlo::{self, VhloOp};

use crate::{JaxExport, Loaded, Source};

/// Everything `inspect` says about a file.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub name: String,
    pub size: usize,
    /// `artifact`, `jax_export` or `text`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jax_export: Option<JaxExport>,
    /// The artifact header's producer (`StableHLO_v1.15.0`, `MLIRxxx-trunk`).
    pub producer: Option<String>,
    pub bytecode_version: Option<u64>,
    /// The StableHLO version the producer names (None when it names none, or for text).
    pub target_version: Option<String>,
    /// The version the artifact is read at: the target version, else the oldest release its ops
    /// allow (what `vhlo-translate` reads a `MLIRxxx-trunk` artifact at).
    pub read_at: Option<String>,
    /// This library's newest and oldest releases.
    pub current_version: String,
    pub oldest_version: String,
    /// The releases that read the artifact as it is (its version and later), oldest first.
    pub readable_by: Vec<ReleaseRow>,
    /// The oldest release the program can be written for, and the releases it can be retargeted
    /// to; absent until asked for (see [`Report::of`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Minimum>,
    /// The dialects of the program's ops as read (VHLO form), as `vhlo-translate inspect`.
    pub dialects: Vec<String>,
    /// The number of ops as read (VHLO form), as `vhlo-translate inspect`.
    pub ops: usize,
    /// The ops as read, by VHLO name, with the version range of each (`inspect`'s histogram).
    pub vhlo_histogram: Vec<VhloCount>,
    /// Why text could not be legalized to VHLO (then it cannot be written as an artifact).
    pub vhlo_blockers: Vec<Diagnostic>,
    /// The ops of the program as StableHLO, by name, most frequent first.
    pub histogram: Vec<OpCount>,
    pub stablehlo_ops: usize,
    pub functions: Vec<Function>,
    pub custom_calls: Vec<CustomCall>,
    pub meshes: Vec<Mesh>,
    /// The first [`SHARDINGS_SHOWN`] shardings; `shardings_total` counts them all.
    pub shardings: Vec<Sharding>,
    pub shardings_total: usize,
}

/// How many sharding annotations a report lists.
pub const SHARDINGS_SHOWN: usize = 500;

/// A release of StableHLO.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ReleaseRow {
    pub version: String,
    /// The upstream tag date, where a tag exists.
    pub date: Option<&'static str>,
    pub bytecode_version: u8,
}

impl From<&Release> for ReleaseRow {
    fn from(r: &Release) -> ReleaseRow {
        ReleaseRow {
            version: r.version.to_string(),
            date: r.date,
            bytecode_version: r.bytecode_version,
        }
    }
}

/// The oldest release a program can be written for.
#[derive(Clone, Debug, Serialize)]
pub struct Minimum {
    /// None when no release can hold the program (`blockers` says why).
    pub version: Option<String>,
    pub blockers: Vec<Diagnostic>,
    /// The releases the program can be written for (retargeted to), oldest first.
    pub writable_for: Vec<ReleaseRow>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct OpCount {
    pub op: String,
    pub count: usize,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct VhloCount {
    pub op: String,
    pub count: usize,
    /// The op version's range of releases (`0.9.0..=current`), when it is a VHLO op.
    pub range: Option<String>,
}

/// A `func.func`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// `public` or `private`.
    pub visibility: String,
    pub args: Vec<Value>,
    pub results: Vec<Value>,
    /// The ops in its body, nested ones included.
    pub ops: usize,
    /// `@name(%arg0: T {attrs}, ...) -> (R, ...)`.
    pub signature: String,
}

/// An argument or result of a function.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Value {
    #[serde(rename = "type")]
    pub ty: String,
    /// Its attribute dictionary (`{sdy.sharding = ...}`), when not empty.
    pub attrs: Option<String>,
}

#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CustomCall {
    pub target: String,
    pub count: usize,
    /// The first call's location and `api_version`.
    pub location: String,
    pub api_version: Option<String>,
}

/// An `sdy.mesh`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Mesh {
    pub name: String,
    pub mesh: String,
    /// `(name, size)` of each axis, when the mesh attribute lists them.
    pub axes: Vec<(String, i64)>,
}

/// A sharding annotation: on a function's argument or result, or on an op.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Sharding {
    /// `@main` for a function's argument or result, else the op's name.
    pub owner: String,
    /// `argument 0`, `result 1`, or the op's location.
    pub place: String,
    /// The attribute's name (`sdy.sharding`, `mhlo.sharding`, `sharding`, `in_shardings`).
    pub attr: String,
    pub value: String,
}

fn attr_of(m: &Module, op: OpId, name: &str) -> Option<Attribute> {
    m.property(op, name).or_else(|| m.attribute(op, name))
}

fn str_attr(m: &Module, a: Option<Attribute>) -> Option<String> {
    match m.attr_data(a?) {
        AttrData::String { value, .. } => Some(m.str(*value).to_string()),
        _ => None,
    }
}

/// The entries of an array of dictionaries (`arg_attrs`), one per index.
fn dictionaries(m: &Module, a: Option<Attribute>) -> Vec<Option<Attribute>> {
    match a.map(|a| m.attr_data(a)) {
        Some(AttrData::Array(items)) => items.iter().map(|&d| Some(d)).collect(),
        _ => Vec::new(),
    }
}

fn dict_entries(m: &Module, d: Option<Attribute>) -> Vec<(String, Attribute)> {
    match d.map(|d| m.attr_data(d)) {
        Some(AttrData::Dictionary(es)) => {
            es.iter().map(|&(k, v)| (m.str(k).to_string(), v)).collect()
        }
        _ => Vec::new(),
    }
}

fn is_sharding_attr(name: &str) -> bool {
    name.contains("sharding") && !name.ends_with("_rule") && !name.ends_with("_group")
}

fn count_ops(m: &Module, op: OpId) -> usize {
    let mut n = 0;
    let mut stack: Vec<OpId> = vec![op];
    while let Some(o) = stack.pop() {
        for &r in m.regions(o) {
            for &b in m.blocks(r) {
                let ops = m.block_ops(b);
                n += ops.len();
                stack.extend_from_slice(ops);
            }
        }
    }
    n
}

/// The elements of a printed array attribute (`[{a = 1}, {}, {b = "x, y"}]`), split at its
/// top-level commas (outside strings and brackets); None when `text` is not an array.
pub fn split_printed_array(text: &str) -> Option<Vec<&str>> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    let mut out = Vec::new();
    let (mut depth, mut start, mut in_string, mut escaped) = (0i32, 0usize, false, false);
    let bytes = inner.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            b'"' => in_string = true,
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            // `->` of a function type is no bracket.
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b',' if depth == 0 => {
                out.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    if depth != 0 || in_string {
        return None;
    }
    let last = inner[start..].trim();
    if !last.is_empty() || !out.is_empty() {
        out.push(last);
    }
    Some(out)
}

/// The printed attribute dictionaries of a function's arguments or results, one per index
/// (None for an empty one). The array is printed once and split: each
/// `text::attribute_to_string` call costs time in proportion to the module's interned
/// attributes, which a large JAX function has hundreds of thousands of, and its `main` as many
/// arguments.
fn printed_dictionaries(m: &Module, a: Option<Attribute>, n: usize) -> Vec<Option<String>> {
    let Some(a) = a else {
        return vec![None; n];
    };
    let entries = dictionaries(m, Some(a));
    let printed = attribute_to_string(m, a);
    let pieces = split_printed_array(&printed).filter(|p| p.len() == entries.len());
    (0..n)
        .map(|i| {
            let d = entries.get(i).copied().flatten();
            if dict_entries(m, d).is_empty() {
                return None;
            }
            match &pieces {
                Some(p) => p.get(i).map(|s| s.to_string()),
                None => d.map(|d| attribute_to_string(m, d)),
            }
        })
        .collect()
}

fn function(m: &Module, op: OpId, types: &mut HashMap<Type, String>) -> Function {
    let name = str_attr(m, attr_of(m, op, "sym_name")).unwrap_or_default();
    let visibility =
        str_attr(m, attr_of(m, op, "sym_visibility")).unwrap_or_else(|| "public".into());
    let (inputs, outputs) = match attr_of(m, op, "function_type").map(|a| m.attr_data(a)) {
        Some(AttrData::Type(t)) => match m.type_data(*t) {
            TypeData::Function { inputs, results } => (inputs.to_vec(), results.to_vec()),
            _ => (Vec::new(), Vec::new()),
        },
        _ => (Vec::new(), Vec::new()),
    };
    let arg_attrs = printed_dictionaries(m, attr_of(m, op, "arg_attrs"), inputs.len());
    let res_attrs = printed_dictionaries(m, attr_of(m, op, "res_attrs"), outputs.len());
    let mut values = |list: &[Type], attrs: Vec<Option<String>>| -> Vec<Value> {
        list.iter()
            .zip(attrs)
            .map(|(&t, attrs)| Value {
                ty: types
                    .entry(t)
                    .or_insert_with(|| type_to_string(m, t))
                    .clone(),
                attrs,
            })
            .collect()
    };
    let args = values(&inputs, arg_attrs);
    let results = values(&outputs, res_attrs);
    let with_attrs = |v: &Value| match &v.attrs {
        Some(a) => format!("{} {a}", v.ty),
        None => v.ty.clone(),
    };
    let signature = format!(
        "@{name}({}) -> ({})",
        args.iter()
            .enumerate()
            .map(|(i, v)| format!("%arg{i}: {}", with_attrs(v)))
            .collect::<Vec<_>>()
            .join(", "),
        results
            .iter()
            .map(with_attrs)
            .collect::<Vec<_>>()
            .join(", ")
    );
    Function {
        name,
        visibility,
        args,
        results,
        ops: count_ops(m, op),
        signature,
    }
}

/// A mesh attribute's axes (`#sdy.mesh<["x"=4, "y"=2]>`), read from its printed form.
fn mesh_axes(text: &str) -> Vec<(String, i64)> {
    let mut axes = Vec::new();
    let mut rest = text;
    while let Some(q) = rest.find('"') {
        let after = &rest[q + 1..];
        let Some(end) = after.find('"') else { break };
        let name = &after[..end];
        let tail = &after[end + 1..];
        if let Some(num) = tail.strip_prefix('=') {
            let digits: String = num.chars().take_while(|c| c.is_ascii_digit()).collect();
            if let Ok(n) = digits.parse() {
                axes.push((name.to_string(), n));
            }
        }
        rest = tail;
    }
    axes
}

impl Report {
    /// The report of `loaded`; with `minimum`, the oldest release too (which converts a large
    /// program several times: the page asks for it after its first view).
    pub fn of(loaded: &Loaded, minimum: bool) -> Report {
        let s = &loaded.stablehlo;
        let mut histogram: BTreeMap<&str, usize> = BTreeMap::new();
        let mut functions = Vec::new();
        let mut calls: BTreeMap<String, CustomCall> = BTreeMap::new();
        let mut meshes = Vec::new();
        let mut shardings = Vec::new();
        let mut shardings_total = 0usize;
        let mut stablehlo_ops = 0usize;
        let mut types = HashMap::new();
        // Shardings repeat: each distinct one is printed once (see `printed_dictionaries`).
        let mut printed: HashMap<Attribute, String> = HashMap::new();
        let mut note = |owner: String, place: String, attr: String, value: Attribute| {
            shardings_total += 1;
            if shardings.len() < SHARDINGS_SHOWN {
                let value = printed
                    .entry(value)
                    .or_insert_with(|| attribute_to_string(s, value))
                    .clone();
                shardings.push(Sharding {
                    owner,
                    place,
                    attr,
                    value,
                });
            }
        };
        s.walk(|op| {
            let name = s.op_name_str(op);
            stablehlo_ops += 1;
            *histogram.entry(name).or_default() += 1;
            match name {
                "func.func" => {
                    let f = function(s, op, &mut types);
                    for (place, attrs) in [("argument", "arg_attrs"), ("result", "res_attrs")] {
                        for (i, d) in dictionaries(s, attr_of(s, op, attrs))
                            .into_iter()
                            .enumerate()
                        {
                            for (k, v) in dict_entries(s, d) {
                                if is_sharding_attr(&k) {
                                    note(format!("@{}", f.name), format!("{place} {i}"), k, v);
                                }
                            }
                        }
                    }
                    functions.push(f);
                }
                "stablehlo.custom_call" => {
                    let target =
                        str_attr(s, attr_of(s, op, "call_target_name")).unwrap_or_default();
                    calls
                        .entry(target.clone())
                        .or_insert_with(|| CustomCall {
                            target,
                            count: 0,
                            location: location_to_string(s, s.op_location(op)),
                            api_version: attr_of(s, op, "api_version")
                                .map(|a| attribute_to_string(s, a)),
                        })
                        .count += 1;
                }
                "sdy.mesh" => {
                    let mesh = attr_of(s, op, "mesh")
                        .map(|a| attribute_to_string(s, a))
                        .unwrap_or_default();
                    meshes.push(Mesh {
                        name: str_attr(s, attr_of(s, op, "sym_name")).unwrap_or_default(),
                        axes: mesh_axes(&mesh),
                        mesh,
                    });
                }
                _ => {}
            }
            if name != "func.func" {
                let named: Vec<NamedAttr> = s
                    .properties(op)
                    .iter()
                    .chain(s.attributes(op))
                    .copied()
                    .collect();
                for a in named {
                    let k = s.str(a.name);
                    if is_sharding_attr(k) {
                        note(
                            name.to_string(),
                            location_to_string(s, s.op_location(op)),
                            k.to_string(),
                            a.value,
                        );
                    }
                }
            }
        });
        let mut histogram: Vec<OpCount> = histogram
            .into_iter()
            .map(|(op, count)| OpCount {
                op: op.to_string(),
                count,
            })
            .collect();
        histogram.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.op.cmp(&b.op)));

        let mut vhlo_histogram: BTreeMap<&str, usize> = BTreeMap::new();
        let mut dialects: BTreeMap<&str, ()> = BTreeMap::new();
        let mut ops = 0usize;
        if let Ok(v) = &loaded.vhlo {
            v.walk(|op| {
                let name = v.op_name_str(op);
                dialects.insert(name.split('.').next().unwrap_or(""), ());
                *vhlo_histogram.entry(name).or_default() += 1;
                ops += 1;
            });
        }
        let vhlo_histogram = vhlo_histogram
            .into_iter()
            .map(|(op, count)| VhloCount {
                op: op.to_string(),
                count,
                range: VhloOp::from_name(op).map(|k| k.range().to_string()),
            })
            .collect();

        let (kind, jax_export, producer, bytecode_version) = match &loaded.source {
            Source::Artifact {
                producer,
                bytecode_version,
            } => (
                "artifact",
                None,
                Some(producer.clone()),
                Some(*bytecode_version),
            ),
            Source::JaxExport {
                meta,
                producer,
                bytecode_version,
            } => (
                "jax_export",
                Some(meta.clone()),
                Some(producer.clone()),
                Some(*bytecode_version),
            ),
            Source::Text => ("text", None, None, None),
        };
        let target_version = producer
            .as_deref()
            .and_then(portable::producer_version)
            .and(loaded.version)
            .map(|v| v.to_string());
        let readable_by = match loaded.version {
            Some(at) => releases_from(at),
            None => Vec::new(),
        };
        Report {
            name: loaded.name.clone(),
            size: loaded.size,
            kind,
            jax_export,
            producer,
            bytecode_version,
            target_version,
            read_at: loaded.version.map(|v| v.to_string()),
            current_version: vhlo::CURRENT_VERSION.to_string(),
            oldest_version: vhlo::MINIMUM_VERSION.to_string(),
            readable_by,
            minimum: minimum.then(|| minimum_of(loaded)),
            dialects: dialects.keys().map(|d| d.to_string()).collect(),
            ops,
            vhlo_histogram,
            vhlo_blockers: loaded.vhlo.as_ref().err().cloned().unwrap_or_default(),
            histogram,
            stablehlo_ops,
            functions,
            custom_calls: calls.into_values().collect(),
            meshes,
            shardings,
            shardings_total,
        }
    }
}

/// The releases at `v` and later (patch ignored, as a reader of `v` reads `v.z` artifacts).
fn releases_from(v: Version) -> Vec<ReleaseRow> {
    vhlo::RELEASES
        .iter()
        .filter(|r| r.version.floor_patch() >= v.floor_patch())
        .map(ReleaseRow::from)
        .collect()
}

/// The oldest release `loaded` can be written for.
pub fn minimum_of(loaded: &Loaded) -> Minimum {
    match loaded.minimum_version() {
        Ok(v) => Minimum {
            version: Some(v.to_string()),
            blockers: Vec::new(),
            writable_for: releases_from(*v),
        },
        Err(ds) => Minimum {
            version: None,
            blockers: ds.clone(),
            writable_for: Vec::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_arrays_split_at_their_top_level_commas() {
        assert_eq!(
            split_printed_array(
                r#"[{a = 1 : i64}, {}, {b = "x, \"y]", c = [1, 2]}, {f = (i32) -> (i32, i32)}]"#
            ),
            Some(vec![
                "{a = 1 : i64}",
                "{}",
                r#"{b = "x, \"y]", c = [1, 2]}"#,
                "{f = (i32) -> (i32, i32)}"
            ])
        );
        assert_eq!(split_printed_array("[]"), Some(vec![]));
        assert_eq!(split_printed_array("[{}]"), Some(vec!["{}"]));
        assert_eq!(split_printed_array("{}"), None);
        assert_eq!(split_printed_array("[{]"), None);
    }

    #[test]
    fn mesh_axes_are_read_from_the_printed_mesh() {
        assert_eq!(
            mesh_axes(r#"#sdy.mesh<["x"=4, "y"=2]>"#),
            vec![("x".to_string(), 4), ("y".to_string(), 2)]
        );
        assert_eq!(mesh_axes("#sdy.mesh<[]>"), vec![]);
        // Device ids after the axes are not axes.
        assert_eq!(
            mesh_axes(r#"#sdy.mesh<["a"=2], device_ids=[1, 0]>"#),
            vec![("a".to_string(), 2)]
        );
    }
}
