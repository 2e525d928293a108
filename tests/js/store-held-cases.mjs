// The cases of store-held.test.mjs, also run in a child process where the
// runtime forbids code from strings. See that file.
import assert from "node:assert/strict";

const sdk = await import("../../pkg/node/index.js");
await sdk.ready();

function mulberry(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Keys that a copy by object literals or by assignment gets wrong if it is
// careless: the prototype's setter, integer-like keys (ordered first by the
// engine), quotes and line separators in names, astral characters (the
// last ones reach answers through `*`).
const KEYS = ["a", "b", "__proto__", "constructor", "valueOf", "1", "0", 'q"uote', "line\u2028sep", "𝒳", "a-b", "n"];
const SELECTIONS = [
  "fields(a,__proto__,1,constructor,valueOf),meta(id)",
  "fields(n,b,a-b),meta(id,revision)",
  "fields(0,a/*,__proto__/*)",
  "fields(*)",
  "*",
];

function value(next, depth) {
  const r = next();
  if (depth > 2 || r < 0.35) return [null, true, false, -0, 0, 1.5, -3e21, "", "é✓高", "x\ud83d\ude00"][Math.floor(next() * 10)];
  if (r < 0.5) return Array.from({ length: Math.floor(next() * 3) }, () => value(next, depth + 1));
  const object = {};
  for (let i = Math.floor(next() * 4); i > 0; i--) {
    const key = KEYS[Math.floor(next() * KEYS.length)];
    Object.defineProperty(object, key, { value: value(next, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return object;
}

function documentText(next, id, revision) {
  const fields = value(next, 0);
  const body = typeof fields === "object" && fields !== null && !Array.isArray(fields) ? fields : { a: fields };
  if (next() < 0.8) body.n = Math.floor(next() * 5);
  // Written as text: JSON.stringify keeps an own "__proto__" key.
  return `{"fields":${JSON.stringify(body)},"meta":{"id":"${id}","revision":${revision}}}`;
}

/** Deeply changes every object and array of `answer`, as a careless caller might. */
function scribble(node) {
  if (typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) {
    for (const item of node) scribble(item);
    node.push("scribbled");
    return;
  }
  for (const key of Object.keys(node)) scribble(node[key]);
  node.scribbled = true;
  if ("a" in node) delete node.a;
}

export function run(seed, steps) {
  const next = mulberry(seed);
  const store = new sdk.DocumentStore();
  const texts = new Map(); // id → text, in the store's order (first write)
  let revision = 0;
  let compared = 0;
  for (let step = 0; step < steps; step++) {
    const r = next();
    if (r < 0.35) {
      const count = 1 + Math.floor(next() * 6);
      const docs = [];
      for (let i = 0; i < count; i++) {
        const id = String(Math.floor(next() * 30));
        const text = documentText(next, id, ++revision);
        docs.push(text);
        texts.set(id, text);
      }
      store.putJson(`[${docs.join(",")}]`);
    } else if (r < 0.42) {
      const id = String(Math.floor(next() * 30));
      assert.equal(store.delete(id), texts.delete(id));
    } else {
      let query = new sdk.Query().fields(SELECTIONS[Math.floor(next() * SELECTIONS.length)]).limit(1 + Math.floor(next() * 40));
      if (next() < 0.6) query = query.sort("fields.n", next() < 0.5 ? "ASC" : "DESC");
      if (next() < 0.3) query = query.offset(Math.floor(next() * 5));
      const expected = sdk.applyQuery([...texts.values()].map((text) => JSON.parse(text)), query);
      // Asked three times: parsed, kept, then copied from what is held.
      const answers = [store.query(query), store.query(query), store.query(query)];
      for (const answer of answers) {
        assert.deepStrictEqual(answer, expected, query.toString());
        assert.equal(JSON.stringify(answer), JSON.stringify(expected), `key order: ${query}`);
      }
      for (let i = 0; i < answers[0].data.length; i++) {
        assert.notEqual(answers[1].data[i], answers[2].data[i], "each answer has its own documents");
        if (typeof answers[1].data[i].fields === "object") assert.notEqual(answers[1].data[i].fields, answers[2].data[i].fields);
      }
      for (const answer of answers) scribble(answer);
      assert.deepStrictEqual(store.query(query), expected, `after the caller changed its answers: ${query}`);
      compared++;
    }
  }
  store.free();
  return compared;
}

/** `run` for seeds `from` to `to`; how many queries were compared. */
export function runSeeds(from, to) {
  let compared = 0;
  for (let seed = from; seed <= to; seed++) compared += run(seed, 60);
  return compared;
}

/**
 * The same through a client's cache: a complete list answers re-sorted,
 * selected pages from its store, copying the documents it delivered before.
 * Requests are made while a prefetch records changed documents: each answer
 * is the list as it was before the change or after it, never a mix, and once
 * all is settled every answer is the list after it. Returns how many answers
 * were compared.
 */
export async function runClient(seed, rounds) {
  const next = mulberry(seed);
  const texts = new Map();
  let revision = 0;
  for (let id = 0; id < 30; id++) texts.set(String(id), documentText(next, String(id), ++revision));
  let fetches = 0;
  const fetch = async (url) => {
    fetches++;
    const params = new URL(url).searchParams;
    const limit = Number(params.get("limit") ?? 25), offset = Number(params.get("offset") ?? 0);
    const all = [...texts.values()];
    const data = all.slice(offset, offset + limit);
    return new Response(`{"data":[${data.join(",")}],"meta":{"count":${data.length},"limit":${limit},"offset":${offset},"total":${all.length}}}`, { headers: { "content-type": "application/json" } });
  };
  const client = new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: "held-test-key", retries: 0, fetch, cache: { storage: "memory", policy: "cache-first", maxAgeMs: 1e12 } });
  await client.prefetch("documents", { pageSize: 10 });
  const expected = (query) => sdk.applyQuery([...texts.values()].map((text) => JSON.parse(text)), query);
  const randomQuery = () => {
    let query = new sdk.Query().fields(SELECTIONS[Math.floor(next() * (SELECTIONS.length - 1))]).limit(1 + Math.floor(next() * 30));
    if (next() < 0.7) query = query.sort("fields.n", next() < 0.5 ? "ASC" : "DESC");
    if (next() < 0.3) query = query.offset(Math.floor(next() * 5));
    return query;
  };
  let compared = 0;
  const check = (answer, query, ...choices) => {
    assert.equal(answer.source, "cache", query.toString());
    const plain = { data: answer.data, meta: answer.meta };
    assert.ok(choices.some((choice) => JSON.stringify(choice) === JSON.stringify(plain)), `an answer of neither state: ${query}`);
    assert.deepStrictEqual(plain, choices.find((choice) => JSON.stringify(choice) === JSON.stringify(plain)), query.toString());
    compared++;
  };
  // `all`: every page from the query's offset, gathered from the pages'
  // answers (objects copied from held documents once they are held).
  const expectedAll = (query) => {
    const { data } = expected(query.clone().limit(1000));
    const offset = query.offsetValue ?? 0;
    return { data, meta: { count: data.length, limit: data.length, offset, total: offset + data.length } };
  };
  for (let round = 0; round < rounds; round++) {
    const queries = [randomQuery(), randomQuery(), randomQuery()];
    // Held first: each query answered three times in turn, and all of it.
    for (const query of queries) for (let i = 0; i < 3; i++) check(await client.documents(query), query, expected(query));
    for (const query of queries) for (let i = 0; i < 2; i++) check(await client.all("documents", query, { maxPages: 100 }), query, expectedAll(query));
    const fetchesBefore = fetches;
    const [before, beforeAll] = [queries.map(expected), queries.map(expectedAll)];
    for (const id of texts.keys()) if (next() < 0.3) texts.set(id, documentText(next, id, ++revision));
    const [after, afterAll] = [queries.map(expected), queries.map(expectedAll)];
    const early = queries.map((query) => client.documents(query));
    // One page: the change is recorded at once (pages would be one by one).
    const prefetch = client.prefetch("documents", { pageSize: 100 });
    const late = queries.flatMap((query) => [client.documents(query), client.documents(query)]);
    const alls = queries.map((query) => client.all("documents", query, { maxPages: 100 }));
    const answers = await Promise.all([...early, ...late]);
    await prefetch;
    assert.equal(fetches - fetchesBefore, 1, "the prefetch alone fetched");
    answers.forEach((answer, i) => {
      const q = i < 3 ? i : Math.floor((i - 3) / 2);
      check(answer, queries[q], before[q], after[q]);
      scribble(answer);
    });
    // An `all` spanning the change: each page is of one state or the
    // other (so each document is of one), as many documents as either.
    for (const [q, answer] of (await Promise.all(alls)).entries()) {
      assert.equal(answer.source, "cache");
      assert.deepStrictEqual(answer.meta, afterAll[q].meta);
      const known = new Set([...beforeAll[q].data, ...afterAll[q].data].map((doc) => JSON.stringify(doc)));
      for (const doc of answer.data) assert.ok(known.has(JSON.stringify(doc)), `a document of neither state: ${queries[q]}`);
      scribble(answer);
      compared++;
    }
    for (const query of queries) check(await client.all("documents", query, { maxPages: 100 }), query, expectedAll(query));
    for (const [q, query] of queries.entries()) for (let i = 0; i < 3; i++) check(await client.documents(query), query, after[q]);
  }
  client.free();
  return compared;
}

/**
 * Under network-first, a request whose fetch fails late falls back to the
 * cache's answer, computed when the request started. Meanwhile a document
 * changed and its new version was delivered: the late answer is the list
 * before or after the change, and later answers hold the new version (the
 * late answer's page must not bring the old one back). Returns how many
 * answers were compared.
 */
export async function runFallback(seed) {
  const next = mulberry(seed);
  const big = "x".repeat(400);
  const texts = new Map();
  let revision = 0;
  const doc = (id) => {
    const base = JSON.parse(documentText(next, id, ++revision));
    base.fields.n = Number(id);
    base.fields.big = big;
    return JSON.stringify(base);
  };
  for (let id = 0; id < 20; id++) texts.set(String(id), doc(String(id)));
  let mode = "ok";
  let hang;
  const fetch = async (url) => {
    if (mode === "fail") throw new TypeError("fetch failed");
    if (mode === "hang") return new Promise((_, reject) => (hang = () => reject(new TypeError("fetch failed"))));
    const parsed = new URL(url);
    const one = parsed.pathname.match(/documents\/(\w+)$/);
    if (one) return new Response(texts.get(one[1]));
    const all = [...texts.values()];
    const limit = Number(parsed.searchParams.get("limit") ?? 25);
    return new Response(`{"data":[${all.slice(0, limit).join(",")}],"meta":{"count":${Math.min(limit, all.length)},"limit":${limit},"offset":0,"total":${all.length}}}`);
  };
  const client = new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: "held-test-key", retries: 0, fetch, cache: { storage: "memory", policy: "network-first" } });
  await client.prefetch("documents", { pageSize: 100 });
  const query = new sdk.Query().fields(SELECTIONS[seed % 2]).sort("fields.n", "ASC").limit(30);
  const expected = () => sdk.applyQuery([...texts.values()].map((text) => JSON.parse(text)), query);
  const plain = (answer) => ({ data: answer.data, meta: answer.meta });
  // Calls with a signal are never shared with a pending identical call.
  const own = () => ({ signal: new AbortController().signal });
  let compared = 0;
  mode = "fail";
  assert.deepStrictEqual(plain(await client.documents(query, own())), expected());
  mode = "hang";
  const late = client.documents(query);
  while (hang === undefined) await new Promise((resolve) => setImmediate(resolve));
  const before = expected();
  const id = String(seed % 20);
  texts.set(id, doc(id));
  mode = "ok";
  await client.document(id, undefined, own());
  const after = expected();
  mode = "fail";
  for (let i = 0; i < 2; i++) {
    assert.deepStrictEqual(plain(await client.documents(query, own())), after);
    compared++;
  }
  hang();
  const got = JSON.stringify(plain(await late));
  assert.ok(got === JSON.stringify(before) || got === JSON.stringify(after), "the late answer is of one state");
  for (let i = 0; i < 3; i++) {
    assert.deepStrictEqual(plain(await client.documents(query, own())), after, `answer ${i} after the late one`);
    compared++;
  }
  client.free();
  return compared + 1;
}

/**
 * Calls `work` with `JSON.parse` watched; the texts it parsed. (The answers
 * that copy held documents parse only what is not held.)
 */
export async function parsedBy(work) {
  const parse = JSON.parse;
  const texts = [];
  JSON.parse = function (text, reviver) {
    texts.push(String(text));
    return reviver === undefined ? parse(text) : parse(text, reviver);
  };
  try {
    await work();
  } finally {
    JSON.parse = parse;
  }
  return texts;
}
