/**
 * What happened to a booking in one change: the events a change records in its own transaction, which the outbox,
 * the webhooks and the event streams are built from. A leaf: the booking, the rules and the stores all read these.
 */
import type { TripActor, TripStatus } from "./lifecycle";
import type { PickupMove } from "./flight-record";
import type { UnassignedWarning } from "./assignment-record";

/** Something that happened to a booking, persisted in the change's transaction: the outbox drives deliveries and webhooks from it. */
export interface BookingEvent {
  type:
    | "TRIP_SENT"
    | "QUOTE_REQUESTED"
    | "TRIP_UPDATED"
    | "TRIP_CANCELLED"
    | "STATUS_CHANGED"
    | "PROVIDER_DETAILS_CHANGED"
    | "DELIVERED"
    | "DELIVERY_FAILED"
    | "DELIVERY_RETRIED"
    | "DELIVERY_RECOVERED"
    | "LOCATION_CHANGED"
    | "REASSIGNED"
    | "OFFER_WITHDRAWN"
    | "PICKUP_MOVED"
    | "PICKUP_MOVE_BLOCKED"
    | "ARRIVED"
    | "FARE_FINAL"
    | "UNASSIGNED_WARNING";
  transactionId: string;
  actor: TripActor;
  /** Unix seconds. */
  at: number;
  status: TripStatus;
  previousStatus?: TripStatus;
  /**
   * OFFER_WITHDRAWN: the provider whose offer ended (docs/terms.md#who-sees-what) and why; `cancel`: it is sent CANCEL
   * for its own copy (a lapse, a failed delivery; not after its own REJECT or CANCEL).
   */
  formerProvider?: { netid: string; reason: string; cancel: boolean };
  /** REASSIGNED: who had it, who has it now, why it moved, and what changed for the requester. */
  move?: BookingMove;
  /** PICKUP_MOVED, PICKUP_MOVE_BLOCKED: the pickup's move by its flight (docs/flights.md#the-pickup-follows-the-flight). */
  pickupMove?: PickupMove;
  /** UNASSIGNED_WARNING: the deadline that passed without a chauffeur (docs/terms.md#the-assignment-deadline). */
  unassigned?: UnassignedWarning;
  /** The exchange made the change itself (the offer watch): never refused for a company's store bound. */
  byExchange?: true;
}

/** A cascade move as `booking.reassigned` tells the requester (docs/terms.md#each-provider-its-own-terms). */
export interface BookingMove {
  from: string;
  to: string;
  reason: string;
  /** The total before and after (`fromCurrency` when the earlier one was in another currency). */
  priceChange: { from: string | null; to: string; currency: string; fromCurrency?: string };
  /** Whether the new provider's terms differ from those the booking had. */
  termsChanged: boolean;
}
