// The oldest engines the README names (Chrome 96, Firefox 79, Safari 15) lack
// newer built-ins, and Cloudflare Workers refuse random values, timers and
// I/O while a module loads: the package is run here, in a Node of its own,
// with those built-ins removed, and its "./slim" entry is loaded counting
// what it calls.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = (file) => pathToFileURL(join(ROOT, "pkg", file)).href;

/** Runs `source` as an ES module in a new Node; what it prints, parsed. */
function run(source) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", source], { encoding: "utf8", timeout: 60_000 });
  return JSON.parse(out.trim().split("\n").pop());
}

test("the package works without the built-ins newer than the engines the README names", () => {
  const result = run(`
    // Newer than Chrome 96, Firefox 79 or Safari 15 (each absent from one of them at least).
    const removed = [
      [Object, "hasOwn"], [Object, "groupBy"], [Map, "groupBy"], [Array, "fromAsync"], [Promise, "withResolvers"],
      [globalThis, "structuredClone"], [Response, "json"], [AbortSignal, "timeout"], [AbortSignal, "any"],
      ...["at", "findLast", "findLastIndex", "toSorted", "toReversed", "toSpliced", "with"].map((name) => [Array.prototype, name]),
      ...["at", "isWellFormed", "toWellFormed"].map((name) => [String.prototype, name]),
      ...["union", "intersection", "difference", "symmetricDifference", "isSubsetOf"].map((name) => [Set.prototype, name]),
      [JSON, "rawJSON"], [JSON, "isRawJSON"], [Object.getPrototypeOf(crypto), "randomUUID"],
      ...["at", "findLast", "findLastIndex", "toSorted", "toReversed", "with"].map((name) => [Object.getPrototypeOf(Uint8Array.prototype), name]),
    ];
    for (const [owner, name] of removed) delete owner[name];
    const gone = removed.filter(([owner, name]) => name in owner).map(([, name]) => name);
    const sdk = await import(${JSON.stringify(pkg("node/index.js"))});
    await sdk.ready();
    const docs = [1, 2, 3].map((n) => ({
      fields: { title: "t" + (4 - n), score: n === 2 ? Infinity : n },
      meta: { id: String(n), revision: 1, contentType: "post", createdAt: "2024-01-0" + n + "T00:00:00Z" },
    }));
    const sorted = sdk.sortDocuments(docs, "sorting[fields.score]=DESC").map((d) => d.meta.id);
    const selected = sdk.applyQuery(docs, "sorting[fields.title]=ASC&fields=title").data.map((d) => d.fields.title);
    const store = new sdk.DocumentStore();
    store.put(docs);
    const page = store.query("sorting[fields.score]=ASC&limit=2").data.map((d) => d.meta.id);
    // A cache whose storage gives its entries back as UTF-8 bytes, read after a "reload".
    const entries = new Map();
    const storage = {
      async load() { return [...entries].map(([key, text]) => [key, new TextEncoder().encode(text)]); },
      async write(puts, deletes) { for (const key of deletes) entries.delete(key); for (const [key, text] of puts) entries.set(key, text); },
      async clear() { entries.clear(); },
    };
    const body = JSON.stringify({ data: docs, meta: { count: 3, limit: 100, offset: 0, total: 3 } });
    // (A plain object with what the SDK reads of a Response: Node's own Response needs some of the
    // removed built-ins.)
    const fetch = async () => ({ status: 200, headers: { get: () => null }, text: async () => body });
    const options = (policy) => ({ baseUrl: "http://127.0.0.1:9", repository: "r", apiKey: "k", fetch, cache: { storage, policy } });
    await new sdk.Client(options("network-first")).prefetch({ collection: "posts" });
    const offline = await new sdk.Client(options("cache-only")).collection("posts", "sorting[fields.title]=DESC");
    console.log(JSON.stringify({ gone, sorted, selected, page, offline: [offline.source, offline.data.map((d) => d.meta.id)] }));
  `);
  assert.deepEqual(result.gone, [], "every listed built-in removed");
  assert.deepEqual(result.sorted, ["2", "3", "1"]);
  assert.deepEqual(result.selected, ["t1", "t2", "t3"]);
  assert.deepEqual(result.page, ["1", "3"]);
  assert.deepEqual(result.offline, ["cache", ["1", "2", "3"]]);
});

test("a string of the documents is never taken for the stand-in of Infinity, however predictable Math.random is", () => {
  const result = run(`
    Math.random = () => 0.5;
    const sdk = await import(${JSON.stringify(pkg("node/index.js"))});
    await sdk.ready();
    // The stand-ins that Math.random would give (src/js/local.js: its first draws, numbered or not).
    const base = "\\u{10FFFF}content-repo:" + (0.5).toString(36).slice(2) + ":";
    const strings = { s: base + "+", t: base + "-", u: base + "0:+", v: base + "1:-" };
    const doc = { fields: { ...strings, n: Infinity }, meta: { id: "a" } };
    const store = new sdk.DocumentStore();
    store.put(doc);
    const stored = store.get("a").fields;
    const selected = sdk.selectFields(doc, "s,t,u,v,n").fields;
    const same = (fields) => Object.keys(strings).every((key) => fields[key] === strings[key]) && fields.n === Infinity;
    console.log(JSON.stringify({ stored: same(stored), selected: same(selected) }));
  `);
  assert.deepEqual(result, { stored: true, selected: true });
});

test("loading the slim entry draws no random value, sets no timer and fetches nothing (Cloudflare Workers refuse them outside a handler)", () => {
  const result = run(`
    const calls = [];
    const count = (owner, name) => {
      const original = owner[name];
      owner[name] = function (...args) {
        calls.push(name);
        return original.apply(this, args);
      };
    };
    count(Math, "random");
    count(crypto, "getRandomValues");
    count(crypto, "randomUUID");
    for (const name of ["setTimeout", "setInterval", "queueMicrotask", "fetch"]) count(globalThis, name);
    const slim = await import(${JSON.stringify(pkg("web/slim.js"))});
    const atLoad = [...calls];
    // Then, as in a handler: it works.
    const { readFileSync } = await import("node:fs");
    await slim.init(readFileSync(new URL(${JSON.stringify(pkg("web/content_repo_bg.wasm"))})));
    const sorted = slim.sortDocuments([{ fields: { n: Infinity }, meta: { id: "a" } }, { fields: { n: 1 }, meta: { id: "b" } }], "sorting[fields.n]=ASC");
    console.log(JSON.stringify({ atLoad, sorted: sorted.map((d) => d.meta.id), random: calls.includes("random") }));
  `);
  assert.deepEqual(result.atLoad, [], "called while the module loaded");
  assert.deepEqual(result.sorted, ["b", "a"]);
  assert.ok(result.random, "the stand-in for Infinity drew its random part at its first use (the counter works)");
});
