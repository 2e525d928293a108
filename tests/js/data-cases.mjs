// Issue 14: whatever JSON.parse accepts, the SDK accepts (SPEC §4), on every
// path: a network answer, a cache hit, an offline answer, one document,
// DocumentStore and the functions on JavaScript values; and a misbehaving
// cache storage cannot hold a request. Cases shared by Node (hostile.test.mjs)
// and headless Chromium (hostile-browser.test.mjs), each
// `async (sdk, env) => void`, throwing on failure.

function check(condition, message) {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

/** Deep equality that tells lone surrogates, -0 and key order apart. */
function same(actual, expected, message) {
  const seen = (value) => JSON.stringify(value, (key, v) => (Object.is(v, -0) ? "-0" : v));
  if (seen(actual) !== seen(expected)) throw new Error(`${message}: expected ${seen(expected).slice(0, 300)}, got ${seen(actual).slice(0, 300)}`);
}

/** A client whose `fetch` answers every list request with `list`, and a document request with its document. */
function clientFor(sdk, text, cache, extra = {}) {
  const list = JSON.parse(text);
  const fetch = async (url) => {
    const path = new URL(url).pathname;
    const id = path.match(/\/documents\/([^/]+)$/)?.[1];
    if (id) {
      const at = text.indexOf(`"id":"${decodeURIComponent(id)}"`);
      const doc = list.data.find((d) => d.meta.id === decodeURIComponent(id));
      if (!doc || at < 0) return new Response("{}", { status: 404 });
      // The document's own text, cut from the list text (escapes as sent).
      const start = text.lastIndexOf('{"fields"', at);
      let depth = 0;
      let end = start;
      for (let i = start, inString = false; i < text.length; i++) {
        const c = text[i];
        if (inString) {
          if (c === "\\") i++;
          else if (c === '"') inString = false;
        } else if (c === '"') inString = true;
        else if (c === "{" || c === "[") depth++;
        else if (c === "}" || c === "]") {
          depth--;
          if (depth === 0) {
            end = i + 1;
            break;
          }
        }
      }
      return new Response(text.slice(start, end), { status: 200 });
    }
    return new Response(text, { status: 200 });
  };
  return new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: "k", retries: 0, fetch, cache, ...extra });
}

/** A storage in memory that two clients can share (a reload). */
function sharedStorage() {
  const entries = new Map();
  return {
    async load() {
      return [...entries];
    },
    async write(puts, deletes) {
      for (const key of deletes) entries.delete(key);
      for (const [key, value] of puts) entries.set(key, value);
    },
    async clear() {
      entries.clear();
    },
  };
}

const meta = (id, extra = "") => `"meta":{"id":"${id}","revision":1,"contentType":"t","createdAt":"2024-01-0${id}T00:00:00Z"${extra}}`;

/** Every way a list can come back: network, cache hit, offline, store, values. */
async function everyPath(sdk, text, query, check, { values = true } = {}) {
  const storage = sharedStorage();
  const network = clientFor(sdk, text, { storage, policy: "cache-first" });
  check(await network.documents(query), "network");
  await network.prefetch("documents");
  const hit = await network.documents(query);
  check(hit, "cache hit");
  const offline = clientFor(sdk, text, { storage, policy: "cache-only" });
  const answer = await offline.documents(query);
  if (answer.source !== "cache") throw new Error("the offline answer did not come from the cache");
  check(answer, "offline answer");
  const store = new sdk.DocumentStore();
  store.putJson(text);
  check(store.query(query), "DocumentStore.putJson");
  store.free();
  if (!values) return;
  // JavaScript values: what JSON.stringify writes of them.
  const held = new sdk.DocumentStore();
  held.put(JSON.parse(text));
  check(held.query(query), "DocumentStore.put");
  check(sdk.applyQuery(JSON.parse(text), query), "applyQuery");
  held.free();
}

