// @ts-check
/**
 * Independent plain-JavaScript reference implementation of the parts of the
 * content-repo contract (SPEC.md) that the SDK re-applies locally:
 *
 * - the field-selection grammar, its normalised meaning and canonical form
 *   (SPEC §3) — {@link parseSelection}, {@link canonicalSelection};
 * - projection of documents and lists by a selection (SPEC §3) —
 *   {@link selectFields};
 * - the local sort order (SPEC §2) — {@link compareValues},
 *   {@link sortDocuments};
 * - a helper that applies sort, paging and selection to a list —
 *   {@link applyQuery}.
 *
 * It was written from SPEC.md alone, without looking at the Rust crate, so the
 * two can be compared as independent oracles. It has no dependencies and runs
 * in Node and in browsers.
 *
 * Decisions where SPEC.md is silent are marked "Decision:" below.
 *
 * @module reference
 */

/* ------------------------------------------------------------------------ */
/* Shared helpers                                                            */
/* ------------------------------------------------------------------------ */

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * `true` for a non-null, non-array object.
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Sets an own enumerable property, also for the key `__proto__`. */
function setOwn(obj, key, value) {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/**
 * Creates an `Error` with a stable `code` (and extra properties).
 * @param {string} code
 * @param {string} message
 * @param {Record<string, unknown>} [extra]
 * @returns {Error & {code: string}}
 */
function codedError(code, message, extra = {}) {
  const e = /** @type {Error & {code: string}} */ (new Error(message));
  e.code = code;
  Object.assign(e, extra);
  return e;
}

/* ------------------------------------------------------------------------ */
/* Text order (Unicode code points)                                          */
/* ------------------------------------------------------------------------ */

/**
 * Compares two strings by Unicode code point (the order of Rust `str`), not by
 * UTF-16 code unit and not by locale. Case-sensitive.
 *
 * `"\uFF5E" < "\u{1F600}"` here, although UTF-16 unit order says the opposite.
 *
 * @param {string} a
 * @param {string} b
 * @returns {-1 | 0 | 1}
 */
export function compareText(a, b) {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
  // If the difference is in the low half of a surrogate pair whose high half is
  // shared, step back so codePointAt reads the whole pair.
  if (i > 0) {
    const prev = a.charCodeAt(i - 1);
    if (prev >= 0xd800 && prev <= 0xdbff) i--;
  }
  const ca = /** @type {number} */ (a.codePointAt(i));
  const cb = /** @type {number} */ (b.codePointAt(i));
  if (ca !== cb) return ca < cb ? -1 : 1;
  // Same code point read from different units is impossible for well-formed
  // input; for lone surrogates fall back to unit order after it.
  return compareText(a.slice(i + 1), b.slice(i + 1));
}

/* ------------------------------------------------------------------------ */
/* Instants                                                                  */
/* ------------------------------------------------------------------------ */

const INSTANT_RE =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * Whether `y` is a leap year of the proleptic Gregorian calendar.
 * @param {number} y
 */
function isLeapYear(y) {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * `days_from_civil`).
 */
function daysFromCivil(y, m, d) {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * Parses an instant string `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`
 * (upper-case `T` and `Z`, 1 to 9 fraction digits, a real calendar date
 * including leap years, hour 00-23, minute and second 00-59 (no leap second),
 * offset hours 00-23 and minutes 00-59) into nanoseconds since the Unix epoch.
 *
 * Decision: years 0000-9999 are all accepted (proleptic Gregorian; 0000 is a
 * leap year).
 *
 * @param {unknown} s
 * @returns {bigint | null} the instant in nanoseconds since 1970-01-01T00:00:00Z,
 *   or `null` when `s` is not an instant string.
 */
export function parseInstant(s) {
  if (typeof s !== "string") return null;
  const m = INSTANT_RE.exec(s);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (month < 1 || month > 12) return null;
  const dim = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (day < 1 || day > dim) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetSeconds = 0;
  if (m[8] !== undefined) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return null;
    offsetSeconds = (oh * 3600 + om * 60) * (m[8] === "-" ? -1 : 1);
  }
  const days = daysFromCivil(year, month, day);
  const seconds = days * 86400 + hour * 3600 + minute * 60 + second - offsetSeconds;
  const nanos = m[7] === undefined ? 0n : BigInt(m[7].padEnd(9, "0"));
  return BigInt(seconds) * 1000000000n + nanos;
}

/**
 * Whether `s` is an instant string (see {@link parseInstant}).
 * @param {unknown} s
 */
export function isInstant(s) {
  return parseInstant(s) !== null;
}

/* ------------------------------------------------------------------------ */
/* Value order (SPEC §2)                                                     */
/* ------------------------------------------------------------------------ */

/**
 * Kind ranks of SPEC §2, in ascending order. `null` (and a missing value)
 * ranks after every kind when it is nested inside an object or array; at the
 * top level of a sort key, {@link sortDocuments} puts it last in both
 * directions instead.
 * @readonly
 */
export const KIND_RANK = Object.freeze({
  number: 0,
  instant: 1,
  text: 2,
  richtext: 3,
  location: 4,
  object: 5,
  array: 6,
  boolean: 7,
  null: 8,
});

/**
 * The SPEC §2 kind of a JSON value.
 *
 * Decision: an object that is both richtext (string `plain`) and location
 * (numeric `lat`/`lng`) is richtext. Only own properties count.
 *
 * @param {unknown} v
 * @returns {keyof typeof KIND_RANK}
 */
export function kindOf(v) {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "number":
      return "number";
    case "string":
      return parseInstant(v) !== null ? "instant" : "text";
    case "boolean":
      return "boolean";
    case "object":
      if (Array.isArray(v)) return "array";
      if (hasOwn(v, "plain") && typeof v.plain === "string") return "richtext";
      if (hasOwn(v, "lat") && hasOwn(v, "lng") && typeof v.lat === "number" && typeof v.lng === "number") {
        return "location";
      }
      return "object";
    default:
      // Not JSON (bigint, function, symbol): ranked as "other object".
      return "object";
  }
}

