import { Elysia, t } from "elysia";
import {
  addFleetEntry,
  fleetEntryProblems,
  getFleetEntry,
  importFleet,
  listFleet,
  removeFleetEntry,
  updateFleetEntry,
  type ManageFleetDeps,
} from "../../../domain/usecases/manage-fleet";
import { errors } from "../schemas";
import { ValidationError } from "../../../domain/errors";
import { IMPORT_MODES, type ImportMode } from "../../../domain/fleet/import-plan";
import { alongTypeErrors } from "../body-checks";
import { FleetEntryOutput, fleetEntryOutput } from "./fleet-entry.model";
import { Page, Paging } from "../paging";
import { FLEET_SORT_KEYS } from "../../../domain/fleet/listing";

const FleetListingParams = t.Object({
  ...Paging.properties,
  sort: t.Optional(
    t.String({
      maxLength: 20,
      description: `Order by one of: ${FLEET_SORT_KEYS.join(", ")} (default slug); anything else is 400`,
      examples: ["maxPassengers"],
    }),
  ),
  order: t.Optional(t.String({ maxLength: 10, description: "asc (default) or desc", examples: ["desc"] })),
  type: t.Optional(t.String({ maxLength: 40, description: "Only entries of this vehicle code (case-insensitive)", examples: ["SUV"] })),
  active: t.Optional(t.String({ maxLength: 10, description: "true: only active entries; false: only inactive ones", examples: ["true"] })),
  q: t.Optional(
    t.String({
      maxLength: 400,
      description: "Only entries whose name or slug contains this text (case-insensitive for ASCII letters; at most 200 " + "characters)",
      examples: ["escalade"],
    }),
  ),
});
import { authMacros, type Authenticator } from "../auth";

const RATE_DESCRIPTION =
  "JSON number ≥ 0 with at most 2 decimals and no more than the currency's minor unit (JPY none: 85.5 is 400 naming the " +
  "rate), ≤ 1,000,000. Required.";

/** A fleet entry as sent by its owner. Types are checked here; ranges and formats by the domain rules (400 names each field). */
export const FleetEntryInput = t.Object(
  {
    type: t.Optional(
      t.String({
        maxLength: 100,
        description: "Vehicle code, upper-cased: letters, digits, _ (≤ 32), e.g. SEDAN, SUV, SPRINTER, LIMO, VAN_MINI, BUS, " + "COACH. Required.",
        examples: ["SUV"],
      }),
    ),
    name: t.Optional(
      t.String({
        maxLength: 1000,
        description:
          "Display name, 1–200 characters, seen by other companies: like a company's name, no line breaks, control, invisible " +
          "or blank-looking characters (U+2028, U+2800 …). Required.",
        examples: ["Cadillac Escalade"],
      }),
    ),
    description: t.Optional(t.String({ maxLength: 10000, description: "At most 2000 characters; default empty", examples: ["Black SUV, leather, Wi-Fi"] })),
    imageUrl: t.Optional(
      t.Nullable(t.String({ maxLength: 4096, description: "http or https URL, or null", examples: ["https://images.example/escalade.jpg"] })),
    ),
    maxPassengers: t.Optional(t.Number({ description: "Whole number 1–1000. Required.", examples: [6] })),
    maxLuggage: t.Optional(t.Nullable(t.Number({ description: "Whole number 0–1000, or null when unknown", examples: [5] }))),
    lat: t.Optional(
      t.Nullable(
        t.Number({
          description: "-90..90; send with lon (both or neither). Without a position the entry is not found by search (MISSING_GPS " + "warning).",
          examples: [40.6413],
        }),
      ),
    ),
    lon: t.Optional(t.Nullable(t.Number({ description: "-180..180; send with lat", examples: [-73.7781] }))),
    airports: t.Optional(
      t.Array(t.String({ maxLength: 10 }), {
        maxItems: 100,
        description: "IATA codes it serves (case-insensitive, ≤ 50). An unknown code is 400 naming it.",
        examples: [["JFK", "LGA"]],
      }),
    ),
    minimum_rate: t.Optional(t.Number({ description: RATE_DESCRIPTION, examples: [95] })),
    hourly_rate: t.Optional(t.Number({ description: RATE_DESCRIPTION, examples: [85.5] })),
    currency: t.Optional(
      t.String({ maxLength: 10, description: "An active ISO 4217 code in capitals; default USD (usd, ZZZ, XAU, XTS … are 400)", examples: ["USD"] }),
    ),
    active: t.Optional(t.Boolean({ description: "Listed in search; default true", examples: [true] })),
    externalId: t.Optional(
      t.Nullable(
        t.String({
          maxLength: 400,
          description: "Your own id of the entry (1–100 printable characters), unique in your fleet (400 naming externalId when " +
            "another entry has it); a fleet import matches rows to entries by it",
          examples: ["CAR-0042"],
        }),
      ),
    ),
  },
  {
    description:
      "A fleet entry. Required on create: type, name, maxPassengers, minimum_rate, hourly_rate. On PATCH send only " +
      "the fields to change (null clears imageUrl, maxLuggage, lat+lon).",
  },
);

