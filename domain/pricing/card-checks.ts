/**
 * The rate card's checks that look across its parts (docs/rates.md#setting-the-card): members a part does not have,
 * distance bands and rules that can never apply, amounts beyond the largest a card may hold. Each is called once by
 * validateRateCard (card.ts) and reports through its `fail`, so a bad card is one 400 naming every field.
 */

type Fail = (field: string, message: string) => void;
type Item = Record<string, unknown>;

/** The largest amount a card may hold, in its currency (docs/rates.md#setting-the-card). */
export const MAX_CARD_AMOUNT = 1_000_000;
/**
 * The most a rate card may take as sent, in bytes (docs/rates.md#setting-the-card): the request body of PUT
 * /api/company/rates or the file `rates import` reads. Far more than a busy operator's card (2,000 routes of small
 * zones); a card of tens of megabytes slowed the quotes priced beside its reading and compiling.
 */
export const RATE_CARD_MAX_BYTES = 1024 * 1024;
/** The longest distance band, km of road: a provider never quotes a longer trip (maxTripKm ≤ 5,000). */
export const MAX_BAND_KM = 5000;

const isItem = (v: unknown): v is Item => typeof v === "object" && v !== null && !Array.isArray(v);

/** The members of each part of a card; a surcharge's depend on its kind, a zone's on its shape. */
const MEMBERS = {
  routes: { noun: "route", names: ["id", "from", "to", "vehTypes", "price", "bothWays"] },
  distance: { noun: "distance rate", names: ["id", "vehTypes", "base", "includedKm", "perKm", "upToKm"] },
  hourly: { noun: "hourly rate", names: ["id", "vehTypes", "perHour", "minimumHours"] },
  extras: { noun: "extra", names: ["code", "name", "price", "max"] },
} as const;
const SURCHARGE_MEMBERS = ["id", "kind", "name", "amount", "percent"];
const SURCHARGE_KIND_MEMBERS: Record<string, string[]> = { airportPickup: ["airports"], night: ["from", "to"], date: ["dates"] };
const ZONE_MEMBERS = { airport: ["airport"], polygon: ["polygon"], circle: ["lat", "lon", "radiusKm"] } as const;

/** Fails each member of `item` not in `names`, naming it (`routes[0].colour`). */
function onlyMembers(item: Item, names: readonly string[], field: string, what: string, fail: Fail): void {
  for (const key of Object.keys(item))
    if (item[key] !== undefined && !names.includes(key)) fail(`${field}.${key}`, `is not a member of ${what} (${names.join(", ")})`);
}

/** A zone's members, by the shape validateRateCard reads it as: an airport, else a polygon, else a circle. */
function zoneMembers(zone: unknown, field: string, fail: Fail): void {
  if (!isItem(zone)) return;
  const shape = zone.airport !== undefined ? "airport" : zone.polygon !== undefined ? "polygon" : "circle";
  onlyMembers(zone, ZONE_MEMBERS[shape], field, shape === "airport" ? "an airport zone" : `a ${shape} zone`, fail);
}

/**
 * Unknown members of the card's parts (a route's, a rate's, a surcharge's for its kind, an extra's, a zone's for its
 * shape): a member the card does not read would do nothing, so each is refused, named (docs/rates.md#setting-the-card).
 * The card's own top-level members are checked by validateRateCard; a list longer than it may be is not walked.
 */
export function checkUnknownMembers(input: Item, limits: { routes: number; other: number }, fail: Fail): void {
  const items = (key: string, max: number): Item[] => {
    const list = input[key];
    return Array.isArray(list) && list.length <= max ? list.map((x) => (isItem(x) ? x : {})) : [];
  };
  for (const key of ["routes", "distance", "hourly", "extras"] as const)
    items(key, key === "routes" ? limits.routes : limits.other).forEach((item, i) => {
      const { noun, names } = MEMBERS[key];
      onlyMembers(item, names, `${key}[${i}]`, `a ${noun}`, fail);
      if (key === "routes") for (const side of ["from", "to"]) zoneMembers(item[side], `routes[${i}].${side}`, fail);
    });
  items("surcharges", limits.other).forEach((item, i) => {
    const own = typeof item.kind === "string" ? SURCHARGE_KIND_MEMBERS[item.kind] : undefined;
    // A surcharge of no known kind is failed on its kind; its other members are not judged.
    if (own) onlyMembers(item, [...SURCHARGE_MEMBERS, ...own], `surcharges[${i}]`, `a ${item.kind} surcharge`, fail);
  });
}

