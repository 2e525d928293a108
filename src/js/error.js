// The error class of content-repo. The wasm module creates every error it
// throws through `makeError`, so all of them are `ContentRepoError`s.

/**
 * Every failure of the SDK: a real `Error` with a stable `code`, plus
 * `position` (selection errors), `status` (HTTP errors) and `excerpt`
 * (decode errors) where they apply. Messages never contain the API key.
 */
export class ContentRepoError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = "ContentRepoError";
    this.code = code;
    if (details) {
      for (const key of Object.keys(details)) {
        if (details[key] !== undefined) this[key] = details[key];
      }
    }
  }
}

export function makeError(code, message, details) {
  return new ContentRepoError(code, message, details);
}

export function isContentRepoError(value) {
  return value instanceof ContentRepoError;
}
