import tzLookup from "@photostructure/tz-lookup";
import { convertLocalToUTCByZone } from "airport-utils";
import type { TimeZones } from "../../domain/trips/places";

/** IANA zones from maintained packages: tz-lookup for coordinates, airport-utils (@date-fns/tz) for wall-clock times. */
export class PackagedTimeZones implements TimeZones {
  zoneAt(lat: number, lon: number): string | undefined {
    try {
      return tzLookup(lat, lon);
    } catch {
      return undefined;
    }
  }

  localToUnix(local: string, zone: string): number | undefined {
    const utc = convert(local, zone);
    if (utc !== undefined) return utc;
    // airport-utils refuses a wall-clock time skipped by a daylight-saving change (02:30 on a spring-forward
    // night); like Temporal's "compatible" reading, take the wall-clock time one hour later (03:30).
    return convert(new Date(Date.parse(`${local}Z`) + 3600_000).toISOString().slice(0, 19), zone);
  }
}

function convert(local: string, zone: string): number | undefined {
  try {
    return Date.parse(convertLocalToUTCByZone(local, zone)) / 1000;
  } catch {
    return undefined;
  }
}
