import { distance } from "geokdbush";
import type { GeoSearch } from "../../../domain/fleet/ports";
import { EARTH_RADIUS_KM } from "../../../domain/geo";
import { matchesAllWords } from "../../../domain/fleet/text";
import type { KdTree } from "./kd-tree";

export const RAD = Math.PI / 180;
/**
 * Slack on unit-sphere chords: float32 coordinates put a point at most ~1.04e-7 from its true position,
 * so a chord lower bound minus this is a lower bound of the true chord (≈ 6 m on the Earth).
 */
export const CHORD_SLACK = 1e-6;

/** A query prepared once for every tree it visits: centres on the unit sphere, and radius thresholds. */
export interface PreparedQuery {
  n: number;
  lat: Float64Array;
  lon: Float64Array;
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  radiusKm: number;
  /** Squared chord of the radius on the unit sphere, and the band around it where the float32 test defers to haversine. */
  chord2: number;
  margin: number;
  /** Chord of the radius plus slack: nodes and points beyond it are never pushed. */
  chordLimit: number;
  types: string[] | undefined;
  words: string[];
  /** Only this company's entries, when set. */
  netid: string | undefined;
}

/** Prepares the centres and thresholds of a search (shared by the base and the overlay snapshot). */
export function prepare(query: GeoSearch): PreparedQuery {
  const n = query.centres.length;
  const halfChord = Math.sin(Math.min(Math.PI, query.radiusKm / EARTH_RADIUS_KM) / 2);
  const chord2 = 4 * halfChord * halfChord;
  const q: PreparedQuery = {
    n,
    lat: new Float64Array(n),
    lon: new Float64Array(n),
    x: new Float64Array(n),
    y: new Float64Array(n),
    z: new Float64Array(n),
    radiusKm: query.radiusKm,
    chord2,
    // float32 coordinates are off by ≤ 6e-8 each; the squared chord by ≤ ~2.1e-7 × chord. Keep 5× that as margin.
    margin: 1e-6 * Math.sqrt(chord2) + 1e-15,
    chordLimit: 2 * halfChord + CHORD_SLACK,
    types: query.types,
    words: query.words,
    netid: query.netid,
  };
  query.centres.forEach((c, i) => {
    const cosLat = Math.cos(c.lat * RAD);
    q.lat[i] = c.lat;
    q.lon[i] = c.lon;
    q.x[i] = cosLat * Math.cos(c.lon * RAD);
    q.y[i] = cosLat * Math.sin(c.lon * RAD);
    q.z[i] = Math.sin(c.lat * RAD);
  });
  return q;
}

/** Exact great-circle distance (geokdbush's haversine) from the nearest centre, in km. */
export function pointDistanceKm(q: PreparedQuery, lat: number, lon: number): number {
  let best = Infinity;
  for (let c = 0; c < q.n; c++) {
    const d = distance(q.lon[c], q.lat[c], lon, lat);
    if (d < best) best = d;
  }
  return best;
}

/**
 * In-radius test for point i of a tree: the float32 unit-sphere chord decides clear cases; within the
 * float error band it defers to the exact haversine, so it always agrees with the brute-force answer.
 */
export function inside(tree: KdTree, i: number, q: PreparedQuery): boolean {
  const x = tree.xyz[3 * i];
  const y = tree.xyz[3 * i + 1];
  const z = tree.xyz[3 * i + 2];
  for (let c = 0; c < q.n; c++) {
    const dx = x - q.x[c];
    const dy = y - q.y[c];
    const dz = z - q.z[c];
    const d2 = dx * dx + dy * dy + dz * dz;
    if (d2 <= q.chord2 - q.margin) return true;
    if (d2 > q.chord2 + q.margin) continue;
    if (distance(q.lon[c], q.lat[c], tree.coords[2 * i], tree.coords[2 * i + 1]) <= q.radiusKm) return true;
  }
  return false;
}

/** A lower bound of the true chord from the nearest centre to point i (never above it). */
export function pointChordLowerBound(xyz: Float32Array, i: number, q: PreparedQuery): number {
  const x = xyz[3 * i];
  const y = xyz[3 * i + 1];
  const z = xyz[3 * i + 2];
  let best = Infinity;
  for (let c = 0; c < q.n; c++) {
    const dx = x - q.x[c];
    const dy = y - q.y[c];
    const dz = z - q.z[c];
    const d2 = dx * dx + dy * dy + dz * dz;
    if (d2 < best) best = d2;
  }
  return Math.max(0, Math.sqrt(best) - CHORD_SLACK);
}

/** A lower bound of the true chord from the nearest centre to any point of the node's box. */
export function boxChordLowerBound(boxes: Float32Array, node: number, q: PreparedQuery): number {
  let best = Infinity;
  for (let c = 0; c < q.n; c++) {
    const d2 = boxGap2(boxes, node, q.x[c], q.y[c], q.z[c]);
    if (d2 < best) best = d2;
  }
  return Math.max(0, Math.sqrt(best) - CHORD_SLACK);
}

/** The squared distance from (cx, cy, cz) to the nearest point of a node's box (0 inside it). */
export function boxGap2(boxes: Float32Array, node: number, cx: number, cy: number, cz: number): number {
  const o = 6 * node;
  const dx = cx < boxes[o] ? boxes[o] - cx : cx > boxes[o + 3] ? cx - boxes[o + 3] : 0;
  const dy = cy < boxes[o + 1] ? boxes[o + 1] - cy : cy > boxes[o + 4] ? cy - boxes[o + 4] : 0;
  const dz = cz < boxes[o + 2] ? boxes[o + 2] - cz : cz > boxes[o + 5] ? cz - boxes[o + 5] : 0;
  return dx * dx + dy * dy + dz * dz;
}

/** The squared distance from (cx, cy, cz) to the farthest corner of a node's box. */
export function boxSpan2(boxes: Float32Array, node: number, cx: number, cy: number, cz: number): number {
  const o = 6 * node;
  const fx = Math.max(cx - boxes[o], boxes[o + 3] - cx);
  const fy = Math.max(cy - boxes[o + 1], boxes[o + 4] - cy);
  const fz = Math.max(cz - boxes[o + 2], boxes[o + 5] - cz);
  return fx * fx + fy * fy + fz * fz;
}

/** The squared unit-sphere chord from (cx, cy, cz) to point i of a tree (float32 coordinates). */
export function chord2To(xyz: Float32Array, i: number, cx: number, cy: number, cz: number): number {
  const dx = xyz[3 * i] - cx;
  const dy = xyz[3 * i + 1] - cy;
  const dz = xyz[3 * i + 2] - cz;
  return dx * dx + dy * dy + dz * dz;
}

/** Whether an interned text holds every `q` word: each word's memo (0 unknown, 1 no, 2 yes) filled on demand. */
export class TextMatch {
  constructor(
    private readonly words: string[],
    private readonly memos: Uint8Array[],
    private readonly searchTexts: string[],
  ) {}

  has(t: number): boolean {
    const memos = this.memos;
    for (let w = 0; w < memos.length; w++) {
      const memo = memos[w];
      let v = memo[t];
      if (v === 0) memo[t] = v = matchesAllWords(this.searchTexts[t], [this.words[w]]) ? 2 : 1;
      if (v !== 2) return false;
    }
    return true;
  }
}

