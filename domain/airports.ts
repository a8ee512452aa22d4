/** An airport of the directory. */
export interface Airport {
  iata: string;
  name: string;
  lat: number;
  lon: number;
  /** IANA time zone, e.g. America/Los_Angeles. */
  timeZone: string;
  /** ISO 3166-1 alpha-2 country code, when the directory knows it. */
  country?: string;
}

/** IATA code → airport. Codes are matched case-insensitively after trimming. */
export interface AirportDirectory {
  lookup(code: string): Airport | undefined;
}
