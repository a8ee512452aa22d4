import { Elysia, t, type TSchema } from "elysia";
import { ValidationError } from "../../../domain/errors";
import { MAX_VEHICLE_TYPE_ENTRIES } from "../../../domain/partners/partnership";
import {
  acceptPartnership,
  endPartnership,
  listPartnerships,
  requestPartnership,
  setPartnerVehicleTypes,
  type PartnershipDeps,
} from "../../../domain/usecases/partnerships";
import { authMacros, type Authenticator } from "../auth";
import { errors } from "../schemas";

const Status = t.Union([t.Literal("pending"), t.Literal("active")], { description: "pending until the other side accepts; active once both have" });
const Direction = t.Optional(
  t.Union([t.Literal("outgoing"), t.Literal("incoming")], {
    description: "While pending: outgoing (you asked) or incoming (the partner asked; you may accept)",
  }),
);
const VehicleTypes = t.Record(t.String({ maxLength: 100 }), t.String({ maxLength: 100 }), {
  maxProperties: MAX_VEHICLE_TYPE_ENTRIES,
  description:
    "Requester vehicle type → provider vehicle type, upper-case codes (1–50 letters, digits, _ or -), " +
    `at most ${MAX_VEHICLE_TYPE_ENTRIES} entries`,
  examples: [{ SUV_LUX: "SUV", EXEC_SEDAN: "SEDAN" }],
});
const Partner = t.Object({
  netid: t.String({ examples: ["ACME-LIMO"] }),
  name: t.String({ examples: ["Acme Limousine"] }),
  status: Status,
  direction: Direction,
});
const PartnerFull = t.Object({
  netid: t.String({ examples: ["ACME-LIMO"] }),
  name: t.String({ examples: ["Acme Limousine"] }),
  status: Status,
  direction: Direction,
  coType: t.String({ examples: ["IO"] }),
  plan: t.String({ examples: ["PROFESSIONAL"] }),
  mainEmail: t.Union([t.String(), t.Null()], {
    description: "The partner's contact e-mail; null while it has not accepted your request",
    examples: ["dispatch@acme-limo.example"],
  }),
  mainPhone: t.Union([t.String(), t.Null()], {
    description: "The partner's contact phone (E.164); null while it has not accepted your request",
    examples: ["+12125550101"],
  }),
  vehicleTypes: t.Record(t.String(), t.String(), { description: "Your map: how the partner's vehicle types read in your fleet when it sends you trips" }),
  partnerVehicleTypes: t.Record(t.String(), t.String(), { description: "The partner's map: how your vehicle types read in its fleet when you send it trips" }),
});
const NetidParams = t.Object({ netid: t.String({ maxLength: 100, description: "The other company's netid (case-insensitive)", examples: ["ACME-LIMO"] }) });
const ok = <S extends TSchema>(data: S) => t.Object({ success: t.Literal(true), data });
const security: Array<Record<string, string[]>> = [{ bearer: [] }, { platformToken: [] }];

