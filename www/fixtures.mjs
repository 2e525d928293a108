// @ts-check
/**
 * Deterministic fixture repository `demo` for the local fixture server and
 * the tests. Everything is generated from a seeded PRNG (mulberry32), so the
 * same seed always gives byte-identical data; `Math.random` is never used.
 *
 * Shape (default seed):
 * - 300 documents: 40 `author`, 130 `article`, 130 `product`;
 * - collections `authors`, `articles`, `products` (the documents of one
 *   content type each, in generation order);
 * - alias `home` → the first article;
 * - 6 assets (content type `asset`, `fields: {title, url, mimeType, size}`),
 *   served only by `/assets/{id}`, not part of `documents`;
 * - repository info `{id: "demo", name, locales, contentTypes, collections,
 *   aliases}`.
 *
 * Field types used (see {@link CONTENT_TYPES}): Text (string), Richtext
 * (`{html, plain}`), Number, Date & Time (instant strings, UTC with
 * milliseconds and with offsets and 0-9 fraction digits, plus a few strings
 * that look like dates but are not real ones), Boolean, Location
 * (`{lat, lng}`), Select (single: string; multi: array of strings), Color
 * (`#rrggbb`). Values are sometimes missing, sometimes `null`, often
 * duplicated, and include non-ASCII text (accents, CJK, emoji, U+FF5E).
 *
 * @module fixtures
 */

/** The default seed. */
export const DEFAULT_SEED = 20240301;

/** Repository id of the fixture repository. */
export const REPOSITORY_ID = "demo";

/**
 * Content types of the repository, with field API ids and field types.
 * @readonly
 */
export const CONTENT_TYPES = Object.freeze([
  {
    apiId: "article",
    name: "Article",
    fields: [
      { apiId: "title", type: "Text" },
      { apiId: "slug", type: "Text" },
      { apiId: "body", type: "Richtext" },
      { apiId: "rating", type: "Number" },
      { apiId: "publishedAt", type: "Date & Time" },
      { apiId: "featured", type: "Boolean" },
      { apiId: "location", type: "Location" },
      { apiId: "category", type: "Select" },
      { apiId: "keywords", type: "Select", multiple: true },
      { apiId: "color", type: "Color" },
      { apiId: "author", type: "Reference" },
      { apiId: "extra", type: "Mixed" },
    ],
  },
  {
    apiId: "product",
    name: "Product",
    fields: [
      { apiId: "title", type: "Text" },
      { apiId: "sku", type: "Text" },
      { apiId: "category", type: "Select" },
      { apiId: "price", type: "Number" },
      { apiId: "discount", type: "Number" },
      { apiId: "stock", type: "Number" },
      { apiId: "inStock", type: "Boolean" },
      { apiId: "releaseDate", type: "Date & Time" },
      { apiId: "warehouse", type: "Location" },
      { apiId: "description", type: "Richtext" },
      { apiId: "colors", type: "Select", multiple: true },
      { apiId: "color", type: "Color" },
      { apiId: "author", type: "Reference" },
      { apiId: "gallery", type: "Assets" },
    ],
  },
  {
    apiId: "author",
    name: "Author",
    fields: [
      { apiId: "name", type: "Text" },
      { apiId: "bio", type: "Richtext" },
      { apiId: "born", type: "Date & Time" },
      { apiId: "active", type: "Boolean" },
      { apiId: "location", type: "Location" },
      { apiId: "rating", type: "Number" },
      { apiId: "languages", type: "Select", multiple: true },
      { apiId: "color", type: "Color" },
      { apiId: "website", type: "Text" },
    ],
  },
  {
    apiId: "asset",
    name: "Asset",
    fields: [
      { apiId: "title", type: "Text" },
      { apiId: "url", type: "Text" },
      { apiId: "mimeType", type: "Text" },
      { apiId: "size", type: "Number" },
    ],
  },
]);

