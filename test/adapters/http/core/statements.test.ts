import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../../support/harness";
import { startReceiver, type Received } from "../../../support/receiver";
import { insertFleet, integrate, nextResNo, party, providerUpdate, sendTrip, type Party } from "../../../support/trips";

/**
 * Statements and disputes through HTTP (docs/settlement.md#statements-and-settlement,
 * docs/settlement.md#states-and-disputes): the worked month of docs/settlement.md — BOOKWELL's fares and late
 * cancellation fee with ACME-LIMO, ACME-LIMO's fare with HUDSON-CARS — read from both sides as exact mirrors, as a list
 * and as CSV; bad query values, a counterparty not yours, a dispute and its answer, DRAFT → ISSUED → FINAL.
 */

type Json = Record<string, any>;
const iso = (unix: number) => new Date(unix * 1000).toISOString().replace(".000Z", "Z");
/** Sunday 1 March 2026, 06:00 UTC: the month the bookings pick up in (the accounts are set up at the real time, as JWTs expire by it). */
const MARCH_1 = Date.UTC(2026, 2, 1, 6) / 1000;
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let bookwell: Party, acme: Party, hudson: Party, other: Party;
let hooks: ReturnType<typeof startReceiver>;
const ids: Record<string, string> = {};

const CUPERTINO = { locationType: "address", address: "1 Infinite Loop, Cupertino, CA", lat: "37.3318", lon: "-122.0312" };
const POLICIES = { cancellation: [{ beforeMinutes: 180, percent: 0 }, { beforeMinutes: 60, percent: 50 }, { beforeMinutes: 0, percent: 100 }] };
const TOLL = { type: "CHARGE", code: "TOLL", name: "Tolls", fee: "12.50" };

let spread = 0;
/** A booking from `from` to `to` made from a quote, picking up `hours` ahead of the clock (a minute apart from the others). */
async function booked(from: Party, to: Party, hours: number, resNo = nextResNo()): Promise<{ transactionId: string; option: Json }> {
  const at = clock.now() + Math.round(hours * 3600) + 60 * spread++;
  const trip = {
    runType: "Airport",
    passengerCount: "2",
    passengers: [{ firstName: "Ada", lastName: "King" }],
    locations: { pickup: { locationType: "airport", address: "SFO", time: iso(at) }, dropOff: CUPERTINO },
  };
  const affiliateReservation = { requesterId: from.netid, requesterResNo: resNo, providerId: to.netid, action: "NEW" };
  const quote = await sendTrip(h, from, { ...trip, reservationType: "QUOTE", affiliateReservation });
  expect(quote.status).toBe(200);
  const res = await sendTrip(h, from, { ...trip, reservationType: "REGULAR", affiliateReservation });
  expect(res.status).toBe(200);
  return { transactionId: res.body.transactionId, option: quote.body.fees[0] };
}

/** A booking run to CLOSE, its provider adding `added` lines on the way. */
async function closed(from: Party, to: Party, added: Json[] = [], resNo?: string): Promise<string> {
  const { transactionId, option } = await booked(from, to, 3, resNo);
  const fees = added.length > 0 ? { fees: [{ code: option.code, fee: option.fee }, ...added] } : {};
  expect((await providerUpdate(h, to, transactionId, { status: "CONFIRMED", ...fees })).status).toBe(200);
  expect((await providerUpdate(h, to, transactionId, { status: "CLOSE" })).status).toBe(200);
  return transactionId;
}

const statement = (who: Party, query: string, headers: Record<string, string> = {}) =>
  h.request("GET", `/api/statements?${query}`, { headers: { token: who.token, ...headers } });
const dispute = (who: Party, body: unknown) => h.request("POST", "/api/statements/disputes", { headers: { token: who.token }, body });
const answer = (who: Party, id: string, body: unknown) => h.request("POST", `/api/statements/disputes/${id}/answer`, { headers: { token: who.token }, body });

async function received(match: (r: Received) => boolean): Promise<Received> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = hooks.received.find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error("no matching webhook");
    await Bun.sleep(20);
  }
}

