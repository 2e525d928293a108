#!/usr/bin/env bash
# Builds the publishable npm package into pkg/: a Node build (pkg/node, plain
# `import`, no init call) and a browser build (pkg/web, ES module that
# initialises itself with top-level await), one .d.ts, one package.json.
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
  snippet=$(cd "$out.tmp/$target" && ls snippets/*/src/js/error.js)
  if [ "$target" = web ]; then
    init='import init from "./content_repo.js";\nawait init({ module_or_path: new URL("./content_repo_bg.wasm", import.meta.url) });'
  else
    init='// The Node build instantiates the module synchronously on import.'
  fi
  sed -e "s#__SNIPPET__#./$snippet#" -e "s#__INIT__#$init#" src/js/entry.js > "$out.tmp/$target/index.js"
done

cat > "$out.tmp/index.d.ts" <<'DTS'
export * from "./node/content_repo.js";
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
    "./package.json": "./package.json",
  },
  main: "./node/index.js",
  module: "./web/index.js",
  browser: "./web/index.js",
  types: "./index.d.ts",
  files: ["index.d.ts", "node/", "web/", "README.md"],
  sideEffects: ["./node/index.js", "./web/index.js"],
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
