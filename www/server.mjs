// @ts-check
/**
 * Local fixture server of the content-repo SDK: a Content Repository Read API
 * for the fixture repository `demo` (see `fixtures.mjs`), static files for the
 * demo page and the built package, and (optionally) test-control endpoints.
 *
 * Node built-ins only. Sorting and field selection use `tests/reference/spec.mjs`, the
 * independent oracle the SDK's local engine is compared to.
 *
 * Run: `node www/server.mjs` (env: `PORT` default 8080, `HOST` default
 * 127.0.0.1, `API_KEY` default `demo-key`, `FIXTURE_CONTROL=1` enables the
 * test-control endpoints, `FIXTURE_LOG=1` prints one line per request, never
 * with the Authorization header).
 *
 * ## Read API (`/v1/demo/...`)
 *
 * | path | returns |
 * |---|---|
 * | `GET /v1/demo` | repository info |
 * | `GET /v1/demo/documents` | list: articles, products and authors |
 * | `GET /v1/demo/documents/{id}` | document |
 * | `GET /v1/demo/collections/{apiId}` | list (`articles`, `products`, `authors`) |
 * | `GET /v1/demo/alias/{apiId}` | document (`home`) |
 * | `GET /v1/demo/assets/{id}` | asset document |
 *
 * Lists: `{status: "ok", meta: {count, limit, offset, total}, data}`, plus
 * `includes: {author: [...]}` when `includes` is requested. Order of
 * operations: locale variant → filter (tags, search, filters) → sort →
 * offset/limit → select fields; `meta.total` counts the documents after
 * filtering.
 *
 * Query parameters (every name at most once; unknown names are a 400):
 * - `sorting[<fields|meta>.<name>]=ASC|DESC|1|-1` (case-insensitive), in order,
 *   the first is the primary key;
 * - `fields=<selection>` (lists and single documents);
 * - `limit` (integer 1..1000, default 25), `offset` (integer >= 0, default 0);
 * - `locale=<key>` (`[A-Za-z0-9_-]+`, e.g. `de`, `en_US`, `all`): every
 *   document of the response (lists, includes, single documents, aliases,
 *   assets) is the `<key>` variant: each string of a translated field
 *   (`LOCALIZED_FIELDS`: article `title`, `body`; product `title`,
 *   `description`; author `bio`; asset `title`) is prefixed with `"[<key>] "`
 *   (Richtext: `plain` prefixed, `html` after its leading `<p>`), missing and
 *   `null` stay so, and `meta.locale` is `<key>` (added after the other meta
 *   keys). Every key, `all` and the repository's `defaultLocale` included,
 *   gives its own variant; without `locale` documents are exactly as stored
 *   (no `meta.locale`). Filters, search and sorting see the variant;
 * - `embedAssets` (`true`, `false`, `1`, `0`; accepted and ignored);
 * - `includes=<1..5>` or `includes[<contentType|*>.fields.<name>]=1|true`: adds
 *   the list's `includes` object with the authors referenced by
 *   `fields.author.id` of the page's documents (the per-field form only for
 *   field `author` of a matching content type);
 * - `includeTags[n]` (the document has every listed tag), `excludeTags[n]`
 *   (none of them);
 * - `search` (case-insensitive substring of any string value inside
 *   `fields`, nested included; an empty search matches every document);
 * - `filters[n][<contentType|*>.<fields|meta>.<name>][<op>]=<value>` and
 *   `filters[n][and|or][<...>][<op>]=<value>`: conditions are taken in order
 *   of `n` and combined left to right (no precedence; a later condition
 *   without `and`/`or` joins with `and`). A condition on a content type other
 *   than `*` is false for documents of other types. Operators:
 *   - `equal`: numbers compare numerically when the value is a number
 *     (`"7.0"` equals 7); two instants (SPEC §2 form) by the instant they
 *     denote (`"2024-03-01T12:00:00+02:00"` equals
 *     `"2024-03-01T10:00:00.000Z"`); other strings, booleans (`"true"`) as
 *     exact text; richtext by `plain`; arrays (multi-select, tags) if any
 *     element equals; missing/`null`/objects never equal;
 *   - `notEqual`: the negation of `equal` (so missing values match);
 *   - `greaterThan`, `greaterThanOrEqual`, `lessThan`, `lessThanOrEqual`:
 *     numbers numerically; two all-digit strings as decimal numbers (ids);
 *     two instants by instant (`parseInstant` of the reference); other
 *     strings by code point; arrays if any element matches; missing/`null`
 *     never match;
 *   - `contains`: case-insensitive substring of a string (richtext `plain`,
 *     any element of an array); other operators are a 400.
 *   A filter is a 400 when its parameter name, field or operator is
 *   malformed or unknown, when two conditions share an index `n`, or when
 *   the value of a `meta.createdAt`/`meta.updatedAt` condition is not an
 *   instant, or that of a `meta.revision` condition not a number (except
 *   with `contains`). A delta refresh (SPEC §6) sends e.g.
 *   `filters[0][*.meta.updatedAt][greaterThan]=2025-03-10T16:52:38.622Z`
 *   and `fields=meta(id,revision)`.
 *
 * Errors: 400/404/405 `{error: {message}}`; a missing or wrong key is a 401
 * `{message: "Invalid authentication credentials"}`. The Authorization header
 * must equal the key, or `Bearer <key>`.
 *
 * ## Test control (only with `control: true` / `FIXTURE_CONTROL=1`)
 *
 * - `POST /__fixture/script` with JSON `{responses: [{status?, retryAfter?,
 *   delayMs?, body?, kind?, match?}...], match?}` queues scripted responses;
 *   each later API request (`/v1/...`, not OPTIONS) takes the first queued
 *   entry whose `match` (the entry's, else the script's) is a substring of
 *   its path+query, or that has no `match`. See {@link scriptedResponse}.
 * - `GET /__fixture/requests`: `[{method, url, authorization}]` of the API
 *   requests received (url = path+query as received; `authorization` is the
 *   header value or `null`); at most the last 1000.
 * - `POST /__fixture/reset`: clears the queue, the request log and the
 *   traffic counters (not the data: see `reset` of a mutation).
 * - `POST /__fixture/mutate` with a JSON mutation (below): live changes of the
 *   data; answers the {@link MutationResult}, or a 400 (nothing changed).
 * - `GET /__fixture/traffic`: the traffic counters (below);
 *   `POST /__fixture/traffic/reset` answers them and sets them to zero.
 * - Request header `X-Fixture-Delay: <ms>` delays that response.
 * Delays are capped at 30 s, the queue at 100 entries.
 *
 * ## Live changes and traffic (tests only)
 *
 * The object `startServer` resolves to has, whether or not `control` is on
 * (in-process only; over HTTP only the control endpoints above reach them):
 *
 * - `mutate({reset?, update?, add?, delete?})` → `{updated, added, deleted,
 *   clock}`, the same as `POST /__fixture/mutate`:
 *   - `update: [{id, fields?, unset?, tags?, updatedAt?}]`: `fields` merged
 *     into the document's fields (top-level keys), `unset` keys removed,
 *     `tags` replace `meta.tags`; `meta.revision` + 1; `meta.updatedAt` the
 *     next instant of the server clock;
 *   - `add: [{contentType, fields?, tags?, updatedAt?}]` (`article`,
 *     `product` or `author`): a new document with a fresh 18-digit id,
 *     `revision` 1, `createdAt` = `updatedAt` = the next clock instant, in
 *     `documents` and its collection;
 *   - `delete: [id]`: the documents leave every list, `documents/{id}` and
 *     aliases are 404s; ids are never reused;
 *   - `reset: true`: first restores the initial data, clock and ids.
 *   A batch is checked as a whole (an invalid one changes nothing), then
 *   applied: updates in order, additions, deletions. `updated`/`added` are
 *   the new documents as stored, `deleted` their ids, `clock` the latest
 *   instant handed out or stored (to the millisecond). The clock starts at
 *   the data's latest `createdAt`/`updatedAt` and each change takes the
 *   latest instant so far plus 1 s (`toISOString` form), so it is strictly
 *   later than every stored `updatedAt`. Test switch for a clock that is not monotonic: an entry's
 *   `updatedAt` (any instant, e.g. earlier than or equal to existing ones) is
 *   stored as written; later automatic instants still exceed it.
 *   Deterministic: the same batches give the same ids and instants. The
 *   `fixtures.mjs` exports are never modified (each server has its own copy).
 * - `snapshot()` → `{documents, collections, clock}`: copies of the data now.
 * - `traffic()` → `{requests, preflights, bytes, paths: {<path>: {requests,
 *   preflights, bytes}}}`: the API (`/v1...`) requests since the start or
 *   the last reset, per raw path (without the query) and in total;
 *   `requests` counts every method but OPTIONS, `preflights` OPTIONS,
 *   `bytes` the response bodies written (Content-Length; 0 for HEAD, 204 and
 *   disconnects; counted when the response is written, so after a delay).
 *   Control requests and static files are not counted.
 *   `resetTraffic()` returns the counters and sets them to zero.
 *
 * @module server
 */

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { fixtures as defaultFixtures, mulberry32, REPOSITORY_ID } from "./fixtures.mjs";
import {
  compareDecimalStrings,
  compareText,
  normalizeDirection,
  parseInstant,
  parseSelection,
  selectFields,
  sortDocuments,
} from "../tests/reference/spec.mjs";

