//! The hand-written conversion hooks: values that no declarative rule can express. The spec names
//! them and `codegen::check::KNOWN_HOOKS` lists them; keep this list very short.

use crate::ir::{Attribute, Module, OpId};
use crate::version::Version;

use super::{support, ConversionError};

/// The `padding` attribute that `dynamic_conv_v1` needs when downgrading from v2: zeros of shape
/// `[rank(lhs) - 2, 2]`. It depends on the lhs operand's type, so no constant default fits.
pub fn default_conv_padding(m: &mut Module, op: OpId) -> Result<Attribute, ConversionError> {
    let fail = |m: &Module, why: &str| {
        ConversionError {
        op,
        op_name: "vhlo.dynamic_conv_v2",
        subject: why.to_string(),
        needs: Version::new(0, 20, 0),
        rule: format!("dynamic_conv_v2 -> dynamic_conv_v1 computes the removed `padding` from a ranked lhs of rank >= 2 ({})", m.op_name_str(op)),
    }
    };
    let Some(&lhs) = m.operands(op).first() else {
        return Err(fail(m, "a missing lhs operand"));
    };
    let Some(lhs_type) = super::typed::types::TensorV1::read(m, m.value_type(lhs)) else {
        return Err(fail(m, "an lhs that is not a ranked tensor"));
    };
    let rank = lhs_type.shape.len();
    let Some(spatial) = rank.checked_sub(2) else {
        return Err(fail(m, "an lhs of rank below 2"));
    };
    let spatial = i64::try_from(spatial).map_err(|_| fail(m, "an lhs of huge rank"))?;
    let zeros = vec![0i64; usize::try_from(spatial * 2).unwrap_or(0)];
    Ok(support::vhlo_int_tensor(
        m,
        super::typed::types::I64V1::MNEMONIC,
        &[spatial, 2],
        &zeros,
    ))
}
