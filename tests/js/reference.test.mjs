// Table tests of tests/reference/spec.mjs against SPEC.md §2 (ordering) and §3
// (selection), plus a differential test against json-mask on the overlap
// SPEC §3 defines. Run: node --test tests/js/
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

import {
  applyPath,
  applyQuery,
  canonicalSelection,
  compareIds,
  compareText,
  compareValues,
  kindOf,
  normalizeDirection,
  parseInstant,
  parseSelection,
  selectFields,
  sortDocuments,
} from "../reference/spec.mjs";
import { buildFixtures, mulberry32 } from "../../www/fixtures.mjs";

const require = createRequire(import.meta.url);
const jsonMask = require("json-mask");

/* ---------------------------------------------------------------------- */
/* helpers                                                                 */
/* ---------------------------------------------------------------------- */

let nextId = 1;
/** A document with `fields.v = value` (omitted when `value` is undefined). */
function doc(value, { id, createdAt = "2024-01-01T00:00:00.000Z", extra = {} } = {}) {
  const fields = { ...extra };
  if (value !== undefined) fields.v = value;
  return {
    fields,
    meta: { id: id ?? String(nextId++), contentType: "t", repository: "r", revision: 1, tags: [], createdAt, updatedAt: createdAt },
  };
}

/** Sorts `values` (as fields.v of documents) and returns the values in order. */
function sortValues(values, direction = "ASC") {
  // Same createdAt and increasing ids: ties fall back to id DESC, so give the
  // documents ids that keep ties in input order when reversed.
  const docs = values.map((v, i) => doc(v, { id: String(1000 - i) }));
  return sortDocuments(docs, [{ key: "fields.v", direction }]).map((d) => d.fields.v);
}

const sign = (n) => (n < 0 ? -1 : n > 0 ? 1 : 0);

/** Asserts that `ordered` is strictly increasing under compareValues (all pairs). */
function assertStrictlyIncreasing(ordered, cmp = compareValues) {
  for (let i = 0; i < ordered.length; i++) {
    for (let j = 0; j < ordered.length; j++) {
      const expected = sign(i - j);
      assert.equal(
        cmp(ordered[i], ordered[j]),
        expected,
        `compare(${JSON.stringify(ordered[i])}, ${JSON.stringify(ordered[j])}) should be ${expected}`,
      );
    }
  }
}

function selErr(text) {
  try {
    parseSelection(text);
  } catch (e) {
    return e;
  }
  assert.fail(`expected ${JSON.stringify(text)} to be rejected`);
}

/* ---------------------------------------------------------------------- */
/* SPEC §2: value order                                                    */
/* ---------------------------------------------------------------------- */

describe("ordering: kinds", () => {
  test("kind ranks: number < instant < text < richtext < location < object < array < boolean", () => {
    const ordered = [
      1e9,
      "2020-01-01T00:00:00Z",
      "apple",
      { html: "<p>a</p>", plain: "a" },
      { lat: 0, lng: 0 },
      { a: 1 },
      [],
      false,
    ];
    assertStrictlyIncreasing(ordered);
    const shuffled = [true, [0], { a: 0 }, { lat: 1, lng: 2 }, { plain: "z" }, "zzz", "2099-01-01T00:00:00Z", -1];
    assert.deepEqual(sortValues(shuffled), [
      -1,
      "2099-01-01T00:00:00Z",
      "zzz",
      { plain: "z" },
      { lat: 1, lng: 2 },
      { a: 0 },
      [0],
      true,
    ]);
    assert.deepEqual(sortValues(shuffled, "DESC"), [
      true,
      [0],
      { a: 0 },
      { lat: 1, lng: 2 },
      { plain: "z" },
      "zzz",
      "2099-01-01T00:00:00Z",
      -1,
    ]);
  });

  test("kindOf", () => {
    const table = [
      [0, "number"],
      [-0, "number"],
      ["2024-02-29T23:59:59.999999999+14:00", "instant"],
      ["2024-02-30T00:00:00Z", "text"],
      ["", "text"],
      [{ plain: "", html: "" }, "richtext"],
      [{ plain: 1 }, "object"],
      [{ lat: 1, lng: 2, name: "x" }, "location"],
      [{ lat: "1", lng: 2 }, "object"],
      [{ lat: 1 }, "object"],
      [{}, "object"],
      [[], "array"],
      [true, "boolean"],
      [null, "null"],
    ];
    for (const [v, k] of table) assert.equal(kindOf(v), k, JSON.stringify(v));
  });
});

describe("ordering: numbers", () => {
  test("numerically, -0 == 0", () => {
    assertStrictlyIncreasing([-1e300, -10, -1.5, -1, 0, 0.1, 2, 10, 100, 1e300]);
    assert.equal(compareValues(-0, 0), 0);
    assert.equal(compareValues(0, -0), 0);
    assert.deepEqual(sortValues([10, 9, -2, 100, 1.5]), [-2, 1.5, 9, 10, 100]);
  });

  test("-0 and 0 tie, so the default order decides", () => {
    const a = doc(-0, { id: "1", createdAt: "2024-01-01T00:00:00.000Z" });
    const b = doc(0, { id: "2", createdAt: "2024-01-02T00:00:00.000Z" });
    for (const direction of ["ASC", "DESC"]) {
      assert.deepEqual(
        sortDocuments([a, b], [{ key: "fields.v", direction }]).map((d) => d.meta.id),
        ["2", "1"],
      );
    }
  });
});

