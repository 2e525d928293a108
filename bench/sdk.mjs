// The SDK side of the benchmark: the same workloads written against the SDK's
// JavaScript API from the built package (pkg/node for Node, pkg/web for the browser).
//
// The API contract used here (nothing else):
//   sortDocuments(documents, query)      -> new sorted array
//   selectFields(documentOrList, text)   -> projection
//   applyQuery(listOrDocuments, query)   -> { data, meta: { count, limit, offset, total } }
//   new Query().sort(key, dir).fields(text).limit(n).offset(n)   (each returns the query)
//   new DocumentStore(): putJson(text), put(listOrDocuments), query(query) -> { data, meta },
//                        size, clear()
// Optional, probed (memory figures are skipped when absent): a module function
// wasmMemoryBytes() / memoryBytes() / wasmMemory(), or the wasm `memory` export.
//
// loadSdk() never throws: when pkg/ is not built (or lacks the API) it returns
// { available: false, reason } and the harness runs the peers only.

import { PAGE, SEL_W3, SEL_W5, SORT_W1, SORT_W2 } from "./peers.mjs";

const REQUIRED = ["Query", "sortDocuments", "selectFields", "applyQuery", "DocumentStore"];

export function defaultSdkSpecifier() {
  const browser = typeof window !== "undefined" && typeof document !== "undefined";
  return new URL(browser ? "../pkg/web/index.js" : "../../pkg/node/index.js", import.meta.url).href;
}

function errText(err) {
  return String(err && err.message ? err.message : err).split("\n")[0].slice(0, 240);
}

/** Load the SDK; returns { available, reason?, specifier, api?, impl?, store?, memoryBytes? } */
export async function loadSdk(specifier = defaultSdkSpecifier()) {
  let mod;
  try {
    mod = await import(specifier);
  } catch (err) {
    const missing = /Cannot find module|ERR_MODULE_NOT_FOUND|Failed to fetch|404|error loading dynamically imported module|Importing a module script failed/i.test(String(err && err.message) + String(err && err.code));
    return { available: false, specifier, reason: `${missing ? "pkg/ not built" : "SDK import failed"}: ${errText(err)}` };
  }
  // CommonJS builds (wasm-pack --target nodejs) arrive as a namespace with `default`.
  let api = { ...(mod.default && typeof mod.default === "object" ? mod.default : {}), ...mod };
  let wasmExports = null;
  try {
    // wasm-pack --target web: the default export initialises the module; harmless when
    // already initialised. A package may also expose a `ready` promise or `init()`.
    if (api.ready && typeof api.ready.then === "function") wasmExports = await api.ready;
    else if (typeof api.ready === "function") wasmExports = await api.ready();
    else if (typeof mod.default === "function") wasmExports = await mod.default();
    else if (typeof api.init === "function") wasmExports = await api.init();
  } catch (err) {
    return { available: false, specifier, reason: `SDK initialisation failed: ${errText(err)}` };
  }
  const missingApi = REQUIRED.filter((k) => typeof api[k] !== "function");
  if (typeof api.Query !== "function" || missingApi.length >= REQUIRED.length - 1) {
    return { available: false, specifier, reason: `pkg/ is built without the local query API (lacks ${missingApi.join(", ")})` };
  }
  const { Query, sortDocuments, selectFields, applyQuery, DocumentStore } = api;

  const build = (keys) => {
    let q = new Query();
    for (const [k, dir] of keys) q = q.sort(k, dir);
    return q;
  };
  let q1, q2, q4;
  try {
    q1 = build(SORT_W1);
    q2 = build(SORT_W2);
    q4 = build(SORT_W2).fields(SEL_W3).limit(PAGE).offset(0);
  } catch (err) {
    return { available: false, specifier, reason: `SDK Query builder failed: ${errText(err)}` };
  }

  // selectFields(documentOrList): a plain array of documents may be accepted as a list,
  // or only a { data } envelope; decide once, outside the timed code.
  let selectList = null;
  let selectForm = null;
  if (selectFields) {
    const probe = [{ fields: { title: "t", price: 1 }, meta: { id: "1", createdAt: "2024-01-01T00:00:00.000Z" } }];
    const viaArray = (docs, sel) => selectFields(docs, sel);
    const viaEnvelope = (docs, sel) => selectFields({ data: docs }, sel).data;
    for (const [form, candidate] of [["selectFields(array, sel)", viaArray], ["selectFields({ data }, sel).data", viaEnvelope]]) {
      try {
        const r = candidate(probe, "title");
        if (Array.isArray(r) && r.length === 1) {
          selectList = candidate;
          selectForm = form;
          break;
        }
      } catch {
        // try the next form
      }
    }
    if (!selectList) {
      selectList = viaArray; // let the self-check report what it does
      selectForm = "selectFields(array, sel) (probe failed)";
    }
  }

  // The SDK workloads; one whose API is missing (a partial build) is left out.
  const impl = {};
  if (sortDocuments) {
    impl.W1 = (docs) => sortDocuments(docs, q1);
    impl.W2 = (docs) => sortDocuments(docs, q2);
    if (selectList) impl.W3 = (docs) => selectList(sortDocuments(docs, q2), SEL_W3);
  }
  if (applyQuery) impl.W4 = (docs) => applyQuery(docs, q4);
  if (selectList) impl.W5 = (docs) => selectList(docs, SEL_W5);

  const sizeOf = (store) => (typeof store.size === "function" ? store.size() : store.size);
  // Store operations: the suite makes a new store for each size.
  const makeStore = DocumentStore ? () => new DocumentStore() : null;

  // Memory probe (pluggable).
  let memoryBytes = null;
  for (const name of ["wasmMemoryBytes", "memoryBytes"]) {
    if (typeof api[name] === "function") {
      memoryBytes = () => Number(api[name]());
      break;
    }
  }
  if (!memoryBytes && typeof api.wasmMemory === "function") {
    memoryBytes = () => {
      const m = api.wasmMemory();
      return typeof m === "number" ? m : m.buffer.byteLength;
    };
  }
  const mem = (wasmExports && wasmExports.memory) || api.memory || (api.__wasm && api.__wasm.memory);
  if (!memoryBytes && mem && mem.buffer) memoryBytes = () => mem.buffer.byteLength;

  return {
    available: true,
    specifier,
    api,
    impl,
    missing: missingApi,
    selectForm,
    queries: { q1, q2, q4 },
    makeStore,
    sizeOf,
    memoryBytes,
  };
}
