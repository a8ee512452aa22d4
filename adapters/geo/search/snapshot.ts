import type { GeoHit, GeoSearch, IndexedEntry } from "../../../domain/fleet/ports";
import { EARTH_RADIUS_KM } from "../../../domain/geo";
import { slugHash, type IndexParts, type TreeParts, type UnlocatedEntry } from "../parts";
import { countTree, countTreeOneCentre } from "./count";
import { Exclusions, gathered, type FoundPage, toHits } from "./found";
import { grown } from "../typed-array";
import { KdTree } from "./kd-tree";
import { boxChordLowerBound, pointChordLowerBound, pointDistanceKm, prepare, TextMatch, type PreparedQuery } from "./query";

/**
 * `q` words whose per-text answers a snapshot keeps (see FleetSnapshot.wordMemos), a byte per distinct text
 * each: 64, or fewer when the texts are many, so the memos stay within WORD_MEMO_BYTES (at least 4 words).
 */
const WORD_MEMOS = 64;
const WORD_MEMO_BYTES = 16 * 1024 * 1024;

// Scratch space reused by every search (searches are synchronous and never interleave).
let heapKey = new Float64Array(1024);
let heapVal = new Int32Array(1024);
let nodeRec = new Int32Array(4 * 1024);
let heapSize = 0;
let nodes = 0;

/** Adds (key, val) to the min-heap of the running nearest() (nodes: record index ≥ 0; points: −1 − id). */
function pushHeap(key: number, val: number): void {
  if (heapSize === heapKey.length) {
    heapKey = grown(heapKey);
    heapVal = grown(heapVal);
  }
  let i = heapSize++;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heapKey[parent] <= key) break;
    heapKey[i] = heapKey[parent];
    heapVal[i] = heapVal[parent];
    i = parent;
  }
  heapKey[i] = key;
  heapVal[i] = val;
}

/** Removes the heap's top (read heapKey[0] and heapVal[0] first). */
function popHeap(): void {
  const lastKey = heapKey[--heapSize];
  const lastVal = heapVal[heapSize];
  if (heapSize === 0) return;
  let i = 0;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= heapSize) break;
    if (child + 1 < heapSize && heapKey[child + 1] < heapKey[child]) child++;
    if (heapKey[child] >= lastKey) break;
    heapKey[i] = heapKey[child];
    heapVal[i] = heapVal[child];
    i = child;
  }
  heapKey[i] = lastKey;
  heapVal[i] = lastVal;
}

/** Queues node `node` (points left…right) of tree t unless its box lies beyond the radius. */
function pushNode(trees: KdTree[], t: number, node: number, left: number, right: number, q: PreparedQuery): void {
  if (left > right) return;
  const key = boxChordLowerBound(trees[t].boxes, node, q);
  if (key > q.chordLimit) return;
  if (4 * nodes + 4 > nodeRec.length) nodeRec = grown(nodeRec);
  nodeRec[4 * nodes] = t;
  nodeRec[4 * nodes + 1] = node;
  nodeRec[4 * nodes + 2] = left;
  nodeRec[4 * nodes + 3] = right;
  pushHeap(key, nodes++);
}

/** Queues point i of a tree when it passes the filters and may lie within the radius. */
function pushPoint(tree: KdTree, i: number, q: PreparedQuery, text: ((id: number) => boolean) | undefined, excluded: ReadonlySet<number> | undefined): void {
  const id = tree.ids[i];
  if (excluded !== undefined && excluded.has(id)) return;
  if (text !== undefined && !text(id)) return;
  const key = pointChordLowerBound(tree.xyz, i, q);
  if (key <= q.chordLimit) pushHeap(key, -1 - id);
}

/**
 * One immutable generation of the fleet search index, columnar. Searches read it without locks; a
 * rebuild produces a new snapshot that replaces this one in a single assignment. A snapshot can start
 * without its per-type trees (the first build at start-up brings them a moment later, see attachTypeTrees):
 * until then a `types` search walks the all-types tree and checks each entry's type — the same answers, slower.
 */
