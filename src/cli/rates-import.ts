import type { Config } from "../config";
import { putRateCard } from "../../domain/usecases/rate-cards";
import { withCompany } from "./open";
import { UsageError } from "./usage";

/** `rates import <netid> <file.json>`, its arguments checked. */
export async function runRatesImport(config: Config, args: string[]): Promise<number> {
  const [sub, netid, file, ...rest] = args;
  if (sub !== "import" || !netid || !file || rest.length) throw new UsageError("usage: rates import <netid> <file.json>");
  return importRates(config, netid, file);
}

/** `rates import <netid> <file.json>`: replaces the company's rate card with the file's (checked as PUT /api/company/rates checks it). */
async function importRates(config: Config, netid: string, file: string): Promise<number> {
  const body: unknown = JSON.parse(await Bun.file(file).text());
  return withCompany(config, netid, 1, async (services, company) => {
    const card = await putRateCard(services.rates, company.netid, body);
    console.log(`${company.netid}: rate card in ${card.currency} saved (${card.routes.length} routes, ${card.extras.length} extras)`);
  });
}
