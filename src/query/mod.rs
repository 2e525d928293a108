//! The request model: a [`Query`] holds every list parameter, validated on
//! the way in, and writes the canonical query string.
//!
//! ```
//! use content_repo::{Direction, Query};
//!
//! let mut query = Query::new();
//! query
//!     .sort("fields.title", Direction::Asc)?
//!     .fields("title, author/name")?
//!     .limit(10)?;
//! let text = query.to_string();
//! assert_eq!(
//!     text,
//!     "sorting%5Bfields.title%5D=ASC&fields=fields%28author%2Fname%2Ctitle%29%2Cmeta&limit=10"
//! );
//! assert_eq!(Query::parse(&text)?, query);
//! # Ok::<(), content_repo::Error>(())
//! ```

pub mod args;
pub mod encode;
pub mod selection;
pub mod sort;
pub mod url;

use crate::json::record::quoted;
use std::fmt;

use crate::error::{Error, Result};
use crate::sort::take_sorted;
use selection::Selection;
use sort::{is_field_name, Direction, FieldKey, Sort};

/// The largest `limit` the service accepts.
pub const MAX_LIMIT: u32 = 1000;
/// The deepest `includes` level.
pub const MAX_INCLUDE_LEVELS: u8 = 5;
/// The largest `offset`: JavaScript's `Number.MAX_SAFE_INTEGER`.
pub const MAX_OFFSET: u64 = (1 << 53) - 1;
/// The most sort keys a query may have: 32. A list is rarely ordered by more
/// than three or four keys; the cap keeps a query (and its URL, and the
/// local re-sorting of cached documents) small whatever a caller or a query
/// string holds. Adding a 33rd distinct key is an `invalid_sort` error;
/// sorting again on a key already present only replaces its direction.
pub const MAX_SORT_KEYS: usize = 32;

/// How linked documents are included.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Includes {
    /// `includes=<1..5>`: that many levels of links.
    Levels(u8),
    /// `includes[<contentType|*>.fields.<field>]=1` for each field.
    Fields(Vec<IncludeField>),
}

/// One field whose links are included.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IncludeField {
    /// A content type API id, or `*` for every content type.
    pub content_type: String,
    /// The field's API id.
    pub field: String,
}

impl IncludeField {
    /// Parses `<contentType|*>.fields.<field>`, or `fields.<field>` for every
    /// content type.
    pub fn parse(text: &str) -> Result<IncludeField> {
        let parts: Vec<&str> = text.split('.').collect();
        let (content_type, field) = match parts.as_slice() {
            ["fields", field] => ("*", *field),
            [content_type, "fields", field] => (*content_type, *field),
            _ => {
                return Err(Error::invalid_argument(format!(
                    "invalid includes field {}: expected <contentType|*>.fields.<field> or fields.<field>",
                    quoted(text)
                )))
            }
        };
        check_content_type(content_type, "includes field")?;
        if !is_field_name(field) {
            return Err(Error::invalid_argument(format!(
                "invalid includes field {}: the field name must match [A-Za-z0-9_-]+",
                quoted(text)
            )));
        }
        Ok(IncludeField {
            content_type: content_type.to_owned(),
            field: field.to_owned(),
        })
    }
}

impl fmt::Display for IncludeField {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(out, "{}.fields.{}", self.content_type, self.field)
    }
}

fn check_content_type(content_type: &str, what: &str) -> Result<()> {
    if content_type == "*" || is_field_name(content_type) {
        Ok(())
    } else {
        Err(Error::invalid_argument(format!(
            "invalid {what}: content type {} must be `*` or match [A-Za-z0-9_-]+",
            quoted(content_type)
        )))
    }
}

/// How a filter condition joins the conditions before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Join {
    /// Both must hold.
    #[default]
    And,
    /// Either may hold.
    Or,
}

