// Pure-JavaScript peers of the SDK for the benchmark workloads.
//
// Pure ECMAScript: the third-party libraries are injected (`makePeers(libs)`), because
// Node resolves them from node_modules while the browser page loads them as classic
// scripts / relative ESM (no bundler). `libs = { orderBy, sort, mingo, mask }`:
//   orderBy  lodash's `_.orderBy`
//   sort     fast-sort's `sort` (copies the input, nulls last in both directions)
//   mingo    the mingo module (`{ Aggregator, find }`)
//   mask     json-mask's default export (`mask(obj, text)`, `mask.compile`, `mask.filter`)
//
// Workloads (every implementation takes the parsed documents array, never mutates it,
// and returns new arrays):
//   W1  sort by fields.title ASC
//   W2  sort by fields.category ASC, fields.price DESC, meta.createdAt DESC
//   W3  W2 + selection SEL_W3 applied to every document
//   W4  W2 + selection SEL_W3, first page of 25 only: returns { data, meta: { count, limit, offset, total } }
//   W5  selection SEL_W5 alone (every document, input order)
//
// Ordering contract (SPEC §2), implemented exactly by (d) and (e) for the value kinds
// the generated data holds (text, number, instant, meta.id): missing/null last in both
// directions; ties broken by the default order meta.createdAt DESC, meta.id DESC;
// stable. Text compares by Unicode code point (not UTF-16 unit, not locale).
// Peers (a)-(c) get the same keys including the tie-break, through their library's
// natural API, and keep their library's own null/missing and string-order semantics:
//   lodash orderBy: null/undefined last in ASC but FIRST in DESC; UTF-16 unit order.
//   fast-sort:      null/undefined last in both directions; UTF-16 unit order.
//   mingo:          MongoDB order: missing/null FIRST in ASC, last in DESC; UTF-16 order.
// The self-check (selfCheck below) requires (d) == (e) and reports, for information,
// where (a)-(c) differ.

export const SEL_W3 = "fields(title,price,author/name),meta(id,updatedAt)";
export const SEL_W5 = "fields(title,gallery/*/url)";
// json-mask form of SEL_W5. SPEC §3: json-mask applies `gallery/*/url` to the
// *elements' keys* (`*` = every key of each gallery object, then `url` of a string),
// so it returns `gallery: [{}, {}, ...]`. Its way to reach the urls is `gallery/url`
// (a path on an array applies to each element). `meta` is added because SPEC §3 keeps
// meta whole when the selection does not name it; json-mask would drop it otherwise.
// This gives the same result as the SDK's `fields(title,gallery/*/url)`.
export const SEL_W5_JSONMASK = "fields(title,gallery/url),meta";
export const PAGE = 25;

export const SORT_W1 = [["fields.title", "ASC"]];
export const SORT_W2 = [["fields.category", "ASC"], ["fields.price", "DESC"], ["meta.createdAt", "DESC"]];

export const WORKLOADS = {
  W1: "sort fields.title ASC",
  W2: "sort category ASC, price DESC, createdAt DESC",
  W3: "W2 + select all (fields(title,price,author/name),meta(id,updatedAt))",
  W4: "W2 + select, first page of 25",
  W5: "select fields(title,gallery/*/url) alone",
};

const hasOwn = Object.prototype.hasOwnProperty;

// ---------------------------------------------------------------------------
// Value comparisons shared by (d) and (e)
// ---------------------------------------------------------------------------

/** UTF-16 unit remap so that unit order == code point order: surrogates (D800-DFFF)
 *  move above E000-FFFF. Applied only when both differing units are >= D800. */
function hiFix(u) {
  return u < 0xe000 ? u + 0x2000 : u - 0x800;
}

/** Text by Unicode code point (Rust `str` order), case-sensitive. */
export function cmpText(a, b) {
  if (a === b) return 0;
  const la = a.length;
  const lb = b.length;
  const n = la < lb ? la : lb;
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) return hiFix(x) - hiFix(y);
      return x - y;
    }
  }
  return la - lb;
}

const HI_UNIT = /[\ud800-\uffff]/;
const HI_UNITS = /[\ud800-\uffff]/g;
const hiFixChar = (c) => String.fromCharCode(hiFix(c.charCodeAt(0)));
/** A string whose UTF-16 unit order (native `<`) equals the code point order of `s`. */
export function codePointKey(s) {
  return HI_UNIT.test(s) ? s.replace(HI_UNITS, hiFixChar) : s;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;
/** SPEC §2 instant -> [epoch ms (integer), sub-ms nanoseconds], or null if not an instant. */
export function parseInstant(s) {
  const m = INSTANT.exec(s);
  if (m === null) return null;
  const y = +m[1], mo = +m[2], d = +m[3], h = +m[4], mi = +m[5], se = +m[6];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59) return null;
  const dim = [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1];
  if (d > dim) return null;
  const frac = (m[7] || "").padEnd(9, "0");
  let off = 0;
  if (m[8] !== "Z") {
    const oh = +m[8].slice(1, 3), om = +m[8].slice(4, 6);
    if (oh > 23 || om > 59) return null;
    off = (m[8][0] === "-" ? -1 : 1) * (oh * 60 + om) * 60000;
  }
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, se, +frac.slice(0, 3));
  return [t.getTime() - off, +frac.slice(3)];
}

/** Instants by the instant they denote. Fast path: two UTC (`Z`) strings of equal
 *  length have the same layout, so code unit order is chronological order. */
export function cmpInstant(a, b) {
  if (a.length === b.length && a.charCodeAt(a.length - 1) === 90 && b.charCodeAt(b.length - 1) === 90) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const x = parseInstant(a);
  const y = parseInstant(b);
  if (x === null || y === null) {
    // kinds rank instant < text
    if (x !== null) return -1;
    if (y !== null) return 1;
    return cmpText(a, b);
  }
  return x[0] - y[0] || x[1] - y[1] || cmpText(a, b);
}

