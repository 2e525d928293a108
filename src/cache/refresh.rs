//! A delta refresh (SPEC.md section 6) as a sans-IO state machine
//! ([`Refresh`]): it says which request to send next, takes in each
//! response, and plans the one write at the end; the boundary sends the
//! requests and writes. Its requests, as plain data, and the cache's part
//! ([`super::Cache::refresh_since`], [`super::Cache::refresh_missing`],
//! [`super::Cache::plan_refresh`]) decide what they change:
//!
//! 1. the documents whose `meta.updatedAt` is at or after the newest cached
//!    one ([`delta_query`]; boundary documents, sent again, compare by
//!    revision);
//! 2. the list's ids and revisions, `fields=meta(id,revision)` in pages of
//!    1000 ([`sweep_query`]): what is gone was deleted, and a listed revision
//!    newer than the cached one is a change whose `updatedAt` did not move;
//!    each page after the first starts at the last id read, and a list that
//!    moved meanwhile is swept again ([`SWEEP_RESTARTS`] times at most);
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

use super::{not_cached, sweep_entries, Cache, Change, Kind, Swept};
use crate::client::pager::{Done, Paging, Step, Via};
use crate::client::request::{Request, Response};
use crate::error::{Error, Result};
use crate::hash::Set;
use crate::http::response::{next_offset, Expect};
use crate::http::ClientConfig;
use crate::query::encode::form_decode;
use crate::query::url::Endpoint;
use crate::query::{Filter, Join, Query};

/// Documents per refresh request.
pub const PAGE: u32 = 1000;
/// The most pages a refresh reads of each kind (a bound on a service that
/// never ends a list); the sweep reads up to `MAX_PAGES * PAGE` ids (two
/// pages more, as its pages overlap by one id and a list without
/// `meta.total` ends at a short page).
pub const MAX_PAGES: u64 = 1000;
/// The error of a list longer than a refresh reads.
fn too_long() -> Error {
    Error::invalid_argument(format!(
        "the list has more than {MAX_PAGES} pages of {PAGE} ids: it was not refreshed"
    ))
}

/// Ids per request when fetching documents by id.
pub const IDS_PER_REQUEST: usize = 40;
/// How often a sweep starts over when the list changed on the service
/// while it was read (its pages are read by offset).
pub const SWEEP_RESTARTS: u32 = 2;

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

/// How far before the next position a sweep page after `pages` pages
/// starts: at the last id read, after the first page.
fn overlap(pages: u64) -> u64 {
    u64::from(pages > 0)
}

/// Whether a sweep's ids are each listed once.
fn once_each(swept: &[Swept]) -> bool {
    let unique: Set<&[u8]> = swept.iter().map(|(id, _)| id.as_slice()).collect();
    unique.len() == swept.len()
}

/// The complete lists of `cache`, as the endpoint and variant query to
/// refresh each with (`refreshOnReconnect`).
pub fn complete_lists(cache: &Cache) -> Vec<(Endpoint, Query)> {
    cache
        .complete_lists()
        .into_iter()
        .filter_map(|(variant, endpoint)| {
            let endpoint = Endpoint::raw(&form_decode(&endpoint)).ok()?;
            Some((endpoint, Query::parse(&variant).ok()?))
        })
        .collect()
}

/// Where a refresh stands.
#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// 1. The documents updated since the newest cached one.
    Delta,
    /// 2. Every id and revision of the list.
    Sweep,
    /// 3. The changes whose `updatedAt` did not move, by id (requests left).
    Fetch(Vec<Query>),
    /// 4. All of it in one write.
    Write,
    /// Written: the counts `(changed, deleted, total)`.
    Done((usize, usize, usize)),
}

/// The state of one refresh of a complete list: a [`Paging`] whose pages
/// are fetched from the service only ([`Via::Plain`]) and planned into one
/// change, written at the end.
#[derive(Debug)]
pub struct Refresh {
    endpoint: Endpoint,
    query: Query,
    since: Option<String>,
    phase: Phase,
    /// The offset of the next page of the phase; `None` when it is over.
    next: Option<u64>,
    /// Pages read in the phase.
    pages: u64,
    /// The query of the request in flight.
    current: Option<Query>,
    /// When the first page arrived.
    first_at: Option<f64>,
    /// When the sweep's last page arrived: the list is as of then.
    swept_at: Option<f64>,
    changes: Change,
    swept: Vec<Swept>,
    /// Sweeps started over ([`SWEEP_RESTARTS`] at most).
    restarts: u32,
}

impl Refresh {
    /// Starts refreshing the complete list `endpoint` in `query`'s variant
    /// (`not_cached` when it is not complete in `cache`).
    pub fn start(cache: &Cache, endpoint: Endpoint, query: Query) -> Result<Refresh> {
        let since = cache.refresh_since(&endpoint, &query)?;
        Ok(Refresh {
            endpoint,
            query,
            since,
            phase: Phase::Delta,
            next: Some(0),
            pages: 0,
            current: None,
            first_at: None,
            swept_at: None,
            changes: Change::default(),
            swept: Vec::new(),
            restarts: 0,
        })
    }
}

