import { distance } from "geokdbush";
import type { ServingRate, ServingSet } from "../../../domain/fleet/serving-set";
import type { QuotableVehicle } from "../../../domain/fleet/entry";
import { chord2To, type PreparedQuery } from "./query";
import { walked, walkTree } from "./walk";
import type { FleetSnapshot } from "./snapshot";

/** What a snapshot derives once, on first use, for serving sets (a snapshot never changes). */
interface SnapshotTables {
  /** Per airport code: the global ids of the located entries listing it, ascending. */
  byAirport: Map<string, Uint32Array>;
  /** Per interned rate: it as a serving rate (made on first use). */
  rates: Map<number, ServingRate>;
  /** Per interned text: its vehicle type, an index into the snapshot's typeNames. */
  textType: Int32Array;
  /** Scratch per interned rate and per type: its index in the set being built, −1 when not in it yet. */
  rateSlot: Int32Array;
  typeSlot: Int32Array;
  /** Scratch per entry: 1 while it is taken from the circle by the running collectServing. */
  taken: Uint8Array;
  /**
   * Per entry: its slug's place among its company's slugs, for the companies `ranked` marks 1 (each ranked on its
   * first comparison; 2: too few entries to be worth it): two codes of one company compare as two numbers.
   */
  slugRank: Int32Array;
  ranked: Uint8Array;
  /** Per company: the global ids of its located entries, ascending (made with the first ranking). */
  byOwner?: Uint32Array[];
}

const tablesOf = new WeakMap<FleetSnapshot, SnapshotTables>();

function tables(snapshot: FleetSnapshot): SnapshotTables {
  let t = tablesOf.get(snapshot);
  if (!t) {
    const p = snapshot.parts;
    const typeIds = new Map(p.typeNames.map((name, k) => [name, k]));
    t = {
      byAirport: listsByAirport(p.airportsId, p.airportLists),
      rates: new Map(),
      textType: Int32Array.from(p.textTypes, (name) => typeIds.get(name) ?? -1),
      rateSlot: new Int32Array(p.rates.length / 3).fill(-1),
      typeSlot: new Int32Array(p.typeNames.length).fill(-1),
      taken: new Uint8Array(p.size),
      slugRank: new Int32Array(p.size),
      ranked: new Uint8Array(p.netids.length),
    };
    tablesOf.set(snapshot, t);
  }
  return t;
}

/**
 * The order of two entries' slugs in a snapshot (negative, 0, positive). Those of one company compare by rank: a
 * quote's options tied on price are kept by code, and a quote compares thousands of one company's codes, which share
 * their first characters (the company's prefix) — byte by byte that was a tenth of a large fleet's carded quote. The
 * company's slugs are sorted once, on its first comparison (about 50 ms for 50,000 vehicles, once per snapshot).
 */
function compareInSnapshot(snapshot: FleetSnapshot, t: SnapshotTables, a: number, b: number): number {
  const { netidId } = snapshot.parts;
  const owner = netidId[a];
  if (owner !== netidId[b]) return snapshot.compareSlugs(a, b);
  if (t.ranked[owner] === 0) rankSlugs(snapshot, t, owner);
  // A company too small to be ranked (ranked[owner] 2) compares its few ties as text: no sort on its first quote.
  return t.ranked[owner] === 1 ? t.slugRank[a] - t.slugRank[b] : snapshot.compareSlugs(a, b);
}

/** The located entries a company needs in a snapshot before its slugs are ranked. */
export const RANK_SLUGS_FROM = 512;

/** Ranks the slugs of one company's located entries (slugs are unique, so no two ranks are equal). */
function rankSlugs(snapshot: FleetSnapshot, t: SnapshotTables, owner: number): void {
  t.byOwner ??= listsByOwner(snapshot.parts.netidId, snapshot.parts.size, snapshot.parts.netids.length);
  if (t.byOwner[owner].length < RANK_SLUGS_FROM) {
    t.ranked[owner] = 2;
    return;
  }
  const ids = Array.from(t.byOwner[owner]);
  ids.sort((a, b) => snapshot.compareSlugs(a, b));
  for (let r = 0; r < ids.length; r++) t.slugRank[ids[r]] = r;
  t.ranked[owner] = 1;
}

