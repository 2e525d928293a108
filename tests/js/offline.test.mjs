// The offline cache in Node (memory storage) against the fixture server:
// every policy, the revision rule, the coverage rules, storage faults, and
// generated re-sorted/re-projected queries answered offline exactly as the
// server answers them online.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../www/server.mjs";
import { combinations } from "./offline-cases.mjs";

const sdk = await import("../../pkg/node/index.js");
const apiKey = "offline-test-key-91";
let server;
let base;

async function control(path, body) {
  const response = await fetch(`${base}${path}`, body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  assert.ok(response.ok, path);
  return response.json();
}
const requests = async () => (await control("/__fixture/requests")).filter((r) => r.method === "GET");
const online = async (path) => {
  const response = await fetch(`${base}/v1/demo/${path}`, { headers: { Authorization: apiKey } });
  assert.equal(response.status, 200, path);
  return response.json();
};

function client(cache, extra = {}) {
  return new sdk.Client({ baseUrl: base, repository: "demo", apiKey, retries: 0, cache, ...extra });
}

/** A storage that records writes and can be told to fail. */
class TestStorage {
  constructor(entries = []) {
    this.entries = new Map(entries);
    this.failWrites = false;
  }
  async load() {
    return [...this.entries];
  }
  async write(puts, deletes) {
    // A full storage refuses what adds, not what removes.
    if (this.failWrites && puts.length > 0) {
      const error = new Error("The quota has been exceeded.");
      error.name = "QuotaExceededError";
      throw error;
    }
    for (const key of deletes) this.entries.delete(key);
    for (const [key, value] of puts) this.entries.set(key, value);
  }
  async clear() {
    this.entries.clear();
  }
}

before(async () => {
  server = await startServer({ port: 0, apiKey, control: true });
  base = server.url.replace(/\/$/, "");
});
after(() => server.close());
beforeEach(() => control("/__fixture/reset", {}));

test("results say where they came from, in a non-enumerable source and stale", async () => {
  const c = client({ storage: "memory" });
  const list = await c.collection("authors", "limit=3");
  assert.equal(list.source, "network");
  assert.equal(list.stale, false);
  assert.deepEqual(Object.keys(list).sort(), ["data", "meta", "status"]);
  assert.equal(JSON.stringify(list).includes("source"), false);
  const plain = await new sdk.Client({ baseUrl: base, repository: "demo", apiKey }).alias("home");
  assert.equal(plain.source, "network", "clients without a cache mark results too");
});

test("client.cache is one object per client, as a property is", () => {
  const c = client({ storage: "memory" });
  assert.equal(c.cache, c.cache);
  assert.notEqual(c.cache, client({ storage: "memory" }).cache);
  assert.equal(c.cache.policy, "network-first");
  const first = c.cache;
  first.free();
  assert.notEqual(c.cache, first, "a freed cache object is made again");
  assert.equal(c.cache.policy, "network-first", "and works");
  assert.equal(c.cache, c.cache);
  const none = client(undefined);
  assert.equal(none.cache, undefined);
  assert.equal(none.cache, undefined, "read again (it threw a TypeError)");
  const freed = client({ storage: "memory" });
  assert.equal(typeof freed.cache, "object");
  freed.free();
  assert.throws(() => freed.cache, (e) => e.code === "invalid_argument", "a freed client's cache cannot be read");
});

test("identical calls that share one GET record its answer once", async () => {
  const storage = new TestStorage();
  let writes = 0;
  const write = storage.write.bind(storage);
  // Writes that take a while, as IndexedDB's do.
  storage.write = async (puts, deletes) => {
    writes++;
    await new Promise((resolve) => setTimeout(resolve, 50));
    return write(puts, deletes);
  };
  const c = client({ storage });
  await c.cache.ready();
  await control("/__fixture/script", { responses: [{ delayMs: 200 }] });
  const calls = Array.from({ length: 10 }, () => c.collection("authors", "limit=5"));
  // A call that shared the GET resolves once the answer is recorded: another client on the same
  // storage answers it offline at once.
  await calls[9];
  const early = await client({ storage, policy: "cache-only" }).collection("authors", "limit=5");
  assert.equal(early.source, "cache");
  const lists = await Promise.all(calls);
  assert.deepEqual(early.data, lists[0].data);
  assert.equal((await requests()).length, 1, "one GET");
  for (const list of lists) assert.deepEqual(list, lists[0]);
  assert.equal(new Set(lists).size, 10, "each caller has its own objects");
  const shared = writes;
  // As many writes as one call alone makes (one for each of the ten before).
  writes = 0;
  await c.collection("authors", "limit=6");
  assert.ok(writes > 0, "a call alone writes");
  assert.equal(shared, writes, "the shared answer written as one call's");
  // What was recorded answers offline.
  const offline = await client({ storage, policy: "cache-only" }).collection("authors", "limit=5");
  assert.equal(offline.source, "cache");
  assert.deepEqual(offline.data, lists[0].data);
});

test("network-first answers from the network, and from the cache when the network fails", async () => {
  const c = client({ storage: "memory" });
  const fresh = await c.collection("authors", "limit=5");
  await control("/__fixture/script", { responses: [{ kind: "disconnect" }] });
  const fallback = await c.collection("authors", "limit=5");
  assert.equal(fallback.source, "cache");
  assert.equal(fallback.stale, true);
  assert.deepEqual(fallback, fresh);
  // A 4xx is the service's answer, not a network failure: no fallback.
  await control("/__fixture/script", { responses: [{ status: 404 }] });
  await assert.rejects(c.collection("authors", "limit=5"), (e) => e.code === "http" && e.status === 404);
  // Nothing cached for this query: a service that answered 503 is its
  // http error; one that could not be reached, not_cached, naming why.
  await control("/__fixture/script", { responses: [{ status: 503 }] });
  await assert.rejects(c.collection("authors", "limit=6"), (e) => e.code === "http" && e.status === 503);
  await control("/__fixture/script", { responses: [{ kind: "disconnect" }] });
  await assert.rejects(c.collection("authors", "limit=7"), (e) => e.code === "not_cached" && e.message.includes("network"));
});

test("cache-first answers from the cache without a request, until maxAgeMs", async () => {
  const c = client({ storage: "memory", policy: "cache-first" });
  await c.collection("authors", "limit=4");
  const again = await c.collection("authors", "limit=4");
  assert.equal(again.source, "cache");
  assert.equal(again.stale, false);
  assert.equal((await requests()).length, 1);
  const aging = client({ storage: "memory", policy: "cache-first", maxAgeMs: 50 });
  await aging.collection("authors", "limit=4");
  await new Promise((r) => setTimeout(r, 80));
  const refreshed = await aging.collection("authors", "limit=4");
  assert.equal(refreshed.source, "network", "an old answer is refreshed");
  await new Promise((r) => setTimeout(r, 80));
  await control("/__fixture/script", { responses: [{ kind: "disconnect" }] });
  const old = await aging.collection("authors", "limit=4");
  assert.equal(old.source, "cache");
  assert.equal(old.stale, true, "old and the network failed");
});

test("stale-while-revalidate answers from the cache and refreshes it in the background", async () => {
  const c = client({ storage: "memory", policy: "stale-while-revalidate" });
  const first = await c.collection("authors", "limit=2");
  assert.equal(first.source, "network");
  const second = await c.collection("authors", "limit=2");
  assert.equal(second.source, "cache");
  for (let i = 0; i < 50 && (await requests()).length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal((await requests()).length, 2, "revalidated in the background");
});

test("cache-only never asks the service", async () => {
  const c = client({ storage: "memory", policy: "cache-only" });
  await assert.rejects(c.collection("authors"), (e) => e.code === "not_cached" && e instanceof sdk.ContentRepoError);
  await assert.rejects(c.document("1"), (e) => e.code === "not_cached");
  assert.equal((await requests()).length, 0);
});

test("a stale response arriving after a newer one changes nothing", async () => {
  const c = client({ storage: "memory" });
  const current = await c.collection("authors", "limit=1000");
  const victim = current.data[0];
  const stale = structuredClone(victim);
  stale.meta.revision = victim.meta.revision - 1;
  stale.fields.name = "STALE";
  await control("/__fixture/script", { responses: [{ body: { status: "ok", meta: { count: 1, limit: 1, offset: 0, total: 40 }, data: [stale] } }] });
  const late = await c.collection("authors", "limit=1");
  assert.equal(late.data[0].fields.name, "STALE", "the caller still gets what the service sent");
  await control("/__fixture/script", { responses: [{ kind: "disconnect" }, { kind: "disconnect" }] });
  const doc = await c.document(victim.meta.id);
  assert.equal(doc.source, "cache");
  assert.equal(doc.fields.name, victim.fields.name, "the newer revision is kept");
  const exact = await c.collection("authors", "limit=1");
  assert.equal(exact.source, "cache");
  assert.notEqual(exact.data[0]?.fields.name, "STALE", "the stale list was not recorded");
});

test("coverage: projected documents cannot answer a wider selection; an incomplete list cannot answer a re-sorted query", async () => {
  const c = client({ storage: "memory" });
  await c.collection("products", new sdk.Query().fields("title,price").limit(1000));
  const expected = await online("collections/products?sorting%5Bfields.price%5D=ASC&fields=price&limit=5");
  await control("/__fixture/script", { responses: Array(3).fill({ kind: "disconnect" }) });
  const narrower = await c.collection("products", new sdk.Query().sort("fields.price", "ASC").fields("price").limit(5));
  assert.equal(narrower.source, "cache");
  assert.deepEqual(narrower.data, expected.data);
  await assert.rejects(c.collection("products", new sdk.Query().fields("title,price,category").limit(5)), (e) => e.code === "not_cached");
  await assert.rejects(c.collection("products", new sdk.Query().sort("fields.category", "ASC").fields("title").limit(5)), (e) => e.code === "not_cached");
  await control("/__fixture/reset", {});
  const partial = client({ storage: "memory" });
  await partial.collection("authors", "limit=5");
  await control("/__fixture/script", { responses: Array(2).fill({ kind: "disconnect" }) });
  await assert.rejects(partial.collection("authors", new sdk.Query().sort("fields.name", "DESC").limit(5)), (e) => e.code === "not_cached" && /not complete/.test(e.message));
});

test("prefetch reports progress, and the prefetched collection answers generated queries exactly as the server does", async () => {
  const storage = new TestStorage();
  const c = client({ storage });
  const progress = [];
  const result = await c.prefetch({ collection: "products" }, { onProgress: (p) => progress.push(p) });
  assert.deepEqual(result, { loaded: 130, total: 130 });
  assert.deepEqual(progress, [{ loaded: 130, total: 130 }]);
  const steps = [];
  await client({ storage: "memory" }).prefetch("collections/products", { pageSize: 50, onProgress: (p) => steps.push(p) });
  assert.deepEqual(steps, [{ loaded: 50, total: 130 }, { loaded: 100, total: 130 }, { loaded: 130, total: 130 }]);
  const offline = client({ storage, policy: "cache-only" });
  const queries = combinations(60);
  let compared = 0;
  for (const text of queries) {
    const expected = await online(`collections/products?${text}`);
    const actual = await offline.collection("products", text);
    assert.equal(actual.source, "cache");
    assert.deepEqual({ data: actual.data, meta: actual.meta }, { data: expected.data, meta: expected.meta }, text);
    compared++;
  }
  assert.equal(compared, 60);
  assert.equal((await requests()).filter((r) => r.url.includes("collections/products")).length, 1 + 3 + 60, "the prefetches, then only the reference requests");
  // The API key is never stored.
  for (const [key, value] of storage.entries) {
    assert.ok(!key.includes(apiKey) && !value.includes(apiKey), key);
  }
  // The cache reloads from storage.
  const reloaded = client({ storage, policy: "cache-only" });
  await reloaded.cache.ready();
  assert.equal(reloaded.cache.size, 130);
  await reloaded.cache.clear();
  assert.equal(reloaded.cache.size, 0);
  assert.equal(storage.entries.size, 0);
});

/** `work()`'s result and how many characters `TextDecoder` decoded meanwhile (out of wasm memory). */
async function decodedDuring(work) {
  const decode = TextDecoder.prototype.decode;
  let decoded = 0;
  TextDecoder.prototype.decode = function (...args) {
    const text = Reflect.apply(decode, this, args);
    decoded += text.length;
    return text;
  };
  try {
    return [await work(), decoded];
  } finally {
    TextDecoder.prototype.decode = decode;
  }
}

/** A list of 200 documents with long non-ASCII text (a copy decoded from wasm memory would show), as JSON text. */
function longList() {
  const data = Array.from({ length: 200 }, (_, i) => ({ fields: { title: `Tïtle ${i} ✓`, body: "Lörem ïpsum ✓ ".repeat(40) }, meta: { id: `d${i}`, revision: 1 } }));
  return JSON.stringify({ data, meta: { total: 200, count: 200, limit: 1000, offset: 0 } });
}

test("a network answer is parsed from the text JavaScript received, never decoded back out of the module", async () => {
  const body = longList();
  const fetch = async () => ({ status: 200, headers: { get: () => null }, text: async () => body });
  const expected = JSON.parse(body);
  const storage = new TestStorage();
  const cases = [
    ["no cache", client(undefined, { fetch }), (c) => c.documents(new sdk.Query().limit(1000))],
    ["network-first", client({ storage }, { fetch }), (c) => c.documents(new sdk.Query().limit(1000))],
    ["network-first, networkTimeoutMs", client({ storage: new TestStorage(), networkTimeoutMs: 5000 }, { fetch }), (c) => c.documents(new sdk.Query().limit(1000))],
    ["pages", client(undefined, { fetch }), async (c) => (await c.pages("documents", new sdk.Query().limit(1000)).next()).value],
  ];
  for (const [name, c, call] of cases) {
    if (c.cache) await c.cache.ready();
    const [answer, decoded] = await decodedDuring(() => call(c));
    assert.deepEqual(answer, expected, name);
    assert.equal(answer.source, "network", name);
    assert.ok(decoded < body.length / 10, `${name}: ${decoded} characters decoded out of the module for a ${body.length}-character response`);
  }
  // An answer of the cache is the module's own text: decoded, and equal.
  const cached = client({ storage, policy: "cache-only" });
  await cached.cache.ready();
  const [offline, decoded] = await decodedDuring(() => cached.documents(new sdk.Query().limit(1000)));
  assert.equal(offline.source, "cache");
  // (In the service's default order, which this made-up body does not follow.)
  const byId = (documents) => new Map(documents.map((document) => [document.meta.id, document]));
  assert.deepEqual(byId(offline.data), byId(expected.data));
  assert.ok(decoded >= body.length / 2, `${decoded} characters decoded for the cache's answer`);
});

test("a prefetch fetches each next page while storage writes the last, in order, and resolves once every write is done", async () => {
  // A storage whose writes take a while, noting what is in flight when each page is fetched.
  const events = [];
  let writing = 0;
  class SlowStorage extends TestStorage {
    async write(puts, deletes) {
      writing++;
      const segments = puts.filter(([key]) => key.startsWith("s:")).length;
      await new Promise((resolve) => setTimeout(resolve, 20));
      await super.write(puts, deletes);
      writing--;
      events.push(`written ${segments} segment(s), ${puts.length - segments} other`);
    }
  }
  const storage = new SlowStorage();
  const fetchesDuringWrites = [];
  const fetch = (url, init) => {
    fetchesDuringWrites.push(writing);
    events.push(`fetch ${new URL(String(url)).searchParams.get("offset") ?? 0}`);
    return globalThis.fetch(url, init);
  };
  const c = client({ storage }, { fetch });
  await c.cache.ready();
  const result = await c.prefetch({ collection: "products" }, { pageSize: 20 });
  assert.deepEqual(result, { loaded: 130, total: 130 });
  assert.equal(writing, 0, "every write is done when the prefetch resolves");
  // Seven pages: each page after the first is fetched while the one before it is written.
  assert.equal(fetchesDuringWrites.length, 7);
  assert.deepEqual(fetchesDuringWrites.slice(1), [1, 1, 1, 1, 1, 1], events.join("; "));
  // The writes in order: a segment a page, then the list, last.
  const written = events.filter((e) => e.startsWith("written"));
  assert.deepEqual(written.slice(0, 7), Array(7).fill("written 1 segment(s), 0 other"), events.join("; "));
  assert.match(written.at(-1), /^written 0 segment\(s\), [1-9]/, events.join("; "));
  // What was written answers offline as the service does.
  const offline = client({ storage, policy: "cache-only" });
  for (const text of ["sorting[fields.price]=DESC&limit=50", "fields=title&limit=1000"]) {
    const expected = await online(`collections/products?${text}`);
    const actual = await offline.collection("products", text);
    assert.deepEqual({ data: actual.data, meta: actual.meta }, { data: expected.data, meta: expected.meta }, text);
  }
});

test("a prefetch that fails part way rejects once the writes of its earlier pages are done", async () => {
  let writing = 0;
  class SlowStorage extends TestStorage {
    async write(puts, deletes) {
      writing++;
      await new Promise((resolve) => setTimeout(resolve, 30));
      await super.write(puts, deletes);
      writing--;
    }
  }
  let fetches = 0;
  const fetch = (url, init) => (++fetches === 4 ? Promise.reject(new TypeError("fetch failed")) : globalThis.fetch(url, init));
  const storage = new SlowStorage();
  const c = client({ storage }, { fetch });
  await c.cache.ready();
  await assert.rejects(c.prefetch({ collection: "products" }, { pageSize: 20 }), (e) => e.code === "network");
  assert.equal(writing, 0, "no write of the prefetch goes on after it rejected");
  assert.equal([...storage.entries.keys()].filter((key) => key.startsWith("s:")).length, 3, "the three pages before the failure are written");
});

test("a storage of the app's own is called with the documented arguments alone; a call that times out counts as failed", async () => {
  // Arguments forwarded by postMessage, or default parameters, keep working.
  const calls = [];
  class SlowStorage extends TestStorage {
    load(...args) {
      calls.push(["load", args.length]);
      return super.load();
    }
    write(puts, deletes, ...rest) {
      calls.push(["write", 2 + rest.length]);
      // It commits after the cache stopped waiting for it.
      return new Promise((resolve) => setTimeout(() => resolve(super.write(puts, deletes)), 1000));
    }
  }
  const storage = new SlowStorage();
  const errors = [];
  const c = client({ storage }, { timeoutMs: 150, onCacheError: (error) => errors.push(error) });
  const list = await c.collection("authors", "limit=3");
  assert.equal(list.source, "network", "the request still resolves");
  await new Promise((resolve) => setTimeout(resolve, 1200));
  assert.ok(errors.some((e) => e.code === "storage" && /did not settle within 150 ms/.test(e.message)), errors.map((e) => e.message).join("; "));
  assert.deepEqual(calls, [["load", 0], ["write", 2]]);
  // Not in memory; the write it completed later is read at the next load.
  assert.equal(c.cache.size, 0);
  assert.ok(storage.entries.size > 0);
  const next = client({ storage, policy: "cache-only" });
  assert.equal((await next.collection("authors", "limit=3")).source, "cache");
});

test("an aborted prefetch rejects at once, without waiting for a storage write that never ends", async () => {
  // The first page's write never settles (no timeoutMs to bound it); the second page's fetch
  // never answers, and the caller aborts while it waits.
  class HungStorage extends TestStorage {
    write(puts, deletes) {
      return puts.some(([key]) => key.startsWith("s:")) ? new Promise(() => {}) : super.write(puts, deletes);
    }
  }
  const controller = new AbortController();
  let fetches = 0;
  const fetch = (url, init) => {
    if (++fetches === 1) return globalThis.fetch(url, init);
    setTimeout(() => controller.abort(), 20);
    return new Promise(() => {});
  };
  const c = client({ storage: new HungStorage() }, { fetch, timeoutMs: 0 });
  await c.cache.ready();
  const outcome = c.prefetch({ collection: "products" }, { pageSize: 20, signal: controller.signal }).then(
    () => "resolved",
    (e) => e.code,
  );
  const late = new Promise((resolve) => setTimeout(() => resolve("still waiting after 3 s"), 3000));
  assert.equal(await Promise.race([outcome, late]), "aborted");
  assert.equal(fetches, 2);
});

test("a call aborted while it waits for the cache's storage settles at once, whatever it waits for", async () => {
  // No timeoutMs bounds the storage: only the caller's signal can end these calls.
  const hung = () => new Promise(() => {});
  class HungWrites extends TestStorage {
    write(puts, deletes) {
      return puts.some(([key]) => key.startsWith("s:")) ? hung() : super.write(puts, deletes);
    }
  }
  class HungLoad extends TestStorage {
    load() {
      return hung();
    }
  }
  const late = () => new Promise((resolve) => setTimeout(() => resolve("still waiting after 3 s"), 3000));
  const outcome = (call) => call.then(() => "resolved", (e) => e.code);
  const aborted = (ms) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), ms);
    return controller.signal;
  };
  const cases = {
    // The first page's write never ends: the second page waits for it before its own is planned.
    "a prefetch waiting to plan its page's write": (c, signal) => c.prefetch({ collection: "products" }, { pageSize: 20, signal }),
    // An answer waits for its write before it resolves; an abort ends the wait, and the answer,
    // there before the abort, is the call's.
    "a request waiting for its answer's write": (c, signal) => c.collection("products", "limit=5", { signal }),
    // One page holds the list: recording it complete waits for the page's write.
    "a prefetch waiting to record its list complete": (c, signal) => c.prefetch({ collection: "products" }, { pageSize: 1000, signal }),
    // The cache's entries are read before anything is asked.
    "a refresh waiting for the cache's load": (c, signal) => c.refresh({ collection: "products" }, { signal }),
    "a request waiting for the cache's load": (c, signal) => c.collection("products", "limit=5", { signal }),
  };
  for (const [name, call] of Object.entries(cases)) {
    const storage = name.includes("load") ? new HungLoad() : new HungWrites();
    let fetches = 0;
    const fetch = (url, init) => {
      fetches++;
      return globalThis.fetch(url, init);
    };
    const c = client({ storage }, { fetch, timeoutMs: 0 });
    const settled = name.includes("answer's write") ? "resolved" : "aborted";
    assert.equal(await Promise.race([outcome(call(c, aborted(200))), late()]), settled, name);
    const expected = name.includes("load") ? 0 : name.includes("plan its") ? 2 : 1;
    assert.equal(fetches, expected, `${name}: what was fetched before the wait`);
  }
});

