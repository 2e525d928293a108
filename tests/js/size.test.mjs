// The size budget of what a browser downloads for the package's "." entry
// (issue 11): the module plus every JavaScript file that pkg/web/index.js
// loads, each gzipped (-9) as a server sends it. scripts/size.mjs follows
// the imports; `node scripts/size.mjs` prints the same figures.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import { entrySizes, importsOf, moduleGraph, wasmFunctions, gzipShares, groupOf } from "../../scripts/size.mjs";

/**
 * The budget; lower it when the package shrinks, raise it only
 * deliberately, with a reason in the commit. The target of issue 11 is
 * 100 KiB (scripts/size.mjs BUDGET_BYTES); the package is not there yet
 * (167.1 KiB, 171,122 bytes, when the budget was first set; 173.1 KiB,
 * 177,276 bytes, once the sans-IO client core and the reload work were merged
 * with it); 163.6 KiB, 167,511 bytes, once the boundary was made synchronous
 * (src/js/client.js awaits, the Rust steps decide); 166.0 KiB, 170,007
 * bytes, once merged with the engine's speed work of the same session
 * (selection on checked text, kept selections, ASCII answers, a reload
 * that reads entries as storage hands them over: +2.5 KB, raised
 * deliberately; 166.6 KiB, 170,554 bytes, after that round's review);
 * 159.3 KiB, 163,110 bytes, once error messages stopped using Debug
 * formatting, `str::split_at` went (its panic linked the formatting of
 * chars and ranges), every map used one hasher and selections a sorted
 * vector instead of a B-tree (159.7 KiB, 163,531 bytes, with that round's
 * engine work); 159.6 KiB, 163,392 bytes, once the browser bundle left out
 * esbuild's keepNames (-1.1 KB) and the next round's network and storage
 * work added 0.7 KB; 158.0 KiB, 161,813 bytes, once the browser
 * JavaScript was minified with its local names (-1.9 KB; a source map
 * keeps them for developer tools) and numbers ordered exactly at any
 * exponent (+0.3 KB); 159.6 KiB, 163,460 bytes, with the next round's
 * cache fixes (answers stamped as they arrive, a prefetch with a page not
 * written or stale left incomplete, a refresh listing only what it holds,
 * JavaScript's string of an answer used only when it crossed whole, a
 * deleted document listed again no longer deleted, one another list holds
 * not remembered as deleted: +1.6 KB), for which the budget was raised
 * deliberately from 159 to 160 KiB (a document unpublished and published
 * again, or deleted from one list and held by another, dropped lists at the
 * next reload); 160.0 KiB, 163,815 bytes (25 bytes under), with deletions kept apart per
 * tab and judged by arrival, a call's abort while it waits for storage
 * and one client.cache object (+1.5 KB), the module's build won back
 * (wasm-opt -O2 before -Os, short export names: -1.1 KB); 162.2 KiB,
 * 166,087 bytes, once answers were made from the documents JavaScript
 * holds (pages that name held documents, a copy by object literals for
 * each shape, the cache's answers made into objects when computed, taking
 * deliveries back when JavaScript cannot make one: +2.3 KB), for which the budget was raised deliberately from 160 to 163 KiB
 * (the full list from the store went from 0.8 to 2.5 times the fastest
 * peer, issue 10's item 6, and the warm offline page stayed within its
 * target); 163.4 KiB, 167,327 bytes, once a client kept its last request
 * (the query's parse and URL), a Query its query string and the store its
 * last selection's plan (the warm offline page and DocumentStore.query two
 * to three times faster), and `all` and `pages` gathered their pages as
 * JavaScript holds them (`client.all` from the cache went from 0.65 to 1.5
 * times the fastest peer), and a store has a number to hold its documents
 * under: +1.3 KB, for which the budget was raised
 * deliberately from 163 to 164 KiB; 166.0 KiB, 169,946 bytes, once three
 * reviews' defects were fixed (an exact response never answers once the
 * cache knows newer of its documents, a list's records kept apart per tab
 * and write so that a late one cannot undo a newer one, a refresh's sweep
 * that notices a list that moved, a refresh older than its list that
 * changes nothing, `get` of a typed path answered as the typed method,
 * Infinity kept in JavaScript values, the coverage of sort keys checked key
 * by key: +2.6 KB, trimmed from +3.4), for which the budget was raised
 * deliberately from 164 to 166 KiB; 170.6 KiB, 174,645 bytes, once two
 * more reviews' defects were fixed (the key redacted from every excerpt,
 * path segments with a lone surrogate refused, prefetches of rows without
 * ids or of a list that changed while read not recorded as complete, a
 * sweep's malformed row refused, an envelope's other keys kept offline
 * with the list's record) and old deletions were forgotten at a load:
 * +4.8 KB, trimmed from +9.7, for which the budget was raised deliberately
 * from 166 to 171 KiB; 175.0 KiB, 179,211 bytes, once six more reviews'
 * defects were fixed (a refresh that fetches again a member cached
 * narrower than its list, whose selection the list's record now keeps;
 * aliases answered by their latest response, after a reload too; deletions
 * held by another list that count at a load where no complete list holds
 * them; `all()` keeping the envelope and merging `includes`; the
 * envelope's key order kept everywhere; IndexedDB reopened, and its writes
 * aborted or awaited when their time runs out; the "." entry's ready()
 * loading again after a failure; the module kept in a service worker's
 * Cache Storage): +4.6 KB, for which the budget was raised deliberately
 * from 171 to 176 KiB (179,399 bytes after the last read of the change,
 * which wrote an envelope's markers once); 178.8 KiB, 183,057 bytes, once
 * two reviews' robustness defects were fixed (every read of an argument
 * that can run the caller's code caught, since an exception unwinding
 * through the module corrupted it; baseUrl checked as URL parsers read it;
 * JavaScript values deeper than JSON.stringify's recursion written without
 * it, as SPEC §4's 10,000 levels require; the fixes after two reviews of
 * them): +3.7 KB, for which the budget was raised deliberately
 * from 176 to 179 KiB; 179.9 KiB, 184,231 bytes, once a review of the
 * offline functions' robustness was fixed (an SDK object called or freed
 * from inside its own call refused by the guard, a store's ids with a
 * lone surrogate kept apart in get and delete, what JSON.stringify threw
 * named, sort keys read as JSON.stringify reads them, an aborted call's
 * cause): +1.2 KB, for
 * which the budget was raised deliberately from 179 to 180 KiB; 180.4 KiB,
 * 184,750 bytes, once a review of the request lifecycle was fixed (a call
 * that shared a GET keeps its own time budget, a network error names the
 * runtime's reason, a blank service message is no message), a freed
 * client's IndexedDB connection closed, and a shared GET's answer recorded
 * once: +0.5 KB, for
 * which the budget was raised deliberately from 180 to 181 KiB; 182.0 KiB,
 * 186,387 bytes, once three reviews were fixed (the key scrubbed from
 * HTML-escaped echoes, a message of invisible characters no message, a
 * shared GET's body held once, a sort value's toJSON called once with its
 * name, a bigint or symbol named in messages, a refresh deleting as of its
 * sweep and never what a response arriving after it holds): +1.6 KB, for
 * which the budget was raised deliberately from 181 to 183 KiB. This budget
 * is what it measured, rounded up to the next KiB.
 */
