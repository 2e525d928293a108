//! The one error type of the crate.
//!
//! Every failure is an [`Error`] with a stable [`Error::code`]; the JavaScript
//! boundary turns it into a `ContentRepoError` carrying the same code.

use crate::json::record::Writer;

/// Everything that can go wrong, with the data a caller needs to react.
///
/// Messages never contain the API key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// An argument is out of range or malformed (base URL, repository, id,
    /// limit, offset, locale, tags, filters, ...).
    #[error("{message}")]
    InvalidArgument {
        /// What was wrong and what was expected.
        message: String,
    },
    /// A sort key or direction is invalid.
    #[error("{message}")]
    InvalidSort {
        /// What was wrong, with a hint where one helps.
        message: String,
    },
    /// A field selection does not follow the grammar.
    #[error("invalid selection: expected {expected} at {position}, found {found}")]
    InvalidSelection {
        /// What could have continued a valid selection there.
        expected: String,
        /// What was found instead.
        found: String,
        /// 0-based index, in UTF-16 code units, of the first character that
        /// cannot continue a valid selection (the input's length at its end).
        position: usize,
    },
    /// The service answered with a status outside 2xx.
    #[error("HTTP {status}{}", message.as_ref().map(|m| format!(": {m}")).unwrap_or_default())]
    Http {
        /// The HTTP status code.
        status: u16,
        /// The service's own message, when its body had one.
        message: Option<String>,
    },
    /// The request could not be sent or its response could not be read.
    #[error("network error: {message}")]
    Network {
        /// A description of the failure.
        message: String,
    },
    /// The request took longer than the configured timeout.
    #[error("request timed out after {ms} ms")]
    Timeout {
        /// The timeout that elapsed, in milliseconds.
        ms: u64,
    },
    /// The caller aborted the request.
    #[error("request aborted")]
    Aborted,
    /// The body is not the JSON that was expected.
    #[error("{message} (body starts with {})", crate::json::record::quoted(.excerpt))]
    Decode {
        /// What was wrong.
        message: String,
        /// A short excerpt of the body.
        excerpt: String,
    },
    /// The offline cache's storage failed (a full disk, say). Reported to
    /// `onCacheError`; the request that caused the write still succeeds.
    #[error("cache storage failed: {message}")]
    Storage {
        /// What failed.
        message: String,
    },
    /// Offline, and the cache cannot answer the query.
    #[error("{message}")]
    NotCached {
        /// Why the cache cannot answer.
        message: String,
    },
    /// A synchronous API was used before the WebAssembly module was ready.
    /// The package entry raises it (in JavaScript, before any call reaches
    /// the module); the code is listed here so that every code has one home.
    #[error("{message}")]
    NotInitialized {
        /// What to await first (`ready()` or `init()`).
        message: String,
    },
}

impl Error {
    /// The stable code of this error, as JavaScript sees it in `error.code`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::InvalidArgument { .. } => "invalid_argument",
            Error::InvalidSort { .. } => "invalid_sort",
            Error::InvalidSelection { .. } => "invalid_selection",
            Error::Http { .. } => "http",
            Error::Network { .. } => "network",
            Error::Timeout { .. } => "timeout",
            Error::Aborted => "aborted",
            Error::Decode { .. } => "decode",
            Error::Storage { .. } => "storage",
            Error::NotCached { .. } => "not_cached",
            Error::NotInitialized { .. } => "not_initialized",
        }
    }

    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Error::InvalidArgument {
            message: message.into(),
        }
    }

    /// Shorthand for [`Error::InvalidSort`].
    pub fn invalid_sort(message: impl Into<String>) -> Self {
        Error::InvalidSort {
            message: message.into(),
        }
    }

    /// An [`Error::Decode`] whose excerpt is the start of `text` (60
    /// characters), without the API key of any client alive
    /// ([`Redacting`]).
    pub(crate) fn decode(message: impl Into<String>, text: &str) -> Self {
        Error::Decode {
            message: message.into(),
            excerpt: excerpt(text, 60),
        }
    }

    /// What a JavaScript `ContentRepoError` carries beyond its code and
    /// message, as a JSON object: `position` and `expected` (selection
    /// errors), `status` (HTTP errors), `excerpt` (decode errors).
    ///
    /// ```
    /// let error = content_repo::Error::Http { status: 404, message: None };
    /// assert_eq!(error.details_json(), r#"{"status":404}"#);
    /// ```
    pub fn details_json(&self) -> String {
        let mut details = Writer::new();
        match self {
            Error::InvalidSelection {
                position, expected, ..
            } => details
                .number("position", *position as f64)
                .string("expected", expected),
            Error::Http { status, .. } => details.number("status", f64::from(*status)),
            Error::Decode { excerpt, .. } => details.string("excerpt", excerpt),
            _ => &mut details,
        };
        details.finish()
    }

    /// The position of a selection error, if this is one.
    pub fn position(&self) -> Option<usize> {
        match self {
            Error::InvalidSelection { position, .. } => Some(*position),
            _ => None,
        }
    }
}