const DIGITS = /^[0-9]+$/;
/** meta.id: decimal numbers of any length (never through f64), then text; non-numeric after. */
export function cmpId(a, b) {
  if (a === b) return 0;
  const da = DIGITS.test(a);
  const db = DIGITS.test(b);
  if (da && db) {
    let i = 0;
    let j = 0;
    while (i < a.length - 1 && a.charCodeAt(i) === 48) i++;
    while (j < b.length - 1 && b.charCodeAt(j) === 48) j++;
    const la = a.length - i;
    const lb = b.length - j;
    if (la !== lb) return la - lb;
    for (; i < a.length; i++, j++) {
      const d = a.charCodeAt(i) - b.charCodeAt(j);
      if (d !== 0) return d;
    }
    return cmpText(a, b);
  }
  if (da) return -1;
  if (db) return 1;
  return cmpText(a, b);
}

// ---------------------------------------------------------------------------
// Field selection (SPEC §3) shared parser; (d) interprets the tree, (e) compiles it
// ---------------------------------------------------------------------------

/** Parse a selection into a tree: Map<name, subtree | null> (null = the whole value). */
export function parseSelection(text) {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i])) i++;
  };
  const fail = (what) => {
    throw new Error(`invalid selection: expected ${what} at ${i}`);
  };
  const name = () => {
    ws();
    const m = /^(\*|[A-Za-z0-9_-]+)/.exec(text.slice(i));
    if (!m) fail("a name");
    i += m[0].length;
    return m[0];
  };
  const merge = (tree, key, sub) => {
    if (!tree.has(key)) tree.set(key, sub);
    else {
      const cur = tree.get(key);
      if (cur === null || sub === null) tree.set(key, null);
      else for (const [k, v] of sub) merge(cur, k, v);
    }
  };
  const selection = (depth) => {
    if (depth > 32) fail("less nesting");
    const tree = new Map();
    for (;;) {
      const path = [name()];
      ws();
      while (text[i] === "/") {
        i++;
        path.push(name());
        ws();
      }
      let sub = null;
      if (text[i] === "(") {
        i++;
        sub = selection(depth + 1);
        ws();
        if (text[i] !== ")") fail("')'");
        i++;
        ws();
      }
      for (let k = path.length - 1; k >= 1; k--) sub = new Map([[path[k], sub]]);
      merge(tree, path[0], sub);
      if (text[i] === ",") {
        i++;
        continue;
      }
      return tree;
    }
  };
  const tree = selection(0);
  ws();
  if (i !== text.length) fail("',' or the end");
  return tree;
}

/** Document-level plan: { whole } or { fields: tree|null|undefined, meta: tree|null (null = whole) } */
export function documentPlan(text) {
  const tree = parseSelection(text);
  if (tree.has("*")) return { whole: true };
  let fields;
  let metaNamed = false;
  let meta = null;
  const mergeInto = (a, b) => {
    if (a === undefined) return b;
    if (a === null || b === null) return null;
    for (const [k, v] of b) a.set(k, a.has(k) ? mergeInto(a.get(k), v) : v);
    return a;
  };
  for (const [k, v] of tree) {
    if (k === "fields") fields = mergeInto(fields, v);
    else if (k === "meta") {
      meta = metaNamed ? mergeInto(meta, v) : v;
      metaNamed = true;
    } else if (k === "includes") {
      // list-level scope, not part of a document
    } else fields = mergeInto(fields, new Map([[k, v]]));
  }
  return { whole: false, fields, meta };
}

const isObj = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** (d): interpret a selection subtree on a value; undefined = not selected. */
function applyTree(value, tree) {
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    // `*` applied to an array matches every element (SPEC §3: `gallery/*/url` gives the urls)
    const star = tree.has("*") ? tree.get("*") : undefined;
    const out = [];
    for (const el of value) {
      let r;
      if (star !== undefined) r = star === null ? el : applyTree(el, star);
      else if (isObj(el)) r = applyObject(el, tree);
      else if (Array.isArray(el)) r = applyTree(el, tree);
      if (r !== undefined) out.push(r);
    }
    return out.length > 0 ? out : undefined;
  }
  if (isObj(value)) return applyObject(value, tree);
  return undefined;
}

function applyObject(obj, tree) {
  const out = {};
  for (const [k, sub] of tree) {
    if (k === "*") {
      for (const key in obj) {
        if (!hasOwn.call(obj, key)) continue;
        const r = sub === null ? obj[key] : applyTree(obj[key], sub);
        if (r !== undefined) out[key] = r;
      }
    } else if (hasOwn.call(obj, k)) {
      const r = sub === null ? obj[k] : applyTree(obj[k], sub);
      if (r !== undefined) out[k] = r;
    }
  }
  return out;
}

/** (d): a generic projector interpreting the plan per document. */
export function interpretedProjector(text) {
  const plan = documentPlan(text);
  if (plan.whole) return (doc) => doc;
  return (doc) => {
    const out = {};
    if (plan.fields !== undefined && hasOwn.call(doc, "fields")) {
      const r = plan.fields === null ? doc.fields : applyTree(doc.fields, plan.fields);
      if (r !== undefined) out.fields = r;
    }
    if (hasOwn.call(doc, "meta")) {
      const r = plan.meta === null ? doc.meta : applyTree(doc.meta, plan.meta);
      if (r !== undefined) out.meta = r;
    }
    return out;
  };
}