/** The API key used when none is configured. */
export const DEFAULT_API_KEY = "demo-key";
/** Maximum delay of a response, in milliseconds. */
export const MAX_DELAY_MS = 30000;
/** Maximum number of queued scripted responses. */
export const MAX_QUEUE = 100;
/** Maximum number of API requests remembered by the request log. */
export const MAX_LOG = 1000;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_ROOT = path.resolve(HERE, "..");

/** MIME types of static files. */
export const MIME_TYPES = Object.freeze({
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".cjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
});

const CORS_HEADERS = Object.freeze({
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Headers": "Authorization, Content-Type",
  "Access-Control-Expose-Headers": "Retry-After",
  "Access-Control-Allow-Methods": "GET, HEAD, POST, OPTIONS",
  "Access-Control-Max-Age": "600",
});

const JSON_TYPE = "application/json; charset=utf-8";

/** An error that becomes an HTTP response `{error: {message}}`. */
class HttpError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   */
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const badRequest = (message) => new HttpError(400, message);
const notFound = (message) => new HttpError(404, message);

const NAME_RE = /^[A-Za-z0-9_-]+$/;
const FILTER_FIELD_RE = /^(\*|[A-Za-z0-9_-]+)\.(fields|meta)\.([A-Za-z0-9_-]+)$/;
const FILTER_OPERATORS = new Set([
  "equal",
  "notEqual",
  "greaterThan",
  "greaterThanOrEqual",
  "lessThan",
  "lessThanOrEqual",
  "contains",
]);
/** Meta keys whose filter values must be instants, and those that must be numbers. */
const INSTANT_META_KEYS = new Set(["createdAt", "updatedAt"]);
const NUMBER_META_KEYS = new Set(["revision"]);

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/* ------------------------------------------------------------------------ */
/* Query parsing                                                             */
/* ------------------------------------------------------------------------ */

/**
 * @typedef {{ index: number, join: "and" | "or" | null, contentType: string,
 *   scope: "fields" | "meta", field: string, op: string, value: string }} Filter
 * @typedef {{
 *   sorting: { key: string, direction: "ASC" | "DESC" }[],
 *   selection: ReturnType<typeof parseSelection> | null,
 *   limit: number, offset: number, locale: string | null,
 *   includes: null | { levels: number } | { fields: { contentType: string, field: string }[] },
 *   embedAssets: boolean,
 *   includeTags: string[], excludeTags: string[],
 *   search: string | null, filters: Filter[],
 * }} ListQuery
 */

/**
 * Parses and validates a query string of the read API.
 * @param {string} rawQuery the query string, without `?`
 * @returns {ListQuery}
 * @throws {HttpError} 400 with a clear message.
 */
export function parseListQuery(rawQuery) {
  const params = new URLSearchParams(rawQuery);
  /** @type {ListQuery} */
  const q = {
    sorting: [],
    selection: null,
    limit: 25,
    offset: 0,
    locale: null,
    includes: null,
    embedAssets: false,
    includeTags: [],
    excludeTags: [],
    search: null,
    filters: [],
  };
  const seen = new Set();
  const includeTags = [];
  const excludeTags = [];
  /** @type {{ contentType: string, field: string }[]} */
  const includeFields = [];
  let m;
  for (const [name, value] of params) {
    const shown = JSON.stringify(name);
    if (seen.has(name)) throw badRequest(`query parameter ${shown} is given more than once`);
    seen.add(name);
    if ((m = /^sorting\[(.*)\]$/s.exec(name))) {
      const key = m[1];
      const km = /^(fields|meta)\.([A-Za-z0-9_-]+)$/.exec(key);
      if (!km) {
        const last = key.split(".").pop() ?? "";
        const hint = NAME_RE.test(last) ? ` (did you mean "${/^meta\./i.test(key) ? "meta" : "fields"}.${last}"?)` : "";
        throw badRequest(`invalid sort key ${JSON.stringify(key)}: expected "fields.<name>" or "meta.<name>"${hint}`);
      }
      let direction;
      try {
        direction = normalizeDirection(value);
      } catch {
        throw badRequest(`invalid sort direction ${JSON.stringify(value)} for ${JSON.stringify(key)}: expected ASC, DESC, 1 or -1`);
      }
      q.sorting.push({ key, direction });
    } else if (name === "fields") {
      try {
        q.selection = parseSelection(value);
      } catch (e) {
        throw badRequest(`invalid fields selection ${JSON.stringify(value)}: ${/** @type {Error} */ (e).message}`);
      }
    } else if (name === "limit") {
      const n = /^\d{1,7}$/.test(value) ? Number(value) : NaN;
      if (!(n >= 1 && n <= 1000)) throw badRequest(`invalid limit ${JSON.stringify(value)}: expected an integer from 1 to 1000`);
      q.limit = n;
    } else if (name === "offset") {
      const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
      if (!(n >= 0)) throw badRequest(`invalid offset ${JSON.stringify(value)}: expected an integer >= 0`);
      q.offset = n;
    } else if (name === "locale") {
      if (!NAME_RE.test(value)) throw badRequest(`invalid locale ${JSON.stringify(value)}: expected a language key such as en_US, or all`);
      q.locale = value;
    } else if (name === "includes") {
      if (!/^[1-5]$/.test(value)) throw badRequest(`invalid includes ${JSON.stringify(value)}: expected an integer from 1 to 5`);
      q.includes = { levels: Number(value) };
    } else if ((m = /^includes\[(.*)\]$/s.exec(name))) {
      const im = /^(\*|[A-Za-z0-9_-]+)\.fields\.([A-Za-z0-9_-]+)$/.exec(m[1]);
      if (!im) throw badRequest(`invalid includes field ${JSON.stringify(m[1])}: expected "<contentType|*>.fields.<name>"`);
      if (value !== "1" && value !== "true") throw badRequest(`invalid value ${JSON.stringify(value)} for ${shown}: expected 1`);
      includeFields.push({ contentType: im[1], field: im[2] });
    } else if (name === "embedAssets") {
      if (!["true", "false", "1", "0"].includes(value)) throw badRequest(`invalid embedAssets ${JSON.stringify(value)}: expected true or false`);
      q.embedAssets = value === "true" || value === "1";
    } else if ((m = /^(include|exclude)Tags\[(\d{1,6})\]$/.exec(name))) {
      (m[1] === "include" ? includeTags : excludeTags).push({ index: Number(m[2]), value });
    } else if (name === "search") {
      q.search = value;
    } else if (name.startsWith("filters[")) {
      q.filters.push(parseFilter(name, value));
    } else {
      throw badRequest(`unknown query parameter ${shown}`);
    }
  }
  if (includeFields.length) {
    if (q.includes) throw badRequest("includes is given both as levels and per field");
    q.includes = { fields: includeFields };
  }
  q.includeTags = includeTags.sort((a, b) => a.index - b.index).map((t) => t.value);
  q.excludeTags = excludeTags.sort((a, b) => a.index - b.index).map((t) => t.value);
  q.filters.sort((a, b) => a.index - b.index);
  for (let i = 1; i < q.filters.length; i++) {
    if (q.filters[i].index === q.filters[i - 1].index) {
      throw badRequest(`filter index ${q.filters[i].index} is given more than once: each condition has its own filters[<n>]`);
    }
  }
  return q;
}

