/**
 * The types of `content-repo`, the client SDK of the Content Repository Read
 * API (a Rust core compiled to WebAssembly).
 *
 * This file is written by hand and is the package's `types` for `"."` (and,
 * through `slim.d.ts`, for `"./slim"`). `npm test` (tests/js/types.test.mjs)
 * checks it against the built package: every runtime export and method is
 * declared here and everything declared here exists at runtime; the README's
 * examples and a typed sample compile under `tsc --strict`.
 *
 * Documents are typed by their `fields`: pass your own fields type to the
 * methods that return documents (`client.documents<Post>()`). It states what
 * the service returns; nothing checks it at runtime. After a field selection,
 * `fields` holds only what was selected: read such results as
 * `Document<Partial<Post>>` (`client.documents<Partial<Post>>(query)`).
 *
 * @packageDocumentation
 */

// ------------------------------------------------------------------ loading

/**
 * Resolves once the WebAssembly module is ready. In Node it already is; in
 * browsers, workers and bundles the module starts loading when the package is
 * imported, and every synchronous call made before it is ready throws a
 * {@link ContentRepoError} with the code `not_initialized` (a call that
 * returns a promise rejects with it). If loading failed, rejects with a
 * `ContentRepoError` (`network`, or `decode` for bytes that are not the
 * module) whose `cause` is the loading error; then each later call loads
 * the module again (back online, say) with the `content-repo` entry in
 * browsers, while `content-repo/slim` waits for another `init(input)`.
 *
 * @example
 * ```ts
 * import { ready, Query } from "content-repo";
 * await ready();
 * new Query().limit(5);
 * ```
 */
export function ready(): Promise<void>;

/**
 * The size of the module's WebAssembly memory in bytes: what the documents
 * held in {@link DocumentStore}s and everything else take. The memory grows and
 * never shrinks. For diagnostics and benchmarks.
 */
export function wasmMemoryBytes(): number;

// ------------------------------------------------------------------- errors

/**
 * The stable code of a {@link ContentRepoError}:
 *
 * - `invalid_argument`: an invalid base URL, repository, id, key, limit,
 *   offset, locale, includes, tag, search, filter or option; an object used
 *   after `free()`, a method called on an object of another class, or an SDK
 *   object called (or freed) from inside one of its own calls (by your
 *   getter, `Proxy` trap or `toJSON`);
 * - `invalid_sort`: a sort key without a valid scope, or an invalid direction;
 * - `invalid_selection`: a field selection outside the grammar (with
 *   `position` and `expected`);
 * - `http`: the service answered outside 2xx (with `status`);
 * - `network`: `fetch` failed after the retries;
 * - `timeout`: the call's `timeoutMs` ran out;
 * - `aborted`: the caller's `AbortSignal` aborted;
 * - `decode`: a 2xx body is not the JSON expected, or a stored cache entry is
 *   corrupt (with `excerpt`);
 * - `storage`: the offline cache's storage failed (reported to
 *   `onCacheError`, never thrown by a request; `prefetch` and `refresh`
 *   reject with it when the list could not be recorded whole);
 * - `not_cached`: the cache cannot answer (offline, or `cache-only`), or
 *   `prefetch` or `refresh` could not record the list consistently;
 * - `not_initialized`: a synchronous call before the module is ready.
 */
export type ErrorCode =
  | "invalid_argument"
  | "invalid_sort"
  | "invalid_selection"
  | "http"
  | "network"
  | "timeout"
  | "aborted"
  | "decode"
  | "storage"
  | "not_cached"
  | "not_initialized";

/** The details a {@link ContentRepoError} may carry, by code. */
export interface ContentRepoErrorDetails {
  /** `invalid_selection`: the 0-based UTF-16 index of the first character that cannot continue the selection. */
  position?: number;
  /** `invalid_selection`: what could have continued the selection there, e.g. `"'/', '(', ',' or ')'"`. */
  expected?: string;
  /** `http`: the response status. */
  status?: number;
  /** `decode`: the start of the body that could not be read (the API key scrubbed). */
  excerpt?: string;
}