/** Numeric comparison with -0 == 0; NaN (not JSON) after every number. */
function compareNumbers(a, b) {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  return an === bn ? 0 : an ? 1 : -1;
}

/**
 * Compares two JSON values by SPEC §2 (ascending). `null`/`undefined` rank
 * after every kind (the rule for nested values); kinds rank
 * number < instant < text < richtext < location < other object < array <
 * boolean. Within a kind:
 * - number: numerically (`-0 == 0`);
 * - instant: by the instant it denotes, exactly (nanoseconds);
 * - text: by code point ({@link compareText});
 * - richtext: by `plain` (as text, by code point);
 * - location: by `lat`, then `lng`;
 * - other object: entries sorted by key (code point), compared pairwise key
 *   first, then value; a prefix is smaller;
 * - array: element by element, shorter first on a tie;
 * - boolean: `false < true`.
 *
 * @param {unknown} a
 * @param {unknown} b
 * @returns {-1 | 0 | 1}
 */
export function compareValues(a, b) {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka !== kb) return KIND_RANK[ka] < KIND_RANK[kb] ? -1 : 1;
  switch (ka) {
    case "null":
      return 0;
    case "number":
      return compareNumbers(a, b);
    case "instant": {
      const ia = /** @type {bigint} */ (parseInstant(a));
      const ib = /** @type {bigint} */ (parseInstant(b));
      return ia < ib ? -1 : ia > ib ? 1 : 0;
    }
    case "text":
      return compareText(/** @type {string} */ (a), /** @type {string} */ (b));
    case "richtext":
      return compareText(/** @type {any} */ (a).plain, /** @type {any} */ (b).plain);
    case "location":
      return compareNumbers(/** @type {any} */ (a).lat, /** @type {any} */ (b).lat) ||
        compareNumbers(/** @type {any} */ (a).lng, /** @type {any} */ (b).lng);
    case "boolean":
      return a === b ? 0 : a ? 1 : -1;
    case "array": {
      const x = /** @type {unknown[]} */ (a);
      const y = /** @type {unknown[]} */ (b);
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues(x[i], y[i]);
        if (c) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    case "object": {
      if (typeof a !== "object" || typeof b !== "object") return 0;
      const x = /** @type {Record<string, unknown>} */ (a);
      const y = /** @type {Record<string, unknown>} */ (b);
      const kx = Object.keys(x).sort(compareText);
      const ky = Object.keys(y).sort(compareText);
      const n = Math.min(kx.length, ky.length);
      for (let i = 0; i < n; i++) {
        const c = compareText(kx[i], ky[i]) || compareValues(x[kx[i]], y[ky[i]]);
        if (c) return c;
      }
      return kx.length < ky.length ? -1 : kx.length > ky.length ? 1 : 0;
    }
  }
  return 0;
}