/** (e): compile the plan into straight-line JavaScript (monomorphic property loads). */
export function compiledProjector(text) {
  const plan = documentPlan(text);
  if (plan.whole) return (doc) => doc;
  const helpers = [];
  const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  const prop = (o, k) => (IDENT.test(k) ? `${o}.${k}` : `${o}[${JSON.stringify(k)}]`);
  const own = (o, k) => (k in Object.prototype || !IDENT.test(k) ? `hasOwn.call(${o}, ${JSON.stringify(k)})` : null);
  // Compile a tree into a function value -> result | undefined (follows applyTree exactly).
  const compileTree = (tree) => {
    if (tree.has("*")) {
      // rare: fall back to the interpreter for wildcard objects, but keep array `*` fast
      const star = tree.get("*");
      const starFn = star === null ? null : compileTree(star);
      const objFn = (obj) => applyObject(obj, tree);
      return (value) => {
        if (Array.isArray(value)) {
          if (value.length === 0) return [];
          const out = [];
          for (let i = 0; i < value.length; i++) {
            const r = starFn === null ? value[i] : starFn(value[i]);
            if (r !== undefined) out.push(r);
          }
          return out.length > 0 ? out : undefined;
        }
        return isObj(value) ? objFn(value) : undefined;
      };
    }
    let body = "const out = {};\nlet v;\n";
    for (const [k, sub] of tree) {
      const load = prop("o", k);
      const check = own("o", k);
      body += check ? `if (${check}) { v = ${load};` : `v = ${load};\nif (v !== undefined) {`;
      if (sub === null) body += ` out[${JSON.stringify(k)}] = v; }\n`;
      else {
        helpers.push(compileTree(sub));
        body += ` const r = h[${helpers.length - 1}](v); if (r !== undefined) out[${JSON.stringify(k)}] = r; }\n`;
      }
    }
    body += "return out;";
    const objFn = new Function("h", "hasOwn", `return function (o) {\n${body}\n};`)(helpers, hasOwn);
    const arrFn = (arr) => {
      if (arr.length === 0) return [];
      const out = [];
      for (let i = 0; i < arr.length; i++) {
        const el = arr[i];
        let r;
        if (typeof el === "object" && el !== null) r = Array.isArray(el) ? arrFn(el) : objFn(el);
        if (r !== undefined) out.push(r);
      }
      return out.length > 0 ? out : undefined;
    };
    return (value) => {
      if (typeof value !== "object" || value === null) return undefined;
      return Array.isArray(value) ? arrFn(value) : objFn(value);
    };
  };
  const fieldsFn = plan.fields === undefined ? null : plan.fields === null ? (v) => v : compileTree(plan.fields);
  const metaFn = plan.meta === null ? null : compileTree(plan.meta);
  let body = "const out = {};\nlet v;\n";
  if (fieldsFn !== null) body += "v = d.fields; if (v !== undefined) { const r = f(v); if (r !== undefined) out.fields = r; }\n";
  body += metaFn === null ? "v = d.meta; if (v !== undefined) out.meta = v;\n" : "v = d.meta; if (v !== undefined) { const r = m(v); if (r !== undefined) out.meta = r; }\n";
  body += "return out;";
  return new Function("f", "m", `return function (d) {\n${body}\n};`)(fieldsFn, metaFn);
}

function envelope(data, total, limit, offset) {
  return { data, meta: { count: data.length, limit, offset, total } };
}

// ---------------------------------------------------------------------------
// (d) hand-written comparator + Array.prototype.sort + interpreted projection
// ---------------------------------------------------------------------------

const KIND_CMP = { text: cmpText, instant: cmpInstant, id: cmpId, number: (a, b) => a - b };
const getter = (path) => {
  const [scope, name] = path.split(".");
  return (doc) => {
    const s = doc[scope];
    return s === undefined || s === null ? undefined : s[name];
  };
};

/** keys: [[path, "ASC"|"DESC", kind]]; appends the default order as the final tie-break. */
export function makeComparator(keys) {
  const all = [...keys, ["meta.createdAt", "DESC", "instant"], ["meta.id", "DESC", "id"]];
  const ks = all.map(([path, dir, kind]) => ({ get: getter(path), sign: dir === "DESC" ? -1 : 1, cmp: KIND_CMP[kind] }));
  const n = ks.length;
  return (a, b) => {
    for (let i = 0; i < n; i++) {
      const k = ks[i];
      const x = k.get(a);
      const y = k.get(b);
      if (x === undefined || x === null) {
        if (y === undefined || y === null) continue;
        return 1; // missing/null last, both directions
      }
      if (y === undefined || y === null) return -1;
      const c = k.cmp(x, y);
      if (c !== 0) return c * k.sign;
    }
    return 0; // Array.prototype.sort is stable
  };
}

const KEYS_W1 = [["fields.title", "ASC", "text"]];
const KEYS_W2 = [["fields.category", "ASC", "text"], ["fields.price", "DESC", "number"], ["meta.createdAt", "DESC", "instant"]];

function handWritten() {
  const c1 = makeComparator(KEYS_W1);
  const c2 = makeComparator(KEYS_W2);
  const p3 = interpretedProjector(SEL_W3);
  const p5 = interpretedProjector(SEL_W5);
  const w2 = (docs) => docs.slice().sort(c2);
  return {
    W1: (docs) => docs.slice().sort(c1),
    W2: w2,
    W3: (docs) => w2(docs).map(p3),
    W4: (docs) => envelope(w2(docs).slice(0, PAGE).map(p3), docs.length, PAGE, 0),
    W5: (docs) => docs.map(p5),
  };
}

// ---------------------------------------------------------------------------
// (e) best plain JS: keys extracted once into (typed) arrays, index sort, top-k for W4,
//     compiled projection
// ---------------------------------------------------------------------------

