import { beforeEach, describe, expect, test } from "bun:test";
import { SignJWT } from "jose";
import { Elysia } from "elysia";
import { createHarness, ManualClock, TEST_JWT_SECRET, type Harness } from "../../support/harness";
import { JWT_AUDIENCE, JWT_ISSUER } from "../../../adapters/security/tokens";
import { authMacros } from "../../../adapters/http/auth";

let h: Harness;
let clock: ManualClock;
let company: { netid: string; password: string; email: string };

// A protected probe route: 200 with the caller for a good core token, the auth error otherwise.
// (Fleet search and the other protected routes arrive with their features; they use the same macro.)
function probe(harness: Harness) {
  return new Elysia()
    .use(harness.app)
    .use(authMacros(harness.services.authenticator))
    .get("/probe/core", ({ caller }) => ({ ...caller }), { coreAuth: true });
}

beforeEach(async () => {
  clock = new ManualClock(Math.floor(Date.now() / 1000));
  h = createHarness({ clock });
  company = await h.registerCompany();
});

const key = new TextEncoder().encode(TEST_JWT_SECRET);
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");

async function callWith(token: string) {
  const app = probe(h);
  const res = await app.handle(new Request("http://localhost/probe/core", { headers: { authorization: `Bearer ${token}` } }));
  return { status: res.status, body: await res.json(), headers: res.headers };
}

describe("POST /api/token", () => {
  test("returns success, exp in Unix seconds, the token, and an Authorization header", async () => {
    const res = await h.request("POST", "/api/token", { body: { uid: company.netid, pw: company.password } });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.exp).toBe(clock.now() + 3600);
    expect(res.headers.get("authorization")).toBe(`Bearer ${res.body.token}`);
    const [header, payload] = res.body.token.split(".").slice(0, 2).map((p: string) => JSON.parse(Buffer.from(p, "base64url").toString()));
    expect(header.alg).toBe("HS256");
    expect(payload).toMatchObject({ sub: company.netid, netid: company.netid, iss: JWT_ISSUER, aud: JWT_AUDIENCE, exp: res.body.exp });
    expect(typeof payload.iat).toBe("number");
    const ok = await callWith(res.body.token);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ uid: company.netid, netid: company.netid, plan: "FREE" });
  });

  test("unknown user and wrong password answer the same 401", async () => {
    const wrong = await h.request("POST", "/api/token", { body: { uid: company.netid, pw: "wrong password here" } });
    const unknown = await h.request("POST", "/api/token", { body: { uid: "NOBODY-HERE", pw: "wrong password here" } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body).toEqual({ success: false, message: "Invalid user id or password", code: "INVALID_CREDENTIALS" });
    expect(wrong.headers.get("www-authenticate")).toBe("Bearer");
  });

  test("missing fields are a 400 naming them", async () => {
    const res = await h.request("POST", "/api/token", { body: { uid: "x" } });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field)).toEqual(["pw"]);
  });
});

describe("core JWT verification", () => {
  const claims = () => ({ sub: company.netid, netid: company.netid });
  const sign = (alg: string, c: Record<string, unknown>, opts: { iss?: string; aud?: string; exp?: number | null } = {}) => {
    let jwt = new SignJWT(c).setProtectedHeader({ alg }).setIssuedAt().setIssuer(opts.iss ?? JWT_ISSUER).setAudience(opts.aud ?? JWT_AUDIENCE);
    if (opts.exp !== null) jwt = jwt.setExpirationTime(opts.exp ?? clock.now() + 600);
    return jwt.sign(alg === "HS512" ? new Uint8Array(64).map((_, i) => key[i % key.length]) : key);
  };

  test("a well-formed token of our own passes (control)", async () => {
    expect((await callWith(await sign("HS256", claims()))).status).toBe(200);
  });
  test("alg none is 401", async () => {
    const token = `${b64({ alg: "none", typ: "JWT" })}.${b64({ ...claims(), iss: JWT_ISSUER, aud: JWT_AUDIENCE, exp: clock.now() + 600 })}.`;
    expect((await callWith(token)).status).toBe(401);
  });
  test("HS512 with the same secret is 401", async () => {
    const hs512 = await new SignJWT(claims()).setProtectedHeader({ alg: "HS512" }).setIssuer(JWT_ISSUER).setAudience(JWT_AUDIENCE).setExpirationTime(clock.now() + 600).sign(new TextEncoder().encode(TEST_JWT_SECRET.repeat(2)));
    expect((await callWith(hs512)).status).toBe(401);
    const hs512same = await new SignJWT(claims()).setProtectedHeader({ alg: "HS512" }).setIssuer(JWT_ISSUER).setAudience(JWT_AUDIENCE).setExpirationTime(clock.now() + 600).sign(key);
    expect((await callWith(hs512same)).status).toBe(401);
  });
  test("an expired token is 401", async () => {
    expect((await callWith(await sign("HS256", claims(), { exp: Math.floor(Date.now() / 1000) - 60 }))).status).toBe(401);
  });
  test("a token without exp is 401", async () => {
    expect((await callWith(await sign("HS256", claims(), { exp: null }))).status).toBe(401);
  });
  test("a foreign issuer is 401", async () => {
    expect((await callWith(await sign("HS256", claims(), { iss: "someone-else" }))).status).toBe(401);
  });
  test("a foreign audience is 401", async () => {
    expect((await callWith(await sign("HS256", claims(), { aud: "other-api" }))).status).toBe(401);
  });
  test("a token signed with another secret is 401", async () => {
    const other = await new SignJWT(claims()).setProtectedHeader({ alg: "HS256" }).setIssuer(JWT_ISSUER).setAudience(JWT_AUDIENCE).setExpirationTime(clock.now() + 600).sign(new TextEncoder().encode("another-secret-of-more-than-32-bytes!!"));
    expect((await callWith(other)).status).toBe(401);
  });
  test("no token, a malformed header, and garbage are 401 with WWW-Authenticate", async () => {
    const app = probe(h);
    for (const authorization of [undefined, "Basic abc", "Bearer", "Bearer not.a.jwt"]) {
      const res = await app.handle(new Request("http://localhost/probe/core", { headers: authorization ? { authorization } : {} }));
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      expect((await res.json()).success).toBe(false);
    }
  });
  test("a token whose user was removed is 401", async () => {
    const token = await h.coreToken(company.netid, company.password);
    expect(await h.services.users.remove(company.netid)).toBe(true);
    expect((await callWith(token)).status).toBe(401);
  });
});

