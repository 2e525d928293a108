// Issue 14, "nothing a server or a caller sends can break the module": cases
// shared by Node (hostile.test.mjs) and headless Chromium
// (hostile-browser.test.mjs). Each case is `async (sdk, env) => void` and
// throws on failure; `env` is `{ baseUrl, apiKey, control, watchUncaught }`,
// where `watchUncaught()` starts collecting uncaught exceptions and unhandled
// rejections and returns a function that stops and returns them.
//
// Every hostile call asserts: the exact error code, that it settled within
// its bound, that nothing was uncaught, and that a following normal call with
// the same client and URL (to the real fixture server) works.

/** The bound of a call that must fail at once (generous for a busy machine). */
const IMMEDIATE_MS = 1500;
/** How much later than its deadline a timeout or an abort may settle. */
const SLACK_MS = 1000;
/** The timeout of the cases that time out. */
const TIMEOUT_MS = 150;
/** A key with every character that has a short JSON escape or is encoded. */
const SPECIAL_KEY = 's3cr3t/Key "q"\\x+y%z';

function check(condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

function equal(actual, expected, message) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${message}: expected ${e}, got ${a}`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** `{ value }`, `{ error }`, or `{ hung: true }` if `promise` takes over `ms`. */
async function settleWithin(promise, ms) {
  let timer;
  const hang = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ hung: true }), ms);
  });
  try {
    return await Promise.race([promise.then((value) => ({ value }), (error) => ({ error })), hang]);
  } finally {
    clearTimeout(timer);
  }
}

// --- The key in every form a server may echo it (independent of the Rust
// scrubber: this enumerates encodings, the scrubber decodes).

function hex(c) {
  return c.charCodeAt(0).toString(16).padStart(2, "0");
}

/** Every way one printable-ASCII character may be written. */
function encodings(c) {
  const h = hex(c);
  const forms = new Set([c, `\\u00${h}`, `\\u00${h.toUpperCase()}`, `%${h}`, `%${h.toUpperCase()}`]);
  if (c === " ") forms.add("+");
  if (c === '"' || c === "\\" || c === "/") forms.add(`\\${c}`);
  // HTML: decimal and hex character references, and the named ones.
  forms.add(`&#${c.charCodeAt(0)};`).add(`&#x${h};`).add(`&#X${h.toUpperCase()};`);
  const named = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" }[c];
  if (named) forms.add(named);
  return [...forms];
}

/** Whether `text` holds `key` in any mixture of its encodings. */
export function containsKey(text, key) {
  const from = (pos, i) =>
    i === key.length || encodings(key[i]).some((form) => text.startsWith(form, pos) && from(pos + form.length, i + 1));
  for (let pos = 0; pos < text.length; pos++) if (from(pos, 0)) return true;
  return false;
}

/** The forms of `key` a server may echo. */
function echoes(key) {
  const chars = [...key];
  return [
    key,
    JSON.stringify(key).slice(1, -1),
    JSON.stringify(key).slice(1, -1).replaceAll("/", "\\/"),
    chars.map((c) => `\\u00${hex(c)}`).join(""),
    chars.map((c) => `\\u00${hex(c).toUpperCase()}`).join(""),
    encodeURIComponent(key),
    new URLSearchParams({ k: key }).toString().slice(2),
    chars.map((c) => `%${hex(c).toUpperCase()}`).join(""),
    chars.map((c) => `%${hex(c)}`).join(""),
    // HTML-escaped as a template writes it, and every character a reference.
    key.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]),
    chars.map((c) => `&#${c.charCodeAt(0)};`).join(""),
    chars.map((c) => `&#x${hex(c)};`).join(""),
    // One character at a time, each in another form.
    chars.map((c, i) => { const forms = encodings(c); return forms[i % forms.length]; }).join(""),
  ];
}

function noKey(error, key, where) {
  for (const text of [error.message, String(error), error.stack ?? "", JSON.stringify(error), error.excerpt ?? ""]) {
    check(!containsKey(text, key), `${where}: the API key leaks in ${JSON.stringify(text)}`);
  }
}

