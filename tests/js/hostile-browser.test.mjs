// Issue 14 in headless Chromium: the hostile cases of hostile-cases.mjs
// against the browser build, with the fixture server on another origin, and
// window-level watchers (plus Playwright's pageerror) for anything uncaught.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer } from "../../www/server.mjs";
import { startStatic, launchChromium } from "./harness.mjs";
import { cases as hostile } from "./hostile-cases.mjs";
import { dataCases } from "./data-cases.mjs";

const cases = { ...hostile, ...dataCases };

const apiKey = "browser-hostile-key-8765";
let api;
let site;
let browser;
let page;
const pageErrors = [];

before(async () => {
  api = await startServer({ port: 0, apiKey, control: true });
  site = await startStatic();
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (error) => pageErrors.push(String(error && error.stack || error)));
  await page.goto(`${site.url}/blank.html`);
  await page.evaluate(async ({ baseUrl, apiKey }) => {
    const { fixtureControl } = await import("/tests/js/fixture-control.mjs");
    window.sdk = await import("/pkg/web/index.js");
    window.cases = { ...(await import("/tests/js/hostile-cases.mjs")).cases, ...(await import("/tests/js/data-cases.mjs")).dataCases };
    window.env = {
      baseUrl,
      apiKey,
      control: fixtureControl(baseUrl),
      watchUncaught() {
        const seen = [];
        const onError = (event) => seen.push(event.error ?? event.message);
        const onRejection = (event) => seen.push(event.reason);
        addEventListener("error", onError);
        addEventListener("unhandledrejection", onRejection);
        return () => {
          removeEventListener("error", onError);
          removeEventListener("unhandledrejection", onRejection);
          return seen;
        };
      },
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
    const before = pageErrors.length;
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
    assert.deepEqual(pageErrors.slice(before), [], "no uncaught page errors");
  });
}
