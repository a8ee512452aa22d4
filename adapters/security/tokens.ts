import { jwt } from "@elysiajs/jwt";
import type { TokenClaims, TokenIssuer, TokenVerifier } from "../../domain/ports";

export const JWT_ISSUER = "tripswitch";
export const JWT_AUDIENCE = "tripswitch-api";

export type CoreTokenClaims = TokenClaims;

/** How many verified tokens are remembered (oldest forgotten first). */
const VERIFIED_TOKENS_KEPT = 10_000;

/** Issues and verifies core JWTs: HS256 only, with issuer, audience and exp always checked. */
export class CoreTokens implements TokenIssuer, TokenVerifier {
  private readonly codec;
  private readonly verified = new Map<string, CoreTokenClaims>();

  constructor(secret: string, private readonly ttlSeconds: number) {
    this.codec = jwt({ secret, alg: "HS256", iss: JWT_ISSUER, aud: JWT_AUDIENCE }).decorator.jwt;
  }

  async issue(uid: string, netid: string, now: number): Promise<{ token: string; exp: number }> {
    const exp = now + this.ttlSeconds;
    // A random jti names the token, so that signing out can end this one token (RevokedTokens).
    const jti = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64url");
    const token = await this.codec.sign({ sub: uid, netid, iat: now, exp, jti } as never);
    return { token, exp };
  }

  /**
   * The claims of a valid token, or undefined for anything else (bad signature, algorithm, issuer, audience, expiry).
   * A token that verified once is remembered (bounded) and only its expiry is checked again: the HMAC check
   * costs more than the rest of a fleet search.
   */
  async verify(token: string): Promise<CoreTokenClaims | undefined> {
    const known = this.verified.get(token);
    if (known) {
      if (known.exp > Math.floor(Date.now() / 1000)) return known;
      this.verified.delete(token);
    }
    const claims = await this.verifySignature(token);
    if (claims) {
      if (this.verified.size >= VERIFIED_TOKENS_KEPT) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, claims);
    }
    return claims;
  }

  private async verifySignature(token: string): Promise<CoreTokenClaims | undefined> {
    const payload = await this.codec.verify(token, {
      algorithms: ["HS256"],
      issuer: JWT_ISSUER,
      audience: JWT_AUDIENCE,
      requiredClaims: ["exp", "sub"],
    });
    if (!payload || typeof payload.sub !== "string" || typeof payload.exp !== "number") return undefined;
    const tokenId = typeof payload.jti === "string" && payload.jti ? `jti:${payload.jti}` : `sub:${payload.sub}:${payload.iat ?? ""}:${payload.exp}`;
    return { sub: payload.sub, netid: String(payload.netid ?? ""), exp: payload.exp, tokenId };
  }
}
