// The JavaScript side of DocumentStore (src/wasm/store.rs).

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

/** `JSON.stringify(value)`, or undefined when it throws or gives no text. */
export function stringify(value) {
  try {
    const text = JSON.stringify(value);
    return typeof text === "string" ? text : undefined;
  } catch {
    return undefined;
  }
}
