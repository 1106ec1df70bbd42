use std::collections::HashMap;
use std::hash::Hash;

/// Insertion-ordered interner: the n-th distinct value gets id n. Lookups hash; iteration order
/// never depends on the hash.
#[derive(Clone, Debug)]
pub struct Interner<T: Eq + Hash + Clone> {
    items: Vec<T>,
    index: HashMap<T, u32>,
}

impl<T: Eq + Hash + Clone> Default for Interner<T> {
    fn default() -> Self {
        Interner {
            items: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<T: Eq + Hash + Clone> Interner<T> {
    /// The id of `value`, adding it when new.
    pub fn intern(&mut self, value: T) -> u32 {
        if let Some(&id) = self.index.get(&value) {
            return id;
        }
        let id = u32::try_from(self.items.len()).unwrap_or(u32::MAX);
        self.items.push(value.clone());
        self.index.insert(value, id);
        id
    }

    /// The id of `value` if it was interned.
    pub fn lookup(&self, value: &T) -> Option<u32> {
        self.index.get(value).copied()
    }

    /// The value with this id.
    ///
    /// Ids only come from this interner, so an unknown id is a bug in the caller.
    pub fn get(&self, id: u32) -> &T {
        &self.items[id as usize]
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
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        self.intern(Box::from(s))
    }

    /// The id of `s` if it was interned.
    pub fn lookup_str(&self, s: &str) -> Option<u32> {
        self.index.get(s).copied()
    }
}
