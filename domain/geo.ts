/** Mean Earth radius used for every great-circle distance in the service (same as geokdbush). */
export const EARTH_RADIUS_KM = 6371;

const RAD = Math.PI / 180;

/** Great-circle (haversine) distance in kilometres between two positions given in degrees. */
export function greatCircleKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const sinDLat = Math.sin(((lat2 - lat1) * RAD) / 2);
  const sinDLon = Math.sin(((lon2 - lon1) * RAD) / 2);
  const h = sinDLat * sinDLat + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * sinDLon * sinDLon;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(Math.min(1, h)));
}

/** A position in degrees. */
export interface Position {
  lat: number;
  lon: number;
}
