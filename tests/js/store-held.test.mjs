// DocumentStore.query copies the documents it delivered before instead of
// parsing them again (src/js/store.js `assemble`): its answers must stay
// exactly what the service's rules give, whatever the documents' keys,
// through writes, deletes and other selections, and every answer must be
// the caller's own objects. The reference is `applyQuery` over the same
// documents as JavaScript values (another engine, no store).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

import { parsedBy, runClient, runFallback, runSeeds } from "./store-held-cases.mjs";

const sdk = await import("../../pkg/node/index.js");
await sdk.ready();

test("answers from held documents equal applyQuery over the same documents, whatever their keys, and are the caller's own", () => {
  const compared = runSeeds(1, 40);
  assert.ok(compared > 800, `${compared} queries compared`);
});

test("a client's cache answers a complete list from held documents: before or after a change, never a mix, and the caller's own", async () => {
  let compared = 0;
  for (let seed = 1; seed <= 6; seed++) compared += await runClient(seed, 6);
  assert.ok(compared > 500, `${compared} answers compared`);
});

test("a cached answer that falls back late (network-first) leaves the changed documents held", async () => {
  let compared = 0;
  for (let seed = 1; seed <= 6; seed++) compared += await runFallback(seed);
  assert.equal(compared, 6 * 6);
});

test("a third answer of a selection parses none of the documents held, from a store and from a client's cache, its pages and all", async () => {
  const documents = Array.from({ length: 40 }, (_, i) => ({ fields: { n: i % 7, title: `t${i}`, body: "x".repeat(200) }, meta: { id: String(i) } }));
  const list = JSON.stringify({ data: documents, meta: { count: 40, limit: 100, offset: 0, total: 40 } });
  const query = new sdk.Query().sort("fields.n", "DESC").fields("title,meta(id)").limit(30);
  const expected = sdk.applyQuery(documents, query);
  const store = new sdk.DocumentStore();
  store.putJson(list);
  const client = new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: "held-test-key", fetch: async () => new Response(list), cache: { storage: "memory", policy: "cache-only" } });
  await client.prefetch("documents", { pageSize: 100 });
  for (const ask of [() => store.query(query), () => client.documents(query)]) {
    for (let i = 0; i < 2; i++) {
      const answer = await ask();
      assert.deepStrictEqual({ data: answer.data, meta: answer.meta }, expected);
    }
    let answer;
    const parsed = await parsedBy(async () => (answer = await ask()));
    assert.deepStrictEqual({ data: answer.data, meta: answer.meta }, expected);
    assert.ok(parsed.length > 0 && parsed.every((text) => text.startsWith('{"data":[]')), `parsed: ${parsed.map((text) => text.slice(0, 40))}`);
  }
  // `all` gathers its pages' answers: the third parses none either.
  const all = sdk.applyQuery(documents, query.clone().limit(100)).data;
  for (let i = 0; i < 3; i++) {
    let answer;
    const parsed = await parsedBy(async () => (answer = await client.all("documents", query)));
    assert.deepStrictEqual({ data: answer.data, meta: answer.meta }, { data: all, meta: { count: 40, limit: 40, offset: 0, total: 40 } });
    if (i === 2) assert.ok(parsed.length > 0 && parsed.every((text) => text.startsWith('{"data":[]')), `parsed: ${parsed.map((text) => text.slice(0, 40))}`);
  }
  for (let i = 0; i < 3; i++) {
    const pages = [];
    const parsed = await parsedBy(async () => {
      for await (const page of client.pages("documents", query)) pages.push({ data: page.data, meta: page.meta, source: page.source });
    });
    assert.deepStrictEqual(pages.map((page) => page.source), ["cache", "cache"]);
    assert.deepStrictEqual(pages.flatMap((page) => page.data), all);
    if (i === 2) assert.ok(parsed.length > 0 && parsed.every((text) => text.startsWith('{"data":[]')), `parsed: ${parsed.map((text) => text.slice(0, 40))}`);
  }
  store.free();
  client.free();
});