thread_local! {
    /// The API keys of the clients alive (one entry a client).
    static SECRETS: std::cell::RefCell<Vec<std::rc::Rc<str>>> = const {
        std::cell::RefCell::new(Vec::new())
    };
}

/// While one lives, its API key is redacted from every excerpt of a body
/// that an [`Error::Decode`] carries, wherever the body came from (a
/// response, a stored cache entry, a refresh's page): a client holds one.
///
/// ```
/// use content_repo::{Error, Redacting};
///
/// let text = r#"[{"s3cret":1}]"#;
/// let excerpt = || match content_repo::store::DocumentStore::new().put_json(text.to_owned()) {
///     Err(Error::Decode { excerpt, .. }) => excerpt,
///     other => format!("{other:?}"),
/// };
/// let held = Redacting::new("s3cret");
/// assert_eq!(excerpt(), r#"[{"[redacted]":1}]"#);
/// drop(held);
/// assert_eq!(excerpt(), text);
/// ```
#[derive(Debug)]
pub struct Redacting(std::rc::Rc<str>);

impl Redacting {
    /// Redacts `secret` until dropped (an empty one: nothing).
    pub fn new(secret: &str) -> Self {
        let secret: std::rc::Rc<str> = secret.into();
        let _ = SECRETS.try_with(|secrets| secrets.borrow_mut().push(secret.clone()));
        Redacting(secret)
    }
}

impl Drop for Redacting {
    fn drop(&mut self) {
        let _ = SECRETS.try_with(|secrets| {
            let mut secrets = secrets.borrow_mut();
            if let Some(at) = secrets.iter().position(|s| std::rc::Rc::ptr_eq(s, &self.0)) {
                secrets.swap_remove(at);
            }
        });
    }
}

/// `text` without the keys [`Redacting`] holds: a message that carries
/// text from elsewhere (a storage's error).
pub(crate) fn redacted(text: &str) -> String {
    let secrets = SECRETS.try_with(|secrets| secrets.borrow().clone());
    let secrets = secrets.unwrap_or_default();
    // (Made printable first: see `crate::http::response::excerpt`.)
    let printable = text.chars().map(crate::http::response::printable).collect();
    secrets.iter().fold(printable, |text, secret| {
        crate::http::response::scrub(&text, secret)
    })
}

/// At most `chars` characters of the start of `text`, without the keys
/// [`Redacting`] holds (see [`crate::http::response::excerpt`]).
pub(crate) fn excerpt(text: &str, chars: usize) -> String {
    let secrets = SECRETS.try_with(|secrets| secrets.borrow().clone());
    let secrets = secrets.unwrap_or_default();
    // (A secret's bytes count its characters or more.)
    let margin = secrets.iter().map(|s| s.len()).max().unwrap_or(0);
    let window: String = text
        .chars()
        .take(chars + margin.saturating_mul(12))
        .collect();
    redacted(&window).chars().take(chars).collect()
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