test("a prefetch aborted while a slow write is pending plans nothing more, and the client goes on working", async () => {
  // Writes take 500 ms. The second page arrives while the first page's write is pending, and
  // its own write waits to be planned; the caller aborts then.
  class SlowStorage extends TestStorage {
    async write(puts, deletes) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      await super.write(puts, deletes);
    }
  }
  const storage = new SlowStorage();
  const controller = new AbortController();
  let fetches = 0;
  const fetch = async (url, init) => {
    const response = await globalThis.fetch(url, init);
    if (++fetches === 2) setTimeout(() => controller.abort(), 20);
    return response;
  };
  const c = client({ storage }, { fetch, timeoutMs: 0 });
  await c.cache.ready();
  const started = Date.now();
  await assert.rejects(c.prefetch({ collection: "products" }, { pageSize: 20, signal: controller.signal }), (e) => e.code === "aborted");
  assert.ok(Date.now() - started < 500, "rejected before the first page's write ended");
  assert.equal(fetches, 2);
  // The first page's write ends; the second page's, planned after the abort, is never made.
  await new Promise((resolve) => setTimeout(resolve, 1200));
  const keys = [...storage.entries.keys()];
  assert.equal(keys.filter((key) => key.startsWith("s:")).length, 1, "the first page only");
  assert.equal(keys.filter((key) => key.startsWith("l:")).length, 0, "no list recorded complete");
  // The client works: a full prefetch, then an offline answer equal to the service's.
  assert.deepEqual(await c.prefetch({ collection: "products" }, { pageSize: 50 }), { loaded: 130, total: 130 });
  const offline = client({ storage, policy: "cache-only" });
  const expected = await online("collections/products?sorting[fields.price]=DESC&limit=40");
  const actual = await offline.collection("products", "sorting[fields.price]=DESC&limit=40");
  assert.deepEqual({ data: actual.data, meta: actual.meta }, { data: expected.data, meta: expected.meta });
});