function isTypedError(error, code, where) {
  check(error instanceof Error, `${where}: an Error (${error})`);
  equal(error.name, "ContentRepoError", `${where}: the class`);
  equal(error.code, code, `${where}: the code (${error.message})`);
}

function throwsCode(make, code, where) {
  try {
    make();
  } catch (error) {
    isTypedError(error, code, where);
    return error;
  }
  throw new Error(`${where}: expected a ${code} error`);
}

// --- Hostile fetches.

const LIST = JSON.stringify({ data: [{ fields: { title: "x" }, meta: { id: "1" } }], meta: { count: 1, limit: 25, offset: 0, total: 1 } });

/**
 * A Response-like object that is fine except for `parts` (copied with their
 * descriptors, so that a getter in `parts` stays a getter).
 */
function fake(parts) {
  const response = { status: 200, headers: new Headers(), text: async () => LIST };
  return Object.defineProperties(response, Object.getOwnPropertyDescriptors(parts));
}

const never = () => new Promise(() => {});

/**
 * Runs one hostile case: `hostile` is the injected fetch's behaviour. Without
 * `abortAfterMs`, two identical concurrent calls (shared) must both fail with
 * `code` and cause one request; with it, one call with a signal aborted after
 * that many ms. Then the same client and URL must work against the server.
 */
async function hostileCall(sdk, env, { name, hostile, code, timeoutMs = 10_000, retries = 0, abortAfterMs, message, requests, beforeNextMs = 0 }) {
  let calls = 0;
  let behave = hostile;
  const fetch = (url, init) => {
    calls += 1;
    return behave(url, init);
  };
  const client = new sdk.Client({ baseUrl: env.baseUrl, repository: "demo", apiKey: env.apiKey, fetch, retries, retryDelayMs: 1, timeoutMs });
  const query = "limit=2";
  const stopWatching = env.watchUncaught();
  let uncaught = [];
  try {
    const started = Date.now();
    let pending;
    let bound;
    if (abortAfterMs !== undefined) {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), abortAfterMs);
      pending = [client.documents(query, { signal: controller.signal })];
      bound = abortAfterMs + SLACK_MS;
    } else {
      pending = [client.documents(query), client.documents(query)];
      bound = code === "timeout" ? timeoutMs + SLACK_MS : IMMEDIATE_MS;
    }
    const outcomes = await Promise.all(pending.map((p) => settleWithin(p, bound + 3000)));
    const elapsed = Date.now() - started;
    for (const outcome of outcomes) {
      check(!outcome.hung, `${name}: the call never settled`);
      check(!("value" in outcome), `${name}: resolved with ${JSON.stringify(outcome.value)}`);
      isTypedError(outcome.error, code, name);
      noKey(outcome.error, env.apiKey, name);
      if (message) check(outcome.error.message.includes(message), `${name}: message ${JSON.stringify(outcome.error.message)}`);
    }
    check(elapsed < bound, `${name}: settled after ${elapsed} ms (bound ${bound} ms)`);
    if (code === "timeout") check(elapsed >= timeoutMs - 20, `${name}: timed out early, after ${elapsed} ms`);
    if (abortAfterMs !== undefined) check(elapsed >= abortAfterMs - 20, `${name}: settled before the abort (${elapsed} ms)`);
    equal(calls, requests ?? retries + 1, `${name}: fetch calls (concurrent identical calls share one)`);
    // The same client and URL still work: the in-flight entry is gone.
    await sleep(beforeNextMs);
    behave = (url, init) => globalThis.fetch(url, init);
    const after = await settleWithin(client.documents(query), 5000);
    check(after.value, `${name}: the next call failed: ${after.error?.message ?? "it hung"}`);
    equal(after.value.data.length, 2, `${name}: the next call's answer`);
    equal(calls, (requests ?? retries + 1) + 1, `${name}: the next call sent a new request`);
    // Late settlements and errors surface.
    await sleep(150);
  } finally {
    uncaught = stopWatching();
  }
  check(uncaught.length === 0, `${name}: uncaught: ${uncaught.map((e) => String(e?.stack ?? e)).join(" | ")}`);
}