/**
 * @param {string} name
 * @param {string} value
 * @returns {Filter}
 */
function parseFilter(name, value) {
  const m =
    /^filters\[(\d{1,6})\]\[(and|or)\]\[([^\[\]]*)\]\[([^\[\]]*)\]$/.exec(name) ??
    /^filters\[(\d{1,6})\]()\[([^\[\]]*)\]\[([^\[\]]*)\]$/.exec(name);
  if (!m) {
    throw badRequest(
      `invalid filter parameter ${JSON.stringify(name)}: expected "filters[<n>][<contentType|*>.<fields|meta>.<name>][<operator>]" or "filters[<n>][and|or][...][<operator>]"`,
    );
  }
  const fm = FILTER_FIELD_RE.exec(m[3]);
  if (!fm) throw badRequest(`invalid filter field ${JSON.stringify(m[3])}: expected "<contentType|*>.<fields|meta>.<name>"`);
  if (!FILTER_OPERATORS.has(m[4])) {
    throw badRequest(`unknown filter operator ${JSON.stringify(m[4])}: expected one of ${[...FILTER_OPERATORS].join(", ")}`);
  }
  if (fm[2] === "meta" && m[4] !== "contains") {
    if (INSTANT_META_KEYS.has(fm[3]) && parseInstant(value) === null) {
      throw badRequest(
        `invalid filter value ${JSON.stringify(value)} for ${JSON.stringify(m[3])}: expected an instant such as "2024-03-01T10:00:00.000Z"`,
      );
    }
    if (NUMBER_META_KEYS.has(fm[3]) && numericValue(value) === null) {
      throw badRequest(`invalid filter value ${JSON.stringify(value)} for ${JSON.stringify(m[3])}: expected a number`);
    }
  }
  return {
    index: Number(m[1]),
    join: m[2] === "and" || m[2] === "or" ? m[2] : null,
    contentType: fm[1],
    scope: /** @type {"fields" | "meta"} */ (fm[2]),
    field: fm[3],
    op: m[4],
    value,
  };
}

/* ------------------------------------------------------------------------ */
/* Filtering                                                                 */
/* ------------------------------------------------------------------------ */

const DIGITS_RE = /^[0-9]+$/;

/**
 * The number a plain decimal literal denotes (`"7.0"` → 7), or `null`.
 * @param {string} value
 * @returns {number | null}
 */
function numericValue(value) {
  if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(value.trim())) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/**
 * Compares a stored scalar with a filter value; `null` when not comparable.
 * @param {unknown} v
 * @param {string} value
 * @returns {number | null}
 */
function compareForFilter(v, value) {
  if (typeof v === "number") {
    const n = numericValue(value);
    return n === null ? null : Math.sign(v - n);
  }
  if (typeof v === "string") {
    if (DIGITS_RE.test(v) && DIGITS_RE.test(value)) return compareDecimalStrings(v, value);
    const a = parseInstant(v);
    const b = parseInstant(value);
    if (a !== null && b !== null) return a < b ? -1 : a > b ? 1 : 0;
    return compareText(v, value);
  }
  return null;
}

/**
 * Whether a stored value matches `op value`.
 * @param {unknown} v
 * @param {string} op
 * @param {string} value
 * @returns {boolean}
 */
function matchValue(v, op, value) {
  if (op === "notEqual") return !matchValue(v, "equal", value);
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) return v.some((e) => !Array.isArray(e) && matchValue(e, op, value));
  if (isObject(v) && typeof v.plain === "string") v = v.plain;
  if (typeof v === "object") return false;
  switch (op) {
    case "equal": {
      if (typeof v === "number") {
        const n = numericValue(value);
        return n !== null && n === v;
      }
      if (typeof v === "string") {
        const a = parseInstant(v);
        const b = a === null ? null : parseInstant(value);
        if (a !== null && b !== null) return a === b;
      }
      return String(v) === value;
    }
    case "greaterThan":
    case "greaterThanOrEqual":
    case "lessThan":
    case "lessThanOrEqual": {
      const c = compareForFilter(v, value);
      if (c === null) return false;
      if (op === "greaterThan") return c > 0;
      if (op === "greaterThanOrEqual") return c >= 0;
      if (op === "lessThan") return c < 0;
      return c <= 0;
    }
    case "contains":
      return typeof v === "string" && v.toLowerCase().includes(value.toLowerCase());
    default:
      return false;
  }
}

/**
 * @param {any} doc
 * @param {Filter} f
 */
function matchFilter(doc, f) {
  if (f.contentType !== "*" && doc?.meta?.contentType !== f.contentType) return false;
  const scope = doc?.[f.scope];
  const v = isObject(scope) && hasOwn(scope, f.field) ? scope[f.field] : undefined;
  return matchValue(v, f.op, f.value);
}

/** Whether any string inside `v` contains `needle` (already lower-case). */
function containsText(v, needle) {
  if (typeof v === "string") return v.toLowerCase().includes(needle);
  if (Array.isArray(v)) return v.some((e) => containsText(e, needle));
  if (isObject(v)) return Object.values(v).some((e) => containsText(e, needle));
  return false;
}

/**
 * Filters documents by tags, search and filters.
 * @param {any[]} docs
 * @param {ListQuery} q
 */
export function filterDocuments(docs, q) {
  const needle = q.search === null ? null : q.search.toLowerCase();
  return docs.filter((doc) => {
    const tags = Array.isArray(doc?.meta?.tags) ? doc.meta.tags : [];
    if (!q.includeTags.every((t) => tags.includes(t))) return false;
    if (q.excludeTags.some((t) => tags.includes(t))) return false;
    if (needle !== null && needle !== "" && !containsText(doc?.fields, needle)) return false;
    if (q.filters.length) {
      let acc = matchFilter(doc, q.filters[0]);
      for (let i = 1; i < q.filters.length; i++) {
        const f = q.filters[i];
        acc = f.join === "or" ? acc || matchFilter(doc, f) : acc && matchFilter(doc, f);
      }
      if (!acc) return false;
    }
    return true;
  });
}

/* ------------------------------------------------------------------------ */
/* Locale variants                                                           */
/* ------------------------------------------------------------------------ */

/**
 * The fields that have a translation, by content type: Text fields (a
 * string) and Richtext fields (`{html, plain}`). Other fields (slugs, SKUs,
 * names, select values, numbers, dates, ...) are the same in every locale.
 * @readonly
 */
export const LOCALIZED_FIELDS = Object.freeze({
  article: Object.freeze(["title", "body"]),
  product: Object.freeze(["title", "description"]),
  author: Object.freeze(["bio"]),
  asset: Object.freeze(["title"]),
});

/**
 * A document as served for `locale=<key>` (SPEC §6 variants): a copy in which
 * each string of a {@link LOCALIZED_FIELDS} field gets the prefix `"[<key>] "`
 * (for Richtext, `plain` gets the prefix and `html` gets it after a leading
 * `<p>`), and `meta.locale` is `<key>`. Missing and `null` values stay so.
 * `all` is a key like any other. The stored document is not changed.
 *
 * @template T
 * @param {T} doc
 * @param {string} locale a key matching `[A-Za-z0-9_-]+`
 * @returns {T}
 */