beforeAll(async () => {
  h = createHarness({ clock, delivery: FAST_DELIVERY });
  [bookwell, acme, hudson, other] = await Promise.all([
    party(h, "ST-BOOKWELL", "CO"),
    party(h, "ST-ACME-LIMO", "IO"),
    party(h, "ST-HUDSON-CARS", "IO"),
    party(h, "ST-OTHER-OPS", "IO"),
  ]);
  hooks = startReceiver();
  expect((await integrate(h, acme, { policies: POLICIES, webhookUrl: `${hooks.url}/acme`, webhookFormat: "events" })).status).toBe(200);
  const cars = (prefix: string, minimumRate: string) =>
    Array.from({ length: 8 }, (_, i) => ({ slug: `${prefix}-${i}`, type: "VAN", maxPassengers: 6, maxLuggage: 6, minimumRate, hourlyRate: "1", currency: "USD" }));
  await insertFleet(h, acme.netid, cars("st-acme-van", "150.00"));
  await insertFleet(h, hudson.netid, cars("st-hudson-van", "40.00"));
  clock.t = MARCH_1;
  h.services.worker.start();
  ids.plain = await closed(bookwell, acme);
  ids.toll = await closed(bookwell, acme, [TOLL]);
  // Cancelled 2 h before its pickup, once accepted: 50 % of the quoted 150.00.
  const late = await booked(bookwell, acme, 2);
  expect((await providerUpdate(h, acme, late.transactionId, { status: "CONFIRMED" })).status).toBe(200);
  const cancel = await sendTrip(h, bookwell, { transactionId: late.transactionId, affiliateReservation: { requesterId: bookwell.netid, action: "CANCEL" } });
  expect(cancel.status).toBe(200);
  ids.late = late.transactionId;
  // Not on any statement: a booking not closed yet, and one cancelled before its provider accepted.
  ids.open = (await booked(bookwell, acme, 4)).transactionId;
  const free = await booked(bookwell, acme, 5);
  await sendTrip(h, bookwell, { transactionId: free.transactionId, affiliateReservation: { requesterId: bookwell.netid, action: "CANCEL" } });
  // A reservation number a spreadsheet would run as a formula.
  ids.hudson = await closed(acme, hudson, [], `=HYPERLINK("x")-${nextResNo()}`);
}, 60_000);

afterAll(async () => {
  hooks.stop();
  await h.close();
});

