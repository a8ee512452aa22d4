import { Elysia, t } from "elysia";
import { planFleetSearch, type PlannedFleetSearch, type SearchFleetDeps } from "../../../domain/usecases/search-fleet";
import type { RawFleetSearchQuery } from "../../../domain/fleet/search";
import type { Caller } from "../../../domain/ports";
import type { SearchAnswerCache } from "../../../domain/fleet/answer-cache";
import { documentedResponses, errors } from "../schemas";
import { authMacros, type Authenticator } from "../auth";
import type { RateLimiter } from "../rate-limit";
import { FleetEntryOutput } from "./fleet-entry.model";
import { SearchAnswerJson } from "./search-answer-json";

const param = (description: string, example?: string) => t.Optional(t.String({ maxLength: 2000, description, ...(example ? { examples: [example] } : {}) }));

/** Query parameters arrive as strings; one domain function checks them all and names every failing one (400). */
export const FleetSearchQuerySchema = t.Object({
  airports: param(
    "Comma-separated IATA codes, at most 25, trimmed and case-insensitive. Required unless lat and lon are both " +
    "sent; with lat/lon the centres are the union.", "JFK,LGA"),
  lat: param("Latitude of an extra centre, -90 to 90; send together with lon", "40.7128"),
  lon: param("Longitude of an extra centre, -180 to 180; send together with lat", "-74.006"),
  city: param(
    "A city as a centre (≤ 200 chars), found as a pickup's city is: case- and accent-insensitive, native and common " +
    "alternate names (München, Köln, New York), the most populous match in the country when no state is given. " +
    "Unknown: 400 naming `city`. Another match of a similar size: warning PICKUP_CITY_AMBIGUOUS naming the one chosen.",
    "Boston"),
  state: param("Narrows `city`: the state or first-level division, as a code (MA, ENG, BY) or a name (Massachusetts)", "MA"),
  country: param("Narrows `city`: ISO 3166-1 alpha-2 code or the country's name", "US"),
  types: param("Comma-separated vehicle types, case-insensitive; default all types", "SUV,SEDAN"),
  q: param("Search text (≤ 200 chars): every word must occur, case- and accent-insensitively, in name, description or type. Blank matches all.", "leather"),
  radius_km: param("Search radius in km around each centre: greater than 0, at most 1000; default 50", "50"),
  limit: param(
    "Page size, whole number 1–100, default 20. Honoured on PROFESSIONAL and ENTERPRISE; FREE always gets 20 " +
    "(out-of-range values are 400 on every plan).", "20"),
  offset: param("Matches to skip, whole number ≥ 0, default 0", "0"),
});

const entry = FleetEntryOutput.properties;

/** The named fields of a fleet entry's answer, as it documents them. */
function entryFields<const K extends keyof typeof entry>(...names: K[]): Pick<typeof entry, K> {
  return Object.fromEntries(names.map((name) => [name, entry[name]])) as Pick<typeof entry, K>;
}

/** A search hit: the entry's public fields with its position, distance and score. */
const FleetItem = t.Object({
  ...entryFields("netid", "type", "name", "description", "imageUrl", "maxPassengers", "maxLuggage"),
  lat: t.Number(),
  lon: t.Number(),
  distanceKm: t.Number({ description: "Great-circle distance to the nearest centre, km, rounded to 2 decimals", examples: [3.42] }),
  score: t.Number({
    description: "1 − distance / radius_km (unrounded distance), rounded to 4 decimals: 1 at a centre, 0 at the radius",
    examples: [0.9316],
  }),
  ...entryFields("minimum_rate", "hourly_rate"),
  currency: t.String({ description: "ISO 4217: the currency of the vehicle's rates (minimum_rate, hourly_rate)", examples: ["USD"] }),
  ...entryFields("slug"),
});