test("the cache's variants beyond the ones JavaScript holds documents of answer right, then from held documents again", async () => {
  const locales = ["en", "de", "fr", "it", "es", "nl", "pl", "pt", "sv", "fi"];
  const documents = (locale) => Array.from({ length: 30 }, (_, i) => ({ fields: { n: i % 4, title: `${locale}-${i}`, body: "x".repeat(300) }, meta: { id: String(i), locale } }));
  const fetch = async (url) => {
    const locale = new URL(url).searchParams.get("locale");
    const data = documents(locale);
    return new Response(JSON.stringify({ data, meta: { count: 30, limit: 100, offset: 0, total: 30 } }));
  };
  const client = new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: "held-test-key", fetch, cache: { storage: "memory", policy: "cache-only" } });
  for (const locale of locales) await client.prefetch("documents", { pageSize: 100, query: new sdk.Query().locale(locale) });
  const query = (locale) => new sdk.Query().locale(locale).sort("fields.n", "ASC").fields("title,meta(id)").limit(20);
  const expected = (locale) => sdk.applyQuery(documents(locale), query(locale));
  const plain = (answer) => ({ data: answer.data, meta: answer.meta });
  // Every variant held, in turn: more than JavaScript keeps documents of.
  for (let round = 0; round < 2; round++) {
    for (const locale of locales) for (let i = 0; i < 3; i++) assert.deepStrictEqual(plain(await client.documents(query(locale))), expected(locale), `${locale} ${round} ${i}`);
  }
  // The first variant's held documents were dropped: its answers are right,
  // and within three of them copied from held documents again.
  const parsed = [];
  const want = expected("en");
  for (let i = 0; i < 3; i++) {
    let answer;
    parsed.push(await parsedBy(async () => (answer = await client.documents(query("en")))));
    assert.deepStrictEqual(plain(answer), want);
  }
  assert.ok(parsed[0].length === 2 && !parsed[0][1].startsWith('{"data":[]'), "the first answer is read from its whole text");
  assert.ok(parsed[2].every((text) => text.startsWith('{"data":[]')), parsed.map((texts) => texts.map((text) => text.slice(0, 30))).join(" | "));
  client.free();
});

test("documents nested deeper than a copy should recurse are answered from their text, every time", () => {
  const store = new sdk.DocumentStore();
  for (const depth of [60, 70, 10000]) {
    // A large field the selection leaves out: the selected texts fit the
    // room the store keeps them in (half its text).
    store.putJson(`[{"fields":{"a":${'{"k":'.repeat(depth)}1${"}".repeat(depth)},"n":${depth},"big":"${"x".repeat(200000)}"},"meta":{"id":"${depth}"}}]`);
  }
  const query = new sdk.Query().fields("a,meta(id)").sort("fields.n", "ASC");
  // Walked without recursion: JSON.stringify itself cannot go 10,000 deep.
  const depthOf = (value) => {
    let depth = 0;
    for (; typeof value === "object" && value !== null; depth++) value = value.k;
    return value === 1 ? depth : -1;
  };
  const first = store.query(query);
  for (let i = 0; i < 3; i++) {
    const answer = store.query(query);
    assert.deepStrictEqual(answer.data.slice(0, 2), first.data.slice(0, 2), `answer ${i + 2}`);
    assert.deepStrictEqual(answer.data.map((doc) => depthOf(doc.fields.a)), [60, 70, 10000]);
    assert.deepStrictEqual(answer.meta, first.meta);
  }
  store.free();
});

