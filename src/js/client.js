// The I/O of a client (src/wasm/client.rs, src/wasm/task.rs): it performs
// each call's task, awaiting what the task's synchronous steps ask for
// (`fetch`, timers, the storage) and feeding the outcomes back. What to do
// next (retry, wait, which error, what the cache answers, which page, what
// to write) is decided in Rust; nothing here decides.
//
// An injected `fetch` is untrusted: it may throw, resolve to anything or to
// nothing, reject with anything, never settle, or ignore its abort signal; so
// may the response's `status`, `headers.get` and `text`. Every value it gives
// is read inside `try`, checked by type, and awaited (a thenable that throws,
// or a plain value, becomes a failure or a value): `send` never rejects.
import { IndexedDbStorage, MAX_TIMER_MS, callStorage, loadStorage, onReconnect, report } from "./storage.js";
import { reasonOf } from "./read.js";

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
  // The reason a runtime gives beneath its own "fetch failed": a system error's code (Node's
  // ECONNREFUSED), else its message ("redirect count exceeded", "bad port").
  const cause = field(error, "cause");
  const code = field(cause, "code");
  const reason = typeof code === "string" ? code : field(cause, "message");
  return typeof reason === "string" && reason !== "" ? `${message} (${reason})` : message;
}

/** A number as the module writes it in a message (src/num.rs: `-0`, `Infinity`, `NaN`). */
function number(value) {
  return Object.is(value, -0) ? "-0" : String(value);
}

/**
 * One GET of `url` with `fetch` (the global one when undefined), read as a
 * Response: `[status, retryAfter, body]` for a response with an integer status
 * from 100 to 599, a `headers.get` and a `text()` that gives a string;
 * `[0, message]` for anything else (the message says what was wrong).
 */
async function send(fetch, url, authorization, signal) {
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
function globalFetch() {
  const fetch = field(globalThis, "fetch");
  return typeof fetch === "function" ? fetch : undefined;
}

/** `work`, raced against a timer of `ms` when given (then it settles after `ms` at the latest). */
function within(work, ms) {
  if (ms === undefined) return work;
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, delay(ms));
  });
  // Cleared once either settles: a pending timer would keep Node running.
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * What ends a call early: its deadline (`timeoutMs`, 0: none) or the caller's
 * signal, whichever comes first. Firing it aborts `signal` (given to `fetch`)
 * and ends every `run` at once, whether or not `fetch` listened. `dispose()`
 * clears its timers and listener.
 */
