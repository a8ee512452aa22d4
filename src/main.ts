#!/usr/bin/env bun
import { ConfigError, loadConfig, type Config } from "./config";
import { migrate, openDatabase } from "../adapters/sqlite/db";
import { migrate as migratePostgres, openPostgres } from "../adapters/postgres/db";
import { backupTo, restoreFrom } from "../adapters/sqlite/backup";
import { createLogger } from "../adapters/logging";
import { parsePlan } from "../domain/company/plan";
import { DEMO_LOGIN, seedDemo } from "./demo/seed";
import { openBackend } from "./backend";
import { updateIntegration } from "../domain/usecases/integration";
import { ValidationError } from "../domain/errors";
import type { Company } from "../domain/company/registration";
import type { Services } from "./services";
import { putRateCard } from "../domain/usecases/rate-cards";
import { importFxRates } from "../domain/usecases/fx-rates";
import { readEcbFile } from "../adapters/fx/ecb-file";
import { fleetImportCommand } from "./fleet-import-command";
import { IMPORT_MODES, type ImportMode } from "../domain/fleet/import-plan";
import { importSqliteCommand } from "./import-sqlite-command";
import { VERSION } from "./version";

const USAGE = `Usage: tripswitch <command> [arguments]

Commands:
  serve [--demo]                        migrate, build indexes, then serve HTTP (default command)
  migrate                               apply database migrations and exit
  seed-demo                             load the demo companies and fleet
  company set-plan <netid> <FREE|PROFESSIONAL|ENTERPRISE>
  company set-sandbox <netid> on|off   a sandbox company's trips are answered by a simulated dispatcher
  company set-integration <netid> [--delivery-url URL] [--luggage native|notes] [--webhook-url URL]
                          [--webhook-format events|gnet] [--accept-trips-from anyone|partners]
                          [--service-radius-km 1-500] [--turnaround-minutes 0-720]
                          [--minimum-notice-minutes 0-10080] [--max-trip-km 1-5000] [--policies JSON]
                          [--display-currency CODE]
                                        set a company's delivery endpoint, luggage support, webhook URL
                                        ("" clears a URL), webhook body format, who
                                        may send it trips (anyone, or only partners) and
                                        how far from a pickup its vehicles serve quotes (km),
                                        the turnaround after a booked trip and the shortest
                                        notice it quotes at (minutes), and the longest trip
                                        it quotes (km of road; "" resets to the default), and the
                                        currency network quotes are shown in (ISO 4217, e.g. EUR; "" clears)
  user remove <uid>                     delete a user's profile; its tokens stop working
  audit [--type T] [--netid N] [--since UNIX] [--limit N]
                                        print security events (newest first) as JSON lines
  backup <file>                         consistent online backup of the database (the service may run)
  restore <file>                        replace the database with a checked backup (stop the service first)
  fleet import <netid> <file.csv|file.json> [--mode upsert|replace|append]
  rates import <netid> <file.json>   replace a company's rate card (docs/rates.md)
  fx import <file.csv|file.xml>         replace the FX table with the ECB's daily reference rates file, as published
                                        (eurofxref-daily.xml or the CSV of eurofxref.zip; docs/fx.md), all or nothing
                                        import up to 10,000 fleet entries, all or nothing
  import-sqlite <file.sqlite>           copy an SQLite database into the (new, empty) PostgreSQL database
                                        at DATABASE_URL, all or nothing
  --version                             print the version and exit

Configuration comes from the environment: PORT, PLATFORM_PORT, HOST, DB_PATH, JWT_SECRET,
TOKEN_TTL_SECONDS, DEMO_DATA, LOG_LEVEL, MAX_BODY_BYTES, RATE_LIMIT_SEARCH_PER_MIN,
RATE_LIMIT_SENDTRIP_PER_MIN, RATE_LIMIT_REGISTER_PER_HOUR, RATE_LIMIT_WRITES_PER_MIN, IDLE_TIMEOUT_SECONDS,
TRUST_PROXY, SECRETS_KEY, OUTBOUND_ALLOW_PRIVATE, METRICS_TOKEN, METRICS_PUBLIC, DATABASE_URL, DELIVERY_LEASE_SECONDS,
PASSWORD_HASH_COST, GAZETTEER_WARM (see docs/deployment.md).`;

class UsageError extends Error {}

