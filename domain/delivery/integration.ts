import type { FieldError } from "../errors";
import { fareCurrencyProblem } from "../currency";
import { checkPolicies, type Policies } from "../trips/terms";
import { checkGiveBackRecovery } from "../trips/give-back-recovery";
import type { RecoveryTier } from "../trips/booking";
import { DEFAULT_TURNAROUND_MINUTES, MAX_MINIMUM_NOTICE_MINUTES, MAX_TURNAROUND_MINUTES } from "../fleet/holds";
import { DEFAULT_SERVICE_RADIUS_KM, MAX_SERVICE_RADIUS_KM, MIN_SERVICE_RADIUS_KM } from "../trips/service-radius";
import { DEFAULT_MAX_TRIP_KM, MAX_TRIP_KM_LIMIT } from "../trips/trip-length";

/** How a partner receives luggage: as a field it stores natively, or (default) also as a line in the trip notes. */
export type LuggageMode = "native" | "notes";

/** The body webhooks carry: the exchange's event envelope, or GNet's callback body at the top level. */
export type WebhookFormat = "events" | "gnet";

/** Who may send a provider new trips and quote requests: anyone registered, or only its active partners. */
export type AcceptTripsFrom = "anyone" | "partners";

/** The provider's optional service settings: in the integration each unset one takes its default, in a patch absent = keep. */
export interface IntegrationOptions {
  /** How far from a pickup (km, 1–500) the provider's vehicles serve it (besides those listing its airport); 50 when unset. */
  serviceRadiusKm?: number;
  /** Minutes a booked vehicle stays held after the trip's estimated end (0–720); 30 when unset. */
  turnaroundMinutes?: number;
  /** A pickup sooner than this leaves the provider out of quotes (0–10,080 minutes); 0 when unset. */
  minimumNoticeMinutes?: number;
  /** The currency the company's network quotes show converted amounts in (ISO 4217); none when unset. */
  displayCurrency?: string | null;
  /** Cancellation tiers and free waiting (docs/terms.md#policies); what is not set takes the default. */
  policies?: Policies;
  /** The longest road distance (km, 1–5,000) the provider quotes (docs/rates.md#never-absurd-the-longest-trip-a-provider-quotes); 800 when unset. */
  maxTripKm?: number;
  /** What a provider owes this requester when it gives a booking back (docs/settlement.md#give-back-recovery); the default when unset. */
  giveBackRecovery?: RecoveryTier[];
}

/** A company's integration settings. Secrets are part of it but never shown after creation. */
export interface Integration extends IntegrationOptions {
  netid: string;
  deliveryUrl: string | null;
  deliveryAuth: { username: string; password: string } | null;
  luggage: LuggageMode;
  webhookUrl: string | null;
  webhookSecret: string | null;
  /** When `webhookUrl` answered the signed challenge (Unix seconds); null while it has not: nothing is sent to it. */
  webhookVerifiedAt: number | null;
  webhookFormat: WebhookFormat;
  acceptTripsFrom: AcceptTripsFrom;
}

/** A provider's service settings, each unset one at its default (50 km, 30 minutes, no notice, 800 km trips). */
export function serviceSettingsOf(i: Integration): { serviceRadiusKm: number; turnaroundMinutes: number; minimumNoticeMinutes: number; maxTripKm: number } {
  return {
    serviceRadiusKm: i.serviceRadiusKm ?? DEFAULT_SERVICE_RADIUS_KM,
    turnaroundMinutes: i.turnaroundMinutes ?? DEFAULT_TURNAROUND_MINUTES,
    minimumNoticeMinutes: i.minimumNoticeMinutes ?? 0,
    maxTripKm: i.maxTripKm ?? DEFAULT_MAX_TRIP_KM,
  };
}

/** A requested change: absent = keep, null = clear. */
export interface IntegrationPatch extends IntegrationOptions {
  deliveryUrl?: string | null;
  deliveryAuth?: { username: string; password: string } | null;
  luggage?: LuggageMode;
  webhookUrl?: string | null;
  webhookFormat?: WebhookFormat;
  acceptTripsFrom?: AcceptTripsFrom;
}

const MAX_URL = 2048;

