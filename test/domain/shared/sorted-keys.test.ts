import { expect, test } from "bun:test";
import fc from "fast-check";
import { sortKeys } from "../../../domain/shared/sorted-keys";

test("sortKeys orders like the native sort, for short and long lists, any characters", () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })), { maxLength: 40 }), (keys) => {
      const expected = [...keys].sort();
      expect(sortKeys([...keys])).toEqual(expected);
    }),
    { numRuns: 3000, seed: 20261123 },
  );
});

test("sortKeys sorts in place and returns the same array", () => {
  const keys = ["b", "a", "\u{1F600}", "\uFFFF", "A", ""];
  expect(sortKeys(keys)).toBe(keys);
  expect(keys).toEqual(["", "A", "a", "b", "\u{1F600}", "\uFFFF"]);
});
