import type { Booking } from "./booking";
import type { Decision } from "./decision";
import { event, log, requireRole, type ChangeContext } from "./decisions";
import { UNACCEPTED_STATUSES } from "./offers";

/**
 * A provider releases a requester's pending requests (docs/availability.md#releasing-a-requesters-pending-requests),
 * pure: an unaccepted booking ends REJECT with `reason: "RELEASED"` and frees the vehicle it held — without a REJECT
 * on the provider's record, which leaves released bookings out (domain/partners/offer-facts.ts).
 */

/** The booking's `reason` once its provider released it. */
export const RELEASED = "RELEASED";

const UNACCEPTED: ReadonlySet<string> = new Set(UNACCEPTED_STATUSES);

/** The changeLogs line of a release, as the provider record recognises it. */
export function releaseLine(from: string): string {
  return `status ${from} → REJECT (${RELEASED})`;
}

/** Whether a changeLogs line records a release. */
export function isReleaseLine(changeDesc: string): boolean {
  return /^status [A-Z_]+ → REJECT \(RELEASED\)$/.test(changeDesc);
}

/**
 * The provider releases one booking, inside its transaction: an unaccepted one (BOOKING_REQUEST, PENDING) ends REJECT
 * with reason RELEASED, its current offer too; anything else — accepted, ended, a quote — is left as it is (false).
 * A caller that is not the booking's provider gets 404 or 403, as every provider change does.
 */
export function decideRelease(current: Booking | undefined, ctx: ChangeContext): Decision<boolean> {
  const b = requireRole(current, ctx.netid, "provider");
  if (!UNACCEPTED.has(b.status) || b.trip.reservationType === "QUOTE") return { result: false };
  const offers = b.offers?.map((o, i, all) => (i === all.length - 1 && o.reason === undefined ? { ...o, status: "REJECT", reason: RELEASED } : o));
  const booking: Booking = {
    ...b,
    status: "REJECT",
    reason: RELEASED,
    updatedAt: ctx.now,
    ...(offers ? { offers } : {}),
    changeLogs: [...b.changeLogs, log(ctx, "provider", releaseLine(b.status))],
  };
  return { result: true, write: { booking, events: [event(booking, "STATUS_CHANGED", "provider", ctx, b.status)] } };
}
