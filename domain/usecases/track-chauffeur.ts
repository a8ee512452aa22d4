import { NotFoundError, TooManyRequestsError, ValidationError, type FieldError } from "../errors";
import type { Caller, CompanyRepository } from "../ports";
import type { IntegrationRepository } from "../delivery/ports";
import { roleOf, type Booking } from "../trips/booking";
import { bookingNotFound, type ChangeContext } from "../trips/decisions";
import type { BookingRepository } from "../trips/ports";
import type { Decision } from "../trips/decision";
import { parseDateTime } from "../trips/places";
import { isUuid } from "../trips/send-trip-request";
import { readCoordinateField } from "../trips/trip-fields";
import { MIN_PUSH_INTERVAL_MS, tripEnded, visiblePosition, type ChauffeurPosition, type PositionStore } from "../tracking/position";
import { findBooking, findBookingByResNo } from "../trips/find-booking";
import { positionLiveEvents, type LiveEventLog } from "../events/live-events";
import type { ArrivalWatch } from "../tracking/arrival-watch";
import type { TripStatus } from "../trips/lifecycle";

export interface TrackingDeps {
  bookings: BookingRepository;
  companies: Pick<CompanyRepository, "findByNetid">;
  integrations: Pick<IntegrationRepository, "get">;
  positions: PositionStore;
  /** Where event streams hear of each position (none: not announced). */
  liveEvents?: Pick<LiveEventLog, "append">;
  newEventId?: () => string;
  /** Unix milliseconds. */
  nowMs: () => number;
  /** The arrival and the ETA from positions (docs/flights.md#arrival); none: neither is told. */
  arrival?: Pick<ArrivalWatch, "withEta" | "seen" | "noteStatus">;
}

/** One position as a dispatch system pushes it (GNet's saveGPScache body); numbers may come as strings. */
export interface PositionPush {
  griddid?: string;
  internalBookingId?: string;
  transactionId?: string;
  latitude?: string | number;
  longitude?: string | number;
  locationDateTime?: string;
  chfName?: string;
  driverId?: string;
  phoneNo?: string;
}

/** What one pushed position did (the bulk push answers one per item). */
export type PushOutcome =
  { status: "accepted"; transactionId: string } | { status: "throttled"; transactionId: string; retryAfter: number } | { status: "not_found" };

/** How often a requester with a webhook hears of a moving chauffeur (the first position at once). */
export const LOCATION_WEBHOOK_INTERVAL_MS = 30_000;
/** At most this many positions in one bulk push. */
export const MAX_BULK_POSITIONS = 100;
/** At most this many reservation numbers in one array pull. */
export const MAX_PULL_RESNOS = 50;

type Fail = (field: string, message: string) => void;
interface CheckedPush {
  ref: { transactionId: string } | { resNo: string };
  lat: number;
  lon: number;
  timestamp: string | undefined;
  chfId?: string;
  chfName?: string;
  phoneNo?: string;
  griddID?: string;
}

const text = (v: string | undefined) => (v === undefined || v.trim() === "" ? undefined : v.trim());

/** A position stamped further ahead than this (a clock set wrong, a time zone read as UTC) is refused. */
export const MAX_POSITION_FUTURE_MS = 5 * 60_000;

function checkPush(raw: PositionPush, prefix: string, fail: Fail, nowMs: number): CheckedPush | undefined {
  const errors: FieldError[] = [];
  const own: Fail = (field, message) => errors.push({ field: `${prefix}${field}`, message });
  const read = (value: string | number | undefined, limit: 90 | 180, field: string) => {
    if (value === undefined || value === "")
      own(field, `is required: a decimal ${limit === 90 ? "latitude between -90 and 90" : "longitude between -180 and 180"}`);
    else return readCoordinateField(value, limit, field, own);
    return undefined;
  };
  const latitude = read(raw.latitude, 90, "latitude");
  const longitude = read(raw.longitude, 180, "longitude");
  const transactionId = text(raw.transactionId);
  const resNo = text(raw.internalBookingId);
  if (transactionId && !isUuid(transactionId)) own("transactionId", "must be a UUID");
  if (!transactionId && !resNo) own("transactionId", "is required (or internalBookingId: your reservation number for the booking)");
  const when = text(raw.locationDateTime)?.replace(" ", "T");
  const parsed = when ? parseDateTime(when) : undefined;
  if (when && !parsed) own("locationDateTime", "must be an ISO 8601 date-time, e.g. 2025-12-11T21:10:00Z");
  else if (parsed && (parsed.naiveUnix - (parsed.offsetMinutes ?? 0) * 60) * 1000 > nowMs + MAX_POSITION_FUTURE_MS)
    own("locationDateTime", "is more than 5 minutes in the future; send the time the position was taken, in UTC (Z) or with its offset");
  for (const e of errors) fail(e.field, e.message);
  if (errors.length > 0 || latitude === undefined || longitude === undefined) return undefined;
  return {
    ref: transactionId ? { transactionId: transactionId.toLowerCase() } : { resNo: resNo! },
    lat: Number(latitude),
    lon: Number(longitude),
    timestamp: when,
    ...(text(raw.driverId) ? { chfId: text(raw.driverId) } : {}),
    ...(text(raw.chfName) ? { chfName: text(raw.chfName) } : {}),
    ...(text(raw.phoneNo) ? { phoneNo: text(raw.phoneNo) } : {}),
    ...(text(raw.griddid) ? { griddID: text(raw.griddid) } : {}),
  };
}