/** Partnerships between companies and each side's vehicle-type map. */
export function corePartners(p: PartnershipDeps, auth: Authenticator) {
  return new Elysia({ name: "core-partners", prefix: "/api" })
    .use(authMacros(auth))
    .post("/partners", async ({ caller, body }) => ({ success: true as const, data: await requestPartnership(p, caller, body.netid) }), {
      anyAuth: true,
      body: t.Object({ netid: t.String({ maxLength: 100, description: "The company you ask to partner with", examples: ["ACME-LIMO"] }) }),
      response: { 200: ok(Partner), ...errors(400, 401, 404, 409) },
      detail: {
        tags: ["Partnerships"],
        summary: "Ask a company to partner with you",
        description:
          "Records your request (`status: pending`, `direction: outgoing`) until the other company accepts. When " +
          "it had already asked you, both have now accepted and the answer is `status: active`. 404 unknown netid; " +
          "409 `ALREADY_PARTNERS` or `PARTNERSHIP_ALREADY_REQUESTED`; 400 your own netid.",
        security,
      },
    })
    .post("/partners/:netid/accept", async ({ caller, params }) => ({ success: true as const, data: await acceptPartnership(p, caller, params.netid) }), {
      anyAuth: true,
      params: NetidParams,
      response: { 200: ok(Partner), ...errors(400, 401, 409) },
      detail: {
        tags: ["Partnerships"],
        summary: "Accept a company's partnership request",
        description:
          "The partnership becomes `active`. 409 `NO_PARTNERSHIP_REQUEST` when that company has not asked you (or " +
          "you asked it: only it can accept) — an unknown netid answers the same, so this route does not tell " +
          "which netids exist; `ALREADY_PARTNERS` when active already.",
        security,
      },
    })
    .delete("/partners/:netid", async ({ caller, params }) => ({ success: true as const, data: await endPartnership(p, caller, params.netid) }), {
      anyAuth: true,
      params: NetidParams,
      response: { 200: ok(t.Object({ netid: t.String(), status: t.Literal("ended") })), ...errors(400, 401, 404) },
      detail: {
        tags: ["Partnerships"],
        summary: "End a partnership, withdraw your request or decline theirs",
        description:
          "Either side may. Both vehicle-type maps of the pair are deleted. Bookings already made stay manageable " +
          "(UPDATE, CANCEL, status updates); new trips and quotes to a provider that takes trips only from " +
          "partners are refused (403 `NOT_PARTNER`). 404 `PARTNERSHIP_NOT_FOUND` when there is none — the same " +
          "answer (status, code and message in the spelling you sent) for a netid no company has, so this route " +
          "does not tell which netids exist.",
        security,
      },
    })
    .put(
      "/partners/:netid/vehicle-types",
      async ({ caller, params, body }) => ({ success: true as const, data: await setPartnerVehicleTypes(p, caller, params.netid, body) }),
      {
        anyAuth: true,
        params: NetidParams,
        // Elysia's record check takes an array for an object ({"0": …}); the map must be an object.
        transform: ({ body }) => {
          if (Array.isArray(body))
            throw new ValidationError([{ field: "body", message: 'must be an object of requester type → your type, e.g. {"SUV_LUX":"SUV"}' }]);
        },
        body: VehicleTypes,
        response: { 200: ok(t.Object({ netid: t.String(), vehicleTypes: VehicleTypes })), ...errors(400, 401, 404) },
        detail: {
          tags: ["Partnerships"],
          summary: "Set how a partner's vehicle types read in your fleet (you as provider)",
          description:
            "Replaces your whole map for trips from this partner (`{}` clears it). Keys are the partner's " +
            "(requester's) vehicle types, values yours; both are trimmed and upper-cased. While the partnership is " +
            "active, a trip's `preferredVehicleType` that the map names is translated: the copy delivered to your " +
            "endpoint carries your type, and a quote lists the options of your type first (cheapest first among " +
            "them, then the others cheapest first). An unmapped type travels as sent and a quote stays cheapest " +
            "first. The stored booking keeps the requester's type. 404 `PARTNERSHIP_NOT_FOUND` when you have no " +
            "partnership (requested or active) with this company, and the same answer for a netid no company has; " +
            "the map is checked first (400 for a bad map whatever the netid).",
          security,
        },
      },
    )
    .get(
      "/partner/:netid",
      async ({ caller, params, query }) => {
        const format = (query.format ?? "short").trim().toLowerCase();
        if (format !== "short" && format !== "full") throw new ValidationError([{ field: "format", message: "must be full or short" }]);
        // The bare array GNet's partner list answers.
        return listPartnerships(p, caller, params.netid, format);
      },
      {
        anyAuth: true,
        params: t.Object({ netid: t.String({ maxLength: 100, description: "Your own netid", examples: ["DEMO-PLATFORM"] }) }),
        query: t.Object({
          format: t.Optional(
            t.String({
              maxLength: 10,
              description: "short (default): netid, name, status; full: adds company facts, contact and both vehicle-type maps",
              examples: ["full"],
            }),
          ),
        }),
        response: { 200: t.Array(t.Union([PartnerFull, Partner])), ...errors(400, 401, 403) },
        detail: {
          tags: ["Partnerships"],
          summary: "Your partnerships and pending requests, oldest first",
          description: "The netid must be your own (else 403 `NOT_YOUR_NETID`). Bearer JWT or the platform `token` header.",
          security,
        },
      },
    );
}
