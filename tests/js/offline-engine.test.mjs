// The offline cache as the indexed store (issue 10), in Node against the
// fixture server: offline answers equal the online ones over several locales
// and equal a DocumentStore's over the same documents; variants never evict
// each other; maxBytes and a full storage evict whole lists consistently;
// network-first answers from the cache at once when offline or unreachable,
// and after networkTimeoutMs when slow.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../www/server.mjs";
import { mulberry32 } from "../../www/fixtures.mjs";

const sdk = await import("../../pkg/node/index.js");
await sdk.ready();
const apiKey = "engine-test-key-55";
let server;
let base;

before(async () => {
  server = await startServer({ port: 0, apiKey, control: true });
  base = server.url.replace(/\/$/, "");
});
after(() => server.close());
beforeEach(() => server.mutate({ reset: true }));

class Storage {
  constructor() {
    this.entries = new Map();
    this.full = false;
  }
  async load() {
    return [...this.entries];
  }
  async write(puts, deletes) {
    if (this.full && puts.length > 0) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    for (const key of deletes) this.entries.delete(key);
    for (const [key, value] of puts) this.entries.set(key, value);
  }
  async clear() {
    this.entries.clear();
  }
  chars() {
    let total = 0;
    for (const [key, value] of this.entries) total += key.length + value.length;
    return total;
  }
}

const client = (cache, extra = {}) => new sdk.Client({ baseUrl: base, repository: "demo", apiKey, retries: 0, cache, ...extra });
const online = async (path) => {
  const response = await fetch(`${base}/v1/demo/${path}`, { headers: { Authorization: apiKey } });
  assert.equal(response.status, 200, path);
  return response.text();
};

function queries(count, seed) {
  const next = mulberry32(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const KEYS = ["fields.title", "fields.rating", "fields.publishedAt", "fields.category", "fields.extra", "fields.location", "fields.keywords", "meta.createdAt", "meta.id"];
  const ITEMS = ["title", "rating", "body/plain", "author", "meta(id,createdAt)", "extra", "keywords", "location", "*", "meta"];
  return Array.from({ length: count }, () => {
    const params = new URLSearchParams();
    for (const key of new Set(Array.from({ length: Math.floor(next() * 4) }, () => pick(KEYS)))) params.append(`sorting[${key}]`, pick(["ASC", "DESC"]));
    if (next() < 0.9) params.set("fields", Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(ITEMS)).join(","));
    if (next() < 0.8) params.set("limit", String(1 + Math.floor(next() * 60)));
    if (next() < 0.5) params.set("offset", String(Math.floor(next() * 130)));
    return params.toString();
  });
}

test("offline answers equal the online ones over several locales, and a DocumentStore's over the same documents", async () => {
  const storage = new Storage();
  const c = client({ storage });
  const locales = [null, "de", "fr_FR"];
  const stores = new Map();
  for (const locale of locales) {
    const query = locale ? new sdk.Query().locale(locale) : undefined;
    await c.prefetch({ collection: "articles" }, { query, pageSize: 40 });
    const store = new sdk.DocumentStore();
    store.putJson(await online(`collections/articles?limit=1000${locale ? `&locale=${locale}` : ""}`));
    stores.set(locale, store);
  }
  // Received bytes are kept once.
  const received = [...storage.entries.values()].reduce((sum, value) => sum + value.length, 0);
  assert.ok(c.cache.bytes <= received && c.cache.bytes > received * 0.9, `${c.cache.bytes} of ${received}`);
  const offline = client({ storage, policy: "cache-only" });
  let compared = 0;
  for (const text of queries(40, 3)) {
    for (const locale of locales) {
      const query = locale ? `${text}&locale=${locale}` : text;
      const expected = JSON.parse(await online(`collections/articles?${query}`));
      const actual = await offline.collection("articles", query);
      assert.equal(actual.source, "cache", query);
      assert.deepEqual({ data: actual.data, meta: actual.meta }, { data: expected.data, meta: expected.meta }, query);
      const stored = stores.get(locale).query(text);
      assert.deepEqual(stored, { data: actual.data, meta: actual.meta }, `store: ${query}`);
      compared++;
    }
  }
  assert.equal(compared, 120);
  // One document per locale, never another locale's.
  const [first] = server.snapshot().collections.articles;
  const de = await offline.document(first.meta.id, "locale=de");
  const plain = await offline.document(first.meta.id);
  assert.equal(de.meta.locale, "de");
  assert.equal(plain.meta.locale, undefined);
  await assert.rejects(offline.document(first.meta.id, "locale=it"), (e) => e.code === "not_cached");
  for (const store of stores.values()) store.free();
});

