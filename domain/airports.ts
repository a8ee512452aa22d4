/** An airport of the directory. */
export interface Airport {
  iata: string;
  name: string;
  lat: number;
  lon: number;
  /** IANA time zone, e.g. America/Los_Angeles. */
  timeZone: string;
}

/** IATA code → airport. Codes are matched case-insensitively after trimming. */
export interface AirportDirectory {
  lookup(code: string): Airport | undefined;
}
