// The package entry (copied to pkg/web/index.js and pkg/node/index.js by
// scripts/build.sh, which fills in the two paths below). It loads the module,
// exports its API and the error class, and makes the Query setters chainable:
// a setter returns the very query it was called on, so `q.sort(a); q.sort(b)`
// and `new Query().sort(a).sort(b)` both work and `q.limit(5) === q`.
__INIT__
import { Pages, Query } from "./content_repo.js";
export * from "./content_repo.js";
export { ContentRepoError } from "__SNIPPET__";

for (const name of Object.getOwnPropertyNames(Query.prototype)) {
  const descriptor = Object.getOwnPropertyDescriptor(Query.prototype, name);
  if (name === "constructor" || name === "free" || typeof descriptor.value !== "function") continue;
  const method = descriptor.value;
  Object.defineProperty(Query.prototype, name, {
    ...descriptor,
    value: {
      [name](...args) {
        const result = method.apply(this, args);
        return result === undefined ? this : result;
      },
    }[name],
  });
}

// `client.pages(...)` is an async iterator: `for await (const page of ...)`.
Pages.prototype[Symbol.asyncIterator] = function () {
  return this;
};
