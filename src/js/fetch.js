// The I/O of a request (src/wasm/fetch.rs): one `fetch` read defensively, the
// timers, and what stops a call. What to do with the outcome (retry, wait,
// which error) is decided in Rust (src/http/call.rs).
//
// An injected `fetch` is untrusted: it may throw, resolve to anything or to
// nothing, reject with anything, never settle, or ignore its abort signal; so
// may the response's `status`, `headers.get` and `text`. Every value it gives
// is read inside `try`, checked by type, and awaited (a thenable that throws,
// or a plain value, becomes a failure or a value): `send` never rejects.

/** The longest delay `setTimeout` honours (2^31 - 1 ms); longer ones fire at once. */
const MAX_TIMER_MS = 2147483647;

const delay = (ms) => Math.min(Math.max(ms, 0), MAX_TIMER_MS);

/** What kind of value `value` is, reading nothing of it (a revoked Proxy included). */
function kind(value) {
  if (value === null) return "null";
  const type = typeof value;
  if (type === "undefined") return "undefined";
  return type === "object" ? "an object" : `a ${type}`;
}

/** `value[key]` for an object or a function; undefined otherwise and when a getter or a trap throws. */
function field(value, key) {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return undefined;
  try {
    return Reflect.get(value, key);
  } catch {
    return undefined;
  }
}

/** A readable description of a thrown or rejected value, whatever it is. */
function errorText(error) {
  let message = field(error, "message");
  if (typeof message !== "string") message = typeof error === "string" ? error : `failed with ${kind(error)}, not an Error`;
  const code = field(field(error, "cause"), "code");
  return typeof code === "string" ? `${message} (${code})` : message;
}

/** A number as Rust writes it in a message. */
function number(value) {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity || value === -Infinity) return value > 0 ? "inf" : "-inf";
  return Object.is(value, -0) ? "-0" : String(value);
}

/**
 * One GET of `url` with `fetch` (the global one when undefined), read as a
 * Response: `[status, retryAfter, body]` for a response with an integer status
 * from 100 to 599, a `headers.get` and a `text()` that gives a string;
 * `[0, message]` for anything else (the message says what was wrong).
 */
export async function send(fetch, url, authorization, signal) {
  const init = { method: "GET", headers: { Authorization: authorization, Accept: "application/json" }, signal };
  let response;
  try {
    response = await Reflect.apply(fetch, globalThis, [url, init]);
  } catch (error) {
    return [0, errorText(error)];
  }
  if (typeof response !== "object" || response === null) return [0, `fetch resolved to ${kind(response)}, not a Response`];
  let status;
  try {
    status = Reflect.get(response, "status");
  } catch (error) {
    return [0, `reading the response's status failed: ${errorText(error)}`];
  }
  if (typeof status !== "number") return [0, `the response's status is ${kind(status)}, not a number`];
  if (!Number.isInteger(status) || status < 100 || status > 599) return [0, `the response's status is ${number(status)}, not an HTTP status`];
  const headers = field(response, "headers");
  const get = field(headers, "get");
  if (typeof get !== "function") return [0, "the response has no headers.get function"];
  let retryAfter;
  try {
    retryAfter = Reflect.apply(get, headers, ["Retry-After"]);
  } catch (error) {
    return [0, `response.headers.get failed: ${errorText(error)}`];
  }
  const text = field(response, "text");
  if (typeof text !== "function") return [0, "the response has no text function"];
  let body;
  try {
    body = await Reflect.apply(text, response, []);
  } catch (error) {
    return [0, `reading the response body failed: ${errorText(error)}`];
  }
  if (typeof body !== "string") return [0, `response.text() gave ${kind(body)}, not a string`];
  return [status, typeof retryAfter === "string" ? retryAfter : undefined, body];
}

/** The global `fetch`, or undefined where there is none. */
export function globalFetch() {
  const fetch = field(globalThis, "fetch");
  return typeof fetch === "function" ? fetch : undefined;
}

/** `work`, raced against a timer of `ms` when given (then it settles after `ms` at the latest). */
export function within(work, ms) {
  if (ms === undefined) return work;
  return Promise.race([work, new Promise((resolve) => setTimeout(resolve, delay(ms)))]);
}

/**
 * What ends a call early: its deadline (`timeoutMs`, 0: none) or the caller's
 * signal, whichever comes first. Firing it aborts `signal` (given to `fetch`)
 * and ends every `run` at once, whether or not `fetch` listened. `dispose()`
 * clears its timers and listener.
 */
export class Stop {
  constructor(timeoutMs, caller) {
    this.controller = new AbortController();
    this.signal = this.controller.signal;
    this.reason = undefined;
    // Rejected (with the reason) before the fetch's signal is aborted, so
    // that a stopped call ends with its reason, never with the abort error
    // of a fetch that listened.
    this.stopped = new Promise((_, reject) => {
      this.fire = (reason) => {
        if (this.reason !== undefined) return;
        this.reason = reason;
        reject(reason);
        // A listening fetch rejects; its listeners' errors are reported by
        // the event target, never thrown here.
        this.controller.abort();
      };
    });
    this.stopped.catch(() => {});
    this.timer = timeoutMs > 0 ? setTimeout(() => this.fire("timeout"), delay(timeoutMs)) : undefined;
    this.caller = caller;
    this.onAbort = () => this.fire("aborted");
    caller?.addEventListener("abort", this.onAbort);
  }

  /** One `send` of `fetch`, under this stop (see `run`). */
  send(fetch, url, authorization) {
    return this.run(send(fetch, url, authorization, this.signal));
  }

  /** `work`'s value, or a rejection with the reason ("timeout" or "aborted") if the call stops first. */
  run(work) {
    if (this.reason !== undefined) return Promise.reject(this.reason);
    return Promise.race([this.stopped, work]);
  }

  /** Waits `ms` (at once for 0), unless the call stops first. */
  sleep(ms) {
    if (!(ms > 0)) return this.run(Promise.resolve());
    return this.run(
      new Promise((resolve) => {
        this.pause = setTimeout(resolve, delay(ms));
      }),
    );
  }

  dispose() {
    clearTimeout(this.timer);
    clearTimeout(this.pause);
    this.caller?.removeEventListener("abort", this.onAbort);
  }
}
