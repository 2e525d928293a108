// The bundler and environment matrix: the packed package (`npm pack pkg/`,
// installed into a temporary project, as a user gets it) in small apps from
// tests/bundlers/, each built with its tool's default configuration and no
// plugins, then run in headless Chromium (or Node) where each app proves the
// SDK works (tests/bundlers/check.mjs): `not_initialized` before ready, a
// query string, a DocumentStore round trip, and a freed Query refused with
// the store still working.
//
// Vite 5, 6, 7 and 8 (`vite build`, dist served statically; Vite 7 and 8 also
// the dev server), each with a dedicated module worker; webpack 5
// (`--mode production`, no configuration file); an import map; esbuild with
// content-repo/slim + content-repo/wasm; a module and a classic service
// worker; Node 20 `import` and `require`.
//
// Every server listens on 127.0.0.1 on an ephemeral port and is closed, the
// browser too; the builds run one at a time (2 shared cores).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync, spawn } from "node:child_process";
import { createServer } from "node:http";
import { promisify } from "node:util";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, normalize, extname } from "node:path";
import { root, launchChromium } from "./harness.mjs";

const execFileAsync = promisify(execFile);
const tools = join(root, "node_modules");
const pins = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies;
/** The version a devDependency pins, alias or not: "npm:vite@5.4.21" is 5.4.21. */
const pinned = (name) => pins[name].replace(/^npm:[^@]+@/, "");
const installed = (name) => JSON.parse(readFileSync(join(tools, name, "package.json"), "utf8")).version;

const VITES = [5, 6, 7, 8];
const DEV_SERVERS = [7, 8];
const PAGE_TIMEOUT_MS = 30_000;
const BUILD_TIMEOUT_MS = 120_000;

let project;
let apps;
let browser;

