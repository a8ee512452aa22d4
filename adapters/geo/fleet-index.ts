import type { CircleQuery, FleetChange, FleetChangeListener, FleetSearchIndex, GeoSearch } from "../../domain/fleet/ports";
import type { JsonBytes } from "../../domain/shared/json-bytes";
import { buildIndexParts } from "./build/trees";
import { FleetIndexUpkeep, type FleetIndexOptions } from "./fleet-upkeep";
import { writeFleetItems } from "./search/encode";
import { FleetSnapshot } from "./search/snapshot";
import { UnlocatedIndex } from "./search/unlocated";
import { FleetView } from "./search/view";

/**
 * The fleet search index on kdbush: the query side. Searches read the current view and never wait; a new
 * view starts answering at one place only, `swapView`, called by the upkeep (`fleet-upkeep.ts`) with a rebuilt
 * base or an overlay of recent changes composed over it.
 */
export class KdFleetSearchIndex implements FleetSearchIndex {
  private view: FleetView;
  private viewAtMs = 0;
  private viewGeneration = 0;
  private readonly listeners = new Set<FleetChangeListener>();
  private readonly upkeep: FleetIndexUpkeep;

  constructor(options: FleetIndexOptions) {
    const empty = new FleetSnapshot(buildIndexParts([]));
    this.view = new FleetView(empty, empty.exclusions(new Set()), undefined, new UnlocatedIndex([]));
    this.upkeep = new FleetIndexUpkeep(options, {
      currentBase: () => this.view.base,
      swap: (view, change) => this.swapView(view, change),
    });
  }

  search(query: GeoSearch) {
    return this.view.search(query);
  }

  circle(query: CircleQuery) {
    return this.view.circle(query);
  }

  searchItemsJson(query: GeoSearch, out: JsonBytes): number {
    const { total, page } = this.view.searchPage(query);
    writeFleetItems(page, query.radiusKm, out);
    return total;
  }

  unlocated(airports: string[], filter: { types: string[] | undefined; words: string[] }) {
    return this.view.unlocated(airports, filter);
  }

  serving(netid: string, area: { position: { lat: number; lon: number }; radiusKm: number; airport?: string }) {
    return this.view.serving(netid, area);
  }

  /** Number of located active entries in the current view. */
  get size(): number {
    return this.view.size;
  }

  /** When the view answering searches was swapped in (Unix ms; 0 before the first build). */
  get viewBuiltAtMs(): number {
    return this.viewAtMs;
  }

  /** Moves each time a new view starts answering. */
  get generation(): number {
    return this.viewGeneration;
  }

  /** `listener` hears of every new view, before any search reads it; returns the unsubscribe. */
  onChange(listener: FleetChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether the current base was loaded from the saved index file or built (undefined before the first). */
  get source(): "file" | "build" | undefined {
    return this.upkeep.source;
  }

  /** Entries changed since the saved index that the first build loaded (re-read into the overlay); 0 otherwise. */
  get changedSinceSaved(): number {
    return this.upkeep.changedSinceSaved;
  }

  /** Settles once the current base's per-type trees are in (searches with `types` check entries one by one until then). */
  typeTreesReady(): Promise<void> {
    return this.upkeep.typeTreesReady();
  }

  /**
   * Saves the newest built base now if it is not saved yet (a save due later is brought forward) and
   * resolves once no save is in progress: for an orderly shutdown, so the next start can load it.
   */
  saveNow(): Promise<void> {
    return this.upkeep.saveNow();
  }

  fleetChanged(slugs?: readonly string[]): void {
    this.upkeep.fleetChanged(slugs);
  }

  /** Rebuilds now (waiting for a running build first) and resolves once the new snapshot is live. */
  rebuildNow(): Promise<void> {
    return this.upkeep.rebuildNow();
  }

  /** Resolves once every change told (`fleetChanged`) before the call is visible to search. */
  whenFresh(): Promise<void> {
    return this.upkeep.whenFresh();
  }

  /** Stops the build worker; searches keep answering from the last view. */
  close(): void {
    this.upkeep.close();
  }

  /** The one place a new view (a rebuilt base, or the overlay of recent changes over it) starts answering. */
  private swapView(view: FleetView, change: FleetChange | undefined): void {
    this.view = view;
    this.viewAtMs = Date.now();
    this.viewGeneration++;
    // Without a change's extent (a new base), listeners drop everything they derived from the old view.
    for (const listener of this.listeners) listener(this.viewGeneration, change);
  }
}
