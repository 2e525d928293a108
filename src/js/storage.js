// Storage adapters of the offline cache. A storage is any object with:
//
//   load(): Promise<Array<[key: string, value: string]>>   every entry
//   loadEach?(onEntry: (key, value) => void): Promise<void>
//                                          optional: every entry, handed
//                                          over as it is read (preferred)
//   write(puts: Array<[string, string]>, deletes: string[]): Promise<void>
//                                                           all or nothing
//   clear(): Promise<void>
//
// Values are JSON text written by the wasm module; keys and values never
// contain the API key.

/** Entries in memory: the default in Node, and for tests. */
export class MemoryStorage {
  constructor() {
    this.entries = new Map();
  }
  async load() {
    return [...this.entries];
  }
  async write(puts, deletes) {
    for (const key of deletes) this.entries.delete(key);
    for (const [key, value] of puts) this.entries.set(key, value);
  }
  async clear() {
    this.entries.clear();
  }
}

const STORE = "entries";
const utf8 = new TextEncoder();

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Entries in the browser's IndexedDB: one database per repository. */
export class IndexedDbStorage {
  constructor(name) {
    this.name = name;
    this.db = null;
    // Calls under way, and whether the client is gone (then the connection
    // is closed whenever none is under way).
    this.busy = 0;
    this.closing = false;
  }
  /**
   * The client is gone (freed, or collected): its connection is closed once
   * no call is under way. A call of the client still in flight opens it again
   * when it writes, and closes it after.
   */
  close() {
    this.closing = true;
    if (this.busy === 0) this.shut();
  }
  shut() {
    const db = this.db;
    this.db = null;
    db?.close();
  }
  /** `work()`, counted as under way. */
  async using(work) {
    this.busy++;
    try {
      return await work();
    } finally {
      if (--this.busy === 0 && this.closing) this.shut();
    }
  }
  async open() {
    if (this.db) return this.db;
    if (typeof indexedDB === "undefined") throw new Error("IndexedDB is not available here");
    const req = indexedDB.open(this.name, 1);
    req.onupgradeneeded = () => {
      if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE);
    };
    const db = await request(req);
    this.db = db;
    // Another tab upgrading the database closes ours cleanly; the browser
    // closes it when the site's data is cleared. The next call opens it again.
    const forget = () => {
      if (this.db === db) this.db = null;
    };
    db.onversionchange = () => {
      db.close();
      forget();
    };
    db.onclose = forget;
    // Opened for a call that gave up waiting (an aborted write) after the
    // client was gone: closed again, and nothing is opened a second time.
    if (this.closing && this.busy === 0) {
      this.shut();
      throw new Error("the client is gone");
    }
    return db;
  }
  /** A transaction on the entries; a connection found closing is opened again, once. */
  async transaction(mode) {
    for (let attempt = 0; ; attempt++) {
      const db = await this.open();
      try {
        return db.transaction(STORE, mode);
      } catch (error) {
        if (attempt > 0 || !error || error.name !== "InvalidStateError") throw error;
        if (this.db === db) this.db = null;
      }
    }
  }
  load() {
    return this.using(async () => {
      const tx = await this.transaction("readonly");
      const store = tx.objectStore(STORE);
      const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
      return keys.map((key, i) => [String(key), values[i]]);
    });
  }
  loadEach(onEntry) {
    return this.using(async () => {
      const store = (await this.transaction("readonly")).objectStore(STORE);
      const keys = await request(store.getAllKeys());
      // Every value is asked for at once: IndexedDB reads the next ones while
      // the module reads the one handed over.
      const values = keys.map((key) => request(store.get(key)));
      for (let i = 0; i < keys.length; i++) {
        const value = await values[i];
        values[i] = null;
        onEntry(String(keys[i]), value);
      }
    });
  }
  write(puts, deletes, signal) {
    return this.using(async () => {
      const tx = await unlessAborted(this.transaction("readwrite"), signal);
      const store = tx.objectStore(STORE);
      for (const key of deletes) store.delete(key);
      // Texts are kept as UTF-8 bytes: half the bytes of a string with any
      // character beyond Latin-1, and read back without decoding.
      for (const [key, value] of puts) store.put(typeof value === "string" ? utf8.encode(value) : value, key);
      await settle(tx, signal);
    });
  }
  clear(signal) {
    return this.using(async () => {
      const tx = await unlessAborted(this.transaction("readwrite"), signal);
      tx.objectStore(STORE).clear();
      await settle(tx, signal);
    });
  }
}

// The storages of this module take a signal as the last argument of a
// write or clear, which the cache aborts when the call does not settle in
// time; a storage of the app's own is called as documented, without it.
const SIGNAL = Symbol("content-repo.signal");
IndexedDbStorage.prototype[SIGNAL] = true;

