// A booking stays within one body's limits however many UPDATEs merge members into it, and nothing built from it
// (webhooks, partner messages, outbox rows) is larger than the booking keeps.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createHarness, databaseEnv, databaseRows, FAST_DELIVERY, type Harness } from "../support/harness";
import { startReceiver } from "../support/receiver";
import { postJson, startServer, tempDir, type RunningServer } from "../support/process";
import { integrate, lookup, nextResNo, party, type Party, providerUpdate, regularTrip, sendTrip, soonTrip } from "../support/trips";

const MAX_BODY_BYTES = 1_048_576;

/** `n` extra members named `<prefix><i>`; 900 of 1,000 characters make a body of about 1 MB. */
function members(prefix: string, n: number, value = "v".repeat(1000)): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < n; i++) out[`${prefix}${String(i).padStart(6, "0")}`] = value;
  return out;
}

/** An UPDATE of the requester's booking carrying `extra` members at the top level. */
function updateBody(requester: string, provider: string, requesterResNo: string, extra: Record<string, unknown>) {
  return regularTrip(requester, provider, extra, { action: "UPDATE", requesterResNo });
}

describe("a booking is bounded as a whole (through HTTP)", () => {
  let h: Harness;
  let requester: Party, provider: Party;
  let hooks: ReturnType<typeof startReceiver>;
  let partner: ReturnType<typeof startReceiver>;

  beforeAll(async () => {
    h = createHarness({ delivery: FAST_DELIVERY, maxBodyBytes: MAX_BODY_BYTES });
    [requester, provider] = await Promise.all([party(h, "GROW-REQ", "CO"), party(h, "GROW-PROV", "IO")]);
    hooks = startReceiver();
    partner = startReceiver();
    expect((await integrate(h, requester, { webhookUrl: `${hooks.url}/hooks` })).status).toBe(200);
    expect((await integrate(h, provider, { deliveryUrl: `${partner.url}/farm-in` })).status).toBe(200);
    h.services.worker.start();
  });

  afterAll(async () => {
    hooks.stop();
    partner.stop();
    await h.close();
  });

  const storedBytes = async (transactionId: string) =>
    Number((await h.rows<{ n: number | string }>("SELECT length(trip_packet) AS n FROM bookings WHERE transaction_id = ?", transactionId))[0].n);

  async function waitFor<T>(read: () => T | undefined, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = read();
      if (got !== undefined) return got;
      if (Date.now() > deadline) throw new Error("timed out");
      await Bun.sleep(20);
    }
  }

  test("repeated 1 MB UPDATEs: the stored trip stays under MAX_BODY_BYTES (413 BOOKING_TOO_LARGE naming it), changeLogs and the webhook stay small", async () => {
    const requesterResNo = nextResNo();
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, {}, { requesterResNo }));
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId as string;

    const first = updateBody(requester.netid, provider.netid, requesterResNo, members("a", 900));
    expect(JSON.stringify(first).length).toBeGreaterThan(900_000);
    expect(JSON.stringify(first).length).toBeLessThan(MAX_BODY_BYTES);
    const ok = await sendTrip(h, requester, first);
    expect(ok.status).toBe(200);
    const afterFirst = await storedBytes(id);
    expect(afterFirst).toBeLessThanOrEqual(MAX_BODY_BYTES);

    // New members again and again: each would take the booking past one body's limit.
    for (const prefix of ["b", "c", "d"]) {
      const grown = await sendTrip(h, requester, updateBody(requester.netid, provider.netid, requesterResNo, members(prefix, 900)));
      expect(grown.status).toBe(413);
      expect(grown.body).toMatchObject({ success: false, code: "BOOKING_TOO_LARGE", limit: "MAX_BODY_BYTES", maxBytes: MAX_BODY_BYTES });
      expect(grown.body.message).toContain("MAX_BODY_BYTES");
      expect(await storedBytes(id)).toBe(afterFirst);
    }
    // Replacing the members it has is fine: the booking does not grow.
    const replaced = await sendTrip(h, requester, updateBody(requester.netid, provider.netid, requesterResNo, members("a", 900, "w".repeat(1000))));
    expect(replaced.status).toBe(200);
    expect(await storedBytes(id)).toBeLessThanOrEqual(MAX_BODY_BYTES);

    // 900 changed members are named in a few lines: the change logs stay small.
    const view = (await lookup(h, requester, id)).body.data;
    expect(view.tripPacket.changeLogs.length).toBeLessThanOrEqual(200);
    expect(view.tripPacket.changeLogs.some((l: { changeDesc: string }) => /^880 more members changed$/.test(l.changeDesc))).toBe(true);

    // The webhooks and the partner messages of these changes: bounded like the booking, with capped history.
    const hooksFor = await waitFor(() => {
      const got = hooks.received.filter((r) => r.json?.data?.transactionId === id && r.json.type === "booking.updated");
      return got.length >= 2 ? got : undefined;
    });
    for (const hook of hooksFor) {
      expect(hook.body.length).toBeLessThan(MAX_BODY_BYTES + 200_000);
      expect(hook.json.data.tripPacket.changeLogs.length).toBeLessThanOrEqual(200);
    }
    const deliveries = await waitFor(() => {
      const got = partner.received.filter((r) => r.json?.transactionId === id && r.json.affiliateReservation?.action === "UPDATE");
      return got.length >= 2 ? got : undefined;
    });
    for (const d of deliveries) expect(d.body.length).toBeLessThan(MAX_BODY_BYTES + 200_000);
    const outboxRows = await h.rows<{ n: number | string }>("SELECT max(length(body)) AS n FROM outbox_messages WHERE transaction_id = ?", id);
    expect(Number(outboxRows[0].n)).toBeLessThan(MAX_BODY_BYTES + 200_000);
  }, 60_000);

  test("members are bounded too: an object of 34,000 members is 400 JSON_TOO_WIDE, and UPDATEs cannot merge past 1,000", async () => {
    const requesterResNo = nextResNo();
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, {}, { requesterResNo }));
    const id = sent.body.transactionId as string;
    const wide = await sendTrip(h, requester, updateBody(requester.netid, provider.netid, requesterResNo, members("w", 34_000, "v")));
    expect(wide.status).toBe(400);
    expect(wide.body).toMatchObject({ success: false, code: "JSON_TOO_WIDE" });
    expect((await sendTrip(h, requester, updateBody(requester.netid, provider.netid, requesterResNo, members("p", 600, "v")))).status).toBe(200);
    const merged = await sendTrip(h, requester, updateBody(requester.netid, provider.netid, requesterResNo, members("q", 600, "v")));
    expect(merged.status).toBe(400);
    expect(merged.body).toMatchObject({ success: false, code: "BOOKING_TOO_MANY_MEMBERS", limit: "MAX_OBJECT_MEMBERS", field: "tripPacket", maxMembers: 1000 });
    const affiliate = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, {}, { action: "UPDATE", requesterResNo, ...members("r", 990, "v") }));
    expect(affiliate.status).toBe(200);
    const affiliateMore = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, {}, { action: "UPDATE", requesterResNo, ...members("s", 20, "v") }));
    expect(affiliateMore.status).toBe(400);
    expect(affiliateMore.body).toMatchObject({ code: "BOOKING_TOO_MANY_MEMBERS", field: "affiliateReservation" });
    const packet = (await lookup(h, requester, id)).body.data.tripPacket;
    expect(Object.keys(packet).filter((k) => /^[pq]\d/.test(k))).toHaveLength(600);
  }, 60_000);

  test("changeLogs are capped before the webhook is built from them", async () => {
    const sent = await sendTrip(h, requester, soonTrip(requester.netid, provider.netid));
    const id = sent.body.transactionId as string;
    for (const status of ["CONFIRMED", "ASSIGNED", "EN_ROUTE", "ON_LOCATION", "PASSENGER_ON_BOARD"]) expect((await providerUpdate(h, provider, id, { status })).status).toBe(200);
    // STOP → STOP is a real move each time: 210 more lines.
    for (let i = 0; i < 210; i++) expect((await providerUpdate(h, provider, id, { status: "STOP" })).status).toBe(200);
    const last = await waitFor(() => {
      const got = hooks.received.filter((r) => r.json?.data?.transactionId === id);
      return got.length >= 215 ? got : undefined;
    }, 20_000);
    for (const hook of last) expect(hook.json.data.tripPacket.changeLogs.length).toBeLessThanOrEqual(200);
    expect(last.at(-1)!.json.data.tripPacket.changeLogs[0]).toMatchObject({ changeSource: "TRIMMED" });
  }, 60_000);

  test("a provider update that would grow the booking past the limit is 413 too", async () => {
    const requesterResNo = nextResNo();
    const sent = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, members("n", 600), { requesterResNo }));
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId as string;
    const big = { status: "CONFIRMED", chauffeur: { firstName: "Sam", ...members("c", 600) } };
    const res = await providerUpdate(h, provider, id, big);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe("BOOKING_TOO_LARGE");
    expect((await lookup(h, provider, id)).body.data.lastStatus).toBe("BOOKING_REQUEST");
  }, 60_000);
});

