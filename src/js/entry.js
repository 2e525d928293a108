// The package's API module, shared by its entries (scripts/entries.mjs writes
// it as pkg/web/api.js and pkg/node/api.js, filling in what it reads from the
// wasm-bindgen glue beside it: the export names and parameter names).
//
// It exports the glue's classes and functions behind one guard, generated
// here from whatever the glue exports, never from a hand-written list:
//
// - before the module is ready, every synchronous call throws
//   `not_initialized`, saying what to await;
// - a method's `this` must be a live object of that very class (a `Query`
//   method called on a `DocumentStore` would read the wrong memory);
// - an argument that is one of the package's objects must be live: a freed
//   `Query` passed to `store.query` would otherwise leave the store unusable.
//   The call throws `invalid_argument` naming the argument instead, and the
//   receiving object keeps working.
//
// The Query setters are chainable: a setter returns the very query it was
// called on, so `q.sort(a); q.sort(b)` and `new Query().sort(a).sort(b)` both
// work and `q.limit(5) === q`. `client.pages(...)` is an async iterator.
import * as glue from "./content_repo.js";
import { makeError, ContentRepoError } from "__SNIPPET__";
export { ContentRepoError };

/**
 * Every function, method (`Class.prototype.name`), static (`Class.name`) and
 * constructor (`new Class`) of the glue: its parameter names (a `[name,
 * Class]` pair is a parameter that must be an instance of `Class`), and
 * whether it returns a promise (then the guard rejects rather than throws).
 */
const SIGNATURES = __SIGNATURES__;

// The web glue exports its loader (`default`, `initSync`); the Node glue has
// instantiated the module already, on import.
const LOADER_NAMES = new Set(["default", "initSync"]);
const load = typeof glue.default === "function" ? glue.default : undefined;

// ---------------------------------------------------------------- readiness

let isReady = load === undefined;
let attempt; // the promise of the latest init(), pending or rejected
let failure; // why it was rejected
let resolveReady;
const whenReady = new Promise((resolve) => {
  resolveReady = resolve;
});
if (isReady) resolveReady();

/**
 * Resolves once the module is ready (at once in Node); rejects with the
 * loading error if the latest attempt failed.
 */
export function ready() {
  return isReady ? whenReady : (attempt ?? whenReady);
}

/**
 * Loads the module from `input`: a URL or string (fetched), a `Response`,
 * bytes, a compiled `WebAssembly.Module`, or a promise of one of these.
 * Later calls return the same promise; after a failure, a call with an input
 * tries again.
 */
export function init(input) {
  if (isReady) return whenReady;
  if (attempt !== undefined && failure === undefined) return attempt;
  if (input === undefined) {
    return (
      attempt ??
      Promise.reject(
        makeError(
          "invalid_argument",
          "init(input): pass the module: its URL (`import wasmUrl from \"content-repo/wasm\"` with your bundler), " +
            "a Response, its bytes or a WebAssembly.Module",
          {},
        ),
      )
    );
  }
  failure = undefined;
  attempt = load({ module_or_path: keptInWorker(input) }).then(
    () => {
      isReady = true;
      resolveReady();
    },
    (error) => {
      failure = loadingError(error);
      throw failure;
    },
  );
  return attempt;
}

// This build's module, by name: `{version}+{digest}` (scripts/entries.mjs
// fills it in).
const BUILD = "__WASM_BUILD__";

/**
 * Whether the build named `build` is to be replaced by this one: of an
 * earlier version, or of this version and another digest (a build of the
 * same version in development).
 */
function older(build) {
  const numbers = (name) => name.split("+")[0].split(/[.-]/).map(Number);
  const [theirs, ours] = [numbers(build), numbers(BUILD)];
  for (let i = 0; i < 3; i++) {
    if (theirs[i] !== ours[i]) return theirs[i] < ours[i];
  }
  return build !== BUILD;
}

