// OpenAPI prose of the statements routes (docs/settlement.md#statements-and-settlement).

export const STATEMENT_DESCRIPTION = [
  "`Authorization: Bearer <core JWT>` or the platform header `token`. What you and one counterparty owe each other for a",
  "month of pickups (the pickup's UTC month), both directions (docs/settlement.md#statements-and-settlement): every",
  "CLOSE'd booking's fare (listed at once with its fare so far), every cancellation fee and every cost recovery",
  "between the two. A fare and a cancellation fee are owed by the requester, a cost recovery by the provider; amounts",
  "are unsigned decimal strings in the currency's minor unit, exact; `totals` per currency, `net = owedToYou − youOwe`,",
  "the exact negation of the counterparty's. `state`: DRAFT until the month ends, ISSUED on the 1st, FINAL 5 working",
  "days later (Monday to Friday, in each party's time zone), DISPUTED while a line's dispute is open",
  "(docs/settlement.md#states-and-disputes); `disputes` lists the month's disputes.",
  "",
  "Without `counterparty`: the month's counterparties, each with its state, line count and totals.",
  "",
  "`format=csv` or `Accept: text/csv` (with `counterparty`): the same lines as CSV (UTF-8 with a byte-order mark, CRLF,",
  "a header row; a text cell starting with `=`, `+`, `-` or `@` is prefixed with `'` so no spreadsheet runs it as a",
  "formula, docs/security.md#statements), streamed.",
  "",
  "400 names each bad query value (`period`, `counterparty`, `format`); 404 STATEMENT_NOT_FOUND when you have no settled",
  "booking with the counterparty in any month — an unknown netid answers the same (docs/security.md#statements); a",
  "month without lines is an empty statement.",
].join("\n");

export const RAISE_DESCRIPTION = [
  "Either party of a statement line disputes it (docs/settlement.md#states-and-disputes): the line is `disputed` and",
  "the month's statement DISPUTED until the other party answers. The other party hears `statement.disputed` (webhook",
  "and live event, written in the dispute's own transaction). `reason`: 1 to 1,000 characters. 404 STATEMENT_LINE_NOT_FOUND for a transaction not between you",
  "and another company; 409 NOT_ON_STATEMENT for a booking of yours on no statement; 409 STATEMENT_FINAL once the",
  "month's statement is FINAL; 409 DISPUTE_OPEN while the line's dispute is open.",
].join("\n");

export const ANSWER_DESCRIPTION = [
  "The other party ends a line's dispute (docs/settlement.md#states-and-disputes): `{\"accept\": true}` (the line is to",
  "be put right) or `{\"answer\": \"…\"}` (why it stands, 1 to 1,000 characters), not both. The party that raised it",
  "hears `statement.dispute_answered` (written in the answer's transaction). 404 DISPUTE_NOT_FOUND for a dispute not between you and another company; 403",
  "NOT_THE_OTHER_PARTY for the party that raised it; 409 DISPUTE_ENDED once answered.",
].join("\n");
