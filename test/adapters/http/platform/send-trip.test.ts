import { beforeAll, describe, expect, test } from "bun:test";
import { createHarness, ManualClock, type Harness } from "../../../support/harness";
import { insertFleet, lookup, parties, quoteTrip, regularTrip, sendTrip, type Party } from "../../../support/trips";

// Starts at the real time: core JWTs are verified against the real clock.
const clock = new ManualClock(Math.floor(Date.now() / 1000));
let h: Harness;
let requester: Party, provider: Party, stranger: Party;

beforeAll(async () => {
  h = createHarness({ clock });
  ({ requester, provider, stranger } = await parties(h));
  // SFO-area fleet of the provider. The example quote (SFO → Cupertino, 44 km) takes 1¼ h.
  await insertFleet(h, provider.netid, [
    { slug: "acme-sedan", type: "SEDAN", maxPassengers: 3, maxLuggage: 3, hourlyRate: "80.00" },
    { slug: "acme-sprinter", type: "SPRINTER", name: "Mercedes Sprinter 12", maxPassengers: 12, maxLuggage: 12, minimumRate: "240.00", hourlyRate: "100.00", imageUrl: "https://example.com/sprinter.jpg" },
    { slug: "acme-suv-lux", type: "SUV_LUX", maxPassengers: 6, maxLuggage: null, hourlyRate: "200.00" },
    { slug: "acme-van", type: "VAN", maxPassengers: 8, maxLuggage: 6, hourlyRate: "100.00" },
    { slug: "acme-retired", type: "VAN", maxPassengers: 8, maxLuggage: 8, hourlyRate: "10.00", active: false },
  ]);
  await insertFleet(h, stranger.netid, [{ slug: "other-bus", type: "BUS", maxPassengers: 50, maxLuggage: 50, hourlyRate: "1.00" }]);
});

const bookingCount = () => h.count("bookings");
const bookingRow = (transactionId: string) => h.rows("SELECT * FROM bookings WHERE transaction_id = ?", transactionId);

describe("sendTrip NEW", () => {
  test("a REGULAR trip is stored as BOOKING_REQUEST and answered with its transactionId", async () => {
    const res = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, transactionId: expect.stringMatching(/^[0-9a-f-]{36}$/), status: "BOOKING_REQUEST", fees: [], totalAmount: null, warnings: [] });
  });

  test("answers on /sendTrip, /sendTrip/V1 and /sendTrip/v1", async () => {
    for (const path of ["/Platform.svc/sendTrip", "/Platform.svc/sendTrip/V1", "/Platform.svc/sendTrip/v1"]) {
      const res = await h.request("POST", path, { body: regularTrip(requester.netid, provider.netid), headers: { token: requester.token } });
      expect(res.status).toBe(200);
    }
  });

  test("without a platform token: 401", async () => {
    const res = await h.request("POST", "/Platform.svc/sendTrip/V1", { body: regularTrip(requester.netid, provider.netid) });
    expect(res.status).toBe(401);
  });

  test("requesterId other than the caller's netid: 403; unknown providerId: 400 naming the field", async () => {
    const forged = await sendTrip(h, requester, regularTrip(stranger.netid, provider.netid));
    expect(forged.status).toBe(403);
    const unknown = await sendTrip(h, requester, regularTrip(requester.netid, "NO-SUCH-OPERATOR"));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ field: "affiliateReservation.providerId", message: expect.stringContaining("NO-SUCH-OPERATOR") }]);
  });

  test("every failing field is reported at once", async () => {
    const body = regularTrip(requester.netid, provider.netid, {
      passengerCount: "0",
      luggageCount: "lots",
      passengers: [{ firstName: "", lastName: "Smith" }, { firstName: "Ann" }],
      locations: { pickup: { locationType: "address", time: "next tuesday", lat: "95" } },
      fees: [{ fee: "12.345" }],
    }, { requesterResNo: "  " });
    const res = await sendTrip(h, requester, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_FAILED");
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(
      [
        "affiliateReservation.requesterResNo",
        "fees[0].fee",
        "locations.pickup.lat",
        "locations.pickup.time",
        "luggageCount",
        "passengerCount",
        "passengers[0].firstName",
        "passengers[1].lastName",
      ].sort(),
    );
  });

  test("a body that is not the right shape is 400 with the field named, never 422", async () => {
    const res = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { passengerCount: true }));
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "passengerCount", message: expect.any(String) }]);
  });

  test("more than 50 passengers is refused by the size bound", async () => {
    const passengers = Array.from({ length: 51 }, () => ({ firstName: "A", lastName: "B" }));
    const res = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid, { passengers }));
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("passengers");
  });
});

