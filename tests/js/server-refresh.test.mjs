// Tests of what the fixture server (www/server.mjs) offers a delta refresh
// (SPEC §6): filters with every comparison operator, meta-only selections,
// sorting by meta keys, locale variants, live changes (mutate) and traffic
// counters. Expected values are computed here from the fixture data with
// plain JavaScript (Date.parse, BigInt, code points), not with the server's
// or the reference's functions.
// Run: node --test --test-concurrency=1 tests/js/server-refresh.test.mjs
import { test, describe, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";

import { startServer } from "../../www/server.mjs";
import { fixtures } from "../../www/fixtures.mjs";

const KEY = "refresh-key-31c7";
/** @type {Awaited<ReturnType<typeof startServer>>} */
let api; // control on, never mutated
/** @type {Awaited<ReturnType<typeof startServer>>} */
let plain; // control off
/** @type {Awaited<ReturnType<typeof startServer>>} */
let live; // control on, mutated (reset before each test that uses it)

/** A deep copy of the fixture documents, to check later that they never change. */
const PRISTINE = JSON.stringify(fixtures.documents);

before(async () => {
  api = await startServer({ port: 0, apiKey: KEY, control: true });
  plain = await startServer({ port: 0, apiKey: KEY, control: false });
  live = await startServer({ port: 0, apiKey: KEY, control: true });
});

after(async () => {
  await api?.close();
  await plain?.close();
  await live?.close();
});

/**
 * A request; returns status, text and parsed JSON.
 * @param {string} p path + query
 */
async function req(p, { server = api, method = "GET", auth = KEY, body, headers = {} } = {}) {
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

const q = (params) => new URLSearchParams(params).toString();
/** The whole list (limit 1000) for a path and query parameters. */
const list = async (p, params = {}, server = api) => {
  const r = await req(`${p}?${q({ ...params, limit: "1000" })}`, { server });
  assert.equal(r.status, 200, r.text);
  return r.json;
};
const ids = (docs) => docs.map((d) => d.meta.id);
const sortedIds = (docs) => ids(docs).sort();
const ms = (s) => Date.parse(s);

/** Code-point comparison, written independently of the reference. */
function cp(a, b) {
  const x = [...a].map((c) => c.codePointAt(0));
  const y = [...b].map((c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

/** SPEC §2 default order (createdAt DESC, id DESC) as a comparator, for ties. */
const defaultOrder = (a, b) =>
  ms(b.meta.createdAt) - ms(a.meta.createdAt) || (BigInt(b.meta.id) > BigInt(a.meta.id) ? 1 : BigInt(b.meta.id) < BigInt(a.meta.id) ? -1 : 0);

/** An instant written with an offset (`+05:30`) that denotes the same instant as `iso`. */
function withOffset(iso, minutes = 330) {
  const local = new Date(ms(iso) + minutes * 60000).toISOString().slice(0, 23);
  const sign = minutes < 0 ? "-" : "+";
  const a = Math.abs(minutes);
  return `${local}${sign}${String(Math.floor(a / 60)).padStart(2, "0")}:${String(a % 60).padStart(2, "0")}`;
}

const DOCS = fixtures.documents;
/** The median updatedAt (the fixtures have no two equal ones; a tie is made in "live changes"). */
const PIVOT = [...DOCS].map((d) => d.meta.updatedAt).sort((a, b) => ms(a) - ms(b))[150];
/** The createdAt shared by the most documents (ties at a boundary). */
const TIED_CREATED = (() => {
  const counts = new Map();
  for (const d of DOCS) counts.set(d.meta.createdAt, (counts.get(d.meta.createdAt) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0][0];
})();
const LATEST = DOCS.reduce((m, d) => Math.max(m, ms(d.meta.createdAt), ms(d.meta.updatedAt)), 0);

/* ---------------------------------------------------------------------- */

describe("filters", () => {
  const count = (pred) => DOCS.filter(pred);

  test("meta.updatedAt with each operator, by instant (also written with an offset)", async () => {
    const t = ms(PIVOT);
    const cases = {
      greaterThan: (d) => ms(d.meta.updatedAt) > t,
      greaterThanOrEqual: (d) => ms(d.meta.updatedAt) >= t,
      lessThan: (d) => ms(d.meta.updatedAt) < t,
      lessThanOrEqual: (d) => ms(d.meta.updatedAt) <= t,
      equal: (d) => ms(d.meta.updatedAt) === t,
      notEqual: (d) => ms(d.meta.updatedAt) !== t,
    };
    for (const [op, pred] of Object.entries(cases)) {
      const expected = count(pred);
      assert.ok(expected.length > 0, op);
      for (const value of [PIVOT, withOffset(PIVOT), withOffset(PIVOT, -570)]) {
        const r = await list("/v1/demo/documents", { [`filters[0][*.meta.updatedAt][${op}]`]: value });
        assert.equal(r.meta.total, expected.length, `${op} ${value}`);
        assert.deepEqual(sortedIds(r.data), sortedIds(expected), `${op} ${value}`);
      }
    }
    assert.equal(count(cases.equal).length, 1);
    assert.equal(count(cases.greaterThanOrEqual).length - count(cases.greaterThan).length, 1);
    // Nanosecond precision: 1 ns after the pivot excludes it.
    const after1ns = `${PIVOT.slice(0, 23)}000001Z`;
    const r = await list("/v1/demo/documents", { "filters[0][*.meta.updatedAt][greaterThanOrEqual]": after1ns });
    assert.equal(r.meta.total, count(cases.greaterThan).length);
  });

  test("meta.createdAt, meta.revision (numbers), meta.id (decimal)", async () => {
    const r1 = await list("/v1/demo/documents", { "filters[0][*.meta.revision][greaterThanOrEqual]": "6" });
    assert.equal(r1.meta.total, count((d) => d.meta.revision >= 6).length);
    const r2 = await list("/v1/demo/documents", { "filters[0][*.meta.revision][lessThanOrEqual]": "6.0" });
    assert.equal(r2.meta.total, count((d) => d.meta.revision <= 6).length);
    const r3 = await list("/v1/demo/documents", { "filters[0][*.meta.revision][equal]": "6e0" });
    assert.equal(r3.meta.total, count((d) => d.meta.revision === 6).length);
    assert.ok(r3.meta.total > 0 && r1.meta.total + r2.meta.total === 300 + r3.meta.total);
    const mid = [...DOCS].map((d) => BigInt(d.meta.id)).sort((a, b) => (a < b ? -1 : 1))[150].toString();
    const r4 = await list("/v1/demo/documents", { "filters[0][*.meta.id][lessThanOrEqual]": mid });
    assert.equal(r4.meta.total, 151);
    const r5 = await list("/v1/demo/documents", { "filters[0][*.meta.id][greaterThanOrEqual]": mid });
    assert.equal(r5.meta.total, 150);
    // A boundary with ties: >= has the tied documents that > has not.
    const tied = count((d) => d.meta.createdAt === TIED_CREATED);
    assert.ok(tied.length >= 2, "some createdAt values repeat");
    const gt = await list("/v1/demo/documents", { "filters[0][*.meta.createdAt][greaterThan]": TIED_CREATED });
    const ge = await list("/v1/demo/documents", { "filters[0][*.meta.createdAt][greaterThanOrEqual]": withOffset(TIED_CREATED, -300) });
    assert.equal(gt.meta.total, count((d) => ms(d.meta.createdAt) > ms(TIED_CREATED)).length);
    assert.deepEqual(sortedIds(ge.data), sortedIds([...gt.data, ...tied]));
    const lt = await list("/v1/demo/documents", { "filters[0][*.meta.createdAt][lessThan]": TIED_CREATED });
    assert.equal(lt.meta.total, 300 - ge.meta.total);
  });

  test("fields: numbers numerically, text by code point, instants by instant", async () => {
    const products = fixtures.products;
    for (const [op, pred] of [
      ["greaterThanOrEqual", (p) => p >= 9.99],
      ["lessThanOrEqual", (p) => p <= 9.99],
      ["lessThan", (p) => p < 9.99],
    ]) {
      const r = await list("/v1/demo/collections/products", { [`filters[0][product.fields.price][${op}]`]: "9.99" });
      assert.equal(r.meta.total, products.filter((d) => typeof d.fields.price === "number" && pred(d.fields.price)).length, op);
    }
    for (const [op, pred] of [["greaterThanOrEqual", (c) => c >= 0], ["lessThan", (c) => c < 0]]) {
      const r = await list("/v1/demo/collections/articles", { [`filters[0][article.fields.title][${op}]`]: "Zebra" });
      const expected = fixtures.articles.filter((d) => typeof d.fields.title === "string" && pred(cp(d.fields.title, "Zebra")));
      assert.deepEqual(sortedIds(r.data), sortedIds(expected), op);
    }
    // U+FF5E sorts before an emoji by code point (not by UTF-16 unit).
    const t = await list("/v1/demo/collections/articles", { "filters[0][article.fields.title][lessThanOrEqual]": "\uFF5E tilde" });
    assert.ok(!t.data.some((d) => d.fields.title === "\u{1F600} Emoji news"));
    assert.ok(t.data.some((d) => d.fields.title === "\uFF5E tilde"));
    // The pinned publishedAt values: three ways to write 10:00Z, and 1 ns later.
    const pinned = [1, 2, 3, 4].map((i) => fixtures.articles[i].meta.id);
    const eq = await list("/v1/demo/collections/articles", { "filters[0][article.fields.publishedAt][equal]": "2024-03-01T11:00:00+01:00" });
    assert.deepEqual(sortedIds(eq.data), pinned.slice(0, 3).sort());
    const gt = await list("/v1/demo/collections/articles", {
      "filters[0][article.fields.publishedAt][greaterThan]": "2024-03-01T10:00:00Z",
      "filters[1][and][article.fields.publishedAt][lessThanOrEqual]": "2024-03-01T10:00:00.000000001Z",
    });
    assert.deepEqual(ids(gt.data), [pinned[3]]);
  });

  test("and/or join left to right (no precedence), in index order", async () => {
    const books = (d) => d.fields.category === "books";
    const toys = (d) => d.fields.category === "toys";
    const rev = (d) => d.meta.revision > 6;
    const leftToRight = count((d) => (books(d) || toys(d)) && rev(d));
    const precedence = count((d) => books(d) || (toys(d) && rev(d)));
    assert.notEqual(leftToRight.length, precedence.length, "the data tells the two readings apart");
    const params = {
      "filters[2][and][*.meta.revision][greaterThan]": "6",
      "filters[0][*.fields.category][equal]": "books",
      "filters[1][or][*.fields.category][equal]": "toys",
    };
    const r = await list("/v1/demo/documents", params);
    assert.deepEqual(sortedIds(r.data), sortedIds(leftToRight));
    // The brief's example: a time window and one id.
    const one = DOCS.find((d) => ms(d.meta.updatedAt) >= ms(PIVOT));
    const r2 = await list("/v1/demo/documents", {
      "filters[0][*.meta.updatedAt][greaterThanOrEqual]": PIVOT,
      "filters[1][and][*.meta.id][equal]": one.meta.id,
    });
    assert.deepEqual(ids(r2.data), [one.meta.id]);
    // A content type other than * is false for other types, also under "or".
    const r3 = await list("/v1/demo/documents", {
      "filters[0][author.meta.revision][greaterThan]": "10",
      "filters[1][or][product.meta.revision][lessThan]": "2",
    });
    const e3 = count((d) => (d.meta.contentType === "author" && d.meta.revision > 10) || (d.meta.contentType === "product" && d.meta.revision < 2));
    assert.deepEqual(sortedIds(r3.data), sortedIds(e3));
    assert.ok(e3.length > 0);
  });

  test("filter before sort and page; meta.total is the filtered count; collections too", async () => {
    const pred = (d) => ms(d.meta.updatedAt) > ms(PIVOT);
    const expected = DOCS.filter(pred).sort(defaultOrder);
    const r = await req(`/v1/demo/documents?${q({ "filters[0][*.meta.updatedAt][greaterThan]": PIVOT, limit: "7", offset: "3" })}`);
    assert.deepEqual(r.json.meta, { count: 7, limit: 7, offset: 3, total: expected.length });
    assert.deepEqual(ids(r.json.data), ids(expected.slice(3, 10)));
    const c = await list("/v1/demo/collections/articles", { "filters[0][*.meta.updatedAt][greaterThan]": PIVOT });
    assert.deepEqual(ids(c.data), ids(fixtures.articles.filter(pred).sort(defaultOrder)));
    assert.ok(c.meta.total > 0 && c.meta.total < 130);
  });

  const bad = [
    ["filters[0][*.meta.updatedAt][after]=2024-01-01T00:00:00Z", /unknown filter operator "after"/],
    ["filters[0][*.meta.updatedAt][greaterThanOrEquals]=2024-01-01T00:00:00Z", /operator/],
    ["filters[0][*.meta.updatedAt]=2024-01-01T00:00:00Z", /invalid filter parameter/],
    ["filters[0][*.meta.updatedAt][greaterThan][x]=1", /invalid filter parameter/],
    ["filters[0][meta.updatedAt][greaterThan]=2024-01-01T00:00:00Z", /invalid filter field/],
    ["filters[0][*.meta.updatedAt][greaterThan]=yesterday", /expected an instant/],
    ["filters[0][*.meta.updatedAt][greaterThan]=2024-02-30T00:00:00Z", /expected an instant/],
    ["filters[0][*.meta.updatedAt][greaterThan]=2024-01-01T00:00:00", /expected an instant/],
    ["filters[0][*.meta.createdAt][lessThanOrEqual]=", /expected an instant/],
    ["filters[0][*.meta.revision][equal]=six", /expected a number/],
    ["filters[0][*.fields.slug][equal]=a&filters[0][or][*.fields.slug][equal]=b", /given more than once/],
    ["filters[0][*.fields.slug][equal]=a&filters[1][xor][*.fields.slug][equal]=b", /filter/],
  ];
  for (const [query, message] of bad) {
    test(`400: ${query}`, async () => {
      for (const p of ["/v1/demo/documents", "/v1/demo/collections/articles"]) {
        const r = await req(`${p}?${query}`);
        assert.equal(r.status, 400, p);
        assert.equal(typeof r.json.error.message, "string");
        assert.match(r.json.error.message, message);
      }
    });
  }

  test("contains on meta keys takes any text", async () => {
    const r = await list("/v1/demo/documents", { "filters[0][*.meta.updatedAt][contains]": "2024-03" });
    assert.equal(r.meta.total, count((d) => d.meta.updatedAt.includes("2024-03")).length);
  });
});

describe("meta-only selection", () => {
  test("fields=meta(id,revision): only those meta keys, no fields", async () => {
    for (const [p, docs] of [["/v1/demo/documents", DOCS], ["/v1/demo/collections/authors", fixtures.authors]]) {
      const r = await list(p, { fields: "meta(id,revision)" });
      assert.equal(r.meta.total, docs.length);
      const byId = new Map(docs.map((d) => [d.meta.id, d]));
      for (const d of r.data) {
        assert.deepEqual(Object.keys(d), ["meta"]);
        assert.deepEqual(Object.keys(d.meta).sort(), ["id", "revision"]);
        assert.equal(d.meta.revision, byId.get(d.meta.id).meta.revision);
      }
      assert.deepEqual(sortedIds(r.data), sortedIds(docs));
    }
  });

  test("with a filter, paging and a locale (meta.locale not selected)", async () => {
    const r = await req(`/v1/demo/documents?${q({ fields: "meta(id,revision)", "filters[0][*.meta.updatedAt][greaterThan]": PIVOT, locale: "de", limit: "1000" })}`);
    const expected = DOCS.filter((d) => ms(d.meta.updatedAt) > ms(PIVOT)).sort(defaultOrder);
    assert.deepEqual(r.json.data, expected.map((d) => ({ meta: { id: d.meta.id, revision: d.meta.revision } })));
    const single = await req(`/v1/demo/documents/${DOCS[5].meta.id}?${q({ fields: "meta(id,revision,locale)", locale: "fr" })}`);
    assert.deepEqual(single.json, { meta: { id: DOCS[5].meta.id, revision: DOCS[5].meta.revision, locale: "fr" } });
  });
});

describe("sorting by meta keys", () => {
  const order = async (key, dir) => ids((await list("/v1/demo/documents", { [`sorting[${key}]`]: dir, fields: "meta/id" })).data);

  test("meta.updatedAt ASC and DESC (ties in the default order)", async () => {
    const asc = [...DOCS].sort((a, b) => ms(a.meta.updatedAt) - ms(b.meta.updatedAt) || defaultOrder(a, b));
    const desc = [...DOCS].sort((a, b) => ms(b.meta.updatedAt) - ms(a.meta.updatedAt) || defaultOrder(a, b));
    assert.deepEqual(await order("meta.updatedAt", "ASC"), ids(asc));
    assert.deepEqual(await order("meta.updatedAt", "DESC"), ids(desc));
    assert.notDeepEqual(ids(asc), ids(DOCS.slice().sort(defaultOrder)), "not the default order");
  });

  test("meta.id DESC as decimal numbers; meta.revision ASC", async () => {
    const desc = [...DOCS].sort((a, b) => (BigInt(b.meta.id) > BigInt(a.meta.id) ? 1 : -1));
    assert.deepEqual(await order("meta.id", "DESC"), ids(desc));
    const rev = [...DOCS].sort((a, b) => a.meta.revision - b.meta.revision || defaultOrder(a, b));
    assert.deepEqual(await order("meta.revision", "ASC"), ids(rev));
    // Ties keep the default order in both directions (DESC is not ASC reversed).
    const revDesc = [...DOCS].sort((a, b) => b.meta.revision - a.meta.revision || defaultOrder(a, b));
    assert.deepEqual(await order("meta.revision", "DESC"), ids(revDesc));
    assert.notDeepEqual(ids(rev).reverse(), ids(revDesc));
  });
});

describe("locale variants", () => {
  /** The translated fields, as documented in www/server.mjs. */
  const TRANSLATED = { article: ["title", "body"], product: ["title", "description"], author: ["bio"], asset: ["title"] };
  /** Whether a document has a translated field with a value (text or richtext). */
  const hasTranslated = (d) => (TRANSLATED[d.meta.contentType] ?? []).some((n) => typeof d.fields[n] === "string" || typeof d.fields[n]?.plain === "string");

  /** The expected `<key>` variant of a fixture document, built by hand. */
  function variant(doc, key) {
    const names = TRANSLATED[doc.meta.contentType] ?? [];
    const fields = structuredClone(doc.fields);
    for (const n of names) {
      const v = fields[n];
      if (typeof v === "string") fields[n] = `[${key}] ${v}`;
      else if (v && typeof v === "object") fields[n] = { html: v.html.replace("<p>", `<p>[${key}] `), plain: `[${key}] ${v.plain}` };
    }
    return { fields, meta: { ...doc.meta, locale: key } };
  }

  test("each key gives its own variant, exactly; no locale is the stored document", async () => {
    const byId = new Map(DOCS.map((d) => [d.meta.id, d]));
    for (const key of ["de", "en_US", "all", "de_DE"]) {
      const r = await list("/v1/demo/documents", { locale: key });
      assert.equal(r.meta.total, 300);
      for (const d of r.data) assert.deepEqual(d, variant(byId.get(d.meta.id), key), `${key} ${d.meta.id}`);
    }
    const none = await list("/v1/demo/documents");
    for (const d of none.data) {
      assert.deepEqual(d, byId.get(d.meta.id));
      assert.equal("locale" in d.meta, false);
    }
  });

  test("variants differ from each other and are stable (byte-identical on repeat)", async () => {
    const texts = {};
    for (const key of [null, "de", "en_US", "all"]) {
      const p = `/v1/demo/collections/articles?${q(key ? { locale: key, limit: "50" } : { limit: "50" })}`;
      const a = await req(p);
      const b = await req(p);
      assert.equal(a.text, b.text, `stable ${key}`);
      texts[key] = a.text;
    }
    assert.equal(new Set(Object.values(texts)).size, 4);
    const de = JSON.parse(texts.de).data;
    const article = de.find((d) => typeof d.fields.title === "string");
    assert.ok(article.fields.title.startsWith("[de] "));
    assert.equal(article.meta.locale, "de");
    // Untranslated fields are the same in every variant.
    const plainArticles = JSON.parse(texts.null).data;
    assert.deepEqual(de.map((d) => d.fields.slug), plainArticles.map((d) => d.fields.slug));
  });

  test("single documents, aliases, assets and includes are variants too", async () => {
    const a = fixtures.articles[0];
    assert.deepEqual((await req(`/v1/demo/documents/${a.meta.id}?locale=fr_FR`)).json, variant(a, "fr_FR"));
    assert.deepEqual((await req("/v1/demo/alias/home?locale=fr_FR")).json, variant(fixtures.aliases.home, "fr_FR"));
    const asset = fixtures.assets[3];
    assert.deepEqual((await req(`/v1/demo/assets/${asset.meta.id}?locale=de`)).json, variant(asset, "de"));
    const inc = await req(`/v1/demo/collections/products?${q({ includes: "1", locale: "de" })}`);
    assert.ok(inc.json.includes.author.length > 0);
    const authors = new Map(fixtures.authors.map((d) => [d.meta.id, d]));
    for (const au of inc.json.includes.author) assert.deepEqual(au, variant(authors.get(au.meta.id), "de"));
  });

  test("filters, search and sorting see the variant", async () => {
    const zebra = fixtures.articles.filter((d) => d.fields.title === "Zebra");
    assert.ok(zebra.length > 0);
    const r = await list("/v1/demo/collections/articles", { locale: "de", "filters[0][*.fields.title][equal]": "[de] Zebra" });
    assert.deepEqual(sortedIds(r.data), sortedIds(zebra));
    const none = await list("/v1/demo/collections/articles", { locale: "de", "filters[0][*.fields.title][equal]": "Zebra" });
    assert.equal(none.meta.total, 0);
    const s = await list("/v1/demo/documents", { locale: "en_US", search: "[en_us] " });
    const translated = DOCS.filter(hasTranslated);
    assert.ok(translated.length > 250 && translated.length < 300);
    assert.deepEqual(sortedIds(s.data), sortedIds(translated));
    const sorted = await list("/v1/demo/collections/articles", { locale: "de", "sorting[fields.title]": "ASC", fields: "title" });
    const expected = fixtures.articles
      .filter((d) => typeof d.fields.title === "string")
      .sort((a, b) => cp(a.fields.title, b.fields.title) || defaultOrder(a, b))
      .map((d) => `[de] ${d.fields.title}`);
    assert.deepEqual(sorted.data.slice(0, expected.length).map((d) => d.fields.title), expected);
  });

  test("an invalid locale is a 400", async () => {
    for (const v of ["", "de DE", "de.DE", "<b>"]) {
      const r = await req(`/v1/demo/documents?${q({ locale: v })}`);
      assert.equal(r.status, 400, JSON.stringify(v));
      assert.match(r.json.error.message, /locale/);
    }
  });
});

describe("live changes", () => {
  beforeEach(() => {
    live.mutate({ reset: true });
    live.resetTraffic();
  });

  const L = (p, params) => list(p, params, live);

  test("update: fields merged, revision + 1, updatedAt later than every instant, in every list", async () => {
    const a = fixtures.articles[10];
    const p = fixtures.products[20];
    const out = live.mutate({
      update: [
        { id: a.meta.id, fields: { title: "Changed", rating: 42 }, unset: ["extra"], tags: ["new"] },
        { id: p.meta.id },
      ],
    });
    assert.equal(out.updated.length, 2);
    const [ua, up] = out.updated;
    const expectedFields = { ...a.fields, title: "Changed", rating: 42 };
    delete expectedFields.extra;
    assert.deepEqual(ua.fields, expectedFields);
    assert.deepEqual(ua.meta, { ...a.meta, revision: a.meta.revision + 1, tags: ["new"], updatedAt: ua.meta.updatedAt });
    assert.deepEqual(up.fields, p.fields);
    assert.equal(up.meta.revision, p.meta.revision + 1);
    assert.ok(ms(ua.meta.updatedAt) > LATEST, "later than every stored instant");
    assert.ok(ms(up.meta.updatedAt) > ms(ua.meta.updatedAt), "one instant per change, increasing");
    assert.equal(out.clock, up.meta.updatedAt);
    assert.match(ua.meta.updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    // Every list and the single document reflect it; other documents are unchanged.
    assert.deepEqual((await req(`/v1/demo/documents/${a.meta.id}`, { server: live })).json, ua);
    for (const [path, n] of [["/v1/demo/documents", 300], ["/v1/demo/collections/articles", 130]]) {
      const r = await L(path);
      assert.equal(r.meta.total, n);
      assert.deepEqual(r.data.find((d) => d.meta.id === a.meta.id), ua);
      const others = r.data.filter((d) => d.meta.id !== a.meta.id && d.meta.id !== p.meta.id);
      const byId = new Map(DOCS.map((d) => [d.meta.id, d]));
      for (const d of others) assert.deepEqual(d, byId.get(d.meta.id));
    }
    // The server clock keeps advancing across batches.
    const again = live.mutate({ update: [{ id: a.meta.id }] });
    assert.equal(again.updated[0].meta.revision, a.meta.revision + 2);
    assert.ok(ms(again.updated[0].meta.updatedAt) > ms(up.meta.updatedAt));
  });

  test("a delta refresh sees exactly the changes", async () => {
    const newest = new Date(LATEST).toISOString();
    const before = await L("/v1/demo/documents", { "filters[0][*.meta.updatedAt][greaterThan]": newest });
    assert.equal(before.meta.total, 0);
    const gone = fixtures.authors[3].meta.id;
    const out = live.mutate({
      update: [{ id: fixtures.articles[0].meta.id, fields: { title: "A" } }, { id: fixtures.products[0].meta.id, fields: { price: 1 } }],
      add: [{ contentType: "article", fields: { title: "Fresh", slug: "fresh" }, tags: ["new"] }],
      delete: [gone],
    });
    const delta = await L("/v1/demo/documents", { "filters[0][*.meta.updatedAt][greaterThan]": newest, fields: "meta(id,revision)" });
    const changed = [...out.updated, ...out.added];
    assert.deepEqual(
      delta.data,
      changed.sort((x, y) => defaultOrder(x, y)).map((d) => ({ meta: { id: d.meta.id, revision: d.meta.revision } })),
    );
    assert.deepEqual(out.deleted, [gone]);
    const sweep = await L("/v1/demo/documents", { fields: "meta(id,revision)" });
    assert.equal(sweep.meta.total, 300);
    const expectedIds = new Set(DOCS.map((d) => d.meta.id));
    expectedIds.delete(gone);
    expectedIds.add(out.added[0].meta.id);
    assert.deepEqual(sortedIds(sweep.data), [...expectedIds].sort());
    // greaterThanOrEqual at the newest change: the boundary document.
    const last = await L("/v1/demo/documents", { "filters[0][*.meta.updatedAt][greaterThanOrEqual]": out.clock, fields: "meta/id" });
    assert.deepEqual(ids(last.data), [out.added[0].meta.id]);
  });

  test("add: fresh id, revision 1, createdAt = updatedAt, in documents and its collection", async () => {
    const out = live.mutate({ add: [{ contentType: "product", fields: { title: "P1", price: 3 } }, { contentType: "author", fields: { name: "N" } }] });
    const [p, au] = out.added;
    for (const d of out.added) {
      assert.match(d.meta.id, /^[1-9]\d{17}$/);
      assert.ok(!DOCS.some((x) => x.meta.id === d.meta.id) && !fixtures.assets.some((x) => x.meta.id === d.meta.id));
      assert.equal(d.meta.revision, 1);
      assert.equal(d.meta.createdAt, d.meta.updatedAt);
      assert.ok(ms(d.meta.createdAt) > LATEST);
      assert.equal(d.meta.repository, "demo");
      assert.deepEqual(d.meta.tags, []);
    }
    assert.deepEqual(p.fields, { title: "P1", price: 3 });
    assert.equal(p.meta.contentType, "product");
    assert.notEqual(p.meta.id, au.meta.id);
    const docs = await L("/v1/demo/documents");
    assert.equal(docs.meta.total, 302);
    assert.deepEqual(ids(docs.data.slice(0, 2)), [au.meta.id, p.meta.id], "newest createdAt first");
    const products = await L("/v1/demo/collections/products");
    assert.equal(products.meta.total, 131);
    assert.ok(products.data.some((d) => d.meta.id === p.meta.id));
    const authors = await L("/v1/demo/collections/authors");
    assert.equal(authors.meta.total, 41);
    assert.equal((await L("/v1/demo/collections/articles")).meta.total, 130);
    assert.deepEqual((await req(`/v1/demo/documents/${p.meta.id}?locale=de`, { server: live })).json.fields, { title: "[de] P1", price: 3 });
  });

  test("delete: gone from every list, the document and its alias are 404s", async () => {
    const home = fixtures.aliases.home;
    const other = fixtures.products[7];
    const out = live.mutate({ delete: [home.meta.id, other.meta.id] });
    assert.deepEqual(out.deleted, [home.meta.id, other.meta.id]);
    assert.deepEqual(out.updated, []);
    const docs = await L("/v1/demo/documents");
    assert.equal(docs.meta.total, 298);
    assert.ok(!docs.data.some((d) => d.meta.id === home.meta.id || d.meta.id === other.meta.id));
    assert.equal((await L("/v1/demo/collections/articles")).meta.total, 129);
    assert.equal((await L("/v1/demo/collections/products")).meta.total, 129);
    assert.equal((await req(`/v1/demo/documents/${home.meta.id}`, { server: live })).status, 404);
    assert.equal((await req("/v1/demo/alias/home", { server: live })).status, 404);
    assert.deepEqual((await req("/v1/demo", { server: live })).json.aliases, []);
    // An updated alias target is served updated.
    live.mutate({ reset: true });
    live.mutate({ update: [{ id: home.meta.id, fields: { title: "Home" } }] });
    assert.equal((await req("/v1/demo/alias/home", { server: live })).json.fields.title, "Home");
  });

  test("a clock that is not monotonic, on request: an explicit updatedAt", async () => {
    const a = fixtures.articles[2];
    const early = "2020-01-01T00:00:00.000Z";
    const out = live.mutate({ update: [{ id: a.meta.id, fields: { title: "Back in time" }, updatedAt: early }] });
    assert.equal(out.updated[0].meta.updatedAt, early);
    assert.equal(out.updated[0].meta.revision, a.meta.revision + 1);
    // A refresh by updatedAt cannot see it (the SDK's documented limit); the id sweep can.
    const newest = new Date(LATEST).toISOString();
    assert.equal((await L("/v1/demo/documents", { "filters[0][*.meta.updatedAt][greaterThan]": newest })).meta.total, 0);
    const sweep = await L("/v1/demo/documents", { fields: "meta(id,revision)" });
    assert.equal(sweep.data.find((d) => d.meta.id === a.meta.id).meta.revision, a.meta.revision + 1);
    // An explicit instant equal to an existing one (a tie at the boundary), with an offset as written.
    const tie = withOffset(newest, 60);
    const t = live.mutate({ update: [{ id: fixtures.products[1].meta.id, updatedAt: tie }] });
    assert.equal(t.updated[0].meta.updatedAt, tie);
    const ge = await L("/v1/demo/documents", { "filters[0][*.meta.updatedAt][greaterThanOrEqual]": newest });
    assert.ok(ge.data.some((d) => d.meta.id === fixtures.products[1].meta.id));
    // A future explicit instant moves the clock past it.
    const future = "2090-06-01T00:00:00.123456789Z";
    live.mutate({ update: [{ id: fixtures.products[2].meta.id, updatedAt: future }] });
    const next = live.mutate({ update: [{ id: fixtures.products[3].meta.id }] });
    assert.equal(next.updated[0].meta.updatedAt, "2090-06-01T00:00:01.123Z");
  });

  test("an invalid batch changes nothing; errors name the problem", () => {
    const a = fixtures.articles[0].meta.id;
    live.mutate({ update: [{ id: a, fields: { title: "kept" } }], add: [{ contentType: "product" }] }); // so that a reset would show
    const before = JSON.stringify(live.snapshot());
    for (const [batch, message] of [
      [{ update: [{ id: a, fields: { title: "x" } }], delete: ["1"] }, /no such document/],
      [{ update: [{ id: a }], delete: [a] }, /both updated and deleted/],
      [{ delete: [a, a] }, /deleted twice/],
      [{ add: [{ contentType: "asset" }] }, /no collection/],
      [{ add: [{ contentType: "article", id: "1" }] }, /unknown key "id"/],
      [{ update: [{ id: a, updatedAt: "yesterday" }] }, /instant/],
      [{ update: [{ id: a, fields: [] }] }, /fields must be an object/],
      [{ update: [{ id: a, tags: [1] }] }, /tags must be an array of strings/],
      [{ reset: true, add: [{ contentType: "nope" }] }, /no collection/],
      [{ remove: [a] }, /unknown key "remove"/],
      [null, /expected/],
    ]) {
      assert.throws(() => live.mutate(batch), (e) => e.status === 400 && message.test(e.message), JSON.stringify(batch));
    }
    assert.equal(JSON.stringify(live.snapshot()), before);
    // The clock and the id sequence did not move either.
    const next = live.mutate({ add: [{ contentType: "product" }] });
    const fresh = live.mutate({ reset: true, update: [{ id: a, fields: { title: "kept" } }], add: [{ contentType: "product" }, { contentType: "product" }] });
    assert.deepEqual(next.added[0], fresh.added[1]);
  });

  test("deterministic; reset restores; the fixtures module and other servers never change", async () => {
    const batch = { update: [{ id: fixtures.authors[0].meta.id, fields: { name: "Z" } }], add: [{ contentType: "article" }, { contentType: "article" }] };
    const first = live.mutate(batch);
    live.mutate({ delete: [first.added[0].meta.id] });
    const again = live.mutate({ reset: true, ...batch });
    assert.deepEqual(again, first);
    live.mutate({ reset: true });
    assert.deepEqual(live.snapshot().documents, DOCS);
    const other = await startServer({ port: 0, apiKey: KEY });
    try {
      other.mutate({ ...batch, delete: [fixtures.articles[0].meta.id] });
      assert.equal((await list("/v1/demo/documents", {}, other)).meta.total, 301);
      assert.equal((await list("/v1/demo/documents", {}, live)).meta.total, 300);
      assert.equal((await list("/v1/demo/documents", {}, api)).meta.total, 300);
    } finally {
      await other.close();
    }
    assert.equal(JSON.stringify(fixtures.documents), PRISTINE);
  });

  test("HTTP: POST /__fixture/mutate with control: true", async () => {
    const post = (body, server = live) =>
      fetch(new URL("/__fixture/mutate", server.url), { method: "POST", headers: { "Content-Type": "application/json" }, body });
    const a = fixtures.articles[4];
    const r = await post(JSON.stringify({ update: [{ id: a.meta.id, fields: { title: "Over HTTP" } }], add: [{ contentType: "author" }] }));
    assert.equal(r.status, 200);
    const out = await r.json();
    assert.equal(out.updated[0].meta.revision, a.meta.revision + 1);
    assert.equal(out.added.length, 1);
    assert.equal((await req(`/v1/demo/documents/${a.meta.id}`, { server: live })).json.fields.title, "Over HTTP");
    const bad = await post(JSON.stringify({ delete: ["nope"] }));
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error.message, /no such document/);
    assert.equal((await post("{")).status, 400);
    assert.equal((await fetch(new URL("/__fixture/mutate", live.url))).status, 405);
    // Reset over HTTP too.
    assert.equal((await post('{"reset":true}')).status, 200);
    assert.equal((await req(`/v1/demo/documents/${a.meta.id}`, { server: live })).json.fields.title, a.fields.title);
  });

  test("without control: true the control endpoints are absent (404) and change nothing", async () => {
    const a = fixtures.articles[4];
    for (const [p, method, body] of [
      ["/__fixture/mutate", "POST", JSON.stringify({ update: [{ id: a.meta.id, fields: { title: "no" } }] })],
      ["/__fixture/traffic", "GET", undefined],
      ["/__fixture/traffic/reset", "POST", "{}"],
    ]) {
      const r = await fetch(new URL(p, plain.url), { method, body });
      assert.equal(r.status, 404, p);
    }
    assert.deepEqual((await req(`/v1/demo/documents/${a.meta.id}`, { server: plain })).json, a);
    // In-process, the API still works (it is not reachable over HTTP).
    assert.equal(plain.traffic().paths[`/v1/demo/documents/${a.meta.id}`].requests, 1);
  });
});

describe("traffic counters", () => {
  beforeEach(() => live.resetTraffic());

  test("requests and response bytes per path, in-process and over HTTP", async () => {
    const a = await req("/v1/demo/documents?limit=3", { server: live });
    const b = await req("/v1/demo/documents?limit=5&fields=meta/id", { server: live });
    const c = await req("/v1/demo/collections/articles?limit=1", { server: live });
    const bad = await req("/v1/demo/documents?limit=0", { server: live });
    const unauth = await req("/v1/demo", { server: live, auth: null });
    const head = await fetch(new URL("/v1/demo/documents", live.url), { method: "HEAD", headers: { Authorization: KEY } });
    assert.equal(head.status, 200);
    await fetch(new URL("/v1/demo/documents", live.url), { method: "OPTIONS" });
    await req("/fixtures.mjs", { server: live, auth: null }); // static: not counted
    const bytes = (r) => Buffer.byteLength(r.text);
    const docs = bytes(a) + bytes(b) + bytes(bad);
    const expected = {
      requests: 6,
      preflights: 1,
      bytes: docs + bytes(c) + bytes(unauth),
      paths: {
        "/v1/demo/documents": { requests: 4, preflights: 1, bytes: docs },
        "/v1/demo/collections/articles": { requests: 1, preflights: 0, bytes: bytes(c) },
        "/v1/demo": { requests: 1, preflights: 0, bytes: bytes(unauth) },
      },
    };
    assert.deepEqual(live.traffic(), expected);
    const http = await (await fetch(new URL("/__fixture/traffic", live.url))).json();
    assert.deepEqual(http, expected, "reading does not count itself");
    const reset = await (await fetch(new URL("/__fixture/traffic/reset", live.url), { method: "POST" })).json();
    assert.deepEqual(reset, expected);
    assert.deepEqual(live.traffic(), { requests: 0, preflights: 0, bytes: 0, paths: {} });
    await req("/v1/demo", { server: live });
    assert.equal(live.resetTraffic().requests, 1);
    assert.deepEqual(live.traffic(), { requests: 0, preflights: 0, bytes: 0, paths: {} });
    // POST /__fixture/reset clears the counters too.
    await req("/v1/demo", { server: live });
    await fetch(new URL("/__fixture/reset", live.url), { method: "POST", body: "{}" });
    assert.equal(live.traffic().requests, 0);
  });

  test("scripted responses, delays and disconnects count what is actually written", async () => {
    await fetch(new URL("/__fixture/script", live.url), {
      method: "POST",
      body: JSON.stringify({ responses: [{ status: 503, body: { error: { message: "busy" } } }, { kind: "disconnect" }] }),
    });
    const s = await req("/v1/demo/documents", { server: live });
    await assert.rejects(fetch(new URL("/v1/demo/documents", live.url), { headers: { Authorization: KEY } }));
    const d = await req("/v1/demo", { server: live, headers: { "X-Fixture-Delay": "100" } });
    assert.deepEqual(live.traffic().paths, {
      "/v1/demo/documents": { requests: 2, preflights: 0, bytes: Buffer.byteLength(s.text) },
      "/v1/demo": { requests: 1, preflights: 0, bytes: Buffer.byteLength(d.text) },
    });
  });

  test("a delta refresh after a few changes transfers a small share of a full prefetch", async () => {
    live.mutate({ reset: true });
    const path = "/v1/demo/collections/articles";
    const newest = new Date(LATEST).toISOString();
    await L_full();
    const full = live.resetTraffic().paths[path].bytes;
    live.mutate({ update: [{ id: fixtures.articles[9].meta.id, fields: { title: "t" } }], add: [{ contentType: "article" }] });
    await list(path, { "filters[0][*.meta.updatedAt][greaterThan]": newest }, live);
    await list(path, { fields: "meta(id,revision)" }, live);
    const t = live.traffic().paths[path];
    assert.equal(t.requests, 2);
    assert.ok(t.bytes < full * 0.3, `${t.bytes} of ${full}`);

    async function L_full() {
      for (let offset = 0; offset < 130; offset += 50) await req(`${path}?${q({ limit: "50", offset: String(offset) })}`, { server: live });
    }
  });
});
