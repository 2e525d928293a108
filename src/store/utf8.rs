//! The buffer `DocumentStore.putJson` reads a JavaScript string into: its
//! UTF-8 (lone surrogates as U+FFFD, as `TextEncoder` gives), written in
//! steps by `TextEncoder.encodeInto` straight into wasm memory, with no copy
//! of the text in JavaScript memory on the way. How much room each step
//! gets, and when the text is all in, is decided here.
//!
//! ```
//! use content_repo::store::utf8::Utf8Buffer;
//!
//! // "héllo" is 5 UTF-16 units; a step reads all of it, writing 6 bytes.
//! let mut buffer = Utf8Buffer::new(5);
//! let (from, room) = buffer.spare();
//! assert_eq!(from, 0);
//! room[..6].copy_from_slice("héllo".as_bytes());
//! assert!(!buffer.advance(5, 6));
//! assert_eq!(buffer.finish(), "héllo".as_bytes());
//! ```

/// A UTF-8 buffer filled in steps from a text of UTF-16 units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Utf8Buffer {
    bytes: Vec<u8>,
    /// The text's length in UTF-16 units.
    length: usize,
    /// Units read so far.
    read: usize,
    /// Bytes written so far.
    written: usize,
}

impl Utf8Buffer {
    /// A buffer for a text of `length` UTF-16 units. Response text is
    /// mostly ASCII: room for 1/16 more bytes than units at first, and more
    /// when that is not enough.
    pub fn new(length: usize) -> Self {
        let room = length.saturating_add(length / 16).saturating_add(16);
        Utf8Buffer {
            bytes: vec![0; room],
            length,
            read: 0,
            written: 0,
        }
    }

    /// Where the next step starts reading (a UTF-16 unit), and the room it
    /// may write to.
    pub fn spare(&mut self) -> (usize, &mut [u8]) {
        let room = self.bytes.get_mut(self.written..).unwrap_or_default();
        (self.read, room)
    }

    /// Takes in a step that read `read` units and wrote `written` bytes to
    /// the spare room; whether another step is needed (then the room has
    /// grown to fit the rest: at most 3 bytes per unit left).
    pub fn advance(&mut self, read: usize, written: usize) -> bool {
        let room = self.bytes.len() - self.written;
        self.read = self.read.saturating_add(read);
        self.written += written.min(room);
        if self.read >= self.length || (read == 0 && room >= 4) {
            return false;
        }
        let rest = (self.length - self.read).saturating_mul(3);
        self.bytes
            .resize(self.written.saturating_add(rest).saturating_add(4), 0);
        true
    }

    /// The bytes written.
    pub fn finish(mut self) -> Vec<u8> {
        self.bytes.truncate(self.written);
        self.bytes.shrink_to_fit();
        self.bytes
    }
}
