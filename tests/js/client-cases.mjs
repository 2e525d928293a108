// Request cases against the real fixture server, shared by Node
// (client.test.mjs) and headless Chromium (browser.test.mjs). Each case is
// `async (sdk, env) => void` and throws on failure; `env` is
// `{ baseUrl, apiKey, control: { script, requests, reset } }`.

function check(condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

function equal(actual, expected, message) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}: expected ${e}, got ${a}`);
}

async function rejects(promise, code, message) {
  try {
    await promise;
  } catch (error) {
    equal(error.code, code, `${message}: error code (${error.message})`);
    check(error.name === "ContentRepoError", `${message}: a ContentRepoError`);
    check(error instanceof Error, `${message}: an Error`);
    return error;
  }
  throw new Error(`${message}: expected a ${code} rejection`);
}

function client(sdk, env, options = {}) {
  return new sdk.Client({
    baseUrl: env.baseUrl,
    repository: "demo",
    apiKey: env.apiKey,
    retryDelayMs: 5,
    ...options,
  });
}

/** The API requests the server received since the last reset. */
async function apiRequests(env) {
  return (await env.control.requests()).filter((r) => r.method === "GET");
}

function noKey(env, error, where) {
  for (const text of [error.message, String(error), error.stack ?? "", JSON.stringify(error)]) {
    check(!text.includes(env.apiKey), `${where}: the API key leaks`);
  }
}

export const cases = {
  async "every endpoint, with the exact URL and Authorization header"(sdk, env) {
    const c = client(sdk, env);
    const q = new sdk.Query().sort("fields.title", "ASC").fields("title").limit(3);
    const list = await c.documents(q);
    check(Array.isArray(list.data) && list.data.length === 3, "documents returns 3");
    equal(Object.keys(list.data[0]).sort(), ["fields", "meta"], "projected document keys");
    equal(Object.keys(list.data[0].fields), ["title"], "only the title");
    check(list.meta.total === 300, "total of all documents");

    const products = await c.collection("products", "limit=2");
    check(products.data.every((d) => d.meta.contentType === "product"), "a collection");
    const one = products.data[0];
    const doc = await c.document(one.meta.id, new sdk.Query().fields("meta(id)"));
    equal(doc, { meta: { id: one.meta.id } }, "one document, projected");
    const alias = await c.alias("home");
    check(alias.meta && alias.fields, "the alias document");
    const asset = await c.asset("421767582751430236");
    equal(asset.fields.title, "Hero image", "the asset");
    const info = await c.repository();
    equal(info.id, "demo", "the repository info");
    const raw = await c.get("collections/authors", new sdk.Query().limit(1));
    check(raw.data.length === 1 && raw.data[0].meta.contentType === "author", "a raw endpoint");

    const seen = await apiRequests(env);
    equal(seen.map((r) => r.url), [
      "/v1/demo/documents?sorting%5Bfields.title%5D=ASC&fields=fields%2Ftitle%2Cmeta&limit=3",
      "/v1/demo/collections/products?limit=2",
      `/v1/demo/documents/${one.meta.id}?fields=meta%2Fid`,
      "/v1/demo/alias/home",
      "/v1/demo/assets/421767582751430236",
      "/v1/demo",
      "/v1/demo/collections/authors?limit=1",
    ], "the URLs the server received");
    check(seen.every((r) => r.authorization === env.apiKey), "the raw key in Authorization");
  },

  async "an auth scheme prefixes the key"(sdk, env) {
    const c = client(sdk, env, { authScheme: "Bearer " });
    await c.collection("authors", "limit=1");
    equal((await apiRequests(env))[0].authorization, `Bearer ${env.apiKey}`, "Bearer scheme");
  },

  async "HTTP errors carry the status and the service's message, and are not retried"(sdk, env) {
    const wrong = new sdk.Client({ baseUrl: env.baseUrl, repository: "demo", apiKey: "wrong-key", retryDelayMs: 5 });
    const denied = await rejects(wrong.documents(), "http", "a wrong key");
    equal(denied.status, 401, "401");
    check(denied.message.includes("Invalid authentication credentials"), `the service's message: ${denied.message}`);
    check(!denied.message.includes("wrong-key"), "the key is not in the message");
    const c = client(sdk, env);
    await env.control.reset();
    await env.control.script({ responses: [{ status: 400, body: { error: { message: "limit is out of range" } } }] });
    const invalid = await rejects(c.documents(), "http", "a 400");
    equal(invalid.status, 400, "400");
    check(invalid.message.includes("limit is out of range"), invalid.message);
    const missing = await rejects(c.document("999999999999999999"), "http", "a 404");
    equal(missing.status, 404, "404");
    await env.control.script({ responses: [{ status: 500 }] });
    const server = await rejects(c.documents(), "http", "a 500");
    equal(server.status, 500, "500");
    equal((await apiRequests(env)).length, 3, "400, 404 and 500 are each sent once");
    for (const error of [denied, invalid, missing, server]) noKey(env, error, "http error");
  },

  async "bad input is rejected before any request"(sdk, env) {
    const c = client(sdk, env);
    await rejects(c.document(""), "invalid_argument", "empty id");
    await rejects(c.document(".."), "invalid_argument", "dot-dot id");
    await rejects(c.collection(5), "invalid_argument", "non-string api id");
    await rejects(c.documents("limit=0"), "invalid_argument", "bad query string");
    await rejects(c.documents(undefined, { signal: "nope" }), "invalid_argument", "bad signal");
    await rejects(c.get("a//b"), "invalid_argument", "bad raw endpoint");
    equal((await apiRequests(env)).length, 0, "nothing was sent");
  },

  async "pages follow limit, offset and meta.total; all collects them under a ceiling"(sdk, env) {
    const c = client(sdk, env);
    const sizes = [];
    for await (const page of c.pages({ collection: "products" }, new sdk.Query().limit(50).fields("meta(id)"))) {
      sizes.push(page.data.length);
    }
    equal(sizes, [50, 50, 30], "three pages of products");
    const all = await c.all("collections/products", new sdk.Query().limit(40).sort("meta.id", "ASC"));
    equal(all.data.length, 130, "all products");
    equal(all.meta.total, 130, "meta.total");
    const ids = all.data.map((d) => d.meta.id);
    equal(new Set(ids).size, 130, "no duplicates across pages");
    const ceiling = await rejects(c.all("collections/products", new sdk.Query().limit(10), { maxPages: 2 }), "invalid_argument", "the ceiling");
    check(ceiling.message.includes("maxPages"), ceiling.message);
    const urls = (await apiRequests(env)).map((r) => r.url);
    check(urls.includes("/v1/demo/collections/products?fields=meta%2Fid&limit=50&offset=100"), `page 3 URL in ${urls}`);
    // Breaking out of the loop ends the iteration.
    let pages = 0;
    for await (const page of c.pages("collections/authors", "limit=5")) {
      pages += page.data.length > 0 ? 1 : 0;
      break;
    }
    equal(pages, 1, "break stops");
    await rejects(Promise.resolve().then(() => c.pages({ document: "1" })), "invalid_argument", "pages of a document");
  },

  async "a timeout aborts the fetch and rejects with timeout"(sdk, env) {
    await env.control.script({ responses: [{ delayMs: 3000 }] });
    const c = client(sdk, env, { timeoutMs: 200 });
    const started = Date.now();
    await rejects(c.documents(), "timeout", "a slow response");
    const elapsed = Date.now() - started;
    check(elapsed >= 150 && elapsed < 2000, `timed out after ${elapsed} ms`);
  },

  async "the caller's AbortSignal cancels the request, even before it starts"(sdk, env) {
    const c = client(sdk, env);
    const early = new AbortController();
    early.abort();
    await rejects(c.documents(undefined, { signal: early.signal }), "aborted", "already aborted");
    equal((await apiRequests(env)).length, 0, "an aborted call sends nothing");
    await env.control.script({ responses: [{ delayMs: 3000 }] });
    const late = new AbortController();
    setTimeout(() => late.abort(), 100);
    const started = Date.now();
    await rejects(c.documents(undefined, { signal: late.signal }), "aborted", "aborted in flight");
    check(Date.now() - started < 2000, "aborted promptly");
  },

  async "an aborted call's error has the signal's reason as its cause"(sdk, env) {
    const c = client(sdk, env);
    const reason = { why: "the user left the page" };
    const early = new AbortController();
    early.abort(reason);
    const before = await rejects(c.documents(undefined, { signal: early.signal }), "aborted", "aborted before");
    check(before.cause === reason, "the reason given to abort() is the cause");
    check(Object.getOwnPropertyDescriptor(before, "cause")?.enumerable === false, "cause is not enumerable, as an Error's own");
    const big = new AbortController();
    big.abort(10n);
    const bigError = await rejects(c.documents(undefined, { signal: big.signal }), "aborted", "a BigInt reason");
    check(bigError.cause === 10n && JSON.stringify(bigError).includes('"aborted"'), "the error still serializes");
    await env.control.script({ responses: [{ delayMs: 3000 }, { delayMs: 3000 }, { delayMs: 3000 }] });
    const late = new AbortController();
    setTimeout(() => late.abort(reason), 50);
    const pages = c.pages("documents", "limit=2", { signal: late.signal });
    const paged = await rejects(pages.next(), "aborted", "a page aborted in flight");
    check(paged.cause === reason, "a page's abort has the reason as its cause");
    const timed = await rejects(c.all("documents", "limit=2", { signal: AbortSignal.timeout(50) }), "aborted", "AbortSignal.timeout");
    check(timed.cause?.name === "TimeoutError", `the cause is the TimeoutError, got ${timed.cause}`);
    const plain = new AbortController();
    setTimeout(() => plain.abort(), 50);
    const unnamed = await rejects(c.document("1", undefined, { signal: plain.signal }), "aborted", "abort()");
    check(unnamed.cause?.name === "AbortError", `abort() without a reason: the AbortError, got ${unnamed.cause}`);
  },

  async "retries: 503, 502, 504, 429 and network errors, then success"(sdk, env) {
    const c = client(sdk, env);
    await env.control.script({ responses: [{ status: 503 }, { status: 502 }, { status: 504 }] });
    const list = await c.collection("authors", "limit=1");
    equal(list.data.length, 1, "succeeds after three retries");
    equal((await apiRequests(env)).length, 4, "four attempts");
    await env.control.reset();
    await env.control.script({ responses: [{ kind: "disconnect" }, { status: 429 }] });
    await c.collection("authors", "limit=1");
    equal((await apiRequests(env)).length, 3, "network error and 429 retried");
  },

  async "retries give up after the configured number"(sdk, env) {
    const c = client(sdk, env, { retries: 1 });
    await env.control.script({ responses: [{ status: 503 }, { status: 503 }, { status: 503 }] });
    const error = await rejects(c.documents(), "http", "still 503");
    equal(error.status, 503, "the last status");
    equal((await apiRequests(env)).length, 2, "one retry");
    await env.control.reset();
    const none = client(sdk, env, { retries: 0 });
    await env.control.script({ responses: [{ status: 429 }] });
    await rejects(none.documents(), "http", "no retries");
    equal((await apiRequests(env)).length, 1, "no retry");
  },

  async "Retry-After in seconds and as an HTTP date is honoured, and capped"(sdk, env) {
    const c = client(sdk, env, { retryDelayMs: 1 });
    await env.control.script({ responses: [{ status: 429, retryAfter: "1" }] });
    let started = Date.now();
    await c.collection("authors", "limit=1");
    let elapsed = Date.now() - started;
    check(elapsed >= 900, `waited ${elapsed} ms for Retry-After: 1`);
    const at = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
    await env.control.script({ responses: [{ status: 503, retryAfter: at.toUTCString() }] });
    started = Date.now();
    await c.collection("authors", "limit=1");
    const waitedUntil = Date.now();
    check(waitedUntil >= at.getTime() - 100, `waited until the HTTP date (${waitedUntil - at.getTime()} ms)`);
    const capped = client(sdk, env, { maxRetryDelayMs: 50 });
    await env.control.script({ responses: [{ status: 503, retryAfter: "30" }] });
    started = Date.now();
    await capped.collection("authors", "limit=1");
    elapsed = Date.now() - started;
    check(elapsed < 1500, `Retry-After capped by maxRetryDelayMs (${elapsed} ms)`);
  },

  async "never retries after the caller aborted"(sdk, env) {
    // Retry-After makes the wait certain (backoff alone is jittered from 0).
    const c = client(sdk, env);
    await env.control.script({ responses: [{ status: 503, retryAfter: "5" }, { status: 503 }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    await rejects(c.documents(undefined, { signal: controller.signal }), "aborted", "abort during backoff");
    check(Date.now() - started < 1500, "the backoff wait is cancelled");
    await new Promise((resolve) => setTimeout(resolve, 100));
    equal((await apiRequests(env)).length, 1, "no retry after the abort");
  },

  async "identical concurrent GETs share one request"(sdk, env) {
    const c = client(sdk, env);
    await env.control.script({ responses: [{ delayMs: 200 }] });
    const [a, b, other] = await Promise.all([
      c.collection("authors", "limit=2"),
      c.collection("authors", "limit=2"),
      c.collection("authors", "limit=3"),
    ]);
    equal(a, b, "the same answer");
    check(a !== b, "each caller gets its own objects");
    equal(other.data.length, 3, "another URL");
    const urls = (await apiRequests(env)).map((r) => r.url);
    equal(urls.filter((u) => u.endsWith("limit=2")).length, 1, "one request for the shared URL");
    // With a signal, calls are independent.
    await env.control.reset();
    const signal = new AbortController().signal;
    await Promise.all([c.collection("authors", "limit=2", { signal }), c.collection("authors", "limit=2", { signal })]);
    equal((await apiRequests(env)).length, 2, "calls with a signal are not shared");
    // After settling, a new call sends a new request.
    await c.collection("authors", "limit=2");
    equal((await apiRequests(env)).length, 3, "nothing is cached by deduplication");
    // A shared failure: each caller gets its own error, the same in all but identity.
    await env.control.reset();
    await env.control.script({ responses: [{ status: 404, delayMs: 200, body: { message: "gone" } }] });
    const [first, second] = await Promise.all([
      rejects(c.collection("authors", "limit=4"), "http", "a shared 404"),
      rejects(c.collection("authors", "limit=4"), "http", "a shared 404"),
    ]);
    check(first !== second, "each caller gets its own error");
    equal([second.status, second.message], [first.status, first.message], "the same error");
    check(second instanceof sdk.ContentRepoError, "a ContentRepoError");
    check(Object.prototype.toString.call(second) === "[object Error]", "a real Error (its internal slot)");
    equal(structuredClone(second).message, first.message, "cloned as an Error");
    equal((await apiRequests(env)).length, 1, "one request for both");
  },

  async "a call that shares a GET has its own time budget"(sdk, env) {
    // The first caller's budget runs out first: the second goes on within what is left of its own.
    const c = client(sdk, env, { timeoutMs: 900 });
    await env.control.script({ responses: [{ delayMs: 3000 }, { delayMs: 0 }] });
    const first = rejects(c.collection("authors", "limit=2"), "timeout", "the first caller");
    await new Promise((resolve) => setTimeout(resolve, 450));
    const joined = Date.now();
    const second = await c.collection("authors", "limit=2");
    await first;
    equal(second.data.length, 2, "the second caller's answer");
    equal((await apiRequests(env)).length, 2, "sent again for the second caller");
    // And times out when its own budget ends, with its own figure.
    await env.control.reset();
    await env.control.script({ responses: [{ delayMs: 3000 }, { delayMs: 3000 }] });
    const again = rejects(c.collection("authors", "limit=3"), "timeout", "the first caller");
    await new Promise((resolve) => setTimeout(resolve, 450));
    const started = Date.now();
    const late = await rejects(c.collection("authors", "limit=3"), "timeout", "the second caller");
    const elapsed = Date.now() - started;
    await again;
    check(elapsed >= 800 && elapsed < 2500, `the second caller timed out after ${elapsed} ms of its own`);
    check(late.message.includes("900 ms"), late.message);
    // A call that joined just after the first has almost none of its budget left then: it sends
    // nothing more, and times out at its own deadline.
    await env.control.reset();
    await env.control.script({ responses: [{ delayMs: 3000 }, { delayMs: 0 }] });
    const third = rejects(c.collection("authors", "limit=4"), "timeout", "the first caller");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const close = Date.now();
    await rejects(c.collection("authors", "limit=4"), "timeout", "a call that joined at once");
    const waited = Date.now() - close;
    await third;
    check(waited >= 800 && waited < 2500, `it timed out after ${waited} ms of its own`);
    equal((await apiRequests(env)).length, 1, "no request sent with almost no time left");
    check(Date.now() - joined < 8000, "bounded");
  },

  async "a call that shares a GET makes the retry that the first caller's deadline cut short"(sdk, env) {
    // A 503 whose Retry-After (1 s) would end past the first caller's budget (2 s), not past the
    // second's: the first rejects with it, the second waits as the retry would have and sends.
    const c = client(sdk, env, { timeoutMs: 2000 });
    await env.control.reset();
    await env.control.script({ responses: [{ status: 503, retryAfter: "1", delayMs: 1200 }, { delayMs: 0 }] });
    const began = Date.now();
    const first = rejects(c.collection("authors", "limit=2"), "http", "the first caller");
    await new Promise((resolve) => setTimeout(resolve, 700));
    const second = await c.collection("authors", "limit=2");
    const error = await first;
    const took = Date.now() - began;
    equal([error.status, second.data.length], [503, 2], "the first caller's error, the second's answer");
    equal((await apiRequests(env)).length, 2, "sent again for the second caller");
    check(took >= 2100 && took < 2700, `the second sent when the retry was due: answered after ${took} ms`);
    // A call whose own budget ends before that retry was due rejects with the same error, sending nothing.
    await env.control.reset();
    await env.control.script({ responses: [{ status: 503, retryAfter: "1", delayMs: 1200 }, { delayMs: 0 }] });
    const again = rejects(c.collection("authors", "limit=3"), "http", "the first caller");
    await new Promise((resolve) => setTimeout(resolve, 20));
    const late = await rejects(c.collection("authors", "limit=3"), "http", "a call that joined at once");
    await again;
    equal(late.status, 503, "the shared error");
    equal((await apiRequests(env)).length, 1, "no retry past its own deadline");
    // The second caller, going on when the retry is due, joins a third caller's GET (sent in the
    // meantime), whose answer comes after the second's deadline: the second times out, the third
    // gets its answer.
    await env.control.reset();
    await env.control.script({ responses: [{ status: 503, retryAfter: "1", delayMs: 1200 }, { delayMs: 1600 }] });
    const start = Date.now();
    const owner = rejects(c.collection("authors", "limit=4"), "http", "the first caller");
    await new Promise((resolve) => setTimeout(resolve, 700));
    const waiting = rejects(c.collection("authors", "limit=4"), "timeout", "the second caller");
    await new Promise((resolve) => setTimeout(resolve, 1600 - (Date.now() - start)));
    const fresh = await c.collection("authors", "limit=4");
    await Promise.all([owner, waiting]);
    equal(fresh.data.length, 4, "the third caller's answer");
    equal((await apiRequests(env)).length, 2, "the second caller sent nothing of its own");
  },

  async "bodies that are not the JSON expected are decode errors with an excerpt"(sdk, env) {
    const c = client(sdk, env);
    await env.control.script({ responses: [{ kind: "truncated" }] });
    const truncated = await rejects(c.collection("authors", "limit=2"), "decode", "a truncated body");
    check(typeof truncated.excerpt === "string" && truncated.excerpt.startsWith("{"), `excerpt: ${truncated.excerpt}`);
    check(truncated.excerpt.length <= 81, "a short excerpt");
    await env.control.script({ responses: [{ kind: "not-json" }] });
    const html = await rejects(c.documents(), "decode", "an HTML body");
    check(html.excerpt.includes("<"), html.excerpt);
    await env.control.script({ responses: [{ body: { items: [] } }] });
    const shape = await rejects(c.documents(), "decode", "a list without data");
    check(shape.message.includes("data"), shape.message);
    for (const error of [truncated, html, shape]) noKey(env, error, "decode error");
  },

  async "network errors after retries, without the key"(sdk, env) {
    const c = new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: env.apiKey, retries: 2, retryDelayMs: 1 });
    const error = await rejects(c.documents(), "network", "nothing listens on port 9");
    noKey(env, error, "network error");
    check(!String(c).includes(env.apiKey), "toString has no key");
  },
};
