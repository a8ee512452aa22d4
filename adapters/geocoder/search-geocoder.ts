import type { GeocodedPlace, Geocoder } from "../../domain/trips/ports";
import { AnswerCache } from "./answer-cache";
import { getJson, type OutboundCheck } from "./pinned-get";
import { placesOfAnswer } from "./search-answer";

export interface SearchGeocoderOptions {
  /** GEOCODER_URL: the `/search` endpoint, with any fixed parameters it needs (`?format=jsonv2`, a key). */
  url: string;
  /** The outbound guard every request passes (the URL checked, the address pinned). */
  guard: OutboundCheck;
  /** The longest a search may take, guard included (GEOCODER_TIMEOUT_MS). */
  timeoutMs: number;
  /** Searches kept (the least recently used go first); default 5,000. */
  cacheSize?: number;
  /** How long a found place is kept (ms); default 24 h. Nothing found: `missTtlMs` (default 10 min). */
  hitTtlMs?: number;
  missTtlMs?: number;
  /** After a failed search, how long searches go without the geocoder (ms); default 30 s. */
  backoffMs?: number;
  /** Told once per failure (no URL in it: a key may ride in the query), e.g. to the log. */
  onProblem?: (reason: string) => void;
  now?: () => number;
}

/** Each search asks for this many places (a drop-off takes the first, the console's place search all). */
const ASKED = 5;
/** A search answer is a few kilobytes; anything near this is not one. */
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * A Photon- or Nominatim-compatible `/search` endpoint (docs/places.md#the-geocoder) as the Geocoder port: the answer's
 * shape tells which (placesOfAnswer). Every request passes the outbound guard and ends within the timeout; answers
 * are cached (bounded, with a time to live), and the same search asked again while one is under way waits for it.
 * A failure (slow, down, refused, not a search answer) answers [] and the next `backoffMs` go without the geocoder,
 * so a failing geocoder costs a quote one timeout, not one per drop-off: the drop-off falls back to its city.
 */
export class SearchGeocoder implements Geocoder {
  private readonly cache: AnswerCache<GeocodedPlace[]>;
  private readonly asking = new Map<string, Promise<GeocodedPlace[]>>();
  private resumeAt = 0;
  private readonly now: () => number;

  constructor(private readonly options: SearchGeocoderOptions) {
    this.now = options.now ?? Date.now;
    this.cache = new AnswerCache(options.cacheSize ?? 5_000, this.now);
  }

  async search(text: string, limit: number): Promise<GeocodedPlace[]> {
    const query = text.trim().replace(/\s+/g, " ").slice(0, 300);
    if (query === "" || limit < 1) return [];
    const key = query.toLowerCase();
    const cached = this.cache.get(key);
    if (cached) return cached.slice(0, limit);
    if (this.now() < this.resumeAt) return [];
    let pending = this.asking.get(key);
    if (!pending) {
      pending = this.ask(query, key).finally(() => this.asking.delete(key));
      this.asking.set(key, pending);
    }
    return (await pending).slice(0, limit);
  }

  private async ask(query: string, key: string): Promise<GeocodedPlace[]> {
    const outcome = await withDeadline(this.fetchPlaces(query), this.options.timeoutMs);
    if (!outcome.ok) {
      this.resumeAt = this.now() + (this.options.backoffMs ?? 30_000);
      this.options.onProblem?.(outcome.reason);
      return [];
    }
    const ttlMs = outcome.places.length > 0 ? (this.options.hitTtlMs ?? 86_400_000) : (this.options.missTtlMs ?? 600_000);
    this.cache.set(key, outcome.places, ttlMs);
    return outcome.places;
  }

  private async fetchPlaces(query: string): Promise<{ ok: true; places: GeocodedPlace[] } | { ok: false; reason: string }> {
    let url: URL;
    try {
      url = new URL(this.options.url);
    } catch {
      return { ok: false, reason: "GEOCODER_URL is not an absolute URL" };
    }
    url.searchParams.set("q", query);
    url.searchParams.set("limit", String(ASKED));
    const checked = await this.options.guard.check(url.href);
    if (!checked.ok) return { ok: false, reason: `GEOCODER_URL ${checked.reason}` };
    const got = await getJson(checked.target, { "user-agent": "TripSwitch-Geocoder/1.0" }, this.options.timeoutMs, MAX_ANSWER_BYTES);
    if (!got.ok) return { ok: false, reason: `the geocoder ${got.reason}` };
    const places = placesOfAnswer(got.body);
    if (!places)
      return { ok: false, reason: "the geocoder's answer is neither a GeoJSON FeatureCollection (Photon) nor an array of places (Nominatim)" };
    return { ok: true, places: places.slice(0, ASKED) };
  }
}

/** The promise's outcome, or a failure once `ms` have passed. */
function withDeadline<T>(promise: Promise<T | { ok: false; reason: string }>, ms: number): Promise<T | { ok: false; reason: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<{ ok: false; reason: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `the geocoder gave no answer within ${ms} ms` }), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
