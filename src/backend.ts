import type { Config } from "./config";
import { createServices, startBookingWriter, type ServiceOptions, type Services } from "./services";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { BackgroundCheckpointer } from "../adapters/sqlite/checkpointer";
import { watchFleetChanges } from "../adapters/sqlite/fleet-watch";
import { scheduleRetention } from "../adapters/sqlite/retention";
import type { Logger } from "../adapters/logging";
import { migrate as migratePostgres, openPostgres } from "../adapters/postgres/db";
import { watchFleetChangesPg } from "../adapters/postgres/fleet-watch";
import { schedulePgRetention } from "../adapters/postgres/retention";
import { postgresStorage, type PostgresStorage } from "./storage/postgres";

/**
 * The service over its database, and the background work that database needs while `serve` runs: for the
 * SQLite file, checkpoints and booking commits in workers, a watch for other processes' fleet changes and
 * hourly retention; for PostgreSQL, the feed of every instance's fleet changes and retention on one instance.
 */
export interface Backend {
  services: Services;
  /** Starts the background work (after the first index build). */
  startBackground(): Promise<void>;
  /** Stops the background work once requests have stopped (committing changes finish first). */
  stopBackground(): Promise<void>;
  /** Closes the database (after the index is saved). */
  close(): Promise<void>;
}

/** Opens the database `config` names (PostgreSQL with DATABASE_URL, else the SQLite file), migrated, with the service over it. */
export async function openBackend(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<Backend> {
  return config.databaseUrl ? openPostgresBackend(config, logger, options) : openSqliteBackend(config, logger, options);
}

async function openSqliteBackend(config: Config, logger: Logger, options: ServiceOptions): Promise<Backend> {
  const db = openDatabase(config.dbPath);
  // Repositories prepare statements against the schema, so migrations run before anything else.
  const applied = migrate(db);
  if (applied.length) logger.info({ migrations: applied }, "migrated");
  const services = createServices(db, config, undefined, { logger, ...options });
  await services.started;
  let stopWork = async () => {};
  let stopCheckpoints = async () => {};
  return {
    services,
    async startBackground() {
      // WAL checkpoints run in a worker: on this connection they would stall the event loop inside a commit.
      const checkpointer = await BackgroundCheckpointer.start(db.$client, { onProblem: (message) => logger.warn(message) });
      // So do booking commits (their fsync), on the booking writer's connection.
      const bookingWriter = await startBookingWriter(services, (message) => logger.warn(message), { backgroundCheckpoints: checkpointer.running });
      // The writer was opened without automatic checkpoints only because the worker runs; if it dies, both resume.
      if (bookingWriter && checkpointer.running) checkpointer.onWorkerLost(() => bookingWriter.resumeAutoCheckpoints());
      // Fleet changes committed by other processes (the CLI's fleet import) reach search within 1 s.
      const stopFleetWatch = watchFleetChanges(
        db.$client,
        (slugs) => services.fleetIndex.fleetChanged(slugs),
        (err) => logger.warn({ err }, "fleet change watch failed; trying again"),
      );
      // Delivered outbox rows, old audit rows, released tokens, stale login failures and idempotency keys: pruned hourly.
      const stopRetention = scheduleRetention(
        db.$client,
        (deleted) => logger.info({ deleted }, "retention: old rows pruned"),
        (err) => logger.warn({ err }, "retention run failed; trying again next hour"),
      );
      stopWork = async () => {
        stopFleetWatch();
        stopRetention();
        // Changes still committing are answered before the connections close.
        await services.trips.send.bookings.drain();
        await bookingWriter?.stop();
      };
      stopCheckpoints = () => checkpointer.stop();
    },
    stopBackground: () => stopWork(),
    async close() {
      await stopCheckpoints();
      await services.audit.flush();
      db.$client.close();
    },
  };
}

/** Connections each instance keeps to PostgreSQL. */
const PG_POOL_SIZE = 16;

async function openPostgresBackend(config: Config, logger: Logger, options: ServiceOptions): Promise<Backend> {
  const db = openPostgres(config.databaseUrl!, { max: PG_POOL_SIZE });
  // Any number of instances may start at once: one applies the migrations, the others wait on its advisory lock.
  const applied = await migratePostgres(db.$client);
  if (applied.length) logger.info({ migrations: applied }, "migrated");
  let storage!: PostgresStorage;
  const services = createServices(
    (announcerFor, secrets, log) =>
      (storage = postgresStorage(db, secrets, announcerFor, log, { indexFile: `${config.dbPath}.fleet-index`, leaseSeconds: config.deliveryLeaseSeconds })),
    config,
    undefined,
    { logger, ...options },
  );
  await services.started;
  let stopWork = async () => {};
  return {
    services,
    async startBackground() {
      // Fleet changes committed by any instance (or the CLI) reach this one's search within a second.
      // Live events are numbered while no stream here reads them (the streams' reads number them too).
      const stopSequencer = storage.liveEvents.startSequencer();
      const feed = watchFleetChangesPg(db, storage.fleetSource, services.fleetIndex, (err) => logger.warn({ err }, "fleet change feed failed; trying again"));
      // One instance at a time prunes what retention allows.
      const stopRetention = schedulePgRetention(
        db,
        (deleted) => logger.info({ deleted }, "retention: old rows pruned"),
        (err) => logger.warn({ err }, "retention run failed; trying again next hour"),
      );
      stopWork = async () => {
        stopRetention();
        stopSequencer();
        await feed.stop();
        await services.trips.send.bookings.drain();
      };
    },
    stopBackground: () => stopWork(),
    async close() {
      await services.audit.flush();
      await storage.close();
    },
  };
}