test("a prefetch whose page could not be written rejects with storage and leaves no complete list: never a thinner answer offline", async () => {
  // The write of the third page (offset 40) fails every time; every other write succeeds.
  class LosesAPage extends TestStorage {
    async write(puts, deletes) {
      if (puts.some(([key, value]) => key.startsWith("s:") && value.includes("offset=40"))) {
        const error = new Error("The quota has been exceeded.");
        error.name = "QuotaExceededError";
        throw error;
      }
      return super.write(puts, deletes);
    }
  }
  const storage = new LosesAPage();
  const errors = [];
  const c = client({ storage, policy: "cache-first" }, { onCacheError: (e) => errors.push(e) });
  await assert.rejects(c.prefetch({ collection: "products" }, { pageSize: 20 }), (e) => e.code === "storage" && Number(/(\d+) of the 130 documents/.exec(e.message)?.[1]) >= 20 && /not recorded as complete/.test(e.message));
  assert.ok(errors.some((e) => e.code === "storage" && /QuotaExceededError/.test(e.message)), "the failed write was reported");
  // Neither this client nor a reload answers the list as if it were complete.
  const offline = client({ storage, policy: "cache-only" });
  for (const text of ["limit=100", "sorting[fields.price]=DESC&limit=50"]) {
    await assert.rejects(offline.collection("products", text), (e) => e.code === "not_cached", text);
  }
  await control("/__fixture/script", { responses: [{ kind: "disconnect" }] });
  await assert.rejects(c.collection("products", "limit=100"), (e) => e.code !== undefined, "cache-first goes to the network, which is gone");
  await control("/__fixture/reset", {});
  // Once storage takes every page, the prefetch completes and answers as the service does.
  const whole = client({ storage: new TestStorage(), policy: "cache-only" });
  assert.deepEqual(await whole.prefetch({ collection: "products" }, { pageSize: 20 }), { loaded: 130, total: 130 });
  const expected = await online("collections/products?limit=100");
  const actual = await whole.collection("products", "limit=100");
  assert.deepEqual({ data: actual.data, meta: actual.meta }, { data: expected.data, meta: expected.meta });
});

