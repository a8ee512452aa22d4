// GET /api/events is authorised for as long as it stays open (docs/events.md), over real sockets: a released core
// JWT, a released platform token, an expired token and a removed user each end their stream within 5 s with
// `event: revoked` and then the close; another company's stream goes on. At the stream limit a new stream with a
// valid credential ends the company's oldest (STREAM_LIMIT) instead of being refused.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, TEST_JWT_SECRET, type Harness } from "../../support/harness";
import { party, type Party } from "../../support/trips";
import { SseClient } from "../../support/sse";
import { CoreTokens } from "../../../adapters/security/tokens";

let h: Harness;
let server: { stop(force?: boolean): unknown } | undefined;
let base = "";
const clients: SseClient[] = [];
let n = 0;

/** The bound of docs/events.md. */
const WITHIN_MS = 5000;

beforeAll(async () => {
  h = createHarness();
  const app = h.app.listen({ hostname: "127.0.0.1", port: 0 });
  server = app.server ?? undefined;
  base = `http://127.0.0.1:${app.server!.port}`;
});

afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});

afterAll(async () => {
  server?.stop(true);
  await h.close();
});

async function company(): Promise<Party> {
  return party(h, `REV-${Date.now() % 100000}-${++n}`, "IO");
}

async function stream(headers: Record<string, string>, query = ""): Promise<SseClient> {
  const client = await SseClient.open(`${base}/api/events${query}`, headers);
  clients.push(client);
  expect(client.status).toBe(200);
  await client.until(() => client.comments.includes("connected"), 5000, "the connected comment");
  return client;
}

/** Waits for the stream to end; returns how long after `since` its `event: revoked` came. */
async function endsRevoked(c: SseClient, since: number, reason = "TOKEN_REVOKED"): Promise<number> {
  await c.until(() => c.ended, WITHIN_MS + 1000, "the stream to end");
  const revoked = c.of("revoked");
  expect(revoked).toHaveLength(1);
  expect(revoked[0].json).toEqual({ type: "revoked", reason });
  expect(revoked[0].id).toBeUndefined();
  // The revoked event is the last thing sent.
  expect(c.events.at(-1)!.event).toBe("revoked");
  const took = revoked[0].at - since;
  expect(took).toBeLessThan(WITHIN_MS);
  return took;
}

describe("GET /api/events ends when its credential no longer holds", () => {
  test("a released core JWT (POST /api/token/release): the stream ends within 5 s with event: revoked; the company's other streams go on", async () => {
    const p = await company();
    const other = await company();
    const released = await stream({ authorization: `Bearer ${p.jwt}` });
    const viaQuery = await stream({}, `?access_token=${encodeURIComponent(p.jwt)}`);
    const platform = await stream({ token: p.token });
    const bystander = await stream({ authorization: `Bearer ${other.jwt}` });
    const res = await h.request("POST", "/api/token/release", { headers: { authorization: `Bearer ${p.jwt}` } });
    expect(res.status).toBe(200);
    const t0 = performance.now();
    await endsRevoked(released, t0);
    await endsRevoked(viaQuery, t0);
    await Bun.sleep(500);
    for (const c of [platform, bystander]) {
      expect(c.ended).toBe(false);
      expect(c.of("revoked")).toEqual([]);
    }
  });

  test("a released platform token (releaseToken): its stream ends within 5 s with event: revoked", async () => {
    const p = await company();
    const viaHeader = await stream({ token: p.token });
    const viaQuery = await stream({}, `?access_token=${encodeURIComponent(p.token)}`);
    const jwtStream = await stream({ authorization: `Bearer ${p.jwt}` });
    const res = await h.request("POST", "/Platform.svc/releaseToken", { headers: { token: p.token } });
    expect(res.status).toBe(200);
    const t0 = performance.now();
    await endsRevoked(viaHeader, t0);
    await endsRevoked(viaQuery, t0);
    expect(jwtStream.ended).toBe(false);
  });

  test("an expired core JWT: the stream ends within 5 s of its expiry with event: revoked", async () => {
    const p = await company();
    // The same user's token, signed as the service signs them but valid for 2 s only.
    const claims = JSON.parse(Buffer.from(p.jwt.split(".")[1], "base64url").toString());
    const short = (await new CoreTokens(TEST_JWT_SECRET, 2).issue(claims.sub, claims.netid, Math.floor(Date.now() / 1000))).token;
    const c = await stream({ authorization: `Bearer ${short}` });
    // When it expires, on the performance clock the client's arrival times use.
    const expiresAt = performance.now() + (JSON.parse(Buffer.from(short.split(".")[1], "base64url").toString()).exp * 1000 - Date.now());
    await endsRevoked(c, expiresAt);
  });

  test("a removed user: every stream opened with its credentials ends within 5 s with event: revoked", async () => {
    const p = await company();
    const claims = JSON.parse(Buffer.from(p.jwt.split(".")[1], "base64url").toString());
    const byJwt = await stream({ authorization: `Bearer ${p.jwt}` });
    const byToken = await stream({ token: p.token });
    expect(await h.services.users.remove(claims.sub)).toBe(true);
    const t0 = performance.now();
    await endsRevoked(byJwt, t0);
    await endsRevoked(byToken, t0);
  });

  test("at the limit of 10 streams a new one with a valid credential ends the oldest (event: revoked, STREAM_LIMIT); others go on", async () => {
    const busy = await company();
    const calm = await company();
    const held: SseClient[] = [];
    for (let i = 0; i < 10; i++) held.push(await stream({ authorization: `Bearer ${busy.jwt}` }));
    const calmStream = await stream({ authorization: `Bearer ${calm.jwt}` });
    const t0 = performance.now();
    const eleventh = await stream({ authorization: `Bearer ${busy.jwt}` });
    await endsRevoked(held[0], t0, "STREAM_LIMIT");
    await Bun.sleep(300);
    for (const c of [...held.slice(1), eleventh, calmStream]) expect(c.ended).toBe(false);
    expect(h.services.liveHub.openStreams(busy.netid)).toBe(10);
    // A bad credential takes no place: the oldest stays.
    const bad = await SseClient.open(`${base}/api/events`, { authorization: "Bearer not.a.token" });
    expect(bad.status).toBe(401);
    await Bun.sleep(300);
    expect(held[1].ended).toBe(false);
    // The next valid one ends the next oldest.
    await stream({ token: busy.token });
    await endsRevoked(held[1], performance.now(), "STREAM_LIMIT");
  });
});
