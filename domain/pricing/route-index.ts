import { EARTH_RADIUS_KM } from "../geo";

/**
 * A rate card's routes indexed by where a trip's pickup can fall in them (docs/performance.md#rate-cards-issue-35), built once per stored card
 * version: a trip tests only the routes whose pickup-side zone (`from`, and `to` too for a route both ways) could
 * hold its pickup, not all of them. The candidates are a superset of the routes that hold it (boxes around every
 * zone, whole-world zones always), in the card's order, so the first route that applies is the same as before.
 */
export interface RouteIndex {
  /** The indices (ascending) of the routes whose pickup-side zone could hold a pickup at `p` (or at airport `iata`). */
  candidates(p: { lat: number; lon: number }, iata: string | undefined): readonly number[];
  /** The lowest price among `candidates(p, iata)` (Infinity: none), kept per cell and per airport. */
  cheapest(p: { lat: number; lon: number }, iata: string | undefined): number;
}

/** Where a zone can hold a point: a box in degrees (polygons and circles), and the airport it stands for. */
export interface ZoneBox {
  minLat: number;
  maxLat: number;
  minLon: number;
  maxLon: number;
  airport?: string;
}

/** 1° cells; a zone over more cells than this is tested by every trip (a continent is one test, not thousands of cells). */
const MAX_CELLS = 64;
const cellKey = (latCell: number, lonCell: number) => latCell * 361 + lonCell;
const latCellOf = (lat: number) => Math.min(180, Math.max(0, Math.floor(lat) + 90));
const lonCellOf = (lon: number) => Math.min(360, Math.max(0, Math.floor(lon) + 180));

/** The box of a circle zone holding every point that `|Δlat|·111 ≤ r + 1` and the great circle `≤ r` accept. */
export function circleBox(lat: number, lon: number, radiusKm: number): ZoneBox | undefined {
  if (radiusKm < 0) return undefined;
  const dLat = (radiusKm + 1) / 111 + 1e-6;
  const minLat = lat - dLat;
  const maxLat = lat + dLat;
  // Haversine: sin²(d/2R) ≥ cos²(L)·sin²(Δlon/2) with L the largest |lat| in the band, so Δlon ≤ 2·asin(sin(r/2R)/cos L).
  const widest = Math.max(Math.abs(minLat), Math.abs(maxLat));
  const s = Math.sin(Math.min(Math.PI / 2, radiusKm / (2 * EARTH_RADIUS_KM))) / Math.cos((Math.min(90, widest) * Math.PI) / 180);
  if (widest >= 89.9 || s >= 0.999) return { minLat, maxLat, minLon: -Infinity, maxLon: Infinity };
  const dLon = (2 * Math.asin(s) * 180) / Math.PI + 1e-6;
  // Across the antimeridian: any longitude.
  if (lon - dLon < -180 || lon + dLon > 180) return { minLat, maxLat, minLon: -Infinity, maxLon: Infinity };
  return { minLat, maxLat, minLon: lon - dLon, maxLon: lon + dLon };
}

/**
 * Indexes routes by their pickup-side zones: `sides[r]` lists route r's (one, or two for a route both ways), and
 * `prices[r]` is its price.
 */
export function routeIndex(sides: ReadonlyArray<ReadonlyArray<ZoneBox | { airport: string } | undefined>>, prices: readonly number[]): RouteIndex {
  const cells = new Map<number, number[]>();
  const wide: number[] = [];
  const byAirport = new Map<string, number[]>();
  const add = (list: number[], r: number) => {
    if (list[list.length - 1] !== r) list.push(r);
  };
  sides.forEach((zones, r) => {
    for (const z of zones) {
      if (z === undefined) continue;
      if (z.airport !== undefined) {
        let list = byAirport.get(z.airport);
        if (!list) byAirport.set(z.airport, (list = []));
        add(list, r);
      }
      if (!("minLat" in z)) continue;
      if (!Number.isFinite(z.minLon) || !Number.isFinite(z.maxLon)) {
        add(wide, r);
        continue;
      }
      const [lat0, lat1, lon0, lon1] = [latCellOf(z.minLat), latCellOf(z.maxLat), lonCellOf(z.minLon), lonCellOf(z.maxLon)];
      if ((lat1 - lat0 + 1) * (lon1 - lon0 + 1) > MAX_CELLS) {
        add(wide, r);
        continue;
      }
      for (let a = lat0; a <= lat1; a++)
        for (let b = lon0; b <= lon1; b++) {
          const key = cellKey(a, b);
          let list = cells.get(key);
          if (!list) cells.set(key, (list = []));
          add(list, r);
        }
    }
  });
  const withWide = new Map<number, readonly number[]>();
  // A cell's routes with the whole-world ones, merged once per cell.
  const nearCell = (key: number): readonly number[] => {
    let near = withWide.get(key);
    if (near === undefined) {
      near = merged(wide, cells.get(key));
      if (withWide.size < 4096) withWide.set(key, near);
    }
    return near;
  };
  const lowest = (list: readonly number[] | undefined): number => {
    let min = Infinity;
    if (list) for (const r of list) if (prices[r] < min) min = prices[r];
    return min;
  };
  const cheapestInCell = new Map<number, number>();
  const cheapestAtAirport = new Map<string, number>();
  return {
    candidates(p, iata) {
      const near = nearCell(cellKey(latCellOf(p.lat), lonCellOf(p.lon)));
      const airport = iata !== undefined ? byAirport.get(iata) : undefined;
      return airport ? merged(near, airport) : near;
    },
    cheapest(p, iata) {
      const key = cellKey(latCellOf(p.lat), lonCellOf(p.lon));
      let min = cheapestInCell.get(key);
      if (min === undefined) {
        min = lowest(nearCell(key));
        if (cheapestInCell.size < 4096) cheapestInCell.set(key, min);
      }
      if (iata === undefined) return min;
      let atAirport = cheapestAtAirport.get(iata);
      if (atAirport === undefined) {
        atAirport = lowest(byAirport.get(iata));
        if (cheapestAtAirport.size < 4096) cheapestAtAirport.set(iata, atAirport);
      }
      return atAirport < min ? atAirport : min;
    },
  };
}

const NONE: readonly number[] = [];

/** The union of two ascending lists, ascending (one of them as it is when the other is empty). */
function merged(a: readonly number[] | undefined, b: readonly number[] | undefined): readonly number[] {
  if (!b || b.length === 0) return a ?? NONE;
  if (!a || a.length === 0) return b;
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = j >= b.length || (i < a.length && a[i] <= b[j]) ? a[i++] : b[j++];
    if (out.length === 0 || out[out.length - 1] !== x) out.push(x);
  }
  return out;
}