/** Checks that a URL is absolute http(s) without credentials in it; returns a message when it is not. */
export function urlProblem(value: string): string | undefined {
  if (value.length > MAX_URL) return `must be at most ${MAX_URL} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "must be an absolute http or https URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an absolute http or https URL";
  if (url.username || url.password) return "must not carry credentials; use deliveryAuth";
  return undefined;
}

/** The settings a company may set (PUT /api/company/integration): any other member is refused, naming it. */
export const INTEGRATION_SETTINGS: readonly string[] = [
  "deliveryUrl",
  "deliveryAuth",
  "luggage",
  "webhookUrl",
  "webhookFormat",
  "acceptTripsFrom",
  "serviceRadiusKm",
  "turnaroundMinutes",
  "minimumNoticeMinutes",
  "displayCurrency",
  "policies",
  "maxTripKm",
  "giveBackRecovery",
];
/** Members the settings' answer shows that the exchange keeps: sent back, they would change nothing. */
const SHOWN_ONLY = ["webhookSecretSet", "webhookSecret", "webhookVerified", "webhookVerification"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A field error for each member of an integration patch that is not a setting, and each member of `deliveryAuth`
 * other than username and password (docs/integration.md#integration-settings): sent, it would change nothing.
 */
export function unknownIntegrationMembers(input: unknown): FieldError[] {
  if (!isObject(input)) return [];
  const errors: FieldError[] = Object.keys(input)
    .filter((key) => !INTEGRATION_SETTINGS.includes(key))
    .map((key) => ({
      field: key,
      message: SHOWN_ONLY.includes(key)
        ? "is shown by GET /api/company/integration and kept by the exchange: it cannot be set"
        : `is not an integration setting, so it would change nothing (the settings: ${INTEGRATION_SETTINGS.join(", ")})`,
    }));
  if (isObject(input.deliveryAuth))
    for (const key of Object.keys(input.deliveryAuth))
      if (key !== "username" && key !== "password")
        errors.push({ field: `deliveryAuth.${key}`, message: "is not a member of deliveryAuth (username, password)" });
  return errors;
}

/**
 * Validates an integration update and reports every failing field. Unknown members (a setting that would do
 * nothing), unknown luggage modes, non-http URLs and incomplete credentials are refused.
 */
export function validateIntegrationPatch(input: {
  deliveryUrl?: string | null;
  deliveryAuth?: { username?: string; password?: string } | null;
  luggage?: string;
  webhookUrl?: string | null;
  webhookFormat?: string;
  acceptTripsFrom?: string;
  /** null resets it to the default (50 km). */
  serviceRadiusKm?: number | null;
  /** null resets it to the default (30). */
  turnaroundMinutes?: number | null;
  /** null resets it to the default (0). */
  minimumNoticeMinutes?: number | null;
  /** null (or "") clears it. */
  displayCurrency?: string | null;
  /** null resets every policy to its default; see checkPolicies. */
  policies?: unknown;
  /** null resets it to the default (800). */
  maxTripKm?: number | null;
  /** null resets it to the default tiers; see checkGiveBackRecovery. */
  giveBackRecovery?: unknown;
}, current?: Pick<Integration, "policies">): { ok: true; patch: IntegrationPatch } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = unknownIntegrationMembers(input);
  const patch: IntegrationPatch = {};
  for (const field of ["deliveryUrl", "webhookUrl"] as const) {
    const value = input[field];
    if (value === undefined) continue;
    if (value === null || value.trim() === "") {
      patch[field] = null;
      continue;
    }
    const problem = urlProblem(value.trim());
    if (problem) errors.push({ field, message: problem });
    else patch[field] = value.trim();
  }
  if (input.deliveryAuth !== undefined) {
    if (input.deliveryAuth === null) patch.deliveryAuth = null;
    else {
      const { username = "", password = "" } = input.deliveryAuth;
      if (!username || username.length > 200 || username.includes(":"))
        errors.push({ field: "deliveryAuth.username", message: "must be 1–200 characters without ':'" });
      if (!password || password.length > 200) errors.push({ field: "deliveryAuth.password", message: "must be 1–200 characters" });
      if (username && password) patch.deliveryAuth = { username, password };
    }
  }
  if (input.luggage !== undefined) {
    const mode = input.luggage.trim().toLowerCase();
    if (mode !== "native" && mode !== "notes") errors.push({ field: "luggage", message: "must be native or notes" });
    else patch.luggage = mode;
  }
  if (input.webhookFormat !== undefined) {
    const format = input.webhookFormat.trim().toLowerCase();
    if (format !== "events" && format !== "gnet") errors.push({ field: "webhookFormat", message: "must be events or gnet" });
    else patch.webhookFormat = format;
  }
  if (input.acceptTripsFrom !== undefined) {
    const who = input.acceptTripsFrom.trim().toLowerCase();
    if (who !== "anyone" && who !== "partners") errors.push({ field: "acceptTripsFrom", message: "must be anyone or partners" });
    else patch.acceptTripsFrom = who;
  }
  if (input.serviceRadiusKm !== undefined) {
    const km = input.serviceRadiusKm ?? DEFAULT_SERVICE_RADIUS_KM;
    if (!Number.isInteger(km) || km < MIN_SERVICE_RADIUS_KM || km > MAX_SERVICE_RADIUS_KM)
      errors.push({ field: "serviceRadiusKm", message: `must be a whole number of kilometres from ${MIN_SERVICE_RADIUS_KM} to ${MAX_SERVICE_RADIUS_KM}` });
    else patch.serviceRadiusKm = km;
  }
  if (input.maxTripKm !== undefined) {
    const km = input.maxTripKm ?? DEFAULT_MAX_TRIP_KM;
    if (!Number.isInteger(km) || km < 1 || km > MAX_TRIP_KM_LIMIT)
      errors.push({ field: "maxTripKm", message: `must be a whole number of kilometres from 1 to ${MAX_TRIP_KM_LIMIT}` });
    else patch.maxTripKm = km;
  }
  const minutes = [
    ["turnaroundMinutes", DEFAULT_TURNAROUND_MINUTES, MAX_TURNAROUND_MINUTES],
    ["minimumNoticeMinutes", 0, MAX_MINIMUM_NOTICE_MINUTES],
  ] as const;
  for (const [field, fallback, max] of minutes) {
    if (input[field] === undefined) continue;
    const value = input[field] ?? fallback;
    if (!Number.isInteger(value) || value < 0 || value > max) errors.push({ field, message: `must be a whole number of minutes from 0 to ${max}` });
    else patch[field] = value;
  }
  if (input.displayCurrency !== undefined) {
    const code = input.displayCurrency === null ? "" : input.displayCurrency;
    const problem = code === "" ? undefined : fareCurrencyProblem(code);
    if (problem) errors.push({ field: "displayCurrency", message: problem });
    else patch.displayCurrency = code === "" ? null : code;
  }
  if (input.policies !== undefined) {
    const policies = checkPolicies(input.policies, current?.policies, errors);
    if (policies) patch.policies = policies;
  }
  if (input.giveBackRecovery !== undefined) {
    const tiers = checkGiveBackRecovery(input.giveBackRecovery, errors);
    if (tiers !== undefined) patch.giveBackRecovery = tiers ?? undefined;
  }
  return errors.length ? { ok: false, errors } : { ok: true, patch };
}
