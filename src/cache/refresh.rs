//! The requests of a delta refresh (SPEC.md section 6), as plain data: the
//! boundary sends them, the cache ([`super::Cache::refresh_since`],
//! [`super::Cache::refresh_missing`], [`super::Cache::plan_refresh`]) decides
//! what they change.
//!
//! 1. the documents whose `meta.updatedAt` is at or after the newest cached
//!    one ([`delta_query`]; boundary documents, sent again, compare by
//!    revision);
//! 2. the list's ids and revisions, `fields=meta(id,revision)` in pages of
//!    1000 ([`sweep_query`]): what is gone was deleted, and a listed revision
//!    newer than the cached one is a change whose `updatedAt` did not move;
//! 3. those documents by id ([`fetch_queries`], a few dozen per request).
//!
//! ```
//! use content_repo::cache::refresh::{delta_query, fetch_queries, sweep_query};
//! use content_repo::Query;
//!
//! let variant = Query::new();
//! let delta = delta_query(&variant, Some("2024-05-01T10:00:00Z"), 0)?;
//! assert_eq!(
//!     delta.to_string(),
//!     "limit=1000&offset=0&filters%5B0%5D%5B*.meta.updatedAt%5D%5BgreaterThanOrEqual%5D=2024-05-01T10%3A00%3A00Z"
//! );
//! assert_eq!(sweep_query(&variant, 2000)?.to_string(), "fields=meta%28id%2Crevision%29&limit=1000&offset=2000");
//! assert_eq!(fetch_queries(&variant, &[b"1".to_vec(), b"2".to_vec()])?.len(), 1);
//! # Ok::<(), content_repo::Error>(())
//! ```

use crate::error::Result;
use crate::query::{Filter, Join, Query};

/// Documents per refresh request.
pub const PAGE: u32 = 1000;
/// Ids per request when fetching documents by id.
pub const IDS_PER_REQUEST: usize = 40;

/// The variant's parameters (`locale`, `embedAssets`, `includes`) of `query`.
pub fn variant(query: &Query) -> Result<Query> {
    let mut out = Query::new();
    if let Some(locale) = query.get_locale() {
        out.locale(locale)?;
    }
    out.embed_assets(query.get_embed_assets());
    if let Some(includes) = query.get_includes() {
        out.set_includes(Some(includes.clone()));
    }
    Ok(out)
}

/// The page at `offset` of the documents updated at or after `since` (every
/// document when no cached one has an `updatedAt`).
pub fn delta_query(query: &Query, since: Option<&str>, offset: u64) -> Result<Query> {
    let mut out = variant(query)?;
    out.limit(PAGE)?.offset(offset)?;
    if let Some(since) = since {
        out.filter(Filter::new(
            "meta.updatedAt",
            "greaterThanOrEqual",
            since,
            Join::And,
            "*",
        )?);
    }
    Ok(out)
}

/// The page at `offset` of the list's ids and revisions.
pub fn sweep_query(query: &Query, offset: u64) -> Result<Query> {
    let mut out = variant(query)?;
    out.fields("meta(id,revision)")?
        .limit(PAGE)?
        .offset(offset)?;
    Ok(out)
}

/// Requests for the documents `ids`, [`IDS_PER_REQUEST`] at a time.
pub fn fetch_queries(query: &Query, ids: &[Vec<u8>]) -> Result<Vec<Query>> {
    // A loop rather than a collect() into Result (smaller in the module).
    let mut queries = Vec::new();
    for chunk in ids.chunks(IDS_PER_REQUEST) {
        let mut out = variant(query)?;
        out.limit(PAGE)?;
        for id in chunk {
            out.filter(Filter::new(
                "meta.id",
                "equal",
                String::from_utf8_lossy(id),
                Join::Or,
                "*",
            )?);
        }
        queries.push(out);
    }
    Ok(queries)
}
