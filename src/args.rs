//! JavaScript arguments as the core reads them: the boundary converts each
//! value into an [`Arg`] (shallowly) and reads options objects through a
//! [`Props`] getter; everything that decides whether an argument is valid,
//! and what its error says, is here.
//!
//! ```
//! use content_repo::args::{integer, Arg};
//!
//! assert_eq!(integer(&Arg::Number(5.0), "limit", 1u32, 1000)?, 5);
//! let error = integer(&Arg::Text("5".into()), "limit", 1u32, 1000).unwrap_err();
//! assert_eq!(error.to_string(), "invalid limit \"5\": expected an integer from 1 to 1000");
//! # Ok::<(), content_repo::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::json::record::quoted;
use crate::num::u64_from_f64;

/// A JavaScript value, as far as an argument reader looks at it.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// `undefined`.
    Undefined,
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(f64),
    /// A string, or one of the package's `Query` objects (read through its
    /// canonical string) where a query is expected.
    Text(String),
    /// A string that is not well-formed UTF-16 (a lone surrogate), as read
    /// (each lone surrogate a U+FFFD): a query value as `URLSearchParams`
    /// writes it, never a path segment ([`segment`]).
    Unpaired(String),
    /// An array, with its elements (nested arrays without theirs).
    Array(Vec<Arg>),
    /// A function.
    Function,
    /// An `AbortSignal`.
    Signal,
    /// Any other object.
    Object,
    /// A bigint or a symbol, as JavaScript writes it (`1n`,
    /// `Symbol(asc)`; 40 characters at most): named by it in messages.
    Other(String),
    /// A value that could not be read: a getter or a `Proxy` threw while it
    /// was read, or one of the package's objects was freed. Its text names
    /// it in messages (`"a freed Query"`); no reader accepts it.
    Unreadable(String),
}

/// Reads a property of an options argument by its path: `&[]` is the
/// argument itself, `&["cache", "policy"]` is `options.cache.policy`
/// (`undefined` below anything that is not an object).
pub type Props<'a> = &'a dyn Fn(&[&str]) -> Arg;

impl Arg {
    /// `undefined` or `null`.
    pub fn is_absent(&self) -> bool {
        matches!(self, Arg::Undefined | Arg::Null)
    }

    /// Whether JavaScript takes it for `true` in a condition.
    pub fn is_truthy(&self) -> bool {
        match self {
            Arg::Undefined | Arg::Null => false,
            Arg::Bool(flag) => *flag,
            Arg::Number(number) => *number != 0.0 && !number.is_nan(),
            Arg::Text(text) | Arg::Unpaired(text) => !text.is_empty(),
            Arg::Array(_) | Arg::Function | Arg::Signal | Arg::Object => true,
            Arg::Other(written) => written != "0n",
            // (Its readers refuse it: see [`Arg::flag`].)
            Arg::Unreadable(_) => false,
        }
    }

    /// A flag, `what` named in the error: whether JavaScript takes it for
    /// `true`; `invalid_argument` for a value that could not be read (its
    /// getter threw), never a guess.
    pub fn flag(&self, what: &str) -> crate::error::Result<bool> {
        match self {
            Arg::Unreadable(text) => Err(crate::error::Error::invalid_argument(format!(
                "{what}: got {text}"
            ))),
            _ => Ok(self.is_truthy()),
        }
    }

    /// Whether it is an object (arrays, signals and functions are not
    /// plain options objects, but arrays and signals are objects).
    pub fn is_object(&self) -> bool {
        matches!(self, Arg::Array(_) | Arg::Signal | Arg::Object)
    }

    /// A JavaScript string as read (a lone surrogate as U+FFFD);
    /// `well_formed` says whether the string itself is well-formed UTF-16,
    /// asked only when `text` holds a U+FFFD.
    pub fn text(text: String, well_formed: impl FnOnce() -> bool) -> Arg {
        match crate::json::has_replacement(&text) && !well_formed() {
            true => Arg::Unpaired(text),
            false => Arg::Text(text),
        }
    }

    /// The text of a string.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Arg::Text(text) | Arg::Unpaired(text) => Some(text),
            _ => None,
        }
    }
}

/// How a value is named in an error message: its type, or the value itself
/// for short primitives.
pub fn describe(value: &Arg) -> String {
    match value {
        Arg::Undefined => "undefined".into(),
        Arg::Null => "null".into(),
        Arg::Text(text) | Arg::Unpaired(text) => {
            let short: String = text.chars().take(40).collect();
            quoted(&short)
        }
        Arg::Number(number) => {
            let mut text = String::new();
            crate::num::write_f64(&mut text, *number);
            text
        }
        Arg::Bool(flag) => format!("{flag}"),
        Arg::Array(_) => "an array".into(),
        Arg::Function => "a function".into(),
        Arg::Signal | Arg::Object => "an object".into(),
        Arg::Unreadable(what) | Arg::Other(what) => what.clone(),
    }
}