export function localizeDocument(doc, locale) {
  const d = /** @type {any} */ (doc);
  if (!isObject(d) || !isObject(d.meta)) return doc;
  const prefix = `[${locale}] `;
  const names = hasOwn(LOCALIZED_FIELDS, d.meta.contentType)
    ? LOCALIZED_FIELDS[/** @type {keyof typeof LOCALIZED_FIELDS} */ (d.meta.contentType)]
    : [];
  let fields = d.fields;
  if (isObject(fields) && names.some((n) => hasOwn(fields, n))) {
    fields = { ...fields };
    for (const name of names) {
      if (!hasOwn(fields, name)) continue;
      const v = fields[name];
      if (typeof v === "string") fields[name] = prefix + v;
      else if (isObject(v) && typeof v.plain === "string") {
        const r = { ...v, plain: prefix + v.plain };
        if (typeof v.html === "string") r.html = v.html.startsWith("<p>") ? `<p>${prefix}${v.html.slice(3)}` : prefix + v.html;
        fields[name] = r;
      }
    }
  }
  const out = { ...d, meta: { ...d.meta, locale } };
  if (hasOwn(d, "fields")) out.fields = fields;
  return /** @type {T} */ (out);
}

/* ------------------------------------------------------------------------ */
/* The read API                                                              */
/* ------------------------------------------------------------------------ */

/**
 * The data the read API answers from: the fixture repository as it is now
 * (after live changes, see {@link createLiveStore}).
 * @typedef {{
 *   repository: Record<string, any>,
 *   documents: import("./fixtures.mjs").Document[],
 *   collections: Record<string, import("./fixtures.mjs").Document[]>,
 *   aliases: Record<string, import("./fixtures.mjs").Document>,
 *   byId: Map<string, import("./fixtures.mjs").Document>,
 *   assetsById: Map<string, import("./fixtures.mjs").Document>,
 * }} Store
 */

/**
 * Builds a list response: localize → filter → sort → page → includes → select.
 * @param {any[]} docs
 * @param {ListQuery} q
 * @param {Store} data
 */
function listResponse(docs, q, data) {
  const locale = q.locale;
  const localized = locale === null ? docs : docs.map((d) => localizeDocument(d, locale));
  const filtered = filterDocuments(localized, q);
  const sorted = sortDocuments(filtered, q.sorting);
  const page = sorted.slice(q.offset, q.offset + q.limit);
  /** @type {Record<string, any>} */
  const envelope = {
    status: "ok",
    meta: { count: page.length, limit: q.limit, offset: q.offset, total: filtered.length },
    data: page,
  };
  if (q.includes) envelope.includes = buildIncludes(page, q.includes, data, locale);
  return selectFields(envelope, q.selection);
}

/**
 * The `includes` object of a list: authors referenced by `fields.author.id`.
 * @param {any[]} page
 * @param {NonNullable<ListQuery["includes"]>} includes
 * @param {Store} data
 * @param {string | null} locale
 */
function buildIncludes(page, includes, data, locale) {
  const authors = [];
  const seen = new Set();
  for (const doc of page) {
    if ("fields" in includes) {
      const ok = includes.fields.some(
        (f) => f.field === "author" && (f.contentType === "*" || f.contentType === doc?.meta?.contentType),
      );
      if (!ok) continue;
    }
    const id = doc?.fields?.author?.id;
    if (typeof id !== "string" || seen.has(id)) continue;
    const target = data.byId.get(id);
    if (target) {
      seen.add(id);
      authors.push(locale === null ? target : localizeDocument(target, locale));
    }
  }
  return { author: authors };
}

/**
 * Decodes the path segments after `/v1/`.
 * @param {string} rest
 */
function decodeSegments(rest) {
  return rest.split("/").map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw badRequest(`invalid percent-encoding in path segment ${JSON.stringify(s)}`);
    }
  });
}

/**
 * Answers one read-API request (after authorization).
 * @param {string} rawPath
 * @param {string} rawQuery
 * @param {Store} data
 * @returns {{ status: number, body: unknown }}
 */
function readApi(rawPath, rawQuery, data) {
  const rest = rawPath === "/v1" ? "" : rawPath.slice(4);
  const seg = rest === "" ? [] : decodeSegments(rest);
  if (seg.length === 0 || seg[0] === "") throw notFound("Not found: no repository given");
  const [repo, endpoint, id, ...extra] = seg;
  if (repo !== data.repository.id) throw notFound(`Repository ${JSON.stringify(repo)} not found`);
  const unknownEndpoint = () => notFound(`Unknown endpoint ${JSON.stringify(seg.slice(1).join("/"))}`);
  if (extra.length) throw unknownEndpoint();

  /** @type {() => unknown} */
  let answer;
  if (endpoint === undefined) {
    answer = () => data.repository;
  } else if (endpoint === "documents" && id === undefined) {
    answer = () => listResponse(data.documents, query, data);
  } else if (endpoint === "documents") {
    const doc = data.byId.get(id);
    if (!doc) throw notFound(`Document ${JSON.stringify(id)} not found`);
    answer = () => selectFields(localized(doc), query.selection);
  } else if (endpoint === "collections" && id !== undefined) {
    const docs = hasOwn(data.collections, id) ? data.collections[id] : undefined;
    if (!docs) throw notFound(`Collection ${JSON.stringify(id)} not found`);
    answer = () => listResponse(docs, query, data);
  } else if (endpoint === "alias" && id !== undefined) {
    const doc = hasOwn(data.aliases, id) ? data.aliases[id] : undefined;
    if (!doc) throw notFound(`Alias ${JSON.stringify(id)} not found`);
    answer = () => selectFields(localized(doc), query.selection);
  } else if (endpoint === "assets" && id !== undefined) {
    const doc = data.assetsById.get(id);
    if (!doc) throw notFound(`Asset ${JSON.stringify(id)} not found`);
    answer = () => selectFields(localized(doc), query.selection);
  } else {
    throw unknownEndpoint();
  }
  const query = parseListQuery(rawQuery);
  /** @param {unknown} doc */
  const localized = (doc) => (query.locale === null ? doc : localizeDocument(doc, query.locale));
  return { status: 200, body: answer() };
}

/* ------------------------------------------------------------------------ */
/* Static files                                                              */
/* ------------------------------------------------------------------------ */

/**
 * Resolves a static path to a file under `www/` (or `pkg/` for `/pkg/...`).
 * @param {string} rawPath
 * @param {string} root
 * @returns {string}
 */
function staticFile(rawPath, root) {
  const parts = rawPath.split("/").slice(1);
  const seg = parts.map((s) => {
    let d;
    try {
      d = decodeURIComponent(s);
    } catch {
      throw badRequest("invalid percent-encoding in path");
    }
    if (d === ".." || d === "." || /[\\/\0]/.test(d)) throw badRequest("invalid path");
    return d;
  });
  let base = path.join(root, "www");
  if (seg[0] === "pkg") {
    base = path.join(root, "pkg");
    seg.shift();
  }
  if (seg.length === 0 || seg[seg.length - 1] === "") {
    seg.pop();
    seg.push("index.html");
  }
  const clean = seg.filter((s) => s !== "");
  const file = path.resolve(base, ...clean);
  const resolvedBase = path.resolve(base);
  if (file !== resolvedBase && !file.startsWith(resolvedBase + path.sep)) throw badRequest("invalid path");
  return file;
}

/* ------------------------------------------------------------------------ */
/* Test control                                                              */
/* ------------------------------------------------------------------------ */

/**
 * @typedef {{ status?: number, retryAfter?: string | number, delayMs?: number,
 *   body?: unknown, kind?: "truncated" | "not-json" | "disconnect", match?: string }} ScriptEntry
 */

/**
 * Validates one scripted response entry.
 * @param {unknown} e
 * @param {unknown} match the script-level `match`
 * @returns {ScriptEntry}
 */