/**
 * Every failure of the SDK: a real `Error` with a stable {@link ErrorCode}.
 * Messages never contain the API key.
 *
 * @example
 * ```ts
 * try {
 *   new Query().fields("title, author(name");
 * } catch (error) {
 *   if (error instanceof ContentRepoError && error.code === "invalid_selection") {
 *     console.log(error.position); // 18
 *   }
 * }
 * ```
 */
export class ContentRepoError extends Error {
  /** The SDK creates these; `details` keys that are `undefined` are left out. */
  constructor(code: ErrorCode, message: string, details?: ContentRepoErrorDetails);
  readonly name: "ContentRepoError";
  /** What went wrong, stable across versions. */
  readonly code: ErrorCode;
  /** `invalid_selection`: the 0-based UTF-16 index of the first character that cannot continue the selection. */
  readonly position?: number;
  /** `invalid_selection`: what could have continued the selection there. */
  readonly expected?: string;
  /** `http`: the response status. */
  readonly status?: number;
  /** `decode`: the start of the body that could not be read. */
  readonly excerpt?: string;
  /**
   * `aborted`: the caller's `signal.reason` (a `TimeoutError` from
   * `AbortSignal.timeout`, or what was passed to `abort(reason)`);
   * otherwise, where set, the error that caused this one.
   */
  cause?: unknown;
}

// ---------------------------------------------------------------- documents

/** A document's system metadata, as the service sends it. Unknown extra keys are kept. */
export interface Meta {
  /** The document id: a decimal number written as a string (18 digits). */
  id: string;
  /** The API id of the document's content type. */
  contentType: string;
  /** The repository name. */
  repository: string;
  /** Increases with every change; a lower revision never replaces a higher one. */
  revision: number;
  tags: string[];
  /** An instant such as `"2024-01-31T12:00:00.000Z"`. */
  createdAt: string;
  /** An instant such as `"2024-01-31T12:00:00.000Z"`. */
  updatedAt: string;
  [key: string]: unknown;
}

/**
 * A document: your `fields` (`F`) and the system's `meta`. Unknown extra keys
 * are kept.
 *
 * `F` is what you state the service returns. A field selection returns only
 * what it selects (the README's "Field selection"): with one, read results as
 * `Document<Partial<F>>`. A selection that names only `meta` returns no
 * `fields` at all, and one that names `meta` keys returns only those keys.
 *
 * @typeParam F - the type of `fields`
 */
export interface Document<F = Record<string, unknown>> {
  /** Your fields (absent after a selection that names only `meta`). */
  fields: F;
  /** The system metadata (only the named keys after a selection that names `meta` keys). */
  meta: Meta;
  [key: string]: unknown;
}

/** The `meta` of a list response. */
export interface ListMeta {
  /** The number of documents in `data`. */
  count: number;
  /** The page size: the query's `limit`, or the service's default 25; for `all()`, the number of documents gathered. */
  limit: number;
  /** How many documents of the list precede this page. */
  offset: number;
  /** The number of documents in the whole list. */
  total: number;
}

/**
 * A list response: a page of documents and where it sits in the list.
 * Unknown extra keys are kept.
 *
 * @typeParam F - the type of each document's `fields`
 */
export interface ListResponse<F = Record<string, unknown>> {
  data: Document<F>[];
  /**
   * Where the page sits. The service sends it with every list, and the SDK
   * writes it for the lists it makes (`all`, `applyQuery`, the store, the
   * cache); a service response without it is passed on as it is.
   */
  meta: ListMeta;
  /** Linked documents by content type (`includes` queries). */
  includes?: Record<string, Document[]>;
  [key: string]: unknown;
}

/** Where an answer came from: the service, or the offline cache. */
export type Source = "network" | "cache";

/**
 * Where an answer of a {@link Client} came from. These properties are
 * **non-enumerable**: `JSON.stringify`, `Object.keys` and spreading do not
 * see them.
 */
export interface SourceInfo {
  /** `"network"`, or `"cache"` for an answer of the offline cache. */
  readonly source: Source;
  /**
   * `true` for a cached answer given because the network failed (or timed
   * out under `networkTimeoutMs`), or older than `maxAgeMs`, or invalidated
   * (`client.cache.invalidate`).
   */
  readonly stale: boolean;
  /** For a cached answer: when it was received from the service, in ms since the epoch. */
  readonly cachedAt?: number;
}