const DIGITS_RE = /^[0-9]+$/;

/**
 * Compares two all-digit strings as decimal numbers of any length (no floats):
 * leading zeros stripped, shorter is smaller, then digit by digit; equal
 * values then compare as text (`"007"` < `"7"`).
 * @param {string} a
 * @param {string} b
 * @returns {-1 | 0 | 1}
 */
export function compareDecimalStrings(a, b) {
  const x = a.replace(/^0+/, "");
  const y = b.replace(/^0+/, "");
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  if (x !== y) return x < y ? -1 : 1; // same length, ASCII digits
  return compareText(a, b);
}

/**
 * The `meta.id` order (SPEC §2): when both are strings, all-digit ids compare
 * as decimal numbers ({@link compareDecimalStrings}) and come before ids that
 * are not all digits, which compare as text (code point, never as instants).
 * Otherwise the general rules of {@link compareValues} apply, with any string
 * counting at the text rank.
 *
 * @param {unknown} a
 * @param {unknown} b
 * @returns {-1 | 0 | 1}
 */
export function compareIds(a, b) {
  if (typeof a === "string" && typeof b === "string") {
    const da = DIGITS_RE.test(a);
    const db = DIGITS_RE.test(b);
    if (da && db) return compareDecimalStrings(a, b);
    if (da !== db) return da ? -1 : 1;
    return compareText(a, b);
  }
  const ka = typeof a === "string" ? "text" : kindOf(a);
  const kb = typeof b === "string" ? "text" : kindOf(b);
  if (ka !== kb) return KIND_RANK[ka] < KIND_RANK[kb] ? -1 : 1;
  return compareValues(a, b);
}

/* ------------------------------------------------------------------------ */
/* Sorting (SPEC §2)                                                         */
/* ------------------------------------------------------------------------ */

/**
 * @typedef {"ASC" | "DESC"} Direction
 * @typedef {{ key: string, direction: Direction | "asc" | "desc" | "1" | "-1" | 1 | -1 | string | number }} SortKey
 *   `key` is `<scope>.<fieldName>`, scope `fields` or `meta`, fieldName
 *   `[A-Za-z0-9_-]+`.
 */

export const SORT_KEY_RE = /^(fields|meta)\.([A-Za-z0-9_-]+)$/;

/**
 * Normalises a sort direction: `ASC`, `DESC`, `1`, `-1` (strings or
 * numbers) and case-insensitive `asc`/`desc`. Anything else throws an error
 * with `code = "invalid_sort"`.
 * @param {unknown} direction
 * @returns {Direction}
 */
export function normalizeDirection(direction) {
  if (direction === 1 || direction === "1") return "ASC";
  if (direction === -1 || direction === "-1") return "DESC";
  if (typeof direction === "string") {
    const u = direction.toUpperCase();
    if (u === "ASC" || u === "DESC") return u;
  }
  let shown;
  try {
    shown = typeof direction === "string" ? JSON.stringify(direction) : String(direction);
  } catch {
    shown = typeof direction;
  }
  throw codedError(
    "invalid_sort",
    `invalid sort direction ${shown}: expected "ASC", "DESC", 1 or -1`,
    { value: direction },
  );
}

/**
 * Validates a sort key `<fields|meta>.<name>`; throws `invalid_sort` with a
 * hint otherwise.
 * @param {unknown} key
 * @returns {string}
 */
export function validateSortKey(key) {
  if (typeof key === "string" && SORT_KEY_RE.test(key)) return key;
  let hint = "";
  if (typeof key === "string") {
    const last = key.split(".").pop() ?? "";
    if (/^[A-Za-z0-9_-]+$/.test(last)) {
      hint = /^meta\./i.test(key) ? ` (did you mean "meta.${last}"?)` : ` (did you mean "fields.${last}"?)`;
    }
  }
  throw codedError(
    "invalid_sort",
    `invalid sort key ${typeof key === "string" ? JSON.stringify(key) : String(key)}: expected "fields.<name>" or "meta.<name>"${hint}`,
    { value: key },
  );
}

/**
 * Validates and normalises a sorting specification. A key given twice keeps
 * its first position with the later direction (SPEC §2: "sorting again on a
 * key already present replaces its direction in place").
 * @param {SortKey[] | null | undefined} sorting
 * @returns {{ key: string, direction: Direction }[]}
 */
