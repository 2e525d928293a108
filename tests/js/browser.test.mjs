// The browser build in headless Chromium: the shared request cases against
// the fixture server (another origin, so CORS is real), and a request from a
// module web worker.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../www/server.mjs";
import { startStatic, launchChromium } from "./harness.mjs";
import { cases } from "./client-cases.mjs";

const apiKey = "browser-test-key-5678";
let api;
let site;
let browser;
let page;

before(async () => {
  api = await startServer({ port: 0, apiKey, control: true });
  site = await startStatic();
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (error) => console.error("page error:", error));
  await page.goto(`${site.url}/blank.html`);
  await page.evaluate(async ({ baseUrl, apiKey }) => {
    const { fixtureControl } = await import("/tests/js/fixture-control.mjs");
    window.sdk = await import("/pkg/web/index.js");
    await window.sdk.ready();
    window.cases = (await import("/tests/js/client-cases.mjs")).cases;
    window.env = {
      baseUrl,
      apiKey,
      control: fixtureControl(baseUrl),
    };
  }, { baseUrl: api.url, apiKey });
});

after(async () => {
  await browser?.close();
  await site?.close();
  await api?.close();
});

for (const name of Object.keys(cases)) {
  test(`chromium: ${name}`, { timeout: 20_000 }, async () => {
    const error = await page.evaluate(async (name) => {
      await window.env.control.reset();
      try {
        await window.cases[name](window.sdk, window.env);
        return null;
      } catch (error) {
        return String(error && error.stack || error);
      }
    }, name);
    assert.equal(error, null);
  });
}

test("chromium: the SDK works in a module web worker", { timeout: 20_000 }, async () => {
  const result = await page.evaluate(async ({ baseUrl, apiKey }) => {
    const source = `
      import { Client, Query, ready } from "${location.origin}/pkg/web/index.js";
      await ready();
      const client = new Client({ baseUrl: ${JSON.stringify(baseUrl)}, repository: "demo", apiKey: ${JSON.stringify(apiKey)} });
      const list = await client.collection("authors", new Query().limit(2).fields("meta(id)"));
      postMessage(list.data.length);
    `;
    const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    const worker = new Worker(url, { type: "module" });
    return new Promise((resolve) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => resolve(`worker error: ${event.message}`);
    });
  }, { baseUrl: api.url, apiKey });
  assert.equal(result, 2);
});
