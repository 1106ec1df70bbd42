//! The attributes of the dialects of `spec/dialects/` (Shardy) in bytecode, from their tables
//! (`dialect::codec`). As in MLIR's `BuiltinDialectBytecode.td`, an entry is a code then the
//! encoded parameters; a versioned attribute has several encodings, and the writer takes the first
//! whose conditions hold. The parameters are read and written by VHLO's engine
//! (`vhlo_codec::read_params`, `write_params`) from the encoding's wire steps, so each wire form
//! has one reader and one writer.

use super::encoding::Cursor;
use super::vhlo_codec::DialectWriter;
use super::vhlo_codec::{read_params, write_params, VhloSource};
use super::BytecodeError;
use super::WriteError;
use crate::dialect::codec::{CodecCondition, CodecDefault, CodecDialect};
use crate::dialect::Wire;
use crate::ir::{AttrData, Attribute, DialectAttr, Module, Param, Symbol};

/// Reads one attribute entry of dialect `d` (`dialect` is its interned name): its code picks the
/// encoding, whose wire steps VHLO's engine reads; then what each parameter holds is checked.
pub(super) fn read_attr<S: VhloSource>(
    d: &CodecDialect,
    dialect: Symbol,
    src: &mut S,
    c: &mut Cursor<'_>,
) -> Result<AttrData, BytecodeError> {
    let at = c.offset();
    let code = c.varint()?;
    let enc = d.encoding(code).ok_or_else(|| {
        c.err_at(at, format!("unknown {} attribute code {code}", d.name))
            .of_kind(super::BytecodeErrorKind::Unsupported)
    })?;
    let attr = d
        .attrs
        .get(enc.attr)
        .ok_or_else(|| c.err_at(at, "encoding of an unknown attribute"))?;
    let name = |i: usize| attr.params.get(i).map_or("?", |p| p.name);
    let what = (attr.mnemonic, attr.params.len(), name);
    let mut params = read_params(src, what, enc.wire, false, c)?;
    for step in enc.wire {
        let (Some(p), Some(value)) = (attr.params.get(step.param), params.get(step.param)) else {
            return Err(c.err_at(at, "encoding field out of range"));
        };
        d.check_param(p, src.module(), value).map_err(|e| {
            c.err_at(
                at,
                format!("#{}.{} parameter '{}': {e}", d.name, attr.mnemonic, p.name),
            )
        })?;
    }
    for &(p, default) in enc.defaults {
        let wire = attr.params.get(p).map(|p| p.wire);
        let value = match (default, wire) {
            (CodecDefault::Empty, Some(Wire::SVarInts)) => Param::Ints(Box::new([])),
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
        params,
    }))
}

/// Writes attribute `mnemonic` of dialect `d` with `params`; picks the encoding by its conditions.
pub(super) fn write_attr(
    d: &CodecDialect,
    m: &mut Module,
    mnemonic: &str,
    params: &[Param],
    w: &mut dyn DialectWriter,
) -> Result<(), WriteError> {
    let err = |s: String| WriteError(s);
    let (index, attr) = d.attr(mnemonic).ok_or_else(|| {
        err(format!(
            "#{}.{mnemonic} is not an attribute of the {} dialect",
            d.name, d.name
        ))
    })?;
    if params.len() != attr.params.len() {
        return Err(err(format!(
            "#{}.{mnemonic} has {} parameters, expected {}",
            d.name,
            params.len(),
            attr.params.len()
        )));
    }
    for (p, v) in attr.params.iter().zip(params) {
        d.check_param(p, m, v).map_err(|e| {
            err(format!(
                "#{}.{mnemonic} parameter '{}': {e}",
                d.name, p.name
            ))
        })?;
    }
    let enc = d
        .encodings
        .iter()
        .filter(|e| e.attr == index)
        .find(|e| e.when.iter().all(|c| holds(m, c, params)))
        .ok_or_else(|| {
            err(format!(
                "no encoding of #{}.{mnemonic} fits its parameters",
                d.name
            ))
        })?;
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
            return Err(err(format!(
                "#{}.{mnemonic}: encoding {} cannot carry '{name}'",
                d.name, enc.code
            )));
        }
    }
    w.varint(enc.code);
    let bad = || err(format!("#{}.{mnemonic} has unexpected parameters", d.name));
    write_params(m, enc.wire, params, w, &bad)
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

    impl DialectWriter for Recorder {
        fn varint(&mut self, v: u64) {
            self.0.push(format!("v{v}"));
        }
        fn byte(&mut self, b: u8) {
            self.0.push(format!("b{b}"));
        }
        fn signed_varint(&mut self, v: i64) {
            self.0.push(format!("s{v}"));
        }
        fn blob(&mut self, data: &[u8]) {
            self.0.push(format!("blob{}", data.len()));
        }
        fn string(&mut self, s: &[u8]) {
            self.0.push(format!("'{}'", String::from_utf8_lossy(s)));
        }
        fn attr(&mut self, _: &mut Module, _: Attribute) -> Result<(), WriteError> {
            self.0.push("a".into());
            Ok(())
        }
        fn ty(&mut self, _: &mut Module, _: crate::ir::Type) -> Result<(), WriteError> {
            self.0.push("t".into());
            Ok(())
        }
        fn opt_attr(&mut self, _: &mut Module, a: Option<Attribute>) -> Result<(), WriteError> {
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
        let err = write_attr(d, &mut m, "sub_axis_info", &[Param::Int(1)], &mut r)
            .unwrap_err()
            .0;
        assert!(err.contains("has 1 parameters, expected 2"), "{err}");
        let err = write_attr(
            d,
            &mut m,
            "sub_axis_info",
            &[Param::Int(1), Param::Bool(true)],
            &mut r,
        )
        .unwrap_err()
        .0;
        assert!(err.contains("'size'"), "{err}");
    }
}