export function normalizeSorting(sorting) {
  if (sorting == null) return [];
  if (!Array.isArray(sorting)) {
    throw codedError("invalid_sort", "sorting must be an array of { key, direction }");
  }
  /** @type {{ key: string, direction: Direction }[]} */
  const out = [];
  for (const item of sorting) {
    if (!isObject(item)) throw codedError("invalid_sort", "sorting must be an array of { key, direction }");
    const key = validateSortKey(item.key);
    const direction = normalizeDirection(item.direction);
    const existing = out.find((k) => k.key === key);
    if (existing) existing.direction = direction;
    else out.push({ key, direction });
  }
  return out;
}

/**
 * Reads the value of a sort key (`fields.x` or `meta.x`) from a document;
 * `undefined` when missing.
 * @param {unknown} doc
 * @param {string} key
 */
export function sortValue(doc, key) {
  const dot = key.indexOf(".");
  const scope = key.slice(0, dot);
  const name = key.slice(dot + 1);
  if (!isObject(doc)) return undefined;
  const s = hasOwn(doc, scope) ? doc[scope] : undefined;
  if (!isObject(s) || !hasOwn(s, name)) return undefined;
  return s[name];
}

/** The default order, also the final tie-break (SPEC §2.5). */
export const DEFAULT_ORDER = Object.freeze([
  Object.freeze({ key: "meta.createdAt", direction: /** @type {Direction} */ ("DESC") }),
  Object.freeze({ key: "meta.id", direction: /** @type {Direction} */ ("DESC") }),
]);

/**
 * Compares two top-level sort values for one key: missing/`null` last in both
 * directions, `meta.id` by {@link compareIds}, everything else by
 * {@link compareValues}, reversed for `DESC`.
 * @param {unknown} a
 * @param {unknown} b
 * @param {string} key
 * @param {Direction} direction
 * @returns {number}
 */
export function compareSortValues(a, b, key, direction) {
  const am = a === null || a === undefined;
  const bm = b === null || b === undefined;
  if (am || bm) return am && bm ? 0 : am ? 1 : -1;
  const c = key === "meta.id" ? compareIds(a, b) : compareValues(a, b);
  return direction === "DESC" ? -c : c;
}

/**
 * Sorts documents by SPEC §2 "Local sorting": the keys in turn (the first
 * non-equal key decides), then the default order (`meta.createdAt` DESC, then
 * `meta.id` DESC), then the original position (stable). No sorting means the
 * default order. Missing or `null` values sort last in both directions.
 *
 * Returns a new array; the documents themselves are not copied.
 *
 * @template T
 * @param {T[]} documents
 * @param {SortKey[] | null} [sorting]
 * @returns {T[]}
 * @throws {Error & {code: "invalid_sort"}} on a bad key or direction.
 */
export function sortDocuments(documents, sorting) {
  const keys = [...normalizeSorting(sorting), ...DEFAULT_ORDER];
  const decorated = documents.map((doc, index) => ({
    doc,
    index,
    values: keys.map((k) => sortValue(doc, k.key)),
  }));
  decorated.sort((x, y) => {
    for (let i = 0; i < keys.length; i++) {
      const c = compareSortValues(x.values[i], y.values[i], keys[i].key, keys[i].direction);
      if (c) return c;
    }
    return x.index - y.index;
  });
  return decorated.map((d) => d.doc);
}

/* ------------------------------------------------------------------------ */
/* Selection grammar (SPEC §3)                                               */
/* ------------------------------------------------------------------------ */

/**
 * A selection tree: name → subtree. An empty tree means "the whole value"
 * (a leaf). {@link parseSelection} returns `Map`s; the functions here also
 * accept plain objects.
 * @typedef {Map<string, Tree>} Tree
 */

/**
 * A normalised document-level selection.
 * @typedef {{ all: true } | { all?: false, fields: Tree | null, meta: Tree, includes: Tree | null }} Selection
 *   - `all`: a bare top-level `*`: the whole document (and list).
 *   - `fields`: `null` when no field is selected (then no `fields` is returned).
 *   - `meta`: a leaf (whole meta) unless `meta` was named explicitly.
 *   - `includes`: `null` when no `includes` item was given (returned whole).
 */

/** Maximum depth of the document tree, the scope counting as level 1. */
export const MAX_SELECTION_DEPTH = 32;