const SearchWarning = t.Object(
  {
    code: t.Union([t.Literal("UNRESOLVABLE_AIRPORT"), t.Literal("MISSING_GPS"), t.Literal("PICKUP_CITY_AMBIGUOUS")], {
      description:
        "UNRESOLVABLE_AIRPORT: a requested code is not a known IATA code (one per code, netid \"\", airport = the " +
        "code). MISSING_GPS: a company has matching entries serving a requested airport without a position (one " +
        "per company; they are not in items). PICKUP_CITY_AMBIGUOUS: `city` matches other places of a similar size " +
        "(a quarter of its population or more); the most populous was the centre, and `city` names it (netid \"\").",
    }),
    netid: t.String({ description: "The company concerned; \"\" for UNRESOLVABLE_AIRPORT and PICKUP_CITY_AMBIGUOUS" }),
    airport: t.Optional(t.String({ description: "UNRESOLVABLE_AIRPORT only: the code" })),
    city: t.Optional(t.String({ description: "PICKUP_CITY_AMBIGUOUS only: the place chosen (name, state, country)", examples: ["Springfield, MO, US"] })),
    detail: t.String(),
  },
  { additionalProperties: true },
);

const EXAMPLE = {
  success: true,
  data: {
    items: [
      {
        netid: "ACME-LIMO",
        type: "SUV",
        name: "Cadillac Escalade",
        description: "Black SUV, leather seats, Wi-Fi",
        imageUrl: null,
        maxPassengers: 6,
        maxLuggage: 5,
        lat: 40.6501,
        lon: -73.7902,
        distanceKm: 1.35,
        score: 0.973,
        minimum_rate: 95,
        hourly_rate: 85.5,
        currency: "USD",
        slug: "acme-limo-cadillac-escalade",
      },
    ],
    total: 1,
    limit: 20,
    offset: 0,
    warnings: [
      { code: "UNRESOLVABLE_AIRPORT", netid: "", airport: "XQZ", detail: "Airport code XQZ is not a known IATA code; it was ignored" },
      { code: "MISSING_GPS", netid: "BLUE-SKY-CARS", detail: "3 entries of BLUE-SKY-CARS serving JFK have no GPS position and are not in the results" },
    ],
  },
};


/** Checked searches remembered (the set starts over beyond it). */
const MAX_PLANS = 10_000;
/** Longer parameter sets are checked every time: the remembered set stays within a few megabytes. */
const MAX_PLAN_KEY = 400;

/**
 * planFleetSearch, remembered by the raw query string and plan: the check is a pure function of them (and of
 * the airport directory, which does not change), so a repeated search skips it. `keep` remembers one (the route
 * keeps those whose answer is kept); refused searches are never kept.
 */
function rememberedPlans(deps: SearchFleetDeps) {
  let plans = new Map<string, PlannedFleetSearch>();
  // The raw query string as sent: the same string always parses to the same parameters (differently written
  // equal searches are simply remembered apart).
  const keyOf = (caller: Caller, url: string) => {
    const at = url.indexOf("?");
    return at < 0 ? caller.plan : caller.plan + url.slice(at);
  };
  return {
    plan(caller: Caller, url: string, query: () => RawFleetSearchQuery): { plan: PlannedFleetSearch; key: string; known: boolean } {
      const key = keyOf(caller, url);
      const known = plans.get(key);
      return known ? { plan: known, key, known: true } : { plan: planFleetSearch(deps, caller, query()), key, known: false };
    },
    keep(key: string, plan: PlannedFleetSearch): void {
      if (key.length > MAX_PLAN_KEY) return;
      if (plans.size >= MAX_PLANS) plans = new Map();
      plans.set(key, plan);
    },
  };
}

/** Cross-operator fleet search (GET /api/search/fleet). */
/** The search's answer (documented, not declared as `response`: the handler sends bytes it encoded itself). */
const FleetSearchAnswer = t.Object(
  {
    success: t.Literal(true),
    data: t.Object({
      items: t.Array(FleetItem, { description: "The page [offset, offset + limit) ordered by distanceKm, then slug (byte order)" }),
      total: t.Number({ description: "All matches, not just this page" }),
      limit: t.Number({ description: "The page size applied (20 on FREE whatever was asked)" }),
      offset: t.Number({ description: "The offset applied" }),
      warnings: t.Array(SearchWarning),
    }),
  },
  { examples: [EXAMPLE] },
);

