import type { ConvertedFee } from "../fx/convert";
import type { BreakdownLine } from "./breakdown-line";
import type { TripWarning } from "./warnings";
import type { FlightRecord } from "./flight-record";
import type { UnassignedWarning } from "./assignment-record";
import type { CostRecovery, FinalFare, RecoveryTier } from "./settlement-terms";
export type { CostRecovery, CostRecoveryRecord, FinalFare, RecoveryTier } from "./settlement-terms";
export type { BookingEvent, BookingMove } from "./booking-changes";
import type { TripActor, TripStatus } from "./lifecycle";
import type { ExtraFields, Passenger, Phone, TripAccount, TripLocation, TripLocations, TripNote } from "./trip-parts";
export type { ExtraFields, FlightInfo, TripLocation, Phone, Passenger, TripAccount, NoteContext, TripNote, TripLocations } from "./trip-parts";

export type ReservationType = "REGULAR" | "ONDEMAND" | "QUOTE";
export type TripAction = "NEW" | "UPDATE" | "CANCEL";

/** A fee line; on a quote, one vehicle option (spec "Quote vehicle option"). */
export interface Fee {
  type?: string;
  code?: string;
  name?: string;
  description?: string;
  fee?: string;
  currency?: string;
  vehType?: string;
  passengerCount?: string;
  luggageCount?: string;
  images?: string[];
  validUntil?: string;
  /** GNet fee lines: a percentage (e.g. gratuity) and whether the amount is reimbursable. */
  percent?: string | number;
  reimbursable?: string | boolean;
  [field: string]: unknown;
}

/** The terms of a quote option or a booking: instants (UTC), fixed when it is made. */
export interface Terms {
  /** Until when cancelling costs nothing; null when no tier is free. */
  freeCancellationUntil: string | null;
  /** Cancelling until `until` costs `percent` of the fare (ascending); after the last, the last one's percent. */
  cancellation: Array<{ until: string; percent: number }>;
  /** Minutes the chauffeur waits free at the pickup: the airport figure for an airport pickup, else the other. */
  freeWaitingMinutes: number;
  /** What waiting beyond them costs, when the provider set it (docs/flights.md#waiting-and-no-show): per started period. */
  waitingRate?: { amount: string; perMinutes: number };
  /** A chauffeur is assigned by this instant: the pickup − `assignBeforeMinutes` (docs/terms.md#the-assignment-deadline). */
  assignBy?: string;
}

/** A vehicle option of a quote, as built by the exchange from the provider's fleet. */
export interface QuoteOption extends Fee {
  type: "OTHER";
  code: string;
  name: string;
  description: string;
  fee: string;
  currency: string;
  vehType: string;
  passengerCount: string;
  images: string[];
  validUntil: string;
  /** How the fee is made up (docs/rates.md#how-a-vehicle-is-priced): the amounts sum exactly to `fee`. */
  breakdown?: BreakdownLine[];
  /** The provider's terms for this option (docs/terms.md#policies). */
  terms?: Terms;
}

/** The assigned vehicle, as the provider sent it: GNet's names (plateNo, vColor, vehicleType…) or the older ones. */
export interface Vehicle {
  vehicleId?: string;
  vehicleType?: string;
  make?: string;
  model?: string;
  year?: string | number;
  vin?: string;
  plateNo?: string;
  vColor?: string;
  passengerCount?: string | number;
  mileage?: string | number;
  vehType?: string;
  color?: string;
  licensePlate?: string;
  description?: string;
  [field: string]: unknown;
}

export interface Chauffeur {
  chauffeurId?: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  phoneNumber?: string;
  picURL?: string;
  phones?: Phone[];
  [field: string]: unknown;
}

/** What a provider's last status update carried besides the fields the booking keeps (GNet's timestamps, griddID…). */
export interface ProviderUpdateInfo {
  LocalTimestamp?: string;
  UTCtimestamp?: string;
  griddID?: string;
  [field: string]: unknown;
}

/** The trip itself: the tripPacket fields a requester sends, as stored. */
export interface Trip {
  reservationType: ReservationType;
  runType?: string;
  /** An ISO 8601 date-time or a bare offset such as "-08:00" (GNet's samples), kept as sent. */
  reservationDate?: string;
  /** A whole number ≥ 1, as a string (spec). */
  passengerCount: string;
  /** Absent when not specified — never "0" by default (luggageCount rule 4). */
  luggageCount?: string;
  preferredVehicleType?: string;
  specialInstructions?: string;
  locations: TripLocations;
  passengers: Passenger[];
  account?: TripAccount;
  fees: Fee[];
  notes?: TripNote[];
  namesignInstructions?: string;
  eventName?: string;
  sourceVendor?: string;
  origination?: string;
  /** Minutes, as sent (string or number); an hourly quote is priced on it. */
  totalTripDuration?: string | number;
  /** Top-level fields no schema names, kept verbatim. */
  extra?: ExtraFields;
}

