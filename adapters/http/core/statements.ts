import { Elysia, t } from "elysia";
import { stringify } from "csv-stringify/sync";
import { ValidationError } from "../../../domain/errors";
import type { StatementLine } from "../../../domain/settlement/statement";
import { counterpartiesOf, statementOf } from "../../../domain/usecases/statements";
import { answerDispute, raiseDispute, type DisputeDeps } from "../../../domain/usecases/statement-disputes";
import { authMacros, type Authenticator } from "../auth";
import { documentedResponses, errors } from "../schemas";
import { AnswerDisputeBody, CounterpartyTotals, DisputeView, RaiseDisputeBody, Statement, StatementQuery } from "./statements.model";
import { ANSWER_DESCRIPTION, RAISE_DESCRIPTION, STATEMENT_DESCRIPTION } from "./statements.docs";

const security: Array<Record<string, string[]>> = [{ bearer: [] }, { platformToken: [] }];
const COLUMNS = ["transactionId", "requesterResNo", "pickup", "role", "kind", "amount", "currency", "status", "disputed", "fareFinal"] as const;
/** Lines written per chunk of the CSV stream. */
const CSV_CHUNK = 2000;

/** A text cell a spreadsheet would run as a formula, made plain text (docs/security.md#statements). */
const plain = (v: unknown) => (typeof v === "string" && /^[=+\-@\t\r]/.test(v) ? `'${v}` : v === undefined ? "" : v);

/** The lines as CSV a spreadsheet opens as it is (BOM, CRLF, a header), written a chunk at a time. */
function csvStream(lines: StatementLine[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      const rows = lines.slice(at, at + CSV_CHUNK).map((l) => COLUMNS.map((c) => plain(l[c])));
      const first = at === 0;
      const options = { header: first, columns: first ? [...COLUMNS] : undefined, bom: first, cast: { boolean: String } };
      const text = stringify(rows, { ...options, record_delimiter: "windows" });
      at += CSV_CHUNK;
      controller.enqueue(encoder.encode(text));
      if (at >= lines.length) controller.close();
    },
  });
}

/** Whether the statement is asked as CSV; 400 naming `format` for another value than csv or json. */
function wantsCsv(format: string | undefined, accept: string | null): boolean {
  if (format !== undefined && format !== "csv" && format !== "json") throw new ValidationError([{ field: "format", message: "must be csv or json" }]);
  return format === "csv" || (format === undefined && /\btext\/csv\b/i.test(accept ?? "") && !/\bapplication\/json\b/i.test(accept ?? ""));
}

const JSON_OK = documentedResponses({
  200: t.Object(
    { success: t.Literal(true), data: t.Union([Statement, t.Array(CounterpartyTotals)]) },
    { description: "The statement (with `counterparty`) as JSON or CSV, or the list of counterparties" },
  ),
});
/** The statement route's answers: JSON, or the lines as CSV. */
const STATEMENT_RESPONSES = {
  ...JSON_OK,
  200: {
    ...JSON_OK[200],
    content: {
      ...JSON_OK[200].content,
      "text/csv": {
        schema: t.String({ description: "A header row, then one row per line" }),
        example:
          "\uFEFFtransactionId,requesterResNo,pickup,role,kind,amount,currency,status,disputed,fareFinal\r\n" +
          "0194f1c2-7c1e-7a55-9d1c-3f2e8b1a0c11,BW-1001,2026-03-04T16:30:00Z,requester,FARE,110.00,USD,CLOSE,false,\r\n",
      },
    },
  },
  ...documentedResponses(errors(400, 401, 404)),
};

/** Statements and their disputes (docs/settlement.md#statements-and-settlement). */
export function coreStatements(deps: DisputeDeps, auth: Authenticator) {
  return new Elysia({ name: "core-statements", prefix: "/api/statements" })
    .use(authMacros(auth))
    .get(
      "",
      async ({ query, caller, request }) => {
        const csv = wantsCsv(query.format, request.headers.get("accept"));
        if (query.counterparty === undefined) {
          if (csv) throw new ValidationError([{ field: "counterparty", message: "is required for CSV: the lines of one statement" }]);
          return { success: true as const, data: await counterpartiesOf(deps, caller.netid, query) };
        }
        const statement = await statementOf(deps, caller.netid, query);
        if (!csv) return { success: true as const, data: statement };
        const name = `statement-${statement.period}-${statement.counterparty}.csv`;
        return new Response(csvStream(statement.lines), {
          headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}"` },
        });
      },
      {
        anyAuth: true,
        query: StatementQuery,
        detail: {
          tags: ["Statements"],
          summary: "A month's statement with one counterparty (JSON or CSV), or the month's counterparties with their totals",
          description: STATEMENT_DESCRIPTION,
          responses: STATEMENT_RESPONSES,
          security: [{ bearer: [] }, { platformToken: [] }],
        },
      },
    )
    .post("/disputes", async ({ body, caller }) => ({ success: true as const, data: await raiseDispute(deps, caller.netid, body) }), {
      anyAuth: true,
      body: RaiseDisputeBody,
      response: { 200: t.Object({ success: t.Literal(true), data: DisputeView }), ...errors(400, 401, 404, 409) },
      detail: { tags: ["Statements"], summary: "Dispute a statement line", description: RAISE_DESCRIPTION, security },
    })
    .post(
      "/disputes/:id/answer",
      async ({ params, body, caller }) => ({ success: true as const, data: await answerDispute(deps, caller.netid, params.id, body) }),
      {
        anyAuth: true,
        params: t.Object({ id: t.String({ maxLength: 100, description: "The dispute's id" }) }),
        body: AnswerDisputeBody,
        response: { 200: t.Object({ success: t.Literal(true), data: DisputeView }), ...errors(400, 401, 403, 404, 409) },
        detail: { tags: ["Statements"], summary: "Accept or answer a dispute of a statement line", description: ANSWER_DESCRIPTION, security },
      },
    );
}
