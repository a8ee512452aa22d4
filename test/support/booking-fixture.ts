import type { Booking } from "../../domain/trips/booking";

/**
 * A minimal booking for the domain's pure rules: REQ's regular trip with OPS, nothing sent yet (no fees, logs or
 * errors); `over` sets what the rule under test reads (status, pickup, acceptBy, terms…).
 */
export function bookingFixture(over: Partial<Booking> = {}): Booking {
  return {
    transactionId: "t-1",
    requesterId: "REQ",
    providerId: "OPS",
    requesterResNo: "R-1",
    providerResNo: null,
    status: "BOOKING_REQUEST",
    pickupDate: 0,
    updatedAt: 0,
    trip: { reservationType: "REGULAR", passengerCount: "1", locations: { pickup: {} }, passengers: [], fees: [] },
    changeLogs: [],
    transactionErrors: [],
    ...over,
  } as Booking;
}
