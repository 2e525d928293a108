// What a browser downloads for the package's "." entry, and how big it is
// gzipped: the module (pkg/web/content_repo_bg.wasm) and every JavaScript
// file reached by following the imports from pkg/web/index.js. Used by
// tests/js/size.test.mjs (the budget) and bench/run.mjs (the size report);
// `node scripts/size.mjs [pkg]` prints the report.
//
// A profile of the module by group (`profile`: each Rust module's functions,
// each JavaScript class's exports, the data), in bytes and in what each adds
// to the gzipped module, needs the cargo build, wasm-bindgen and wasm-opt
// (which the build has); without them it says so and the rest works.
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
 * The group of a function of the module, by its name: the SDK's by module
 * (`content_repo::store`), any other crate's whole (`core`, `hashbrown`), the
 * drop glue apart; an export (wasm-bindgen's shims, with what they inlined)
 * by the JavaScript class or function it serves.
 */
export function groupOf(name) {
  const exported = /^([A-Za-z_]+?)(?: .* shim|$)/.exec(name);
  if (exported && !name.includes("::")) {
    const [, prefix] = /^(_task|clientcache|client|documentstore|query|pages|__wbg)_/.exec(exported[1]) ?? [, exported[1]];
    const owner = EXPORT_OWNERS[prefix];
    if (owner) return `exports: ${owner} (with what they inlined)`;
  }
  if (/^core(\[[0-9a-f]+\])?::ptr::drop_in_place/.test(name)) return "core::ptr::drop_in_place (drop glue)";
  // The first crate named (an impl's type before its trait): the SDK's by
  // module, any other crate whole.
  const path = name.replace(/\[[0-9a-f]+\]/g, "");
  const match = /\b(content_repo::\w+|[a-z_][a-z0-9_]*)::/.exec(path);
  return match ? match[1] : OTHER;
}

/** The group of a function no crate names (the runtime's, intrinsics, an unnamed one). */
const OTHER = "other (runtime, intrinsics)";

/** Who an export's prefix belongs to (wasm-bindgen names methods `<class>_<method>`). */
const EXPORT_OWNERS = {
  _task: "a client call's steps (_Task)",
  client: "Client",
  clientcache: "ClientCache",
  documentstore: "DocumentStore",
  query: "Query",
  pages: "Pages",
  __wbg: "the classes' free()",
  applyQuery: "the local functions",
  selectFields: "the local functions",
  sortDocuments: "the local functions",
  wasmMemoryBytes: "the local functions",
};

/**
 * The sections of a WebAssembly module and its function bodies, with the
 * names of its `name` section: `{ sections: [{ id, start, end }], bodies:
 * [{ index, start, end, name }] }` (byte offsets into `bytes`; a body's
 * range includes its locals, not its size prefix).
 */
export function wasmFunctions(bytes) {
  if (bytes.length < 8 || bytes.readUInt32LE(0) !== 0x6d736100) throw new Error("not a WebAssembly module");
  let at = 8;
  const leb = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error("truncated module");
      value += (byte & 127) * 2 ** shift;
      if (!(byte & 128)) return value;
    }
  };
  const text = () => {
    const length = leb();
    at += length;
    return bytes.toString("utf8", at - length, at);
  };
  const limits = () => (bytes[at++] & 1 ? (leb(), leb()) : leb());
  const sections = [];
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    sections.push({ id, start: at, end: at + size });
    at += size;
  }
  let imported = 0;
  const names = new Map();
  const bodies = [];
  for (const section of sections) {
    at = section.start;
    if (section.id === 2) {
      for (let n = leb(); n > 0; n--) {
        text();
        text();
        const kind = bytes[at++];
        if (kind === 0) (leb(), imported++); // a function: its type
        else if (kind === 1) (at++, limits()); // a table: its element type, limits
        else if (kind === 2) limits(); // a memory
        else if (kind === 3) at += 2; // a global: type, mutability
        else if (kind === 4) (at++, leb()); // a tag
        else throw new Error(`unknown import kind ${kind}`);
      }
    } else if (section.id === 10) {
      for (let n = leb(), index = imported; n > 0; n--, index++) {
        const size = leb();
        bodies.push({ index, start: at, end: at + size, name: undefined });
        at += size;
      }
    } else if (section.id === 0 && text() === "name") {
      while (at < section.end) {
        const sub = bytes[at++];
        const end = leb() + at;
        if (sub === 1) for (let n = leb(); n > 0; n--) names.set(leb(), text());
        at = end;
      }
    }
  }
  for (const body of bodies) body.name = names.get(body.index);
  return { sections, bodies };
}

/** The group of a section other than the code (whose bodies are grouped by name). */
const sectionGroup = (id) => (id === 11 ? "data (strings, tables)" : "types, imports, exports, tables");

