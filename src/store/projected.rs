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
