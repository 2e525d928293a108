// Field selection applied to JavaScript documents in place, without a trip
// through WebAssembly: an interpreter of the projection plan that Rust
// compiles from a parsed selection (src/local/plan.rs). The semantics are
// Rust's (src/local/project.rs, SPEC.md section 3); this file only executes
// the plan, and tests/js/projection-diff.test.mjs checks it against the Rust
// path on random documents and selections.
//
// The Rust path reads documents as JSON (`JSON.stringify` of what the
// selection can return) and its results are fresh JSON values. So that both
// paths agree on every input, this one gives up, returning `null` (the
// caller then takes the Rust path), on anything JSON would change or reject
// in what the Rust path serializes: `undefined`, functions, symbols, bigints,
// non-finite numbers, lone surrogates, objects that are not plain objects or
// arrays (dates, maps, class instances, `toJSON`), array holes, deep nesting
// (cycles included). `-0` becomes `0`, as through JSON.

const hasOwn = Object.prototype.hasOwnProperty;
const objectProto = Object.prototype;
const arrayProto = Array.prototype;
const getProto = Object.getPrototypeOf;
const keysOf = Object.keys;
const isArray = Array.isArray;
const nativeWellFormed = typeof String.prototype.isWellFormed === "function";
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;
/** Whether a string has no lone surrogate (JSON text of it parses in Rust). */
const wellFormed = (s) => (nativeWellFormed ? s.isWellFormed() : !loneSurrogate.test(s));

/** Thrown inside the interpreter when the Rust path must decide. */
const GIVE_UP = { giveUp: true };
/** "Not selected". */
const NONE = undefined;
/** Deeper than this (from a scope value) the Rust path decides. */
const MAX_DEPTH = 96;

const isObject = (v) => typeof v === "object" && v !== null && !isArray(v);

function set(out, key, value) {
  if (key === "__proto__") {
    Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    out[key] = value;
  }
}

function checkKey(key) {
  if (!wellFormed(key)) throw GIVE_UP;
}

/** A scalar as JSON gives it back, or GIVE_UP. */
function scalar(v) {
  switch (typeof v) {
    case "string":
      if (!wellFormed(v)) throw GIVE_UP;
      return v;
    case "number":
      if (v - v !== 0) throw GIVE_UP; // NaN, Infinity
      return v + 0; // -0 -> 0
    case "boolean":
      return v;
    default:
      if (v === null) return null;
      throw GIVE_UP;
  }
}

// `for (const k in v)` on these gives exactly `Object.keys(v)`: the module
// gives up at once if Object.prototype has an enumerable key.
function plainObject(v) {
  const proto = getProto(v);
  if (proto !== objectProto && proto !== null) throw GIVE_UP;
}

function prototypeIsClean() {
  for (const k in objectProto) return false;
  return true;
}

function plainArray(v) {
  if (getProto(v) !== arrayProto) throw GIVE_UP;
}

/** A deep copy of a JSON value (what `JSON.parse(JSON.stringify(v))` gives). */
function copy(v, depth) {
  if (typeof v !== "object" || v === null) return scalar(v);
  if (depth > MAX_DEPTH) throw GIVE_UP;
  if (isArray(v)) {
    plainArray(v);
    const n = v.length;
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      if (!(i in v)) throw GIVE_UP;
      out[i] = copy(v[i], depth + 1);
    }
    return out;
  }
  plainObject(v);
  const out = {};
  for (const k in v) {
    checkKey(k);
    set(out, k, copy(v[k], depth + 1));
  }
  return out;
}

/** Checks that `v` is a JSON value (as `copy`, without copying). */
function check(v, depth) {
  if (typeof v !== "object" || v === null) {
    scalar(v);
    return;
  }
  if (depth > MAX_DEPTH) throw GIVE_UP;
  if (isArray(v)) {
    plainArray(v);
    for (let i = 0; i < v.length; i++) {
      if (!(i in v)) throw GIVE_UP;
      check(v[i], depth + 1);
    }
    return;
  }
  plainObject(v);
  for (const k in v) {
    checkKey(k);
    check(v[k], depth + 1);
  }
}

// A compiled plan node: null (leaf) or { named: Map<string, node>, star: node | undefined, element: node }.
function compile(text) {
  const raw = JSON.parse(text);
  const nodes = raw.nodes.map((entry) => (entry === null ? null : { named: new Map(), star: undefined, element: undefined }));
  raw.nodes.forEach((entry, i) => {
    if (entry === null) return;
    const node = nodes[i];
    for (const name of Object.keys(entry[0])) node.named.set(name, nodes[entry[0][name]]);
    node.star = entry[1] < 0 ? undefined : nodes[entry[1]];
    node.element = nodes[entry[2]];
  });
  const at = (i) => (i < 0 ? undefined : nodes[i]);
  const fields = at(raw.fields);
  const meta = nodes[raw.meta];
  // The Rust path copies a scope's named keys into a fresh object first,
  // where `__proto__` sets the prototype instead: it is never selected there.
  const own = (names) => (names === null ? null : names.filter((name) => name !== "__proto__"));
  const fieldNames = own(raw.fieldNames);
  const metaNames = own(raw.metaNames);
  const kids = (node, names) => (names === null ? null : names.map((name) => node.named.get(name)));
  const inherited = (names) => (names === null ? null : names.map((name) => name in objectProto));
  return {
    fields,
    fieldNames,
    fieldKids: fields === undefined ? null : kids(fields, fieldNames),
    fieldInherited: inherited(fieldNames),
    meta,
    metaNames,
    metaKids: kids(meta, metaNames),
    metaInherited: inherited(metaNames),
    includes: at(raw.includes),
  };
}

