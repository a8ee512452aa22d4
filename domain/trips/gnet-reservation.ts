import { isoAt, TRIP_MEMBERS, type Booking } from "./booking";
import { offersView } from "./offer-views";
import { bookingView, seenWithPosition, tripFields, tripPriceAndGnetFields } from "./booking-view";
import { gnetAffiliateReservation, gnetVehicle } from "../delivery/gnet-callback";
import { CaselessNames, EXCHANGE_OWNED_NAMES } from "./reserved-names";
import { shownPosition, type PositionStore } from "../tracking/position";

/** The chauffeur's position as the reader may see it. */
type Location = { lat: number; lon: number; timestamp: string };

/**
 * Top-level names a requester's unnamed members never take: the read's own members (present or not), the
 * envelope of today's answer, and what only the provider sets (its reservation number, vehicle, chauffeur,
 * position, note, update metadata). A requester's copy of one stays in `data.tripPacket`, never up here.
 */
const RESERVED_TOP = new CaselessNames([
  // A member under this name would set the prototype of the object built here, not a member.
  "__proto__",
  "success",
  "data",
  "transactionId",
  ...TRIP_MEMBERS,
  "status",
  "resStatus",
  "totalAmount",
  "terms",
  "affiliateReservation",
  "transactionErrors",
  "changeLogs",
  "submitMode",
  "vehicle",
  "chauffeur",
  "location",
  "providerNote",
  "providerResNo",
  "providerResCode",
  "resNo",
  "providerUpdate",
  "griddID",
  "LocalTimestamp",
  "UTCtimestamp",
  "lat",
  "lon",
  "targetResNo",
  // The offer, the terms and what later reads carry (docs/security.md#owned-members).
  ...EXCHANGE_OWNED_NAMES,
]);

/** The members of `extra` whose names are not in `reserved`. */
function unreserved(extra: Record<string, unknown> | undefined, reserved: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(extra ?? {})) if (!reserved.has(k)) out[k] = v;
  return out;
}

/**
 * A booking as GNet's blueprint shows a reservation: the trip's fields as stored at the top level, the
 * lifecycle `status`, `totalAmount`, and `affiliateReservation` (its `status` FAILED while delivery to the
 * provider is failing), the provider's vehicle, chauffeur and note, the history. Built from the stored trip and the
 * booking's own fields only: members the requester sent that no schema names are kept unless their name is one
 * this object or the provider owns.
 */
export function gnetReservation(b: Booking, location?: Location) {
  return {
    ...unreserved(b.trip.extra, RESERVED_TOP),
    transactionId: b.transactionId,
    ...tripFields(b),
    ...tripPriceAndGnetFields(b),
    affiliateReservation: gnetAffiliateReservation(b),
    vehicle: b.vehicle ? gnetVehicle(b.vehicle) : null,
    chauffeur: b.chauffeur ?? null,
    location: location ?? null,
    providerNote: b.providerNote ?? "",
    transactionErrors: b.transactionErrors,
    changeLogs: b.changeLogs,
    // The offer (docs/terms.md#the-acceptance-deadline-acceptby, docs/terms.md#the-cascade-fallback) as the core read
    // shows it: additive members of GNet's object.
    ...(b.acceptBy !== undefined ? { acceptBy: isoAt(b.acceptBy), offers: offersView(b) } : {}),
    ...(b.reason !== undefined ? { reason: b.reason } : {}),
  };
}

/**
 * What getReservationByTransactionId and getReservationByReservationId answer: GNet's reservation object at the
 * top level, beside today's `success` and `data` (the booking view), both with the position `caller` may see.
 */
export async function gnetReadFor(b: Booking, caller: { netid: string }, positions: PositionStore) {
  // Each party sees only what is its own (docs/terms.md#who-sees-what), in both halves of the answer.
  const { booking, location } = await seenWithPosition(b, caller, positions);
  return { success: true as const, ...gnetReservation(booking, location), data: bookingView(booking, location) };
}
