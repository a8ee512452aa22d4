/** A provider's service radius (integration setting `serviceRadiusKm`): 1–500 km, 50 by default. */
export const DEFAULT_SERVICE_RADIUS_KM = 50;
export const MIN_SERVICE_RADIUS_KM = 1;
export const MAX_SERVICE_RADIUS_KM = 500;
