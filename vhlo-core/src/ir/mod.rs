//! The in-memory IR: one dialect-agnostic representation for StableHLO, VHLO, func/builtin and
//! foreign ops, as in MLIR.
//!
//! Everything lives in a [`Module`]: types, attributes, locations and strings are interned (so
//! comparing two of them is comparing ids), and operations, blocks, regions and values sit in
//! arenas and refer to each other by index. Operand, attribute, region and successor lists of all
//! ops share a few pooled vectors, so creating an op does not allocate by itself.

mod blob;
mod data;
mod depth;
mod edit;
mod equal;
mod interner;
mod module;
pub mod wide_int;

pub use blob::{Blob, BlobOwner};
pub use data::*;
pub(crate) use depth::{children, Node};
pub use depth::{
    deepest_interned, regions_within_limit, NestingTooDeep, MAX_NESTING, NESTING_GUARD,
};
pub use edit::{EditError, Editor, SymbolTable, Use};
pub use equal::{structurally_equal, EqualOptions};
pub(crate) use interner::{FastMap, FastSet};
// Internal: the interning machinery behind `Module` (not part of the documented API).
#[doc(hidden)]
pub use interner::{FastHasher, Interner};
pub use module::*;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name(pub u32);
        impl $name {
            /// The index of this id in its arena or interner.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// An interned string (op names, attribute names, string attribute contents, symbols).
    Symbol
);
id_type!(
    /// An interned type.
    Type
);
id_type!(
    /// An interned attribute.
    Attribute
);
id_type!(
    /// An interned location.
    Location
);
id_type!(
    /// An SSA value: an op result or a block argument.
    Value
);
id_type!(
    /// An operation in the module's arena.
    OpId
);
id_type!(
    /// A block in the module's arena.
    Block
);
id_type!(
    /// A region in the module's arena.
    Region
);
