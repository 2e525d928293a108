#!/usr/bin/env node
// Benchmark runner: SDK (pkg/) vs pure-JavaScript peers, in Node and in headless Chromium.
//
//   node bench/run.mjs [--quick] [--sizes=1000,10000] [--node-only | --browser-only]
//                          [--workloads=W1,W4,ingest,offline,first-list] [--seed=N] [--pkg=DIR] [--results=DIR] [--serve] [--help]
//
// Results: bench/results/bench-node.json, bench-chromium.json and bench-first-list.json (git-ignored).

import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import v8 from "node:v8";
import vm from "node:vm";
import { fileURLToPath, pathToFileURL } from "node:url";

import { runSuite, ALL_WORKLOADS } from "./suite.mjs";
import { formatReport } from "./report.mjs";
import { SIZES } from "./gen.mjs";
import { loadSdk } from "./sdk.mjs";
import { firstListFigures } from "./first-list.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..");
const RESULTS = path.join(HERE, "results");
const CHROMIUM = "/usr/bin/chromium";
// Workloads of the runner itself, not of the suite (Node and the page).
const RUNNER_WORKLOADS = ["first-list"];
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

const HELP = `usage: node bench/run.mjs [options]
  --quick              short run: sizes 1000,10000 (unless --sizes), fewer/shorter samples
  --sizes=1000,10000   document counts (default ${SIZES.join(",")})
  --workloads=W1,W4    subset of ${[...ALL_WORKLOADS, ...RUNNER_WORKLOADS].join(",")}
                       (offline: the offline cache figures of issue 10, after the others;
                       first-list: time to the first list in throttled Chromium against
                       comfortable-javascript, issue 11, last)
  --seed=N             generator seed (default 20240601)
  --results=DIR        write bench-*.json there (default bench/results)
  --pkg=DIR            load the SDK from DIR (a scripts/build.sh output, e.g. PKG_DIR=...; default pkg/)
  --node-only          skip the headless Chromium run
  --browser-only       skip the Node run
  --serve              only start the static server and print the page URL (manual browser runs)
  --help`;

function parseArgs(argv) {
  const o = { quick: false, sizes: null, nodeOnly: false, browserOnly: false, serve: false, seed: 20240601, workloads: [...ALL_WORKLOADS, ...RUNNER_WORKLOADS], pkg: path.join(ROOT, "pkg"), results: RESULTS };
  for (const a of argv) {
    const [k, v] = a.split("=", 2);
    if (k === "--quick") o.quick = true;
    else if (k === "--node-only") o.nodeOnly = true;
    else if (k === "--browser-only") o.browserOnly = true;
    else if (k === "--serve") o.serve = true;
    else if (k === "--sizes" && v) o.sizes = v.split(",").map((x) => Number(x.trim()));
    else if (k === "--seed" && v) o.seed = Number(v);
    else if (k === "--pkg" && v) o.pkg = path.resolve(v);
    else if (k === "--results" && v) o.results = path.resolve(v);
    else if (k === "--workloads" && v) o.workloads = v.split(",").map((x) => x.trim());
    else if (k === "--help" || k === "-h") {
      console.log(HELP);
      process.exit(0);
    } else {
      console.error(`unknown argument: ${a}\n${HELP}`);
      process.exit(2);
    }
  }
  if (o.sizes && o.sizes.some((n) => !Number.isInteger(n) || n < 1)) {
    console.error("--sizes takes positive integers");
    process.exit(2);
  }
  const bad = o.workloads.filter((w) => !ALL_WORKLOADS.includes(w) && !RUNNER_WORKLOADS.includes(w));
  if (bad.length) {
    console.error(`unknown workload(s): ${bad.join(",")} (known: ${[...ALL_WORKLOADS, ...RUNNER_WORKLOADS].join(",")})`);
    process.exit(2);
  }
  o.firstList = o.workloads.includes("first-list");
  o.workloads = o.workloads.filter((w) => !RUNNER_WORKLOADS.includes(w));
  if (!o.sizes) o.sizes = o.quick ? [1000, 10000] : SIZES;
  if (o.nodeOnly && o.browserOnly) {
    console.error("--node-only and --browser-only exclude each other");
    process.exit(2);
  }
  return o;
}

function machine() {
  const cpus = os.cpus();
  return { platform: `${os.platform()} ${os.release()}`, arch: os.arch(), cpus: cpus.length, cpuModel: cpus[0] ? cpus[0].model : "", totalMemGiB: +(os.totalmem() / 2 ** 30).toFixed(1), loadAvg: os.loadavg() };
}

function writeResults(name, res, dir = RESULTS) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `bench-${name}.json`);
  fs.writeFileSync(file, JSON.stringify(res, null, 2) + "\n");
  return path.relative(ROOT, file);
}