describe("statements", () => {
  test("the worked month: each side reads the same lines, and the totals are each other's mirror", async () => {
    const mine = await statement(acme, `counterparty=${bookwell.netid}&period=2026-03`);
    expect(mine.status).toBe(200);
    const a = mine.body.data;
    expect(a).toMatchObject({ period: "2026-03", counterparty: bookwell.netid, state: "DRAFT", disputes: [] });
    expect(a.lines.map((l: Json) => [l.transactionId, l.role, l.kind, l.amount, l.currency, l.status, l.disputed])).toEqual([
      [ids.late, "provider", "CANCELLATION_FEE", "75.00", "USD", "CANCEL", false],
      [ids.plain, "provider", "FARE", "150.00", "USD", "CLOSE", false],
      [ids.toll, "provider", "FARE", "162.50", "USD", "CLOSE", false],
    ]);
    expect(a.totals).toEqual([{ currency: "USD", youOwe: "0.00", owedToYou: "387.50", net: "387.50" }]);
    // A CLOSE'd fare is listed at once, while it may still change (docs/settlement.md#the-final-fare).
    expect(a.lines.map((l: Json) => l.fareFinal)).toEqual([undefined, false, false]);
    const theirs = (await statement(bookwell, `counterparty=${acme.netid.toLowerCase()}&period=2026-03`)).body.data;
    expect(theirs.counterparty).toBe(acme.netid);
    expect(theirs.lines.map((l: Json) => l.transactionId)).toEqual(a.lines.map((l: Json) => l.transactionId));
    expect(theirs.lines.every((l: Json) => l.role === "requester")).toBe(true);
    expect(theirs.totals).toEqual([{ currency: "USD", youOwe: "387.50", owedToYou: "0.00", net: "-387.50" }]);
  });

  test("the month's list: every counterparty with its totals, both directions", async () => {
    const list = await statement(acme, "period=2026-03");
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      { counterparty: bookwell.netid, state: "DRAFT", lines: 3, totals: [{ currency: "USD", youOwe: "0.00", owedToYou: "387.50", net: "387.50" }] },
      { counterparty: hudson.netid, state: "DRAFT", lines: 1, totals: [{ currency: "USD", youOwe: "40.00", owedToYou: "0.00", net: "-40.00" }] },
    ]);
    const hudsons = (await statement(hudson, "period=2026-03")).body.data;
    expect(hudsons).toEqual([{ counterparty: acme.netid, state: "DRAFT", lines: 1, totals: [{ currency: "USD", youOwe: "0.00", owedToYou: "40.00", net: "40.00" }] }]);
    expect((await statement(acme, "period=2026-04")).body.data).toEqual([]);
  });

  test("a CSV cell that would start a formula is written as text", async () => {
    const res = await statement(hudson, `counterparty=${acme.netid}&period=2026-03&format=csv`);
    expect(res.status).toBe(200);
    const row = res.text.trimEnd().split("\r\n")[1];
    expect(row).toStartWith(`${ids.hudson},"'=HYPERLINK(""x"")-`);
    expect(row).toEndWith(",provider,FARE,40.00,USD,CLOSE,false,false");
  });

  test("CSV by format=csv or Accept: text/csv: the same lines, a header, a spreadsheet's byte-order mark and CRLF", async () => {
    for (const [query, headers] of [[`counterparty=${bookwell.netid}&period=2026-03&format=csv`, {}], [`counterparty=${bookwell.netid}&period=2026-03`, { accept: "text/csv" }]] as const) {
      const res = await h.app.handle(new Request(`http://localhost/api/statements?${query}`, { headers: { token: acme.token, ...headers } }));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
      const bytes = new Uint8Array(await res.arrayBuffer());
      expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const text = new TextDecoder().decode(bytes);
      expect(text.startsWith("transactionId,requesterResNo,pickup,role,kind,amount,currency,status,disputed,fareFinal\r\n")).toBe(true);
      const rows = text.trimEnd().split("\r\n").slice(1);
      expect(rows.map((r) => r.split(",").slice(3, 9))).toEqual([
        ["provider", "CANCELLATION_FEE", "75.00", "USD", "CANCEL", "false"],
        ["provider", "FARE", "150.00", "USD", "CLOSE", "false"],
        ["provider", "FARE", "162.50", "USD", "CLOSE", "false"],
      ]);
    }
  });

  test("bad query values are 400 naming each; a counterparty with no settled booking is 404 like an unknown netid", async () => {
    const bad = await statement(acme, "counterparty=no%20such!&period=2026-13&format=xls");
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: Json) => e.field).sort()).toEqual(["format"]);
    const both = await statement(acme, "counterparty=no%20such!&period=2026-13");
    expect(both.body.errors.map((e: Json) => e.field).sort()).toEqual(["counterparty", "period"]);
    expect((await statement(acme, "")).body.errors.map((e: Json) => e.field)).toEqual(["period"]);
    for (const who of [other.netid, "NO-SUCH-COMPANY", acme.netid]) {
      const res = await statement(acme, `counterparty=${who}&period=2026-03`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("STATEMENT_NOT_FOUND");
    }
    // Yours in another month: an empty statement (January 2026: long FINAL on 1 March).
    const empty = await statement(acme, `counterparty=${bookwell.netid}&period=2026-01`);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ lines: [], totals: [], state: "FINAL" });
  });
});