/**
 * `promise` (a transaction, while the database opens), or a rejection as
 * soon as `signal` aborts: nothing was written.
 */
function unlessAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const stop = () => reject(new Error("the cache write was aborted"));
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

/**
 * The end of a write transaction; `signal` (the cache's, aborted when the
 * call takes longer than its `timeoutMs`) aborts it, unless it is already
 * committing: then it settles as committed, which the cache waits for.
 */
async function settle(tx, signal) {
  const abort = () => {
    try {
      tx.abort();
    } catch {
      // Already committing or finished: it settles as it ends.
    }
  };
  const done = new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = (event) => reject(event?.target?.error ?? tx.error ?? new Error("the cache write failed"));
    tx.onabort = () => reject(tx.error ?? new Error("the cache write was aborted"));
  });
  if (signal) {
    if (signal.aborted) abort();
    else signal.addEventListener("abort", abort, { once: true });
  }
  try {
    await done;
  } finally {
    if (signal) signal.removeEventListener("abort", abort);
  }
}

/** The storage for `kind` ("indexeddb" | "memory"), or `kind` itself when it is a storage object. */
export function makeStorage(kind, name) {
  if (kind === "memory") return new MemoryStorage();
  if (kind === "indexeddb") return new IndexedDbStorage(name);
  return kind;
}

/** Whether this environment has IndexedDB (the browser default). */
export function hasIndexedDb() {
  return typeof indexedDB !== "undefined";
}

/** Whether the runtime says it is online (`navigator.onLine`); true where it does not say. */
export function isOnline() {
  return !(typeof navigator === "object" && navigator !== null && navigator.onLine === false);
}

/** Calls `callback` on the runtime's `online` event; returns a function that stops it. */
export function onReconnect(callback) {
  const target = typeof globalThis.addEventListener === "function" ? globalThis : null;
  if (!target) return undefined;
  target.addEventListener("online", callback);
  return () => target.removeEventListener("online", callback);
}

/** The longest delay `setTimeout` honours (2^31 - 1 ms); longer ones fire at once. */
export const MAX_TIMER_MS = 2147483647;

/** `[true, value]` when `value` (a promise or not) settles within `ms` (0: no bound), `[false]` after; rejects as it rejects. */
export function settleWithin(value, ms) {
  const settled = Promise.resolve(value).then((result) => [true, result]);
  if (!(ms > 0)) return settled;
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve([false]), Math.min(ms, MAX_TIMER_MS));
  });
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}

/** A random string naming this cache among the tabs that share one storage. */
export function sessionId() {
  const bytes = new Uint8Array(8);
  if (typeof crypto === "object" && crypto && typeof crypto.getRandomValues === "function") {
    crypto.getRandomValues(bytes);
  } else {
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  }
  return Date.now().toString(36) + "-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Reads every stored entry into `onEntry(key, text)` (the cache's), each
 * `[key, text]` pair as it is read: storage's `loadEach` when it has one,
 * its `load()` otherwise. Returns `callStorage`'s outcome, with the number
 * of items that were not such pairs as the value; nothing is handed over
 * once the outcome is known (a late storage).
 */
export async function loadStorage(storage, onEntry, ms) {
  let open = true;
  let bad = 0;
  const take = (key, value) => {
    if (typeof key === "string" && (typeof value === "string" || isBytes(value))) {
      if (open) onEntry(key, typeof value === "string" ? value : plainBytes(value));
    } else bad++;
  };
  // The storage's `loadEach` when it has one ([3]: it has not), `load()` otherwise.
  let outcome = await callStorage(storage, "loadEach", [take], ms);
  if (outcome[0] === 3) {
    outcome = await callStorage(storage, "load", [], ms);
    const entries = outcome[0] === 0 ? outcome[1] : null;
    try {
      if (entries != null && typeof entries[Symbol.iterator] !== "function") bad++;
      else if (entries != null) for (const entry of entries) Array.isArray(entry) ? take(entry[0], entry[1]) : bad++;
    } catch (error) {
      // Entries that throw as they are read (an iterator, a getter): the
      // load failed, as when load() throws.
      outcome = [1, stringField(error, "message"), stringField(error, "name"), error];
    }
  }
  open = false;
  return outcome[0] === 0 ? [0, bad] : outcome;
}

// The name a typed array has by its internal slot (`undefined` for anything
// else, a Proxy included): no getter or trap of the value runs.
const typedArrayName = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;

const typedArrayBytes = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "byteLength").get;

/**
 * Whether `value` is a Uint8Array with bytes to read, by its internal slots:
 * a detached or out-of-bounds view (0 bytes, and which throws when it is
 * copied) is none.
 */
