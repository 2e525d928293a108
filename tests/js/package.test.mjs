// The built package as a user gets it: packed with `npm pack`, installed into
// a temporary project, imported with a plain `import "content-repo"` in Node,
// and the README's examples run there (tests/js/types.test.mjs type-checks
// them, and the package's declarations).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync, writeFileSync, rmSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";
import { startServer } from "../../www/server.mjs";
import { moduleGraph } from "../../scripts/size.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
let project;
let server;

/** The fenced ```js blocks of the README, and its ```ts blocks as their JavaScript. */
export function readmeExamples() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  return [...readme.matchAll(/```(js|ts)\n([\s\S]*?)```/g)].map(([, language, code]) =>
    language === "ts" ? transformSync(code, { loader: "ts", format: "esm" }).code : code,
  );
}

before(async () => {
  server = await startServer({ port: 0, apiKey: "demo-key" });
  project = mkdtempSync(join(tmpdir(), "content-repo-user-"));
  const packed = execFileSync("npm", ["pack", join(root, "pkg"), "--pack-destination", project, "--silent"], {
    encoding: "utf8",
  }).trim().split("\n").pop();
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "user", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", join(project, packed)], {
    cwd: project,
    stdio: "inherit",
  });
});

after(async () => {
  rmSync(project, { recursive: true, force: true });
  await server.close();
});

const execFileAsync = promisify(execFile);

