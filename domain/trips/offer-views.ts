import { isRequester, type Booking, type ChangeLog, type Offer } from "./booking";
import type { TripStatus } from "./lifecycle";
import { isGiveBack, MOVE_LINE } from "./offers";

/**
 * Who sees what of a booking the cascade offered to several providers (docs/terms.md#who-sees-what), pure: the
 * requester sees all of it; its current provider only its own offer — no fallback, no earlier provider, price or
 * outcome; a provider that lost it (declined, lapsed, gave back, moved away from) its own offer as it ended, and
 * nothing of what came after. Every read, webhook and event stream shows a booking through `seenBy`.
 */

/** How a company stands to a booking: its requester, its current provider, or a provider whose offer ended. */
export type Viewer = "requester" | "provider" | "former";

/** The offers as the requester sees them: the current one carries the booking's status until it ends. */
export function offersView(b: Booking): Offer[] | undefined {
  if (!b.offers) return undefined;
  const last = b.offers.length - 1;
  return b.offers.map((o, i) => {
    const shown = shownOffer(o);
    if (i !== last || o.reason !== undefined) return shown;
    // A give-back without a fallback ends the booking as the provider's CANCEL (docs/terms.md#give-back): say so.
    return { ...shown, status: b.status, ...(isGiveBack(b) ? { reason: "PROVIDER_GAVE_BACK" } : {}) };
  });
}

/** An offer as offers[] shows it: what the provider was offered and how it ended, never what only its own read keeps. */
function shownOffer(o: Offer): Offer {
  const { ended: _e, vehType: _v, ...shown } = o;
  return shown;
}

/** The booking as `netid` may see it, and as whom; undefined when it is not a party and never was offered it. */
export function seenBy(b: Booking, netid: string): { booking: Booking; viewer: Viewer } | undefined {
  if (isRequester(b, netid)) return { booking: b, viewer: "requester" };
  const n = netid.toLowerCase();
  if (b.providerId.toLowerCase() === n) return { booking: asCurrentProvider(b), viewer: "provider" };
  const k = b.offers?.findIndex((o) => o.provider.toLowerCase() === n && o.ended !== undefined) ?? -1;
  return k >= 0 ? { booking: asFormerProvider(b, k), viewer: "former" } : undefined;
}

/** Whether the booking shows a provider anything it must not see: a fallback, or offers of other providers. */
function hidesFromProvider(b: Booking): boolean {
  return b.fallback !== undefined || (b.offers?.length ?? 0) > 1;
}

/**
 * The booking as its current provider sees it: its own offer only, the history from its offer on, no fallback. The
 * same object when there is nothing to hide (a booking without a fallback, offered once).
 */
export function asCurrentProvider(b: Booking): Booking {
  if (!hidesFromProvider(b)) return b;
  const { fallback: _f, ...rest } = b;
  const k = (b.offers?.length ?? 1) - 1;
  const own = b.offers?.[k];
  return {
    ...rest,
    // A booking the exchange ended after this offer says why this offer ended, not what the cascade did next.
    ...(b.reason !== undefined && own?.reason !== undefined ? { reason: own.reason } : {}),
    ...(own ? { offers: [shownOffer({ ...own, status: own.reason !== undefined ? own.status : b.status })] } : {}),
    changeLogs: ownLines(b, k),
    transactionErrors: b.transactionErrors.filter((e) => own === undefined || within(e.timestamp, own.at)),
  };
}

/**
 * The booking as the provider of its ended offer `k` sees it: its own number, price, terms and deadline, its offer's
 * status and reason, the history of its own offer; nothing of the provider that came after it, nor the fallback.
 */
export function asFormerProvider(b: Booking, k: number): Booking {
  const o = b.offers![k];
  const ended = o.ended!;
  const { fallback: _f, vehicle: _v, chauffeur: _c, providerNote: _n, providerUpdate: _u, deliveryFailure: _d, providerCancelled: _p, terms: _t, ...rest } = b;
  const { converted: _x, ...quoted } = b.quoted ?? {};
  const nextAt = b.offers![k + 1]?.at;
  return {
    ...rest,
    providerId: o.provider,
    providerResNo: ended.resNo,
    status: o.status as TripStatus,
    reason: o.reason,
    totalAmount: o.fee,
    updatedAt: ended.at,
    ...(b.quoted ? { quoted } : {}),
    ...(o.terms ? { terms: o.terms } : {}),
    ...(ended.acceptBy !== undefined ? { acceptBy: ended.acceptBy } : {}),
    trip: { ...b.trip, fees: ended.fees },
    offers: [shownOffer(o)],
    changeLogs: ownLines(b, k),
    transactionErrors: b.transactionErrors.filter((e) => within(e.timestamp, o.at, nextAt)),
  };
}

/**
 * The changeLogs lines of offer `k`: from the line that moved the booking to its provider (shown as an offer made to
 * it, without the earlier provider) up to the line that moved it on. Move lines are counted from the newest, so a
 * history whose oldest lines were trimmed still finds the later offers' lines.
 */
function ownLines(b: Booking, k: number): ChangeLog[] {
  const lines = b.changeLogs;
  const offers = b.offers?.length ?? 1;
  const moves: number[] = [];
  lines.forEach((l, i) => l.changeSource === "exchange" && l.changeDesc.startsWith(MOVE_LINE) && moves.push(i));
  // Move j (1-based) starts offer j; the oldest may have been trimmed away.
  const missing = offers - 1 - moves.length;
  const startMove = k - missing - 1;
  const endMove = k - missing;
  if (endMove < 0) return [];
  const from = k === 0 ? 0 : startMove >= 0 ? moves[startMove] + 1 : 0;
  const to = endMove < moves.length ? moves[endMove] : lines.length;
  const own = lines.slice(from, to).filter((l) => k === 0 || l.changeSource !== "TRIMMED");
  if (k === 0 || startMove < 0) return own;
  const o = b.offers![k];
  const made = { timestamp: lines[moves[startMove]].timestamp, changeSource: "exchange", changeDesc: offeredLine(o) };
  return [made, ...own];
}

/** The line a provider's history starts with when the cascade offered it the booking: what it was offered, nothing else. */
function offeredLine(o: Offer): string {
  const price = o.fee !== null ? ` (${[o.fee, o.currency].filter(Boolean).join(" ")})` : "";
  return `trip offered to ${o.provider}: status BOOKING_REQUEST${price}`;
}

/** Whether an entry's UTC timestamp lies at or after `from` and before `to` (ISO instants, compared as instants). */
function within(timestamp: string, from: string, to?: string): boolean {
  const t = Date.parse(timestamp);
  return !(t < Date.parse(from)) && (to === undefined || t < Date.parse(to));
}
