//! The selected text of stored documents for the latest selection a query
//! asked for: a later query with that selection (another sorting, another
//! page, the same view again) copies it instead of selecting again. A
//! document's text is forgotten whenever the document changes or leaves;
//! the texts kept stay within a bound the store sets (half its live text).
//!
//! A kept text can also be *delivered*: the caller (`DocumentStore` in
//! JavaScript) holds the document it reads as, and later answers name the
//! slot instead of copying the text. Forgetting a text takes its delivery
//! back; dropping every text starts a new *epoch*, which tells the caller
//! to drop every document it holds.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::json::{value_end_within, MAX_DEPTH};

/// A span's start when the slot's text is not kept.
const NONE: u32 = u32::MAX;

/// Texts nested deeper than this are not kept (so never delivered): a
/// caller copies the documents it holds by recursion.
const MAX_KEPT_DEPTH: usize = 64;

/// A new epoch, never one of another store: a caller holding documents of
/// a store that was replaced drops them too.
fn new_epoch() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

#[derive(Debug)]
pub(super) struct Projected {
    /// The canonical selection the texts are of (`None`: none kept).
    selection: Option<String>,
    /// The kept texts, back to back.
    bytes: Vec<u8>,
    /// Per slot: where its text is in `bytes` (start [`NONE`]: not kept).
    spans: Vec<(u32, u32)>,
    /// Bytes of `bytes` that no span points at any more.
    dead: usize,
    /// Per slot: whether its kept text was delivered.
    delivered: Vec<bool>,
    /// Changes whenever every text is dropped.
    epoch: u32,
}

impl Default for Projected {
    fn default() -> Self {
        Projected {
            selection: None,
            bytes: Vec::new(),
            spans: Vec::new(),
            dead: 0,
            delivered: Vec::new(),
            epoch: new_epoch(),
        }
    }
}

impl Projected {
    /// Keeps texts of `selection` (canonical) from now: those of another
    /// selection are dropped.
    pub(super) fn select(&mut self, selection: &str) {
        if self.selection.as_deref() != Some(selection) {
            self.reset(Some(selection.to_owned()));
        }
    }

    /// Drops every text (a new epoch), keeping texts of `selection` next.
    fn reset(&mut self, selection: Option<String>) {
        *self = Projected {
            selection,
            ..Projected::default()
        };
    }

    /// Takes back every delivery (a new epoch; the texts stay kept).
    pub(super) fn undeliver(&mut self) {
        self.delivered.clear();
        self.epoch = new_epoch();
    }

    /// The current epoch: documents delivered in another one are gone.
    pub(super) fn epoch(&self) -> u32 {
        self.epoch
    }

    /// Whether the kept text of `slot` was delivered (in this epoch).
    pub(super) fn delivered(&self, slot: u32) -> bool {
        self.delivered.get(slot as usize) == Some(&true)
    }

    /// Where the kept text of `slot` is (it is another text when that
    /// changes).
    pub(super) fn kept_at(&self, slot: u32) -> Option<u32> {
        self.get(slot)?;
        Some(self.spans.get(slot as usize)?.0)
    }

    /// Records the kept text of `slot` as delivered, if it is still the
    /// one at `at` ([`Self::kept_at`]).
    pub(super) fn deliver(&mut self, slot: u32, at: u32) {
        if self.kept_at(slot) != Some(at) {
            return;
        }
        let index = slot as usize;
        if self.delivered.len() <= index {
            self.delivered.resize(index + 1, false);
        }
        if let Some(place) = self.delivered.get_mut(index) {
            *place = true;
        }
    }

    /// The kept text of `slot`.
    pub(super) fn get(&self, slot: u32) -> Option<&[u8]> {
        let (start, end) = *self.spans.get(slot as usize)?;
        if start == NONE {
            return None;
        }
        self.bytes.get(start as usize..end as usize)
    }

    /// Keeps `text` as the selected text of `slot`, unless the kept bytes
    /// would pass `room`.
    pub(super) fn keep(&mut self, slot: u32, text: &[u8], room: usize) {
        if self.selection.is_none() {
            return;
        }
        self.forget(slot);
        if value_end_within(text, 0, MAX_DEPTH - MAX_KEPT_DEPTH).is_err() {
            return;
        }
        let end = self.bytes.len() + text.len();
        let (Ok(start), Ok(end32)) = (u32::try_from(self.bytes.len()), u32::try_from(end)) else {
            return;
        };
        if end > room || end32 == NONE {
            return;
        }
        let index = slot as usize;
        if self.spans.len() <= index {
            self.spans.resize(index + 1, (NONE, 0));
        }
        if let Some(span) = self.spans.get_mut(index) {
            self.bytes.extend_from_slice(text);
            *span = (start, end32);
        }
    }