impl Join {
    /// `and` or `or`.
    pub fn as_str(self) -> &'static str {
        match self {
            Join::And => "and",
            Join::Or => "or",
        }
    }

    /// Parses `and` or `or`.
    pub fn parse(text: &str) -> Result<Join> {
        match text {
            "and" => Ok(Join::And),
            "or" => Ok(Join::Or),
            other => Err(Error::invalid_argument(format!(
                "invalid filter join {}: expected \"and\" or \"or\"",
                quoted(other)
            ))),
        }
    }
}

/// One filter condition, sent to the service (never applied locally).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Filter {
    /// How it joins the conditions before it (ignored for the first, which
    /// is stored as [`Join::And`]).
    pub join: Join,
    /// A content type API id, or `*`.
    pub content_type: String,
    /// The field it tests.
    pub field: FieldKey,
    /// The operator, `[A-Za-z]+` (`equal`, `greaterThan`, ...).
    pub op: String,
    /// The value, as text.
    pub value: String,
}

impl Filter {
    /// Builds a validated filter; `field` is `fields.<name>` or `meta.<name>`.
    pub fn new(
        field: &str,
        op: &str,
        value: impl Into<String>,
        join: Join,
        content_type: &str,
    ) -> Result<Filter> {
        let field = FieldKey::parse_as(field, "filter field").map_err(Error::invalid_argument)?;
        if op.is_empty() || !op.bytes().all(|b| b.is_ascii_alphabetic()) {
            return Err(Error::invalid_argument(format!(
                "invalid filter operator {}: expected letters only, such as \"equal\" or \"greaterThan\"",
                quoted(op)
            )));
        }
        check_content_type(content_type, "filter")?;
        Ok(Filter {
            join,
            content_type: content_type.to_owned(),
            field,
            op: op.to_owned(),
            value: value.into(),
        })
    }

    /// The bracketed path `[<contentType>.<scope>.<field>][<op>]`.
    fn target(&self) -> String {
        format!("[{}.{}][{}]", self.content_type, self.field, self.op)
    }
}

/// A list query: sorting, field selection and the other parameters.
///
/// Setters validate their input and replace an earlier value; `Display`
/// writes the query string (without `?`) in the order of SPEC.md section 1.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    sorting: Vec<Sort>,
    selection: Option<Selection>,
    limit: Option<u32>,
    offset: Option<u64>,
    locale: Option<String>,
    includes: Option<Includes>,
    embed_assets: bool,
    include_tags: Vec<String>,
    exclude_tags: Vec<String>,
    search: Option<String>,
    filters: Vec<Filter>,
}

fn check_tags(tags: &[String], what: &str) -> Result<()> {
    match tags.iter().position(String::is_empty) {
        Some(index) => Err(Error::invalid_argument(format!(
            "invalid {what}: tag {index} is empty"
        ))),
        None => Ok(()),
    }
}

impl Query {
    /// An empty query: the service's defaults.
    pub fn new() -> Self {
        Query::default()
    }

    /// Adds a sort key (parsed from `fields.<name>` or `meta.<name>`); the
    /// first key added is the primary one. Sorting again on a key already
    /// present replaces its direction in place. At most [`MAX_SORT_KEYS`]
    /// (32) distinct keys: one more is an [`Error::InvalidSort`].
    pub fn sort(&mut self, key: &str, direction: Direction) -> Result<&mut Self> {
        let key: FieldKey = key.parse()?;
        self.push_sort(Sort { key, direction })
    }

    /// Adds a parsed sort key, replacing the direction of an equal key.
    ///
    /// Fails with [`Error::InvalidSort`], leaving the query as it was, when
    /// the key is new and the query already has [`MAX_SORT_KEYS`] keys. The
    /// cap also bounds the search for an equal key, so building a query
    /// from any number of calls takes time linear in their number.
    pub fn push_sort(&mut self, sort: Sort) -> Result<&mut Self> {
        if let Some(known) = self.sorting.iter_mut().find(|known| known.key == sort.key) {
            known.direction = sort.direction;
            return Ok(self);
        }
        if self.sorting.len() >= MAX_SORT_KEYS {
            return Err(Error::invalid_sort(format!(
                "too many sort keys: a query may sort by at most {MAX_SORT_KEYS} keys \
                 (MAX_SORT_KEYS), and `{}` would be key {}",
                sort.key,
                self.sorting.len() + 1
            )));
        }
        self.sorting.push(sort);
        Ok(self)
    }

