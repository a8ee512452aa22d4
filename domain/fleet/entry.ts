/** One listed vehicle or vehicle class of an operator. */
export interface FleetEntry {
  slug: string;
  netid: string;
  /** Upper-case vehicle code: SEDAN, SUV, SPRINTER, LIMO, BUS, COACH, VAN_MINI… */
  type: string;
  name: string;
  description: string;
  imageUrl: string | null;
  maxPassengers: number;
  /** null when the luggage capacity is unknown. */
  maxLuggage: number | null;
  /** Both or neither. */
  lat: number | null;
  lon: number | null;
  /** IATA codes served, upper-case. */
  airports: string[];
  /** Decimal strings with at most 2 decimals. */
  minimumRate: string;
  hourlyRate: string;
  currency: string;
  active: boolean;
  /** The operator's own id of the entry (unique within its company), or null: what an import matches rows on. */
  externalId?: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What pricing a vehicle reads of its fleet entry (a FleetEntry or a ServingVehicle). */
export type QuotableVehicle = Pick<
  FleetEntry,
  "slug" | "type" | "name" | "description" | "imageUrl" | "maxPassengers" | "maxLuggage" | "minimumRate" | "hourlyRate" | "currency" | "active"
>;

/**
 * A fleet entry's own fields as the API names them (rates as JSON numbers under `minimum_rate` and
 * `hourly_rate`): what an owner sends, and the body of what the fleet routes answer.
 */
export function fleetEntryFields(e: Omit<FleetEntry, "slug" | "netid" | "createdAt" | "updatedAt">) {
  return {
    type: e.type,
    name: e.name,
    description: e.description,
    imageUrl: e.imageUrl,
    maxPassengers: e.maxPassengers,
    maxLuggage: e.maxLuggage,
    lat: e.lat,
    lon: e.lon,
    airports: e.airports,
    minimum_rate: Number(e.minimumRate),
    hourly_rate: Number(e.hourlyRate),
    currency: e.currency,
    active: e.active,
    externalId: e.externalId ?? null,
  };
}