describe("ordering: instants", () => {
  test("by the instant denoted, offsets and fractions", () => {
    assertStrictlyIncreasing([
      "1970-01-01T00:00:00Z",
      "2024-02-29T23:59:59.999999999Z",
      "2024-03-01T00:00:00+00:00",
      "2024-03-01T00:00:00.000000001Z",
      "2024-03-01T00:00:00.1Z",
      "2024-03-01T00:00:00.100000001Z",
      "2024-03-01T01:30:00+01:00", // 00:30Z
      "2024-02-29T23:00:00-02:00", // 01:00Z
    ]);
  });

  test("equal instants compare equal", () => {
    const same = [
      "2024-03-01T10:00:00Z",
      "2024-03-01T10:00:00.000Z",
      "2024-03-01T10:00:00.000000000Z",
      "2024-03-01T12:00:00+02:00",
      "2024-03-01T05:00:00-05:00",
      "2024-03-02T09:00:00+23:00",
      "2024-02-29T10:01:00-23:59",
    ];
    // The last two are not equal; check them separately.
    for (const a of same.slice(0, 5)) for (const b of same.slice(0, 5)) assert.equal(compareValues(a, b), 0, `${a} vs ${b}`);
    assert.equal(parseInstant("2024-03-02T09:00:00+23:00"), parseInstant("2024-03-01T10:00:00Z"));
    assert.equal(parseInstant("2024-03-01T09:59:00-00:01"), parseInstant("2024-03-01T10:00:00Z"));
  });

  test("nanosecond precision beyond Date", () => {
    assert.equal(compareValues("2024-01-01T00:00:00.0000001Z", "2024-01-01T00:00:00.0000002Z"), -1);
    assert.equal(compareValues("2024-01-01T00:00:00.123456789Z", "2024-01-01T00:00:00.12345678Z"), 1);
    assert.equal(compareValues("2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00.500000000Z"), 0);
    assert.equal(parseInstant("1970-01-01T00:00:01.000000001Z"), 1000000001n);
    assert.equal(parseInstant("1969-12-31T23:59:59Z"), -1000000000n);
  });

  test("calendar: leap years and real dates", () => {
    const valid = [
      "2024-02-29T00:00:00Z",
      "2000-02-29T00:00:00Z",
      "1600-02-29T00:00:00Z",
      "0000-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999999999Z",
      "2023-04-30T00:00:00Z",
      "2023-12-31T23:59:59+23:59",
      "2023-12-31T23:59:59-23:59",
    ];
    for (const s of valid) assert.equal(kindOf(s), "instant", s);
    const text = [
      "2023-02-29T00:00:00Z", // not a leap year
      "1900-02-29T00:00:00Z", // not a leap year (divisible by 100)
      "2023-04-31T00:00:00Z",
      "2023-13-01T00:00:00Z",
      "2023-00-01T00:00:00Z",
      "2023-01-00T00:00:00Z",
      "2023-01-01T24:00:00Z",
      "2023-01-01T23:60:00Z",
      "2023-01-01T23:59:60Z", // no leap second
      "2023-01-01T00:00:00+24:00",
      "2023-01-01T00:00:00+01:60",
      "2023-01-01t00:00:00Z", // lower-case t
      "2023-01-01T00:00:00z", // lower-case z
      "2023-01-01 00:00:00Z",
      "2023-01-01T00:00Z", // no seconds
      "2023-01-01T00:00:00", // no zone
      "2023-01-01T00:00:00.Z", // empty fraction
      "2023-01-01T00:00:00.1234567890Z", // 10 fraction digits
      "2023-01-01T00:00:00+0100",
      "2023-01-01T00:00:00+01",
      "+2023-01-01T00:00:00Z",
      "20230-01-01T00:00:00Z",
      "2023-1-01T00:00:00Z",
      "２０２３-01-01T00:00:00Z", // full-width digits
      " 2023-01-01T00:00:00Z",
      "2023-01-01T00:00:00Z ",
      "2023-01-01",
    ];
    for (const s of text) assert.equal(kindOf(s), "text", s);
  });

  test("invalid dates sort as text, after every instant", () => {
    // "2023-02-29..." (text) < "2024-..." as text, but it ranks after all instants.
    assert.deepEqual(
      sortValues(["2023-02-29T00:00:00Z", "2099-01-01T00:00:00Z", "2024-01-01T00:00:00+01:00", "1999-01-01T00:00:00Z"]),
      ["1999-01-01T00:00:00Z", "2024-01-01T00:00:00+01:00", "2099-01-01T00:00:00Z", "2023-02-29T00:00:00Z"],
    );
    // Text order among invalid dates is code point order.
    assert.equal(compareValues("2023-02-29T00:00:00Z", "2023-02-30T00:00:00Z"), -1);
  });
});

describe("ordering: text", () => {
  test("by code point, not UTF-16 units (emoji vs U+FF5E)", () => {
    const emoji = "\u{1F600}"; // UTF-16: D83D DE00
    const tilde = "\uFF5E"; // FULLWIDTH TILDE
    assert.ok(emoji < tilde, "UTF-16 unit order puts the emoji first");
    assert.equal(compareText(tilde, emoji), -1);
    assert.equal(compareValues(tilde, emoji), -1);
    assert.deepEqual(sortValues([emoji, tilde]), [tilde, emoji]);
    assert.deepEqual(sortValues([`${emoji} b`, `${tilde} a`, "\uE000", "\uD7FF"]), ["\uD7FF", "\uE000", `${tilde} a`, `${emoji} b`]);
    // Shared high surrogate, different low surrogates.
    assert.equal(compareText("\u{1F600}", "\u{1F601}"), -1);
    assert.equal(compareText("a\u{1F601}", "a\u{1F600}x"), 1);
    assert.equal(compareText("\u{10000}", "\uFFFF"), 1);
  });

  test("case-sensitive, no locale collation, prefix first", () => {
    assertStrictlyIncreasing(["", "A", "B", "Z", "_", "a", "ab", "b", "z", "\u00C9", "\u00E9", "\u00FC", "\u4E2D", "\uFF5E", "\u{1F600}"]);
    assert.equal(compareValues("a", "A"), 1);
    assert.equal(compareValues("résumé", "resume"), 1);
    assert.equal(compareValues("10", "9"), -1); // text, not numbers
  });
});

