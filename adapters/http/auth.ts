import { Elysia } from "elysia";
import { NotFoundError, UnauthorizedError } from "../../domain/errors";
import type { Caller, PlatformTokenRepository, TokenVerifier, UserRepository } from "../../domain/ports";
import { hashPlatformToken } from "../../domain/platform-token";
import { companyOfRequest } from "./request-context";

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const MAX_CREDENTIAL_LENGTH = 4096;

/** Turns the credentials of a request into the Caller behind them. */
export class Authenticator {
  constructor(
    private readonly tokens: TokenVerifier,
    private readonly users: UserRepository,
    private readonly platformTokens: PlatformTokenRepository,
  ) {}

  /**
   * Core bearer JWT. A valid token whose user was removed is 401, or 404 "user profile not found"
   * where the spec says so (fleet search).
   */
  async core(
    authorization: string | null,
    profileMissing: "unauthorized" | "not-found" = "unauthorized",
    platformHeader: string | null = null,
  ): Promise<Caller> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
    if (!match) {
      // The platform token in its own header, on a route that takes the core token: say which one it takes.
      if (!authorization && platformHeader?.trim()) throw wrongKind("core");
      throw new UnauthorizedError("Missing bearer token: send Authorization: Bearer <token>", "MISSING_TOKEN");
    }
    // A bearer value that is no JWT but an active platform token: the wrong kind of credential, not a bad one.
    if (!JWT_SHAPE.test(match[1]) && (await this.isActivePlatformToken(match[1]))) throw wrongKind("core");
    return this.fromJwt(match[1], profileMissing);
  }

  /** Platform `token` header from getToken2. */
  async platform(token: string | null, authorization: string | null = null): Promise<Caller> {
    const value = token?.trim() ?? "";
    if (!value) {
      // A core JWT where the platform token is needed (as a bearer, or in the token header below).
      if (JWT_SHAPE.test((authorization ?? "").trim().replace(/^Bearer\s+/i, ""))) throw wrongKind("platform");
      throw new UnauthorizedError("Missing platform token: send the header token", "MISSING_TOKEN");
    }
    if (await this.isCoreToken(value)) throw wrongKind("platform");
    return this.fromPlatformToken(value);
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
  async any(authorization: string | null, platformHeader: string | null): Promise<Caller> {
    const raw = (authorization ?? "").trim().replace(/^Bearer\s+/i, "");
    if (!raw) {
      if (platformHeader) return this.platform(platformHeader);
      throw new UnauthorizedError("Missing credentials: send Authorization: Bearer <token>", "MISSING_TOKEN");
    }
    return JWT_SHAPE.test(raw) ? this.fromJwt(raw, "unauthorized") : this.fromPlatformToken(raw);
  }

  private async fromJwt(token: string, profileMissing: "unauthorized" | "not-found"): Promise<Caller> {
    if (token.length > MAX_CREDENTIAL_LENGTH) throw invalidToken();
    const claims = await this.tokens.verify(token);
    if (!claims) throw invalidToken();
    const caller = await this.users.findCaller(claims.sub);
    if (caller) return caller;
    if (profileMissing === "not-found") throw new NotFoundError("User profile not found", "USER_PROFILE_NOT_FOUND");
    throw invalidToken();
  }

  private async fromPlatformToken(token: string): Promise<Caller> {
    if (token.length === 0 || token.length > MAX_CREDENTIAL_LENGTH) throw invalidToken();
    const uid = await this.platformTokens.findActiveUid(hashPlatformToken(token));
    const caller = uid ? await this.users.findCaller(uid) : undefined;
    if (!caller) throw invalidToken();
    return caller;
  }
}

/**
 * 401 WRONG_CREDENTIAL_KIND: the request carries the other kind of credential than the route takes; the message says
 * which one it takes and where to get it.
 */
export function wrongKind(takes: "core" | "platform"): UnauthorizedError {
  return new UnauthorizedError(
    takes === "core"
      ? "Wrong kind of credential: this route takes a core token (a JWT) as Authorization: Bearer <token>, from POST /api/token; a platform token from getToken2 does not work here"
      : "Wrong kind of credential: this operation takes a platform token in the header token, from POST /Platform.svc/getToken2; a core token (JWT) from /api/token does not work here",
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
    coreAuth: { resolve: async ({ request }) => remember(request, await auth.core(request.headers.get("authorization"), "unauthorized", request.headers.get("token"))) },
    coreProfileAuth: {
      resolve: async ({ request }) => remember(request, await auth.core(request.headers.get("authorization"), "not-found", request.headers.get("token"))),
    },
    platformAuth: { resolve: async ({ request }) => remember(request, await auth.platform(request.headers.get("token"), request.headers.get("authorization"))) },
    anyAuth: {
      resolve: async ({ request }) => remember(request, await auth.any(request.headers.get("authorization"), request.headers.get("token"))),
    },
  });
}

/** A JSON string body (the platform's "OK" and token answers). */
export function jsonString(value: string, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}
