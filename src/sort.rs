//! The crate's one sort routine. Every sort of the crate goes through
//! [`sort_by`]: an introsort of `Copy` items (positions, slots) with the
//! comparison behind `dyn`, so that the module holds one copy of it per
//! item type rather than one of the standard library's sorts (several
//! kilobytes each) per comparison closure. Other items are sorted through
//! their positions ([`sorted_positions`], [`sorted`], [`take_sorted`]),
//! which break ties by position: stable.
//!
//! It is a fast comparison sort: quicksort around a median of three (each
//! partition compares against one pivot, which stays in the cache: the
//! rows compared are large and scattered), insertion sort for short
//! ranges, and heapsort below a depth of `2 log n`, so `n log n`
//! comparisons at most. [`select_first`] keeps the least `count` items of
//! many (a bounded heap: `n log count` comparisons at most, about `n` for
//! a short page).

use std::cmp::Ordering;

/// A comparison of two items.
pub(crate) type Compare<'a, T> = dyn FnMut(&T, &T) -> Ordering + 'a;

/// The length up to which a range is sorted by insertion.
const SHORT: usize = 16;

/// Sorts `items` by `compare`. Items that compare equal may end in any
/// order: callers that need stability compare positions last.
pub(crate) fn sort_by<T: Copy>(items: &mut [T], compare: &mut Compare<'_, T>) {
    // Input already in order (a list as the service sorted it): one pass,
    // which on other input stops at the first item out of order.
    let ordered = items.windows(2).all(|pair| match pair {
        [a, b] => compare(a, b) != Ordering::Greater,
        _ => true,
    });
    if ordered {
        return;
    }
    let depth = 2 * (usize::BITS - items.len().leading_zeros());
    quicksort(items, compare, depth);
}

fn quicksort<T: Copy>(mut items: &mut [T], compare: &mut Compare<'_, T>, mut depth: u32) {
    loop {
        if items.len() <= SHORT {
            insertion_sort(items, compare);
            return;
        }
        if depth == 0 {
            heapsort(items, compare);
            return;
        }
        depth -= 1;
        let pivot = median_of_three(items, compare);
        items.swap(0, pivot);
        let at = partition(items, compare);
        // The shorter side by recursion (at most log n deep), the longer
        // one by the loop.
        let (left, right) = items.split_at_mut(at);
        let right = right.get_mut(1..).unwrap_or_default();
        if left.len() < right.len() {
            quicksort(left, compare, depth);
            items = right;
        } else {
            quicksort(right, compare, depth);
            items = left;
        }
    }
}

/// The position of the median of the first, middle and last items.
fn median_of_three<T: Copy>(items: &[T], compare: &mut Compare<'_, T>) -> usize {
    let (a, b, c) = (0, items.len() / 2, items.len().saturating_sub(1));
    let (Some(x), Some(y), Some(z)) = (items.get(a), items.get(b), items.get(c)) else {
        return a;
    };
    let xy = compare(x, y) == Ordering::Less;
    let yz = compare(y, z) == Ordering::Less;
    if xy == yz {
        return b;
    }
    let xz = compare(x, z) == Ordering::Less;
    if xy == xz {
        c
    } else {
        a
    }
}

/// Partitions `items` around its first item: returns its place, with no
/// greater item before it and no lesser one after it. Items equal to the
/// pivot stop both scans, so that many equal items still split evenly.
fn partition<T: Copy>(items: &mut [T], compare: &mut Compare<'_, T>) -> usize {
    let Some(&pivot) = items.first() else {
        return 0;
    };
    let (mut low, mut high) = (1, items.len() - 1);
    loop {
        while low <= high
            && items
                .get(low)
                .is_some_and(|item| compare(item, &pivot) == Ordering::Less)
        {
            low += 1;
        }
        while low <= high
            && items
                .get(high)
                .is_some_and(|item| compare(item, &pivot) == Ordering::Greater)
        {
            high -= 1;
        }
        if low >= high {
            break;
        }
        items.swap(low, high);
        low += 1;
        high -= 1;
    }
    items.swap(0, high);
    high
}

fn insertion_sort<T: Copy>(run: &mut [T], compare: &mut Compare<'_, T>) {
    for end in 1..run.len() {
        let mut at = end;
        while at > 0 {
            match (run.get(at - 1), run.get(at)) {
                (Some(before), Some(item)) if compare(item, before) == Ordering::Less => {
                    run.swap(at - 1, at);
                }
                _ => break,
            }
            at -= 1;
        }
    }
}

fn heapsort<T: Copy>(items: &mut [T], compare: &mut Compare<'_, T>) {
    for start in (0..items.len() / 2).rev() {
        sift_down(items, start, compare);
    }
    for end in (1..items.len()).rev() {
        items.swap(0, end);
        if let Some(heap) = items.get_mut(..end) {
            sift_down(heap, 0, compare);
        }
    }
}

/// Keeps the least `count` items of `items`, sorted by `compare`, which
/// must be a total order (no two items equal), as the result then does not
/// depend on the input order.
pub(crate) fn select_first<T: Copy>(
    items: &mut Vec<T>,
    count: usize,
    compare: &mut Compare<'_, T>,
) {
    if count < items.len() {
        // A max-heap of the least `count` seen so far, its greatest first.
        let rest = items.split_off(count);
        let heap = items.as_mut_slice();
        for start in (0..heap.len() / 2).rev() {
            sift_down(heap, start, compare);
        }
        for item in rest {
            if let Some(top) = heap.first_mut() {
                if compare(&item, top) == Ordering::Less {
                    *top = item;
                    sift_down(heap, 0, compare);
                }
            }
        }
    }
    sort_by(items, compare);
}