test("a body with a raw lone surrogate (an injected fetch's string) answers the same online and offline: U+FFFD (SPEC 4)", async () => {
  // Escaped lone surrogates come back as JSON.parse reads them; a raw one cannot cross into the module.
  const body = `{"data":[{"fields":{"s":"a\ud800b","t":"\\ud867"},"meta":{"id":"1","revision":1}}],"meta":{"total":1,"count":1}}`;
  assert.equal(body.includes("\ud800"), true);
  const fetch = async () => ({ status: 200, headers: { get: () => null }, text: async () => body });
  const storage = new TestStorage();
  const c = client({ storage, policy: "network-first" }, { fetch });
  const online = await c.collection("things", "limit=5");
  assert.equal(online.source, "network");
  const offline = await client({ storage, policy: "cache-only" }).collection("things", "limit=5");
  assert.equal(offline.source, "cache");
  assert.deepEqual(online.data, offline.data);
  assert.equal(online.data[0].fields.s, "a\ufffdb");
  assert.equal(online.data[0].fields.t, "\ud867", "an escaped lone surrogate is kept");
  // A body without one is the string JavaScript received.
  const plain = await new sdk.Client({ baseUrl: base, repository: "demo", apiKey, fetch: async () => ({ status: 200, headers: { get: () => null }, text: async () => body.replace("\ud800", "\ufffd") }) }).collection("things");
  assert.deepEqual(plain.data, online.data);
});

