import { ConflictError, NotFoundError, TooManyRequestsError, ValidationError } from "../errors";
import type { Caller, Clock } from "../ports";
import type { FleetRepository } from "../fleet/ports";
import {
  BLACKOUT_LIMITS,
  checkBlackout,
  checkScheduleWindow,
  type BlackoutRefusal,
  type ClaimOutcome,
  type HoldClaim,
  type HoldIndex,
  type VehicleHold,
} from "../fleet/holds";
import { isoAt } from "../trips/booking";

/** What managing a vehicle's blackouts and reading its schedule needs. */
export interface AvailabilityDeps {
  fleet: Pick<FleetRepository, "find">;
  holds: HoldIndex;
  clock: Clock;
  newId: () => string;
}

/** A hold as the API shows it: UTC ISO instants. */
export interface HoldView {
  id: string;
  kind: "BOOKING" | "BLACKOUT";
  transactionId?: string;
  from: string;
  to: string;
  reason?: string | null;
}

export function holdView(h: VehicleHold): HoldView {
  return {
    id: h.id,
    kind: h.kind,
    ...(h.transactionId ? { transactionId: h.transactionId } : {}),
    from: isoAt(h.from),
    to: isoAt(h.to),
    ...(h.kind === "BLACKOUT" ? { reason: h.reason ?? null } : {}),
  };
}

/** The caller's own vehicle; another company's and an unknown slug are the same 404. */
async function ownVehicle(deps: AvailabilityDeps, caller: Caller, slug: string) {
  const entry = slug.length <= 200 ? await deps.fleet.find(caller.netid, slug) : undefined;
  if (!entry) throw new NotFoundError("No such fleet entry in your fleet", "FLEET_ENTRY_NOT_FOUND");
  return entry;
}

/** Blocks a vehicle of the caller's fleet over [from, to): quotes leave it out, bookings of it are refused. */
export async function addBlackout(deps: AvailabilityDeps, caller: Caller, slug: string, body: Record<string, unknown>): Promise<HoldView> {
  const entry = await ownVehicle(deps, caller, slug);
  const checked = checkBlackout(body ?? {});
  if (!checked.ok) throw new ValidationError(checked.errors);
  const reason = checked.reason ? { reason: checked.reason } : {};
  const hold: VehicleHold = { id: deps.newId(), slug: entry.slug, kind: "BLACKOUT", from: checked.from, to: checked.to, ...reason };
  const now = deps.clock.now();
  const refused = await deps.holds.store.addBlackout({ ...hold, provider: entry.netid }, now, BLACKOUT_LIMITS);
  if (refused) throw blackoutLimit(refused, entry.slug, now);
  deps.holds.forget(entry.netid);
  return holdView(hold);
}

/** 429 BLACKOUT_LIMIT (docs/availability.md#how-many-blackouts): retry once the earliest live blackout has ended, or remove one. */
function blackoutLimit(refused: BlackoutRefusal, slug: string, now: number): TooManyRequestsError {
  const who = refused.limit === "vehicle" ? `The vehicle ${slug} keeps` : "Your company keeps";
  const limit = refused.limit === "vehicle" ? BLACKOUT_LIMITS.perVehicle : BLACKOUT_LIMITS.perCompany;
  return new TooManyRequestsError(
    Math.max(1, refused.firstEnds - now),
    `${who} ${refused.live} live blackouts, at most ${limit} may be; remove one, or wait until the earliest ends (${isoAt(refused.firstEnds)})`,
    "BLACKOUT_LIMIT",
  );
}

export async function listBlackouts(deps: AvailabilityDeps, caller: Caller, slug: string): Promise<HoldView[]> {
  const entry = await ownVehicle(deps, caller, slug);
  return (await deps.holds.store.blackoutsOf(entry.slug)).map(holdView);
}

export async function removeBlackout(deps: AvailabilityDeps, caller: Caller, slug: string, id: string): Promise<void> {
  const entry = await ownVehicle(deps, caller, slug);
  if (id.length > 100 || !(await deps.holds.store.removeBlackout(entry.slug, id)))
    throw new NotFoundError("No such blackout of this vehicle", "BLACKOUT_NOT_FOUND");
  deps.holds.forget(entry.netid);
}

/** The vehicle's live holds (bookings and blackouts) overlapping the window `from`–`to` (query parameters). */
export async function vehicleSchedule(
  deps: AvailabilityDeps,
  caller: Caller,
  slug: string,
  query: { from?: unknown; to?: unknown },
): Promise<{ slug: string; from: string; to: string; holds: HoldView[] }> {
  const entry = await ownVehicle(deps, caller, slug);
  const window = checkScheduleWindow(query);
  if (!window.ok) throw new ValidationError(window.errors);
  const holds = await deps.holds.store.scheduleOf(entry.slug, window.from, window.to, deps.clock.now());
  return { slug: entry.slug, from: isoAt(window.from), to: isoAt(window.to), holds: holds.map(holdView) };
}

/** What a booking made from a quote option holds, to claim before the booking is written (and the requester's limits). */
export type VehicleClaim = HoldClaim;

/**
 * Books `claim`'s vehicle around `book` (docs/availability.md#booking-a-quoted-vehicle-that-became-busy): the hold is
 * claimed in the database first — 429 HOLD_LIMIT when the requester keeps its limit of unaccepted holds
 * (docs/availability.md#hold-limits), 409 VEHICLE_UNAVAILABLE when another live booking or a blackout holds it: nothing
 * is booked — then the booking is written; when that fails, or makes no booking under the claimed transactionId, the
 * hold is given back.
 */
export async function bookHolding<R extends { transactionId: string }>(holds: HoldIndex, claim: VehicleClaim, now: number, book: () => Promise<R>): Promise<R> {
  const outcome = await holds.store.claim(claim, now);
  if (outcome.kind === "limit") throw holdLimit(outcome, claim.provider, now);
  holds.forget(claim.provider);
  if (outcome.kind === "taken")
    throw new ConflictError(`The vehicle ${claim.slug} is no longer available at that time; request a new quote`, "VEHICLE_UNAVAILABLE", {
      vehicle: claim.slug,
      from: isoAt(claim.from),
      to: isoAt(claim.to),
    });
  let result: R;
  try {
    result = await book();
  } catch (error) {
    await holds.store.release(claim.transactionId);
    throw error;
  }
  if (result.transactionId !== claim.transactionId) await holds.store.release(claim.transactionId);
  return result;
}

/** 429 HOLD_LIMIT: retry once the first of the requester's unaccepted holds lapses (or a minute, when none says when). */
function holdLimit(o: Extract<ClaimOutcome, { kind: "limit" }>, provider: string, now: number): TooManyRequestsError {
  const retryAfter = o.soonest !== null && o.soonest > now ? o.soonest - now : 60;
  const whom = o.scope === "provider" ? `with ${provider}` : "with all providers together";
  return new TooManyRequestsError(
    retryAfter,
    `You keep ${o.limit} unaccepted bookings holding vehicles ${whom}, your plan's limit: nothing was booked. Wait until a ` +
      "provider accepts or lets one lapse, or cancel one (docs/availability.md#hold-limits)",
    "HOLD_LIMIT",
    { limit: o.limit, scope: o.scope, ...(o.scope === "provider" ? { provider } : {}) },
  );
}