/// A required string that is one path segment of a URL (an id, an api id,
/// the repository): encoded as `encodeURIComponent` does, which throws for
/// a lone surrogate, so one is an `invalid_argument` error (never another
/// document's URL).
///
/// ```
/// use content_repo::args::{segment, Arg};
///
/// assert_eq!(segment(&Arg::Text("a b".into()), "the id").unwrap(), "a b");
/// let error = segment(&Arg::Unpaired("\u{fffd}".into()), "the id").unwrap_err();
/// assert_eq!(error.code(), "invalid_argument");
/// ```
pub fn segment(value: &Arg, what: &str) -> Result<String> {
    if let Arg::Unpaired(_) = value {
        return Err(Error::invalid_argument(format!(
            "{what} holds a lone surrogate (it is not well-formed UTF-16): it cannot be a URL \
             path segment (encodeURIComponent throws for it)"
        )));
    }
    string(value, what)
}

/// A required string.
pub fn string(value: &Arg, what: &str) -> Result<String> {
    value.as_text().map(str::to_owned).ok_or_else(|| {
        Error::invalid_argument(format!("{what} must be a string, got {}", describe(value)))
    })
}

/// An optional string (`undefined` and `null` are absent).
pub fn optional_string(value: &Arg, what: &str) -> Result<Option<String>> {
    if value.is_absent() {
        return Ok(None);
    }
    string(value, what).map(Some)
}

/// A whole number from `min` to `max`, as the type of the bounds.
pub fn integer<T>(value: &Arg, what: &str, min: T, max: T) -> Result<T>
where
    T: Copy + std::fmt::Display + Into<u64> + TryFrom<u64>,
{
    let range = || {
        Error::invalid_argument(format!(
            "invalid {what} {}: expected an integer from {min} to {max}",
            describe(value)
        ))
    };
    let Arg::Number(number) = *value else {
        return Err(range());
    };
    // The bounds are below 2^53: as floats, they are exact.
    let (low, high): (u64, u64) = (min.into(), max.into());
    if number.fract() != 0.0 || number < low as f64 || number > high as f64 {
        return Err(range());
    }
    T::try_from(u64_from_f64(number)).map_err(|_| range())
}

/// [`integer`], or `default` when `undefined`.
pub fn optional_integer<T>(value: &Arg, what: &str, min: T, max: T, default: T) -> Result<T>
where
    T: Copy + std::fmt::Display + Into<u64> + TryFrom<u64>,
{
    match value {
        Arg::Undefined => Ok(default),
        _ => integer(value, what, min, max),
    }
}

/// An array of strings.
pub fn strings(value: &Arg, what: &str) -> Result<Vec<String>> {
    let Arg::Array(items) = value else {
        return Err(Error::invalid_argument(format!(
            "{what} must be an array of strings, got {}",
            describe(value)
        )));
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            item.as_text().map(str::to_owned).ok_or_else(|| {
                Error::invalid_argument(format!(
                    "{what}[{index}] must be a string, got {}",
                    describe(item)
                ))
            })
        })
        .collect()
}

/// Whether an optional function (`undefined` and `null` are absent) is
/// given.
pub fn optional_function(value: &Arg, what: &str) -> Result<bool> {
    match value {
        Arg::Function => Ok(true),
        _ if value.is_absent() => Ok(false),
        _ => Err(Error::invalid_argument(format!(
            "{what} must be a function, got {}",
            describe(value)
        ))),
    }
}

/// An optional number of milliseconds (or bytes) `>= 0`; `undefined` is
/// absent.
pub fn optional_ms(value: &Arg, what: &str) -> Result<Option<f64>> {
    match value {
        Arg::Undefined => Ok(None),
        Arg::Number(ms) if *ms >= 0.0 && ms.is_finite() => Ok(Some(*ms)),
        _ => Err(Error::invalid_argument(format!(
            "{what} must be a number >= 0, got {}",
            describe(value)
        ))),
    }
}

/// Checks that an optional argument, when given, is an object: `shape`
/// names what it should hold, e.g. `request options must be an object { signal? }`.
pub fn optional_object(value: &Arg, shape: &str) -> Result<()> {
    if value.is_absent() || value.is_object() {
        return Ok(());
    }
    Err(Error::invalid_argument(format!(
        "{shape}, got {}",
        describe(value)
    )))
}
