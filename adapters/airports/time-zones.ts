import tzLookup from "@photostructure/tz-lookup";
import { convertLocalToUTCByZone } from "airport-utils";
import type { TimeZones } from "../../domain/trips/places";

/** Local days remembered (zone, date → offset); cleared when full. */
const MAX_DAYS = 20_000;
const SECONDS_PER_DAY = 86_400;

/** IANA zones from maintained packages: tz-lookup for coordinates, airport-utils (@date-fns/tz) for wall-clock times. */
export class PackagedTimeZones implements TimeZones {
  /**
   * `zone\nYYYY-MM-DD` → the zone's UTC offset in seconds throughout that local day, or null when the day has a
   * daylight-saving change (or cannot be converted), in which case every time of it goes through the package.
   * The package formats dates with Intl on every call, which is slow; sendTrip asks once per trip.
   */
  private readonly dayOffsets = new Map<string, number | null>();

  zoneAt(lat: number, lon: number): string | undefined {
    try {
      return tzLookup(lat, lon);
    } catch {
      return undefined;
    }
  }

  localToUnix(local: string, zone: string): number | undefined {
    const naive = Date.parse(`${local}Z`) / 1000;
    if (Number.isFinite(naive)) {
      const offset = this.dayOffset(local.slice(0, 10), zone);
      if (offset !== null) return naive - offset;
    }
    return localToUnixByPackage(local, zone);
  }

  /**
   * The offset of a local day without a change: when local midnight and the next local midnight are exactly
   * 24 h apart, the offset at both is the same, and (zones change at most once a day) it holds all day long —
   * so each wall-clock time of that day exists exactly once, at `naive - offset`, as the package would answer.
   */
  private dayOffset(date: string, zone: string): number | null {
    const key = `${zone}\n${date}`;
    const known = this.dayOffsets.get(key);
    if (known !== undefined) return known;
    let offset: number | null = null;
    const midnight = Date.parse(`${date}T00:00:00Z`) / 1000;
    if (Number.isFinite(midnight)) {
      const next = new Date((midnight + SECONDS_PER_DAY) * 1000).toISOString().slice(0, 19);
      const start = convert(`${date}T00:00:00`, zone);
      const end = convert(next, zone);
      if (start !== undefined && end !== undefined && end - start === SECONDS_PER_DAY) offset = midnight - start;
    }
    if (this.dayOffsets.size >= MAX_DAYS) this.dayOffsets.clear();
    this.dayOffsets.set(key, offset);
    return offset;
  }
}

/** Unix seconds of a wall-clock time in a zone, straight from the package (the reference for the day cache). */
export function localToUnixByPackage(local: string, zone: string): number | undefined {
  const utc = convert(local, zone);
  if (utc !== undefined) return utc;
  // airport-utils refuses a wall-clock time skipped by a daylight-saving change (02:30 on a spring-forward
  // night); like Temporal's "compatible" reading, take the wall-clock time one hour later (03:30).
  return convert(new Date(Date.parse(`${local}Z`) + 3600_000).toISOString().slice(0, 19), zone);
}

function convert(local: string, zone: string): number | undefined {
  try {
    return Date.parse(convertLocalToUTCByZone(local, zone)) / 1000;
  } catch {
    return undefined;
  }
}