describe("luggageCount on sendTrip", () => {
  async function storedLuggage(luggageCount: unknown) {
    const body = regularTrip(requester.netid, provider.netid);
    if (luggageCount === undefined) delete body.luggageCount;
    else body.luggageCount = luggageCount;
    const sent = await sendTrip(h, requester, body);
    return { sent, got: sent.status === 200 ? await lookup(h, requester, sent.body.transactionId) : undefined };
  }

  test("present: stored and shown as sent, trimmed", async () => {
    const { got } = await storedLuggage(" 4 ");
    expect(got!.body.data.tripPacket.luggageCount).toBe("4");
  });

  test("zero is a real value", async () => {
    const { got } = await storedLuggage("0");
    expect(got!.body.data.tripPacket.luggageCount).toBe("0");
  });

  test("absent, empty or null: not specified — absent from the booking, never 0", async () => {
    for (const value of [undefined, "", "  ", null]) {
      const { sent, got } = await storedLuggage(value);
      expect(sent.status).toBe(200);
      expect("luggageCount" in got!.body.data.tripPacket).toBe(false);
    }
  });

  test("invalid: 400 naming luggageCount", async () => {
    for (const value of ["-1", "2.5", "three"]) {
      const { sent } = await storedLuggage(value);
      expect(sent.status).toBe(400);
      expect(sent.body.errors).toEqual([{ field: "luggageCount", message: expect.any(String) }]);
    }
  });
});