export class FleetSnapshot {
  readonly size: number;
  readonly unlocatedEntries: UnlocatedEntry[];
  readonly all: KdTree;
  /** Each entry's place in the all-types tree, by global id: where its [lon, lat] is. */
  readonly position: Uint32Array;
  private readonly typeTrees = new Map<string, KdTree>();
  /**
   * Per `q` word, whether each interned text contains it (0 not looked at yet, 1 no, 2 yes), kept across
   * queries (the texts of a snapshot never change): a word searched again costs a byte read per entry instead
   * of a substring search per distinct text. At most `memoWords` words, the least recently used dropped first.
   */
  private readonly wordMemos = new Map<string, Uint8Array>();
  private readonly memoWords: number;
  private readonly treeTexts = new Map<KdTree, Uint32Array>();
  /** True while the per-type trees are still being built (parts.typeTrees is empty meanwhile). */
  private typeTreesPending: boolean;

  constructor(readonly parts: IndexParts) {
    this.size = parts.size;
    this.all = new KdTree(parts.all);
    const allIds = this.all.ids;
    this.position = new Uint32Array(allIds.length);
    for (let i = 0; i < allIds.length; i++) this.position[allIds[i]] = i;
    this.memoWords = Math.max(4, Math.min(WORD_MEMOS, Math.floor(WORD_MEMO_BYTES / Math.max(1, parts.searchTexts.length))));
    this.typeTreesPending = parts.typeTrees.length < parts.typeNames.length;
    if (!this.typeTreesPending) parts.typeNames.forEach((name, i) => this.typeTrees.set(name, new KdTree(parts.typeTrees[i])));
    this.unlocatedEntries = parts.unlocated;
  }

  /** Counts every match and returns the ranked page [offset, offset + limit) by (unrounded distance, slug). */
  search(query: GeoSearch): { total: number; hits: GeoHit[] } {
    const q = prepare(query);
    const total = this.count(q);
    const k = query.offset + query.limit;
    if (total === 0 || query.limit === 0 || query.offset >= total) return { total, hits: [] };
    return { total, hits: toHits(this.nearest(q, k).slice(query.offset, k)) };
  }

  /** Adds the per-type trees of a snapshot made without them (`trees[i]` is the tree of parts.typeNames[i]). */
  attachTypeTrees(trees: TreeParts[]): void {
    if (!this.typeTreesPending || trees.length !== this.parts.typeNames.length) throw new Error("fleet index: type trees do not fit this snapshot");
    this.parts.typeTrees = trees;
    this.parts.typeNames.forEach((name, i) => this.typeTrees.set(name, new KdTree(trees[i])));
    this.typeTreesPending = false;
  }

  /** The entries of `types`, checked one by one: while the per-type trees are pending. */
  private typeCheck(types: string[] | undefined): ((id: number) => boolean) | undefined {
    if (!types || !this.typeTreesPending) return undefined;
    const wanted = new Set(types);
    const { textId, textTypes } = this.parts;
    return (id) => wanted.has(textTypes[textId[id]]);
  }

  /** The entries of one company (a query's `netid`): one interned id compared per point. */
  private ownerCheck(netid: string | undefined): ((id: number) => boolean) | undefined {
    if (netid === undefined) return undefined;
    const wanted = this.parts.netids.indexOf(netid);
    if (wanted < 0) return () => false;
    const { netidId } = this.parts;
    return (id) => netidId[id] === wanted;
  }

  /** One filter by entry id from a query's type check (while the type trees are pending) and q filter. */
  private static both(type: ((id: number) => boolean) | undefined, text: ((id: number) => boolean) | undefined): ((id: number) => boolean) | undefined {
    if (!type) return text;
    return text ? (id) => type(id) && text(id) : type;
  }

  /** The trees a query visits: the all-types tree, or the tree of each requested type that exists. */
  private treesFor(types: string[] | undefined): KdTree[] {
    if (!types || this.typeTreesPending) return [this.all];
    const trees: KdTree[] = [];
    for (const t of types) {
      const tree = this.typeTrees.get(t);
      if (tree) trees.push(tree);
    }
    return trees;
  }

  /** The q filter by entry id, or undefined without words. */
  private textFilter(match: TextMatch | undefined): ((id: number) => boolean) | undefined {
    if (!match) return undefined;
    const { textId } = this.parts;
    return (id) => match.has(textId[id]);
  }