/** backup <file> and restore <file>: a copy of the SQLite database file (PostgreSQL has pg_dump and pg_restore). */
function sqliteFileCommand(command: "backup" | "restore", args: string[], config: Config): number {
  if (args.length !== 1) throw new UsageError(`usage: ${command} <file>`);
  if (config.databaseUrl) {
    const tool = command === "backup" ? "pg_dump" : "pg_restore";
    console.error(`${command}: the database is PostgreSQL (DATABASE_URL): use ${tool} (see docs/deployment.md, Backups)`);
    return 2;
  }
  const db = command === "backup" ? openDatabase(config.dbPath) : undefined;
  try {
    if (db) backupTo(db, args[0]);
    else restoreFrom(args[0], config.dbPath);
  } catch (error) {
    console.error(`${command} failed: ${error instanceof Error ? error.message : error}`);
    return 1;
  } finally {
    db?.$client.close();
  }
  console.log(db ? `backed up ${config.dbPath} to ${args[0]}` : `restored ${config.dbPath} from ${args[0]}`);
  return 0;
}

async function main(argv: string[]): Promise<number> {
  // Every file this process creates (database, WAL, key files, backups, saved index) is its owner's alone.
  process.umask(0o077);
  const [command = "serve", ...args] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(USAGE);
    return 0;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    console.log(`tripswitch ${VERSION}`);
    return 0;
  }
  const config = loadConfig();
  switch (command) {
    case "serve":
      if (args.some((a) => a !== "--demo")) throw new UsageError(`serve: unknown argument ${args.find((a) => a !== "--demo")}`);
      // The HTTP stack is loaded by the one command that serves (other commands start ~0.25 s sooner without it).
      return (await import("./serve")).serve(config, args.includes("--demo"));
    case "migrate": {
      if (args.length) throw new UsageError("migrate takes no arguments");
      if (config.databaseUrl) {
        // Under the advisory lock every instance takes: safe while instances start.
        const pg = openPostgres(config.databaseUrl, { max: 1 });
        try {
          const applied = await migratePostgres(pg.$client);
          console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
        } finally {
          await pg.$client.close();
        }
        return 0;
      }
      const db = openDatabase(config.dbPath);
      const applied = migrate(db);
      console.log(applied.length ? `applied ${applied.join(", ")}` : "database is up to date");
      db.$client.close();
      return 0;
    }
    case "seed-demo": {
      if (args.length) throw new UsageError("seed-demo takes no arguments");
      if (config.production) {
        console.error("seed-demo: refused with NODE_ENV=production (the demo accounts' password is public)");
        return 1;
      }
      const { services, close } = await open(config);
      if (!(await seedDemo(services))) {
        console.error("seed-demo: the database already has companies; demo data is loaded only into an empty database");
        await close();
        return 1;
      }
      console.log(`demo data loaded; log in with uid ${DEMO_LOGIN.uid} and password ${DEMO_LOGIN.pw}`);
      await close();
      return 0;
    }
    case "rates": {
      const [sub, netid, file, ...rest] = args;
      if (sub !== "import" || !netid || !file || rest.length) throw new UsageError("usage: rates import <netid> <file.json>");
      return importRates(config, netid, file);
    }
    case "fx": {
      const [sub, file, ...rest] = args;
      if (sub !== "import" || !file || rest.length) throw new UsageError("usage: fx import <file.csv|file.xml>");
      return importFx(config, file);
    }
    case "company": {
      if (args[0] === "set-integration") return setIntegration(config, args.slice(1));
      if (args[0] === "set-sandbox") return setSandbox(config, args.slice(1));
      const [sub, netid, planName, ...rest] = args;
      if (sub !== "set-plan" || !netid || !planName || rest.length) throw new UsageError("usage: company set-plan <netid> <FREE|PROFESSIONAL|ENTERPRISE>");
      const plan = parsePlan(planName);
      if (!plan) throw new UsageError(`unknown plan ${planName}: use FREE, PROFESSIONAL or ENTERPRISE`);
      const { services, close } = await open(config);
      const ok = await services.companies.setPlan(netid, plan);
      if (ok) services.audit.record({ type: "plan.changed", netid, detail: `plan ${plan} (CLI)` }, services.clock.now());
      await close();
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
      const { services, close } = await open(config);
      const ok = await services.users.remove(uid);
      await close();
      if (!ok) {
        console.error(`no user with uid ${uid}`);
        return 1;
      }
      console.log(`user ${uid} removed; its tokens no longer work`);
      return 0;
    }
    case "audit": {
      const filter: { type?: string; netid?: string; since?: number; limit: number } = { limit: 100 };
      for (let i = 0; i < args.length; i += 2) {
        const [flag, value] = [args[i], args[i + 1]];
        if (value === undefined) throw new UsageError(`audit: ${flag} needs a value`);
        if (flag === "--type") filter.type = value;
        else if (flag === "--netid") filter.netid = value;
        else if (flag === "--since" && /^\d+$/.test(value)) filter.since = Number(value);
        else if (flag === "--limit" && /^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 10000) filter.limit = Number(value);
        else throw new UsageError(`audit: bad option ${flag} ${value}`);
      }
      const { services, close } = await open(config);
      for (const event of await services.storage.audit.query(filter)) console.log(JSON.stringify(event));
      await close();
      return 0;
    }
    case "backup":
    case "restore":
      return sqliteFileCommand(command, args, config);
    case "fleet": {
      const words = [...args];
      let mode = "upsert";
      const at = words.findIndex((a) => a === "--mode" || a.startsWith("--mode="));
      if (at >= 0) {
        const joined = words[at].startsWith("--mode=");
        mode = joined ? words[at].slice("--mode=".length) : (words[at + 1] ?? "");
        words.splice(at, joined ? 1 : 2);
      }
      if (!(IMPORT_MODES as readonly string[]).includes(mode)) throw new UsageError(`fleet import: --mode must be one of ${IMPORT_MODES.join(", ")}`);
      const [sub, netid, file, ...rest] = words;
      const usage = "usage: fleet import <netid> <file.csv|file.json> [--mode upsert|replace|append]";
      if (sub !== "import" || !netid || !file || rest.length) throw new UsageError(usage);
      if (!/\.(csv|json)$/i.test(file)) throw new UsageError(`fleet import: ${file} must be a .csv or .json file`);
      const { services, close } = await open(config);
      try {
        return await fleetImportCommand(services, netid, file, mode as ImportMode);
      } finally {
        await close();
      }
    }
    case "import-sqlite": {
      if (args.length !== 1 || args[0].startsWith("-")) throw new UsageError("usage: import-sqlite <file.sqlite>");
      return importSqliteCommand(config, args[0]);
    }
    default:
      throw new UsageError(`unknown command: ${command}`);
  }
}