/** A list, document or other object as a {@link Client} returns it: with its {@link SourceInfo}. */
export type WithSource<T> = T & SourceInfo;

/**
 * A document as the local functions ({@link sortDocuments},
 * {@link selectFields}, {@link applyQuery}) accept it: any object, of which
 * `fields` and `meta` are read where present. Every {@link Document} is one.
 */
export interface DocumentLike {
  fields?: unknown;
  meta?: Partial<Meta>;
}

/** A document {@link DocumentStore.put} accepts: it needs a `meta.id`. */
export interface StorableDocument extends DocumentLike {
  meta: Partial<Meta> & { id: string };
}

/**
 * What a field selection leaves of a document `T`: the same document with
 * `fields` `Partial` (a `Document<F>` gives a `Document<Partial<F>>`).
 */
export type Selected<T> = T extends Document<infer F>
  ? Document<Partial<F>>
  : { [K in keyof T]: K extends "fields" ? Partial<T[K]> : T[K] };

/** A list envelope: documents in `data`, and any other keys (`meta`, `includes`, ...). */
export interface DocumentEnvelope<T> {
  data: T[];
  [key: string]: unknown;
}

/** A page computed locally ({@link applyQuery}): the documents and where they sit. */
export interface LocalPage<T> {
  data: T[];
  meta: ListMeta;
  [key: string]: unknown;
}

// -------------------------------------------------------------------- query

/** A sort or filter key: `fields.<name>` or `meta.<name>`, the name matching `[A-Za-z0-9_-]+`. */
export type FieldKey = `fields.${string}` | `meta.${string}`;

