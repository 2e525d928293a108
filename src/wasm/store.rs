//! `DocumentStore`: documents in wasm memory, for JavaScript.

use wasm_bindgen::prelude::*;

use super::convert::{self, describe, props};
use super::local::from_json_text;
use crate::args;
use crate::client::options::{content_type, LastQuery};
use crate::engine::local::{not_a_document_or_list, not_serializable};
use crate::error::{Error, Result};
use crate::num::u32_from_usize;
use crate::num::usize_from_f64;
use crate::store::utf8::Utf8Buffer;
use crate::store::{DocumentStore, Page};
use js_sys::Map;

#[wasm_bindgen(module = "/src/js/store.js")]
extern "C" {
    #[wasm_bindgen(js_name = encodeUtf8Into)]
    fn encode_utf8_into(
        text: &JsValue,
        from: u32,
        memory: &JsValue,
        at: usize,
        room: usize,
    ) -> js_sys::Array;
    #[wasm_bindgen(catch)]
    fn stringify(value: &JsValue) -> Result<Option<String>, JsValue>;
    fn wtf8(text: &JsValue) -> Vec<u8>;
    #[wasm_bindgen(catch)]
    fn assemble(
        held: &Map,
        key: u32,
        epoch: u32,
        text: &str,
        words: &[u32],
    ) -> Result<JsValue, JsValue>;
}

/// Documents held in WebAssembly memory, by `meta.id`, answering queries
/// with the service's sorting and field selection without a round trip (a
/// lower `meta.revision` never replaces a higher one; sort indexes reused).
#[wasm_bindgen(js_name = DocumentStore, skip_typescript)]
#[derive(Default)]
pub struct JsDocumentStore {
    inner: DocumentStore,
    /// The last query and its parse: repeated queries skip parsing.
    last_query: LastQuery,
    /// The documents delivered to JavaScript, copied by later answers.
    held: Map,
}

#[wasm_bindgen(js_class = DocumentStore)]
impl JsDocumentStore {
    /// An empty store.
    #[wasm_bindgen(constructor)]
    pub fn new() -> JsDocumentStore {
        JsDocumentStore::default()
    }

    /// Stores documents: a list response (`{ data }`), an array of documents,
    /// or one document; each needs a `meta.id`. Returns how many were written
    /// (documents with a lower `meta.revision` than the stored one are not).
    /// Throws `invalid_argument` (and stores nothing) if any is not a
    /// document with an id.
    pub fn put(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Document | DocumentList")]
        list_or_documents: JsValue,
    ) -> Result<u32, JsValue> {
        if !list_or_documents.is_object() {
            return Err(not_a_document_or_list(&describe(&list_or_documents)).into());
        }
        let text = stringify(&list_or_documents)
            .map_err(|error| not_serializable(&convert::thrown(&error)))?
            .ok_or_else(|| Error::invalid_argument("documents must be JSON values"))?;
        Ok(u32_from_usize(self.inner.put_serialized(text)?))
    }

    /// Stores the documents of a response's JSON text, read inside
    /// WebAssembly; how many were written. Throws `decode` (the store then
    /// unchanged) for text that is not a list, array or document with ids.
    #[wasm_bindgen(js_name = putJson)]
    pub fn put_json(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue,
    ) -> Result<u32, JsValue> {
        if !text.is_string() {
            return Err(Error::invalid_argument(format!(
                "putJson expects the response text (a string), got {}",
                describe(&text)
            ))
            .into());
        }
        let text = String::from_utf8(utf8_bytes(&text))
            .map_err(|_| Error::invalid_argument("the text is not valid Unicode"))?;
        Ok(u32_from_usize(self.inner.put_json(text)?))
    }

    /// The document stored under `id`, or `undefined`.
    #[wasm_bindgen(unchecked_return_type = "Document | undefined")]
    pub fn get(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Result<JsValue, JsValue> {
        let document = self.inner.get_json_key(&id_key(&id)?);
        Ok(document
            .map(from_json_text)
            .transpose()?
            .unwrap_or_default())
    }

    /// Answers a query from the stored documents as `applyQuery` would
    /// (sorting through a cached index, `offset`, `limit`, selection).
    #[wasm_bindgen(unchecked_return_type = "ListResponse")]
    pub fn query(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
        #[wasm_bindgen(unchecked_param_type = "StoreQueryOptions | undefined")] options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let query = self.last_query.read(&convert::query(&query))?;
        let content_type = content_type(&props(&options))?;
        let page = self.inner.query_page(query, content_type.as_deref())?;
        match make(&self.held, self.inner.id(), &mut self.inner, &page) {
            Some(answer) => Ok(answer),
            None => Ok(from_json_text(
                &self.inner.query_json(query, content_type.as_deref())?,
            )?),
        }
    }

    /// The number of documents stored.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> u32 {
        u32_from_usize(self.inner.len())
    }

    /// Removes the document stored under `id`; whether there was one.
    pub fn delete(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string")] id: JsValue,
    ) -> Result<bool, JsValue> {
        Ok(self.inner.delete_key(&id_key(&id)?))
    }

    /// Removes every document.
    pub fn clear(&mut self) {
        self.inner.clear();
        self.held.clear();
    }
}

/// An id as the store keys it (WTF-8: a lone surrogate kept, as `put` reads it).
fn id_key(id: &JsValue) -> Result<Vec<u8>> {
    match convert::arg(id) {
        args::Arg::Unpaired(_) => Ok(wtf8(id)),
        arg => Ok(args::string(&arg, "the document id")?.into_bytes()),
    }
}

/// The answer of `page` as objects (`assemble` of `src/js/store.js`, from
/// what `held` holds under `key`), its deliveries recorded in `store`; or
/// `None`, the deliveries taken back, when it could not be made.
pub(crate) fn make(
    held: &Map,
    key: u32,
    store: &mut DocumentStore,
    page: &Page,
) -> Option<JsValue> {
    let made = assemble(held, key, page.epoch, &page.text, &page.words).ok();
    if made.is_some() {
        store.delivered(page);
    } else {
        store.undeliver();
        held.delete(&key.into());
    }
    made
}

/// [`utf8_bytes`] as text (`""` when not UTF-8: a stored entry so read is
/// reported corrupt).
pub(crate) fn utf8_text(value: JsValue) -> String {
    String::from_utf8(utf8_bytes(&value)).unwrap_or_default()
}

/// The UTF-8 encoding of a JavaScript string, written by
/// `TextEncoder.encodeInto` straight into wasm memory ([`Utf8Buffer`]);
/// bytes (a `Uint8Array`) are copied as they are.
pub(crate) fn utf8_bytes(text: &JsValue) -> Vec<u8> {
    if let Some(bytes) = text.dyn_ref::<js_sys::Uint8Array>() {
        return bytes.to_vec();
    }
    let length = js_sys::JsString::from(text.clone()).length() as usize;
    let (memory, mut buffer) = (wasm_bindgen::memory(), Utf8Buffer::new(length));
    loop {
        let (from, room) = buffer.spare();
        let (at, room) = (room.as_mut_ptr() as usize, room.len());
        let step = encode_utf8_into(text, u32_from_usize(from), &memory, at, room);
        let count = |index: u32| usize_from_f64(step.get(index).as_f64().unwrap_or(0.0));
        if !buffer.advance(count(0), count(1)) {
            return buffer.finish();
        }
    }
}