/** Runs a module in the user's project; asynchronously, so the in-process fixture server can answer. */
async function run(source) {
  const file = join(project, `script-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(file, source);
  const { stdout } = await execFileAsync(process.execPath, [file], { cwd: project, encoding: "utf8" });
  return stdout;
}

test("the packed package has what its package.json promises", () => {
  const manifest = JSON.parse(readFileSync(join(project, "node_modules/content-repo/package.json"), "utf8"));
  assert.equal(manifest.name, "content-repo");
  assert.equal(manifest.type, "module");
  assert.equal(manifest.exports["."].node, "./node/index.js");
  assert.equal(manifest.exports["."].browser, "./web/index.js");
  assert.equal(manifest.exports["./slim"].default, "./web/slim.js");
  assert.equal(manifest.exports["./wasm"].default, "./web/content_repo_bg.wasm");
  for (const file of ["index.d.ts", "slim.d.ts", "wasm.d.ts", "node/index.js", "node/api.js", "web/index.js", "web/slim.js", "web/api.js", "node/content_repo_bg.wasm", "web/content_repo_bg.wasm", "README.md"]) {
    assert.ok(readFileSync(join(project, "node_modules/content-repo", file)).length > 0, file);
  }
});

test("a plain import works in Node, with no init call", async () => {
  const out = await run(`
    import { Query, Client, ContentRepoError } from "content-repo";
    const q = new Query();
    const same = q.sort("fields.title", "asc") === q && q.limit(5) === q;
    q.sort("meta.createdAt", "DESC");
    console.log(JSON.stringify({ same, text: q.toString(), sorting: q.sorting, isError: ContentRepoError.prototype instanceof Error }));
  `);
  const result = JSON.parse(out);
  assert.equal(result.same, true);
  assert.equal(result.isError, true);
  assert.equal(result.text, "sorting%5Bfields.title%5D=ASC&sorting%5Bmeta.createdAt%5D=DESC&limit=5");
  assert.deepEqual(result.sorting, [
    { key: "fields.title", direction: "ASC" },
    { key: "meta.createdAt", direction: "DESC" },
  ]);
});

test("the README's examples run against the installed package and the fixture server", async () => {
  const examples = readmeExamples();
  assert.ok(examples.length >= 2, "the README has examples");
  const base = server.url.replace(/\/$/, "");
  for (const example of examples.map((text) => text.replaceAll("http://127.0.0.1:8080", base))) {
    // console.assert only prints: turn it into a real failure.
    const strict = `console.assert = (ok, ...rest) => { if (!ok) throw new Error("README assertion failed: " + rest.join(" ")); };\n${example}`;
    await run(strict);
  }
});

test("the README's recipes for other environments (```js recipe, ```ts recipe, ```tsx recipe) are valid modules", async () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const recipes = [...readme.matchAll(/```(js|ts|tsx) recipe\n([\s\S]*?)```/g)].map((match) => ({ language: match[1], code: match[2] }));
  assert.ok(recipes.length >= 5, "bundlers, esbuild, Cloudflare Workers, service worker, React with TanStack Query");
  for (const { language, code } of recipes) {
    // TypeScript recipes (type-checked by types.test.mjs) as their JavaScript.
    const source = language === "js" ? code : transformSync(code, { loader: language, format: "esm", jsx: "automatic" }).code;
    const file = join(project, `recipe-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(file, source);
    await execFileAsync(process.execPath, ["--check", file]);
  }
});

test("the README's preload hints name what the browser entry loads, as installed", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/^```html\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  assert.ok(blocks.length > 0, "the README has its html block");
  const prefix = "/node_modules/content-repo/";
  const links = blocks.flatMap((html) => [...html.matchAll(/<link rel="(modulepreload|preload)" href="([^"]+)"/g)]);
  const named = links.map(([, rel, href]) => {
    assert.ok(href.startsWith(prefix), href);
    return [rel, href.slice(prefix.length)];
  });
  const installed = join(project, "node_modules/content-repo");
  const web = join(installed, "web");
  // The graph of the browser entry, and the module it fetches.
  const graph = moduleGraph(join(web, "index.js")).map((file) => `web/${relative(web, file).split(sep).join("/")}`);
  const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  assert.equal(manifest.exports["."].browser, `./${graph[0]}`);
  assert.deepEqual(named.filter(([rel]) => rel === "modulepreload").map(([, file]) => file).sort(), [...graph].sort());
  assert.deepEqual(named.filter(([rel]) => rel === "preload").map(([, file]) => file), [manifest.exports["./wasm"].default.slice(2)]);
});

test("errors are ContentRepoError instances with stable codes, thrown from every setter", async () => {
  const out = await run(`
    import { Query, Client, ContentRepoError } from "content-repo";
    const cases = [
      () => new Query().sort("title", "ASC"),
      () => new Query().sort("fields.title", null),
      () => new Query().fields("a,,b"),
      () => new Query().limit(0),
      () => new Query().offset(-1),
      () => new Query().includes(9),
      () => new Query().filter({ field: "slug", op: "equal", value: "x" }),
      () => new Client({ baseUrl: "ftp://x", repository: "r", apiKey: "k" }),
      () => new Client({ baseUrl: "http://x", repository: "r", apiKey: "top-secret\\n" }),
      () => Query.parse("limit=abc"),
    ];
    console.log(JSON.stringify(cases.map((make) => {
      try { make(); return null; } catch (e) {
        return { ctor: e.constructor.name, isRepo: e instanceof ContentRepoError, isError: e instanceof Error, code: e.code, position: e.position, message: e.message, stack: typeof e.stack };
      }
    })));
  `);
  const results = JSON.parse(out);
  const codes = results.map((r) => r && r.code);
  assert.deepEqual(codes, [
    "invalid_sort", "invalid_sort", "invalid_selection", "invalid_argument", "invalid_argument",
    "invalid_argument", "invalid_argument", "invalid_argument", "invalid_argument", "invalid_argument",
  ]);
  for (const r of results) {
    assert.equal(r.isRepo, true);
    assert.equal(r.isError, true);
    assert.equal(r.ctor, "ContentRepoError");
    assert.equal(r.stack, "string");
    assert.ok(!r.message.includes("top-secret"));
  }
  assert.equal(results[2].position, 2);
  assert.match(results[2].message, /expected a name .* at 2/);
});

test("query strings match URLSearchParams byte for byte, and parse back", async () => {
  const out = await run(`
    import { Query } from "content-repo";
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const alphabet = ["a", "Z", "0", " ", "+", "&", "=", "%", "#", "[", "]", "/", "?", ",", "(", ")", "*", "-", ".", "_", "~", "!", "'", "é", "ü", "€", "😀", "中", "\\n", "\\t", "\\u0000"];
    const text = () => Array.from({ length: 1 + Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
    const mismatches = [];
    for (let i = 0; i < 500; i++) {
      const search = text(), tag = text(), value = text();
      const q = new Query().includeTags([tag]).search(search).filter({ field: "fields.slug", op: "equal", value });
      const expected = new URLSearchParams([["includeTags[0]", tag], ["search", search], ["filters[0][*.fields.slug][equal]", value]]).toString();
      if (q.toString() !== expected) mismatches.push([q.toString(), expected]);
      if (!Query.parse(q.toString()).equals(q)) mismatches.push(["parse", q.toString()]);
      if (!Query.parse(expected).equals(q)) mismatches.push(["parse URLSearchParams", expected]);
    }
    console.log(JSON.stringify(mismatches.slice(0, 5)));
  `);
  assert.deepEqual(JSON.parse(out), []);
});

test("every export the glue reads is one the shipped module has (short export names)", () => {
  // The Node build's glue as written (the browser build's is the same glue, minified).
  const dir = join(project, "node_modules/content-repo/node");
  const glue = readFileSync(join(dir, "content_repo.js"), "utf8");
  const module = new WebAssembly.Module(readFileSync(join(dir, "content_repo_bg.wasm")));
  const exported = new Set(WebAssembly.Module.exports(module).map((entry) => entry.name));
  const reads = new Set([...glue.matchAll(/\bwasm\.([\w$]+)/g)].map((match) => match[1]));
  assert.ok(reads.size > 50, `the glue reads the module (${reads.size} exports)`);
  for (const name of reads) assert.ok(exported.has(name), `wasm.${name} is not an export of the module`);
  assert.equal(readFileSync(join(project, "node_modules/content-repo/web/content_repo_bg.wasm")).compare(readFileSync(join(dir, "content_repo_bg.wasm"))), 0, "one module for both builds");
});

test("objects are released by the garbage collector (FinalizationRegistry)", () => {
  const glue = readFileSync(join(project, "node_modules/content-repo/node/content_repo.js"), "utf8");
  // (The module's exports have short names: scripts/minify-exports.mjs.)
  assert.match(glue, /QueryFinalization = [^;]*new FinalizationRegistry\(ptr => wasm\.[\w$]+\(ptr/);
  const out = execFileSync(process.execPath, ["--expose-gc", "--input-type=module", "-e", `
    import { Query } from "content-repo";
    const registry = new FinalizationRegistry(() => collected++);
    let collected = 0;
    for (let i = 0; i < 2000; i++) registry.register(new Query().limit(5), i);
    for (let i = 0; i < 20 && collected === 0; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 10)); }
    console.log(collected);
  `], { cwd: project, encoding: "utf8" });
  assert.ok(Number(out) > 0, "unreferenced queries are collected");
});
