//! The dialect-attribute codec engine: reads and writes the bytecode of a dialect's attributes from
//! its tables (`dialect::codec`, generated from `spec/dialects/*.yaml`), one parameter kind at a
//! time. Reading and writing sit side by side so each kind's wire form is stated twice, next to
//! itself. The model is MLIR's `BuiltinDialectBytecode.td`: an entry is a code then the encoded
//! parameters; a versioned attribute has several encodings and the writer takes the first whose
//! condition holds.

use super::encoding::Cursor;
use super::BytecodeError;
use crate::dialect::codec::{CodecCondition, CodecDefault, CodecDialect, CodecKind, CodecParam};
use crate::ir::{AttrData, Attribute, DialectAttr, Module, Param, Symbol};

type Result<T> = std::result::Result<T, BytecodeError>;

/// What the engine reads through (the bytecode reader's attribute references and strings).
pub(super) trait CodecSource {
    fn string(&mut self, c: &mut Cursor<'_>) -> Result<Symbol>;
    fn attr(&mut self, c: &mut Cursor<'_>) -> Result<Attribute>;
    fn attr_at(&mut self, c: &Cursor<'_>, idx: usize) -> Result<Attribute>;
    fn module(&mut self) -> &mut Module;
}

/// What the engine writes through (the writer's numbering and emission passes).
pub(super) trait CodecSink {
    fn varint(&mut self, v: u64);
    fn byte(&mut self, b: u8);
    fn signed_varint(&mut self, v: i64);
    fn string(&mut self, m: &Module, s: Symbol);
    fn attr(&mut self, m: &mut Module, a: Attribute) -> std::result::Result<(), String>;
    fn opt_attr(&mut self, m: &mut Module, a: Option<Attribute>)
        -> std::result::Result<(), String>;
}

/// Reads one attribute entry of dialect `d` (`dialect` is its interned name).
pub(super) fn read_attr(
    d: &CodecDialect,
    dialect: Symbol,
    src: &mut dyn CodecSource,
    c: &mut Cursor<'_>,
) -> Result<AttrData> {
    let at = c.offset();
    let code = c.varint()?;
    let enc = d
        .encoding(code)
        .ok_or_else(|| c.err_at(at, format!("unknown {} attribute code {code}", d.name)))?;
    let attr = d
        .attrs
        .get(enc.attr)
        .ok_or_else(|| c.err_at(at, "encoding of an unknown attribute"))?;
    let mut params: Vec<Param> = vec![Param::Absent; attr.params.len()];
    for &f in enc.fields {
        let p = attr
            .params
            .get(f)
            .ok_or_else(|| c.err_at(at, "encoding field out of range"))?;
        let field_at = c.offset();
        let value = read_param(p, src, c)?;
        d.check_param(p, src.module(), &value).map_err(|e| {
            c.err_at(
                field_at,
                format!("#{}.{} parameter '{}': {e}", d.name, attr.mnemonic, p.name),
            )
        })?;
        if let Some(slot) = params.get_mut(f) {
            *slot = value;
        }
    }
    for &(p, default) in enc.defaults {
        let kind = attr.params.get(p).map(|p| p.kind);
        let value = match (default, kind) {
            (CodecDefault::Empty, Some(CodecKind::SVarInts)) => Param::Ints(Box::new([])),
            (CodecDefault::Empty, _) => Param::Attrs(Box::new([])),
            (CodecDefault::Int(v), _) => Param::Int(v),
        };
        if let Some(slot) = params.get_mut(p) {
            *slot = value;
        }
    }
    let mnemonic = src.module().sym(attr.mnemonic);
    Ok(AttrData::Dialect(DialectAttr {
        dialect,
        mnemonic,
        params: params.into(),
    }))
}

fn read_param(p: &CodecParam, src: &mut dyn CodecSource, c: &mut Cursor<'_>) -> Result<Param> {
    Ok(match p.kind {
        CodecKind::String => Param::Str(src.string(c)?),
        CodecKind::SVarInt => Param::Int(c.signed_varint()?),
        CodecKind::Bool => {
            let at = c.offset();
            match c.byte()? {
                0 => Param::Bool(false),
                1 => Param::Bool(true),
                v => return Err(c.err_at(at, format!("{v} is not a boolean"))),
            }
        }
        CodecKind::OptVarInt => match c.varint_with_flag()? {
            (v, true) => Param::UInt(v),
            (0, false) => Param::Absent,
            _ => return Err(c.err("absent optional integer with a value")),
        },
        CodecKind::Attr => Param::Attr(src.attr(c)?),
        CodecKind::OptAttr => match c.varint_with_flag()? {
            (idx, true) => {
                let idx = usize::try_from(idx).map_err(|_| c.err("attribute index too large"))?;
                Param::Attr(src.attr_at(c, idx)?)
            }
            (0, false) => Param::Absent,
            _ => return Err(c.err("absent optional attribute with an index")),
        },
        CodecKind::Attrs => {
            let n = c.count(1)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(src.attr(c)?);
            }
            Param::Attrs(items.into())
        }
        CodecKind::SVarInts => {
            let n = c.count(1)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(c.signed_varint()?);
            }
            Param::Ints(items.into())
        }
    })
}

/// Writes attribute `mnemonic` of dialect `d` with `params`; picks the encoding by its conditions.
pub(super) fn write_attr(
    d: &CodecDialect,
    m: &mut Module,
    mnemonic: &str,
    params: &[Param],
    w: &mut dyn CodecSink,
) -> std::result::Result<(), String> {
    let (index, attr) = d.attr(mnemonic).ok_or_else(|| {
        format!(
            "#{}.{mnemonic} is not an attribute of the {} dialect",
            d.name, d.name
        )
    })?;
    if params.len() != attr.params.len() {
        return Err(format!(
            "#{}.{mnemonic} has {} parameters, expected {}",
            d.name,
            params.len(),
            attr.params.len()
        ));
    }
    for (p, v) in attr.params.iter().zip(params) {
        d.check_param(p, m, v)
            .map_err(|e| format!("#{}.{mnemonic} parameter '{}': {e}", d.name, p.name))?;
    }
    let enc = d
        .encodings
        .iter()
        .filter(|e| e.attr == index)
        .find(|e| e.when.iter().all(|c| holds(m, c, params)))
        .ok_or_else(|| format!("no encoding of #{}.{mnemonic} fits its parameters", d.name))?;
    w.varint(enc.code);
    for &f in enc.fields {
        let (Some(p), Some(v)) = (attr.params.get(f), params.get(f)) else {
            return Err(format!(
                "#{}.{mnemonic}: encoding field out of range",
                d.name
            ));
        };
        write_param(p, v, m, w)?;
    }
    // The parameters left out must hold their defaults, or the entry would read back different.
    for &(p, default) in enc.defaults {
        let ok = match (default, params.get(p)) {
            (CodecDefault::Empty, Some(Param::Attrs(a))) => a.is_empty(),
            (CodecDefault::Empty, Some(Param::Ints(a))) => a.is_empty(),
            (CodecDefault::Int(v), Some(Param::Int(x))) => v == *x,
            _ => false,
        };
        if !ok {
            let name = attr.params.get(p).map_or("?", |p| p.name);
            return Err(format!(
                "#{}.{mnemonic}: encoding {} cannot carry '{name}'",
                d.name, enc.code
            ));
        }
    }
    Ok(())
}

fn write_param(
    p: &CodecParam,
    v: &Param,
    m: &mut Module,
    w: &mut dyn CodecSink,
) -> std::result::Result<(), String> {
    match (p.kind, v) {
        (CodecKind::String, Param::Str(s)) => w.string(m, *s),
        (CodecKind::SVarInt, Param::Int(i)) => w.signed_varint(*i),
        (CodecKind::Bool, Param::Bool(b)) => w.byte(u8::from(*b)),
        (CodecKind::OptVarInt, Param::UInt(u)) => {
            if *u >> 63 != 0 {
                return Err(format!("'{}' value {u} does not fit", p.name));
            }
            w.varint((u << 1) | 1)
        }
        (CodecKind::OptVarInt, Param::Absent) => w.varint(0),
        (CodecKind::Attr, Param::Attr(a)) => w.attr(m, *a)?,
        (CodecKind::OptAttr, Param::Attr(a)) => w.opt_attr(m, Some(*a))?,
        (CodecKind::OptAttr, Param::Absent) => w.opt_attr(m, None)?,
        (CodecKind::Attrs, Param::Attrs(items)) => {
            w.varint(items.len() as u64);
            for &a in items.iter() {
                w.attr(m, a)?;
            }
        }
        (CodecKind::SVarInts, Param::Ints(items)) => {
            w.varint(items.len() as u64);
            for &i in items.iter() {
                w.signed_varint(i);
            }
        }
        _ => return Err(format!("'{}' is not a {:?}", p.name, p.kind)),
    }
    Ok(())
}

/// Whether `c` holds of an attribute with `params`.
fn holds(m: &Module, c: &CodecCondition, params: &[Param]) -> bool {
    match *c {
        CodecCondition::Empty { param, empty } => match params.get(param) {
            Some(Param::Attrs(a)) => a.is_empty() == empty,
            Some(Param::Ints(a)) => a.is_empty() == empty,
            _ => false,
        },
        CodecCondition::Equals {
            param,
            value,
            equal,
        } => match params.get(param) {
            Some(Param::Int(v)) => (*v == value) == equal,
            _ => false,
        },
        CodecCondition::Elements {
            param,
            every,
            inner,
        } => {
            let Some(Param::Attrs(items)) = params.get(param) else {
                return false;
            };
            let test = |a: &Attribute| match m.attr_data(*a) {
                AttrData::Dialect(d) => holds(m, inner, &d.params),
                _ => false,
            };
            if every {
                items.iter().all(test)
            } else {
                items.iter().any(test)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vhlo::codec_dialect;

    /// Records what the engine writes: varints, bytes, strings and attribute references.
    #[derive(Default)]
    struct Recorder(Vec<String>);

    impl CodecSink for Recorder {
        fn varint(&mut self, v: u64) {
            self.0.push(format!("v{v}"));
        }
        fn byte(&mut self, b: u8) {
            self.0.push(format!("b{b}"));
        }
        fn signed_varint(&mut self, v: i64) {
            self.0.push(format!("s{v}"));
        }
        fn string(&mut self, m: &Module, s: Symbol) {
            self.0.push(format!("'{}'", m.str(s)));
        }
        fn attr(&mut self, _: &mut Module, _: Attribute) -> std::result::Result<(), String> {
            self.0.push("a".into());
            Ok(())
        }
        fn opt_attr(
            &mut self,
            _: &mut Module,
            a: Option<Attribute>,
        ) -> std::result::Result<(), String> {
            self.0.push(if a.is_some() { "a?" } else { "-" }.into());
            Ok(())
        }
    }

    fn encode(text: &str) -> String {
        let d = codec_dialect("sdy").expect("sdy tables");
        let mut m = Module::new();
        let a =
            crate::text::parse_attribute(&mut m, text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let AttrData::Dialect(x) = m.attr_data(a).clone() else {
            panic!("{text} is not a dialect attribute")
        };
        let mnemonic = m.str(x.mnemonic).to_string();
        let mut r = Recorder::default();
        write_attr(d, &mut m, &mnemonic, &x.params, &mut r)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        r.0.join(" ")
    }

    /// Each of bytecode.td's 18 entries, with the wire form of its parameters; the versioned
    /// shardings pick their entry by the spec's conditions.
    #[test]
    fn every_encoding_writes_its_parameters() {
        let cases = [
            (r#"#sdy<manual_axes{"a", "b"}>"#, "v0 v2 a a"),
            (
                r#"#sdy.mesh<["a"=2], device_ids=[1, 0]>"#,
                "v2 v1 a v2 s1 s0",
            ),
            (r#"#sdy.mesh<[]>"#, "v2 v0 v0"),
            (
                r#"#sdy.sharding<@m, [{"a":(1)2, ?}p3, {}], replicated={"b"}>"#,
                "v6 a v2 a a v1 a",
            ),
            (
                r#"#sdy.sharding<@m, [{}], unreduced={"b"}>"#,
                "v15 a v1 a v0 v1 a",
            ),
            (
                r#"#sdy.sharding<@m, [{}], unreduced=max{"b"}>"#,
                "v17 a v1 a v0 v1 a s1",
            ),
            (r#"#sdy.sharding_per_value<[<@m, [{}]>]>"#, "v7 v1 a"),
            (
                r#"#sdy.sharding_per_value<[<@m, [{}]>, <@m, [{}], unreduced={"b"}>]>"#,
                "v16 v2 a a",
            ),
            (
                r#"#sdy.op_sharding_rule<([ij, k])->([ij]) {i=2, j=3, k=4} reduction={k} need_replication={i} permutation={j} blocked_propagation={k}, custom>"#,
                "v10 v3 s2 s3 s4 v1 a v1 a v1 s2 v1 s0 v1 s1 v1 s2 b1",
            ),
            (r#"#sdy<axis_ref_list{"a"}>"#, "v11 v1 a"),
            (r#"#sdy<list_of_axis_ref_lists[{"a"}, {}]>"#, "v12 v2 a a"),
            (r#"#sdy<all_to_all_param_list[{"a"}: 0->1]>"#, "v14 v1 a"),
        ];
        for (text, want) in cases {
            assert_eq!(encode(text), want, "{text}");
        }
    }

    /// The attributes that appear nested, spelled at top level (`#sdy<mnemonic stripped>`).
    #[test]
    fn nested_attributes_have_their_entries() {
        let cases = [
            (r#"#sdy<mesh_axis"a"=4>"#, "v1 'a' s4"),
            (r#"#sdy<sub_axis_info(1)2>"#, "v3 s1 s2"),
            (r#"#sdy<axis_ref"a":(1)2>"#, "v4 'a' a?"),
            (r#"#sdy<axis_ref"b">"#, "v4 'b' -"),
            (r#"#sdy<dimension_sharding{"a", ?}p3>"#, "v5 v1 a b0 v7"),
            (r#"#sdy<dimension_sharding{}>"#, "v5 v0 b1 v0"),
            (r#"#sdy<dim_mapping ijz_1>"#, "v8 v3 s0 s1 s18"),
            (r#"#sdy<tensor_mapping[i, jk]>"#, "v9 v2 a a"),
            (r#"#sdy<all_to_all_param{"a"}: 0->1>"#, "v13 v1 a s0 s1"),
        ];
        for (text, want) in cases {
            assert_eq!(encode(text), want, "{text}");
        }
    }

    /// A parameter of the wrong kind is refused, not written.
    #[test]
    fn wrong_parameters_are_refused() {
        let d = codec_dialect("sdy").expect("sdy tables");
        let mut m = Module::new();
        let mut r = Recorder::default();
        let err = write_attr(d, &mut m, "sub_axis_info", &[Param::Int(1)], &mut r).unwrap_err();
        assert!(err.contains("has 1 parameters, expected 2"), "{err}");
        let err = write_attr(
            d,
            &mut m,
            "sub_axis_info",
            &[Param::Int(1), Param::Bool(true)],
            &mut r,
        )
        .unwrap_err();
        assert!(err.contains("'size'"), "{err}");
    }
}