before(async () => {
  project = mkdtempSync(join(tmpdir(), "content-repo-bundlers-"));
  const packed = execFileSync("npm", ["pack", join(root, "pkg"), "--pack-destination", project, "--silent"], {
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .pop();
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "matrix", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", join(project, packed)], {
    cwd: project,
    stdio: ["ignore", "ignore", "inherit"],
  });
  apps = join(project, "apps");
  cpSync(join(root, "tests/bundlers"), apps, { recursive: true });
  const installedPackage = join(project, "node_modules/content-repo");
  // Each Vite app is a project of its own, with the package in its own
  // node_modules (as a user's app has it: Vite serves only its project).
  for (const name of [...VITES.map((v) => `vite${v}`), "vite-slim", "vite-slim-url"]) {
    const app = join(apps, name);
    if (!existsSync(app)) cpSync(join(apps, "vite"), app, { recursive: true });
    cpSync(installedPackage, join(app, "node_modules/content-repo"), { recursive: true });
  }
  mkdirSync(join(apps, "vite-slim/public"), { recursive: true });
  cpSync(join(installedPackage, "web/content_repo_bg.wasm"), join(apps, "vite-slim/public/content_repo.wasm"));
  for (const name of readdirSync(apps)) {
    if (existsSync(join(apps, name, "package.json"))) cpSync(join(apps, "check.mjs"), join(apps, name, "check.mjs"));
  }
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

// ------------------------------------------------------------------ helpers

/** Runs `file` (a `.js` or `.mjs`/`.cjs` script with this Node); rejects with its output on failure. */
async function run(file, args, cwd) {
  const script = /\.[cm]?js$/.test(file);
  try {
    return await execFileAsync(script ? process.execPath : file, script ? [file, ...args] : args, {
      cwd,
      encoding: "utf8",
      timeout: BUILD_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
  } catch (error) {
    throw new Error(`${file} ${args.join(" ")} failed in ${cwd}:\n${error.stdout ?? ""}\n${error.stderr ?? ""}\n${error.message}`);
  }
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".css": "text/css",
};

/** A static server of `dir` on 127.0.0.1 and an ephemeral port; `offline = true` drops every request for a `.wasm`. */
async function serve(dir) {
  const site = { offline: false };
  const server = createServer(async (req, res) => {
    let path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (site.offline && path.endsWith(".wasm")) return req.socket.destroy();
    if (path.includes("..")) {
      res.writeHead(400);
      return res.end();
    }
    try {
      if ((await stat(join(dir, path))).isDirectory()) path = join(path, "index.html");
      const body = await readFile(join(dir, path));
      res.writeHead(200, { "Content-Type": TYPES[extname(path)] ?? "application/octet-stream", "Cache-Control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return Object.assign(site, {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  });
}

/**
 * Opens `url` in a fresh browser context and returns the app's
 * `window.__result`, with any error the page logged; `then(page, context)`,
 * if given, runs before the context closes, and its value is `later`.
 */
async function pageResult(url, then) {
  const context = await browser.newContext();
  const problems = [];
  try {
    const page = await context.newPage();
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
    });
    await page.goto(url);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: PAGE_TIMEOUT_MS });
    const result = await page.evaluate(() => window.__result);
    return { result, problems, later: await then?.(page, context) };
  } finally {
    await context.close();
  }
}

/** What every app reports (tests/bundlers/check.mjs). */
function assertWorks(result, { beforeReady = "not_initialized", where = "" } = {}) {
  assert.equal(result.error, undefined, `${where}: ${result.error}`);
  assert.equal(result.beforeReady, beforeReady, where);
  if (beforeReady === "not_initialized") {
    assert.equal(result.beforeReadyClass, true, `${where}: a ContentRepoError`);
    assert.match(result.beforeReadyMessage, /^new Query\(\): content-repo is not initialised yet: `await ready\(\)` first/, where);
    assert.match(result.beforeReadyMessage, /`await init\(\.\.\.\)`/, where);
  }
  assert.equal(result.query, "sorting%5Bfields.title%5D=ASC", where);
  assert.equal(result.stored, 3, where);
  assert.equal(result.chainable, true, where);
  assert.deepEqual(
    result.page.data.map((document) => document.fields.title),
    ["Banana", "Cherry"],
    where,
  );
  assert.deepEqual(result.page.meta, { count: 2, limit: 2, offset: 0, total: 3 }, where);
  assert.equal(result.freed.code, "invalid_argument", where);
  assert.equal(result.freed.isContentRepoError, true, where);
  assert.match(result.freed.message, /^query: this Query was freed \(DocumentStore\.prototype\.query\)/, where);
  assert.deepEqual(result.afterFreed, ["Banana", "Cherry"], `${where}: the store still works after the refused call`);
}

/** The .wasm files a build wrote, anywhere under `dir`. */
function wasmFiles(dir) {
  return readdirSync(dir, { recursive: true }).filter((file) => String(file).endsWith(".wasm"));
}

async function freePort() {
  const probe = createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts a Vite dev server in `cwd`; resolves with its URL and a `close`. */
async function viteDev(vite, cwd) {
  const port = await freePort();
  const child = spawn(process.execPath, [vite, "--host", "127.0.0.1", "--port", String(port), "--strictPort"], {
    cwd,
    detached: true, // its own process group, so that close() ends whatever it started
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  let output = "";
  child.stdout.on("data", (data) => (output += data));
  child.stderr.on("data", (data) => (output += data));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid, "SIGTERM");
      const timer = setTimeout(() => process.kill(-child.pid, "SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
  };
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 30_000;
  while (!output.includes(url)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`the dev server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url, close, output: () => output };
}

// --------------------------------------------------------------------- Node

test("the apps use each tool's defaults: no configuration file, no plugin, nothing but a name in a package.json", () => {
  const files = readdirSync(join(root, "tests/bundlers"), { recursive: true }).map(String);
  const configs = files.filter((file) => /(^|\/)(vite|webpack|rollup|esbuild|babel|tsconfig|jsconfig|postcss)[.\w-]*\.(c|m)?(js|ts|json)$|(^|\/)\.babelrc/.test(file));
  assert.deepEqual(configs, []);
  for (const file of files.filter((name) => name.endsWith("package.json"))) {
    const manifest = JSON.parse(readFileSync(join(root, "tests/bundlers", file), "utf8"));
    assert.deepEqual(Object.keys(manifest).filter((key) => !["name", "private", "type"].includes(key)), [], file);
  }
});

test(`node ${process.version}: import "content-repo"`, async () => {
  const { stdout } = await run(join(apps, "node/esm.mjs"), [], project);
  assertWorks(JSON.parse(stdout), { beforeReady: "no error", where: "node import" });
});

test(`node ${process.version}: require("content-repo")`, async () => {
  const { stdout, stderr } = await run(join(apps, "node/require.cjs"), [], project);
  const result = JSON.parse(stdout);
  assertWorks(result, { beforeReady: "no error", where: "node require" });
  assert.ok(result.keys.includes("ready") && result.keys.includes("Query") && !result.keys.includes("init"), result.keys.join());
  assert.doesNotMatch(stderr, /Error/, stderr);
});

// --------------------------------------------------------------------- Vite

for (const major of VITES) {
  const name = `vite${major}`;
  test(`vite ${pinned(name)}: vite build, dist served statically (page and module worker)`, async () => {
    assert.equal(installed(name), pinned(name), "the pinned Vite is installed");
    const app = join(apps, name);
    await run(join(tools, name, "bin/vite.js"), ["build"], app);
    assert.deepEqual(
      wasmFiles(join(app, "dist")).map((file) => file.replace(/-[\w-]+\.wasm$/, ".wasm")),
      ["assets/content_repo_bg.wasm"],
      "one .wasm asset",
    );
    const site = await serve(join(app, "dist"));
    try {
      const { result, problems } = await pageResult(`${site.url}/`);
      assertWorks(result, { where: `${name} page` });
      assertWorks(result.worker, { where: `${name} worker` });
      assert.deepEqual(problems, []);
    } finally {
      await site.close();
    }
  });
}

for (const major of DEV_SERVERS) {
  const name = `vite${major}`;
  test(`vite ${pinned(name)}: dev server (page and module worker)`, async () => {
    const server = await viteDev(join(tools, name, "bin/vite.js"), join(apps, name));
    try {
      const { result, problems } = await pageResult(server.url);
      assertWorks(result, { where: `${name} dev page` });
      assertWorks(result.worker, { where: `${name} dev worker` });
      assert.deepEqual(problems, [], server.output());
    } finally {
      await server.close();
    }
  });
}

test(`vite ${pinned("vite8")}: content-repo/slim emits no .wasm of its own`, async () => {
  const app = join(apps, "vite-slim");
  await run(join(tools, "vite8/bin/vite.js"), ["build"], app);
  // Only the app's own copy (public/), never a module asset.
  assert.deepEqual(wasmFiles(join(app, "dist")), ["content_repo.wasm"]);
  const site = await serve(join(app, "dist"));
  try {
    const { result, problems } = await pageResult(`${site.url}/`);
    assertWorks(result, { where: "vite slim" });
    assert.match(result.beforeReadyMessage, /init\(\) has not been called/);
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});

test(`vite ${pinned("vite8")}: content-repo/slim with import wasmUrl from "content-repo/wasm?url"`, async () => {
  const app = join(apps, "vite-slim-url");
  await run(join(tools, "vite8/bin/vite.js"), ["build"], app);
  assert.equal(wasmFiles(join(app, "dist")).length, 1, "one .wasm asset");
  const site = await serve(join(app, "dist"));
  try {
    const { result, problems } = await pageResult(`${site.url}/`);
    assertWorks(result, { where: "vite slim ?url" });
    assert.match(result.wasmUrl, /^\/assets\/content_repo_bg-[\w-]+\.wasm$/);
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});

// ------------------------------------------------------------------ webpack

test(`webpack ${pinned("webpack")}: webpack --mode production, no configuration file`, async () => {
  assert.equal(installed("webpack"), pinned("webpack"));
  const app = join(apps, "webpack");
  await run(join(tools, "webpack/bin/webpack.js"), ["--mode", "production"], app);
  assert.equal(wasmFiles(join(app, "dist")).length, 1, "one .wasm asset");
  const site = await serve(app);
  try {
    const { result, problems } = await pageResult(`${site.url}/`);
    assertWorks(result, { where: "webpack" });
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});

// ------------------------------------------------- no bundler, and esbuild

test("an import map and <script type=module>, no bundler", async () => {
  const site = await serve(project);
  try {
    const { result, problems } = await pageResult(`${site.url}/apps/importmap/`);
    assertWorks(result, { where: "import map" });
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});

test(`esbuild ${pinned("esbuild")}: content-repo/slim, content-repo/wasm with --loader:.wasm=file, init(new URL(wasmUrl, import.meta.url))`, async () => {
  assert.equal(installed("esbuild"), pinned("esbuild"));
  const app = join(apps, "esbuild-slim");
  await run(join(tools, ".bin/esbuild"), ["main.js", "--bundle", "--format=esm", "--loader:.wasm=file", "--outdir=dist"], app);
  assert.equal(wasmFiles(join(app, "dist")).length, 1, "one .wasm asset");
  const site = await serve(app);
  try {
    const { result, problems } = await pageResult(`${site.url}/`);
    assertWorks(result, { where: "esbuild slim" });
    assert.match(result.beforeReadyMessage, /init\(\) has not been called/);
    assert.match(result.wasmUrl, /^\.\/content_repo_bg-\w+\.wasm$/);
    assert.equal(result.readyAfterInit, true);
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});

// ---------------------------------------------------------- service workers

/** What a page logs with console.log, once it has logged `count` lines (problems: errors, failed requests). */
async function pageLogs(url, count) {
  const context = await browser.newContext();
  const problems = [];
  try {
    const page = await context.newPage();
    const logs = [];
    let done;
    const logged = new Promise((resolve) => (done = resolve));
    page.on("console", (message) => {
      if (message.type() === "log") logs.push(message.text());
      else if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
      if (logs.length >= count) done();
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.url()}`);
    });
    await page.goto(url);
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, PAGE_TIMEOUT_MS)));
    await Promise.race([logged, late]).finally(() => clearTimeout(timer));
    return { logs, problems };
  } finally {
    await context.close();
  }
}

test("the README's browser recipes run as written: with an import map, and bundled by esbuild through content-repo/slim", async () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const recipes = [...readme.matchAll(/^```js recipe\n([\s\S]*?)^```$/gm)].map((match) => match[1]);
  const main = recipes.filter((code) => /from "content-repo";/.test(code));
  const slim = recipes.filter((code) => /from "content-repo\/slim";/.test(code) && /from "content-repo\/wasm";/.test(code));
  assert.deepEqual([main.length, slim.length], [1, 1], "the README's two browser recipes");
  const dir = join(project, "readme");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "main.js"), main[0]);
  const map = JSON.stringify({ imports: { "content-repo": "/node_modules/content-repo/web/index.js" } });
  const head = '<!doctype html>\n<meta charset="utf-8">\n<link rel="icon" href="data:,">\n';
  writeFileSync(join(dir, "main.html"), `${head}<script type="importmap">${map}</script>\n<script type="module" src="/readme/main.js"></script>\n`);
  writeFileSync(join(dir, "slim.js"), slim[0]);
  await run(join(tools, ".bin/esbuild"), ["slim.js", "--bundle", "--format=esm", "--loader:.wasm=file", "--outdir=dist"], dir);
  writeFileSync(join(dir, "slim.html"), `${head}<script type="module" src="/readme/dist/slim.js"></script>\n`);
  const site = await serve(project);
  try {
    for (const [page, expected] of [
      ["main.html", ["sorting%5Bfields.title%5D=ASC"]],
      ["slim.html", ["limit=5"]],
    ]) {
      const { logs, problems } = await pageLogs(`${site.url}/readme/${page}`, expected.length);
      assert.deepEqual(logs, expected, page);
      assert.deepEqual(problems, [], page);
    }
  } finally {
    await site.close();
  }
});

