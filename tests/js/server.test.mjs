// Tests of the local fixture server (www/server.mjs), started in-process on
// port 0. Run: node --test tests/js/
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { startServer } from "../../www/server.mjs";
import { fixtures } from "../../www/fixtures.mjs";
import { compareText, parseInstant } from "../reference/spec.mjs";

const KEY = "test-key-9f8e";
/** @type {Awaited<ReturnType<typeof startServer>>} */
let api;
/** @type {Awaited<ReturnType<typeof startServer>>} */
let plain; // control off, temporary static root
let tmpRoot;
const logLines = [];

const WASM = Buffer.from([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]); // empty module

before(async () => {
  tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "fixture-server-"));
  fs.mkdirSync(path.join(tmpRoot, "www", "sub"), { recursive: true });
  fs.mkdirSync(path.join(tmpRoot, "pkg"), { recursive: true });
  const files = {
    "www/index.html": "<!doctype html><title>demo</title>",
    "www/style.css": "body{}",
    "www/app.js": "export const x = 1;",
    "www/mod.mjs": "export default 1;",
    "www/data.json": '{"a":1}',
    "www/icon.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
    "www/sub/index.html": "<p>sub</p>",
    "pkg/content_repo.js": "export default function init() {}",
    "pkg/package.json": '{"name":"content-repo"}',
    "secret.txt": "do not serve",
  };
  for (const [f, c] of Object.entries(files)) fs.writeFileSync(path.join(tmpRoot, f), c);
  fs.writeFileSync(path.join(tmpRoot, "www", "pixel.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  fs.writeFileSync(path.join(tmpRoot, "pkg", "content_repo_bg.wasm"), WASM);

  api = await startServer({ port: 0, apiKey: KEY, control: true, log: (l) => logLines.push(l) });
  plain = await startServer({ port: 0, apiKey: KEY, control: false, root: tmpRoot, log: (l) => logLines.push(l) });
});

after(async () => {
  await api?.close();
  await plain?.close();
  if (tmpRoot) fs.rmSync(tmpRoot, { recursive: true, force: true });
});

/**
 * GET (or other method) against a server; returns status, headers, text and parsed JSON.
 * @param {string} p path + query
 */
async function req(p, { auth = KEY, headers = {}, method = "GET", body, server = api } = {}) {
  const h = { ...headers };
  if (auth !== null) h.Authorization = auth;
  const res = await fetch(new URL(p, server.url), { method, headers: h, body });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const control = (p, body) =>
  fetch(new URL(p, api.url), {
    method: body === undefined ? "GET" : "POST",
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

async function script(body) {
  const r = await control("/__fixture/script", body);
  assert.equal(r.status, 200, await r.clone().text());
  return r.json();
}

/** A raw request with an exact request target (fetch would normalise `..`). */
function rawGet(server, target) {
  return new Promise((resolve, reject) => {
    const u = new URL(server.url);
    const r = http.request({ host: u.hostname, port: u.port, path: target, method: "GET" }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode, text: data, headers: res.headers }));
    });
    r.on("error", reject);
    r.end();
  });
}

const all = (p) => req(`${p}${p.includes("?") ? "&" : "?"}limit=1000`);
const enc = (s) => encodeURIComponent(s);
const q = (params) => new URLSearchParams(params).toString();

/** Independent check of SPEC §2's default order between neighbours. */
function assertDefaultOrder(docs) {
  for (let i = 1; i < docs.length; i++) {
    const a = parseInstant(docs[i - 1].meta.createdAt);
    const b = parseInstant(docs[i].meta.createdAt);
    assert.ok(a >= b, `createdAt DESC at ${i}`);
    if (a === b) assert.ok(BigInt(docs[i - 1].meta.id) > BigInt(docs[i].meta.id), `id DESC at ${i}`);
  }
}

/* ---------------------------------------------------------------------- */

describe("authorization", () => {
  test("401 without a key, with a wrong key, with a wrong scheme", async () => {
    // (Leading/trailing spaces cannot be tested: HTTP strips them from header values.)
    for (const auth of [null, "", "wrong", `${KEY}x`, `x${KEY}`, `bearer ${KEY}`, `Bearer  ${KEY}`, `Basic ${KEY}`, KEY.toUpperCase(), "demo-key"]) {
      const r = await req("/v1/demo/documents", { auth });
      assert.equal(r.status, 401, JSON.stringify(auth));
      assert.deepEqual(r.json, { message: "Invalid authentication credentials" });
      assert.equal(r.headers.get("access-control-allow-origin"), "*");
    }
  });

  test("the raw key and Bearer <key> are accepted", async () => {
    assert.equal((await req("/v1/demo", { auth: KEY })).status, 200);
    assert.equal((await req("/v1/demo", { auth: `Bearer ${KEY}` })).status, 200);
  });

  test("the default key is demo-key", async () => {
    const s = await startServer({ port: 0 });
    try {
      assert.equal((await req("/v1/demo", { auth: "demo-key", server: s })).status, 200);
      assert.equal((await req("/v1/demo", { auth: KEY, server: s })).status, 401);
    } finally {
      await s.close();
    }
  });

  test("the key never appears in log lines", () => {
    assert.ok(logLines.length > 0);
    assert.ok(logLines.every((l) => !l.includes(KEY)));
  });
});

