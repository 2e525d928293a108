/**
 * The types of `content-repo/slim`: everything of `content-repo`, plus
 * {@link init}. This entry never names the `.wasm`, so bundlers emit nothing:
 * pass the module to `init` and await it before the first synchronous call.
 *
 * @packageDocumentation
 */
export * from "./index.js";

/**
 * Where {@link init} finds the WebAssembly module: its URL (a `URL`, a string
 * or a `Request`, fetched), a `Response`, its bytes, or a compiled
 * `WebAssembly.Module`.
 */
export type InitInput = URL | string | Request | Response | ArrayBuffer | ArrayBufferView | CompiledModule;
/**
 * A compiled `WebAssembly.Module` (an object: the DOM's declaration of it is
 * empty, which every value but `null` and `undefined` would match).
 */
export type CompiledModule = WebAssembly.Module & object;

/**
 * Loads the WebAssembly module: `new URL(wasmUrl, import.meta.url)` with
 * `import wasmUrl from "content-repo/wasm"` and your bundler, a `Response`,
 * the bytes, or a compiled `WebAssembly.Module` (Cloudflare Workers); or a
 * promise of a `Response`, bytes or a module (not of a URL: pass the URL
 * itself). Later calls return the same promise; after a failure, a call
 * with an input tries again. Without an input it returns the pending
 * attempt, or rejects with `invalid_argument`. Every synchronous call made
 * before it resolves throws a `ContentRepoError` with the code
 * `not_initialized`.
 *
 * @example
 * ```ts
 * import { init, Query } from "content-repo/slim";
 * import wasmUrl from "content-repo/wasm";
 * await init(new URL(wasmUrl, import.meta.url));
 * ```
 */
export function init(input?: InitInput | PromiseLike<Response | ArrayBuffer | ArrayBufferView | CompiledModule>): Promise<void>;
