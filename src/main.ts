#!/usr/bin/env bun
import { ConfigError, loadConfig, type Config } from "./config";
import { VERSION } from "./version";
import { USAGE, UsageError } from "./cli/usage";
import { runServe } from "./cli/serve";
import { runMigrate } from "./cli/migrate";
import { runSeedDemo } from "./cli/seed-demo";
import { runSetPlan } from "./cli/company-set-plan";
import { runSetSandbox } from "./cli/company-set-sandbox";
import { runSetIntegration } from "./cli/company-set-integration";
import { runUserRemove } from "./cli/user-remove";
import { runAudit } from "./cli/audit";
import { sqliteFileCommand } from "./cli/backup-restore";
import { runFleetImport } from "./cli/fleet-import";
import { runRatesImport } from "./cli/rates-import";
import { runFxImport } from "./cli/fx-import";
import { runImportSqlite } from "./cli/import-sqlite";

/** Parses the command and runs it (one file per command under cli/): its exit status. */
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
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!run) throw new UsageError(`unknown command: ${command}`);
  return run(config, args);
}

/** Each command of the CLI and the file under src/cli/ that runs it. */
const COMMANDS: Record<string, (config: Config, args: string[]) => number | Promise<number>> = {
  serve: runServe,
  migrate: runMigrate,
  "seed-demo": runSeedDemo,
  rates: runRatesImport,
  fx: runFxImport,
  company: (config, args) => {
    if (args[0] === "set-integration") return runSetIntegration(config, args.slice(1));
    if (args[0] === "set-sandbox") return runSetSandbox(config, args.slice(1));
    return runSetPlan(config, args);
  },
  user: runUserRemove,
  audit: runAudit,
  backup: (config, args) => sqliteFileCommand("backup", args, config),
  restore: (config, args) => sqliteFileCommand("restore", args, config),
  fleet: runFleetImport,
  "import-sqlite": runImportSqlite,
};

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
