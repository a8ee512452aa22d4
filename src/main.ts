#!/usr/bin/env bun
import { ConfigError, loadConfig, type Config } from "./config";
import { buildApp, buildCoreApp, buildPlatformApp, createServices } from "./app";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { createLogger } from "../adapters/logging";
import { parsePlan } from "../domain/company/plan";
import { DEMO_LOGIN, seedDemo } from "../adapters/demo/seed";
import type { Readiness } from "../adapters/http/health";
import { fleetImportCommand } from "./fleet-import-command";

const USAGE = `Usage: tripswitch <command> [arguments]

Commands:
  serve [--demo]                        migrate, build indexes, then serve HTTP (default command)
  migrate                               apply database migrations and exit
  seed-demo                             load the demo companies and fleet
  company set-plan <netid> <FREE|PROFESSIONAL|ENTERPRISE>
  user remove <uid>                     delete a user's profile; its tokens stop working
  fleet import <netid> <file.csv|file.json>
                                        import up to 10,000 fleet entries, all or nothing

Configuration comes from the environment: PORT, PLATFORM_PORT, HOST, DB_PATH, JWT_SECRET,
TOKEN_TTL_SECONDS, DEMO_DATA, LOG_LEVEL, MAX_BODY_BYTES (see README.md).`;

class UsageError extends Error {}

/** True when running as the compiled binary rather than `bun src/main.ts`. */
function isCompiled(): boolean {
  return import.meta.path.startsWith("/$bunfs/") || import.meta.path.includes("~BUN");
}

async function main(argv: string[]): Promise<number> {
  const [command = "serve", ...args] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(USAGE);
    return 0;
  }
  const config = loadConfig();
  switch (command) {
    case "serve":
      if (args.some((a) => a !== "--demo")) throw new UsageError(`serve: unknown argument ${args.find((a) => a !== "--demo")}`);
      return serve(config, args.includes("--demo"));
    case "migrate": {
      if (args.length) throw new UsageError("migrate takes no arguments");
      const db = openDatabase(config.dbPath);
      const applied = migrate(db);
      console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
      db.$client.close();
      return 0;
    }
    case "seed-demo": {
      if (args.length) throw new UsageError("seed-demo takes no arguments");
      const { services, close } = open(config);
      await seedDemo(services);
      console.log(`demo data loaded; log in with uid ${DEMO_LOGIN.uid} and password ${DEMO_LOGIN.pw}`);
      close();
      return 0;
    }
    case "company": {
      const [sub, netid, planName, ...rest] = args;
      if (sub !== "set-plan" || !netid || !planName || rest.length) throw new UsageError("usage: company set-plan <netid> <FREE|PROFESSIONAL|ENTERPRISE>");
      const plan = parsePlan(planName);
      if (!plan) throw new UsageError(`unknown plan ${planName}: use FREE, PROFESSIONAL or ENTERPRISE`);
      const { services, close } = open(config);
      const ok = await services.companies.setPlan(netid, plan);
      close();
      if (!ok) {
        console.error(`no company with netid ${netid}`);
        return 1;
      }
      console.log(`${netid} is now on ${plan}`);
      return 0;
    }
    case "user": {
      const [sub, uid, ...rest] = args;
      if (sub !== "remove" || !uid || rest.length) throw new UsageError("usage: user remove <uid>");
      const { services, close } = open(config);
      const ok = await services.users.remove(uid);
      close();
      if (!ok) {
        console.error(`no user with uid ${uid}`);
        return 1;
      }
      console.log(`user ${uid} removed; its tokens no longer work`);
      return 0;
    }
    case "fleet": {
      const [sub, netid, file, ...rest] = args;
      if (sub !== "import" || !netid || !file || rest.length) throw new UsageError("usage: fleet import <netid> <file.csv|file.json>");
      if (!/\.(csv|json)$/i.test(file)) throw new UsageError(`fleet import: ${file} must be a .csv or .json file`);
      const { services, close } = open(config);
      try {
        return await fleetImportCommand(services, netid, file);
      } finally {
        close();
      }
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

function open(config: Config) {
  const db = openDatabase(config.dbPath);
  migrate(db);
  const services = createServices(db, config);
  return {
    services,
    close: () => {
      services.fleetIndex.close();
      db.$client.close();
    },
  };
}

async function serve(config: Config, demoFlag: boolean): Promise<number> {
  const logger = createLogger(config.logLevel);
  const readiness: Readiness = { ready: false };
  const db = openDatabase(config.dbPath);
  const services = createServices(db, config);
  let server: { stop(): Promise<void> | void; requestIP(r: Request): { address: string } | null } | undefined;
  const addressOf = (request: Request) => server?.requestIP(request)?.address ?? "unknown";
  const options = { logger, maxBodyBytes: config.maxBodyBytes, readiness, addressOf };
  const listen = { hostname: config.host, maxRequestBodySize: 17 * 1024 * 1024 };

  const apps = config.platformPort === undefined ? [buildApp(services, options).listen({ ...listen, port: config.port })] : [
    buildCoreApp(services, options).listen({ ...listen, port: config.port }),
    buildPlatformApp(services, options).listen({ ...listen, port: config.platformPort }),
  ];
  server = apps[0].server as unknown as typeof server;

  const applied = migrate(db);
  if (applied.length) logger.info({ migrations: applied }, "migrated");
  const wantDemo = config.demoData ?? (demoFlag || !isCompiled());
  if (wantDemo && (await seedDemo(services))) logger.info("demo data loaded");
  await services.fleetIndex.rebuildNow();
  logger.info({ entries: services.fleetIndex.size }, "fleet index built");
  readiness.ready = true;

  const ports = apps.map((a) => a.server?.port).join(" and ");
  logger.info({ ports }, "ready");
  console.error(`TripSwitch listening on ${config.host}:${ports}; docs at http://localhost:${apps[0].server?.port}/docs`);
  if (wantDemo) console.error(`Demo login: uid ${DEMO_LOGIN.uid}, password ${DEMO_LOGIN.pw}`);

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
  logger.info("shutting down");
  await Promise.all(apps.map((a) => a.stop()));
  services.fleetIndex.close();
  db.$client.close();
  logger.flush();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (error instanceof ConfigError) {
      console.error(`configuration error: ${error.message}`);
      process.exit(2);
    }
    console.error("fatal:", error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