/**
 * mulberry32: a small deterministic 32-bit PRNG.
 * @param {number} seed
 * @returns {() => number} a function returning floats in [0, 1)
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TITLE_WORDS = [
  "Apple",
  "apple",
  "Zebra",
  "zebra",
  "Édition spéciale",
  "Éclair",
  "Äpfel und Birnen",
  "Zürich",
  "über alles",
  "naïve café",
  "résumé",
  "Straße",
  "日本語の記事",
  "中文标题",
  "한국어",
  "😀 Emoji news",
  "🚀 Launch",
  "～ wave",
  "\uFF5E tilde",
  "Ωmega",
  "Alpha",
  "alpha",
  "Beta",
  "10 things",
  "2 things",
  "Zero",
];

const CATEGORIES = ["news", "guides", "reviews", "opinion", "Éditorial"];
const PRODUCT_CATEGORIES = ["books", "garden", "kitchen", "toys", "électronique"];
const KEYWORDS = ["rust", "wasm", "cms", "json", "sorting", "café", "日本", "🚀"];
const COLOR_NAMES = ["red", "green", "blue", "black", "white", "gelb"];
const TAGS = ["featured", "draft", "sale", "new", "archived", "été"];
const LANGUAGES = ["en", "de", "fr", "ja", "zh", "es"];
const AUTHOR_NAMES = [
  "Ada Lovelace",
  "Alan Turing",
  "Émilie du Châtelet",
  "Grace Hopper",
  "Édouard Lucas",
  "Ångström",
  "李白",
  "紫式部",
  "Zoë Quinn",
  "ada lovelace",
  "😀 Smiley",
  "～ Wave",
  "Barbara Liskov",
  "Donald Knuth",
];
const COUNTRIES = ["DE", "FR", "JP", "US", "CN", "SE"];

const pad = (n, w = 2) => String(n).padStart(w, "0");

/**
 * Builds the fixture repository.
 * @param {number} [seed]
 * @returns {Fixtures}
 *
 * @typedef {{ fields: Record<string, any>, meta: Meta }} Document
 * @typedef {{ id: string, contentType: string, repository: string, revision: number,
 *   tags: string[], createdAt: string, updatedAt: string }} Meta
 * @typedef {{
 *   seed: number,
 *   repository: Record<string, any>,
 *   documents: Document[],
 *   authors: Document[], articles: Document[], products: Document[],
 *   assets: Document[],
 *   collections: Record<string, Document[]>,
 *   aliases: Record<string, Document>,
 *   byId: Map<string, Document>,
 *   assetsById: Map<string, Document>,
 * }} Fixtures
 */