  /** The q filter by interned text, its words' memos kept across queries (see wordMemos). */
  private textMatch(words: string[]): TextMatch | undefined {
    if (words.length === 0) return undefined;
    return new TextMatch(
      words,
      words.map((w) => this.wordMemo(w)),
      this.parts.searchTexts,
    );
  }

  private wordMemo(word: string): Uint8Array {
    let memo = this.wordMemos.get(word);
    if (memo) this.wordMemos.delete(word);
    else {
      memo = new Uint8Array(this.parts.searchTexts.length);
      if (this.wordMemos.size >= this.memoWords) this.wordMemos.delete(this.wordMemos.keys().next().value!);
    }
    // Re-inserted: the Map's order is the order of last use.
    this.wordMemos.set(word, memo);
    return memo;
  }

  /**
   * The interned text of each point of `tree`, in tree order, made on first use: counting with `q` then reads
   * them in sequence instead of one random read into the entry columns per point.
   */
  private textsOf(tree: KdTree): Uint32Array {
    let texts = this.treeTexts.get(tree);
    if (!texts) {
      const { ids } = tree;
      const { textId } = this.parts;
      texts = new Uint32Array(ids.length);
      for (let i = 0; i < ids.length; i++) texts[i] = textId[ids[i]];
      this.treeTexts.set(tree, texts);
    }
    return texts;
  }

  /** True when the entry passes the type and text filters (used for the few tombstoned entries). */
  private passes(q: PreparedQuery, id: number, text: ((id: number) => boolean) | undefined): boolean {
    if (q.netid !== undefined && this.parts.netids[this.parts.netidId[id]] !== q.netid) return false;
    if (q.types && !q.types.includes(this.parts.textTypes[this.parts.textId[id]])) return false;
    return !text || text(id);
  }

  /** Counts every match, leaving out the entries in `excluded`, without materialising any. */
  count(q: PreparedQuery, excluded?: Exclusions): number {
    const match = this.textMatch(q.words);
    const text = this.textFilter(match);
    const type = this.typeCheck(q.types);
    const owner = this.ownerCheck(q.netid);
    const filter = FleetSnapshot.both(FleetSnapshot.both(type, text), owner);
    let total = 0;
    for (const tree of this.treesFor(q.types)) {
      if (tree.ids.length === 0) continue;
      total += match && !type && !owner && q.n === 1 ? countTreeOneCentre(tree, q, match, this.textsOf(tree)) : countTree(tree, q, filter);
    }
    if (excluded) total -= this.countExcluded(q, excluded, text);
    return total;
  }

  /**
   * How many of the excluded entries match: a float64 chord test against the radius plus slack drops the
   * far ones cheaply (a view can exclude thousands), the filters and the exact distance decide the rest.
   */
  private countExcluded(q: PreparedQuery, excluded: Exclusions, text: ((id: number) => boolean) | undefined): number {
    const { ids, xyz } = excluded;
    const limit2 = q.chordLimit * q.chordLimit;
    let n = 0;
    for (let j = 0; j < ids.length; j++) {
      let near = false;
      for (let c = 0; c < q.n && !near; c++) {
        const dx = xyz[3 * j] - q.x[c];
        const dy = xyz[3 * j + 1] - q.y[c];
        const dz = xyz[3 * j + 2] - q.z[c];
        near = dx * dx + dy * dy + dz * dz <= limit2;
      }
      const id = ids[j];
      if (near && this.passes(q, id, text) && pointDistanceKm(q, this.lat(id), this.lon(id)) <= q.radiusKm) n++;
    }
    return n;
  }

  /** The entries with these global ids, to leave out of searches (see Exclusions). */
  exclusions(ids: ReadonlySet<number>): Exclusions {
    return new Exclusions(ids, this.all.coords, this.position);
  }