fn sift_down<T: Copy>(heap: &mut [T], mut at: usize, compare: &mut Compare<'_, T>) {
    loop {
        let mut child = 2 * at + 1;
        let (Some(left), right) = (heap.get(child), heap.get(child + 1)) else {
            return;
        };
        if right.is_some_and(|right| compare(right, left) == Ordering::Greater) {
            child += 1;
        }
        match (heap.get(at), heap.get(child)) {
            (Some(parent), Some(larger)) if compare(larger, parent) == Ordering::Greater => {
                heap.swap(at, child);
                at = child;
            }
            _ => return,
        }
    }
}

/// The positions of `items` in the order of `compare` (stable).
pub(crate) fn sorted_positions<T>(items: &[T], compare: &mut Compare<'_, T>) -> Vec<usize> {
    let mut positions: Vec<usize> = (0..items.len()).collect();
    // Ties by position: stable, whatever the order of equal items.
    sort_by(&mut positions, &mut |a, b| {
        match (items.get(*a), items.get(*b)) {
            (Some(x), Some(y)) => compare(x, y),
            _ => Ordering::Equal,
        }
        .then(a.cmp(b))
    });
    positions
}

/// `items` in the order of `compare` (stable).
pub(crate) fn sorted<T>(items: Vec<T>, compare: &mut Compare<'_, T>) -> Vec<T> {
    let positions = sorted_positions(&items, compare);
    let mut items: Vec<Option<T>> = items.into_iter().map(Some).collect();
    positions
        .into_iter()
        .filter_map(|position| items.get_mut(position).and_then(Option::take))
        .collect()
}

/// The values of `items` in the order of their keys (stable).
pub(crate) fn take_sorted<K: Ord, T>(items: Vec<(K, T)>) -> Vec<T> {
    sorted(items, &mut |a, b| a.0.cmp(&b.0))
        .into_iter()
        .map(|(_, item)| item)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed pseudo-random sequence (xorshift).
    fn numbers(seed: u64, count: usize, range: u64) -> Vec<u64> {
        let mut state = seed | 1;
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state % range
            })
            .collect()
    }

    fn inputs() -> Vec<Vec<u64>> {
        let mut inputs = Vec::new();
        for count in [0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 257, 1000, 4099] {
            for (seed, range) in [(1, 3), (2, 1000), (3, u64::MAX)] {
                inputs.push(numbers(seed + count as u64, count, range));
            }
            inputs.push((0..count as u64).collect());
            inputs.push((0..count as u64).rev().collect());
            inputs.push((0..count as u64).map(|n| n % 7).collect());
        }
        inputs
    }

    #[test]
    fn sorts_as_the_standard_library() {
        for input in inputs() {
            // A total order (key, then position): the one possible result.
            let mut items: Vec<(u64, usize)> = input.iter().copied().zip(0..).collect();
            let mut expected = items.clone();
            expected.sort_unstable();
            sort_by(&mut items, &mut |a, b| a.cmp(b));
            assert_eq!(items, expected);
            // Many equal items, compared by key alone: sorted by key.
            let mut keys = input.clone();
            let mut expected = input.clone();
            expected.sort_unstable();
            sort_by(&mut keys, &mut |a, b| (a % 4).cmp(&(b % 4)));
            assert!(keys.windows(2).all(|pair| pair[0] % 4 <= pair[1] % 4));
            keys.sort_unstable();
            assert_eq!(keys, expected, "the same items");
            // Through positions: stable.
            let positions = sorted_positions(&input, &mut |a, b| (b % 4).cmp(&(a % 4)));
            let mut expected: Vec<usize> = (0..input.len()).collect();
            expected.sort_by(|a, b| (input[*b] % 4).cmp(&(input[*a] % 4)));
            assert_eq!(positions, expected);
            let strings: Vec<String> = input.iter().map(u64::to_string).collect();
            let mut expected = strings.clone();
            expected.sort_by_key(String::len);
            assert_eq!(sorted(strings, &mut |a, b| a.len().cmp(&b.len())), expected);
        }
    }

    #[test]
    fn degenerate_inputs_stay_n_log_n() {
        // Sorted, reversed, equal, organ pipe, and a median-of-three killer
        // shape: the comparisons stay within a small multiple of n log n.
        let n = 20_000usize;
        let shapes: Vec<Vec<usize>> = vec![
            (0..n).collect(),
            (0..n).rev().collect(),
            vec![7; n],
            (0..n / 2).chain((0..n / 2).rev()).collect(),
            (0..n).map(|i| if i % 2 == 0 { i } else { n + i }).collect(),
        ];
        for shape in shapes {
            let mut items = shape.clone();
            let mut count = 0u64;
            sort_by(&mut items, &mut |a, b| {
                count += 1;
                a.cmp(b)
            });
            let mut expected = shape;
            expected.sort_unstable();
            assert_eq!(items, expected);
            assert!(count < 4 * 20_000 * 15, "{count} comparisons");
        }
    }

    #[test]
    fn selects_the_first_items_as_a_full_sort() {
        for input in inputs() {
            let items: Vec<(u64, usize)> = input.iter().copied().zip(0..).collect();
            let mut all = items.clone();
            all.sort_unstable();
            for count in [
                0,
                1,
                2,
                5,
                16,
                17,
                input.len() / 2,
                input.len(),
                input.len() + 1,
            ] {
                let mut first = items.clone();
                select_first(&mut first, count, &mut |a, b| a.cmp(b));
                assert_eq!(first, all[..count.min(all.len())]);
            }
        }
    }
}