test("a recorded response is stored as its header and the text JavaScript holds, never decoded back out of the module", async () => {
  // 200 documents with long non-ASCII text: decoding a copy of it from wasm memory would show.
  const data = Array.from({ length: 200 }, (_, i) => ({ fields: { title: `Tïtle ${i} ✓`, body: "Lörem ïpsum ✓ ".repeat(40) }, meta: { id: `d${i}`, revision: 1 } }));
  const body = JSON.stringify({ data, meta: { total: 200, count: 200 } });
  const fetch = async () => ({ status: 200, headers: { get: () => null }, text: async () => body });
  const storage = new TestStorage();
  const c = client({ storage }, { fetch });
  await c.cache.ready();
  const [result, decoded] = await decodedDuring(() => c.prefetch("documents", { pageSize: 1000 }));
  assert.deepEqual(result, { loaded: 200, total: 200 });
  const segments = [...storage.entries].filter(([key]) => key.startsWith("s:"));
  assert.equal(segments.length, 1);
  const [, value] = segments[0];
  const header = value.slice(0, value.indexOf("\n"));
  assert.equal(value, `${header}\n${body}`);
  assert.ok(decoded < body.length / 10, `${decoded} characters decoded out of the module for a ${body.length}-character response`);
  // What was stored loads back to the same documents.
  const reloaded = client({ storage, policy: "cache-only" });
  const answer = await reloaded.documents(new sdk.Query().limit(1000));
  const byId = (documents) => new Map(documents.map((document) => [document.meta.id, document]));
  assert.deepEqual(byId(answer.data), byId(data));
});

