import { Elysia, t } from "elysia";
import { findPlaces, MAX_FOUND_PLACES, type FindPlacesDeps } from "../../../domain/usecases/find-places";
import { authMacros, type Authenticator } from "../auth";
import { errors } from "../schemas";
import type { RateLimiter } from "../rate-limit";

const FoundPlaceOut = t.Object({
  label: t.String({ examples: ["New York City, NY, US"] }),
  lat: t.Number(),
  lon: t.Number(),
  by: t.Union([t.Literal("city"), t.Literal("address")], {
    description:
      "city: the gazetteer's town, at its centre (a drop-off placed there warns DROPOFF_APPROXIMATE); address: the geocoder's place",
  }),
  country: t.Optional(t.String({ description: "ISO 3166-1 alpha-2, when known", examples: ["US"] })),
  city: t.Optional(t.String({ description: "By city: the town's own name, to send as the drop-off's city", examples: ["New York City"] })),
  state: t.Optional(t.String({ description: "By city: its first-level division's code, to send as the drop-off's state", examples: ["NY"] })),
});

const PlacesAnswer = t.Object(
  { success: t.Literal(true), data: t.Object({ places: t.Array(FoundPlaceOut, { maxItems: MAX_FOUND_PLACES }) }) },
  {
    examples: [
      {
        success: true,
        data: {
          places: [
            { label: "200 Park Avenue, New York, NY, United States", lat: 40.7536, lon: -73.9767, by: "address", country: "US" },
            { label: "New York City, NY, US", lat: 40.71427, lon: -74.00597, by: "city", country: "US", city: "New York City", state: "NY" },
          ],
        },
      },
    ],
  },
);

/** `GET /api/places?q=`: places to choose a drop-off from (docs/places.md#drop-offs-and-stops). */
export function corePlaces(deps: FindPlacesDeps, auth: Authenticator, rateLimiter: RateLimiter) {
  return new Elysia({ name: "core-places", prefix: "/api" }).use(authMacros(auth)).get(
    "/places",
    async ({ query, caller, set }) => {
      await rateLimiter.check("searchPerMinute", caller.netid, set.headers as Record<string, string>);
      return { success: true as const, data: { places: await findPlaces(deps, query.q, query.limit === undefined ? undefined : Number(query.limit)) } };
    },
    {
      anyAuth: true,
      query: t.Object({
        q: t.String({
          maxLength: 200,
          description: "A city (`Boston`, `Boston, MA`, `München, DE`) or a place's address",
          examples: ["200 Park Ave, New York"],
        }),
        limit: t.Optional(
          t.String({ maxLength: 2, pattern: "^([1-9]|10)$", description: "At most this many places, a whole number 1–10 (default 5)" }),
        ),
      }),
      response: { 200: PlacesAnswer, ...errors(400, 401, 429) },
      detail: {
        tags: ["Quotes"],
        summary: "Find places: a city or an address to place a drop-off at",
        description:
          "`Authorization: Bearer <core JWT>` or the platform header `token`. When the service has a geocoder " +
          "(GEOCODER_URL: a Photon- or Nominatim-compatible /search, called through the outbound guard, answers cached), " +
          "the places it finds for `q`, best first; then the city `q` names, at its centre (the first comma-separated " +
          "part the gazetteer knows as a city, the parts after it as state and/or country). Send an address place's " +
          "lat and lon as the trip's " +
          "drop-off: a drop-off placed only by its city is priced from the city's centre and warns DROPOFF_APPROXIMATE " +
          "(docs/places.md#drop-offs-and-stops). Nothing found: an empty list. `q` of fewer than 2 or more than 200 " +
          "characters: 400 naming `q`. Counted against your fleet-search budget per minute.",
        security: [{ bearer: [] }, { platformToken: [] }],
      },
    },
  );
}
