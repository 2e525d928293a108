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
 * operations: filter (tags, search, filters) → sort → offset/limit → select
 * fields; `meta.total` counts the documents after filtering.
 *
 * Query parameters (every name at most once; unknown names are a 400):
 * - `sorting[<fields|meta>.<name>]=ASC|DESC|1|-1` (case-insensitive), in order,
 *   the first is the primary key;
 * - `fields=<selection>` (lists and single documents);
 * - `limit` (integer 1..1000, default 25), `offset` (integer >= 0, default 0);
 * - `locale` (non-empty, accepted and ignored), `embedAssets` (`true`,
 *   `false`, `1`, `0`; ignored);
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
 * - `POST /__fixture/reset`: clears the queue and the request log.
 * - Request header `X-Fixture-Delay: <ms>` delays that response.
 * Delays are capped at 30 s, the queue at 100 entries.
 *
 * @module server
 */

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { fixtures as defaultFixtures } from "./fixtures.mjs";
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
      if (value === "") throw badRequest("invalid locale \"\": expected a language key such as en_US, or all");
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
/* The read API                                                              */
/* ------------------------------------------------------------------------ */

/**
 * Builds a list response: filter → sort → page → includes → select.
 * @param {any[]} docs
 * @param {ListQuery} q
 * @param {import("./fixtures.mjs").Fixtures} data
 */
function listResponse(docs, q, data) {
  const filtered = filterDocuments(docs, q);
  const sorted = sortDocuments(filtered, q.sorting);
  const page = sorted.slice(q.offset, q.offset + q.limit);
  /** @type {Record<string, any>} */
  const envelope = {
    status: "ok",
    meta: { count: page.length, limit: q.limit, offset: q.offset, total: filtered.length },
    data: page,
  };
  if (q.includes) envelope.includes = buildIncludes(page, q.includes, data);
  return selectFields(envelope, q.selection);
}

/**
 * The `includes` object of a list: authors referenced by `fields.author.id`.
 * @param {any[]} page
 * @param {NonNullable<ListQuery["includes"]>} includes
 * @param {import("./fixtures.mjs").Fixtures} data
 */
function buildIncludes(page, includes, data) {
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
      authors.push(target);
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
 * @param {import("./fixtures.mjs").Fixtures} data
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
    answer = () => selectFields(doc, query.selection);
  } else if (endpoint === "collections" && id !== undefined) {
    const docs = hasOwn(data.collections, id) ? data.collections[id] : undefined;
    if (!docs) throw notFound(`Collection ${JSON.stringify(id)} not found`);
    answer = () => listResponse(docs, query, data);
  } else if (endpoint === "alias" && id !== undefined) {
    const doc = hasOwn(data.aliases, id) ? data.aliases[id] : undefined;
    if (!doc) throw notFound(`Alias ${JSON.stringify(id)} not found`);
    answer = () => selectFields(doc, query.selection);
  } else if (endpoint === "assets" && id !== undefined) {
    const doc = data.assetsById.get(id);
    if (!doc) throw notFound(`Asset ${JSON.stringify(id)} not found`);
    answer = () => selectFields(doc, query.selection);
  } else {
    throw unknownEndpoint();
  }
  const query = parseListQuery(rawQuery);
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
 *   - `data`: the fixture repository (default: `fixtures.mjs`'s);
 *   - `log`: `true` logs one line per request to the console (never
 *     headers), or a function receiving the lines.
 * @returns {Promise<{ url: string, port: number, close(): Promise<void> }>}
 *   `url` is `http://<host>:<port>/`.
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
      if (body !== null) h["Content-Length"] = String(Buffer.byteLength(body));
      res.writeHead(status, h);
      res.end(head || body === null ? undefined : body);
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
      return readApi(rawPath, rawQuery, data);
    } catch (e) {
      if (e instanceof HttpError) return { status: e.status, body: { error: { message: e.message } } };
      throw e;
    }
  }

  function handleApi(req, res, rawUrl, rawPath, rawQuery) {
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
      return sendJson(res, 200, { ok: true });
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
  const port = process.env.PORT ? Number(process.env.PORT) : 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`invalid PORT ${JSON.stringify(process.env.PORT)}`);
    process.exit(2);
  }
  const apiKey = process.env.API_KEY || DEFAULT_API_KEY;
  const control = process.env.FIXTURE_CONTROL === "1";
  startServer({
    port,
    host: process.env.HOST || "127.0.0.1",
    apiKey,
    control,
    log: process.env.FIXTURE_LOG === "1",
  }).then(
    (s) => {
      console.log(s.url);
      console.log(
        `content-repo fixture server: repository "demo" at ${s.url}v1/demo` +
          (process.env.API_KEY ? " (API key from API_KEY)" : ` (API key "${DEFAULT_API_KEY}")`) +
          (control ? ", test control on" : ""),
      );
      const stop = () => s.close().then(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    },
    (e) => {
      console.error(`cannot start the fixture server: ${e.message}`);
      process.exit(1);
    },
  );
}