/**
 * What each group of a named module weighs: its bytes, and what it adds to the
 * gzipped module (the module's gzip without its custom sections, less the
 * gzip of the same bytes without that group's function bodies or sections).
 * Text repeated elsewhere costs little gzipped, so the two orders differ. The
 * figures do not add up: removing a group changes how the rest compresses,
 * so their sum can be above or below the whole.
 */
export function gzipShares(bytes, group = groupOf) {
  const { sections, bodies } = wasmFunctions(bytes);
  const kept = sections.filter((section) => section.id !== 0);
  for (const body of bodies) body.group = group(body.name ?? OTHER);
  // The module's bytes without the parts `left(part)` says to leave out.
  const without = (left) => {
    const parts = [];
    for (const section of kept) {
      if (left({ section })) continue;
      let at = section.start;
      if (section.id === 10) {
        for (const body of bodies) {
          if (!left({ body })) continue;
          parts.push(bytes.subarray(at, body.start));
          at = body.end;
        }
      }
      parts.push(bytes.subarray(at, section.end));
    }
    return Buffer.concat(parts);
  };
  const partOf = ({ section, body }) => (body ? body.group : sectionGroup(section.id));
  // Each group's bytes and functions: the bodies, and the sections but the code.
  const parts = [...bodies.map((body) => ({ body })), ...kept.filter((s) => s.id !== 10).map((section) => ({ section }))];
  const weighed = new Map();
  for (const part of parts) {
    const { section, body } = part;
    const entry = weighed.get(partOf(part)) ?? { bytes: 0, items: 0 };
    entry.bytes += body ? body.end - body.start : section.end - section.start;
    entry.items += body ? 1 : 0;
    weighed.set(partOf(part), entry);
  }
  const total = gzipped(without(() => false));
  const groups = [...weighed].map(([name, { bytes, items }]) => ({
    group: name,
    bytes,
    gzip: total - gzipped(without((part) => partOf(part) === name)),
    items,
  }));
  return { total, raw: kept.reduce((sum, s) => sum + s.end - s.start, 0), groups: groups.sort((a, b) => b.gzip - a.gzip) };
}

/**
 * The module's bytes by group ({@link gzipShares}), from a copy of the module
 * that keeps its function names (the cargo output through wasm-bindgen and
 * wasm-opt -O2 -Os -g: build.sh's passes but --converge and the short export
 * names, so a few hundred bytes larger than the shipped module): `{
 * available: false, reason }` without the build or the tools.
 */
export function profile({ wasm = join(process.env.CARGO_TARGET_DIR ? resolve(ROOT, process.env.CARGO_TARGET_DIR) : join(ROOT, "target"), "wasm32-unknown-unknown/release/content_repo.wasm"), top = 20 } = {}) {
  const bindgen = which("wasm-bindgen");
  const wasmOpt = join(ROOT, "node_modules/.bin/wasm-opt");
  if (!existsSync(wasm)) return { available: false, reason: `${relative(ROOT, wasm)} not built` };
  if (!bindgen || !existsSync(wasmOpt)) return { available: false, reason: "wasm-bindgen or node_modules/.bin/wasm-opt missing" };
  const dir = mkdtempSync(join(tmpdir(), "content-repo-size-"));
  try {
    execFileSync(bindgen, ["--target", "web", "--out-dir", dir, "--remove-producers-section", wasm], { stdio: "ignore" });
    const named = join(dir, "named.wasm");
    const features = ["bulk-memory", "nontrapping-float-to-int", "sign-ext", "mutable-globals", "reference-types", "multivalue"];
    execFileSync(wasmOpt, ["-O2", "-Os", "-g", ...features.map((f) => `--enable-${f}`), join(dir, "content_repo_bg.wasm"), "-o", named], { stdio: "ignore" });
    const shares = gzipShares(readFileSync(named));
    const rest = shares.groups.slice(top);
    return {
      available: true,
      total: shares.raw,
      gzip: shares.total,
      groups: shares.groups.slice(0, top),
      rest: { bytes: rest.reduce((sum, g) => sum + g.bytes, 0), gzip: rest.reduce((sum, g) => sum + g.gzip, 0), groups: rest.length },
    };
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
  lines.push(`  module profile by group (a copy of the module with its function names, ${prof.total} bytes, ${prof.gzip} gzipped;`);
  lines.push(`  gzip added: the module's gzip less its gzip without the group, so text repeated elsewhere counts little):`);
  lines.push(`    ${"bytes".padStart(7)} ${"gzip added".padStart(10)}  group`);
  for (const g of prof.groups) {
    lines.push(`    ${String(g.bytes).padStart(7)} ${String(g.gzip).padStart(10)}  ${g.group}${g.items ? ` (${g.items} functions)` : ""}`);
  }
  lines.push(`    ${String(prof.rest.bytes).padStart(7)} ${String(prof.rest.gzip).padStart(10)}  the other ${prof.rest.groups} groups`);
  return lines.join("\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const pkg = resolve(process.argv[2] || join(ROOT, "pkg"));
  console.log(formatSizes(entrySizes(pkg), profile()));
}