const SCOPES = new Set(["fields", "meta", "includes"]);

const isWs = (c) => c === " " || c === "\t" || c === "\r" || c === "\n";

/**
 * @param {number} c UTF-16 code unit
 */
function isNameUnit(c) {
  return (
    (c >= 0x30 && c <= 0x39) || // 0-9
    (c >= 0x41 && c <= 0x5a) || // A-Z
    (c >= 0x61 && c <= 0x7a) || // a-z
    c === 0x5f || // _
    c === 0x2d // -
  );
}

/**
 * @typedef {{ names: string[], sub: Item[] | null }} Item
 */

class SelectionParser {
  /** @param {string} text */
  constructor(text) {
    this.s = text;
    this.i = 0;
  }

  fail(expected, position = this.i) {
    return codedError("invalid_selection", `expected ${expected} at ${position}`, {
      position,
      expected,
    });
  }

  skipWs() {
    while (this.i < this.s.length && isWs(this.s[this.i])) this.i++;
  }

  /** Reads one name at the current position (after whitespace). */
  name() {
    this.skipWs();
    const start = this.i;
    if (this.s[start] === "*") {
      this.i++;
      return { name: "*", start };
    }
    while (this.i < this.s.length && isNameUnit(this.s.charCodeAt(this.i))) this.i++;
    if (this.i === start) throw this.fail("a name");
    return { name: this.s.slice(start, this.i), start };
  }

  /**
   * selection := item ("," item)*
   * @param {number} parentLevel level of the parent node (0 for the document)
   * @returns {Item[]}
   */
  selection(parentLevel) {
    const items = [this.item(parentLevel)];
    for (;;) {
      this.skipWs();
      const c = this.s[this.i];
      if (c === ",") {
        this.i++;
        items.push(this.item(parentLevel));
        continue;
      }
      // What could have continued the last item: after a name also '/' or
      // '(' (not after a bare top-level '*'); after ')' only ',' or the end.
      const last = items[items.length - 1];
      const open = last.sub === null && !(parentLevel === 0 && last.names.length === 1 && last.names[0] === "*");
      if (parentLevel === 0) {
        if (this.i >= this.s.length) return items;
        throw this.fail(open ? "',', '/', '(' or the end of the selection" : "',' or the end of the selection");
      }
      if (c === ")") return items;
      if (this.i >= this.s.length) throw this.fail("')'");
      throw this.fail(open ? "',', '/', '(' or ')'" : "',' or ')'");
    }
  }

  /**
   * item := path ["(" selection ")"]; path := name ("/" name)*
   * @param {number} parentLevel
   * @returns {Item}
   */
  item(parentLevel) {
    const top = parentLevel === 0;
    /** @type {string[]} */
    const names = [];
    let level = parentLevel;
    for (;;) {
      const { name, start } = this.name();
      if (top && names.length === 0) {
        // The scope is level 1; a shorthand field name lives inside `fields`.
        level = SCOPES.has(name) || name === "*" ? 1 : 2;
      } else {
        level++;
      }
      if (level > MAX_SELECTION_DEPTH) {
        throw codedError(
          "invalid_selection",
          `expected at most ${MAX_SELECTION_DEPTH} levels of nesting at ${start}`,
          { position: start, expected: `at most ${MAX_SELECTION_DEPTH} levels of nesting` },
        );
      }
      names.push(name);
      this.skipWs();
      const c = this.s[this.i];
      const bareTopStar = top && names.length === 1 && name === "*";
      if (c === "/") {
        if (bareTopStar) throw this.fail("',' or the end of the selection after a top-level '*'");
        this.i++;
        continue;
      }
      if (c === "(") {
        if (bareTopStar) throw this.fail("',' or the end of the selection after a top-level '*'");
        this.i++;
        const sub = this.selection(level);
        this.skipWs();
        if (this.s[this.i] !== ")") throw this.fail("')'");
        this.i++;
        return { names, sub };
      }
      return { names, sub: null };
    }
  }
}

/** Inserts `names` with subtree `sub` into `tree` (union; a leaf absorbs). */
function insertPath(tree, names, sub) {
  let node = tree;
  for (let k = 0; k < names.length; k++) {
    const n = names[k];
    const child = node.get(n);
    if (k === names.length - 1) {
      if (child === undefined) node.set(n, sub);
      else if (child.size === 0) {
        /* leaf absorbs */
      } else if (sub.size === 0) node.set(n, new Map());
      else mergeInto(child, sub);
      return;
    }
    if (child === undefined) {
      const created = new Map();
      node.set(n, created);
      node = created;
    } else if (child.size === 0) {
      return; // a leaf absorbs any sub-selection
    } else {
      node = child;
    }
  }
}

