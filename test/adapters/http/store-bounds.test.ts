// docs/security.md#per-company-store-bounds through HTTP, on SQLite and (TRIPSWITCH_TEST_DB=postgres) PostgreSQL: the live event log keeps an
// event's body once whichever parties see it, a company's live events and stored network quotes are bounded, and a
// company past a bound gets 429 with Retry-After and the bound's code while another company's writes go on.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { createHarness, FAST_DELIVERY, ManualClock, type Harness } from "../../support/harness";
import { insertFleet, lookup, party, providerUpdate, regularTrip, sendTrip, type Party } from "../../support/trips";
import { bookQuoted, iso } from "../../support/jfk";
import { RETENTION_JOBS } from "../../../adapters/sql/retention";
import { RETENTION } from "../../../domain/retention";
import { STORE_BOUNDS } from "../../../domain/events/store-bounds";
import { loadConfig } from "../../../src/config";

const LIVE_BYTES = 96 * 1024;
const QUOTES_PER_HOUR = 3;
const QUOTE_MAX_BYTES = 16 * 1024;
const QUOTE_KEPT_BYTES = 24 * 1024;

let h: Harness;
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let flooder: Party, neighbour: Party, provider: Party, keeper: Party;
/** Companies of the cases below each spending a budget of their own. */
let updater: Party, numbered: Party, versions: Party, rewriter: Party, operator: Party, confirmed: Party;

beforeAll(async () => {
  h = createHarness({
    clock,
    delivery: FAST_DELIVERY,
    storeBounds: { liveEventBytes: LIVE_BYTES, quotesPerHour: QUOTES_PER_HOUR, quoteMaxBytes: QUOTE_MAX_BYTES, quoteKeptBytes: QUOTE_KEPT_BYTES },
  });
  [flooder, neighbour, provider, keeper] = await Promise.all([
    party(h, "SB-FLOOD", "CO"),
    party(h, "SB-NEIGHBOUR", "CO"),
    party(h, "SB-LIMO", "IO"),
    party(h, "SB-KEEPER", "CO"),
  ]);
  [updater, numbered, versions, rewriter, operator, confirmed] = await Promise.all([
    party(h, "SB-UPDATER", "CO"),
    party(h, "SB-NUMBERED", "CO"),
    party(h, "SB-VERSIONS", "CO"),
    party(h, "SB-REWRITER", "CO"),
    party(h, "SB-OPERATOR", "IO"),
    party(h, "SB-CONFIRMED", "CO"),
  ]);
});

afterAll(async () => {
  await h.close();
});

/** A trip carrying `bytes` of text in an extra member (kept with the booking, so in every event's body). */
const bulkyTrip = (from: Party, bytes: number) => regularTrip(from.netid, provider.netid, { bulk: "x".repeat(bytes) });

const bearer = (who: Party) => ({ authorization: `Bearer ${who.jwt}` });
const quote = (who: Party, over: Record<string, unknown> = {}) =>
  h.request("POST", "/api/quotes", {
    headers: bearer(who),
    body: {
      passengerCount: "2",
      locations: {
        pickup: { locationType: "airport", address: "JFK", time: "2027-03-15T08:00:00" },
        dropOff: { locationType: "address", address: "200 Park Ave, New York, NY", lat: "40.7536", lon: "-73.9767" },
      },
      ...over,
    },
  });

