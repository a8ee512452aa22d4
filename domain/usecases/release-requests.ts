import type { Caller, Clock, CompanyRepository } from "../ports";
import type { HoldIndex } from "../fleet/holds";
import type { ChangeContext } from "../trips/decisions";
import type { BookingRepository } from "../trips/ports";
import { UNACCEPTED_STATUSES } from "../trips/offers";
import { decideRelease } from "../trips/release";

/** What releasing a requester's pending requests needs. */
export interface ReleaseDeps {
  bookings: Pick<BookingRepository, "list" | "change">;
  companies: Pick<CompanyRepository, "findByNetid">;
  clock: Clock;
  /** The quotes' copy of the holds, told the provider's vehicles were freed. */
  holds?: Pick<HoldIndex, "forget">;
}

/** Requests one call releases at most; `more` says when the requester has others pending with the caller. */
export const MAX_RELEASED = 500;

export interface Released {
  /** The requester as the caller named it. */
  requester: string;
  /** The transactionIds released, each now REJECT with reason RELEASED. */
  released: string[];
  more: boolean;
}

/**
 * Release a requester's pending requests (docs/availability.md#releasing-a-requesters-pending-requests): find the
 * caller's unaccepted bookings from that requester, end each as REJECT with reason RELEASED in its own transaction
 * (one accepted or ended meanwhile is left as it is), and let quotes see the vehicles they held as free. Nothing counts
 * on the caller's provider record. A netid no company holds releases nothing, answered alike.
 */
export async function releaseRequests(deps: ReleaseDeps, caller: Caller, netid: string): Promise<Released> {
  const requester = /^[A-Za-z0-9_-]{1,64}$/.test(netid) ? await deps.companies.findByNetid(netid) : undefined;
  if (!requester) return { requester: netid, released: [], more: false };
  const ctx: ChangeContext = { now: deps.clock.now(), netid: caller.netid, uid: caller.uid };
  const pages = await Promise.all(
    UNACCEPTED_STATUSES.map((status) =>
      deps.bookings.list({ netid: caller.netid, role: "provider", status, requesterId: requester.netid, limit: MAX_RELEASED, offset: 0 }),
    ),
  );
  const pending = pages.flatMap((p) => p.items).slice(0, MAX_RELEASED);
  const more = pages.reduce((n, p) => n + p.total, 0) > pending.length;
  const done = await Promise.all(pending.map((b) => deps.bookings.change({ transactionId: b.transactionId }, (current) => decideRelease(current, ctx))));
  const released = pending.filter((_, i) => done[i]).map((b) => b.transactionId);
  if (released.length > 0) deps.holds?.forget(caller.netid);
  return { requester: netid, released, more };
}