impl Paging for Refresh {
    /// The next step; an `invalid_argument` error when the list has more
    /// than [`MAX_PAGES`] pages of ids (it is not refreshed).
    fn step(&mut self, config: &ClientConfig) -> Result<Step> {
        let query = match (&mut self.phase, self.next) {
            (Phase::Delta, Some(offset)) => {
                delta_query(&self.query, self.since.as_deref(), offset)?
            }
            (Phase::Delta, None) => {
                (self.phase, self.next, self.pages) = (Phase::Sweep, Some(0), 0);
                sweep_query(&self.query, 0)?
            }
            // (Pages after the first overlap by one id, and a list without
            // `meta.total` ends at a short page: two pages more read
            // `MAX_PAGES` pages' worth of ids; more ids fail at receive.)
            (Phase::Sweep, Some(_)) if self.pages > MAX_PAGES + 1 => return Err(too_long()),
            // After the first page, each starts at the last id read.
            (Phase::Sweep, Some(offset)) => {
                sweep_query(&self.query, offset.saturating_sub(overlap(self.pages)))?
            }
            (Phase::Fetch(queries), _) => match queries.pop() {
                Some(query) => query,
                None => {
                    self.phase = Phase::Write;
                    return Ok(Step::Write);
                }
            },
            (Phase::Sweep | Phase::Write, _) => return Ok(Step::Write),
            (Phase::Done((changed, deleted, total)), _) => {
                let (changed, deleted, total) = (*changed, *deleted, *total);
                return Ok(Step::Done(Done::Refreshed {
                    changed,
                    deleted,
                    total,
                }));
            }
        };
        let request = Request::new(config, self.endpoint.clone(), query, Expect::List)?;
        self.current = Some(request.query.clone());
        let request = Box::new(request);
        Ok(Step::Fetch {
            request,
            via: Via::Plain,
        })
    }

    /// Takes in a page: the documents of the delta and of the fetches by id
    /// are planned into the one change; the sweep's ids are kept, and after
    /// its last page the ids still to fetch are known. Reports the sweep's
    /// progress, `(loaded, total)`.
    fn receive(
        &mut self,
        cache: Option<&mut Cache>,
        page: &mut Response,
        now: f64,
    ) -> Result<Option<(usize, u64)>> {
        let cache = cache.ok_or_else(|| super::not_cached("a refresh needs the cache"))?;
        self.first_at.get_or_insert(now);
        let query = self.current.take().unwrap_or_default();
        let offset = self.next.unwrap_or(0);
        let next = next_offset(page.facts, offset, u64::from(PAGE));
        if let Phase::Sweep = self.phase {
            // Pages are read by offset: a document deleted on the service
            // meanwhile would move the later ones back, one of them onto a
            // page already read, never to be read, then taken for deleted.
            // Each page after the first starts at the last id read: ids
            // before it were read already (documents added at the head moved
            // them on: skipped); a page without it means the list moved
            // back, and the sweep starts over.
            let mut entries = sweep_entries(&page.body)?;
            let overlap = overlap(self.pages);
            let asked = offset.saturating_sub(overlap);
            let mut moved = false;
            if overlap > 0 {
                let last = self.swept.last().map(|(id, _)| id.as_slice());
                match entries
                    .iter()
                    .position(|(id, _)| Some(id.as_slice()) == last)
                {
                    Some(at) => drop(entries.drain(..=at)),
                    None => moved = true,
                }
            }
            // The next page is after this one, unless it reached the total
            // or was short. A short page that added no id ends it too, even
            // when `meta.total` says more; a full one does not (documents
            // added at the head moved the last id read to its end).
            let end = asked.saturating_add(page.facts.count as u64);
            let short = (page.facts.count as u64) < u64::from(PAGE);
            let next = match page.facts.total {
                _ if short && entries.is_empty() => None,
                Some(total) if end >= total => None,
                None if short => None,
                _ => Some(end),
            };
            self.swept.extend(entries);
            if self.swept.len() as u64 > MAX_PAGES * u64::from(PAGE) {
                return Err(too_long());
            }
            self.pages += 1;
            self.next = next;
            if moved || (next.is_none() && !once_each(&self.swept)) {
                if self.restarts >= SWEEP_RESTARTS {
                    return Err(not_cached(
                        "the list changed on the service each time its ids were read: it was left \
                         as it was; refresh it again",
                    ));
                }
                self.restarts += 1;
                (self.swept, self.pages, self.next) = (Vec::new(), 0, Some(0));
                return Ok(Some((0, page.facts.total.unwrap_or(0))));
            }
            if next.is_none() {
                self.swept_at = Some(now);
                let missing =
                    cache.refresh_missing(&self.endpoint, &self.query, &self.changes, &self.swept);
                let mut queries = fetch_queries(&self.query, &missing)?;
                queries.reverse();
                self.phase = Phase::Fetch(queries);
            }
            let loaded = self.swept.len();
            return Ok(Some((loaded, page.facts.total.unwrap_or(loaded as u64))));
        }
        let (endpoint, kind, text) = (&self.endpoint, Kind::List, page.body.clone());
        let change = cache.plan_response(None, endpoint, &query, kind, text, now)?;
        self.changes.absorb(change);
        if let Phase::Delta = self.phase {
            self.pages += 1;
            self.next = next.filter(|_| self.pages < MAX_PAGES);
        }
        Ok(None)
    }

    /// The change of the whole refresh: the documents fetched and the
    /// list's new membership.
    fn write(&mut self, cache: &Cache) -> Result<Change> {
        let changes = std::mem::take(&mut self.changes);
        let first_at = self.first_at.unwrap_or_default();
        let at = (first_at, self.swept_at.unwrap_or(first_at));
        let (change, counts) =
            cache.plan_refresh_swept(&self.endpoint, &self.query, changes, &self.swept, at)?;
        self.phase = Phase::Done(counts);
        Ok(change)
    }
}