const BUDGET_GZIP_BYTES = 183 * 1024;

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "pkg");

test("the import scan reads written and minified modules", () => {
  const written = `import { a } from "./a.js";\nexport { b } from './b.js';\nimport * as c from "./c.js"\nimport "./d.js";\n// import { e } from "./no.js";\n/* export * from "./no.js" */\nconst f = await import("./f.js");`;
  assert.deepEqual(importsOf(written).sort(), ["./a.js", "./b.js", "./c.js", "./d.js", "./f.js"]);
  const minified = `import{a}from"./a.js";export{b}from"./b.js";import*as c from"./c.js";import"./d.js";const s="https://x";`;
  assert.deepEqual(importsOf(minified).sort(), ["./a.js", "./b.js", "./c.js", "./d.js"]);
});

test(`the "." entry in a browser (module + JavaScript) stays within ${BUDGET_GZIP_BYTES} bytes gzipped`, () => {
  const sizes = entrySizes(pkg);
  const files = sizes.js.map((file) => file.file);
  // The graph is complete: every .js of pkg/web is in it but the "./slim"
  // entry, and it holds the entry and the core (api.js: the guard, the glue
  // and the snippets bundled in one module).
  assert.deepEqual(sizes.unreached, [], "a .js file of pkg/web that the import scan does not reach");
  for (const file of ["index.js", "api.js"]) assert.ok(files.includes(file), `${file} in ${files}`);
  // api.js is minified: what it bundles is read from its source map.
  const [core] = JSON.parse(readFileSync(join(pkg, "web/api.js.map"), "utf8")).sourcesContent;
  for (const part of ["__wbg_init", "settleWithin", "ContentRepoError"]) assert.ok(core.includes(part), `api.js bundles ${part}`);
  // slim.js loads a subset of it (no .wasm URL, the same api.js).
  const slim = moduleGraph(join(pkg, "web/slim.js")).map((file) => file.slice(join(pkg, "web/").length));
  assert.deepEqual(slim.filter((file) => !files.includes(file)), ["slim.js"]);
  for (const file of sizes.js) console.log(`${file.file}: ${file.raw} bytes raw, ${file.gzip} gzipped`);
  console.log(`content_repo_bg.wasm: ${sizes.wasm.raw} bytes raw, ${sizes.wasm.gzip} gzipped`);
  console.log(`total: ${sizes.total} bytes gzipped (JavaScript ${sizes.jsGzip}); budget ${BUDGET_GZIP_BYTES}, issue 11's target ${sizes.budget}`);
  assert.ok(sizes.total <= BUDGET_GZIP_BYTES, `${sizes.total} bytes gzipped is over the budget of ${BUDGET_GZIP_BYTES}`);
});

