// The JavaScript side of sortDocuments, selectFields and applyQuery
// (src/wasm/local.rs): documents stay JavaScript objects, and only what the
// engine needs crosses into WebAssembly, as JSON text written here with
// exactJson (JSON.stringify, with Infinity written as 1e400).

const hasOwn = Object.prototype.hasOwnProperty;
const isEnumerable = Object.prototype.propertyIsEnumerable;

// Stand-ins for the numbers JSON.stringify writes as null: a string no
// document holds (a random part of its own), replaced in the text; made
// at the first use, not as the module loads (Cloudflare Workers refuse
// random values outside a handler).
let tag;
function standIn(key, value) {
  if (value === Infinity) return `${tag}+`;
  if (value === -Infinity) return `${tag}-`;
  return value;
}

/**
 * Whether what `JSON.stringify` writes of `value` (`toJSON` called as it
 * calls it) may hold Infinity or -Infinity: a walk, no recursion, that gives
 * up (true: look the slow way) past `budget` values.
 */
function holdsInfinity(value, budget) {
  const stack = ["", value];
  while (stack.length > 0) {
    let v = stack.pop();
    const key = stack.pop();
    if (--budget < 0) return true;
    if (v !== null && (typeof v === "object" || typeof v === "bigint") && typeof v.toJSON === "function") v = v.toJSON(key);
    if (v === Infinity || v === -Infinity) return true;
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push(String(i), v[i]);
    else for (const k of Object.keys(v)) stack.push(k, v[k]);
  }
  return false;
}

/**
 * `JSON.stringify(value)`, but for Infinity and -Infinity (what
 * `JSON.parse` gives for 1e400), which it writes as null: they are written
 * 1e400 and -1e400, so the engine orders, selects and stores them as the
 * numbers they are. Only a text that holds a null is looked at again (a
 * walk for them, a fifth of a stringify), and written again only when they
 * are there.
 */
export function exactJson(value) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    // Deeper than its recursion goes (JSON.parse gives such values): V8 and
    // JavaScriptCore throw a RangeError of the call stack, SpiderMonkey an
    // InternalError. Any other error (a text too long, the caller's own) is
    // the answer.
    if (overflowed(error)) return deepJson(value);
    throw error;
  }
  // (Each value written takes a character of the text at least, but for
  // keys whose value is not written: twice its length is ample.)
  if (typeof text !== "string" || !text.includes("null") || !holdsInfinity(value, 2 * text.length + 2)) return text;
  // (Drawn again while the text holds it: a string of the value could be
  // taken for a stand-in; numbered, should the random part repeat.)
  for (let n = 0; tag === undefined || text.includes(tag); n++) {
    tag = `\u{10FFFF}content-repo:${Math.random().toString(36).slice(2)}:${n}:`;
  }
  const exact = JSON.stringify(value, standIn);
  if (!exact.includes(tag)) return text;
  return exact.replaceAll(`"${tag}+"`, "1e400").replaceAll(`"${tag}-"`, "-1e400");
}
/** Whether `error` is a stack overflow's (no other error is retried). */
function overflowed(error) {
  try {
    return (error instanceof RangeError && /call stack/i.test(error.message)) || error?.name === "InternalError";
  } catch {
    return false;
  }
}

/**
 * `value` as `JSON.stringify` reads it under `key`: what its `toJSON(key)`
 * gives, if it has one (read once, as the standard does; the key as a
 * string).
 */
function withToJSON(value, key) {
  const type = typeof value;
  if (value === null || (type !== "object" && type !== "function" && type !== "bigint")) return value;
  const toJSON = value.toJSON;
  return typeof toJSON === "function" ? toJSON.call(value, String(key)) : value;
}

/** What `JSON.stringify` reads of a property's value: `toJSON`'s, a boxed primitive's. */
function jsonValue(value, key) {
  value = withToJSON(value, key);
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const box = boxOf(value);
  if (box === undefined) return value;
  const [Box, unbox] = box;
  return Box === Boolean || Box === BigInt ? unbox.call(value) : Box(value);
}
const BOXES = [Number, String, Boolean, BigInt].map((Box) => [Box, Box.prototype.valueOf]);

/**
 * Which of BOXES `value` (an object, not an array: an array, or a Proxy of
 * one, is no box) is a box of (`[Box, Box.prototype.valueOf]`), by the
 * internal slot whatever the prototype: a throw for each box it is not,
 * made without a stack trace where the runtime captures one and lets it be
 * turned off (V8's writable Error.stackTraceLimit: a third of the time).
 * No code but the probes runs meanwhile (they read no property).
 */