describe("endpoints", () => {
  test("repository info", async () => {
    const r = await req("/v1/demo");
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type"), /^application\/json/);
    assert.equal(r.json.id, "demo");
    assert.deepEqual(r.json.contentTypes.map((c) => c.apiId), ["article", "product", "author", "asset"]);
    assert.ok(Array.isArray(r.json.locales));
  });

  test("all documents", async () => {
    const r = await all("/v1/demo/documents");
    assert.equal(r.json.meta.total, 300);
    assert.equal(r.json.data.length, 300);
    const types = new Set(r.json.data.map((d) => d.meta.contentType));
    assert.deepEqual([...types].sort(), ["article", "author", "product"]);
    assertDefaultOrder(r.json.data);
  });

  test("one document, by percent-decoded id", async () => {
    const d = fixtures.products[3];
    const r = await req(`/v1/demo/documents/${d.meta.id}`);
    assert.deepEqual(r.json, d);
    const encoded = [...d.meta.id].map((c) => `%${c.charCodeAt(0).toString(16)}`).join("");
    assert.deepEqual((await req(`/v1/%64emo/documents/${encoded}`)).json, d);
  });

  test("collections", async () => {
    for (const [apiId, ct, n] of [["articles", "article", 130], ["products", "product", 130], ["authors", "author", 40]]) {
      const r = await all(`/v1/demo/collections/${apiId}`);
      assert.equal(r.json.meta.total, n);
      assert.ok(r.json.data.every((d) => d.meta.contentType === ct));
      assertDefaultOrder(r.json.data);
    }
  });

  test("alias and assets", async () => {
    assert.deepEqual((await req("/v1/demo/alias/home")).json, fixtures.aliases.home);
    const a = fixtures.assets[1];
    const r = await req(`/v1/demo/assets/${a.meta.id}`);
    assert.deepEqual(r.json, a);
    assert.deepEqual(Object.keys(r.json.fields), ["title", "url", "mimeType", "size"]);
    assert.equal(r.json.meta.contentType, "asset");
    // Assets are not documents, documents are not assets.
    assert.equal((await req(`/v1/demo/documents/${a.meta.id}`)).status, 404);
    assert.equal((await req(`/v1/demo/assets/${fixtures.articles[0].meta.id}`)).status, 404);
  });

  test("404s carry {error: {message}}", async () => {
    for (const p of [
      "/v1/other",
      "/v1/other/documents",
      "/v1/demo/documents/1",
      "/v1/demo/collections/nope",
      "/v1/demo/alias/nope",
      "/v1/demo/assets/1",
      "/v1/demo/unknown",
      "/v1/demo/collections",
      `/v1/demo/documents/${fixtures.articles[0].meta.id}/extra`,
      "/v1",
      "/v1/",
    ]) {
      const r = await req(p);
      assert.equal(r.status, 404, p);
      assert.equal(typeof r.json.error.message, "string", p);
      assert.ok(r.json.error.message.length > 0);
    }
  });

  test("other methods are 405", async () => {
    const r = await req("/v1/demo/documents", { method: "DELETE" });
    assert.equal(r.status, 405);
    assert.ok(r.json.error.message);
  });
});

describe("lists", () => {
  test("envelope and default paging", async () => {
    const r = await req("/v1/demo/documents");
    assert.equal(r.json.status, "ok");
    assert.deepEqual(r.json.meta, { count: 25, limit: 25, offset: 0, total: 300 });
    assert.equal(r.json.data.length, 25);
    assert.equal("includes" in r.json, false);
  });

  test("limit, offset and total", async () => {
    const full = (await all("/v1/demo/documents")).json.data;
    const r = await req("/v1/demo/documents?limit=10&offset=5");
    assert.deepEqual(r.json.meta, { count: 10, limit: 10, offset: 5, total: 300 });
    assert.deepEqual(r.json.data, full.slice(5, 15));
    const end = await req("/v1/demo/documents?limit=10&offset=295");
    assert.deepEqual(end.json.meta, { count: 5, limit: 10, offset: 295, total: 300 });
    const past = await req("/v1/demo/documents?offset=1000");
    assert.deepEqual(past.json.meta, { count: 0, limit: 25, offset: 1000, total: 300 });
    assert.deepEqual(past.json.data, []);
    assert.equal((await req("/v1/demo/documents?limit=1")).json.data.length, 1);
  });

  test("embedAssets is accepted and ignored; locale is accepted and gives a variant", async () => {
    const plainList = (await req("/v1/demo/documents")).json;
    assert.deepEqual((await req("/v1/demo/documents?embedAssets=true")).json, plainList);
    const a = await req("/v1/demo/documents?locale=de_DE&embedAssets=true");
    assert.equal(a.status, 200);
    assert.notDeepEqual(a.json, plainList); // details in server-refresh.test.mjs
    assert.deepEqual(a.json.data.map((d) => d.meta.id), plainList.data.map((d) => d.meta.id));
    assert.equal((await req("/v1/demo/documents?locale=all")).status, 200);
  });
});