test("one module for both builds", () => {
  const web = readFileSync(join(pkg, "web/content_repo_bg.wasm"));
  const node = readFileSync(join(pkg, "node/content_repo_bg.wasm"));
  assert.ok(web.equals(node), "pkg/node and pkg/web ship the same module");
});

// The module profile of `npm run bench` (scripts/size.mjs profile): its
// reading of a module, its groups, and what it says each adds gzipped.

/** A WebAssembly module of these sections (`[id, bytes]`), as bytes. */
function module(sections) {
  const parts = [Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])];
  for (const [id, bytes] of sections) parts.push(Buffer.from([id]), leb(bytes.length), Buffer.from(bytes));
  return Buffer.concat(parts);
}
function leb(n) {
  const out = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 128;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}
const text = (s) => Buffer.concat([leb(Buffer.byteLength(s)), Buffer.from(s)]);
const vec = (items) => Buffer.concat([leb(items.length), ...items]);

/**
 * One imported function (index 0) and the bodies given (indexes 1, 2, ...),
 * named in a `name` section, with a table and a memory imported too (their
 * limits are read past).
 */
function moduleWith(bodies, names) {
  const imports = vec([
    Buffer.concat([text("env"), text("f"), Buffer.from([0]), leb(0)]),
    Buffer.concat([text("env"), text("t"), Buffer.from([1, 0x70, 1]), leb(1), leb(300)]),
    Buffer.concat([text("env"), text("m"), Buffer.from([2, 0]), leb(17)]),
  ]);
  const code = vec(bodies.map((body) => Buffer.concat([leb(body.length), body])));
  const nameMap = vec(names.map((name, i) => Buffer.concat([leb(i + 1), text(name)])));
  const nameSection = Buffer.concat([text("name"), Buffer.from([1]), leb(nameMap.length), nameMap]);
  return module([
    [1, Buffer.from([1, 0x60, 0, 0])],
    [2, imports],
    [3, vec(bodies.map(() => leb(0)))],
    [10, code],
    [11, Buffer.from("some data of the module")],
    [0, nameSection],
  ]);
}