/** Checks a single push or a batch; every failing field of every item at once (400), nothing stored then. */
function checkAll(items: PositionPush[], bulk: boolean, nowMs: number): CheckedPush[] {
  const errors: FieldError[] = [];
  const fail: Fail = (field, message) => errors.push({ field, message });
  const checked = items.map((item, i) => checkPush(item, bulk ? `[${i}].` : "", fail, nowMs));
  if (errors.length > 0) throw new ValidationError(errors);
  return checked as CheckedPush[];
}

/** The parties of a booking never change: remembered (bounded) so that a stream of pushes reads no booking. */
const PARTIES_CACHE = 100_000;

/**
 * Chauffeur tracking: the booking's provider pushes positions (at most one a second per booking), either party
 * pulls the last one, and a requester with a webhook hears of the chauffeur moving (at most every 30 s).
 */
export class ChauffeurTracking {
  private readonly parties = new Map<string, { requesterId: string; providerId: string }>();
  private readonly announced = new Map<string, number>();

  constructor(private readonly deps: TrackingDeps) {}

  /** One pushed position (saveGPScache): 404 unless the caller is the booking's provider, 429 within a second. */
  async push(caller: Caller, input: PositionPush): Promise<{ transactionId: string }> {
    const [item] = checkAll([input], false, this.deps.nowMs());
    const outcome = await this.record(caller, item);
    if (outcome.status === "not_found") throw bookingNotFound();
    if (outcome.status === "throttled")
      throw new TooManyRequestsError(outcome.retryAfter, "At most one position per booking per second; retry in a second", "POSITION_THROTTLED");
    return { transactionId: outcome.transactionId };
  }

  /** A batch of pushed positions (GPSgrab): checked whole (400), then each recorded or refused on its own. */
  async pushMany(caller: Caller, inputs: PositionPush[]): Promise<PushOutcome[]> {
    const items = checkAll(inputs, true, this.deps.nowMs());
    const outcomes: PushOutcome[] = [];
    for (const item of items) outcomes.push(await this.record(caller, item));
    return outcomes;
  }

  /** A position that came with a provider's status update; it counts as a push but is never refused. */
  recordFromUpdate(transactionId: string, position: { lat: number; lon: number }, extra: Pick<ChauffeurPosition, "chfId" | "chfName" | "griddID">): void {
    const now = this.deps.nowMs();
    const saved = { ...position, timestamp: new Date(now).toISOString(), receivedAt: now, ...defined(extra) };
    this.deps.positions.save(transactionId, saved);
    void this.streamPosition(transactionId, saved).catch(() => {});
  }

  /**
   * After a committed status update carrying a position, or a move of the exchange's own demo chauffeur: the
   * requester's location webhook, as for a pushed position (the first at once, then at most every 30 s).
   */
  async announceMoved(transactionId: string): Promise<void> {
    const last = this.deps.arrival ? await this.deps.positions.last(transactionId) : undefined;
    if (last) await this.deps.arrival?.seen(transactionId, last);
    await this.announce(transactionId, this.deps.nowMs());
  }

  /** A status the provider set through this instance: the next ETA follows it (docs/flights.md#eta). */
  noteStatus(transactionId: string, status: TripStatus): void {
    this.deps.arrival?.noteStatus(transactionId, status);
  }

  /** The chauffeur's last position as GNet's getChauffeurLocation answers it; 404 when there is none to show. */
  async locate(caller: Caller, transactionId: string) {
    return this.locationOf(caller, await findBooking(this.deps, caller, transactionId));
  }

  /** The same, naming the booking by a party's netid and reservation number. */
  async locateByResNo(caller: Caller, netid: string, resNo: string) {
    return this.locationOf(caller, await findBookingByResNo(this.deps, caller, netid, resNo));
  }

