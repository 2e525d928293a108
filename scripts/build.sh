#!/usr/bin/env bash
# Builds the publishable npm package into pkg/: a Node build (pkg/node, plain
# `import`, no init call) and a browser build (pkg/web, ES module that
# initialises itself with top-level await), one .d.ts, one package.json.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --quiet --release --target wasm32-unknown-unknown --lib
wasm=target/wasm32-unknown-unknown/release/content_repo.wasm
rm -rf pkg
mkdir -p pkg
# One optimised module, shared by both builds.
wasm-bindgen --target web --out-dir pkg/web --remove-name-section --remove-producers-section "$wasm"
wasm-bindgen --target experimental-nodejs-module --out-dir pkg/node --remove-name-section --remove-producers-section "$wasm"
node_modules/.bin/wasm-opt -Os --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue \
  pkg/web/content_repo_bg.wasm -o pkg/web/content_repo_bg.wasm
cp pkg/web/content_repo_bg.wasm pkg/node/content_repo_bg.wasm

for target in web node; do
  snippet=$(cd "pkg/$target" && ls snippets/*/src/js/error.js)
  if [ "$target" = web ]; then
    init='import init from "./content_repo.js";\nawait init({ module_or_path: new URL("./content_repo_bg.wasm", import.meta.url) });'
  else
    init='// The Node build instantiates the module synchronously on import.'
  fi
  sed -e "s#__SNIPPET__#./$snippet#" -e "s#__INIT__#$init#" src/js/entry.js > "pkg/$target/index.js"
done

cat > pkg/index.d.ts <<'DTS'
export * from "./node/content_repo.js";
DTS
cp README.md pkg/README.md
node -e '
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
fs.writeFileSync("pkg/package.json", JSON.stringify(pkg, null, 2) + "\n");
'
raw=$(stat -c %s pkg/web/content_repo_bg.wasm)
gz=$(gzip -9 -c pkg/web/content_repo_bg.wasm | wc -c)
echo "[build] pkg/ written: content_repo_bg.wasm is $raw bytes raw, $gz bytes gzipped"
