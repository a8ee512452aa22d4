import { describe, expect, test } from "bun:test";
import { assignDue, decideUnassignedWarning, unassignedView } from "../../../domain/trips/assignment-deadline";
import { movedTerms, termsFor } from "../../../domain/trips/terms";
import type { Booking } from "../../../domain/trips/booking";
import { bookingFixture } from "../../support/booking-fixture";

// The assignment deadline's rule (docs/terms.md#the-assignment-deadline), pure: when it is due, once, re-armed.

const at = (iso: string) => Date.parse(iso) / 1000;
const PICKUP = at("2027-01-15T16:00:00Z");
const booking = (over: Partial<Booking> = {}): Booking =>
  bookingFixture({ status: "CONFIRMED", pickupDate: PICKUP, terms: termsFor({ assignBeforeMinutes: 90 }, PICKUP, { hourly: false, airport: false }), ...over });

describe("the assignment deadline", () => {
  test("terms carry assignBy = pickup − assignBeforeMinutes (120 by default), moved with the pickup", () => {
    expect(termsFor(undefined, PICKUP, { hourly: false, airport: true }).assignBy).toBe("2027-01-15T14:00:00Z");
    expect(booking().terms!.assignBy).toBe("2027-01-15T14:30:00Z");
    expect(movedTerms(booking().terms!, 3600).assignBy).toBe("2027-01-15T15:30:00Z");
  });

  test("due only while accepted and without a chauffeur, and not without a deadline", () => {
    expect(assignDue(booking())).toBe(at("2027-01-15T14:30:00Z"));
    expect(assignDue(booking({ status: "ACKNOWLEDGED" }))).toBe(at("2027-01-15T14:30:00Z"));
    for (const status of ["BOOKING_REQUEST", "PENDING", "ASSIGNED", "EN_ROUTE", "CANCEL", "REJECT", "COMPLETE"] as const)
      expect({ status, due: assignDue(booking({ status })) }).toEqual({ status, due: null });
    expect(assignDue(booking({ chauffeur: { firstName: "Ana" } }))).toBeNull();
    expect(assignDue(booking({ terms: { freeCancellationUntil: null, cancellation: [], freeWaitingMinutes: 15 } }))).toBeNull();
  });

  test("warned once per deadline: nothing before it, the warning at it, then not due; a later deadline re-arms it", () => {
    const deadline = at("2027-01-15T14:30:00Z");
    expect(decideUnassignedWarning(booking(), deadline - 1)).toEqual({ result: false });
    const warned = decideUnassignedWarning(booking(), deadline + 30);
    expect(warned.result).toBe(true);
    const after = warned.write!.booking;
    expect(after.unassignedWarning).toEqual({ at: deadline + 30, assignBy: deadline, pickupAt: PICKUP });
    expect(warned.write!.events).toEqual([expect.objectContaining({ type: "UNASSIGNED_WARNING", byExchange: true })]);
    expect(unassignedView(after, after.unassignedWarning!)).toEqual({
      reservationId: "t-1",
      requesterResNo: "R-1",
      providerResNo: null,
      pickupAt: "2027-01-15T16:00:00Z",
      assignBy: "2027-01-15T14:30:00Z",
      minutesLeft: 89,
    });
    expect(assignDue(after)).toBeNull();
    expect(decideUnassignedWarning(after, deadline + 600)).toEqual({ result: false });
    // The pickup moved an hour later: due again at the new deadline; moved earlier: not again.
    expect(assignDue({ ...after, terms: movedTerms(after.terms!, 3600) })).toBe(deadline + 3600);
    expect(assignDue({ ...after, terms: movedTerms(after.terms!, -3600) })).toBeNull();
  });
});
