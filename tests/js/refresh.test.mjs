// Delta refresh (SPEC §6, `client.refresh`) and staleness (`invalidate`,
// `cachedAt`) in Node against the fixture server, whose documents the tests
// change, add and delete while it runs.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../www/server.mjs";
import { mulberry32 } from "../../www/fixtures.mjs";

const sdk = await import("../../pkg/node/index.js");
await sdk.ready();
const apiKey = "refresh-test-key-7";
let server;
let base;

/** Entries in memory, shared by the clients of one test (like one IndexedDB). */
class SharedStorage {
  constructor() {
    this.entries = new Map();
    this.writes = 0;
  }
  /** Writes that store something (a write that only removes unused texts is not one). */
  async load() {
    return [...this.entries];
  }
  async write(puts, deletes) {
    if (puts.length > 0) this.writes++;
    for (const key of deletes) this.entries.delete(key);
    for (const [key, value] of puts) this.entries.set(key, value);
  }
  async clear() {
    this.entries.clear();
  }
}

const client = (cache) => new sdk.Client({ baseUrl: base, repository: "demo", apiKey, retries: 0, cache });
const online = async (path) => {
  const response = await fetch(`${base}/v1/demo/${path}`, { headers: { Authorization: apiKey } });
  assert.equal(response.status, 200, path);
  return response.json();
};
/** Bytes the server sent for /v1 requests since the last call. */
const traffic = () => server.resetTraffic().bytes;

before(async () => {
  server = await startServer({ port: 0, apiKey, control: true });
  base = server.url.replace(/\/$/, "");
});
after(() => server.close());
beforeEach(() => {
  server.mutate({ reset: true });
  server.resetTraffic();
});

/** `count` generated article queries: 0-3 sort keys, a selection, a page. */
function articleQueries(count, seed) {
  const next = mulberry32(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const KEYS = ["fields.title", "fields.rating", "fields.publishedAt", "fields.category", "fields.extra", "fields.location", "meta.updatedAt", "meta.revision", "meta.id"];
  const ITEMS = ["title", "rating", "body/plain", "author", "meta(id,revision,updatedAt)", "extra", "keywords", "*", "meta"];
  return Array.from({ length: count }, () => {
    const params = new URLSearchParams();
    const keys = new Set(Array.from({ length: Math.floor(next() * 4) }, () => pick(KEYS)));
    for (const key of keys) params.append(`sorting[${key}]`, pick(["ASC", "DESC"]));
    params.set("fields", Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(ITEMS)).join(","));
    params.set("limit", String(1 + Math.floor(next() * 60)));
    if (next() < 0.5) params.set("offset", String(Math.floor(next() * 130)));
    return params.toString();
  });
}

/** Changes 10, deletes 5, adds 3 articles; returns the ids involved. */
function change(seed = 0) {
  const articles = server.snapshot().collections.articles;
  const updated = articles.slice(seed, seed + 10).map((d) => d.meta.id);
  const deleted = articles.slice(seed + 10, seed + 15).map((d) => d.meta.id);
  const result = server.mutate({
    update: updated.map((id, i) => ({ id, fields: { title: `changed ${seed}-${i}` } })),
    add: [0, 1, 2].map((i) => ({ contentType: "article", fields: { title: `new ${seed}-${i}` } })),
    delete: deleted,
  });
  return { updated, deleted, added: result.added.map((d) => d.meta.id) };
}

async function sameAsServer(offline, path, queries, extra = "") {
  for (const text of queries) {
    const query = extra ? `${text}&${extra}` : text;
    const expected = await online(`${path}?${query}`);
    const actual = path === "documents" ? await offline.documents(query) : await offline.collection(path.split("/")[1], query);
    assert.equal(actual.source, "cache", query);
    assert.deepEqual({ data: actual.data, meta: actual.meta }, { data: expected.data, meta: expected.meta }, query);
  }
}

test("refresh counts changes, additions and deletions, for a small share of a prefetch's traffic", async () => {
  const storage = new SharedStorage();
  const c = client({ storage });
  const total = server.snapshot().collections.articles.length;
  await c.prefetch({ collection: "articles" }, { pageSize: 50 });
  const prefetchBytes = traffic();
  // Nothing changed: nothing to count, little to send.
  assert.deepEqual(await c.refresh({ collection: "articles" }), { changed: 0, deleted: 0, total });
  const idleBytes = traffic();
  assert.ok(idleBytes < prefetchBytes * 0.3, `${idleBytes} vs ${prefetchBytes}`);
  const { deleted } = change();
  const writes = storage.writes;
  const progress = [];
  const counts = await c.refresh({ collection: "articles" }, { onProgress: (p) => progress.push(p) });
  assert.deepEqual(counts, { changed: 13, deleted: 5, total: total - 5 + 3 });
  assert.ok(progress.length >= 1 && progress.at(-1).loaded === total - 2, JSON.stringify(progress));
  assert.equal(storage.writes - writes, 1, "everything it stores, in one all-or-nothing write");
  const refreshBytes = traffic();
  assert.ok(refreshBytes < prefetchBytes * 0.3, `${refreshBytes} vs ${prefetchBytes}`);
  // Offline answers equal the server's new state.
  const offline = client({ storage, policy: "cache-only" });
  await sameAsServer(offline, "collections/articles", articleQueries(40, 7));
  await sameAsServer(offline, "collections/articles", ["sorting%5Bmeta.updatedAt%5D=DESC&limit=20", "limit=1000&fields=meta(id,revision)"]);
  // Deleted documents are no longer served offline.
  for (const id of deleted) {
    await assert.rejects(offline.document(id), (e) => e.code === "not_cached", id);
  }
});

