import { ValidationError } from "../errors";
import type { Caller, CompanyRepository } from "../ports";
import { roleOf, type Booking } from "./booking";
import { bookingNotFound } from "./decisions";
import type { TripActor } from "./lifecycle";
import type { BookingRepository } from "./ports";
import { isUuid } from "./send-trip-request";
import { seenBy } from "./offer-views";

/** Finding a booking as its parties name it: by transactionId, or by a party's netid and reservation number. */
export interface FindBookingDeps {
  bookings: Pick<BookingRepository, "findById" | "findByResNo">;
  companies: Pick<CompanyRepository, "findByNetid">;
}

/** 400 unless the transactionId is a UUID. */
export function requireTransactionId(transactionId: string): string {
  if (!isUuid(transactionId)) throw new ValidationError([{ field: "transactionId", message: "must be a UUID" }]);
  return transactionId.toLowerCase();
}

/**
 * The booking a party's reservation number names: `netid` is the party's netid (any
 * letter case), `resNo` its own number for the booking. Undefined when there is none.
 */
export async function bookingByResNo(deps: FindBookingDeps, netid: string, resNo: string, sides: readonly TripActor[]): Promise<Booking | undefined> {
  const company = await deps.companies.findByNetid(netid.trim());
  const number = resNo.trim();
  if (!company || number === "") return undefined;
  for (const side of sides) {
    const booking = await deps.bookings.findByResNo(side, company.netid, number);
    if (booking) return booking;
  }
  return undefined;
}

/** Look up a booking by either party's netid and that party's reservation number; non-parties get the same 404. */
export async function findBookingByResNo(deps: FindBookingDeps, caller: Caller, netid: string, resNo: string): Promise<Booking> {
  const booking = await bookingByResNo(deps, netid, resNo, ["requester", "provider"]);
  if (!booking || !roleOf(booking, caller.netid)) throw bookingNotFound();
  return booking;
}

/** Look up a booking: only its two parties see it; anyone else gets the same 404 as for an unknown id. */
export async function findBooking(deps: Pick<FindBookingDeps, "bookings">, caller: Caller, transactionId: string): Promise<Booking> {
  const booking = await deps.bookings.findById(requireTransactionId(transactionId));
  if (!booking || !roleOf(booking, caller.netid)) throw bookingNotFound();
  return booking;
}

/**
 * Look up a booking to read it: its parties, and a provider it was offered to whose offer ended (it reads its own offer
 * only, docs/terms.md#who-sees-what); anyone else gets the same 404 as for an unknown id.
 */
export async function findBookingToRead(deps: Pick<FindBookingDeps, "bookings">, caller: Caller, transactionId: string): Promise<Booking> {
  const booking = await deps.bookings.findById(requireTransactionId(transactionId));
  if (!booking || !seenBy(booking, caller.netid)) throw bookingNotFound();
  return booking;
}
