import { describe, expect, test } from "bun:test";
import { MAX_ATTEMPTS, retryDelaySeconds } from "../../../domain/delivery/retry";

describe("retryDelaySeconds", () => {
  test("the first retry comes within 2 s", () => {
    for (const r of [0, 0.5, 0.999]) expect(retryDelaySeconds(1, () => r)!).toBeLessThanOrEqual(2);
  });
  test("the delay doubles (midpoint jitter) up to 10 minutes", () => {
    const mid = () => 0.5;
    const delays = Array.from({ length: MAX_ATTEMPTS - 1 }, (_, i) => retryDelaySeconds(i + 1, mid)!);
    expect(delays).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256]);
    expect(retryDelaySeconds(9, () => 0.999)!).toBeLessThanOrEqual(600);
  });
  test("jitter stays within ±25 %", () => {
    expect(retryDelaySeconds(5, () => 0)).toBe(12);
    expect(retryDelaySeconds(5, () => 0.99999)).toBeCloseTo(20, 2);
  });
  test("10 attempts in all, then no more", () => {
    expect(retryDelaySeconds(MAX_ATTEMPTS - 1)).toBeDefined();
    expect(retryDelaySeconds(MAX_ATTEMPTS)).toBeUndefined();
  });
});
