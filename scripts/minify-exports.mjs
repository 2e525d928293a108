// Renames the module's exports in the wasm-bindgen glue: scripts/build.sh
// has wasm-opt shorten the export names of the .wasm
// (--minify-imports-and-exports: `documentstore_putJson` becomes `ha`), and
// prints what it renamed; this rewrites every `wasm.<name>` of the glue files
// to match. A name the glue reads that the module does not export fails the
// build. (Some exports are read by no glue, e.g. wasm-bindgen's
// `__instance_terminated`: renaming them changes nothing.)
//
// Usage: node scripts/minify-exports.mjs <mapping.json> <glue.js>...
import { readFileSync, writeFileSync } from "node:fs";

const [mappingFile, ...glueFiles] = process.argv.slice(2);
// With --converge the pass runs once a round and prints each round's
// renames: the first is from the glue's names, the others rename nothing.
const printed = readFileSync(mappingFile, "utf8");
const mapping = JSON.parse(printed.slice(0, printed.indexOf("\n}") + 2));
for (const [from, to] of mapping.exports) {
  if (!/^[A-Za-z_$][\w$]*$/.test(to)) throw new Error(`wasm-opt renamed ${from} to ${to}, not a JavaScript name`);
}
if (mapping.imports.length > 0) {
  throw new Error(`wasm-opt renamed imports too (${mapping.imports.length}); the glue names them unrenamed`);
}
const renamed = new Map(mapping.exports);
for (const file of glueFiles) {
  const text = readFileSync(file, "utf8");
  const rewritten = text.replace(/\bwasm\.([A-Za-z_$][\w$]*)/g, (_, name) => {
    const short = renamed.get(name);
    if (short === undefined) throw new Error(`${file} reads wasm.${name}, which the module does not export`);
    return `wasm.${short}`;
  });
  writeFileSync(file, rewritten);
}
