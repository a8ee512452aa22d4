import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { newWebhookSecret, signatureHeader, verifySignature } from "../../../adapters/delivery/signing";

describe("webhook signatures", () => {
  const secret = newWebhookSecret();
  const body = JSON.stringify({ eventId: "e1", type: "booking.updated" });
  test("HMAC-SHA256 over '<timestamp>.<body>'", () => {
    const header = signatureHeader(secret, body, 1_800_000_000);
    expect(header).toBe(`t=1800000000,v1=${createHmac("sha256", secret).update(`1800000000.${body}`).digest("hex")}`);
    expect(verifySignature(secret, body, header, 1_800_000_010)).toBe(true);
  });
  test("a tampered body, another secret, or an old timestamp fail", () => {
    const header = signatureHeader(secret, body, 1_800_000_000);
    expect(verifySignature(secret, body.replace("e1", "e2"), header, 1_800_000_000)).toBe(false);
    expect(verifySignature(newWebhookSecret(), body, header, 1_800_000_000)).toBe(false);
    expect(verifySignature(secret, body, header, 1_800_000_000 + 301)).toBe(false);
    expect(verifySignature(secret, body, "garbage", 1_800_000_000)).toBe(false);
  });
  test("v2 is HMAC-SHA256 over '<timestamp>.<eventId>.<body>', beside v1: a swapped event id fails v2 while v1 cannot tell", () => {
    const header = signatureHeader(secret, body, 1_800_000_000, "e1");
    const v2 = createHmac("sha256", secret).update(`1800000000.e1.${body}`).digest("hex");
    expect(header).toBe(`${signatureHeader(secret, body, 1_800_000_000)},v2=${v2}`);
    expect(verifySignature(secret, body, header, 1_800_000_010, 300, "e1")).toBe(true);
    expect(verifySignature(secret, body, header, 1_800_000_010, 300, "e2")).toBe(false);
    expect(verifySignature(secret, body, header, 1_800_000_010)).toBe(true);
    expect(verifySignature(secret, body, signatureHeader(secret, body, 1_800_000_000), 1_800_000_010, 300, "e1")).toBe(false);
  });
  test("secrets are 256-bit random", () => {
    expect(newWebhookSecret()).not.toBe(newWebhookSecret());
    expect(Buffer.from(newWebhookSecret().slice(6), "base64url").length).toBe(32);
  });
});