describe("the live event log", () => {
  test("keeps each event's body once, however many parties see it; both parties' rows name it", async () => {
    const sent = await sendTrip(h, neighbour, regularTrip(neighbour.netid, provider.netid));
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED" })).status).toBe(200);
    const rows = await h.rows<{ netid: string; body: string; body_id: string }>(
      "SELECT netid, body, body_id FROM live_events WHERE transaction_id = ? ORDER BY id",
      id,
    );
    expect(rows.length).toBe(4);
    expect(new Set(rows.map((r) => r.netid))).toEqual(new Set([neighbour.netid.toLowerCase(), provider.netid.toLowerCase()]));
    expect(rows.every((r) => r.body === "")).toBe(true);
    const bodyIds = [...new Set(rows.map((r) => r.body_id))];
    expect(bodyIds.length).toBe(2);
    const bodies = await h.rows<{ id: string; netid: string }>(
      `SELECT id, netid FROM live_event_bodies WHERE id IN (${bodyIds.map(() => "?").join(", ")}) ORDER BY created_at, id`,
      ...bodyIds,
    );
    expect(bodies.length).toBe(2);
    // The change's maker pays: the requester's NEW, the provider's CONFIRMED.
    expect(new Set(bodies.map((b) => b.netid))).toEqual(new Set([neighbour.netid.toLowerCase(), provider.netid.toLowerCase()]));
  });

  test("a company past its bound gets 429 LIVE_EVENTS_QUOTA with Retry-After and nothing is written; another company's changes go on", async () => {
    let refused: Awaited<ReturnType<typeof sendTrip>> | undefined;
    let accepted = 0;
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await sendTrip(h, flooder, bulkyTrip(flooder, 20_000));
      if (res.status === 200) accepted++;
      else refused = res;
    }
    expect(accepted).toBeGreaterThan(0);
    expect(refused?.status).toBe(429);
    expect(refused?.body.code).toBe("LIVE_EVENTS_QUOTA");
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    const [{ n: bookings }] = await h.rows<{ n: number }>("SELECT count(*) AS n FROM bookings WHERE requester_id = ?", flooder.netid);
    expect(Number(bookings)).toBe(accepted);
    const usage = "SELECT coalesce(sum(bytes), 0) AS n FROM live_event_bodies WHERE netid = ?";
    const [{ n: used }] = await h.rows<{ n: number }>(usage, flooder.netid.toLowerCase());
    expect(Number(used)).toBeLessThanOrEqual(LIVE_BYTES);
    // The neighbour, with the same provider, books and is confirmed as before.
    const other = await sendTrip(h, neighbour, bulkyTrip(neighbour, 1000));
    expect(other.status).toBe(200);
    expect((await providerUpdate(h, provider, other.body.transactionId, { status: "CONFIRMED" })).status).toBe(200);
    // Still refused a moment later (the bound counts what is stored, on every instance).
    await Bun.sleep(1100);
    const again = await sendTrip(h, flooder, bulkyTrip(flooder, 20_000));
    expect(again.status).toBe(429);
    expect(again.body.code).toBe("LIVE_EVENTS_QUOTA");
  });
});

/** Random text of `length` characters: nothing for PostgreSQL to compress, so each stored copy takes its size. */
const incompressible = (length: number) => randomBytes(Math.ceil((length * 3) / 4)).toString("base64").slice(0, length);

/** A requester's sendTrip UPDATE of its booking with `over`'s members. */
const updateOf = (who: Party, transactionId: string, over: Record<string, unknown>) =>
  sendTrip(h, who, { transactionId, affiliateReservation: { requesterId: who.netid, action: "UPDATE" }, ...over });

describe("a refused change keeps nothing of itself (docs/postgres.md#a-refused-change-writes-nothing)", () => {
  test("UPDATEs of a large booking refused 429 LIVE_EVENTS_QUOTA do not grow the bookings table; the last accepted one stays", async () => {
    const sent = await sendTrip(h, updater, regularTrip(updater.netid, provider.netid));
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;
    let kept = "";
    let refused: Awaited<ReturnType<typeof sendTrip>> | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const bulk = incompressible(20_000);
      const res = await updateOf(updater, id, { bulk });
      if (res.status === 200) kept = bulk;
      else refused = res;
    }
    expect(kept).not.toBe("");
    expect({ status: refused?.status, code: refused?.body.code }).toEqual({ status: 429, code: "LIVE_EVENTS_QUOTA" });
    const before = await h.tableBytes("bookings");
    for (let i = 0; i < 5; i++) expect((await updateOf(updater, id, { bulk: incompressible(20_000) })).status).toBe(429);
    // On PostgreSQL each of them wrote a 20 KB row version (its TOAST chunks) before it was refused, kept until VACUUM.
    expect(await h.tableBytes("bookings")).toBe(before);
    expect((await lookup(h, updater, id)).body.data.tripPacket.bulk).toBe(kept);
  });

  test("a provider update of a large booking refused 409 PROVIDER_RES_NO_IN_USE does not grow the bookings table", async () => {
    const resNo = `SB-${Date.now()}`;
    const small = await sendTrip(h, numbered, regularTrip(numbered.netid, provider.netid));
    const large = await sendTrip(h, numbered, regularTrip(numbered.netid, provider.netid, { bulk: incompressible(20_000) }));
    expect([small.status, large.status]).toEqual([200, 200]);
    expect((await providerUpdate(h, provider, small.body.transactionId, { status: "CONFIRMED", providerResNo: resNo })).status).toBe(200);
    const before = await h.tableBytes("bookings");
    for (let i = 0; i < 5; i++) {
      const taken = await providerUpdate(h, provider, large.body.transactionId, { status: "CONFIRMED", providerResNo: resNo });
      expect({ status: taken.status, code: taken.body.code }).toEqual({ status: 409, code: "PROVIDER_RES_NO_IN_USE" });
    }
    expect(await h.tableBytes("bookings")).toBe(before);
    expect((await lookup(h, numbered, large.body.transactionId)).body.data.lastStatus).toBe("BOOKING_REQUEST");
  });
});