/** Every upper- and lower-case spelling of `S`. */
type AnyCase<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${Uppercase<C> | Lowercase<C>}${AnyCase<Rest>}`
  : "";

/**
 * A sort direction as accepted: `"ASC"` or `"DESC"` in any case, `1` or `-1`
 * (numbers or strings). Always sent as `ASC`/`DESC`.
 */
export type SortDirection = AnyCase<"asc"> | AnyCase<"desc"> | 1 | -1 | "1" | "-1";

/** One sort key, as {@link Query.sorting} returns it. */
export interface SortSpec {
  key: FieldKey;
  direction: "ASC" | "DESC";
}

/** A filter condition, sent to the service (never applied locally). */
export interface FilterSpec {
  /** `fields.<name>` or `meta.<name>`. */
  field: FieldKey;
  /** An operator such as `"equal"` or `"greaterThan"` (letters only; any such operator is passed through). */
  op: string;
  /** The value; numbers (finite) and booleans are sent as text. */
  value: string | number | boolean;
  /**
   * How it joins the conditions before it (ignored for the first one).
   * @defaultValue `"and"`
   */
  join?: "and" | "or";
  /**
   * A content type API id, or `"*"` for all.
   * @defaultValue `"*"`
   */
  contentType?: string;
}

/** A query argument: a {@link Query}, a query string (with or without `?`), or nothing (the service's defaults). */
export type QueryInput = Query | string | null | undefined;

/**
 * A list query: sorting, field selection and the other parameters, validated
 * as they are set. Every setter replaces an earlier value and returns the
 * query itself, so calls chain (`q.limit(5) === q`); `null` or `undefined`
 * removes an optional parameter (but for {@link Query.embedAssets}, whose
 * argument, when omitted, is `true`). Invalid input throws a
 * {@link ContentRepoError} (`invalid_sort`, `invalid_selection` or
 * `invalid_argument`) and leaves the query unchanged.
 *
 * @example
 * ```ts
 * const query = new Query().sort("fields.price", "DESC").fields("title, price").limit(10);
 * query.toString(); // "sorting%5Bfields.price%5D=DESC&fields=fields%28price%2Ctitle%29%2Cmeta&limit=10"
 * ```
 */
export class Query {
  /** An empty query: the service's defaults. */
  constructor();
  /**
   * Reads a query string (with or without `?`), or a whole URL's, back into a query;
   * `Query.parse(q.toString())` equals `q`. Throws like the setters.
   */
  static parse(text: string): Query;
  /**
   * Adds a sort key. The first key is the primary one; sorting again on a key
   * replaces its direction in place. At most 32 distinct keys (`invalid_sort`
   * beyond).
   */
  sort(key: FieldKey, direction: SortDirection): this;
  /**
   * Sets the field selection, e.g. `"title, author(name,email)"`; it is sent
   * in canonical form (see {@link Query.selection}).
   */
  fields(selection: string | null | undefined): this;
  /** Sets `limit`, an integer from 1 to 1000 (the service's default is 25). */
  limit(limit: number | null | undefined): this;
  /** Sets `offset`, an integer from 0. */
  offset(offset: number | null | undefined): this;
  /** Sets `locale`: a language key such as `"en_US"` (`[A-Za-z0-9_-]+`), or `"all"`. */
  locale(locale: string | null | undefined): this;
  /**
   * Sets `includes`: a number of levels (1 to 5), or one or several fields as
   * `"<contentType|*>.fields.<field>"` (`"fields.<field>"` for every content type);
   * `[]` removes it.
   */
  includes(levelsOrFields: number | string | readonly string[] | null | undefined): this;
  /** Sets `embedAssets=true`. */
  embedAssets(): this;
  /**
   * Sets `embedAssets=true`, or `false` removes it (the service's default).
   * A `boolean`, not `boolean | undefined`: `undefined` counts as omitted,
   * and so sets it.
   */
  embedAssets(enabled: boolean): this;
  /** Only documents with every one of these tags (non-empty strings); `[]` removes the parameter. */
  includeTags(tags: readonly string[] | null | undefined): this;
  /** Only documents with none of these tags (non-empty strings); `[]` removes the parameter. */
  excludeTags(tags: readonly string[] | null | undefined): this;
  /** Sets the full-text `search`; an empty text throws `invalid_argument`. */
  search(text: string | null | undefined): this;
  /**
   * Appends a filter condition, sent as
   * `filters[n][<contentType>.<field>][<op>]=<value>` (later ones with
   * `[and]` or `[or]`).
   */
  filter(filter: FilterSpec): this;
  /** The query string, without `?`, encoded as `URLSearchParams` does. */
  toString(): string;
  /** A copy of this query. */
  clone(): Query;
  /** Whether `other` is the same query (the same canonical query string). */
  equals(other: Query): boolean;
  /** The sort keys, primary first. */
  readonly sorting: SortSpec[];
  /** The selection in canonical form (what is sent), e.g. `"fields(author/name,title),meta"`. */
  readonly selection: string | undefined;
  /** The `limit` set. */
  readonly limitValue: number | undefined;
  /** The `offset` set. */
  readonly offsetValue: number | undefined;
}

// -------------------------------------------------------------------- local

/**
 * Returns a new array of the same document objects, sorted by the query's
 * sort keys as the service sorts (the README's "Re-sorting"): missing and `null` values
 * last in both directions, ties by `meta.createdAt` then `meta.id`
 * descending, then the input order. The query's other parameters are ignored.
 *
 * Throws `invalid_argument` if an element is not an object.
 */
export function sortDocuments<T extends DocumentLike>(documents: readonly T[], query?: QueryInput): T[];

/**
 * Applies a field selection such as `"title, author/name"` (the README's "Field selection"):
 * to each document of an array, to the `data` of a list envelope (and the
 * `includes` scope to its `includes`, other keys kept), or to one document.
 * Returns new objects (`"*"` returns the input itself). Throws `invalid_selection` (with `position`) for an
 * invalid selection.
 */
export function selectFields<T extends DocumentLike>(documents: readonly T[], selection: string): Selected<T>[];
export function selectFields<F>(list: ListResponse<F>, selection: string): ListResponse<Partial<F>>;
export function selectFields<T extends DocumentLike>(list: { readonly data: readonly T[] }, selection: string): DocumentEnvelope<Selected<T>>;
export function selectFields<T extends DocumentLike>(document: T, selection: string): Selected<T>;

/**
 * Applies a query to documents in hand as the service would: its sorting,
 * then `offset` and `limit` (25 when unset, as the service), then its field
 * selection. Returns a list envelope with `meta: { count, limit, offset,
 * total }`; a list envelope's other keys (such as `includes`) are kept.
 * Filters, search and tags are not applied.
 *
 * With a selection, state what remains: `applyQuery<Partial<Post>>(list, query)`.
 */
export function applyQuery<F>(listOrDocuments: ListResponse<F> | readonly Document<F>[], query?: QueryInput): ListResponse<F>;
export function applyQuery<T extends DocumentLike>(
  listOrDocuments: readonly T[] | { readonly data: readonly T[] },
  query?: QueryInput,
): LocalPage<T>;

/** Options of {@link DocumentStore.query}. */
export interface StoreQueryOptions {
  /**
   * Only documents whose `meta.contentType` is this API id.
   * @defaultValue every document
   */
  contentType?: string;
}

/**
 * Documents held in WebAssembly memory by `meta.id`, answering queries with
 * the service's sorting and field selection without a round trip. A write
 * with a lower `meta.revision` never replaces a higher one. Each query's sort
 * keys get an index that later queries reuse.
 */
export class DocumentStore {
  /** An empty store. */
  constructor();
  /**
   * Stores one document, an array of documents, or a list envelope's `data`;
   * each needs a `meta.id`. Returns how many were written. Throws
   * `invalid_argument` (and stores nothing) if one is not a document with an id.
   */
  put(listOrDocuments: StorableDocument | readonly StorableDocument[] | { readonly data: readonly StorableDocument[] }): number;
  /**
   * Stores the documents of a response's JSON text (a list, an array of
   * documents or one document), parsed inside WebAssembly. Returns how many
   * were written. Throws `decode` (the store unchanged) for text that is not
   * such JSON.
   */
  putJson(text: string): number;
  /** The document stored under `id`, or `undefined`. */
  get<F = Record<string, unknown>>(id: string): Document<F> | undefined;
  /**
   * Answers a query from the stored documents: its sorting, then `offset` and
   * `limit` (25 when unset), then its selection. Filters and the other
   * parameters are not applied.
   */
  query<F = Record<string, unknown>>(query?: QueryInput, options?: StoreQueryOptions): ListResponse<F>;
  /** Removes the document stored under `id`; whether there was one. */
  delete(id: string): boolean;
  /** Removes every document. */
  clear(): void;
  /** The number of documents stored. */
  readonly size: number;
}

// ------------------------------------------------------------------- client

/**
 * An endpoint: a raw path after the repository (`"documents"`,
 * `"collections/posts"`: split on `/`, each segment encoded), or a typed one
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

/** An endpoint that answers with a list: `"documents"`, `"collections/<apiId>"`, `{ documents: true }` or `{ collection }`. */
export type ListEndpointSpec = string | { documents: true } | { collection: string };

/** The request `fetch` receives from the SDK. */
export interface FetchInit {
  method: "GET";
  /** `Authorization` (the key, after `authScheme`) and `Accept: application/json`. */
  headers: Record<string, string>;
  /** Aborted on timeout or when the caller's signal aborts. */
  signal: AbortSignal;
}

/** What the SDK reads of a response: a `Response` has it. */
export interface FetchResponse {
  /** An integer from 100 to 599. */
  readonly status: number;
  readonly headers: { get(name: string): string | null | undefined };
  text(): string | PromiseLike<string>;
}

/** The `fetch` a {@link Client} calls: the global `fetch` is one. */
export type FetchFunction = (url: string, init: FetchInit) => FetchResponse | PromiseLike<FetchResponse>;

/**
 * A storage for the offline cache. Every method may reject (a full disk,
 * say); a failed `write` must change nothing. A call that does not settle
 * within the client's `timeoutMs` counts as failed.
 */
export interface CacheStorage {
  /** Every stored entry, as `[key, text]` pairs. */
  load(): Promise<Iterable<readonly [key: string, text: string]>>;
  /**
   * Optional, used instead of `load` when present: hands every stored entry
   * to `onEntry` as it is read (text as a string or UTF-8 bytes), resolving
   * once all have been given. The cache reads each entry while storage
   * reads the next (the IndexedDB storage does this); a rejection part way
   * loads nothing.
   */
  loadEach?(onEntry: (key: string, text: string | Uint8Array) => void): Promise<void>;
  /** Writes `puts` and removes `deletes`, all or nothing. */
  write(puts: Array<[key: string, text: string]>, deletes: string[]): Promise<void>;
  /** Removes every entry. */
  clear(): Promise<void>;
}

/**
 * When a client answers from its cache:
 *
 * - `network-first`: ask the service; answer from the cache when the network
 *   fails (a network error, a timeout, 429 or 5xx; never after another 4xx or
 *   an abort), when the runtime is offline, or when `networkTimeoutMs` passes
 *   first; such answers are `stale`.
 * - `cache-first`: answer from the cache when it can and the answer is younger
 *   than `maxAgeMs`, else ask the service (and give the old answer if the
 *   service cannot be reached).
 * - `stale-while-revalidate`: answer from the cache when it can, and refresh
 *   it from the service in the background.
 * - `cache-only`: answer from the cache alone, never asking the service
 *   (`prefetch` and `refresh`, which exist to ask it, still do).
 */
export type CachePolicy = "network-first" | "cache-first" | "stale-while-revalidate" | "cache-only";

/** The offline cache of a {@link Client} (`cache: true` for every default). */
export interface CacheOptions {
  /**
   * Where entries are kept: `"indexeddb"` (one database per base URL and
   * repository; survives a reload), `"memory"`, or your own {@link CacheStorage}.
   * @defaultValue `"indexeddb"` where IndexedDB exists (browsers), else `"memory"`
   */
  storage?: "indexeddb" | "memory" | CacheStorage;
  /**
   * When to answer from the cache; see {@link CachePolicy}.
   * @defaultValue `"network-first"`
   */
  policy?: CachePolicy;
  /**
   * Cached answers older than this (in ms) are `stale`; `cache-first` then
   * asks the service first.
   * @defaultValue no limit
   */
  maxAgeMs?: number;
  /**
   * `network-first`: answer from the cache (marked `stale`) when the service
   * has not answered after this many ms; the request goes on and updates the
   * cache.
   * @defaultValue no limit
   */
  networkTimeoutMs?: number;
  /**
   * The most bytes of response text the cache keeps; beyond it the least
   * recently used lists (then single responses) are evicted whole.
   * @defaultValue no limit
   */
  maxBytes?: number;
  /**
   * Refresh every prefetched list ({@link Client.refresh}) when the runtime's
   * `online` event fires.
   * @defaultValue `false`
   */
  refreshOnReconnect?: boolean;
}

/** The settings of a {@link Client}. */
export interface ClientOptions {
  /** An absolute `http:` or `https:` URL; trailing `/` are dropped. */
  baseUrl: string;
  /** The repository name (one path segment). */
  repository: string;
  /**
   * The API key (printable ASCII), sent as the `Authorization` header only:
   * never in a URL, a message, a log line or the offline cache.
   */
  apiKey: string;
  /**
   * A prefix of the `Authorization` header, such as `"Bearer "`.
   * @defaultValue `""` (the raw key)
   */
  authScheme?: string;
  /**
   * The time budget of one request in ms, every attempt and retry wait
   * included (each page of `all`, `pages`, `prefetch` and `refresh` is one
   * request; each call of the cache's storage has a budget of its own, of
   * the same length); `0` disables it. When it runs out the request rejects
   * with `timeout` and the pending `fetch` is aborted.
   * @defaultValue `30000`
   */
  timeoutMs?: number;
  /**
   * How many times a request is repeated after a network error or a 429,
   * 502, 503 or 504 response (never after another status, a timeout or an
   * abort by the caller). An integer from 0 to 100.
   * @defaultValue `3`
   */
  retries?: number;
  /**
   * The backoff before the first retry in ms, doubled for each later one,
   * with full jitter.
   * @defaultValue `250`
   */
  retryDelayMs?: number;
  /**
   * The longest wait before a retry in ms; caps both the backoff and the
   * server's `Retry-After`.
   * @defaultValue `30000`
   */
  maxRetryDelayMs?: number;
  /**
   * The `fetch` to call, e.g. to add logging, or for tests.
   * @defaultValue the global `fetch`, looked up at call time
   */
  fetch?: FetchFunction;
  /**
   * An offline cache: `true` for the defaults, or its options.
   * @defaultValue no cache (`client.cache` is `undefined`)
   */
  cache?: boolean | CacheOptions;
  /**
   * Called with what went wrong in the cache (`storage`: a failed load or
   * write, while a failed clear rejects `cache.clear()`; `decode`: a corrupt
   * stored entry, skipped, or a response the cache cannot record). Requests
   * are not failed by it.
   * @defaultValue `console.warn`
   */
  onCacheError?: (error: ContentRepoError) => void;
}

/** Options of one request. */
export interface RequestOptions {
  /**
   * Aborts the request and any retry wait: the call rejects with `aborted`.
   * Calls with a signal are never shared with identical pending calls.
   */
  signal?: AbortSignal;
}

/** Options of {@link Client.all}. */
export interface AllOptions extends RequestOptions {
  /**
   * The most pages it fetches; if the list has more, it rejects with
   * `invalid_argument` rather than return a partial list.
   * @defaultValue `100`
   */
  maxPages?: number;
}

/** How far a prefetch or refresh has come. */
export interface Progress {
  /** Documents received so far. */
  loaded: number;
  /** Documents in the list. */
  total: number;
}

/** Options of {@link Client.prefetch}. */
export interface PrefetchOptions extends RequestOptions {
  /**
   * The variant to fetch: its `locale`, `embedAssets` and `includes`; its
   * other parameters are ignored (whole documents are fetched).
   * @defaultValue the default variant
   */
  query?: QueryInput;
  /** Called after each page. */
  onProgress?: (progress: Progress) => void;
  /**
   * Documents per request, 1 to 1000.
   * @defaultValue `1000`
   */
  pageSize?: number;
  /**
   * The most pages it fetches; if the list has more, it rejects with
   * `invalid_argument` and records nothing as complete.
   * @defaultValue `200`
   */
  maxPages?: number;
}

/** Options of {@link Client.refresh}. */
export interface RefreshOptions extends RequestOptions {
  /**
   * The variant to refresh (its `locale`, `embedAssets` and `includes`), as
   * given to `prefetch`.
   * @defaultValue the default variant
   */
  query?: QueryInput;
  /** Called as the refresh proceeds. */
  onProgress?: (progress: Progress) => void;
}

/** What {@link Client.refresh} did. */
export interface RefreshResult {
  /** Documents that are new or have a newer `meta.revision`. */
  changed: number;
  /** Documents no longer in the list. */
  deleted: number;
  /** The list's size afterwards. */
  total: number;
}

/** The repository info (`GET /v1/{repo}`): the service's object as it is. */
export type RepositoryInfo = Record<string, unknown>;

/**
 * The pages of a list, one request each (from {@link Client.pages}):
 * `for await (const page of client.pages(...))`.
 */
export class Pages<F = Record<string, unknown>> implements AsyncIterableIterator<WithSource<ListResponse<F>>> {
  /** Made by {@link Client.pages}, not with `new`. */
  private constructor();
  /** The next page, then `{ done: true }` after the last one. */
  next(): Promise<IteratorResult<WithSource<ListResponse<F>>, undefined>>;
  /** Ends the iteration (`break` in `for await`). */
  return(): Promise<IteratorReturnResult<undefined>>;
  [Symbol.asyncIterator](): this;
}

/** `client.cache`: the offline cache of a {@link Client}. */
export class ClientCache {
  /** Read from {@link Client.cache}, not made with `new`. */
  private constructor();
  /** Resolves once the stored entries are loaded (requests do it first anyway); corrupt ones are skipped and reported. */
  ready(): Promise<void>;
  /** Empties the cache, in memory and in storage (call it when the user signs out). */
  clear(): Promise<void>;
  /**
   * Marks cached answers stale (for `endpoint`, or every one): the next call
   * for them asks the service under every policy but `cache-only`
   * (`stale-while-revalidate` still answers from the cache while it asks).
   */
  invalidate(endpoint?: EndpointSpec): void;
  /** How many documents are cached (after `ready()`), over every variant. */
  readonly size: number;
  /** The bytes of response text kept (after `ready()`). */
  readonly bytes: number;
  /** The policy in use. */
  readonly policy: CachePolicy;
}

/**
 * A client of one repository of the Content Repository Read API: a method for
 * every endpoint, each returning a promise, with timeouts, cancellation,
 * retries, typed errors ({@link ContentRepoError}) and an optional offline
 * cache. Every list and document it returns carries {@link SourceInfo}.
 *
 * The type parameter `F` of the document methods is the type of the
 * documents' `fields` (see {@link Document}).
 *
 * @example
 * ```ts
 * interface Post { title: string; slug: string }
 * const client = new Client({ baseUrl: "https://cms.example.com", repository: "blog", apiKey });
 * const posts = await client.collection<Post>("posts", new Query().sort("fields.title", "ASC"));
 * posts.data[0].fields.title; // string
 * ```
 */
export class Client {
  /** Throws `invalid_argument` for an invalid base URL, repository, API key or option. */
  constructor(options: ClientOptions);
  /** `GET /v1/{repo}/documents`: the list of all documents. */
  documents<F = Record<string, unknown>>(query?: QueryInput, options?: RequestOptions): Promise<WithSource<ListResponse<F>>>;
  /** `GET /v1/{repo}/collections/{apiId}`: the list of a collection. */
  collection<F = Record<string, unknown>>(
    apiId: string,
    query?: QueryInput,
    options?: RequestOptions,
  ): Promise<WithSource<ListResponse<F>>>;
  /** `GET /v1/{repo}/documents/{id}`: one document. */
  document<F = Record<string, unknown>>(id: string, query?: QueryInput, options?: RequestOptions): Promise<WithSource<Document<F>>>;
  /** `GET /v1/{repo}/alias/{apiId}`: the document behind an alias. */
  alias<F = Record<string, unknown>>(apiId: string, query?: QueryInput, options?: RequestOptions): Promise<WithSource<Document<F>>>;
  /** `GET /v1/{repo}/assets/{id}`: one asset. */
  asset<F = Record<string, unknown>>(id: string, query?: QueryInput, options?: RequestOptions): Promise<WithSource<Document<F>>>;
  /** `GET /v1/{repo}`: the repository info. */
  repository(options?: RequestOptions): Promise<WithSource<RepositoryInfo>>;
  /** `GET` any endpoint: the JSON body as it is (objects carry {@link SourceInfo}). */
  get(endpoint: EndpointSpec, query?: QueryInput, options?: RequestOptions): Promise<unknown>;
  /**
   * The pages of a list, one request each, from the query's `offset` in
   * steps of its `limit` (100 when unset), until `meta.total` is reached or a
   * page is short or empty. Throws `invalid_argument` for an endpoint that is
   * not a list.
   */
  pages<F = Record<string, unknown>>(endpoint: ListEndpointSpec, query?: QueryInput, options?: RequestOptions): Pages<F>;
  /**
   * Every page of a list collected into one list: `meta.count` (and
   * `meta.limit`) is the number of documents gathered, `meta.offset` the
   * query's, and `meta.total` where the list ended as read (`offset +
   * count`: the list's length, even when the service's `meta.total` said
   * more and its pages ended sooner). The first page's other keys are
   * kept, in its order, and the `includes` of every page are merged (each
   * linked document once, by content type and `meta.id`). Rejects with
   * `invalid_argument` when the list has more than `maxPages` pages.
   */
  all<F = Record<string, unknown>>(
    endpoint: ListEndpointSpec,
    query?: QueryInput,
    options?: AllOptions,
  ): Promise<WithSource<ListResponse<F>>>;
  /** The full URL of `endpoint` with the query's parameters; never holds the API key. */
  url(endpoint: EndpointSpec, query?: QueryInput): string;
  /**
   * Fetches every page of a list into the offline cache (whole documents, in
   * the variant of `options.query`), so that any sorting and selection of it
   * can be answered offline. Resolves to the final progress. Rejects with
   * `invalid_argument` without a cache.
   */
  prefetch(endpoint: ListEndpointSpec, options?: PrefetchOptions): Promise<Progress>;
  /**
   * Brings a prefetched list up to date, asking only for what changed since
   * (the README's "Refresh"). Rejects with `invalid_argument` without a cache.
   */
  refresh(endpoint: ListEndpointSpec, options?: RefreshOptions): Promise<RefreshResult>;
  /** The offline cache, or `undefined` for a client created without the `cache` option. */
  readonly cache: ClientCache | undefined;
  /** The base URL, without trailing `/`. */
  readonly baseUrl: string;
  /** The repository name. */
  readonly repositoryName: string;
  /** `Client(<baseUrl>/v1/<repository>)`: never the API key. */
  toString(): string;
}

// Only what is exported above is part of the package (`AnyCase` is not).
export {};
