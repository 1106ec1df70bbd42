//! The constraints of the contraction ops (see `super::verify_op` for the list).

use crate::verify::types::OpView;
use crate::verify::Check;

pub(super) fn verify(v: OpView) -> Check {
    let _ = v;
    Ok(())
}