describe("quotes", () => {
  test("a QUOTE without luggage offers every active vehicle that seats the party, cheapest first, with the shared example's fields", async () => {
    const res = await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("QUOTE");
    // 6 passengers: sedan (3 seats) is too small, the retired van is inactive; 1¼ h at the hourly rate, min rate floor.
    expect(res.body.fees.map((o: any) => [o.code, o.fee])).toEqual([
      ["acme-van", "125.00"],
      ["acme-sprinter", "240.00"],
      ["acme-suv-lux", "250.00"],
    ]);
    expect(res.body.totalAmount).toBe("125.00");
    const sprinter = res.body.fees[1];
    expect(sprinter).toEqual({
      type: "OTHER", code: "acme-sprinter", name: "Mercedes Sprinter 12", description: "acme-sprinter description", fee: "240.00", currency: "USD",
      vehType: "SPRINTER", passengerCount: "12", luggageCount: "12", images: ["https://example.com/sprinter.jpg"], validUntil: new Date((clock.now() + 86400) * 1000).toISOString().replace(".000Z", "Z"),
      // No rate card: the vehicle's own rates, one BASE line summing to the fee (docs/rates.md#how-a-vehicle-is-priced).
      breakdown: [{ kind: "BASE", id: "vehicle-rate", name: "Vehicle rate", amount: "240.00" }],
      // The provider's terms (docs/terms.md#policies; docs/terms.md): here the defaults for an airport pickup.
      terms: expect.objectContaining({ freeWaitingMinutes: 60 }),
    });
    // The vehicle with unknown luggage capacity is offered (no luggage asked) and carries no luggageCount.
    expect("luggageCount" in res.body.fees[2]).toBe(false);
    const got = await lookup(h, requester, res.body.transactionId);
    expect(got.body.data.lastStatus).toBe("QUOTE");
    expect(got.body.data.tripPacket.fees).toEqual(res.body.fees);
  });

  test("with luggage, only vehicles with a known, large enough luggage capacity are offered", async () => {
    const res = await sendTrip(h, requester, quoteTrip(requester.netid, provider.netid, { luggageCount: "7" }));
    expect(res.body.fees.map((o: any) => o.code)).toEqual(["acme-sprinter"]);
  });

  test("converting a quote: the same requesterResNo as REGULAR, choosing an option, keeps the transactionId", async () => {
    const quote = quoteTrip(requester.netid, provider.netid);
    const q = await sendTrip(h, requester, quote);
    const booking = { ...quote, reservationType: "REGULAR", fees: [{ code: "acme-sprinter" }] };
    const b = await sendTrip(h, requester, booking);
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ transactionId: q.body.transactionId, status: "BOOKING_REQUEST", totalAmount: "240.00" });
    expect(b.body.fees.map((o: any) => o.code)).toEqual(["acme-sprinter"]);
    const got = await lookup(h, provider, q.body.transactionId);
    expect(got.body.data.tripPacket.reservationType).toBe("REGULAR");
    expect(got.body.data.tripPacket.changeLogs.at(-1).changeDesc).toContain("status QUOTE → BOOKING_REQUEST");
    // Sending the converted booking again is an idempotent repeat.
    const again = await sendTrip(h, requester, booking);
    expect(again.body.transactionId).toBe(q.body.transactionId);
  });

  test("converting with an option code the quote does not have: 400 naming fees[0].code", async () => {
    const quote = quoteTrip(requester.netid, provider.netid);
    await sendTrip(h, requester, quote);
    const res = await sendTrip(h, requester, { ...quote, reservationType: "REGULAR", fees: [{ code: "other-bus" }] });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].field).toBe("fees[0].code");
  });

  test("after validUntil the conversion is 409 QUOTE_EXPIRED", async () => {
    const quote = quoteTrip(requester.netid, provider.netid);
    const q = await sendTrip(h, requester, quote);
    clock.advance(24 * 3600 + 1);
    const res = await sendTrip(h, requester, { ...quote, reservationType: "REGULAR" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("QUOTE_EXPIRED");
    expect((await lookup(h, requester, q.body.transactionId)).body.data.lastStatus).toBe("QUOTE");
  });
});

describe("idempotency", () => {
  test("a NEW repeated with the same content returns the same transactionId and writes nothing", async () => {
    const body = regularTrip(requester.netid, provider.netid);
    const first = await sendTrip(h, requester, body);
    const before = await bookingCount();
    const [row] = await bookingRow(first.body.transactionId);
    const again = await sendTrip(h, requester, structuredClone(body));
    expect(again.status).toBe(200);
    expect(again.body.transactionId).toBe(first.body.transactionId);
    expect(await bookingCount()).toBe(before);
    expect((await bookingRow(first.body.transactionId))[0]).toEqual(row!);
  });

  test("the same requesterResNo with different content is 409", async () => {
    const body = regularTrip(requester.netid, provider.netid);
    await sendTrip(h, requester, body);
    const res = await sendTrip(h, requester, { ...body, passengerCount: "5" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("DUPLICATE_RESERVATION");
  });

  test("Idempotency-Key replays the first result; the same key with another body is 409; keys are per company", async () => {
    const key = { "Idempotency-Key": `key-${crypto.randomUUID()}` };
    const body = regularTrip(requester.netid, provider.netid);
    const first = await sendTrip(h, requester, body, key);
    const replay = await sendTrip(h, requester, body, key);
    expect(replay.status).toBe(200);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const other = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid), key);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe("IDEMPOTENCY_KEY_REUSED");
    // Another company may use the same key for its own request.
    const theirs = await sendTrip(h, stranger, regularTrip(stranger.netid, provider.netid), key);
    expect(theirs.status).toBe(200);
    expect(theirs.body.transactionId).not.toBe(first.body.transactionId);
  });

  test("answers, first and replayed, carry the JSON content type and the request id", async () => {
    const key = { "Idempotency-Key": `key-${crypto.randomUUID()}` };
    const keyed = regularTrip(requester.netid, provider.netid);
    const answers = [await sendTrip(h, requester, regularTrip(requester.netid, provider.netid)), await sendTrip(h, requester, keyed, key), await sendTrip(h, requester, keyed, key)];
    expect(answers.map((a) => a.headers.get("idempotent-replayed"))).toEqual([null, null, "true"]);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.success).toBe(true);
    }
  });

  test("a refusal is replayed too, and the key expires after 24 h", async () => {
    const key = { "Idempotency-Key": `key-${crypto.randomUUID()}` };
    const body = regularTrip(requester.netid, "NO-SUCH-OPERATOR");
    const first = await sendTrip(h, requester, body, key);
    expect(first.status).toBe(400);
    const replay = await sendTrip(h, requester, body, key);
    expect(replay.status).toBe(400);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    clock.advance(24 * 3600);
    const later = await sendTrip(h, requester, body, key);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
  });

  test("an Idempotency-Key over 255 characters is 400 naming it", async () => {
    const res = await sendTrip(h, requester, regularTrip(requester.netid, provider.netid), { "Idempotency-Key": "k".repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: "Idempotency-Key", message: expect.any(String) }]);
  });
});

