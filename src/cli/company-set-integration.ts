import type { Config } from "../config";
import { updateIntegration } from "../../domain/usecases/integration";
import { withCompany } from "./open";
import { UsageError } from "./usage";

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

/** `company set-integration <netid> --flag value …`: prints the company's integration as it is saved. */
export async function runSetIntegration(config: Config, args: string[]): Promise<number> {
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
    // As written: the service refuses `eur` rather than upper-casing it (docs/fx.md#what-a-network-quote-shows).
    else if (flag === "--display-currency") input.displayCurrency = value === "" ? null : value;
    else throw new UsageError(`company set-integration: unknown option ${flag}`);
  }
  return withCompany(config, netid, 2, async (services, company) => {
    const view = await updateIntegration(services.integration, company.netid, input);
    console.log(JSON.stringify(view, null, 2));
  });
}