test("a failed write (quota) is reported and leaves memory and storage consistent", async () => {
  const storage = new TestStorage();
  const errors = [];
  const c = client({ storage }, { onCacheError: (e) => errors.push(e) });
  await c.collection("authors", "limit=2");
  const before = new Map(storage.entries);
  storage.failWrites = true;
  const list = await c.collection("authors", "limit=3");
  assert.equal(list.source, "network", "the request still succeeds");
  assert.equal(errors.length, 1);
  assert.equal(errors[0].code, "storage");
  assert.ok(errors[0] instanceof sdk.ContentRepoError);
  assert.match(errors[0].message, /QuotaExceededError/);
  for (const key of storage.entries.keys()) assert.ok(before.has(key), `nothing new was stored: ${key}`);
  storage.failWrites = false;
  // A full storage makes room: what it evicted, memory forgot too.
  await control("/__fixture/script", { responses: [{ kind: "disconnect" }, { kind: "disconnect" }] });
  await assert.rejects(c.collection("authors", "limit=3"), (e) => e.code === "not_cached", "memory did not keep what storage lacks");
  const reloaded = client({ storage, policy: "cache-only" });
  const here = await c.collection("authors", "limit=2").then((r) => r.source, (e) => e.code);
  const there = await reloaded.collection("authors", "limit=2").then((r) => r.source, (e) => e.code);
  assert.equal(there, storage.entries.size > 0 ? "cache" : "not_cached");
  assert.ok(here === there || here === "network", `${here} vs ${there}`);
});

test("corrupt and old-schema entries are skipped and reported, never fatal", async () => {
  const good = new TestStorage();
  await client({ storage: good }).collection("authors", "limit=2");
  const entries = [...good.entries];
  entries.push(["document:123", "{not json"], ["document:456", JSON.stringify({ v: 0, document: {} })], ["weird:1", "{}"]);
  const errors = [];
  const c = client({ storage: new TestStorage(entries), policy: "cache-only" }, { onCacheError: (e) => errors.push(e) });
  const list = await c.collection("authors", "limit=2");
  assert.equal(list.source, "cache");
  assert.equal(errors.length, 3);
  assert.ok(errors.every((e) => e.code === "decode"));
  assert.equal(c.cache.size, 2);
});

