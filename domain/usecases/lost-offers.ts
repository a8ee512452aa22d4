import type { Caller } from "../ports";
import type { LiveEventLog } from "../events/live-events";

/**
 * The offers a provider lost (docs/terms.md#who-sees-what): bookings offered to it whose offer ended — it declined,
 * let acceptBy pass, gave the booking back, or the cascade moved it on — read from its own `booking.withdrawn` events
 * while the event log keeps them (a day). Each is its own offer as its read shows it, read-only: nothing of the
 * provider after it.
 */
export interface LostOffer {
  transactionId: string;
  requesterId: string;
  requesterResNo: string;
  /** The offer's status when it ended (REJECT, CANCEL, FAILED) and why. */
  status: string;
  reason: string;
  fee: string | null;
  currency: string | null;
  pickupDate: number;
  /** When the offer ended, Unix seconds. */
  endedAt: number;
}

/** Lost offers listed at most. */
export const MAX_LOST_OFFERS = 100;

/** The event type a lost offer is told by. */
const WITHDRAWN = "booking.withdrawn";

/** The caller's lost offers, the newest first, at most `limit` (1–100). */
export async function lostOffers(log: Pick<LiveEventLog, "recent">, caller: Caller, limit: number): Promise<LostOffer[]> {
  const events = await log.recent(caller.netid.toLowerCase(), WITHDRAWN, Math.min(Math.max(1, limit), MAX_LOST_OFFERS));
  const seen = new Set<string>();
  const out: LostOffer[] = [];
  for (const e of events) {
    const body = JSON.parse(e.body) as WithdrawnBody;
    const d = body.data;
    if (seen.has(d.transactionId)) continue;
    seen.add(d.transactionId);
    const offer = d.offers?.[0];
    out.push({
      transactionId: d.transactionId,
      requesterId: d.fromConextId,
      requesterResNo: d.sourceResNo,
      status: d.lastStatus,
      reason: body.reason,
      fee: offer?.fee ?? null,
      currency: offer?.currency ?? null,
      pickupDate: d.pickupDate,
      endedAt: body.createdAt,
    });
  }
  return out;
}

/** What a `booking.withdrawn` body holds that the list shows. */
interface WithdrawnBody {
  reason: string;
  createdAt: number;
  data: {
    transactionId: string;
    fromConextId: string;
    sourceResNo: string;
    lastStatus: string;
    pickupDate: number;
    offers?: Array<{ fee: string | null; currency: string | null }>;
  };
}
