import { Elysia, t } from "elysia";
import { findBooking, findBookingToRead, listBookings, type ManageTripDeps } from "../../../domain/usecases/manage-trip";
import {
  LEGACY_STATUSES,
  MAIN_PATH,
  nextSteps,
  skipTargets,
  STATUS_LABELS,
  TERMINAL_STATUSES,
  tooEarlyFor,
  TRANSITIONS,
  TRIP_STATUSES,
} from "../../../domain/trips/lifecycle";
import { authMacros, type Authenticator } from "../auth";
import { bookingSummaryView, bookingView, seenWithPosition } from "../../../domain/trips/booking-view";
import type { PositionStore } from "../../../domain/tracking/position";
import { documentedResponses, errors, TransactionIdParams } from "../schemas";
import { BookingData } from "./booking.model";
import { tripPlaces } from "../../../domain/trips/trip-places";
import type { AirportDirectory } from "../../../domain/airports";
import type { Gazetteer } from "../../../domain/trips/pickup-place";
import { Page, Paging } from "../paging";
import { pickupPlaceZone } from "../../../domain/trips/pickup-place";
import { cancelFeeNow } from "../../../domain/trips/terms";
import { CancelFeeData } from "./terms.model";
import { lostOffers, MAX_LOST_OFFERS } from "../../../domain/usecases/lost-offers";

/** What places a booking's pickup in its time zone. */
export type PickupZoneDeps = Parameters<typeof pickupPlaceZone>[1];

const TripStates = t.Object({
  success: t.Literal(true),
  data: t.Object({
    states: t.Array(
      t.Object({
        status: t.String(),
        label: t.String({ description: "The human label shown as tripPacket.resStatus" }),
        terminal: t.Boolean(),
        next: t.Array(t.String(), { description: "Statuses this one may move to directly" }),
        skipTo: t.Array(t.String(), { description: "Main-path statuses this one may also move to by skipping the states between" }),
      }),
    ),
    mainPath: t.Array(t.String(), {
      description:
        "The main path: a forward move along it may skip states (CONFIRMED → ON_LOCATION); the changeLogs entry " +
        "names the skipped ones. Backward moves and moves out of a final state are 409.",
    }),
    initial: t.Array(t.String(), { description: "Statuses a new booking starts in: QUOTE for a quote, BOOKING_REQUEST otherwise" }),
    legacy: t.Record(t.String(), t.String(), { description: "Older spellings accepted and read as the current names" }),
  }),
});

// Computed once: the table is constant.
const tripStates = {
  success: true as const,
  data: {
    states: TRIP_STATUSES.map((status) => ({
      status,
      label: STATUS_LABELS[status],
      terminal: TERMINAL_STATUSES.has(status),
      next: [...TRANSITIONS[status]],
      skipTo: skipTargets(status),
    })),
    mainPath: [...MAIN_PATH],
    initial: ["QUOTE", "BOOKING_REQUEST"],
    legacy: { ...LEGACY_STATUSES },
  },
};

const Summary = t.Object({
  transactionId: t.String({ format: "uuid" }),
  fromConextId: t.String(),
  toConextId: t.String(),
  sourceResNo: t.Union([t.String(), t.Null()]),
  targetResNo: t.Union([t.String(), t.Null()]),
  lastStatus: t.String(),
  submitDate: t.Number({ description: "Unix seconds" }),
  pickupDate: t.Number({ description: "Unix seconds" }),
  reservationType: t.String(),
  pickupZone: t.String({
    description: "The IANA time zone of the pickup's place (as in GET /api/reservation), in which its time is read",
    examples: ["America/New_York"],
  }),
});

const Place = t.Union(
  [
    t.Object({
      lat: t.Number(),
      lon: t.Number(),
      by: t.String({
        description:
          "How it was placed: coordinates (its own lat/lon), airport (the airport an airport location names by IATA " + "code), city (the gazetteer's town)",
        examples: ["airport"],
      }),
      airport: t.Optional(
        t.Object(
          { iata: t.String({ examples: ["JFK"] }), name: t.String({ examples: ["John F. Kennedy International Airport"] }) },
          { description: "The airport the place names, when the directory knows it" },
        ),
      ),
    }),
    t.Null(),
  ],
  { description: "Null when nothing places it" },
);
/** The lookup's answer: the booking as every read shows it (`data`), and beside it where its places are (for a map). */
const BookingWithPlaces = t.Object({
  success: t.Literal(true),
  data: BookingData,
  places: t.Object(
    { pickup: Place, stops: t.Array(Place, { description: "In the order of locations.stops" }), dropOff: Place },
    {
      description:
        "Only in this lookup, beside `data` (which stays the booking as webhooks and every read show it): each " +
        "place of the trip on the map, placed like a pickup is — its lat/lon, else the airport an airport location " +
        "names (an airport pickup sent without coordinates is at its airport), else its city.",
    },
  ),
  providerNext: t.Array(t.String(), {
    description:
      "Only in this lookup, beside `data`: the statuses the booking's provider may move it to now, one step along " +
      "the lifecycle (GET /api/trip-states: its `next` without BOOKING_REQUEST, which is the requester's, and without " +
      "EN_ROUTE and later more than 12 h before the pickup: docs/integration.md#trip-statuses-wait-for-the-trip); [] " +
      "once final. providerUpdateStatus* also takes a forward skip along the main path. The console offers these.",
    examples: [["PENDING", "CONFIRMED", "REJECT", "FAILED", "CANCEL"]],
  }),
});

