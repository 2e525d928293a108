// Writes the package entries of one wasm-bindgen output directory (called by
// scripts/build.sh as `node scripts/entries.mjs <dir> web|node`):
//
//   <dir>/api.js    src/js/entry.js, with what it needs to know about the glue
//                   filled in: the names of the glue's exports (ES modules
//                   export static names) and the parameter names of every
//                   function, method and constructor (for error messages that
//                   survive minification);
//   <dir>/index.js  the "." entry: web starts loading the module at import
//                   (no top-level await), node re-exports (the Node glue is
//                   instantiated synchronously on import);
//   <dir>/slim.js   web only, the "./slim" entry: no reference to the .wasm.
//
// Everything is read from the glue that wasm-bindgen wrote: nothing here lists
// the SDK's API by hand.
import { readFileSync, writeFileSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
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
for (const line of glue.split("\n")) {
  let m;
  if ((m = /^export class (\w+) \{/.exec(line))) {
    currentClass = m[1];
    exportsInOrder.push(m[1]);
    continue;
  }
  if ((m = /^export function (\w+)\(([^)]*)\) \{/.exec(line))) {
    currentClass = null;
    exportsInOrder.push(m[1]);
    currentKey = m[1];
    signatures[currentKey] = params(m[2]).map(camel);
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
      continue;
    }
    currentKey =
      name === "constructor" && !prefix
        ? `new ${currentClass}`
        : prefix === "static "
          ? `${currentClass}.${name}`
          : `${currentClass}.prototype.${name}`;
    signatures[currentKey] = params(list).map(camel);
    continue;
  }
  // `_assertClass(arg, Query)`: the argument must be an instance of that class.
  if (currentKey && (m = /^\s+_assertClass\((\w+), (\w+)\);$/.exec(line))) {
    const position = signatures[currentKey].indexOf(camel(m[1]));
    if (position >= 0) signatures[currentKey][position] = [camel(m[1]), m[2]];
  }
}
// The glue's loader exports (web only) are not part of the API.
const loaderNames = /^export \{ initSync, __wbg_init as default \};$/m;
if (target === "web" && !loaderNames.test(glue)) throw new Error(`${dir}/content_repo.js: the loader exports changed`);
if (exportsInOrder.length < 5) throw new Error(`${dir}/content_repo.js: found only ${exportsInOrder} as exports`);

const names = [...exportsInOrder].sort();
const template = readFileSync(join(root, "src/js/entry.js"), "utf8");
const filled = template
  .replaceAll("__SNIPPET__", snippet)
  .replace("__SIGNATURES__", () => JSON.stringify(signatures, null, 2))
  .replace("__EXPORTS__", () => `export const { ${names.join(", ")} } = api;`);
for (const placeholder of ["__SNIPPET__", "__SIGNATURES__", "__EXPORTS__"]) {
  if (filled.includes(placeholder)) throw new Error(`src/js/entry.js: ${placeholder} left unfilled`);
}
writeFileSync(join(dir, "api.js"), filled);

const publicNames = [...names, "ContentRepoError", "ready"].join(", ");
if (target === "web") {
  writeFileSync(
    join(dir, "index.js"),
    `// content-repo for browsers, workers and bundlers (the "." entry): the module
// starts loading at import, without top-level await. Await ready() before the
// first synchronous call; until then they throw not_initialized.
import { init } from "./api.js";
export { ${publicNames} } from "./api.js";

// The loading error, if any, is what ready() rejects with (and what
// not_initialized errors name); it is not also an unhandled rejection.
init(new URL("./content_repo_bg.wasm", import.meta.url)).catch(() => {});
`,
  );
  writeFileSync(
    join(dir, "slim.js"),
    `// content-repo without the .wasm (the "./slim" entry): nothing here names the
// module file, so bundlers never emit it. Call init() with its location (or
// bytes, a Response or a compiled WebAssembly.Module) and await it before the
// first synchronous call; until then they throw not_initialized.
export { ${publicNames}, init } from "./api.js";
`,
  );
} else {
  writeFileSync(
    join(dir, "index.js"),
    `// content-repo for Node (the "." entry's node condition): the glue
// instantiates the module synchronously on import, so ready() is already
// resolved and there is no top-level await (require() of this file works on
// Node 20.19+).
export { ${publicNames} } from "./api.js";
`,
  );
}
