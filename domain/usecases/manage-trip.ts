import { ValidationError, type FieldError } from "../errors";
import type { LiveEventLog } from "../events/live-events";
import type { Caller, Clock, CompanyRepository } from "../ports";
import type { Booking, BookingSummary } from "../trips/booking";
import { bookingNotFound, decideCancelTrip, type ChangeContext } from "../trips/decisions";
import { checkProviderUpdate, decideProviderUpdate, type ProviderUpdate, type ProviderUpdateInput } from "../trips/provider-update";
import type { MinorUnits } from "../trips/booking-amounts";
import { tripEnded } from "../tracking/position";
import type { ChauffeurTracking } from "./track-chauffeur";
import { parseTripStatus, TRIP_STATUSES, type TripActor, type TripStatus } from "../trips/lifecycle";
import type { BookingRepository } from "../trips/ports";
import { bookingByResNo, requireTransactionId } from "../trips/find-booking";
import { parseDateTime } from "../trips/places";
import { DEFAULT_BOOKING_LIMITS, withinBounds, type BookingLimits } from "../trips/booking-bounds";

export { findBooking, findBookingByResNo, findBookingToRead, requireTransactionId } from "../trips/find-booking";

export interface ManageTripDeps {
  bookings: BookingRepository;
  companies: Pick<CompanyRepository, "findByNetid">;
  clock: Clock;
  /** What one booking may hold as a whole (default: MAX_BODY_BYTES's default). */
  limits?: BookingLimits;
  /** Keeps the chauffeur's position a provider update carries. */
  tracking?: Pick<ChauffeurTracking, "recordFromUpdate"> & Partial<Pick<ChauffeurTracking, "announceMoved" | "noteStatus">>;
  /** Minor units of currencies: a provider's amounts take its booking's currency's (two decimals without it). */
  currencies?: MinorUnits;
  /**
   * The sandbox's simulated dispatcher (docs/operator.md#the-sandbox) plays a whole trip in a minute, whatever its
   * pickup: its statuses need not wait for the trip (docs/integration.md#trip-statuses-wait-for-the-trip).
   */
  simulated?: boolean;
  /** Where a provider's lost offers are read from (docs/terms.md#who-sees-what): its `booking.withdrawn` events. */
  lostOffers?: Pick<LiveEventLog, "recent">;
}

/**
 * The provider's update decided, and its position kept while the trip is under way (with the chauffeur and
 * dispatch ids it names) — once the caller is known to be the provider, and before the change's webhook is
 * written, so that the webhook carries it.
 */
function decideAndKeepPosition(deps: ManageTripDeps, update: ProviderUpdate, ctx: ChangeContext) {
  return (current: Booking | undefined) => {
    // The provider's details replace the stored ones; the booking as a whole stays within one body's limit.
    const decided = decideProviderUpdate(current, update, ctx, deps.currencies, deps.simulated);
    const decision = withinBounds(decided, current, deps.limits ?? DEFAULT_BOOKING_LIMITS);
    if (update.position && !tripEnded(decision.result)) {
      const c = update.chauffeur;
      const name = [c?.firstName, c?.lastName].filter(Boolean).join(" ");
      deps.tracking?.recordFromUpdate(current!.transactionId, update.position, {
        chfId: c?.chauffeurId,
        chfName: name || undefined,
        griddID: update.info?.griddID,
      });
    }
    return decision;
  };
}

/**
 * Provider updates status: check the update, then — in one transaction — make sure the caller is the
 * provider and the lifecycle allows the move, and record what changed.
 */
export async function providerUpdateStatus(deps: ManageTripDeps, caller: Caller, transactionId: string, input: ProviderUpdateInput): Promise<void> {
  const id = requireTransactionId(transactionId);
  const update = checkProviderUpdate(input);
  const ctx: ChangeContext = { now: deps.clock.now(), netid: caller.netid, uid: caller.uid };
  const status = await deps.bookings.change({ transactionId: id }, decideAndKeepPosition(deps, update, ctx));
  deps.tracking?.noteStatus?.(id, status);
  // The position announced as a pushed one is, once the update is committed (the webhook then carries both).
  if (update.position) await deps.tracking?.announceMoved?.(id);
}