test("a storage with loadEach hands entries over one at a time; a failure part way loads nothing", async () => {
  const good = new TestStorage();
  const filler = client({ storage: good });
  await filler.collection("authors", "limit=2");
  await filler.collection("authors", "limit=1&offset=2");
  const entries = [...good.entries];
  assert.ok(entries.length >= 2);
  class EachStorage extends TestStorage {
    constructor(items, failAfter = Infinity) {
      super([]);
      this.items = items;
      this.failAfter = failAfter;
      this.loads = 0;
    }
    async load() {
      this.loads++;
      return this.items;
    }
    async loadEach(onEntry) {
      let given = 0;
      for (const item of this.items) {
        if (given++ === this.failAfter) throw new Error("the disk went away");
        await new Promise((resolve) => setTimeout(resolve, 1));
        Array.isArray(item) ? onEntry(item[0], item[1]) : onEntry(item, undefined);
      }
    }
  }
  // As bytes or text, with two items that are not [key, text] pairs.
  const utf8 = new TextEncoder();
  const items = [...entries.map(([key, value], i) => [key, i % 2 ? utf8.encode(value) : value]), "junk", [1, "x"]];
  const errors = [];
  const each = new EachStorage(items);
  const c = client({ storage: each, policy: "cache-only" }, { onCacheError: (e) => errors.push(e) });
  const list = await c.collection("authors", "limit=2");
  assert.equal(list.source, "cache");
  assert.equal(each.loads, 0, "load() is not called when loadEach is there");
  assert.equal(c.cache.size, 3);
  assert.deepEqual(errors.map((e) => e.message.replace(/ \(.*$/, "")), ["skipped 2 cache entries that are not [key, text] pairs"]);
  // A loadEach that fails after the first entry: reported, and nothing of it answers.
  const failing = [];
  const broken = client({ storage: new EachStorage(entries, 1), policy: "cache-only" }, { onCacheError: (e) => failing.push(e) });
  await assert.rejects(broken.collection("authors", "limit=2"), (e) => e.code === "not_cached");
  assert.equal(broken.cache.size, 0);
  assert.equal(failing.length, 1);
  assert.equal(failing[0].code, "storage");
  assert.match(failing[0].message, /the disk went away/);
});

test("cache options are validated", () => {
  for (const cache of [{ policy: "sometimes" }, { storage: "disk" }, { storage: {} }, { maxAgeMs: -1 }, "yes"]) {
    assert.throws(() => client(cache), (e) => e.code === "invalid_argument", JSON.stringify(cache));
  }
  assert.throws(() => client({ storage: "indexeddb" }), (e) => e.code === "invalid_argument", "no IndexedDB in Node");
  assert.equal(client({}).cache.policy, "network-first");
  const none = client(undefined);
  assert.equal(none.cache, undefined);
  assert.equal(none.cache, undefined, "read again (it threw a TypeError)");
  assert.rejects(client(undefined).prefetch("documents"), (e) => e.code === "invalid_argument");
});

test("pages and all follow the cache policy and say where they came from", async () => {
  const storage = new TestStorage();
  const c = client({ storage });
  const online = await c.all("collections/products", new sdk.Query().limit(50).sort("meta.id", "ASC"));
  assert.equal(online.source, "network");
  assert.equal(online.data.length, 130);
  await c.prefetch({ collection: "products" });
  const offline = client({ storage, policy: "cache-only" });
  const again = await offline.all({ collection: "products" }, new sdk.Query().limit(40).sort("meta.id", "ASC"));
  assert.equal(again.source, "cache");
  assert.deepEqual(again.data, online.data, "pages computed locally from the complete list");
  const first = await offline.pages("collections/products", "limit=7").next();
  assert.equal(first.value.source, "cache");
  assert.equal(first.value.data.length, 7);
  assert.equal((await requests()).filter((r) => r.url.includes("limit=40") || r.url.includes("limit=7")).length, 0);
});

test("a cache miss while the network fails is not_cached under every policy, naming both reasons", async () => {
  for (const policy of ["network-first", "cache-first", "stale-while-revalidate"]) {
    const c = new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey, retries: 0, cache: { storage: "memory", policy } });
    await assert.rejects(c.collection("authors"), (e) => e.code === "not_cached" && /not complete/.test(e.message) && /request failed/.test(e.message), policy);
  }
});

test("a storage's error never carries the API key: onCacheError, the default console.warn and a rejected clear()", async () => {
  const key = "S3cr3t-Key_123";
  const failing = {
    load: async () => [],
    write: async () => {
      throw new Error(`QuotaExceeded while writing for token ${key}`);
    },
    clear: async () => {
      throw new Error(`cannot clear the store of ${key}`);
    },
  };
  const reported = [];
  const options = (extra) => ({
    baseUrl: "http://127.0.0.1:9",
    repository: "r",
    apiKey: key,
    retries: 0,
    fetch: async () => new Response('{"data":[{"fields":{},"meta":{"id":"1","revision":1}}]}'),
    cache: { storage: failing },
    ...extra,
  });
  const client = new sdk.Client(options({ onCacheError: (error) => reported.push(error) }));
  await client.documents();
  const cleared = await client.cache.clear().then(() => null, (error) => error);
  assert.ok(reported.length >= 1 && cleared !== null);
  for (const error of [...reported, cleared]) {
    assert.equal(error.code, "storage");
    assert.ok(!error.message.includes(key) && !String(error).includes(key), error.message);
    assert.ok(error.message.includes("[redacted]"), error.message);
  }
  client.free();
  // Without onCacheError: what console.warn prints.
  const warned = [];
  const warn = console.warn;
  console.warn = (...args) => warned.push(args.map(String).join(" "));
  try {
    const quiet = new sdk.Client(options({}));
    await quiet.documents();
    quiet.free();
  } finally {
    console.warn = warn;
  }
  assert.ok(warned.length >= 1);
  for (const line of warned) assert.ok(!line.includes(key), line);
});

test("under a cache that cannot answer, a service's 503 is its http error (status), an unreachable one not_cached", async () => {
  const make = (fetch) =>
    new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "r", apiKey: "k", retries: 0, fetch, cache: { storage: "memory" } });
  const busy = make(async () => new Response('{"message":"busy"}', { status: 503 }));
  const error = await busy.documents().then(() => null, (e) => e);
  assert.equal(error?.code, "http", error?.message);
  assert.equal(error.status, 503);
  const down = make(async () => {
    throw new TypeError("fetch failed");
  });
  const offline = await down.documents().then(() => null, (e) => e);
  assert.equal(offline?.code, "not_cached", offline?.message);
  busy.free();
  down.free();
});