// ---------------------------------------------------------------------------------
// Node
// ---------------------------------------------------------------------------------

async function runNode(o) {
  // A real full GC between measurements and for the memory figures, without asking
  // for `node --expose-gc` (package.json runs plain `node bench/run.mjs`).
  let gc = null;
  try {
    v8.setFlagsFromString("--expose-gc");
    gc = vm.runInNewContext("gc");
  } catch {
    gc = null;
  }
  const { libs } = await import("./libs-node.mjs");
  const sdk = await loadSdk(pathToFileURL(path.join(o.pkg, "node/index.js")).href);
  const pkgName = path.relative(ROOT, o.pkg) || o.pkg;
  console.log(`\n### Node ${process.version}: ${sdk.available ? `SDK from ${pkgName}/node` : "SDK skipped (" + sdk.reason + ")"}`);
  const res = await runSuite({
    env: { name: "node", version: process.version, v8: process.versions.v8, machine: machine() },
    sizes: o.sizes,
    quick: o.quick,
    seed: o.seed,
    workloads: o.workloads,
    libs,
    sdk,
    hooks: {
      log: (l) => console.log(l),
      gc: gc ? () => gc() : null,
      heapUsed: () => process.memoryUsage().heapUsed,
      yield: () => new Promise((r) => setImmediate(r)),
      sdkStoreMemory: sdk.available ? (text) => workerMemory(sdk.specifier, text) : null,
      offlineMemory: sdk.available ? (size) => offlineMemoryNode(sdk.specifier, size, o.seed) : null,
      offlineStorage: "memory",
    },
  });
  res.env.gcExposed = !!gc;
  // Refresh traffic (issue 12), with the offline figures: Node only (bytes on the wire).
  if (sdk.available && o.workloads.includes("offline")) {
    const { refreshFigures } = await import("./refresh.mjs");
    const mod = await import(sdk.specifier);
    await mod.ready();
    const sizes = o.sizes.filter((size) => size >= 10000);
    console.log("\n### refresh: bytes and time against a full prefetch (target: at most 5% of the bytes)");
    res.refresh = await refreshFigures(mod, { sizes: sizes.length ? sizes : o.sizes, seed: o.seed, log: (l) => console.log(l) });
    if (res.refresh.some((row) => !row.ok)) res.error = "refresh counted changes wrongly";
  }
  console.log("\n" + formatReport(res));
  console.log(`\nwrote ${writeResults("node", res, o.results)}`);
  return res;
}

/** The SDK store's wasm memory growth for putJson(text), in a fresh instance (worker). */
async function workerMemory(specifier, text) {
  const { Worker } = await import("node:worker_threads");
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL("./memory-worker.mjs", import.meta.url), { workerData: { specifier, text } });
    w.once("message", (m) => {
      resolve(m);
      w.terminate();
    });
    w.once("error", reject);
    w.once("exit", (code) => reject(new Error(`memory worker exited (${code})`)));
  });
}

/** The offline figures' memory probe: one prefetch in a fresh Node process (offline-memory.mjs). */
async function offlineMemoryNode(specifier, size, seed) {
  const { execFile } = await import("node:child_process");
  const script = fileURLToPath(new URL("./offline-memory.mjs", import.meta.url));
  return new Promise((resolve) => {
    execFile(process.execPath, ["--expose-gc", script, specifier, String(size), String(seed)], { maxBuffer: 1 << 20, timeout: 10 * 60000 }, (err, stdout, stderr) => {
      const line = String(stdout).trim().split("\n").pop();
      try {
        resolve(JSON.parse(line));
      } catch {
        resolve({ ok: false, reason: `probe process failed: ${err ? err.message : ""} ${String(stderr).slice(0, 300)}` });
      }
    });
  });
}

