// Edges of the contract that reviews found broken, in Node against the real
// fixture server on 127.0.0.1 (or a `fetch` that answers a given body): the
// API key in cache reports and refresh errors, ids that encodeURIComponent
// refuses, lists whose rows have no id, an envelope's other keys offline, a
// list that changes while it is prefetched, concurrent `pages` steps.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../www/server.mjs";

const sdk = await import("../../pkg/node/index.js");
const KEY = "edge-key-8241";
let server;

before(async () => {
  server = await startServer({ port: 0, apiKey: KEY });
});
after(() => server.close());

/** A storage in memory, shared by the clients given it (as tabs share IndexedDB). */
function memoryStorage() {
  const entries = new Map();
  return {
    entries,
    load: async () => [...entries],
    write: async (puts, deletes) => {
      for (const key of deletes) entries.delete(key);
      for (const [key, text] of puts) entries.set(key, text);
    },
    clear: async () => entries.clear(),
  };
}

/** A client of the fixture server; `rewrite(url, text)` may change what its responses say. */
function serverClient({ cache, rewrite, onCacheError } = {}) {
  const fetch = async (url, init) => {
    const response = await globalThis.fetch(url, init);
    const text = await response.text();
    const body = rewrite ? rewrite(decodeURIComponent(url), text) : text;
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return new sdk.Client({ baseUrl: server.url, repository: "demo", apiKey: KEY, retries: 0, fetch, cache, onCacheError });
}

/** A client whose every request is answered with `text` (`urls` gets what it asked). */
function answering(text, { apiKey = "k", cache, onCacheError, urls = [] } = {}) {
  const fetch = async (url) => {
    urls.push(url);
    return new Response(typeof text === "function" ? text(url) : text);
  };
  return new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey, retries: 0, fetch, cache, onCacheError });
}

const outcome = (promise) => promise.then((value) => ({ value }), (error) => ({ error }));
const doc = (id, extra = "") => `{"fields":{"t":"${id}"${extra}},"meta":{"id":"${id}","revision":1}}`;

test("a corrupt cache entry's report carries no API key, in its message or excerpt", async () => {
  const storage = memoryStorage(), reports = [];
  const make = (fetch, policy) =>
    new sdk.Client({
      baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: KEY, retries: 0, fetch,
      cache: { storage, policy }, onCacheError: (error) => reports.push(error),
    });
  await make(async () => new Response(`{"fields":{"note":"${KEY}"},"meta":{"id":"1","revision":1}}`)).document("1");
  assert.ok([...storage.entries.values()].some((text) => text.includes(KEY)), "the document holds the key");
  for (const [key, text] of storage.entries) storage.entries.set(key, text.slice(0, -5)); // a torn write
  await make(async () => { throw new TypeError("offline"); }, "cache-only").cache.ready();
  assert.equal(reports.length, 1, reports.map(String).join("\n"));
  const [report] = reports;
  assert.equal(report.code, "decode");
  assert.ok(!report.message.includes(KEY), report.message);
  assert.ok(!report.excerpt.includes(KEY), report.excerpt);
  assert.match(report.excerpt, /\[redacted\]/);
  assert.equal(report.message.split("body starts with").length, 2, `one excerpt: ${report.message}`);
});

test("a refresh's decode error carries no API key a delta page echoed", async () => {
  let hostile = false;
  const client = serverClient({
    cache: { storage: "memory" },
    rewrite: (url, text) =>
      hostile && url.includes("meta.updatedAt") ? `{"echo":"${KEY}","data":[{"fields":{}}],"meta":{"total":1}}` : text,
  });
  await client.prefetch({ collection: "authors" });
  hostile = true;
  const { error } = await outcome(client.refresh({ collection: "authors" }));
  assert.equal(error?.code, "decode", String(error));
  assert.ok(!error.message.includes(KEY), error.message);
  assert.ok(!error.excerpt.includes(KEY), error.excerpt);
});

test("a short API key does not redact the SDK's own words", async () => {
  const { error } = await outcome(answering(`{"data":[{`, { apiKey: "k" }).documents());
  assert.equal(error.code, "decode");
  assert.doesNotMatch(error.message, /\[redacted\]/, error.message);
  assert.match(error.message, /expected/);
});

