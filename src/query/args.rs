//! The setters of the JavaScript `Query`, on [`Arg`]s: what each accepts
//! (`null` and `undefined` remove a parameter), and its errors.
//!
//! ```
//! use content_repo::args::Arg;
//! use content_repo::query::args::Setter;
//! use content_repo::Query;
//!
//! let mut query = Query::new();
//! query.sort_arg(&Arg::Text("fields.title".into()), &Arg::Number(-1.0))?;
//! query.set_arg(Setter::Limit, &Arg::Number(10.0))?;
//! query.set_arg(Setter::Includes, &Arg::Text("fields.author".into()))?;
//! assert_eq!(
//!     query.to_string(),
//!     "sorting%5Bfields.title%5D=DESC&limit=10&includes%5B*.fields.author%5D=1"
//! );
//! query.set_arg(Setter::Limit, &Arg::Null)?;
//! assert_eq!(query.get_limit(), None);
//! # Ok::<(), content_repo::Error>(())
//! ```

use super::sort::{invalid_direction, Direction, FieldKey, Sort};
use super::{Filter, Join, Query, MAX_INCLUDE_LEVELS, MAX_LIMIT, MAX_OFFSET};
use crate::args::{describe, integer, optional_string, string, strings, Arg, Props};
use crate::error::{Error, Result};
use crate::json::record::Writer;

/// A setter of the JavaScript `Query` that takes one argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setter {
    /// `fields(selection)`.
    Fields,
    /// `limit(limit)`.
    Limit,
    /// `offset(offset)`.
    Offset,
    /// `locale(locale)`.
    Locale,
    /// `includes(levelsOrFields)`.
    Includes,
    /// `embedAssets(enabled)`.
    EmbedAssets,
    /// `includeTags(tags)`.
    IncludeTags,
    /// `excludeTags(tags)`.
    ExcludeTags,
    /// `search(text)`.
    Search,
}

impl Query {
    /// Runs the JavaScript setter `setter` with `value`. On an error the
    /// query may be partly changed: the boundary works on a copy.
    pub fn set_arg(&mut self, setter: Setter, value: &Arg) -> Result<()> {
        let absent = value.is_absent();
        let tags = |what: &str| match absent {
            true => Ok(Vec::new()),
            false => strings(value, what),
        };
        match setter {
            Setter::Fields => match optional_string(value, "the selection")? {
                Some(text) => self.fields(&text).map(drop),
                None => self.clear("fields").map(drop),
            },
            Setter::Limit if absent => self.clear("limit").map(drop),
            Setter::Limit => self.limit(integer(value, "limit", 1, MAX_LIMIT)?).map(drop),
            Setter::Offset if absent => self.clear("offset").map(drop),
            Setter::Offset => self
                .offset(integer(value, "offset", 0, MAX_OFFSET)?)
                .map(drop),
            Setter::Locale => match optional_string(value, "locale")? {
                Some(locale) => self.locale(&locale).map(drop),
                None => self.clear("locale").map(drop),
            },
            Setter::Includes => match value {
                _ if absent => self.clear("includes").map(drop),
                Arg::Number(_) => {
                    let levels = integer(value, "includes", 1, MAX_INCLUDE_LEVELS)?;
                    self.include_levels(levels).map(drop)
                }
                Arg::Text(one) | Arg::Unpaired(one) => self.include_fields(&[one]).map(drop),
                // An empty array removes it, as `includeTags([])` does.
                _ => match strings(value, "includes")? {
                    fields if fields.is_empty() => self.clear("includes").map(drop),
                    fields => self.include_fields(&fields).map(drop),
                },
            },
            Setter::EmbedAssets => {
                let enabled = match value {
                    Arg::Undefined => true,
                    Arg::Bool(enabled) => *enabled,
                    _ => {
                        return Err(Error::invalid_argument(format!(
                            "embedAssets must be a boolean, got {}",
                            describe(value)
                        )))
                    }
                };
                self.embed_assets(enabled);
                Ok(())
            }
            Setter::IncludeTags => self.include_tags(tags("includeTags")?).map(drop),
            Setter::ExcludeTags => self.exclude_tags(tags("excludeTags")?).map(drop),
            Setter::Search => match optional_string(value, "search")? {
                Some(text) => self.search(&text).map(drop),
                None => self.clear("search").map(drop),
            },
        }
    }

