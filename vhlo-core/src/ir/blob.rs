//! Immutable bytes of a constant, held once however many attributes and outputs use them.
//!
//! A dense constant can be a gigabyte. Read from an artifact, its [`Blob`] views the input
//! buffer itself; converted between StableHLO and VHLO, it is shared, not copied; written, it is
//! streamed from where it lies (`bytecode::Encoded`). Small data is kept inline: sharing it would
//! cost more than copying it.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

/// What a shared [`Blob`] can view: a buffer that lives as long as any blob of it.
pub trait BlobOwner: AsRef<[u8]> + Send + Sync {}
impl<T: AsRef<[u8]> + Send + Sync + ?Sized> BlobOwner for T {}

/// Immutable bytes: small ones owned, large ones a shared view.
#[derive(Clone)]
pub struct Blob(Repr);

#[derive(Clone)]
enum Repr {
    Owned(Box<[u8]>),
    Shared(Arc<View>),
}

struct View {
    owner: Arc<dyn BlobOwner>,
    start: usize,
    len: usize,
}

impl Blob {
    /// Data of this size or more is shared rather than copied.
    pub const SHARE_FROM: usize = 4096;

    /// All of `owner`'s bytes, shared.
    pub fn from_owner(owner: Arc<dyn BlobOwner>) -> Blob {
        let len = (*owner).as_ref().len();
        Blob(Repr::Shared(Arc::new(View {
            owner,
            start: 0,
            len,
        })))
    }

    /// The bytes of `part`, a sub-slice of `self`, as a view of the same buffer when large
    /// (`None` when `part` does not lie inside `self`).
    pub fn sub_blob(&self, part: &[u8]) -> Option<Blob> {
        let whole: &[u8] = self;
        let at = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
        if at.checked_add(part.len())? > whole.len() {
            return None;
        }
        if part.len() < Self::SHARE_FROM {
            return Some(Blob(Repr::Owned(part.into())));
        }
        Some(match &self.0 {
            Repr::Owned(_) => Blob(Repr::Owned(part.into())),
            Repr::Shared(v) => Blob(Repr::Shared(Arc::new(View {
                owner: Arc::clone(&v.owner),
                start: v.start.saturating_add(at),
                len: part.len(),
            }))),
        })
    }

    /// Whether the bytes are a view of a shared buffer (written without a copy).
    pub fn is_shared(&self) -> bool {
        matches!(self.0, Repr::Shared(_))
    }
}

impl Deref for Blob {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        match &self.0 {
            Repr::Owned(b) => b,
            Repr::Shared(v) => {
                let end = v.start.saturating_add(v.len);
                (*v.owner).as_ref().get(v.start..end).unwrap_or_default()
            }
        }
    }
}

impl AsRef<[u8]> for Blob {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl From<Vec<u8>> for Blob {
    fn from(v: Vec<u8>) -> Blob {
        if v.len() < Self::SHARE_FROM {
            Blob(Repr::Owned(v.into_boxed_slice()))
        } else {
            Blob::from_owner(Arc::new(v))
        }
    }
}

impl From<Box<[u8]>> for Blob {
    fn from(b: Box<[u8]>) -> Blob {
        if b.len() < Self::SHARE_FROM {
            Blob(Repr::Owned(b))
        } else {
            Blob::from_owner(Arc::new(b))
        }
    }
}

impl From<&[u8]> for Blob {
    fn from(b: &[u8]) -> Blob {
        Blob::from(b.to_vec())
    }
}

impl<const N: usize> From<[u8; N]> for Blob {
    fn from(b: [u8; N]) -> Blob {
        Blob::from(b.to_vec())
    }
}

impl PartialEq for Blob {
    fn eq(&self, other: &Blob) -> bool {
        **self == **other
    }
}
impl Eq for Blob {}

impl Hash for Blob {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl fmt::Debug for Blob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn large_parts_view_the_buffer_and_small_ones_are_copied() {
        let whole = Blob::from(vec![7u8; 3 * Blob::SHARE_FROM]);
        assert!(whole.is_shared());
        let big = whole.sub_blob(&whole[10..10 + Blob::SHARE_FROM]).unwrap();
        assert!(big.is_shared());
        assert_eq!(big.as_ptr(), whole[10..].as_ptr());
        let small = whole.sub_blob(&whole[..8]).unwrap();
        assert!(!small.is_shared());
        assert_eq!(&*small, &[7u8; 8]);
        assert!(whole.sub_blob(&[1, 2, 3]).is_none());
        assert_eq!(big, Blob::from(vec![7u8; Blob::SHARE_FROM]));
    }
}
