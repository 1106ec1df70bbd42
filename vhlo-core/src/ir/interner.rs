use std::borrow::Borrow;
use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;

/// The hasher of every hash map in the crate: fast, and seeded per process (input is
/// untrusted, so a fixed seed would invite crafted collisions). Nothing iterates a hash map
/// on an output path, so the seed never shows in results.
pub type FastHasher = foldhash::fast::RandomState;
/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, FastHasher>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<K> = std::collections::HashSet<K, FastHasher>;

/// Insertion-ordered interner: the n-th distinct value gets id n. Each value is stored once;
/// the table holds ids and hashes the values they name. Iteration order never depends on the
/// hash.
#[derive(Clone)]
pub struct Interner<T: Eq + Hash + Clone> {
    items: Vec<T>,
    /// Each item's hash: growing the table rehashes from here, not from the items (a dense
    /// constant's data would be hashed again at every growth).
    hashes: Vec<u64>,
    index: HashTable<u32>,
    hasher: FastHasher,
}

impl<T: Eq + Hash + Clone + std::fmt::Debug> std::fmt::Debug for Interner<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.items.iter()).finish()
    }
}

impl<T: Eq + Hash + Clone> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            items: Vec::new(),
            hashes: Vec::new(),
            index: HashTable::new(),
            hasher: FastHasher::default(),
        }
    }
}

impl<T: Eq + Hash + Clone> Interner<T> {
    fn find<Q: Hash + Eq + ?Sized>(&self, hash: u64, value: &Q) -> Option<u32>
    where
        T: Borrow<Q>,
    {
        let items = &self.items;
        self.index
            .find(hash, |&id| {
                items.get(id as usize).is_some_and(|x| x.borrow() == value)
            })
            .copied()
    }

    fn insert_new(&mut self, hash: u64, value: T) -> u32 {
        let id = u32::try_from(self.items.len()).unwrap_or(u32::MAX);
        self.items.push(value);
        self.hashes.push(hash);
        let hashes = &self.hashes;
        self.index
            .insert_unique(hash, id, |&i| hashes.get(i as usize).copied().unwrap_or(0));
        id
    }

    /// The id of `value`, adding it when new.
    pub fn intern(&mut self, value: T) -> u32 {
        let hash = self.hasher.hash_one(&value);
        match self.find(hash, &value) {
            Some(id) => id,
            None => self.insert_new(hash, value),
        }
    }

    /// The id of `value` if it was interned.
    pub fn lookup(&self, value: &T) -> Option<u32> {
        self.find(self.hasher.hash_one(value), value)
    }

    /// The value with this id.
    ///
    /// Ids only come from this interner, so an unknown id is a bug in the caller.
    pub fn get(&self, id: u32) -> &T {
        &self.items[id as usize]
    }

    /// Makes room for `n` more values without growing.
    pub fn reserve(&mut self, n: usize) {
        self.items.reserve(n);
        self.hashes.reserve(n);
        let hashes = &self.hashes;
        self.index
            .reserve(n, |&i| hashes.get(i as usize).copied().unwrap_or(0));
    }

    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when nothing was interned.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl Interner<Box<str>> {
    /// Interns a string slice without allocating when it is already present.
    pub fn intern_str(&mut self, s: &str) -> u32 {
        // `Box<str>` hashes as `str`, so one hash serves the lookup and the insertion.
        let hash = self.hasher.hash_one(s);
        match self.find(hash, s) {
            Some(id) => id,
            None => self.insert_new(hash, Box::from(s)),
        }
    }

    /// The id of `s` if it was interned.
    pub fn lookup_str(&self, s: &str) -> Option<u32> {
        self.find(self.hasher.hash_one(s), s)
    }
}
