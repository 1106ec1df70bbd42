//! Computing the use-list order record MLIR writes for a value, from the order its uses sit in
//! memory. The IR keeps no use lists; a converter that knows how MLIR's rewrites would have
//! shuffled them (see the notes, section 6) describes that order and gets the record here.

use super::UseListOrder;
use crate::ir::{Module, OpId};

/// Pre-order indices of ops (the top-level op is 0), as `BytecodeWriter` numbers them.
pub struct OpOrder {
    /// By op id; `u64::MAX` for ops not in the module.
    index: Vec<u64>,
}

impl OpOrder {
    /// Numbers every op of `module` in pre-order.
    pub fn new(module: &Module) -> Self {
        let mut index = Vec::new();
        let mut next = 0u64;
        module.walk(|op| {
            if index.len() <= op.index() {
                index.resize(op.index() + 1, u64::MAX);
            }
            if let Some(slot) = index.get_mut(op.index()) {
                *slot = next;
            }
            next += 1;
        });
        OpOrder { index }
    }

    fn position(&self, op: OpId) -> Option<u64> {
        self.index
            .get(op.index())
            .copied()
            .filter(|&i| i != u64::MAX)
    }

    /// The record for a value whose uses are, front of the in-memory use list first,
    /// `(user op, operand number)`; `None` when a reader rebuilds that order by itself (fewer
    /// than two uses, or uses in strictly decreasing (op, operand) order). `None` too when a user
    /// is not in the module.
    pub fn use_list_order(&self, uses: &[(OpId, u32)]) -> Option<UseListOrder> {
        if uses.len() < 2 {
            return None;
        }
        // The common case, checked before allocating: already in the order a reader restores.
        let id = |&(op, operand): &(OpId, u32)| {
            self.position(op).map(|p| (p << 32) | u64::from(operand))
        };
        if uses
            .windows(2)
            .all(|w| matches!((id(&w[0]), id(&w[1])), (Some(a), Some(b)) if a > b))
        {
            return None;
        }
        let mut ids = Vec::with_capacity(uses.len());
        for &(op, operand) in uses {
            ids.push((self.position(op)? << 32) | u64::from(operand));
        }
        if ids.windows(2).all(|w| w[0] > w[1]) {
            return None;
        }
        // Positions of the uses in descending id order: the order a reader restores.
        let mut order: Vec<u64> = (0..uses.len() as u64).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(ids.get(i as usize).copied().unwrap_or(0)));
        let shuffled = order
            .iter()
            .enumerate()
            .filter(|&(i, &v)| i as u64 != v)
            .count();
        // Pairs are cheaper when fewer than half of the uses moved.
        if shuffled < order.len() / 2 {
            let pairs = order
                .iter()
                .enumerate()
                .filter(|&(i, &v)| i as u64 != v)
                .flat_map(|(i, &v)| [v, i as u64]);
            Some(UseListOrder {
                pair_encoding: true,
                indices: pairs.collect(),
            })
        } else {
            Some(UseListOrder {
                pair_encoding: false,
                indices: order.into(),
            })
        }
    }
}
