#!/usr/bin/env bash
# Builds the publishable npm package into pkg/: a Node build (pkg/node, plain
# `import` or `require`, instantiated synchronously on import) and a browser
# build (pkg/web: index.js starts loading the module at import, slim.js never
# names the .wasm and waits for init()), no top-level await anywhere; the
# hand-written .d.ts files (src/js/index.d.ts, slim.d.ts, wasm.d.ts) and one
# package.json. scripts/entries.mjs writes the entries.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --release --target wasm32-unknown-unknown --lib
wasm=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/content_repo.wasm
# PKG_DIR writes the package elsewhere (benchmarks of a work in progress).
out=${PKG_DIR:-pkg}

# Nothing to do when the package was built from these very inputs (the
# module cargo wrote, the JavaScript and types, these scripts, the README,
# the manifests and the tools' versions), by content: `npm start` and
# `npm test` again skip the 30 s of wasm-bindgen and wasm-opt.
stamp="${CARGO_TARGET_DIR:-target}/pkg-inputs.$(printf '%s' "$PWD/$out" | cksum | cut -d' ' -f1)"
inputs=$( {
  cat "$wasm" src/js/* scripts/build.sh scripts/entries.mjs scripts/minify-exports.mjs \
    README.md Cargo.toml Cargo.lock package.json package-lock.json
  wasm-bindgen --version
} | cksum)
if [ -f "$out/package.json" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$inputs" ]; then
  echo "[build] $out/ is up to date (built from these inputs)"
  exit 0
fi
rm -f "$stamp"
rm -rf "$out.tmp"
mkdir -p "$out.tmp"
# One optimised module, shared by both builds.
wasm-bindgen --target web --out-dir "$out.tmp/web" --remove-name-section --remove-producers-section "$wasm"
wasm-bindgen --target experimental-nodejs-module --out-dir "$out.tmp/node" --remove-name-section --remove-producers-section "$wasm"
# -O2 first (0.8 KB less gzipped than -Os alone: it simplifies what -Os then
# shrinks), then -Os until nothing shrinks (--converge: 0.2 KB gzipped for
# 6 s), without the target_features section (no runtime reads it), with
# short export names (--minify-imports-and-exports, 0.6 KB less gzipped with
# the glue's shorter `wasm.<name>` reads): wasm-opt prints what it renamed,
# and the glue of both builds is rewritten to match
# (scripts/minify-exports.mjs). Measured and kept out: -Oz (4 KB fewer bytes
# raw but 0.4 KB more gzipped), -O3/-O4 (alone or before -Os),
# --merge-similar-functions (8 KB fewer bytes raw, the same gzipped),
# --gufa, -tnh and --low-memory-unused (assumptions about traps and memory
# that the module cannot promise).
node_modules/.bin/wasm-opt -O2 -Os --converge --minify-imports-and-exports --strip-target-features \
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$out.tmp/web/content_repo_bg.wasm" -o "$out.tmp/web/content_repo_bg.wasm" > "$out.tmp/exports.json"
node scripts/minify-exports.mjs "$out.tmp/exports.json" "$out.tmp/web/content_repo_bg.wasm" \
  "$out.tmp/web/content_repo.js" "$out.tmp/node/content_repo.js"
# wasm-bindgen's own types of the module list its exports by their former
# names; no entry uses them (the package's types are src/js/*.d.ts).
rm "$out.tmp/exports.json" "$out.tmp"/{web,node}/content_repo_bg.wasm.d.ts "$out.tmp/web/content_repo.d.ts"
cp "$out.tmp/web/content_repo_bg.wasm" "$out.tmp/node/content_repo_bg.wasm"

for target in web node; do
  node scripts/entries.mjs "$out.tmp/$target" "$target"
done
# The browser build's JavaScript is what the "." entry downloads with the
# module (its gzipped total is budgeted: tests/js/size.test.mjs), so it ships
# minified, local names too (1.9 KB less gzipped than white-space and syntax
# minification alone), the core (api.js) with a source map beside it (the
# code as bundled, names and all, in `sourcesContent`) that browsers'
# developer tools read for stack traces; a page never downloads it otherwise. Nothing depends
# on a local name: the guard's messages come from the parameter names
# entries.mjs records, and entry.js sets the exported classes' names. The
# Node build stays as written.
mapfile -t scripts < <(find "$out.tmp/web" -name '*.js' ! -name api.js)
node_modules/.bin/esbuild "${scripts[@]}" --minify --outbase="$out.tmp/web" \
  --outdir="$out.tmp/web" --allow-overwrite --log-level=warning
node_modules/.bin/esbuild "$out.tmp/web/api.js" --minify --sourcemap --sources-content=true \
  --outfile="$out.tmp/web/api.js" --allow-overwrite --log-level=warning
# The map's one source is named apart from the file it maps (both were api.js).
node -e '
const fs = require("fs"), file = process.argv[1], map = JSON.parse(fs.readFileSync(file, "utf8"));
map.sources = ["api.source.js"];
fs.writeFileSync(file, JSON.stringify(map));
' "$out.tmp/web/api.js.map"

# The types are written by hand (src/js/*.d.ts), not generated: the Rust
# exports carry skip_typescript, and wasm-bindgen's content_repo.d.ts beside
# the glue is no entry's `types`.
cp src/js/index.d.ts src/js/slim.d.ts src/js/wasm.d.ts "$out.tmp/"
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
printf '%s\n' "$inputs" > "$stamp"
# The size as scripts/size.mjs measures it for the budget (zlib's gzip -9).
node -e '
import("./scripts/size.mjs").then(({ gzipped }) => {
  const bytes = require("fs").readFileSync(process.argv[1] + "/web/content_repo_bg.wasm");
  console.log(`[build] ${process.argv[1]}/ written: content_repo_bg.wasm is ${bytes.length} bytes raw, ${gzipped(bytes)} bytes gzipped`);
});
' "$out"
