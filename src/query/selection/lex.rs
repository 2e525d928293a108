//! The lexer of the selection grammar: tokens with their UTF-16 positions.

/// One token of a selection, as the parser sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// `[A-Za-z0-9_-]+`
    Name(&'a str),
    /// `*`
    Star,
    /// `,`
    Comma,
    /// `/`
    Slash,
    /// `(`
    Open,
    /// `)`
    Close,
    /// A character that no token starts with.
    Stray(char),
    /// The end of the input.
    End,
}

impl Token<'_> {
    /// How an error message names this token.
    pub(crate) fn describe(&self) -> String {
        match self {
            Token::Name(name) => format!("name '{name}'"),
            Token::Star => "'*'".into(),
            Token::Comma => "','".into(),
            Token::Slash => "'/'".into(),
            Token::Open => "'('".into(),
            Token::Close => "')'".into(),
            Token::Stray(c) if c.is_control() || c.is_whitespace() => {
                format!("character U+{:04X}", u32::from(*c))
            }
            Token::Stray(c) => format!("character '{c}'"),
            Token::End => "end of selection".into(),
        }
    }
}

/// Whether `byte` may appear in a name.
fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}

/// Splits a selection into tokens on demand, one token of lookahead.
pub(crate) struct Lexer<'a> {
    text: &'a str,
    /// Byte offset of the next unread character.
    byte: usize,
    /// The same offset in UTF-16 code units.
    utf16: usize,
    peeked: Option<(Token<'a>, usize, usize, usize)>,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Lexer {
            text,
            byte: 0,
            utf16: 0,
            peeked: None,
        }
    }

    /// The next token and its UTF-16 position, without consuming it.
    pub(crate) fn peek(&mut self) -> (Token<'a>, usize) {
        if self.peeked.is_none() {
            let (token, position, byte, utf16) = self.scan();
            self.peeked = Some((token, position, byte, utf16));
        }
        match &self.peeked {
            Some((token, position, _, _)) => (token.clone(), *position),
            None => (Token::End, self.utf16),
        }
    }

    /// Consumes the token returned by the last [`Lexer::peek`].
    pub(crate) fn bump(&mut self) {
        if self.peeked.is_none() {
            self.peek();
        }
        if let Some((_, _, byte, utf16)) = self.peeked.take() {
            self.byte = byte;
            self.utf16 = utf16;
        }
    }

    /// Reads one token starting at the current offset: the token, its UTF-16
    /// position, and the byte and UTF-16 offsets after it.
    fn scan(&self) -> (Token<'a>, usize, usize, usize) {
        let bytes = self.text.as_bytes();
        let mut byte = self.byte;
        let mut utf16 = self.utf16;
        while let Some(b' ' | b'\t' | b'\r' | b'\n') = bytes.get(byte) {
            byte += 1;
            utf16 += 1;
        }
        let start16 = utf16;
        let Some(&first) = bytes.get(byte) else {
            return (Token::End, start16, byte, utf16);
        };
        let single = match first {
            b'*' => Some(Token::Star),
            b',' => Some(Token::Comma),
            b'/' => Some(Token::Slash),
            b'(' => Some(Token::Open),
            b')' => Some(Token::Close),
            _ => None,
        };
        if let Some(token) = single {
            return (token, start16, byte + 1, utf16 + 1);
        }
        let rest = self.text.get(byte..).unwrap_or_default();
        if is_name_byte(first) {
            let length = rest
                .bytes()
                .position(|b| !is_name_byte(b))
                .unwrap_or(rest.len());
            // Name bytes are ASCII: one UTF-16 unit each.
            let token = Token::Name(rest.get(..length).unwrap_or_default());
            return (token, start16, byte + length, utf16 + length);
        }
        let c = rest.chars().next().unwrap_or('\u{FFFD}');
        (
            Token::Stray(c),
            start16,
            byte + c.len_utf8(),
            utf16 + c.len_utf16(),
        )
    }
}