    /// The sort keys, primary first, as the JavaScript `sorting` getter
    /// returns them: `[{"key":"fields.title","direction":"ASC"}]`.
    pub fn sorting_json(&self) -> String {
        let specs: Vec<String> = self
            .sorting()
            .iter()
            .map(|sort| {
                let mut spec = Writer::new();
                spec.string("key", &sort.key.to_string())
                    .string("direction", sort.direction.as_str());
                spec.finish()
            })
            .collect();
        format!("[{}]", specs.join(","))
    }

    /// `sort(key, direction)`: `key` is `fields.<name>` or `meta.<name>`;
    /// `direction` is `ASC`, `DESC` (any case), `1` or `-1`, as a string or
    /// a number.
    pub fn sort_arg(&mut self, key: &Arg, direction: &Arg) -> Result<()> {
        let key: FieldKey = key
            .as_text()
            .ok_or_else(|| {
                Error::invalid_sort(format!(
                    "invalid sort key {}: expected a string such as \"fields.title\"",
                    describe(key)
                ))
            })?
            .parse()?;
        let name = key.to_string();
        let direction = match direction {
            Arg::Text(text) => Direction::parse_for(text, &name)?,
            Arg::Number(1.0) => Direction::Asc,
            Arg::Number(-1.0) => Direction::Desc,
            _ => return Err(invalid_direction(&describe(direction), &name)),
        };
        self.push_sort(Sort { key, direction }).map(drop)
    }

    /// `filter({ field, op, value, join?, contentType? })`: `value` is a
    /// string, a finite number (written as JavaScript writes it) or a
    /// boolean; `join` is `and` (the default) or `or`; `contentType` is `*`
    /// (the default) or a content type.
    pub fn filter_arg(&mut self, spec: Props<'_>) -> Result<()> {
        if !spec(&[]).is_object() {
            return Err(Error::invalid_argument(format!(
                "a filter must be an object {{ field, op, value, join?, contentType? }}, got {}",
                describe(&spec(&[]))
            )));
        }
        let field = string(&spec(&["field"]), "filter field")?;
        let op = string(&spec(&["op"]), "filter op")?;
        let value = match spec(&["value"]) {
            // A lone surrogate as URLSearchParams writes it (U+FFFD).
            Arg::Text(text) | Arg::Unpaired(text) => text,
            Arg::Bool(flag) => flag.to_string(),
            Arg::Number(number) if number.is_finite() => number_text(number),
            other => {
                return Err(Error::invalid_argument(format!(
                    "filter value must be a string, a finite number or a boolean, got {}",
                    describe(&other)
                )))
            }
        };
        let join = match optional_string(&spec(&["join"]), "filter join")? {
            Some(join) => Join::parse(&join)?,
            None => Join::And,
        };
        let content_type = optional_string(&spec(&["contentType"]), "filter contentType")?
            .unwrap_or_else(|| "*".into());
        self.filter(Filter::new(&field, &op, value, join, &content_type)?);
        Ok(())
    }
}

/// A finite number as JavaScript's `String(number)` writes it: the
/// shortest digits that read back to it, in plain notation from `1e-6` up
/// to `1e21`, in exponent notation (`1e+21`, `1.5e-7`) outside.
pub fn number_text(number: f64) -> String {
    if number == 0.0 {
        return "0".into();
    }
    let sign = if number < 0.0 { "-" } else { "" };
    // `Display` writes the shortest digits that read back, in plain notation.
    let mut plain = String::new();
    crate::num::write_f64(&mut plain, number.abs());
    let (whole, fraction) = plain.split_once('.').unwrap_or((&plain, ""));
    let all = format!("{whole}{fraction}");
    let significant = all.trim_start_matches('0');
    let zeros = all.len() - significant.len();
    let digits = significant.trim_end_matches('0');
    // The value is 0.<digits> times 10 to the power `n`.
    let count = |text: &str| i64::try_from(text.len()).unwrap_or(0);
    let (k, n) = (
        count(digits),
        count(whole) - i64::try_from(zeros).unwrap_or(0),
    );
    let padding = |length: i64| "0".repeat(usize::try_from(length).unwrap_or(0));
    let split = usize::try_from(n).unwrap_or(0).min(digits.len());
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", padding(n - k))
    } else if 0 < n && n <= 21 {
        let (head, tail) = digits.split_at_checked(split).unwrap_or((digits, ""));
        format!("{head}.{tail}")
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", padding(-n))
    } else {
        let (first, rest) = digits.split_at_checked(1).unwrap_or((digits, ""));
        let dot = if rest.is_empty() { "" } else { "." };
        let plus = if n > 0 { "+" } else { "" };
        format!("{first}{dot}{rest}e{plus}{}", n - 1)
    };
    format!("{sign}{body}")
}
