import { ForbiddenError } from "../errors";
import type { IntegrationRepository } from "../delivery/ports";
import type { Integration } from "../delivery/integration";
import { translateVehicleType } from "./partnership";
import type { PartnershipRepository } from "./ports";

/**
 * Admission: who a provider takes trips from (anyone, or with `acceptTripsFrom: partners` only its active
 * partners), and how it reads a partner's preferred vehicle type (its partner map).
 */

export interface TripAdmissionDeps {
  integrations: Pick<IntegrationRepository, "get">;
  partnerships: Pick<PartnershipRepository, "find" | "vehicleTypes">;
}

/**
 * Why a provider would refuse new trips and quote requests from this requester (403 NOT_PARTNER): its integration
 * says `acceptTripsFrom: partners` and the two are not active partners. Undefined when it takes them.
 */
export async function tripRefusal(deps: TripAdmissionDeps, requester: string, provider: string): Promise<ForbiddenError | undefined> {
  if (requester.toLowerCase() === provider.toLowerCase()) return undefined;
  if (!takesOnlyPartners(await deps.integrations.get(provider))) return undefined;
  const partnership = await deps.partnerships.find(requester, provider);
  if (partnership?.state === "active") return undefined;
  return new ForbiddenError(`${provider} takes trips only from its partners; ask it to partner with you first`, "NOT_PARTNER");
}

/** Whether a provider's integration says it takes trips only from its active partners (`acceptTripsFrom: partners`). */
export function takesOnlyPartners(integration: Pick<Integration, "acceptTripsFrom"> | undefined): boolean {
  return integration?.acceptTripsFrom === "partners";
}

/** The provider's vehicle type for a requester's preferred type, when the two are active partners and the provider mapped it. */
export async function providerVehicleType(
  deps: Pick<TripAdmissionDeps, "partnerships">,
  requester: string,
  provider: string,
  preferred: string | undefined,
): Promise<string | undefined> {
  if (preferred === undefined || preferred.trim() === "") return undefined;
  const partnership = await deps.partnerships.find(requester, provider);
  if (partnership?.state !== "active") return undefined;
  return translateVehicleType(await deps.partnerships.vehicleTypes(provider, requester), preferred);
}

/** Whom a network quote asks: on behalf of `requester`, only `providers` when named (lower-case), only partners when asked. */
export interface NetworkAsk {
  requester: string;
  providers: ReadonlySet<string> | undefined;
  partnersOnly: boolean;
  /** The requester's preferred vehicle type, which each provider's partner map may translate. */
  preferredVehicleType: string | undefined;
}

/** Per provider (by its place in the list asked about): whether it is admitted, and its own type for the preferred one. */
export interface ProviderAdmission {
  admitted: Uint8Array;
  preferredType: Array<string | undefined>;
}

/**
 * Which of `netids` a network quote may offer: never the requester itself, only those named, partners when asked,
 * and only providers that take the requester's trips (decided from `integrations`, read for all at once;
 * partnerships read only where one is needed). A provider's partner map of vehicle types applies as for a QUOTE
 * sent to it: its mapped type is the one it ranks first.
 */
export async function admitProviders(
  deps: Pick<TripAdmissionDeps, "partnerships">,
  ask: NetworkAsk,
  netids: readonly string[],
  integrations: ReadonlyMap<string, Pick<Integration, "acceptTripsFrom">>,
): Promise<ProviderAdmission> {
  const admitted = new Uint8Array(netids.length);
  const preferredType = new Array<string | undefined>(netids.length);
  const self = ask.requester.toLowerCase();
  const preferred = ask.preferredVehicleType;
  const wantsType = preferred !== undefined && preferred.trim() !== "";
  const pending: Array<Promise<void>> = [];
  for (let k = 0; k < netids.length; k++) {
    const netid = netids[k];
    const lower = netid.toLowerCase();
    if (lower === self || (ask.providers && !ask.providers.has(lower))) continue;
    const needsPartner = ask.partnersOnly || takesOnlyPartners(integrations.get(netid));
    if (!needsPartner && !wantsType) {
      admitted[k] = 1;
      continue;
    }
    pending.push(
      (async () => {
        if (needsPartner && (await deps.partnerships.find(ask.requester, netid))?.state !== "active") return;
        admitted[k] = 1;
        preferredType[k] = await providerVehicleType(deps, ask.requester, netid, preferred);
      })(),
    );
  }
  await Promise.all(pending);
  return { admitted, preferredType };
}