/** name → [hostile fetch, code, options]. */
const hostileFetches = {
  "resolves undefined": [async () => undefined, "network", { message: "fetch resolved to undefined" }],
  "resolves null": [async () => null, "network"],
  "resolves a number": [async () => 42, "network"],
  "resolves a string": [async () => "{\"data\":[]}", "network"],
  "resolves a plain object": [async () => ({}), "network"],
  "resolves a function": [async () => () => 1, "network"],
  "resolves Response.error() (status 0)": [async () => Response.error(), "network"],
  "resolves a string status": [async () => fake({ status: "200" }), "network"],
  "resolves a fractional status": [async () => fake({ status: 200.5 }), "network"],
  "resolves a NaN status": [async () => fake({ status: NaN }), "network"],
  "resolves a revoked proxy": [async () => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy; }, "network"],
  "throws a TypeError synchronously": [() => { throw new TypeError("sync boom"); }, "network", { message: "sync boom" }],
  "throws a number synchronously": [() => { throw 42; }, "network"],
  "throws undefined synchronously": [() => { throw undefined; }, "network"],
  "throws a symbol synchronously": [() => { throw Symbol("x"); }, "network"],
  "rejects with undefined": [() => Promise.reject(undefined), "network"],
  "rejects with null": [() => Promise.reject(null), "network"],
  "rejects with a null-prototype object": [() => Promise.reject(Object.create(null)), "network"],
  "rejects with an object whose message getter throws": [() => Promise.reject({ get message() { throw new Error("getter"); } }), "network"],
  "rejects with a revoked proxy": [() => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return Promise.reject(proxy); }, "network"],
  "returns a thenable whose then throws": [() => ({ then() { throw new Error("then boom"); } }), "network", { message: "then boom" }],
  "returns a proxy whose then getter throws": [() => new Proxy({}, { get() { throw new Error("trap boom"); } }), "network", { message: "trap boom" }],
  "has a status getter that throws": [async () => fake({ get status() { throw new Error("status boom"); } }), "network", { message: "status boom" }],
  "has no headers": [async () => fake({ headers: undefined }), "network"],
  "has a headers.get that throws": [async () => fake({ headers: { get() { throw new Error("headers boom"); } } }), "network", { message: "headers boom" }],
  "has a text() that throws synchronously": [async () => fake({ text() { throw new Error("text boom"); } }), "network", { message: "text boom" }],
  "has a text() that returns a number": [async () => fake({ text: () => 42 }), "network"],
  "has a text() that resolves an object": [async () => fake({ text: async () => ({ data: [] }) }), "network"],
  "has a text() that rejects with null": [async () => fake({ text: () => Promise.reject(null) }), "network"],
  "has no text()": [async () => fake({ text: undefined }), "network"],
  "is retried as a network error, then gives up": [() => { throw new TypeError("down"); }, "network", { retries: 2 }],
  "never settles and ignores the signal": [never, "timeout", { timeoutMs: TIMEOUT_MS }],
  "resolves after the timeout, ignoring the signal": [() => sleep(TIMEOUT_MS + 60).then(() => fake({})), "timeout", { timeoutMs: TIMEOUT_MS }],
  "rejects with a non-Error after the timeout, ignoring the signal": [() => sleep(TIMEOUT_MS + 60).then(() => Promise.reject(7)), "timeout", { timeoutMs: TIMEOUT_MS }],
  "has a text() that never settles": [async () => fake({ text: never }), "timeout", { timeoutMs: TIMEOUT_MS }],
  "never settles, and the caller aborts": [never, "aborted", { timeoutMs: 0, abortAfterMs: 100 }],
  "has a text() that never settles, and the caller aborts": [async () => fake({ text: never }), "aborted", { timeoutMs: 0, abortAfterMs: 100 }],
  "never settles, and the caller aborts before the timeout": [never, "aborted", { timeoutMs: 5000, abortAfterMs: 100 }],
};

export const cases = {};

