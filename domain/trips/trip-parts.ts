// The parts of a trip as a requester sends them (places, passengers, account, notes): plain records with no
// behaviour, kept apart from the booking so the booking's own file stays about the booking.

/**
 * Fields a client sent that no schema of ours names. They are kept verbatim and travel with the trip, so a
 * GNet integration's payload reaches the provider whole.
 */
export type ExtraFields = Record<string, unknown>;

export interface FlightInfo {
  airlineCode?: string;
  flightNumber?: string;
  /** The scheduled landing, a wall-clock time at the pickup airport (or an instant): the pickup follows it. */
  scheduledArrival?: string;
  [field: string]: unknown;
}

/**
 * A place of the trip as sent (pickup, drop-off or a stop). lat and lon are stored as strings (spec), whatever
 * JSON type they arrived as; GNet's own fields (address1/2, meetAndGreet, FBO…) and any other field are kept.
 */
export interface TripLocation {
  locationType?: string;
  landmark?: string;
  lat?: string;
  lon?: string;
  address?: string;
  address1?: string;
  address2?: string;
  city?: string;
  state?: string;
  zipCode?: string;
  country?: string;
  /** Pickup only: ISO 8601 date-time, with or without an offset. */
  time?: string;
  flightInfo?: FlightInfo;
  /** Instructions for this place (GNet's per-location specialInstructions). */
  specialInstructions?: string;
  /** GNet sends "True"/"False" strings; booleans are kept as booleans. */
  meetAndGreet?: string | boolean;
  FBO?: string | boolean;
  pointOnLocation?: string;
  /** Stops only: the stop's order, as sent. */
  stopNumber?: string | number;
  [field: string]: unknown;
}

export interface Phone {
  number?: string;
  type?: string;
  [field: string]: unknown;
}

export interface Passenger {
  firstName?: string;
  lastName?: string;
  email?: string;
  phoneNumber?: string;
  accountNumber?: string;
  phones?: Phone[];
  [field: string]: unknown;
}

export interface TripAccount {
  accountNumber?: string;
  accountName?: string;
  callerName?: string;
  callerNumber?: string;
  callerEmail?: string;
  [field: string]: unknown;
}

/** Who a trip note is for: the provider's office (AFFILIATE) or the chauffeur (DRIVER). */
export type NoteContext = "AFFILIATE" | "DRIVER";

export interface TripNote {
  message: string;
  context: NoteContext;
  [field: string]: unknown;
}

export interface TripLocations {
  pickup: TripLocation;
  dropOff?: TripLocation;
  /** Intermediate stops, in the order sent. */
  stops?: TripLocation[];
  [field: string]: unknown;
}
