import type { Config } from "../config";
import { importFxRates } from "../../domain/usecases/fx-rates";
import { readEcbFile } from "../../adapters/fx/ecb-file";
import { ValidationError } from "../../domain/errors";
import { open } from "./open";
import { UsageError } from "./usage";

/** `fx import <file.csv|file.xml>`, its arguments checked. */
export async function runFxImport(config: Config, args: string[]): Promise<number> {
  const [sub, file, ...rest] = args;
  if (sub !== "import" || !file || rest.length) throw new UsageError("usage: fx import <file.csv|file.xml>");
  return importFx(config, file);
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
