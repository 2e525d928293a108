#!/usr/bin/env bash
# Builds the publishable npm package into pkg/: a Node build (pkg/node, plain
# `import` or `require`, instantiated synchronously on import) and a browser
# build (pkg/web: index.js starts loading the module at import, slim.js never
# names the .wasm and waits for init()), no top-level await anywhere; the
# .d.ts files and one package.json. scripts/entries.mjs writes the entries.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --release --target wasm32-unknown-unknown --lib
wasm=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/content_repo.wasm
# PKG_DIR writes the package elsewhere (benchmarks of a work in progress).
out=${PKG_DIR:-pkg}
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
# One optimised module, shared by both builds.
wasm-bindgen --target web --out-dir "$out.tmp/web" --remove-name-section --remove-producers-section "$wasm"
wasm-bindgen --target experimental-nodejs-module --out-dir "$out.tmp/node" --remove-name-section --remove-producers-section "$wasm"
node_modules/.bin/wasm-opt -Os --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$out.tmp/web/content_repo_bg.wasm" -o "$out.tmp/web/content_repo_bg.wasm"
cp "$out.tmp/web/content_repo_bg.wasm" "$out.tmp/node/content_repo_bg.wasm"

for target in web node; do
  node scripts/entries.mjs "$out.tmp/$target" "$target"
done

cat > "$out.tmp/index.d.ts" <<'DTS'
export * from "./node/content_repo.js";

/**
 * Resolves once the WebAssembly module is ready. In Node it already is; in
 * browsers and workers the module starts loading when this package is
 * imported, and every synchronous call made before it is ready throws a
 * `ContentRepoError` with the code `not_initialized`. Rejects with the
 * loading error if loading failed.
 */
export function ready(): Promise<void>;
DTS
cat > "$out.tmp/slim.d.ts" <<'DTS'
export * from "./node/content_repo.js";

/** Where {@link init} finds the WebAssembly module. */
export type InitInput = URL | string | Response | BufferSource | WebAssembly.Module;

/**
 * Loads the WebAssembly module: its URL (`new URL(wasmUrl, import.meta.url)`
 * with `import wasmUrl from "content-repo/wasm"`), a `Response`, its bytes or
 * a compiled `WebAssembly.Module` (Cloudflare Workers), or a promise of one.
 * Later calls return the same promise; after a failure, a call with an input
 * tries again. Every synchronous call made before it resolves throws a
 * `ContentRepoError` with the code `not_initialized`.
 */
export function init(input?: InitInput | Promise<InitInput>): Promise<void>;

/** Resolves once {@link init} has loaded the module. */
export function ready(): Promise<void>;
DTS
cat > "$out.tmp/wasm.d.ts" <<'DTS'
/** The URL of the WebAssembly module, as your bundler emits it (esbuild `--loader:.wasm=file`, Vite `?url`). */
declare const wasmUrl: string;
export default wasmUrl;
DTS
cp README.md "$out.tmp/README.md"
OUT="$out.tmp" node -e '
const fs = require("fs");
const root = JSON.parse(fs.readFileSync("package.json", "utf8"));
const cargo = fs.readFileSync("Cargo.toml", "utf8");
const field = (name) => cargo.match(new RegExp("^" + name + " = \"([^\"]*)\"", "m"))[1];
const pkg = {
  name: "content-repo",
  version: field("version"),
  description: field("description"),
  license: field("license"),
  type: "module",
  exports: {
    ".": {
      types: "./index.d.ts",
      node: "./node/index.js",
      browser: "./web/index.js",
      default: "./web/index.js",
    },
    "./slim": {
      types: "./slim.d.ts",
      default: "./web/slim.js",
    },
    "./wasm": {
      types: "./wasm.d.ts",
      default: "./web/content_repo_bg.wasm",
    },
    "./package.json": "./package.json",
  },
  main: "./node/index.js",
  module: "./web/index.js",
  browser: "./web/index.js",
  types: "./index.d.ts",
  files: ["index.d.ts", "slim.d.ts", "wasm.d.ts", "node/", "web/", "README.md"],
  // api.js guards the glue classes in place; the Node glue instantiates
  // the module on import; the web index starts loading it.
  sideEffects: ["./node/*.js", "./web/index.js", "./web/slim.js", "./web/api.js"],
  engines: root.engines,
};
fs.writeFileSync(process.env.OUT + "/package.json", JSON.stringify(pkg, null, 2) + "\n");
'
# Replace the package in one step, so that readers never see half of one.
rm -rf "$out.old"
[ -d "$out" ] && mv "$out" "$out.old"
mv "$out.tmp" "$out"
rm -rf "$out.old"
raw=$(stat -c %s "$out/web/content_repo_bg.wasm")
gz=$(gzip -9 -c "$out/web/content_repo_bg.wasm" | wc -c)
echo "[build] $out/ written: content_repo_bg.wasm is $raw bytes raw, $gz bytes gzipped"