/** Applies a plan node to a value: NONE when nothing is selected. */
function apply(v, node, depth) {
  if (node === null) return copy(v, depth);
  if (typeof v !== "object" || v === null) {
    scalar(v);
    return NONE;
  }
  if (depth > MAX_DEPTH) throw GIVE_UP;
  if (isArray(v)) {
    plainArray(v);
    const n = v.length;
    if (n === 0) return [];
    const out = [];
    for (let i = 0; i < n; i++) {
      if (!(i in v)) throw GIVE_UP;
      const item = v[i];
      const r = isArray(item) ? apply(item, node, depth + 1) : apply(item, node.element, depth + 1);
      if (r !== NONE) out.push(r);
    }
    return out.length === 0 ? NONE : out;
  }
  plainObject(v);
  const out = {};
  const named = node.named;
  const star = node.star;
  for (const k in v) {
    checkKey(k);
    let sub = named.get(k);
    if (sub === undefined) sub = star;
    if (sub === undefined) {
      check(v[k], depth + 1);
      continue;
    }
    const r = apply(v[k], sub, depth + 1);
    if (r !== NONE) set(out, k, r);
  }
  return out;
}

/**
 * A scope of a document (`fields` or `meta`): with `names`, only those own
 * keys are read (in that order), as the Rust path reads them.
 */
function scope(v, node, names, kids, inherited) {
  if (names === null || !isObject(v)) {
    if (v === undefined) throw GIVE_UP;
    return apply(v, node, 0);
  }
  const proto = getProto(v);
  const plain = proto === objectProto || proto === null;
  const out = {};
  for (let i = 0; i < names.length; i++) {
    const k = names[i];
    const x = v[k];
    if (x === undefined) {
      if (hasOwn.call(v, k)) throw GIVE_UP;
      continue;
    }
    // A plain object inherits nothing but Object.prototype's own keys.
    if ((!plain || inherited[i]) && !hasOwn.call(v, k)) continue;
    const r = apply(x, kids[i], 1);
    if (r !== NONE) set(out, k, r);
  }
  return out;
}

function document(d, plan) {
  const out = {};
  if (plan.fields !== undefined && hasOwn.call(d, "fields")) {
    const r = scope(d.fields, plan.fields, plan.fieldNames, plan.fieldKids, plan.fieldInherited);
    if (r !== NONE) out.fields = r;
  }
  if (hasOwn.call(d, "meta")) {
    const r = scope(d.meta, plan.meta, plan.metaNames, plan.metaKids, plan.metaInherited);
    if (r !== NONE) out.meta = r;
  }
  if (hasOwn.call(d, "includes")) {
    const v = d.includes;
    if (v === undefined) throw GIVE_UP;
    const r = plan.includes === undefined ? copy(v, 0) : apply(v, plan.includes, 0);
    if (r !== NONE) out.includes = r;
  }
  return out;
}

function documents(list, plan) {
  const n = list.length;
  for (let i = 0; i < n; i++) if (!isObject(list[i])) return i;
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = document(list[i], plan);
  return out;
}

let lastText = null;
let lastPlan = null;

/**
 * Applies the plan (JSON text from Rust) to a document, an array of
 * documents, or a list envelope. Returns the result; the index of the first
 * element that is not a document (-1 when `value` itself is not one); or
 * `null` when the Rust path must decide.
 */
export function projectValue(value, planText) {
  if (planText !== lastText) {
    lastPlan = compile(planText);
    lastText = planText;
  }
  const plan = lastPlan;
  if (!prototypeIsClean()) return null;
  try {
    if (isArray(value)) return documents(value, plan);
    if (isObject(value) && isArray(value.data) && !hasOwn.call(value, "fields")) {
      const data = documents(value.data, plan);
      if (typeof data === "number") return data;
      const out = {};
      const keys = keysOf(value);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (k === "data") {
          out.data = data;
          continue;
        }
        checkKey(k);
        // The Rust path copies these keys with `out[k] = v`: `__proto__` is lost there.
        if (k === "__proto__") throw GIVE_UP;
        const v = value[k];
        if (v === undefined || typeof v === "function" || typeof v === "symbol") throw GIVE_UP;
        if (k === "includes" && plan.includes !== undefined) {
          const r = apply(v, plan.includes, 0);
          if (r !== NONE) out.includes = r;
        } else {
          set(out, k, copy(v, 0));
        }
      }
      return out;
    }
    if (!isObject(value)) return -1;
    return document(value, plan);
  } catch {
    return null;
  }
}
