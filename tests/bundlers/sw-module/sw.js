// A module service worker (no bundler): the "." entry, loaded without
// top-level await (which service workers do not allow), answers fetches.
import * as sdk from "../../node_modules/content-repo/web/index.js";
import { early, works } from "../check.mjs";

const before = early(sdk);
self.addEventListener("install", (event) => {
  self.skipWaiting();
  event.waitUntil(sdk.ready());
});
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("fetch", (event) => {
  if (!new URL(event.request.url).pathname.endsWith("/sdk-check")) return;
  event.respondWith(
    sdk.ready().then(
      () => Response.json({ ...before, ...works(sdk), from: "module service worker" }),
      (error) => Response.json({ ...before, error: String(error) }),
    ),
  );
});