/** `rates import <netid> <file.json>`: replaces the company's rate card with the file's (checked as PUT /api/company/rates checks it). */
async function importRates(config: Config, netid: string, file: string): Promise<number> {
  const body: unknown = JSON.parse(await Bun.file(file).text());
  return withCompany(config, netid, 1, async (services, company) => {
    const card = await putRateCard(services.rates, company.netid, body);
    console.log(`${company.netid}: rate card in ${card.currency} saved (${card.routes.length} routes, ${card.extras.length} extras)`);
  });
}

/** `fx import <file>`: the ECB's reference rates file replaces the FX table, checked whole (nothing saved on a bad file). */
async function importFx(config: Config, file: string): Promise<number> {
  const source = Bun.file(file);
  if (!(await source.exists())) {
    console.error(`fx import: no file ${file}`);
    return 1;
  }
  const { services, close } = await open(config);
  try {
    const table = await importFxRates(services.fx, readEcbFile(await source.text()));
    console.log(`FX table of ${table.date} imported: ${Object.keys(table.rates).length} currencies per 1 EUR`);
    return 0;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    console.error(`fx import: ${file} refused, nothing saved:`);
    for (const e of err.errors) console.error(`  ${e.field}: ${e.message}`);
    return 1;
  } finally {
    await close();
  }
}

async function setSandbox(config: Config, args: string[]): Promise<number> {
  const [netid, mode, ...rest] = args;
  if (!netid || (mode !== "on" && mode !== "off") || rest.length) throw new UsageError("usage: company set-sandbox <netid> on|off");
  const { services, close } = await open(config);
  try {
    if (!(await services.sandboxes.setSandbox(netid, mode === "on"))) {
      console.error(`no company with netid ${netid}`);
      return 1;
    }
    services.audit.record({ type: "sandbox.changed", netid, detail: `sandbox ${mode} (CLI)` }, services.clock.now());
    console.log(mode === "on" ? `${netid} is now a sandbox: a simulated dispatcher answers its trips` : `${netid} is no longer a sandbox`);
    return 0;
  } finally {
    await close();
  }
}