describe("ordering: objects", () => {
  test("richtext by plain, location by lat then lng", () => {
    assertStrictlyIncreasing([{ plain: "A", html: "z" }, { html: "a", plain: "B" }, { plain: "a" }, { plain: "\uFF5E" }, { plain: "\u{1F600}" }]);
    assert.equal(compareValues({ plain: "x", html: "<b>x</b>" }, { plain: "x", html: "<i>x</i>" }), 0);
    // plain is compared as text, even when it looks like an instant
    assert.equal(compareValues({ plain: "2024-01-02T00:00:00+05:00" }, { plain: "2024-01-01T23:00:00Z" }), 1);
    assertStrictlyIncreasing([
      { lat: -90, lng: 180 },
      { lat: -1, lng: -180 },
      { lat: -1, lng: 0 },
      { lat: 0, lng: -5 },
      { lat: 45.5, lng: 0 },
    ]);
    assert.equal(compareValues({ lat: 1, lng: 2 }, { lng: 2, lat: 1, label: "x" }), 0);
    assert.equal(compareValues({ lat: -0, lng: 0 }, { lat: 0, lng: -0 }), 0);
  });

  test("other objects structurally: sorted keys, key then value, prefix smaller", () => {
    assertStrictlyIncreasing([
      {},
      { a: 1 },
      { a: 1, b: 0 },
      { a: 2 },
      { a: "2020-01-01T00:00:00Z" },
      { a: "x" },
      { a: [] },
      { a: true },
      { a: null }, // nested null after every kind
      { b: 0 },
    ]);
    // Entries are sorted by key before comparing.
    assert.equal(compareValues({ b: 1, a: 2 }, { a: 2, c: 0 }), -1);
    assert.equal(compareValues({ z: 1, a: 1 }, { a: 1, z: 1 }), 0);
    // Keys compare by code point.
    assert.equal(compareValues({ "\uFF5E": 1 }, { "\u{1F600}": 0 }), -1);
    assert.equal(compareValues({ B: 9 }, { a: 0 }), -1);
    // Nested values use the same rules.
    assert.equal(compareValues({ a: { plain: "b" } }, { a: { plain: "a" } }), 1);
    assert.equal(compareValues({ a: "2024-01-01T12:00:00+02:00" }, { a: "2024-01-01T10:00:00Z" }), 0);
  });
});

describe("ordering: arrays and booleans", () => {
  test("arrays element by element, nulls after every kind, shorter first", () => {
    assertStrictlyIncreasing([
      [],
      [0],
      [0, 0],
      [0, "a"],
      [0, true],
      [0, null],
      [1],
      ["2020-01-01T00:00:00Z"],
      ["a", "b"],
      ["b"],
      [[]],
      [false],
      [true],
      [null],
      [null, null],
    ]);
    assert.equal(compareValues([null], []), 1);
    assert.equal(compareValues([1, null], [1, true]), 1);
    assert.equal(compareValues(["red", "blue"], ["red", "blue"]), 0);
    assert.deepEqual(sortValues([["b"], ["a", "z"], [], ["a"]]), [[], ["a"], ["a", "z"], ["b"]]);
  });

  test("booleans false < true", () => {
    assertStrictlyIncreasing([false, true]);
    assert.deepEqual(sortValues([true, false, true]), [false, true, true]);
    assert.deepEqual(sortValues([true, false], "DESC"), [true, false]);
  });
});

describe("ordering: meta.id", () => {
  const sortIds = (ids, direction = "ASC") =>
    sortDocuments(
      ids.map((id) => doc(1, { id })),
      [{ key: "meta.id", direction }],
    ).map((d) => d.meta.id);

  test("decimal numbers of any length, never floats", () => {
    assertStrictlyIncreasing(
      [
        "0",
        "00",
        "1",
        "9",
        "10",
        "099", // = 99
        "99",
        "123456789012345678",
        "123456789012345679", // equal as f64
        "999999999999999999",
        "1000000000000000000",
        "00000000000000000001000000000000000001",
        "12345678901234567890123",
      ],
      compareIds,
    );
    assert.equal(Number("123456789012345678"), Number("123456789012345679"));
  });

  test("leading zeros: equal values then compare as text", () => {
    assert.equal(compareIds("007", "7"), -1);
    assert.equal(compareIds("7", "007"), 1);
    assert.equal(compareIds("0007", "008"), -1);
    assert.equal(compareIds("000", "0"), 1); // "0" is a prefix of "000"
  });

  test("non-digit ids after all digit ids, as text", () => {
    assertStrictlyIncreasing(["5", "999999999999999999999", "-1", "1.5", "1e3", "A", "a1", "a10", "a9", "abc", "\uFF5E", "\u{1F600}"], compareIds);
    assert.deepEqual(sortIds(["abc", "10", "9", "a", "0100"]), ["9", "10", "0100", "a", "abc"]);
    assert.deepEqual(sortIds(["abc", "10", "9", "a", "0100"], "DESC"), ["abc", "a", "0100", "10", "9"]);
    // An id that looks like an instant is still text, after digit ids.
    assert.equal(compareIds("2024-01-01T00:00:00Z", "2024-01-01T00:00:00+01:00"), 1);
  });

  test("non-string ids use the general rules, strings at the text rank", () => {
    assert.equal(compareIds(5, "1"), -1); // number < text
    assert.equal(compareIds(true, "1"), 1); // boolean > text
    assert.equal(compareIds(2, 10), -1);
    assert.equal(compareIds("2024-01-01T00:00:00Z", 1), 1); // string counts as text, still after numbers
    assert.equal(compareIds({ plain: "a" }, "zzz"), 1); // richtext > text
  });

  test("the default order also uses the decimal id order", () => {
    const docs = ["9", "10", "100000000000000000000", "x", "099"].map((id) => doc(1, { id }));
    assert.deepEqual(
      sortDocuments(docs).map((d) => d.meta.id),
      ["x", "100000000000000000000", "099", "10", "9"],
    );
  });
});

