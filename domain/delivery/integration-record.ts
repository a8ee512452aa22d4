import { serviceSettingsOf, type AcceptTripsFrom, type Integration, type LuggageMode, type WebhookFormat } from "./integration";
import type { SecretSealer } from "./ports";
import type { Policies } from "../trips/terms";
import type { RecoveryTier } from "../trips/booking";
import { DEFAULT_MAX_TRIP_KM } from "../trips/trip-length";

/**
 * How a company's integration is stored, whichever database keeps it: the delivery password and the webhook secret
 * sealed, each for its column and company (a value moved elsewhere does not open).
 */
export interface IntegrationRecord {
  netid: string;
  deliveryUrl: string | null;
  deliveryUsername: string | null;
  deliveryPassword: string | null;
  luggage: string;
  webhookUrl: string | null;
  webhookSecret: string | null;
  webhookVerifiedAt: number | null;
  webhookFormat: string;
  acceptTripsFrom: string;
  serviceRadiusKm: number;
  turnaroundMinutes: number;
  minimumNoticeMinutes: number;
  displayCurrency: string | null;
  /** The provider's own policies (docs/terms.md#policies) as JSON text; null when it set none. */
  policies: string | null;
  maxTripKm: number;
  /** The requester's give-back recovery tiers (docs/settlement.md#give-back-recovery) as JSON text; null: the default. */
  giveBackRecovery: string | null;
  updatedAt: number;
}

/** Where a sealed secret belongs: its column and company. */
export const secretContext = (column: "deliveryPassword" | "webhookSecret", netid: string) => `${column}:${netid}`;

/** The record that stores `i` (its secrets sealed), without its key. */
export function integrationRecord(i: Integration, secrets: SecretSealer, at: number): Omit<IntegrationRecord, "netid"> {
  return {
    deliveryUrl: i.deliveryUrl,
    deliveryUsername: i.deliveryAuth?.username ?? null,
    deliveryPassword: i.deliveryAuth ? secrets.seal(i.deliveryAuth.password, secretContext("deliveryPassword", i.netid)) : null,
    luggage: i.luggage,
    webhookUrl: i.webhookUrl,
    webhookSecret: i.webhookSecret === null ? null : secrets.seal(i.webhookSecret, secretContext("webhookSecret", i.netid)),
    webhookVerifiedAt: i.webhookVerifiedAt,
    webhookFormat: i.webhookFormat,
    acceptTripsFrom: i.acceptTripsFrom,
    ...serviceSettingsOf(i),
    displayCurrency: i.displayCurrency ?? null,
    policies: i.policies && Object.keys(i.policies).length > 0 ? JSON.stringify(i.policies) : null,
    giveBackRecovery: i.giveBackRecovery ? JSON.stringify(i.giveBackRecovery) : null,
    updatedAt: at,
  };
}

/** The integration a stored record holds (its secrets opened). */
export function integrationOf(row: IntegrationRecord, secrets: SecretSealer): Integration {
  const password = row.deliveryPassword && secrets.open(row.deliveryPassword, secretContext("deliveryPassword", row.netid));
  return {
    netid: row.netid,
    deliveryUrl: row.deliveryUrl,
    deliveryAuth: row.deliveryUsername && password ? { username: row.deliveryUsername, password } : null,
    luggage: row.luggage as LuggageMode,
    webhookUrl: row.webhookUrl,
    webhookSecret: row.webhookSecret && secrets.open(row.webhookSecret, secretContext("webhookSecret", row.netid)),
    webhookVerifiedAt: row.webhookVerifiedAt ?? null,
    webhookFormat: row.webhookFormat as WebhookFormat,
    acceptTripsFrom: row.acceptTripsFrom as AcceptTripsFrom,
    serviceRadiusKm: row.serviceRadiusKm,
    turnaroundMinutes: row.turnaroundMinutes,
    minimumNoticeMinutes: row.minimumNoticeMinutes,
    maxTripKm: row.maxTripKm ?? DEFAULT_MAX_TRIP_KM,
    ...(row.displayCurrency ? { displayCurrency: row.displayCurrency } : {}),
    ...(row.policies ? { policies: JSON.parse(row.policies) as Policies } : {}),
    ...(row.giveBackRecovery ? { giveBackRecovery: JSON.parse(row.giveBackRecovery) as RecoveryTier[] } : {}),
  };
}
