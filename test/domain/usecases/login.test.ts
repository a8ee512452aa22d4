import { describe, expect, test } from "bun:test";
import { retryAfterSeconds, throttleWait } from "../../../domain/usecases/login";

describe("retryAfterSeconds", () => {
  test("zero below the limit", () => {
    expect(retryAfterSeconds([100, 200], 3, 300, 900)).toBe(0);
  });
  test("waits until enough failures leave the window", () => {
    // limit 3, failures at 100, 200, 300: the one at 100 must expire (at 1000) before a new try.
    expect(retryAfterSeconds([100, 200, 300], 3, 400, 900)).toBe(600);
    // with 4 failures, the second oldest decides.
    expect(retryAfterSeconds([100, 200, 300, 350], 3, 400, 900)).toBe(700);
  });
  test("never less than one second", () => {
    expect(retryAfterSeconds([100, 200, 300], 3, 999.5, 900)).toBe(1);
  });
});

describe("throttleWait", () => {
  test("attempts still being checked fill the budget for a second, not for the window", () => {
    expect(throttleWait({ failures: [100, 200], pending: 0 }, 3, 300, 900)).toBe(0);
    expect(throttleWait({ failures: [100, 200], pending: 1 }, 3, 300, 900)).toBe(1);
    expect(throttleWait({ failures: [], pending: 3 }, 3, 300, 900)).toBe(1);
  });
  test("recorded failures over the limit decide the wait", () => {
    expect(throttleWait({ failures: [100, 200, 300], pending: 2 }, 3, 400, 900)).toBe(600);
  });
});
