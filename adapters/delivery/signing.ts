import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-tripswitch-signature";
export const EVENT_ID_HEADER = "x-tripswitch-event-id";
export const EVENT_TYPE_HEADER = "x-tripswitch-event-type";

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the company's webhook secret>` */
export function signatureHeader(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${hmacHex(secret, `${timestamp}.${body}`)}`;
}

/**
 * Verifies a signature header the way a receiver should: recompute the HMAC over the timestamp and the raw
 * body, compare in constant time, and refuse timestamps older than `toleranceSeconds` (replayed captures).
 */
export function verifySignature(secret: string, body: string, header: string, now: number, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries(header.split(",").map((p) => p.trim().split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || !parts.v1 || Math.abs(now - t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(secret, `${t}.${body}`), "hex");
  const given = Buffer.from(parts.v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function hmacHex(secret: string, text: string): string {
  return createHmac("sha256", secret).update(text).digest("hex");
}

/** A new webhook signing secret: 256 random bits. */
export function newWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
}
