import { expect, test } from "bun:test";
import { FailureLines } from "../scripts/test";

test("the test script keeps each failure with the error bun printed before it, once, however the output was chunked", () => {
  const failures: string[] = [];
  const lines = new FailureLines(failures);
  const output = [
    "test/a.test.ts:",
    "(pass) a > passes [0.10ms]",
    "error: expect(received).toBe(expected)",
    "Expected: 2",
    "Received: 1",
    "(fail) a > fails [3.20ms]",
    "(pass) a > passes again [0.05ms]",
    " 2 pass",
    " 1 fail",
    "1 tests failed:",
    "(fail) a > fails [3.20ms]",
    "",
  ].join("\n");
  // Chunks cut through lines, as a pipe delivers them.
  for (let i = 0; i < output.length; i += 7) lines.read(output.slice(i, i + 7));
  expect(failures).toHaveLength(1);
  expect(failures[0]).toContain("Received: 1");
  expect(failures[0].endsWith("(fail) a > fails [3.20ms]")).toBe(true);
});

test("past the first five failures only their names are kept", () => {
  const failures: string[] = [];
  const lines = new FailureLines(failures);
  for (let i = 0; i < 7; i++) lines.read(`error: number ${i}\n(fail) test ${i}\n`);
  expect(failures).toHaveLength(7);
  expect(failures[4]).toContain("error: number 4");
  expect(failures[6]).toBe("(fail) test 6");
});
