import { Elysia } from "elysia";
import { NotFoundError, UnauthorizedError } from "../../domain/errors";
import type { Caller, PlatformTokenRepository, RevokedTokens, TokenClaims, TokenVerifier, UserRepository } from "../../domain/ports";
import { hashPlatformToken } from "../../domain/platform-token";
import { companyOfRequest } from "./request-context";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const MAX_CREDENTIAL_LENGTH = 4096;

/** Turns the credentials of a request into the Caller behind them. */
export class Authenticator {
  /**
   * Per request, the lookups already made for a credential: a write is authenticated for its rate budget and
   * again by its route, and the second time reads the first's answer instead of the repositories again.
   */
  private readonly perRequest = new WeakMap<Request, Map<string, Promise<unknown>>>();

  constructor(
    private readonly tokens: TokenVerifier,
    private readonly users: UserRepository,
    private readonly platformTokens: PlatformTokenRepository,
    private readonly revoked: RevokedTokens,
  ) {}

  /**
   * Core bearer JWT. A valid token whose user was removed is 401, or 404 "user profile not found"
   * where the spec says so (fleet search).
   */
  async core(
    authorization: string | null,
    profileMissing: "unauthorized" | "not-found" = "unauthorized",
    platformHeader: string | null = null,
    request?: Request,
  ): Promise<Caller> {
    return this.fromJwt(await this.bearerJwt(authorization, platformHeader), profileMissing, request);
  }

  /**
   * The caller behind a plain `Bearer <JWT>` that is valid, not signed out and whose user exists; undefined for
   * anything else, so that the full path (`core`) answers it with its precise error. For the hot routes.
   */
  async knownCoreCaller(authorization: string | null): Promise<Caller | undefined> {
    if (authorization === null || authorization.length > MAX_CREDENTIAL_LENGTH + 7 || !authorization.startsWith("Bearer ")) return undefined;
    const token = authorization.slice(7);
    const claims = await this.tokens.verify(token);
    if (!claims) return undefined;
    const [caller, revoked] = await Promise.all([this.users.findCaller(claims.sub), this.revoked.isRevoked(claims.tokenId)]);
    return revoked ? undefined : caller;
  }

