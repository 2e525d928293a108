/**
 * The types of `content-repo/wasm`: the package's WebAssembly module, for
 * your bundler to emit (esbuild `--loader:.wasm=file`; Vite:
 * `content-repo/wasm?url`). Pass it to `init` of `content-repo/slim`.
 *
 * @packageDocumentation
 */

/**
 * The URL of the `.wasm` file as your bundler emits it, relative to the
 * bundle: `init(new URL(wasmUrl, import.meta.url))`. Hosts that import a
 * `.wasm` as a compiled `WebAssembly.Module` (Cloudflare Workers) give that
 * module instead, which `init` accepts as well.
 */
declare const wasmUrl: string;
export default wasmUrl;