/** epoch ms of an instant; fast path for the canonical 24-char `YYYY-MM-DDTHH:MM:SS.sssZ`.
 *  Sub-millisecond digits (other layouts) go through parseInstant; values that are not
 *  instants give NaN (the API guarantees meta.createdAt is one). */
const DAYS_BEFORE_MONTH = [0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
function instantMs(s) {
  if (s.length === 24 && s.charCodeAt(23) === 90 && s.charCodeAt(19) === 46 && s.charCodeAt(10) === 84) {
    const c = (i) => s.charCodeAt(i) - 48;
    const y = c(0) * 1000 + c(1) * 100 + c(2) * 10 + c(3);
    const mo = c(5) * 10 + c(6);
    const d = c(8) * 10 + c(9);
    const h = c(11) * 10 + c(12);
    const mi = c(14) * 10 + c(15);
    const se = c(17) * 10 + c(18);
    const ms = c(20) * 100 + c(21) * 10 + c(22);
    const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
    const dim = mo === 2 ? (leap ? 29 : 28) : mo === 4 || mo === 6 || mo === 9 || mo === 11 ? 30 : 31;
    if (mo >= 1 && mo <= 12 && d >= 1 && d <= dim && h <= 23 && mi <= 59 && se <= 59 && ms >= 0 && ms <= 999 && y >= 0 && y <= 9999) {
      // days from civil (proleptic Gregorian), 1970-01-01 = 0
      const yy = y - 1;
      let days = 365 * (y - 1970) + (Math.floor(yy / 4) - Math.floor(yy / 100) + Math.floor(yy / 400)) - 477;
      days += DAYS_BEFORE_MONTH[mo] + (mo > 2 && leap ? 1 : 0) + d - 1;
      return days * 86400000 + h * 3600000 + mi * 60000 + se * 1000 + ms;
    }
  }
  const p = parseInstant(s);
  return p === null ? NaN : p[0] + p[1] / 1e6;
}

// ---------------------------------------------------------------------------
// (e)'s rank engine: every sort key becomes a dense integer rank (strings: distinct
// values sorted by code point with a multikey quicksort; numbers: native Float64Array
// sort + binary search), the default order becomes one permutation, and the keys are
// applied as stable counting-sort passes from the last key to the first (LSD). No
// comparator calls per document pair.
// ---------------------------------------------------------------------------
const fixU = (u) => (u < 0xd800 ? u : u < 0xe000 ? u + 0x2000 : u - 0x800);

/** Sort the indices `idx[lo..hi)` of distinct strings by code point (multikey quicksort). */
function mkqs(strs, idx, lo, hi, d) {
  while (hi - lo > 1) {
    if (hi - lo <= 16) {
      for (let i = lo + 1; i < hi; i++) {
        const x = idx[i];
        const sx = strs[x];
        let j = i - 1;
        while (j >= lo && cmpFrom(strs[idx[j]], sx, d) > 0) {
          idx[j + 1] = idx[j];
          j--;
        }
        idx[j + 1] = x;
      }
      return;
    }
    // median of three pivot characters
    const a = chAt(strs[idx[lo]], d);
    const b = chAt(strs[idx[(lo + hi) >> 1]], d);
    const c = chAt(strs[idx[hi - 1]], d);
    const v = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let lt = lo;
    let gt = hi - 1;
    let i = lo;
    while (i <= gt) {
      const t = idx[i];
      const ch = chAt(strs[t], d);
      if (ch < v) {
        idx[i] = idx[lt];
        idx[lt] = t;
        lt++;
        i++;
      } else if (ch > v) {
        idx[i] = idx[gt];
        idx[gt] = t;
        gt--;
      } else i++;
    }
    if (lt - lo < hi - gt - 1) {
      mkqs(strs, idx, lo, lt, d);
      mkqs(strs, idx, gt + 1, hi, d);
    } else {
      mkqs(strs, idx, gt + 1, hi, d);
      mkqs(strs, idx, lo, lt, d);
    }
    if (v === -1) return; // strings ended: equal (cannot happen with distinct strings)
    lo = lt;
    hi = gt + 1;
    d++;
  }
}
function chAt(s, d) {
  return d < s.length ? fixU(s.charCodeAt(d)) : -1;
}
function cmpFrom(a, b, d) {
  const la = a.length;
  const lb = b.length;
  const n = la < lb ? la : lb;
  for (let i = d; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return fixU(x) - fixU(y);
  }
  return la - lb;
}

/** Dense ranks of string keys (code point order); missing (non-string) -> last. */
function stringRanks(vals, desc) {
  const n = vals.length;
  const map = new Map();
  const distinct = [];
  const di = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = vals[i];
    if (typeof v !== "string") {
      di[i] = -1;
      continue;
    }
    let k = map.get(v);
    if (k === undefined) {
      k = distinct.length;
      map.set(v, k);
      distinct.push(v);
    }
    di[i] = k;
  }
  const m = distinct.length;
  const order = new Int32Array(m);
  for (let i = 0; i < m; i++) order[i] = i;
  mkqs(distinct, order, 0, m, 0);
  const rd = new Int32Array(m);
  for (let r = 0; r < m; r++) rd[order[r]] = desc ? m - 1 - r : r;
  const rank = new Int32Array(n);
  for (let i = 0; i < n; i++) rank[i] = di[i] < 0 ? m : rd[di[i]];
  return { rank, card: m + 1 };
}

