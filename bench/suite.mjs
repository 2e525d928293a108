// The benchmark suite: the same code runs in Node (run.mjs) and in the browser page
// (browser.mjs). Environment specifics come in through `hooks`.
//
// runSuite({ env, sizes, quick, seed, workloads, libs, sdk, hooks }) -> results object
//   hooks.log(line)            progress output
//   hooks.gc()                 optional (async ok): full garbage collection
//   hooks.heapUsed()           optional (async ok): JS heap bytes in use
//   hooks.yield()              optional (async): let the event loop breathe
//   hooks.sdkStoreMemory(text) optional (async): { ok, before, after, size } of putJson(text)
//                              in a fresh SDK instance (memory-worker.mjs)
//   hooks.offlineMemory(size)  optional (async): the memory probe of one prefetch in a fresh
//                              process / browser context (offline-memory.mjs)
//   hooks.offlineStorage       "memory" | "indexeddb": the offline figures' cache storage
//                              (default: "indexeddb" where IndexedDB exists)

import { generateDocuments, listText } from "./gen.mjs";
import { makePeers, selfCheck, structuralHash, WORKLOADS, PAGE } from "./peers.mjs";
import { runOffline } from "./offline.mjs";

export const STORE_WORKLOADS = {
  ingest: "ingest list text (JSON.parse vs DocumentStore.putJson)",
  "W4-store-warm": "W4 on a DocumentStore, same query repeated (index reused)",
  "W4-store-cold": "W4 on a DocumentStore, first query after put(1 document)",
};

export const OFFLINE_WORKLOADS = {
  offline: "offline cache figures (issue 10): a Client with an injected fetch; ratios against baselines of the same run",
};

export const ALL_WORKLOADS = [...Object.keys(WORKLOADS), ...Object.keys(STORE_WORKLOADS), ...Object.keys(OFFLINE_WORKLOADS)];

export function measureOptions(quick) {
  return quick
    ? { warmupMs: 30, warmupRuns: 2, sampleMinMs: 5, targetMs: 50, minSamples: 3, maxSamples: 9, slowMs: 100, slowSamples: 1 }
    : { warmupMs: 150, warmupRuns: 3, sampleMinMs: 10, targetMs: 250, minSamples: 5, maxSamples: 15, slowMs: 200, slowSamples: 5, slowerMs: 500, slowerSamples: 3, verySlowMs: 1500, verySlowSamples: 3 };
}

