import type { ServingSet } from "../fleet/serving-set";
import type { TripWarning } from "../trips/warnings";

/**
 * A serving set without the vehicles `held` names (docs/availability.md), and how many of those seat the party (and hold
 * its luggage when given): what VEHICLES_BUSY counts. The set itself when none is held.
 */
export function withoutHeld(
  set: ServingSet,
  held: ReadonlySet<string>,
  party: { passengerCount: number; luggageCount: number | undefined },
): { set: ServingSet; busy: number } {
  if (held.size === 0) return { set, busy: 0 };
  const keep: number[] = [];
  let busy = 0;
  for (let i = 0; i < set.size; i++) {
    if (!held.has(set.code(i))) keep.push(i);
    else if (set.seats[i] >= party.passengerCount && (party.luggageCount === undefined || set.luggage[i] >= party.luggageCount)) busy++;
  }
  if (keep.length === set.size) return { set, busy: 0 };
  const pick = (column: ArrayLike<number>) => Int32Array.from(keep, (i) => column[i]);
  return {
    busy,
    set: {
      size: keep.length,
      rates: set.rates,
      rate: pick(set.rate),
      seats: pick(set.seats),
      luggage: pick(set.luggage),
      types: set.types,
      type: pick(set.type),
      code: (i) => set.code(keep[i]),
      compareCodes: (i, j) => set.compareCodes(keep[i], keep[j]),
      vehicle: (i) => set.vehicle(keep[i]),
    },
  };
}

/** SHORT_NOTICE (providers left out: the pickup is sooner than their minimumNoticeMinutes) and VEHICLES_BUSY (held vehicles left out), when any. */
export function availabilityWarnings(shortNotice: number, busy: number): TripWarning[] {
  const warnings: TripWarning[] = [];
  if (shortNotice > 0)
    warnings.push({ code: "SHORT_NOTICE", message: `${shortNotice} provider(s) left out: the pickup is sooner than their minimum notice`, count: shortNotice });
  if (busy > 0) warnings.push({ code: "VEHICLES_BUSY", message: `${busy} vehicle(s) left out: booked or blocked at that time`, count: busy });
  return warnings;
}