/** Merges `src` into `dst` (union; a leaf absorbs). Mutates `dst`. */
function mergeInto(dst, src) {
  for (const [k, v] of src) {
    const d = dst.get(k);
    if (d === undefined) dst.set(k, v);
    else if (d.size === 0) {
      /* leaf absorbs */
    } else if (v.size === 0) dst.set(k, new Map());
    else mergeInto(d, v);
  }
}

/**
 * Union of two trees, without mutating either (a leaf absorbs).
 * @param {Tree} a
 * @param {Tree} b
 * @returns {Tree}
 */
export function mergeTrees(a, b) {
  if (a.size === 0 || b.size === 0) return new Map();
  const out = new Map();
  for (const [k, v] of a) out.set(k, v);
  for (const [k, v] of b) {
    const d = out.get(k);
    out.set(k, d === undefined ? v : mergeTrees(d, v));
  }
  return out;
}

/** @param {Item[]} items @returns {Tree} */
function buildTree(items) {
  const tree = new Map();
  for (const it of items) insertPath(tree, it.names, it.sub ? buildTree(it.sub) : new Map());
  return tree;
}

/** A `*` leaf among siblings absorbs them (recursively). */
function absorbStars(tree) {
  const star = tree.get("*");
  if (star !== undefined && star.size === 0 && tree.size > 1) {
    tree.clear();
    tree.set("*", star);
    return tree;
  }
  for (const v of tree.values()) absorbStars(v);
  return tree;
}

/**
 * Parses a selection (SPEC §3) into its normalised document-level meaning.
 *
 * Grammar: `selection := item ("," item)*`, `item := path ["(" selection ")"]`,
 * `path := name ("/" name)*`, `name := "*" | [A-Za-z0-9_-]+`; space, tab, CR
 * and LF around tokens are ignored.
 *
 * @param {string} text
 * @returns {Selection}
 * @throws {Error & {code: "invalid_selection", position: number, expected: string}}
 *   `position` is the 0-based UTF-16 index of the first character that cannot
 *   continue a valid selection (the length at the end); the message reads like
 *   `expected ')' at 14`.
 */
export function parseSelection(text) {
  if (typeof text !== "string") {
    throw codedError("invalid_selection", "expected a selection string at 0", {
      position: 0,
      expected: "a selection string",
    });
  }
  const p = new SelectionParser(text);
  const items = p.selection(0);
  let all = false;
  const root = new Map();
  for (const it of items) {
    if (it.names.length === 1 && it.names[0] === "*" && it.sub === null) {
      all = true;
      continue;
    }
    const names = SCOPES.has(it.names[0]) ? it.names : ["fields", ...it.names];
    insertPath(root, names, it.sub ? buildTree(it.sub) : new Map());
  }
  if (all) return { all: true };
  for (const t of root.values()) absorbStars(t);
  return {
    fields: root.get("fields") ?? null,
    meta: root.get("meta") ?? new Map(),
    includes: root.get("includes") ?? null,
  };
}

/**
 * Converts a tree given as a plain object (or Map of plain objects) to Maps.
 * @param {Tree | Record<string, any> | null | undefined} t
 * @returns {Tree | null}
 */
function toTree(t) {
  if (t == null) return null;
  const out = new Map();
  const entries = t instanceof Map ? t.entries() : Object.entries(t);
  for (const [k, v] of entries) out.set(k, toTree(v) ?? new Map());
  return out;
}

/**
 * Accepts a selection string, a parsed selection (Maps or plain objects), or
 * `null`/`undefined` (no selection), and returns the Map form or `null`.
 * @param {string | Selection | null | undefined} selection
 * @returns {Selection | null}
 */
function asSelection(selection) {
  if (selection == null) return null;
  if (typeof selection === "string") return parseSelection(selection);
  if (selection.all) return { all: true };
  const s = /** @type {any} */ (selection);
  return {
    fields: toTree(s.fields),
    meta: toTree(s.meta) ?? new Map(),
    includes: toTree(s.includes),
  };
}