/** The --policies value: JSON (`null` resets every policy); anything else is a usage error. */
function policiesFlag(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new UsageError(
      'company set-integration: --policies takes JSON, e.g. \'{"cancellation":[{"beforeMinutes":120,"percent":0},{"beforeMinutes":0,"percent":100}]}\'',
    );
  }
}

async function setIntegration(config: Config, args: string[]): Promise<number> {
  const [netid, ...flags] = args;
  if (!netid || netid.startsWith("--") || flags.length === 0 || flags.length % 2)
    throw new UsageError(
      "usage: company set-integration <netid> [--delivery-url URL] [--luggage native|notes] [--webhook-url URL] " +
      "[--webhook-format events|gnet] [--accept-trips-from anyone|partners] [--service-radius-km 1-500] " +
      "[--turnaround-minutes 0-720] [--minimum-notice-minutes 0-10080] [--max-trip-km 1-5000] [--policies JSON] [--display-currency CODE]");
  const input: {
    deliveryUrl?: string | null;
    luggage?: string;
    webhookUrl?: string | null;
    webhookFormat?: string;
    acceptTripsFrom?: string;
    serviceRadiusKm?: number | null;
    policies?: unknown;
    turnaroundMinutes?: number | null;
    minimumNoticeMinutes?: number | null;
    maxTripKm?: number | null;
    displayCurrency?: string | null;
  } = {};
  // A whole number as written (anything else is NaN: the service names the field); "" resets to the default.
  const whole = (value: string) => (value === "" ? null : /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN);
  for (let i = 0; i < flags.length; i += 2) {
    const [flag, value] = [flags[i], flags[i + 1]];
    if (flag === "--delivery-url") input.deliveryUrl = value === "" ? null : value;
    else if (flag === "--webhook-url") input.webhookUrl = value === "" ? null : value;
    else if (flag === "--luggage") input.luggage = value;
    else if (flag === "--webhook-format") input.webhookFormat = value;
    else if (flag === "--accept-trips-from") input.acceptTripsFrom = value;
    else if (flag === "--service-radius-km") input.serviceRadiusKm = /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
    else if (flag === "--policies") input.policies = policiesFlag(value);
    else if (flag === "--turnaround-minutes") input.turnaroundMinutes = whole(value);
    else if (flag === "--minimum-notice-minutes") input.minimumNoticeMinutes = whole(value);
    else if (flag === "--max-trip-km") input.maxTripKm = whole(value);
    // As written: the service refuses `eur` rather than upper-casing it (CONTRACT §21.3).
    else if (flag === "--display-currency") input.displayCurrency = value === "" ? null : value;
    else throw new UsageError(`company set-integration: unknown option ${flag}`);
  }
  return withCompany(config, netid, 2, async (services, company) => {
    const view = await updateIntegration(services.integration, company.netid, input);
    console.log(JSON.stringify(view, null, 2));
  });
}

/**
 * Runs `command` on the company `netid` names, over the configured database: 0 when it ran; 1 (with a line saying
 * so) when no company has that netid; `invalid` when it failed validation, each failing field on its own line.
 */
async function withCompany(
  config: Config,
  netid: string,
  invalid: number,
  command: (services: Services, company: Company) => Promise<void>,
): Promise<number> {
  const { services, close } = await open(config);
  try {
    const company = await services.companies.findByNetid(netid);
    if (!company) {
      console.error(`no company with netid ${netid}`);
      return 1;
    }
    await command(services, company);
    return 0;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    for (const e of error.errors) console.error(`${e.field}: ${e.message}`);
    return invalid;
  } finally {
    await close();
  }
}

/** The service over the configured database, for one CLI command; `close` saves nothing and stops everything. */
async function open(config: Config) {
  const backend = await openBackend(config, createLogger("silent"));
  return {
    services: backend.services,
    close: async () => {
      backend.services.fleetIndex.close();
      await backend.close();
    },
  };
}

main(process.argv.slice(2)).then(
  // Let the event loop drain rather than exit at once: responses still being flushed reach their clients.
  (code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), 2000).unref();
  },
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