    /// Removes every sort key: the default order.
    pub fn clear_sorting(&mut self) -> &mut Self {
        self.sorting.clear();
        self
    }

    /// Sets the field selection, parsed (see [`Selection::parse`]).
    pub fn fields(&mut self, selection: &str) -> Result<&mut Self> {
        self.selection = Some(Selection::parse(selection)?);
        Ok(self)
    }

    /// Sets or clears a parsed selection.
    pub fn set_selection(&mut self, selection: Option<Selection>) -> &mut Self {
        self.selection = selection;
        self
    }

    /// Sets `limit`, 1 to 1000.
    pub fn limit(&mut self, limit: u32) -> Result<&mut Self> {
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(invalid_limit(limit));
        }
        self.limit = Some(limit);
        Ok(self)
    }

    /// Sets `offset`, 0 or more.
    pub fn offset(&mut self, offset: u64) -> Result<&mut Self> {
        if offset > MAX_OFFSET {
            return Err(Error::invalid_argument(format!(
                "invalid offset {offset}: expected an integer from 0 to {MAX_OFFSET}"
            )));
        }
        self.offset = Some(offset);
        Ok(self)
    }

    /// Sets `locale`: a language key such as `en_US`, or `all`.
    pub fn locale(&mut self, locale: &str) -> Result<&mut Self> {
        if !is_field_name(locale) {
            return Err(Error::invalid_argument(format!(
                "invalid locale {}: expected a language key such as \"en_US\", or \"all\"",
                quoted(locale)
            )));
        }
        self.locale = Some(locale.to_owned());
        Ok(self)
    }

    /// Sets `includes` to a number of levels, 1 to 5.
    pub fn include_levels(&mut self, levels: u8) -> Result<&mut Self> {
        if !(1..=MAX_INCLUDE_LEVELS).contains(&levels) {
            return Err(invalid_levels(levels));
        }
        self.includes = Some(Includes::Levels(levels));
        Ok(self)
    }

    /// Sets `includes` per field (`<contentType|*>.fields.<field>` each).
    pub fn include_fields<S: AsRef<str>>(&mut self, fields: &[S]) -> Result<&mut Self> {
        if fields.is_empty() {
            return Err(Error::invalid_argument(
                "invalid includes: expected at least one field, or a number of levels",
            ));
        }
        let mut parsed: Vec<IncludeField> = Vec::with_capacity(fields.len());
        for field in fields {
            let field = IncludeField::parse(field.as_ref())?;
            if !parsed.contains(&field) {
                parsed.push(field);
            }
        }
        self.includes = Some(Includes::Fields(parsed));
        Ok(self)
    }

    /// Sets `includes` as read elsewhere (`None` removes it).
    pub fn set_includes(&mut self, includes: Option<Includes>) -> &mut Self {
        self.includes = includes;
        self
    }

    /// Sets `embedAssets` (`false` omits the parameter: the service's default).
    pub fn embed_assets(&mut self, embed: bool) -> &mut Self {
        self.embed_assets = embed;
        self
    }

    /// Sets `includeTags` (an empty list removes the parameter).
    pub fn include_tags(&mut self, tags: Vec<String>) -> Result<&mut Self> {
        check_tags(&tags, "includeTags")?;
        self.include_tags = tags;
        Ok(self)
    }

    /// Sets `excludeTags` (an empty list removes the parameter).
    pub fn exclude_tags(&mut self, tags: Vec<String>) -> Result<&mut Self> {
        check_tags(&tags, "excludeTags")?;
        self.exclude_tags = tags;
        Ok(self)
    }

    /// Sets `search` (non-empty text).
    pub fn search(&mut self, text: &str) -> Result<&mut Self> {
        if text.is_empty() {
            return Err(Error::invalid_argument(
                "invalid search: expected non-empty text (pass null or undefined to remove it)",
            ));
        }
        self.search = Some(text.to_owned());
        Ok(self)
    }

    /// Appends a filter condition. The first condition's join is not sent
    /// and is stored as [`Join::And`].
    pub fn filter(&mut self, mut filter: Filter) -> &mut Self {
        if self.filters.is_empty() {
            filter.join = Join::And;
        }
        self.filters.push(filter);
        self
    }

    /// Removes the parameter named `name` (its wire name, e.g. `limit`,
    /// `includeTags`; `sorting` removes every sort key).
    pub fn clear(&mut self, name: &str) -> Result<&mut Self> {
        match name {
            "sorting" => self.sorting.clear(),
            "fields" => self.selection = None,
            "limit" => self.limit = None,
            "offset" => self.offset = None,
            "locale" => self.locale = None,
            "includes" => self.includes = None,
            "embedAssets" => self.embed_assets = false,
            "includeTags" => self.include_tags.clear(),
            "excludeTags" => self.exclude_tags.clear(),
            "search" => self.search = None,
            "filters" => self.filters.clear(),
            other => return Err(unknown_parameter(other)),
        }
        Ok(self)
    }

    /// The sort keys, primary first.
    pub fn sorting(&self) -> &[Sort] {
        &self.sorting
    }

    /// The selection, if one is set.
    pub fn selection(&self) -> Option<&Selection> {
        self.selection.as_ref()
    }

    /// `limit`, if set.
    pub fn get_limit(&self) -> Option<u32> {
        self.limit
    }

    /// `offset`, if set.
    pub fn get_offset(&self) -> Option<u64> {
        self.offset
    }

    /// `locale`, if set.
    pub fn get_locale(&self) -> Option<&str> {
        self.locale.as_deref()
    }

    /// `includes`, if set.
    pub fn get_includes(&self) -> Option<&Includes> {
        self.includes.as_ref()
    }

    /// Whether `embedAssets=true` is sent.
    pub fn get_embed_assets(&self) -> bool {
        self.embed_assets
    }

    /// `includeTags`.
    pub fn get_include_tags(&self) -> &[String] {
        &self.include_tags
    }

    /// `excludeTags`.
    pub fn get_exclude_tags(&self) -> &[String] {
        &self.exclude_tags
    }

    /// `search`, if set.
    pub fn get_search(&self) -> Option<&str> {
        self.search.as_deref()
    }

    /// The filter conditions, in order.
    pub fn filters(&self) -> &[Filter] {
        &self.filters
    }

    /// Appends the pairs of the variant's parameters (`locale`,
    /// `includes`, `embedAssets`: what changes a document), in
    /// [`pairs`](Self::pairs)'s order.
    pub fn variant_pairs(&self, pairs: &mut Vec<(String, String)>) {
        if let Some(locale) = &self.locale {
            pairs.push(("locale".into(), locale.clone()));
        }
        match &self.includes {
            Some(Includes::Levels(levels)) => pairs.push(("includes".into(), levels.to_string())),
            Some(Includes::Fields(fields)) => {
                for field in fields {
                    pairs.push((format!("includes[{field}]"), "1".into()));
                }
            }
            None => {}
        }
        if self.embed_assets {
            pairs.push(("embedAssets".into(), "true".into()));
        }
    }

    /// The decoded `(name, value)` pairs, in the order they are sent.
    pub fn pairs(&self) -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        for sort in &self.sorting {
            pairs.push((format!("sorting[{}]", sort.key), sort.direction.to_string()));
        }
        if let Some(selection) = &self.selection {
            pairs.push(("fields".into(), selection.to_string()));
        }
        if let Some(limit) = self.limit {
            pairs.push(("limit".into(), limit.to_string()));
        }
        if let Some(offset) = self.offset {
            pairs.push(("offset".into(), offset.to_string()));
        }
        self.variant_pairs(&mut pairs);
        for (name, tags) in [
            ("includeTags", &self.include_tags),
            ("excludeTags", &self.exclude_tags),
        ] {
            for (index, tag) in tags.iter().enumerate() {
                pairs.push((format!("{name}[{index}]"), tag.clone()));
            }
        }
        if let Some(search) = &self.search {
            pairs.push(("search".into(), search.clone()));
        }
        for (index, filter) in self.filters.iter().enumerate() {
            let name = if index == 0 {
                format!("filters[{index}]{}", filter.target())
            } else {
                format!(
                    "filters[{index}][{}]{}",
                    filter.join.as_str(),
                    filter.target()
                )
            };
            pairs.push((name, filter.value.clone()));
        }
        pairs
    }

    /// Reads a query string or the query of a whole URL (`http://`,
    /// `https://`, or a path from `/` with a `?`): JavaScript's
    /// `Query.parse`. Query arguments elsewhere are query strings
    /// ([`Query::parse`]), so that a URL's path is never silently ignored.
    pub fn read(text: &str) -> Result<Query> {
        Query::parse(query_part(text))
    }

    /// Reads a query string (with or without `?`) back into a query,
    /// validating every parameter as the setters do.
    pub fn parse(text: &str) -> Result<Query> {
        let mut query = Query::new();
        let mut include_tags = Vec::new();
        let mut exclude_tags = Vec::new();
        let mut include_fields = Vec::new();
        let mut filters: Vec<(u64, Filter)> = Vec::new();
        for (name, value) in encode::form_pairs(text) {
            let (base, brackets) = split_brackets(&name)?;
            match (base, brackets.as_slice()) {
                ("sorting", [key]) => {
                    let key: FieldKey = key.parse()?;
                    let direction = Direction::parse_for(&value, &key.to_string())?;
                    query.push_sort(Sort { key, direction })?;
                }
                ("fields", []) => {
                    query.fields(&value)?;
                }
                ("limit", []) => {
                    let limit = parse_integer(&value, "limit")?;
                    query.limit(u32::try_from(limit).map_err(|_| invalid_limit(limit))?)?;
                }
                ("offset", []) => {
                    query.offset(parse_integer(&value, "offset")?)?;
                }
                ("locale", []) => {
                    query.locale(&value)?;
                }
                ("includes", []) => {
                    // Levels replace the fields read before them, as the
                    // setters replace each other; fields read after them
                    // replace them.
                    let levels = parse_integer(&value, "includes")?;
                    query.include_levels(
                        u8::try_from(levels).map_err(|_| invalid_levels(levels))?,
                    )?;
                    include_fields.clear();
                }
                ("includes", [field]) => {
                    if value != "1" && value != "true" {
                        return Err(Error::invalid_argument(format!(
                            "invalid includes[{field}]={}: expected 1",
                            quoted(&value)
                        )));
                    }
                    include_fields.push(field.clone());
                }
                ("embedAssets", []) => {
                    let embed = match value.as_str() {
                        "true" | "1" => true,
                        "false" | "0" => false,
                        other => {
                            return Err(Error::invalid_argument(format!(
                                "invalid embedAssets {}: expected true or false",
                                quoted(other)
                            )))
                        }
                    };
                    query.embed_assets(embed);
                }
                ("includeTags", [index]) => {
                    include_tags.push((parse_integer(index, "includeTags index")?, value));
                }
                ("excludeTags", [index]) => {
                    exclude_tags.push((parse_integer(index, "excludeTags index")?, value));
                }
                ("search", []) => {
                    query.search(&value)?;
                }
                ("filters", [index, rest @ ..]) => {
                    let index = parse_integer(index, "filters index")?;
                    let (join, target, op) = match rest {
                        [target, op] => (Join::And, target, op),
                        [join, target, op] => (Join::parse(join)?, target, op),
                        _ => return Err(unknown_parameter(&name)),
                    };
                    let invalid = || {
                        Error::invalid_argument(format!(
                            "invalid filter {}: expected [<contentType|*>.<fields|meta>.<field>]",
                            quoted(&name)
                        ))
                    };
                    let (content_type, field) = target.split_once('.').ok_or_else(invalid)?;
                    // `fields.a` without its content type: the scope is not one.
                    if !field.contains('.') && matches!(content_type, "fields" | "meta") {
                        return Err(invalid());
                    }
                    filters.push((index, Filter::new(field, op, value, join, content_type)?));
                }
                _ => return Err(unknown_parameter(&name)),
            }
        }
        if !include_fields.is_empty() {
            query.include_fields(&include_fields)?;
        }
        query.include_tags(take_sorted(include_tags))?;
        query.exclude_tags(take_sorted(exclude_tags))?;
        for filter in take_sorted(filters) {
            query.filter(filter);
        }
        Ok(query)
    }
}

