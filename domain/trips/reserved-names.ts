import type { Booking, ExtraFields } from "./booking";

/** The member that holds a requester's own copies of reserved names, in the views and messages built from a booking. */
export const REQUESTER_EXTRA = "requesterExtra";

/**
 * A set of member names that ignores letter case: `Chauffeur` and `PROVIDERRESNO` are the provider's names as much
 * as `chauffeur` and `providerResNo` (a reader matching names loosely must never take a requester's copy for them).
 */
export class CaselessNames extends Set<string> {
  constructor(names: Iterable<string>) {
    super();
    for (const name of names) super.add(name.toLowerCase());
  }
  override add(name: string): this {
    return super.add(name.toLowerCase());
  }
  override has(name: string): boolean {
    return super.has(name.toLowerCase());
  }
}

/**
 * Members the exchange itself writes into a booking's reads, webhooks, events and deliveries (docs/security.md#owned-members):
 * the offer (`acceptBy`, `offers`, `reason`), the terms, and the names kept now for what later reads will carry (the
 * final fare, the waiting evidence, the chauffeur's arrival and ETA), the give-back recovery tiers and a recovery
 * owed. A requester's member with one of these names,
 * wherever its body is kept (the trip, affiliateReservation, an UPDATE), is its own text under `requesterExtra`.
 */
export const EXCHANGE_OWNED_NAMES = [
  "acceptBy", "offers", "reason", "terms", "finalFare", "evidence", "eta", "arrivedAt", "giveBackRecovery", "costRecovery",
] as const;

/**
 * Names the exchange or the provider writes at the top level of a booking as anyone reads it: the booking view
 * and its tripPacket, GNet's read and callback shapes, the provider's update, the delivery to the provider, the
 * webhook envelope. A requester's extra member with such a name is its own text, never the exchange's or the
 * provider's: it is shown under `requesterExtra`, never in that place.
 */
export const RESERVED_TRIP_NAMES: ReadonlySet<string> = new CaselessNames([
  // Booking view, GNet read shape and webhook envelope.
  "success", "data", "eventId", "type", "createdAt", "transactionId", "fromConextId", "toConextId", "timestamp", "userid",
  "sourcePlatform", "targetPlatform", "sourceResNo", "targetResNo", "lastStatus", "submitDate", "pickupDate", "tripPacket",
  "status", "resStatus", "affiliateReservation", "transactionErrors", "changeLogs", "totalAmount", "fees", "submitMode", "terms",
  "reservationId", "warnings", "quoteId", "validUntil", "deliveryFailure", "convertedAmount",
  // What the provider writes: its number, note, chauffeur, vehicle, position and update metadata.
  "providerResNo", "resNo", "providerResCode", "providerNote", "providerUpdate", "vehicle", "chauffeur", "location",
  "lat", "lon", "LocalTimestamp", "UTCtimestamp", "griddID", "griddid", "internalBookingId",
  // The affiliate reservation's own names (GNet readers look for them at either level).
  "requesterId", "requesterResNo", "providerId", "action", "updateTime", "submissionTarget",
  ...EXCHANGE_OWNED_NAMES,
  REQUESTER_EXTRA,
]);

/** Names the exchange or the provider writes inside `affiliateReservation`. */
export const RESERVED_AFFILIATE_NAMES: ReadonlySet<string> = new CaselessNames([
  "requesterId", "requesterResNo", "providerId", "providerResNo", "resNo", "providerResCode", "providerNote", "action", "status",
  "notes", "updateTime", "submissionTarget", "transactionId", ...EXCHANGE_OWNED_NAMES, REQUESTER_EXTRA,
]);

/**
 * A requester's extra members split for showing: `shown` may be spread where they were sent; `held` are copies of
 * reserved names, shown only under `requesterExtra` so that they never stand in for the exchange's or the
 * provider's own fields (a requester's `chauffeur` is not the chauffeur). Nothing is dropped.
 */
export function splitExtras(extra: ExtraFields | undefined, reserved: ReadonlySet<string>): { shown: ExtraFields; held?: ExtraFields } {
  if (!extra) return { shown: {} };
  let shown: ExtraFields | undefined;
  let held: ExtraFields | undefined;
  for (const key of Object.keys(extra)) {
    if (reserved.has(key)) (held ??= {})[key] = extra[key];
    else (shown ??= {})[key] = extra[key];
  }
  if (!held) return { shown: extra };
  return { shown: shown ?? {}, held };
}

/** The members a view spreads from a requester's extras: the unreserved ones, and `requesterExtra` holding the others. */
export function shownExtras(extra: ExtraFields | undefined, reserved: ReadonlySet<string>): ExtraFields {
  const { shown, held } = splitExtras(extra, reserved);
  return held ? { ...shown, [REQUESTER_EXTRA]: held } : shown;
}

/**
 * The parties and their numbers as an `affiliateReservation` shows them (the booking view, the delivery to the
 * provider), after the members no schema names; the caller adds the action, status and notes.
 */
export function affiliateParties(b: Pick<Booking, "affiliateExtra" | "requesterId" | "requesterResNo" | "providerId" | "providerResNo">) {
  return {
    ...shownExtras(b.affiliateExtra, RESERVED_AFFILIATE_NAMES),
    requesterId: b.requesterId,
    requesterResNo: b.requesterResNo,
    providerId: b.providerId,
    ...(b.providerResNo !== null ? { providerResNo: b.providerResNo } : {}),
  };
}