/** The encoded answer, typed as what it decodes to, so the app's type (and a typed client) knows the route's answer. */
const asAnswer = (bytes: Uint8Array) => bytes as unknown as typeof FleetSearchAnswer.static;

/**
 * What both ways of serving the search share (the Elysia route below and the lean handler of fleet-search-fast.ts):
 * checked searches remembered by raw query string, and answers encoded once and kept for the index generation they
 * were computed on, so a repeated search is a lookup.
 */
export class FleetSearchAnswering {
  private readonly json: SearchAnswerJson;
  private readonly plans: ReturnType<typeof rememberedPlans>;

  constructor(deps: SearchFleetDeps, private readonly answers?: SearchAnswerCache<Uint8Array>) {
    this.json = new SearchAnswerJson(deps);
    this.plans = rememberedPlans(deps);
  }

  /** The checked search of a request (throws the 400 naming each bad parameter); `query` is read only when it is new. */
  plan(caller: Caller, url: string, query: () => RawFleetSearchQuery): PlannedSearch {
    return this.plans.plan(caller, url, query);
  }

  /** The answer's bytes: kept ones, or computed and kept in one synchronous step (the index cannot move in between). */
  answer({ plan, key, known }: PlannedSearch): Uint8Array {
    const cached = this.answers?.get(plan.key);
    if (cached) return cached;
    const body = this.json.encode(plan);
    const kept = this.answers?.set(plan.key, body, body.byteLength, { centres: plan.centres, radiusKm: plan.query.radiusKm, airports: plan.query.airports });
    if (kept && !known) this.plans.keep(key, plan);
    return body;
  }
}

export type PlannedSearch = { plan: PlannedFleetSearch; key: string; known: boolean };

export function coreFleetSearch(deps: SearchFleetDeps, auth: Authenticator, limiter: RateLimiter, answers?: SearchAnswerCache<Uint8Array>) {
  const answering = new FleetSearchAnswering(deps, answers);
  return new Elysia({ name: "core-fleet-search", prefix: "/api" }).use(authMacros(auth)).get(
    "/search/fleet",
    // Serialised here, once per answer: the answer's shape is fixed by the domain's FleetSearchResult type. The
    // responses are documented in `detail` rather than declared as `response`, so Elysia neither checks nor
    // cleans up to 100 items per request.
    ({ query, caller, set, request }) => {
      const answer = () => {
        set.headers["content-type"] = "application/json";
        return asAnswer(answering.answer(answering.plan(caller, request.url, () => query)));
      };
      // Budgets in this process answer synchronously: the search itself then runs in the same turn, no await.
      const checked = limiter.check("searchPerMinute", caller.netid, set.headers as Record<string, string>);
      return checked ? checked.then(answer) : answer();
    },
    {
      coreProfileAuth: true,
      query: FleetSearchQuerySchema,
      detail: {
        responses: documentedResponses({
          200: FleetSearchAnswer,
        ...errors(400, 401, 404, 429),
        }),
        tags: ["Fleet"],
        summary: "Search fleets across operators",
        description:
          "Finds active vehicles with a position within radius_km of any centre: every resolvable airport in " +
          "`airports`, plus (lat, lon) when sent, plus the place `city` (+ `state`, `country`) names. Each item " +
          "carries the `currency` of its rates. An item matches when its type is in `types` (all when absent) and " +
          "every word of `q` occurs in its name, description or type (case- and accent-insensitive). Order: " +
          "distance, then slug. 400 (naming the parameter): no location, lat or lon alone, an unknown city, non-numeric or " +
          "out-of-range lat/lon/radius_km, limit outside 1–100, negative offset, more than 25 airports. 401: " +
          "missing or invalid token. 404 USER_PROFILE_NOT_FOUND: the token's user was removed. 429 RATE_LIMITED " +
          "when your company's searches per minute are spent (Retry-After; RateLimit-Limit, -Remaining and -Reset " +
          "on every answer).",
        security: [{ bearer: [] }],
      },
    },
  );
}
