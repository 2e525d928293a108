// The package's TypeScript declarations, as a user gets them: the packed
// package is installed into a temporary project, and there
//
// - every JavaScript or TypeScript block of README.md (```js, ```js recipe,
//   ```ts, ```ts recipe, ```tsx recipe) and tests/js/types-sample.ts (the
//   generics, and `@ts-expect-error` mistakes that must stay errors) compile
//   with `tsc --strict --noEmit`, under `module`/`moduleResolution` `nodenext`
//   and under `bundler`, the declarations themselves checked too (no
//   skipLibCheck). A block with `/// <reference lib="webworker" />` (the
//   service worker) is checked with the webworker library instead of the DOM's;
//   a ```tsx block is a .tsx file (`jsx: react-jsx`). The packages the README's
//   recipes import besides the SDK (React, TanStack Query: README_PACKAGES) are
//   the root's exactly pinned devDependencies, linked into the project;
// - the declarations compile under every strictness option;
// - the declarations and the runtime agree: every export of each entry, and
//   every method and property of each class, is declared, and everything
//   declared exists (a generated parity.ts, checked by tsc the same way);
// - the shipped .d.ts files are src/js's, with no `any`, no `free()`, no
//   internals.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tsc = join(root, "node_modules/.bin/tsc");
const execFileAsync = promisify(execFile);
let project;

/**
 * Every fenced JavaScript or TypeScript block of the README, with the line of
 * its first code line (1-based) and its info string.
 */
export function readmeBlocks() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const blocks = [];
  for (const match of readme.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const info = match[1].trim();
    if (!/^(js|javascript|mjs|ts|typescript|tsx)\b/.test(info)) continue;
    const line = readme.slice(0, match.index).split("\n").length + 1;
    blocks.push({ info, line, code: match[2] });
  }
  return blocks;
}

/** Runs tsc on a tsconfig of the project; its output, and whether it passed. */
async function typecheck(config) {
  try {
    const { stdout } = await execFileAsync(tsc, ["-p", config, "--strict", "--noEmit", "--pretty", "false"], {
      cwd: project,
      encoding: "utf8",
      maxBuffer: 1 << 24,
    });
    return { ok: true, output: stdout };
  } catch (error) {
    return { ok: false, output: `${error.stdout ?? ""}${error.stderr ?? ""}` || String(error) };
  }
}

/** tsc's errors, pointed at README.md lines, and at the parity check that failed. */
function readable(output) {
  const parity = readFileSync(join(project, "parity.ts"), "utf8").split("\n");
  return output
    .replace(/readme-L(\d+)-\w+\.tsx?\((\d+),(\d+)\)/g, (_, start, line, column) => {
      return `README.md:${Number(start) + Number(line) - 1}:${column}`;
    })
    .replace(/parity\.ts\((\d+),\d+\)/g, (text, line) => {
      const check = /export const (\w+)/.exec(parity[Number(line) - 1] ?? "");
      return check ? `${text} [${check[1]}]` : text;
    });
}

const BASE = {
  strict: true,
  noEmit: true,
  target: "es2022",
  types: [],
  skipLibCheck: false,
  forceConsistentCasingInFileNames: true,
  jsx: "react-jsx",
};
const RESOLUTIONS = {
  nodenext: { module: "nodenext", moduleResolution: "nodenext" },
  bundler: { module: "esnext", moduleResolution: "bundler" },
};
const LIBS = {
  dom: ["es2022", "dom", "dom.iterable"],
  webworker: ["es2022", "webworker"],
};

// What the README's recipes import besides content-repo: devDependencies of the
// root, pinned exactly, linked into the project (their own dependencies resolve
// from the root's node_modules, where the links lead).
const README_PACKAGES = ["react", "@types/react", "@tanstack/react-query"];

// Declared members that another branch is implementing now (issue 11): they
// may be missing at runtime until it is merged, and must exist once they are.
const PENDING = {};

