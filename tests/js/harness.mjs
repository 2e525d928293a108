// Test plumbing shared by the browser tests: a static file server for the
// repository (so pages can import /pkg/web/index.js and /tests/js/*.mjs), and
// Debian's Chromium through playwright-core (never a downloaded browser).
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { join, normalize, extname, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const types = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
};

/** Serves `/pkg/**`, `/tests/**` and `/www/**` from the repository on 127.0.0.1. */
export function startStatic() {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path === "/" || path === "/blank.html") {
      res.writeHead(200, { "Content-Type": types[".html"] });
      return res.end("<!doctype html><title>content-repo tests</title>");
    }
    if (!/^\/(pkg|tests|www)\//.test(path) || path.includes("..")) {
      res.writeHead(404);
      return res.end();
    }
    try {
      const body = await readFile(join(root, path));
      res.writeHead(200, { "Content-Type": types[extname(path)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/** Headless Debian Chromium, with the flags this closed network needs. */
export function launchChromium() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}
