// The JavaScript side of DocumentStore (src/wasm/store.rs).

import { exactJson } from "./local.js";

const encoder = new TextEncoder();

/**
 * Encodes `text` from UTF-16 unit `from` as UTF-8 straight into wasm memory
 * (`room` bytes at `at`); returns `[read, written]` (UTF-16 units read,
 * bytes written).
 */
export function encodeUtf8Into(text, from, memory, at, room) {
  const { read, written } = encoder.encodeInto(from === 0 ? text : text.slice(from), new Uint8Array(memory.buffer, at, room));
  return [read, written];
}

/** The WTF-8 bytes of a string (UTF-8, each lone surrogate kept as its own code point, as the store keys ids). */
export function wtf8(text) {
  const bytes = [];
  for (const char of text) {
    const c = char.codePointAt(0);
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return new Uint8Array(bytes);
}

/** `exactJson(value)`, or undefined when it gives no text; what it throws is the module's error (a catching import). */
export function stringify(value) {
  const text = exactJson(value);
  return typeof text === "string" ? text : undefined;
}

/**
 * The answer to a store query from a page of the store (`Page` in
 * src/store/mod.rs): `text` is the envelope with the documents not held
 * (`holders.get(key)`: the documents of one store); `words` name each
 * document of the page (slot << 2, bit 1: the next one of the text, bit 2:
 * a copy of it is held). The caller gets
 * its own objects, copies of the held ones (strings are shared: they cannot
 * change).
 */
export function assemble(holders, key, epoch, text, words) {
  const answer = JSON.parse(text);
  let held = holders.get(key);
  if (held?.epoch !== epoch) held = { epoch, docs: [], copiers: [] };
  // The most recently used last; at most MAX_HOLDERS (a store that asks for
  // one dropped gets an error here, takes back its deliveries and delivers
  // again).
  holders.delete(key);
  holders.set(key, held);
  if (holders.size > MAX_HOLDERS) holders.delete(holders.keys().next().value);
  const fresh = answer.data, { docs, copiers } = held, data = new Array(words.length);
  for (let i = 0, next = 0; i < words.length; i++) {
    const word = words[i], slot = word >>> 2;
    if (word & 1) {
      const doc = (data[i] = fresh[next++]);
      if (word & 2) {
        const copier = copierOf(doc);
        docs[slot] = copier(doc);
        copiers[slot] = copier;
      }
    } else data[i] = copiers[slot](docs[slot]);
  }
  answer.data = data;
  return answer;
}

/** How many stores (the cache's variants) JavaScript holds documents of. */
const MAX_HOLDERS = 8;

/** A copy of a value `JSON.parse` gave: new objects and arrays, the same keys in the same order. */
function copy(value) {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const n = value.length, out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = copy(value[i]);
    return out;
  }
  const out = {};
  for (const key of Object.keys(value)) {
    // Defined, as JSON.parse does, where assigning would meet the prototype
    // (`__proto__`'s setter, or a property frozen there).
    if (key in out) Object.defineProperty(out, key, { value: copy(value[key]), writable: true, enumerable: true, configurable: true });
    else out[key] = copy(value[key]);
  }
  return out;
}

// A copy by object literals is several times faster than `copy`: a function
// for each shape of document held (its objects' keys), written once with
// `new Function`. Keys are written as JSON string literals, so no text of a
// document is ever code. Where the runtime forbids `new Function` (a
// Content-Security-Policy without 'unsafe-eval', some workers), and past
// `MAX_COPIERS` shapes or `MAX_SOURCE` characters, `copy` does the work.
const copiers = new Map();
const MAX_COPIERS = 256;
const MAX_SOURCE = 2048;
let compiles = true;

/** A function that copies `value` and values of its shape. */
function copierOf(value) {
  if (!compiles || typeof value !== "object" || value === null || Array.isArray(value)) return copy;
  const source = literal(value, "t");
  let copier = copiers.get(source);
  if (copier === undefined) {
    if (copiers.size >= MAX_COPIERS || source.length > MAX_SOURCE) return copy;
    try {
      copier = new Function("c", `"use strict";return t=>(${source})`)(copy);
    } catch {
      compiles = false;
      return copy;
    }
    copiers.set(source, copier);
  }
  return copier;
}

/** An expression copying `value` (read at `at`): objects as literals, arrays by `c`. */
function literal(value, at) {
  if (typeof value !== "object" || value === null) return at;
  if (Array.isArray(value)) return `c(${at})`;
  let source = "{";
  for (const key of Object.keys(value)) {
    const name = JSON.stringify(key);
    // `__proto__: v` in a literal would set the prototype: a computed key defines the property.
    source += `${key === "__proto__" ? `[${name}]` : name}:${literal(value[key], `${at}[${name}]`)},`;
  }
  return source + "}";
}