/** Writes one node in canonical form. */
function writeNode(name, tree) {
  if (tree.size === 0) return name;
  const names = [...tree.keys()].sort(compareText);
  if (names.length === 1) return `${name}/${writeNode(names[0], tree.get(names[0]))}`;
  return `${name}(${names.map((n) => writeNode(n, tree.get(n))).join(",")})`;
}

/**
 * The canonical explicit form of a selection (SPEC §3): `*`, or the scope
 * items in code-point order (`fields`, `includes`, `meta`), `meta` always
 * written (`meta` alone when whole), siblings in code-point order, a node with
 * one child written `a/b`, with several `a(b,c)`.
 *
 * Examples: `title, author/name` → `fields(author/name,title),meta`;
 * `meta/id` → `meta/id`; `fields` → `fields,meta`.
 *
 * @param {Selection | string} parsed a parsed selection, or a selection string
 * @returns {string}
 */
export function canonicalSelection(parsed) {
  const sel = asSelection(parsed);
  if (sel === null) throw codedError("invalid_selection", "expected a selection at 0", { position: 0 });
  if (sel.all) return "*";
  const parts = [];
  if (sel.fields) parts.push(writeNode("fields", sel.fields));
  if (sel.includes) parts.push(writeNode("includes", sel.includes));
  parts.push(writeNode("meta", sel.meta));
  return parts.join(",");
}

/* ------------------------------------------------------------------------ */
/* Projection (SPEC §3 "Applying a path to a value")                         */
/* ------------------------------------------------------------------------ */

/** Marker for "not selected". */
const NONE = Symbol("not selected");

/**
 * Applies a selection tree to a value.
 *
 * - leaf: the whole value (including `null`);
 * - object: `name` selects that key if present, `*` every key; when both a
 *   named child and `*` apply to a key, their union applies; an object always
 *   gives a result (possibly `{}`);
 * - array: empty stays `[]`; otherwise the tree applies to each element:
 *   object elements always give a result, nested arrays are descended (with
 *   the same tree), other elements are dropped unless selected whole; a
 *   non-empty array of which nothing remains is not selected.
 *   Decision (SPEC: "`gallery/*\/url` … gives us the urls"): at the elements
 *   of an array, a `*` child also matches the element itself, i.e. each
 *   element gets the union of the tree and the `*` subtree. So
 *   `gallery/*\/url` gives `[{url}, …]`, and `tags/*` keeps every element of
 *   an array of strings.
 * - string, number, boolean or `null` with path left: not selected.
 *
 * @param {unknown} value
 * @param {Tree} tree
 * @returns {unknown | typeof NONE}
 */
function applyTree(value, tree) {
  if (tree.size === 0) return value;
  if (Array.isArray(value)) {
    if (value.length === 0) return [];
    // `*` selects the elements themselves (the rest of its path applies to
    // each); any other name applies to each element (SPEC §3).
    const star = tree.get("*");
    let elementTree = tree;
    if (star !== undefined) {
      const others = new Map([...tree].filter(([name]) => name !== "*"));
      elementTree = others.size === 0 ? star : mergeTrees(others, star);
    }
    const out = [];
    for (const el of value) {
      const r = applyTree(el, elementTree);
      if (r !== NONE) out.push(r);
    }
    return out.length ? out : NONE;
  }
  if (isObject(value)) {
    const out = {};
    const star = tree.get("*");
    for (const key of Object.keys(value)) {
      const named = tree.get(key);
      const sub = named !== undefined && star !== undefined && named !== star ? mergeTrees(named, star) : named ?? star;
      if (sub === undefined) continue;
      const r = applyTree(value[key], sub);
      if (r !== NONE) setOwn(out, key, r);
    }
    return out;
  }
  return NONE;
}

/**
 * Applies a selection tree (Map or plain object) to any JSON value.
 * @param {unknown} value
 * @param {Tree | Record<string, any>} tree
 * @returns {{ selected: boolean, value?: unknown }}
 */
export function applyPath(value, tree) {
  const r = applyTree(value, /** @type {Tree} */ (toTree(tree)));
  return r === NONE ? { selected: false } : { selected: true, value: r };
}

/**
 * Projects one document by a (non-`*`) selection.
 *
 * Decision: a document's own `includes` key, if it has one, follows the
 * `includes` scope rule (whole without an `includes` item), like a list's.
 * @param {unknown} doc
 * @param {Exclude<Selection, {all: true}>} sel
 */