  /** The core JWT of a bearer-only route; the other kind of credential is WRONG_CREDENTIAL_KIND, not a bad one. */
  private async bearerJwt(authorization: string | null, platformHeader: string | null): Promise<string> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!match) {
      // The platform token in its own header, on a route that takes the core token: say which one it takes.
      if (!authorization && platformHeader?.trim()) throw wrongKind("core");
      throw new UnauthorizedError("Missing bearer token: send Authorization: Bearer <token>", "MISSING_TOKEN");
    }
    // A bearer value that is no JWT but an active platform token: the wrong kind of credential, not a bad one.
    if (!JWT_SHAPE.test(match[1]) && (await this.isActivePlatformToken(match[1]))) throw wrongKind("core");
    return match[1];
  }

  /** Platform `token` header from getToken2. */
  async platform(token: string | null, authorization: string | null = null, request?: Request): Promise<Caller> {
    const value = token?.trim() ?? "";
    if (!value) {
      // A core JWT where the platform token is needed (as a bearer, or in the token header below).
      if (JWT_SHAPE.test((authorization ?? "").trim().replace(/^Bearer\s+/i, ""))) throw wrongKind("platform");
      throw new UnauthorizedError("Missing platform token: send the header token", "MISSING_TOKEN");
    }
    if (await this.isCoreToken(value)) throw wrongKind("platform");
    return this.fromPlatformToken(value, request);
  }

  /** Whether a value is a valid core token (a JWT this service signed, not expired). */
  async isCoreToken(token: string): Promise<boolean> {
    return JWT_SHAPE.test(token) && token.length <= MAX_CREDENTIAL_LENGTH && (await this.tokens.verify(token)) !== undefined;
  }

  private async isActivePlatformToken(token: string): Promise<boolean> {
    if (token.length === 0 || token.length > MAX_CREDENTIAL_LENGTH) return false;
    return (await this.platformTokens.findActiveUid(hashPlatformToken(token))) !== undefined;
  }

  /** Booking lookup: `Bearer <JWT>`, a bare JWT, or a platform token with or without `Bearer`. */
  async any(authorization: string | null, platformHeader: string | null, request?: Request): Promise<Caller> {
    const raw = (authorization ?? "").trim().replace(/^Bearer\s+/i, "");
    if (!raw) {
      if (platformHeader) return this.platform(platformHeader, null, request);
      throw new UnauthorizedError("Missing credentials: send Authorization: Bearer <token>", "MISSING_TOKEN");
    }
    return JWT_SHAPE.test(raw) ? this.fromJwt(raw, "unauthorized", request) : this.fromPlatformToken(raw, request);
  }

  /**
   * Signs a core token out (POST /api/token/release): it is 401 everywhere from now on, on every instance.
   * Only a token that still works can be released.
   */
  async releaseCore(authorization: string | null, platformHeader: string | null = null): Promise<Caller> {
    const { caller, claims } = await this.jwtCaller(await this.bearerJwt(authorization, platformHeader), "unauthorized");
    await this.revoked.revoke(claims.tokenId, claims.exp);
    return caller;
  }

  private async fromJwt(token: string, profileMissing: "unauthorized" | "not-found", request?: Request): Promise<Caller> {
    return (await this.jwtCaller(token, profileMissing, request)).caller;
  }

  private async jwtCaller(token: string, profileMissing: "unauthorized" | "not-found", request?: Request): Promise<{ caller: Caller; claims: TokenClaims }> {
    if (token.length > MAX_CREDENTIAL_LENGTH) throw invalidToken();
    const { claims, caller, revoked } = await this.once(request, `jwt ${token}`, () => this.lookUpJwt(token));
    if (!claims || revoked) throw invalidToken();
    if (caller) return { caller, claims };
    if (profileMissing === "not-found") throw new NotFoundError("User profile not found", "USER_PROFILE_NOT_FOUND");
    throw invalidToken();
  }

  /** A JWT's claims (undefined when it does not verify), its user's caller and whether it was signed out. */
  private async lookUpJwt(token: string): Promise<{ claims?: TokenClaims; caller?: Caller; revoked?: boolean }> {
    const claims = await this.tokens.verify(token);
    if (!claims) return {};
    // Both lookups at once: on PostgreSQL each is a round trip.
    const [caller, revoked] = await Promise.all([this.users.findCaller(claims.sub), this.revoked.isRevoked(claims.tokenId)]);
    return { claims, caller, revoked };
  }

  private async fromPlatformToken(token: string, request?: Request): Promise<Caller> {
    if (token.length === 0 || token.length > MAX_CREDENTIAL_LENGTH) throw invalidToken();
    const caller = await this.once(request, `platform ${token}`, async () => {
      const uid = await this.platformTokens.findActiveUid(hashPlatformToken(token));
      return uid ? await this.users.findCaller(uid) : undefined;
    });
    if (!caller) throw invalidToken();
    return caller;
  }

  /** `look` once per request and credential (every time without a request). */
  private once<T>(request: Request | undefined, key: string, look: () => Promise<T>): Promise<T> {
    if (!request) return look();
    let known = this.perRequest.get(request);
    if (!known) this.perRequest.set(request, (known = new Map()));
    let answer = known.get(key) as Promise<T> | undefined;
    if (!answer) known.set(key, (answer = look()));
    return answer;
  }
}

/**
 * 401 WRONG_CREDENTIAL_KIND: the request carries the other kind of credential than the route takes; the message says
 * which one it takes and where to get it.
 */
export function wrongKind(takes: "core" | "platform"): UnauthorizedError {
  return new UnauthorizedError(
    takes === "core"
      ? "Wrong kind of credential: this route takes a core token (a JWT) as Authorization: Bearer <token>, from " +
          "POST /api/token; a platform token from getToken2 does not work here"
      : "Wrong kind of credential: this operation takes a platform token in the header token, from POST " +
          "/Platform.svc/getToken2; a core token (JWT) from /api/token does not work here",
    "WRONG_CREDENTIAL_KIND",
  );
}

function invalidToken(): UnauthorizedError {
  return new UnauthorizedError("Invalid, expired or released token", "INVALID_TOKEN");
}

/**
 * Route options that authenticate: `{ coreAuth: true }` (bearer JWT), `{ coreProfileAuth: true }`
 * (bearer JWT, 404 when the user profile is gone), `{ platformAuth: true }` (header token),
 * `{ anyAuth: true }` (either). Each resolves `caller`.
 */
export function authMacros(auth: Authenticator) {
  const remember = (request: Request, caller: Caller) => {
    companyOfRequest.set(request, caller.netid);
    return { caller };
  };
  return new Elysia({ name: "tripswitch-auth" }).macro({
    coreAuth: {
      resolve: async ({ request }) =>
        remember(request, await auth.core(request.headers.get("authorization"), "unauthorized", request.headers.get("token"), request)),
    },
    coreProfileAuth: {
      resolve: async ({ request }) =>
        remember(request, await auth.core(request.headers.get("authorization"), "not-found", request.headers.get("token"), request)),
    },
    platformAuth: {
      resolve: async ({ request }) => remember(request, await auth.platform(request.headers.get("token"), request.headers.get("authorization"), request)),
    },
    anyAuth: {
      resolve: async ({ request }) => remember(request, await auth.any(request.headers.get("authorization"), request.headers.get("token"), request)),
    },
  });
}

/** A JSON string body (the platform's "OK" and token answers). */
export function jsonString(value: string, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}
