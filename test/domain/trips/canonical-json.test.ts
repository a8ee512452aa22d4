import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { canonicalJson, canonicalJsonWalk } from "../../../domain/trips/decisions";
import { NAUGHTY } from "../../support/fuzz";

// canonicalJson has a fast path (sorted copy + native JSON.stringify); stored content hashes depend on its exact
// bytes, so it must equal the reference walk for every value.
describe("canonicalJson", () => {
  test("equals the reference walk on arbitrary JSON values", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v)).toBe(canonicalJsonWalk(v));
      }),
      { numRuns: 2000, seed: 20261122 },
    );
  });

  test("equals the reference walk on arbitrary values (undefined, functions, dates, odd keys, null prototypes)", () => {
    const key = fc.oneof(fc.string(), fc.constantFrom("__proto__", "0", "1", "10", "9", "01", "-1", "1.5", "constructor", "toJSON", "", "a", "B"));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.anything({ withDate: true, withMap: true, withSet: true, withNullPrototype: true, withBoxedValues: true, withSparseArray: true, withTypedArray: true }),
        fc.dictionary(key, tie("node"), { maxKeys: 6 }),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.constantFrom(undefined, null, () => 1, NaN, -0, Infinity, ...NAUGHTY.slice(0, 40)),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        let expected: string | Error;
        try {
          expected = canonicalJsonWalk(v);
        } catch (e) {
          expected = e as Error;
        }
        if (expected instanceof Error) expect(() => canonicalJson(v)).toThrow();
        else expect(canonicalJson(v)).toBe(expected);
      }),
      { numRuns: 2000, seed: 20261123 },
    );
  });

  test("sorts keys at every depth and drops undefined members", () => {
    const a = { b: 1, a: { d: [{ z: 1, y: undefined, x: "é" }], c: null }, "10": 1, "9": 2 };
    expect(canonicalJson(a)).toBe('{"10":1,"9":2,"a":{"c":null,"d":[{"x":"é","z":1}]},"b":1}');
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
    expect(canonicalJson(undefined)).toBe("null");
    expect(canonicalJson([undefined, () => 1])).toBe("[null,null]");
  });
});
