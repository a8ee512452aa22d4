import example from "../../adapters/http/examples/sendtrip-new.json";
import quoteExample from "../../adapters/http/examples/sendtrip-quote.json";
import type { Harness } from "./harness";

export interface Party {
  netid: string;
  /** Platform token (header `token`). */
  token: string;
  /** Core JWT. */
  jwt: string;
}

/** Registers a company and logs it in on both surfaces. */
export async function party(h: Harness, netid: string, coType: "CO" | "IO"): Promise<Party> {
  const c = await h.registerCompany({ netid, coType });
  return { netid: c.netid, token: await h.platformToken(c.netid, c.password), jwt: await h.coreToken(c.netid, c.password) };
}

/** A requester, a provider and a company that is neither. */
export async function parties(h: Harness, suffix = "") {
  const [requester, provider, stranger] = await Promise.all([party(h, `BOOKWELL${suffix}`, "CO"), party(h, `ACME-LIMO${suffix}`, "IO"), party(h, `OTHER-OPS${suffix}`, "IO")]);
  return { requester, provider, stranger };
}

let resNo = 0;
/** A fresh requester reservation number. */
export function nextResNo(): string {
  return `RES-${process.pid}-${++resNo}`;
}

type Json = Record<string, any>;

/** The shared REGULAR example, addressed from `requester` to `provider`, with a fresh requesterResNo and overrides. */
export function regularTrip(requester: string, provider: string, over: Json = {}, affiliate: Json = {}): Json {
  const body = structuredClone(example) as Json;
  body.affiliateReservation = { ...body.affiliateReservation, requesterId: requester, providerId: provider, requesterResNo: nextResNo(), ...affiliate };
  return { ...body, ...over };
}

/**
 * A pickup `hours` after `now` (Unix seconds; default the real clock) as an instant in UTC: within 12 h, the trip's
 * own statuses (EN_ROUTE and later) may be sent (docs/integration.md#trip-statuses-wait-for-the-trip).
 */
export function pickupIn(hours: number, now = Date.now() / 1000): string {
  return `${new Date(Math.floor(now + hours * 3600) * 1000).toISOString().slice(0, 19)}Z`;
}

/**
 * The shared REGULAR example picking up in 3 h (unless `over` names its own locations): a trip its provider may run
 * through to CLOSE now.
 */
export function soonTrip(requester: string, provider: string, over: Json = {}, affiliate: Json = {}, now?: number): Json {
  const body = regularTrip(requester, provider, over, affiliate);
  if (over.locations === undefined) body.locations = { ...body.locations, pickup: { ...body.locations.pickup, time: pickupIn(3, now) } };
  return body;
}

/** The shared QUOTE example, addressed from `requester` to `provider`, with a fresh requesterResNo and overrides. */
export function quoteTrip(requester: string, provider: string, over: Json = {}, affiliate: Json = {}): Json {
  const body = structuredClone(quoteExample) as Json;
  body.affiliateReservation = { ...body.affiliateReservation, requesterId: requester, providerId: provider, requesterResNo: nextResNo(), ...affiliate };
  return { ...body, ...over };
}

export interface FleetFixture {
  slug: string;
  type?: string;
  name?: string;
  maxPassengers: number;
  maxLuggage: number | null;
  minimumRate?: string;
  hourlyRate?: string;
  imageUrl?: string | null;
  active?: boolean;
  /** Where it stands (both or neither; SFO when neither is given) and the airports it lists (SFO by default). */
  lat?: number | null;
  lon?: number | null;
  airports?: string[];
  currency?: string;
}

/** Saves fleet entries through the fleet repository, each under its own slug (the database is fresh). */
export async function insertFleet(h: Harness, netid: string, entries: FleetFixture[]): Promise<void> {
  const saved = await h.services.fleet.insertAll(
    entries.map((e) => ({
      slugBase: e.slug,
      netid,
      type: e.type ?? "SEDAN",
      name: e.name ?? e.slug,
      description: `${e.slug} description`,
      imageUrl: e.imageUrl ?? null,
      maxPassengers: e.maxPassengers,
      maxLuggage: e.maxLuggage,
      lat: e.lat !== undefined ? e.lat : 37.6213,
      lon: e.lon !== undefined ? e.lon : -122.379,
      airports: e.airports ?? ["SFO"],
      minimumRate: e.minimumRate ?? "0",
      hourlyRate: e.hourlyRate ?? "100.00",
      currency: e.currency ?? "USD",
      active: e.active ?? true,
      createdAt: 0,
      updatedAt: 0,
    })),
  );
  const wrong = saved.find((s, i) => s.slug !== entries[i].slug);
  if (wrong) throw new Error(`fleet fixture saved as ${wrong.slug}: its slug was taken`);
  // Quotes find serving vehicles through the geo index, as the fleet routes' changes would tell it.
  h.services.fleetIndex.fleetChanged(saved.map((s) => s.slug));
  await h.indexed();
}

/** POST sendTrip with the party's platform token. */
export function sendTrip(h: Harness, who: Party, body: unknown, headers: Record<string, string> = {}) {
  return h.request("POST", "/Platform.svc/sendTrip/V1", { body, headers: { token: who.token, ...headers } });
}

/** Provider status update. */
export function providerUpdate(h: Harness, who: Party, transactionId: string, body: unknown, headers: Record<string, string> = {}) {
  return h.request("POST", `/Platform.svc/providerUpdateStatusByTransactionId/${transactionId}/V1`, { body, headers: { token: who.token, ...headers } });
}

/** Core lookup with the party's JWT. */
export function lookup(h: Harness, who: Party, transactionId: string) {
  return h.request("GET", `/api/reservation/${transactionId}`, { headers: { authorization: `Bearer ${who.jwt}` } });
}

/** The party's integration settings (webhook, farm-in delivery, …) saved with its JWT, as its console would. */
export function integrate(h: Harness, who: Pick<Party, "jwt">, body: unknown) {
  return h.request("PUT", "/api/company/integration", { headers: { authorization: `Bearer ${who.jwt}` }, body });
}
