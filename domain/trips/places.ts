import type { Airport, AirportDirectory } from "../airports";
import type { TripLocation } from "./booking";
import { greatCircleKm } from "../geo";

/** IANA time-zone facts the domain needs; the adapter uses maintained packages (no hand-rolled rules). */
export interface TimeZones {
  /** The IANA zone at a position, or undefined when none is known. */
  zoneAt(lat: number, lon: number): string | undefined;
  /**
   * Unix seconds of a wall-clock time `YYYY-MM-DDTHH:mm:ss` in `zone` (Temporal's "compatible" reading): a time that
   * occurs twice (the autumn change) is the earlier instant; a time skipped (the spring change) moves forward by the
   * gap (02:30 → 03:30 in New York, 02:15 → 02:45 at Lord Howe). Undefined for an unknown zone.
   */
  localToUnix(local: string, zone: string): number | undefined;
  /** The wall-clock time `YYYY-MM-DDTHH:mm:ss` in `zone` at Unix second `at`; undefined for an unknown zone. */
  wallClockAt(at: number, zone: string): string | undefined;
  /**
   * localToUnix and wallClockAt of its answer in one reading: the instant of a wall-clock time in `zone`, and the
   * wall-clock time that instant is (another than `local` only for a skipped time). Undefined for an unknown zone.
   */
  readWallClock(local: string, zone: string): { at: number; wallClock: string } | undefined;
}

export interface Position {
  lat: number;
  lon: number;
}

/** A coordinate string as a number within `limit` (90 for lat, 180 for lon); undefined when empty or invalid. */
export function readCoordinate(raw: string | undefined, limit: number): number | undefined {
  const s = (raw ?? "").trim();
  if (s === "" || !/^[+-]?\d{1,3}(\.\d+)?$/.test(s)) return undefined;
  const n = Number(s);
  return Math.abs(n) <= limit ? n : undefined;
}

const IATA_TOKEN = /\b[A-Z]{3}\b/g;

/**
 * The airport a location names: only for `locationType` airport (any case), when `address`
 * or `landmark` is an IATA code, or holds one as an upper-case word the directory knows ("SFO Terminal 2").
 */
export function airportOf(location: TripLocation, airports: AirportDirectory): Airport | undefined {
  if ((location.locationType ?? "").trim().toLowerCase() !== "airport") return undefined;
  for (const text of [location.address, location.landmark]) {
    const s = (text ?? "").trim();
    if (s === "") continue;
    if (s.length === 3) {
      const whole = airports.lookup(s);
      if (whole) return whole;
    }
    for (const token of s.match(IATA_TOKEN)?.slice(0, 10) ?? []) {
      const hit = airports.lookup(token);
      if (hit) return hit;
    }
  }
  return undefined;
}

/** Where a location is: its own lat/lon when both parse, else the airport it names, else unknown. */
export function positionOf(location: TripLocation | undefined, airports: AirportDirectory): Position | undefined {
  if (!location) return undefined;
  const lat = readCoordinate(location.lat, 90);
  const lon = readCoordinate(location.lon, 180);
  if (lat !== undefined && lon !== undefined) return { lat, lon };
  const airport = airportOf(location, airports);
  return airport ? { lat: airport.lat, lon: airport.lon } : undefined;
}

/**
 * The pickup place's zone: the airport's zone, else the zone at lat/lon, else the zone at `placed` (where the
 * pickup's city put it), else UTC.
 */
export function pickupZone(pickup: TripLocation, airports: AirportDirectory, zones: TimeZones, placed?: Position): string {
  const airport = airportOf(pickup, airports);
  if (airport?.timeZone) return airport.timeZone;
  const lat = readCoordinate(pickup.lat, 90);
  const lon = readCoordinate(pickup.lon, 180);
  if (lat !== undefined && lon !== undefined) return zones.zoneAt(lat, lon) ?? "UTC";
  if (placed) return zones.zoneAt(placed.lat, placed.lon) ?? "UTC";
  return "UTC";
}

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** An ISO 8601 date-time split into its wall-clock part and its offset (minutes east of UTC; null when absent). */
export interface DateTimeParts {
  /** `YYYY-MM-DDTHH:mm:ss`, fractions dropped. */
  local: string;
  offsetMinutes: number | null;
  /** Unix seconds of the wall-clock part read as UTC. */
  naiveUnix: number;
}

/** Parses an ISO 8601 date-time (`2026-12-03T18:45`, `…:00`, `…:00.5`, `…Z`, `…-05:00`); undefined when invalid. */
export function parseDateTime(raw: string): DateTimeParts | undefined {
  const m = ISO_DATE_TIME.exec(raw.trim());
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? "00"].map(Number);
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(ms);
  // Date.UTC rolls 2026-02-30 over into March; a real calendar date reads back unchanged.
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  let offsetMinutes: number | null = null;
  const zone = m[7];
  if (zone) {
    if (zone.toUpperCase() === "Z") offsetMinutes = 0;
    else {
      const digits = zone.replace(":", "");
      const sign = digits[0] === "-" ? -1 : 1;
      const oh = Number(digits.slice(1, 3));
      const om = Number(digits.slice(3, 5));
      if (oh > 18 || om > 59) return undefined;
      offsetMinutes = sign * (oh * 60 + om);
    }
  }
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return { local: `${pad(y, 4)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}`, offsetMinutes, naiveUnix: ms / 1000 };
}

/** Great-circle distance in kilometres (haversine). */
export function distanceKm(a: Position, b: Position): number {
  return greatCircleKm(a.lat, a.lon, b.lat, b.lon);
}
