// Writes the package entries of one wasm-bindgen output directory (called by
// scripts/build.sh as `node scripts/entries.mjs <dir> web|node`):
//
//   <dir>/api.js    src/js/entry.js (the guard), with what it needs to know
//                   about the glue filled in: the names of the glue's exports
//                   (ES modules export static names) and the parameter names
//                   of every function, method and constructor (for error
//                   messages that survive minification); web: with the
//                   glue and its snippets bundled in, one module (below);
//   <dir>/index.js  the "." entry: web (src/js/entry.web.js) starts loading the
//                   module at import, without top-level await; node
//                   (src/js/entry.node.js) re-exports, as the Node glue is
//                   instantiated synchronously on import;
//   <dir>/slim.js   web only, the "./slim" entry (src/js/entry.slim.js): no
//                   reference to the .wasm.
//
// It also removes the web glue's own fallback URL of the .wasm (see below).
// Everything is read from the glue that wasm-bindgen wrote: nothing here lists
// the SDK's API by hand.
import { readFileSync, writeFileSync, readdirSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const [dir, target] = process.argv.slice(2);
if (!dir || !["web", "node"].includes(target)) {
  console.error("usage: node scripts/entries.mjs <dir> web|node");
  process.exit(2);
}

let glue = readFileSync(join(dir, "content_repo.js"), "utf8");
if (target === "web") {
  // The web glue's loader falls back to `new URL('content_repo_bg.wasm',
  // import.meta.url)`: a reference that would make bundlers emit the .wasm
  // for "./slim" too. api.js always passes the module, so the fallback goes.
  const fallback =
    /\n {4}if \(module_or_path === undefined\) \{\n {8}module_or_path = new URL\('content_repo_bg\.wasm', import\.meta\.url\);\n {4}\}\n/;
  if (!fallback.test(glue)) throw new Error(`${dir}/content_repo.js: the loader's default URL changed`);
  glue = glue.replace(fallback, "\n");
  if (/\.wasm['"]|import\.meta/.test(glue)) throw new Error(`${dir}/content_repo.js still names the .wasm`);
  // The imports object names a snippet module once per extern block that
  // imports from it (`"./snippets/.../client.js": import4,` five times), all
  // the same module's namespace: esbuild warned of each duplicate key on
  // every build. The first of each stays.
  const namespaces = new Map(
    [...glue.matchAll(/^import \* as (import\d+) from "([^"]+)"$/gm)].map((match) => [match[1], match[2]]),
  );
  const seen = new Set();
  glue = glue.replace(/^ {8}"(\.\/snippets\/[^"]+)": (import\d+),\n/gm, (line, specifier, name) => {
    if (namespaces.get(name) !== specifier) throw new Error(`${dir}/content_repo.js: ${name} is not ${specifier}`);
    if (!seen.has(specifier)) return seen.add(specifier), line;
    return "";
  });
  if (seen.size === 0) throw new Error(`${dir}/content_repo.js: the imports object changed`);
  writeFileSync(join(dir, "content_repo.js"), glue);
}
const snippetDir = readdirSync(join(dir, "snippets"))[0];
const snippet = `./snippets/${snippetDir}/src/js/error.js`;

/** `list_or_documents` reads as `listOrDocuments` in a JavaScript message. */
const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const params = (list) =>
  list
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean);

