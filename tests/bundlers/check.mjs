// What every app of the bundler matrix proves, in whatever environment it was
// bundled for. `early` runs synchronously right after the import (the module
// cannot be ready yet in a browser); `works` runs once it is ready.

/** The first synchronous call, before the module is ready. */
export function early(sdk) {
  try {
    new sdk.Query();
    return { beforeReady: "no error" };
  } catch (error) {
    return {
      beforeReady: error.code,
      beforeReadyMessage: error.message,
      beforeReadyClass: error instanceof sdk.ContentRepoError,
    };
  }
}

/** The SDK at work: a query string, a store round trip, the guard. */
export function works(sdk) {
  const { Query, DocumentStore, ContentRepoError } = sdk;
  const result = {};
  result.query = new Query().sort("fields.title", "ASC").toString();
  const store = new DocumentStore();
  result.stored = store.putJson(
    JSON.stringify({
      data: [
        { meta: { id: "1", createdAt: "2024-01-01T00:00:00Z" }, fields: { title: "Cherry", price: 3 } },
        { meta: { id: "2", createdAt: "2024-01-02T00:00:00Z" }, fields: { title: "apple", price: 1 } },
        { meta: { id: "3", createdAt: "2024-01-03T00:00:00Z" }, fields: { title: "Banana", price: 2 } },
      ],
    }),
  );
  const query = new Query().sort("fields.title", "ASC").fields("title").limit(2);
  result.chainable = query.limit(2) === query;
  result.page = store.query(query);
  const freed = new Query();
  freed.free();
  try {
    store.query(freed);
    result.freed = "no error";
  } catch (error) {
    result.freed = { code: error.code, message: error.message, isContentRepoError: error instanceof ContentRepoError };
  }
  result.afterFreed = store.query(query).data.map((document) => document.fields.title);
  return result;
}

/** `early`, then `works` once `whenReady` resolves; never rejects. */
export async function check(sdk, whenReady) {
  const before = early(sdk);
  try {
    await whenReady();
    return { ...before, ...works(sdk) };
  } catch (error) {
    return { ...before, error: String(error?.stack ?? error) };
  }
}
