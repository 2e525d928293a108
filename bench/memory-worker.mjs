// Measures the SDK store's WebAssembly memory in a fresh module instance (a worker has
// its own instance; wasm memory never shrinks, so in the main thread earlier work would
// hide the store's growth). Runs as a Node worker_threads worker or a browser module
// Worker. Message in: { specifier, text }. Message out: { ok, before, after, stored } or
// { ok: false, reason }.
import { loadSdk } from "./sdk.mjs";

async function measureStore({ specifier, text }) {
  const sdk = await loadSdk(specifier);
  if (!sdk.available || !sdk.makeStore) return { ok: false, reason: sdk.reason || "no DocumentStore" };
  if (!sdk.memoryBytes) return { ok: false, reason: "no wasmMemoryBytes()" };
  const before = sdk.memoryBytes();
  const store = sdk.makeStore();
  const stored = store.putJson(text);
  const after = sdk.memoryBytes();
  return { ok: true, before, after, stored, size: sdk.sizeOf(store) };
}

const fail = (err) => ({ ok: false, reason: String(err && err.message ? err.message : err) });

if (typeof process !== "undefined" && process.versions && process.versions.node && typeof window === "undefined" && typeof WorkerGlobalScope === "undefined") {
  const { parentPort, workerData } = await import("node:worker_threads");
  if (parentPort) parentPort.postMessage(await measureStore(workerData).catch(fail));
} else {
  self.onmessage = async (e) => self.postMessage(await measureStore(e.data).catch(fail));
}
