import type { Config } from "../config";
import { putRateCard } from "../../domain/usecases/rate-cards";
import { withCompany } from "./open";
import { UsageError } from "./usage";
import { BoundedFileError, readBounded } from "./bounded-file";
import { RATE_CARD_MAX_BYTES } from "../../domain/pricing/card-checks";

/** `rates import <netid> <file.json>`, its arguments checked. */
export async function runRatesImport(config: Config, args: string[]): Promise<number> {
  const [sub, netid, file, ...rest] = args;
  if (sub !== "import" || !netid || !file || rest.length) throw new UsageError("usage: rates import <netid> <file.json>");
  return importRates(config, netid, file);
}

/**
 * `rates import <netid> <file.json>`: replaces the company's rate card with the file's (checked as PUT
 * /api/company/rates checks it). A file past RATE_CARD_MAX_BYTES is refused before it is read (exit 1, nothing saved).
 */
async function importRates(config: Config, netid: string, file: string): Promise<number> {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(await readBounded(file, RATE_CARD_MAX_BYTES, "a rate card")));
  } catch (error) {
    if (!(error instanceof BoundedFileError) && !(error instanceof SyntaxError)) throw error;
    console.error(`rates import: ${error instanceof SyntaxError ? `${file} is not JSON (${error.message})` : error.message}; nothing saved`);
    return 1;
  }
  return withCompany(config, netid, 1, async (services, company) => {
    const card = await putRateCard(services.rates, company.netid, body);
    console.log(`${company.netid}: rate card in ${card.currency} saved (${card.routes.length} routes, ${card.extras.length} extras)`);
  });
}
