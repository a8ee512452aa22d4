import { expect, test } from "bun:test";
import { join } from "node:path";
import { postJson, startServer, tempDir } from "../support/process";
import { startReceiver } from "../support/receiver";
import { regularTrip } from "../support/trips";

// Issue 7: the logs of a realistic run (debug level, a real process) never carry a password, a token or a secret.
const REQUESTER_PW = "requester pass phrase 71c2";
const PROVIDER_PW = "provider pass phrase 93d4";
const WRONG_PW = "a wrong guess 55e6";
const DELIVERY_PW = "farm-in-secret-8a7b6c";

test("a full run at LOG_LEVEL=debug logs requests, failures and deliveries but no password, token or secret", async () => {
  let deliveries = 0;
  const rx = startReceiver(() => (++deliveries === 1 ? new Response("busy", { status: 503 }) : Response.json({ reservationId: "P-1" })));
  const server = await startServer({ DB_PATH: join(tempDir(), "db.sqlite"), DEMO_DATA: "0", LOG_LEVEL: "debug" }, { captureStdout: true });
  const secrets: Record<string, string> = { REQUESTER_PW, PROVIDER_PW, WRONG_PW, DELIVERY_PW };
  try {
    const base = server.base;
    const register = (netid: string, coType: string, pw: string, phone: string) =>
      postJson(`${base}/api/company/register`, { name: netid, netid, mainEmail: `${netid.toLowerCase()}@logs.example`, password: pw, confirmPassword: pw, mainPhone: phone, coType });
    expect((await register("LOG-REQ", "CO", REQUESTER_PW, "+12125550191")).status).toBe(200);
    expect((await register("LOG-OPS", "IO", PROVIDER_PW, "+12125550192")).status).toBe(200);
    // A dry run and a refused registration carry passwords too.
    await postJson(`${base}/api/company/register`, { name: "Dry", mainEmail: "dry@logs.example", password: REQUESTER_PW, confirmPassword: WRONG_PW, mainPhone: "+12125550193", coType: "CO", mode: "dry" });
    expect((await postJson(`${base}/api/token`, { uid: "LOG-REQ", pw: WRONG_PW })).status).toBe(401);
    expect((await postJson(`${base}/Platform.svc/getToken2`, { uid: "log-req@logs.example", pw: WRONG_PW })).status).toBe(401);

    const reqJwt = (await postJson(`${base}/api/token`, { uid: "LOG-REQ", pw: REQUESTER_PW })).body.token as string;
    const opsJwt = (await postJson(`${base}/api/token`, { uid: "LOG-OPS", pw: PROVIDER_PW })).body.token as string;
    const reqToken = (await postJson(`${base}/Platform.svc/getToken2`, { uid: "LOG-REQ", pw: REQUESTER_PW })).body as string;
    const opsToken = (await postJson(`${base}/Platform.svc/getToken2`, { uid: "LOG-OPS", pw: PROVIDER_PW })).body as string;
    Object.assign(secrets, { reqJwt, opsJwt, reqToken, opsToken, basic: Buffer.from(`farmin:${DELIVERY_PW}`).toString("base64") });

    const put = (jwt: string, body: unknown) => fetch(`${base}/api/company/integration`, { method: "PUT", headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
    await put(opsJwt, { deliveryUrl: `${rx.url}/farm-in`, deliveryAuth: { username: "farmin", password: DELIVERY_PW } });
    secrets.webhookSecret = (await put(reqJwt, { webhookUrl: `${rx.url}/hooks` })).data.webhookSecret;
    const rotated = await fetch(`${base}/api/company/integration/webhook-secret`, { method: "POST", headers: { authorization: `Bearer ${reqJwt}` } }).then((r) => r.json());
    secrets.rotatedSecret = rotated.data.webhookSecret;

    const sent = await postJson(`${base}/Platform.svc/sendTrip/V1`, regularTrip("LOG-REQ", "LOG-OPS"), { token: reqToken, "idempotency-key": "log-test-1" });
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;
    expect((await postJson(`${base}/Platform.svc/providerUpdateStatusByTransactionId/${id}/V1`, { status: "CONFIRMED" }, { token: opsToken })).status).toBe(200);
    expect((await fetch(`${base}/api/reservation/${id}`, { headers: { authorization: reqToken } })).status).toBe(200);
    expect((await fetch(`${base}/api/reservation/${id}`, { headers: { authorization: opsJwt } })).status).toBe(200);
    expect((await fetch(`${base}/api/search/fleet?airports=JFK`, { headers: { authorization: `Bearer ${reqJwt}` } })).status).toBe(200);
    // Denied access with real but wrong credentials, and a release.
    expect((await fetch(`${base}/api/fleet`, { headers: { authorization: `Bearer ${reqToken}` } })).status).toBe(401);
    expect((await fetch(`${base}/Platform.svc/releaseToken/V1`, { headers: { token: opsToken } })).status).toBe(200);
    expect((await fetch(`${base}/Platform.svc/getReservationByTransactionId/${id}/V1`, { headers: { token: opsToken } })).status).toBe(401);
    // The first delivery failed (503) and was retried.
    await rx.waitFor(3, 15_000);
  } finally {
    expect(await server.stop()).toBe(0);
    rx.stop();
  }
  await Bun.sleep(200);
  const logs = server.stdout() + server.stderr();
  // The run was logged: one line per request, the denied access, the failed delivery attempt.
  expect(logs).toContain('"msg":"request"');
  expect(logs).toContain('"status":401');
  expect(logs).toContain("delivery attempt failed");
  expect(logs).toContain('"company":"LOG-REQ"');
  const leaked = Object.entries(secrets).filter(([, value]) => value && logs.includes(value)).map(([name]) => name);
  expect(Object.values(secrets).filter((v) => typeof v === "string" && v.length >= 16)).toHaveLength(11);
  expect(leaked).toEqual([]);
}, 60_000);
