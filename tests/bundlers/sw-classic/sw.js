// A classic service worker: bundled by esbuild as an IIFE (`--format=iife
// --loader:.wasm=file`), so no import.meta: the slim entry, and the module's
// URL relative to the worker script.
import * as sdk from "content-repo/slim";
import wasmUrl from "content-repo/wasm";
import { early, works } from "../check.mjs";

const before = early(sdk);
const loading = sdk.init(new URL(wasmUrl, self.location.href));
self.addEventListener("install", (event) => {
  self.skipWaiting();
  event.waitUntil(loading);
});
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  if (!new URL(event.request.url).pathname.endsWith("/sdk-check")) return;
  event.respondWith(
    loading.then(
      () => Response.json({ ...before, ...works(sdk), from: "classic service worker" }),
      (error) => Response.json({ ...before, error: String(error) }),
    ),
  );
});
