// The HTTP client in Node: the shared request cases against the real fixture
// server on 127.0.0.1, and an injected fetch that needs no server.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../www/server.mjs";
import { fixtureControl } from "./fixture-control.mjs";
import { cases } from "./client-cases.mjs";

const sdk = await import("../../pkg/node/index.js");
const apiKey = "node-test-key-1234";
let server;
let env;

before(async () => {
  server = await startServer({ port: 0, apiKey, control: true });
  env = {
    baseUrl: server.url,
    apiKey,
    control: fixtureControl(server.url),
  };
});

after(() => server.close());
beforeEach(() => env.control.reset());

for (const [name, run] of Object.entries(cases)) {
  test(name, { timeout: 20_000 }, () => run(sdk, env));
}

test("an injected fetch is called with the URL, GET, the Authorization header and a signal", async () => {
  const calls = [];
  const fakeFetch = async (url, init) => {
    calls.push({ url, method: init.method, authorization: init.headers.Authorization, accept: init.headers.Accept, signal: init.signal instanceof AbortSignal });
    if (calls.length === 1) return new Response("busy", { status: 503 });
    return new Response(JSON.stringify({ data: [{ fields: { title: "x" }, meta: { id: "1" } }], meta: { count: 1, limit: 25, offset: 0, total: 1 } }), { status: 200 });
  };
  const client = new sdk.Client({ baseUrl: "https://cms.invalid/base/", repository: "blog", apiKey: "injected-key", authScheme: "Bearer ", fetch: fakeFetch, retryDelayMs: 1 });
  const list = await client.collection("posts", new sdk.Query().sort("fields.title", 1).limit(1));
  assert.deepEqual(list.data, [{ fields: { title: "x" }, meta: { id: "1" } }]);
  assert.equal(calls.length, 2, "retried once after the 503");
  for (const call of calls) {
    assert.equal(call.url, "https://cms.invalid/base/v1/blog/collections/posts?sorting%5Bfields.title%5D=ASC&limit=1");
    assert.equal(call.method, "GET");
    assert.equal(call.authorization, "Bearer injected-key");
    assert.equal(call.accept, "application/json");
    assert.equal(call.signal, true);
  }
  await assert.rejects(
    new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "k", fetch: async () => { throw new TypeError("offline"); }, retries: 0 }).documents(),
    (error) => error.code === "network" && error.message.includes("offline"),
  );
  assert.throws(() => new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "k", fetch: "nope" }), (e) => e.code === "invalid_argument");
});

test("a network error names the reason beneath the runtime's own message, without the key", async () => {
  // As Node's fetch fails: "fetch failed", the reason in `cause` (a message, or a system error's code).
  const failing = (cause) => async () => {
    throw new TypeError("fetch failed", { cause });
  };
  const reasons = [
    [new Error("redirect count exceeded"), "fetch failed (redirect count exceeded)"],
    [Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" }), "fetch failed (ECONNREFUSED)"],
    [new Error(""), "fetch failed"],
    [undefined, "fetch failed"],
    [new Error("rejected Authorization: secret-key-123"), "fetch failed (rejected Authorization: "],
  ];
  for (const [cause, expected] of reasons) {
    const client = new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "secret-key-123", fetch: failing(cause), retries: 0 });
    const error = await client.documents().then(() => assert.fail("resolved"), (e) => e);
    assert.equal(error.code, "network");
    assert.ok(error.message.startsWith(`network error: ${expected}`), error.message);
    if (expected === "fetch failed") assert.equal(error.message, "network error: fetch failed");
    assert.ok(!error.message.includes("secret-key-123"), error.message);
  }
  // Numbers in these messages as the module writes them (not Rust's `inf`).
  const odd = new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "k", fetch: async () => ({ status: -Infinity }), retries: 0 });
  const error = await odd.documents().then(() => assert.fail("resolved"), (e) => e);
  assert.equal(error.message, "network error: the response's status is -Infinity, not an HTTP status");
});