class Stop {
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

// ------------------------------------------------------------------ the tasks
//
// `io` is a client's I/O: its `fetch`, storage, `onCacheError`, timeout and
// `Authorization` header, the GETs in flight (shared by identical requests
// without a signal), the cache's load, and its write queue. `io.root` is a
// task of the client (for the cache's writes and new tasks).

/** A client's I/O (with `reconnect`: refreshing the cache on the runtime's `online` event). */
export function makeIo(root, fetch, cached, storage, onError, ms, authorization, reconnect) {
  const io = { root, fetch, cached, storage, onError, ms, authorization, inflight: new Map(), tail: undefined, loading: undefined };
  io.stop = reconnect ? onReconnect(() => void refreshAll(io)) : undefined;
  return io;
}

/** The client is gone: stops listening for `online`, and closes the IndexedDB connection it opened. */
export function closeIo(io) {
  if (typeof io.stop === "function") io.stop();
  if (io.storage instanceof IndexedDbStorage) io.storage.close();
}

/**
 * `work`, unless the caller's `signal` aborts first: then the task's `aborted`
 * error at once. The work goes on (a storage call cannot be taken back), its
 * outcome unused; what it plans later checks `signal.aborted` and plans
 * nothing, as the task is released once the call has settled.
 */
function unlessAborted(task, signal, work) {
  if (signal === undefined) return work;
  let onAbort;
  const aborted = new Promise((_, reject) => {
    onAbort = () => reject(task.stopped(true));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}

/** What a write plans: nothing once the caller aborted (the task is released then). */
const unlessAbortedPlan = (signal, plan) => () => (signal?.aborted ? undefined : plan());

/** `work` ending in the task's error of a stopped call. */
const unlessStopped = (task, work) =>
  work.catch((reason) => {
    throw task.stopped(reason === "aborted");
  });

/**
 * The attempts of one call, under one `Stop`: the body goes to the task, and is the result (for
 * the cache's write). `started`: when the call began, if before now (its time budget runs from then).
 */
async function attempts(io, task, retry, signal, started) {
  if (signal?.aborted) throw task.stopped(true);
  const fetch = io.fetch ?? globalFetch();
  if (fetch === undefined) throw task.network("this environment has no global `fetch`; pass `fetch` in the Client options");
  let stop;
  try {
    stop = new Stop(started === undefined || !(io.ms > 0) ? io.ms : Math.max(1, started + io.ms - Date.now()), signal);
  } catch {
    throw task.network("AbortController is not available");
  }
  try {
    task.begin(retry, started);
    const url = task.url();
    for (;;) {
      const [status, text, body] = await unlessStopped(task, stop.send(fetch, url, io.authorization));
      const wait = task.ended(status, text, body);
      if (wait === undefined) return body;
      await unlessStopped(task, stop.sleep(wait));
    }
  } finally {
    stop.dispose();
  }
}

/**
 * The task's GET (the body); without a signal, shared with the same GET in flight (its outcome
 * adopted). A call has its own time budget: when the GET it shared ran out of the first caller's,
 * it goes on within what is left of its own (`started`: when it began).
 */
function get(io, task, retry, signal, started, records = false) {
  const key = task.shareKey(retry, signal !== undefined);
  if (key === undefined) return attempts(io, task, retry, signal);
  let entry = io.inflight.get(key);
  if (entry === undefined) {
    const sharers = [];
    const run = attempts(io, task, retry, undefined, started).finally(() => {
      // The entry goes with its call, so later calls send again.
      if (io.inflight.get(key) === entry) io.inflight.delete(key);
      // (`due`: when the retry was due that the first caller's deadline cut short, if it did.)
      for (const sharer of sharers) entry.due = sharer.adopt(task);
    });
    // `records`: the first caller records the answer in the cache, for every sharer, which
    // resolves only once that is done (`recorded`, when the first caller's call ends).
    let done;
    entry = { run, sharers, records, recorded: new Promise((resolve) => (done = resolve)) };
    owners.set(task, done);
    io.inflight.set(key, entry);
  } else {
    entry.sharers.push(task);
    return joined(io, task, retry, entry, started ?? Date.now(), records);
  }
  return entry.run;
}

/**
 * The calls whose answer the call they shared records in the cache (they write it no second time,
 * and wait for that call's record), and the first callers of shared GETs (what ends that wait).
 */
const covered = new WeakMap();
const owners = new WeakMap();

/**
 * A call that shares `entry` (another call's GET), within its own time budget (from `started`):
 * the run's answer or error; its own timeout if its budget ends first. When the run ran out of the
 * first caller's budget (a timeout), the call goes on alone if a tenth of its own is left, else it
 * waits its budget out (a request with almost no time left would only be cut off at once). When
 * the first caller's deadline left no room for a retry that this call's does, it waits until that
 * retry is due and goes on alone.
 */
async function joined(io, task, retry, entry, started, records) {
  const deadline = io.ms > 0 ? started + io.ms : undefined;
  const timeout = () => {
    task.begin(retry, started);
    return task.stopped(false);
  };
  let body;
  try {
    body = await within(entry.run, deadline === undefined ? undefined : deadline - Date.now());
  } catch (error) {
    if (deadline === undefined) throw own(error);
    if (field(error, "code") !== "timeout") {
      if (!(entry.due < deadline)) throw own(error);
      await new Promise((resolve) => setTimeout(resolve, delay(entry.due - Date.now())));
      // (A timer that fired late, past the call's own deadline, sends nothing.)
      if (Date.now() >= deadline) throw timeout();
      return get(io, task, retry, undefined, started, records);
    }
    const left = deadline - Date.now();
    if (left >= io.ms / 10) return get(io, task, retry, undefined, started, records);
    await new Promise((resolve) => setTimeout(resolve, delay(left)));
    throw timeout();
  }
  if (body === undefined) {
    // It stops sharing: the GET, when it ends, has no outcome to give this task (released by then:
    // a call that went on alone can join a GET whose deadline is later than its own).
    const at = entry.sharers.indexOf(task);
    if (at >= 0) entry.sharers.splice(at, 1);
    throw timeout();
  }
  if (entry.records) covered.set(task, entry.recorded);
  return body;
}

/** A copy of a shared call's error, so that each caller has its own (as its own answer). */
function own(error) {
  if (!(error instanceof Error)) return error;
  // A real Error (its internal slot: `structuredClone`, `util.types.isNativeError`) of the same class.
  let copy;
  try {
    copy = Reflect.construct(Error, [], error.constructor);
  } catch {
    copy = Object.setPrototypeOf(new Error(), Object.getPrototypeOf(error));
  }
  for (const key of Reflect.ownKeys(error)) {
    Object.defineProperty(copy, key, Reflect.getOwnPropertyDescriptor(error, key));
  }
  return copy;
}

/**
 * Sends the task's request and checks the answer; with `record`, records it in the cache (a
 * failed write is reported; the answer stands). `early` (a prefetch's page): returns once the
 * record is planned, its ids counted, while storage writes it (the next page is fetched
 * meanwhile; the writes stay in order, and the prefetch's last write waits for them).
 */
async function network(io, task, retry, record, signal, early = false) {
  try {
    await answered(io, task, retry, record, signal, early);
  } finally {
    // The calls that shared this one's GET resolve once its record is done (or failed).
    owners.get(task)?.();
  }
}

async function answered(io, task, retry, record, signal, early) {
  const body = await get(io, task, retry, signal, undefined, record && !early);
  task.answer(body);
  if (!record || !io.cached) return;
  // A call that shared another's GET which records its answer writes it no second time, and
  // resolves when it is recorded (a prefetch's page records its own: it counts the ids).
  const recorded = early ? undefined : covered.get(task);
  if (recorded !== undefined) return void (await recorded);
  if (early) {
    const planning = new Promise((planned) => {
      const plan = () => {
        const batch = task.planRecord();
        task.recorded();
        planned();
        return batch;
      };
      write(io, unlessAbortedPlan(signal, plan), body).catch(() => {}).finally(planned);
    });
    await unlessAborted(task, signal, planning);
    return;
  }
  // A failed write is reported by the cache when it is the storage's; the answer stands.
  const written = write(io, unlessAbortedPlan(signal, () => task.planRecord()), body).then(
    () => true,
    () => false,
  );
  if (await unlessAborted(task, signal, written)) task.recorded();
}

/** Loads the stored entries once (corrupt ones are reported); without a cache, nothing. */
function cacheLoaded(io) {
  if (io.cached) io.loading ??= load(io);
  return io.loading;
}

async function load(io) {
  // Each entry is read as the storage hands it over (IndexedDB reads the next meanwhile).
  const root = io.root;
  const batch = root.loaded(await loadStorage(io.storage, (key, text) => root.loadEntry(key, text), io.ms));
  try {
    await writes(io, batch);
  } catch {
    // Reported.
  }
}

/**
 * The batches of one planned write, in turn, each outcome fed back. A put
 * `[key, header, true]` of the first batch is the segment of `body`, the
 * response text that this side still holds: `header`, a line break, `body`
 * (joined here rather than copied out of the module again).
 */
async function writes(io, batch, body) {
  if (batch !== undefined && body !== undefined) {
    batch = [batch[0].map((put) => (put.length === 3 ? [put[0], `${put[1]}\n${body}`] : put)), batch[1]];
  }
  while (batch !== undefined) batch = io.root.written(await callStorage(io.storage, "write", batch, io.ms));
}

/** Plans a change once the earlier ones are written (`plan` gives its first batch; `body`: see `writes`), and writes it. */
async function write(io, plan, body) {
  await cacheLoaded(io);
  let release;
  const previous = io.tail;
  io.tail = new Promise((resolve) => {
    release = resolve;
  });
  await previous;
  try {
    await writes(io, plan(), body);
  } finally {
    release();
  }
}

/** The answer to the task's request under the cache policy (the network alone without a cache). */
async function resolve(io, task, signal) {
  if (!io.cached) return network(io, task, true, true, signal);
  task.expect();
  await unlessAborted(task, signal, cacheLoaded(io));
  const course = task.start();
  if (course === true) {
    const fork = task.fork();
    network(io, fork, true, true, signal)
      .catch(() => {})
      .finally(() => fork.free());
  } else if (course !== false) {
    // The network's outcome, or none when the race's time passed first
    // (the request goes on in the background and records).
    const fork = task.fork();
    let settled = false;
    const done = () => {
      settled = true;
    };
    const run = network(io, fork, course[0], true, signal).then(done, done);
    try {
      await within(run, course[1]);
      task.after(fork, settled);
    } finally {
      run.then(() => fork.free());
    }
  }
}

/**
 * Drives the task's paging machine (pages, all, prefetch, refresh) to its answer. A failure
 * part way settles once the writes queued before it (its pages') are done; an abort or a
 * timeout does not wait for them.
 */
async function drive(io, task, signal, progress) {
  try {
    return await steps(io, task, signal, progress);
  } catch (error) {
    if (error?.code !== "aborted" && error?.code !== "timeout") await io.tail;
    throw error;
  }
}

async function steps(io, task, signal, progress) {
  for (;;) {
    const step = task.step();
    if (typeof step !== "number") return step;
    if (step === 3) {
      await unlessAborted(task, signal, write(io, unlessAbortedPlan(signal, () => task.planWrite())));
      continue;
    }
    await (step === 0 ? resolve(io, task, signal) : network(io, task, true, step === 1, signal, step === 1));
    await unlessAborted(task, signal, cacheLoaded(io));
    const loaded = task.receive();
    if (loaded !== undefined && progress !== undefined) {
      try {
        Reflect.apply(progress, undefined, [loaded]);
      } catch {
        // The callback's failure is not the call's.
      }
    }
  }
}

/**
 * `work()`, started in a later microtask (as the async Rust exports were);
 * then the task's memory is released. A fork is released when its own
 * background work ends. An `aborted` error has the caller's `signal.reason`
 * as its `cause` (`AbortSignal.timeout`'s `TimeoutError`, or what was given
 * to `abort(reason)`), as `fetch` rejects with it.
 */
async function perform(task, work, signal) {
  try {
    await undefined;
    return await work();
  } catch (error) {
    if (signal !== undefined && error?.code === "aborted" && error.cause === undefined) {
      const cause = reasonOf(signal);
      // Not enumerable, as an Error's own `cause` is.
      if (cause !== undefined) Object.defineProperty(error, "cause", { value: cause, writable: true, configurable: true });
    }
    throw error;
  } finally {
    task.free();
  }
}

/** A typed method's request: the body, marked with its source. */
export function request(io, task, signal) {
  return perform(
    task,
    async () => {
      await resolve(io, task, signal);
      return task.value();
    },
    signal,
  );
}

/** A list method (`all`, `prefetch`, `refresh`) to its answer. */
async function run(io, task, signal, progress, refresh) {
  if (refresh) {
    await unlessAborted(task, signal, cacheLoaded(io));
    task.startRefresh();
  }
  return drive(io, task, signal, progress);
}

/** A list method (`all`, `prefetch`, `refresh`). */
export function list(io, task, signal, progress, refresh) {
  return perform(task, () => run(io, task, signal, progress, refresh), signal);
}

/** `Pages.next`: the next page as an iterator result. */
export function page(io, task, signal) {
  return perform(
    task,
    async () => {
      if (typeof task.step() === "number") await resolve(io, task, signal);
      return task.page();
    },
    signal,
  );
}

/** Refreshes every complete list of the cache, reporting failures (`refreshOnReconnect`). */
function refreshAll(io) {
  const task = io.root.fork();
  return perform(task, async () => {
    await cacheLoaded(io);
    while (task.nextList()) {
      try {
        await run(io, task, undefined, undefined, true);
      } catch (error) {
        report(io.onError, error);
      }
    }
  });
}

/** `client.cache.ready()`. */
export async function cacheReady(io) {
  await undefined;
  await cacheLoaded(io);
}

/** `client.cache.clear()`: the storage, then the memory. */
export async function cacheClear(io) {
  await undefined;
  await cacheLoaded(io);
  io.root.cleared(await callStorage(io.storage, "clear", [], io.ms));
}