test("a request raced against networkTimeoutMs leaves no timer behind: Node exits when the work is done", async () => {
  const { execFile } = await import("node:child_process");
  const source = `
    const { Client } = await import(${JSON.stringify(new URL("../../pkg/node/index.js", import.meta.url).href)});
    const client = new Client({
      baseUrl: "http://127.0.0.1:9", repository: "r", apiKey: "k",
      fetch: async () => new Response('{"data":[{"fields":{},"meta":{"id":"1","revision":1}}]}'),
      cache: { storage: "memory", networkTimeoutMs: 60000 },
    });
    await client.documents();
    const raced = await client.documents(); // the cache can answer: raced
    console.log(raced.source);
  `;
  const started = Date.now();
  const stdout = await new Promise((resolve, reject) => {
    execFile(process.execPath, ["--input-type=module", "-e", source], { timeout: 30_000 }, (error, out) =>
      error ? reject(error) : resolve(out),
    );
  });
  assert.equal(stdout.trim(), "network");
  assert.ok(Date.now() - started < 20_000, `the process ran ${Date.now() - started} ms`);
});

/**
 * A client of a fake service that answers `body`, over `storage`: a kind
 * ("memory"), or the methods given (`load`, `write`, `clear`; the others
 * do nothing); `options` are the client's others (`cache` merged).
 */
function clientOn(storage, { body = '{"data":[{"fields":{},"meta":{"id":"1","revision":1}}]}', ...options } = {}) {
  const methods = { load: async () => [], write: async () => {}, clear: async () => {} };
  return new sdk.Client({
    baseUrl: "http://127.0.0.1:9", repository: "r", apiKey: "k", retries: 0,
    fetch: async () => new Response(body),
    ...options,
    cache: { ...options.cache, storage: typeof storage === "string" ? storage : { ...methods, ...storage } },
  });
}

test("a storage that hands over bytes it cannot read, or a console.warn that throws, cannot break the client or the module", async () => {
  const good = clientOn("memory");
  const entries = [];
  class Lying extends Uint8Array {
    get length() {
      throw new Error("length");
    }
  }
  const short = Object.setPrototypeOf(new Uint8Array(8), Object.create(Uint8Array.prototype, { length: { get: () => 2 } }));
  for (const [label, bytes] of [
    ["a length getter that throws", Object.defineProperty(new Uint8Array(4), "length", { get() { throw new Error("length"); } })],
    ["a Proxy of bytes", new Proxy(new Uint8Array(4), {})],
    ["a subclass whose length throws", new Lying(4)],
    ["a prototype whose length lies", short],
  ]) entries.push([`x:${label}`, bytes]);
  const reported = [];
  const odd = clientOn({ load: async () => entries }, { onCacheError: (error) => reported.push(error) });
  await odd.cache.ready();
  // (Read by their internal slots: the bytes that are not an entry are reported.)
  assert.ok(reported.length > 0 && reported.every((error) => ["decode", "storage"].includes(error.code)), reported.map(String).join("; "));
  assert.equal((await odd.documents()).source, "network");
  // Valid entries handed back as bytes (Buffers, views at an offset) load
  // beside a detached view, which is skipped and reported, not fatal.
  const stored = new Map();
  const write = async (puts, deletes) => {
    for (const [key, text] of puts) stored.set(key, text);
    for (const key of deletes) stored.delete(key);
  };
  const writer = clientOn({ write }, { body: '{"data":[{"fields":{"t":"é"},"meta":{"id":"1","revision":1}}]}' });
  await writer.prefetch("documents");
  writer.free();
  const detached = new Uint8Array(8);
  structuredClone(detached.buffer, { transfer: [detached.buffer] });
  const handed = [...stored].map(([key, text], i) => {
    const bytes = Buffer.from(text);
    if (i % 2 === 0) return [key, bytes];
    const padded = new Uint8Array(bytes.length + 3);
    padded.set(bytes, 3);
    return [key, padded.subarray(3)];
  });
  const told = [];
  const reader = clientOn(
    { load: async () => [...handed, ["x:detached", detached]] },
    { cache: { policy: "cache-only" }, onCacheError: (error) => told.push(error) },
  );
  const answer = await reader.documents();
  assert.equal(answer.source, "cache");
  assert.equal(answer.data[0].fields.t, "é");
  assert.ok(told.length === 1 && told[0].code === "decode", told.map(String).join("; "));
  reader.free();
  // Entries that throw as they are read: the load failed (reported), the client works.
  for (const entries of [
    [Object.defineProperty([], 0, { get() { throw new Error("entry"); } })],
    { *[Symbol.iterator]() { throw new Error("iterator"); } },
  ]) {
    const seen = [];
    const broken = clientOn({ load: async () => entries }, { onCacheError: (error) => seen.push(error) });
    await broken.cache.ready();
    assert.equal((await broken.documents()).source, "network");
    assert.ok(seen.some((error) => error.code === "storage"), seen.map(String).join("; "));
    broken.free();
  }
  // Without onCacheError, a failing write is told to console.warn: one that throws.
  const warn = console.warn;
  console.warn = () => {
    throw new Error("no console output in tests");
  };
  try {
    const failing = clientOn({ write: async () => { throw new Error("full"); } });
    for (let i = 0; i < 3000; i++) assert.equal((await failing.documents(`limit=${(i % 900) + 1}`)).source, "network");
    failing.free();
  } finally {
    console.warn = warn;
  }
  assert.equal((await good.documents()).source, "network");
  assert.equal(new sdk.Query().limit(2).toString(), "limit=2");
  good.free();
  odd.free();
});