describe("sorting", () => {
  const titles = (r) => r.json.data.map((d) => d.fields.title);

  test("by a text field, by code point, missing/null last in both directions", async () => {
    for (const dir of ["ASC", "DESC"]) {
      const r = await all(`/v1/demo/collections/articles?${q({ "sorting[fields.title]": dir })}`);
      const t = titles(r);
      const present = t.filter((x) => x != null);
      assert.ok(present.length < t.length, "fixtures have missing/null titles");
      assert.deepEqual(t.slice(present.length).every((x) => x == null), true);
      for (let i = 1; i < present.length; i++) {
        const c = compareText(present[i - 1], present[i]);
        assert.ok(dir === "ASC" ? c <= 0 : c >= 0, `${dir} at ${i}: ${present[i - 1]} / ${present[i]}`);
      }
    }
    // Code point, not UTF-16: U+FF5E before the emoji in ASC.
    const t = titles(await all(`/v1/demo/collections/articles?${q({ "sorting[fields.title]": "ASC" })}`));
    assert.ok(t.indexOf("\uFF5E tilde") < t.indexOf("\u{1F600} Emoji news"));
  });

  test("each direction form", async () => {
    const base = (dir) => all(`/v1/demo/collections/products?${q({ "sorting[fields.price]": dir })}`);
    const asc = (await base("ASC")).json.data.map((d) => d.meta.id);
    const desc = (await base("DESC")).json.data.map((d) => d.meta.id);
    assert.notDeepEqual(asc, desc);
    for (const d of ["asc", "1", "Asc"]) assert.deepEqual((await base(d)).json.data.map((x) => x.meta.id), asc, d);
    for (const d of ["desc", "-1", "Desc"]) assert.deepEqual((await base(d)).json.data.map((x) => x.meta.id), desc, d);
    const prices = (await base("ASC")).json.data.map((d) => d.fields.price);
    const nums = prices.filter((p) => p != null);
    assert.deepEqual(nums, [...nums].sort((a, b) => a - b));
    assert.ok(prices.slice(nums.length).every((p) => p == null));
  });

  test("several keys: the first is primary; ties use the default order", async () => {
    const r = await all(`/v1/demo/collections/products?${q({ "sorting[fields.category]": "ASC", "sorting[fields.price]": "-1" })}`);
    const d = r.json.data;
    for (let i = 1; i < d.length; i++) {
      const [a, b] = [d[i - 1].fields, d[i].fields];
      const c = compareText(a.category, b.category);
      assert.ok(c <= 0, `category ASC at ${i}`);
      if (c === 0 && a.price != null && b.price != null) assert.ok(a.price >= b.price, `price DESC at ${i}`);
      if (c === 0 && a.price == null) assert.ok(b.price == null, `missing price last at ${i}`);
      if (c === 0 && a.price === b.price) assertDefaultOrder([d[i - 1], d[i]]);
    }
    // Reversing the key order gives a different order.
    const r2 = await all(`/v1/demo/collections/products?${q({ "sorting[fields.price]": "-1", "sorting[fields.category]": "ASC" })}`);
    assert.notDeepEqual(r2.json.data.map((x) => x.meta.id), d.map((x) => x.meta.id));
  });

  test("meta.id as a decimal number; meta.createdAt as instants", async () => {
    const ids = (await all(`/v1/demo/documents?${q({ "sorting[meta.id]": "ASC" })}`)).json.data.map((d) => d.meta.id);
    assert.deepEqual(ids, [...ids].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)));
    const c = (await all(`/v1/demo/documents?${q({ "sorting[meta.createdAt]": "ASC" })}`)).json.data;
    for (let i = 1; i < c.length; i++) {
      const a = parseInstant(c[i - 1].meta.createdAt);
      const b = parseInstant(c[i].meta.createdAt);
      assert.ok(a <= b);
      if (a === b) assert.ok(BigInt(c[i - 1].meta.id) > BigInt(c[i].meta.id), "tie → id DESC");
    }
  });

  test("instants with offsets sort by the instant", async () => {
    const d = (await all(`/v1/demo/collections/articles?${q({ "sorting[fields.publishedAt]": "ASC" })}`)).json.data;
    const pinned = [1, 2, 3, 4].map((i) => fixtures.articles[i].meta.id);
    const pos = pinned.map((id) => d.findIndex((x) => x.meta.id === id));
    // The first three are the same instant (adjacent), the fourth is 1 ns later.
    const same = pos.slice(0, 3).sort((a, b) => a - b);
    assert.equal(same[2] - same[0], 2);
    assert.equal(pos[3], same[2] + 1);
  });
});

