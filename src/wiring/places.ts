import type { OutboundGuard } from "../../adapters/delivery/outbound-guard";
import { SearchGeocoder } from "../../adapters/geocoder/search-geocoder";
import type { Geocoder } from "../../domain/trips/ports";
import type { RoutePlacingDeps } from "../../domain/trips/drop-off-place";
import type { Wiring } from "./context";
import type { ReferenceData } from "./reference";

/**
 * Places: what places a trip's drop-off and stops (docs/places.md#drop-offs-and-stops) — the airport directory, the
 * gazetteer and, with GEOCODER_URL, the geocoder, called through the guard every outbound request passes.
 */
export function wirePlaces({ config, logger }: Wiring, { reference, guard }: { reference: ReferenceData; guard: OutboundGuard }) {
  const geocoder: Geocoder | undefined = config.geocoderUrl
    ? new SearchGeocoder({
        url: config.geocoderUrl,
        guard,
        timeoutMs: config.geocoderTimeoutMs ?? 2000,
        onProblem: (reason) => logger.warn({ reason }, "geocoder: a search failed; drop-offs are placed by their city for the next 30 s"),
      })
    : undefined;
  const places: RoutePlacingDeps = { airports: reference.airports, gazetteer: reference.gazetteer, ...(geocoder ? { geocoder } : {}) };
  return { places };
}

export type PlacesWiring = ReturnType<typeof wirePlaces>;