test("refresh works after a reload, from stored state, and again", async () => {
  const storage = new SharedStorage();
  await client({ storage }).prefetch({ collection: "articles" });
  change(0);
  const reloaded = client({ storage });
  const first = await reloaded.refresh({ collection: "articles" });
  assert.equal(first.changed, 13);
  assert.equal(first.deleted, 5);
  change(20);
  const again = client({ storage });
  const second = await again.refresh("collections/articles");
  assert.deepEqual([second.changed, second.deleted], [13, 5]);
  const offline = client({ storage, policy: "cache-only" });
  await sameAsServer(offline, "collections/articles", ["sorting%5Bfields.title%5D=ASC&limit=100", "sorting%5Bmeta.id%5D=DESC&limit=1000&fields=title"]);
});

test("a change whose updatedAt did not move is found by the revision sweep", async () => {
  const storage = new SharedStorage();
  const c = client({ storage });
  await c.prefetch({ collection: "articles" });
  const [doc] = server.snapshot().collections.articles;
  // Same updatedAt as before (a clock that did not move), a newer revision.
  server.mutate({ update: [{ id: doc.meta.id, fields: { title: "quiet change" }, updatedAt: "2000-01-01T00:00:00.000Z" }] });
  const counts = await c.refresh({ collection: "articles" });
  assert.equal(counts.changed, 1);
  const offline = client({ storage, policy: "cache-only" });
  assert.equal((await offline.document(doc.meta.id)).fields.title, "quiet change");
});

test("refresh is per variant: a locale refreshes its own documents", async () => {
  const storage = new SharedStorage();
  const c = client({ storage });
  const de = new sdk.Query().locale("de");
  await c.prefetch({ collection: "articles" });
  await c.prefetch({ collection: "articles" }, { query: de });
  change();
  const counts = await c.refresh({ collection: "articles" }, { query: de });
  assert.deepEqual([counts.changed, counts.deleted], [13, 5]);
  const offline = client({ storage, policy: "cache-only" });
  await sameAsServer(offline, "collections/articles", ["sorting%5Bfields.title%5D=ASC&limit=50&fields=title"], "locale=de");
  // The default locale was not refreshed: still the old answer, not the new one.
  const old = await offline.collection("articles", "limit=1000");
  assert.equal(old.data.length, server.snapshot().collections.articles.length + 5 - 3);
});

test("a refresh does not delete a document that a response arriving after its sweep holds", async () => {
  // The sweep reads the list without Y (as if Y had been unpublished then);
  // Y is published again and a list call records it while the refresh still
  // fetches Z by id; the refresh then ends. Y arrived after the sweep: it is
  // newer than the deletion the sweep saw, and stays (the refresh deleted it).
  const storage = new SharedStorage();
  const { authors } = server.snapshot().collections;
  const [Y, Z] = [authors[5].meta.id, authors[7].meta.id];
  let hold, held, sweeps = 0;
  let down = false;
  const fetch = async (url, init) => {
    if (down) throw new TypeError("fetch failed");
    const text = decodeURIComponent(url);
    if (hold !== undefined && text.includes(Z) && !text.includes("fields=meta(id,revision)")) {
      held();
      await hold;
    }
    const response = await globalThis.fetch(url, init);
    if (!text.includes("fields=meta(id,revision)") || hold === undefined) return response;
    sweeps++;
    const body = await response.json();
    body.data = body.data.filter((d) => d.meta.id !== Y);
    body.meta.total = body.meta.count = body.data.length;
    return new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });
  };
  const c = new sdk.Client({ baseUrl: base, repository: "demo", apiKey, retries: 0, fetch, cache: { storage } });
  await c.prefetch({ collection: "authors" });
  // Z changes without its updatedAt moving: the sweep finds it, and the refresh asks for it by id.
  server.mutate({ update: [{ id: Z, fields: { name: "Z2" }, updatedAt: "2000-01-01T00:00:00.000Z" }] });
  let release;
  const fetching = new Promise((resolve) => (held = resolve));
  hold = new Promise((resolve) => (release = resolve));
  const refreshing = c.refresh({ collection: "authors" });
  await fetching;
  assert.equal(sweeps, 1, "the sweep arrived before the fetch by id");
  hold = undefined;
  server.mutate({ update: [{ id: Y, fields: { name: "Y again" } }] });
  const revision = server.snapshot().collections.authors.find((d) => d.meta.id === Y).meta.revision;
  const page = await c.collection("authors", new sdk.Query().sort("meta.updatedAt", "DESC").limit(5));
  assert.equal(page.data.find((d) => d.meta.id === Y)?.meta.revision, revision, "Y recorded after the sweep");
  release();
  const counts = await refreshing;
  // Y left the list (the sweep's), and stays in the cache.
  assert.deepEqual([counts.changed, counts.deleted, counts.total], [1, 1, authors.length - 1]);
  down = true;
  const reloaded = client({ storage, policy: "cache-only" });
  for (const [name, at] of [["memory", c], ["reload", reloaded]]) {
    const doc = await at.document(Y);
    assert.deepEqual([doc.source, doc.meta.revision, doc.fields.name], ["cache", revision, "Y again"], name);
  }
});

