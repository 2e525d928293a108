//! `Query`: the request model for JavaScript.

use wasm_bindgen::prelude::*;

use super::convert::{describe, integer, is_absent, optional_string, property, string, strings};
use crate::error::{Error, Result};
use crate::query::sort::{invalid_direction, Direction, FieldKey, Sort};
use crate::query::{Filter, Includes, Join, Query, MAX_INCLUDE_LEVELS, MAX_LIMIT, MAX_OFFSET};

/// A list query: sorting, field selection and the other parameters, validated
/// as they are set. Every setter returns the query itself, so calls chain:
/// `new Query().sort("fields.title", "ASC").fields("title").limit(10)`.
/// Invalid input throws a `ContentRepoError` (`invalid_sort`,
/// `invalid_selection` or `invalid_argument`) and leaves the query unchanged.
#[wasm_bindgen(js_name = Query, skip_typescript)]
#[derive(Clone, Default)]
pub struct JsQuery {
    inner: Query,
}

impl JsQuery {
    /// Runs `change` on a copy, keeping it only if it succeeds.
    fn update(
        &mut self,
        change: impl FnOnce(&mut Query) -> Result<()>,
    ) -> Result<JsValue, JsValue> {
        let mut next = self.inner.clone();
        change(&mut next)?;
        self.inner = next;
        Ok(JsValue::UNDEFINED)
    }
}

fn direction(value: &JsValue, key: &str) -> Result<Direction> {
    if let Some(text) = value.as_string() {
        return Direction::parse_for(&text, key);
    }
    match value.as_f64() {
        Some(1.0) => Ok(Direction::Asc),
        Some(-1.0) => Ok(Direction::Desc),
        _ => Err(invalid_direction(&describe(value), key)),
    }
}

#[allow(
    clippy::needless_pass_by_value,
    reason = "wasm-bindgen exports take their JavaScript arguments as owned JsValue handles"
)]
#[wasm_bindgen(js_class = Query)]
impl JsQuery {
    /// An empty query: the service's defaults.
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsQuery {
        JsQuery::default()
    }

