import { describe, expect, test } from "bun:test";
import { asCurrentProvider, asFormerProvider, offersView, seenBy } from "../../../domain/trips/offer-views";
import type { Booking, ChangeLog, Offer } from "../../../domain/trips/booking";

// Who sees what (docs/terms.md#who-sees-what): each provider's history is the lines of its own offer, found by the
// move lines counted from the newest, so a history whose oldest lines were trimmed still splits right.
const line = (changeSource: string, changeDesc: string): ChangeLog => ({ timestamp: "2027-01-01T10:00:00Z", changeSource, changeDesc });
const ended = (provider: string, reason: string): Offer => ({
  provider, fee: "100.00", currency: "USD", status: "REJECT", reason, at: "2027-01-01T10:00:00Z",
  ended: { resNo: `${provider}-1`, fees: [{ code: `${provider}-car`, fee: "100.00", currency: "USD" }], acceptBy: 1_800_000_000, at: 1_799_999_000 },
});
const booking = (changeLogs: ChangeLog[]): Booking =>
  ({
    transactionId: "t", requesterId: "REQ", requesterResNo: "R", providerId: "C", providerResNo: null, status: "BOOKING_REQUEST", pickupDate: 1_800_100_000,
    totalAmount: "120.00", fallback: { maxFee: "500" }, acceptBy: 1_800_000_000,
    offers: [ended("A", "PROVIDER_REJECTED"), ended("B", "ACCEPT_TIMEOUT"), { provider: "C", fee: "120.00", currency: "USD", status: "BOOKING_REQUEST", at: "2027-01-01T10:05:00Z" }],
    trip: { reservationType: "REGULAR", passengerCount: "2", locations: { pickup: {} }, passengers: [], fees: [{ code: "C-car", fee: "120.00" }] },
    changeLogs, transactionErrors: [],
  }) as unknown as Booking;
const descs = (b: Booking) => b.changeLogs.map((l) => l.changeDesc);

describe("each provider's own history", () => {
  const full = booking([
    line("requester:r", "trip sent to A"),
    line("provider:a", "status BOOKING_REQUEST → REJECT"),
    line("exchange", "offer moved from A to B (PROVIDER_REJECTED): option B-car at 110.00 USD"),
    line("exchange", "delivered trip.new to the provider"),
    line("exchange", "offer moved from B to C (ACCEPT_TIMEOUT): option C-car at 120.00 USD"),
    line("exchange", "delivered trip.new to the provider"),
  ]);

  test("the first provider its lines up to the move; the next ones theirs, starting with the offer made to them", () => {
    expect(descs(asFormerProvider(full, 0))).toEqual(["trip sent to A", "status BOOKING_REQUEST → REJECT"]);
    expect(descs(asFormerProvider(full, 1))).toEqual(["trip offered to B: status BOOKING_REQUEST (100.00 USD)", "delivered trip.new to the provider"]);
    expect(descs(asCurrentProvider(full))).toEqual(["trip offered to C: status BOOKING_REQUEST (120.00 USD)", "delivered trip.new to the provider"]);
    expect(descs(full)).toHaveLength(6);
  });

  test("a trimmed history: the lines still kept of each offer, never another provider's", () => {
    const trimmed = booking([
      line("TRIMMED", "3 earlier changes not kept"),
      line("exchange", "delivered trip.new to the provider"),
      line("exchange", "offer moved from B to C (ACCEPT_TIMEOUT): option C-car at 120.00 USD"),
      line("provider:c", "status BOOKING_REQUEST → CONFIRMED"),
    ]);
    expect(descs(asFormerProvider(trimmed, 0))).toEqual([]);
    expect(descs(asFormerProvider(trimmed, 1))).toEqual(["delivered trip.new to the provider"]);
    expect(descs(asCurrentProvider(trimmed))).toEqual(["trip offered to C: status BOOKING_REQUEST (120.00 USD)", "status BOOKING_REQUEST → CONFIRMED"]);
  });

  test("a former provider's view: its own number, price, status and reason; no fallback; the requester sees all offers without what only a provider's read keeps", () => {
    const a = seenBy(full, "a")!;
    expect(a.viewer).toBe("former");
    expect(a.booking).toMatchObject({ providerId: "A", providerResNo: "A-1", status: "REJECT", reason: "PROVIDER_REJECTED", totalAmount: "100.00", acceptBy: 1_800_000_000 });
    expect(a.booking.fallback).toBeUndefined();
    expect(a.booking.offers).toHaveLength(1);
    expect(seenBy(full, "stranger")).toBeUndefined();
    expect(seenBy(full, "REQ")!.booking).toBe(full);
    expect(offersView(full)!.every((o) => o.ended === undefined)).toBe(true);
    expect(asCurrentProvider(full).fallback).toBeUndefined();
  });
});