describe("field selection", () => {
  test("shorthand, meta whole unless named", async () => {
    const r = await req(`/v1/demo/collections/articles?${q({ fields: "title", limit: 50 })}`);
    for (const d of r.json.data) {
      assert.deepEqual(Object.keys(d).sort(), ["fields", "meta"]);
      assert.ok(Object.keys(d.fields).every((k) => k === "title"));
      assert.deepEqual(Object.keys(d.meta), ["id", "contentType", "repository", "revision", "tags", "createdAt", "updatedAt"]);
    }
    const explicit = await req(`/v1/demo/collections/articles?${q({ fields: "fields(title),meta", limit: 50 })}`);
    assert.deepEqual(explicit.json, r.json);
    const missing = r.json.data.filter((d) => !("title" in d.fields));
    assert.ok(missing.every((d) => Object.keys(d.fields).length === 0));
  });

  test("meta only, meta keys, *", async () => {
    const m = await req(`/v1/demo/documents?${q({ fields: "meta/id" })}`);
    assert.ok(m.json.data.every((d) => Object.keys(d).length === 1 && Object.keys(d.meta).join() === "id"));
    assert.deepEqual(m.json.meta, { count: 25, limit: 25, offset: 0, total: 300 });
    const mm = await req(`/v1/demo/documents?${q({ fields: "meta" })}`);
    assert.ok(mm.json.data.every((d) => !("fields" in d) && Object.keys(d.meta).length === 7));
    const mixed = await req(`/v1/demo/documents?${q({ fields: "meta(id,tags),slug" })}`);
    for (const d of mixed.json.data) assert.deepEqual(Object.keys(d.meta).sort(), ["id", "tags"]);
    const star = await req(`/v1/demo/documents?${q({ fields: "*" })}`);
    assert.deepEqual(star.json, (await req("/v1/demo/documents")).json);
  });

  test("arrays of objects: gallery/url and gallery/*/url", async () => {
    const base = (await all("/v1/demo/collections/products")).json.data;
    for (const sel of ["gallery/url", "gallery/*/url"]) {
      const r = (await all(`/v1/demo/collections/products?${q({ fields: sel })}`)).json.data;
      r.forEach((d, i) => {
        const g = base[i].fields.gallery;
        if (Array.isArray(g)) assert.deepEqual(d.fields.gallery, g.map((x) => ({ url: x.url })), sel);
        else assert.equal("gallery" in d.fields, false, sel); // missing or null with a path left
      });
    }
    assert.ok(base.some((d) => Array.isArray(d.fields.gallery) && d.fields.gallery.length === 0), "some galleries are empty");
  });

  test("nested objects and several items on one parent merge", async () => {
    const r = (await all(`/v1/demo/collections/products?${q({ fields: "author(name),author(country),price" })}`)).json.data;
    const base = (await all("/v1/demo/collections/products")).json.data;
    r.forEach((d, i) => {
      const a = base[i].fields.author;
      if (a && typeof a === "object") {
        const expected = { name: a.name };
        if ("country" in a) expected.country = a.country;
        assert.deepEqual(d.fields.author, expected);
      } else if (a === undefined || a === null) {
        assert.equal("author" in d.fields, false);
      }
    });
  });

  test("includes scope", async () => {
    const r = await req(`/v1/demo/collections/products?${q({ includes: "1", fields: "title,includes(author/fields/name)" })}`);
    assert.ok(Array.isArray(r.json.includes.author) && r.json.includes.author.length > 0);
    for (const a of r.json.includes.author) {
      assert.deepEqual(Object.keys(a), ["fields"]);
      assert.deepEqual(Object.keys(a.fields), ["name"]);
    }
    const whole = await req(`/v1/demo/collections/products?${q({ includes: "1", fields: "title" })}`);
    assert.ok(whole.json.includes.author.every((a) => a.meta.contentType === "author" && "fields" in a));
    // Every referenced author of the page is included.
    const ids = new Set(whole.json.includes.author.map((a) => a.meta.id));
    const full = await req(`/v1/demo/collections/products?${q({ includes: "1" })}`);
    for (const d of full.json.data) if (d.fields.author?.id) assert.ok(ids.has(d.fields.author.id));
    const perField = await req(`/v1/demo/collections/products?${q({ "includes[product.fields.author]": "1" })}`);
    assert.deepEqual(perField.json.includes, full.json.includes);
  });

  test("single documents", async () => {
    const d = fixtures.products.find((p) => Array.isArray(p.fields.gallery) && p.fields.gallery.length > 1);
    const r = await req(`/v1/demo/documents/${d.meta.id}?${q({ fields: "title,gallery/*/url,meta/id" })}`);
    const expected = { fields: { gallery: d.fields.gallery.map((g) => ({ url: g.url })) }, meta: { id: d.meta.id } };
    if ("title" in d.fields) expected.fields.title = d.fields.title;
    assert.deepEqual(r.json, expected);
    const a = await req(`/v1/demo/alias/home?${q({ fields: "meta/id" })}`);
    assert.deepEqual(a.json, { meta: { id: fixtures.aliases.home.meta.id } });
  });
});

