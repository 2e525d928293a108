// A typed sample of the package's declarations, type-checked (never run) by
// tests/js/types.test.mjs with `tsc --strict` against the packed package:
// the generics give the caller's types, and every `@ts-expect-error` below
// must be an error (an unused one fails the check too).
import {
  Client,
  ClientCache,
  ContentRepoError,
  DocumentStore,
  Pages,
  Query,
  applyQuery,
  ready,
  selectFields,
  sortDocuments,
  wasmMemoryBytes,
  type CacheStorage,
  type Document,
  type ErrorCode,
  type ListResponse,
  type RefreshResult,
  type Source,
  type WithSource,
} from "content-repo";
import { init, type InitInput } from "content-repo/slim";
import wasmUrl from "content-repo/wasm";
// @ts-expect-error: init() belongs to content-repo/slim (the "." entry loads the module itself)
import { init as notInTheMainEntry } from "content-repo";

/** Whether `A` and `B` are the same type (not merely assignable: `any` is not `string`). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

interface Post {
  title: string;
  slug: string;
  views: number;
  author?: { name: string };
}

export async function generics(client: Client): Promise<void> {
  await ready();

  const list = await client.documents<Post>();
  const title = list.data[0].fields.title;
  const titleIsString: Equal<typeof title, string> = true;
  const source: Equal<typeof list.source, Source> = true;
  const stale: Equal<typeof list.stale, boolean> = true;
  const cachedAt: Equal<typeof list.cachedAt, number | undefined> = true;
  const total: Equal<typeof list.meta.total, number> = true;
  const typed: WithSource<ListResponse<Post>> = list;

  // Without a type argument, fields are unknown values.
  const loose = await client.collection("posts");
  const unknownField: Equal<(typeof loose.data)[0]["fields"]["title"], unknown> = true;

  // A selection: state what remains.
  const selected = await client.collection<Partial<Post>>("posts", new Query().fields("title"), {});
  const maybeTitle: Equal<(typeof selected.data)[0]["fields"]["title"], string | undefined> = true;

  const doc = await client.document<Post>("123", "fields=title", { signal: new AbortController().signal });
  const docViews: Equal<typeof doc.fields.views, number> = true;
  const docSource: Equal<typeof doc.source, Source> = true;
  const alias = await client.alias<Post>("home");
  const asset = await client.asset<{ url: string }>("9");
  const assetUrl: Equal<typeof asset.fields.url, string> = true;
  const info = await client.repository();
  const body: unknown = await client.get("documents", null);

  const pages = client.pages<Post>({ collection: "posts" }, new Query().limit(50));
  const pagesType: Pages<Post> = pages;
  for await (const page of pages) {
    const slug: Equal<(typeof page.data)[0]["fields"]["slug"], string> = true;
    const pageSource: Source = page.source;
  }
  const everything = await client.all<Post>("collections/posts", null, { maxPages: 3 });
  const everythingTitle: Equal<(typeof everything.data)[0]["fields"]["title"], string> = true;

  const url: string = client.url({ document: "1" }, new Query().locale("en_US"));
  // Every result of the client says where it came from.
  const allSource: Equal<typeof everything.source, Source> = true;
  const aliasSource: Equal<[typeof alias.source, typeof alias.stale], [Source, boolean]> = true;
  const assetSource: Equal<[typeof asset.source, typeof asset.stale], [Source, boolean]> = true;
  const infoSource: Equal<[typeof info.source, typeof info.stale], [Source, boolean]> = true;

  // The local functions keep the caller's types.
  const sorted = sortDocuments(list.data, new Query().sort("fields.views", -1).sort("meta.id", "asc"));
  const sortedType: Equal<typeof sorted, Document<Post>[]> = true;
  const one = selectFields(doc, "title");
  const oneType: Equal<typeof one, Document<Partial<Post>>> = true;
  const many = selectFields(list.data, "title");
  const manyType: Equal<typeof many, Document<Partial<Post>>[]> = true;
  const envelope = selectFields(list, "title");
  const envelopeType: Equal<typeof envelope, ListResponse<Partial<Post>>> = true;
  const page = applyQuery(list, new Query().limit(5));
  const pageType: Equal<typeof page, ListResponse<Post>> = true;
  const projected = applyQuery<Partial<Post>>(list.data, "fields=title");
  const projectedType: Equal<typeof projected, ListResponse<Partial<Post>>> = true;

  const store = new DocumentStore();
  const written: number = store.put(list) + store.put(list.data) + store.put(doc) + store.putJson("[]");
  const stored = store.get<Post>("1");
  const storedTitle: Equal<NonNullable<typeof stored>["fields"]["title"], string> = true;
  const answer = store.query<Post>(new Query().sort("fields.title", "DESC"), { contentType: "post" });
  const answerTitle: Equal<(typeof answer.data)[0]["fields"]["title"], string> = true;
  const deleted: boolean = store.delete("1");
  const size: number = store.size;
  store.clear();

  // Setters return the query itself.
  const query = new Query();
  const chained: Query = query.limit(5).offset(10).locale(null).includes(["fields.author"]).embedAssets().search("x");
  const filtered = query.filter({ field: "fields.slug", op: "equal", value: "x", join: "or", contentType: "*" });
  const sorting: "ASC" | "DESC" = query.sorting[0].direction;
  const limitValue: number | undefined = query.limitValue;
  const same: boolean = Query.parse(query.toString()).equals(query.clone());

  const bytes: number = wasmMemoryBytes();
}

/** The optional arguments are optional: each call with the required ones only. */
export async function fewest(client: Client, list: ListResponse<Post>): Promise<void> {
  const doc: Document<Post> = await client.document<Post>("1");
  const raw: unknown = await client.get("documents");
  const pages: Pages<Post> = client.pages<Post>({ collection: "posts" });
  const all: ListResponse<Post> = await client.all<Post>("collections/posts");
  const url: string = client.url({ document: "1" });
  const sorted: Document<Post>[] = sortDocuments(list.data);
  const page: ListResponse<Post> = applyQuery(list);
  const pageOfArray: ListResponse<Post> = applyQuery(list.data);
  const answer: ListResponse = new DocumentStore().query();
  const error = new ContentRepoError("network", "offline");
  const prefetched = await client.prefetch({ collection: "posts" });
  const refreshed = await client.refresh({ collection: "posts" });
  // And the options the README names are declared.
  await client.prefetch({ collection: "posts" }, { maxPages: 3 });
  new DocumentStore().query(null, { contentType: "post" });
  const eachStorage: CacheStorage = {
    load: async () => [],
    loadEach: async (onEntry) => onEntry("key", new Uint8Array(0)),
    write: async () => {},
    clear: async () => {},
  };
}