/**
 * In a service worker, the module fetched by URL is kept in Cache Storage
 * (cache `content-repo-module`, under its URL and this build's name; the
 * entry of an older build for the same URL goes, nothing else), and a worker
 * started offline loads it from there. Elsewhere, or for any other input,
 * `input` itself.
 */
function keptInWorker(input) {
  const worker = typeof ServiceWorkerGlobalScope === "function" && globalThis instanceof ServiceWorkerGlobalScope;
  if (!worker || typeof caches !== "object" || !(input instanceof URL || typeof input === "string")) return input;
  const url = new URL(input, globalThis.location.href);
  // `href` of `url` with the build named `build` (none: `null`).
  const named = (url, build) => {
    const out = new URL(url);
    out.searchParams.delete("content-repo");
    if (build !== null) out.searchParams.set("content-repo", build);
    return out.href;
  };
  const key = named(url, BUILD);
  return (async () => {
    const cache = await caches.open("content-repo-module").catch(() => undefined);
    try {
      const response = await fetch(url);
      if (response.ok && cache) {
        await cache.put(key, response.clone()).catch(() => {});
        for (const old of await cache.keys().catch(() => [])) {
          const build = new URL(old.url).searchParams.get("content-repo");
          if (build !== null && older(build) && named(old.url, null) === named(url, null)) {
            cache.delete(old).catch(() => {});
          }
        }
      }
      return response;
    } catch (error) {
      const kept = await cache?.match(key).catch(() => undefined);
      if (kept) return kept;
      throw error;
    }
  })();
}

/**
 * The error of a failed load: a ContentRepoError (`decode` for bytes that
 * are not the module, `network` otherwise) whose `cause` is the loader's.
 */
function loadingError(error) {
  if (error instanceof ContentRepoError) return error;
  const invalid = error instanceof WebAssembly.CompileError || error instanceof WebAssembly.LinkError;
  const message = `loading the WebAssembly module failed: ${error?.message ?? error}`;
  return makeError(invalid ? "decode" : "network", message, { cause: error });
}

function notInitialized(where) {
  let message =
    `${where}: content-repo is not initialised yet: \`await ready()\` first ` +
    "(with content-repo/slim, `await init(...)` first)";
  if (failure !== undefined) message += `; ${failure.message}`;
  else if (attempt === undefined) message += "; init() has not been called";
  return makeError("not_initialized", message, {});
}

// ------------------------------------------------------------------- guards

/** The package's classes (the glue's originals) and their names. */
const classes = new Map();
for (const [name, value] of Object.entries(glue)) {
  if (LOADER_NAMES.has(name)) continue;
  if (typeof value === "function" && typeof value.prototype?.__destroy_into_raw === "function") {
    classes.set(value, name);
  }
}

/**
 * Every object the glue created, with its class: a method's `this` and
 * object arguments are checked against it, so a forged or re-prototyped
 * object never reaches the module.
 */
const brands = new WeakMap();

const invalid = (message) => makeError("invalid_argument", message, {});

