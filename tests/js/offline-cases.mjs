// Generated sort/selection combinations for the offline tests: each is a
// query string the SDK answers offline and the fixture server online.
import { mulberry32 } from "../../www/fixtures.mjs";

const FIELDS = ["title", "category", "price", "discount", "stock", "inStock", "releaseDate", "warehouse", "description", "colors", "color", "author", "gallery", "sku"];
const META = ["id", "createdAt", "updatedAt", "revision", "contentType", "tags"];
const ITEMS = [
  "title", "price", "author/name", "gallery/*/url", "gallery/url", "meta(id,createdAt)", "description/plain",
  "warehouse", "colors", "meta", "fields", "author(name,country)", "gallery(alt,url)", "sku,category", "meta/tags", "*",
];

/** `count` query strings with 0-3 sort keys, a selection, a page. */
export function combinations(count, seed = 42) {
  const next = mulberry32(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const out = [];
  for (let i = 0; i < count; i++) {
    const params = new URLSearchParams();
    const keys = new Set();
    const sorts = Math.floor(next() * 4);
    for (let k = 0; k < sorts; k++) {
      const key = next() < 0.75 ? `fields.${pick(FIELDS)}` : `meta.${pick(META)}`;
      if (keys.has(key)) continue;
      keys.add(key);
      params.append(`sorting[${key}]`, pick(["ASC", "DESC", "1", "-1", "asc"]));
    }
    const items = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(ITEMS));
    if (next() < 0.9) params.set("fields", items.join(","));
    if (next() < 0.8) params.set("limit", String(1 + Math.floor(next() * 60)));
    if (next() < 0.5) params.set("offset", String(Math.floor(next() * 140)));
    out.push(params.toString());
  }
  return out;
}