describe("ordering: missing and null", () => {
  test("missing or null last in both directions", () => {
    const vals = [3, null, undefined, 1, 2];
    assert.deepEqual(sortValues(vals, "ASC").slice(0, 3), [1, 2, 3]);
    assert.deepEqual(sortValues(vals, "DESC").slice(0, 3), [3, 2, 1]);
    for (const direction of ["ASC", "DESC"]) {
      const out = sortValues(vals, direction).slice(3);
      assert.equal(out.length, 2);
      assert.ok(out.every((v) => v == null));
    }
  });

  test("missing and null tie with each other (default order decides)", () => {
    const a = doc(null, { id: "1", createdAt: "2024-01-01T00:00:00.000Z" });
    const b = doc(undefined, { id: "2", createdAt: "2024-01-03T00:00:00.000Z" });
    const c = doc(5, { id: "3", createdAt: "2024-01-02T00:00:00.000Z" });
    for (const direction of ["ASC", "DESC"]) {
      assert.deepEqual(sortDocuments([a, b, c], [{ key: "fields.v", direction }]).map((d) => d.meta.id), ["3", "2", "1"]);
    }
  });

  test("missing scope object and missing meta values", () => {
    const noFields = { meta: { id: "1", createdAt: "2024-01-01T00:00:00.000Z" } };
    const withV = doc("x", { id: "2" });
    assert.deepEqual(sortDocuments([noFields, withV], [{ key: "fields.v", direction: "DESC" }]).map((d) => d.meta.id), ["2", "1"]);
    // Missing createdAt goes last in the default order (DESC).
    const noCreated = { fields: {}, meta: { id: "5" } };
    const d1 = doc(1, { id: "1", createdAt: "2020-01-01T00:00:00.000Z" });
    assert.deepEqual(sortDocuments([noCreated, d1]).map((d) => d.meta.id), ["1", "5"]);
  });
});

describe("ordering: several keys, default order, stability, directions", () => {
  test("the first key decides, then the next", () => {
    const docs = [
      doc(undefined, { id: "1", extra: { a: 1, b: "x" } }),
      doc(undefined, { id: "2", extra: { a: 2, b: "a" } }),
      doc(undefined, { id: "3", extra: { a: 1, b: "a" } }),
      doc(undefined, { id: "4", extra: { a: 2, b: "z" } }),
    ];
    const ids = (sorting) => sortDocuments(docs, sorting).map((d) => d.meta.id);
    assert.deepEqual(ids([{ key: "fields.a", direction: "ASC" }, { key: "fields.b", direction: "ASC" }]), ["3", "1", "2", "4"]);
    assert.deepEqual(ids([{ key: "fields.a", direction: "DESC" }, { key: "fields.b", direction: "ASC" }]), ["2", "4", "3", "1"]);
    assert.deepEqual(ids([{ key: "fields.b", direction: "DESC" }, { key: "fields.a", direction: "ASC" }]), ["4", "1", "3", "2"]);
  });

  test("default order: createdAt DESC (as instants), then id DESC", () => {
    const docs = [
      doc(1, { id: "1", createdAt: "2024-01-01T00:00:00.000Z" }),
      doc(1, { id: "2", createdAt: "2024-01-02T00:00:00.000Z" }),
      doc(1, { id: "10", createdAt: "2024-01-01T00:00:00.000Z" }),
      doc(1, { id: "3", createdAt: "2024-01-01T01:00:00+01:00" }), // same instant as id 1 and 10
    ];
    assert.deepEqual(sortDocuments(docs).map((d) => d.meta.id), ["2", "10", "3", "1"]);
    assert.deepEqual(sortDocuments(docs, []).map((d) => d.meta.id), ["2", "10", "3", "1"]);
    assert.deepEqual(sortDocuments(docs, null).map((d) => d.meta.id), ["2", "10", "3", "1"]);
    // Ties on the user's key fall back to the default order.
    assert.deepEqual(sortDocuments(docs, [{ key: "fields.v", direction: "ASC" }]).map((d) => d.meta.id), ["2", "10", "3", "1"]);
    assert.deepEqual(
      sortDocuments(docs, [{ key: "meta.createdAt", direction: "ASC" }]).map((d) => d.meta.id),
      ["10", "3", "1", "2"],
    );
  });

  test("stable: complete ties keep the original position", () => {
    const same = () => ({ fields: { v: 1 }, meta: { id: "7", createdAt: "2024-01-01T00:00:00.000Z" } });
    const docs = Array.from({ length: 20 }, (_, i) => ({ ...same(), n: i }));
    for (const sorting of [undefined, [{ key: "fields.v", direction: "DESC" }]]) {
      assert.deepEqual(sortDocuments(docs, sorting).map((d) => d.n), docs.map((d) => d.n));
    }
    // The input array is not modified.
    const input = [doc(2), doc(1)];
    const copy = input.slice();
    sortDocuments(input, [{ key: "fields.v", direction: "ASC" }]);
    assert.deepEqual(input, copy);
  });

  test("direction forms", () => {
    for (const d of ["ASC", "asc", "Asc", "1", 1]) assert.equal(normalizeDirection(d), "ASC", String(d));
    for (const d of ["DESC", "desc", "dEsC", "-1", -1]) assert.equal(normalizeDirection(d), "DESC", String(d));
    for (const d of [null, undefined, "", "up", "ascending", 2, 0, "+1", " ASC", true, {}]) {
      assert.throws(() => normalizeDirection(d), (e) => e.code === "invalid_sort" && e instanceof Error, String(d));
    }
    const docs = [doc(2), doc(1), doc(3)];
    for (const direction of ["asc", 1, "1"]) {
      assert.deepEqual(sortDocuments(docs, [{ key: "fields.v", direction }]).map((d) => d.fields.v), [1, 2, 3]);
    }
    for (const direction of ["desc", -1, "-1"]) {
      assert.deepEqual(sortDocuments(docs, [{ key: "fields.v", direction }]).map((d) => d.fields.v), [3, 2, 1]);
    }
  });

  test("invalid keys are invalid_sort errors with a hint", () => {
    for (const key of ["title", "Fields.title", "fields.a.b", "fields.", "other.x", "fields.tïtle", "", 5]) {
      assert.throws(
        () => sortDocuments([], [{ key, direction: "ASC" }]),
        (e) => e.code === "invalid_sort",
        String(key),
      );
    }
    assert.throws(() => sortDocuments([], [{ key: "title", direction: "ASC" }]), /did you mean "fields\.title"/);
    assert.throws(() => sortDocuments([], [{ key: "fields.x", direction: "up" }]), /"up"/);
  });

  test("sorting again on a key replaces its direction in place", () => {
    const docs = [
      doc(undefined, { id: "1", extra: { a: 1, b: 1 } }),
      doc(undefined, { id: "2", extra: { a: 1, b: 2 } }),
      doc(undefined, { id: "3", extra: { a: 2, b: 0 } }),
    ];
    const out = sortDocuments(docs, [
      { key: "fields.a", direction: "ASC" },
      { key: "fields.b", direction: "ASC" },
      { key: "fields.a", direction: "DESC" },
    ]);
    assert.deepEqual(out.map((d) => d.meta.id), ["3", "1", "2"]);
  });
});