describe("tags, search, filters", () => {
  const count = (pred) => fixtures.documents.filter(pred).length;
  const has = (d, t) => d.meta.tags.includes(t);

  test("includeTags and excludeTags", async () => {
    const r = await all(`/v1/demo/documents?${q({ "includeTags[0]": "featured" })}`);
    assert.equal(r.json.meta.total, count((d) => has(d, "featured")));
    assert.ok(r.json.meta.total > 0 && r.json.data.every((d) => has(d, "featured")));
    const two = await all(`/v1/demo/documents?${q({ "includeTags[0]": "featured", "includeTags[1]": "sale" })}`);
    assert.equal(two.json.meta.total, count((d) => has(d, "featured") && has(d, "sale")));
    const ex = await all(`/v1/demo/documents?${q({ "excludeTags[0]": "draft", "excludeTags[1]": "été" })}`);
    assert.equal(ex.json.meta.total, count((d) => !has(d, "draft") && !has(d, "été")));
    assert.ok(ex.json.meta.total > 0 && ex.json.meta.total < 300);
    const accent = await all(`/v1/demo/documents?${q({ "includeTags[0]": "été" })}`);
    assert.ok(accent.json.meta.total > 0);
  });

  test("search: case-insensitive substring of any string in fields, nested", async () => {
    const strings = (v) => (typeof v === "string" ? [v] : v && typeof v === "object" ? Object.values(v).flatMap(strings) : []);
    for (const term of ["ZÜRICH", "writes about", "assets.example.com/demo/logo", "日本"]) {
      const r = await all(`/v1/demo/documents?${q({ search: term })}`);
      const n = count((d) => strings(d.fields).some((s) => s.toLowerCase().includes(term.toLowerCase())));
      assert.ok(n > 0, term);
      assert.equal(r.json.meta.total, n, term);
    }
    // meta is not searched
    assert.equal((await req(`/v1/demo/documents?${q({ search: fixtures.documents[0].meta.id })}`)).json.meta.total, 0);
  });

  test("filters: equal, and/or, greaterThan/lessThan, contains, notEqual", async () => {
    const f = async (params) => (await all(`/v1/demo/documents?${q(params)}`)).json;
    const books = await f({ "filters[0][*.fields.category][equal]": "books" });
    assert.equal(books.meta.total, count((d) => d.fields.category === "books"));
    assert.ok(books.meta.total > 0);
    const range = await f({
      "filters[0][product.fields.price][greaterThan]": "50",
      "filters[1][and][product.fields.price][lessThan]": "150",
    });
    assert.equal(range.meta.total, count((d) => d.meta.contentType === "product" && d.fields.price > 50 && d.fields.price < 150));
    const either = await f({
      "filters[0][*.fields.category][equal]": "books",
      "filters[1][or][*.fields.category][equal]": "toys",
    });
    assert.equal(either.meta.total, count((d) => d.fields.category === "books" || d.fields.category === "toys"));
    const mid = "500000000000000000";
    const ids = await f({ "filters[0][*.meta.id][greaterThan]": mid });
    assert.equal(ids.meta.total, count((d) => BigInt(d.meta.id) > BigInt(mid)));
    const contains = await f({ "filters[0][article.fields.title][contains]": "ZEBRA" });
    assert.equal(contains.meta.total, count((d) => d.meta.contentType === "article" && typeof d.fields.title === "string" && d.fields.title.toLowerCase().includes("zebra")));
    assert.ok(contains.meta.total > 0);
    const ne = await f({ "filters[0][author.fields.active][notEqual]": "true" });
    assert.equal(ne.meta.total, count((d) => d.meta.contentType === "author" && d.fields.active !== true));
    const multi = await f({ "filters[0][*.fields.keywords][equal]": "rust" });
    assert.equal(multi.meta.total, count((d) => Array.isArray(d.fields.keywords) && d.fields.keywords.includes("rust")));
    const tags = await f({ "filters[0][*.meta.tags][equal]": "sale" });
    assert.equal(tags.meta.total, count((d) => has(d, "sale")));
  });

  test("order of operations: filter → sort → page, total after filtering", async () => {
    const r = await req(`/v1/demo/documents?${q({ "includeTags[0]": "sale", "sorting[fields.title]": "ASC", limit: "5", offset: "2", fields: "title" })}`);
    const full = await all(`/v1/demo/documents?${q({ "includeTags[0]": "sale", "sorting[fields.title]": "ASC", fields: "title" })}`);
    assert.equal(r.json.meta.total, count((d) => has(d, "sale")));
    assert.deepEqual(r.json.data, full.json.data.slice(2, 7));
  });
});