test("refresh needs a prefetched list", async () => {
  const c = client({ storage: "memory" });
  await assert.rejects(c.refresh({ collection: "articles" }), (e) => e.code === "not_cached" && /prefetch/.test(e.message));
  await assert.rejects(client(undefined).refresh({ collection: "articles" }), (e) => e.code === "invalid_argument");
  await assert.rejects(c.refresh({ document: "1" }), (e) => e.code === "invalid_argument");
});

test("an answer that arrived before invalidate() stays invalidated, however late storage lets it be recorded", async () => {
  // Writes wait until released: the second answer arrives while the first one's write waits.
  class HeldStorage extends SharedStorage {
    constructor() {
      super();
      this.held = new Promise((release) => {
        this.release = release;
      });
    }
    async write(puts, deletes) {
      await this.held;
      return super.write(puts, deletes);
    }
  }
  const storage = new HeldStorage();
  let arrived;
  const second = new Promise((resolve) => {
    arrived = resolve;
  });
  const fetch = async (url, init) => {
    const response = await globalThis.fetch(url, init);
    const text = await response.text();
    const limit = new URL(String(url)).searchParams.get("limit");
    return {
      status: response.status,
      headers: response.headers,
      text: async () => {
        if (limit === "3") setTimeout(arrived, 0);
        return text;
      },
    };
  };
  const c = new sdk.Client({ baseUrl: base, repository: "demo", apiKey, retries: 0, fetch, cache: { storage, policy: "cache-first" } });
  await c.cache.ready();
  const first = c.collection("authors", "limit=2");
  const late = c.collection("authors", "limit=3");
  await second; // its answer is in (a macrotask later); its record waits for the first write
  c.cache.invalidate({ collection: "authors" });
  storage.release();
  assert.equal((await first).source, "network");
  assert.equal((await late).source, "network");
  const again = await c.collection("authors", "limit=3");
  assert.equal(again.source, "network", "the answer arrived before the invalidation: it is not fresh");
  const cached = await c.collection("authors", "limit=3");
  assert.equal(cached.source, "cache", "the answer after the invalidation is");
  assert.ok(Number.isInteger(cached.cachedAt) && cached.cachedAt <= Date.now(), String(cached.cachedAt));
});

test("invalidate sends the next call to the network under cache-first; cachedAt says how old an answer is", async () => {
  const storage = new SharedStorage();
  const c = client({ storage, policy: "cache-first" });
  const first = await c.collection("authors", "limit=3");
  assert.equal(first.source, "network");
  assert.equal(first.cachedAt, undefined);
  const cached = await c.collection("authors", "limit=3");
  assert.equal(cached.source, "cache");
  assert.equal(typeof cached.cachedAt, "number");
  assert.ok(Date.now() - cached.cachedAt < 60_000 && cached.cachedAt <= Date.now());
  c.cache.invalidate({ collection: "authors" });
  assert.equal((await c.collection("authors", "limit=3")).source, "network");
  assert.equal((await c.collection("authors", "limit=3")).source, "cache");
  c.cache.invalidate();
  assert.equal((await c.collection("authors", "limit=3")).source, "network");
  // cache-only still answers, marked stale.
  const only = client({ storage, policy: "cache-only" });
  await only.cache.ready();
  only.cache.invalidate();
  const answer = await only.collection("authors", "limit=3");
  assert.equal(answer.source, "cache");
  assert.equal(answer.stale, true);
});

test("two tabs that each refresh a list from what they read before the other's refresh keep both deletions after a reload", async () => {
  const storage = new SharedStorage();
  const first = client({ storage });
  await first.prefetch({ collection: "articles" });
  await first.prefetch({ collection: "authors" });
  // The second tab read the storage before either refresh.
  const second = client({ storage });
  await second.cache.ready();
  const { articles, authors } = server.snapshot().collections;
  const [article, author] = [articles[0].meta.id, authors[0].meta.id];
  const offline = () => client({ storage, policy: "cache-only" });
  for (const id of [article, author]) assert.equal((await offline().document(id)).source, "cache", "cached before");
  server.mutate({ delete: [article, author] });
  assert.equal((await first.refresh({ collection: "articles" })).deleted, 1);
  assert.equal((await second.refresh({ collection: "authors" })).deleted, 1);
  const reloaded = offline();
  for (const id of [article, author]) {
    await assert.rejects(reloaded.document(id), (e) => e.code === "not_cached", `${id} stays deleted after a reload`);
  }
  assert.equal((await reloaded.document(articles[1].meta.id)).source, "cache");
});
