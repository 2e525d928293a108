//! # content-repo
//!
//! The client SDK for a headless CMS's **Content Repository Read API**:
//! typed request URLs with sorting and field selection validated before
//! anything is sent, `fetch` calls with the `Authorization` header, and the
//! same sorting and field selection re-applied to cached documents.
//!
//! The core is plain Rust on JSON text ([`json`], [`engine`]) and runs
//! natively; the `wasm` module (built for `wasm32` only) is the JavaScript
//! boundary.
//!
//! ```
//! use content_repo::{ClientConfig, Direction, Endpoint, Query};
//!
//! let client = ClientConfig::new("https://cms.example.com/", "demo", "secret", None)?;
//! let mut query = Query::new();
//! query.sort("fields.title", Direction::Asc)?.fields("title")?.limit(10)?;
//! let url = client.url(&Endpoint::Collection("blog posts".into()), Some(&query))?;
//! assert_eq!(
//!     url,
//!     "https://cms.example.com/v1/demo/collections/blog%20posts\
//!      ?sorting%5Bfields.title%5D=ASC&fields=fields%2Ftitle%2Cmeta&limit=10"
//! );
//! # Ok::<(), content_repo::Error>(())
//! ```

pub mod args;
pub mod cache;
pub mod client;
pub mod engine;
mod error;
mod hash;
pub mod http;
pub mod json;
mod num;
pub mod query;
mod sort;
pub mod store;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{Error, Redacting, Result};
pub use http::ClientConfig;
pub use query::selection::{Node, Parts, Selection};
pub use query::sort::{Direction, FieldKey, Scope, Sort};
pub use query::url::Endpoint;
pub use query::{Filter, IncludeField, Includes, Join, Query};