/** Resident set size of a process in bytes (Linux /proc), 0 when unknown. */
function processRss(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * The same probe in Chromium: a new browser context (its own renderer process, JS heap
 * and wasm instance). Besides the page's own figures (wasm memory, CDP heap usage), the
 * runner reads the RSS of the renderer processes that appeared for it (/proc), sampled
 * every 5 ms while the page says the prefetch runs (__benchRssWatch).
 */
async function offlineMemoryBrowser(browser, server, size, seed) {
  const bcdp = await browser.newBrowserCDPSession().catch(() => null);
  const renderers = async () => (bcdp ? (await bcdp.send("SystemInfo.getProcessInfo")).processInfo.filter((p) => p.type === "renderer").map((p) => p.id) : []);
  const old = new Set(await renderers().catch(() => []));
  const context = await browser.newContext();
  let timer = null;
  let sampler = null;
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    let done;
    const finished = new Promise((resolve, reject) => {
      done = resolve;
      page.on("pageerror", (err) => reject(new Error(`memory probe page error: ${err.message}`)));
      page.on("crash", () => reject(new Error("memory probe page crashed")));
      timer = setTimeout(() => reject(new Error("memory probe timed out")), 10 * 60000);
    });
    let pids = null;
    const rss = async () => {
      if (!pids) pids = (await renderers()).filter((pid) => !old.has(pid));
      let sum = 0;
      for (const pid of pids) sum += processRss(pid);
      return sum;
    };
    let peak = 0;
    await page.exposeFunction("__benchGc", async () => {
      await cdp.send("HeapProfiler.collectGarbage");
    });
    await page.exposeFunction("__benchHeapUsed", async () => (await cdp.send("Runtime.getHeapUsage")).usedSize);
    await page.exposeFunction("__benchRss", async () => (bcdp ? { rss: await rss(), pids: pids.length } : null));
    await page.exposeFunction("__benchRssWatch", async (on) => {
      if (on) {
        peak = await rss();
        sampler = setInterval(() => {
          let sum = 0;
          for (const pid of pids) sum += processRss(pid);
          peak = Math.max(peak, sum);
        }, 5);
        return peak;
      }
      clearInterval(sampler);
      sampler = null;
      return Math.max(peak, await rss());
    });
    await page.exposeFunction("__benchReport", (json) => done(json));
    const { port } = server.address();
    await page.goto(`http://127.0.0.1:${port}/bench/offline-memory.html?size=${size}&seed=${seed}`, { waitUntil: "load" });
    return await finished;
  } catch (err) {
    return JSON.stringify({ ok: false, reason: String(err && err.message ? err.message : err) });
  } finally {
    clearTimeout(timer);
    clearInterval(sampler);
    await context.close().catch(() => {});
    if (bcdp) await bcdp.detach().catch(() => {});
  }
}

// ---------------------------------------------------------------------------------
// Static server: /www/..., /node_modules/... from the checkout root, /pkg/... from --pkg
// ---------------------------------------------------------------------------------

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8", ".cjs": "text/javascript; charset=utf-8", ".json": "application/json; charset=utf-8", ".wasm": "application/wasm", ".map": "application/json", ".css": "text/css", ".d.ts": "text/plain" };

function startServer(pkgDir = path.join(ROOT, "pkg")) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://127.0.0.1");
    let rel;
    try {
      rel = decodeURIComponent(url.pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (rel === "/" || rel === "/bench" || rel === "/bench/") {
      res.writeHead(302, { location: "/bench/index.html" + url.search }).end();
      return;
    }
    const top = rel.split("/")[1];
    const normal = path.posix.normalize(rel);
    // /pkg/... comes from --pkg (default <root>/pkg), which may lie outside the checkout.
    const base = top === "pkg" ? pkgDir : ROOT;
    const file = top === "pkg" ? path.resolve(pkgDir, "." + normal.slice("/pkg".length)) : path.resolve(ROOT, "." + normal);
    if (!["bench", "pkg", "node_modules"].includes(top) || !file.startsWith(base + path.sep)) {
      res.writeHead(404).end("not found");
      return;
    }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found");
        return;
      }
      res.writeHead(200, {
        "content-type": TYPES[path.extname(file)] || "application/octet-stream",
        "content-length": st.size,
        "cache-control": "no-store",
        // cross-origin isolation: performance.now() at 5 us instead of 100 us
        "cross-origin-opener-policy": "same-origin",
        "cross-origin-embedder-policy": "require-corp",
        "cross-origin-resource-policy": "same-origin",
      });
      if (req.method === "HEAD") res.end();
      else fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

function pageUrl(server, o) {
  const { port } = server.address();
  const q = new URLSearchParams({ sizes: o.sizes.join(","), seed: String(o.seed), workloads: o.workloads.join(",") });
  if (o.quick) q.set("quick", "1");
  return `http://127.0.0.1:${port}/bench/index.html?${q}`;
}

// ---------------------------------------------------------------------------------
// Chromium
// ---------------------------------------------------------------------------------

async function runBrowser(o) {
  if (!fs.existsSync(CHROMIUM)) {
    console.log(`\n### Chromium: skipped (${CHROMIUM} not found; it is installed by apt-get install chromium)`);
    return null;
  }
  const { chromium } = await import("playwright-core");
  const server = await startServer(o.pkg);
  const url = pageUrl(server, o);
  console.log(`\n### Chromium (${CHROMIUM}) at ${url}`);
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    const page = await browser.newPage();
    const cdp = await page.context().newCDPSession(page);
    let done;
    let fail;
    const finished = new Promise((resolve, reject) => {
      done = resolve;
      fail = reject;
    });
    page.on("console", (msg) => {
      const t = msg.text();
      if (msg.type() === "error" || msg.type() === "warning") console.log(`[chromium ${msg.type()}] ${t}`);
      else console.log(`[chromium] ${t}`);
    });
    page.on("pageerror", (err) => fail(new Error(`page error: ${err.message}`)));
    page.on("crash", () => fail(new Error("page crashed (out of memory?)")));
    await page.exposeFunction("__benchGc", async () => {
      await cdp.send("HeapProfiler.collectGarbage");
    });
    await page.exposeFunction("__benchHeapUsed", async () => (await cdp.send("Runtime.getHeapUsage")).usedSize);
    await page.exposeFunction("__benchReport", (json) => done(JSON.parse(json)));
    await page.exposeFunction("__benchFail", (msg) => fail(new Error(msg)));
    await page.exposeFunction("__benchOfflineMemory", (size) => offlineMemoryBrowser(browser, server, size, o.seed));
    await page.goto(url, { waitUntil: "load" });
    // (the offline figures at 100,000 documents add several minutes to a full run)
    const limitMin = o.quick ? 15 : o.workloads.includes("offline") ? 45 : 20;
    const timer = setTimeout(() => fail(new Error(`timed out after ${limitMin} min`)), limitMin * 60000);
    let res;
    try {
      res = await finished;
    } finally {
      clearTimeout(timer);
    }
    res.env.browserVersion = browser.version();
    res.env.machine = machine();
    console.log("\n" + formatReport(res));
    console.log(`\nwrote ${writeResults("chromium", res, o.results)}`);
    return res;
  } finally {
    if (browser) await browser.close().catch(() => {});
    server.close();
  }
}