describe("a change of a stored booking is charged the version it replaces (docs/security.md#per-company-store-bounds)", () => {
  /** The booking's stored JSON members (trip packet, change log, errors), as the database keeps them. */
  const stored = async (id: string) => {
    const [row] = await h.rows<{ trip_packet: string; change_logs: string; transaction_errors: string }>(
      "SELECT trip_packet, change_logs, transaction_errors FROM bookings WHERE transaction_id = ?",
      id,
    );
    return row;
  };
  /** What the booking's events were charged beyond their bodies' own size, newest last. */
  const charges = async (id: string) => {
    const rows = await h.rows<{ bytes: number | string; body: string }>(
      "SELECT b.bytes, b.body FROM live_event_bodies b JOIN (SELECT body_id, min(id) AS first FROM live_events WHERE transaction_id = ? GROUP BY body_id) e " +
        "ON e.body_id = b.id ORDER BY e.first",
      id,
    );
    return rows.map((r) => Number(r.bytes) - Buffer.byteLength(r.body));
  };

  test("an UPDATE that rewrites a large trip is charged the trip packet, change log and errors it replaced; a status change the log alone", async () => {
    const sent = await sendTrip(h, versions, regularTrip(versions.netid, provider.netid, { bulk: incompressible(10_000) }));
    expect(sent.status).toBe(200);
    const id = sent.body.transactionId;
    // A new booking replaces nothing: its event is charged its body alone.
    expect(await charges(id)).toEqual([0]);
    const first = await stored(id);
    const updated = await updateOf(versions, id, { bulk: incompressible(10_000) });
    expect(updated.status).toBe(200);
    // The trip packet and the change log were rewritten; the errors ("[]") were not, and are not charged.
    const second = await stored(id);
    expect(second.transaction_errors).toBe(first.transaction_errors);
    const replaced = first.trip_packet.length + first.change_logs.length;
    expect(replaced).toBeGreaterThan(10_000);
    expect((await charges(id)).filter((n) => n > 0)).toEqual([replaced]);
    // The provider's CONFIRMED leaves the trip packet as it was: only the change log is replaced (and charged to it).
    expect((await providerUpdate(h, provider, id, { status: "CONFIRMED" })).status).toBe(200);
    const third = await stored(id);
    expect(third.trip_packet).toBe(second.trip_packet);
    expect(third.transaction_errors).toBe(second.transaction_errors);
    expect((await charges(id)).filter((n) => n > 0)).toEqual([replaced, second.change_logs.length]);
  });

  test("a status change of a large booking does not write its trip again: the bookings table grows by less than the trip", async () => {
    const sent = await sendTrip(h, confirmed, regularTrip(confirmed.netid, operator.netid, { bulk: incompressible(40_000) }));
    expect(sent.status).toBe(200);
    const before = await h.tableBytes("bookings");
    expect((await providerUpdate(h, operator, sent.body.transactionId, { status: "CONFIRMED" })).status).toBe(200);
    // PostgreSQL would otherwise keep a second 40 KB copy of the trip packet (its TOAST chunks) until VACUUM.
    expect(await h.tableBytes("bookings")).toBeLessThan(before + 16 * 1024);
  });

  test("the bound counts both: UPDATEs of a large booking stop once their events and the versions they replaced reach it", async () => {
    const sent = await sendTrip(h, rewriter, regularTrip(rewriter.netid, provider.netid));
    const id = sent.body.transactionId;
    let accepted = 0;
    for (let i = 0; i < 10; i++) {
      const res = await updateOf(rewriter, id, { bulk: incompressible(12_000) });
      if (res.status !== 200) {
        expect(res.body.code).toBe("LIVE_EVENTS_QUOTA");
        break;
      }
      accepted++;
    }
    const [row] = await h.rows<{ charged: number | string; bodies: number | string }>(
      "SELECT coalesce(sum(bytes), 0) AS charged, coalesce(sum(length(body)), 0) AS bodies FROM live_event_bodies WHERE netid = ?",
      rewriter.netid.toLowerCase(),
    );
    expect(Number(row.charged)).toBeLessThanOrEqual(LIVE_BYTES);
    // Each accepted UPDATE after the first replaced a 12 KB trip, so about half the bound went to replaced versions:
    // 3 or 4 UPDATEs fit, where counting the events alone let 7 in.
    expect(Number(row.charged) - Number(row.bodies)).toBeGreaterThan((accepted - 1) * 12_000);
    expect(accepted).toBeGreaterThanOrEqual(2);
    expect(accepted).toBeLessThanOrEqual(4);
  });
});

