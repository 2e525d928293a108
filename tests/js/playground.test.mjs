// The www playground (what `npm start` serves) in headless Chromium, against
// the fixture server, which serves the page, the built package and the API on
// one origin (127.0.0.1 only). Screenshots go to test-results/ (git-ignored);
// the last one, small, to www/screenshot.png when UPDATE_SCREENSHOT=1. The
// second test drives the Offline panel: prefetch with progress, the Offline
// switch (an injected failing fetch), IndexedDB across a reload, and the
// browser really offline (context.setOffline).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, statSync, copyFileSync } from "node:fs";
import { join } from "node:path";
import { startServer } from "../../www/server.mjs";
import { launchChromium, root } from "./harness.mjs";

const apiKey = "demo-key";
const results = join(root, "test-results");
const MAX_SCREENSHOT_BYTES = 150_000;

let server;
let browser;
let page;
const pageErrors = [];

before(async () => {
  mkdirSync(results, { recursive: true });
  server = await startServer({ port: 0, apiKey });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1000, height: 700 } });
  page.on("pageerror", (error) => pageErrors.push(error));
  page.setDefaultTimeout(5000);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const text = (selector) => page.textContent(selector);
const shownText = (selector) => page.innerText(selector);
const rowIds = () => page.$$eval("#results-table tbody tr", (rows) => rows.map((row) => row.dataset.id));
const headers = (table) => page.$$eval(`${table} thead th`, (cells) => cells.map((cell) => cell.textContent));

/** Clicks into an input, clears it and types `value` key by key (live validation runs on each key). */
async function typeInto(selector, value) {
  await page.click(selector);
  await page.fill(selector, "");
  await page.keyboard.type(value);
}