describe("platform tokens", () => {
  test("getToken2 answers a JSON string token of at least 128 bits, stored only as a hash", async () => {
    for (const path of ["/Platform.svc/getToken2", "/Platform.svc/getToken2/V1"]) {
      const res = await h.request("POST", path, { body: { uid: company.email, pw: company.password } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith("application/json");
      expect(typeof res.body).toBe("string");
      expect(Buffer.from(res.body, "base64url").length).toBeGreaterThanOrEqual(16);
      const stored = await h.rows<{ token_hash: string }>("SELECT token_hash FROM platform_tokens");
      expect(stored.some((r) => r.token_hash === res.body)).toBe(false);
    }
    expect(await h.count("platform_tokens")).toBe(2);
  });

  test("getToken2 with a wrong password is 401", async () => {
    const res = await h.request("POST", "/Platform.svc/getToken2", { body: { uid: company.netid, pw: "nope nope nope" } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("INVALID_CREDENTIALS");
  });

  test.each([
    ["GET", "/Platform.svc/releaseToken"],
    ["POST", "/Platform.svc/releaseToken"],
    ["GET", "/Platform.svc/releaseToken/V1"],
    ["POST", "/Platform.svc/releaseToken/V1"],
  ])("%s %s releases the token: \"OK\", then 401", async (method, path) => {
    const token = await h.platformToken(company.netid, company.password);
    const res = await h.request(method, path, { headers: { token } });
    expect(res.status).toBe(200);
    expect(res.text).toBe('"OK"');
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(await h.services.authenticator.platform(token).catch((e) => e.code)).toBe("INVALID_TOKEN");
    const again = await h.request(method, path, { headers: { token } });
    expect(again.status).toBe(401);
  });

  test("releaseToken without a token is 401", async () => {
    const res = await h.request("POST", "/Platform.svc/releaseToken/V1");
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("MISSING_TOKEN");
  });

  test("a live platform token authenticates its user until released", async () => {
    const token = await h.platformToken(company.netid, company.password);
    expect(await h.services.authenticator.platform(token)).toMatchObject({ uid: company.netid, netid: company.netid });
    expect(await h.services.authenticator.any(`Bearer ${token}`, null)).toMatchObject({ uid: company.netid });
    expect(await h.services.authenticator.any(token, null)).toMatchObject({ uid: company.netid });
  });
});

describe("failed-login throttling", () => {
  const attempt = (uid: string, pw: string, path = "/api/token") => h.request("POST", path, { body: { uid, pw } });

  test("10 failures in 15 minutes lock the uid, even for the right password, on both token operations", async () => {
    for (let i = 0; i < 10; i++) {
      const path = i % 2 ? "/api/token" : "/Platform.svc/getToken2";
      expect((await attempt(company.netid, "wrong password", path)).status).toBe(401);
    }
    const locked = await attempt(company.netid, company.password);
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe("LOGIN_THROTTLED");
    const retryAfter = Number(locked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect((await attempt(company.netid.toLowerCase(), company.password, "/Platform.svc/getToken2")).status).toBe(429);
    clock.advance(retryAfter);
    expect((await attempt(company.netid, company.password)).status).toBe(200);
  });

  test("the uid and the e-mail of one account share its 10 guesses, in any letter case, on both token operations", async () => {
    const spellings = [company.netid, company.email, company.email.toUpperCase(), company.netid.toLowerCase()];
    for (let i = 0; i < 10; i++) {
      const path = i % 3 ? "/api/token" : "/Platform.svc/getToken2";
      expect((await attempt(spellings[i % spellings.length], "wrong password", path)).status).toBe(401);
    }
    for (const spelling of spellings) {
      const locked = await attempt(spelling, company.password);
      expect(locked.status).toBe(429);
      expect(locked.body.code).toBe("LOGIN_THROTTLED");
    }
    // Another account is not affected.
    const other = await h.registerCompany();
    expect((await attempt(other.email, other.password)).status).toBe(200);
  });

  test("the lock is checked before hashing: a throttled attempt records no further failure", async () => {
    for (let i = 0; i < 10; i++) await attempt(company.netid, "wrong password");
    const before = await h.count("login_failures");
    for (let i = 0; i < 5; i++) expect((await attempt(company.netid, "wrong password")).status).toBe(429);
    expect(await h.count("login_failures")).toBe(before);
  });

  test("9 failures leave the uid usable; failures older than the window stop counting", async () => {
    for (let i = 0; i < 9; i++) await attempt(company.netid, "wrong password");
    expect((await attempt(company.netid, company.password)).status).toBe(200);
    clock.advance(901);
    for (let i = 0; i < 9; i++) await attempt(company.netid, "wrong password");
    expect((await attempt(company.netid, company.password)).status).toBe(200);
  });

  test("50 failures from one client address lock that address for every uid", async () => {
    for (let i = 0; i < 50; i++) expect((await attempt(`nobody-${i % 7}`, "wrong password")).status).toBe(401);
    const res = await attempt(company.netid, company.password);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