/** The exports of each entry of the installed package, and the members of its classes, as Node sees them. */
function runtimeShape() {
  const script = `
    const shape = (module) => {
      const classes = {};
      for (const [name, value] of Object.entries(module)) {
        // The SDK's wasm-bindgen classes (ContentRepoError is a plain Error subclass).
        if (typeof value !== "function" || typeof value.prototype?.__destroy_into_raw !== "function") continue;
        // wasm-bindgen's own members only: any other \`__\` name (a test hook) must be declared, and fails.
        const hidden = (key) => key === "constructor" || key === "free" || key === "__destroy_into_raw";
        classes[name] = {
          instance: Reflect.ownKeys(value.prototype).filter((key) => typeof key === "string" && !hidden(key)).sort(),
          symbols: Reflect.ownKeys(value.prototype).filter((key) => typeof key === "symbol").map(String).sort(),
          static: Object.getOwnPropertyNames(value).filter((key) => !["length", "name", "prototype", "__wrap"].includes(key)).sort(),
        };
      }
      return { exports: Object.keys(module).sort(), classes };
    };
    const web = new URL("./node_modules/content-repo/web/index.js", "file://" + process.cwd() + "/");
    console.log(JSON.stringify({
      main: shape(await import("content-repo")),
      web: shape(await import(web.href)),
      slim: shape(await import("content-repo/slim")),
    }));
  `;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8" }));
}

const union = (names) => (names.length ? names.map((name) => JSON.stringify(name)).join(" | ") : "never");

/**
 * A TypeScript file that fails to compile unless the declarations of `entry`
 * and its runtime `shape` agree; each check names what differs.
 */
function parityChecks(alias, entry, shape) {
  const lines = [`import * as ${alias} from ${JSON.stringify(entry)};`];
  const id = (text) => `${alias}_${text}`.replace(/\W/g, "_");
  lines.push(`type ${id("Runtime")} = ${union(shape.exports)};`);
  lines.push(`type ${id("Declared")} = keyof typeof ${alias};`);
  lines.push(`export const ${id("exported_but_not_declared")}: None<Exclude<${id("Runtime")}, ${id("Declared")}>> = "none";`);
  lines.push(`export const ${id("declared_but_not_exported")}: None<Exclude<${id("Declared")}, ${id("Runtime")}>> = "none";`);
  for (const [name, members] of Object.entries(shape.classes)) {
    const instance = union(members.instance);
    const expected = union([...new Set([...members.instance, ...(PENDING[name] ?? [])])]);
    lines.push(`export const ${id(`${name}_members_not_declared`)}: None<Exclude<${instance}, Members<${alias}.${name}>>> = "none";`);
    lines.push(`export const ${id(`${name}_members_not_at_runtime`)}: None<Exclude<Members<${alias}.${name}>, ${expected}>> = "none";`);
    lines.push(`export const ${id(`${name}_statics_not_declared`)}: None<Exclude<${union(members.static)}, Statics<typeof ${alias}.${name}>>> = "none";`);
    lines.push(`export const ${id(`${name}_statics_not_at_runtime`)}: None<Exclude<Statics<typeof ${alias}.${name}>, ${union(members.static)}>> = "none";`);
  }
  return lines.join("\n");
}

let runtime;

