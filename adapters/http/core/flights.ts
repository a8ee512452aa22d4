import { Elysia } from "elysia";
import { reportFlightStatus, type FollowFlightDeps } from "../../../domain/usecases/follow-flight";
import { authMacros, type Authenticator } from "../auth";
import { errors, TransactionIdParams } from "../schemas";
import { FlightStatusAnswer, FlightStatusBody } from "./flights.model";

/** The pickup follows the flight (docs/flights.md#the-pickup-follows-the-flight): a party reports the flight's landing. */
export function coreFlights(deps: FollowFlightDeps, auth: Authenticator) {
  return new Elysia({ name: "core-flights", prefix: "/api" }).use(authMacros(auth)).post(
    "/reservation/:transactionId/flight-status",
    async ({ caller, params, body }) => ({ success: true as const, data: await reportFlightStatus(deps, caller, params.transactionId, body) }),
    {
      anyAuth: true,
      params: TransactionIdParams,
      body: FlightStatusBody,
      response: { 200: FlightStatusAnswer, ...errors(400, 401, 404, 409) },
      detail: {
        tags: ["Trips"],
        summary: "Report the flight's landing: the pickup follows it",
        description:
          "Either party of the booking (core JWT or platform token; the sandbox's dispatcher as its provider); anyone " +
          "else and an unknown id get the same 404 BOOKING_NOT_FOUND. Send one of `estimatedArrival` and " +
          "`actualArrival`: a wall-clock time at the pickup airport (like the pickup's own time) or an instant with " +
          "Z or an offset. The pickup moves to landing + `pickupOffsetMinutes` (pickup − scheduled landing, kept " +
          "when the booking was made), later or earlier, in ONE change: `locations.pickup.time` (in its own form), " +
          "`pickupDate`, the terms' instants and the vehicle hold move with it, a changeLogs line is written, the " +
          "provider is sent an UPDATE, the requester a `booking.pickup_moved` webhook `{from, to, cause}` (cause " +
          "FLIGHT_DELAY or FLIGHT_EARLY), both parties' event streams the same event. A pickup now less than 15 min " +
          "away warns PICKUP_MOVED_SHORT_NOTICE. A status that does not move the pickup answers `moved: false` and " +
          "keeps the estimate. 409: VEHICLE_UNAVAILABLE when the vehicle is held at the new hour (nothing of the " +
          "move is kept; both parties are warned: `booking.pickup_move_blocked` and a transactionErrors entry " +
          "PICKUP_MOVE_VEHICLE_UNAVAILABLE), NO_FLIGHT (the pickup names no flight), FLIGHT_SCHEDULE_UNKNOWN (no " +
          "scheduled landing to count the offset from: send `scheduledArrival`), PICKUP_NOT_MOVABLE (a quote, or a " +
          "booking whose passenger is on board or that ended). A move by more than 60 min lets the provider give the " +
          "booking back without recovery for 30 min (docs/flights.md#a-big-move-lets-the-provider-give-the-booking-back). " +
          "A service with a flight-data API (FLIGHT_STATUS_KEY) makes the same change itself for the bookings landing " +
          "within hours, its changeLogs source `exchange:flight-status` (docs/flights.md#the-flight-status-poller).",
        security: [{ bearer: [] }, { platformToken: [] }],
      },
    },
  );
}
