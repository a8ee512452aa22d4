import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { postJson, startServer, tempDir, type RunningServer } from "../support/process";

// Login throttling (docs/security.md#accounts-tokens-and-headers, fine point 5) against concurrent bursts on a real process. With TRUST_PROXY=1
// each attempt claims its own address in X-Forwarded-For, standing in for a botnet.
const password = "correct horse battery staple";
let proxied: RunningServer;
let direct: RunningServer;

async function register(server: RunningServer, netid: string, phone: string) {
  const res = await postJson(`${server.base}/api/company/register`, {
    name: `Burst ${netid}`, netid, mainEmail: `${netid.toLowerCase()}@burst.example`, password, confirmPassword: password, mainPhone: phone, coType: "CO",
  });
  expect(res.status).toBe(200);
}

/** One login attempt, alternating the two token operations (they share one counter). */
function attempt(server: RunningServer, i: number, uid: string, pw: string, address?: string) {
  const path = i % 2 ? "/Platform.svc/getToken2" : "/api/token";
  return postJson(`${server.base}${path}`, { uid, pw }, address ? { "x-forwarded-for": address } : {});
}

const count = (answers: { status: number }[], status: number) => answers.filter((a) => a.status === status).length;

beforeAll(async () => {
  [proxied, direct] = await Promise.all([
    startServer({ DB_PATH: join(tempDir(), "db.sqlite"), DEMO_DATA: "0", TRUST_PROXY: "1" }),
    startServer({ DB_PATH: join(tempDir(), "db.sqlite"), DEMO_DATA: "0" }),
  ]);
  await Promise.all([register(proxied, "BURST-ONE", "+12125550401"), register(proxied, "BURST-TWO", "+12125550402"), register(direct, "BURST-ONE", "+12125550401")]);
});
afterAll(async () => {
  await Promise.all([proxied?.stop(), direct?.stop()]);
});

describe("login throttling under a burst", () => {
  test("40 concurrent wrong passwords for one uid from 40 addresses: at most 10 are checked, the rest are 429 — and then the right password is 429 too", async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(proxied, i, "burst-one", `wrong guess ${i}`, `198.51.100.${i + 1}`)));
    expect(count(answers, 401) + count(answers, 429)).toBe(40);
    expect(count(answers, 401)).toBeLessThanOrEqual(10);
    expect(count(answers, 429)).toBeGreaterThanOrEqual(30);
    for (const a of answers.filter((x) => x.status === 429)) {
      expect(a.body).toMatchObject({ success: false, code: "LOGIN_THROTTLED" });
      expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    const right = await attempt(proxied, 0, "BURST-ONE", password, "192.0.2.200");
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeLessThanOrEqual(15 * 60);
  });

  test("70 concurrent failures from one address over 70 uids: at most 50 are checked; that address is then refused for a good login, another address is not", async () => {
    const answers = await Promise.all(Array.from({ length: 70 }, (_, i) => attempt(proxied, i, `nobody-${i}`, "whatever it is", "203.0.113.66")));
    expect(count(answers, 401)).toBeLessThanOrEqual(50);
    expect(count(answers, 429)).toBeGreaterThanOrEqual(20);
    expect((await attempt(proxied, 1, "BURST-TWO", password, "203.0.113.66")).status).toBe(429);
    expect((await attempt(proxied, 1, "BURST-TWO", password, "203.0.113.67")).status).toBe(200);
  });

  test("without TRUST_PROXY a forged X-Forwarded-For does not buy new addresses", async () => {
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => attempt(direct, i, `ghost-${i}`, "whatever it is", `198.18.0.${i + 1}`)));
    expect(count(answers, 401)).toBeLessThanOrEqual(50);
    expect(count(answers, 429)).toBeGreaterThanOrEqual(10);
    // The socket address (127.0.0.1) is throttled, whatever the header says.
    expect((await attempt(direct, 0, "BURST-ONE", password, "192.0.2.1")).status).toBe(429);
  });
});