/** Dense ranks of numeric keys (NaN = missing -> last; -0 == 0). */
function numberRanks(vals, desc) {
  const n = vals.length;
  let present = 0;
  for (let i = 0; i < n; i++) if (vals[i] === vals[i]) present++;
  const s = new Float64Array(present);
  for (let i = 0, j = 0; i < n; i++) if (vals[i] === vals[i]) s[j++] = vals[i];
  s.sort();
  let m = 0;
  for (let i = 0; i < present; i++) if (m === 0 || s[i] !== s[m - 1]) s[m++] = s[i];
  const rank = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = vals[i];
    if (v !== v) {
      rank[i] = m;
      continue;
    }
    let lo = 0;
    let hi = m - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (s[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    rank[i] = desc ? m - 1 - lo : lo;
  }
  return { rank, card: m + 1 };
}

/** Stable counting sort of `order` by `rank` (values 0..card-1) into a new Int32Array. */
function countingSort(order, rank, card) {
  const n = order.length;
  const count = new Int32Array(card + 1);
  for (let i = 0; i < n; i++) count[rank[order[i]] + 1]++;
  for (let r = 0; r < card; r++) count[r + 1] += count[r];
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const x = order[i];
    out[count[rank[x]]++] = x;
  }
  return out;
}

// (e) picks its sort strategy by size; thresholds measured with Node 20 on the
// benchmark data (the comparator strategy allocates less, the rank strategy scales better).
const RANK_MIN = { W1: 2000, W2: 50000 };