/// The query string of `text`: of a whole URL (`http://`, `https://`, or a
/// path from `/` with a `?`), what its `?` starts, before any `#`;
/// otherwise `text` itself (a query string may hold a `?`, and a text such
/// as `/limit=5` is a query string's mistake, refused as one).
fn query_part(text: &str) -> &str {
    let scheme = |name: &str| {
        text.get(..name.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(name))
    };
    let path = text.starts_with('/') && text.bytes().any(|b| b == b'?');
    if !(path || scheme("http://") || scheme("https://")) {
        return text;
    }
    let url = text.split_once('#').map_or(text, |(url, _)| url);
    url.split_once('?').map_or("", |(_, query)| query)
}

fn invalid_limit(limit: impl fmt::Display) -> Error {
    Error::invalid_argument(format!(
        "invalid limit {limit}: expected an integer from 1 to {MAX_LIMIT}"
    ))
}

fn invalid_levels(levels: impl fmt::Display) -> Error {
    Error::invalid_argument(format!(
        "invalid includes {levels}: expected a number of levels from 1 to {MAX_INCLUDE_LEVELS}"
    ))
}

fn unknown_parameter(name: &str) -> Error {
    Error::invalid_argument(format!("unknown query parameter {}", quoted(name)))
}

fn parse_integer(text: &str, what: &str) -> Result<u64> {
    let invalid = || {
        Error::invalid_argument(format!(
            "invalid {what} {}: expected a non-negative integer",
            quoted(text)
        ))
    };
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    text.parse().map_err(|_| invalid())
}

/// Splits `name[a][b]` into `name` and `[a, b]`.
fn split_brackets(name: &str) -> Result<(&str, Vec<String>)> {
    let Some(open) = name.find('[') else {
        return Ok((name, Vec::new()));
    };
    // (`split_at_checked`: no char-boundary panic, and its message's
    // formatting, linked into the module.)
    let (base, mut rest) = name.split_at_checked(open).unwrap_or((name, ""));
    let mut parts = Vec::new();
    while !rest.is_empty() {
        let inner = rest
            .strip_prefix('[')
            .and_then(|after| after.split_once(']'))
            .ok_or_else(|| unknown_parameter(name))?;
        parts.push(inner.0.to_owned());
        rest = inner.1;
    }
    Ok((base, parts))
}

impl fmt::Display for Query {
    /// The query string without `?`, encoded as `URLSearchParams` does.
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs = self.pairs();
        out.write_str(&encode::form_join(
            pairs
                .iter()
                .map(|(name, value)| (name.as_str(), value.as_str())),
        ))
    }
}

impl std::str::FromStr for Query {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self> {
        Query::parse(text)
    }
}
