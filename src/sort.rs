//! The crate's one sort routine. Every sort of the crate goes through
//! [`sort_by`]: a stable merge sort of `Copy` items (positions, slots) with
//! the comparison behind `dyn`, so that the module holds one copy of it per
//! item type rather than one of the standard library's sorts (several
//! kilobytes each) per comparison closure. Other items are sorted through
//! their positions ([`sorted_positions`], [`take_sorted`]).
//!
//! It is a fast comparison sort: `n log n` comparisons at most, about `n`
//! on input already in order (runs are merged only where they overlap), an
//! insertion sort for the first short runs. [`select_first`] keeps the
//! least `count` items of many (a bounded heap: `n log count`
//! comparisons at most, about `n` for a short page).

use std::cmp::Ordering;

/// A comparison of two items.
pub(crate) type Compare<'a, T> = dyn FnMut(&T, &T) -> Ordering + 'a;

/// The length of the runs sorted by insertion before merging.
const RUN: usize = 16;

/// Sorts `items` by `compare`, stably (equal items keep their order).
pub(crate) fn sort_by<T: Copy>(items: &mut [T], compare: &mut Compare<'_, T>) {
    for run in items.chunks_mut(RUN) {
        insertion_sort(run, compare);
    }
    if items.len() <= RUN {
        return;
    }
    let mut buffer = items.to_vec();
    let mut width = RUN;
    // Which of the two holds the runs of `width`: merged into the other.
    let mut in_items = true;
    while width < items.len() {
        let (from, to): (&[T], &mut [T]) = if in_items {
            (items, &mut buffer)
        } else {
            (&buffer, items)
        };
        for (pair, out) in from.chunks(2 * width).zip(to.chunks_mut(2 * width)) {
            let (left, right) = pair.split_at(width.min(pair.len()));
            merge(left, right, out, compare);
        }
        in_items = !in_items;
        width *= 2;
    }
    if !in_items {
        items.copy_from_slice(&buffer);
    }
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

/// Merges the sorted `left` and `right` into `out` (as long as both);
/// of equal items, `left`'s first.
fn merge<T: Copy>(left: &[T], right: &[T], out: &mut [T], compare: &mut Compare<'_, T>) {
    // Already in order (input sorted or nearly so): one comparison.
    if let (Some(last), Some(first)) = (left.last(), right.first()) {
        if compare(first, last) != Ordering::Less {
            let (head, tail) = out.split_at_mut(left.len());
            head.copy_from_slice(left);
            tail.copy_from_slice(right);
            return;
        }
    }
    let (mut l, mut r) = (0, 0);
    for slot in out {
        let next = match (left.get(l), right.get(r)) {
            (Some(a), Some(b)) => {
                if compare(b, a) == Ordering::Less {
                    r += 1;
                    b
                } else {
                    l += 1;
                    a
                }
            }
            (Some(a), None) => {
                l += 1;
                a
            }
            (None, Some(b)) => {
                r += 1;
                b
            }
            (None, None) => return,
        };
        *slot = *next;
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
    sort_by(
        &mut positions,
        &mut |a, b| match (items.get(*a), items.get(*b)) {
            (Some(x), Some(y)) => compare(x, y),
            _ => Ordering::Equal,
        },
    );
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
    fn sorts_stably_as_the_standard_library() {
        for input in inputs() {
            // Items are (key, position): equal keys must keep their order.
            let mut items: Vec<(u64, usize)> = input.iter().copied().zip(0..).collect();
            let mut expected = items.clone();
            expected.sort_by_key(|item| item.0);
            sort_by(&mut items, &mut |a, b| a.0.cmp(&b.0));
            assert_eq!(items, expected);
            let positions = sorted_positions(&input, &mut |a, b| b.cmp(a));
            let mut expected: Vec<usize> = (0..input.len()).collect();
            expected.sort_by(|a, b| input[*b].cmp(&input[*a]));
            assert_eq!(positions, expected);
            let strings: Vec<String> = input.iter().map(u64::to_string).collect();
            let mut expected = strings.clone();
            expected.sort();
            assert_eq!(sorted(strings, &mut |a, b| a.cmp(b)), expected);
        }
    }

    #[test]
    fn selects_the_first_items_as_a_full_sort() {
        for input in inputs() {
            let items: Vec<(u64, usize)> = input.iter().copied().zip(0..).collect();
            let mut all = items.clone();
            all.sort();
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
