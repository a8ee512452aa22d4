import { ValidationError } from "../errors";
import { isoAt } from "./booking";

/** A pickup up to this long ago is still taken (a trip booked at the kerb, a clock a little off). */
export const PICKUP_PAST_GRACE_SECONDS = 15 * 60;
/** How far ahead a pickup may lie: two years (731 days, so a leap year never cuts it short). */
export const PICKUP_MAX_AHEAD_SECONDS = 731 * 24 * 3600;

/**
 * Why a pickup instant (Unix seconds, read in the pickup place's own zone) cannot be booked at `now`:
 * 400 PICKUP_IN_PAST more than 15 minutes ago, 400 PICKUP_TOO_FAR_AHEAD more than two years ahead; undefined when fine.
 */
export function pickupTimeRefusal(pickupDate: number, now: number): ValidationError | undefined {
  const field = "locations.pickup.time";
  if (pickupDate < now - PICKUP_PAST_GRACE_SECONDS)
    return new ValidationError(
      [{ field, message: `lies in the past (${isoAt(pickupDate)} UTC, in the pickup place's time zone); send a pickup at most 15 minutes ago` }],
      undefined,
      "PICKUP_IN_PAST",
    );
  if (pickupDate > now + PICKUP_MAX_AHEAD_SECONDS)
    return new ValidationError([{ field, message: `lies more than 2 years ahead (${isoAt(pickupDate)} UTC)` }], undefined, "PICKUP_TOO_FAR_AHEAD");
  return undefined;
}
