import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { SignJWT } from "jose";
import { createHarness, TEST_JWT_SECRET, type Harness } from "../../support/harness";
import { tempDir } from "../../support/process";
import { JWT_AUDIENCE, JWT_ISSUER } from "../../../adapters/security/tokens";

const open: Harness[] = [];
const harness = (options: Parameters<typeof createHarness>[0] = {}) => {
  const h = createHarness(options);
  open.push(h);
  return h;
};
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});

const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });
const release = (h: Harness, jwt: string) => h.request("POST", "/api/token/release", { headers: bearer(jwt) });

/** The routes a core token opens, one per kind of credential check (core, core with profile, either). */
async function statuses(h: Harness, jwt: string): Promise<number[]> {
  return Promise.all([
    h.request("GET", "/api/company/integration", { headers: bearer(jwt) }).then((r) => r.status),
    h.request("GET", "/api/search/fleet?airports=jfk", { headers: bearer(jwt) }).then((r) => r.status),
    h.request("GET", "/api/webhooks/deliveries", { headers: bearer(jwt) }).then((r) => r.status),
  ]);
}

describe("POST /api/token/release (the console's Sign out)", () => {
  test("ends that core token everywhere; another sign-in of the same user keeps working", async () => {
    const h = harness();
    const c = await h.registerCompany();
    const [signedOut, other] = [await h.coreToken(c.netid, c.password), await h.coreToken(c.email, c.password)];
    expect(await statuses(h, signedOut)).toEqual([200, 200, 200]);
    const res = await release(h, signedOut);
    expect([res.status, res.body]).toEqual([200, { success: true }]);
    expect(await statuses(h, signedOut)).toEqual([401, 401, 401]);
    const after = await h.request("GET", "/api/company/integration", { headers: bearer(signedOut) });
    expect(after.body).toEqual({ success: false, message: "Invalid, expired or released token", code: "INVALID_TOKEN" });
    expect(after.headers.get("www-authenticate")).toBe("Bearer");
    expect(await statuses(h, other)).toEqual([200, 200, 200]);
    // Released once: releasing again, or without a token, is 401.
    expect((await release(h, signedOut)).body.code).toBe("INVALID_TOKEN");
    expect((await h.request("POST", "/api/token/release")).body.code).toBe("MISSING_TOKEN");
    await h.services.audit.flush();
    const audited = await h.rows<{ uid: string; detail: string }>("SELECT uid, detail FROM audit_events WHERE type = 'token.released'");
    expect(audited).toEqual([{ uid: c.netid, detail: "core token" }]);
  });

  test("holds across instances sharing the database, even one that had already verified the token", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    const first = harness({ dbPath });
    const c = await first.registerCompany();
    const second = harness({ dbPath });
    const jwt = await first.coreToken(c.netid, c.password);
    expect(await statuses(second, jwt)).toEqual([200, 200, 200]);
    expect((await release(first, jwt)).status).toBe(200);
    const released = Date.now();
    // At once on the instance that released it; on another instance within a second (on SQLite at once: the
    // account stamp is read with each lookup; on PostgreSQL its cache is emptied by LISTEN/NOTIFY or the stamp poll).
    expect(await statuses(first, jwt)).toEqual([401, 401, 401]);
    let seen = await statuses(second, jwt);
    while (seen.some((s) => s !== 401) && Date.now() - released < 1000) {
      await Bun.sleep(25);
      seen = await statuses(second, jwt);
    }
    expect(seen).toEqual([401, 401, 401]);
  });

  test("every token it issues has its own jti; a token signed without one can be released too", async () => {
    const h = harness();
    const c = await h.registerCompany();
    const ids = await Promise.all([1, 2].map(async () => JSON.parse(Buffer.from((await h.coreToken(c.netid, c.password)).split(".")[1], "base64url").toString()).jti));
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(ids[0]).not.toBe(ids[1]);
    const now = Math.floor(Date.now() / 1000);
    const legacy = await new SignJWT({ sub: c.netid, netid: c.netid }).setProtectedHeader({ alg: "HS256" }).setIssuedAt(now).setIssuer(JWT_ISSUER).setAudience(JWT_AUDIENCE).setExpirationTime(now + 600).sign(new TextEncoder().encode(TEST_JWT_SECRET));
    expect((await statuses(h, legacy))[0]).toBe(200);
    expect((await release(h, legacy)).status).toBe(200);
    expect(await statuses(h, legacy)).toEqual([401, 401, 401]);
  });
});
