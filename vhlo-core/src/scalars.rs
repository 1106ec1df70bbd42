//! Builtin scalar types (`i1`, `ui8`, `f32`, `tf32`, `index`, `none`) and the parameterless VHLO
//! types that stand for them, both ways. The map is the spec's (`builtin:` in spec/types.yaml,
//! generated as `VhloType::builtin`); the conversions, the text format and the bytecode all use
//! this one.

use std::borrow::Cow;

use crate::ir::{FloatKind, Signedness, TypeData};
use crate::vhlo::VhloType;

/// The builtin spelling of a scalar type, if it is one (`i1`, `ui8`, `f32`, `index`, `none`).
pub fn builtin_spelling(t: &TypeData) -> Option<Cow<'static, str>> {
    Some(match t {
        TypeData::Integer {
            width,
            signedness: Signedness::Signless,
        } => Cow::Owned(format!("i{width}")),
        TypeData::Integer {
            width,
            signedness: Signedness::Unsigned,
        } => Cow::Owned(format!("ui{width}")),
        TypeData::Integer {
            width,
            signedness: Signedness::Signed,
        } => Cow::Owned(format!("si{width}")),
        TypeData::Float(k) => Cow::Borrowed(k.keyword()),
        TypeData::Index => Cow::Borrowed("index"),
        TypeData::None => Cow::Borrowed("none"),
        _ => return None,
    })
}

/// The scalar type a builtin spelling names.
pub fn scalar_type(spelled: &str) -> Option<TypeData> {
    let int = |digits: &str, signedness| {
        let width: u32 = digits.parse().ok()?;
        (digits.bytes().all(|b| b.is_ascii_digit()) && width > 0)
            .then_some(TypeData::Integer { width, signedness })
    };
    match spelled {
        "index" => Some(TypeData::Index),
        "none" => Some(TypeData::None),
        _ => {
            if let Some(d) = spelled.strip_prefix("ui") {
                int(d, Signedness::Unsigned)
            } else if let Some(d) = spelled.strip_prefix("si") {
                int(d, Signedness::Signed)
            } else if let Some(r) = spelled
                .strip_prefix('i')
                .and_then(|d| int(d, Signedness::Signless))
            {
                Some(r)
            } else {
                FloatKind::ALL
                    .iter()
                    .find(|k| k.keyword() == spelled)
                    .map(|&k| TypeData::Float(k))
            }
        }
    }
}

/// The parameterless VHLO type (its newest version) that stands for the builtin type spelled so.
pub fn vhlo_type_for(spelled: &str) -> Option<VhloType> {
    VhloType::ALL
        .iter()
        .rev()
        .copied()
        .find(|t| t.params().is_empty() && t.builtin() == spelled)
}

/// The VHLO mnemonic (`i32_v1`, `bool_v1`, `tf31_v1`) of a scalar type VHLO has.
pub fn vhlo_mnemonic(t: &TypeData) -> Option<&'static str> {
    vhlo_type_for(&builtin_spelling(t)?).map(VhloType::mnemonic)
}

/// The builtin spelling of a parameterless VHLO type that stands for a builtin scalar
/// (`bool_v1` is `i1`); `None` for others (`token_v1` is a StableHLO type).
pub fn builtin_of(mnemonic: &str) -> Option<&'static str> {
    let t = VhloType::from_mnemonic(mnemonic)?;
    (t.params().is_empty() && scalar_type(t.builtin()).is_some()).then(|| t.builtin())
}

/// The builtin scalar type a VHLO type stands for.
pub fn type_of(mnemonic: &str) -> Option<TypeData> {
    scalar_type(builtin_of(mnemonic)?)
}

/// True for a VHLO type without parameters (`f32_v1`, `token_v1`, `witness_v1`).
pub fn is_parameterless(mnemonic: &str) -> bool {
    VhloType::from_mnemonic(mnemonic).is_some_and(|t| t.params().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ways_agree() {
        for &t in VhloType::ALL {
            if let Some(data) = type_of(t.mnemonic()) {
                assert_eq!(vhlo_mnemonic(&data), Some(t.mnemonic()));
            }
        }
        assert_eq!(builtin_of("bool_v1"), Some("i1"));
        assert_eq!(builtin_of("tf31_v1"), Some("tf32"));
        assert_eq!(builtin_of("token_v1"), None);
        assert_eq!(vhlo_mnemonic(&TypeData::Float(FloatKind::F80)), None);
        let int = |width, signedness| TypeData::Integer { width, signedness };
        assert_eq!(
            vhlo_mnemonic(&int(1, Signedness::Signless)),
            Some("bool_v1")
        );
        assert_eq!(vhlo_mnemonic(&int(4, Signedness::Unsigned)), Some("ui4_v1"));
        // VHLO has no i3, ui1 or signed integers.
        assert_eq!(vhlo_mnemonic(&int(3, Signedness::Signless)), None);
        assert_eq!(vhlo_mnemonic(&int(1, Signedness::Unsigned)), None);
        assert_eq!(vhlo_mnemonic(&int(8, Signedness::Signed)), None);
        assert_eq!(scalar_type("i01x"), None);
        assert_eq!(scalar_type("i0"), None);
    }
}