const now = () => performance.now();
// Every result is consumed (its length folded into a checksum) and then dropped at once:
// no call can be optimised away, and no result outlives its call (a retained result
// survives the next call's scavenges and can flip V8's pretenuring of its allocation
// sites, which makes timings bimodal).
let checksum = 0;
let lastLength = null;
function consume(r) {
  lastLength = Array.isArray(r) ? r.length : r && Array.isArray(r.data) ? r.data.length : typeof r === "number" ? r : r ? 1 : 0;
  checksum = (checksum + lastLength) | 0;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Time `fn()`: warm up, pick an inner iteration count so one sample lasts >= sampleMinMs,
 * take several samples (a fixed small count for slow functions), return the median per call.
 * `before()` (optional, untimed, may be async) runs before every call; with it, every
 * sample is one call. With `awaitResult`, `fn()` returns a promise and a call lasts
 * until it settles.
 */
export async function measure(fn, opt, before = null, awaitResult = false) {
  const one = async () => {
    if (before) await before();
    const t = now();
    consume(awaitResult ? await fn() : fn());
    return now() - t;
  };
  // warm-up; the fastest warm-up call calibrates (a GC pause in one call must not)
  let t1 = await one();
  let warm = 1;
  const w0 = now();
  // (a call of >= slowerMs has warmed itself up: on-stack replacement within its loops)
  while ((warm < opt.warmupRuns && !(opt.slowerMs && t1 >= opt.slowerMs)) || (now() - w0 < opt.warmupMs && t1 < opt.slowMs)) {
    t1 = Math.min(t1, await one());
    warm++;
  }
  const per = Math.max(t1, 0.0005);
  const inner = before || per >= opt.sampleMinMs ? 1 : Math.ceil(opt.sampleMinMs / per);
  let nSamples;
  if (opt.verySlowMs && per >= opt.verySlowMs) nSamples = opt.verySlowSamples;
  else if (opt.slowerMs && per >= opt.slowerMs) nSamples = opt.slowerSamples;
  else if (per >= opt.slowMs) nSamples = opt.slowSamples;
  else nSamples = Math.min(opt.maxSamples, Math.max(opt.minSamples, Math.ceil(opt.targetMs / (per * inner))));
  const samples = [];
  for (let s = 0; s < nSamples; s++) {
    if (inner === 1) samples.push(await one());
    else {
      const t = now();
      if (awaitResult) for (let i = 0; i < inner; i++) consume(await fn());
      else for (let i = 0; i < inner; i++) consume(fn());
      samples.push((now() - t) / inner);
    }
  }
  return {
    medianMs: median(samples),
    minMs: Math.min(...samples),
    maxMs: Math.max(...samples),
    samples: nSamples,
    iterationsPerSample: inner,
    warmupRuns: warm,
  };
}

export async function runSuite({ env, sizes, quick, seed = 20240601, workloads = ALL_WORKLOADS, libs, sdk, hooks = {} }) {
  const log = hooks.log || (() => {});
  const gc = async () => {
    if (hooks.gc) await hooks.gc();
  };
  const breathe = async () => {
    if (hooks.yield) await hooks.yield();
  };
  const opt = measureOptions(quick);
  const peers = makePeers(libs);
  /** Whether `hash()` (the SDK's answer) is `expected`; a difference or a throw fails the run. */
  const agrees = (hash, expected, what) => {
    let note;
    try {
      if (hash() === expected) return true;
      note = "differs from (e)'s answer";
    } catch (err) {
      note = `throws: ${String(err && err.message ? err.message : err).slice(0, 200)}`;
    }
    log(`   FAIL ${what}: ${note}; not timed`);
    out.error = `${what}: the SDK ${note}`;
    return false;
  };
  const started = now();
  const out = {
    env,
    startedAt: new Date().toISOString(),
    options: { sizes, quick: !!quick, seed, workloads, measure: opt },
    sdk: sdk.available
      ? { available: true, specifier: sdk.specifier, selectForm: sdk.selectForm, memoryProbe: !!sdk.memoryBytes, missing: sdk.missing, workloads: Object.keys(sdk.impl).concat(sdk.makeStore ? Object.keys(STORE_WORKLOADS) : []) }
      : { available: false, specifier: sdk.specifier, reason: sdk.reason },
    peers: peers.map((p) => ({ key: p.key, name: p.name })),
    selfCheck: null,
    results: [],
    fastestPeer: [],
    memory: [],
    offline: [],
    offlineDetails: [],
  };
  if (!sdk.available) log(`SDK skipped: ${sdk.reason}`);
  else if (sdk.missing.length > 0) log(`SDK partial: lacks ${sdk.missing.join(", ")}; SDK rows only for ${out.sdk.workloads.join(", ")}`);
  if (sdk.available && !sdk.memoryBytes) log("SDK memory: no wasmMemoryBytes()/memoryBytes()/memory export: wasm memory not measured");

  // --- correctness self-check at 1,000 documents ---------------------------------
  {
    const docs = generateDocuments(1000, seed);
    const sdkImpls = sdk.available ? { SDK: sdk.impl } : null;
    const check = selfCheck(peers, docs, sdkImpls);
    if (sdk.available && sdk.makeStore) {
      // the store answers W4 like applyQuery would
      const ref = peers.find((p) => p.key === "e").w.W4(docs);
      try {
        const store = sdk.makeStore();
        store.putJson(listText(docs));
        const warm = store.query(sdk.queries.q4);
        const agree = structuralHash({ data: warm.data, meta: warm.meta }) === structuralHash(ref);
        check.details.push({ workload: "W4-store", impl: "SDK DocumentStore", agreesWithReference: agree });
        check.lines.push(`${agree ? "info" : "FAIL"} W4-store: SDK DocumentStore.query ${agree ? "agrees" : "differs"}`);
        if (!agree) check.ok = false;
        if (typeof store.free === "function") store.free();
      } catch (err) {
        check.ok = false;
        check.details.push({ workload: "W4-store", impl: "SDK DocumentStore", agreesWithReference: false, note: String(err) });
        check.lines.push(`FAIL W4-store: SDK DocumentStore throws: ${String(err && err.message ? err.message : err).slice(0, 200)}`);
      }
    }
    out.selfCheck = check;
    for (const l of check.lines) log(l);
    if (!check.ok) {
      out.error = "self-check failed";
      return out;
    }
  }

  // A new store for each size: one that had answered a query keeps its sort index, which every
  // later write maintains (ingest would time that work too).
  let sdkStore = null;
  const reference = peers.find((p) => p.key === "e");

  for (const size of sizes) {
    if (sdkStore && typeof sdkStore.free === "function") sdkStore.free();
    sdkStore = sdk.available && sdk.makeStore ? sdk.makeStore() : null;
    const t0 = now();
    let docs = generateDocuments(size, seed);
    let text = listText(docs);
    log(`-- ${size} documents: generated in ${(now() - t0).toFixed(0)} ms, list text ${(text.length / 1e6).toFixed(1)}M chars`);
    const row = (workload, impl, kind, m, extra = {}) => {
      const r = { workload, size, impl, kind, ...m, ...extra };
      out.results.push(r);
      log(`   ${workload.padEnd(14)} ${String(size).padStart(6)}  ${impl.padEnd(30)} ${m.medianMs.toFixed(3).padStart(10)} ms  (${m.samples}x${m.iterationsPerSample})`);
      return r;
    };

    // --- memory (first, before the workloads grow the heaps) --------------------
    {
      const mem = { size, textChars: text.length };
      if (hooks.heapUsed) {
        await gc();
        const h0 = await hooks.heapUsed();
        let parsed = JSON.parse(text);
        await gc();
        const h1 = await hooks.heapUsed();
        mem.jsonParseHeapBytes = h1 - h0;
        mem.jsonParseDocuments = parsed.data.length;
        parsed = null;
      }
      if (sdkStore && sdk.memoryBytes && hooks.sdkStoreMemory) {
        // in a fresh module instance (a worker): wasm memory growth of putJson(text)
        try {
          const r = await hooks.sdkStoreMemory(text);
          if (r.ok) {
            mem.sdkWasmMemoryBefore = r.before;
            mem.sdkWasmMemoryAfter = r.after;
            mem.sdkStoreWasmBytes = r.after - r.before; // peak of putJson (text copy + parse + store), fresh instance
            mem.sdkStoreSize = r.size;
            mem.sdkMemoryMethod = "fresh instance in a worker";
          } else log(`   SDK memory (worker): ${r.reason}`);
        } catch (err) {
          log(`   SDK memory (worker) failed: ${String(err && err.message ? err.message : err).slice(0, 200)}`);
        }
      }
      if (sdkStore && sdk.memoryBytes && mem.sdkStoreWasmBytes === undefined) {
        sdkStore.clear();
        await gc();
        const w0 = sdk.memoryBytes();
        const h0 = hooks.heapUsed ? await hooks.heapUsed() : null;
        sdkStore.putJson(text);
        await gc();
        const w1 = sdk.memoryBytes();
        mem.sdkWasmMemoryBefore = w0;
        mem.sdkWasmMemoryAfter = w1;
        mem.sdkStoreWasmBytes = w1 - w0; // wasm memory only grows: a lower bound when memory was already grown
        mem.sdkMemoryMethod = "main instance (lower bound)";
        if (h0 !== null) mem.sdkStoreJsHeapBytes = (await hooks.heapUsed()) - h0;
        mem.sdkStoreSize = sdk.sizeOf(sdkStore);
        sdkStore.clear();
      }
      out.memory.push(mem);
      if (mem.jsonParseHeapBytes !== undefined || mem.sdkStoreWasmBytes !== undefined) {
        log(`   memory: JSON.parse heap +${mb(mem.jsonParseHeapBytes)}` + (mem.sdkStoreWasmBytes !== undefined ? `, SDK store wasm +${mb(mem.sdkStoreWasmBytes)} (memory ${mb(mem.sdkWasmMemoryAfter)})` : ""));
      }
    }

    // --- W1..W5 ------------------------------------------------------------------
    for (const w of Object.keys(WORKLOADS)) {
      if (!workloads.includes(w)) continue;
      const impls = [];
      if (sdk.available && sdk.impl[w]) impls.push({ name: "SDK", kind: "sdk", fn: sdk.impl[w] });
      for (const p of peers) impls.push({ name: `(${p.key}) ${p.name}`, kind: "peer", fn: p.w[w] });
      // At every size, the SDK's answer (untimed) must be (e)'s, or its row is not reported.
      const expected = structuralHash(reference.w[w](docs));
      for (const im of impls) {
        await gc();
        await breathe();
        if (im.kind === "sdk" && !agrees(() => structuralHash(im.fn(docs)), expected, `${w} ${size} ${im.name}`)) continue;
        try {
          const m = await measure(() => im.fn(docs), opt);
          row(w, im.name, im.kind, m, { resultLength: lastLength });
        } catch (err) {
          log(`   ${w} ${size} ${im.name}: throws ${String(err && err.message ? err.message : err).slice(0, 200)}`);
          out.results.push({ workload: w, size, impl: im.name, kind: im.kind, error: String(err) });
        }
      }
    }

    // --- store workloads ------------------------------------------------------------
    if (workloads.includes("ingest")) {
      // Ingest happens once per page load, into a clean heap: a full GC (untimed) before
      // every call, so no call pays for collecting the previous call's documents.
      row("ingest", "JSON.parse", "peer", await measure(() => JSON.parse(text), opt, gc));
      row("ingest", "JSON.parse+Map(id)", "peer", await measure(() => {
        const list = JSON.parse(text);
        const byId = new Map();
        for (const d of list.data) byId.set(d.meta.id, d);
        return byId;
      }, opt, gc));
      if (sdkStore) {
        try {
          row("ingest", "SDK DocumentStore.putJson", "sdk", await measure(() => sdkStore.putJson(text), opt, async () => {
            sdkStore.clear();
            await gc();
          }));
        } catch (err) {
          log(`   ingest ${size} SDK: throws ${String(err)}`);
        }
      }
    }
    const storeRows = ["W4-store-warm", "W4-store-cold"].filter((w) => workloads.includes(w));
    if (storeRows.length > 0) {
      // Peers have no index to keep: their answer to a store query is W4 on the array
      // (cold = write one element, then W4: the write is O(1)). Their W4 rows are repeated
      // here (flag sameAs: "W4") so each table block has its comparison.
      let peerW4 = out.results.filter((x) => x.size === size && x.workload === "W4" && x.kind === "peer" && !x.error);
      if (peerW4.length === 0) {
        // W4 itself was not selected: measure the peers' W4 for these blocks (not as W4 rows)
        peerW4 = [];
        for (const p of peers) {
          await gc();
          const m = await measure(() => p.w.W4(docs), opt);
          peerW4.push({ workload: "W4", size, impl: `(${p.key}) ${p.name}`, kind: "peer", ...m, resultLength: lastLength });
        }
      }
      for (const w of storeRows) {
        for (const r of peerW4) {
          out.results.push({ ...r, workload: w, sameAs: "W4" });
        }
      }
      if (sdkStore) {
        try {
          sdkStore.clear();
          sdkStore.putJson(text);
          if (storeRows.includes("W4-store-warm")) {
            // The state that is timed (the index built, the page's copies held: the third
            // query on) is reached untimed, and its answer checked against (e)'s.
            let answer;
            for (let call = 0; call < 3; call++) answer = sdkStore.query(sdk.queries.q4);
            const expected = structuralHash(reference.w.W4(docs));
            await gc();
            if (agrees(() => structuralHash({ data: answer.data, meta: answer.meta }), expected, `W4-store-warm ${size}`)) {
              row("W4-store-warm", "SDK DocumentStore.query", "sdk", await measure(() => sdkStore.query(sdk.queries.q4), opt));
            }
          }
          if (storeRows.includes("W4-store-cold")) {
            await gc();
            const base = docs[size >> 1];
            let rev = base.meta.revision;
            const next = () => {
              rev++;
              const f = { ...base.fields, price: rev % 2 ? 1 : 99999 };
              return [{ fields: f, meta: { ...base.meta, revision: rev } }];
            };
            row("W4-store-cold", "SDK DocumentStore.put+query", "sdk", await measure(() => {
              sdkStore.put(next());
              return sdkStore.query(sdk.queries.q4);
            }, opt));
          }
          sdkStore.clear();
        } catch (err) {
          log(`   store ${size} SDK: throws ${String(err && err.message ? err.message : err).slice(0, 200)}`);
        }
      }
    }
    docs = null;
    text = null;
    await gc();
  }
  if (sdkStore && typeof sdkStore.free === "function") sdkStore.free();

  // --- offline cache figures (after every other workload: they allocate a lot and keep
  // --- clients alive, which must not change the workloads' timings) ----------------------
  if (workloads.includes("offline")) {
    if (!sdk.available || !sdk.api || typeof sdk.api.Client !== "function") log(`offline: skipped (${sdk.available ? "the SDK has no Client" : "SDK not available"})`);
    else {
      const storage = hooks.offlineStorage || (typeof indexedDB !== "undefined" ? "indexeddb" : "memory");
      for (const size of sizes) {
        await gc();
        let docs = generateDocuments(size, seed);
        let peerW3 = out.results.filter((x) => x.size === size && x.workload === "W3" && x.kind === "peer" && !x.error);
        if (peerW3.length === 0) {
          // W3 was not selected: measure the peers' W3 here (not reported as W3 rows)
          for (const p of peers) {
            await gc();
            await breathe();
            const m = await measure(() => p.w.W3(docs), opt);
            peerW3.push({ impl: `(${p.key}) ${p.name}`, medianMs: m.medianMs });
          }
        }
        peerW3 = peerW3.map((r) => ({ impl: r.impl, medianMs: r.medianMs }));
        const best = peers.find((p) => p.key === "e");
        try {
          log(`-- offline cache, ${size} documents (${storage} storage)`);
          const input = { docs };
          docs = null;
          const r = await runOffline({
            api: sdk.api,
            input,
            env: env.name,
            storage,
            measure,
            opt,
            quick,
            peerW3,
            checkFull: best ? { w3: best.w.W3 } : null,
            hooks: { gc: hooks.gc, log, offlineMemory: hooks.offlineMemory || null },
          });
          out.offline.push(...r.rows);
          out.offlineDetails.push(r.details);
        } catch (err) {
          const msg = String(err && err.stack ? err.stack : err).slice(0, 600);
          log(`   offline ${size}: failed: ${msg}`);
          out.offlineDetails.push({ size, storage, error: msg });
        }
        docs = null;
        await gc();
      }
    }
  }

  // --- ratios and fastest peers ------------------------------------------------------
  const groups = new Map();
  for (const r of out.results) {
    if (r.error) continue;
    const k = r.workload + "@" + r.size;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  for (const rows of groups.values()) {
    const sdkRow = rows.find((r) => r.kind === "sdk");
    const peerRows = rows.filter((r) => r.kind === "peer");
    const fastest = peerRows.reduce((a, b) => (a === null || b.medianMs < a.medianMs ? b : a), null);
    for (const r of rows) {
      r.ratio = sdkRow ? r.medianMs / sdkRow.medianMs : null; // > 1: the SDK is faster
      r.vsFastestPeer = fastest ? r.medianMs / fastest.medianMs : null;
    }
    if (fastest) {
      out.fastestPeer.push({
        workload: fastest.workload,
        size: fastest.size,
        impl: fastest.impl,
        medianMs: fastest.medianMs,
        sdkMedianMs: sdkRow ? sdkRow.medianMs : null,
        ratio: sdkRow ? fastest.medianMs / sdkRow.medianMs : null,
      });
    }
  }
  out.totalSeconds = (now() - started) / 1000;
  out.checksum = checksum;
  return out;
}

function mb(bytes) {
  return bytes === undefined || bytes === null ? "n/a" : (bytes / 1048576).toFixed(1) + " MiB";
}

export { PAGE };
