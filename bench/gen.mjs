// Deterministic generator of realistic Content Repository documents for the benchmark.
//
// Pure ECMAScript (no Node or DOM API), so the same module runs in Node and in the
// browser and produces byte-identical output for the same (n, seed) everywhere.
//
//   generateDocuments(n, seed) -> Document[]   ({ fields, meta } objects)
//   generateListText(n, seed)  -> string       (JSON text of { data, meta: { count, limit, offset, total } })
//
// The documents come in a random order (not the service's default order), so no
// implementation profits from presorted input.

export const SIZES = [1000, 10000, 100000];

/** sfc32: small, fast, deterministic 32-bit PRNG (integer math only). */
export function makeRng(seed) {
  let a = 0x9e3779b9 ^ (seed >>> 0);
  let b = 0x243f6a88 ^ Math.imul(seed >>> 0, 0x85ebca6b);
  let c = 0xb7e15162;
  let d = 1;
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 16; i++) next();
  const rng = {
    u32: next,
    /** float in [0, 1) */
    float: () => next() / 4294967296,
    /** integer in [lo, hi] */
    int: (lo, hi) => lo + Math.floor((next() / 4294967296) * (hi - lo + 1)),
    pick: (arr) => arr[Math.floor((next() / 4294967296) * arr.length)],
    chance: (p) => next() / 4294967296 < p,
  };
  return rng;
}

const CATEGORIES = [
  "accessories", "audio", "bags", "beauty", "books", "cameras", "clothing", "computers",
  "furniture", "garden", "groceries", "health", "jewelry", "kitchen", "lighting", "music",
  "outdoor", "shoes", "sports", "toys",
];

// Titles mix ASCII, Latin accents, CJK, full-width forms (U+FF00 block, which sorts
// differently by UTF-16 unit than by code point against astral characters), and emoji
// (astral, surrogate pairs). Case varies, so case-sensitive ordering matters.
const ADJECTIVES = [
  "Classic", "classic", "Vintage", "Modern", "Élégant", "Crème", "Rustic", "Señor", "Ægir",
  "Straße", "Øresund", "Zürich", "Ísland", "Çelik", "Łódź", "Nordic", "Urban", "urban",
  "Smart", "Eco", "Deluxe", "Mini", "Ultra", "Pro", "Café", "Tiny", "Wild", "Ωmega",
  "東京", "大阪", "北京", "서울", "Ｔシャツ", "ＡＢＣ", "😀", "🚀", "🎧", "🌿", "☕", "Ünïcödé",
];
const NOUNS = [
  "Mug", "Chair", "Lamp", "Backpack", "Headphones", "Sneakers", "Jacket", "Notebook",
  "Camera", "Speaker", "Watch", "Wallet", "Plant Pot", "Desk", "Blender", "Kettle",
  "Scarf", "Sunglasses", "Keyboard", "Tent", "Bottle", "Poster", "Pillow", "Guitar",
  "ランプ", "椅子", "커피잔", "Tasse", "Sac à dos", "Größe M", "niño", "crème brûlée",
];
const COLORS = ["black", "white", "red", "green", "blue", "yellow", "orange", "purple", "pink", "grey", "brown", "beige"];
const TAGS = ["new", "sale", "featured", "bestseller", "limited", "eco", "gift", "clearance", "premium", "outlet"];
const FIRST = ["Anna", "Björn", "Chloé", "Dmitri", "Émile", "François", "Günther", "Hana", "Ingrid", "José", "Kenji", "Łukasz", "María", "Nikolaj", "Oğuz", "Priya", "Quentin", "Renée", "Søren", "Tomás", "Uwe", "Zoë", "美咲", "지훈"];
const LAST = ["Andersen", "Brontë", "Castañeda", "Dvořák", "Eriksson", "Fürst", "García", "Håkansson", "Iglesias", "Jørgensen", "Kowalski", "Lefèvre", "Müller", "Nuñez", "O'Brien", "Pérez", "Quiñones", "Rossi", "Schröder", "Tanaka", "Ünal", "Weiß", "山田", "김"];
const WORDS = [
  "lorem", "ipsum", "dolor", "sit", "amet", "durable", "handmade", "crafted", "premium",
  "lightweight", "waterproof", "sustainable", "recycled", "soft", "comfortable", "design",
  "everyday", "travel", "office", "home", "naturel", "qualité", "größte", "fácil", "日本製",
  "高品質", "✓", "100%", "cotton", "steel", "oak", "leather", "warranty", "edition",
];

function pad(n, w) {
  let s = String(n);
  while (s.length < w) s = "0" + s;
  return s;
}

function sentence(rng, minWords, maxWords) {
  const n = rng.int(minWords, maxWords);
  const out = [];
  for (let i = 0; i < n; i++) out.push(rng.pick(WORDS));
  const s = out.join(" ");
  return s.charAt(0).toUpperCase() + s.slice(1) + ".";
}