test("an id or repository with a lone surrogate is refused before anything is sent", async () => {
  assert.throws(() => encodeURIComponent("\ud800"), URIError);
  const urls = [];
  const client = answering(doc("\\ufffd"), { urls });
  for (const call of [
    () => client.document("\ud800"),
    () => client.asset("a\udc00b"),
    () => client.collection("\ud800"),
    () => client.get({ document: "\ud800" }),
    () => client.get("documents/\ud800"),
  ]) {
    const { error } = await outcome(Promise.resolve().then(call));
    assert.equal(error?.code, "invalid_argument", String(error));
    assert.match(error.message, /lone surrogate/);
  }
  assert.throws(() => client.url({ document: "\ud800" }), (error) => error.code === "invalid_argument");
  assert.throws(
    () => new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "de\ud800mo", apiKey: "k" }),
    (error) => error.code === "invalid_argument",
  );
  assert.deepEqual(urls, []);
  // A real U+FFFD is an id like any other; a query value is written as
  // URLSearchParams writes it (a lone surrogate as U+FFFD).
  await client.document("\ufffd");
  assert.equal(urls.pop(), "http://127.0.0.1:9/v1/demo/documents/%EF%BF%BD");
  const search = new URLSearchParams({ search: "a\ud800" }).toString();
  assert.ok(client.url("documents", new sdk.Query().search("a\ud800")).endsWith(search));
  assert.ok(client.url("documents", "search=a\ud800").endsWith(search));
  const filter = { field: "fields.slug", op: "equal", value: "a\ud800" };
  const written = new URLSearchParams({ "filters[0][*.fields.slug][equal]": "a\ud800" }).toString();
  assert.ok(client.url("documents", new sdk.Query().filter(filter)).endsWith(written));
});

test("a prefetch of rows without an id rejects with decode and never makes an empty list complete", async () => {
  for (const row of [`{"fields":{"title":"no meta"}}`, `{"fields":{},"meta":{"id":null}}`, `{"fields":{},"meta":7}`]) {
    for (const rows of [[row], [row, doc("1")]]) {
      const storage = memoryStorage();
      const text = `{"data":[${rows.join(",")}],"meta":{"total":${rows.length}}}`;
      const client = answering(text, { cache: { storage } });
      const { error } = await outcome(client.prefetch("documents"));
      assert.equal(error?.code, "decode", `${text}: ${error}`);
      assert.doesNotMatch(error.message, /older than the cached one/);
      const offline = answering(text, { cache: { storage, policy: "cache-only" } });
      const answer = await outcome(offline.documents());
      assert.equal(answer.error?.code, "not_cached", `${text}: ${JSON.stringify(answer.value)}`);
    }
  }
});

test("a response the cache cannot record is reported, and its answer stands", async () => {
  const reports = [];
  const text = `{"data":[{"fields":{}},${doc("1")}],"meta":{"total":2}}`;
  const client = answering(text, { cache: { storage: "memory" }, onCacheError: (error) => reports.push(error) });
  assert.deepEqual(await client.documents(), JSON.parse(text));
  await client.cache.ready();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(reports.length, 1, reports.map(String).join("\n"));
  assert.equal(reports[0].code, "decode");
  assert.match(reports[0].message, /documents\[0\]/);
});

