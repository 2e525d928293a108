// Renames the module's exports in the wasm-bindgen glue. scripts/build.sh
// has wasm-opt shorten the export names of the .wasm
// (--minify-imports-and-exports: `documentstore_putJson` becomes `ha`), and
// wasm-opt prints what it renamed, once a round of --converge; this composes
// the rounds and rewrites every `wasm.<name>` of the glue files to match.
// The build fails when the glue and the module could disagree:
// - a read of the glue, renamed, is not an export of the final module;
// - the glue reaches the exports other than as `wasm.<name>` (`wasm[...]`,
//   `const { x } = wasm`, `f(wasm)`: those would not be rewritten);
// - wasm-opt renamed imports (the glue provides them by their own names).
// Some exports are read by no glue (wasm-bindgen's `__instance_terminated`):
// renaming them changes nothing.
//
// Usage: node scripts/minify-exports.mjs <printed.json> <module.wasm> <glue.js>...
import { readFileSync, writeFileSync } from "node:fs";

const [printedFile, moduleFile, ...glueFiles] = process.argv.slice(2);
const printed = readFileSync(printedFile, "utf8");
// One JSON object a round, one after the other.
const rounds = [];
for (let start = printed.indexOf("{"); start !== -1; ) {
  const end = printed.indexOf("\n}", start) + 2;
  rounds.push(JSON.parse(printed.slice(start, end)));
  start = printed.indexOf("{", end);
}
if (rounds.length === 0) throw new Error(`wasm-opt printed no renames: ${printed.slice(0, 200)}`);
const renamed = new Map();
for (const round of rounds) {
  if (round.imports.length > 0) throw new Error(`wasm-opt renamed imports (${round.imports.length}); the glue names them unrenamed`);
  const before = new Map(round.exports);
  if (renamed.size === 0) {
    for (const [from, to] of before) renamed.set(from, to);
  } else {
    for (const [original, current] of renamed) renamed.set(original, before.get(current) ?? current);
  }
}
/** The lines of wasm-bindgen's glue (0.2.130) that name `wasm` itself. */
const KNOWN = [
  /^let (?:[\w$]+, )*wasm;$/,
  /^(?:let )?wasm = (?:instance|wasmInstance)\.exports;$/,
  /^return wasm;$/,
  /^if \(wasm !== undefined\) return wasm;$/,
];
const exported = new Set(WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(moduleFile))).map((e) => e.name));
for (const file of glueFiles) {
  const text = readFileSync(file, "utf8");
  // Every line that names `wasm` other than as `wasm.<name>` must be one of
  // the glue's known ones: its declaration, its assignment, its return.
  for (const line of text.split("\n")) {
    const rest = line.replace(/\bwasm\.[A-Za-z_$][\w$]*/g, "").replace(/(["'`])(?:(?!\1).)*\1/g, "");
    if (!/(?<![\w$])wasm(?![\w$])/.test(rest) || KNOWN.some((known) => known.test(line.trim()))) continue;
    throw new Error(`${file} reaches the module's exports other than as wasm.<name>: ${line.trim()}`);
  }
  const rewritten = text.replace(/\bwasm\.([A-Za-z_$][\w$]*)/g, (_, name) => {
    const short = renamed.get(name);
    if (short === undefined || !exported.has(short)) {
      throw new Error(`${file} reads wasm.${name}, which the module does not export (as ${short})`);
    }
    return `wasm.${short}`;
  });
  writeFileSync(file, rewritten);
}