const SlugParams = t.Object({ slug: t.String({ minLength: 1, maxLength: 200, description: "The entry's slug" }) });
const Entry = t.Object({ success: t.Literal(true), data: FleetEntryOutput });
const security = [{ bearer: [] }];

/** Fleet management: the caller's own company's vehicles. Another company's slug answers 404, like an unknown one. */
export function coreFleet(deps: ManageFleetDeps, auth: Authenticator) {
  return new Elysia({ name: "core-fleet", prefix: "/api/fleet" })
    .use(authMacros(auth))
    .get(
      "",
      async ({ query, caller }) => {
        const page = await listFleet(deps, caller, query);
        return { success: true as const, data: { ...page, items: page.items.map(fleetEntryOutput) } };
      },
      {
        coreAuth: true,
        query: FleetListingParams,
        response: {
          200: t.Object({ success: t.Literal(true), data: Page(FleetEntryOutput) }),
          ...errors(400, 401),
        },
        detail: {
          tags: ["Fleet"],
          summary: "List your fleet",
          description:
            "Your company's entries, a page at a time: by slug unless `sort` names another column (`order` asc or " +
            "desc; ties by slug in the same direction), filtered by `type`, `active` and `q` (text in the name or " +
            "slug). `total` counts the entries that pass the filters, so `offset` + `limit` pages through them; " +
            "with none of these parameters the answer is as before: every entry, by slug. A bad value is 400 " +
            "naming the parameter. Pages stay fast on a fleet of 50,000 entries.",
          security,
        },
      },
    )
    .post("", async ({ body, caller }) => ({ success: true as const, data: fleetEntryOutput(await addFleetEntry(deps, caller, body)) }), {
      coreAuth: true,
      body: FleetEntryInput,
      transform: alongTypeErrors((body) => fleetEntryProblems(deps, body as never)),
      response: { 200: Entry, ...errors(400, 401, 403, 413) },
      detail: {
        tags: ["Fleet"],
        summary: "Add a vehicle",
        description:
          "Validates every field (400 lists each failing one) and gives the entry a unique slug from netid and " +
          "name (-2, -3… on collision). Search sees it within a second. 403 FLEET_QUOTA_EXCEEDED when your plan's " +
          "fleet is full (FREE 2,000 entries, PROFESSIONAL 50,000, ENTERPRISE unlimited). 403 NOT_AN_OPERATOR, " +
          "nothing saved, when your company is registered to book rides (coType CO): it offers none " +
          "(docs/security.md#requester-only-companies).",
        security,
      },
    })
    .post(
      "/import",
      async ({ body, caller, query }) => {
        const mode = query.mode ?? "upsert";
        if (!(IMPORT_MODES as readonly string[]).includes(mode))
          throw new ValidationError([{ field: "mode", message: `must be one of ${IMPORT_MODES.join(", ")}` }]);
        const done = await importFleet(deps, caller.netid, body as unknown[], undefined, mode as ImportMode);
        return {
          success: true as const,
          data: {
            created: done.created.length,
            updated: done.updated.length,
            deleted: done.deleted.length,
            unchanged: done.unchanged,
            imported: done.created.length + done.updated.length + done.unchanged,
            slugs: done.created.map((e) => e.slug),
            updatedSlugs: done.updated.map((e) => e.slug),
            deletedSlugs: done.deleted,
          },
        };
      },
      {
        query: t.Object({
          mode: t.Optional(
            t.String({ maxLength: 20, description: "upsert (default), replace or append; anything else is 400 naming mode", examples: ["upsert"] }),
          ),
        }),
        coreAuth: true,
        body: t.Array(t.Unknown({ description: "A fleet entry with the fields of POST /api/fleet" }), {
          maxItems: 10000,
          description: "At most 10,000 fleet entries (body up to 16 MiB)",
          examples: [
            [
              {
                type: "SEDAN",
                name: "Lincoln Continental",
                maxPassengers: 3,
                maxLuggage: 3,
                lat: 40.64,
                lon: -73.78,
                airports: ["JFK"],
                minimum_rate: 80,
                hourly_rate: 70,
              },
            ],
          ],
        }),
        response: {
          200: t.Object({
            success: t.Literal(true),
            data: t.Object({
              created: t.Number({ description: "Entries added" }),
              updated: t.Number({ description: "Entries whose fields the file changed" }),
              deleted: t.Number({ description: "Entries removed (replace only)" }),
              unchanged: t.Number({ description: "Rows that matched an entry exactly as it was" }),
              imported: t.Number({ description: "Rows now in the fleet: created + updated + unchanged" }),
              slugs: t.Array(t.String(), { description: "The new slugs, in the order sent" }),
              updatedSlugs: t.Array(t.String()),
              deletedSlugs: t.Array(t.String()),
            }),
          }),
          ...errors(400, 401, 403, 409, 413),
        },
        detail: {
          tags: ["Fleet"],
          summary: "Import vehicles (all or nothing; upsert, replace or append)",
          description:
            "Imports up to 10,000 entries in one transaction; importing the same file twice leaves the fleet unchanged. " +
            "`mode=upsert` (default): a row whose `externalId` or slug (the row's `slug`, or the one its name generates: " +
            "the n-th row of a name the n-th slug of that name) names one of your entries updates it; the others are added. " +
            "`mode=replace`: the file becomes your whole fleet; entries it does not name are deleted, and 409 " +
            "VEHICLES_HELD (nothing changed, `vehicles` listing each slug and the booking holding it) when live bookings " +
            "hold one. `mode=append`: every row is a new entry. A file naming one externalId or slug twice is 400. " +
            "If any row is invalid nothing is saved and the 400 " +
            "lists the failures per row as `errors[].field` = `[<row index>].<field>` (e.g. `[12].maxPassengers`; " +
            "at most 1000 listed, the message gives the totals). 403 FLEET_QUOTA_EXCEEDED, nothing saved, when the " +
            "import would take your fleet past your plan's quota (FREE 2,000 entries, PROFESSIONAL 50,000, " +
            "ENTERPRISE unlimited). 403 NOT_AN_OPERATOR, nothing saved, when your company is registered to book rides " +
            "(coType CO): it offers none (docs/security.md#requester-only-companies).",
          security,
        },
      },
    )
    .get("/:slug", async ({ params, caller }) => ({ success: true as const, data: fleetEntryOutput(await getFleetEntry(deps, caller, params.slug)) }), {
      coreAuth: true,
      params: SlugParams,
      response: { 200: Entry, ...errors(401, 404) },
      detail: { tags: ["Fleet"], summary: "Get one of your vehicles", security },
    })
    .patch(
      "/:slug",
      async ({ params, body, caller }) => ({ success: true as const, data: fleetEntryOutput(await updateFleetEntry(deps, caller, params.slug, body)) }),
      {
        coreAuth: true,
        params: SlugParams,
        body: FleetEntryInput,
        transform: alongTypeErrors((body) => fleetEntryProblems(deps, body as never, true)),
        response: { 200: Entry, ...errors(400, 401, 403, 404) },
        detail: {
          tags: ["Fleet"],
          summary: "Change one of your vehicles",
          description:
            "Send only the fields to change; the result must satisfy every rule. The slug never changes. A company " +
            "registered to book rides (coType CO) may only set a vehicle it has inactive (`active: false`): any other " +
            "change is 403 NOT_AN_OPERATOR (docs/security.md#requester-only-companies).",
          security,
        },
      },
    )
    .delete(
      "/:slug",
      async ({ params, caller }) => {
        await removeFleetEntry(deps, caller, params.slug);
        return { success: true as const };
      },
      {
        coreAuth: true,
        params: SlugParams,
        response: { 200: t.Object({ success: t.Literal(true) }), ...errors(401, 404, 409) },
        detail: {
          tags: ["Fleet"],
          summary: "Remove one of your vehicles",
          description:
            "Deletes the vehicle with its blackouts. While a live booking holds it (docs/availability.md#a-held-vehicle-cannot-be-deleted): " +
            "409 VEHICLES_HELD, `vehicles` naming it and the booking, nothing deleted — cancel or finish the booking first.",
          security,
        },
      },
    );
}
