import type { ServingSet } from "./serving-set";
import type { FleetEntry } from "./entry";
import type { FleetEntryDraft } from "./validation";
import type { FleetListing } from "./listing";
import type { JsonBytes } from "../shared/json-bytes";

/** A valid entry ready to be saved; the repository picks a free slug starting from `slugBase`. */
export interface NewFleetEntry extends FleetEntryDraft {
  netid: string;
  slugBase: string;
  createdAt: number;
  updatedAt: number;
  /** The slug is `slugBase` itself (a slug an import row gives): SlugTakenError when another entry has it. */
  exactSlug?: boolean;
}

/** Where fleet entries are kept. */
export interface FleetRepository {
  /**
   * One page of the company's entries, in the listing's order (slug ascending by default; ties by slug in the same
   * direction) and with its filters, and how many entries pass the filters.
   */
  listByNetid(netid: string, listing: FleetListing): Promise<{ items: FleetEntry[]; total: number }>;
  /** One entry of the company; undefined for an unknown slug or another company's. */
  find(netid: string, slug: string): Promise<FleetEntry | undefined>;
  /**
   * Saves every entry in one transaction (all or nothing), each under the first free slug of
   * `base`, `base-2`, …; returns them as saved, in order. With `maxEntries`, the company's count is checked in
   * that transaction and FleetFullError thrown (nothing saved) when the entries would take it past the number.
   */
  insertAll(entries: NewFleetEntry[], onProgress?: (done: number) => void, maxEntries?: number): Promise<FleetEntry[]>;
  /** Replaces the stored fields of an existing entry (same slug and owner). */
  update(entry: FleetEntry): Promise<boolean>;
  remove(netid: string, slug: string): Promise<boolean>;
  /**
   * An import's changes in ONE transaction (all or nothing): deletes `removes` (VehiclesHeldError, nothing changed,
   * when a live booking holds one of them), rewrites `updates`, then inserts as insertAll (the quota counted after
   * the deletes); returns the inserted entries, in order.
   */
  applyImport(netid: string, changes: FleetImportChanges, onProgress?: (done: number) => void, maxEntries?: number): Promise<FleetEntry[]>;
}

/** What one import changes: the slugs it deletes, the entries it rewrites, the entries it adds. */
export interface FleetImportChanges {
  removes: string[];
  updates: FleetEntry[];
  inserts: NewFleetEntry[];
}

/** Entries an import would delete that live bookings hold: each vehicle's slug and the booking holding it. */
export class VehiclesHeldError extends Error {
  constructor(readonly held: Array<{ slug: string; transactionId: string }>) {
    super(`live bookings hold ${held.map((h) => h.slug).join(", ")}`);
  }
}

/** An exact slug (NewFleetEntry.exactSlug) another entry, of any company, already has. */
export class SlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`the slug ${slug} is taken`);
  }
}

/** A company's externalId already on another of its entries. */
export class ExternalIdTakenError extends Error {
  constructor() {
    super("externalId is already used by another entry of the company");
  }
}

/** Whether a database error is the (netid, external_id) unique index refusing a duplicate (both dialects). */
export function isExternalIdTaken(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++)
    if (/fleet_entries_netid_external_id|fleet_entries\.external_id/.test(String((e as Error).message ?? ""))) return true;
  return false;
}

/** A geo search on the index: centres, radius and filters, and how many of the nearest matches to return. */
export interface GeoSearch {
  centres: Array<{ lat: number; lon: number }>;
  radiusKm: number;
  /** Upper-case types; undefined means every type. */
  types: string[] | undefined;
  /** Normalised words, each of which must occur in the entry's search text. */
  words: string[];
  /** Only this company's entries (its netid exactly as stored); every company's when undefined. */
  netid?: string;
  /** Return the matches ranked [offset, offset + limit) by (distance, slug). */
  offset: number;
  limit: number;
}

/** What a search hit carries of its entry: the fields a fleet item shows, with its position. */
export type IndexedEntry = Pick<
  FleetEntry,
  "slug" | "netid" | "type" | "name" | "description" | "imageUrl" | "maxPassengers" | "maxLuggage" | "minimumRate" | "hourlyRate" | "currency"
