//! The crate's hash maps and sets, with one fast hasher. The maps keyed by
//! document ids (`DocumentStore`'s ids, a cached list's members) made it:
//! a reload inserts and looks up every id of every document, and `SipHash`
//! was a tenth of its time. Every other map uses it too, so the module
//! links one hasher (and no `RandomState`, whose keys need a thread-local). Multiply and rotate
//! over eight bytes at a time (the `FxHash` of rustc). Not keyed: on
//! wasm32-unknown-unknown the standard hasher's keys are fixed too, so it
//! resists crafted collisions no better.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`IdHasher`] (`Map::default()` makes one).
pub(crate) type Map<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A `HashSet` with [`IdHasher`].
pub(crate) type Set<T> = HashSet<T, BuildHasherDefault<IdHasher>>;

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// The hasher of [`Map`] and [`Set`].
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdHasher {
    hash: u64,
}

impl IdHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some((chunk, tail)) = rest.split_first_chunk::<8>() {
            self.add(u64::from_le_bytes(*chunk));
            rest = tail;
        }
        let mut last = [0u8; 8];
        if let Some(place) = last.get_mut(..rest.len()) {
            place.copy_from_slice(rest);
        }
        // The tail's length is part of it, so "a" and "a\0" differ.
        self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 56));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        // The multiply mixes each input bit only into the bits above it, and
        // a table picks its bucket from the low bits: rotated, they are the
        // well-mixed high bits (as rustc-hash does), so keys that differ only
        // in the high bytes of their words do not all share one bucket.
        self.hash.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::{IdHasher, Map};
    use std::hash::{BuildHasher, BuildHasherDefault};

    #[test]
    fn ids_are_found_and_told_apart() {
        let mut map: Map<Vec<u8>, usize> = Map::default();
        let ids: Vec<Vec<u8>> = (0..2000u32)
            .map(|i| format!("{i:018}").into_bytes())
            .chain([
                b"a".to_vec(),
                b"a\0".to_vec(),
                Vec::new(),
                vec![0; 8],
                vec![0; 9],
            ])
            .collect();
        for (position, id) in ids.iter().enumerate() {
            assert_eq!(
                map.insert(id.clone(), position),
                None,
                "{id:?} collides as a key"
            );
        }
        for (position, id) in ids.iter().enumerate() {
            assert_eq!(map.get(id), Some(&position));
        }
        assert_eq!(map.get(b"missing".as_slice()), None);
    }

    /// Keys that differ only in bytes 5 to 7 of each eight (as a crafted
    /// response's keys could) still differ in the low bits of their hashes,
    /// which pick a table's bucket: 4000 such keys, almost as many distinct
    /// low 20 bits as keys (without the final rotation, about a tenth).
    #[test]
    fn keys_differing_in_high_bytes_spread_over_buckets() {
        let build = BuildHasherDefault::<IdHasher>::default();
        let mut low = std::collections::BTreeSet::new();
        let mut x: u64 = 7;
        for _ in 0..4000 {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let r = x.to_le_bytes();
            let mut key = [b'a'; 16];
            for (place, byte) in [5, 6, 7, 13, 14, 15].into_iter().zip(r) {
                key[place] = b'a' + byte % 26;
            }
            low.insert(build.hash_one(key.as_slice()) & 0xf_ffff);
        }
        assert!(low.len() > 3900, "{} distinct of 4000", low.len());
    }
}