function bestPlain() {
  const p3 = compiledProjector(SEL_W3);
  const p5 = compiledProjector(SEL_W5);

  // createdAt DESC key, ascending-normalised: -ms; missing -> +Infinity (last)
  function createdKeys(docs) {
    const n = docs.length;
    const k = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const m = docs[i].meta;
      const v = m === undefined || m === null ? undefined : m.createdAt;
      k[i] = typeof v === "string" ? -instantMs(v) : Infinity;
      if (k[i] !== k[i]) k[i] = Infinity;
    }
    return k;
  }
  // meta.id DESC, then input position (stability; indices start in order and the sort is
  // stable, so the position tie-break is implicit)
  const idDesc = (docs, i, j) => {
    const a = docs[i].meta && docs[i].meta.id;
    const b = docs[j].meta && docs[j].meta.id;
    if (a == null) return b == null ? 0 : 1;
    if (b == null) return -1;
    return cmpId(b, a);
  };
  const identity = (n) => {
    const idx = new Array(n);
    for (let i = 0; i < n; i++) idx[i] = i;
    return idx;
  };

  // --- comparator strategy (keys extracted once, index sort) ---------------------
  function idxW1Cmp(docs) {
    const n = docs.length;
    const tk = new Array(n);
    for (let i = 0; i < n; i++) {
      const f = docs[i].fields;
      const v = f === undefined || f === null ? undefined : f.title;
      tk[i] = typeof v === "string" ? codePointKey(v) : undefined; // (all titles are text)
    }
    const ck = createdKeys(docs);
    const idx = identity(n);
    idx.sort((i, j) => {
      const a = tk[i];
      const b = tk[j];
      if (a !== b) {
        if (a === undefined) return 1;
        if (b === undefined) return -1;
        return a < b ? -1 : 1;
      }
      return ck[i] - ck[j] || idDesc(docs, i, j);
    });
    return idx;
  }
  function idxW2Cmp(docs) {
    const n = docs.length;
    // category: rank of each distinct value (few distinct values), missing -> Infinity
    const ranks = new Map();
    const cat = new Array(n);
    for (let i = 0; i < n; i++) {
      const f = docs[i].fields;
      const v = f === undefined || f === null ? undefined : f.category;
      cat[i] = v;
      if (typeof v === "string" && !ranks.has(v)) ranks.set(v, 0);
    }
    const distinct = [...ranks.keys()].sort(cmpText);
    for (let r = 0; r < distinct.length; r++) ranks.set(distinct[r], r);
    const k1 = new Float64Array(n);
    const k2 = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = cat[i];
      k1[i] = typeof v === "string" ? ranks.get(v) : Infinity;
      const f = docs[i].fields;
      const p = f === undefined || f === null ? undefined : f.price;
      k2[i] = typeof p === "number" ? -p : Infinity; // DESC -> -price; missing/null last
    }
    const ck = createdKeys(docs);
    const idx = identity(n);
    // Infinity - Infinity is NaN (falsy): falls through to the next key, as a tie should.
    idx.sort((i, j) => k1[i] - k1[j] || k2[i] - k2[j] || ck[i] - ck[j] || idDesc(docs, i, j));
    return idx;
  }

  // --- rank strategy ------------------------------------------------------------------
  /** Permutation of the documents in the default order: createdAt DESC, id DESC, position. */
  function createdMs(docs) {
    const n = docs.length;
    const ms = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const m = docs[i].meta;
      const v = m === undefined || m === null ? undefined : m.createdAt;
      ms[i] = typeof v === "string" ? instantMs(v) : NaN; // NaN: missing (or not an instant) -> last
    }
    return ms;
  }
  function defaultOrder(docs, ms = createdMs(docs)) {
    const n = docs.length;
    const { rank, card } = numberRanks(ms, true);
    let order = new Int32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order = countingSort(order, rank, card);
    // equal createdAt: meta.id DESC (few, small groups), then position
    for (let p = 0; p < n; ) {
      let q = p + 1;
      const r = rank[order[p]];
      while (q < n && rank[order[q]] === r) q++;
      if (q - p > 1) {
        const g = Array.from(order.subarray(p, q));
        g.sort((i, j) => idDesc(docs, i, j) || i - j);
        order.set(g, p);
      }
      p = q;
    }
    return order;
  }
  function fieldValues(docs, name) {
    const n = docs.length;
    const vals = new Array(n);
    for (let i = 0; i < n; i++) {
      const f = docs[i].fields;
      vals[i] = f === undefined || f === null ? undefined : f[name];
    }
    return vals;
  }
  function idxW1Rank(docs) {
    const t = stringRanks(fieldValues(docs, "title"), false); // (all titles are text)
    return countingSort(defaultOrder(docs), t.rank, t.card);
  }
  function idxW2Rank(docs) {
    const n = docs.length;
    // one pass over the documents for all keys
    const cv = new Array(n);
    const pv = new Float64Array(n);
    const ms = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const d = docs[i];
      const f = d.fields;
      if (f === undefined || f === null) {
        cv[i] = undefined;
        pv[i] = NaN;
      } else {
        cv[i] = f.category;
        const p = f.price;
        pv[i] = typeof p === "number" ? p : NaN;
      }
      const m = d.meta;
      const v = m === undefined || m === null ? undefined : m.createdAt;
      ms[i] = typeof v === "string" ? instantMs(v) : NaN;
    }
    const c = stringRanks(cv, false);
    const p = numberRanks(pv, true);
    // the explicit last key meta.createdAt DESC is the default order's first key: subsumed
    return countingSort(countingSort(defaultOrder(docs, ms), p.rank, p.card), c.rank, c.card);
  }

  const idxW1 = (docs) => (docs.length >= RANK_MIN.W1 ? idxW1Rank(docs) : idxW1Cmp(docs));
  const idxW2 = (docs) => (docs.length >= RANK_MIN.W2 ? idxW2Rank(docs) : idxW2Cmp(docs));
  const gather = (docs, idx) => {
    const n = idx.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = docs[idx[i]];
    return out;
  };
  const sortW1 = (docs) => gather(docs, idxW1(docs));
  const sortW2 = (docs) => gather(docs, idxW2(docs));
  function w3(docs) {
    const idx = idxW2(docs);
    const n = idx.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = p3(docs[idx[i]]);
    return out;
  }

  // W4: one pass with a bounded max-heap of the best PAGE documents (worst on top);
  // most documents are rejected by one comparison with the current worst.
  function cmpW2Docs(a, b) {
    const fa = a.fields, fb = b.fields;
    const ca = fa && fa.category, cb = fb && fb.category;
    if (ca !== cb) {
      if (ca == null) { if (cb != null) return 1; }
      else if (cb == null) return -1;
      else return cmpText(ca, cb);
    }
    const pa = fa && fa.price, pb = fb && fb.price;
    if (pa !== pb) {
      if (pa == null) { if (pb != null) return 1; }
      else if (pb == null) return -1;
      else if (pa !== pb) return pb - pa;
    }
    const ma = a.meta, mb = b.meta;
    const ta = ma && ma.createdAt, tb = mb && mb.createdAt;
    if (ta !== tb) {
      if (ta == null) { if (tb != null) return 1; }
      else if (tb == null) return -1;
      else {
        const c = cmpInstant(tb, ta);
        if (c !== 0) return c;
      }
    }
    const ia = ma && ma.id, ib = mb && mb.id;
    if (ia == null) return ib == null ? 0 : 1;
    if (ib == null) return -1;
    return cmpId(ib, ia);
  }
  function topK(docs, k) {
    const n = docs.length;
    const hd = []; // heap of documents
    const hi = []; // their input positions (final tie-break = stability)
    const worse = (a, b) => {
      // true if heap entry a ranks after entry b
      const c = cmpW2Docs(hd[a], hd[b]);
      return c > 0 || (c === 0 && hi[a] > hi[b]);
    };
    const swap = (a, b) => {
      const d = hd[a]; hd[a] = hd[b]; hd[b] = d;
      const x = hi[a]; hi[a] = hi[b]; hi[b] = x;
    };
    for (let i = 0; i < n; i++) {
      const doc = docs[i];
      if (hd.length < k) {
        hd.push(doc);
        hi.push(i);
        let c = hd.length - 1;
        while (c > 0) {
          const p = (c - 1) >> 1;
          if (!worse(c, p)) break;
          swap(c, p);
          c = p;
        }
      } else if (k > 0 && cmpW2Docs(doc, hd[0]) < 0) {
        hd[0] = doc;
        hi[0] = i;
        let p = 0;
        for (;;) {
          const l = 2 * p + 1;
          if (l >= k) break;
          const r = l + 1;
          const w = r < k && worse(r, l) ? r : l;
          if (!worse(w, p)) break;
          swap(w, p);
          p = w;
        }
      }
    }
    const order = hd.map((_, j) => j);
    order.sort((a, b) => cmpW2Docs(hd[a], hd[b]) || hi[a] - hi[b]);
    return order.map((j) => hd[j]);
  }

  return {
    W1: sortW1,
    W2: sortW2,
    W3: w3,
    strategies: { idxW1Cmp, idxW2Cmp, idxW1Rank, idxW2Rank },
    W4: (docs) => envelope(topK(docs, PAGE).map(p3), docs.length, PAGE, 0),
    W5: (docs) => {
      const n = docs.length;
      const out = new Array(n);
      for (let i = 0; i < n; i++) out[i] = p5(docs[i]);
      return out;
    },
  };
}

// ---------------------------------------------------------------------------
// (a) lodash orderBy + json-mask, (b) fast-sort + json-mask, (c) mingo
// ---------------------------------------------------------------------------

const title = (d) => d.fields.title;
const category = (d) => d.fields.category;
const price = (d) => d.fields.price;
const created = (d) => d.meta.createdAt;
const id = (d) => d.meta.id; // 18-digit ids: string order == numeric order here

function lodashPeer({ orderBy, mask }) {
  const m3 = mask.compile(SEL_W3);
  const m5 = mask.compile(SEL_W5_JSONMASK);
  const w2 = (docs) => orderBy(docs, [category, price, created, id], ["asc", "desc", "desc", "desc"]);
  return {
    W1: (docs) => orderBy(docs, [title, created, id], ["asc", "desc", "desc"]),
    W2: w2,
    W3: (docs) => w2(docs).map((d) => mask.filter(d, m3)),
    W4: (docs) => envelope(w2(docs).slice(0, PAGE).map((d) => mask.filter(d, m3)), docs.length, PAGE, 0),
    W5: (docs) => docs.map((d) => mask.filter(d, m5)),
  };
}