/** The located entries of each company (by its index in netids): two passes (count, then fill) over the column. */
function listsByOwner(netidId: Uint32Array, size: number, owners: number): Uint32Array[] {
  const count = new Uint32Array(owners);
  for (let id = 0; id < size; id++) count[netidId[id]]++;
  const lists = Array.from(count, (n) => new Uint32Array(n));
  const filled = new Uint32Array(owners);
  for (let id = 0; id < size; id++) lists[netidId[id]][filled[netidId[id]]++] = id;
  return lists;
}

/** The located entries listing each airport, by code: two passes (count, then fill) over the airports column. */
function listsByAirport(airportsId: Uint32Array, airportLists: string[]): Map<string, Uint32Array> {
  const codes: string[] = [];
  const codeIds = new Map<string, number>();
  const codesOfList = airportLists.map((list) =>
    list === ""
      ? []
      : list.split(",").map((code) => {
          let c = codeIds.get(code);
          if (c === undefined) {
            codeIds.set(code, (c = codes.length));
            codes.push(code);
          }
          return c;
        }),
  );
  const count = new Uint32Array(codes.length);
  for (let id = 0; id < airportsId.length; id++) for (const c of codesOfList[airportsId[id]]) count[c]++;
  const lists = Array.from(count, (n) => new Uint32Array(n));
  const filled = new Uint32Array(codes.length);
  for (let id = 0; id < airportsId.length; id++) for (const c of codesOfList[airportsId[id]]) lists[c][filled[c]++] = id;
  return new Map(codes.map((code, c) => [code, lists[c]]));
}

/**
 * Adds to `out` the global ids of one company's located entries that serve the pickup in one snapshot: within the
 * query's circle (one centre) by a walk of the all-types tree (walkTree: the points of covered nodes taken with only
 * their owner checked), then those listing `airport` outside the circle. `excluded`: ids to leave out.
 */
export function collectServing(
  snapshot: FleetSnapshot,
  q: PreparedQuery,
  netid: string,
  airport: string | undefined,
  excluded: ReadonlySet<number> | undefined,
  out: number[],
): void {
  const p = snapshot.parts;
  const owner = p.netids.indexOf(netid);
  if (owner < 0) return;
  const { netidId } = p;
  const { ids, xyz, coords } = snapshot.all;
  const clat = q.lat[0],
    clon = q.lon[0],
    radiusKm = q.radiusKm;
  const start = out.length;
  const inner = q.chord2 - q.margin;
  const outer = q.chord2 + q.margin;
  const cx = q.x[0],
    cy = q.y[0],
    cz = q.z[0];
  const end = walkTree(snapshot.all, q, true);
  const r = walked.ranges;
  for (let k = 0; k < end; k += 3) {
    const to = r[k + 1];
    if (r[k + 2] === 1) {
      for (let i = r[k]; i <= to; i++) if (netidId[ids[i]] === owner && (excluded === undefined || !excluded.has(ids[i]))) out.push(ids[i]);
      continue;
    }
    for (let i = r[k]; i <= to; i++) {
      const id = ids[i];
      if (netidId[id] !== owner || (excluded !== undefined && excluded.has(id))) continue;
      const d2 = chord2To(xyz, i, cx, cy, cz);
      if (d2 <= inner || (d2 <= outer && distance(clon, clat, coords[2 * i], coords[2 * i + 1]) <= radiusKm)) out.push(id);
    }
  }
  if (airport === undefined) return;
  const t = tables(snapshot);
  const listing = t.byAirport.get(airport);
  if (!listing) return;
  // Those taken from the circle marked, so the listing ones add only the others (then the marks are cleared).
  const { taken } = t;
  for (let k = start; k < out.length; k++) taken[out[k]] = 1;
  const circle = out.length;
  for (let k = 0; k < listing.length; k++) {
    const id = listing[k];
    if (netidId[id] === owner && taken[id] === 0 && (excluded === undefined || !excluded.has(id))) out.push(id);
  }
  for (let k = start; k < circle; k++) taken[out[k]] = 0;
}

