// Issue 14: an error in the middle of any public method leaves the object
// (and the module) usable, with nothing half-written: every method of every
// class, driven into an error part-way, then used again.
import { test } from "node:test";
import assert from "node:assert/strict";

const sdk = await import("../../pkg/node/index.js");
await sdk.ready();
const { Client, Query, DocumentStore, ContentRepoError, sortDocuments, selectFields, applyQuery } = sdk;

const doc = (id, n) => ({ fields: { n, title: `t${id}` }, meta: { id: String(id), revision: 1, createdAt: `2024-01-0${id}T00:00:00Z` } });
const typed = (code) => (error) => error instanceof ContentRepoError && error.code === code;
/** A value whose serialization throws part-way through a list. */
const poisoned = () => ({ fields: { get n() { throw new Error("getter"); } }, meta: { id: "9" } });

test("DocumentStore: every write and query fails whole, and the store works after", () => {
  const store = new DocumentStore();
  store.put([doc(1, 1), doc(2, 2)]);
  const before = JSON.stringify(store.query(new Query().sort("fields.n", "ASC")));
  // A list whose last document is bad: nothing of it is stored.
  assert.throws(() => store.putJson(JSON.stringify({ data: [doc(3, 3), { meta: {} }] })), typed("decode"));
  assert.throws(() => store.putJson(`{"data":[${JSON.stringify(doc(3, 3))},`), typed("decode"));
  assert.throws(() => store.put([doc(3, 3), poisoned()]), typed("invalid_argument"));
  assert.throws(() => store.put([doc(3, 3), 7]), typed("invalid_argument"));
  assert.throws(() => store.query("sorting%5Bfields.n%5D=UP"), typed("invalid_sort"));
  assert.throws(() => store.query("fields=a(("), typed("invalid_selection"));
  assert.throws(() => store.query(new Query(), { contentType: 5 }), typed("invalid_argument"));
  assert.throws(() => store.get(5), typed("invalid_argument"));
  assert.throws(() => store.delete({}), typed("invalid_argument"));
  const freed = new Query().sort("fields.n", "DESC");
  freed.free();
  assert.throws(() => store.query(freed), typed("invalid_argument"));
  assert.equal(store.size, 2);
  assert.equal(JSON.stringify(store.query(new Query().sort("fields.n", "ASC"))), before);
  store.put([doc(3, 3)]);
  assert.equal(store.query(new Query().sort("fields.n", "DESC").limit(1)).data[0].meta.id, "3");
});

test("Query: a setter that fails changes nothing", () => {
  const query = new Query().sort("fields.a", "ASC").fields("title").limit(5).locale("de");
  const before = query.toString();
  const attempts = [
    () => query.sort("fields.b", "sideways"),
    () => query.sort("title", "ASC"),
    () => query.fields("a,,b"),
    () => query.limit(0),
    () => query.limit(1001),
    () => query.offset(-1),
    () => query.locale(""),
    () => query.search(""),
    () => query.includes(9),
    () => query.filter({ field: "nope", op: "equal", value: "x" }),
    () => query.includeTags([1]),
  ];
  for (const attempt of attempts) {
    assert.throws(attempt, (e) => e instanceof ContentRepoError, String(attempt));
    assert.equal(query.toString(), before, String(attempt));
  }
  for (let i = 0; i < 31; i++) query.sort(`fields.k${i}`, "ASC");
  assert.throws(() => query.sort("fields.one-too-many", "ASC"), typed("invalid_sort"));
  assert.equal(query.sorting.length, 32);
  assert.equal(Query.parse(query.toString()).toString(), query.toString());
});