test("the playground builds the query, sends it, marks selection errors and checks the local engine", { timeout: 30_000 }, async () => {
  const origin = server.url.replace(/\/$/, "");
  await page.goto(server.url);
  await page.waitForSelector("body[data-ready=true], #sdk-status.bad", { timeout: 15_000 });
  assert.equal(await page.getAttribute("body", "data-ready"), "true", await text("#sdk-status"));

  // Defaults: the serving origin, repository demo, an empty masked key, nothing stored.
  assert.equal(await page.inputValue("#base-url"), origin);
  assert.equal(await page.inputValue("#repository"), "demo");
  assert.equal(await page.inputValue("#api-key"), "");
  assert.equal(await page.getAttribute("#api-key", "type"), "password");
  assert.match(await text("#api-key-hint"), /demo-key for the local fixture server/);
  assert.equal(await page.isDisabled("#send"), true, "no key: Send is disabled");
  assert.match(await text("#send-hint"), /API key/);
  assert.equal(await page.isDisabled("#make-offline"), true);
  assert.match(await text("#offline-note"), /API key/);

  // A wrong key, sent with Enter: the error shows its code, status and message.
  await typeInto("#api-key", "wrong-key");
  await page.press("#api-key", "Enter");
  await page.waitForSelector("#result-error:not([hidden])");
  const failure = await shownText("#result-error");
  assert.match(failure, /\bhttp\b/);
  assert.match(failure, /HTTP 401/);
  assert.match(failure, /Invalid authentication credentials/);
  assert.ok(!failure.includes("wrong-key"), "the key is not shown");

  // The right key; "remember" stores it only while ticked.
  await typeInto("#api-key", apiKey);
  assert.equal(await page.evaluate(() => localStorage.length), 0, "nothing stored unless asked");
  await page.check("#remember-key");
  assert.equal(await page.evaluate(() => localStorage.getItem("content-repo-playground:apiKey")), apiKey);
  await page.uncheck("#remember-key");
  assert.equal(await page.evaluate(() => localStorage.length), 0);

  // The products collection, two sort keys, a selection, a limit.
  await page.selectOption("#endpoint", "collection");
  await typeInto("#target", "products");
  await page.click("#add-sort");
  await page.click("#sort-list li:nth-child(1) [data-role=name]");
  await page.keyboard.type("category");
  await page.click("#add-sort");
  await page.click("#sort-list li:nth-child(2) [data-role=name]");
  await page.keyboard.type("price");
  await page.click("#sort-list li:nth-child(2) [data-role=dir]");
  assert.equal((await text("#sort-list li:nth-child(1) [data-role=dir]")).trim().endsWith("ASC"), true);
  assert.equal((await text("#sort-list li:nth-child(2) [data-role=dir]")).trim().endsWith("DESC"), true);
  await typeInto("#fields", "title, price");
  assert.match(await text("#fields-hint"), /fields\(price,title\),meta/);
  await typeInto("#limit", "5");

  const expectedUrl =
    `${origin}/v1/demo/collections/products` +
    "?sorting%5Bfields.category%5D=ASC&sorting%5Bfields.price%5D=DESC" +
    "&fields=fields%28price%2Ctitle%29%2Cmeta&limit=5";
  assert.equal(await text("#request-url"), expectedUrl);
  assert.equal(await text("#curl"), `curl -H 'Authorization: ********' '${expectedUrl}'`);
  assert.ok(!(await page.evaluate(() => document.body.innerText)).includes("wrong-key"));

  // Send: five rows, columns title and price (then meta), in the server's order.
  assert.equal(await page.isDisabled("#send"), false);
  await page.click("#send");
  await page.waitForFunction(() => document.querySelectorAll("#results-table tbody tr").length === 5);
  const columns = (await headers("#results-table")).slice(1);
  assert.deepEqual(columns.slice(0, 2), ["title", "price"]);
  assert.deepEqual(columns.filter((c) => !c.startsWith("meta/")), ["title", "price"]);
  assert.ok(columns.includes("meta/id"), "meta stays whole");
  const facts = await shownText("#results-facts");
  assert.match(facts, /Source\s*network/);
  assert.match(facts, /Time\s*[\d.]+ ms/);
  assert.match(facts, /5 of 130/);

  const direct = await page.evaluate(
    async ({ url, apiKey }) => {
      const response = await fetch(url, { headers: { Authorization: apiKey } });
      const body = await response.json();
      return body.data.map((d) => ({ id: d.meta.id, title: d.fields.title, price: d.fields.price }));
    },
    { url: expectedUrl, apiKey },
  );
  assert.deepEqual(await rowIds(), direct.map((d) => d.id));
  const cellText = (v) => (v === undefined ? "" : v === null ? "null" : String(v));
  const shown = await page.$$eval("#results-table tbody tr", (rows) => rows.map((row) => [...row.cells].slice(1, 3).map((c) => c.textContent)));
  assert.deepEqual(shown, direct.map((d) => [cellText(d.title), cellText(d.price)]));
  await page.screenshot({ path: join(results, "playground-results.png") });

  // The raw JSON view is the response itself.
  await page.click("label[for=view-json]");
  assert.equal(await page.isChecked("#view-json"), true);
  const raw = JSON.parse(await text("#results-json"));
  assert.deepEqual(raw.data.map((d) => d.meta.id), direct.map((d) => d.id));
  await page.click("label[for=view-table]");
  assert.equal(await page.isVisible("#results-table"), true);

  // An invalid selection, typed: the position is marked, the message shown, Send disabled.
  await typeInto("#fields", "title, author(name");
  await page.waitForSelector("#fields-error:not([hidden])");
  assert.equal(await page.getAttribute("#fields-mirror mark", "data-position"), "18");
  assert.equal(await page.getAttribute("#fields", "aria-invalid"), "true");
  const [excerpt, caret] = (await text("#fields-caret")).split("\n");
  assert.equal(excerpt, "title, author(name");
  assert.equal(caret.indexOf("^"), 18);
  const message = await text("#fields-message");
  assert.match(message, /at 18/);
  assert.match(message, /expected '\/', '\(', ',' or '\)'/);
  assert.match(await text("#fields-expected"), /Expected: '\/', '\(', ',' or '\)'/);
  assert.equal(await page.isDisabled("#send"), true);
  assert.match(await text("#send-hint"), /selection/);
  // The mark sits right after the text, inside the input.
  const input = await page.locator("#fields").boundingBox();
  const mark = await page.locator("#fields-mirror mark").boundingBox();
  assert.ok(mark.x > input.x + input.width / 4 && mark.x + mark.width < input.x + input.width, "the mark is inside the input, after the text");
  await page.screenshot({ path: join(results, "playground-invalid-selection.png") });

  // The local panel, when the SDK exports applyQuery.
  await typeInto("#fields", "title, price");
  const hasLocal = await page.evaluate(async () => "applyQuery" in (await import("/pkg/web/index.js")));
  if (hasLocal) {
    assert.equal(await page.isVisible("#local-panel"), true);
    // The last results were 5 of 130: not a complete list, and the note says so.
    assert.match(await text("#local-note"), /5 of 130/);
    await page.click("#fetch-complete");
    await page.waitForFunction(() => document.querySelectorAll("#results-table tbody tr").length === 130);
    assert.equal(await page.isVisible("#local-note"), false, "a complete list needs no note");
    await page.click("#apply-local");
    await page.waitForFunction(() => ["✓", "✗"].includes(document.querySelector("#local-check")?.textContent));
    const status = await text("#local-status");
    assert.equal(await text("#local-check"), "✓", status);
    assert.match(status, /Applied locally in [\d.]+ ms: 5 documents/);
    assert.deepEqual(
      await page.$$eval("#local-table tbody tr", (rows) => rows.map((row) => row.dataset.id)),
      direct.map((d) => d.id),
    );
    await page.screenshot({ path: join(results, "playground-local.png"), fullPage: true });
  } else {
    assert.equal(await page.isVisible("#local-panel"), false);
  }

  // Cancel while pending: the request is aborted and says so.
  await page.route("**/v1/demo/alias/**", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await route.continue().catch(() => {});
  });
  await page.selectOption("#endpoint", "alias");
  await typeInto("#target", "home");
  await page.click("#send");
  await page.waitForSelector("#cancel:not([disabled])");
  await page.click("#cancel");
  await page.waitForSelector("#result-error:not([hidden])");
  assert.match(await shownText("#result-error"), /\baborted\b/);
  assert.equal(await page.isDisabled("#cancel"), true);
  await page.unroute("**/v1/demo/alias/**");

  // Sort keys and a limit on one document (the alias): the page says the
  // service ignores them; on a list it does not.
  assert.equal(await page.isVisible("#list-only"), true, "list parameters on one document are flagged");
  await page.selectOption("#endpoint", "collection");
  await typeInto("#target", "products");
  assert.equal(await page.isVisible("#list-only"), false);

  // `*` over an array in the selection (`gallery/*/url`): a column of each
  // element's url, as the raw answer holds them.
  const gallery = await page.evaluate(async ({ origin, apiKey }) => {
    const response = await fetch(`${origin}/v1/demo/documents?fields=gallery&limit=1000`, { headers: { Authorization: apiKey } });
    const doc = (await response.json()).data.find((d) => Array.isArray(d.fields.gallery) && d.fields.gallery.length > 1);
    return { id: doc.meta.id, urls: doc.fields.gallery.map((g) => g.url) };
  }, { origin, apiKey });
  await page.selectOption("#endpoint", "document");
  await typeInto("#target", gallery.id);
  await typeInto("#fields", "title, gallery/*/url");
  await page.click("#send");
  await page.waitForFunction(() => document.querySelector("#results-table thead th:nth-child(3)")?.textContent === "gallery/url");
  const urlCell = await page.textContent("#results-table tbody tr:first-child td:nth-child(3)");
  assert.deepEqual(JSON.parse(urlCell), gallery.urls);

  // The final state for the README screenshot.
  await page.selectOption("#endpoint", "collection");
  await typeInto("#target", "products");
  await typeInto("#fields", "title, category, price, inStock");
  await page.click("#send");
  await page.waitForFunction(() => document.querySelectorAll("#results-table tbody tr").length === 5);
  await page.evaluate(() => {
    document.activeElement?.blur();
    window.scrollTo(0, 0);
  });
  const final = join(results, "playground.png");
  for (const [width, height] of [[1000, 700], [960, 672], [900, 630]]) {
    await page.setViewportSize({ width, height });
    await page.screenshot({ path: final, type: "png" });
    if (statSync(final).size <= MAX_SCREENSHOT_BYTES) break;
  }
  assert.ok(statSync(final).size <= MAX_SCREENSHOT_BYTES, `screenshot is ${statSync(final).size} bytes`);
  // The committed README screenshot is refreshed only on request, so that a
  // test run leaves the work tree clean.
  if (process.env.UPDATE_SCREENSHOT === "1") copyFileSync(final, join(root, "www", "screenshot.png"));

  assert.deepEqual(pageErrors.map(String), []);
});

