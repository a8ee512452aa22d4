import { describe, expect, test } from "bun:test";
import { takeToken, type Bucket } from "../../domain/rate-limit";

describe("takeToken", () => {
  test("allows `capacity` requests at once, then refuses with the wait for one token", () => {
    let bucket: Bucket | undefined;
    for (let i = 0; i < 60; i++) {
      const r = takeToken(bucket, 60, 60, 1000);
      expect(r.decision.allowed).toBe(true);
      bucket = r.bucket;
    }
    const refused = takeToken(bucket, 60, 60, 1000);
    expect(refused.decision).toMatchObject({ allowed: false, remaining: 0, retryAfter: 1, limit: 60 });
  });
  test("refills at capacity per period", () => {
    let bucket: Bucket | undefined;
    for (let i = 0; i < 10; i++) bucket = takeToken(bucket, 10, 60, 0).bucket;
    expect(takeToken(bucket, 10, 60, 5).decision.allowed).toBe(false);
    expect(takeToken(bucket, 10, 60, 6).decision.allowed).toBe(true);
    expect(takeToken(bucket, 10, 60, 6000).decision.remaining).toBe(9);
  });
});