function boxOf(value) {
  const limit = Object.getOwnPropertyDescriptor(Error, "stackTraceLimit");
  const quick = limit?.writable === true && typeof limit.value === "number";
  if (quick) Error.stackTraceLimit = 0;
  try {
    for (const box of BOXES) {
      try {
        box[1].call(value); // throws unless `value` is such a box
      } catch {
        continue;
      }
      return box;
    }
    return undefined;
  } finally {
    if (quick) Error.stackTraceLimit = limit.value;
  }
}

/**
 * A property's value as `JSON.stringify` writes it, to be written again in
 * an array: what its `toJSON(key)` gave (a box unboxed), and an object that
 * itself has a `toJSON` as its own properties (JSON.stringify calls only
 * the first `toJSON`: a Date a `toJSON` returned is written `{}`).
 */
function asWritten(value, key) {
  value = jsonValue(value, key);
  if (typeof value !== "object" || value === null || typeof value.toJSON !== "function") return value;
  if (Array.isArray(value)) return [].slice.call(value);
  const plain = {};
  for (const name of Object.keys(value)) {
    // (An own `toJSON` is a function here, which JSON.stringify leaves out.)
    if (name === "toJSON") continue;
    Object.defineProperty(plain, name, { value: value[name], enumerable: true, writable: true, configurable: true });
  }
  return plain;
}

/** `JSON.isRawJSON` where there is one: such a value is written as its text. */
const isRaw = JSON.isRawJSON;

/**
 * `exactJson` without recursion, for values nested deeper than
 * `JSON.stringify` goes: the same text, step by step as the standard
 * writes it (`toJSON`, boxed primitives, skipped and `null` values, a cycle
 * or a `BigInt` a `TypeError`), Infinity as 1e400. Or the text as far as
 * the first container nested in MAX_DEPTH others that has a member: the
 * module refuses the text there, at that bracket or before (what is past it
 * is neither read nor written: a value a million levels deep is refused
 * after a tenth of it).
 */
function deepJson(root) {
  // The text in chunks (one array of every piece would outgrow what an
  // array can hold before the text outgrew a string), its length bounded
  // as a string's is: then the RangeError JSON.stringify gives.
  const chunks = [];
  let pieces = [];
  let size = 0;
  const out = {
    push(...parts) {
      for (const part of parts) {
        size += part.length;
        pieces.push(part);
      }
      if (size > MAX_TEXT) throw new RangeError("Invalid string length");
      if (pieces.length >= 8192) {
        chunks.push(pieces.join(""));
        pieces = [];
      }
    },
  };
  const frames = [];
  const inside = new Set();
  const writes = (v) => v === null || (typeof v !== "undefined" && typeof v !== "function" && typeof v !== "symbol");
  const write = (v) => {
    if (isRaw?.(v)) out.push(v.rawJSON);
    // (Not JSON.stringify(v) for a BigInt: it would call BigInt.prototype.toJSON again.)
    else if (typeof v === "bigint") throw new TypeError("Do not know how to serialize a BigInt");
    else if (typeof v === "number") out.push(Number.isFinite(v) || Number.isNaN(v) ? JSON.stringify(v) : v > 0 ? "1e400" : "-1e400");
    else if (typeof v !== "object" || v === null) out.push(JSON.stringify(v));
    else {
      if (inside.has(v)) throw new TypeError("Converting circular structure to JSON");
      inside.add(v);
      const array = Array.isArray(v);
      out.push(array ? "[" : "{");
      // (The length as the standard reads it: ToLength, a BigInt a TypeError.)
      const length = array ? Math.min(Math.max(Math.trunc(+v.length) || 0, 0), Number.MAX_SAFE_INTEGER) : 0;
      // Each element takes a character and a comma at least: too long at once.
      if (length * 2 > MAX_TEXT) throw new RangeError("Invalid string length");
      frames.push({ v, array, keys: array ? undefined : Object.keys(v), length, at: 0 });
    }
  };
  const first = jsonValue(root, "");
  if (!writes(first)) return undefined;
  write(first);
  while (frames.length > 0) {
    const frame = frames[frames.length - 1];
    if (frame.at === (frame.array ? frame.length : frame.keys.length)) {
      out.push(frame.array ? "]" : "}");
      inside.delete(frame.v);
      frames.pop();
      continue;
    }
    if (frame.array && frame.at === 0 && frames.length > MAX_DEPTH) break;
    const key = frame.array ? String(frame.at) : frame.keys[frame.at];
    frame.at += 1;
    const v = jsonValue(frame.v[key], key);
    if (frame.array) {
      if (frame.at > 1) out.push(",");
      if (writes(v)) write(v);
      else out.push("null");
    } else if (writes(v)) {
      if (!frame.wrote && frames.length > MAX_DEPTH) break;
      // (A member whose value is not written is left out, comma and all.)
      out.push(frame.wrote ? "," : "", JSON.stringify(key), ":");
      frame.wrote = true;
      write(v);
    }
  }
  chunks.push(pieces.join(""));
  return chunks.join("");
}

