import tzLookup from "@photostructure/tz-lookup";
import { Temporal } from "temporal-polyfill";
import type { TimeZones } from "../../domain/trips/places";

/**
 * IANA zones from maintained packages: tz-lookup for coordinates, Temporal (the runtime's own when it has one, else
 * `temporal-polyfill`) for wall-clock times — no offset arithmetic of our own.
 */
export class PackagedTimeZones implements TimeZones {
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
    try {
      // "compatible": a repeated time is the earlier instant, a skipped one moves forward by the gap.
      const at = this.temporal.PlainDateTime.from(local).toZonedDateTime(zone, { disambiguation: "compatible" });
      return Math.floor(at.epochMilliseconds / 1000);
    } catch {
      return undefined;
    }
  }

  readWallClock(local: string, zone: string): { at: number; wallClock: string } | undefined {
    try {
      const at = this.temporal.PlainDateTime.from(local).toZonedDateTime(zone, { disambiguation: "compatible" });
      return { at: Math.floor(at.epochMilliseconds / 1000), wallClock: at.toPlainDateTime().toString() };
    } catch {
      return undefined;
    }
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