function describe(value) {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  const cls = brands.get(value);
  if (cls !== undefined) return `a ${value.__wbg_ptr === 0 ? "freed " : ""}${classes.get(cls)}`;
  try {
    if (Array.isArray(value)) return "an array";
  } catch {
    return "a revoked Proxy";
  }
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

// ------------------------------------------------------------- entering it

/**
 * The package's objects inside a call of the module (its receiver and its
 * object arguments), each with how many calls hold it: a call made on one
 * from the caller's code that the module runs meanwhile (a getter, a Proxy
 * trap, `toJSON`) finds it borrowed, and `free()` must wait.
 */
const busy = new Map();

const ours = (value) => value !== null && typeof value === "object" && brands.has(value);

function hold(object) {
  busy.set(object, (busy.get(object) ?? 0) + 1);
}

function release(object) {
  const count = busy.get(object) - 1;
  if (count > 0) busy.set(object, count);
  else busy.delete(object);
}

// The glue's own errors for an object already inside a call.
const BORROWED = /recursive use of an object|while it was borrowed/;

/**
 * `fn.apply(self, args)`, its objects held meanwhile; the glue's error for
 * an object already inside a call becomes `invalid_argument` (`where`
 * names the call, `params` its parameters).
 */
function enter(fn, self, args, where, params, runsCallerCode = true) {
  // A getter runs none of the caller's code: nothing can call back in.
  const own = runsCallerCode && ours(self);
  let held = 0;
  if (own) hold(self);
  for (let i = 0; i < args.length; i++) {
    if (ours(args[i])) {
      hold(args[i]);
      held++;
    }
  }
  try {
    return fn.apply(self, args);
  } catch (error) {
    if (!(error instanceof ContentRepoError) && BORROWED.test(errorMessage(error))) {
      throw invalid(`${where}: ${inUse(self, args, params)} is in use by a call that has not returned (a getter, Proxy trap or toJSON of yours called it during that call)`);
    }
    throw error;
  } finally {
    if (own) release(self);
    for (let i = 0; held > 0 && i < args.length; i++) {
      if (ours(args[i])) {
        release(args[i]);
        held--;
      }
    }
  }
}

/** Which of a call's objects another call holds, named. */
function inUse(self, args, params) {
  const name = (value) => classes.get(brands.get(value));
  // Held by this call too: another holds it when it is held twice.
  const index = args.findIndex((arg) => ours(arg) && busy.get(arg) > 1);
  if (index >= 0 && !(ours(self) && busy.get(self) > 1)) {
    const param = params?.[index];
    return `${Array.isArray(param) ? param[0] : (param ?? `argument ${index + 1}`)} (a ${name(args[index])})`;
  }
  return ours(self) ? `this ${name(self)}` : "an object of content-repo";
}

function errorMessage(error) {
  try {
    return error instanceof Error ? String(error.message) : "";
  } catch {
    return "";
  }
}

function checkThis(self, cls, where) {
  const brand = self !== null && (typeof self === "object" || typeof self === "function") ? brands.get(self) : undefined;
  if (brand === cls) {
    if (self.__wbg_ptr !== 0) return true;
    return false;
  }
  throw invalid(`this: ${where} was called on ${describe(self)}, not on a ${classes.get(cls)}`);
}

function freedThis(cls, where) {
  const name = classes.get(cls);
  return invalid(`this: this ${name} was freed (${where}); it cannot be used after .free()`);
}

/** Any argument that is (or claims to be) one of the package's objects must be live. */
function checkArgs(args, signature, where) {
  const params = signature?.params;
  const count = Math.max(args.length, params?.length ?? 0);
  for (let i = 0; i < count; i++) {
    const arg = args[i];
    const param = params?.[i];
    const [name, expected] = Array.isArray(param) ? param : [param ?? `argument ${i + 1}`, undefined];
    const isObject = arg !== null && (typeof arg === "object" || typeof arg === "function");
    const cls = isObject ? brands.get(arg) : undefined;
    if (cls !== undefined) {
      if (arg.__wbg_ptr === 0) {
        throw invalid(`${name}: this ${classes.get(cls)} was freed (${where}); it cannot be used after .free()`);
      }
      if (expected !== undefined && classes.get(cls) !== expected) {
        throw invalid(`${name}: expected a ${expected}, got ${describe(arg)} (${where})`);
      }
      // A query crosses as its query string (which the module keeps once
      // written), not as an object the module would have to ask for it.
      if (name === "query" && cls === glue.Query) args[i] = arg.toString();
      continue;
    }
    if (expected !== undefined) throw invalid(`${name}: expected a ${expected}, got ${describe(arg)} (${where})`);
    if (isObject && claimsToBeOurs(arg)) {
      throw invalid(`${name}: not a live object of content-repo (${where}); it was not created by the SDK`);
    }
  }
}

function claimsToBeOurs(value) {
  try {
    if ("__wbg_ptr" in value) return true;
    for (const cls of classes.keys()) if (value instanceof cls) return true;
  } catch {
    // A revoked Proxy: the module reads it (its reads are caught) and says so.
  }
  return false;
}

/** A guard's error: thrown, or a rejected promise where the call returns one. */
const fail = (signature, error) => {
  if (signature?.promise) return Promise.reject(error);
  throw error;
};

function guardFunction(name, fn) {
  const signature = SIGNATURES[name];
  return {
    [name](...args) {
      if (!isReady) return fail(signature, notInitialized(`${name}()`));
      try {
        checkArgs(args, signature, `${name}()`);
        return enter(fn, this, args, `${name}()`, signature?.params);
      } catch (error) {
        return fail(signature, error);
      }
    },
  }[name];
}

function guardMethod(cls, key, fn, chainable) {
  const name = classes.get(cls);
  const label = typeof key === "symbol" ? `[${key.description}]` : key;
  const where = `${name}.prototype.${label}`;
  const signature = SIGNATURES[where];
  return {
    [label](...args) {
      if (!isReady) return fail(signature, notInitialized(where));
      let result;
      try {
        if (!checkThis(this, cls, where)) throw freedThis(cls, where);
        checkArgs(args, signature, where);
        result = enter(fn, this, args, where, signature?.params);
      } catch (error) {
        return fail(signature, error);
      }
      return chainable && result === undefined ? this : result;
    },
  }[label];
}

function guardFree(cls, key, fn) {
  const name = classes.get(cls);
  const label = typeof key === "symbol" ? `[${key.description}]` : key;
  const where = `${name}.prototype.${label}`;
  return {
    // Freeing twice does nothing (the first call released the memory).
    [label]() {
      if (!isReady) throw notInitialized(where);
      if (!checkThis(this, cls, where)) return;
      if (busy.has(this)) {
        throw invalid(`${where}: this ${name} is in use by a call that has not returned (a getter, Proxy trap or toJSON of yours called free() during that call); free it after the call`);
      }
      enter(fn, this, [], where);
    },
  }[label];
}

function guardAccessor(cls, key, descriptor) {
  const name = classes.get(cls);
  const where = `${name}.prototype.${String(key)}`;
  const guarded = { ...descriptor };
  if (descriptor.get) {
    const get = descriptor.get;
    guarded.get = {
      [key]() {
        if (!isReady) throw notInitialized(where);
        if (!checkThis(this, cls, where)) throw freedThis(cls, where);
        return enter(get, this, [], where, undefined, false);
      },
    }[key];
  }
  if (descriptor.set) {
    const set = descriptor.set;
    guarded.set = {
      [key](value) {
        if (!isReady) throw notInitialized(where);
        if (!checkThis(this, cls, where)) throw freedThis(cls, where);
        checkArgs([value], SIGNATURES[where], where);
        enter(set, this, [value], where, SIGNATURES[where]?.params);
      },
    }[key];
  }
  return guarded;
}

function guardClass(cls) {
  const name = classes.get(cls);
  const proto = cls.prototype;
  const free = proto.free;
  const chainable = name === "Query";
  for (const key of Reflect.ownKeys(proto)) {
    if (key === "constructor") continue;
    const descriptor = Object.getOwnPropertyDescriptor(proto, key);
    if (typeof descriptor.value === "function") {
      const value =
        descriptor.value === free
          ? guardFree(cls, key, descriptor.value)
          : guardMethod(cls, key, descriptor.value, chainable && key !== "free");
      Object.defineProperty(proto, key, { ...descriptor, value });
    } else if (descriptor.get || descriptor.set) {
      Object.defineProperty(proto, key, guardAccessor(cls, key, descriptor));
    }
  }
  for (const key of Reflect.ownKeys(cls)) {
    if (key === "length" || key === "name" || key === "prototype") continue;
    const descriptor = Object.getOwnPropertyDescriptor(cls, key);
    if (typeof descriptor.value !== "function") continue;
    const fn = descriptor.value;
    let value;
    if (key === "__wrap") {
      // How the glue makes an object of a pointer the module returned.
      value = function __wrap(ptr) {
        const object = fn.call(this, ptr);
        brands.set(object, cls);
        return object;
      };
    } else {
      const where = `${name}.${String(key)}`;
      const signature = SIGNATURES[where];
      value = {
        [key](...args) {
          if (!isReady) return fail(signature, notInitialized(where));
          try {
            checkArgs(args, signature, where);
            return enter(fn, this, args, where, signature?.params);
          } catch (error) {
            return fail(signature, error);
          }
        },
      }[key];
    }
    Object.defineProperty(cls, key, { ...descriptor, value });
  }
  const where = `new ${name}()`;
  const signature = SIGNATURES[`new ${name}`];
  const guarded = new Proxy(cls, {
    construct(target, args, newTarget) {
      if (!isReady) throw notInitialized(where);
      checkArgs(args, signature, where);
      const object = enter(Reflect.construct, Reflect, [target, args, newTarget === guarded ? target : newTarget], where);
      if (typeof object.__wbg_ptr !== "number" || object.__wbg_ptr === 0) {
        throw invalid(`${where}: ${name} objects come from the SDK, not from \`new\``);
      }
      brands.set(object, target);
      return object;
    },
  });
  Object.defineProperty(proto, "constructor", { value: guarded, writable: true, configurable: true, enumerable: false });
  return guarded;
}

const api = {};
for (const [name, value] of Object.entries(glue)) {
  if (LOADER_NAMES.has(name)) continue;
  // A name starting with `_` is the module's own (the tasks that
  // src/js/client.js performs): not guarded, and not exported.
  if (name.startsWith("_")) continue;
  if (classes.has(value)) {
    // The browser build's bundle declares `var Query = class _Query`: the
    // class is named as it is exported (scripts/entries.mjs).
    Object.defineProperty(value, "name", { value: name });
    api[name] = guardClass(value);
  }
  else if (typeof value === "function") api[name] = guardFunction(name, value);
  else api[name] = value;
}

// The browser build is minified, local names too: the entry's own exports
// are named as exported, as the glue's classes are above.
for (const [name, value] of Object.entries({ ContentRepoError, ready, init })) {
  Object.defineProperty(value, "name", { value: name });
}

// `client.cache` is one object per client (`client.cache === client.cache`),
// as a property is: the glue's getter makes a new wrapper on each read.
if (api.Client) {
  const proto = api.Client.prototype;
  const { get, ...rest } = Object.getOwnPropertyDescriptor(proto, "cache");
  const made = new WeakMap();
  Object.defineProperty(proto, "cache", {
    ...rest,
    get: {
      cache() {
        // A freed client's read fails in the guarded getter, as before; a
        // freed cache object is made again (the cache itself lives on).
        // A client without a cache has `undefined`, read as often as asked.
        const held = made.get(this);
        if (!made.has(this) || this.__wbg_ptr === 0 || (held !== undefined && held.__wbg_ptr === 0)) made.set(this, get.call(this));
        return made.get(this);
      },
    }.cache,
  });
}

// `client.pages(...)` is an async iterator: `for await (const page of ...)`.
// Like an async generator's, its calls run one after the other: two `next()`
// made at once give two pages, not the same one twice.
if (api.Pages) {
  const proto = api.Pages.prototype, queues = new WeakMap();
  proto[Symbol.asyncIterator] = function () {
    return this;
  };
  for (const name of ["next", "return"]) {
    const method = proto[name];
    proto[name] = {
      [name]() {
        const turn = (queues.get(this) ?? Promise.resolve()).then(() => method.call(this));
        queues.set(this, turn.catch(() => {}));
        return turn;
      },
    }[name];
  }
}

__EXPORTS__