test("the offline panel prefetches with progress, answers offline from the cache, and keeps it across a reload", { timeout: 30_000 }, async () => {
  const origin = server.url.replace(/\/$/, "");
  const sortedUrl = `${origin}/v1/demo/collections/products?sorting%5Bfields.price%5D=DESC&fields=fields%28price%2Ctitle%29%2Cmeta&limit=5`;
  // The server's answer, fetched online from Node before anything else.
  const response = await fetch(sortedUrl, { headers: { Authorization: apiKey } });
  assert.equal(response.status, 200);
  const direct = await response.json();
  assert.equal(direct.data.length, 5);
  const directIds = direct.data.map((d) => d.meta.id);
  const directCells = direct.data.map((d) => [String(d.fields.title), String(d.fields.price)]);

  // A fresh context: its own, empty IndexedDB.
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 } });
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error));
  page.setDefaultTimeout(5000);
  const open = async () => {
    await page.waitForSelector("body[data-ready=true], #sdk-status.bad", { timeout: 15_000 });
    assert.equal(await page.getAttribute("body", "data-ready"), "true", await text("#sdk-status"));
  };
  const resultCells = () => page.$$eval("#results-table tbody tr", (rows) => rows.map((row) => [...row.cells].slice(1, 3).map((c) => c.textContent)));
  /** Sends and waits for the answer (network-first spends its retries offline first). */
  const sendAndWait = async () => {
    await page.evaluate(() => {
      document.querySelector("#results-facts").hidden = true;
      document.querySelector("#result-error").hidden = true;
    });
    await page.click("#send");
    await page.waitForSelector("#results-facts:not([hidden]), #result-error:not([hidden])", { timeout: 10_000 });
  };
  /** The sorted, projected products query: price DESC, title and price, 5. */
  const sortedQuery = async () => {
    await page.selectOption("#endpoint", "collection");
    await typeInto("#target", "products");
    await page.click("#add-sort");
    await page.click("#sort-list li:nth-child(1) [data-role=name]");
    await page.keyboard.type("price");
    await page.click("#sort-list li:nth-child(1) [data-role=dir]");
    await typeInto("#fields", "title, price");
    await typeInto("#limit", "5");
    assert.equal(await text("#request-url"), sortedUrl);
  };
  const expectCachedRows = async (stale) => {
    assert.equal(await page.isVisible("#result-error"), false, await shownText("#result-error").catch(() => ""));
    assert.equal(await text("#result-source"), "cache");
    assert.equal(await text("#result-stale"), stale ? "stale" : "fresh");
    assert.deepEqual(await rowIds(), directIds);
    assert.deepEqual(await resultCells(), directCells);
  };

  try {
    await page.goto(server.url);
    await open();
    assert.equal(await page.isChecked("#offline-toggle"), false);
    assert.equal(await page.inputValue("#cache-policy"), "network-first");
    assert.equal(await page.isVisible("#offline-banner"), false);
    assert.equal(await page.isDisabled("#make-offline"), true);
    assert.match(await text("#offline-note"), /API key/);

    // Single documents cannot be made available offline; the products collection can.
    await typeInto("#api-key", apiKey);
    await page.selectOption("#endpoint", "document");
    assert.equal(await page.isDisabled("#make-offline"), true);
    assert.match(await text("#offline-note"), /Only a list can be made available offline/);
    await page.selectOption("#endpoint", "collection");
    await typeInto("#target", "products");
    assert.equal(await page.isDisabled("#make-offline"), false);
    assert.match(await text("#offline-note"), /collections\/products/);

    // Make it available offline: the progress bar and "loaded / total" text, page by page.
    await page.evaluate(() => {
      window.progressSeen = [];
      new MutationObserver(() => window.progressSeen.push(document.querySelector("#prefetch-text").textContent)).observe(
        document.querySelector("#prefetch-text"),
        { childList: true, characterData: true, subtree: true },
      );
    });
    await page.click("#make-offline");
    await page.waitForFunction(() => document.querySelector("#prefetch-text")?.textContent === "130 / 130", null, { timeout: 10_000 });
    await page.waitForFunction(() => /Available offline/.test(document.querySelector("#offline-status").textContent));
    assert.deepEqual((await page.evaluate(() => window.progressSeen)).filter((t) => t.includes("/")), ["50 / 130", "100 / 130", "130 / 130"]);
    assert.equal(await page.getAttribute("#prefetch-bar", "max"), "130");
    assert.equal(await page.evaluate(() => document.querySelector("#prefetch-bar").value), 130);
    assert.match(await text("#offline-status"), /130 documents in 3 requests/);
    assert.equal(await text("#cache-size"), "130 documents cached");
    assert.equal(await page.isDisabled("#clear-cache"), false);
    assert.equal(await page.isDisabled("#cancel-offline"), true);

    // Offline (the switch): the banner, and the sorted query answered from the cache.
    await page.check("#offline-toggle");
    assert.equal(await page.isVisible("#offline-banner"), true);
    assert.match(await text("#offline-banner"), /Offline: answers come from the cache/);
    await sortedQuery();
    await sendAndWait();
    await expectCachedRows(true); // network-first: the network failed, so the answer is stale
    assert.match(await shownText("#results-facts"), /Policy\s*network-first · offline/);
    await page.click("label[for=view-json]");
    assert.deepEqual(JSON.parse(await text("#results-json")).data, direct.data);
    await page.click("label[for=view-table]");

    // An alias never fetched: not_cached, with the reason.
    await page.selectOption("#endpoint", "alias");
    await typeInto("#target", "home");
    await sendAndWait();
    assert.equal(await page.getAttribute("#result-error", "data-code"), "not_cached");
    const failure = await shownText("#result-error");
    assert.match(failure, /not_cached/);
    assert.match(failure, /Not in the cache/);
    assert.match(await text("#not-cached-reason"), /not cached.*offline \(simulated by the playground\)/);
    await page.screenshot({ path: join(results, "playground-offline.png"), fullPage: true });

    // Online, a service that cannot be reached: not_cached, and the help says so.
    await page.uncheck("#offline-toggle");
    const baseUrl = await page.inputValue("#base-url");
    await typeInto("#base-url", "http://127.0.0.1:9");
    await sendAndWait();
    assert.equal(await page.getAttribute("#result-error", "data-code"), "not_cached");
    assert.match(await shownText("#result-error"), /The service could not be reached: check the base URL/);
    await typeInto("#base-url", baseUrl);

    // Reload: IndexedDB kept the cache; the switch starts off and works from the keyboard.
    await page.reload();
    await open();
    assert.equal(await page.isChecked("#offline-toggle"), false);
    await typeInto("#api-key", apiKey);
    await page.waitForFunction(() => document.querySelector("#cache-size").dataset.size === "130");
    await page.focus("#offline-toggle");
    await page.keyboard.press("Space");
    assert.equal(await page.isChecked("#offline-toggle"), true);
    assert.equal(await page.isVisible("#offline-banner"), true);
    await sortedQuery();
    await sendAndWait();
    await expectCachedRows(true);

    // The browser really offline (the page stays loaded): the same answer.
    await page.uncheck("#offline-toggle");
    assert.equal(await page.isVisible("#offline-banner"), false);
    await context.setOffline(true);
    await sendAndWait();
    await expectCachedRows(true);
    // cache-first answers without asking: not stale.
    await page.selectOption("#cache-policy", "cache-first");
    await sendAndWait();
    await expectCachedRows(false);
    await context.setOffline(false);

    // Clear the cache; cache-only then has nothing to answer with.
    await page.selectOption("#cache-policy", "cache-only");
    await page.click("#clear-cache");
    await page.waitForFunction(() => document.querySelector("#cache-size").dataset.size === "0");
    await sendAndWait();
    assert.equal(await page.getAttribute("#result-error", "data-code"), "not_cached");
    assert.match(await text("#not-cached-reason"), /not complete in the cache/);
    assert.equal(await page.isVisible("#cache-errors"), false, "no cache errors were reported");

    // A prefetch can be cancelled while a page is pending.
    await page.route("**/v1/demo/collections/articles**", async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 3000));
      await route.continue().catch(() => {});
    });
    await page.selectOption("#endpoint", "collection");
    await typeInto("#target", "articles");
    await page.click("#make-offline");
    await page.waitForSelector("#cancel-offline:not([disabled])");
    assert.equal(await page.isDisabled("#make-offline"), true);
    await page.click("#cancel-offline");
    await page.waitForFunction(() => /Cancelled/.test(document.querySelector("#offline-status").textContent));
    assert.match(await text("#offline-status"), /Cancelled before the first page/);
    assert.equal(await page.isDisabled("#make-offline"), false);
    assert.equal(await page.isDisabled("#cancel-offline"), true);
    await page.unroute("**/v1/demo/collections/articles**");

    // Refresh: the counts and the bytes against the prefetch's, after live changes.
    await typeInto("#target", "authors");
    await page.click("#make-offline");
    await page.waitForFunction(() => /Available offline/.test(document.querySelector("#offline-status").textContent));
    const authors = server.snapshot().collections.authors;
    server.mutate({ update: [{ id: authors[0].meta.id, fields: { name: "Renamed" } }], delete: [authors[1].meta.id] });
    assert.equal(await page.isDisabled("#refresh-offline"), false);
    await page.click("#refresh-offline");
    await page.waitForFunction(() => /Refreshed/.test(document.querySelector("#offline-status").textContent));
    const refreshed = await text("#offline-status");
    assert.match(refreshed, /1 changed, 1 deleted, 39 documents in the list/);
    assert.match(refreshed, /% of the prefetch's/);
    const share = await page.evaluate(() => document.querySelector("#offline-status").dataset.bytes);
    assert.ok(Number(share) > 0);
    server.mutate({ reset: true });
  } finally {
    await context.close();
  }
  assert.deepEqual(pageErrors.map(String), []);
});