test("the functions on JavaScript values fail whole and the module works after", () => {
  const docs = [doc(1, 2), doc(2, 1)];
  assert.throws(() => sortDocuments([...docs, poisoned()], new Query().sort("fields.n", "ASC")), typed("invalid_argument"));
  assert.throws(() => selectFields([...docs, poisoned()], "n"), typed("invalid_argument"));
  assert.throws(() => applyQuery([...docs, 3], new Query()), typed("invalid_argument"));
  const cyclic = doc(3, 3);
  cyclic.fields.self = cyclic;
  assert.throws(() => applyQuery([...docs, cyclic], new Query()), typed("invalid_argument"));
  assert.deepEqual(sortDocuments(docs, new Query().sort("fields.n", "ASC")).map((d) => d.meta.id), ["2", "1"]);
  assert.deepEqual(selectFields(docs, "n").map((d) => d.fields), [{ n: 2 }, { n: 1 }]);
});

test("Client: a failure part-way through pages, prefetch and callbacks leaves the client working", async () => {
  const page = (offset, total) => JSON.stringify({
    data: Array.from({ length: Math.min(2, total - offset) }, (_, i) => doc(offset + i + 1, offset + i)),
    meta: { total, offset, limit: 2 },
  });
  let failAt = 2;
  const fetch = async (url) => {
    const offset = Number(new URL(url).searchParams.get("offset") ?? 0);
    if (offset === failAt) throw new TypeError("the network went away");
    return new Response(page(offset, 6));
  };
  const reports = [];
  const client = new Client({
    baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: "midway-test-key", retries: 0, fetch,
    cache: { storage: "memory" },
    onCacheError: (error) => {
      reports.push(error);
      throw new Error("a throwing onCacheError");
    },
  });
  // The cache cannot answer either: not_cached, naming the network's failure.
  await assert.rejects(client.all("documents", "limit=2"), (e) => typed("not_cached")(e) && /went away/.test(e.message));
  await assert.rejects(client.prefetch("documents", { pageSize: 2, onProgress: () => { throw new Error("progress"); } }), typed("network"));
  // Nothing was recorded as complete: there is no list to refresh.
  await assert.rejects(client.refresh("documents"), typed("not_cached"));
  failAt = -1;
  const all = await client.all("documents", "limit=2");
  assert.equal(all.data.length, 6);
  const progress = [];
  const done = await client.prefetch("documents", { pageSize: 2, onProgress: (p) => { progress.push(p); throw new Error("ignored"); } });
  assert.deepEqual(done, { loaded: 6, total: 6 });
  assert.equal(progress.length, 3);
  const iterator = client.pages("documents", "limit=2");
  failAt = 4;
  assert.equal((await iterator.next()).done, false);
  assert.equal((await iterator.next()).done, false);
  // The list is complete in the cache now: a failed page comes from it.
  const third = await iterator.next();
  assert.equal(third.value.source, "cache");
  assert.equal(third.value.stale, true);
  assert.deepEqual(third.value.data.map((d) => d.meta.id), ["2", "1"]);
  failAt = -1;
  assert.equal((await client.documents("limit=2")).data.length, 2);
});

test("ClientCache: a storage failing part-way leaves memory and storage consistent", async () => {
  let failing = false;
  const entries = new Map();
  const storage = {
    async load() { return [...entries]; },
    async write(puts, deletes) {
      if (failing) throw new DOMException("full", "QuotaExceededError");
      for (const key of deletes) entries.delete(key);
      for (const [key, value] of puts) entries.set(key, value);
    },
    async clear() {
      if (failing) throw new Error("clear failed");
      entries.clear();
    },
  };
  const list = JSON.stringify({ data: [doc(1, 1), doc(2, 2)], meta: { total: 2 } });
  const reports = [];
  const client = new Client({
    baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: "midway-test-key", retries: 0,
    fetch: async () => new Response(list), cache: { storage }, onCacheError: (e) => reports.push(e),
  });
  failing = true;
  assert.equal((await client.documents()).source, "network");
  assert.equal(reports.at(-1).code, "storage");
  assert.equal(client.cache.size, 0, "nothing applied that was not written");
  await assert.rejects(client.cache.clear(), typed("storage"));
  failing = false;
  await client.documents();
  assert.equal(client.cache.size, 2);
  const reloaded = new Client({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: "midway-test-key", cache: { storage, policy: "cache-only" } });
  assert.equal((await reloaded.documents()).data.length, 2);
});