test("the module profile reads a module's function bodies and their names", () => {
  const bodies = [Buffer.from([0, 0x0b]), Buffer.alloc(200, 1), Buffer.from([0, 0x01, 0x0b])];
  const bytes = moduleWith(bodies, ["content_repo::a::f", "core::fmt::write", "client_new externref shim"]);
  const { sections, bodies: read } = wasmFunctions(bytes);
  assert.deepEqual(sections.map((s) => s.id), [1, 2, 3, 10, 11, 0]);
  assert.deepEqual(read.map((b) => [b.index, b.name, b.end - b.start]), [
    [1, "content_repo::a::f", 2],
    [2, "core::fmt::write", 200],
    [3, "client_new externref shim", 3],
  ]);
  for (const [i, body] of read.entries()) assert.deepEqual(bytes.subarray(body.start, body.end), bodies[i]);
  assert.throws(() => wasmFunctions(Buffer.from("not a module")), /not a WebAssembly module/);
});

test("the module profile groups functions by Rust module, crate or exported class", () => {
  const cases = [
    ["content_repo::store::DocumentStore::answer::h3c793b4c90a6c12f", "content_repo::store"],
    ["<content_repo::cache::refresh::Refresh as content_repo::client::pager::Paging>::receive::h16dcca57d41c9f09", "content_repo::cache"],
    ["<dlmalloc[e24a27700634d609]::dlmalloc::Dlmalloc<dlmalloc::sys::System>>::malloc", "dlmalloc"],
    ["<T as alloc::string::ToString>::to_string::hf484ede0f8a8f9ca", "alloc"],
    ["core::ptr::drop_in_place<content_repo::cache::Cache>::hb108f9945fe40f29", "core::ptr::drop_in_place (drop glue)"],
    ["_task_loaded externref shim", "exports: a client call's steps (_Task) (with what they inlined)"],
    ["client_new externref shim multivalue shim", "exports: Client (with what they inlined)"],
    ["clientcache_size", "exports: ClientCache (with what they inlined)"],
    ["applyQuery externref shim multivalue shim", "exports: the local functions (with what they inlined)"],
    ["__wbg_query_free", "exports: the classes' free() (with what they inlined)"],
    ["__multi3", "other (runtime, intrinsics)"],
  ];
  for (const [name, group] of cases) assert.equal(groupOf(name), group, name);
});

test("the module profile weighs each group, and what it adds gzipped", () => {
  // Two functions of random bytes (which gzip cannot shrink), one of them
  // twice (the second copy costs little gzipped), and a small one.
  const noise = randomBytes(3000);
  const bodies = [noise, randomBytes(2000), Buffer.from(noise), Buffer.from([0, 0x0b])];
  const bytes = moduleWith(bodies, ["content_repo::noise::f", "content_repo::other::g", "content_repo::copy::h", "content_repo::small::k"]);
  const shares = gzipShares(bytes);
  const by = Object.fromEntries(shares.groups.map((g) => [g.group, g]));
  assert.equal(by["content_repo::noise"].bytes, 3000);
  assert.equal(by["content_repo::copy"].bytes, 3000);
  assert.equal(by["content_repo::other"].bytes, 2000);
  assert.equal(by["data (strings, tables)"].bytes, "some data of the module".length);
  // Every function body and every section but the code and custom ones is in a group.
  const read = wasmFunctions(bytes);
  const sections = read.sections.filter((s) => s.id !== 0 && s.id !== 10).reduce((sum, s) => sum + s.end - s.start, 0);
  const code = read.bodies.reduce((sum, b) => sum + b.end - b.start, 0);
  assert.equal(shares.groups.reduce((sum, g) => sum + g.bytes, 0), sections + code);
  assert.equal(shares.raw, read.sections.filter((s) => s.id !== 0).reduce((sum, s) => sum + s.end - s.start, 0));
  // Incompressible bytes count whole; a copy of them hardly at all.
  assert.ok(Math.abs(by["content_repo::other"].gzip - 2000) < 60, `random bytes: ${by["content_repo::other"].gzip}`);
  assert.ok(by["content_repo::copy"].gzip < 200, `a copy: ${by["content_repo::copy"].gzip}`);
  assert.ok(by["content_repo::small"].gzip < 20, `two bytes: ${by["content_repo::small"].gzip}`);
  // Sorted by what they add gzipped.
  assert.deepEqual(shares.groups.map((g) => g.gzip), [...shares.groups.map((g) => g.gzip)].sort((a, b) => b - a));
});
