// The guard that src/js/entry.js puts around every export of the built
// package (pkg/): `not_initialized` before the module is ready, a live `this`
// of the right class, live object arguments (a freed Query is refused and the
// receiver keeps working); and the shape of the entries: no top-level await,
// "./slim" never names the .wasm, one list of error codes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync, readdirSync } from "node:fs";
import { join, dirname, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = join(root, "pkg");
const sdk = await import(pathToFileURL(join(pkg, "node/index.js")).href);
const { Client, ContentRepoError, DocumentStore, Pages, Query, applyQuery, sortDocuments, ready } = sdk;
const execFileAsync = promisify(execFile);

/** Runs an ES module in a fresh Node process (the web entries keep their state per process). */
async function child(source) {
  const { stdout } = await execFileAsync(process.execPath, ["--input-type=module", "-e", source], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

/** The error `call` throws, or the one its promise rejects with; null if neither. */
async function errorOf(call) {
  try {
    await call();
    return null;
  } catch (error) {
    return error;
  }
}

/** The error `call` throws synchronously; null if none. */
function thrown(call) {
  try {
    call();
    return null;
  } catch (error) {
    return error;
  }
}

function assertRepoError(error, code, message) {
  assert.ok(error instanceof ContentRepoError, `a ContentRepoError, got ${error}`);
  assert.equal(error.code, code, error.message);
  if (message) assert.match(error.message, message);
}

const documents = [
  { meta: { id: "1", createdAt: "2024-01-01T00:00:00Z" }, fields: { title: "b" } },
  { meta: { id: "2", createdAt: "2024-01-02T00:00:00Z" }, fields: { title: "a" } },
];

function freedQuery() {
  const query = new Query().limit(1);
  query.free();
  return query;
}

test("Node: ready() is resolved at import", async () => {
  assert.equal(await ready(), undefined);
  assert.equal(new Query().limit(2).limitValue, 2);
});

test("a freed Query passed to a store is refused, naming the argument, and the store keeps working", () => {
  const store = new DocumentStore();
  store.put(documents);
  const freed = freedQuery();
  assertRepoError(
    thrown(() => store.query(freed)),
    "invalid_argument",
    /^query: this Query was freed \(DocumentStore\.prototype\.query\); it cannot be used after \.free\(\)$/,
  );
  // Before the guard this left the store borrowed for ever ("recursive use of an object detected").
  assert.deepEqual(
    store.query(new Query().sort("fields.title", "ASC")).data.map((d) => d.fields.title),
    ["a", "b"],
  );
  assert.equal(store.putJson(JSON.stringify([{ meta: { id: "3" }, fields: { title: "c" } }])), 1);
  assert.equal(store.size, 3);
});

test("freed Query arguments everywhere: functions, sync and async methods", async () => {
  const freed = freedQuery();
  const client = new Client({ baseUrl: "http://127.0.0.1:9", repository: "r", apiKey: "k", retries: 0 });
  for (const [call, where] of [
    [() => applyQuery(documents, freed), "applyQuery()"],
    [() => sortDocuments(documents, freed), "sortDocuments()"],
    [() => client.url("documents", freed), "Client.prototype.url"],
    [() => new Query().equals(freed), "Query.prototype.equals"],
  ]) {
    const error = await errorOf(call);
    assertRepoError(error, "invalid_argument", new RegExp(`^(query|other): this Query was freed \\(${where.replace(/[.()]/g, "\\$&")}\\)`));
  }
  // A method that returns a promise rejects (it does not throw).
  const pending = client.collection("products", freed);
  assert.ok(pending instanceof Promise);
  assertRepoError(await errorOf(() => pending), "invalid_argument", /^query: this Query was freed \(Client\.prototype\.collection\)/);
  // And everything still works.
  assert.equal(client.url("documents", new Query().limit(1)), "http://127.0.0.1:9/v1/r/documents?limit=1");
  assert.equal(applyQuery(documents, new Query().sort("fields.title", "ASC")).data[0].meta.id, "2");
});

test("`this` must be a live object of that very class", async () => {
  const query = new Query();
  const store = new DocumentStore();
  assertRepoError(
    await errorOf(() => DocumentStore.prototype.put.call(query, documents)),
    "invalid_argument",
    /^this: DocumentStore\.prototype\.put was called on a Query, not on a DocumentStore$/,
  );
  assertRepoError(
    await errorOf(() => Object.getOwnPropertyDescriptor(DocumentStore.prototype, "size").get.call(query)),
    "invalid_argument",
    /^this: DocumentStore\.prototype\.size was called on a Query/,
  );
  assertRepoError(await errorOf(() => Query.prototype.toString.call({})), "invalid_argument", /^this: .* called on an object, not on a Query$/);
  assertRepoError(await errorOf(() => Query.prototype.limit.call(undefined, 1)), "invalid_argument", /called on undefined/);
  // A forged or re-prototyped object is not one of ours.
  const forged = Object.create(Query.prototype);
  assertRepoError(await errorOf(() => forged.limit(1)), "invalid_argument", /^this: /);
  Object.setPrototypeOf(query, DocumentStore.prototype);
  assertRepoError(await errorOf(() => query.put(documents)), "invalid_argument", /called on a Query, not on a DocumentStore/);
  Object.setPrototypeOf(query, Query.prototype);
  assert.equal(query.limit(3), query);
  // A freed `this`.
  query.free();
  assertRepoError(await errorOf(() => query.limit(1)), "invalid_argument", /^this: this Query was freed \(Query\.prototype\.limit\)/);
  assertRepoError(await errorOf(() => query.sorting), "invalid_argument", /^this: this Query was freed \(Query\.prototype\.sorting\)/);
  // Freeing twice does nothing; so does dispose after free.
  assert.equal(query.free(), undefined);
  if (Symbol.dispose) assert.equal(query[Symbol.dispose](), undefined);
  // A store freed through `dispose` is freed.
  if (Symbol.dispose) {
    store[Symbol.dispose]();
    assertRepoError(await errorOf(() => store.size), "invalid_argument", /^this: this DocumentStore was freed/);
  }
  // Async methods reject.
  const rejected = Client.prototype.collection.call(store, "x");
  assert.ok(rejected instanceof Promise);
  assertRepoError(await errorOf(() => rejected), "invalid_argument", /^this: /);
});

test("objects that only claim to be the SDK's are refused before they reach the module", async () => {
  const store = new DocumentStore();
  store.put(documents);
  for (const fake of [Object.create(Query.prototype), { __wbg_ptr: 1, toString: () => { throw new Error("boom"); } }]) {
    assertRepoError(await errorOf(() => store.query(fake)), "invalid_argument", /^query: not a live object of content-repo/);
  }
  assertRepoError(await errorOf(() => new Query().equals("limit=1")), "invalid_argument", /^other: expected a Query, got a string/);
  assertRepoError(await errorOf(() => new Query().equals(store)), "invalid_argument", /^other: expected a Query, got a DocumentStore/);
  assertRepoError(await errorOf(() => new Pages()), "invalid_argument", /^new Pages\(\): Pages objects come from the SDK/);
  assert.equal(store.query(new Query()).data.length, 2);
});

test("the Query setters chain, classes keep their identity, Pages is async-iterable", async () => {
  const query = new Query();
  assert.equal(query.sort("fields.title", "ASC"), query);
  assert.equal(query.limit(5), query);
  assert.equal(query.toString(), "sorting%5Bfields.title%5D=ASC&limit=5");
  assert.equal(query.constructor, Query);
  assert.ok(query instanceof Query);
  const parsed = Query.parse(query.toString());
  assert.ok(parsed instanceof Query && parsed.equals(query) && parsed.clone().equals(query));
  class Mine extends Query {}
  const mine = new Mine();
  assert.ok(mine instanceof Mine && mine instanceof Query);
  assert.equal(mine.limit(2), mine);
  const client = new Client({ baseUrl: "http://127.0.0.1:9", repository: "r", apiKey: "k", retries: 0 });
  const pages = client.pages("documents");
  assert.ok(pages instanceof Pages);
  assert.equal(pages[Symbol.asyncIterator](), pages);
  assert.equal((await pages.return()).done, true);
});

test("a query changed after it was used is read as it is now, by every reader of queries", async () => {
  const urls = [];
  const fetch = async (url) => {
    urls.push(url);
    return new Response(JSON.stringify({ data: [], meta: { count: 0, limit: 1, offset: 0, total: 0 } }));
  };
  const client = new Client({ baseUrl: "http://127.0.0.1:9", repository: "r", apiKey: "k", retries: 0, fetch });
  const store = new DocumentStore();
  store.putJson(JSON.stringify([1, 2, 3].map((n) => ({ fields: { n }, meta: { id: `d${n}` } }))));
  const query = new Query().sort("fields.n", "DESC").limit(1);
  const read = async () => [query.toString(), client.url("documents", query), store.query(query).data[0].meta.id, ((await client.documents(query)), urls.at(-1))];
  const first = await read();
  assert.deepEqual(await read(), first, "the same query reads the same");
  query.limit(2).sort("fields.n", "ASC");
  const second = await read();
  assert.equal(second[0], "sorting%5Bfields.n%5D=ASC&limit=2");
  assert.equal(second[1], `http://127.0.0.1:9/v1/r/documents?${second[0]}`);
  assert.equal(second[2], "d1");
  assert.equal(second[3], second[1]);
  // A setter that throws leaves the query, and what is read of it, as it was.
  assert.throws(() => query.limit(0));
  assert.deepEqual(await read(), second);
  // Options read while the client reads a request may call it again.
  let inner;
  const outer = await client.documents("limit=2", {
    get signal() {
      inner = client.documents("limit=3");
      return undefined;
    },
  });
  assert.ok(Array.isArray(outer.data) && Array.isArray((await inner).data));
  assert.ok(urls.slice(-2).every((url) => /limit=[23]$/.test(url)), urls.slice(-2).join(" "));
  // A subclass's own toString is what every reader reads.
  class Seven extends Query {
    toString() {
      return "limit=7";
    }
  }
  assert.equal(client.url("documents", new Seven().limit(3)), "http://127.0.0.1:9/v1/r/documents?limit=7");
  assert.equal(store.query(new Seven().limit(3)).meta.limit, 7);
  // A copy and a parsed query read as the original.
  assert.equal(client.url("documents", query.clone()), second[1]);
  assert.equal(client.url("documents", Query.parse(second[0])), second[1]);
});

test("every export is guarded, from what the glue exports (slim: not_initialized before init, then init)", async () => {
  const result = await child(`
    import { readFileSync } from "node:fs";
    const sdk = await import("./pkg/web/slim.js");
    const outcome = async (call) => {
      try {
        const r = call();
        return r instanceof Promise ? await r.then(() => "resolved", (e) => "rejected " + e.code + ": " + e.message) : "returned";
      } catch (e) {
        return e.code + ": " + e.message;
      }
    };
    const before = {};
    for (const [name, value] of Object.entries(sdk)) {
      if (name === "init" || name === "ready" || name === "ContentRepoError") continue;
      if (typeof value.prototype?.free === "function") {
        before["new " + name] = await outcome(() => new value());
        for (const key of Object.getOwnPropertyNames(value.prototype)) {
          if (key === "constructor") continue;
          const d = Object.getOwnPropertyDescriptor(value.prototype, key);
          before[name + ".prototype." + key] = await outcome(() => (d.get ? d.get.call({}) : d.value.call({})));
        }
        for (const key of Object.getOwnPropertyNames(value)) {
          if (["length", "name", "prototype", "__wrap"].includes(key) || typeof value[key] !== "function") continue;
          before[name + "." + key] = await outcome(() => value[key]());
        }
      } else {
        before[name] = await outcome(() => value());
      }
    }
    const pending = await Promise.race([sdk.ready().then(() => "ready"), new Promise((r) => setTimeout(() => r("pending"), 50))]);
    const noInput = await sdk.init().then(() => "resolved", (e) => e.code + ": " + e.message);
    const failed = await sdk.init(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])).then(() => "resolved", (e) => [e instanceof sdk.ContentRepoError, e.code, e.cause?.name]);
    const afterFailure = await outcome(() => new sdk.Query());
    const readyAfterFailure = await sdk.ready().then(() => "resolved", (e) => e.cause?.name);
    const bytes = readFileSync("pkg/web/content_repo_bg.wasm");
    // Cloudflare Workers' idiom: a compiled WebAssembly.Module.
    const loaded = await sdk.init(new WebAssembly.Module(bytes));
    const again = await sdk.init();
    await sdk.ready();
    const after = {};
    for (const [name, value] of Object.entries(sdk)) {
      if (typeof value.prototype?.free !== "function") continue;
      for (const key of Object.getOwnPropertyNames(value.prototype)) {
        if (key === "constructor") continue;
        const d = Object.getOwnPropertyDescriptor(value.prototype, key);
        try {
          const r = d.get ? d.get.call({}) : d.value.call({});
          after[name + ".prototype." + key] = r instanceof Promise ? await r.then(() => "resolved", (e) => "rejected " + e.code + ": " + e.message) : "returned";
        } catch (e) {
          after[name + ".prototype." + key] = e.code + ": " + e.message;
        }
      }
    }
    const works = new sdk.Query().sort("fields.title", "ASC").toString();
    console.log(JSON.stringify({ before, pending, noInput, failed, afterFailure, readyAfterFailure, loaded: loaded === undefined, again: again === undefined, after, works }));
  `);
  const before = Object.entries(result.before);
  assert.ok(before.length > 50, `${before.length} exports, methods and constructors`);
  for (const name of ["new Query", "new DocumentStore", "new Client", "Query.parse", "applyQuery", "sortDocuments", "selectFields", "Query.prototype.sort", "DocumentStore.prototype.size", "Pages.prototype.next"]) {
    assert.ok(name in result.before, `${name} was enumerated`);
  }
  for (const [name, outcome] of before) {
    assert.match(outcome, /^(rejected )?not_initialized: .*content-repo is not initialised yet: `await ready\(\)` first \(with content-repo\/slim, `await init\(\.\.\.\)` first\); init\(\) has not been called$/, name);
  }
  assert.match(result.before["new Query"], /^not_initialized: new Query\(\): /);
  assert.match(result.before["Client.prototype.collection"], /^rejected not_initialized: /, "methods that return promises reject");
  assert.equal(result.pending, "pending", "ready() waits for init()");
  assert.match(result.noInput, /^invalid_argument: init\(input\): pass the module/);
  assert.deepEqual(result.failed, [true, "decode", "CompileError"], "a ContentRepoError whose cause is the loader's");
  assert.match(result.afterFailure, /^not_initialized: .*; loading the WebAssembly module failed: /);
  assert.equal(result.readyAfterFailure, "CompileError", "ready() rejects with the loading error");
  assert.equal(result.loaded, true, "init() resolves to undefined");
  assert.equal(result.again, true);
  const after = Object.entries(result.after);
  assert.ok(after.length > 40);
  for (const [name, outcome] of after) {
    assert.match(outcome, /^(rejected )?invalid_argument: this: .* was called on an object, not on a \w+$/, name);
  }
  assert.match(result.after["Client.prototype.collection"], /^rejected /, "methods that return promises reject");
  assert.equal(result.works, "sorting%5Bfields.title%5D=ASC");
});

test("the '.' web entry starts loading at import and reports a module it cannot load", async () => {
  // In Node, fetch() cannot read the file: URL the browser entry computes.
  const result = await child(`
    const sdk = await import("./pkg/web/index.js");
    const early = (() => { try { new sdk.Query(); return "no error"; } catch (e) { return e.code; } })();
    const ready = await sdk.ready().then(() => "resolved", (e) => "rejected");
    const late = (() => { try { new sdk.Query(); return "no error"; } catch (e) { return e.code + ": " + e.message; } })();
    console.log(JSON.stringify({ early, ready, late, exports: Object.keys(sdk) }));
  `);
  assert.equal(result.early, "not_initialized");
  assert.equal(result.ready, "rejected");
  assert.match(result.late, /^not_initialized: new Query\(\): .*; loading the WebAssembly module failed: /);
  assert.ok(result.exports.includes("ready") && !result.exports.includes("init") && !result.exports.includes("initSync"));
});

test("the '.' web entry bundled without import.meta (an IIFE) says to use content-repo/slim, as invalid_argument", async () => {
  const result = await child(`
    import { buildSync } from "esbuild";
    const bundle = buildSync({ entryPoints: ["pkg/web/index.js"], bundle: true, format: "iife", globalName: "sdk", write: false, logLevel: "silent" });
    const sdk = new Function(bundle.outputFiles[0].text + "; return sdk;")();
    const error = await sdk.ready().then(() => null, (e) => ({ code: e.code, message: e.message, repo: e instanceof sdk.ContentRepoError }));
    console.log(JSON.stringify(error));
  `);
  assert.equal(result.code, "invalid_argument");
  assert.equal(result.repo, true);
  assert.match(result.message, /cannot locate its \.wasm in this bundle format.*content-repo\/slim/);
});

test("the '.' web entry loads the module again at ready() after a failed load (offline, then online)", async () => {
  const result = await child(`
    import { readFileSync } from "node:fs";
    const urls = [];
    globalThis.fetch = async (url) => {
      urls.push(String(url));
      // Offline at import and at the first ready(); online at the second.
      if (urls.length <= 2) throw new TypeError("Failed to fetch");
      return new Response(readFileSync("pkg/web/content_repo_bg.wasm"), { headers: { "content-type": "application/wasm" } });
    };
    const sdk = await import("./pkg/web/index.js");
    const first = await sdk.ready().then(() => "resolved", (e) => [e instanceof sdk.ContentRepoError, e.code, e.cause?.message]);
    const second = await sdk.ready().then(() => "resolved", (e) => "rejected " + e.message);
    const works = new sdk.Query().limit(2).toString();
    console.log(JSON.stringify({ first, second, works, urls, name: sdk.ready.name }));
  `);
  assert.deepEqual(result.first, [true, "network", "Failed to fetch"]);
  assert.equal(result.second, "resolved");
  assert.equal(result.works, "limit=2");
  assert.equal(result.urls.length, 3);
  assert.ok(result.urls.every((url) => url.endsWith("/content_repo_bg.wasm")), result.urls.join(" "));
  assert.equal(result.name, "ready");
});

test("every export is named as it is exported, in the browser build and in Node's", async () => {
  const result = await child(`
    import { readFileSync } from "node:fs";
    const names = (sdk) => Object.entries(sdk).filter(([, value]) => typeof value === "function").map(([name, value]) => [name, value.name]);
    const web = await import("./pkg/web/slim.js");
    await web.init(readFileSync("./pkg/web/content_repo_bg.wasm"));
    const node = await import("./pkg/node/index.js");
    let error;
    try { new web.Query().limit(-1); } catch (e) { error = [e.name, e.constructor.name]; }
    console.log(JSON.stringify({ web: names(web), node: names(node), error }));
  `);
  for (const build of ["web", "node"]) {
    assert.ok(result[build].length >= 10, build);
    for (const [exported, name] of result[build]) assert.equal(name, exported, `${build}: ${exported}`);
  }
  assert.deepEqual(result.error, ["ContentRepoError", "ContentRepoError"]);
});

/** Every .js file of the package. */
function shippedScripts() {
  return readdirSync(pkg, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith(".js"));
}

test("no shipped file has top-level await: each can be require()d (require(esm), Node 20.19+)", async () => {
  const files = shippedScripts();
  assert.ok(files.length >= 8, files.join());
  for (const file of files) {
    const text = readFileSync(join(pkg, file), "utf8");
    // A top-level statement is not indented in these files.
    assert.doesNotMatch(text, /^(?:export\s+)?(?:(?:const|let|var)\s+[^=\n]+=\s*)?await\b/m, file);
  }
  // The authoritative check: require() refuses a graph with top-level await (ERR_REQUIRE_ASYNC_MODULE).
  const result = await child(`
    import { createRequire } from "node:module";
    const require = createRequire(import.meta.url);
    const out = {};
    for (const file of ${JSON.stringify(files.filter((f) => /(^|\/)(index|slim|api)\.js$/.test(f)))}) {
      try { out[file] = Object.keys(require("./pkg/" + file)).length; } catch (e) { out[file] = e.code + ": " + e.message; }
    }
    console.log(JSON.stringify(out));
  `);
  for (const [file, outcome] of Object.entries(result)) assert.equal(typeof outcome, "number", `${file}: ${outcome}`);
  assert.deepEqual(Object.keys(result).sort(), ["node/api.js", "node/index.js", "web/api.js", "web/index.js", "web/slim.js"]);
});

test("./slim never names the .wasm: nothing in its module graph does", () => {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    // (Bundlers emit an asset for `new URL("...", import.meta.url)`; a URL
    // made from the caller's input, in a service worker, names nothing.)
    assert.doesNotMatch(code, /\.wasm\b|import\.meta|new URL\(\s*["'`]/, file);
    // A statement starts a line, or follows a `;` (the web build is minified).
    for (const [, specifier] of text.matchAll(/(?:^|[\n;])\s*(?:import|export)\b[^'";]*?from\s*['"]([^'"]+)['"]/g)) {
      assert.ok(specifier.startsWith("."), `${file} imports ${specifier}`);
      visit(join(dirname(file), specifier));
    }
  };
  visit(join(pkg, "web/slim.js"));
  // The core (the guard, the glue and its snippets) is one module, shared with
  // the '.' entry: a page without a bundler fetches two levels of modules
  // before the .wasm starts loading, not four (bench/first-list.mjs).
  assert.deepEqual([...seen].map((file) => relative(pkg, file)).sort(), ["web/api.js", "web/slim.js"]);
  const index = readFileSync(join(pkg, "web/index.js"), "utf8");
  assert.match(index, /new URL\("\.\/content_repo_bg\.wasm",\s*import\.meta\.url\)/, "the '.' entry names it, for bundlers");
  const imports = (file) => [...readFileSync(join(pkg, file), "utf8").matchAll(/(?:^|[\n;])\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
  assert.deepEqual([...new Set(imports("web/index.js"))], ["./api.js"], "the '.' entry imports the shared core only");
});

test("the browser core ships minified, with a source map that leads back to the bundled code", async () => {
  const { SourceMap } = await import("node:module");
  const code = readFileSync(join(pkg, "web/api.js"), "utf8");
  // Minified, local names too: the guard's helpers are not there by name.
  assert.doesNotMatch(code, /function (guardFunction|notInitialized|checkArgs)\b/);
  assert.match(code, /\n\/\/# sourceMappingURL=api\.js\.map\n?$/);
  const map = JSON.parse(readFileSync(join(pkg, "web/api.js.map"), "utf8"));
  assert.deepEqual(map.sources, ["api.source.js"]);
  const [source] = map.sourcesContent;
  for (const name of ["guardFunction", "notInitialized", "checkArgs"]) {
    assert.match(source, new RegExp(`function ${name}\\b`));
    assert.ok(map.names.includes(name), name);
  }
  // Positions map back: each string literal of the minified code that occurs once
  // in it lands on a line of the source that holds the same literal.
  const lookup = new SourceMap(map);
  const sourceLines = source.split("\n");
  const lines = code.split("\n");
  let checked = 0;
  for (const literal of ["not_initialized", "invalid_argument", "init(input): pass the module", "this: this "]) {
    const line = lines.findIndex((text) => text.includes(literal));
    assert.ok(line >= 0, literal);
    const entry = lookup.findEntry(line, lines[line].indexOf(literal));
    assert.equal(entry.originalSource, "api.source.js");
    assert.ok(sourceLines[entry.originalLine].includes(literal), `${literal} maps to: ${sourceLines[entry.originalLine]}`);
    checked++;
  }
  assert.equal(checked, 4);
});

test("package.json: the '.', './slim' and './wasm' exports", () => {
  const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
  assert.deepEqual(manifest.exports["."], { types: "./index.d.ts", node: "./node/index.js", browser: "./web/index.js", default: "./web/index.js" });
  assert.deepEqual(manifest.exports["./slim"], { types: "./slim.d.ts", default: "./web/slim.js" });
  assert.deepEqual(manifest.exports["./wasm"], { types: "./wasm.d.ts", default: "./web/content_repo_bg.wasm" });
  // The declarations themselves are checked by types.test.mjs.
  const slim = readFileSync(join(pkg, "slim.d.ts"), "utf8");
  assert.match(slim, /export \* from "\.\/index\.js";/);
  assert.match(slim, /export function init\(input\?: InitInput \| PromiseLike<[^>]*>\): Promise<void>;/);
  assert.match(readFileSync(join(pkg, "index.d.ts"), "utf8"), /export function ready\(\): Promise<void>;/);
  assert.match(readFileSync(join(pkg, "wasm.d.ts"), "utf8"), /export default wasmUrl;/);
});

test("one list of error codes: src/error.rs, the .d.ts and the README agree, not_initialized included", () => {
  const rust = readFileSync(join(root, "src/error.rs"), "utf8");
  const body = rust.slice(rust.indexOf("pub fn code(&self)"), rust.indexOf("pub fn invalid_argument"));
  const fromRust = [...body.matchAll(/Error::\w+(?: \{ \.\. \})? => "(\w+)"/g)].map((m) => m[1]).sort();
  const dts = readFileSync(join(pkg, "index.d.ts"), "utf8");
  const union = dts.slice(dts.indexOf("export type ErrorCode ="), dts.indexOf(";", dts.indexOf("export type ErrorCode =")));
  const fromTypes = [...union.matchAll(/"(\w+)"/g)].map((m) => m[1]).sort();
  assert.ok(fromRust.includes("not_initialized"));
  assert.deepEqual(fromTypes, fromRust);
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const errors = readme.slice(readme.indexOf("## Errors"));
  for (const code of fromRust) assert.match(errors, new RegExp("\\| `" + code + "` \\|"), `README lists ${code}`);
});

test("a getter or Proxy that throws while an argument is read is an invalid_argument, thousands of times, and nothing is left stuck", async () => {
  // An array whose element getter throws, a revoked Proxy, an options object
  // whose getter throws, a freed Query inside options: each read runs the
  // caller's code inside the module. Before, the exception unwound through
  // the module: the receiver stayed borrowed ("recursive use of an object"),
  // and after some hundreds of calls every call trapped (memory access out
  // of bounds).
  const evil = ["tag"];
  Object.defineProperty(evil, 0, {
    get() {
      throw new Error("boom");
    },
  });
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const throwing = {
    get contentType() {
      throw new TypeError("getter");
    },
  };
  const freed = new Query();
  freed.free();
  const client = new Client({
    baseUrl: "http://127.0.0.1:9",
    repository: "r",
    apiKey: "k",
    retries: 0,
    fetch: async () => new Response('{"data":[]}'),
    cache: { storage: "memory" },
  });
  const query = new Query().limit(2);
  const store = new DocumentStore();
  store.putJson('[{"fields":{"a":1},"meta":{"id":"1"}}]');
  const calls = [
    ["includeTags", () => query.includeTags(evil), "value that threw when read (Error: boom)"],
    ["filter", () => query.filter({ field: revoked, op: "equal", value: "x" }), "Cannot perform"],
    ["limit", () => query.limit(revoked), "threw when read"],
    ["store.query", () => store.query(null, throwing), "TypeError: getter"],
    ["sortDocuments", () => sortDocuments(revoked), "documents"],
    ["client.get", () => client.get(evil), "Error: boom"],
    ["client.documents", () => client.documents(undefined, { get signal() { throw new Error("sig"); } }), "Error: sig"],
    ["prefetch", () => client.prefetch("documents", { query: freed }), "a freed Query"],
    ["refresh", () => client.refresh("documents", { query: revoked }), "Cannot perform"],
    // A signal made from AbortSignal's prototype is no signal.
    ["forged signal", () => client.documents(undefined, { signal: Object.create(AbortSignal.prototype) }), "must be an AbortSignal"],
    // A flag whose getter throws is no `true`: the call is refused, nothing sent.
    ["endpoint flag", () => client.get({ get documents() { throw new Error("flag"); } }), "Error: flag"],
    [
      "refreshOnReconnect",
      () =>
        new Client({
          baseUrl: "http://127.0.0.1:9", repository: "r", apiKey: "k",
          cache: { storage: "memory", get refreshOnReconnect() { throw new Error("reconnect"); } },
        }),
      "Error: reconnect",
    ],
  ];
  for (const [name, call, says] of calls) {
    for (let i = 0; i < 2500; i++) {
      let result;
      try {
        result = call();
      } catch (error) {
        result = Promise.reject(error);
      }
      assert.ok(result instanceof Promise, `${name} gave no error`);
      const error = await errorOf(() => result);
      assert.ok(error instanceof ContentRepoError, `${name}: ${error?.constructor?.name}: ${error?.message}`);
      assert.equal(error.code, "invalid_argument", `${name}: ${error.message}`);
      if (i === 0) assert.ok(error.message.includes(says), `${name}: ${error.message}`);
    }
  }
  // Every receiver still works, and so does the module.
  assert.equal(query.limit(5).toString(), "limit=5");
  assert.equal(store.query(null).data.length, 1);
  assert.equal((await client.documents()).source, "network");
  assert.equal(new Query().limit(3).toString(), "limit=3");
  client.free();
});