/* ---------------------------------------------------------------------- */
/* SPEC §3: grammar                                                        */
/* ---------------------------------------------------------------------- */

describe("selection: grammar errors", () => {
  const deep = (n, prefix = "") => prefix + Array.from({ length: n }, (_, i) => `n${i}`).join("/");
  const cases = [
    ["", 0],
    ["   ", 3],
    ["\t\r\n", 3],
    [",", 0],
    ["a,", 2],
    [",a", 0],
    ["a,,b", 2],
    ["a//b", 2],
    ["a/", 2],
    ["/a", 0],
    ["a()", 2],
    ["a( )", 3],
    ["a(,b)", 2],
    ["a(b,)", 4],
    ["a(b", 3],
    ["a(b(c)", 6],
    ["a)", 1],
    ["a(b))", 4],
    ["(a)", 0],
    ["titlé", 4],
    ["title\u00A0", 5], // NBSP is not whitespace here
    ["a b", 2],
    ["a(b)c", 4],
    ["a(b)/c", 4],
    ["a.b", 1],
    ["a*", 1],
    ["*a", 1],
    ["**", 1],
    ["*/a", 1],
    ["* /a", 2],
    ["*(a)", 1],
    ["b,* (a)", 4],
    ["a\\/b", 1],
    ["\u{1F600}", 0],
    ["fields(a,b/c  ", 14],
    [deep(31), null], // ok: shorthand, levels 2..32
    [deep(32), deep(31).length + 1], // level 33
    [deep(31, "fields/"), null], // fields + 31 = 32
    [deep(32, "fields/"), "fields/".length + deep(31).length + 1],
    [deep(31, "meta/"), null],
    [deep(31, "includes/"), null],
    [`${"a(".repeat(31)}x${")".repeat(31)}`, 62], // a at level 2 ... 32nd name at 33
    [`${"a(".repeat(30)}x${")".repeat(30)}`, null],
    [`fields(${deep(31)})`, null],
    [`fields(${deep(32)})`, 7 + deep(31).length + 1],
  ];
  for (const [text, position] of cases) {
    test(`${JSON.stringify(text.length > 40 ? text.slice(0, 37) + "..." : text)} → ${position}`, () => {
      if (position === null) {
        assert.doesNotThrow(() => parseSelection(text));
        return;
      }
      const e = selErr(text);
      assert.ok(e instanceof Error);
      assert.equal(e.code, "invalid_selection");
      assert.equal(e.position, position);
      assert.match(e.message, new RegExp(`^expected .+ at ${position}$`));
    });
  }

  test("messages say what was expected", () => {
    assert.equal(selErr("fields(a,b/c  ").message, "expected ')' at 14");
    assert.match(selErr("a,,b").message, /^expected a name at 2$/);
    assert.match(selErr("").message, /^expected a name at 0$/);
    assert.ok(selErr("titlé").expected.includes("','"));
    assert.equal(selErr(null).code, "invalid_selection");
  });

  test("whitespace around tokens is ignored", () => {
    const a = canonicalSelection(parseSelection(" \t title , author ( name ,\r\n bio ) , meta / id \n"));
    assert.equal(a, "fields(author(bio,name),title),meta/id");
  });
});

