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
  createdAt: number;
  updatedAt: number;
}
