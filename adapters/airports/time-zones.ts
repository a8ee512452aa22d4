import tzLookup from "@photostructure/tz-lookup";
import { Temporal } from "temporal-polyfill";
import type { TimeZones } from "../../domain/trips/places";

/**
 * IANA zones from maintained packages: tz-lookup for coordinates, Temporal (the runtime's own when it has one, else
 * `temporal-polyfill`) for wall-clock times — no offset arithmetic of our own.
 */
/** Readings kept before the memo starts over (a few hundred kB at most). */
const READINGS_KEPT = 4096;

export class PackagedTimeZones implements TimeZones {
  /**
   * readWallClock's answers, by zone and wall-clock time (null: an unknown zone). A zone's rules never change while
   * the process runs, and the same time is read again and again: a quote and the booking made from it, a network
   * quote and the sendTrip that books its option, a platform's retries. A reading costs about 18 µs in the service.
   */
  private readonly readings = new Map<string, Readonly<{ at: number; wallClock: string }> | null>();

  /** `temporal`: the Temporal to read with (tests pass the polyfill's own, to check it where the runtime has one). */
  constructor(private readonly temporal: typeof Temporal = Temporal) {}

  zoneAt(lat: number, lon: number): string | undefined {
    try {
      return tzLookup(lat, lon);
    } catch {
      return undefined;
    }
  }

  localToUnix(local: string, zone: string): number | undefined {
    return this.readWallClock(local, zone)?.at;
  }

  readWallClock(local: string, zone: string): { at: number; wallClock: string } | undefined {
    const key = `${zone} ${local}`;
    const kept = this.readings.get(key);
    if (kept !== undefined) return kept ?? undefined;
    let reading: Readonly<{ at: number; wallClock: string }> | null = null;
    try {
      // "compatible": a repeated time is the earlier instant, a skipped one moves forward by the gap.
      const at = this.temporal.PlainDateTime.from(local).toZonedDateTime(zone, { disambiguation: "compatible" });
      reading = Object.freeze({ at: Math.floor(at.epochMilliseconds / 1000), wallClock: at.toPlainDateTime().toString() });
    } catch {}
    if (this.readings.size >= READINGS_KEPT) this.readings.clear();
    this.readings.set(key, reading);
    return reading ?? undefined;
  }

  wallClockAt(at: number, zone: string): string | undefined {
    try {
      // Whole seconds: the default form is `YYYY-MM-DDTHH:mm:ss`, without a fraction.
      return this.temporal.Instant.fromEpochMilliseconds(at * 1000).toZonedDateTimeISO(zone).toPlainDateTime().toString();
    } catch {
      return undefined;
    }
  }
}