function validateEntry(e, match) {
  if (!isObject(e)) throw badRequest("each scripted response must be an object");
  const known = new Set(["status", "retryAfter", "delayMs", "body", "kind", "match"]);
  for (const k of Object.keys(e)) if (!known.has(k)) throw badRequest(`unknown scripted response key ${JSON.stringify(k)}`);
  /** @type {ScriptEntry} */
  const out = {};
  if (e.status !== undefined) {
    if (!Number.isInteger(e.status) || /** @type {number} */ (e.status) < 200 || /** @type {number} */ (e.status) > 599) {
      throw badRequest("status must be an integer from 200 to 599");
    }
    out.status = /** @type {number} */ (e.status);
  }
  if (e.retryAfter !== undefined) {
    const r = e.retryAfter;
    const ok = (typeof r === "number" && Number.isInteger(r) && r >= 0 && r <= 86400) ||
      (typeof r === "string" && r.length <= 100 && /^[\x20-\x7e]*$/.test(r));
    if (!ok) throw badRequest("retryAfter must be an integer of seconds (0..86400) or a printable ASCII string");
    out.retryAfter = r;
  }
  if (e.delayMs !== undefined) {
    if (!Number.isInteger(e.delayMs) || /** @type {number} */ (e.delayMs) < 0 || /** @type {number} */ (e.delayMs) > MAX_DELAY_MS) {
      throw badRequest(`delayMs must be an integer from 0 to ${MAX_DELAY_MS}`);
    }
    out.delayMs = /** @type {number} */ (e.delayMs);
  }
  if (hasOwn(e, "body")) out.body = e.body;
  if (e.kind !== undefined) {
    if (!["truncated", "not-json", "disconnect"].includes(/** @type {string} */ (e.kind))) {
      throw badRequest('kind must be "truncated", "not-json" or "disconnect"');
    }
    out.kind = /** @type {ScriptEntry["kind"]} */ (e.kind);
  }
  const m = e.match !== undefined ? e.match : match;
  if (m !== undefined && m !== null) {
    if (typeof m !== "string" || m.length > 2000) throw badRequest("match must be a string (at most 2000 characters)");
    out.match = m;
  }
  return out;
}

/**
 * Turns a scripted entry into a response.
 *
 * - `body` given: sent as JSON with `status` (default 200).
 * - no `body`, `status` >= 400: `{error: {message: "Scripted <status> response"}}`.
 * - no `body`, no `status` or `status` < 400: the normal response (with the
 *   given status, if any), so `{delayMs}` alone only delays.
 * - `kind: "truncated"`: the first half of the JSON text (Content-Length
 *   matches what is sent; the client sees invalid JSON).
 * - `kind: "not-json"`: an HTML page (`text/html`), or `body` when it is a string.
 * - `kind: "disconnect"`: the connection is destroyed without a response.
 * - `retryAfter`: sent as `Retry-After`.
 *
 * @param {ScriptEntry} entry
 * @param {() => { status: number, body: unknown, headers?: Record<string, string> }} normal
 * @returns {{ status: number, headers: Record<string, string>, text: string } | { disconnect: true }}
 */
export function scriptedResponse(entry, normal) {
  if (entry.kind === "disconnect") return { disconnect: true };
  /** @type {Record<string, string>} */
  let headers = { "Content-Type": JSON_TYPE };
  let status;
  let text;
  if (hasOwn(entry, "body")) {
    status = entry.status ?? 200;
    text = entry.kind === "not-json" && typeof entry.body === "string" ? entry.body : JSON.stringify(entry.body) ?? "null";
  } else if (entry.status !== undefined && entry.status >= 400) {
    status = entry.status;
    text = JSON.stringify({ error: { message: `Scripted ${status} response` } });
  } else {
    const r = normal();
    status = entry.status ?? r.status;
    text = JSON.stringify(r.body);
    headers = { ...headers, ...(r.headers ?? {}) };
  }
  if (entry.kind === "not-json") {
    headers["Content-Type"] = "text/html; charset=utf-8";
    if (!(hasOwn(entry, "body") && typeof entry.body === "string")) {
      text = `<!DOCTYPE html><html><head><title>${status} Error</title></head><body><h1>${status}</h1><p>Upstream returned an HTML page.</p></body></html>`;
    }
  } else if (entry.kind === "truncated") {
    text = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    // Do not cut a surrogate pair in half.
    const last = text.charCodeAt(text.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) text = text.slice(0, -1);
  }
  if (entry.retryAfter !== undefined) headers["Retry-After"] = String(entry.retryAfter);
  return { status, headers, text };
}

/**
 * Reads a request body (at most `limit` bytes).
 * @param {http.IncomingMessage} req
 * @param {number} [limit]
 * @returns {Promise<string>}
 */