export const dataCases = {
  async "lone surrogates come back as JSON.parse reads them, on every path"(sdk) {
    const text = `{"data":[{"fields":{"s":"a\\ud867b","t":"\\udc00x","\\ud800k":1},${meta(1)}},{"fields":{"s":"b"},${meta(2)}}],"meta":{"total":2}}`;
    const parsed = JSON.parse(text);
    await everyPath(sdk, text, new sdk.Query().sort("fields.s", "ASC"), (list, where) => {
      same(list.data.map((d) => d.fields), parsed.data.map((d) => d.fields), where);
    });
    const one = await clientFor(sdk, text).document("1");
    same(one.fields, parsed.data[0].fields, "one document");
    same(sdk.selectFields(parsed.data[0], "s,t").fields, { s: "a\ud867b", t: "\udc00x" }, "selectFields");
  },

  async "numbers beyond f64 are accepted, ordered exactly, and returned as JSON.parse returns them"(sdk) {
    const numbers = ["9007199254740993", "9007199254740992.5", "18446744073709551616", "-0", "1E2", "1e400", "-1e400", "1E-400", "100.0"];
    const text = `{"data":[${numbers.map((n, i) => `{"fields":{"n":${n}},${meta(i + 1)}}`).join(",")}],"meta":{"total":${numbers.length}}}`;
    const parsed = JSON.parse(text);
    // Exact order; 1E2 and 100.0 tie, then the default order (createdAt DESC).
    const expected = ["7", "4", "8", "9", "5", "2", "1", "3", "6"];
    const query = new sdk.Query().sort("fields.n", "ASC").limit(20);
    await everyPath(sdk, text, query, (list, where) => {
      // (The fake service answers unsorted: the network answer is its.)
      if (where !== "network") same(list.data.map((d) => d.meta.id), expected, `${where}: order`);
      for (const doc of list.data) same(doc.fields.n, parsed.data[Number(doc.meta.id) - 1].fields.n, `${where}: value of ${doc.meta.id}`);
    }, { values: false });
    // JavaScript numbers are f64 already, and compare as such.
    const docs = parsed.data.filter((d) => Number.isFinite(d.fields.n));
    const sorted = sdk.sortDocuments(docs, query).map((d) => d.fields.n);
    same(sorted, [...sorted].sort((a, b) => a - b), "sortDocuments on f64");
  },

  async "Infinity and -Infinity in JavaScript values stay themselves and order as 1e400 and -1e400"(sdk) {
    const text = `{"data":[{"fields":{"n":1e400,"z":null,"s":"null"},${meta(1)}},{"fields":{"n":5,"z":[null,1e400]},${meta(2)}},{"fields":{"n":-1e400,"z":{"a":null}},${meta(3)}},{"fields":{"z":null},${meta(4)}}],"meta":{"total":4}}`;
    const parsed = JSON.parse(text);
    const query = new sdk.Query().sort("fields.n", "ASC").limit(10);
    const expected = ["3", "2", "1", "4"];
    // Every path, values included: the order, and each value as JSON.parse gives it.
    await everyPath(sdk, text, query, (list, where) => {
      if (where !== "network") same(list.data.map((d) => d.meta.id), expected, `${where}: order`);
      for (const doc of list.data) same(doc.fields, parsed.data[Number(doc.meta.id) - 1].fields, `${where}: fields of ${doc.meta.id}`);
    });
    same(sdk.sortDocuments(parsed.data, query).map((d) => d.meta.id), expected, "sortDocuments");
    same(sdk.sortDocuments(parsed.data, new sdk.Query().sort("fields.n", "DESC")).map((d) => d.meta.id), ["1", "2", "3", "4"], "sortDocuments DESC");
    same(sdk.selectFields(parsed.data[0], "n,z,s").fields, { n: Infinity, z: null, s: "null" }, "selectFields");
    same(sdk.selectFields(parsed.data[1], "z").fields, { z: [null, Infinity] }, "selectFields in an array");
    // What toJSON gives is what counts, as for JSON.stringify; a cycle it
    // hides is never walked.
    class Score {
      #v = -Infinity;
      toJSON() {
        return { v: this.#v };
      }
    }
    same(sdk.selectFields({ fields: { a: { toJSON: () => Infinity }, s: new Score() }, meta: { id: "x" } }, "a,s").fields, { a: Infinity, s: { v: -Infinity } }, "toJSON");
    const node = { name: "nullable", toJSON: () => ({ name: "nullable", none: null }) };
    node.self = node;
    same(sdk.selectFields({ fields: { node }, meta: { id: "x" } }, "node").fields, { node: { name: "nullable", none: null } }, "a cycle behind toJSON");
    // What JSON.parse never gives is written as JSON.stringify writes it.
    same(sdk.selectFields({ fields: { n: NaN, m: -Infinity }, meta: { id: "x" } }, "n,m").fields, { n: null, m: -Infinity }, "NaN");
    // A revision of Infinity is the highest.
    const store = new sdk.DocumentStore();
    store.put([{ fields: { v: "new" }, meta: { id: "r", revision: Infinity } }]);
    check(store.put([{ fields: { v: "old" }, meta: { id: "r", revision: 5 } }]) === 0, "a lower revision is not written");
    same(store.get("r").fields.v, "new", "revision Infinity kept");
    same(store.get("r").meta.revision, Infinity, "revision read back");
    store.free();
  },

  async "a value's toJSON is called with its property's name, as JSON.stringify calls it, on every path"(sdk) {
    // `a` is 9 under its own name, 0 under any other (an index of an array,
    // say): every entry sorts and returns it as JSON.stringify writes it.
    const names = [];
    const a = {
      toJSON(key) {
        names.push(key);
        return key === "a" ? 9 : 0;
      },
    };
    const docs = [
      { fields: { a }, meta: { id: "1" } },
      { fields: { a: 5 }, meta: { id: "2" } },
      { fields: { a: 7 }, meta: { id: "3" } },
    ];
    const query = new sdk.Query().sort("fields.a", "ASC");
    const expected = ["2", "3", "1"];
    same(sdk.sortDocuments(docs, query).map((d) => d.meta.id), expected, "sortDocuments");
    const page = sdk.applyQuery(docs, query);
    same(page.data.map((d) => d.meta.id), expected, "applyQuery");
    same(page.data.map((d) => d.fields.a), [5, 7, 9], "applyQuery's values");
    const store = new sdk.DocumentStore();
    store.put(docs);
    same(store.query(query).data.map((d) => d.meta.id), expected, "DocumentStore");
    store.free();
    same(sdk.selectFields(docs[0], "a").fields, { a: 9 }, "selectFields");
    check(names.length > 0 && names.every((name) => name === "a"), `toJSON called with ${JSON.stringify(names)}`);
    // A toJSON is called once: what it gives is written as it is, though it
    // has a toJSON of its own (a Date: written as the object `{}`, which
    // sorts after every number), as the store reads it through JSON.stringify.
    const dated = [
      { fields: { a: { toJSON: () => new Date(0) } }, meta: { id: "d" } },
      { fields: { a: { toJSON: () => ({ toJSON: () => 1 }) } }, meta: { id: "e" } },
      ...docs,
    ];
    const written = new sdk.DocumentStore();
    written.put(dated);
    const order = written.query(query).data.map((d) => d.meta.id);
    written.free();
    same(order.slice(0, 3), expected, "the store: numbers first");
    same(sdk.sortDocuments(dated, query).map((d) => d.meta.id), order, "sortDocuments as the store");
    same(sdk.applyQuery(dated, query).data.map((d) => d.meta.id), order, "applyQuery as the store");
    same(sdk.applyQuery(dated, query).data.find((d) => d.meta.id === "d").fields.a, {}, "applyQuery's value");
  },

  async "a bigint or a symbol is named by its value in a message"(sdk) {
    const message = (run) => {
      try {
        run();
      } catch (error) {
        return `${error.code}: ${error.message}`;
      }
      throw new Error("assertion failed: no error");
    };
    const direction = message(() => new sdk.Query().sort("fields.a", 1n));
    check(direction.startsWith("invalid_sort") && direction.includes("1n"), direction);
    const symbol = message(() => new sdk.Query().sort("fields.a", Symbol("asc")));
    check(symbol.startsWith("invalid_sort") && symbol.includes("Symbol(asc)"), symbol);
    const limit = message(() => new sdk.Query().limit(5n));
    check(limit.startsWith("invalid_argument") && limit.includes("5n"), limit);
    // On one line, cut long, a bigint still written as one.
    const broken = message(() => new sdk.Query().sort("fields.a", Symbol("a\nb\u202ec")));
    check(broken.includes("Symbol(a b c)") && !/[\n\u202e]/.test(broken), broken);
    const long = message(() => new sdk.Query().limit(10n ** 60n));
    check(long.includes(`${"1" + "0".repeat(39)}…n`), long);
    // sortDocuments takes an array (applyQuery takes a list envelope too), and says so.
    const envelope = message(() => sdk.sortDocuments({ data: [] }, null));
    check(envelope === "invalid_argument: expected an array of documents, got an object", envelope);
  },

  async "10,000 levels of nesting are read, selected and returned"(sdk) {
    const depth = 10_000;
    const deep = "[".repeat(depth) + "1" + "]".repeat(depth);
    const text = `{"data":[{"fields":{"deep":${deep},"title":"x"},${meta(1)}}],"meta":{"total":1}}`;
    const measure = (value) => {
      let levels = 0;
      while (Array.isArray(value)) {
        value = value[0];
        levels++;
      }
      return levels;
    };
    // (Deeper than JSON.stringify goes in Node: the paths on JavaScript
    // values write it without recursion.)
    await everyPath(sdk, text, new sdk.Query().fields("deep,title"), (list, where) => {
      check(measure(list.data[0].fields.deep) === depth, `${where}: depth`);
    });
    check(measure(sdk.selectFields(JSON.parse(text).data[0], "deep").fields.deep) === depth, "selectFields: depth");
    const tooDeep = `{"data":[{"fields":{"deep":${"[".repeat(200_000)}${"]".repeat(200_000)}},${meta(1)}}]}`;
    const error = await clientFor(sdk, tooDeep).documents().then(() => null, (e) => e);
    check(error && error.code === "decode", `deeper than supported: decode (${error && error.code})`);
  },

  async "JavaScript values nested 20,000 deep are written exactly as JSON.stringify writes them"(sdk) {
    // Deeper than JSON.stringify's recursion goes, the package writes them
    // itself: at the bottom, random values (toJSON on objects, arrays and
    // functions, boxed primitives, values left out or written as null,
    // Infinity kept, getters, Proxies, sparse arrays, numeric keys) come
    // back as JSON.stringify writes them shallow.
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = (list) => list[Math.floor(random() * list.length)];
    const leaf = () =>
      pick([
        () => null, () => true, () => 0, () => -0, () => 1.5, () => NaN, () => Infinity, () => -Infinity, () => "s\u2028\"x",
        () => undefined, () => () => 1, () => Symbol("q"), () => new Number(3), () => new String("b"), () => new Boolean(false),
        () => ({ toJSON: (key) => `key ${key}` }), () => Object.assign(() => 1, { toJSON: () => 42 }), () => new Date(0),
        () => 1e21, () => 5e-7, () => new Proxy([1, undefined], {}), () => ({ get g() { return "got"; } }),
        () => JSON.rawJSON?.("12345678901234567890") ?? 7,
        // Boxes by their internal slot, whatever their prototype; an array
        // Proxy whose length is not an integer (read as ToLength does).
        () => Object.setPrototypeOf(new Boolean(false), Object.prototype), () => Object.setPrototypeOf(new Number(5), Array.prototype),
        () => new Proxy(["a", "b", "c"], { get: (target, key) => (key === "length" ? "2" : target[key]) }),
        () => new Proxy(["a"], { get: (target, key) => (key === "length" ? -1.5 : target[key]) }),
      ])();
    const value = (depth) => {
      const r = random();
      if (depth > 3 || r < 0.35) return leaf();
      if (r < 0.65) {
        const array = Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
        if (random() < 0.2) array.length += 2;
        if (random() < 0.1) array.toJSON = () => "array";
        return array;
      }
      const object = {};
      for (let i = Math.floor(random() * 4); i > 0; i--) object[pick(["b", "2", "a", "__x", "10"]) + (random() < 0.5 ? "" : i)] = value(depth + 1);
      return random() < 0.1 ? new Proxy(object, {}) : object;
    };
    const payload = Array.from({ length: 300 }, () => value(0));
    const depth = 20_000;
    const chain = (bottom) => {
      let wrapped = bottom;
      for (let i = 0; i < depth; i++) wrapped = i % 2 ? { a: wrapped } : [wrapped];
      return wrapped;
    };
    const bottom = (wrapped) => {
      for (let i = depth - 1; i >= 0; i--) wrapped = i % 2 ? wrapped.a : wrapped[0];
      return wrapped;
    };
    const infinite = (key, v) => (typeof v === "number" && !Number.isFinite(v) && !Number.isNaN(v) ? String(v) : v);
    // (Read back as JSON.parse reads it: a raw JSON number is rounded.)
    const expected = JSON.stringify(JSON.parse(JSON.stringify(payload, infinite)));
    const exact = (wrapped, where) => {
      const got = JSON.stringify(bottom(wrapped), infinite);
      check(got === expected, `${where}: ${got.slice(0, 200)} vs ${expected.slice(0, 200)}`);
    };
    const doc = { fields: { deep: chain(payload), title: "x" }, meta: { id: "1" } };
    exact(sdk.selectFields(doc, "deep").fields.deep, "selectFields");
    exact(sdk.applyQuery([doc], "fields=deep").data[0].fields.deep, "applyQuery");
    const store = new sdk.DocumentStore();
    check(store.put(doc) === 1, "DocumentStore.put");
    exact(store.get("1").fields.deep, "DocumentStore.get");
    check(sdk.sortDocuments([doc, { ...doc }], "sorting[fields.title]=ASC")[0] === doc, "sortDocuments");
    // What JSON.stringify refuses is refused as deep down: a cycle, a BigInt.
    const cycle = { fields: {}, meta: { id: "c" } };
    cycle.fields.deep = chain(cycle);
    for (const [what, bad] of [["a cycle", cycle], ["a BigInt", { fields: { deep: chain(1n) }, meta: { id: "b" } }]]) {
      let error = null;
      try {
        store.put(bad);
      } catch (e) {
        error = e;
      }
      check(error?.code === "invalid_argument", `${what}: ${error?.code} ${error?.message}`);
    }
    // A sparse array too long to write is JSON.stringify's RangeError,
    // shallow or deep: invalid_argument at once, never a process out of memory.
    const sparse = () => Object.assign([], { length: 2 ** 32 - 1 });
    for (const [what, bad] of [
      ["shallow", { fields: { tags: sparse() }, meta: { id: "s" } }],
      ["deep", { fields: { deep: chain(sparse()) }, meta: { id: "d" } }],
    ]) {
      for (const [how, call] of [["put", () => store.put(bad)], ["selectFields", () => sdk.selectFields(bad, "tags,deep")], ["applyQuery", () => sdk.applyQuery([bad])]]) {
        let error = null;
        try {
          call();
        } catch (e) {
          error = e;
        }
        check(error?.code === "invalid_argument", `${what} ${how}: ${error?.code} ${error?.message}`);
      }
    }
    check(store.size === 1, "nothing else stored");
    store.free();
  },

  async "JavaScript values deeper than the module reads are refused where their text is, and read no further"(sdk) {
    // The same value as text (written here by hand, as JSON.stringify
    // writes it) and as a JavaScript value: putJson and put agree, around
    // the nesting limit, whatever the containers, empty ones and members
    // left out.
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const outcome = (call) => {
      try {
        return `stored ${call()}`;
      } catch (e) {
        return `${e.code === "decode" || e.code === "invalid_argument" ? "refused" : e.code}: ${String(e.message).split(" (body starts")[0]}`;
      }
    };
    const limit = 100_000;
    for (const depth of [limit - 2, limit - 1, limit, limit + 1 + Math.floor(random() * 3)]) {
      const bottoms = [
        [[], "[]"], [{}, "{}"], [{ gone: undefined }, "{}"], [[undefined], "[null]"], [{ x: 1 }, '{"x":1}'], [[1], "[1]"], ["s", '"s"'],
      ];
      const [bottom, bottomText] = bottoms[Math.floor(random() * bottoms.length)];
      let value = bottom;
      const opens = [], closes = [];
      for (let i = 0; i < depth; i++) {
        const kind = random();
        if (kind < 0.4) {
          value = [value];
          opens.push("[");
          closes.push("]");
        } else if (kind < 0.7) {
          value = { a: value };
          opens.push('{"a":');
          closes.push("}");
        } else {
          // A member left out before the one written, and a box unboxed.
          value = { f: () => 1, a: value, n: new Number(2) };
          opens.push('{"a":');
          closes.push(',"n":2}');
        }
      }
      const text = `{"fields":{"deep":${opens.reverse().join("")}${bottomText}${closes.join("")}},"meta":{"id":"d"}}`;
      const doc = { fields: { deep: value }, meta: { id: "d" } };
      const [fromText, fromValue] = [outcome(() => new sdk.DocumentStore().putJson(text)), outcome(() => new sdk.DocumentStore().put(doc))];
      check(fromText === fromValue, `${depth} levels, bottom ${bottomText}: putJson ${fromText}, put ${fromValue}`);
    }
    // A million levels (getters that count their reads, each level made as
    // it is read): refused as its text is, after reading about as many
    // levels as the limit (and those JSON.stringify read before its
    // recursion gave out).
    const levels = 1_000_000;
    let reads = 0;
    const level = (n) =>
      n === levels
        ? { x: 1 }
        : {
            get a() {
              reads++;
              return level(n + 1);
            },
          };
    const said = outcome(() => new sdk.DocumentStore().put({ fields: { deep: level(0) }, meta: { id: "m" } }));
    const text = `{"fields":{"deep":${'{"a":'.repeat(levels)}{"x":1}${"}".repeat(levels)}},"meta":{"id":"m"}}`;
    const asText = outcome(() => new sdk.DocumentStore().putJson(text));
    const most = Number(/at most (\d+) levels/.exec(said)?.[1]);
    check(said.startsWith("refused") && said === asText, `put ${said}, putJson ${asText}`);
    check(reads <= most * 1.1, `a million levels refused after ${reads} reads (the limit: ${most})`);
    // The stack traces turned off for the probes of boxes deep down: never for the caller's code (a
    // box's own valueOf), and not at all where Error.stackTraceLimit is read-only (frozen).
    const chain = (bottom) => {
      for (let i = 0; i < 20_000; i++) bottom = { a: bottom };
      return bottom;
    };
    const limitBefore = Error.stackTraceLimit;
    let seen;
    const box = Object.assign(new Number(1), {
      valueOf() {
        seen = Error.stackTraceLimit;
        return 2;
      },
    });
    check(outcome(() => new sdk.DocumentStore().put({ fields: { deep: chain(box) }, meta: { id: "v" } })) === "stored 1", "a box deep down");
    check(seen === limitBefore && Error.stackTraceLimit === limitBefore, `the caller's valueOf saw ${seen} (${limitBefore} before)`);
    const descriptor = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit");
    if (descriptor?.configurable) {
      Object.defineProperty(Error, "stackTraceLimit", { ...descriptor, writable: false });
      try {
        const stored = outcome(() => new sdk.DocumentStore().put({ fields: { deep: chain(new Number(3)) }, meta: { id: "f" } }));
        check(stored === "stored 1", `with a read-only Error.stackTraceLimit: ${stored}`);
      } finally {
        Object.defineProperty(Error, "stackTraceLimit", descriptor);
      }
    }
  },

  async "__proto__ keys are own properties and prototypes are plain, on every path"(sdk) {
    const text = `{"data":[{"fields":{"__proto__":{"polluted":1},"title":"x"},${meta(1, ',"__proto__":{"m":1}')}}],"meta":{"total":1}}`;
    const plain = (doc, where) => {
      check(Object.getPrototypeOf(doc.fields) === Object.prototype, `${where}: plain prototype`);
      check(Object.prototype.hasOwnProperty.call(doc.fields, "__proto__"), `${where}: own __proto__`);
      check(doc.fields.polluted === undefined, `${where}: nothing inherited`);
      same(Object.getOwnPropertyDescriptor(doc.fields, "__proto__").value, { polluted: 1 }, `${where}: the value`);
    };
    await everyPath(sdk, text, new sdk.Query().fields("__proto__,title,meta"), (list, where) => plain(list.data[0], where));
    plain(await clientFor(sdk, text).document("1"), "one document");
    plain(sdk.selectFields(JSON.parse(text).data[0], "__proto__"), "selectFields");
  },

  async "big integers come back as JSON.parse gives them"(sdk) {
    const text = `{"data":[{"fields":{"n":9007199254740993},"meta":{"id":"1","revision":18446744073709551615,"createdAt":"2024-01-01T00:00:00Z"}}],"meta":{"total":1}}`;
    const parsed = JSON.parse(text);
    await everyPath(sdk, text, new sdk.Query(), (list, where) => {
      same(list.data[0].fields.n, parsed.data[0].fields.n, `${where}: n`);
      same(list.data[0].meta.revision, parsed.data[0].meta.revision, `${where}: revision`);
    });
  },

  async "a cache storage that misbehaves cannot hold or break a request"(sdk) {
    const text = `{"data":[{"fields":{"t":1},${meta(1)}}],"meta":{"total":1}}`;
    const never = new Promise(() => {});
    const storages = {
      "load() resolves null": { load: async () => null, write: async () => {}, clear: async () => {} },
      "load() resolves garbage": { load: async () => [1, ["k"], [2, 3], "x"], write: async () => {}, clear: async () => {} },
      "load() throws": { load() { throw new TypeError("no"); }, write: async () => {}, clear: async () => {} },
      "load() never settles": { load: () => never, write: async () => {}, clear: async () => {} },
      "write() never settles": { load: async () => [], write: () => never, clear: async () => {} },
      "write() rejects with null": { load: async () => [], write: () => Promise.reject(null), clear: async () => {} },
    };
    for (const [name, storage] of Object.entries(storages)) {
      const reports = [];
      const started = Date.now();
      const c = clientFor(sdk, text, { storage }, { timeoutMs: 300, onCacheError: (e) => reports.push(e) });
      const list = await c.documents();
      check(list.data.length === 1, `${name}: the network's answer`);
      check(Date.now() - started < 3000, `${name}: settled in time (${Date.now() - started} ms)`);
      const again = await c.documents();
      check(again.data.length === 1, `${name}: the client keeps working`);
      check(reports.every((e) => e instanceof sdk.ContentRepoError && (e.code === "storage" || e.code === "decode")), `${name}: typed reports`);
    }
  },

  async "freed and foreign objects are refused, naming them, and the receiver keeps working"(sdk) {
    const store = new sdk.DocumentStore();
    store.putJson(`{"data":[{"fields":{"n":2},${meta(1)}},{"fields":{"n":1},${meta(2)}}],"meta":{"total":2}}`);
    const freed = new sdk.Query().sort("fields.n", "ASC");
    freed.free();
    let error = null;
    try {
      store.query(freed);
    } catch (e) {
      error = e;
    }
    check(error instanceof sdk.ContentRepoError && error.code === "invalid_argument" && /query/i.test(error.message), `freed: ${error}`);
    check(store.query(new sdk.Query().sort("fields.n", "ASC")).data[0].meta.id === "2", "the store keeps working");
    error = null;
    try {
      sdk.DocumentStore.prototype.put.call(new sdk.Query(), []);
    } catch (e) {
      error = e;
    }
    check(error instanceof sdk.ContentRepoError && error.code === "invalid_argument", `foreign this: ${error}`);
    check(store.size === 2, "still two documents");
    store.free();
  },

  async "a list that never ends stops at maxPages in all, prefetch and refresh"(sdk) {
    let requests = 0;
    // Always a full page, never a total: a service that never ends the list.
    const fetch = async (url) => {
      requests++;
      const offset = Number(new URL(url).searchParams.get("offset") ?? 0);
      const limit = Number(new URL(url).searchParams.get("limit") ?? 25);
      const data = Array.from({ length: limit }, (_, i) => `{"fields":{},"meta":{"id":"${offset + i + 1}","revision":1}}`);
      return new Response(`{"data":[${data.join(",")}]}`);
    };
    const c = new sdk.Client({ baseUrl: "http://127.0.0.1:9", repository: "demo", apiKey: "k-endless", retries: 0, fetch, cache: { storage: "memory" } });
    for (const [name, run, pages] of [
      ["all", () => c.all("documents", "limit=10", { maxPages: 3 }), 3],
      ["prefetch", () => c.prefetch("documents", { pageSize: 10, maxPages: 4 }), 4],
    ]) {
      requests = 0;
      const error = await run().then(() => null, (e) => e);
      check(error instanceof sdk.ContentRepoError && error.code === "invalid_argument" && /maxPages/.test(error.message), `${name}: ${error}`);
      check(requests === pages, `${name}: ${requests} requests`);
    }
    // Nothing was marked complete: an offline re-sorted query is not answered.
    const offline = await c.documents("sorting%5Bmeta.id%5D=ASC").then((r) => r.source);
    check(offline === "network", "the endless list was not taken as complete");
  },
};