> & {
  lat: number;
  lon: number;
};

/** One match: the entry and its unrounded great-circle distance to the nearest centre. */
export interface GeoHit {
  entry: IndexedEntry;
  distanceKm: number;
}

/** Every located entry within `radiusKm` of `centre` that seats `minPassengers` (and, when set, holds `minLuggage`). */
export interface CircleQuery {
  centre: { lat: number; lon: number };
  radiusKm: number;
  minPassengers: number;
  minLuggage?: number;
}

/**
 * The matches of a CircleQuery as columns, in no particular order: what ranking thousands of them needs without an
 * object per match (owner and rate are interned), each match materialised only on demand.
 */
export interface CircleMatches {
  readonly count: number;
  /** Match i's owner: index into netid(). */
  readonly owner: Uint32Array;
  /** Match i's (minimum rate, hourly rate, currency): index into minimumRate(), hourlyRate(), currency(). */
  readonly rate: Uint32Array;
  /** Match i's great-circle distance from the centre (domain/geo.ts's greatCircleKm, to the last bit). */
  readonly distanceKm: Float64Array;
  readonly owners: number;
  readonly rates: number;
  netid(owner: number): string;
  minimumRate(rate: number): string;
  hourlyRate(rate: number): string;
  currency(rate: number): string;
  slug(i: number): string;
  type(i: number): string;
  entry(i: number): IndexedEntry;
}

/** Active entries without a position serving one of the requested airports, counted per company. */
export interface UnlocatedCount {
  netid: string;
  count: number;
  /** The requested airports those entries serve. */
  airports: string[];
}

/**
 * What a change of the searchable fleet can have altered: the positions of the changed entries before and
 * after it (a search whose circles hold none of them answers as before), and the airports served by changed
 * entries without a position (before or after; they count in MISSING_GPS warnings of those airports).
 */
export interface FleetChange {
  points: Array<{ lat: number; lon: number }>;
  airports: string[];
}

/**
 * Told each time a new view of the index starts answering, with its generation: `change` says what the
 * new view can answer differently, or is undefined when anything may differ (a rebuilt index).
 */
export type FleetChangeListener = (generation: number, change: FleetChange | undefined) => void;

/**
 * The search index over the active fleet. It answers from a complete snapshot and never waits for a
 * rebuild; `fleetChanged` asks for a rebuild off the request path (visible within a second).
 */
export interface FleetSearchIndex {
  /** Moves every time the answering view is replaced; listeners are told before any search reads the new one. */
  readonly generation: number;
  /** Calls `listener` on every replaced view; returns the function that stops it. */
  onChange(listener: FleetChangeListener): () => void;
  search(query: GeoSearch): { total: number; hits: GeoHit[] };
  /**
   * One company's (its netid as stored) entries serving a pickup, as a serving set: those within `radiusKm` of
   * `position` and those listing `airport`, wherever they stand or without a position. The cost follows the
   * entries near the pickup or listing its airport, not the fleet's size; no located entry is materialised.
   */
  serving(netid: string, area: { position: { lat: number; lon: number }; radiusKm: number; airport?: string }): ServingSet;
  /** Every match of a circle as columns (a network quote ranks thousands of vehicles this way). */
  circle(query: CircleQuery): CircleMatches;
  /**
   * `search`, with the page written into `out` as the JSON array of its fleet items (the search use case's
   * FleetItem: its members in order, each value as JSON.stringify writes it); returns the total.
   */
  searchItemsJson(query: GeoSearch, out: JsonBytes): number;
  /** Entries that match the filters and serve one of `airports` but have no position, per company. */
  unlocated(airports: string[], filter: { types: string[] | undefined; words: string[] }): UnlocatedCount[];
  /**
   * The fleet changed: the entries with these slugs (added, changed or removed), or anything when no
   * slugs are given. Either way the change becomes visible to search within a second.
   */
  fleetChanged(slugs?: readonly string[]): void;
}

/** An insert that would take a company's fleet past its maximum; `current` is how many entries it has. */
export class FleetFullError extends Error {
  constructor(readonly current: number) {
    super(`the fleet already has ${current} entries`);
  }
}