function readBody(req, limit = 1 << 20) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > limit) {
        reject(new HttpError(413, `request body larger than ${limit} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/* ------------------------------------------------------------------------ */
/* Live changes (tests only)                                                 */
/* ------------------------------------------------------------------------ */

/** Step of the server clock between two changes, in milliseconds. */
export const CLOCK_STEP_MS = 1000;

/**
 * One batch of live changes; see {@link createLiveStore}.
 * @typedef {{
 *   reset?: boolean,
 *   update?: { id: string, fields?: Record<string, unknown>, unset?: string[],
 *     tags?: string[], updatedAt?: string }[],
 *   add?: { contentType: string, fields?: Record<string, unknown>, tags?: string[],
 *     updatedAt?: string }[],
 *   delete?: string[],
 * }} Mutation
 * @typedef {{ updated: import("./fixtures.mjs").Document[],
 *   added: import("./fixtures.mjs").Document[], deleted: string[], clock: string }} MutationResult
 */

const MUTATION_KEYS = new Set(["reset", "update", "add", "delete"]);
const UPDATE_KEYS = new Set(["id", "fields", "unset", "tags", "updatedAt"]);
const ADD_KEYS = new Set(["contentType", "fields", "tags", "updatedAt"]);

/** A deep copy of a JSON value (drops `undefined`, functions and prototypes). */
const jsonCopy = (v) => JSON.parse(JSON.stringify(v));

/**
 * Checks `v` is an array of strings.
 * @param {unknown} v
 * @param {string} what
 * @returns {string[]}
 */
function stringArray(v, what) {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw badRequest(`mutate: ${what} must be an array of strings`);
  return v;
}

/**
 * Checks an optional explicit `updatedAt`.
 * @param {unknown} v
 * @param {string} what
 * @returns {string | undefined}
 */
function optionalInstant(v, what) {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || parseInstant(v) === null) {
    throw badRequest(`mutate: ${what}.updatedAt must be an instant such as "2025-01-01T00:00:00.000Z"`);
  }
  return v;
}

/**
 * The server's own, changeable copy of a fixture repository. The fixture
 * objects are never modified: a change replaces a document by a new object,
 * so `fixtures.mjs`'s exports stay as generated.
 *
 * - update: `fields` are merged into the document's fields (top-level keys
 *   replaced), `unset` keys removed, `tags` replace `meta.tags`;
 *   `meta.revision` goes up by 1 and `meta.updatedAt` is the next clock
 *   instant (or the entry's explicit `updatedAt`, used as given).
 * - add: a new document of a content type that has a collection, with a
 *   fresh 18-digit id (deterministic), `revision` 1, `createdAt` =
 *   `updatedAt` = the next clock instant (or the explicit `updatedAt`); it is
 *   appended to `documents` and to its content type's collections.
 * - delete: removes documents from `documents`, the collections, `byId` and
 *   the aliases (an alias of a deleted document is a 404).
 * - reset: first restores the initial data, clock and id sequence.
 *
 * A batch is validated as a whole before anything changes (an error changes
 * nothing); then updates apply in order, then additions, then deletions.
 *
 * The clock starts at the latest `createdAt`/`updatedAt` of the data (assets
 * included); each change takes the latest instant seen so far (milliseconds,
 * rounded down) plus {@link CLOCK_STEP_MS}, written as
 * `Date.prototype.toISOString` does. An explicit `updatedAt` (any instant,
 * earlier, equal or later: a clock that is not monotonic, to test the SDK's
 * limits) is stored as written; automatic instants stay strictly later than
 * every instant ever handed out.
 *
 * @param {import("./fixtures.mjs").Fixtures} data
 */
export function createLiveStore(data) {
  /** @returns {Store} */
  const initialStore = () => {
    /** @type {Record<string, import("./fixtures.mjs").Document[]>} */
    const collections = {};
    for (const [k, v] of Object.entries(data.collections)) collections[k] = v.slice();
    return {
      repository: data.repository,
      documents: data.documents.slice(),
      collections,
      aliases: { ...data.aliases },
      byId: new Map(data.byId),
      assetsById: data.assetsById,
    };
  };
  const initialLatest = () => {
    let latest = 0n;
    for (const d of [...data.documents, ...data.assetsById.values()]) {
      for (const t of [d?.meta?.createdAt, d?.meta?.updatedAt]) {
        const n = parseInstant(t);
        if (n !== null && n > latest) latest = n;
      }
    }
    return latest;
  };
  const idSeed = (((typeof data.seed === "number" ? data.seed : 0) ^ 0x5eed1d5) >>> 0);

  let store = initialStore();
  /** Latest instant handed out or stored, in ns since the epoch. */
  let latest = initialLatest();
  let rnd = mulberry32(idSeed);
  /** Every id ever used (never reused after a delete). */
  let usedIds = new Set([...data.byId.keys(), ...data.assetsById.keys()]);

  const nextInstant = () => {
    const ms = latest / 1000000n + BigInt(CLOCK_STEP_MS);
    latest = ms * 1000000n;
    return new Date(Number(ms)).toISOString();
  };
  /** @param {string} given */
  const seeInstant = (given) => {
    const n = /** @type {bigint} */ (parseInstant(given));
    if (n > latest) latest = n;
    return given;
  };
  const newId = () => {
    for (;;) {
      let id = String(1 + Math.floor(rnd() * 9));
      for (let i = 0; i < 17; i++) id += String(Math.floor(rnd() * 10));
      if (!usedIds.has(id)) {
        usedIds.add(id);
        return id;
      }
    }
  };
  /**
   * The collections (api ids) that hold a content type's documents: those the
   * repository info lists for it, else those whose documents all have it.
   * @param {Store} st
   * @param {string} contentType
   * @returns {string[]}
   */
  const collectionsOf = (st, contentType) => {
    const listed = Array.isArray(st.repository?.collections) ? st.repository.collections : null;
    if (listed) {
      return listed
        .filter((c) => isObject(c) && c.contentType === contentType && hasOwn(st.collections, c.apiId))
        .map((c) => /** @type {string} */ (c.apiId));
    }
    return Object.keys(st.collections).filter((k) => {
      const docs = st.collections[k];
      return docs.length > 0 && docs.every((d) => d?.meta?.contentType === contentType);
    });
  };

  /**
   * Applies one batch.
   * @param {unknown} spec a {@link Mutation}
   * @returns {MutationResult}
   */
  function mutate(spec) {
    if (!isObject(spec)) throw badRequest('mutate: expected {"update"?: [...], "add"?: [...], "delete"?: [...], "reset"?: true}');
    for (const k of Object.keys(spec)) if (!MUTATION_KEYS.has(k)) throw badRequest(`mutate: unknown key ${JSON.stringify(k)}`);
    if (spec.reset !== undefined && typeof spec.reset !== "boolean") throw badRequest("mutate: reset must be a boolean");
    const updates = spec.update === undefined ? [] : spec.update;
    const adds = spec.add === undefined ? [] : spec.add;
    if (!Array.isArray(updates)) throw badRequest("mutate: update must be an array");
    if (!Array.isArray(adds)) throw badRequest("mutate: add must be an array");
    const deletes = spec.delete === undefined ? [] : stringArray(spec.delete, "delete");

    // Validate everything against the state the batch starts from.
    const base = spec.reset ? initialStore() : store;
    const deleting = new Set();
    for (const id of deletes) {
      if (!base.byId.has(id)) throw badRequest(`mutate: cannot delete ${JSON.stringify(id)}: no such document`);
      if (deleting.has(id)) throw badRequest(`mutate: ${JSON.stringify(id)} is deleted twice`);
      deleting.add(id);
    }
    const upd = updates.map((u, i) => {
      const what = `update[${i}]`;
      if (!isObject(u)) throw badRequest(`mutate: ${what} must be an object`);
      for (const k of Object.keys(u)) if (!UPDATE_KEYS.has(k)) throw badRequest(`mutate: unknown key ${JSON.stringify(k)} in ${what}`);
      if (typeof u.id !== "string" || !base.byId.has(u.id)) throw badRequest(`mutate: ${what}.id ${JSON.stringify(u.id)}: no such document`);
      if (deleting.has(u.id)) throw badRequest(`mutate: ${JSON.stringify(u.id)} is both updated and deleted`);
      if (u.fields !== undefined && !isObject(u.fields)) throw badRequest(`mutate: ${what}.fields must be an object`);
      return {
        id: u.id,
        fields: u.fields === undefined ? {} : jsonCopy(u.fields),
        unset: u.unset === undefined ? [] : stringArray(u.unset, `${what}.unset`).slice(),
        tags: u.tags === undefined ? undefined : stringArray(u.tags, `${what}.tags`).slice(),
        updatedAt: optionalInstant(u.updatedAt, what),
      };
    });
    const add = adds.map((a, i) => {
      const what = `add[${i}]`;
      if (!isObject(a)) throw badRequest(`mutate: ${what} must be an object`);
      for (const k of Object.keys(a)) if (!ADD_KEYS.has(k)) throw badRequest(`mutate: unknown key ${JSON.stringify(k)} in ${what}`);
      if (typeof a.contentType !== "string") throw badRequest(`mutate: ${what}.contentType must be a string`);
      if (a.fields !== undefined && !isObject(a.fields)) throw badRequest(`mutate: ${what}.fields must be an object`);
      if (collectionsOf(base, a.contentType).length === 0) {
        throw badRequest(`mutate: cannot add a document of content type ${JSON.stringify(a.contentType)}: no collection holds that type`);
      }
      return {
        contentType: a.contentType,
        fields: a.fields === undefined ? {} : jsonCopy(a.fields),
        tags: a.tags === undefined ? [] : stringArray(a.tags, `${what}.tags`).slice(),
        updatedAt: optionalInstant(a.updatedAt, what),
      };
    });

    if (spec.reset) {
      store = base;
      latest = initialLatest();
      rnd = mulberry32(idSeed);
      usedIds = new Set([...data.byId.keys(), ...data.assetsById.keys()]);
    }

    // Apply: copies of the lists, new document objects.
    const next = {
      ...store,
      documents: store.documents.slice(),
      collections: { ...store.collections },
      aliases: { ...store.aliases },
      byId: new Map(store.byId),
    };
    /** @type {Map<import("./fixtures.mjs").Document, import("./fixtures.mjs").Document>} */
    const replaced = new Map(); // original object in the lists → its newest version
    /** @type {Map<import("./fixtures.mjs").Document, import("./fixtures.mjs").Document>} */
    const originOf = new Map();
    const updated = [];
    for (const u of upd) {
      const old = /** @type {import("./fixtures.mjs").Document} */ (next.byId.get(u.id));
      const fields = isObject(old.fields) ? { ...old.fields } : {};
      for (const [k, v] of Object.entries(u.fields)) {
        if (k === "__proto__") Object.defineProperty(fields, k, { value: v, enumerable: true, writable: true, configurable: true });
        else fields[k] = v;
      }
      for (const k of u.unset) delete fields[k];
      const revision = typeof old.meta.revision === "number" ? old.meta.revision + 1 : 1;
      const meta = { ...old.meta, revision, updatedAt: u.updatedAt === undefined ? nextInstant() : seeInstant(u.updatedAt) };
      if (u.tags !== undefined) meta.tags = u.tags;
      const doc = { ...old, fields, meta };
      const origin = originOf.get(old) ?? old;
      originOf.set(doc, origin);
      replaced.set(origin, doc);
      next.byId.set(u.id, doc);
      updated.push(doc);
    }
    const added = [];
    for (const a of add) {
      const stamp = a.updatedAt === undefined ? nextInstant() : seeInstant(a.updatedAt);
      const doc = {
        fields: a.fields,
        meta: {
          id: newId(),
          contentType: a.contentType,
          repository: String(store.repository?.id ?? REPOSITORY_ID),
          revision: 1,
          tags: a.tags,
          createdAt: stamp,
          updatedAt: stamp,
        },
      };
      next.byId.set(doc.meta.id, doc);
      added.push(doc);
    }
    for (const id of deleting) next.byId.delete(id);

    const gone = (d) => deleting.has(d?.meta?.id);
    const swap = (list) => list.map((d) => replaced.get(d) ?? d).filter((d) => !gone(d));
    if (replaced.size || deleting.size) {
      next.documents = swap(next.documents);
      for (const k of Object.keys(next.collections)) next.collections[k] = swap(next.collections[k]);
      for (const k of Object.keys(next.aliases)) {
        const d = next.aliases[k];
        if (gone(d)) delete next.aliases[k];
        else if (replaced.has(d)) next.aliases[k] = /** @type {any} */ (replaced.get(d));
      }
      if (deleting.size && Array.isArray(next.repository?.aliases)) {
        next.repository = {
          ...next.repository,
          aliases: next.repository.aliases.filter((a) => !(isObject(a) && deleting.has(a.documentId))),
        };
      }
    }
    for (const doc of added) {
      next.documents.push(doc);
      for (const k of collectionsOf(next, doc.meta.contentType)) next.collections[k] = [...next.collections[k], doc];
    }
    store = next;
    return jsonCopy({ updated, added, deleted: [...deleting], clock: clockText() });
  }

  const clockText = () => {
    const ms = latest / 1000000n;
    return new Date(Number(ms)).toISOString();
  };

  return {
    /** The current data. */
    get store() {
      return store;
    },
    mutate,
    /**
     * A copy of the current documents (stored order) and collections, and the clock.
     * @returns {{ documents: import("./fixtures.mjs").Document[],
     *   collections: Record<string, import("./fixtures.mjs").Document[]>, clock: string }}
     */
    snapshot() {
      return jsonCopy({ documents: store.documents, collections: store.collections, clock: clockText() });
    },
  };
}

/* ------------------------------------------------------------------------ */
/* The server                                                                */
/* ------------------------------------------------------------------------ */

/**
 * Starts the fixture server.
 *
 * @param {{ port?: number, host?: string, apiKey?: string, control?: boolean,
 *   root?: string, data?: import("./fixtures.mjs").Fixtures,
 *   log?: boolean | ((line: string) => void) }} [options]
 *   - `port` (default 8080; 0 picks a free port), `host` (default 127.0.0.1);
 *   - `apiKey` (default `demo-key`);
 *   - `control`: enables `/__fixture/*` and `X-Fixture-Delay` (default: env
 *     `FIXTURE_CONTROL=1`);
 *   - `root`: the repository root holding `www/` and `pkg/` (default: the
 *     parent of this file's folder);
 *   - `data`: the fixture repository (default: `fixtures.mjs`'s); the server
 *     answers from its own copy, which {@link FixtureServer} `mutate` changes;
 *   - `log`: `true` logs one line per request to the console (never
 *     headers), or a function receiving the lines.
 * @returns {Promise<FixtureServer>}
 *
 * @typedef {{ requests: number, preflights: number, bytes: number }} TrafficCount
 * @typedef {TrafficCount & { paths: Record<string, TrafficCount> }} Traffic
 * @typedef {{
 *   url: string, port: number, close(): Promise<void>,
 *   mutate(mutation: Mutation): MutationResult,
 *   snapshot(): ReturnType<ReturnType<typeof createLiveStore>["snapshot"]>,
 *   traffic(): Traffic, resetTraffic(): Traffic,
 * }} FixtureServer
 *   - `url` is `http://<host>:<port>/`;
 *   - `mutate`: live changes (see {@link createLiveStore}); throws an `Error`
 *     with `status` 400 on an invalid batch, changing nothing;
 *   - `snapshot`: copies of the current documents and collections, and the clock;
 *   - `traffic`: counters of the API requests since the start or the last
 *     reset; `resetTraffic` returns them and starts again from zero.
 *   These work whether or not `control` is on (they are not reachable over
 *   HTTP without it).
 */
export function startServer({
  port = 8080,
  host = "127.0.0.1",
  apiKey = DEFAULT_API_KEY,
  control = process.env.FIXTURE_CONTROL === "1",
  root = DEFAULT_ROOT,
  data = defaultFixtures,
  log = false,
} = {}) {
  if (typeof apiKey !== "string" || apiKey === "") throw new TypeError("apiKey must be a non-empty string");
  const logLine = typeof log === "function" ? log : log ? (line) => console.log(line) : null;
  /** @type {ScriptEntry[]} */
  let queue = [];
  /** @type {{ method: string, url: string, authorization: string | null }[]} */
  let requests = [];
  const timers = new Set();
  const live = createLiveStore(data);

  /** Traffic of the API (`/v1...`): per raw path, and in total. */
  /** @type {Map<string, TrafficCount>} */
  let traffic = new Map();
  /** @type {TrafficCount} */
  let trafficTotal = { requests: 0, preflights: 0, bytes: 0 };
  /** API responses → the path their bytes count for. */
  /** @type {WeakMap<http.ServerResponse, string>} */
  const trafficPath = new WeakMap();
  /** @param {string} p */
  const trafficOf = (p) => {
    let t = traffic.get(p);
    if (!t) traffic.set(p, (t = { requests: 0, preflights: 0, bytes: 0 }));
    return t;
  };
  /** @returns {Traffic} */
  const trafficSnapshot = () => {
    /** @type {Record<string, TrafficCount>} */
    const paths = {};
    for (const [p, t] of traffic) paths[p] = { ...t };
    return { ...trafficTotal, paths };
  };
  const resetTraffic = () => {
    const t = trafficSnapshot();
    traffic = new Map();
    trafficTotal = { requests: 0, preflights: 0, bytes: 0 };
    return t;
  };

  /**
   * Sends a response (after `delay` ms), with CORS headers.
   * @param {http.ServerResponse} res
   * @param {number} status
   * @param {Record<string, string>} headers
   * @param {string | Buffer | null} body
   * @param {number} [delay]
   * @param {boolean} [head] HEAD request: no body
   */
  function send(res, status, headers, body, delay = 0, head = false) {
    const go = () => {
      if (res.destroyed || res.writableEnded) return;
      const h = { ...CORS_HEADERS, "Cache-Control": "no-store", ...headers };
      const size = body === null ? 0 : Buffer.byteLength(body);
      if (body !== null) h["Content-Length"] = String(size);
      res.writeHead(status, h);
      res.end(head || body === null ? undefined : body);
      const counted = trafficPath.get(res);
      if (counted !== undefined && !head) {
        trafficOf(counted).bytes += size;
        trafficTotal.bytes += size;
      }
      if (logLine) logLine(`${res.req.method} ${res.req.url} ${status}`);
    };
    later(res, delay, go);
  }

  /** Runs `fn` after `delay` ms unless the response closes first. */
  function later(res, delay, fn) {
    if (!(delay > 0)) return fn();
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, Math.min(delay, MAX_DELAY_MS));
    timers.add(t);
    res.on("close", () => {
      clearTimeout(t);
      timers.delete(t);
    });
  }

  const sendJson = (res, status, value, delay = 0, extra = {}, head = false) =>
    send(res, status, { "Content-Type": JSON_TYPE, ...extra }, JSON.stringify(value), delay, head);

  const sendError = (res, err, delay = 0) => {
    if (err instanceof HttpError) sendJson(res, err.status, { error: { message: err.message } }, delay);
    else {
      if (logLine) logLine(`internal error: ${err && err.stack ? err.stack : err}`);
      sendJson(res, 500, { error: { message: "Internal server error" } }, delay);
    }
  };

  /** @param {http.IncomingMessage} req */
  function requestDelay(req) {
    if (!control) return 0;
    const v = req.headers["x-fixture-delay"];
    if (typeof v !== "string" || !/^\d{1,9}$/.test(v.trim())) return 0;
    return Math.min(Number(v.trim()), MAX_DELAY_MS);
  }

  /** Computes the normal answer to an API request. */
  function apiAnswer(req, rawPath, rawQuery) {
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD") {
      return { status: 405, body: { error: { message: `Method ${method} not allowed` } }, headers: { Allow: "GET, HEAD, OPTIONS" } };
    }
    const auth = req.headers.authorization;
    if (auth !== apiKey && auth !== `Bearer ${apiKey}`) {
      return { status: 401, body: { message: "Invalid authentication credentials" } };
    }
    try {
      return readApi(rawPath, rawQuery, live.store);
    } catch (e) {
      if (e instanceof HttpError) return { status: e.status, body: { error: { message: e.message } } };
      throw e;
    }
  }

  function handleApi(req, res, rawUrl, rawPath, rawQuery) {
    trafficPath.set(res, rawPath);
    const counter = req.method === "OPTIONS" ? "preflights" : "requests";
    trafficOf(rawPath)[counter] += 1;
    trafficTotal[counter] += 1;
    if (control) {
      const auth = req.headers.authorization;
      requests.push({ method: req.method ?? "", url: rawUrl, authorization: typeof auth === "string" ? auth : null });
      if (requests.length > MAX_LOG) requests = requests.slice(-MAX_LOG);
    }
    if (req.method === "OPTIONS") return send(res, 204, {}, null);
    let delay = requestDelay(req);
    const head = req.method === "HEAD";
    const normal = () => apiAnswer(req, rawPath, rawQuery);
    const idx = control ? queue.findIndex((e) => e.match === undefined || rawUrl.includes(e.match)) : -1;
    if (idx >= 0) {
      const [entry] = queue.splice(idx, 1);
      delay = Math.min(delay + (entry.delayMs ?? 0), MAX_DELAY_MS);
      const r = scriptedResponse(entry, normal);
      if ("disconnect" in r) {
        later(res, delay, () => {
          if (logLine) logLine(`${req.method} ${rawUrl} (disconnected)`);
          req.socket.destroy();
        });
        return;
      }
      return send(res, r.status, r.headers, r.text, delay, head);
    }
    const r = normal();
    sendJson(res, r.status, r.body, delay, r.headers ?? {}, head);
  }

  async function handleControl(req, res, rawPath) {
    if (!control) throw notFound("Not found");
    if (req.method === "OPTIONS") return send(res, 204, {}, null);
    if (rawPath === "/__fixture/script") {
      if (req.method !== "POST") throw new HttpError(405, "use POST");
      const text = await readBody(req);
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        throw badRequest("the script must be JSON");
      }
      if (!isObject(body) || !Array.isArray(body.responses)) throw badRequest('expected {"responses": [...], "match"?: "..."}');
      for (const k of Object.keys(body)) if (k !== "responses" && k !== "match") throw badRequest(`unknown script key ${JSON.stringify(k)}`);
      const entries = body.responses.map((e) => validateEntry(e, body.match));
      if (queue.length + entries.length > MAX_QUEUE) throw badRequest(`at most ${MAX_QUEUE} scripted responses can be queued`);
      queue.push(...entries);
      return sendJson(res, 200, { queued: queue.length });
    }
    if (rawPath === "/__fixture/requests") {
      if (req.method !== "GET") throw new HttpError(405, "use GET");
      return sendJson(res, 200, requests);
    }
    if (rawPath === "/__fixture/reset") {
      if (req.method !== "POST") throw new HttpError(405, "use POST");
      queue = [];
      requests = [];
      resetTraffic();
      return sendJson(res, 200, { ok: true });
    }
    if (rawPath === "/__fixture/mutate") {
      if (req.method !== "POST") throw new HttpError(405, "use POST");
      const text = await readBody(req);
      let body;
      try {
        body = JSON.parse(text);
      } catch {
        throw badRequest("the mutation must be JSON");
      }
      return sendJson(res, 200, live.mutate(body));
    }
    if (rawPath === "/__fixture/traffic") {
      if (req.method !== "GET") throw new HttpError(405, "use GET");
      return sendJson(res, 200, trafficSnapshot());
    }
    if (rawPath === "/__fixture/traffic/reset") {
      if (req.method !== "POST") throw new HttpError(405, "use POST");
      return sendJson(res, 200, resetTraffic());
    }
    throw notFound("Not found");
  }

  async function handleStatic(req, res, rawPath) {
    if (req.method === "OPTIONS") return send(res, 204, {}, null);
    if (req.method !== "GET" && req.method !== "HEAD") throw new HttpError(405, `Method ${req.method} not allowed`);
    let file = staticFile(rawPath, root);
    let stat = await fs.promises.stat(file).catch(() => null);
    if (stat && stat.isDirectory()) {
      file = path.join(file, "index.html");
      stat = await fs.promises.stat(file).catch(() => null);
    }
    if (!stat || !stat.isFile()) throw notFound(`Not found: ${rawPath}`);
    const content = await fs.promises.readFile(file);
    const type = MIME_TYPES[/** @type {keyof typeof MIME_TYPES} */ (path.extname(file).toLowerCase())] ?? "application/octet-stream";
    send(res, 200, { "Content-Type": type }, content, 0, req.method === "HEAD");
  }

  /**
   * @param {http.IncomingMessage} req
   * @param {http.ServerResponse} res
   */
  async function handle(req, res) {
    const rawUrl = req.url ?? "/";
    const qi = rawUrl.indexOf("?");
    const rawPath = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
    const rawQuery = qi < 0 ? "" : rawUrl.slice(qi + 1);
    try {
      if (!rawPath.startsWith("/")) throw badRequest("invalid request target");
      if (rawPath === "/v1" || rawPath.startsWith("/v1/")) return handleApi(req, res, rawUrl, rawPath, rawQuery);
      if (rawPath === "/__fixture" || rawPath.startsWith("/__fixture/")) return await handleControl(req, res, rawPath);
      return await handleStatic(req, res, rawPath);
    } catch (e) {
      sendError(res, e);
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      try {
        sendError(res, e);
      } catch {
        res.destroy();
      }
    });
  });

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const addr = server.address();
      const actualPort = typeof addr === "object" && addr ? addr.port : port;
      const shownHost = host.includes(":") ? `[${host}]` : host;
      resolve({
        url: `http://${shownHost}:${actualPort}/`,
        port: actualPort,
        mutate: (mutation) => live.mutate(mutation),
        snapshot: () => live.snapshot(),
        traffic: trafficSnapshot,
        resetTraffic,
        close() {
          for (const t of timers) clearTimeout(t);
          timers.clear();
          return new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
        },
      });
    });
  });
}