describe("selection: meaning and canonical form", () => {
  const cases = [
    ["title, author/name", "fields(author/name,title),meta"],
    ["meta/id", "meta/id"],
    ["fields", "fields,meta"],
    ["meta", "meta"],
    ["meta,fields", "fields,meta"],
    ["*", "*"],
    ["title,*", "*"],
    ["*,meta/id,includes(x)", "*"],
    ["title", "fields/title,meta"],
    ["fields/title", "fields/title,meta"],
    ["fields(title)", "fields/title,meta"],
    ["title,fields/title", "fields/title,meta"],
    ["a,a", "fields/a,meta"],
    ["a, a/b", "fields/a,meta"],
    ["a/b, a", "fields/a,meta"],
    ["a(b),a(c)", "fields/a(b,c),meta"],
    ["a(b/c),a(b/d)", "fields/a/b(c,d),meta"],
    ["a(b/c),a/b", "fields/a/b,meta"],
    ["fields,title", "fields,meta"],
    ["title,fields", "fields,meta"],
    ["b,a,B,_x,-y,9", "fields(-y,9,B,_x,a,b),meta"],
    ["a(*,b)", "fields/a/*,meta"],
    ["a(b,*)", "fields/a/*,meta"],
    ["a(*/x,b)", "fields/a(*/x,b),meta"],
    ["a/*/url", "fields/a/*/url,meta"],
    ["gallery/*/url", "fields/gallery/*/url,meta"],
    ["fields/*", "fields/*,meta"],
    ["fields(*,title)", "fields/*,meta"],
    ["meta(id,createdAt),meta/tags", "meta(createdAt,id,tags)"],
    ["meta/id,meta", "meta"],
    ["includes", "includes,meta"],
    ["includes(author/fields/name)", "includes/author/fields/name,meta"],
    ["includes/author/meta,title", "fields/title,includes/author/meta,meta"],
    ["fields(meta),meta(fields)", "fields/meta,meta/fields"], // inside a scope, names are plain
    ["includes,meta/id", "includes,meta/id"],
  ];
  for (const [input, canonical] of cases) {
    test(`${JSON.stringify(input)} → ${canonical}`, () => {
      const parsed = parseSelection(input);
      assert.equal(canonicalSelection(parsed), canonical);
      assert.equal(canonicalSelection(input), canonical); // accepts a string too
      // Round trip: the canonical form parses to the same meaning and form.
      assert.deepEqual(parseSelection(canonical), parsed);
      assert.equal(canonicalSelection(parseSelection(canonical)), canonical);
    });
  }

  test("normalised structure", () => {
    assert.deepEqual(parseSelection("*"), { all: true });
    const s = parseSelection("title,author(name)");
    assert.ok(s.fields instanceof Map);
    assert.deepEqual(s.fields, new Map([["title", new Map()], ["author", new Map([["name", new Map()]])]]));
    assert.deepEqual(s.meta, new Map()); // whole
    assert.equal(s.includes, null);
    const m = parseSelection("meta/id");
    assert.equal(m.fields, null);
    assert.deepEqual(m.meta, new Map([["id", new Map()]]));
    assert.deepEqual(parseSelection("includes").includes, new Map());
  });

  test("code point sort of siblings puts * first", () => {
    assert.equal(canonicalSelection("a(z,*/x,Y)"), "fields/a(*/x,Y,z),meta");
  });
});

/* ---------------------------------------------------------------------- */
/* SPEC §3: projection                                                     */
/* ---------------------------------------------------------------------- */

