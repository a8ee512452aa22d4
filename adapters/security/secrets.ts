import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/** Marks a sealed value in a text column; anything else is a value stored before encryption (read as is). */
const PREFIX = "enc:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A 64-hex-character key (32 bytes), as SECRETS_KEY holds it. */
export const SECRETS_KEY_PATTERN = /^[0-9a-fA-F]{64}$/;

/**
 * Encrypts secrets at rest (delivery passwords, webhook secrets) with AES-256-GCM. Each value gets a fresh IV,
 * and `context` (e.g. "webhookSecret:ACME") is authenticated with it, so a sealed value copied into another
 * row or column does not open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(hexKey: string) {
    if (!SECRETS_KEY_PATTERN.test(hexKey)) throw new Error("a secrets key is 64 hexadecimal characters");
    this.key = Buffer.from(hexKey, "hex");
  }

  /** A new random key, as SECRETS_KEY takes it. */
  static newKey(): string {
    return randomBytes(32).toString("hex");
  }

  static isSealed(stored: string): boolean {
    return stored.startsWith(PREFIX);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
  }

  /** The plain value: decrypted when sealed, as stored when it predates encryption. Throws on a wrong key or context. */
  open(stored: string, context: string): string {
    if (!SecretBox.isSealed(stored)) return stored;
    const raw = Buffer.from(stored.slice(PREFIX.length), "base64url");
    const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  }
}