test("a malformed row of a refresh's sweep fails it with decode and deletes nothing", async () => {
  let malformed = false;
  const client = serverClient({
    cache: { storage: "memory" },
    rewrite: (url, text) =>
      malformed && url.includes("fields=meta(id,revision)") ? text.replace(/\{"meta":\{"id":"[^"]+","revision":\d+\}\}/, "{}") : text,
  });
  await client.prefetch({ collection: "authors" });
  const count = async () => (await client.collection("authors", new sdk.Query().limit(1000))).data.length;
  const before = await count();
  malformed = true;
  const { error } = await outcome(client.refresh({ collection: "authors" }));
  malformed = false;
  assert.equal(error?.code, "decode", String(error));
  assert.equal(await count(), before);
  assert.deepEqual(await client.refresh({ collection: "authors" }), { changed: 0, deleted: 0, total: before });
});

test("a list whose extra `fields` key is not an object is a list", async () => {
  for (const extra of [`"fields":null`, `"fields":"title,meta"`, `"fields":[]`]) {
    const text = `{"data":[${doc("1")}],"meta":{"total":1},${extra}}`;
    assert.deepEqual(await answering(text).documents(), JSON.parse(text), extra);
    assert.deepEqual(sdk.selectFields(JSON.parse(text), "t").data, [{ fields: { t: "1" }, meta: { id: "1", revision: 1 } }]);
  }
  // With a `fields` object, it is a document: the message says why.
  const { error } = await outcome(answering(`{"data":[],"fields":{}}`).documents());
  assert.equal(error.code, "decode");
  assert.match(error.message, /no `fields` object/);
});

test("concurrent next() calls of pages give successive pages", async () => {
  const client = answering((url) => {
    const offset = Number(new URL(url).searchParams.get("offset") ?? 0);
    const ids = [offset + 1, offset + 2].filter((id) => id <= 6);
    return `{"data":[${ids.map((id) => doc(String(id))).join(",")}],"meta":{"total":6}}`;
  });
  const pages = client.pages("documents", "limit=2")[Symbol.asyncIterator]();
  const ids = (step) => (step.done ? "done" : step.value.data.map((d) => d.meta.id).join());
  const steps = await Promise.all([pages.next(), pages.next(), pages.next(), pages.next()]);
  assert.deepEqual(steps.map(ids), ["1,2", "3,4", "5,6", "done"]);
});

test("pages start after the documents received and stop at meta.total (a capped page size skips none)", async () => {
  const seen = [];
  const client = answering((url) => {
    const params = new URL(url).searchParams, offset = Number(params.get("offset") ?? 0);
    seen.push(`${params.get("limit")}@${offset}`);
    const ids = Array.from({ length: Math.max(0, Math.min(5, 12 - offset)) }, (_, i) => String(offset + i + 1));
    return `{"data":[${ids.map((id) => doc(id)).join(",")}],"meta":{"total":12}}`;
  });
  const all = await client.all("documents", "limit=10");
  assert.deepEqual(all.data.map((d) => d.meta.id), Array.from({ length: 12 }, (_, i) => String(i + 1)));
  assert.deepEqual(seen, ["10@0", "10@5", "10@10"]);
});

test("a filter field's error speaks of filters", () => {
  assert.throws(
    () => new sdk.Query().filter({ field: "fields.a.b", op: "equal", value: "x" }),
    (error) => error.code === "invalid_argument" && !/sort key/.test(error.message) && /filter field/.test(error.message),
  );
});

test("messages write numbers as JavaScript does, and a bad endpoint's names every form", () => {
  const base = { baseUrl: "https://cms.example.com", repository: "demo", apiKey: "k" };
  const message = (call) => {
    try {
      call();
    } catch (error) {
      assert.equal(error.code, "invalid_argument");
      return error.message;
    }
    assert.fail("no error");
  };
  assert.match(message(() => new sdk.Client({ ...base, timeoutMs: Infinity })), /\bInfinity\b/);
  const filter = message(() => new sdk.Query().filter({ field: "fields.n", op: "equal", value: -Infinity }));
  assert.match(filter, /-Infinity\b/);
  assert.doesNotMatch(filter, /\binf\b/);
  const endpoint = message(() => new sdk.Client(base).url({ collections: "x" }));
  for (const form of ['"documents"', "{ documents: true }", "{ repository: true }", "{ document | collection | alias | asset: id }"]) {
    assert.ok(endpoint.includes(form), endpoint);
  }
});

test("all() keeps the first page's envelope and every page's linked documents, each once", async () => {
  const client = serverClient();
  const query = new sdk.Query().limit(50).includes(1);
  const pages = [];
  for await (const page of client.pages("collections/articles", query)) pages.push(page);
  assert.ok(pages.length > 1 && pages.every((page) => page.includes?.author?.length > 0), "pages with linked authors");
  const expected = {};
  for (const page of pages) {
    for (const [type, documents] of Object.entries(page.includes)) {
      expected[type] ??= [];
      for (const document of documents) {
        if (!expected[type].some((kept) => kept.meta.id === document.meta.id)) expected[type].push(document);
      }
    }
  }
  const all = await client.all("collections/articles", query);
  assert.deepEqual(Object.keys(all), Object.keys(pages[0]));
  assert.equal(all.status, "ok");
  assert.deepEqual(all.data, pages.flatMap((page) => page.data));
  assert.deepEqual(all.includes, expected);
  // The authors of the whole list, as one request of it gives them.
  const whole = await client.collection("articles", new sdk.Query().limit(1000).includes(1));
  const ids = (list) => list.includes.author.map((author) => author.meta.id).sort();
  assert.deepEqual(ids(all), ids(whole));
});

test("an offline list answer keeps the envelope's other keys in the service's order", async () => {
  const storage = memoryStorage();
  const online = serverClient({ cache: { storage } });
  const fresh = await online.collection("authors", "limit=5");
  assert.equal(fresh.status, "ok", "the fixture's envelope has another key");
  await online.prefetch({ collection: "authors" });
  const compare = async () => {
    // (A client that loads what the storage holds now, as a reload does.)
    const offline = serverClient({ cache: { storage, policy: "cache-only" } });
    for (const query of ["limit=5", "limit=3&offset=2&sorting[fields.name]=DESC"]) {
      // (The service's answer through a client without a cache: nothing recorded.)
      const [network, cached] = [await serverClient().collection("authors", query), await offline.collection("authors", query)];
      assert.equal(cached.source, "cache");
      assert.deepEqual(Object.keys(cached), Object.keys(network), query);
      assert.deepEqual(JSON.parse(JSON.stringify(cached)), JSON.parse(JSON.stringify(network)), query);
    }
  };
  await compare();
  // Responses to other queries of the endpoint (a search; a refresh's pages)
  // with other keys of their own do not change the list's envelope.
  let unreachable = false;
  const echoing = serverClient({
    cache: { storage },
    rewrite: (url, text) => {
      if (unreachable) throw new TypeError("offline");
      return url.includes("search=") || url.includes("updatedAt") ? text.replace(/^\{/, '{"query":"echo",') : text;
    },
  });
  await echoing.collection("authors", new sdk.Query().search("a"));
  await echoing.refresh({ collection: "authors" });
  await compare();
  // And in the memory of the client that recorded them (the network gone:
  // network-first answers from its cache).
  unreachable = true;
  const cached = await echoing.collection("authors", "limit=2");
  assert.equal(cached.source, "cache");
  assert.deepEqual(Object.keys(cached), ["status", "meta", "data"]);
});

test("applyQuery on a response answers as the service does, envelope keys in the service's order", async () => {
  const all = await serverClient().collection("authors", "limit=1000");
  assert.deepEqual(Object.keys(all).filter((key) => key !== "source"), ["status", "meta", "data"]);
  for (const query of ["limit=5", "limit=3&offset=2&sorting[fields.name]=DESC&fields=name"]) {
    const { source, ...network } = await serverClient().collection("authors", query);
    assert.equal(source, "network");
    assert.equal(JSON.stringify(sdk.applyQuery(all, query)), JSON.stringify(network), query);
  }
});

test("a list with one id twice (5 and \"5\") is never answered offline with one fewer document", async () => {
  const text = `{"data":[${doc("1")},{"fields":{"t":"n"},"meta":{"id":5,"revision":1}},${doc("5")}],"meta":{"total":3}}`;
  const storage = memoryStorage();
  const { error } = await outcome(answering(text, { cache: { storage } }).prefetch("documents"));
  assert.equal(error?.code, "not_cached", String(error));
  const offline = answering(text, { cache: { storage, policy: "cache-only" } });
  assert.equal((await outcome(offline.documents())).error?.code, "not_cached");
});

test("a list that changes on the service while it is prefetched is not recorded as complete", async () => {
  for (const change of [(head) => ({ delete: [head] }), () => ({ add: [{ contentType: "author", fields: { name: "New" } }] })]) {
    const storage = memoryStorage();
    const client = serverClient({ cache: { storage } });
    const [head] = (await client.collection("authors", "limit=1")).data;
    let changed = false;
    const { value, error } = await outcome(
      client.prefetch({ collection: "authors" }, {
        pageSize: 10,
        onProgress: () => {
          if (!changed) {
            changed = true;
            server.mutate(change(head.meta.id));
          }
        },
      }),
    );
    server.mutate({ reset: true });
    assert.equal(error?.code, "not_cached", `prefetch resolved ${JSON.stringify(value)}`);
    const offline = serverClient({ cache: { storage, policy: "cache-only" } });
    assert.equal((await outcome(offline.collection("authors", "limit=1000"))).error?.code, "not_cached");
  }
});