describe("stored network quotes", () => {
  test("past the hourly bound: 429 QUOTE_STORE_QUOTA with Retry-After, nothing stored; another company still quotes", async () => {
    for (let i = 0; i < QUOTES_PER_HOUR; i++) expect((await quote(flooder)).status).toBe(200);
    const res = await quote(flooder);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("QUOTE_STORE_QUOTA");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    const [{ n }] = await h.rows<{ n: number }>("SELECT count(*) AS n FROM network_quotes WHERE maker_netid = ?", flooder.netid);
    expect(Number(n)).toBe(QUOTES_PER_HOUR);
    expect((await quote(neighbour)).status).toBe(200);
    // An hour later the window has room again.
    clock.advance(3601);
    try {
      expect((await quote(flooder)).status).toBe(200);
    } finally {
      clock.advance(-3601);
    }
  });

  test("a quote larger than its bound is 429 QUOTE_TOO_LARGE with Retry-After, and is not stored", async () => {
    const [{ n: before }] = await h.rows<{ n: number }>("SELECT count(*) AS n FROM network_quotes WHERE maker_netid = ?", neighbour.netid);
    const res = await quote(neighbour, { bulk: "y".repeat(QUOTE_MAX_BYTES) });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("QUOTE_TOO_LARGE");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    const [{ n: after }] = await h.rows<{ n: number }>("SELECT count(*) AS n FROM network_quotes WHERE maker_netid = ?", neighbour.netid);
    expect(Number(after)).toBe(Number(before));
  });
});

describe("bytes of network quotes kept (docs/security.md#per-company-store-bounds)", () => {
  const kept = async (who: Party) => {
    const [row] = await h.rows<{ n: number | string; q: number | string }>(
      "SELECT coalesce(sum(length(body)), 0) AS n, count(*) AS q FROM network_quotes WHERE maker_netid = ?",
      who.netid,
    );
    return { bytes: Number(row.n), quotes: Number(row.q) };
  };

  test("past the bytes a company may keep: 429 QUOTE_STORE_FULL with Retry-After, nothing stored; still so an hour later; another company quotes", async () => {
    // Each quote keeps ~10 KiB (its trip's extra member): two fit in 24 KiB, a third does not.
    const bulky = { bulk: "k".repeat(10_000) };
    expect((await quote(keeper, bulky)).status).toBe(200);
    expect((await quote(keeper, bulky)).status).toBe(200);
    const before = await kept(keeper);
    expect(before.quotes).toBe(2);
    const full = await quote(keeper, bulky);
    expect(full.status).toBe(429);
    expect(full.body.code).toBe("QUOTE_STORE_FULL");
    expect(Number(full.headers.get("retry-after"))).toBeGreaterThan(3600);
    expect(await kept(keeper)).toEqual(before);
    expect((await quote(neighbour)).status).toBe(200);
    // Not the hourly bound: an hour later the company still keeps them all, and is still refused.
    clock.advance(3601);
    try {
      const later = await quote(keeper, bulky);
      expect({ status: later.status, code: later.body.code }).toEqual({ status: 429, code: "QUOTE_STORE_FULL" });
    } finally {
      clock.advance(-3601);
    }
    // Once the quotes are past their validity and the retention after it (48 h), there is room again.
    clock.advance(50 * 3600);
    try {
      expect((await quote(keeper, bulky)).status).toBe(200);
    } finally {
      clock.advance(-50 * 3600);
    }
  });
});