export async function offline(): Promise<void> {
  const storage: CacheStorage = {
    load: async () => [["key", "text"]],
    write: async (puts, deletes) => {},
    clear: async () => {},
  };
  const client = new Client({
    baseUrl: "https://cms.example.com",
    repository: "blog",
    apiKey: "key",
    authScheme: "Bearer ",
    timeoutMs: 10_000,
    retries: 2,
    retryDelayMs: 100,
    maxRetryDelayMs: 5_000,
    fetch: (url, init) => fetch(url, init),
    cache: { storage, policy: "stale-while-revalidate", maxAgeMs: 60_000, networkTimeoutMs: 500, maxBytes: 1e7, refreshOnReconnect: true },
    onCacheError: (error) => {
      const code: ErrorCode = error.code;
    },
  });
  new Client({ baseUrl: "x", repository: "r", apiKey: "k", fetch, cache: true });
  new Client({
    baseUrl: "x",
    repository: "r",
    apiKey: "k",
    fetch: async () => ({ status: 200, headers: { get: () => null }, text: async () => "{}" }),
  });

  const cache = client.cache;
  if (cache) {
    const cacheType: ClientCache = cache;
    await cache.ready();
    cache.invalidate({ collection: "posts" });
    cache.invalidate();
    const counts: number = cache.size + cache.bytes;
    const policy: "network-first" | "cache-first" | "stale-while-revalidate" | "cache-only" = cache.policy;
    await cache.clear();
  }
  const progress = await client.prefetch({ collection: "posts" }, { query: new Query().locale("de"), pageSize: 500, onProgress: ({ loaded, total }) => {} });
  const loaded: number = progress.loaded;
  const refreshed = await client.refresh("collections/posts", { onProgress: ({ loaded, total }) => {}, signal: AbortSignal.timeout(1000) });
  const refreshedType: Equal<typeof refreshed, RefreshResult> = true;
  const changed: number = refreshed.changed + refreshed.deleted + refreshed.total;
  const where: string = `${client.baseUrl}/v1/${client.repositoryName} ${client.toString()}`;
}