const LostOfferItem = t.Object({
  transactionId: t.String({ format: "uuid" }),
  requesterId: t.String(),
  requesterResNo: t.String(),
  status: t.String({ description: "Your offer's status when it ended: REJECT (you declined), CANCEL (it lapsed or you gave it back), FAILED" }),
  reason: t.String({ description: "PROVIDER_REJECTED, ACCEPT_TIMEOUT, PROVIDER_GAVE_BACK or DELIVERY_FAILED", examples: ["ACCEPT_TIMEOUT"] }),
  fee: t.Union([t.String(), t.Null()], { description: "The fee you were offered" }),
  currency: t.Union([t.String(), t.Null()]),
  pickupDate: t.Number({ description: "Unix seconds" }),
  endedAt: t.Number({ description: "When your offer ended, Unix seconds" }),
});

/** Core booking lookup, the company's bookings list and the published lifecycle. */
export function coreReservations(
  deps: ManageTripDeps,
  auth: Authenticator,
  positions: PositionStore,
  places: PickupZoneDeps & { airports: AirportDirectory; gazetteer: Gazetteer },
) {
  return new Elysia({ name: "core-reservations", prefix: "/api" })
    .use(authMacros(auth))
    .get("/trip-states", () => tripStates, {
      response: { 200: TripStates },
      detail: {
        tags: ["Trips"],
        summary: "The trip lifecycle",
        description:
          "Every status, its resStatus label, whether it is final, the statuses it may move to directly (`next`) " +
          "and by a forward skip along `mainPath` (`skipTo`). No credential needed.",
        security: [],
      },
    })
    .get(
      "/reservations",
      async ({ caller, query }) => {
        const page = await listBookings(deps, caller, query);
        return {
          success: true as const,
          data: {
            items: page.items.map((s) => ({ ...bookingSummaryView(s), pickupZone: pickupPlaceZone(s.pickup, places) })),
            total: page.total,
            limit: page.limit,
            offset: page.offset,
          },
        };
      },
      {
        coreAuth: true,
        query: t.Object({
          ...Paging.properties,
          status: t.Optional(t.String({ maxLength: 32, description: "Only bookings in this status" })),
          requesterResNo: t.Optional(t.String({ maxLength: 100 })),
          role: t.Optional(t.String({ maxLength: 16, description: "requester or provider; both when absent" })),
          pickupFrom: t.Optional(
            t.String({
              maxLength: 40,
              description: "Only pickups at or after: Unix seconds, a date (its first second, UTC) or an ISO 8601 date-time",
              examples: ["2026-12-01"],
            }),
          ),
          pickupTo: t.Optional(
            t.String({
              maxLength: 40,
              description: "Only pickups at or before: Unix seconds, a date (its last second, UTC) or an ISO 8601 date-time",
              examples: ["2026-12-31"],
            }),
          ),
        }),
        response: {
          200: t.Object({ success: t.Literal(true), data: Page(Summary) }),
          ...errors(400, 401),
        },
        detail: {
          tags: ["Trips"],
          summary: "List your company's bookings",
          description:
            "Bookings where your company is the requester or the provider, newest first; filters status, role, " +
            "requesterResNo and a pickup window (pickupFrom, pickupTo). Out-of-range limit or offset, an unknown " +
            "status or role, an unreadable date: 400 naming the parameter.",
          security: [{ bearer: [] }],
        },
      },
    )
    .get(
      "/reservations/lost",
      async ({ caller, query }) => ({
        success: true as const,
        data: { items: deps.lostOffers ? await lostOffers(deps.lostOffers, caller, Number(query.limit ?? MAX_LOST_OFFERS)) : [] },
      }),
      {
        coreAuth: true,
        query: t.Object({
          limit: t.Optional(t.String({ pattern: "^(100|[1-9][0-9]?)$", maxLength: 3, description: "1–100 (default 100)", examples: ["25"] })),
        }),
        response: { 200: t.Object({ success: t.Literal(true), data: t.Object({ items: t.Array(LostOfferItem) }) }), ...errors(400, 401) },
        detail: {
          tags: ["Trips"],
          summary: "The offers your company lost lately",
          description:
            "Bookings offered to your company whose offer ended — you declined, let acceptBy pass, gave the booking back " +
            "after accepting it, or the cascade moved it to another provider — the newest first, from your " +
            "`booking.withdrawn` events while they are kept (24 h). Read-only: GET /api/reservation/{transactionId} still " +
            "shows you your own offer (its status and reason), nothing of the provider after you. See " +
            "docs/terms.md#who-sees-what.",
          security: [{ bearer: [] }],
        },
      },
    )
    .get(
      "/reservation/:transactionId/cancel-fee",
      async ({ caller, params }) => ({ success: true as const, data: cancelFeeNow(await findBooking(deps, caller, params.transactionId), deps.clock.now()) }),
      {
        anyAuth: true,
        params: TransactionIdParams,
        response: { 200: t.Object({ success: t.Literal(true), data: CancelFeeData }), ...errors(400, 401, 404) },
        detail: {
          tags: ["Trips"],
          summary: "What cancelling the booking would cost its requester now",
          description:
            "Either party of the booking (the requester's or the provider's users, core JWT or platform token); anyone " +
            "else and an unknown id get the same 404 BOOKING_NOT_FOUND. Free while the provider has not accepted " +
            "(reason NOT_ACCEPTED); then `percent` of the booking's quoted fare (`fare`: its quoted lines, never lines " +
            "the provider added later) per the terms it was made under (`terms.cancellation`: the first tier whose " +
            "`until` is not past, else the last): `0` up to `freeUntil` (FREE_WINDOW). A requester's cancel when it " +
            "charges (LATE_CANCELLATION; sendTrip CANCEL, cancelTripByTransactionId, cancelTripByResNo) adds the fee " +
            'line `{type: "CANCELLATION", code: "CANCELLATION_FEE", name, amount}` and sets `totalAmount` to the fee. ' +
            "A cancelled booking answers the fee it was charged (CANCELLED); a quote, a booking made before terms " +
            "existed, one without a price and one the requester can no longer cancel: 0, `reason` says which. See " +
            "docs/terms.md#the-cancellation-fee.",
          security: [{ bearer: [] }, { platformToken: [] }],
        },
      },
    )
    .get(
      "/reservation/:transactionId",
      async ({ caller, params }) => {
        const booking = await findBookingToRead(deps, caller, params.transactionId);
        // A provider whose offer ended reads its own offer, and may move it no more (docs/terms.md#who-sees-what).
        const { booking: seen, viewer, location } = await seenWithPosition(booking, caller, positions);
        return {
          success: true as const,
          data: { ...bookingView(seen, location), pickupZone: pickupPlaceZone(booking.trip.locations.pickup, places) },
          places: tripPlaces(booking.trip.locations, places),
          providerNext: viewer === "former" ? [] : nextSteps(booking.status, "provider").filter((to) => !tooEarlyFor(to, booking.pickupDate, deps.clock.now())),
        };
      },
      {
        anyAuth: true,
        params: TransactionIdParams,
        detail: {
          // Documented, not checked: a run-time check would drop the members no schema names.
          responses: documentedResponses({ 200: BookingWithPlaces, ...errors(400, 401, 404) }),
          tags: ["Trips"],
          summary: "Get a booking",
          description:
            "`Authorization: Bearer <core JWT>`, a bare core JWT, or a platform token (with or without Bearer). " +
            "Only the requester's and the provider's users see it; anyone else and an unknown id get the same 404. A " +
            "provider sees only its own offer (never `fallback`, earlier providers, their prices or outcomes); a provider " +
            "whose offer ended (declined, lapsed, gave back, or the cascade moved the booking on) still reads its own " +
            "offer: its status and reason, nothing of the provider after it (docs/terms.md#who-sees-what). " +
            "A transactionId that is not a UUID: 400. `pickupZone` names the IANA time zone of the pickup's place " +
            "(its airport's, the one at its coordinates or at its city), in which `locations.pickup.time` is read. " +
            "`places` (beside `data`) says where each place of the trip is (an airport pickup at its airport), for " +
            "a map; `providerNext` the statuses its provider may move it to now.",
          security: [{ bearer: [] }, { platformToken: [] }],
        },
      },
    );
}