/** The trip's members (every top-level name of a tripPacket the trip stores), in the order a tripPacket lists them. */
export const TRIP_MEMBERS = [
  "reservationType",
  "runType",
  "reservationDate",
  "passengerCount",
  "luggageCount",
  "preferredVehicleType",
  "specialInstructions",
  "locations",
  "passengers",
  "account",
  "fees",
  "notes",
  "namesignInstructions",
  "eventName",
  "sourceVendor",
  "origination",
  "totalTripDuration",
] as const satisfies ReadonlyArray<keyof Trip>;
// Every member of Trip but `extra` is listed (a compile error names one missing).
const tripMembersComplete: Record<Exclude<keyof Trip, "extra" | (typeof TRIP_MEMBERS)[number]>, never> = {};
void tripMembersComplete;

/** Timestamped record of a change, kept inside the booking (spec changeLogs). */
export interface ChangeLog {
  /** ISO 8601 date-time (UTC). */
  timestamp: string;
  changeSource: string;
  changeDesc: string;
}

/** A delivery or processing error recorded on the booking (spec transactionErrors). */
export interface TransactionError {
  timestamp: string;
  errCode: string;
  errDesc: string;
}

/** One booking (or quote) between a requester and a provider. */
export interface Booking {
  transactionId: string;
  requesterId: string;
  requesterResNo: string;
  providerId: string;
  /** The provider's own reservation number; null until known. */
  providerResNo: string | null;
  status: TripStatus;
  /** uid of the user who submitted the trip. */
  userid: string;
  sourcePlatform: string;
  targetPlatform: string;
  /** Unix seconds. */
  submitDate: number;
  /** Unix seconds: the pickup time read in the pickup place's time zone. */
  pickupDate: number;
  /** Unix seconds of the last change. */
  updatedAt: number;
  /** Decimal string; null while unknown. */
  totalAmount: string | null;
  /** Unix seconds until which a quote may be converted into a booking; null when not a quote. */
  quoteValidUntil: number | null;
  /** Fingerprint of the NEW request that created (or converted) it, for idempotent repeats. */
  contentHash: string;
  /** Last action the requester sent. */
  action: TripAction;
  /** The requester's notes (affiliateReservation.notes). */
  notes: string;
  providerNote?: string;
  vehicle?: Vehicle;
  chauffeur?: Chauffeur;
  /** GNet metadata of the provider's last update (timestamps, griddID, fields no schema names). */
  providerUpdate?: ProviderUpdateInfo;
  /** affiliateReservation fields no schema names, kept verbatim. */
  affiliateExtra?: ExtraFields;
  /** How the requester's NEW asked to be answered (ASYNC or WAIT), when it said; shown with the trip. */
  submitMode?: "ASYNC" | "WAIT";
  /**
   * Why delivery to the provider is failing (its last failed attempt): set from a failed attempt until an attempt
   * succeeds, shown as affiliateReservation.status FAILED with the reason in its notes.
   */
  deliveryFailure?: string;
  /** What the request that made the booking (or quote) was warned about, kept so reads show it; absent when nothing. */
  warnings?: TripWarning[];
  /**
   * The quote option the booking was made from (a converted QUOTE, a network quote's option): its fee lines are the
   * provider's, and a requester's UPDATE of a priced field re-prices that vehicle (docs/integration.md#the-price-is-bound-to-the-trip). Absent otherwise.
   */
  quoted?: QuotedOrigin;
  /** The terms the booking was made under (docs/terms.md#policies): fixed then, never changed by a later policy. */
  terms?: Terms;
  /** Until when (Unix seconds) the provider may accept (docs/terms.md#the-acceptance-deadline-acceptby); absent on quotes and older bookings. */
  acceptBy?: number;
  /** The requester's own shorter acceptance window, kept for the offers the cascade makes. */
  acceptWithinMinutes?: number;
  /** The cascade (docs/terms.md#the-cascade-fallback): the requester's alone, never shown to a provider (docs/terms.md#who-sees-what). */
  fallback?: Fallback;
  /**
   * The provider cancelled its offer (docs/terms.md#give-back): before it accepted (a decline) or after (a give-back);
   * the cascade moves a booking with a fallback on, as after a REJECT.
   */
  providerCancelled?: "BEFORE_ACCEPTANCE" | "AFTER_ACCEPTANCE";
  /** Every provider the booking was offered to, the current one last (docs/terms.md#the-cascade-fallback). */
  offers?: Offer[];
  /** Why the exchange ended the booking: ACCEPT_TIMEOUT or NO_PROVIDER_ACCEPTED. */
  reason?: string;
  /** The flight the pickup meets and follows (docs/flights.md#flights): absent when the pickup names none. */
  flight?: FlightRecord;
  /** The trip's clock: arrival, ON_LOCATION, on board, flags (docs/flights.md#arrival); absent until one is known. */
  clock?: TripClock;
  /** The final fare (docs/settlement.md#the-final-fare): open for lines until `until` from the trip's end, then final. */
  finalFare?: FinalFare;
  /**
   * The requester's give-back recovery tiers (docs/settlement.md#give-back-recovery), fixed when the booking is made:
   * what its provider owes if it gives the booking back after accepting. Shown to the provider with every offer.
   */
  giveBackRecovery?: RecoveryTier[];
  /** What its provider owes the requester for giving the booking back (docs/settlement.md#give-back-recovery). */
  costRecovery?: CostRecovery;
  /** The assignment deadline's warning, once sent (docs/terms.md#the-assignment-deadline). */
  unassignedWarning?: UnassignedWarning;
  trip: Trip;
  changeLogs: ChangeLog[];
  transactionErrors: TransactionError[];
}

