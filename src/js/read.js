// What the module reads of a JavaScript argument that may run the caller's
// code (a getter, a Proxy's trap, a revoked Proxy, `toString`). Each is
// imported with `catch` (src/wasm/convert.rs), or catches itself
// (`isSignal`, `thrown`): an exception never unwinds through the module,
// which would leave its Rust frames unfinished (objects still borrowed,
// stack space lost) until the module trapped.

/** `Array.isArray(value)` (throws for a revoked Proxy). */
export const isArray = (value) => Array.isArray(value);

/** The elements of an array, copied into a plain array. */
export const elements = (value) => Array.from(value);

// The `aborted` getter checks its receiver is a signal (by its internal
// slot, or the runtime's own brand): an object made from the prototype, or
// any other, fails it; a signal of another realm passes.
const aborted = typeof AbortSignal === "function" ? Object.getOwnPropertyDescriptor(AbortSignal.prototype, "aborted")?.get : undefined;

/** Whether `value` is an `AbortSignal` (a real one: never a forged object). */
export function isSignal(value) {
  if (aborted === undefined || typeof value !== "object" || value === null) return false;
  try {
    aborted.call(value);
    return true;
  } catch {
    return false;
  }
}

const reason = typeof AbortSignal === "function" ? Object.getOwnPropertyDescriptor(AbortSignal.prototype, "reason")?.get : undefined;

/**
 * `signal.reason` as the signal holds it (its own getter, never a property
 * the caller put on the object); `undefined` where the runtime has none.
 */
export function reasonOf(signal) {
  try {
    return reason?.call(signal);
  } catch {
    return undefined;
  }
}

/** The query string of one of the package's `Query` objects. */
export const queryText = (value) => String(value);

/**
 * A bigint or a symbol as JavaScript writes it (`1n`, `Symbol(asc)`), cut at
 * 40 characters (`123…n`), on one line (what would break or reorder a line
 * of a log a space, as in the module's messages).
 */
export function written(value) {
  const text = String(value).replace(/[\p{Cc}\u2028-\u202E\u2066-\u2069]/gu, " ");
  const short = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return typeof value === "bigint" ? `${short}n` : short;
}

/** What was thrown, for a message (`TypeError: ...`); never throws. */
export function thrown(error) {
  try {
    // One line: V8 writes a cycle's path over several.
    const text = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).replace(/\s+/g, " ");
    return text.length > 120 ? `${text.slice(0, 120)}…` : text;
  } catch {
    return "an exception";
  }
}