const isBytes = (value) => typedArrayName.call(value) === "Uint8Array" && typedArrayBytes.call(value) > 0;

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Bytes the module can read without running a getter of theirs (it reads
 * them without catching): as they are when they are a plain Uint8Array, a
 * copy (made from the internal slots) when a subclass or an own property
 * could answer `length` or `buffer` otherwise.
 */
const plainBytes = (value) =>
  Object.getPrototypeOf(value) === Uint8Array.prototype && !hasOwn.call(value, "length") ? value : new Uint8Array(value);

/** A string property of `value`, or undefined (also when reading it throws). */
function stringField(value, key) {
  try {
    const field = Reflect.get(value, key);
    return typeof field === "string" ? field : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `storage[method](...args)`, awaited for at most `ms` (0: no bound):
 * `[0, value]`; `[1, message, name, error]` when it throws or rejects
 * (`message` and `name` when they are strings); `[2]` when it does not
 * settle in time; `[3]` when the storage has no such method.
 */
export async function callStorage(storage, method, args, ms) {
  let fn;
  let told = false;
  try {
    fn = typeof storage === "object" && storage !== null ? Reflect.get(storage, method) : undefined;
    told = (method === "write" || method === "clear") && Reflect.get(storage, SIGNAL) === true;
  } catch {
    fn = undefined;
  }
  if (typeof fn !== "function") return [3];
  // A write or clear of a storage of this module gets a signal as the last
  // argument, aborted when the call does not settle in time; it then
  // settles as it ends (at once when aborted, or once committed when it was
  // committing), and the cache takes that outcome: memory and storage agree.
  const timeout = told && typeof AbortController === "function" ? new AbortController() : null;
  let promise;
  try {
    promise = Promise.resolve(Reflect.apply(fn, storage, timeout ? [...args, timeout.signal] : args));
    const [settled, value] = await settleWithin(promise, ms);
    if (settled || !timeout) return settled ? [0, value] : [2];
  } catch (error) {
    return [1, stringField(error, "message"), stringField(error, "name"), error];
  }
  timeout.abort();
  try {
    // (A commit under way ends in its own time; bounded all the same.)
    const [settled, value] = await settleWithin(promise, Math.max(10 * ms, 10_000));
    return settled ? [0, value] : [2];
  } catch {
    // Aborted: nothing was written.
    return [2];
  }
}

/** Reports a cache failure to `onError` (what it throws is ignored), or on the console without one. */
export function report(onError, error) {
  if (onError !== undefined) {
    try {
      Reflect.apply(onError, undefined, [error]);
    } catch {
      // The callback's own failure is not the cache's.
    }
  } else {
    try {
      console.warn("content-repo cache:", error);
    } catch {
      // A console that throws (a test's "no output" rule) is not the cache's failure.
    }
  }
}

/** `{ value, done }` of an iterator: done when there is no value. */
export function iteration(value) {
  return { value, done: value === undefined };
}

/**
 * `all`'s answer from its pages, each the objects the cache made of it or
 * the text the service sent: `{ data, meta }` with the `count` documents
 * from `offset`; undefined unless the pages hold `count` documents and
 * nothing but `data` and `meta`, in that order.
 */
export function gather(parts, count, offset) {
  const data = [];
  for (const part of parts) {
    const envelope = typeof part === "string" ? JSON.parse(part) : part;
    const page = envelope?.data;
    if (!Array.isArray(page)) return undefined;
    // Other keys (`includes`, ...) or another order: the module's text,
    // which merges them, is the answer.
    const keys = Object.keys(envelope);
    if (keys[0] !== "data" || keys.length > 2 || (keys.length === 2 && keys[1] !== "meta")) return undefined;
    for (let i = 0; i < page.length; i++) data.push(page[i]);
  }
  return data.length === count ? { data, meta: { count, limit: count, offset, total: offset + count } } : undefined;
}

/**
 * Parses a result's JSON text (or takes the objects it was made into) and
 * defines its non-enumerable `source` (`"cache"` when `cached`, else
 * `"network"`: `Source` in src/client/request.rs), `stale` and `cachedAt`.
 */
export function markSource(text, cached, stale, cachedAt) {
  const value = typeof text === "string" ? JSON.parse(text) : text;
  const source = cached ? "cache" : "network";
  if (value !== null && typeof value === "object") {
    Object.defineProperty(value, "source", { value: source, enumerable: false, configurable: true });
    Object.defineProperty(value, "stale", { value: stale, enumerable: false, configurable: true });
    Object.defineProperty(value, "cachedAt", { value: cachedAt, enumerable: false, configurable: true });
  }
  return value;
}
