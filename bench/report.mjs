// Text report of a suite result (pure; used by run.mjs for Node and Chromium results,
// and by the page itself when opened by hand).

import { WORKLOADS } from "./peers.mjs";
import { STORE_WORKLOADS } from "./suite.mjs";
import { OFFLINE_FIGURES, fmtRatio, targetText } from "./offline.mjs";

const DESCRIPTIONS = { ...WORKLOADS, ...STORE_WORKLOADS };

const pad = (s, n) => String(s).padEnd(n);
const lpad = (s, n) => String(s).padStart(n);
const fmtMs = (ms) => (ms >= 100 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const fmtX = (x) => (x === null || x === undefined ? "-" : x >= 10 ? x.toFixed(1) + "x" : x.toFixed(2) + "x");
const mib = (b) => (b === undefined || b === null ? "n/a" : (b / 1048576).toFixed(1) + " MiB");

export function formatReport(res) {
  const lines = [];
  const title = `${res.env.name}${res.env.version ? " " + res.env.version : ""}`;
  lines.push(`== ${title} | sizes ${res.options.sizes.join(",")} | ${res.options.quick ? "quick" : "full"} run | ${res.totalSeconds ? res.totalSeconds.toFixed(0) + " s" : ""}`);
  lines.push(res.sdk.available ? `SDK: ${res.sdk.specifier} (${res.sdk.selectForm})` : `SDK: skipped -- ${res.sdk.reason}`);
  if (res.selfCheck) for (const l of res.selfCheck.lines) lines.push(l);
  if (res.error) {
    lines.push(`ERROR: ${res.error}`);
    return lines.join("\n");
  }
  lines.push("");
  lines.push("ratio = implementation median / SDK median (> 1: the SDK is faster); vs best = median / fastest peer's median");
  lines.push(`${pad("workload", 14)} ${lpad("size", 7)}  ${pad("implementation", 34)} ${lpad("median ms", 10)} ${lpad("ratio", 8)} ${lpad("vs best", 8)}  samples`);
  lines.push("-".repeat(100));
  const order = Object.keys(DESCRIPTIONS);
  const keys = [];
  for (const r of res.results) {
    const k = `${r.workload}@${r.size}`;
    if (!keys.includes(k)) keys.push(k);
  }
  keys.sort((a, b) => {
    const [wa, sa] = a.split("@");
    const [wb, sb] = b.split("@");
    return order.indexOf(wa) - order.indexOf(wb) || +sa - +sb;
  });
  let lastW = null;
  for (const k of keys) {
    const [w, s] = k.split("@");
    if (w !== lastW) {
      if (lastW !== null) lines.push("");
      lines.push(`${w}: ${DESCRIPTIONS[w] || ""}`);
      lastW = w;
    }
    let rows = res.results.filter((r) => r.workload === w && r.size === +s);
    // store rows: the peers have no store; show only the fastest peer's W4 row (all are in the JSON)
    const copies = rows.filter((r) => r.sameAs);
    if (copies.length > 1) {
      const best = copies.reduce((a, b) => (b.medianMs < a.medianMs ? b : a));
      rows = rows.filter((r) => !r.sameAs || r === best);
    }
    rows.sort((a, b) => (a.kind === "sdk" ? -1 : 0) - (b.kind === "sdk" ? -1 : 0));
    for (const r of rows) {
      if (r.error) {
        lines.push(`${pad(w, 14)} ${lpad(s, 7)}  ${pad(r.impl, 34)} ${lpad("error", 10)}  ${r.error.slice(0, 60)}`);
        continue;
      }
      const note = r.sameAs ? `  (fastest peer's ${r.sameAs} row: peers have no store)` : "";
      lines.push(`${pad(w, 14)} ${lpad(s, 7)}  ${pad(r.impl, 34)} ${lpad(fmtMs(r.medianMs), 10)} ${lpad(fmtX(r.ratio), 8)} ${lpad(fmtX(r.vsFastestPeer), 8)}  ${r.samples}x${r.iterationsPerSample}${note}`);
    }
  }
  lines.push("");
  lines.push("fastest peer per workload:");
  for (const f of res.fastestPeer) {
    const vs = f.ratio === null ? "" : f.ratio >= 1 ? `  SDK ${fmtX(f.ratio)} faster` : `  SDK ${fmtX(1 / f.ratio)} slower`;
    lines.push(`  ${pad(f.workload, 14)} ${lpad(f.size, 7)}  ${pad(f.impl, 34)} ${lpad(fmtMs(f.medianMs), 10)} ms${vs}`);
  }
  if (res.memory && res.memory.length) {
    lines.push("");
    lines.push("memory (after a full GC where available):");
    for (const m of res.memory) {
      let l = `  ${lpad(m.size, 7)} docs: list text ${(m.textChars / 1e6).toFixed(1)}M chars; JSON.parse heap +${mib(m.jsonParseHeapBytes)}`;
      if (m.sdkStoreWasmBytes !== undefined) l += `; SDK store wasm memory +${mib(m.sdkStoreWasmBytes)} (total ${mib(m.sdkWasmMemoryAfter)})`;
      if (m.sdkStoreJsHeapBytes !== undefined) l += `, JS heap +${mib(m.sdkStoreJsHeapBytes)}`;
      lines.push(l);
    }
  }
  if ((res.offline && res.offline.length) || (res.offlineDetails && res.offlineDetails.some((d) => d.error))) {
    lines.push("");
    lines.push(`offline cache (issue 10): ratio = SDK / baseline of the same run (full list: fastest peer's W3 / SDK); storage ${[...new Set(res.offlineDetails.map((d) => d.storage))].join(", ")}`);
    lines.push(`${pad("figure", 15)} ${lpad("size", 7)}  ${lpad("SDK", 11)} ${lpad("baseline", 11)} ${lpad("ratio", 8)}  ${pad("target", 8)} result`);
    lines.push("-".repeat(100));
    const val = (r, v) => (r.unit === "bytes/char" ? (v / 1048576).toFixed(1) + " MiB" : fmtMs(v) + " ms");
    for (const f of OFFLINE_FIGURES) {
      const rows = res.offline.filter((r) => r.figure === f.key).sort((a, b) => a.size - b.size);
      if (rows.length === 0) continue;
      lines.push(`${f.key}: ${f.label}`);
      for (const r of rows) {
        const base = r.unit === "bytes/char" ? (r.baseline / 1e6).toFixed(1) + "M ch" : r.figure === "stored" ? (r.baseline / 1e6).toFixed(2) + "M ch" : val(r, r.baseline);
        const sdkV = r.unit === "bytes/char" ? val(r, r.sdk) : r.figure === "stored" ? (r.sdk / 1e6).toFixed(2) + "M ch" : val(r, r.sdk);
        let note = "";
        if (r.figure === "networkFirst") note = `  (fetch calls ${r.fetchCalls}, stale ${r.stale})`;
        if (r.peer) note = `  (peer ${r.peer})`;
        lines.push(`${pad(r.figure, 15)} ${lpad(r.size, 7)}  ${lpad(sdkV, 11)} ${lpad(base, 11)} ${lpad(fmtRatio(r.ratio), 8)}  ${pad(targetText(r), 8)} ${r.met ? "met" : "MISSED"}${note}`);
      }
    }
    for (const d of res.offlineDetails || []) {
      if (d.error) lines.push(`offline ${d.size}: ERROR ${d.error.split("\n")[0]}`);
      else if (d.navigatorOnLine !== null && d.navigatorOnLine !== undefined) lines.push(`offline ${d.size}: navigator.onLine = ${d.navigatorOnLine} (left as it is)`);
    }
    const missed = res.offline.filter((r) => !r.met);
    lines.push(missed.length ? `offline targets missed: ${missed.map((r) => `${r.figure}@${r.size} (${fmtRatio(r.ratio)})`).join(", ")}` : "offline targets: all met");
  }
  return lines.join("\n");
}