before(async () => {
  project = mkdtempSync(join(tmpdir(), "content-repo-types-"));
  const packed = execFileSync("npm", ["pack", join(root, "pkg"), "--pack-destination", project, "--silent"], {
    encoding: "utf8",
  }).trim().split("\n").pop();
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "typed-user", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", join(project, packed)], {
    cwd: project,
    stdio: "inherit",
  });
  for (const name of README_PACKAGES) {
    mkdirSync(dirname(join(project, "node_modules", name)), { recursive: true });
    symlinkSync(join(root, "node_modules", name), join(project, "node_modules", name), "dir");
  }

  const files = { dom: [], webworker: [] };
  for (const [index, block] of readmeBlocks().entries()) {
    const name = `readme-L${block.line}-${index}.${/^tsx\b/.test(block.info) ? "tsx" : "ts"}`;
    writeFileSync(join(project, name), block.code);
    (/^\/\/\/ <reference lib="webworker" \/>/m.test(block.code) ? files.webworker : files.dom).push(name);
  }
  writeFileSync(join(project, "sample.ts"), readFileSync(join(root, "tests/js/types-sample.ts"), "utf8"));
  files.dom.push("sample.ts");

  runtime = runtimeShape();
  const parity = [
    "// Generated by tests/js/types.test.mjs from the installed package's runtime exports.",
    'type None<X> = [X] extends [never] ? "none" : X;',
    "type Members<C> = Extract<keyof C, string>;",
    'type Statics<C> = Exclude<Extract<keyof C, string>, "prototype">;',
    parityChecks("main", "content-repo", runtime.main),
    parityChecks("slim", "content-repo/slim", runtime.slim),
    'import wasmUrl from "content-repo/wasm";',
    "export const wasmIsAUrl: string = wasmUrl;",
  ].join("\n");
  writeFileSync(join(project, "parity.ts"), parity + "\n");
  files.dom.push("parity.ts");

  // The declarations alone, under every strictness option a user may set.
  writeFileSync(
    join(project, "entries.ts"),
    'import * as main from "content-repo";\nimport * as slim from "content-repo/slim";\nimport wasmUrl from "content-repo/wasm";\nexport { main, slim, wasmUrl };\n',
  );
  const pedantic = {
    ...BASE,
    ...RESOLUTIONS.nodenext,
    lib: LIBS.dom,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noPropertyAccessFromIndexSignature: true,
    noImplicitOverride: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    verbatimModuleSyntax: true,
    isolatedModules: true,
  };
  writeFileSync(join(project, "tsconfig.pedantic.json"), JSON.stringify({ compilerOptions: pedantic, files: ["entries.ts"] }, null, 2));

  for (const [lib, list] of Object.entries(files)) {
    for (const [resolution, options] of Object.entries(RESOLUTIONS)) {
      const config = { compilerOptions: { ...BASE, ...options, lib: LIBS[lib] }, files: list };
      writeFileSync(join(project, `tsconfig.${lib}.${resolution}.json`), JSON.stringify(config, null, 2));
    }
  }
});

after(() => {
  // CONTENT_REPO_KEEP_TYPES=1 keeps the project, to run tsc there by hand.
  if (process.env.CONTENT_REPO_KEEP_TYPES) console.log(`# types project kept in ${project}`);
  else rmSync(project, { recursive: true, force: true });
});

test("typescript is pinned exactly in the root package.json", () => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  assert.match(manifest.devDependencies.typescript ?? "", /^\d+\.\d+\.\d+$/);
  const version = execFileSync(tsc, ["--version"], { encoding: "utf8" });
  assert.ok(version.includes(manifest.devDependencies.typescript), version);
});

