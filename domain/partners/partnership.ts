import type { FieldError } from "../errors";

/** pending until the other side accepts; active once both have. */
export type PartnershipState = "pending" | "active";

/** A partnership between two companies as stored: one record per pair, whoever asked. */
export interface Partnership {
  /** The pair's canonical netids (as registered). */
  companies: readonly [string, string];
  requestedBy: string;
  state: PartnershipState;
  createdAt: number;
  acceptedAt: number | null;
}

/** A partnership's status as both sides see it: pending until the other side accepts, then active. */
export type PartnershipStatus = PartnershipState;

/** Who asked, on a pending partnership: `outgoing` (the caller asked) or `incoming` (the partner asked; the caller may accept). */
export type RequestDirection = "outgoing" | "incoming";

/** The partner's netid and the caller's view of the partnership: its status and, while pending, who asked. */
export function partnerSide(p: Partnership, netid: string): { partner: string; status: PartnershipStatus; direction?: RequestDirection } {
  const mine = netid.toLowerCase();
  const partner = p.companies[0].toLowerCase() === mine ? p.companies[1] : p.companies[0];
  if (p.state === "active") return { partner, status: "active" };
  return { partner, status: "pending", direction: p.requestedBy.toLowerCase() === mine ? "outgoing" : "incoming" };
}

/** A provider's translation of a requester's vehicle types into its own: requester type → provider type. */
export type VehicleTypeMap = Record<string, string>;

export const MAX_VEHICLE_TYPE_ENTRIES = 200;
export const MAX_VEHICLE_TYPE_LENGTH = 50;
const TYPE_CODE = /^[A-Z0-9][A-Z0-9_-]*$/;

/** Trims and upper-cases a vehicle type code, the form maps are keyed and compared by. */
export function normalizeVehicleType(code: string): string {
  return code.trim().toUpperCase();
}

/**
 * Checks a vehicle-type map and normalises it: at most 200 entries; every key and value a code of letters,
 * digits, `_` and `-`, 1–50 characters, upper-cased. Two keys that normalise alike are refused. Every failing
 * entry is reported, named by its key.
 */
export function validateVehicleTypeMap(input: unknown): { ok: true; map: VehicleTypeMap } | { ok: false; errors: FieldError[] } {
  if (input === null || typeof input !== "object" || Array.isArray(input))
    return { ok: false, errors: [{ field: "body", message: 'must be an object of requester type → your type, e.g. {"SUV_LUX":"SUV"}' }] };
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > MAX_VEHICLE_TYPE_ENTRIES)
    return { ok: false, errors: [{ field: "body", message: `must have at most ${MAX_VEHICLE_TYPE_ENTRIES} entries` }] };
  const errors: FieldError[] = [];
  const map: VehicleTypeMap = {};
  const codeProblem = (code: string) =>
    code.length === 0 || code.length > MAX_VEHICLE_TYPE_LENGTH || !TYPE_CODE.test(code)
      ? `must be a vehicle type code of 1–${MAX_VEHICLE_TYPE_LENGTH} letters, digits, _ or -`
      : undefined;
  for (const [rawKey, rawValue] of entries) {
    const field = rawKey.slice(0, MAX_VEHICLE_TYPE_LENGTH + 10);
    const key = normalizeVehicleType(rawKey);
    const keyProblem = codeProblem(key);
    if (keyProblem) {
      errors.push({ field, message: `key ${keyProblem}` });
      continue;
    }
    if (Object.hasOwn(map, key)) {
      errors.push({ field, message: `repeats the type ${key}` });
      continue;
    }
    const value = typeof rawValue === "string" ? normalizeVehicleType(rawValue) : "";
    const valueProblem = typeof rawValue === "string" ? codeProblem(value) : "must be a string";
    if (valueProblem) errors.push({ field, message: valueProblem });
    else map[key] = value;
  }
  return errors.length ? { ok: false, errors } : { ok: true, map };
}

/** The provider's type for a requester's vehicle type: mapped when the map names it, else undefined. */
export function translateVehicleType(map: VehicleTypeMap | undefined, requesterType: string | undefined): string | undefined {
  if (!map || requesterType === undefined) return undefined;
  const key = normalizeVehicleType(requesterType);
  return Object.hasOwn(map, key) ? map[key] : undefined;
}