export function buildFixtures(seed = DEFAULT_SEED) {
  const rnd = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const chance = (p) => rnd() < p;
  /** @template T @param {readonly T[]} a @returns {T} */
  const pick = (a) => a[Math.floor(rnd() * a.length)];
  const pickSome = (a, lo, hi) => {
    const n = int(lo, hi);
    const out = [];
    for (let i = 0; i < n; i++) {
      const v = pick(a);
      if (!out.includes(v)) out.push(v);
    }
    return out;
  };
  const round = (x, d) => Math.round(x * 10 ** d) / 10 ** d;

  // ---- ids: unique 18-digit numeric strings
  const usedIds = new Set();
  const newId = () => {
    for (;;) {
      let s = String(int(1, 9));
      for (let i = 0; i < 17; i++) s += String(int(0, 9));
      if (!usedIds.has(s)) {
        usedIds.add(s);
        return s;
      }
    }
  };

  // ---- timestamps: ISO UTC with milliseconds; some createdAt repeat
  const START = Date.UTC(2023, 0, 1);
  const SPAN = Date.UTC(2024, 11, 31) - START;
  const createdSeen = [];
  const newCreated = () => {
    if (createdSeen.length > 3 && chance(0.15)) return pick(createdSeen);
    const ms = START + Math.floor(rnd() * SPAN);
    const s = new Date(ms).toISOString();
    createdSeen.push(s);
    return s;
  };
  const updatedAfter = (created) => {
    if (chance(0.2)) return created;
    return new Date(Date.parse(created) + int(1000, 90 * 86400000)).toISOString();
  };

  /** A Date & Time value: mostly instants (various forms), a few non-dates. */
  const dateTime = () => {
    const r = rnd();
    const ms = Date.UTC(2020, 0, 1) + Math.floor(rnd() * (Date.UTC(2026, 0, 1) - Date.UTC(2020, 0, 1)));
    if (r < 0.45) return new Date(ms).toISOString(); // UTC with ms
    if (r < 0.75) {
      // With an offset; the local wall time is shifted accordingly.
      const offMin = pick([120, 60, -300, 330, -570, 0, 840, -720]);
      const local = new Date(ms + offMin * 60000).toISOString().slice(0, 19);
      const sign = offMin < 0 ? "-" : "+";
      const a = Math.abs(offMin);
      const fracLen = int(0, 9);
      let frac = "";
      for (let i = 0; i < fracLen; i++) frac += String(int(0, 9));
      return `${local}${fracLen ? "." + frac : ""}${sign}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
    }
    if (r < 0.9) {
      // Whole seconds or nanosecond precision, UTC.
      const base = new Date(ms).toISOString().slice(0, 19);
      return chance(0.5) ? `${base}Z` : `${base}.${String(int(0, 999999999)).padStart(9, "0")}Z`;
    }
    // Look like dates, but are text by SPEC §2 (not real dates / wrong form).
    return pick([
      "2023-02-29T10:00:00Z",
      "2024-13-01T00:00:00Z",
      "2024-04-31T12:00:00Z",
      "2024-06-01T24:00:00Z",
      "2024-06-01t10:00:00z",
      "2024-06-01 10:00:00Z",
      "soon",
    ]);
  };

  const color = () =>
    "#" + [0, 0, 0].map(() => int(0, 255).toString(16).padStart(2, "0")).join("");
  const location = () => ({ lat: round(rnd() * 180 - 90, 4), lng: round(rnd() * 360 - 180, 4) });
  const richtext = (text) => ({ html: `<p>${text.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</p>`, plain: text });
  const title = () => (chance(0.5) ? `${pick(TITLE_WORDS)} ${int(1, 20)}` : pick(TITLE_WORDS));

  /** Sets `obj[key]`: usually `make()`, sometimes missing or `null`. */
  const maybe = (obj, key, make, pMissing = 0.08, pNull = 0.06) => {
    const r = rnd();
    if (r < pMissing) return;
    obj[key] = r < pMissing + pNull ? null : make();
  };

  const makeMeta = (contentType) => {
    const createdAt = newCreated();
    return {
      id: newId(),
      contentType,
      repository: REPOSITORY_ID,
      revision: int(1, 12),
      tags: pickSome(TAGS, 0, 3),
      createdAt,
      updatedAt: updatedAfter(createdAt),
    };
  };

  // ---- authors
  /** @type {Document[]} */
  const authors = [];
  for (let i = 0; i < 40; i++) {
    const f = {};
    f.name = pick(AUTHOR_NAMES);
    maybe(f, "bio", () => richtext(`${pick(AUTHOR_NAMES)} writes about ${pick(KEYWORDS)}.`));
    maybe(f, "born", dateTime);
    maybe(f, "active", () => chance(0.6));
    maybe(f, "location", location);
    maybe(f, "rating", () => pick([1, 2, 3, 4, 5, 4.5, 3.25, -1, 0]));
    f.languages = pickSome(LANGUAGES, 0, 3);
    f.color = color();
    if (chance(0.7)) f.website = `https://example.com/${pick(["a", "b", "é", "z"])}${i}`;
    authors.push({ fields: f, meta: makeMeta("author") });
  }

  const authorRef = () => {
    const a = pick(authors);
    const ref = { name: a.fields.name, id: a.meta.id };
    if (chance(0.5)) ref.country = pick(COUNTRIES);
    return ref;
  };

  // ---- articles
  const mixed = () =>
    pick([
      () => int(-50, 50),
      () => round(rnd() * 10 - 5, 2),
      () => dateTime(),
      () => pick(["Zebra", "apple", "～", "😀", "é"]),
      () => richtext(pick(["b", "a", "ä"])),
      () => location(),
      () => ({ k: int(0, 3), z: pick(["x", "y"]) }),
      () => ({ k: int(0, 3) }),
      () => [int(0, 3), pick([null, 1, "a"])],
      () => [],
      () => chance(0.5),
      () => null,
    ])();

  /** @type {Document[]} */
  const articles = [];
  for (let i = 0; i < 130; i++) {
    const f = {};
    maybe(f, "title", title, 0.05, 0.05);
    f.slug = `article-${i + 1}`;
    maybe(f, "body", () => richtext(`${title()} — ${pick(KEYWORDS)} ${pick(KEYWORDS)}`));
    maybe(f, "rating", () => pick([int(-5, 10), round(rnd() * 10 - 2, 1), 3, 3, 7.5, -0.5, 0]));
    maybe(f, "publishedAt", dateTime);
    maybe(f, "featured", () => chance(0.3));
    maybe(f, "location", location, 0.3, 0.05);
    f.category = pick(CATEGORIES);
    f.keywords = pickSome(KEYWORDS, 0, 3);
    f.color = color();
    maybe(f, "author", authorRef, 0.2, 0.05);
    if (chance(0.8)) f.extra = mixed();
    articles.push({ fields: f, meta: makeMeta("article") });
  }

  // Pinned values, so that some cases always occur: the same instant written
  // three ways (ties), one nanosecond later, and U+FF5E vs an emoji (code
  // point order differs from UTF-16 order).
  articles[1].fields.publishedAt = "2024-03-01T12:00:00+02:00";
  articles[2].fields.publishedAt = "2024-03-01T10:00:00.000Z";
  articles[3].fields.publishedAt = "2024-03-01T05:00:00-05:00";
  articles[4].fields.publishedAt = "2024-03-01T10:00:00.000000001Z";
  articles[5].fields.title = "\uFF5E tilde";
  articles[6].fields.title = "\u{1F600} Emoji news";

  // ---- assets
  const assetSpecs = [
    ["Hero image", "hero.png", "image/png", 48213],
    ["Logo", "logo.svg", "image/svg+xml", 2311],
    ["Brochure", "brochure.pdf", "application/pdf", 1048576],
    ["Café photo", "cafe.jpg", "image/jpeg", 230411],
    ["写真", "shashin.jpg", "image/jpeg", 99120],
    ["Demo video", "demo.mp4", "video/mp4", 7340032],
  ];
  /** @type {Document[]} */
  const assets = assetSpecs.map(([t, file, mimeType, size]) => ({
    fields: { title: t, url: `https://assets.example.com/demo/${file}`, mimeType, size },
    meta: makeMeta("asset"),
  }));

  // ---- products
  /** @type {Document[]} */
  const products = [];
  for (let i = 0; i < 130; i++) {
    const f = {};
    maybe(f, "title", title, 0.04, 0.04);
    f.sku = `SKU-${pad(int(0, 9999), 4)}`;
    f.category = pick(PRODUCT_CATEGORIES);
    maybe(f, "price", () => pick([int(1, 200), round(rnd() * 200, 2), 9.99, 9.99, 19.5, 100]));
    maybe(f, "discount", () => pick([0, -5, -12.5, -0.25, 3]), 0.3, 0.1);
    maybe(f, "stock", () => int(0, 50));
    maybe(f, "inStock", () => chance(0.7));
    maybe(f, "releaseDate", dateTime);
    maybe(f, "warehouse", location, 0.2, 0.05);
    maybe(f, "description", () => richtext(`${pick(TITLE_WORDS)} for ${pick(["you", "everyone", "cats"])}`));
    f.colors = pickSome(COLOR_NAMES, 0, 3);
    f.color = color();
    maybe(f, "author", authorRef, 0.1, 0.05);
    maybe(
      f,
      "gallery",
      () => {
        const n = pick([0, 1, 2, 3, 0, 2]);
        const g = [];
        for (let k = 0; k < n; k++) {
          const a = pick(assets);
          const item = { url: a.fields.url };
          if (chance(0.8)) item.alt = `${a.fields.title} ${k + 1}`;
          g.push(item);
        }
        return g;
      },
      0.08,
      0.04,
    );
    products.push({ fields: f, meta: makeMeta("product") });
  }

  // Interleave the content types so the stored order is neither grouped nor sorted.
  /** @type {Document[]} */
  const documents = [];
  const queues = [authors.slice(), articles.slice(), products.slice()];
  while (queues.some((q) => q.length)) {
    const q = queues[int(0, 2)];
    const d = q.shift();
    if (d) documents.push(d);
  }

  const collections = { articles, products, authors };
  const aliases = { home: articles[0] };
  const repository = {
    id: REPOSITORY_ID,
    name: "Demo repository",
    locales: ["en_US", "de_DE", "fr_FR"],
    defaultLocale: "en_US",
    contentTypes: CONTENT_TYPES.map((ct) => ({ apiId: ct.apiId, name: ct.name, fields: ct.fields.map((x) => ({ ...x })) })),
    collections: [
      { apiId: "articles", contentType: "article" },
      { apiId: "products", contentType: "product" },
      { apiId: "authors", contentType: "author" },
    ],
    aliases: [{ apiId: "home", documentId: articles[0].meta.id }],
  };

  const byId = new Map(documents.map((d) => [d.meta.id, d]));
  const assetsById = new Map(assets.map((d) => [d.meta.id, d]));
  return { seed, repository, documents, authors, articles, products, assets, collections, aliases, byId, assetsById };
}

/** The fixture repository built with {@link DEFAULT_SEED}. */
export const fixtures = buildFixtures();

export default fixtures;