describe("disputes", () => {
  test("a dispute marks the line and both statements DISPUTED and reaches the other party; the answer ends it", async () => {
    expect((await dispute(bookwell, { transactionId: ids.toll, reason: "" })).status).toBe(400);
    expect((await dispute(bookwell, { transactionId: ids.toll, reason: "x".repeat(1001) })).body.errors[0].field).toBe("reason");
    expect((await dispute(other, { transactionId: ids.toll, reason: "not mine" })).body.code).toBe("STATEMENT_LINE_NOT_FOUND");
    expect((await dispute(bookwell, { transactionId: "no-such-booking", reason: "?" })).status).toBe(404);
    expect((await dispute(bookwell, { transactionId: ids.open, reason: "not closed" })).body.code).toBe("NOT_ON_STATEMENT");
    expect((await statement(acme, `counterparty=${bookwell.netid}&period=2026-03`)).body.data.disputes).toEqual([]);

    const raised = await dispute(bookwell, { transactionId: ids.toll, reason: "  Tolls were not on the route  " });
    expect(raised.status).toBe(200);
    const d = raised.body.data;
    expect(d).toMatchObject({ transactionId: ids.toll, raisedBy: bookwell.netid, reason: "Tolls were not on the route", state: "OPEN", answer: null });
    expect((await dispute(acme, { transactionId: ids.toll, reason: "again" })).body.code).toBe("DISPUTE_OPEN");
    for (const [who, them] of [[acme, bookwell], [bookwell, acme]]) {
      const s = (await statement(who, `counterparty=${them.netid}&period=2026-03`)).body.data;
      expect(s.state).toBe("DISPUTED");
      expect(s.lines.filter((l: Json) => l.disputed).map((l: Json) => l.transactionId)).toEqual([ids.toll]);
      expect(s.disputes.map((x: Json) => x.id)).toEqual([d.id]);
    }
    expect((await statement(acme, "period=2026-03")).body.data[0].state).toBe("DISPUTED");
    const hook = await received((r) => r.json?.type === "statement.disputed");
    expect(hook.json.data).toMatchObject({ id: d.id, transactionId: ids.toll, counterparty: bookwell.netid, reason: "Tolls were not on the route" });

    expect((await answer(bookwell, d.id, { accept: true })).body.code).toBe("NOT_THE_OTHER_PARTY");
    expect((await answer(other, d.id, { accept: true })).body.code).toBe("DISPUTE_NOT_FOUND");
    expect((await answer(acme, d.id, { accept: true, answer: "both" })).status).toBe(400);
    expect((await answer(acme, d.id, {})).status).toBe(400);
    const answered = await answer(acme, d.id, { answer: "The route ran over the Bay Bridge" });
    expect(answered.status).toBe(200);
    expect(answered.body.data).toMatchObject({ state: "ANSWERED", answer: "The route ran over the Bay Bridge", answeredAt: clock.now() });
    expect((await answer(acme, d.id, { accept: true })).body.code).toBe("DISPUTE_ENDED");
    const after = (await statement(bookwell, `counterparty=${acme.netid}&period=2026-03`)).body.data;
    expect(after.state).toBe("DRAFT");
    expect(after.lines.some((l: Json) => l.disputed)).toBe(false);
    expect(after.disputes.map((x: Json) => x.state)).toEqual(["ANSWERED"]);
  });

  test("ISSUED on the 1st, FINAL after 5 working days in each party's zone (ACME-LIMO's is Los Angeles); then no dispute", async () => {
    const s = (await statement(bookwell, `counterparty=${acme.netid}&period=2026-03`)).body.data;
    // Wednesday 1 April; Thu 2, Fri 3, Mon 6, Tue 7, Wed 8 are the working days: FINAL at 00:00 on Thursday 9 April, PDT.
    expect(s.issuedAt).toBe(Date.UTC(2026, 3, 1) / 1000);
    expect(s.finalAt).toBe(Date.UTC(2026, 3, 9, 7) / 1000);
    clock.t = s.issuedAt;
    expect((await statement(bookwell, `counterparty=${acme.netid}&period=2026-03`)).body.data.state).toBe("ISSUED");
    clock.t = s.finalAt - 1;
    expect((await statement(acme, "period=2026-03")).body.data.map((x: Json) => x.state)).toEqual(["ISSUED", "ISSUED"]);
    clock.t = s.finalAt;
    const final = (await statement(bookwell, `counterparty=${acme.netid}&period=2026-03`)).body.data;
    expect(final.state).toBe("FINAL");
    expect(final.lines.map((l: Json) => l.fareFinal)).toEqual([undefined, true, true]);
    const late = await dispute(bookwell, { transactionId: ids.plain, reason: "too late" });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe("STATEMENT_FINAL");
  });
});