function fastSortPeer({ sort, mask }) {
  const m3 = mask.compile(SEL_W3);
  const m5 = mask.compile(SEL_W5_JSONMASK);
  const by1 = [{ asc: title }, { desc: created }, { desc: id }];
  const by2 = [{ asc: category }, { desc: price }, { desc: created }, { desc: id }];
  const w2 = (docs) => sort(docs).by(by2); // `sort` copies; `inPlaceSort` would not
  return {
    W1: (docs) => sort(docs).by(by1),
    W2: w2,
    W3: (docs) => w2(docs).map((d) => mask.filter(d, m3)),
    W4: (docs) => envelope(w2(docs).slice(0, PAGE).map((d) => mask.filter(d, m3)), docs.length, PAGE, 0),
    W5: (docs) => docs.map((d) => mask.filter(d, m5)),
  };
}

function mingoPeer({ mingo }) {
  const { Aggregator } = mingo;
  const s1 = { $sort: { "fields.title": 1, "meta.createdAt": -1, "meta.id": -1 } };
  const s2 = { $sort: { "fields.category": 1, "fields.price": -1, "meta.createdAt": -1, "meta.id": -1 } };
  const p3 = { $project: { "fields.title": 1, "fields.price": 1, "fields.author.name": 1, "meta.id": 1, "meta.updatedAt": 1 } };
  // MongoDB projection on an array path reaches into each element: gallery.url -> [{url}]
  const p5 = { $project: { "fields.title": 1, "fields.gallery.url": 1, meta: 1 } };
  const a1 = new Aggregator([s1]);
  const a2 = new Aggregator([s2]);
  const a3 = new Aggregator([s2, p3]);
  const a4 = new Aggregator([s2, { $limit: PAGE }, p3]);
  const a5 = new Aggregator([p5]);
  return {
    W1: (docs) => a1.run(docs),
    W2: (docs) => a2.run(docs),
    W3: (docs) => a3.run(docs),
    W4: (docs) => envelope(a4.run(docs), docs.length, PAGE, 0),
    W5: (docs) => a5.run(docs),
  };
}

/** All peers, in table order. Each: { key, name, w: { W1..W5: (docs) => result } } */
export function makePeers(libs) {
  return [
    { key: "a", name: "lodash.orderBy+json-mask", w: lodashPeer(libs) },
    { key: "b", name: "fast-sort+json-mask", w: fastSortPeer(libs) },
    { key: "c", name: "mingo", w: mingoPeer(libs) },
    { key: "d", name: "hand-written", w: handWritten() },
    { key: "e", name: "best-plain-js", w: bestPlain() },
  ];
}

// ---------------------------------------------------------------------------
// Correctness self-check
// ---------------------------------------------------------------------------

/** JSON with object keys sorted (key order is not part of the result). */
export function canonicalJson(v) {
  if (Array.isArray(v)) return "[" + v.map(canonicalJson).join(",") + "]";
  if (typeof v === "object" && v !== null) {
    return "{" + Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => JSON.stringify(k) + ":" + canonicalJson(v[k])).join(",") + "}";
  }
  return JSON.stringify(v);
}

