import { greatCircleKm } from "../geo";
import type { FleetChange, FleetSearchIndex } from "./ports";

/** What an answer was computed from, besides the index: enough to tell whether a fleet change can alter it. */
export interface AnswerScope {
  /** The circles searched: every centre with the same radius. */
  centres: ReadonlyArray<{ lat: number; lon: number }>;
  radiusKm: number;
  /** The airport codes requested (MISSING_GPS warnings count the entries without a position serving them). */
  airports: readonly string[];
}

interface Cached<V> {
  value: V;
  bytes: number;
  scope: AnswerScope;
  /** Degrees of latitude a point may be from a centre and still be in its circle (a cheap first test). */
  latSlack: number;
}

/** Kilometres per degree of latitude, rounded down (so the latitude test never rejects a point in a circle). */
const KM_PER_DEGREE_LAT = 111.19;
/** Distances compared with a little room, so rounding can only drop an answer, never keep a stale one. */
const SLACK_KM = 1e-6;
/** Slots of the table of recently asked keys (a power of two). */
const SEEN_SLOTS = 1 << 16;

/**
 * Recent search answers (their serialised bytes, say) keyed by the normalised query, for the index generation
 * they were computed on. Bounded by bytes (least recently used dropped first). A rebuilt index drops them
 * all; a change of a few entries drops only the answers it can alter: those with a circle holding an old or
 * new position of a changed entry, and those requesting an airport served by a changed entry without a
 * position. An answer is only served for the generation the cache has followed every change up to.
 *
 * An answer is kept from the second time its key is asked for (a fixed table of recent keys' hashes tells):
 * searches asked once, however many, neither evict the answers asked for again nor leave every answer behind
 * for the garbage collector to move and free.
 */
export class SearchAnswerCache<V> {
  private readonly answers = new Map<string, Cached<V>>();
  private bytes = 0;
  private generation: number;
  private readonly stop: () => void;
  private readonly seen = new Uint32Array(SEEN_SLOTS);
  hits = 0;
  misses = 0;

  constructor(
    private readonly index: Pick<FleetSearchIndex, "generation" | "onChange">,
    private readonly maxBytes: number,
  ) {
    this.generation = index.generation;
    this.stop = index.onChange((generation, change) => this.changed(generation, change));
  }

  /** The answer kept for `key`, if it was computed on the current generation. */
  get(key: string): V | undefined {
    if (this.generation !== this.index.generation) this.clear(this.index.generation);
    const found = this.answers.get(key);
    if (!found) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Most recently used last.
    this.answers.delete(key);
    this.answers.set(key, found);
    return found.value;
  }

  /**
   * Keeps an answer computed on the current generation (callers compute and store without yielding in between)
   * if its key was asked for recently; whether it was kept.
   */
  set(key: string, value: V, bytes: number, scope: AnswerScope): boolean {
    if (this.maxBytes <= 0 || bytes > this.maxBytes / 4) return false;
    if (this.generation !== this.index.generation) this.clear(this.index.generation);
    const hash = hashOf(key);
    const slot = hash & (SEEN_SLOTS - 1);
    if (this.seen[slot] !== hash) {
      this.seen[slot] = hash;
      return false;
    }
    this.delete(key);
    this.answers.set(key, { value, bytes, scope, latSlack: (scope.radiusKm + SLACK_KM) / KM_PER_DEGREE_LAT });
    this.bytes += bytes;
    for (const oldest of this.answers.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.delete(oldest);
    }
    return true;
  }

  get size(): number {
    return this.answers.size;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  /** Stops following the index (and forgets every answer). */
  close(): void {
    this.stop();
    this.clear(this.generation);
  }

  private changed(generation: number, change: FleetChange | undefined): void {
    // A listener that missed a generation cannot know what changed in between: everything goes.
    if (!change || generation !== this.generation + 1) {
      this.clear(generation);
      return;
    }
    this.generation = generation;
    if (change.points.length === 0 && change.airports.length === 0) return;
    const airports = new Set(change.airports);
    for (const [key, cached] of this.answers) if (touches(cached, change.points, airports)) this.delete(key);
  }

  private delete(key: string): void {
    const found = this.answers.get(key);
    if (!found) return;
    this.answers.delete(key);
    this.bytes -= found.bytes;
  }

  private clear(generation: number): void {
    this.answers.clear();
    this.bytes = 0;
    this.generation = generation;
  }
}

/** FNV-1a over the key's UTF-16 code units, never 0 (an empty slot). */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0 || 1;
}

function touches(cached: Cached<unknown>, points: FleetChange["points"], airports: ReadonlySet<string>): boolean {
  const { scope, latSlack } = cached;
  if (airports.size > 0) for (const code of scope.airports) if (airports.has(code)) return true;
  for (const p of points)
    for (const c of scope.centres) {
      if (Math.abs(p.lat - c.lat) > latSlack) continue;
      if (greatCircleKm(c.lat, c.lon, p.lat, p.lon) <= scope.radiusKm + SLACK_KM) return true;
    }
  return false;
}