// ---------------------------------------------------------------------------------

/**
 * The size of what the "." entry downloads in a browser (issue 11: module +
 * JavaScript, gzipped, against the 100 KiB budget), per file, and the
 * module by group, raw and what each adds gzipped (for pkg/ only: the
 * profile reads the last cargo build). Written to bench-size.json. A
 * failure here is reported and the benchmark goes on.
 */
async function reportSize(o) {
  try {
    const { entrySizes, profile, formatSizes } = await import("../scripts/size.mjs");
    if (!fs.existsSync(path.join(o.pkg, "web/content_repo_bg.wasm"))) {
      console.log(`\n== size: skipped (${path.relative(ROOT, o.pkg) || o.pkg}/web not built)`);
      return;
    }
    const sizes = entrySizes(o.pkg);
    const prof = o.pkg === path.join(ROOT, "pkg") ? profile() : { available: false, reason: "--pkg: the profile reads the last cargo build of this checkout" };
    console.log("\n" + formatSizes(sizes, prof));
    console.log(`wrote ${writeResults("size", { sizes, profile: prof }, o.results)}`);
  } catch (err) {
    console.log(`\n== size: not measured (${err.message})`);
  }
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.serve) {
    const server = await startServer(o.pkg);
    console.log(`serving ${ROOT} (bench/, pkg/, node_modules/) at ${pageUrl(server, o)}\nCtrl-C to stop`);
    return;
  }
  const t0 = Date.now();
  await reportSize(o);
  let failed = false;
  // an offline figure that could not be measured fails the run (exit 1), after both environments
  const offlineFailed = (r) => (r && r.offlineDetails ? r.offlineDetails.some((d) => d.error) : false);
  let incomplete = false;
  if (!o.browserOnly && o.workloads.length) {
    const r = await runNode(o);
    if (r.error) failed = true;
    if (offlineFailed(r)) incomplete = true;
  }
  if (!o.nodeOnly && !failed && o.workloads.length) {
    try {
      const r = await runBrowser(o);
      if (r && r.error) failed = true;
      if (offlineFailed(r)) incomplete = true;
    } catch (err) {
      console.error(`Chromium run failed: ${err.message}`);
      failed = true;
    }
  }
  // Time to the first list (issue 11): its own browser and server, after the suites.
  if (!o.nodeOnly && !failed && o.firstList) {
    try {
      const r = await firstListFigures({ pkg: o.pkg, quick: o.quick });
      if (r.skipped) console.log(`\n### first list: skipped (${r.skipped})`);
      else console.log(`\nwrote ${writeResults("first-list", r, o.results)}`);
      if (r.error) {
        console.error(`first list: ${r.error}`);
        failed = true;
      }
    } catch (err) {
      console.error(`first list failed: ${err.message}`);
      failed = true;
    }
  }
  console.log(`\ntotal ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  if (incomplete) console.error("offline cache figures: a size failed (see ERROR above)");
  process.exitCode = failed || incomplete ? 1 : 0;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