describe("400 errors", () => {
  const bad = [
    ["sorting[title]=ASC", /did you mean "fields\.title"/],
    ["sorting[Fields.title]=ASC", /sort key/],
    ["sorting[fields.a.b]=ASC", /sort key/],
    ["sorting[fields.title]=up", /"up"/],
    ["sorting[fields.title]=", /direction/],
    ["sorting[fields.title]=ASC&sorting[fields.title]=DESC", /more than once/],
    ["fields=a,,b", /at 2/],
    ["fields=", /at 0/],
    [`fields=${enc("titlé")}`, /at 4/],
    ["fields=*/a", /at 1/],
    ["limit=0", /limit/],
    ["limit=1001", /limit/],
    ["limit=abc", /limit/],
    ["limit=1.5", /limit/],
    ["limit=-1", /limit/],
    ["limit=", /limit/],
    ["offset=-1", /offset/],
    ["offset=x", /offset/],
    ["offset=1e3", /offset/],
    ["limit=5&limit=6", /more than once/],
    ["includes=6", /includes/],
    ["includes=0", /includes/],
    ["includes[title]=1", /includes/],
    ["embedAssets=maybe", /embedAssets/],
    ["unknown=1", /unknown query parameter "unknown"/],
    ["Limit=5", /unknown query parameter/],
    ["includeTags=x", /unknown query parameter/],
    ["filters[0][*.fields.a][like]=x", /operator/],
    ["filters[0][title][equal]=x", /filter field/],
    ["filters[0][*.other.a][equal]=x", /filter field/],
    ["filters[x][*.fields.a][equal]=x", /filter parameter/],
    ["filters[0][xor][*.fields.a][equal]=x", /filter/],
    ["locale=", /locale/],
    ["locale=de%20DE", /locale/],
    ["filters[0][*.meta.updatedAt][greaterThanOrEquals]=2024-01-01T00:00:00Z", /operator/],
  ];
  for (const [query, message] of bad) {
    test(query, async () => {
      const r = await req(`/v1/demo/documents?${query}`);
      assert.equal(r.status, 400);
      assert.equal(typeof r.json.error.message, "string");
      assert.match(r.json.error.message, message);
    });
  }

  test("single documents validate too", async () => {
    const r = await req(`/v1/demo/documents/${fixtures.articles[0].meta.id}?fields=a(`);
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /expected a name at 2/);
  });

  test("401 comes before 400 and 404", async () => {
    assert.equal((await req("/v1/demo/documents?limit=0", { auth: null })).status, 401);
    assert.equal((await req("/v1/nope", { auth: null })).status, 401);
  });
});