/**
 * The worker stopped and started again, online, then while its `.wasm`
 * cannot be fetched (offline): `{ kept, keys, online, offline }`, the keys
 * of the cache `content-repo-module` to keep (the module's own, and of
 * those the page put, the same URL of a newer version, another URL's
 * module, an entry of the app's, but not the same URL of an older version)
 * and those found after the online start, and its answers to the page's
 * next `./sdk-check` each time.
 */
function restartedOffline(site) {
  return async (page, context) => {
    const keys = () => page.evaluate(async () => (await (await caches.open("content-repo-module")).keys()).map((request) => request.url).sort());
    const [own, ...rest] = await keys();
    assert.deepEqual(rest, [], "one entry: the module's");
    const build = (name) => own.replace(/content-repo=[^&]+/, `content-repo=${encodeURIComponent(name)}`);
    const [older, newer] = [build("0.0.1+0123456789abcdef"), build("999.0.0+0123456789abcdef")];
    const other = own.replace(/\/[^/]*\?/, "/elsewhere.wasm?");
    const app = new URL("/app-entry", own).href;
    await page.evaluate(async (urls) => {
      const cache = await caches.open("content-repo-module");
      for (const url of urls) await cache.put(url, new Response("not the module"));
    }, [older, newer, other, app]);
    const restart = async () => {
      const cdp = await context.newCDPSession(page);
      await cdp.send("ServiceWorker.enable");
      await cdp.send("ServiceWorker.stopAllWorkers");
      await cdp.detach();
      return page.evaluate(() => fetch("./sdk-check").then((response) => response.json()));
    };
    const online = await restart();
    const after = await keys();
    site.offline = true;
    const offline = await restart();
    return { kept: [own, newer, other, app].sort(), keys: after, online, offline };
  };
}