/** A rule that prices some vehicle types (all when `vehTypes` is absent), over road km up to `upToKm` (all when absent). */
interface TypedRule {
  id: string;
  vehTypes?: string[];
  upToKm?: number;
}

/**
 * Reads each distance rule's `upToKm` (its band: trips of at most that many road km; 0.1–5,000) into `rules`, then
 * refuses the rules that can never apply (checkShadowedRules): for a vehicle type the first rule in card order whose
 * band holds the trip applies (docs/rates.md#distance-bands).
 */
export function checkDistanceBands(raw: unknown, rules: TypedRule[], fail: Fail): void {
  if (!Array.isArray(raw)) return;
  rules.forEach((rule, i) => {
    const v = isItem(raw[i]) ? raw[i].upToKm : undefined;
    if (v === undefined) return;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0.1 || v > MAX_BAND_KM)
      fail(`distance[${i}].upToKm`, `must be a number from 0.1 to ${MAX_BAND_KM} (the band's longest trip, km of road)`);
    else rule.upToKm = v;
  });
  checkShadowedRules("distance", rules, fail);
}

/**
 * Refuses each rule of `key` that can never apply: every vehicle type it names (every type, when it names none) is
 * priced first by an earlier rule whose band holds all of its own (no `upToKm`, or one at least as long). A type's
 * first rule wins (docs/rates.md#distance-bands), so such a rule would never price a trip.
 */
export function checkShadowedRules(key: "distance" | "hourly", rules: readonly TypedRule[], fail: Fail): void {
  const holdsBand = (earlier: TypedRule, rule: TypedRule) =>
    earlier.upToKm === undefined || (rule.upToKm !== undefined && earlier.upToKm >= rule.upToKm);
  const pricesType = (earlier: TypedRule, type: string | undefined) =>
    earlier.vehTypes === undefined || (type !== undefined && earlier.vehTypes.includes(type));
  rules.forEach((rule, j) => {
    const first = (type: string | undefined) => rules.slice(0, j).findIndex((e) => pricesType(e, type) && holdsBand(e, rule));
    const by = (rule.vehTypes ?? [undefined]).map(first);
    if (by.some((i) => i < 0)) return;
    const earlier = [...new Set(by)].map((i) => `${key}[${i}] (${rules[i].id})`).join(", ");
    const band = key === "distance" ? " over its whole band" : "";
    const fix = key === "distance" ? "give the earlier rule an upToKm, or remove this one" : "remove this one";
    fail(`${key}[${j}]`, `can never apply: ${earlier} already prices its vehicle types${band}; ${fix}`);
  });
}

/** The amounts of a card as validateRateCard normalised them (decimal strings). */
interface CardAmounts {
  minimumFare?: string;
  routes: ReadonlyArray<{ price: string }>;
  distance: ReadonlyArray<{ base: string; perKm: string }>;
  hourly: ReadonlyArray<{ perHour: string }>;
  surcharges: ReadonlyArray<{ amount?: string }>;
  extras: ReadonlyArray<{ price: string }>;
}

/**
 * Refuses each amount above 1,000,000 in the card's currency: a fee is counted in whole minor units, and amounts this
 * size keep every sum of them exact (docs/rates.md#setting-the-card).
 */
export function checkAmountCaps(card: CardAmounts, fail: Fail): void {
  const check = (amount: string | undefined, field: string) => {
    if (amount === undefined) return;
    const [whole, fraction = ""] = amount.split(".");
    if (Number(whole) > MAX_CARD_AMOUNT || (Number(whole) === MAX_CARD_AMOUNT && /[1-9]/.test(fraction)))
      fail(field, `must be at most 1,000,000 (in the card's currency)`);
  };
  check(card.minimumFare, "minimumFare");
  card.routes.forEach((r, i) => check(r.price, `routes[${i}].price`));
  card.distance.forEach((r, i) => (check(r.base, `distance[${i}].base`), check(r.perKm, `distance[${i}].perKm`)));
  card.hourly.forEach((r, i) => check(r.perHour, `hourly[${i}].perHour`));
  card.surcharges.forEach((s, i) => check(s.amount, `surcharges[${i}].amount`));
  card.extras.forEach((e, i) => check(e.price, `extras[${i}].price`));
}