describe("selection: projection", () => {
  const META = { id: "1", contentType: "product", repository: "demo", revision: 3, tags: ["a"], createdAt: "2024-01-01T00:00:00.000Z", updatedAt: "2024-01-01T00:00:00.000Z" };
  const DOC = {
    fields: {
      title: "T",
      author: { name: "N", age: 3, address: { city: "C" } },
      gallery: [{ url: "u1", alt: "a1" }, { url: "u2" }, { alt: "a3" }],
      mixed: [{ url: "m1" }, "x", 5, null, [{ url: "m2" }, "y"], []],
      tags: ["red", "blue"],
      empty: [],
      nul: null,
      num: 5,
      str: "s",
      obj: {},
      flags: [true, false],
    },
    meta: META,
    extra: { keep: "only with *" },
  };
  const sel = (s) => selectFields(DOC, s);
  const cases = [
    ["title", { fields: { title: "T" }, meta: META }],
    ["*", DOC],
    ["fields", { fields: DOC.fields, meta: META }],
    ["meta", { meta: META }],
    ["meta/id", { meta: { id: "1" } }],
    ["meta(id,tags),title", { fields: { title: "T" }, meta: { id: "1", tags: ["a"] } }],
    ["meta/missing", { meta: {} }],
    ["missing", { fields: {}, meta: META }],
    ["nul", { fields: { nul: null }, meta: META }],
    ["nul/x", { fields: {}, meta: META }],
    ["num/x", { fields: {}, meta: META }],
    ["str/x", { fields: {}, meta: META }],
    ["obj/x", { fields: { obj: {} }, meta: META }],
    ["author/name", { fields: { author: { name: "N" } }, meta: META }],
    ["author/missing", { fields: { author: {} }, meta: META }],
    ["author(name),author(age)", { fields: { author: { name: "N", age: 3 } }, meta: META }],
    ["author/address/city,author/name", { fields: { author: { name: "N", address: { city: "C" } } }, meta: META }],
    ["author,author/name", { fields: { author: DOC.fields.author }, meta: META }],
    ["author/*", { fields: { author: DOC.fields.author }, meta: META }],
    ["author(*,name)", { fields: { author: DOC.fields.author }, meta: META }],
    // * and a named child on the same key: union ({city} ∪ whole = whole for address; name: {city} on a string → not selected, ∪ leaf = leaf)
    ["author(*/city,name)", { fields: { author: { name: "N", address: { city: "C" } } }, meta: META }],
    ["author(*/city,address/zip)", { fields: { author: { address: { city: "C" } } }, meta: META }],
    ["gallery/url", { fields: { gallery: [{ url: "u1" }, { url: "u2" }, {}] }, meta: META }],
    ["gallery(url,alt)", { fields: { gallery: DOC.fields.gallery }, meta: META }],
    ["gallery/*/url", { fields: { gallery: [{ url: "u1" }, { url: "u2" }, {}] }, meta: META }],
    ["gallery/*", { fields: { gallery: DOC.fields.gallery }, meta: META }],
    ["gallery/missing", { fields: { gallery: [{}, {}, {}] }, meta: META }],
    // object elements always give a result; nested arrays are descended; other elements dropped
    ["mixed/url", { fields: { mixed: [{ url: "m1" }, [{ url: "m2" }], []] }, meta: META }],
    ["tags/x", { fields: {}, meta: META }], // nothing remains of a non-empty array
    ["tags/*", { fields: { tags: ["red", "blue"] }, meta: META }],
    ["tags", { fields: { tags: ["red", "blue"] }, meta: META }],
    ["flags/x", { fields: {}, meta: META }],
    ["empty/x", { fields: { empty: [] }, meta: META }],
    ["empty/*/x", { fields: { empty: [] }, meta: META }],
  ];
  for (const [s, expected] of cases) {
    test(JSON.stringify(s), () => assert.deepEqual(sel(s), expected));
  }

  test("scalar documents, missing scopes, and inputs are left unchanged", () => {
    assert.deepEqual(selectFields({ meta: META }, "title"), { meta: META });
    assert.deepEqual(selectFields({ fields: null, meta: META }, "title"), { meta: META });
    assert.deepEqual(selectFields({ fields: null, meta: META }, "fields"), { fields: null, meta: META });
    const before = JSON.stringify(DOC);
    selectFields(DOC, "gallery/*/url,meta/id");
    assert.equal(JSON.stringify(DOC), before);
    assert.equal(selectFields(DOC, null), DOC);
    assert.equal(selectFields(DOC, undefined), DOC);
  });

  test("arrays of documents and list envelopes", () => {
    const list = {
      status: "ok",
      meta: { count: 1, limit: 25, offset: 0, total: 1 },
      data: [DOC, { fields: { title: "U" }, meta: { id: "2" } }],
      includes: {
        author: [
          { fields: { name: "A", bio: "B" }, meta: { id: "9" } },
          { fields: { bio: "C" }, meta: { id: "8" } },
        ],
      },
      other: 1,
    };
    assert.deepEqual(selectFields(list, "title,meta/id"), {
      status: "ok",
      meta: list.meta,
      data: [
        { fields: { title: "T" }, meta: { id: "1" } },
        { fields: { title: "U" }, meta: { id: "2" } },
      ],
      includes: list.includes, // whole without an includes item
      other: 1,
    });
    assert.deepEqual(selectFields(list, "includes(author/fields/name),meta/id").includes, {
      author: [{ fields: { name: "A" } }, { fields: {} }],
    });
    assert.deepEqual(selectFields(list, "includes(author/fields/name),meta/id").data, [{ meta: { id: "1" } }, { meta: { id: "2" } }]);
    assert.deepEqual(selectFields(list, "includes/missing").includes, {});
    assert.deepEqual(selectFields(list, "includes").includes, list.includes);
    assert.equal(selectFields(list, "*"), list);
    // fields=meta returns no fields
    assert.deepEqual(selectFields(list, "meta").data, [{ meta: META }, { meta: { id: "2" } }]);
    // A plain array of documents
    assert.deepEqual(selectFields([DOC], "meta/id"), [{ meta: { id: "1" } }]);
    // A list without includes gets none
    assert.equal("includes" in selectFields({ data: [DOC] }, "includes/author"), false);
  });

  test("selections given as plain-object trees", () => {
    assert.deepEqual(selectFields(DOC, { fields: { author: { name: {} } }, meta: { id: {} }, includes: null }), {
      fields: { author: { name: "N" } },
      meta: { id: "1" },
    });
    assert.deepEqual(applyPath({ a: 1, b: 2 }, { a: {} }), { selected: true, value: { a: 1 } });
    assert.deepEqual(applyPath("x", { a: {} }), { selected: false });
  });

  test("__proto__ as a name is an ordinary key", () => {
    const d = JSON.parse('{"fields":{"__proto__":{"x":1},"y":2},"meta":{}}');
    const out = selectFields(d, "__proto__/x");
    assert.deepEqual(Object.keys(out.fields), ["__proto__"]);
    assert.equal(Object.getPrototypeOf(out.fields), Object.prototype);
    assert.deepEqual(out.fields.__proto__, { x: 1 });
  });

  test("invalid selection strings throw invalid_selection", () => {
    assert.throws(() => selectFields(DOC, "a,,b"), (e) => e.code === "invalid_selection" && e.position === 2);
  });
});

describe("applyQuery", () => {
  test("sort → page → select, with meta", () => {
    const docs = [5, 3, 9, 1, 7].map((v, i) => doc(v, { id: String(i + 1) }));
    const out = applyQuery(docs, { sorting: [{ key: "fields.v", direction: "DESC" }], fields: "v", limit: 2, offset: 1 });
    assert.deepEqual(out.meta, { count: 2, limit: 2, offset: 1, total: 5 });
    assert.deepEqual(out.data.map((d) => d.fields), [{ v: 7 }, { v: 5 }]);
    assert.ok(out.data.every((d) => d.meta && d.meta.id));
    assert.equal(applyQuery(docs).meta.limit, 25);
    assert.throws(() => applyQuery(docs, { limit: 0 }), (e) => e.code === "invalid_argument");
    assert.throws(() => applyQuery(docs, { limit: 1001 }), (e) => e.code === "invalid_argument");
    assert.throws(() => applyQuery(docs, { offset: -1 }), (e) => e.code === "invalid_argument");
    assert.throws(() => applyQuery(docs, { fields: "(" }), (e) => e.code === "invalid_selection");
  });
});

/* ---------------------------------------------------------------------- */
/* Differential test against json-mask (SPEC §3 overlap)                   */
/* ---------------------------------------------------------------------- */

