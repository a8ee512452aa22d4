/** Mean Earth radius used for every great-circle distance in the service (the same as geokdbush's). */
export const EARTH_RADIUS_KM = 6371;

const RAD = Math.PI / 180;

/** sin²(θ / 2). */
function haverSin(theta: number): number {
  const s = Math.sin(theta / 2);
  return s * s;
}

/**
 * Great-circle (haversine) distance in kilometres between two positions given in degrees: geokdbush's
 * `distance` term for term (the search index's), so both give the same number to the last bit.
 */
export function greatCircleKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const h = Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * haverSin((lon1 - lon2) * RAD) + haverSin((lat1 - lat2) * RAD);
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** A position in degrees. */
export interface Position {
  lat: number;
  lon: number;
}