test("where the runtime forbids code from strings, answers are the same", () => {
  // Node's --disallow-code-generation-from-strings makes `new Function`
  // throw, as a Content-Security-Policy without 'unsafe-eval' does.
  const child = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", "--input-type=module", "-e", `
    const { parsedBy, runClient, runSeeds } = await import(${JSON.stringify(new URL("./store-held-cases.mjs", import.meta.url).href)});
    const sdk = await import(${JSON.stringify(new URL("../../pkg/node/index.js", import.meta.url).href)});
    let threw = false;
    try { new Function("return 1"); } catch { threw = true; }
    if (!threw) throw new Error("new Function was allowed");
    // A property of Object.prototype that assignment cannot write (as with
    // frozen intrinsics): copies define their keys, as JSON.parse does.
    Object.defineProperty(Object.prototype, "valueOf", { writable: false });
    // Copied, not read again from the text (which a failed copy falls back to).
    const store = new sdk.DocumentStore();
    store.putJson(JSON.stringify([1, 2, 3].map((id) => ({ fields: { valueOf: [{ valueOf: id }], n: id, body: "x".repeat(300) }, meta: { id: String(id) } }))));
    const query = new sdk.Query().fields("valueOf,meta(id)");
    store.query(query);
    store.query(query);
    let answer;
    const parsed = await parsedBy(() => (answer = store.query(query)));
    if (!parsed.every((text) => text.startsWith('{"data":[]'))) throw new Error("held documents were parsed: " + parsed);
    if (JSON.stringify(answer.data.map((doc) => doc.fields.valueOf)) !== JSON.stringify([3, 2, 1].map((id) => [{ valueOf: id }]))) throw new Error(JSON.stringify(answer.data));
    let compared = runSeeds(1, 12);
    for (let seed = 1; seed <= 2; seed++) compared += await runClient(seed, 4);
    console.log(compared);
  `], { encoding: "utf8", timeout: 60_000 });
  assert.equal(child.status, 0, child.stderr);
  assert.ok(Number(child.stdout.trim()) > 200, child.stdout);
});

test("`all` gathers pages from the network, from the cache and from both, as one list", async () => {
  const documents = Array.from({ length: 25 }, (_, i) => ({ fields: { n: i, title: `t${i}` }, meta: { id: String(i) } }));
  let failFrom = Infinity;
  const fetch = async (url) => {
    // The service: sorted, selected pages.
    const asked = sdk.Query.parse(new URL(url).search);
    if ((asked.offsetValue ?? 0) >= failFrom) throw new TypeError("fetch failed");
    if (new URL(url).pathname.endsWith("/documents/3")) return new Response(JSON.stringify(documents[3]));
    return new Response(JSON.stringify(sdk.applyQuery(documents, asked)));
  };
  const options = (policy) => ({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: "held-test-key", retries: 0, fetch, cache: { storage: "memory", policy } });
  const query = new sdk.Query().sort("fields.n", "ASC").fields("title,meta(id)").limit(10).offset(2);
  const expected = { data: sdk.applyQuery(documents, query.clone().limit(100)).data, meta: { count: 23, limit: 23, offset: 2, total: 25 } };
  const plain = (answer) => ({ data: answer.data, meta: answer.meta });
  const client = new sdk.Client(options("network-first"));
  await client.prefetch("documents", { pageSize: 100 });
  // Every page from the network (texts), then the last two from the cache.
  for (const [from, source] of [[Infinity, "network"], [12, "cache"], [0, "cache"]]) {
    failFrom = from;
    for (let i = 0; i < 3; i++) {
      const answer = await client.all("documents", query);
      assert.deepStrictEqual(plain(answer), expected, `failing from ${from}`);
      assert.equal(answer.source, source);
    }
  }
  client.free();
  // Cache-first, the list recorded while `all` waits for its first page:
  // the first page from the network, the others from the cache.
  failFrom = Infinity;
  let open;
  const gate = new Promise((resolve) => (open = resolve));
  const mixed = new sdk.Client({ ...options("cache-first"), fetch: async (url) => {
    if (new URL(url).searchParams.get("limit") === "10" && !new URL(url).searchParams.has("offset")) await gate;
    return fetch(url);
  } });
  const locale = new sdk.Query().locale("de").sort("fields.n", "DESC").fields("title,meta(id)").limit(10);
  const de = { data: sdk.applyQuery(documents, locale.clone().limit(100)).data, meta: { count: 25, limit: 25, offset: 0, total: 25 } };
  const pending = mixed.all("documents", locale);
  await mixed.prefetch("documents", { query: locale, pageSize: 100 });
  let answer;
  // Gathered from the pages (the network's text, the cache's objects),
  // never from one text of them all.
  const parsed = await parsedBy(async () => {
    open();
    answer = await pending;
  });
  assert.deepStrictEqual(plain(answer), de);
  assert.equal(answer.source, "cache");
  assert.ok(parsed.some((text) => text.includes('"offset":0')) && !parsed.some((text) => text.includes('"count":25')), `parsed: ${parsed.map((text) => text.slice(-60))}`);
  for (let i = 0; i < 3; i++) assert.deepStrictEqual(plain(await mixed.all("documents", locale)), de);
  mixed.free();
});