describe("a quote a fallback booking keeps (docs/security.md#per-company-store-bounds)", () => {
  test("its bytes count to its maker as long as the quote is kept, past the 48 h of other quotes; then they go with it", async () => {
    const [booker, cars] = await Promise.all([party(h, "SB-HOLDER", "CO"), party(h, "SB-CARS", "IO")]);
    // At SFO: the other tests' quotes (at JFK) offer nothing, so their sizes stay as they are.
    await insertFleet(h, cars.netid, [{ slug: "sb-cars-1", maxPassengers: 4, maxLuggage: 4 }]);
    const pickupAt = clock.now() + 5 * 86_400;
    const sfo = (time: string) => ({ locationType: "airport", address: "SFO", time });
    const body = { passengerCount: "2", locations: { pickup: sfo(iso(pickupAt)), dropOff: sfo(iso(pickupAt + 3600)) }, bulk: "k".repeat(10_000) };
    const q = await h.request("POST", "/api/quotes", { headers: bearer(booker), body });
    expect(q.status).toBe(200);
    const [option] = q.body.data.options;
    expect(option.provider.netid).toBe(cars.netid);
    const booked = await bookQuoted(h, booker, q.body.data.quoteId, option.quoteOptionId, "SB-KEPT-1", { fallback: { maxFee: "1000.00" } });
    expect(booked.status).toBe(200);
    const stored = async () =>
      Number((await h.rows<{ n: number | string }>("SELECT count(*) AS n FROM network_quotes WHERE maker_netid = ?", booker.netid))[0].n);
    const prune = async () => {
      for (const [period, table, condition] of RETENTION_JOBS)
        if (period === "networkQuotes") await h.rows(`DELETE FROM ${table} WHERE ${condition}`, clock.now() - RETENTION.networkQuotes);
    };
    // 50 h on, past the 48 h an ordinary quote is kept: the booked one stays, and so do its ~10 KiB in the bound.
    clock.advance(50 * 3600);
    try {
      await prune();
      expect(await stored()).toBe(1);
      expect((await quote(booker, { bulk: "k".repeat(10_000) })).status).toBe(200);
      const full = await quote(booker, { bulk: "k".repeat(10_000) });
      expect({ status: full.status, code: full.body.code }).toEqual({ status: 429, code: "QUOTE_STORE_FULL" });
      expect(await stored()).toBe(2);
    } finally {
      clock.advance(-50 * 3600);
    }
    // A day past the pickup (and the 48 h of the quote made at 50 h) the booked quote is gone, and its bytes with it.
    const after = pickupAt + 86_400 + 3600 - clock.now();
    clock.advance(after);
    try {
      await prune();
      expect(await stored()).toBe(0);
      expect((await quote(booker, { bulk: "k".repeat(10_000) })).status).toBe(200);
      expect((await quote(booker, { bulk: "k".repeat(10_000) })).status).toBe(200);
    } finally {
      clock.advance(-after);
    }
  });
});

describe("the bounds' defaults", () => {
  test("are docs/security.md#per-company-store-bounds's: 50 MB of live events per retention window, 2,000 quotes an hour, 256 KiB a quote, 64 MiB kept", () => {
    expect(STORE_BOUNDS).toEqual({ liveEventBytes: 50_000_000, quotesPerHour: 2000, quoteMaxBytes: 262_144, quoteKeptBytes: 67_108_864 });
    expect(loadConfig({ DB_PATH: ":memory:", JWT_SECRET: "x".repeat(40) }).storeBounds).toEqual(STORE_BOUNDS);
  });
});