/* ------------------------------------------------------------------------ */
/* Command line                                                              */
/* ------------------------------------------------------------------------ */

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  // `--check`: only whether the port can be listened on (`npm start` asks
  // before it builds), then exit.
  const check = process.argv.includes("--check");
  const given = process.env.PORT;
  const port = given ? (/^[0-9]{1,5}$/.test(given) ? Number(given) : NaN) : 8080;
  if (!Number.isInteger(port) || port > 65535) {
    console.error(`invalid PORT ${JSON.stringify(given)}: a decimal number from 0 to 65535`);
    process.exit(2);
  }
  const host = process.env.HOST || "127.0.0.1";
  const apiKey = process.env.API_KEY || DEFAULT_API_KEY;
  const control = process.env.FIXTURE_CONTROL === "1";
  const fail = (/** @type {any} */ e) => {
    const busy = e?.code === "EADDRINUSE" ? `; another port: PORT=${port === 8080 ? 8081 : 8080} npm start` : "";
    console.error(`cannot start the fixture server on ${host}:${port}: ${e.message}${busy}`);
    process.exit(1);
  };
  if (check) {
    const probe = http.createServer();
    probe.once("error", fail);
    probe.listen(port, host, () => probe.close(() => process.exit(0)));
  } else {
    startServer({
      port,
      host,
      apiKey,
      control,
      log: process.env.FIXTURE_LOG === "1",
    }).then((s) => {
      console.log(s.url);
      console.log(
        `content-repo fixture server: the playground at ${s.url}, repository "demo" at ${s.url}v1/demo` +
          (process.env.API_KEY ? " (API key from API_KEY)" : ` (API key "${DEFAULT_API_KEY}")`) +
          (control ? ", test control on" : ""),
      );
      const stop = () => s.close().then(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    }, fail);
  }
}
