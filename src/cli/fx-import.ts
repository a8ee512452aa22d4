import type { Config } from "../config";
import { importFxRates } from "../../domain/usecases/fx-rates";
import { MAX_FX_FILE_BYTES, readEcbFile } from "../../adapters/fx/ecb-file";
import { ValidationError } from "../../domain/errors";
import { open } from "./open";
import { UsageError } from "./usage";
import { BoundedFileError, readBounded } from "./bounded-file";

/** `fx import <file.csv|file.xml> [--force]`, its arguments checked. */
export async function runFxImport(config: Config, args: string[]): Promise<number> {
  const force = args.includes("--force");
  const [sub, file, ...rest] = args.filter((a) => a !== "--force");
  if (sub !== "import" || !file || rest.length) throw new UsageError("usage: fx import <file.csv|file.xml> [--force]");
  return importFx(config, file, force);
}

/**
 * `fx import <file>`: the ECB's reference rates file replaces the FX table, checked whole (nothing saved on a bad
 * file). The file is read as a stream and refused past MAX_FX_FILE_BYTES (by its size, before reading, when it has
 * one); a table older than the one in use or with a rate out of range only with `--force` (docs/fx.md#the-fx-table).
 */
async function importFx(config: Config, file: string, force: boolean): Promise<number> {
  let text: string;
  try {
    text = new TextDecoder().decode(await readBounded(file, MAX_FX_FILE_BYTES, "an FX file"));
  } catch (err) {
    if (!(err instanceof BoundedFileError)) throw err;
    console.error(`fx import: ${file} refused, nothing saved:`);
    console.error(`  file: ${err.message}`);
    return 1;
  }
  const { services, close } = await open(config);
  try {
    const table = await importFxRates(services.fx, readEcbFile(text), { force });
    console.log(`FX table of ${table.date} imported: ${Object.keys(table.rates).length} currencies per 1 EUR`);
    return 0;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    console.error(`fx import: ${file} refused, nothing saved:`);
    for (const e of err.errors) console.error(`  ${e.field}: ${e.message}`);
    if (err.code === "FX_FILE_DOUBTFUL") console.error("fx import --force imports it all the same (a correction, a rate that is right).");
    return 1;
  } finally {
    await close();
  }
}
