import type { FlightQuery, FlightStatusAnswer } from "../../domain/trips/flight-watch";
import type { FlightStatus } from "../../domain/trips/ports";

/** A GET of JSON through the outbound guard, bounded in time and size; never throws (the wiring hands it in). */
export type JsonGet = (url: string, headers: Record<string, string>) => Promise<{ ok: true; body: unknown } | { ok: false; reason: string }>;

export interface AeroApiOptions {
  /** FLIGHT_STATUS_URL: AeroAPI's base, `https://aeroapi.flightaware.com/aeroapi` (a test's fake on loopback). */
  baseUrl: string;
  /** FLIGHT_STATUS_KEY: sent in the `x-apikey` header only, never in the URL nor in a message. */
  apiKey: string;
  get: JsonGet;
  /** The longest one question may take, the guard's look-up included (FLIGHT_STATUS_TIMEOUT_MS). */
  timeoutMs: number;
}

/** An AeroAPI flight is taken for the one booked when its scheduled landing lies this close to the booking's. */
const SAME_FLIGHT_SECONDS = 3 * 3600;
/** The longest flights take about 19 h: a flight landing at T departed after T − 20 h. */
const LONGEST_FLIGHT_SECONDS = 20 * 3600;

/**
 * FlightAware AeroAPI v4 as the FlightStatus port (docs/flights.md#the-flight-status-poller): `GET /flights/{ident}`
 * for the airline's designator (`BA117`) over the days the flight may have departed, the flight whose scheduled landing
 * (`scheduled_on`, runway; else `scheduled_in`, gate) lies nearest the booking's, and its landing: `actual_on` (landed)
 * or `estimated_on` (else the gate's `actual_in` / `estimated_in`). A cancelled flight tells no landing.
 */
export class AeroApiFlightStatus implements FlightStatus {
  constructor(private readonly options: AeroApiOptions) {}

  async statusOf(flight: FlightQuery): Promise<FlightStatusAnswer | undefined> {
    const url = new URL(`${this.options.baseUrl.replace(/\/+$/, "")}/flights/${encodeURIComponent(flight.airlineCode + flight.flightNumber)}`);
    url.searchParams.set("ident_type", "designator");
    url.searchParams.set("start", isoSecond(flight.scheduledLanding - LONGEST_FLIGHT_SECONDS));
    url.searchParams.set("end", isoSecond(flight.scheduledLanding));
    const got = await withDeadline(this.options.get(url.href, { "x-apikey": this.options.apiKey }), this.options.timeoutMs);
    if (!got.ok) throw new Error(`AeroAPI ${got.reason}`);
    const flights = flightsOf(got.body);
    if (!flights) throw new Error("AeroAPI answered something that is not a list of flights");
    return nearest(flights, flight.scheduledLanding);
  }
}

type AeroFlight = Record<string, unknown>;

function flightsOf(body: unknown): AeroFlight[] | undefined {
  const list = typeof body === "object" && body !== null ? (body as { flights?: unknown }).flights : undefined;
  return Array.isArray(list) ? list.filter((f): f is AeroFlight => typeof f === "object" && f !== null) : undefined;
}

/** An AeroAPI time (ISO 8601 in UTC, `2027-09-04T21:45:00Z`) as Unix seconds; undefined when absent or not one. */
function instant(v: unknown): number | undefined {
  if (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/.test(v)) return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

function nearest(flights: AeroFlight[], scheduled: number): FlightStatusAnswer | undefined {
  let best: { f: AeroFlight; at: number } | undefined;
  for (const f of flights) {
    const at = instant(f.scheduled_on) ?? instant(f.scheduled_in);
    if (at === undefined || Math.abs(at - scheduled) > SAME_FLIGHT_SECONDS) continue;
    if (!best || Math.abs(at - scheduled) < Math.abs(best.at - scheduled)) best = { f, at };
  }
  if (!best) return undefined;
  const { f, at } = best;
  if (f.cancelled === true) return { scheduledLanding: at };
  const landedAt = instant(f.actual_on) ?? instant(f.actual_in);
  const estimatedLanding = instant(f.estimated_on) ?? instant(f.estimated_in);
  return { scheduledLanding: at, ...(landedAt !== undefined ? { landedAt } : {}), ...(estimatedLanding !== undefined ? { estimatedLanding } : {}) };
}

const isoSecond = (at: number) => new Date(at * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The promise's outcome, or a failure once `ms` have passed. */
function withDeadline<T>(promise: Promise<T | { ok: false; reason: string }>, ms: number): Promise<T | { ok: false; reason: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<{ ok: false; reason: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: `gave no answer within ${ms} ms` }), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