describe("CORS", () => {
  const check = (h) => {
    assert.equal(h.get("access-control-allow-origin"), "*");
    assert.equal(h.get("access-control-allow-headers"), "Authorization, Content-Type");
    assert.equal(h.get("access-control-expose-headers"), "Retry-After");
  };

  test("on every response", async () => {
    for (const [p, auth] of [["/v1/demo", KEY], ["/v1/demo", null], ["/v1/demo/nope", KEY], ["/v1/demo/documents?limit=0", KEY], ["/fixtures.mjs", null], ["/nope.txt", null]]) {
      check((await req(p, { auth })).headers);
    }
  });

  test("OPTIONS preflight is 204 without authorization", async () => {
    const r = await fetch(new URL("/v1/demo/documents?limit=1", api.url), {
      method: "OPTIONS",
      headers: { Origin: "http://example.test", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    assert.equal(r.status, 204);
    check(r.headers);
    assert.equal(await r.text(), "");
  });
});

describe("static files", () => {
  const types = [
    ["/", "text/html", "<!doctype html><title>demo</title>"],
    ["/index.html", "text/html", null],
    ["/style.css", "text/css", "body{}"],
    ["/app.js", "text/javascript", null],
    ["/mod.mjs", "text/javascript", null],
    ["/data.json", "application/json", null],
    ["/icon.svg", "image/svg+xml", null],
    ["/pixel.png", "image/png", null],
    ["/sub/", "text/html", "<p>sub</p>"],
    ["/sub", "text/html", "<p>sub</p>"],
    ["/pkg/content_repo.js", "text/javascript", null],
    ["/pkg/package.json", "application/json", null],
    ["/pkg/content_repo_bg.wasm", "application/wasm", null],
  ];
  for (const [p, type, body] of types) {
    test(`${p} → ${type}`, async () => {
      const r = await req(p, { auth: null, server: plain });
      assert.equal(r.status, 200);
      assert.ok(r.headers.get("content-type").startsWith(type), r.headers.get("content-type"));
      if (body !== null) assert.equal(r.text, body);
    });
  }

  test("wasm can be compiled with compileStreaming (needs application/wasm)", async () => {
    const mod = await WebAssembly.compileStreaming(fetch(new URL("/pkg/content_repo_bg.wasm", plain.url)));
    assert.ok(mod instanceof WebAssembly.Module);
  });

  test("the repository's www/ is the default root", async () => {
    const r = await req("/fixtures.mjs", { auth: null });
    assert.equal(r.status, 200);
    assert.ok(r.headers.get("content-type").startsWith("text/javascript"));
    assert.match(r.text, /export function buildFixtures/);
  });

  test("no directory traversal", async () => {
    for (const target of ["/../secret.txt", "/pkg/../secret.txt", "/%2e%2e/secret.txt", "/pkg/%2E%2E/secret.txt", "/..%2fsecret.txt", "/sub/..%5c..%5csecret.txt", "/%00"]) {
      const r = await rawGet(plain, target);
      assert.ok(r.status === 400 || r.status === 404, `${target}: ${r.status}`);
      assert.ok(!r.text.includes("do not serve"), target);
    }
    assert.equal((await req("/missing.html", { auth: null, server: plain })).status, 404);
    assert.equal((await req("/pkg/missing.wasm", { auth: null, server: plain })).status, 404);
  });
});

describe("test control", () => {
  test("request log: method, url as received, authorization", async () => {
    await control("/__fixture/reset", {});
    const url = "/v1/demo/documents?sorting%5Bfields.title%5D=ASC&fields=title%2Cmeta&limit=3";
    await req(url);
    await req("/v1/demo", { auth: null });
    await fetch(new URL("/v1/demo", api.url), { method: "OPTIONS" });
    await req("/fixtures.mjs", { auth: null }); // static: not logged
    const log = await (await control("/__fixture/requests")).json();
    assert.deepEqual(log, [
      { method: "GET", url, authorization: KEY },
      { method: "GET", url: "/v1/demo", authorization: null },
      { method: "OPTIONS", url: "/v1/demo", authorization: null },
    ]);
    await control("/__fixture/reset", {});
    assert.deepEqual(await (await control("/__fixture/requests")).json(), []);
  });

  test("scripted 429 with Retry-After, then 503, then normal", async () => {
    await control("/__fixture/reset", {});
    const out = await script({ responses: [{ status: 429, retryAfter: 2 }, { status: 503, body: { error: { message: "maintenance" } } }] });
    assert.equal(out.queued, 2);
    const a = await req("/v1/demo/documents");
    assert.equal(a.status, 429);
    assert.equal(a.headers.get("retry-after"), "2");
    assert.equal(a.headers.get("access-control-expose-headers"), "Retry-After");
    assert.equal(typeof a.json.error.message, "string");
    const b = await req("/v1/demo/documents");
    assert.equal(b.status, 503);
    assert.deepEqual(b.json, { error: { message: "maintenance" } });
    const c = await req("/v1/demo/documents");
    assert.equal(c.status, 200);
    assert.equal(c.json.status, "ok");
  });

  test("truncated and not-json bodies", async () => {
    await control("/__fixture/reset", {});
    await script({ responses: [{ kind: "truncated" }, { kind: "not-json", status: 502 }, { kind: "truncated", body: { data: [1, 2, 3] } }] });
    const t = await req("/v1/demo/documents");
    assert.equal(t.status, 200);
    assert.match(t.headers.get("content-type"), /json/);
    assert.equal(t.json, undefined, "not parseable");
    assert.ok(t.text.startsWith('{"status":"ok"'));
    const n = await req("/v1/demo/documents");
    assert.equal(n.status, 502);
    assert.match(n.headers.get("content-type"), /text\/html/);
    assert.equal(n.json, undefined);
    assert.match(n.text, /<html/);
    const t2 = await req("/v1/demo");
    assert.equal(t2.text, '{"data":'); // the first half of {"data":[1,2,3]}
  });

  test("match: only matching requests take a scripted response", async () => {
    await control("/__fixture/reset", {});
    await script({ match: "/collections/products", responses: [{ status: 500 }] });
    assert.equal((await req("/v1/demo/documents")).status, 200);
    assert.equal((await req("/v1/demo/collections/articles")).status, 200);
    assert.equal((await req("/v1/demo/collections/products?limit=1")).status, 500);
    assert.equal((await req("/v1/demo/collections/products?limit=1")).status, 200);
    // match also sees the query
    await script({ responses: [{ status: 404, match: "limit=7" }] });
    assert.equal((await req("/v1/demo/documents?limit=6")).status, 200);
    assert.equal((await req("/v1/demo/documents?limit=7")).status, 404);
  });

  test("scripted responses apply before authorization", async () => {
    await control("/__fixture/reset", {});
    await script({ responses: [{ status: 200, body: { ok: 1 } }] });
    const r = await req("/v1/demo", { auth: null });
    assert.deepEqual(r.json, { ok: 1 });
  });

  test("delays: delayMs and X-Fixture-Delay", async () => {
    await control("/__fixture/reset", {});
    await script({ responses: [{ delayMs: 250 }] });
    let t0 = Date.now();
    const r = await req("/v1/demo?x");
    assert.ok(Date.now() - t0 >= 230, "scripted delay");
    assert.equal(r.status, 400); // normal response: unknown parameter x
    t0 = Date.now();
    const r2 = await req("/v1/demo", { headers: { "X-Fixture-Delay": "200" } });
    assert.ok(Date.now() - t0 >= 180, "header delay");
    assert.equal(r2.status, 200);
    // An aborted request during a delay does not break the server.
    const ac = new AbortController();
    const p = fetch(new URL("/v1/demo", api.url), { headers: { Authorization: KEY, "X-Fixture-Delay": "5000" }, signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await assert.rejects(p);
    assert.equal((await req("/v1/demo")).status, 200);
  });

  test("disconnect: a network error", async () => {
    await control("/__fixture/reset", {});
    await script({ responses: [{ kind: "disconnect" }] });
    await assert.rejects(fetch(new URL("/v1/demo", api.url), { headers: { Authorization: KEY } }));
    assert.equal((await req("/v1/demo")).status, 200);
  });

  test("bounds and validation", async () => {
    await control("/__fixture/reset", {});
    const tooMany = await control("/__fixture/script", { responses: Array.from({ length: 101 }, () => ({ status: 500 })) });
    assert.equal(tooMany.status, 400);
    for (const bad of [
      { responses: [{ delayMs: 30001 }] },
      { responses: [{ delayMs: -1 }] },
      { responses: [{ status: 99 }] },
      { responses: [{ kind: "weird" }] },
      { responses: [{ retryAfter: "1\r\nX: y" }] },
      { responses: [{ unknown: 1 }] },
      { responses: "nope" },
      {},
    ]) {
      const r = await control("/__fixture/script", bad);
      assert.equal(r.status, 400, JSON.stringify(bad));
      assert.ok((await r.json()).error.message);
    }
    const notJson = await fetch(new URL("/__fixture/script", api.url), { method: "POST", body: "{" });
    assert.equal(notJson.status, 400);
    // Nothing was queued by the rejected scripts.
    assert.equal((await req("/v1/demo")).status, 200);
  });

  test("without control: 404, no log, no header delay", async () => {
    for (const [p, method] of [["/__fixture/requests", "GET"], ["/__fixture/reset", "POST"], ["/__fixture/script", "POST"]]) {
      const r = await fetch(new URL(p, plain.url), { method, body: method === "POST" ? '{"responses":[{"status":500}]}' : undefined });
      assert.equal(r.status, 404, p);
    }
    const t0 = Date.now();
    const r = await req("/v1/demo", { server: plain, headers: { "X-Fixture-Delay": "3000" } });
    assert.equal(r.status, 200);
    assert.ok(Date.now() - t0 < 2000);
  });
});

describe("the command line (npm start)", () => {
  const script = path.join(path.dirname(new URL(import.meta.url).pathname), "../../www/server.mjs");
  /** Runs `node www/server.mjs --check` with `env`: its exit code and standard error. */
  const check = (env) =>
    new Promise((resolve) => {
      execFile(process.execPath, [script, "--check"], { env: { ...process.env, ...env }, timeout: 10_000 }, (error, _out, err) =>
        resolve({ code: error ? error.code : 0, err }),
      );
    });

  test("--check: a free port passes, a busy one fails before the build with a PORT to try, an odd PORT is refused", async () => {
    const busy = http.createServer();
    await new Promise((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = /** @type {import("node:net").AddressInfo} */ (busy.address()).port;
    try {
      const taken = await check({ PORT: String(port), HOST: "127.0.0.1" });
      assert.equal(taken.code, 1, taken.err);
      assert.match(taken.err, new RegExp(`127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*; another port: PORT=\\d+ npm start`));
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
    const free = await check({ PORT: String(port), HOST: "127.0.0.1" });
    assert.equal(free.code, 0, free.err);
    for (const odd of ["1.5e3", "0x1F90", "-1", "65536", " 80"]) {
      const refused = await check({ PORT: odd });
      assert.equal(refused.code, 2, `PORT=${odd}: ${refused.err}`);
      assert.match(refused.err, /invalid PORT/);
    }
  });
});