/** Provider updates status, naming the booking by its own netid and reservation number (GNet's providerUpdateStatusByResNo). */
export async function providerUpdateStatusByResNo(
  deps: ManageTripDeps,
  caller: Caller,
  netid: string,
  resNo: string,
  input: ProviderUpdateInput,
): Promise<void> {
  const update = checkProviderUpdate(input);
  const found = await bookingByResNo(deps, netid, resNo, ["provider"]);
  if (!found) throw bookingNotFound();
  const ctx: ChangeContext = { now: deps.clock.now(), netid: caller.netid, uid: caller.uid };
  const status = await deps.bookings.change({ transactionId: found.transactionId }, decideAndKeepPosition(deps, update, ctx));
  deps.tracking?.noteStatus?.(found.transactionId, status);
}

/** Requester cancels a trip named by its own netid and reservation number (GNet's cancelTripByResNo). */
export async function cancelTripByResNo(deps: ManageTripDeps, caller: Caller, netid: string, resNo: string): Promise<void> {
  const found = await bookingByResNo(deps, netid, resNo, ["requester"]);
  if (!found) throw bookingNotFound();
  const ctx: ChangeContext = { now: deps.clock.now(), netid: caller.netid, uid: caller.uid };
  await deps.bookings.change({ transactionId: found.transactionId }, (current) => decideCancelTrip(current, undefined, ctx));
}

/** Requester cancels a trip by its transactionId. */
export async function cancelTrip(deps: ManageTripDeps, caller: Caller, transactionId: string): Promise<void> {
  const id = requireTransactionId(transactionId);
  const ctx: ChangeContext = { now: deps.clock.now(), netid: caller.netid, uid: caller.uid };
  await deps.bookings.change({ transactionId: id }, (current) => decideCancelTrip(current, undefined, ctx));
}

export interface ListBookingsInput {
  limit?: string;
  offset?: string;
  status?: string;
  requesterResNo?: string;
  role?: string;
  pickupFrom?: string;
  pickupTo?: string;
}

/**
 * A pickup-date bound: Unix seconds, an ISO 8601 date-time, or a date (`YYYY-MM-DD`, its first second in UTC for
 * `from`, its last for `to`). Undefined when absent; NaN when it is none of those.
 */
function readInstant(raw: string | undefined, end: "from" | "to"): number | undefined {
  const s = (raw ?? "").trim();
  if (s === "") return undefined;
  if (/^\d{1,12}$/.test(s)) return Number(s);
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return Date.parse(`${s}T${end === "from" ? "00:00:00" : "23:59:59"}Z`) / 1000;
  const parts = parseDateTime(s);
  return parts ? parts.naiveUnix - (parts.offsetMinutes ?? 0) * 60 : NaN;
}

/** The caller's company's bookings (as requester or provider), newest first, paged and filtered. */
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
  const pickupFrom = readInstant(input.pickupFrom, "from");
  const pickupTo = readInstant(input.pickupTo, "to");
  for (const [field, value] of [
    ["pickupFrom", pickupFrom],
    ["pickupTo", pickupTo],
  ] as const)
    if (value !== undefined && !Number.isFinite(value)) errors.push({ field, message: "must be Unix seconds, a date (2026-12-03) or an ISO 8601 date-time" });
  if (errors.length > 0) throw new ValidationError(errors);
  const requesterResNo = input.requesterResNo?.trim() || undefined;
  const page = await deps.bookings.list({ netid: caller.netid, role, status, requesterResNo, pickupFrom, pickupTo, limit: limit!, offset: offset! });
  return { ...page, limit: limit!, offset: offset! };
}

function readWhole(raw: string | undefined, fallback: number): number | undefined {
  if (raw === undefined || raw.trim() === "") return fallback;
  return /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : undefined;
}