/**
 * A serving set over entries of one or two snapshots (the view's base and its overlay of recent changes): the
 * columns read from each snapshot's interned ones, rates and types renumbered for the set; a vehicle is
 * materialised only when asked for.
 */
export function servingSetOfSnapshots(parts: Array<{ snapshot: FleetSnapshot; ids: number[] }>): ServingSet {
  let n = 0;
  for (const part of parts) n += part.ids.length;
  const columns: SetColumns = {
    source: new Uint8Array(n),
    id: new Int32Array(n),
    rate: new Int32Array(n),
    seats: new Int32Array(n),
    luggage: new Int32Array(n),
    type: new Int32Array(n),
    rates: [],
    types: [],
    typeIds: new Map(),
  };
  let at = 0;
  for (let s = 0; s < parts.length; s++) at = fillColumns(columns, s, parts[s].snapshot, parts[s].ids, at);
  const snapshots = parts.map((part) => part.snapshot);
  const snapshotTables = snapshots.map(tables);
  const { source, id } = columns;
  const code = (i: number) => snapshots[source[i]].slug(id[i]);
  return {
    size: n,
    rates: columns.rates,
    rate: columns.rate,
    seats: columns.seats,
    luggage: columns.luggage,
    types: columns.types,
    type: columns.type,
    code,
    compareCodes(i, j) {
      const s = source[i];
      if (s === source[j]) return compareInSnapshot(snapshots[s], snapshotTables[s], id[i], id[j]);
      const a = code(i);
      const b = code(j);
      return a < b ? -1 : a > b ? 1 : 0;
    },
    vehicle(i): QuotableVehicle {
      const { lat: _lat, lon: _lon, netid: _netid, ...entry } = snapshots[source[i]].entry(id[i]);
      return { ...entry, active: true };
    },
  };
}

interface SetColumns {
  source: Uint8Array;
  id: Int32Array;
  rate: Int32Array;
  seats: Int32Array;
  luggage: Int32Array;
  type: Int32Array;
  rates: ServingRate[];
  types: string[];
  typeIds: Map<string, number>;
}

/** Fills the set's columns from `ids` of one snapshot (source number `s`) from row `at` on; returns the next row. */
function fillColumns(c: SetColumns, s: number, snapshot: FleetSnapshot, ids: number[], at: number): number {
  const p = snapshot.parts;
  const t = tables(snapshot);
  const { rateSlot, typeSlot, textType } = t;
  const { rateId, textId, maxPassengers, maxLuggage } = p;
  const { source, id, rate, seats, luggage, type, rates } = c;
  const usedRates: number[] = [];
  const usedTypes: number[] = [];
  for (let k = 0; k < ids.length; k++, at++) {
    const g = ids[k];
    source[at] = s;
    id[at] = g;
    const r = rateId[g];
    let localRate = rateSlot[r];
    if (localRate < 0) {
      rateSlot[r] = localRate = rates.length;
      usedRates.push(r);
      rates.push(servingRate(t, p.rates, r));
    }
    rate[at] = localRate;
    const y = textType[textId[g]];
    let localType = typeSlot[y];
    if (localType < 0) {
      typeSlot[y] = localType = setType(c, p.typeNames[y]);
      usedTypes.push(y);
    }
    type[at] = localType;
    seats[at] = maxPassengers[g];
    luggage[at] = maxLuggage[g];
  }
  // The scratch slots back to −1 for the next set.
  for (const r of usedRates) rateSlot[r] = -1;
  for (const y of usedTypes) typeSlot[y] = -1;
  return at;
}

/** Interned rate r of a snapshot as a serving rate: one object per rate and snapshot, kept (quotes cache its parsed amounts). */
function servingRate(t: SnapshotTables, table: string[], r: number): ServingRate {
  let rate = t.rates.get(r);
  if (!rate) t.rates.set(r, (rate = { minimumRate: table[3 * r], hourlyRate: table[3 * r + 1], currency: table[3 * r + 2] }));
  return rate;
}

function setType(c: SetColumns, name: string): number {
  let slot = c.typeIds.get(name);
  if (slot === undefined) {
    c.typeIds.set(name, (slot = c.types.length));
    c.types.push(name);
  }
  return slot;
}
