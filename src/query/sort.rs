//! Sort keys and directions: `sorting[<scope>.<fieldName>]=<ASC|DESC>`.

use crate::json::record::quoted;
use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// The keys of a document's `meta`, used for hints.
const META_KEYS: [&str; 7] = [
    "id",
    "contentType",
    "repository",
    "revision",
    "tags",
    "createdAt",
    "updatedAt",
];

/// Which part of a document a key addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// The user-defined `fields`.
    Fields,
    /// The system `meta`.
    Meta,
}

impl Scope {
    /// `fields` or `meta`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Fields => "fields",
            Scope::Meta => "meta",
        }
    }
}

/// Whether `name` is a field name: `[A-Za-z0-9_-]+`.
pub(crate) fn is_field_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A scoped field: `fields.title`, `meta.createdAt`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldKey {
    /// `fields` or `meta`.
    pub scope: Scope,
    /// The field's API id (or the meta key).
    pub name: String,
}

impl FieldKey {
    /// Parses `<scope>.<fieldName>`; `what` names the thing in errors
    /// ("sort key", "filter field").
    pub(crate) fn parse_as(text: &str, what: &str) -> Result<FieldKey, String> {
        let (scope, name) = match text.split_once('.') {
            Some(("fields", name)) => (Scope::Fields, name),
            Some(("meta", name)) => (Scope::Meta, name),
            _ => {
                return Err(format!(
                    "invalid {what} {}: {}",
                    quoted(text),
                    key_hint(text)
                ))
            }
        };
        if !is_field_name(name) {
            return Err(format!(
                "invalid {what} {}: the field name after '{}.' must match [A-Za-z0-9_-]+{}",
                quoted(text),
                scope.as_str(),
                name.split('.')
                    .next()
                    .filter(|first| is_field_name(first))
                    .map(|first| format!(
                        " (a {what} is not a nested path; did you mean `{}.{first}`?)",
                        scope.as_str()
                    ))
                    .unwrap_or_default()
            ));
        }
        Ok(FieldKey {
            scope,
            name: name.to_owned(),
        })
    }
}

/// A hint for a key without a valid scope.
fn key_hint(text: &str) -> String {
    let expected = "expected <scope>.<fieldName> with scope `fields` or `meta`";
    let suggestion = match text.split_once('.') {
        Some((scope, name)) if scope.eq_ignore_ascii_case("fields") && is_field_name(name) => {
            Some(format!("fields.{name}"))
        }
        Some((scope, name)) if scope.eq_ignore_ascii_case("meta") && is_field_name(name) => {
            Some(format!("meta.{name}"))
        }
        None if META_KEYS.contains(&text) => Some(format!("meta.{text}")),
        None if is_field_name(text) => Some(format!("fields.{text}")),
        _ => None,
    };
    match suggestion {
        Some(key) => format!("{expected}; did you mean `{key}`?"),
        None => expected.to_owned(),
    }
}

impl fmt::Display for FieldKey {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(out, "{}.{}", self.scope.as_str(), self.name)
    }
}

impl FromStr for FieldKey {
    type Err = Error;

    /// Parses a sort key; errors are [`Error::InvalidSort`].
    fn from_str(text: &str) -> Result<Self> {
        FieldKey::parse_as(text, "sort key").map_err(Error::invalid_sort)
    }
}

/// A sort direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Ascending: `ASC`, `asc`, `1`.
    Asc,
    /// Descending: `DESC`, `desc`, `-1`.
    Desc,
}

impl Direction {
    /// The wire form: `ASC` or `DESC`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Asc => "ASC",
            Direction::Desc => "DESC",
        }
    }

    /// Parses a direction as given (`ASC`, `DESC`, `1`, `-1`, any case),
    /// naming `key` in the error.
    pub fn parse_for(text: &str, key: &str) -> Result<Direction> {
        if text.eq_ignore_ascii_case("asc") || text == "1" {
            Ok(Direction::Asc)
        } else if text.eq_ignore_ascii_case("desc") || text == "-1" {
            Ok(Direction::Desc)
        } else {
            Err(invalid_direction(&quoted(text), key))
        }
    }
}

/// The error for a direction that is not one of the accepted values;
/// `shown` is how the value is written in the message.
pub(crate) fn invalid_direction(shown: &str, key: &str) -> Error {
    Error::invalid_sort(format!(
        "invalid sort direction {shown} for `{key}`: expected \"ASC\", \"DESC\", 1 or -1"
    ))
}

impl fmt::Display for Direction {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        out.write_str(self.as_str())
    }
}

/// One sort key with its direction.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sort {
    /// The key.
    pub key: FieldKey,
    /// The direction.
    pub direction: Direction,
}

impl Sort {
    /// Parses a key and a direction given as text.
    pub fn parse(key: &str, direction: &str) -> Result<Sort> {
        let key: FieldKey = key.parse()?;
        let direction = Direction::parse_for(direction, &key.to_string())?;
        Ok(Sort { key, direction })
    }
}