  /** Several bookings of one party at once: the ones with a position to show; 404 when none has. */
  async locateByResNos(caller: Caller, netid: string, list: string) {
    const resNos = [
      ...new Set(
        list
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    if (resNos.length === 0 || resNos.length > MAX_PULL_RESNOS)
      throw new ValidationError([{ field: "resNos", message: `must list 1–${MAX_PULL_RESNOS} reservation numbers, separated by commas` }]);
    const found = [];
    for (const resNo of resNos) {
      try {
        found.push({ resNo, ...(await this.locateByResNo(caller, netid, resNo)) });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
      }
    }
    if (found.length === 0) throw noPosition();
    return found;
  }

  private async locationOf(caller: Caller, booking: Booking) {
    const role = roleOf(booking, caller.netid)!;
    const last = await this.deps.positions.last(booking.transactionId);
    const position = visiblePosition(booking.status, role, last);
    if (!position) throw last ? positionPrivate(booking.status) : noPosition();
    const chauffeur = booking.chauffeur;
    const name = [chauffeur?.firstName, chauffeur?.lastName].filter(Boolean).join(" ");
    return {
      transactionId: booking.transactionId,
      chfId: position.chfId ?? chauffeur?.chauffeurId ?? "",
      chfName: position.chfName ?? name,
      code: booking.status,
      griddID: position.griddID ?? booking.providerUpdate?.griddID ?? "",
      location: { lat: position.lat, lon: position.lon },
      picURL: chauffeur?.picURL ?? "",
      timestamp: position.timestamp,
    };
  }

  private async record(caller: Caller, item: CheckedPush): Promise<PushOutcome> {
    const transactionId = await this.bookingOf(caller, item.ref);
    if (!transactionId) return { status: "not_found" };
    const now = this.deps.nowMs();
    const { ref: _ref, timestamp, ...fields } = item;
    const taken: ChauffeurPosition = { ...fields, timestamp: timestamp ?? new Date(now).toISOString(), receivedAt: now };
    // The ETA is read before the throttle's check, so that nothing awaits between the check and the save.
    const saved = this.deps.arrival ? await this.deps.arrival.withEta(transactionId, taken) : taken;
    const last = await this.deps.positions.last(transactionId);
    if (last && now - last.receivedAt < MIN_PUSH_INTERVAL_MS) return { status: "throttled", transactionId, retryAfter: 1 };
    this.deps.positions.save(transactionId, saved);
    await this.streamPosition(transactionId, saved);
    await this.deps.arrival?.seen(transactionId, saved);
    await this.announce(transactionId, now);
    return { status: "accepted", transactionId };
  }

  /** The booking a push names, when the caller is its provider; the same undefined for anyone else. */
  private async bookingOf(caller: Caller, ref: CheckedPush["ref"]): Promise<string | undefined> {
    const netid = caller.netid.toLowerCase();
    if ("resNo" in ref) {
      const company = await this.deps.companies.findByNetid(caller.netid);
      const booking = company ? await this.deps.bookings.findByResNo("provider", company.netid, ref.resNo) : undefined;
      if (booking) this.remember(booking);
      return booking ? booking.transactionId : undefined;
    }
    let parties = this.parties.get(ref.transactionId);
    if (!parties) {
      const booking = await this.deps.bookings.findById(ref.transactionId);
      if (!booking) return undefined;
      parties = this.remember(booking);
    }
    return parties.providerId.toLowerCase() === netid ? ref.transactionId : undefined;
  }

  private remember(booking: Booking): { requesterId: string; providerId: string } {
    const parties = { requesterId: booking.requesterId, providerId: booking.providerId };
    if (this.parties.size >= PARTIES_CACHE) this.parties.clear();
    this.parties.set(booking.transactionId, parties);
    return parties;
  }

  /** Event streams of both parties hear of the position (the log keeps it from a requester once the trip ended). */
  private async streamPosition(transactionId: string, position: ChauffeurPosition): Promise<void> {
    const { liveEvents, newEventId } = this.deps;
    if (!liveEvents || !newEventId) return;
    let parties = this.parties.get(transactionId);
    if (!parties) {
      const booking = await this.deps.bookings.findById(transactionId);
      if (!booking) return;
      parties = this.remember(booking);
    }
    liveEvents.append(positionLiveEvents(newEventId, { transactionId, ...parties }, position));
  }

  /** Sends the requester a location webhook: for the first position, then at most every 30 s, while under way. */
  private async announce(transactionId: string, now: number): Promise<void> {
    const previous = this.announced.get(transactionId);
    if (previous !== undefined && now - previous < LOCATION_WEBHOOK_INTERVAL_MS) return;
    this.announced.set(transactionId, now);
    if (this.announced.size > PARTIES_CACHE) this.announced.clear();
    const parties = this.parties.get(transactionId) ?? (await this.deps.bookings.findById(transactionId));
    if (!parties || !(await this.deps.integrations.get(parties.requesterId))?.webhookUrl) return;
    const ctx: ChangeContext = { now: Math.floor(now / 1000), netid: parties.providerId, uid: "tracking" };
    await this.deps.bookings.change({ transactionId }, (current) => decideLocationAnnounce(current, ctx));
  }
}

/** A booking whose chauffeur moved: no change to the booking itself, one webhook event while the trip is under way. */
export function decideLocationAnnounce(current: Booking | undefined, ctx: ChangeContext): Decision<void> {
  if (!current || tripEnded(current.status)) return { result: undefined };
  return {
    result: undefined,
    write: {
      booking: current,
      events: [{ type: "LOCATION_CHANGED", transactionId: current.transactionId, actor: "provider", at: ctx.now, status: current.status }],
    },
  };
}

function noPosition(): NotFoundError {
  return new NotFoundError("No chauffeur position for this booking yet", "NO_POSITION");
}

/** A requester asking for the chauffeur's position after the trip ended: 404, saying why. */
function positionPrivate(status: string): NotFoundError {
  return new NotFoundError(
    `The trip has ended (${status}): the chauffeur's position is private now and shown only to the provider`,
    "POSITION_PRIVATE",
  );
}

function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== "")) as Partial<T>;
}