/**
 * The trip's clock (docs/flights.md#arrival): when the chauffeur arrived by its positions, when the provider said
 * ON_LOCATION and PASSENGER_ON_BOARD (UTC ISO 8601 instants), and the flags they earn.
 */
export interface TripClock {
  /** The time taken (`locationDateTime`) of the first position within reach of the pickup sent from ASSIGNED on. */
  arrivedAt?: string;
  /** When the provider sent ON_LOCATION (or a status past it, skipping it). */
  onLocationAt?: string;
  /** When the provider sent PASSENGER_ON_BOARD (or a status past it, skipping it). */
  onBoardAt?: string;
  flags?: TripFlag[];
}

export type TripFlag = "ON_LOCATION_BEFORE_ARRIVAL";

/** The cascade's cap: re-offer to the next option of the network quote at most at `maxFee`, never a smaller class when asked. */
export interface Fallback {
  maxFee: string;
  sameClassOrBetter?: boolean;
}

/** One offer of a booking to a provider (docs/terms.md#the-cascade-fallback); `reason` says why it ended. */
export interface Offer {
  provider: string;
  fee: string | null;
  currency: string | null;
  status: string;
  reason?: string;
  /** UTC ISO instant the offer was made. */
  at: string;
  /** The terms the provider offered the trip under (docs/terms.md#each-provider-its-own-terms). */
  terms?: Terms;
  /** The offered vehicle's type (`fallback.sameClassOrBetter` compares the first one's class); not shown in offers[]. */
  vehType?: string;
  /**
   * Once the offer ended: what the provider's own read shows of it (docs/terms.md#who-sees-what) — its number, fee
   * lines and deadline, and when it ended (Unix seconds). Never shown in offers[].
   */
  ended?: { resNo: string | null; fees: Fee[]; acceptBy?: number; at: number };
}

/** The quote option a booking was made from: vehicle code (none if partner-priced), network quote, how many first fee `lines` it priced. */
export interface QuotedOrigin {
  code?: string;
  quoteId?: string;
  /** The option's fee as the network quote showed it converted (docs/fx.md#what-a-network-quote-shows): a record; the provider's fee is the contract. */
  converted?: ConvertedFee;
  lines?: number;
}

/** A booking as lists show it: who, which numbers, where it stands and its pickup. */
export interface BookingSummary {
  transactionId: string;
  requesterId: string;
  providerId: string;
  requesterResNo: string;
  providerResNo: string | null;
  status: TripStatus;
  submitDate: number;
  pickupDate: number;
  reservationType: ReservationType;
  /** The pickup as sent (read from the stored trip), so a list can place it in its time zone. */
  pickup: TripLocation;
}

/** Who a caller is to a booking; undefined when it is not a party (and must not learn it exists). */
export function roleOf(booking: Pick<Booking, "requesterId" | "providerId">, netid: string): TripActor | undefined {
  const n = netid.toLowerCase();
  if (booking.requesterId.toLowerCase() === n) return "requester";
  if (booking.providerId.toLowerCase() === n) return "provider";
  return undefined;
}

/** Whether `netid` is the provider of the booking (a company may be both parties). */
export function isProvider(booking: Pick<Booking, "providerId">, netid: string): boolean {
  return booking.providerId.toLowerCase() === netid.toLowerCase();
}

/** Whether `netid` is the requester of the booking. */
export function isRequester(booking: Pick<Booking, "requesterId">, netid: string): boolean {
  return booking.requesterId.toLowerCase() === netid.toLowerCase();
}

/** Unix seconds as an ISO 8601 UTC date-time without milliseconds. */
export function isoAt(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().replace(".000Z", "Z");
}
