import type { AnnouncedMessage } from "../delivery/ports";
import type { NewLiveEvent } from "../events/live-events";
import type { SettledRow } from "./statement";

/** What one company's settled bookings with one counterparty sum to in a month, one direction and currency. */
export interface CounterpartySum {
  counterparty: string;
  /** The asking company's role in these bookings. */
  role: "requester" | "provider";
  currency: string;
  /** Whole minor units, as a decimal integer string. */
  units: string;
  lines: number;
}

/** The settled bookings statements read (docs/settlement.md#statements-and-settlement), through their own indexes. */
export interface StatementSource {
  /** The rows between `a` and `b` (stored netids) with a pickup in [start, end), both directions. */
  rowsBetween(a: string, b: string, start: number, end: number): Promise<SettledRow[]>;
  /** Whether `a` and `b` have a settled booking in any month. */
  anyBetween(a: string, b: string): Promise<boolean>;
  /** `me`'s settled bookings of [start, end), summed per counterparty, role and currency. */
  sumsOf(me: string, start: number, end: number): Promise<CounterpartySum[]>;
  /** One booking's row (undefined when it is not settled, nor a booking). */
  row(transactionId: string): Promise<SettledRow | undefined>;
  /** A booking's parties and pickup, settled or not (undefined when there is none). */
  parties(transactionId: string): Promise<{ requesterId: string; providerId: string; pickupDate: number } | undefined>;
  /** Where a company works: its first placed vehicle's position; undefined when it has none. */
  firstVehicleAt(netid: string): Promise<{ lat: number; lon: number } | undefined>;
}

/**
 * The give-back cost recoveries a provider owes a requester (docs/settlement.md#statements-and-settlement), as
 * statement rows of kind COST_RECOVERY: between `me` and `them` (every counterparty when undefined) with a pickup in
 * [start, end). The single seam through which statements read recoveries.
 */
export type CostRecoveries = (me: string, start: number, end: number, them?: string) => Promise<SettledRow[]>;

export type DisputeState = "OPEN" | "ACCEPTED" | "ANSWERED";

/** A dispute of one statement line (docs/settlement.md#states-and-disputes). */
export interface Dispute {
  id: string;
  transactionId: string;
  requesterId: string;
  providerId: string;
  period: string;
  raisedBy: string;
  reason: string;
  raisedAt: number;
  state: DisputeState;
  answer: string | null;
  answeredAt: number | null;
}

/**
 * What a dispute's step tells the other party: its webhook (when it has a webhook URL) and its live event, written in
 * the step's own transaction so that neither is lost nor sent for a step that was not saved
 * (docs/settlement.md#states-and-disputes).
 */
export interface DisputeNotice {
  message?: AnnouncedMessage;
  live: NewLiveEvent[];
}

export interface DisputeStore {
  /** Saves an OPEN dispute and its notice in one transaction; false (nothing saved) when the line has one open already. */
  raise(d: Dispute, notice: DisputeNotice): Promise<boolean>;
  get(id: string): Promise<Dispute | undefined>;
  /** Ends an OPEN dispute and saves its notice in one transaction; false (nothing saved) when it was not open any more. */
  end(id: string, state: Exclude<DisputeState, "OPEN">, answer: string | null, at: number, notice: DisputeNotice): Promise<boolean>;
  /** Every dispute of a month's lines between `a` and `b`, oldest first. */
  between(a: string, b: string, period: string): Promise<Dispute[]>;
  /** The open disputes of a month's lines `me` is a party of. */
  openOf(me: string, period: string): Promise<Dispute[]>;
}
