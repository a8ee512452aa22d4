import type { AirportDirectory } from "../airports";
import { ValidationError } from "../errors";
import { isoAt, type TripLocation } from "./booking";
import { parseDateTime, pickupZone, type Position, type TimeZones } from "./places";
import type { TripWarning } from "./warnings";

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

/** A pickup time as read: its instant, and when the wall-clock time sent does not exist in its zone, the one used. */
export interface PickupTime {
  /** Unix seconds. */
  at: number;
  /** The wall-clock time sent fell in a spring-forward gap: `sent` and `used` (`YYYY-MM-DDTHH:mm:ss`) in `zone`. */
  adjusted?: { sent: string; used: string; zone: string };
  /**
   * The pickup's wall clock at `at` (`YYYY-MM-DDTHH:mm:ss`) in the pickup place's `zone`, when the time was read there
   * (sent without an offset): what a rate card's hours read, known without converting `at` back.
   */
  clock?: { zone: string; local: string };
}

/**
 * The pickup's time: its own offset when it carries one, else its wall-clock time read in the pickup place's zone —
 * a time the autumn change repeats is the earlier instant, one the spring change skips moves forward by the gap.
 * Undefined when the time is not a date-time.
 */
export function readPickupTime(pickup: TripLocation, airports: AirportDirectory, zones: TimeZones, placed?: Position): PickupTime | undefined {
  const parts = parseDateTime(pickup.time ?? "");
  if (!parts) return undefined;
  if (parts.offsetMinutes !== null) return { at: parts.naiveUnix - parts.offsetMinutes * 60 };
  const zone = pickupZone(pickup, airports, zones, placed);
  if (zone === "UTC") return { at: parts.naiveUnix, clock: { zone, local: parts.local } };
  const read = zones.readWallClock(parts.local, zone);
  if (read === undefined) return { at: parts.naiveUnix };
  // Only a skipped time reads back as another wall-clock time; a repeated one reads back as sent.
  const { at, wallClock } = read;
  const clock = { zone, local: wallClock };
  return wallClock !== parts.local ? { at, adjusted: { sent: parts.local, used: wallClock, zone }, clock } : { at, clock };
}

/** PICKUP_TIME_ADJUSTED when the pickup's wall-clock time does not exist in its zone, saying what was sent and what is used. */
export function pickupTimeWarnings(time: PickupTime | undefined): TripWarning[] {
  if (!time?.adjusted) return [];
  const moved = time.adjusted;
  const gapMinutes = (Date.parse(`${moved.used}Z`) - Date.parse(`${moved.sent}Z`)) / 60_000;
  return [
    {
      code: "PICKUP_TIME_ADJUSTED",
      field: "locations.pickup.time",
      message:
        `The pickup time ${moved.sent} does not exist in ${moved.zone}: the clocks go forward over it. It is read as ` +
        `${moved.used} local time (${isoAt(time.at)}), ${gapMinutes} minutes later; send another time to change it`,
    },
  ];
}

/** A booking's warnings with its pickup time's replaced by `time`'s (an UPDATE sending a pickup time); {} when none. */
export function timeWarned(stored: TripWarning[] | undefined, time: TripWarning[]): { warnings?: TripWarning[] } {
  const warnings = [...(stored ?? []).filter((w) => w.code !== "PICKUP_TIME_ADJUSTED"), ...time];
  return warnings.length > 0 || stored !== undefined ? { warnings } : {};
}

/**
 * Reads a flight's landing time as the pickup's own time is read (a wall-clock time at the pickup's place, or an
 * instant with an offset): Unix seconds, undefined when it is no date-time.
 */
export function landingReader(
  pickup: TripLocation,
  deps: { airports: AirportDirectory; timeZones: TimeZones },
  placed: { placed: true; position: Position } | { placed: false },
): (time: string) => number | undefined {
  const at = placed.placed ? placed.position : undefined;
  return (time) => readPickupTime({ ...pickup, time }, deps.airports, deps.timeZones, at)?.at;
}
