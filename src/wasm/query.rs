//! `Query`: the request model for JavaScript.

use wasm_bindgen::prelude::*;

use super::convert::{arg, props};
use super::local::from_json_text;
use crate::args;
use crate::error::Result;
use crate::query::args::Setter;
use crate::query::Query;

/// A list query, validated as it is set; setters chain and return the query
/// (invalid input throws `invalid_sort`, `invalid_selection` or
/// `invalid_argument` and leaves it unchanged).
#[wasm_bindgen(js_name = Query, skip_typescript)]
#[derive(Clone, Default)]
pub struct JsQuery {
    inner: Query,
    /// The query string, once written (a query asked again is not).
    text: std::cell::OnceCell<String>,
}

impl JsQuery {
    /// Runs `change` on a copy, keeping it only if it succeeds.
    fn update(
        &mut self,
        change: impl FnOnce(&mut Query) -> Result<()>,
    ) -> Result<JsValue, JsValue> {
        let mut next = self.inner.clone();
        change(&mut next)?;
        (self.inner, self.text) = (next, Default::default());
        Ok(JsValue::UNDEFINED)
    }
}

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
        self.update(|query| query.sort_arg(&arg(&key), &arg(&direction)))
    }

    /// Sets the field selection, e.g. `"title, author(name,email)"`; it is
    /// sent in canonical form (see `selection`). `null` or `undefined`
    /// removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn fields(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | null | undefined")] selection: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.update(|query| query.set_arg(Setter::Fields, &arg(&selection)))
    }

    /// Sets `limit`, an integer from 1 to 1000 (service default 25); `null` or
    /// `undefined` removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn limit(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number | null | undefined")] limit: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.update(|query| query.set_arg(Setter::Limit, &arg(&limit)))
    }

    /// Sets `offset`, an integer from 0; `null` or `undefined` removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn offset(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number | null | undefined")] offset: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.update(|query| query.set_arg(Setter::Offset, &arg(&offset)))
    }

    /// Sets `locale`: a language key such as `"en_US"`, or `"all"`; `null` or
    /// `undefined` removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn locale(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | null | undefined")] locale: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.update(|query| query.set_arg(Setter::Locale, &arg(&locale)))
    }

    /// Sets `includes`: a number of levels (1 to 5), or one or several fields
    /// as `"<contentType|*>.fields.<field>"` (or `"fields.<field>"` for every
    /// content type); an empty array, `null` or `undefined` removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn includes(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "number | string | string[] | null | undefined")]
        levels_or_fields: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.update(|query| query.set_arg(Setter::Includes, &arg(&levels_or_fields)))
    }

    /// Sets `embedAssets=true` (`false` removes it: the service's default).
    #[wasm_bindgen(js_name = embedAssets, unchecked_return_type = "Query")]
    pub fn embed_assets(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "boolean")] enabled: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.update(|query| query.set_arg(Setter::EmbedAssets, &arg(&enabled)))
    }

    /// Only documents with every one of these tags; an empty array, `null` or
    /// `undefined` removes the parameter.
    #[wasm_bindgen(js_name = includeTags, unchecked_return_type = "Query")]
    pub fn include_tags(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string[] | null | undefined")] tags: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.update(|query| query.set_arg(Setter::IncludeTags, &arg(&tags)))
    }

    /// Only documents with none of these tags; an empty array, `null` or
    /// `undefined` removes the parameter.
    #[wasm_bindgen(js_name = excludeTags, unchecked_return_type = "Query")]
    pub fn exclude_tags(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string[] | null | undefined")] tags: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.update(|query| query.set_arg(Setter::ExcludeTags, &arg(&tags)))
    }

    /// Sets the full-text `search` (non-empty); `null` or `undefined` removes it.
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn search(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | null | undefined")] text: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.update(|query| query.set_arg(Setter::Search, &arg(&text)))
    }

    /// Appends a filter condition, sent as
    /// `filters[n][<contentType>.<field>][<op>]=<value>` (later ones with
    /// `[and]` or `[or]`).
    #[wasm_bindgen(unchecked_return_type = "Query")]
    pub fn filter(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "FilterSpec")] spec: JsValue,
    ) -> Result<JsValue, JsValue> {
        self.update(|query| query.filter_arg(&props(&spec)))
    }

    /// The query string, without `?`, encoded as `URLSearchParams` does.
    #[wasm_bindgen(js_name = toString)]
    pub fn to_string_js(&self) -> String {
        (self.text.get_or_init(|| self.inner.to_string())).clone()
    }

    /// Reads a query string (with or without `?`), or a whole URL's, back into a `Query`;
    /// `Query.parse(q.toString())` equals `q`. Throws like the setters, e.g.
    /// `invalid_sort` for more than 32 distinct sort keys.
    pub fn parse(
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> Result<JsQuery, JsValue> {
        let text = args::string(&arg(&text), "the query string")?;
        let mut query = JsQuery::new();
        query.inner = Query::read(&text)?;
        Ok(query)
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
        Ok(from_json_text(&self.inner.sorting_json())?)
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
