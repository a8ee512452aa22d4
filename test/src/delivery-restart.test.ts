import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { postJson, startServer, tempDir } from "../support/process";
import { startReceiver } from "../support/receiver";
import { regularTrip } from "../support/trips";

const password = "correct horse battery staple";

describe("durable delivery across a restart", () => {
  test("messages pending when the service stops are delivered exactly once after it starts again", async () => {
    const dbPath = join(tempDir(), "db.sqlite");
    // Phase 1 the partner is down (503); phase 2 it is back. Successful deliveries are counted by event id.
    const state = { up: false };
    const delivered = new Map<string, number>();
    const rx = startReceiver((r) => {
      if (!state.up) return new Response("down", { status: 503 });
      delivered.set(r.json.eventId, (delivered.get(r.json.eventId) ?? 0) + 1);
      return Response.json({ reservationId: `P-${r.json.affiliateReservation.requesterResNo}` });
    });
    let server = await startServer({ DB_PATH: dbPath, DEMO_DATA: "0" });
    try {
      const reg = (netid: string, coType: string, phone: string) =>
        postJson(`${server.base}/api/company/register`, { name: netid, netid, mainEmail: `${netid.toLowerCase()}@x.example`, password, confirmPassword: password, mainPhone: phone, coType });
      expect((await reg("BOOKWELL", "CO", "+12125550171")).status).toBe(200);
      expect((await reg("ACME-LIMO", "IO", "+12125550172")).status).toBe(200);
      const jwt = (await postJson(`${server.base}/api/token`, { uid: "ACME-LIMO", pw: password })).body.token;
      const put = await fetch(`${server.base}/api/company/integration`, { method: "PUT", headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" }, body: JSON.stringify({ deliveryUrl: `${rx.url}/farm-in` }) });
      expect(put.status).toBe(200);
      const token = (await postJson(`${server.base}/Platform.svc/getToken2`, { uid: "BOOKWELL", pw: password })).body;
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const sent = await postJson(`${server.base}/Platform.svc/sendTrip/V1`, regularTrip("BOOKWELL", "ACME-LIMO"), { token });
        expect(sent.status).toBe(200);
        ids.push(sent.body.transactionId);
      }
      await rx.waitFor(10);
      expect(await server.stop()).toBe(0);
      expect(delivered.size).toBe(0);

      state.up = true;
      server = await startServer({ DB_PATH: dbPath, DEMO_DATA: "0" });
      const deadline = Date.now() + 20_000;
      while (delivered.size < 10 && Date.now() < deadline) await Bun.sleep(50);
      await Bun.sleep(300);
      expect(delivered.size).toBe(10);
      expect([...delivered.values()].every((n) => n === 1)).toBe(true);
      const lookup = await fetch(`${server.base}/api/reservation/${ids[0]}`, { headers: { authorization: token } });
      const data = (await lookup.json()).data;
      expect(data.targetResNo).toStartWith("P-");
      expect(data.tripPacket.transactionErrors.length).toBeGreaterThanOrEqual(1);
    } finally {
      await server.stop();
      rx.stop();
    }
  }, 60_000);
});
