import { t } from "elysia";
import { DISPUTE_TEXT_MAX } from "../../../domain/usecases/statement-disputes";

// Statements and disputes (docs/settlement.md#statements-and-settlement): request and response schemas.

const Amount = (description: string, example: string) => t.String({ description, examples: [example] });
const State = t.Union([t.Literal("DRAFT"), t.Literal("ISSUED"), t.Literal("FINAL"), t.Literal("DISPUTED")], {
  description: "DRAFT until the month ends, ISSUED from the 1st, FINAL 5 working days later; DISPUTED while a line's dispute is open",
});

export const StatementQuery = t.Object({
  period: t.Optional(t.String({ maxLength: 20, description: "Required. The month of the pickups, YYYY-MM (UTC)", examples: ["2026-03"] })),
  counterparty: t.Optional(
    t.String({ maxLength: 100, description: "The other company's netid; without it, the month's list of counterparties", examples: ["BOOKWELL"] }),
  ),
  format: t.Optional(t.String({ maxLength: 10, description: "`csv`: the statement's lines as CSV (as `Accept: text/csv`)", examples: ["csv"] })),
});

export const StatementTotal = t.Object({
  currency: t.String({ description: "ISO 4217 (XXX for amounts whose booking names no currency)", examples: ["USD"] }),
  youOwe: Amount("What you owe the counterparty in this currency, unsigned, in the currency's minor unit", "150.00"),
  owedToYou: Amount("What the counterparty owes you", "40.00"),
  net: Amount("owedToYou − youOwe, signed: the counterparty's statement shows its negation", "-110.00"),
});

export const StatementLine = t.Object({
  transactionId: t.String(),
  requesterResNo: t.String({ description: "The requester's reservation number" }),
  pickup: t.String({ description: "The pickup, ISO 8601 UTC: its month is the statement's", examples: ["2026-03-04T16:30:00Z"] }),
  role: t.Union([t.Literal("requester"), t.Literal("provider")], { description: "Your role in the booking" }),
  kind: t.Union([t.Literal("FARE"), t.Literal("CANCELLATION_FEE"), t.Literal("COST_RECOVERY")], {
    description: "FARE (a CLOSE'd booking's fare so far) and CANCELLATION_FEE are owed by the requester; COST_RECOVERY by the provider",
  }),
  amount: Amount("Unsigned, exact, in the currency's minor unit", "110.00"),
  currency: t.String({ examples: ["USD"] }),
  status: t.String({ description: "The booking's status", examples: ["CLOSE"] }),
  disputed: t.Boolean({ description: "Whether the line has an open dispute" }),
  fareFinal: t.Optional(t.Boolean({ description: "FARE lines: false while the provider may still add lines (docs/settlement.md#the-final-fare)" })),
});

export const DisputeView = t.Object({
  id: t.String({ examples: ["dsp_0b6f7c1e-5d1a-4c59-9a53-1f0e2b7d9c4a"] }),
  transactionId: t.String(),
  raisedBy: t.String({ description: "The netid of the party that raised it" }),
  reason: t.String(),
  raisedAt: t.Number({ description: "Unix seconds" }),
  state: t.Union([t.Literal("OPEN"), t.Literal("ACCEPTED"), t.Literal("ANSWERED")]),
  answer: t.Nullable(t.String({ description: "The other party's answer (ANSWERED)" })),
  answeredAt: t.Nullable(t.Number({ description: "Unix seconds" })),
});

export const Statement = t.Object({
  period: t.String({ examples: ["2026-03"] }),
  counterparty: t.String({ examples: ["BOOKWELL"] }),
  state: State,
  issuedAt: t.Number({ description: "Unix seconds: the 1st of the next month, 00:00 UTC" }),
  finalAt: t.Number({ description: "Unix seconds: when it is FINAL unless disputed (5 working days, in each party's time zone)" }),
  lines: t.Array(StatementLine),
  totals: t.Array(StatementTotal),
  disputes: t.Array(DisputeView, { description: "Every dispute of the month's lines, oldest first" }),
});

export const CounterpartyTotals = t.Object({
  counterparty: t.String(),
  state: State,
  lines: t.Number({ description: "How many lines its statement holds" }),
  totals: t.Array(StatementTotal),
});

export const RaiseDisputeBody = t.Object({
  transactionId: t.String({ maxLength: 64, description: "The line's booking" }),
  reason: t.String({
    maxLength: DISPUTE_TEXT_MAX * 4,
    description: `Why the line is wrong: 1 to ${DISPUTE_TEXT_MAX} characters`,
    examples: ["Tolls were not on the route"],
  }),
});

export const AnswerDisputeBody = t.Object({
  accept: t.Optional(t.Boolean({ description: "true: you agree the line is wrong and will put it right" })),
  answer: t.Optional(t.String({ maxLength: DISPUTE_TEXT_MAX * 4, description: `Why the line stands: 1 to ${DISPUTE_TEXT_MAX} characters` })),
});