    /// Adds a sort key: `fields.<name>` or `meta.<name>`. The first key is the
    /// primary one; sorting again on a key replaces its direction in place.
    /// A query sorts by at most 32 keys (`MAX_SORT_KEYS`): a 33rd distinct key
    /// throws `invalid_sort` and leaves the query unchanged.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn sort(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "SortDirection")] direction: JsValue,
    ) -> Result<JsValue, JsValue> {
        let key = key.as_string().ok_or_else(|| {
            Error::invalid_sort(format!(
                "invalid sort key {}: expected a string such as \"fields.title\"",
                describe(&key)
            ))
        })?;
        let key: FieldKey = key.parse()?;
        let direction = self::direction(&direction, &key.to_string())?;
        self.update(|query| query.push_sort(Sort { key, direction }).map(drop))
    }

    /// Sets the field selection, e.g. `"title, author(name,email)"`; it is
    /// sent in canonical form (see `selection`). `null` or `undefined`
    /// removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn fields(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | null | undefined")] selection: JsValue,
    ) -> Result<JsValue, JsValue> {
        let selection = optional_string(&selection, "the selection")?;
        self.update(|query| match selection {
            Some(text) => query.fields(&text).map(drop),
            None => query.clear("fields").map(drop),
        })
    }

    /// Sets `limit`, an integer from 1 to 1000 (service default 25); `null` or
    /// `undefined` removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn limit(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number | null | undefined")] limit: JsValue,
    ) -> Result<JsValue, JsValue> {
        if is_absent(&limit) {
            return self.update(|query| query.clear("limit").map(drop));
        }
        let limit = integer(&limit, "limit", 1, MAX_LIMIT)?;
        self.update(|query| query.limit(limit).map(drop))
    }

    /// Sets `offset`, an integer from 0; `null` or `undefined` removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn offset(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number | null | undefined")] offset: JsValue,
    ) -> Result<JsValue, JsValue> {
        if is_absent(&offset) {
            return self.update(|query| query.clear("offset").map(drop));
        }
        let offset = integer(&offset, "offset", 0, MAX_OFFSET)?;
        self.update(|query| query.offset(offset).map(drop))
    }

    /// Sets `locale`: a language key such as `"en_US"`, or `"all"`; `null` or
    /// `undefined` removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn locale(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | null | undefined")] locale: JsValue,
    ) -> Result<JsValue, JsValue> {
        let locale = optional_string(&locale, "locale")?;
        self.update(|query| match locale {
            Some(locale) => query.locale(&locale).map(drop),
            None => query.clear("locale").map(drop),
        })
    }

    /// Sets `includes`: a number of levels (1 to 5), or one or several fields
    /// as `"<contentType|*>.fields.<field>"` (or `"fields.<field>"` for every
    /// content type); `null` or `undefined` removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn includes(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number | string | string[] | null | undefined")]
        levels_or_fields: JsValue,
    ) -> Result<JsValue, JsValue> {
        if is_absent(&levels_or_fields) {
            return self.update(|query| query.clear("includes").map(drop));
        }
        if levels_or_fields.as_f64().is_some() {
            let levels = integer(&levels_or_fields, "includes", 1, MAX_INCLUDE_LEVELS)?;
            return self.update(|query| query.include_levels(levels).map(drop));
        }
        let fields = match levels_or_fields.as_string() {
            Some(one) => vec![one],
            None => strings(&levels_or_fields, "includes")?,
        };
        self.update(|query| query.include_fields(&fields).map(drop))
    }

    /// Sets `embedAssets=true` (`false` removes it: the service's default).
    #[wasm_bindgen(js_name = embedAssets, unchecked_return_type = "Query")]
    pub fn embed_assets(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "boolean")] enabled: JsValue,
    ) -> Result<JsValue, JsValue> {
        let enabled = if enabled.is_undefined() {
            true
        } else {
            enabled.as_bool().ok_or_else(|| {
                Error::invalid_argument(format!(
                    "embedAssets must be a boolean, got {}",
                    describe(&enabled)
                ))
            })?
        };
        self.update(|query| {
            query.embed_assets(enabled);
            Ok(())
        })
    }

    /// Only documents with every one of these tags; an empty array, `null` or
    /// `undefined` removes the parameter.
    #[wasm_bindgen(js_name = includeTags, unchecked_return_type = "Query")]
    pub fn include_tags(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string[] | null | undefined")] tags: JsValue,
    ) -> Result<JsValue, JsValue> {
        let tags = if is_absent(&tags) {
            Vec::new()
        } else {
            strings(&tags, "includeTags")?
        };
        self.update(|query| query.include_tags(tags).map(drop))
    }

    /// Only documents with none of these tags; an empty array, `null` or
    /// `undefined` removes the parameter.
    #[wasm_bindgen(js_name = excludeTags, unchecked_return_type = "Query")]
    pub fn exclude_tags(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string[] | null | undefined")] tags: JsValue,
    ) -> Result<JsValue, JsValue> {
        let tags = if is_absent(&tags) {
            Vec::new()
        } else {
            strings(&tags, "excludeTags")?
        };
        self.update(|query| query.exclude_tags(tags).map(drop))
    }

    /// Sets the full-text `search` (non-empty); `null` or `undefined` removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn search(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | null | undefined")] text: JsValue,
    ) -> Result<JsValue, JsValue> {
        let text = optional_string(&text, "search")?;
        self.update(|query| match text {
            Some(text) => query.search(&text).map(drop),
            None => query.clear("search").map(drop),
        })
    }

    /// Appends a filter condition, sent as
    /// `filters[n][<contentType>.<field>][<op>]=<value>` (later ones with
    /// `[and]` or `[or]`).
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn filter(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "FilterSpec")] spec: JsValue,
    ) -> Result<JsValue, JsValue> {
        if !spec.is_object() {
            return Err(Error::invalid_argument(format!(
                "a filter must be an object {{ field, op, value, join?, contentType? }}, got {}",
                describe(&spec)
            ))
            .into());
        }
        let field = string(&property(&spec, "field"), "filter field")?;
        let op = string(&property(&spec, "op"), "filter op")?;
        let raw = property(&spec, "value");
        let value = if let Some(text) = raw.as_string() {
            text
        } else if let Some(flag) = raw.as_bool() {
            flag.to_string()
        } else if let Some(number) = raw.as_f64().filter(|number| number.is_finite()) {
            // (`toString(10)` never throws.)
            js_sys::Number::from(number)
                .to_string_with_radix(10)
                .map(String::from)
                .unwrap_or_default()
        } else {
            return Err(Error::invalid_argument(format!(
                "filter value must be a string, a finite number or a boolean, got {}",
                describe(&raw)
            ))
            .into());
        };
        let join = match optional_string(&property(&spec, "join"), "filter join")? {
            Some(join) => Join::parse(&join)?,
            None => Join::And,
        };
        let content_type = optional_string(&property(&spec, "contentType"), "filter contentType")?
            .unwrap_or_else(|| "*".into());
        let filter = Filter::new(&field, &op, value, join, &content_type)?;
        self.update(|query| {
            query.filter(filter);
            Ok(())
        })
    }

    /// The query string, without `?`, encoded as `URLSearchParams` does.
    #[wasm_bindgen(js_name = toString)]
    pub fn to_string_js(&self) -> String {
        self.inner.to_string()
    }

    /// Reads a query string (with or without `?`) back into a `Query`;
    /// `Query.parse(q.toString())` equals `q`. Throws like the setters, e.g.
    /// `invalid_sort` for more than 32 distinct sort keys.
    pub fn parse(
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> Result<JsQuery, JsValue> {
        let text = string(&text, "the query string")?;
        Ok(JsQuery {
            inner: Query::parse(&text)?,
        })
    }

    /// A copy of this query.
    #[wasm_bindgen(js_name = clone)]
    pub fn clone_js(&self) -> JsQuery {
        self.clone()
    }

    /// Whether `other` is the same query (same canonical query string).
    pub fn equals(&self, other: &JsQuery) -> bool {
        self.inner == other.inner
    }

    /// The sort keys, primary first, as `{ key, direction }` objects.
    #[wasm_bindgen(getter, unchecked_return_type = "SortSpec[]")]
    pub fn sorting(&self) -> Result<JsValue, JsValue> {
        let specs: js_sys::Array = self
            .inner
            .sorting()
            .iter()
            .map(|sort| {
                let spec = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&spec, &"key".into(), &sort.key.to_string().into());
                let _ = js_sys::Reflect::set(
                    &spec,
                    &"direction".into(),
                    &sort.direction.as_str().into(),
                );
                JsValue::from(spec)
            })
            .collect();
        Ok(specs.into())
    }

    /// The selection in canonical form (what is sent), or `undefined`.
    #[wasm_bindgen(getter)]
    pub fn selection(&self) -> Option<String> {
        self.inner.selection().map(ToString::to_string)
    }

    /// `limit`, or `undefined`.
    #[wasm_bindgen(getter, js_name = limitValue)]
    pub fn limit_value(&self) -> Option<u32> {
        self.inner.get_limit()
    }

    /// `offset`, or `undefined`.
    #[wasm_bindgen(getter, js_name = offsetValue)]
    pub fn offset_value(&self) -> Option<f64> {
        self.inner.get_offset().map(|offset| offset as f64)
    }
}

impl JsQuery {
    /// The `includes` levels, for tests of the core mapping.
    pub fn include_levels(&self) -> Option<u8> {
        match self.inner.get_includes() {
            Some(Includes::Levels(levels)) => Some(*levels),
            _ => None,
        }
    }
}
