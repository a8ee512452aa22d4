import { SingleBar, Presets } from "cli-progress";
import type { Config } from "../config";
import type { Services } from "../services";
import { FleetFileError, readFleetFile } from "../../adapters/fleet-file/read";
import { FleetImportError, importFleet } from "../../domain/usecases/manage-fleet";
import { ConflictError, ForbiddenError, ValidationError } from "../../domain/errors";
import { IMPORT_MODES, type ImportMode } from "../../domain/fleet/import-plan";
import { open } from "./open";
import { UsageError } from "./usage";

/** Row errors printed before the summary; the rest are counted. */
const MAX_PRINTED_ERRORS = 200;

/** `fleet import <netid> <file.csv|file.json> [--mode upsert|replace|append]`, its arguments checked. */
export async function runFleetImport(config: Config, args: string[]): Promise<number> {
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

/**
 * `fleet import <netid> <file>`: reads the file, imports all rows or none, reports each invalid row by
 * line (CSV) or index (JSON). Exit 0 imported, 1 rows invalid or unknown company (nothing imported),
 * 2 for an unreadable file (bad argument).
 */
export async function fleetImportCommand(services: Services, netid: string, path: string, mode: ImportMode = "upsert"): Promise<number> {
  const company = await services.companies.findByNetid(netid);
  if (!company) {
    console.error(`no company with netid ${netid}`);
    return 1;
  }
  let file;
  try {
    file = readFleetFile(path);
  } catch (error) {
    if (error instanceof FleetFileError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }

  const bar = process.stdout.isTTY ? new SingleBar({ format: "{phase} [{bar}] {value}/{total} rows", hideCursor: true }, Presets.shades_classic) : undefined;
  let phase = "";
  try {
    const saved = await importFleet(services.manageFleet, company.netid, file.rows, (next, done, total) => {
      if (!bar) return;
      if (next !== phase) {
        if (phase) bar.stop();
        phase = next;
        bar.start(total, 0, { phase: next === "validate" ? "checking" : "saving  " });
      }
      bar.update(done, { phase: next === "validate" ? "checking" : "saving  " });
    }, mode);
    bar?.stop();
    const imported = saved.created.length + saved.updated.length + saved.unchanged;
    console.log(
      `imported ${imported} fleet entries for ${company.netid} (${mode}): ${saved.created.length} created, ${saved.updated.length} updated, ` +
        `${saved.deleted.length} deleted, ${saved.unchanged} unchanged`,
    );
    return 0;
  } catch (error) {
    bar?.stop();
    if (error instanceof FleetImportError) {
      for (const e of error.rows.slice(0, MAX_PRINTED_ERRORS)) {
        const line = file.lineOf(e.row);
        console.error(`${line !== undefined ? `line ${line}` : `entry [${e.row}]`}: ${e.field}: ${e.message}`);
      }
      if (error.rows.length > MAX_PRINTED_ERRORS) console.error(`… and ${error.rows.length - MAX_PRINTED_ERRORS} more errors`);
      console.error(`${error.message}`);
      return 1;
    }
    if (error instanceof ValidationError || error instanceof ForbiddenError || error instanceof ConflictError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
}
