import { ValidationError, type FieldError } from "../errors";
import { normaliseAmount } from "../money";
import type { Caller, Clock } from "../ports";
import { roleOf, type Booking } from "../trips/booking";
import { bookingNotFound, decideCancelTrip, decideProviderUpdate, type ChangeContext, type ProviderUpdate } from "../trips/decisions";
import { parseTripStatus, TRIP_STATUSES, type TripActor, type TripStatus } from "../trips/lifecycle";
import type { BookingRepository, BookingSummary } from "../trips/ports";
import { checkFees, isUuid } from "../trips/send-trip-request";

export interface ManageTripDeps {
  bookings: BookingRepository;
  clock: Clock;
}

/** A provider's status update as received: the checked shape, with the status still a raw string. */
export type ProviderUpdateInput = Omit<ProviderUpdate, "status"> & { status?: string };

/** 400 unless the transactionId is a UUID. */
export function requireTransactionId(transactionId: string): string {
  if (!isUuid(transactionId)) throw new ValidationError([{ field: "transactionId", message: "must be a UUID" }]);
  return transactionId.toLowerCase();
}

/**
 * Provider updates status: check the update, then — in one transaction — make sure the caller is the
 * provider and the lifecycle allows the move, and record what changed.
 */
export async function providerUpdateStatus(deps: ManageTripDeps, caller: Caller, transactionId: string, input: ProviderUpdateInput): Promise<void> {
  const id = requireTransactionId(transactionId);
  const update = checkProviderUpdate(input);
  const ctx: ChangeContext = { now: deps.clock.now(), netid: caller.netid, uid: caller.uid };
  await deps.bookings.change({ transactionId: id }, (current) => decideProviderUpdate(current, update, ctx));
}

/** Requester cancels a trip by its transactionId. */
export async function cancelTrip(deps: ManageTripDeps, caller: Caller, transactionId: string): Promise<void> {
  const id = requireTransactionId(transactionId);
  const ctx: ChangeContext = { now: deps.clock.now(), netid: caller.netid, uid: caller.uid };
  await deps.bookings.change({ transactionId: id }, (current) => decideCancelTrip(current, undefined, ctx));
}

/** Look up a booking: only its two parties see it; anyone else gets the same 404 as for an unknown id. */
export async function findBooking(deps: Pick<ManageTripDeps, "bookings">, caller: Caller, transactionId: string): Promise<Booking> {
  const booking = await deps.bookings.findById(requireTransactionId(transactionId));
  if (!booking || !roleOf(booking, caller.netid)) throw bookingNotFound();
  return booking;
}

export interface ListBookingsInput {
  limit?: string;
  offset?: string;
  status?: string;
  requesterResNo?: string;
  role?: string;
}

/** The caller's company's bookings (as requester or provider), newest first, paged and filtered (CONTRACT §7). */
export async function listBookings(
  deps: Pick<ManageTripDeps, "bookings">,
  caller: Caller,
  input: ListBookingsInput,
): Promise<{ items: BookingSummary[]; total: number; limit: number; offset: number }> {
  const errors: FieldError[] = [];
  const limit = readWhole(input.limit, 20);
  if (limit === undefined || limit < 1 || limit > 100) errors.push({ field: "limit", message: "must be a whole number from 1 to 100" });
  const offset = readWhole(input.offset, 0);
  if (offset === undefined || offset > 1_000_000_000) errors.push({ field: "offset", message: "must be a whole number of 0 or more" });
  let status: TripStatus | undefined;
  if (input.status !== undefined && input.status.trim() !== "") {
    status = parseTripStatus(input.status);
    if (!status) errors.push({ field: "status", message: `must be one of ${TRIP_STATUSES.join(", ")}` });
  }
  let role: TripActor | undefined;
  if (input.role !== undefined && input.role.trim() !== "") {
    const r = input.role.trim().toLowerCase();
    if (r === "requester" || r === "provider") role = r;
    else errors.push({ field: "role", message: "must be requester or provider" });
  }
  if (errors.length > 0) throw new ValidationError(errors);
  const requesterResNo = input.requesterResNo?.trim() || undefined;
  const page = await deps.bookings.list({ netid: caller.netid, role, status, requesterResNo, limit: limit!, offset: offset! });
  return { ...page, limit: limit!, offset: offset! };
}

function readWhole(raw: string | undefined, fallback: number): number | undefined {
  if (raw === undefined || raw.trim() === "") return fallback;
  return /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : undefined;
}

/** Checks a provider update, every failing field at once. */
export function checkProviderUpdate(input: ProviderUpdateInput): ProviderUpdate {
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message });
  let status: TripStatus | undefined;
  if ((input.status ?? "").trim() === "") fail("status", "is required");
  else {
    status = parseTripStatus(input.status!);
    if (!status) fail("status", `must be one of ${TRIP_STATUSES.join(", ")} (legacy ENROUTE, AT_LOCATION, ACCEPTED accepted)`);
  }
  let totalAmount: string | undefined;
  if (input.totalAmount !== undefined && input.totalAmount.trim() !== "") {
    totalAmount = normaliseAmount(input.totalAmount);
    if (totalAmount === undefined) fail("totalAmount", "must be a decimal amount with at most 2 decimals, e.g. 125.00");
  }
  const fees = input.fees === undefined ? undefined : checkFees(input.fees, "fees", fail);
  if (errors.length > 0) throw new ValidationError(errors);
  return {
    status: status!,
    ...(input.providerResNo !== undefined ? { providerResNo: input.providerResNo.trim() } : {}),
    ...(input.providerNote !== undefined ? { providerNote: input.providerNote.trim() } : {}),
    ...(totalAmount !== undefined ? { totalAmount } : {}),
    ...(fees !== undefined ? { fees } : {}),
    ...(input.vehicle !== undefined ? { vehicle: input.vehicle } : {}),
    ...(input.chauffeur !== undefined ? { chauffeur: input.chauffeur } : {}),
  };
}