describe("selection: agrees with json-mask on the overlap", () => {
  const NAMES = ["a", "b", "c", "title", "x_y", "n-1", "Z", "9"];

  /** A random JSON value without nested arrays. */
  function genValue(rnd, depth, inArray = false) {
    const r = rnd();
    if (depth <= 0 || r < 0.35) {
      const s = rnd();
      if (s < 0.3) return ["", "s", "é", "\u{1F600}"][Math.floor(rnd() * 4)];
      if (s < 0.55) return Math.floor(rnd() * 100) - 50;
      if (s < 0.7) return rnd() < 0.5;
      if (s < 0.8) return null;
      return 0;
    }
    if (r < 0.75 || inArray) return genObject(rnd, depth - 1);
    const n = Math.floor(rnd() * 4);
    const arr = [];
    const objects = rnd() < 0.7;
    for (let i = 0; i < n; i++) arr.push(objects ? genObject(rnd, depth - 1) : genValue(rnd, 0, true));
    return arr;
  }
  function genObject(rnd, depth) {
    const o = {};
    const n = Math.floor(rnd() * 5);
    for (let i = 0; i < n; i++) o[NAMES[Math.floor(rnd() * NAMES.length)]] = genValue(rnd, depth);
    return o;
  }

  const isPlain = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
  /** A value a sub-path may be applied to: an object, or an array of objects only. */
  const safe = (v) => isPlain(v) || (Array.isArray(v) && v.every(isPlain));
  const children = (vals) => vals.flatMap((v) => (Array.isArray(v) ? v : [v]));

  /**
   * A random selection tree valid for every object in `objs` under the
   * overlap rules: distinct paths, no `*` applied to an array, no path applied
   * to a scalar or null, no nested arrays.
   * @returns {string[]} the items of the selection (each a string)
   */
  function genItems(rnd, objs, fromArray, depth) {
    const keys = [...new Set(objs.flatMap((o) => Object.keys(o)))];
    if (!fromArray && keys.length && rnd() < 0.15) {
      const vals = objs.flatMap((o) => Object.values(o));
      if (depth > 0 && vals.length && vals.every(safe) && rnd() < 0.6) {
        const kids = children(vals);
        const sub = genItems(rnd, kids, vals.some(Array.isArray), depth - 1);
        return [writeItem("*", sub, rnd)];
      }
      return ["*"];
    }
    const pool = [...keys];
    if (pool.length === 0 || rnd() < 0.3) pool.push(NAMES[Math.floor(rnd() * NAMES.length)] + "q"); // absent
    const count = 1 + Math.floor(rnd() * Math.min(3, pool.length));
    const chosen = [];
    while (chosen.length < count && pool.length) chosen.push(pool.splice(Math.floor(rnd() * pool.length), 1)[0]);
    return chosen.map((k) => {
      const vals = objs.filter((o) => Object.prototype.hasOwnProperty.call(o, k)).map((o) => o[k]);
      if (depth > 0 && vals.length && vals.every(safe) && rnd() < 0.6) {
        const kids = children(vals);
        const sub = kids.length ? genItems(rnd, kids, vals.some(Array.isArray), depth - 1) : ["zz"];
        return writeItem(k, sub, rnd);
      }
      return k;
    });
  }
  function writeItem(name, subItems, rnd) {
    if (subItems.length === 1 && rnd() < 0.5) return `${name}/${subItems[0]}`;
    return `${name}(${subItems.join(",")})`;
  }

  function genSelection(rnd, docs) {
    const fieldsObjs = docs.map((d) => d.fields);
    const metaObjs = docs.map((d) => d.meta);
    const fieldsItems = fieldsObjs.some((o) => Object.keys(o).length) && rnd() < 0.85 ? genItems(rnd, fieldsObjs, false, 4) : null;
    const metaItems = metaObjs.some((o) => Object.keys(o).length) && rnd() < 0.6 ? genItems(rnd, metaObjs, false, 3) : null;
    const parts = [fieldsItems ? writeItem("fields", fieldsItems, rnd) : "fields", metaItems ? writeItem("meta", metaItems, rnd) : "meta"];
    if (rnd() < 0.5) parts.reverse();
    return parts.join(",");
  }

  test("random documents", () => {
    const rnd = mulberry32(12345);
    let compared = 0;
    for (let round = 0; round < 400; round++) {
      const docs = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => ({
        fields: genObject(rnd, 4),
        meta: { id: String(round), tags: ["a"], ...genObject(rnd, 2) },
      }));
      const s = genSelection(rnd, docs);
      for (const d of docs) {
        assert.deepEqual(selectFields(d, s), jsonMask(d, s), `selection ${s} on ${JSON.stringify(d)}`);
        compared++;
      }
      assert.deepEqual(selectFields(docs, s), jsonMask(docs, s), `selection ${s} on a list`);
      assert.deepEqual(selectFields({ data: docs }, s).data, jsonMask({ data: docs }, `data(${s})`).data);
    }
    assert.ok(compared > 500);
  });

  test("fixture documents", () => {
    const rnd = mulberry32(777);
    const fx = buildFixtures();
    for (let round = 0; round < 150; round++) {
      const start = Math.floor(rnd() * (fx.documents.length - 5));
      const docs = fx.documents.slice(start, start + 1 + Math.floor(rnd() * 4));
      const s = genSelection(rnd, docs);
      assert.deepEqual(selectFields(docs, s), jsonMask(docs, s), `selection ${s}`);
    }
  });

  test("known json-mask defects we do not copy", () => {
    const d = { fields: { gallery: [{ url: "u1", alt: "a" }, { url: "u2" }] }, meta: { id: "1" } };
    assert.deepEqual(jsonMask(d, "fields/gallery/*/url,meta").fields.gallery, [{}, {}]);
    assert.deepEqual(selectFields(d, "fields/gallery/*/url,meta").fields.gallery, [{ url: "u1" }, { url: "u2" }]);
    const e = { fields: { a: { b: 1, c: 2 } }, meta: {} };
    assert.deepEqual(jsonMask(e, "fields(a(b),a(c)),meta").fields, { a: { c: 2 } });
    assert.deepEqual(selectFields(e, "fields(a(b),a(c)),meta").fields, { a: { b: 1, c: 2 } });
  });
});
