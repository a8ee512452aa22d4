import { Elysia, t } from "elysia";
import { fxRatesView, type FxDeps } from "../../../domain/usecases/fx-rates";
import { authMacros, type Authenticator } from "../auth";
import { errors } from "../schemas";

const FxAnswer = t.Object({
  success: t.Literal(true),
  data: t.Object({
    base: t.Literal("EUR", { description: "Every rate is units of the currency per 1 EUR" }),
    date: t.String({ description: "The rates' day (YYYY-MM-DD): older than 7 days, network quotes converting with them warn FX_RATES_STALE" }),
    rates: t.Record(t.String(), t.Number(), { description: "ISO 4217 code → units per 1 EUR", examples: [{ USD: 1.0705, JPY: 171.94, GBP: 0.84638 }] }),
  }),
});

/** `GET /api/fx`: the exchange's FX table in use. */
export function coreFx(deps: Pick<FxDeps, "store" | "shipped">, auth: Authenticator) {
  return new Elysia({ name: "core-fx", prefix: "/api" }).use(authMacros(auth)).get("/fx", () => ({ success: true as const, data: fxRatesView(deps) }), {
    anyAuth: true,
    response: { 200: FxAnswer, ...errors(401) },
    detail: {
      tags: ["Quotes"],
      summary: "The exchange's FX table: the ECB's euro reference rates network quotes convert with",
      description:
        "`Authorization: Bearer <core JWT>` or the platform header `token`; any signed-in company. The table last imported " +
        "by the operator (CLI `fx import <file>`: the ECB's daily reference file, CSV or XML, as published), else the dated " +
        "reference table the service ships with. An import is in use on every instance within 5 s. Conversions go through " +
        "EUR (cross rates). See docs/fx.md.",
      security: [{ bearer: [] }, { platformToken: [] }],
    },
  });
}
