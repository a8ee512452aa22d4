import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "x-tripswitch-signature";
export const EVENT_ID_HEADER = "x-tripswitch-event-id";
export const EVENT_TYPE_HEADER = "x-tripswitch-event-type";

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">,v2=<hex HMAC-SHA256 of "<t>.<eventId>.<body>">` with the
 * company's webhook secret. v2 also covers the event id, which a GNet-shaped body does not carry; v1 stays for
 * the receivers written against it.
 */
export function signatureHeader(secret: string, body: string, timestamp: number, eventId?: string): string {
  const v1 = `t=${timestamp},v1=${hmacHex(secret, `${timestamp}.${body}`)}`;
  return eventId === undefined ? v1 : `${v1},v2=${hmacHex(secret, `${timestamp}.${eventId}.${body}`)}`;
}

/**
 * Verifies a signature header the way a receiver should: recompute the HMAC over the timestamp (and, given
 * `eventId`, the event id: the v2 scheme) and the raw body, compare in constant time, and refuse timestamps older
 * than `toleranceSeconds` (replayed captures).
 */
export function verifySignature(secret: string, body: string, header: string, now: number, toleranceSeconds = 300, eventId?: string): boolean {
  const parts = Object.fromEntries(header.split(",").map((p) => p.trim().split("=", 2) as [string, string]));
  const t = Number(parts.t);
  const given = eventId === undefined ? parts.v1 : parts.v2;
  if (!Number.isInteger(t) || !given || Math.abs(now - t) > toleranceSeconds) return false;
  const expected = Buffer.from(hmacHex(secret, eventId === undefined ? `${t}.${body}` : `${t}.${eventId}.${body}`), "hex");
  const actual = Buffer.from(given, "hex");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function hmacHex(secret: string, text: string): string {
  return createHmac("sha256", secret).update(text).digest("hex");
}

/** A new webhook signing secret: 256 random bits. */
export function newWebhookSecret(): string {
  return `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
}