/**
 * The module's nesting limit (MAX_DEPTH in src/json/mod.rs): a container
 * with a member inside this many others is refused.
 */
const MAX_DEPTH = 100_000;

/** The longest string V8 makes (2**29 - 24 characters); longer is a RangeError. */
const MAX_TEXT = 2 ** 29 - 24;

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** The documents of a list (an array, or `data` of an envelope), or undefined. */
export function listDocuments(value) {
  if (Array.isArray(value)) return value;
  // As the core frames its JSON: a `fields` object (a document's) makes it a document.
  const fields = isObject(value) && hasOwn.call(value, "fields") ? value.fields : undefined;
  const document = isObject(fields) && typeof fields.toJSON !== "function";
  if (isObject(value) && Array.isArray(value.data) && !document) return value.data;
  return undefined;
}

/**
 * The JSON text of one row of sort values per document, `flat` being the
 * scope and the name of each key in turn (a missing value is null); the
 * index of the first element that is not a document instead.
 */
export function sortRows(docs, flat) {
  // Each key's scope as an index of `scopes`: a document's scope object is
  // read once (JSON.stringify reads it once), whatever the number of keys.
  const paths = [], scopes = [];
  for (let j = 0; j + 1 < flat.length; j += 2) {
    if (!scopes.includes(flat[j])) scopes.push(flat[j]);
    paths.push([scopes.indexOf(flat[j]), flat[j + 1]]);
  }
  const views = new Array(scopes.length);
  const n = docs.length;
  const k = paths.length;
  const rows = new Array(n);
  // Whether a value may hold an infinity (one, or an object): only then is
  // the text looked at again (exactJson), the values being read here anyway.
  let looked = false;
  for (let i = 0; i < n; i++) {
    // Read as JSON.stringify reads it for the selection: a `toJSON` applied
    // (with its key), own enumerable properties only.
    if (!isObject(docs[i])) return i;
    const d = withToJSON(docs[i], i);
    if (!isObject(d)) return i;
    for (let j = 0; j < scopes.length; j++) {
      const scope = scopes[j];
      views[j] = isEnumerable.call(d, scope) ? withToJSON(d[scope], scope) : undefined;
    }
    const row = new Array(k);
    for (let j = 0; j < k; j++) {
      const s = views[paths[j][0]];
      // (Its `toJSON` called once, with its own name, as JSON.stringify calls it.)
      const name = paths[j][1];
      const v = isObject(s) && isEnumerable.call(s, name) ? asWritten(s[name], name) : null;
      if (v === Infinity || v === -Infinity || (typeof v === "object" && v !== null)) looked = true;
      row[j] = v;
    }
    rows[i] = row;
  }
  return looked ? exactJson(rows) : JSON.stringify(rows);
}

/** The documents at the positions `order`, in that order. */
export function permute(docs, order) {
  const out = new Array(order.length);
  for (let i = 0; i < order.length; i++) out[i] = docs[order[i]];
  return out;
}

/**
 * The JSON text of a list (or of one document), with only the documents at
 * `order` when given; the position of an element that is not a document
 * instead (-1 for a value that is neither a document nor a list).
 */
export function listJson(value, order) {
  const docs = listDocuments(value);
  const one = docs === undefined;
  const source = one ? [value] : docs;
  const n = order === undefined ? source.length : order.length;
  const data = new Array(n);
  for (let i = 0; i < n; i++) {
    const d = source[order === undefined ? i : order[i]];
    if (!isObject(d)) return one ? -1 : order === undefined ? i : order[i];
    data[i] = d;
  }
  if (one) return exactJson(data[0]);
  if (Array.isArray(value)) return exactJson(data);
  // Own data properties only: `__proto__` is a key like any other.
  const out = {};
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, { value: key === "data" ? data : value[key], enumerable: true, writable: true, configurable: true });
  }
  return exactJson(out);
}