const EMAILS = new Map();
function email(first, last) {
  const k = first + " " + last;
  let e = EMAILS.get(k);
  if (e === undefined) {
    let local = `${first}.${last}`.toLowerCase().normalize("NFD").replace(/[^a-z.']/g, "").replace(/'/g, "");
    if (local.startsWith(".") || local.endsWith(".")) local = "author" + (EMAILS.size + 1);
    e = local + "@example.com";
    EMAILS.set(k, e);
  }
  return e;
}

function isoUtc(ms) {
  // Date#toISOString: YYYY-MM-DDTHH:MM:SS.sssZ (always UTC, always milliseconds)
  return new Date(ms).toISOString();
}

const T0 = Date.UTC(2019, 0, 1);
const T1 = Date.UTC(2025, 11, 31);

/**
 * Generate `n` documents deterministically from `seed`.
 * - title: ~4% missing, ~12% duplicates of an earlier title
 * - price: ~4% missing, ~4% null, otherwise 2-decimal numbers (many ties)
 * - meta.createdAt: ~2% duplicates of an earlier createdAt (exercises the meta.id tie-break)
 * - meta.id: unique 18-digit decimal strings
 */
export function generateDocuments(n, seed = 1) {
  const rng = makeRng(seed);
  const docs = new Array(n);
  const ids = new Set();
  const titles = [];
  const created = [];
  for (let i = 0; i < n; i++) {
    let id;
    do {
      id = String(rng.int(1, 9)) + pad(rng.int(0, 99999999), 8) + pad(rng.int(0, 999999999), 9);
    } while (ids.has(id));
    ids.add(id);

    let createdMs;
    if (created.length > 0 && rng.chance(0.02)) createdMs = rng.pick(created);
    else createdMs = T0 + Math.floor(rng.float() * (T1 - T0));
    created.push(createdMs);
    const updatedMs = createdMs + (rng.chance(0.3) ? 0 : rng.int(1, 400 * 86400000));
    const publishedMs = createdMs + rng.int(0, 30 * 86400000);

    const fields = {};
    const r = rng.float();
    if (r < 0.04) {
      // title missing
    } else if (r < 0.16 && titles.length > 0) {
      fields.title = rng.pick(titles);
    } else {
      const t = `${rng.pick(ADJECTIVES)} ${rng.pick(NOUNS)}${rng.chance(0.5) ? " " + rng.int(1, 999) : ""}`;
      fields.title = t;
      titles.push(t);
    }
    const plain = sentence(rng, 6, 14) + " " + sentence(rng, 4, 10);
    fields.description = {
      html: `<p>${plain.replace(/\. /, ".</p><p>")}</p>`,
      plain,
    };
    fields.category = rng.pick(CATEGORIES);
    const pr = rng.float();
    if (pr < 0.04) {
      // price missing
    } else if (pr < 0.08) {
      fields.price = null;
    } else if (pr < 0.3) {
      fields.price = rng.pick([5, 9.99, 10, 19.99, 24.5, 49, 99.99, 100, 199, 0]);
    } else {
      fields.price = rng.int(100, 250000) / 100;
    }
    fields.publishedAt = isoUtc(publishedMs);
    fields.inStock = rng.chance(0.7);
    fields.location = {
      lat: Math.round((rng.float() * 180 - 90) * 1e6) / 1e6,
      lng: Math.round((rng.float() * 360 - 180) * 1e6) / 1e6,
    };
    const nColors = rng.int(0, 4);
    const colors = [];
    for (let c = 0; c < nColors; c++) {
      const col = rng.pick(COLORS);
      if (!colors.includes(col)) colors.push(col);
    }
    fields.colors = colors;
    fields.color = "#" + pad(rng.u32().toString(16), 8).slice(0, 6);
    const first = rng.pick(FIRST);
    const last = rng.pick(LAST);
    fields.author = {
      name: `${first} ${last}`,
      email: email(first, last),
      bio: sentence(rng, 5, 12),
    };
    const nImg = rng.int(0, 5);
    const gallery = [];
    for (let g = 0; g < nImg; g++) {
      gallery.push({
        url: `https://cdn.example.com/bench/${id}/${g}.jpg`,
        alt: sentence(rng, 2, 5),
        width: rng.pick([320, 640, 800, 1024, 1280, 1920]),
      });
    }
    fields.gallery = gallery;

    const nTags = rng.int(0, 3);
    const tags = [];
    for (let t = 0; t < nTags; t++) {
      const tag = rng.pick(TAGS);
      if (!tags.includes(tag)) tags.push(tag);
    }
    docs[i] = {
      fields,
      meta: {
        id,
        contentType: "product",
        repository: "bench",
        revision: rng.int(1, 50),
        tags,
        createdAt: isoUtc(createdMs),
        updatedAt: isoUtc(updatedMs),
      },
    };
  }
  return docs;
}

/** JSON text of a list envelope holding generateDocuments(n, seed). */
export function generateListText(n, seed = 1) {
  return listText(generateDocuments(n, seed));
}

/** JSON text of the list envelope of already generated documents (same text as generateListText). */
export function listText(docs) {
  const n = docs.length;
  return JSON.stringify({ data: docs, meta: { count: n, limit: n, offset: 0, total: n } });
}