export function errors(error: unknown): void {
  if (error instanceof ContentRepoError) {
    const code: ErrorCode = error.code;
    const name: "ContentRepoError" = error.name;
    const position: number | undefined = error.position;
    const details: [string | undefined, number | undefined, string | undefined] = [error.expected, error.status, error.excerpt];
    const message: string = error.message;
  }
  const made = new ContentRepoError("http", "HTTP 404", { status: 404 });
}

export async function slim(): Promise<void> {
  const input: InitInput = new URL(wasmUrl, import.meta.url);
  await init(input);
  await init(fetch(wasmUrl));
  await init();
  await init("/content_repo_bg.wasm");
  await init(new Response(new Uint8Array(0)));
  await init(new ArrayBuffer(8));
  await init(new Uint8Array(8));
  await init(new WebAssembly.Module(new Uint8Array(8)));
  // @ts-expect-error: not something a module is loaded from
  await init(42);
  // @ts-expect-error: nor this
  await init(true);
}

export async function mistakes(client: Client, doc: Document<Post>): Promise<void> {
  // @ts-expect-error: an unknown option
  new Client({ baseUrl: "x", repository: "r", apiKey: "k", timeout: 5 });
  // @ts-expect-error: apiKey is required
  new Client({ baseUrl: "x", repository: "r" });
  // @ts-expect-error: not a cache policy
  new Client({ baseUrl: "x", repository: "r", apiKey: "k", cache: { policy: "cache-last" } });
  // @ts-expect-error: not a storage
  new Client({ baseUrl: "x", repository: "r", apiKey: "k", cache: { storage: "localstorage" } });
  // @ts-expect-error: not a sort direction
  new Query().sort("fields.title", "up");
  // @ts-expect-error: not a sort direction either
  new Query().sort("fields.title", 0);
  // @ts-expect-error: embedAssets takes a boolean: `undefined` counts as omitted, which sets it
  new Query().embedAssets(undefined as boolean | undefined);
  // @ts-expect-error: a sort key needs its scope (fields.title)
  new Query().sort("title", "ASC");
  // @ts-expect-error: a filter joins with "and" or "or"
  new Query().filter({ field: "fields.slug", op: "equal", value: "x", join: "xor" });
  // @ts-expect-error: the fields are typed
  const views: string = doc.fields.views;
  // @ts-expect-error: an unknown option (pageSize)
  await client.prefetch({ collection: "posts" }, { pagesize: 10 });
  // @ts-expect-error: pages need a list endpoint
  client.pages({ document: "1" });
  // @ts-expect-error: maxPages is an option of all(), not of pages()
  client.pages("documents", null, { maxPages: 2 });
  // @ts-expect-error: cache may be undefined (a client without the cache option)
  client.cache.size;
  // @ts-expect-error: free() is not part of the API (the garbage collector releases objects)
  new Query().free();
  // @ts-expect-error: pages are made by client.pages()
  new Pages();
  // @ts-expect-error: a store's query has one option (contentType)
  new DocumentStore().query(null, { contentTyp: "post" });
  // @ts-expect-error: not a prefetch option (maxPages is)
  await client.prefetch({ collection: "posts" }, { maxPage: 3 });
  // @ts-expect-error: source is read-only
  (await client.documents()).source = "cache";
}
