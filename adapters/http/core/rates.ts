import { Elysia } from "elysia";
import { deleteRateCard, getRateCard, putRateCard, type RateCardDeps } from "../../../domain/usecases/rate-cards";
import { authMacros, type Authenticator } from "../auth";
import { errors } from "../schemas";
import { RateCardAnswer, RateCardBody } from "./rates.model";
import { t } from "elysia";

const CARD_PROSE =
  "A provider's price list (docs/rates.md): flat routes between zones (an airport, a circle, a polygon), distance rates " +
  "(in bands: `upToKm`) and hourly rates, surcharges (airport pickup, night, dates — in the pickup's own time zone, an " +
  "amount or a percent of the base), extras and a minimum fare. A vehicle's base is the first that applies: for an " +
  "hourly trip its hourly rate; a route for its type holding the pickup, the drop-off and every stop; the first " +
  "distance rate of its type whose band holds the road km (leg by leg through the stops); else its own minimum_rate / " +
  "hourly_rate — and a base of 0 is never offered (UNPRICED_VEHICLES). Then surcharges, the minimum fare (on base + " +
  "surcharges), then the extras asked at their price. Every quote option carries `breakdown` lines that sum to its fee.";

/** `GET|PUT|DELETE /api/company/rates`: the caller's rate card. */
export function coreRates(deps: RateCardDeps, auth: Authenticator) {
  return new Elysia({ name: "core-rates", prefix: "/api" })
    .use(authMacros(auth))
    .get("/company/rates", async ({ caller }) => ({ success: true as const, data: await getRateCard(deps, caller.netid) }), {
      coreAuth: true,
      response: { 200: RateCardAnswer, ...errors(401, 404) },
      detail: { tags: ["Rates"], summary: "Your rate card (404 RATE_CARD_NOT_FOUND without one)", description: CARD_PROSE, security: [{ bearer: [] }] },
    })
    .put("/company/rates", async ({ caller, body }) => ({ success: true as const, data: await putRateCard(deps, caller.netid, body) }), {
      coreAuth: true,
      body: RateCardBody,
      response: { 200: RateCardAnswer, ...errors(400, 401, 403, 413) },
      detail: {
        tags: ["Rates"],
        summary: "Replace your whole rate card",
        description:
          CARD_PROSE +
          " One currency (an active ISO 4217 code in capital letters: `usd` is refused, not upper-cased, and so are XAU, XTS, " +
          "fund codes such as USN or CLF; default the one most of your fleet uses); amounts as decimal strings or numbers with at " +
          "most the currency's decimals, each at most 1,000,000; ids unique in the card; at most 2,000 routes and 200 of each " +
          "other kind; polygons closed rings of at most 500 points; no member a part does not have; no distance or hourly " +
          "rule an earlier one always comes before. A bad card is 400 naming each field; nothing is saved. A card takes at most " +
          "1 MiB as sent, whatever MAX_BODY_BYTES allows other bodies: a larger body is 413 PAYLOAD_TOO_LARGE, refused as it " +
          "arrives, nothing saved (docs/rates.md#setting-the-card). 403 " +
          "NOT_AN_OPERATOR when your company is registered to book rides (coType CO): it offers none " +
          "(docs/security.md#requester-only-companies).",
        security: [{ bearer: [] }],
      },
    })
    .delete(
      "/company/rates",
      async ({ caller }) => {
        await deleteRateCard(deps, caller.netid);
        return { success: true as const };
      },
      {
        coreAuth: true,
        response: { 200: t.Object({ success: t.Literal(true) }), ...errors(401, 404) },
        detail: { tags: ["Rates"], summary: "Remove your rate card (quotes use each vehicle's own rates again)", security: [{ bearer: [] }] },
      },
    );
}
