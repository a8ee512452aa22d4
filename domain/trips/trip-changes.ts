import type { ExtraFields, Trip } from "./booking";
import type { TripChanges } from "./send-trip-request";
import { canonicalJson } from "../shared/canonical-json";

// What an UPDATE does to a stored trip: its changes applied, and the changeLogs lines that name them.

/**
 * An UPDATE's changes applied to a trip: fields sent replace the stored ones; an empty luggageCount clears it;
 * extra (unnamed) fields are merged member by member.
 */
export function applyChanges(trip: Trip, changes: TripChanges): Trip {
  const next: Trip = { ...trip };
  for (const [key, value] of Object.entries(changes) as Array<[keyof TripChanges, unknown]>) {
    if (key === "extra") next.extra = { ...trip.extra, ...(value as ExtraFields) };
    else if (value === undefined) delete (next as unknown as Record<string, unknown>)[key];
    else (next as unknown as Record<string, unknown>)[key] = value;
  }
  return next;
}

// The scalar trip members (of TRIP_MEMBERS), in the order changeLogs names their changes: the trip's head, then the rest.
const HEAD_SCALARS = ["reservationType", "runType", "reservationDate", "passengerCount", "luggageCount", "preferredVehicleType"] as const;
const SCALARS = [...HEAD_SCALARS, "totalTripDuration", "eventName", "sourceVendor", "origination"] as const;
// Free text and personal data: a change is named, never quoted.
const NAMED_TEXT = ["specialInstructions", "namesignInstructions"] as const;
const NAMED_PARTS = ["passengers", "account", "notes"] as const;
const LOCATION_FIELDS = ["locationType", "landmark", "lat", "lon", "address", "city", "state", "zipCode", "country", "time"] as const;

const shown = (v: string | number | undefined) => (v === undefined || v === "" ? "(not specified)" : String(v));
// The same reference is the same value: an UPDATE keeps most members as they were (no need to serialise them).
const same = (a: unknown, b: unknown) => a === b || canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** Members named one per changeLogs line; more are counted in one line (a body may change thousands). */
const MAX_NAMED_MEMBERS = 20;
/** A member's name as a changeLogs line quotes it. */
const MAX_NAME_CHARS = 100;

/** The changeLogs lines for changed members: the first ones named, the rest counted. */
export function describeMembers(prefix: string, keys: string[]): string[] {
  const named = keys.slice(0, MAX_NAMED_MEMBERS).map((k) => `${prefix}${k.length > MAX_NAME_CHARS ? `${k.slice(0, MAX_NAME_CHARS)}…` : k} changed`);
  const more = keys.length - named.length;
  return more > 0 ? [...named, `${more} more ${prefix ? `${prefix.slice(0, -1)} ` : ""}member${more === 1 ? "" : "s"} changed`] : named;
}

/** The members whose values differ between two records of extra fields. */
export function changedKeys(before: ExtraFields | undefined, after: ExtraFields | undefined): string[] {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  return [...keys].filter((k) => !same(before?.[k], after?.[k])).sort();
}

/**
 * What differs between two versions of a trip, one line per change ("luggageCount 2 → 3",
 * "locations.pickup.time A → B", "passengers changed"). Personal data and free text are named, never quoted.
 */
export function describeTripChanges(before: Trip, after: Trip): string[] {
  const out: string[] = [];
  for (const key of SCALARS) {
    if ((before[key] ?? "") !== (after[key] ?? "")) out.push(`${key} ${shown(before[key])} → ${shown(after[key])}`);
  }
  for (const key of NAMED_TEXT) if ((before[key] ?? "") !== (after[key] ?? "")) out.push(`${key} changed`);
  for (const end of ["pickup", "dropOff"] as const) {
    const a = before.locations?.[end] ?? {};
    const z = after.locations?.[end] ?? {};
    for (const f of LOCATION_FIELDS) {
      if ((a[f] ?? "") !== (z[f] ?? "")) out.push(`locations.${end}.${f} ${shown(a[f])} → ${shown(z[f])}`);
    }
    const rest = new Set([...Object.keys(a), ...Object.keys(z)].filter((k) => !(LOCATION_FIELDS as readonly string[]).includes(k)));
    out.push(
      ...describeMembers(
        `locations.${end}.`,
        [...rest].sort().filter((k) => !same(a[k], z[k])),
      ),
    );
  }
  const stopsBefore = before.locations?.stops ?? [];
  const stopsAfter = after.locations?.stops ?? [];
  if (!same(stopsBefore, stopsAfter))
    out.push(stopsBefore.length === stopsAfter.length ? "locations.stops changed" : `locations.stops changed (${stopsBefore.length} → ${stopsAfter.length})`);
  for (const key of NAMED_PARTS) {
    if (same(before[key], after[key])) continue;
    const a = before[key];
    const z = after[key];
    out.push(Array.isArray(a) && Array.isArray(z) && a.length !== z.length ? `${key} changed (${a.length} → ${z.length})` : `${key} changed`);
  }
  if (!same(before.fees, after.fees)) out.push(`fees changed (${before.fees.length} → ${after.fees.length} line(s))`);
  out.push(...describeMembers("", changedKeys(before.extra, after.extra)));
  return out;
}