for (const [name, [hostile, code, options = {}]] of Object.entries(hostileFetches)) {
  cases[`an injected fetch that ${name}: ${code}`] = (sdk, env) => hostileCall(sdk, env, { name, hostile, code, ...options });
}

Object.assign(cases, {
  async "a real fetch that ignores the signal still times out, and the server is used afterwards"(sdk, env) {
    // The fixture server delays its answer; the fetch is the real one without
    // the signal, so only the deadline race can end the call. Chromium's HTTP
    // cache holds a second GET of a URL until the first one's response
    // arrives, so the next call waits for the delayed answer to be sent.
    await env.control.script({ responses: [{ delayMs: 800 }] });
    await hostileCall(sdk, env, {
      name: "signal-less real fetch",
      hostile: (url, init) => globalThis.fetch(url, { ...init, signal: undefined }),
      code: "timeout",
      timeoutMs: 200,
      beforeNextMs: 800,
    });
  },

  async "a text() that returns a plain string is read as await would"(sdk, env) {
    const client = new sdk.Client({ baseUrl: env.baseUrl, repository: "demo", apiKey: env.apiKey, fetch: async () => fake({ text: () => LIST }) });
    const list = await client.documents();
    equal(list.data, [{ fields: { title: "x" }, meta: { id: "1" } }], "the body");
  },

  async "API keys and auth schemes must be non-empty printable ASCII, and are never quoted"(sdk, env) {
    const make = (options) => () => new sdk.Client({ baseUrl: env.baseUrl, repository: "demo", apiKey: env.apiKey, ...options });
    for (const apiKey of [
      "",
      "key\nX-Injected: yes",
      "key\r\n",
      "tab\tkey",
      "nul\u0000key",
      "del\u007fkey",
      "clé-secrète",
      "emoji-😀-key",
      "lone-\ud800-surrogate",
      "nbsp\u00a0key",
      "sep\u2028arator-key",
    ]) {
      const error = throwsCode(make({ apiKey }), "invalid_argument", JSON.stringify(apiKey));
      check(error.message.includes("apiKey"), error.message);
      for (const text of [error.message, String(error.stack)]) {
        for (const part of apiKey.split(/[^\x20-\x7e]/)) {
          check(part.length < 4 || !text.includes(part), `${JSON.stringify(part)} is quoted: ${text}`);
        }
      }
    }
    for (const apiKey of [undefined, null, 42, {}, ["k"]]) {
      throwsCode(make({ apiKey }), "invalid_argument", `apiKey ${String(apiKey)}`);
    }
    for (const authScheme of ["Bearer\r\n", "Bearer\n", "Béarer ", "\u007f", 5]) {
      const error = throwsCode(make({ authScheme }), "invalid_argument", `authScheme ${JSON.stringify(authScheme)}`);
      check(error.message.includes("authScheme"), error.message);
    }
    // Every printable ASCII character is sent exactly, after the scheme.
    const printable = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");
    let seen;
    const c = new sdk.Client({
      baseUrl: env.baseUrl,
      repository: "demo",
      apiKey: printable,
      authScheme: "Key ",
      fetch: async (url, init) => {
        seen = init.headers.Authorization;
        return new Response(LIST, { status: 200 });
      },
    });
    await c.documents();
    equal(seen, `Key ${printable}`, "the Authorization header");
    check(!String(c).includes("0123456789"), "toString has no key");
    // The real server still answers the configured key.
    const real = new sdk.Client({ baseUrl: env.baseUrl, repository: "demo", apiKey: env.apiKey, authScheme: "Bearer " });
    equal((await real.documents("limit=1")).data.length, 1, "a Bearer request");
  },

  async "a server echoing the key in escaped forms never gets it into an error"(sdk, env) {
    const stopWatching = env.watchUncaught();
    const c = new sdk.Client({ baseUrl: env.baseUrl, repository: "demo", apiKey: env.apiKey, retries: 0 });
    for (const form of echoes(env.apiKey)) {
      await env.control.script({ responses: [{ status: 400, body: { message: `invalid key ${form}` } }] });
      const http = await settleWithin(c.documents(), 5000);
      isTypedError(http.error, "http", `400 echoing ${form}`);
      noKey(http.error, env.apiKey, `400 echoing ${form}`);
      check(http.error.message.includes("[redacted]"), http.error.message);
      await env.control.script({ responses: [{ kind: "not-json", body: `<p>key=${form}</p>` }] });
      const decode = await settleWithin(c.documents(), 5000);
      isTypedError(decode.error, "decode", `HTML echoing ${form}`);
      noKey(decode.error, env.apiKey, `HTML echoing ${form}`);
      check(decode.error.excerpt.includes("[redacted]"), decode.error.excerpt);
    }
    // A key with characters that have escapes, echoed by an injected fetch
    // in its status message, its body, and a thrown error.
    for (const form of echoes(SPECIAL_KEY)) {
      for (const [where, fetch, code] of [
        ["a 401 message", async () => new Response(JSON.stringify({ error: { message: `bad key ${form}` } }), { status: 401 }), "http"],
        ["a 200 body", async () => new Response(`{"key": "${form}"`, { status: 200 }), "decode"],
        ["a thrown error", () => { throw new TypeError(`connect failed for ${form}`); }, "network"],
        ["a rejection with a string", () => Promise.reject(`refused: ${form}`), "network"],
      ]) {
        const client = new sdk.Client({ baseUrl: env.baseUrl, repository: "demo", apiKey: SPECIAL_KEY, fetch, retries: 0 });
        const outcome = await settleWithin(client.documents(), 5000);
        isTypedError(outcome.error, code, `${where} echoing ${form}`);
        noKey(outcome.error, SPECIAL_KEY, `${where} echoing ${form}`);
      }
    }
    await sleep(50);
    const uncaught = stopWatching();
    check(uncaught.length === 0, `uncaught: ${uncaught.map(String).join(" | ")}`);
  },

  async "a service message that prints as nothing (Unicode's default-ignorable code points) is no message; one beside them is"(sdk) {
    // The runtime's own Unicode data, independent of the module's table.
    const ignorable = /\p{Default_Ignorable_Code_Point}/u;
    const points = [];
    for (let c = 0; c < 0x20000; c++) if (ignorable.test(String.fromCodePoint(c))) points.push(c);
    points.push(0xe0000, 0xe0041, 0xe0fff); // tags: the first, one, the last
    check(points.length > 70, `${points.length} default-ignorable code points`);
    let body;
    const fetch = async () => new Response(body, { status: 500 });
    const client = new sdk.Client({ baseUrl: "https://cms.invalid", repository: "demo", apiKey: "unseen-key", fetch, retries: 0 });
    for (const c of points) {
      body = JSON.stringify({ message: `${String.fromCodePoint(c, c)} `, error: "fallback" });
      const { error } = await settleWithin(client.documents(), 5000);
      equal(error?.message, "HTTP 500: fallback", `U+${c.toString(16)}`);
    }
    // Their neighbours that print (not white space, controls or surrogates) are messages.
    for (const c of points.flatMap((point) => [point - 1, point + 1])) {
      const text = String.fromCodePoint(c);
      if (ignorable.test(text) || /[\s\p{Cc}\p{Cs}]/u.test(text)) continue;
      body = JSON.stringify({ message: text });
      const { error } = await settleWithin(client.documents(), 5000);
      equal(error?.message, `HTTP 500: ${text}`, `U+${c.toString(16)}`);
    }
  },

  async "a call on an object from inside its own call is invalid_argument, and free() then refuses"(sdk) {
    const { DocumentStore, Query } = sdk;
    const store = new DocumentStore();
    store.put([{ fields: { t: 1 }, meta: { id: "1" } }]);
    const inner = [];
    const doc = (run) => ({
      get fields() {
        try {
          run();
          inner.push("no error");
        } catch (error) {
          inner.push(error);
        }
        return { t: 2 };
      },
      meta: { id: "2" },
    });
    store.put([doc(() => store.query(""))]);
    store.put([doc(() => store.free())]);
    equal(inner.length, 2, "both inner calls ran");
    for (const error of inner) {
      check(error?.code === "invalid_argument", `an inner call: ${error?.code ?? error} ${error?.message ?? ""}`);
      check(/this DocumentStore is in use by a call that has not returned/.test(error.message), error.message);
    }
    equal(store.size, 2, "the store was not freed, and holds both documents");
    const q = new Query();
    let caught;
    const filter = {
      get field() {
        try {
          q.limit(1);
        } catch (error) {
          caught = error;
        }
        return "fields.a";
      },
      op: "equal",
      value: "x",
    };
    q.filter(filter);
    check(caught?.code === "invalid_argument" && /this Query is in use/.test(caught.message), `q inside its own call: ${caught?.message ?? caught}`);
    // The object in use is named: here the argument, not the query called.
    const b = new Query();
    let named;
    q.filter({
      get field() {
        try {
          b.equals(q);
        } catch (error) {
          named = error;
        }
        return "fields.a";
      },
      op: "equal",
      value: "x",
    });
    check(named?.code === "invalid_argument" && /other \(a Query\) is in use/.test(named.message), `the argument named: ${named?.message ?? named}`);
    equal(new Query().limit(3).toString(), "limit=3", "other objects work");
    q.limit(2);
    check(String(q).includes("limit=2"), "the query works afterwards");
  },

  async "a revoked Proxy as this or as an argument is invalid_argument, never a TypeError"(sdk) {
    const { DocumentStore, Query } = sdk;
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const calls = {
      "q.equals(revoked)": () => new Query().equals(proxy),
      "Query.prototype.limit.call(revoked)": () => Query.prototype.limit.call(proxy, 1),
      "DocumentStore.prototype.query.call(revoked)": () => DocumentStore.prototype.query.call(proxy, ""),
      "the size getter on revoked": () => Object.getOwnPropertyDescriptor(DocumentStore.prototype, "size").get.call(proxy),
    };
    for (const [name, call] of Object.entries(calls)) throwsCode(call, "invalid_argument", name);
  },

  async "a store's get and delete of an id with a lone surrogate reach that document, never the U+FFFD one"(sdk) {
    const store = new sdk.DocumentStore();
    const ids = ["\ud800", "\ufffd", "a\udfffb", "\ud83d\ude00"];
    store.put(ids.map((id, i) => ({ fields: { i }, meta: { id } })));
    equal(store.size, 4, "four distinct ids");
    ids.forEach((id, i) => equal(store.get(id)?.fields.i, i, `get(${JSON.stringify(id)})`));
    equal(store.get("\udc00"), undefined, "another lone surrogate is another id");
    equal(store.delete("\ud800"), true, "delete of the lone surrogate");
    equal(store.get("\ufffd")?.fields.i, 1, "the U+FFFD document stays");
    equal(store.get("\ud800"), undefined, "the lone surrogate's is gone");
    equal(store.delete("\ud800"), false, "deleted once");
    equal(store.size, 3, "three left");
  },

  async "the functions on arrays read documents as JSON.stringify writes them: toJSON, own enumerable properties"(sdk) {
    const { applyQuery, sortDocuments, DocumentStore } = sdk;
    const plain = [
      { fields: { t: "z" }, meta: { id: "1" } },
      { fields: { t: "x" }, meta: { id: "2" } },
      { fields: { t: "y" }, meta: { id: "3" } },
    ];
    // Each document's raw properties say the opposite order of what it writes.
    const docs = plain.map((doc, i) => ({
      fields: { t: String.fromCharCode(97 + i) },
      meta: { id: doc.meta.id },
      toJSON: () => doc,
    }));
    const scoped = plain.map((doc, i) => ({
      fields: { t: String.fromCharCode(97 + i), toJSON: () => doc.fields },
      meta: doc.meta,
    }));
    const hidden = plain.map((doc) => {
      const fields = { shown: doc.fields.t };
      Object.defineProperty(fields, "t", { value: doc.fields.t, enumerable: false });
      return { fields, meta: doc.meta };
    });
    const query = "sorting%5Bfields.t%5D=ASC&sorting%5Bmeta.id%5D=ASC";
    for (const [name, list] of Object.entries({ docs, scoped, hidden })) {
      const store = new DocumentStore();
      store.put(list);
      const written = JSON.parse(JSON.stringify(list));
      const expected = store.query(query).data.map((d) => d.meta.id);
      equal(applyQuery(list, query).data.map((d) => d.meta.id), expected, `${name}: applyQuery as the store`);
      equal(applyQuery(written, query).data.map((d) => d.meta.id), expected, `${name}: as its JSON`);
      equal(sortDocuments(list, query).map((d) => JSON.stringify(d)), sortDocuments(written, query).map((d) => JSON.stringify(d)), `${name}: sortDocuments`);
    }
    equal(applyQuery(docs, query).data.map((d) => d.fields.t), ["x", "y", "z"], "by what toJSON writes");
    // A scope is read once a document, as JSON.stringify reads it, whatever the number of keys.
    let reads = 0;
    const counted = plain.map((doc) => ({
      get fields() {
        reads++;
        return { a: doc.fields.t, b: 1, c: 2 };
      },
      meta: doc.meta,
    }));
    sortDocuments(counted, "sorting%5Bfields.a%5D=ASC&sorting%5Bfields.b%5D=ASC&sorting%5Bfields.c%5D=ASC");
    equal(reads, 3, "one read of fields for each of 3 documents with 3 keys");
    // An element that is not an object is not a document, whatever its toJSON writes, for both.
    const array = Object.assign([], { toJSON: () => plain[0] });
    throwsCode(() => sortDocuments([plain[1], array], query), "invalid_argument", "sortDocuments of an array");
    throwsCode(() => applyQuery([plain[1], array], query), "invalid_argument", "applyQuery of an array");
  },

  async "a store's put names what the documents' JSON threw"(sdk) {
    const store = new sdk.DocumentStore();
    const getter = { fields: { get t() { throw new Error("the getter's own words"); } }, meta: { id: "1" } };
    const error = throwsCode(() => store.put([getter]), "invalid_argument", "a throwing getter");
    check(error.message.includes("the getter's own words"), error.message);
    const big = throwsCode(() => store.put([{ fields: { n: 1n }, meta: { id: "1" } }]), "invalid_argument", "a BigInt");
    check(/BigInt/.test(big.message), big.message);
    const cyclic = { fields: {}, meta: { id: "1" } };
    cyclic.fields.self = cyclic;
    for (const [name, call] of Object.entries({ put: () => store.put([cyclic]), applyQuery: () => sdk.applyQuery([cyclic], "") })) {
      const error = throwsCode(call, "invalid_argument", `${name} of a cycle`);
      check(/circular/i.test(error.message) && !/\n/.test(error.message), `${name}: one line naming the cycle: ${JSON.stringify(error.message)}`);
    }
    equal(store.size, 0, "nothing stored");
  },

  async "sort keys are capped at 32, and many sort calls stay fast"(sdk) {
    const q = new sdk.Query();
    for (let i = 0; i < 32; i++) q.sort(`fields.k${i}`, "ASC");
    const error = throwsCode(() => q.sort("fields.more", "DESC"), "invalid_sort", "a 33rd key");
    check(error.message.includes("32"), error.message);
    equal(q.sorting.length, 32, "the query is unchanged");
    q.sort("fields.k3", "DESC");
    equal(q.sorting[3], { key: "fields.k3", direction: "DESC" }, "a known key is replaced in place");
    const started = Date.now();
    for (let i = 0; i < 20_000; i++) {
      try {
        q.sort(`fields.n${i}`, "ASC");
      } catch {
        // Each is invalid_sort: the query is full.
      }
      q.sort(`fields.k${i % 32}`, i % 2 ? "ASC" : "DESC");
    }
    const elapsed = Date.now() - started;
    check(elapsed < 10_000, `40,000 sort calls took ${elapsed} ms`);
    const text = Array.from({ length: 20_000 }, (_, i) => `sorting%5Bfields.k${i}%5D=ASC`).join("&");
    throwsCode(() => sdk.Query.parse(text), "invalid_sort", "parse of 20,000 keys");
  },
});
