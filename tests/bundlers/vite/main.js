// A Vite app: the "." entry in the page and in a dedicated module worker.
import * as sdk from "content-repo";
import { check } from "./check.mjs";

const inPage = check(sdk, sdk.ready);
const inWorker = new Promise((resolve) => {
  const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  worker.onmessage = (event) => resolve(event.data);
  worker.onerror = (event) => resolve({ error: `worker: ${event.message}` });
});
Promise.all([inPage, inWorker]).then(([page, worker]) => {
  window.__result = { ...page, worker };
});
