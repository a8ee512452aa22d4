import type { Config } from "./config";
import { buildApp, buildCoreApp, buildPlatformApp } from "./app";
import { startFlightPoller, startOfferWatch, startSandboxDispatcher } from "./services";
import { openBackend } from "./backend";
import { COMPILED } from "../adapters/runtime";
import { createLogger } from "../adapters/logging";
import { DEMO_LOGIN, seedDemo } from "./demo/seed";
import { DEMO_TRIP, startDemoChauffeur } from "./demo/moving-chauffeur";
import { bookDemoFlight, delaysDemoFlight } from "./demo/delayed-flight";
import type { Readiness } from "../adapters/http/health";
import { clientAddress } from "../adapters/http/client-address";

/** Between a stop signal and closing the listeners. */
const SHUTDOWN_GRACE_MS = 250;

/** `serve`: migrate, build the index, serve HTTP until SIGTERM or SIGINT, then stop in order. */
export async function serve(config: Config, demoFlag: boolean): Promise<number> {
  const logger = createLogger(config.logLevel);
  // A port another process holds stops the start before anything is opened (exit 1), unless REUSE_PORT=1.
  const taken = config.reusePort ? undefined : portTaken(config.host, [config.port, config.platformPort]);
  if (taken !== undefined) return portInUse(logger, config.host, taken);
  const readiness: Readiness = { ready: false };
  // The demo trip's chauffeur is moved by the demo itself (below), not by the sandbox dispatcher.
  const sandboxSkip = (trip: { requesterId: string; requesterResNo: string }) =>
    trip.requesterId === DEMO_TRIP.requesterId && trip.requesterResNo === DEMO_TRIP.requesterResNo;
  // The demo's airport pickup: the sandbox reports its flight late (docs/operator.md#a-flight-that-lands-late).
  const backend = await openBackend(config, logger, { sandboxSkip, sandboxFlightDelay: delaysDemoFlight });
  const { services } = backend;
  if (config.outboundAllowPrivate) {
    logger.warn("OUTBOUND_ALLOW_PRIVATE=1: delivery and webhook URLs may reach this machine and its private network");
    console.error("warning: OUTBOUND_ALLOW_PRIVATE=1 lets delivery and webhook URLs reach private addresses (development and tests only)");
  }
  if (config.passwordHashCost === "test") {
    logger.warn("PASSWORD_HASH_COST=test: passwords are hashed at the test suite's cost");
    console.error("warning: PASSWORD_HASH_COST=test hashes passwords at a cost meant for tests only (1 MiB, 1 pass); leave it unset for real accounts");
  }
  if (config.production && config.metricsToken === undefined) {
    logger.warn("METRICS_PUBLIC=1: GET /metrics answers anyone without METRICS_TOKEN");
    console.error("warning: METRICS_PUBLIC=1 serves /metrics to anyone who can reach this port (set METRICS_TOKEN to close it)");
  }
  // Never in production (the demo password is public); seedDemo also writes only into an empty database.
  if (config.production && demoFlag) logger.warn("--demo ignored: NODE_ENV=production");
  const wantDemo = !config.production && (config.demoData ?? (demoFlag || !COMPILED));
  // With no demo data to seed first, the first index build (the long part of start-up) starts now and
  // runs in its workers while the HTTP apps are set up; /readyz still waits for it.
  const firstBuild = wantDemo ? undefined : services.fleetIndex.rebuildNow();
  firstBuild?.catch(() => {}); // awaited below
  await backend.startBackground();
  let server: { stop(): Promise<void> | void; requestIP(r: Request): { address: string } | null } | undefined;
  const addressOf = (request: Request) => clientAddress(request, server?.requestIP(request)?.address, config.trustProxy);
  const options = { logger, maxBodyBytes: config.maxBodyBytes, readiness, addressOf, metricsToken: config.metricsToken, mapTiles: config.mapTiles };
  // Elysia's Bun adapter listens with reusePort by default: a second service would silently share the port (and
  // split the traffic between two databases). Only REUSE_PORT=1 (PostgreSQL, checked by the config) shares it.
  const listen = { hostname: config.host, maxRequestBodySize: 17 * 1024 * 1024, idleTimeout: config.idleTimeoutSeconds, reusePort: config.reusePort };

  const apps: Array<{ stop(): unknown; server: { port?: number } | null }> = [];
  try {
    if (config.platformPort === undefined) apps.push(buildApp(services, options).listen({ ...listen, port: config.port }));
    else {
      apps.push(buildCoreApp(services, options).listen({ ...listen, port: config.port }));
      apps.push(buildPlatformApp(services, options).listen({ ...listen, port: config.platformPort }));
    }
  } catch (error) {
    // Taken between the check above and now.
    if ((error as { code?: string }).code !== "EADDRINUSE") throw error;
    portInUse(logger, config.host, apps.length === 0 ? config.port : config.platformPort!);
    await Promise.all(apps.map((a) => a.stop()));
    await backend.stopBackground();
    await services.worker.stop();
    await services.positions.close();
    await services.storage.liveEvents.close();
    services.fleetIndex.close();
    await backend.close();
    logger.flush();
    return 1;
  }
  server = apps[0].server as unknown as typeof server;

  const seeded = wantDemo && (await seedDemo(services));
  if (seeded) logger.info("demo data loaded");
  // The demo trip's chauffeur moves while the service runs, so the tracking operations answer at once.
  const stopDemoChauffeur = wantDemo ? await startDemoChauffeur(services) : () => {};
  if (wantDemo) await bookDemoFlight(services);
  await (firstBuild ?? services.fleetIndex.rebuildNow());
  // The build passed its data through this thread (transferred, but with copies of its string tables):
  // collect that garbage now, so the service starts out at its steady resident size.
  Bun.gc(true);
  logger.info(
    {
      entries: services.fleetIndex.size,
      from: services.fleetIndex.source === "file" ? "saved index file" : "database",
      changedSinceSaved: services.fleetIndex.changedSinceSaved,
    },
    "fleet index ready",
  );
  services.worker.start();
  const stopSandbox = startSandboxDispatcher(services);
  // Acceptance deadlines and the cascade: a first pass now handles deadlines that passed while the service was down.
  const stopOfferWatch = startOfferWatch(services, config.offerWatchMs);
  // Flights landing soon move their pickups (FLIGHT_STATUS_KEY; off without it).
  const stopFlightPoller = startFlightPoller(services);
  readiness.ready = true;
  // The gazetteer's places (a 32 MB GeoNames file, seconds to index) are read in a Worker now, so the first
  // city pickup finds them ready and the event loop is never held while they load (docs/places.md).
  // GAZETTEER_WARM=0 leaves them to the first city lookup.
  const warmStarted = performance.now();
  if (config.gazetteerWarm)
    services.searchFleet.gazetteer.warmInBackground().then(
      () => logger.info({ ms: Math.round(performance.now() - warmStarted) }, "gazetteer ready"),
      (err: Error) => logger.warn({ err: err.message }, "gazetteer warm-up failed; the first city lookup loads it"),
    );

  const ports = apps.map((a) => a.server?.port).join(" and ");
  logger.info({ ports }, "ready");
  console.error(`TripSwitch listening on ${config.host}:${ports}; docs at http://localhost:${apps[0].server?.port}/docs`);
  if (wantDemo && (seeded || (await services.companies.findByNetid(DEMO_LOGIN.uid)))) {
    console.error(`Demo login: uid ${DEMO_LOGIN.uid}, password ${DEMO_LOGIN.pw}`);
  }

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
  logger.info("shutting down");
  // Not ready any more (a load balancer stops sending), and a moment for requests whose connections are already
  // open to be read: stopping the server closes connections it has not read a request from yet.
  readiness.ready = false;
  await Bun.sleep(SHUTDOWN_GRACE_MS);
  stopDemoChauffeur();
  stopSandbox();
  await stopOfferWatch();
  await stopFlightPoller();
  // Open event streams end now (their clients reconnect, to another instance or after the restart).
  services.liveHub.close();
  await Promise.all(apps.map((a) => a.stop()));
  await backend.stopBackground();
  await services.worker.stop();
  await services.positions.close();
  await services.storage.liveEvents.close();
  // The index saved now lets the next start load it instead of building it (if the fleet is unchanged).
  await services.fleetIndex.saveNow();
  services.fleetIndex.close();
  await backend.close();
  logger.flush();
  return 0;
}

/** The first of `ports` another process listens on (tried without port reuse, released at once), or undefined. */
function portTaken(hostname: string, ports: Array<number | undefined>): number | undefined {
  for (const port of ports) {
    if (port === undefined || port === 0) continue;
    try {
      Bun.serve({ hostname, port, reusePort: false, fetch: () => new Response(null, { status: 503 }) }).stop(true);
    } catch (error) {
      if ((error as { code?: string }).code === "EADDRINUSE") return port;
      throw error;
    }
  }
  return undefined;
}

/** Says the port is in use (stderr and the log) and gives the exit status: 1. */
function portInUse(logger: ReturnType<typeof createLogger>, host: string, port: number): number {
  logger.error({ port }, "port in use");
  console.error(`port ${port} is in use: another process listens on ${host}:${port} (stop it, or set PORT; REUSE_PORT=1 shares it, PostgreSQL only)`);
  logger.flush();
  return 1;
}