    /// Forgets the text of `slot` (its document changed or left). When
    /// most kept bytes are forgotten ones, everything is dropped (and kept
    /// again as queries ask).
    pub(super) fn forget(&mut self, slot: u32) {
        let Some(span) = self.spans.get_mut(slot as usize) else {
            return;
        };
        if span.0 == NONE {
            return;
        }
        self.dead += (span.1 - span.0) as usize;
        *span = (NONE, 0);
        if let Some(place) = self.delivered.get_mut(slot as usize) {
            *place = false;
        }
        if self.dead * 2 > self.bytes.len() {
            let selection = self.selection.take();
            self.reset(selection);
        }
    }

    /// Drops everything.
    pub(super) fn clear(&mut self) {
        self.reset(None);
    }
}

#[cfg(test)]
mod tests {
    use super::Projected;

    #[test]
    fn kept_texts_stay_within_their_room_and_go_with_their_documents() {
        let mut kept = Projected::default();
        // Nothing is kept before a selection is named.
        kept.keep(0, b"{}", 100);
        assert_eq!(kept.get(0), None);
        kept.select("fields(a)");
        kept.keep(0, b"[12345678]", 25);
        kept.keep(3, b"[\"abcdef\"]", 25);
        assert_eq!(kept.get(0), Some(&b"[12345678]"[..]));
        assert_eq!(kept.get(3), Some(&b"[\"abcdef\"]"[..]));
        assert_eq!(kept.get(1), None);
        // Beyond the room: not kept (the answer is written all the same).
        kept.keep(5, b"[12345678]", 25);
        assert_eq!(kept.get(5), None);
        // Kept again for the same slot: the newer text.
        kept.keep(3, b"[1]", 25);
        assert_eq!(kept.get(3), Some(&b"[1]"[..]));
        // Another selection drops everything.
        kept.select("fields(b)");
        assert_eq!(kept.get(0), None);
        // Forgotten ones: when most kept bytes are forgotten, all go.
        kept.keep(0, b"[12345678]", 100);
        kept.keep(1, b"{}", 100);
        kept.forget(1);
        assert_eq!(kept.get(0), Some(&b"[12345678]"[..]));
        kept.forget(0);
        assert_eq!((kept.get(0), kept.get(1)), (None, None));
        assert!(kept.bytes.is_empty(), "the dead bytes were dropped");
    }

    #[test]
    fn deep_texts_are_not_kept() {
        let mut kept = Projected::default();
        kept.select("fields(a)");
        let nested = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        kept.keep(0, nested(64).as_bytes(), 1000);
        kept.keep(1, nested(65).as_bytes(), 1000);
        assert!(kept.get(0).is_some());
        assert_eq!(kept.get(1), None);
    }

    #[test]
    fn deliveries_go_with_their_texts_and_epochs_with_all_texts() {
        let mut kept = Projected::default();
        kept.select("fields(a)");
        let first = kept.epoch();
        // Only a kept text can be delivered, and only the one a caller saw.
        kept.deliver(0, 0);
        assert!(!kept.delivered(0));
        for slot in 0..5 {
            kept.keep(slot, b"[12345678]", 100);
        }
        let at = kept.kept_at(0).unwrap();
        kept.deliver(0, at);
        kept.deliver(2, kept.kept_at(2).unwrap());
        assert_eq!(
            (kept.delivered(0), kept.delivered(1), kept.delivered(2)),
            (true, false, true)
        );
        // A text kept again or forgotten is no longer delivered; the epoch
        // stays while other texts are kept.
        kept.keep(0, b"[1]", 100);
        kept.forget(2);
        assert_eq!((kept.delivered(0), kept.delivered(2)), (false, false));
        kept.deliver(0, at);
        assert!(!kept.delivered(0), "another text than the one seen");
        assert_eq!(kept.epoch(), first);
        // Dropping every text (the same selection asked again does not)
        // starts a new epoch, with nothing delivered.
        kept.select("fields(a)");
        assert_eq!(kept.epoch(), first);
        kept.deliver(1, kept.kept_at(1).unwrap());
        assert!(kept.delivered(1));
        kept.select("fields(b)");
        assert!(!kept.delivered(1));
        assert_ne!(kept.epoch(), first);
        let second = kept.epoch();
        kept.keep(0, b"[12345678]", 100);
        kept.forget(0);
        assert_ne!(kept.epoch(), second, "most bytes forgotten: all dropped");
        let third = kept.epoch();
        kept.clear();
        assert_ne!(kept.epoch(), third);
        // Deliveries taken back: a new epoch, the texts still kept.
        kept.select("fields(c)");
        kept.keep(4, b"[1]", 100);
        kept.deliver(4, kept.kept_at(4).unwrap());
        let fourth = kept.epoch();
        kept.undeliver();
        assert!(!kept.delivered(4));
        assert_ne!(kept.epoch(), fourth);
        assert_eq!(kept.get(4), Some(&b"[1]"[..]));
    }
}