  /**
   * The k best matches by (distance, slug), ties at the k-th distance included: best-first traversal
   * (geokdbush's approach, over several centres and trees) keyed by a lower bound of the unit-sphere
   * chord; exact distances are computed only for points taken out, and the search stops once k are
   * out and the next candidate's lower bound is beyond the k-th distance.
   */
  nearest(q: PreparedQuery, k: number, exclusions?: Exclusions): FoundPage {
    const text = FleetSnapshot.both(FleetSnapshot.both(this.typeCheck(q.types), this.textFilter(this.textMatch(q.words))), this.ownerCheck(q.netid));
    const excluded = exclusions?.set;
    const trees = this.treesFor(q.types);
    const { coords } = this.all;
    const { position } = this;
    gathered.reset();
    heapSize = 0;
    nodes = 0;
    for (let t = 0; t < trees.length; t++) pushNode(trees, t, 0, 0, trees[t].ids.length - 1, q);
    let limit = Infinity;
    // Bounded: every node and point enters the heap at most once.
    while (heapSize > 0) {
      const key = heapKey[0];
      const val = heapVal[0];
      popHeap();
      if (key > limit) break;
      if (val < 0) {
        const id = -1 - val;
        const at = 2 * position[id];
        const dist = pointDistanceKm(q, coords[at + 1], coords[at]);
        if (dist > q.radiusKm) continue;
        // Every point nearer than the k-th so far has a key below this chord, so it is still taken out.
        if (gathered.add(id, dist) === k) limit = 2 * Math.sin(Math.min(Math.PI, gathered.farthest() / EARTH_RADIUS_KM) / 2) + 1e-12;
        continue;
      }
      const t = nodeRec[4 * val];
      const node = nodeRec[4 * val + 1];
      const left = nodeRec[4 * val + 2];
      const right = nodeRec[4 * val + 3];
      const tree = trees[t];
      if (right - left <= tree.nodeSize) {
        for (let i = left; i <= right; i++) pushPoint(tree, i, q, text, excluded);
        continue;
      }
      const m = (left + right) >> 1;
      pushPoint(tree, m, q, text, excluded);
      pushNode(trees, t, 2 * node + 1, left, m - 1, q);
      pushNode(trees, t, 2 * node + 2, m + 1, right, q);
    }
    return gathered.page(this);
  }

  /** The columns and the all-types tree, for the circle scan (circle.ts). */
  get columns(): { parts: IndexParts; tree: KdTree } {
    return { parts: this.parts, tree: this.all };
  }

  /** The entry with global id `id`, as search results show it. */
  entry(id: number): IndexedEntry {
    const p = this.parts;
    const t = p.textId[id];
    const r = p.rateId[id];
    const luggage = p.maxLuggage[id];
    return {
      slug: this.slug(id),
      netid: p.netids[p.netidId[id]],
      type: p.textTypes[t],
      name: p.names[t],
      description: p.descriptions[t],
      imageUrl: p.imageUrls[p.imageId[id]],
      maxPassengers: p.maxPassengers[id],
      maxLuggage: luggage < 0 ? null : luggage,
      lat: this.lat(id),
      lon: this.lon(id),
      minimumRate: p.rates[3 * r],
      hourlyRate: p.rates[3 * r + 1],
      currency: p.rates[3 * r + 2],
    };
  }

  /** The position of the entry with global id `id` (from the all-types tree, which holds every one). */
  lat(id: number): number {
    return this.all.coords[2 * this.position[id] + 1];
  }

  lon(id: number): number {
    return this.all.coords[2 * this.position[id]];
  }

  slug(id: number): string {
    const { slugText, slugStart } = this.parts;
    return slugText.substring(slugStart[id], slugStart[id + 1]);
  }

  /** Byte order of two entries' slugs (ASCII, so the same as string order). */
  compareSlugs(a: number, b: number): number {
    const { slugBytes, slugStart } = this.parts;
    let i = slugStart[a];
    let j = slugStart[b];
    const endA = slugStart[a + 1];
    const endB = slugStart[b + 1];
    for (; i < endA && j < endB; i++, j++) if (slugBytes[i] !== slugBytes[j]) return slugBytes[i] - slugBytes[j];
    return endA - i - (endB - j);
  }

  /** The global id of a located entry by slug, or −1. */
  idOf(slug: string): number {
    const { slugTable, slugBytes, slugStart } = this.parts;
    const mask = slugTable.length - 1;
    // Bounded: the table is at most half full, so an empty slot is always reached.
    for (let h = slugHash(slug) & mask; slugTable[h] !== 0; h = (h + 1) & mask) {
      const id = slugTable[h] - 1;
      const start = slugStart[id];
      if (slugStart[id + 1] - start !== slug.length) continue;
      let same = true;
      for (let i = 0; i < slug.length && same; i++) same = slugBytes[start + i] === slug.charCodeAt(i);
      if (same) return id;
    }
    return -1;
  }
}