function selectDocument(doc, sel) {
  if (!isObject(doc)) return doc;
  const out = {};
  for (const key of Object.keys(doc)) {
    let r = NONE;
    if (key === "fields") {
      if (sel.fields) r = applyTree(doc.fields, sel.fields);
    } else if (key === "meta") {
      r = applyTree(doc.meta, sel.meta);
    } else if (key === "includes") {
      r = sel.includes ? applyTree(doc.includes, sel.includes) : doc.includes;
    }
    if (r !== NONE) setOwn(out, key, r);
  }
  return out;
}

/**
 * Whether `v` is a list envelope (`{data: [...]}` without a `fields` object,
 * which makes it a document; any other `fields` is an envelope's extra key).
 * @param {unknown} v
 */
function isEnvelope(v) {
  return isObject(v) && Array.isArray(v.data) && !(hasOwn(v, "fields") && isObject(v.fields));
}

/**
 * Applies a selection (SPEC §3) to a document, an array of documents or a
 * list envelope `{data, meta, includes, ...}`.
 *
 * - `*`: everything is returned unchanged.
 * - A document keeps only `fields` (as selected; absent when no field is
 *   selected), `meta` (whole, or only the named keys when `meta` is named) and
 *   its `includes` (see below); other keys are dropped.
 * - A list envelope: each element of `data` is projected as a document; the
 *   `includes` tree (if any) applies as plain paths to the envelope's
 *   `includes` object (which is kept whole without one); all other envelope
 *   keys (`meta`, `status`, ...) are kept.
 * - No selection (`null`/`undefined`): the input is returned unchanged.
 *
 * Leaf values are shared with the input, not copied.
 *
 * @param {unknown} documentOrList
 * @param {string | Selection | null | undefined} selection
 * @returns {any}
 * @throws {Error & {code: "invalid_selection"}} when `selection` is a string
 *   that does not parse.
 */
export function selectFields(documentOrList, selection) {
  const sel = asSelection(selection);
  if (sel === null || sel.all) return documentOrList;
  if (Array.isArray(documentOrList)) return documentOrList.map((d) => selectDocument(d, sel));
  if (isEnvelope(documentOrList)) {
    const env = /** @type {Record<string, any>} */ (documentOrList);
    const out = {};
    for (const key of Object.keys(env)) {
      if (key === "data") {
        out.data = env.data.map((d) => selectDocument(d, sel));
      } else if (key === "includes" && sel.includes) {
        const r = applyTree(env.includes, sel.includes);
        if (r !== NONE) out.includes = r;
      } else {
        setOwn(out, key, env[key]);
      }
    }
    return out;
  }
  return selectDocument(documentOrList, sel);
}

/* ------------------------------------------------------------------------ */
/* Query helper                                                              */
/* ------------------------------------------------------------------------ */

/**
 * Applies sorting, paging and field selection to a list, in the service's
 * order: sort → offset/limit → select. Filtering is not part of it.
 *
 * @param {unknown[] | { data: unknown[], [key: string]: unknown }} list
 *   an array of documents or a list envelope (its other keys, e.g.
 *   `includes`, are kept; its `meta` is replaced).
 * @param {{ sorting?: SortKey[] | null, fields?: string | Selection | null,
 *   limit?: number, offset?: number }} [options]
 *   `limit` 1..1000 (default 25), `offset` >= 0 (default 0).
 * @returns {{ data: any[], meta: { count: number, limit: number, offset: number, total: number }, [key: string]: unknown }}
 * @throws {Error & {code: string}} `invalid_sort`, `invalid_selection` or
 *   `invalid_argument` (limit/offset out of range).
 */
export function applyQuery(list, { sorting = null, fields = null, limit = 25, offset = 0 } = {}) {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw codedError("invalid_argument", `limit must be an integer from 1 to 1000, got ${limit}`);
  }
  if (!Number.isInteger(offset) || offset < 0) {
    throw codedError("invalid_argument", `offset must be an integer >= 0, got ${offset}`);
  }
  const selection = asSelection(fields);
  const env = Array.isArray(list) ? { data: list } : { ...list };
  const sorted = sortDocuments(env.data, sorting);
  const page = sorted.slice(offset, offset + limit);
  const out = { ...env, data: page, meta: { count: page.length, limit, offset, total: sorted.length } };
  return selectFields(out, selection);
}