describe("UPDATE and CANCEL through sendTrip", () => {
  test("UPDATE by requesterResNo changes only the fields sent and logs each change", async () => {
    const body = regularTrip(requester.netid, provider.netid, { luggageCount: "2" });
    const sent = await sendTrip(h, requester, body);
    const upd = await sendTrip(h, requester, { luggageCount: "3", affiliateReservation: { ...body.affiliateReservation, action: "UPDATE" } });
    expect(upd.status).toBe(200);
    expect(upd.body.transactionId).toBe(sent.body.transactionId);
    const got = await lookup(h, provider, sent.body.transactionId);
    expect(got.body.data.tripPacket.luggageCount).toBe("3");
    expect(got.body.data.tripPacket.passengerCount).toBe("3");
    expect(got.body.data.tripPacket.affiliateReservation.action).toBe("UPDATE");
    expect(got.body.data.tripPacket.changeLogs.map((c: any) => c.changeDesc)).toContain("luggageCount 2 → 3");
  });

  test("UPDATE by transactionId can clear luggage with an empty value", async () => {
    const body = regularTrip(requester.netid, provider.netid, { luggageCount: "2" });
    const sent = await sendTrip(h, requester, body);
    await sendTrip(h, requester, { luggageCount: "", transactionId: sent.body.transactionId, affiliateReservation: { requesterId: requester.netid, action: "UPDATE" } });
    const got = await lookup(h, requester, sent.body.transactionId);
    expect("luggageCount" in got.body.data.tripPacket).toBe(false);
    expect(got.body.data.tripPacket.changeLogs.at(-1).changeDesc).toBe("luggageCount 2 → (not specified)");
  });

  test("UPDATE or CANCEL naming no booking: 400; an unknown one: 404", async () => {
    const none = await sendTrip(h, requester, { affiliateReservation: { requesterId: requester.netid, action: "CANCEL" } });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].field).toBe("transactionId");
    const unknown = await sendTrip(h, requester, { transactionId: crypto.randomUUID(), affiliateReservation: { requesterId: requester.netid, action: "CANCEL" } });
    expect(unknown.status).toBe(404);
  });

  test("action CANCEL cancels; cancelling again is 409 with nothing allowed", async () => {
    const body = regularTrip(requester.netid, provider.netid);
    const sent = await sendTrip(h, requester, body);
    const cancel = { affiliateReservation: { ...body.affiliateReservation, action: "CANCEL" } };
    const res = await sendTrip(h, requester, cancel);
    expect(res.body).toMatchObject({ success: true, transactionId: sent.body.transactionId, status: "CANCEL" });
    const again = await sendTrip(h, requester, cancel);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: "INVALID_TRANSITION", allowed: [] });
  });
});