// The glue's own layout: `export class X {` ... `}` with four-space methods,
// and `export function f(a, b) {`. Unknown shapes fail the build rather than
// leaving a method unnamed.
const exportsInOrder = [];
const signatures = {};
let currentClass = null;
let currentKey = null;
let returnsPromise = false; // the JSDoc above the next method says `@returns {Promise<...>}`
for (const line of glue.split("\n")) {
  let m;
  if (/^\s+\* @returns \{Promise</.test(line)) {
    returnsPromise = true;
    continue;
  }
  if ((m = /^export class (\w+) \{/.exec(line))) {
    currentClass = m[1];
    exportsInOrder.push(m[1]);
    // The module's own classes (`_Task`) are neither guarded nor named.
    if (m[1].startsWith("_")) currentClass = null;
    continue;
  }
  if ((m = /^export function (\w+)\(([^)]*)\) \{/.exec(line))) {
    currentClass = null;
    exportsInOrder.push(m[1]);
    currentKey = m[1];
    signatures[currentKey] = { params: params(m[2]).map(camel), promise: returnsPromise };
    returnsPromise = false;
    continue;
  }
  if (line === "}") {
    currentClass = null;
    continue;
  }
  if (currentClass && (m = /^ {4}(static |get |set )?(\w+)\(([^)]*)\) \{$/.exec(line))) {
    const [, prefix = "", name, list] = m;
    if (name.startsWith("__") || (name === "free" && !prefix)) {
      currentKey = null;
      returnsPromise = false;
      continue;
    }
    currentKey =
      name === "constructor" && !prefix
        ? `new ${currentClass}`
        : prefix === "static "
          ? `${currentClass}.${name}`
          : `${currentClass}.prototype.${name}`;
    signatures[currentKey] = { params: params(list).map(camel), promise: returnsPromise };
    returnsPromise = false;
    continue;
  }
  // `_assertClass(arg, Query)`: the argument must be an instance of that class.
  if (currentKey && (m = /^\s+_assertClass\((\w+), (\w+)\);$/.exec(line))) {
    const list = signatures[currentKey].params;
    const position = list.indexOf(camel(m[1]));
    if (position >= 0) list[position] = [camel(m[1]), m[2]];
  }
}
// The glue's loader exports (web only) are not part of the API.
const loaderNames = /^export \{ initSync, __wbg_init as default \};$/m;
if (target === "web" && !loaderNames.test(glue)) throw new Error(`${dir}/content_repo.js: the loader exports changed`);
if (exportsInOrder.length < 5) throw new Error(`${dir}/content_repo.js: found only ${exportsInOrder} as exports`);
if (!Object.values(signatures).some((signature) => signature.promise)) {
  throw new Error(`${dir}/content_repo.js: no method returns a promise (the JSDoc changed?)`);
}

// A glue export whose name starts with `_` is the module's own (the tasks
// that src/js/client.js performs), not the package's: guarded, not exported.
const names = exportsInOrder.filter((name) => !name.startsWith("_")).sort();
const template = readFileSync(join(root, "src/js/entry.js"), "utf8");
// The module's own name in a service worker's Cache Storage (a digest of
// this build's .wasm: a new build never loads an older module).
// `{version}+{digest}`: the package's version orders builds (an older
// one's entry goes, a newer one's stays), the digest tells two apart.
const version = readFileSync(join(root, "Cargo.toml"), "utf8").match(/^version = "([^"]+)"/m)[1];
const digest = createHash("sha256").update(readFileSync(join(dir, "content_repo_bg.wasm"))).digest("hex").slice(0, 16);
const build = `${version}+${digest}`;
const filled = template
  .replaceAll("__SNIPPET__", snippet)
  .replace("__SIGNATURES__", () => JSON.stringify(signatures, null, 2))
  .replace("__EXPORTS__", () => `export const { ${names.join(", ")} } = api;`)
  .replace("__WASM_BUILD__", build);
for (const placeholder of ["__SNIPPET__", "__SIGNATURES__", "__EXPORTS__", "__WASM_BUILD__"]) {
  if (filled.includes(placeholder)) throw new Error(`src/js/entry.js: ${placeholder} left unfilled`);
}
writeFileSync(join(dir, "api.js"), filled);

if (target === "web") {
  // One module for the whole core: api.js with the glue and its snippets
  // bundled in (esbuild, unminified). A page that loads the package as it is
  // (an import map, a CDN serving files) fetches a module graph level by
  // level, one round trip each, and index.js only runs (and starts loading
  // the .wasm) once every level has arrived: four levels were 0.9 s of a
  // first list at 150 ms per request (bench/first-list.mjs). Now two:
  // index.js (or slim.js), then api.js, which both entries share, so that
  // their classes and their readiness are one.
  const { buildSync } = await import("esbuild");
  const bundled = buildSync({
    entryPoints: [join(dir, "api.js")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "esnext",
    charset: "utf8",
    legalComments: "none",
    // No keepNames: it wrapped every function of the bundle in a naming
    // call (1 KB gzipped) for the sake of the public classes' `name`, which
    // entry.js sets (a test checks every export's). Stack traces show the
    // source's names, but where two modules' names collide (`request2`).
    keepNames: false,
    write: false,
    logLevel: "silent",
  }).outputFiles[0].text;
  if (/^\s*import\b|\bimport\s*\(|\.wasm['"]|import\.meta/m.test(bundled)) {
    throw new Error(`${dir}/api.js: the bundled core still imports a module or names the .wasm`);
  }
  const banner =
    "// pkg/web/api.js: written by scripts/entries.mjs: src/js/entry.js (the guard) with the\n" +
    "// wasm-bindgen glue (content_repo.js) and its snippets (src/js/*.js) bundled in.\n";
  writeFileSync(join(dir, "api.js"), banner + bundled);
  rmSync(join(dir, "content_repo.js"));
  rmSync(join(dir, "snippets"), { recursive: true });
}

const publicNames = [...names, "ContentRepoError", "ready"].join(", ");
const entries = target === "web" ? { "index.js": "entry.web.js", "slim.js": "entry.slim.js" } : { "index.js": "entry.node.js" };
for (const [file, source] of Object.entries(entries)) {
  const text = readFileSync(join(root, "src/js", source), "utf8")
    .replace("__NAMES_BUT_READY__", () => publicNames.replace(/, ready$/, ""))
    .replace("__NAMES__", () => publicNames);
  writeFileSync(join(dir, file), text);
}