test("maxBytes evicts the least recently used lists whole, in memory and in storage", async () => {
  const storage = new Storage();
  const probe = client({ storage: new Storage() });
  await probe.prefetch({ collection: "authors" });
  const authorsBytes = probe.cache.bytes;
  const c = client({ storage, maxBytes: authorsBytes * 3 });
  await c.prefetch({ collection: "authors" });
  await c.prefetch({ collection: "authors" }, { query: "locale=de" });
  await c.prefetch({ collection: "authors" }, { query: "locale=fr" });
  // de is used after fr was fetched: fr is now the least recently used but one.
  const used = client({ storage, policy: "cache-first" });
  assert.equal((await used.collection("authors", "sorting%5Bfields.name%5D=ASC&limit=3&locale=de")).source, "cache");
  await c.collection("authors", "sorting%5Bfields.name%5D=ASC&limit=3&locale=de");
  await c.prefetch({ collection: "authors" }, { query: "locale=it" });
  assert.ok(c.cache.bytes <= authorsBytes * 3 + 1000, `${c.cache.bytes} > ${authorsBytes * 3}`);
  const offline = client({ storage, policy: "cache-only" });
  await assert.rejects(offline.collection("authors", "limit=3"), (e) => e.code === "not_cached", "the oldest list went");
  assert.equal((await offline.collection("authors", "sorting%5Bfields.name%5D=DESC&limit=3&locale=de")).source, "cache");
  assert.equal((await offline.collection("authors", "limit=3&locale=it")).source, "cache");
  assert.ok(storage.chars() < authorsBytes * 3 + 5000, "storage agrees with memory");
});

test("a full storage evicts whole lists, is reported as storage, and memory stays what storage holds", async () => {
  const storage = new Storage();
  const reports = [];
  const c = client({ storage }, { onCacheError: (e) => reports.push(e) });
  await c.prefetch({ collection: "authors" });
  await c.prefetch({ collection: "articles" });
  await c.collection("articles", "limit=2");
  const charsBefore = storage.chars();
  storage.full = true;
  await assert.rejects(c.prefetch({ collection: "products" }), (e) => e.code === "storage");
  assert.ok(reports.some((e) => e.code === "storage" && /quota/i.test(e.message)));
  storage.full = false;
  // Memory and storage agree: a reload answers exactly what this client answers.
  const reloaded = client({ storage, policy: "cache-only" });
  await reloaded.cache.ready();
  assert.equal(reloaded.cache.size, c.cache.size);
  for (const name of ["authors", "articles", "products"]) {
    const a = await c.collection(name, "limit=3").then((r) => r.source, (e) => e.code);
    const b = await reloaded.collection(name, "limit=3").then((r) => r.source, (e) => e.code);
    assert.equal(b === "cache" || b === "not_cached", true);
    if (a === "cache") assert.equal(b, "cache", name);
  }
  // The full storage made room: whole lists were evicted, from storage too.
  assert.ok(storage.chars() < charsBefore, `${storage.chars()} >= ${charsBefore}`);
});

test("network-first answers from the cache at once when the network is unreachable or the runtime is offline", async () => {
  const storage = new Storage();
  await client({ storage }).prefetch({ collection: "authors" });
  let calls = 0;
  const unreachable = async () => {
    calls++;
    throw new TypeError("fetch failed");
  };
  const c = client({ storage }, { fetch: unreachable, retries: 5, retryDelayMs: 1000 });
  const started = Date.now();
  const answer = await c.collection("authors", "sorting%5Bfields.name%5D=ASC&limit=5");
  assert.equal(answer.source, "cache");
  assert.equal(answer.stale, true);
  assert.equal(calls, 1, "no retries for an unreachable network when the cache answers");
  assert.ok(Date.now() - started < 900, `${Date.now() - started} ms`);
  // Nothing cached: the retries still happen (and end in not_cached).
  calls = 0;
  await assert.rejects(c.collection("products", "limit=1"), (e) => e.code === "not_cached");
  // The runtime says it is offline: no request at all.
  const previous = Object.getOwnPropertyDescriptor(globalThis, "navigator");
  Object.defineProperty(globalThis, "navigator", { value: { onLine: false }, configurable: true });
  try {
    calls = 0;
    const offline = client({ storage }, { fetch: unreachable });
    const again = await offline.collection("authors", "limit=5");
    assert.equal(again.source, "cache");
    assert.equal(calls, 0);
  } finally {
    if (previous) Object.defineProperty(globalThis, "navigator", previous);
    else delete globalThis.navigator;
  }
});

test("networkTimeoutMs answers from the cache when the network is slow, and the late answer updates the cache", async () => {
  const storage = new Storage();
  await client({ storage }).prefetch({ collection: "authors" });
  const [author] = server.snapshot().collections.authors;
  server.mutate({ update: [{ id: author.meta.id, fields: { name: "Renamed" } }] });
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const slow = async (url, init) => {
    await gate;
    return fetch(url, init);
  };
  const c = client({ storage, networkTimeoutMs: 100 }, { fetch: slow });
  const started = Date.now();
  const answer = await c.document(author.meta.id);
  assert.equal(answer.source, "cache");
  assert.equal(answer.stale, true);
  assert.notEqual(answer.fields.name, "Renamed");
  assert.ok(Date.now() - started < 2000);
  release();
  // The request goes on and records the newer revision.
  for (let i = 0; i < 50 && (await client({ storage, policy: "cache-only" }).document(author.meta.id)).fields.name !== "Renamed"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal((await client({ storage, policy: "cache-only" }).document(author.meta.id)).fields.name, "Renamed");
});
