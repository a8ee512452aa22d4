import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "../errors";
import type { IntegrationRepository } from "../delivery/ports";
import type { NewLiveEvent } from "../events/live-events";
import type { Dispute, DisputeNotice } from "../settlement/ports";
import { periodOf, readPeriod } from "../settlement/statement";
import { pairState, type DisputeView, type StatementDeps } from "./statements";

/**
 * Disputes of statement lines (docs/settlement.md#states-and-disputes): either party of a settled booking marks its
 * line (and so the month's statement) DISPUTED with a reason; the other party ends the dispute by accepting it or by
 * answering it. Each step is told to the other party (webhook and live event), in the step's own transaction.
 */

/** The longest reason or answer, in characters. */
export const DISPUTE_TEXT_MAX = 1000;
export const DISPUTE_RAISED = "statement.disputed";
export const DISPUTE_ANSWERED = "statement.dispute_answered";

export interface DisputeDeps extends StatementDeps {
  integrations: Pick<IntegrationRepository, "get">;
  /** Wakes the delivery worker for a message just queued. */
  runner: { wake(): void };
  newId: () => string;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const lineNotFound = () => new NotFoundError("No statement line of yours with this transactionId", "STATEMENT_LINE_NOT_FOUND");
const disputeNotFound = () => new NotFoundError("No dispute of yours with this id", "DISPUTE_NOT_FOUND");

/** A reason or answer: 1 to DISPUTE_TEXT_MAX characters once trimmed, or a 400 naming `field`. */
function text(field: string, value: unknown): string {
  const t = typeof value === "string" ? value.trim() : "";
  if (t.length === 0 || [...t].length > DISPUTE_TEXT_MAX)
    throw new ValidationError([{ field, message: `must be 1 to ${DISPUTE_TEXT_MAX} characters` }]);
  return t;
}

const view = ({ requesterId: _r, providerId: _p, period: _m, ...v }: Dispute): DisputeView => v;

/** What telling `to` of a dispute's step writes with it: a live event, and a webhook when `to` has a webhook URL. */
async function notice(deps: DisputeDeps, d: Dispute, to: string, type: string): Promise<DisputeNotice> {
  const createdAt = deps.clock.now();
  const eventId = deps.newId();
  const body = JSON.stringify({ eventId, type, createdAt, data: { ...view(d), counterparty: same(to, d.requesterId) ? d.providerId : d.requesterId } });
  const role = same(to, d.requesterId) ? "requester" : "provider";
  const live: NewLiveEvent[] = [
    {
      netid: to.toLowerCase(), transactionId: d.transactionId, kind: "booking", role, type, body, bodyId: eventId, payer: to.toLowerCase(),
      bytes: Buffer.byteLength(body), createdAt,
    },
  ];
  const url = (await deps.integrations.get(to))?.webhookUrl;
  if (!url) return { live };
  const message = { eventId, channel: "webhook" as const, eventType: type, transactionId: d.transactionId, targetNetid: to, url, body };
  return { live, message: { message, at: createdAt } };
}

/** Wakes the delivery worker once a step that queued a webhook has committed. */
function told(deps: DisputeDeps, n: DisputeNotice): void {
  if (n.message) deps.runner.wake();
}

/**
 * POST /api/statements/disputes: the caller disputes its line of a settled booking. 404 STATEMENT_LINE_NOT_FOUND for
 * a transaction not between the caller and another company, 409 NOT_ON_STATEMENT for one of its bookings no statement
 * lists, 409 STATEMENT_FINAL once the month's statement is FINAL, 409 DISPUTE_OPEN while the line has an open dispute.
 */
export async function raiseDispute(deps: DisputeDeps, me: string, input: { transactionId?: unknown; reason?: unknown }): Promise<DisputeView> {
  const transactionId = typeof input.transactionId === "string" ? input.transactionId : "";
  const reason = text("reason", input.reason);
  const parties = transactionId.length > 0 && transactionId.length <= 64 ? await deps.source.parties(transactionId) : undefined;
  if (!parties || same(parties.requesterId, parties.providerId) || !(same(parties.requesterId, me) || same(parties.providerId, me))) throw lineNotFound();
  const them = same(parties.requesterId, me) ? parties.providerId : parties.requesterId;
  const p = readPeriod(periodOf(parties.pickupDate))!;
  const listed = (await deps.source.row(transactionId)) ?? (await deps.recoveries(me, p.start, p.end, them)).find((r) => r.transactionId === transactionId);
  if (!listed)
    throw new ConflictError("This booking is on no statement: only a CLOSE'd fare, a cancellation fee or a cost recovery can be disputed", "NOT_ON_STATEMENT");
  if ((await pairState(deps, p, me, them, 0)) === "FINAL")
    throw new ConflictError(`The ${p.period} statement with ${them} is FINAL: its lines can no longer be disputed`, "STATEMENT_FINAL");
  const dispute: Dispute = {
    id: `dsp_${deps.newId()}`, transactionId, requesterId: parties.requesterId, providerId: parties.providerId, period: p.period, raisedBy: me, reason,
    raisedAt: deps.clock.now(), state: "OPEN", answer: null, answeredAt: null,
  };
  const raised = await notice(deps, dispute, them, DISPUTE_RAISED);
  if (!(await deps.disputes.raise(dispute, raised)))
    throw new ConflictError("This line has an open dispute already: it ends when the other party answers it", "DISPUTE_OPEN");
  told(deps, raised);
  return view(dispute);
}

/**
 * POST /api/statements/disputes/{id}/answer: the other party ends an open dispute, `{accept: true}` (the line is to be
 * put right) or `{answer}` (why it stands). 404 DISPUTE_NOT_FOUND for a dispute not between the caller and another,
 * 403 NOT_THE_OTHER_PARTY for the party that raised it, 409 DISPUTE_ENDED once answered.
 */
export async function answerDispute(deps: DisputeDeps, me: string, id: string, input: { accept?: unknown; answer?: unknown }): Promise<DisputeView> {
  const d = /^dsp_[A-Za-z0-9-]{1,64}$/.test(id) ? await deps.disputes.get(id) : undefined;
  if (!d || !(same(d.requesterId, me) || same(d.providerId, me))) throw disputeNotFound();
  if (same(d.raisedBy, me)) throw new ForbiddenError("You raised this dispute: the other party answers it", "NOT_THE_OTHER_PARTY");
  const accepted = input.accept === true;
  if (accepted === (input.answer !== undefined))
    throw new ValidationError([{ field: input.answer === undefined ? "accept" : "answer", message: "send either accept: true or an answer (not both)" }]);
  const answer = accepted ? null : text("answer", input.answer);
  const state = accepted ? "ACCEPTED" : "ANSWERED";
  const at = deps.clock.now();
  const ended: Dispute = { ...d, state, answer, answeredAt: at };
  const answered = await notice(deps, ended, d.raisedBy, DISPUTE_ANSWERED);
  if (!(await deps.disputes.end(d.id, state, answer, at, answered))) throw new ConflictError("This dispute has been answered already", "DISPUTE_ENDED");
  told(deps, answered);
  return view(ended);
}
