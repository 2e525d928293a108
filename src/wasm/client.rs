//! `Client`: the connection settings and, later, the requests.

use wasm_bindgen::prelude::*;

use super::convert::{describe, optional_string, property, string};
use crate::error::{Error, Result};
use crate::http::ClientConfig;
use crate::query::url::Endpoint;
use crate::query::Query;

/// Decodes a query argument: a `Query`, a query string, or nothing.
///
/// A `Query` cannot be borrowed across the boundary without being moved, so it
/// is read through its canonical string, which parses back to an equal query.
pub fn query_arg(value: &JsValue) -> Result<Option<Query>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let text = match value.as_string() {
        Some(text) => text,
        None if value.is_object() && property(value, "__wbg_ptr").as_f64().is_some() => {
            String::from(js_sys::Object::from(value.clone()).to_string())
        }
        None => {
            return Err(Error::invalid_argument(format!(
                "query must be a Query or a query string, got {}",
                describe(value)
            )))
        }
    };
    Query::parse(&text).map(Some)
}

#[wasm_bindgen(typescript_custom_section)]
const CLIENT_TS: &'static str = r#"
/** The settings of a {@link Client}. */
export interface ClientOptions {
  /** An absolute `http:` or `https:` URL; trailing `/` are dropped. */
  baseUrl: string;
  /** The repository name (one path segment). */
  repository: string;
  /** The API key, sent as the `Authorization` header only: never in a URL, message or log. */
  apiKey: string;
  /**
   * A prefix for the `Authorization` header, such as `"Bearer "`.
   * @defaultValue `""` (the raw key)
   */
  authScheme?: string;
}

/**
 * An endpoint: a raw path after the repository (`"documents"`,
 * `"collections/posts"`; split on `/`, each segment encoded), or a typed one
 * whose id is encoded as one segment.
 */
export type EndpointSpec =
  | string
  | { repository: true }
  | { documents: true }
  | { document: string }
  | { collection: string }
  | { alias: string }
  | { asset: string };
"#;

/// A client of one repository of the Content Repository Read API.
#[wasm_bindgen(js_name = Client)]
pub struct JsClient {
    config: ClientConfig,
}

/// Decodes an endpoint argument: a raw string or a typed object.
pub fn endpoint(value: &JsValue) -> Result<Endpoint> {
    if let Some(text) = value.as_string() {
        return Endpoint::raw(&text);
    }
    if value.is_undefined() {
        return Ok(Endpoint::Repository);
    }
    type Make = fn(String) -> Endpoint;
    let typed: [(&str, Make); 4] = [
        ("document", Endpoint::Document),
        ("collection", Endpoint::Collection),
        ("alias", Endpoint::Alias),
        ("asset", Endpoint::Asset),
    ];
    for (key, make) in typed {
        let id = property(value, key);
        if !id.is_undefined() {
            let endpoint = make(string(&id, &format!("endpoint.{key}"))?);
            endpoint.check()?;
            return Ok(endpoint);
        }
    }
    if property(value, "documents").is_truthy() {
        return Ok(Endpoint::Documents);
    }
    if property(value, "repository").is_truthy() {
        return Ok(Endpoint::Repository);
    }
    Err(Error::invalid_argument(format!(
        "invalid endpoint {}: expected a string such as \"documents\", or {{ document | collection | alias | asset: id }}",
        describe(value)
    )))
}

#[wasm_bindgen(js_class = Client)]
impl JsClient {
    /// Creates a client; throws `invalid_argument` for an invalid base URL,
    /// repository or API key.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ClientOptions")] options: JsValue,
    ) -> Result<JsClient, JsValue> {
        if !options.is_object() {
            return Err(Error::invalid_argument(format!(
                "Client options must be an object {{ baseUrl, repository, apiKey }}, got {}",
                describe(&options)
            ))
            .into());
        }
        let base_url = string(&property(&options, "baseUrl"), "baseUrl")?;
        let repository = string(&property(&options, "repository"), "repository")?;
        let api_key = property(&options, "apiKey");
        // Never describe the key's value in a message.
        let api_key = api_key
            .as_string()
            .ok_or_else(|| Error::invalid_argument("apiKey must be a string"))?;
        let auth_scheme = optional_string(&property(&options, "authScheme"), "authScheme")?;
        let config = ClientConfig::new(&base_url, &repository, &api_key, auth_scheme.as_deref())?;
        Ok(JsClient { config })
    }

    /// The full URL of `endpoint` with `query`'s parameters. The API key is
    /// never part of it.
    pub fn url(
        &self,
        #[wasm_bindgen(unchecked_param_type = "EndpointSpec")] endpoint: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Query | string | null | undefined")] query: JsValue,
    ) -> Result<String, JsValue> {
        let endpoint = self::endpoint(&endpoint)?;
        let query = query_arg(&query)?;
        Ok(self.config.url(&endpoint, query.as_ref())?)
    }

    /// The base URL, without trailing `/`.
    #[wasm_bindgen(getter, js_name = baseUrl)]
    pub fn base_url(&self) -> String {
        self.config.base_url().to_owned()
    }

    /// The repository name.
    #[wasm_bindgen(getter)]
    pub fn repository(&self) -> String {
        self.config.repository().to_owned()
    }

    /// A description without the API key.
    #[wasm_bindgen(js_name = toString)]
    pub fn to_string_js(&self) -> String {
        format!(
            "Client({}/v1/{})",
            self.config.base_url(),
            self.config.repository()
        )
    }
}
