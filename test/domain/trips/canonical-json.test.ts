import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { canonicalJson, canonicalJsonWalk, contentFingerprint } from "../../../domain/trips/decisions";
import { validateSendTrip, type SendTripInput } from "../../../domain/trips/send-trip-request";
import newExample from "../../../adapters/http/examples/sendtrip-new.json";
import quoteExample from "../../../adapters/http/examples/sendtrip-quote.json";
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

// Stored bookings keep the fingerprint of their NEW request: a repeat is idempotent only if today's code computes
// the same bytes. These values were computed by the code that stored the first bookings; a change that alters
// them breaks repeats of every booking stored before it.
describe("contentFingerprint", () => {
  const cases = [
    { name: "the NEW example", body: newExample, fingerprint: "t95BxpcJHmUSlkpCECWSx9aUWTYlIMrUnGFThKIQnE0" },
    { name: "the QUOTE example", body: quoteExample, fingerprint: "qsE2y477U4uXkAhQaqd-XmpU0UYjEM6LKfaoltD3uAs" },
  ];
  for (const c of cases) {
    test(`is unchanged for ${c.name}`, () => {
      const checked = validateSendTrip(structuredClone(c.body) as SendTripInput);
      if (!checked.ok || checked.value.action !== "NEW") throw new Error(`example rejected: ${JSON.stringify(checked)}`);
      expect(contentFingerprint(checked.value, "ACME-LIMO")).toBe(c.fingerprint);
    });

    test(`does not depend on the order of the keys in ${c.name}`, () => {
      const checked = validateSendTrip(reversedKeys(structuredClone(c.body)) as SendTripInput);
      if (!checked.ok || checked.value.action !== "NEW") throw new Error(`example rejected: ${JSON.stringify(checked)}`);
      expect(contentFingerprint(checked.value, "ACME-LIMO")).toBe(c.fingerprint);
    });
  }

  test("changes when the content changes", () => {
    const body = structuredClone(newExample) as Record<string, any>;
    body.passengers[0].firstName = `${body.passengers[0].firstName}x`;
    const checked = validateSendTrip(body as SendTripInput);
    if (!checked.ok || checked.value.action !== "NEW") throw new Error("example rejected");
    expect(contentFingerprint(checked.value, "ACME-LIMO")).not.toBe(cases[0].fingerprint);
  });
});

/** The same value with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) out[key] = reversedKeys((value as Record<string, unknown>)[key]);
  return out;
}