/**
 * A webhook receiver in a process of its own (so reading 1 MB webhooks does not delay this process's polling): it
 * counts what it got per transactionId and the largest body, answered at GET /stats.
 */
async function startReceiverProcess() {
  const code = `
    const got = {}; let largest = 0;
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, async fetch(request) {
      if (request.method === "GET") return Response.json({ got, largest });
      const text = await request.text();
      largest = Math.max(largest, text.length);
      const id = /"transactionId":"([0-9a-f-]{36})"/.exec(text)?.[1] ?? "";
      got[id] = (got[id] ?? 0) + 1;
      return Response.json({});
    } });
    console.log("port " + server.port);`;
  const proc = Bun.spawn([process.execPath, "-e", code], { stdout: "pipe", stderr: "ignore", stdin: "ignore" });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let text = "";
  const deadline = Date.now() + 10_000;
  while (!/port (\d+)/.test(text) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const port = Number(/port (\d+)/.exec(text)?.[1]);
  if (!port) throw new Error("receiver process did not start");
  return {
    url: `http://127.0.0.1:${port}`,
    stats: async () => (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as { got: Record<string, number>; largest: number },
    stop: () => proc.kill(),
  };
}

describe("repeated 1 MB UPDATEs do not stall the service (a real server process)", () => {
  let server: RunningServer;
  let hooks: Awaited<ReturnType<typeof startReceiverProcess>>;
  const dbPath = join(tempDir(), "growth.sqlite");

  beforeAll(async () => {
    hooks = await startReceiverProcess();
    server = await startServer({ ...databaseEnv(dbPath), DEMO_DATA: "0", MAX_BODY_BYTES: String(MAX_BODY_BYTES) });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    hooks?.stop();
  });

  test("a concurrent /healthz answers within 50 ms throughout; the stored booking and the webhooks stay bounded", async () => {
    const base = server.base;
    const register = async (netid: string, coType: string) => {
      const password = "correct horse battery staple";
      const reg = await postJson(`${base}/api/company/register`, { name: `Company ${netid}`, netid, mainEmail: `${netid.toLowerCase()}@example.com`, password, confirmPassword: password, mainPhone: `+1212555${String(Math.floor(Math.random() * 9000) + 1000)}`, coType });
      expect(reg.status).toBe(200);
      const token = await postJson(`${base}/Platform.svc/getToken2`, { uid: netid, pw: password });
      const jwt = await postJson(`${base}/api/token`, { uid: netid, pw: password });
      return { netid, token: token.body as string, jwt: jwt.body.token as string };
    };
    const requester = await register("STALL-REQ", "CO");
    const provider = await register("STALL-PROV", "IO");
    const put = await fetch(`${base}/api/company/integration`, { method: "PUT", headers: { authorization: `Bearer ${requester.jwt}`, "content-type": "application/json" }, body: JSON.stringify({ webhookUrl: `${hooks.url}/hooks` }) });
    expect(put.status).toBe(200);
    const requesterResNo = nextResNo();
    const created = await postJson(`${base}/Platform.svc/sendTrip/V1`, regularTrip(requester.netid, provider.netid, {}, { requesterResNo }), { token: requester.token });
    expect(created.status).toBe(200);
    const id = created.body.transactionId as string;

    // Bodies built before the clock starts: the test's own work is not the server's.
    // 1 MB UPDATEs that would grow the booking (new members each time), that replace its members, and that are
    // refused at the door (34,000 members in one object).
    const bodies = ["a", "b", "a", "c", "wide", "a", "d", "a", "wide", "e"].map((prefix, i) =>
      JSON.stringify(updateBody(requester.netid, provider.netid, requesterResNo, prefix === "wide" ? members("w", 34_000, "v".repeat(14)) : members(prefix, 900, String.fromCharCode(102 + i).repeat(1000)))),
    );
    /** Polls /healthz until `stop` resolves; the latency of each answer. */
    const poll = async (stop: Promise<unknown>) => {
      let polling = true;
      void stop.finally(() => (polling = false));
      const out: number[] = [];
      while (polling) {
        const t0 = performance.now();
        await (await fetch(`${base}/healthz`)).arrayBuffer();
        out.push(performance.now() - t0);
        await Bun.sleep(2);
      }
      return out;
    };
    /** One round: idle polling (what the shared machine itself adds), then the same polling during the UPDATEs. */
    const round = async () => {
      const baseline = await poll(Bun.sleep(1000));
      let done!: () => void;
      const finished = new Promise<void>((resolve) => (done = resolve));
      const poller = poll(finished);
      const statuses: number[] = [];
      for (const body of bodies) {
        const res = await fetch(`${base}/Platform.svc/sendTrip/V1`, { method: "POST", headers: { token: requester.token, "content-type": "application/json" }, body });
        await res.arrayBuffer();
        statuses.push(res.status);
      }
      // Reads of the booking too (each read parses the stored booking).
      for (let i = 0; i < 4; i++) await (await fetch(`${base}/api/reservation/${id}`, { headers: { authorization: `Bearer ${requester.jwt}` } })).arrayBuffer();
      done();
      const latencies = await poller;
      expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(4);
      expect(statuses.filter((s) => s === 413).length).toBeGreaterThanOrEqual(3);
      expect(statuses.filter((s) => s === 400).length).toBe(2);
      expect(latencies.length).toBeGreaterThan(10);
      const worst = Math.max(...latencies);
      const idle = Math.max(...baseline);
      console.log(`healthz during ${bodies.length} 1 MB UPDATEs: ${latencies.length} polls, worst ${worst.toFixed(1)} ms (idle baseline: worst ${idle.toFixed(1)} ms of ${baseline.length} polls)`);
      // The stall the UPDATEs cause, over what the shared machine adds to any poll.
      return worst - Math.max(0, idle - 10);
    };
    // Timing on a machine shared with other work (other test files run beside this one): the best of at least three
    // rounds, more while a quiet moment may still come (up to 12 rounds in 45 s); each round checks the answers.
    let stall = Infinity;
    const quietBy = Date.now() + 45_000;
    for (let n = 0; n < 12 && stall >= 50 && (n < 3 || Date.now() < quietBy); n++) stall = Math.min(stall, await round());
    expect(stall).toBeLessThan(50);
    const [stored] = await databaseRows<{ n: number | string }>(dbPath, "SELECT length(trip_packet) AS n FROM bookings WHERE transaction_id = ?", id);
    expect(Number(stored.n)).toBeLessThanOrEqual(MAX_BODY_BYTES);

    const view = await (await fetch(`${base}/api/reservation/${id}`, { headers: { authorization: `Bearer ${requester.jwt}` } })).text();
    expect(view.length).toBeLessThan(MAX_BODY_BYTES + 200_000);
    const deadline = Date.now() + 10_000;
    let stats = await hooks.stats();
    while ((stats.got[id] ?? 0) < 5 && Date.now() < deadline) {
      await Bun.sleep(50);
      stats = await hooks.stats();
    }
    expect(stats.got[id]).toBeGreaterThanOrEqual(5);
    expect(stats.largest).toBeGreaterThan(900_000);
    expect(stats.largest).toBeLessThan(MAX_BODY_BYTES + 200_000);
  }, 120_000);
});
