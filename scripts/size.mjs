// What a browser downloads for the package's "." entry, and how big it is
// gzipped: the module (pkg/web/content_repo_bg.wasm) and every JavaScript
// file reached by following the imports from pkg/web/index.js. Used by
// tests/js/size.test.mjs (the budget) and bench/run.mjs (the size report);
// `node scripts/size.mjs [pkg]` prints the report.
//
// An optional profile of the module by Rust module (`profile`) needs twiggy
// (cargo install twiggy), wasm-bindgen and wasm-opt; without them it says
// so and the rest works.
import { readFileSync, readdirSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { join, dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { execFileSync } from "node:child_process";
import { tmpdir, homedir } from "node:os";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The budget of issue 11: module + the "." entry's JavaScript, gzipped. */
export const BUDGET_BYTES = 100 * 1024;

/** gzip -9 by zlib, as a server compresses it (build.sh reports it too). */
export const gzipped = (bytes) => gzipSync(bytes, { level: 9 }).length;

/**
 * The relative specifiers a module imports statically (`import ... from`,
 * `export ... from`, `import "x"`) or dynamically with a literal
 * (`import("x")`), in written or minified text.
 */
export function importsOf(text) {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:\\])\/\/.*$/gm, "$1");
  const found = new Set();
  const patterns = [
    /(?:^|[\n;}])\s*(?:import|export)\b[^'";]*?\bfrom\s*(['"])([^'"]+)\1/g,
    /(?:^|[\n;}])\s*import\s*(['"])([^'"]+)\1/g,
    /\bimport\s*\(\s*(['"])([^'"]+)\1\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of code.matchAll(pattern)) found.add(match[2]);
  return [...found];
}

/** Every file of the module graph of `entry` (absolute paths), entry first. */
export function moduleGraph(entry) {
  const seen = [];
  const visit = (file) => {
    if (seen.includes(file)) return;
    seen.push(file);
    for (const specifier of importsOf(readFileSync(file, "utf8"))) {
      if (!specifier.startsWith(".")) throw new Error(`${file} imports ${specifier}, not a file of the package`);
      visit(resolve(dirname(file), specifier));
    }
  };
  visit(entry);
  return seen;
}

/** Every .js file under `dir` (relative paths, `/`-separated). */
function scripts(dir) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith(".js"))
    .map((file) => file.split(sep).join("/"))
    .sort();
}

/**
 * The sizes of what the "." entry loads in a browser, from `pkg` (a
 * scripts/build.sh output): the module, raw and gzipped, and each
 * JavaScript file of the graph of web/index.js; `unreached` lists the .js
 * files of web/ that the graph misses (slim.js is the "./slim" entry).
 */
export function entrySizes(pkg = join(ROOT, "pkg")) {
  const web = join(pkg, "web");
  const wasm = readFileSync(join(web, "content_repo_bg.wasm"));
  const graph = moduleGraph(join(web, "index.js")).map((file) => relative(web, file).split(sep).join("/"));
  const js = graph.map((file) => {
    const bytes = readFileSync(join(web, file));
    return { file, raw: bytes.length, gzip: gzipped(bytes) };
  });
  const jsGzip = js.reduce((sum, file) => sum + file.gzip, 0);
  const wasmGzip = gzipped(wasm);
  return {
    wasm: { file: "content_repo_bg.wasm", raw: wasm.length, gzip: wasmGzip },
    js,
    jsRaw: js.reduce((sum, file) => sum + file.raw, 0),
    jsGzip,
    total: wasmGzip + jsGzip,
    budget: BUDGET_BYTES,
    unreached: scripts(web).filter((file) => !graph.includes(file) && file !== "slim.js"),
  };
}

/** Where an executable is: on PATH, or in ~/.cargo/bin. */
function which(name) {
  for (const dir of [...(process.env.PATH || "").split(":").filter(Boolean), join(homedir(), ".cargo/bin")]) {
    if (existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

/**
 * The group of an item of a twiggy profile: a Rust path's crate and first
 * module (`content_repo::store`, `core::fmt`, `hashbrown::raw`); the
 * exported functions (wasm-bindgen's shims, with what they inlined); data.
 */
export function groupOf(name) {
  if (/^data segment|^"data names"/.test(name)) return "data (strings, tables)";
  if (/ shim$/.test(name) || /^[A-Za-z]+(_[A-Za-z]+)?$/.test(name)) return "exported functions (with what they inlined)";
  if (/^(import|export|type\[|elem\[|table\[|global\[|memory\[|custom section)/.test(name)) return "imports, exports, types";
  if (/(^|\s)js_sys::futures|future_to_promise/.test(name)) return "js_sys::futures (async exports)";
  if (/^core::ptr::drop_in_place|^core\[[0-9a-f]+\]::ptr::drop_in_place/.test(name)) return "core::ptr (drop glue)";
  const path = name.replace(/^[<&(]+|^(?:mut|dyn) /g, "").replace(/\[[0-9a-f]+\]/g, "");
  const match = /^([A-Za-z_][\w]*(?:::[A-Za-z_][\w]*)?)/.exec(path);
  return match ? match[1] : "other";
}

/**
 * The module's bytes by group, from twiggy on a copy of the module that
 * keeps its names (the cargo output through wasm-bindgen and wasm-opt -g,
 * as build.sh does): `{ available: false, reason }` without the tools.
 */
export function profile({ wasm = join(process.env.CARGO_TARGET_DIR ? resolve(ROOT, process.env.CARGO_TARGET_DIR) : join(ROOT, "target"), "wasm32-unknown-unknown/release/content_repo.wasm"), top = 12 } = {}) {
  const twiggy = which("twiggy");
  if (!twiggy) return { available: false, reason: "twiggy not installed (cargo install twiggy)" };
  const bindgen = which("wasm-bindgen");
  const wasmOpt = join(ROOT, "node_modules/.bin/wasm-opt");
  if (!existsSync(wasm)) return { available: false, reason: `${relative(ROOT, wasm)} not built` };
  if (!bindgen || !existsSync(wasmOpt)) return { available: false, reason: "wasm-bindgen or node_modules/.bin/wasm-opt missing" };
  const dir = mkdtempSync(join(tmpdir(), "content-repo-size-"));
  try {
    execFileSync(bindgen, ["--target", "web", "--out-dir", dir, "--remove-producers-section", wasm], { stdio: "ignore" });
    const named = join(dir, "named.wasm");
    const features = ["bulk-memory", "nontrapping-float-to-int", "sign-ext", "mutable-globals", "reference-types", "multivalue"];
    execFileSync(wasmOpt, ["-Os", "-g", ...features.map((f) => `--enable-${f}`), join(dir, "content_repo_bg.wasm"), "-o", named], { stdio: "ignore" });
    const csv = execFileSync(twiggy, ["top", "-n", "1000000", "-f", "csv", named], { encoding: "utf8", maxBuffer: 64 << 20 });
    const groups = new Map();
    let total = 0;
    for (const line of csv.split("\n").slice(1)) {
      // Name,ShallowSize,ShallowSizePercent,RetainedSize,RetainedSizePercent (the name may be quoted)
      const match = /^("(?:[^"]|"")*"|[^,]*),(\d+),/.exec(line);
      if (!match) continue;
      const name = match[1].startsWith('"') ? match[1].slice(1, -1).replace(/""/g, '"') : match[1];
      if (/"function names" subsection|^"?local names|^name section/.test(name)) continue; // not shipped
      const bytes = Number(match[2]);
      const group = groupOf(name);
      const entry = groups.get(group) || { group, bytes: 0, items: 0 };
      entry.bytes += bytes;
      entry.items += 1;
      groups.set(group, entry);
      total += bytes;
    }
    const sorted = [...groups.values()].sort((a, b) => b.bytes - a.bytes);
    return { available: true, total, groups: sorted.slice(0, top), rest: sorted.slice(top).reduce((sum, g) => sum + g.bytes, 0) };
  } catch (error) {
    return { available: false, reason: `profiling failed: ${String(error.message).split("\n")[0]}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** The size section of the bench report. */
export function formatSizes(sizes, prof) {
  const lines = [];
  const row = (label, raw, gzip) => `  ${label.padEnd(58)} ${String(raw).padStart(9)} ${String(gzip).padStart(9)}`;
  lines.push(`== size of the "." entry in a browser (gzip -9 per file; budget ${sizes.budget} bytes = ${kib(sizes.budget)})`);
  lines.push(`  ${"file".padEnd(58)} ${"raw".padStart(9)} ${"gzip".padStart(9)}`);
  lines.push(row(`web/${sizes.wasm.file}`, sizes.wasm.raw, sizes.wasm.gzip));
  for (const file of sizes.js) lines.push(row(`web/${file.file}`, file.raw, file.gzip));
  lines.push(row(`JavaScript (${sizes.js.length} files)`, sizes.jsRaw, sizes.jsGzip));
  const over = sizes.total - sizes.budget;
  lines.push(row("total", sizes.wasm.raw + sizes.jsRaw, sizes.total));
  lines.push(`  ${over > 0 ? `over the budget by ${over} bytes (${kib(over)})` : `within the budget (${-over} bytes to spare)`}`);
  if (sizes.unreached.length) lines.push(`  not reached from web/index.js (check the import scan): ${sizes.unreached.join(", ")}`);
  if (!prof) return lines.join("\n");
  if (!prof.available) {
    lines.push(`  module profile: skipped (${prof.reason})`);
    return lines.join("\n");
  }
  lines.push(`  module profile by Rust module (twiggy, bytes before gzip; ${prof.total} in all):`);
  for (const g of prof.groups) {
    lines.push(`    ${String(g.bytes).padStart(7)} ${((100 * g.bytes) / prof.total).toFixed(1).padStart(5)}%  ${g.group} (${g.items} items)`);
  }
  lines.push(`    ${String(prof.rest).padStart(7)} ${((100 * prof.rest) / prof.total).toFixed(1).padStart(5)}%  the rest`);
  return lines.join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pkg = resolve(process.argv[2] || join(ROOT, "pkg"));
  console.log(formatSizes(entrySizes(pkg), profile()));
}
