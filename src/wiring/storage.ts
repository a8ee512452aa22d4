import type { Db } from "../../adapters/sqlite/db";
import type { AnnouncerFor, Storage } from "../storage/storage";
import { sqliteStorage, type SqliteStorage } from "../storage/sqlite";
import type { Logger } from "../../adapters/logging";
import { SecretBox } from "../../adapters/security/secrets";
import { announceChanges } from "../../domain/usecases/announce-changes";
import { LiveEventBudget, type StoreBounds } from "../../domain/events/store-bounds";
import { LIVE_EVENT_RETENTION_SECONDS } from "../../domain/retention";
import { newEventId, type ServiceConfig } from "./context";

/** The SQLite database, or a function that makes the storage (PostgreSQL's) from what the services give it. */
export type Database = Db | ((announcerFor: AnnouncerFor, secrets: SecretBox, logger: Logger) => Storage);

/**
 * The storage over `database`, its start-up work begun: booking changes announce themselves (outbox rows, live
 * events within each company's budget) and wake the delivery worker with `wakeDelivery`.
 */
export function wireStorage(database: Database, config: ServiceConfig, bounds: StoreBounds, logger: Logger, wakeDelivery: () => void) {
  // Without a key (benchmarks, throwaway databases) secrets are sealed with one that lives as long as the process.
  const secrets = new SecretBox(config.secretsKey ?? SecretBox.newKey());
  // Made once the storage exists (it answers the stored usage); announcers are only asked after that.
  let liveBudget: LiveEventBudget | undefined;
  const budget = { charge: (netid: string, bytes: number) => liveBudget?.charge(netid, bytes) };
  const announcerFor: AnnouncerFor = (lookups) => announceChanges({ ...lookups, runner: { wake: () => wakeDelivery() }, newEventId }, budget);
  const storage: Storage = typeof database === "function" ? database(announcerFor, secrets, logger) : sqliteStorage(database, secrets, announcerFor, logger);
  liveBudget = new LiveEventBudget(storage.liveEvents, bounds.liveEventBytes, LIVE_EVENT_RETENTION_SECONDS);
  // On SQLite this is done when the call returns; the backend awaits it before serving.
  const started = storage.start();
  // Whoever serves awaits `started` and hears its failure; a caller that never does (a test harness closing at once)
  // must not leave the start-up work querying a closed pool: closing waits for it first.
  started.catch(() => undefined);
  const close = storage.close.bind(storage);
  storage.close = async () => {
    await started.catch(() => undefined);
    await close();
  };
  return {
    storage,
    /** Resolves once the storage's start-up work is done (rejects when it failed). */
    started,
    /** The SQLite database, when that is the storage (CLI commands that only SQLite has use it). */
    db: storage.kind === "sqlite" ? (storage as SqliteStorage).db : undefined,
  };
}
