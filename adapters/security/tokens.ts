import { jwt } from "@elysiajs/jwt";

export const JWT_ISSUER = "tripswitch";
export const JWT_AUDIENCE = "tripswitch-api";

export interface CoreTokenClaims {
  sub: string;
  netid: string;
  exp: number;
}

/** Issues and verifies core JWTs: HS256 only, with issuer, audience and exp always checked. */
export class CoreTokens {
  private readonly codec;

  constructor(secret: string, private readonly ttlSeconds: number) {
    this.codec = jwt({ secret, alg: "HS256", iss: JWT_ISSUER, aud: JWT_AUDIENCE }).decorator.jwt;
  }

  async issue(uid: string, netid: string, now: number): Promise<{ token: string; exp: number }> {
    const exp = now + this.ttlSeconds;
    const token = await this.codec.sign({ sub: uid, netid, iat: now, exp } as never);
    return { token, exp };
  }

  /** The claims of a valid token, or undefined for anything else (bad signature, algorithm, issuer, audience, expiry). */
  async verify(token: string): Promise<CoreTokenClaims | undefined> {
    const payload = await this.codec.verify(token, {
      algorithms: ["HS256"],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      requiredClaims: ["exp", "sub"],
    });
    if (!payload || typeof payload.sub !== "string" || typeof payload.exp !== "number") return undefined;
    return { sub: payload.sub, netid: String(payload.netid ?? ""), exp: payload.exp };
  }
}

/** A new opaque platform token: 256 random bits, base64url. */
export function newPlatformToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

/** Platform tokens are stored only as their SHA-256. */
export function hashPlatformToken(token: string): string {
  return new Bun.CryptoHasher("sha256").update(token).digest("hex");
}
