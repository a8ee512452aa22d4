import { createHash } from "node:crypto";

/** A new opaque platform token: 256 random bits, base64url. */
export function newPlatformToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** Platform tokens are stored only as their SHA-256 (hex). */
export function hashPlatformToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