// A structural hash of JSON-like values (object keys sorted, -0 == 0, undefined
// properties skipped as JSON does), computed without building strings: the self-check
// must not keep large results alive through a burst of allocation, or V8's
// allocation-site pretenuring starts tenuring the peers' output objects and skews every
// later measurement of them (seen: 4-5x slower W5 for (d)/(e) after a string-based check).
const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
export function structuralHash(v) {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  const mix = (x) => {
    h1 = Math.imul(h1 ^ x, 0x01000193);
    h2 = Math.imul(h2 ^ x, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  };
  const str = (s) => {
    mix(s.length);
    for (let i = 0; i < s.length; i++) mix(s.charCodeAt(i));
  };
  const walk = (x) => {
    if (x === null) mix(1);
    else if (typeof x === "string") {
      mix(2);
      str(x);
    } else if (typeof x === "number") {
      mix(3);
      F64[0] = x === 0 ? 0 : x;
      mix(U32[0]);
      mix(U32[1]);
    } else if (typeof x === "boolean") mix(x ? 4 : 5);
    else if (Array.isArray(x)) {
      mix(6);
      mix(x.length);
      for (let i = 0; i < x.length; i++) walk(x[i] === undefined ? null : x[i]);
    } else if (typeof x === "object") {
      mix(7);
      const keys = Object.keys(x).sort();
      for (const k of keys) {
        if (x[k] === undefined) continue;
        str(k);
        walk(x[k]);
      }
      mix(8);
    } else mix(9);
  };
  walk(v);
  return (h1 >>> 0).toString(16).padStart(8, "0") + (h2 >>> 0).toString(16).padStart(8, "0");
}

function firstDiff(a, b) {
  const x = Array.isArray(a) ? a : a.data;
  const y = Array.isArray(b) ? b : b.data;
  if (!Array.isArray(x) || !Array.isArray(y)) return "not a list";
  if (x.length !== y.length) return `length ${x.length} vs ${y.length}`;
  for (let i = 0; i < x.length; i++) {
    if (structuralHash(x[i]) !== structuralHash(y[i])) {
      const p = canonicalJson(x[i]);
      const q = canonicalJson(y[i]);
      const label = (o) => (o && o.meta && o.meta.id ? `meta.id ${o.meta.id}` : (o && o.fields && o.fields.title !== undefined ? `title ${JSON.stringify(o.fields.title)}` : ""));
      const ia = label(x[i]);
      const ib = label(y[i]);
      if (ia !== ib) return `first difference at index ${i}: ${ia} vs ${ib} (reference)`;
      return `first difference at index ${i}: ${p.slice(0, 200)} vs ${q.slice(0, 200)} (reference)`;
    }
  }
  return "envelope meta differs";
}

/** Hand-made cases with a known answer for the ordering rules (missing/null last in both
 *  directions, default-order tie-break with 18-digit ids and non-canonical instants). */
function ruleCases() {
  const doc = (id, createdAt, fields) => ({ fields, meta: { id, createdAt, contentType: "product", repository: "bench", revision: 1, tags: [], updatedAt: createdAt } });
  const docs = [
    doc("100000000000000001", "2024-01-01T00:00:00.000Z", { title: "b", category: "x", price: null }),
    doc("100000000000000002", "2024-01-01T00:00:00.000Z", { title: "b", category: "x" }),
    doc("100000000000000003", "2024-01-02T00:00:00.000Z", { category: "x", price: 5 }),
    doc("99999999999999999", "2024-01-01T01:00:00+02:00", { title: "😀", category: "x", price: 5 }),
    doc("100000000000000005", "2023-12-31T23:00:00.000Z", { title: "Ｔ", category: "x", price: 7 }),
    doc("100000000000000006", "2024-01-01T00:00:00.000Z", { title: "B", category: "w", price: 1 }),
  ];
  return {
    docs,
    // title ASC: "B" < "b" (x2: createdAt tie -> id DESC) < "Ｔ" (U+FF34) < "😀" (U+1F600) < missing
    W1: ["100000000000000006", "100000000000000002", "100000000000000001", "100000000000000005", "99999999999999999", "100000000000000003"],
    // category ASC: w first; in x: price DESC 7, then 5 x2 (createdAt DESC: 01-02 before
    // 2023-12-31T23:00Z == "+02:00" one), then missing/null last (createdAt tie -> id DESC)
    W2: ["100000000000000006", "100000000000000005", "100000000000000003", "99999999999999999", "100000000000000002", "100000000000000001"],
  };
}

/**
 * Run every workload of every peer (and the SDK, if given) on `docs` (1,000 documents);
 * (d) and (e) must agree exactly (required); the others are compared with (e) for info.
 * Also checks that no implementation mutates its input, and the rule cases.
 * Returns { ok, lines, details }.
 */
export function selfCheck(peers, docs, sdkImpl = null) {
  const lines = [];
  const details = [];
  let ok = true;
  const before = docs.map((d) => d.meta.id).join(",");
  const d = peers.find((p) => p.key === "d");
  const e = peers.find((p) => p.key === "e");

  const rc = ruleCases();
  for (const w of ["W1", "W2"]) {
    for (const p of [d, e]) {
      const got = p.w[w](rc.docs).map((x) => x.meta.id);
      if (got.join() !== rc[w].join()) {
        ok = false;
        lines.push(`FAIL rule case ${w} (${p.key}) ${p.name}: ${got.join()} expected ${rc[w].join()}`);
      }
    }
  }
  // envelopes are compared by { data, meta } (an SDK may add e.g. `source`)
  const envelope = (out) => (Array.isArray(out) || out === null || typeof out !== "object" ? out : { data: out.data, meta: out.meta });
  const canon = (out) => structuralHash(envelope(out));
  // (e) switches sort strategy by size: both must give the same permutation
  if (e.w.strategies) {
    const S = e.w.strategies;
    for (const w of ["W1", "W2"]) {
      if (Array.from(S[`idx${w}Cmp`](docs)).join() !== Array.from(S[`idx${w}Rank`](docs)).join()) {
        ok = false;
        lines.push(`FAIL ${w}: (e)'s comparator and rank strategies disagree`);
      }
    }
  }
  for (const w of Object.keys(WORKLOADS)) {
    const ref = canon(e.w[w](docs));
    const dOut = canon(d.w[w](docs));
    if (dOut !== ref) {
      ok = false;
      lines.push(`FAIL ${w}: (d) hand-written and (e) best-plain-js disagree: ${firstDiff(envelope(d.w[w](docs)), envelope(e.w[w](docs)))}`);
    }
    const others = peers.filter((p) => p.key !== "d" && p.key !== "e").map((p) => [`(${p.key}) ${p.name}`, p.w[w], false]);
    // The SDK must give the service's answer: a difference fails the run (the peers (a) to (c)
    // order by other rules, which is reported, not failed).
    if (sdkImpl) for (const [label, impl] of Object.entries(sdkImpl)) if (impl[w]) others.push([label, impl[w], true]);
    for (const [label, fn, must] of others) {
      let res;
      let agree;
      try {
        const out = fn(docs);
        agree = canon(out) === ref;
        res = agree ? "agrees" : "differs: " + firstDiff(envelope(out), envelope(e.w[w](docs)));
      } catch (err) {
        agree = false;
        res = "throws: " + String(err && err.message ? err.message : err).slice(0, 200);
      }
      details.push({ workload: w, impl: label, agreesWithReference: agree, note: agree ? undefined : res });
      if (!agree && must) ok = false;
      if (!agree) lines.push(`${must ? "FAIL" : "info"} ${w}: ${label} ${res}`);
    }
  }
  if (docs.map((x) => x.meta.id).join(",") !== before) {
    ok = false;
    lines.push("FAIL: an implementation mutated its input array");
  }
  lines.unshift(ok ? `self-check OK: (d) and (e) agree on W1-W5 at ${docs.length} documents, rule cases pass, inputs unchanged` : "self-check FAILED");
  return { ok, lines, details };
}
