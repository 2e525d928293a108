//! The selected text of stored documents for the latest selection a query
//! asked for: a later query with that selection (another sorting, another
//! page, the same view again) copies it instead of selecting again. A
//! document's text is forgotten whenever the document changes or leaves;
//! the texts kept stay within a bound the store sets (half its live text).

/// A span's start when the slot's text is not kept.
const NONE: u32 = u32::MAX;

#[derive(Debug, Default)]
pub(super) struct Projected {
    /// The canonical selection the texts are of (`None`: none kept).
    selection: Option<String>,
    /// The kept texts, back to back.
    bytes: Vec<u8>,
    /// Per slot: where its text is in `bytes` (start [`NONE`]: not kept).
    spans: Vec<(u32, u32)>,
    /// Bytes of `bytes` that no span points at any more.
    dead: usize,
}

impl Projected {
    /// Keeps texts of `selection` (canonical) from now: those of another
    /// selection are dropped.
    pub(super) fn select(&mut self, selection: &str) {
        if self.selection.as_deref() != Some(selection) {
            *self = Projected {
                selection: Some(selection.to_owned()),
                ..Projected::default()
            };
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
        if self.dead * 2 > self.bytes.len() {
            let selection = self.selection.take();
            *self = Projected {
                selection,
                ..Projected::default()
            };
        }
    }

    /// Drops everything.
    pub(super) fn clear(&mut self) {
        *self = Projected::default();
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
        kept.keep(0, b"0123456789", 25);
        kept.keep(3, b"abcdefghij", 25);
        assert_eq!(kept.get(0), Some(&b"0123456789"[..]));
        assert_eq!(kept.get(3), Some(&b"abcdefghij"[..]));
        assert_eq!(kept.get(1), None);
        // Beyond the room: not kept (the answer is written all the same).
        kept.keep(5, b"0123456789", 25);
        assert_eq!(kept.get(5), None);
        // Kept again for the same slot: the newer text.
        kept.keep(3, b"xyz", 25);
        assert_eq!(kept.get(3), Some(&b"xyz"[..]));
        // Another selection drops everything.
        kept.select("fields(b)");
        assert_eq!(kept.get(0), None);
        // Forgotten ones: when most kept bytes are forgotten, all go.
        kept.keep(0, b"0123456789", 100);
        kept.keep(1, b"ab", 100);
        kept.forget(1);
        assert_eq!(kept.get(0), Some(&b"0123456789"[..]));
        kept.forget(0);
        assert_eq!((kept.get(0), kept.get(1)), (None, None));
        assert!(kept.bytes.is_empty(), "the dead bytes were dropped");
    }
}
