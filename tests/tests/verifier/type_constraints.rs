//! Serializing verifies the StableHLO program's type constraints (`traits` in the spec), as
//! libStablehlo verifies before it writes: each violation is refused, naming the op and its
//! location; a compatible program with a dynamic dimension is accepted.

use vhlo_core::text;
use vhlo_tests::portable::{self, PortableError, SerializeOptions};

#[test]
fn type_constraint_violations_are_refused_at_serialize() {
    for (name, op, src) in vhlo_tests::TYPE_CONSTRAINT_VIOLATIONS {
        // The parser's verifier refuses it; a module built without one is refused on writing.
        assert!(
            text::parse(src).is_err(),
            "{name}: the parser's verifier accepts it"
        );
        let m = text::parse_unverified(src).unwrap_or_else(|e| panic!("{name}: parses: {e}"));
        match portable::serialize_portable_artifact(&m, "1.0.0", SerializeOptions::default()) {
            Ok(_) => panic!("{name}: serialized a program libStablehlo refuses"),
            Err(PortableError::Convert(ds)) => {
                let d = ds
                    .iter()
                    .find(|d| d.op == *op)
                    .unwrap_or_else(|| panic!("{name}: no diagnostic on {op}: {ds:?}"));
                assert_eq!(d.location, "\"bad.py\":7:3", "{name}");
                assert!(!d.rule.is_empty(), "{name}: {d}");
            }
            Err(e) => panic!("{name}: wrong error {e}"),
        }
    }
    let m = text::parse(vhlo_tests::TYPE_CONSTRAINT_CONTROL).expect("control parses");
    portable::serialize_portable_artifact(&m, "1.0.0", SerializeOptions::default())
        .expect("the control serializes");
}
