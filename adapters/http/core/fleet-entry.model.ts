import { t } from "elysia";
import { fleetEntryFields, type FleetEntry } from "../../../domain/fleet/entry";

/** A fleet entry as the fleet routes answer it; the search's items show a part of the same fields. */
export const FleetEntryOutput = t.Object({
  slug: t.String({ description: "Unique id, generated from netid and name", examples: ["acme-limo-cadillac-escalade"] }),
  netid: t.String({ description: "Owner of the vehicle entry", examples: ["ACME-LIMO"] }),
  type: t.String({ examples: ["SUV"] }),
  name: t.String({ examples: ["Cadillac Escalade"] }),
  description: t.String(),
  imageUrl: t.Nullable(t.String()),
  maxPassengers: t.Number({ examples: [6] }),
  maxLuggage: t.Nullable(t.Number({ description: "null when the luggage capacity is unknown", examples: [5] })),
  lat: t.Nullable(t.Number()),
  lon: t.Nullable(t.Number()),
  airports: t.Array(t.String()),
  minimum_rate: t.Number({ description: "Minimum fare in the entry's currency", examples: [95] }),
  hourly_rate: t.Number({ description: "Hourly rate in the entry's currency", examples: [85.5] }),
  currency: t.String({
    description: "An active ISO 4217 currency code in capitals (default USD); usd, ZZZ, XAU, XTS … are 400 naming currency",
    examples: ["USD"],
  }),
  active: t.Boolean(),
  externalId: t.Nullable(t.String({ description: "Your own id of the entry, unique in your fleet, or null", examples: ["CAR-0042"] })),
  createdAt: t.Number({ description: "Unix seconds" }),
  updatedAt: t.Number({ description: "Unix seconds" }),
});

/** Domain entry → API shape (rates as JSON numbers, API field names). */
export function fleetEntryOutput(e: FleetEntry) {
  return { slug: e.slug, netid: e.netid, ...fleetEntryFields(e), createdAt: e.createdAt, updatedAt: e.updatedAt };
}