/** What `restartedOffline` found: both starts answered, and only the older version's entry of the module's URL went. */
function assertRestarts(later, where) {
  assertWorks(later.online, { where: `${where} started again` });
  assertWorks(later.offline, { where: `${where} started offline (the module from Cache Storage)` });
  assert.deepEqual(later.keys, later.kept, `${where}: Cache Storage`);
}

test("a module service worker answers fetch events with the SDK (\".\" entry, no bundler), after a restart offline too", async () => {
  const site = await serve(project);
  try {
    const { result, problems, later } = await pageResult(`${site.url}/apps/sw-module/`, restartedOffline(site));
    assertWorks(result, { where: "module service worker" });
    assert.equal(result.from, "module service worker");
    assertRestarts(later, "module service worker");
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});

test("a classic service worker (esbuild IIFE, content-repo/slim + content-repo/wasm) answers fetch events with the SDK, after a restart offline too", async () => {
  const app = join(apps, "sw-classic");
  await run(join(tools, ".bin/esbuild"), ["sw.js", "--bundle", "--format=iife", "--loader:.wasm=file", "--outfile=sw.bundle.js"], app);
  assert.equal(wasmFiles(app).length, 1, "one .wasm asset");
  const site = await serve(project);
  try {
    const { result, problems, later } = await pageResult(`${site.url}/apps/sw-classic/`, restartedOffline(site));
    assertWorks(result, { where: "classic service worker" });
    assert.equal(result.from, "classic service worker");
    assertRestarts(later, "classic service worker");
    assert.deepEqual(problems, []);
  } finally {
    await site.close();
  }
});