test("the README's JavaScript and TypeScript blocks are all found", () => {
  const blocks = readmeBlocks();
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const fences = [...readme.matchAll(/^```(\S+)/gm)].map((match) => match[1]);
  assert.deepEqual(
    fences.filter((language) => !["sh", "json", "text", "html"].includes(language)),
    blocks.map((block) => block.info.split(/\s/)[0]),
    "every fenced block with a language is JavaScript or TypeScript, or sh/json/text/html",
  );
  assert.ok(blocks.length >= 8, `${blocks.length} blocks`);
  assert.ok(blocks.some((block) => /\brecipe\b/.test(block.info)), "recipes are included");
  assert.ok(blocks.some((block) => /webworker/.test(block.code)), "the service worker recipe");
  assert.ok(blocks.some((block) => /^tsx recipe\b/.test(block.info) && /@tanstack\/react-query/.test(block.code)), "the TanStack Query recipe");
});

test("the README imports only content-repo and the exactly pinned README_PACKAGES", () => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  for (const name of README_PACKAGES) assert.match(manifest.devDependencies[name] ?? "", /^\d+\.\d+\.\d+$/, name);
  const packageOf = (specifier) => specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
  for (const block of readmeBlocks()) {
    for (const [, specifier] of block.code.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm)) {
      const name = packageOf(specifier);
      // A package's types may come from @types (react's do).
      const typed = README_PACKAGES.includes(name) || README_PACKAGES.includes(`@types/${name}`);
      assert.ok(name === "content-repo" || typed, `README.md:${block.line}: imports ${specifier}`);
    }
  }
});

for (const resolution of Object.keys(RESOLUTIONS)) {
  test(`tsc --strict: the README, the typed sample and the runtime parity compile (moduleResolution ${resolution})`, async () => {
    const dom = await typecheck(`tsconfig.dom.${resolution}.json`);
    assert.ok(dom.ok, readable(dom.output));
    const worker = await typecheck(`tsconfig.webworker.${resolution}.json`);
    assert.ok(worker.ok, readable(worker.output));
  });
}

test("the declarations compile under every strictness option (exactOptionalPropertyTypes, noUncheckedIndexedAccess, ...)", async () => {
  const result = await typecheck("tsconfig.pedantic.json");
  assert.ok(result.ok, result.output);
});

test("the checks can fail: a wrong type and an unused @ts-expect-error are reported", async () => {
  const wrong = [
    'import { Client, Query } from "content-repo";',
    "interface Post { title: string }",
    "export async function f(client: Client) {",
    "  const list = await client.documents<Post>();",
    "  const n: number = list.data[0].fields.title;",
    "  // @ts-expect-error: nothing wrong here",
    '  new Query().sort("fields.title", "ASC");',
    "}",
  ].join("\n");
  writeFileSync(join(project, "wrong.ts"), wrong);
  const config = { compilerOptions: { ...BASE, ...RESOLUTIONS.nodenext, lib: LIBS.dom }, files: ["wrong.ts"] };
  writeFileSync(join(project, "tsconfig.wrong.json"), JSON.stringify(config));
  const result = await typecheck("tsconfig.wrong.json");
  assert.equal(result.ok, false);
  assert.match(result.output, /wrong\.ts\(5,9\): error TS2322: Type 'string' is not assignable to type 'number'/);
  assert.match(result.output, /wrong\.ts\(6,3\): error TS2578: Unused '@ts-expect-error' directive/);
});

test("the runtime parity covers every entry and class", () => {
  const classes = ["Client", "ClientCache", "DocumentStore", "Pages", "Query"];
  assert.deepEqual(Object.keys(runtime.main.classes).sort(), classes);
  assert.deepEqual(runtime.web, runtime.main, "the browser build of '.' exports what the Node build does");
  assert.deepEqual(runtime.slim.exports, [...runtime.main.exports, "init"].sort());
  assert.ok(runtime.main.exports.includes("ContentRepoError") && runtime.main.exports.includes("ready"));
  assert.ok(runtime.main.classes.Pages.symbols.includes("Symbol(Symbol.asyncIterator)"));
  // free() is at runtime (wasm-bindgen's), and must not be declared: the parity check catches it.
  const parity = readFileSync(join(project, "parity.ts"), "utf8");
  assert.doesNotMatch(parity, /"free"/);
});

test("the shipped declarations are src/js's: no `any`, no free(), no internals", () => {
  const manifest = JSON.parse(readFileSync(join(project, "node_modules/content-repo/package.json"), "utf8"));
  assert.equal(manifest.types, "./index.d.ts");
  assert.equal(manifest.exports["."].types, "./index.d.ts");
  assert.equal(manifest.exports["./slim"].types, "./slim.d.ts");
  assert.equal(manifest.exports["./wasm"].types, "./wasm.d.ts");
  for (const file of ["index.d.ts", "slim.d.ts", "wasm.d.ts"]) {
    const shipped = readFileSync(join(project, "node_modules/content-repo", file), "utf8");
    assert.equal(shipped, readFileSync(join(root, "src/js", file), "utf8"), `${file} is src/js/${file}`);
    const code = shipped.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    assert.doesNotMatch(code, /\bany\b/, `${file}: no \`any\` outside comments`);
    assert.doesNotMatch(code, /\bfree\s*\(|\[Symbol\.dispose\]|__\w+|\bInitOutput\b|\binitSync\b|\benum\b/, `${file}: no internals`);
  }
  const index = readFileSync(join(root, "src/js/index.d.ts"), "utf8");
  assert.match(index, /export type SortDirection = /);
  assert.match(index, /export class ContentRepoError extends Error/);
  assert.match(index, /constructor\(options: ClientOptions\);/);
  assert.ok((index.match(/@defaultValue/g) ?? []).length >= 15, "option defaults are documented");
  // No TypeScript is written in the Rust sources any more.
  for (const file of ["cache", "client", "error", "local", "query", "store"]) {
    const rust = readFileSync(join(root, `src/wasm/${file}.rs`), "utf8");
    assert.doesNotMatch(rust, /typescript_custom_section/, `src/wasm/${file}.rs`);
  }
});
