import type { Config } from "../config";
import { openBackend } from "../backend";
import { createLogger } from "../../adapters/logging";
import { ForbiddenError, ValidationError } from "../../domain/errors";
import type { Company } from "../../domain/company/registration";
import type { Services } from "../services";

/**
 * Runs `command` on the company `netid` names, over the configured database: 0 when it ran; 1 (with a line saying
 * so) when no company has that netid or it may not do this; `invalid` when it failed validation, each failing field on
 * its own line.
 */
export async function withCompany(
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
    // A company that may not do this (a requester-only company's rate card): the reason, exit 1.
    if (error instanceof ForbiddenError) {
      console.error(error.message);
      return 1;
    }
    if (!(error instanceof ValidationError)) throw error;
    for (const e of error.errors) console.error(`${e.field}: ${e.message}`);
    return invalid;
  } finally {
    await close();
  }
}

/** The service over the configured database, for one CLI command; `close` saves nothing and stops everything. */
export async function open(config: Config) {
  const backend = await openBackend(config, createLogger("silent"));
  return {
    services: backend.services,
    close: async () => {
      backend.services.fleetIndex.close();
      await backend.close();
    },
  };
}
