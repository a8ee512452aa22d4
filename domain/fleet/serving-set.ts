import type { QuotableVehicle } from "./entry";

/** One distinct rate of a serving set: what a vehicle's fee is computed from, and its currency. */
export interface ServingRate {
  minimumRate: string;
  hourlyRate: string;
  currency: string;
}

/**
 * A provider's active vehicles serving a pickup as columns (numbered 0…size−1): what choosing a quote's currency
 * and ranking its options read of each vehicle, without an object per vehicle. A big fleet shares few distinct
 * rates and types, so those are tables the columns point into. `vehicle(i)` materialises one vehicle: a quote
 * does it only for the options it keeps.
 */
export interface ServingSet {
  readonly size: number;
  /** Distinct rates (a rate may be listed twice: it is then priced twice, with the same result). */
  readonly rates: readonly ServingRate[];
  /** Per vehicle: its rate, an index into `rates`. */
  readonly rate: ArrayLike<number>;
  /** Per vehicle: the passengers it seats. */
  readonly seats: ArrayLike<number>;
  /** Per vehicle: the pieces of luggage it holds, −1 when unknown. */
  readonly luggage: ArrayLike<number>;
  /** Vehicle types, and per vehicle its type (an index into `types`). */
  readonly types: readonly string[];
  readonly type: ArrayLike<number>;
  /** Vehicle i's code (its slug). */
  code(i: number): string;
  /** The order of two vehicles' codes (negative when i's comes first); codes are distinct. */
  compareCodes(i: number, j: number): number;
  /** Vehicle i as a quote option reads it. */
  vehicle(i: number): QuotableVehicle;
}

const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A serving set of plain vehicles (their active ones): for vehicles read from storage, and as a reference. */
export function servingSetOf(vehicles: readonly QuotableVehicle[]): ServingSet {
  const active = vehicles.filter((v) => v.active);
  const n = active.length;
  const rates: ServingRate[] = [];
  const rateIds = new Map<string, number>();
  const types: string[] = [];
  const typeIds = new Map<string, number>();
  const rate = new Int32Array(n);
  const seats = new Int32Array(n);
  const luggage = new Int32Array(n);
  const type = new Int32Array(n);
  active.forEach((v, i) => {
    const key = `${v.minimumRate} ${v.hourlyRate} ${v.currency}`;
    let r = rateIds.get(key);
    if (r === undefined) {
      rateIds.set(key, (r = rates.length));
      rates.push({ minimumRate: v.minimumRate, hourlyRate: v.hourlyRate, currency: v.currency });
    }
    let t = typeIds.get(v.type);
    if (t === undefined) {
      typeIds.set(v.type, (t = types.length));
      types.push(v.type);
    }
    rate[i] = r;
    seats[i] = v.maxPassengers;
    luggage[i] = v.maxLuggage ?? -1;
    type[i] = t;
  });
  return {
    size: n,
    rates,
    rate,
    seats,
    luggage,
    types,
    type,
    code: (i) => active[i].slug,
    compareCodes: (i, j) => byString(active[i].slug, active[j].slug),
    vehicle: (i) => active[i],
  };
}

/** Two serving sets as one: a's vehicles, then b's (their codes distinct). */
export function joinedSets(a: ServingSet, b: ServingSet): ServingSet {
  if (b.size === 0) return a;
  if (a.size === 0) return b;
  const n = a.size + b.size;
  const rate = new Int32Array(n);
  const seats = new Int32Array(n);
  const luggage = new Int32Array(n);
  const type = new Int32Array(n);
  const rateShift = a.rates.length;
  const typeShift = a.types.length;
  copyInto(rate, a.rate);
  copyInto(seats, a.seats);
  copyInto(luggage, a.luggage);
  copyInto(type, a.type);
  for (let j = 0; j < b.size; j++) {
    const i = a.size + j;
    rate[i] = rateShift + b.rate[j];
    seats[i] = b.seats[j];
    luggage[i] = b.luggage[j];
    type[i] = typeShift + b.type[j];
  }
  const sizeA = a.size;
  return {
    size: n,
    rates: [...a.rates, ...b.rates],
    rate,
    seats,
    luggage,
    types: [...a.types, ...b.types],
    type,
    code: (i) => (i < sizeA ? a.code(i) : b.code(i - sizeA)),
    compareCodes: (i, j) => {
      if (i < sizeA && j < sizeA) return a.compareCodes(i, j);
      if (i >= sizeA && j >= sizeA) return b.compareCodes(i - sizeA, j - sizeA);
      return byString(i < sizeA ? a.code(i) : b.code(i - sizeA), j < sizeA ? a.code(j) : b.code(j - sizeA));
    },
    vehicle: (i) => (i < sizeA ? a.vehicle(i) : b.vehicle(i - sizeA)),
  };
}

/** Copies a column to the start of `target`: in one block when it is a typed array (a big set's always are). */
function copyInto(target: Int32Array, column: ArrayLike<number>): void {
  if (column instanceof Int32Array) target.set(column);
  else for (let i = 0; i < column.length; i++) target[i] = column[i];
}