test("timeouts and the caller's signal abort the underlying fetch", async () => {
  const signals = [];
  const hanging = (url, init) => {
    signals.push(init.signal);
    return new Promise((_, reject) => init.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
  };
  const timed = new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "k", fetch: hanging, timeoutMs: 50 });
  await assert.rejects(timed.documents(), (e) => e.code === "timeout" && e.message.includes("50 ms"));
  assert.equal(signals.length, 1, "a timeout is not retried");
  assert.equal(signals[0].aborted, true, "the fetch's own signal was aborted");
  const caller = new AbortController();
  const open = new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "k", fetch: hanging, timeoutMs: 0 });
  const pending = open.documents(undefined, { signal: caller.signal });
  await new Promise((r) => setTimeout(r, 20));
  caller.abort();
  await assert.rejects(pending, (e) => e.code === "aborted");
  assert.equal(signals[1].aborted, true, "the caller's abort reached the fetch");
  assert.throws(() => new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "k", timeoutMs: -1 }), (e) => e.code === "invalid_argument");
});

test("a call's task is released when the call is over: memory does not grow with the answers", async () => {
  // Each answer is about 2 MB of text; the module keeps none of it once the
  // call is over (the task's memory is released at once, not when the
  // garbage collector gets to its JavaScript object).
  const data = Array.from({ length: 1000 }, (_, i) => ({ fields: { text: "x".repeat(2000) }, meta: { id: String(i) } }));
  const body = JSON.stringify({ data, meta: { count: data.length, limit: data.length, offset: 0, total: data.length } });
  const fetch = async () => new Response(body, { status: 200 });
  const client = new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "k", fetch });
  const cached = new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "k", fetch, cache: { storage: "memory", policy: "stale-while-revalidate" } });
  await client.documents();
  await cached.documents();
  const start = sdk.wasmMemoryBytes();
  for (let i = 0; i < 30; i++) {
    assert.equal((await client.documents(new sdk.Query().limit(100).offset(i))).data.length, data.length);
    await cached.documents();
    for await (const page of client.pages("documents", new sdk.Query().limit(1000))) assert.equal(page.data.length, data.length);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  const grown = sdk.wasmMemoryBytes() - start;
  assert.ok(grown < 30e6, `the module's memory grew by ${grown} bytes over 90 answers of ${body.length} bytes`);
});

test("identical calls that share a GET hold its answer once in the module, not once per caller", async () => {
  // 300 concurrent calls of one list of about 200 KB: one request, and the
  // module's memory grows by a few copies of the text at most (it grew by
  // 300 copies, 60 MB, when each caller copied the shared body).
  const data = Array.from({ length: 100 }, (_, i) => ({ fields: { text: "x".repeat(2000) }, meta: { id: String(i) } }));
  const body = JSON.stringify({ data, meta: { count: data.length, limit: data.length, offset: 0, total: data.length } });
  let requests = 0;
  let gate = Promise.resolve();
  const fetch = async () => {
    requests += 1;
    await gate;
    return new Response(body, { status: 200 });
  };
  const client = new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "k", fetch });
  await client.documents(new sdk.Query().limit(5));
  requests = 0;
  let release;
  gate = new Promise((resolve) => (release = resolve));
  const start = sdk.wasmMemoryBytes();
  const calls = Array.from({ length: 300 }, () => client.documents());
  release();
  for (const list of await Promise.all(calls)) assert.equal(list.data.length, data.length);
  assert.equal(requests, 1, "one GET for the 300 calls");
  const grown = sdk.wasmMemoryBytes() - start;
  assert.ok(grown < 20 * body.length, `300 callers of one ${body.length}-byte answer: the module's memory grew by ${grown} bytes`);
});

test("free() gives a cached client's memory back at once, not when the collector comes", async () => {
  const data = Array.from({ length: 2000 }, (_, i) => ({ fields: { title: `t${i}`, body: "x".repeat(500) }, meta: { id: String(i) } }));
  const body = JSON.stringify({ data, meta: { count: data.length, limit: 2000, offset: 0, total: data.length } });
  const fetch = async () => new Response(body, { status: 200, headers: { "Content-Type": "application/json" } });
  const make = () => new sdk.Client({ baseUrl: "https://cms.invalid", repository: "blog", apiKey: "k", fetch, cache: { storage: "memory", policy: "cache-first" } });
  const first = make();
  await first.documents(new sdk.Query().limit(1000));
  first.free();
  const start = sdk.wasmMemoryBytes();
  for (let i = 0; i < 40; i++) {
    const client = make();
    const list = await client.documents(new sdk.Query().limit(1000));
    assert.equal(list.data.length, data.length);
    assert.equal(client.cache.size, data.length);
    client.free();
  }
  const grown = sdk.wasmMemoryBytes() - start;
  assert.ok(grown < 20e6, `40 clients of ${body.length} bytes each, freed at once: the module's memory grew by ${grown} bytes`);
});
