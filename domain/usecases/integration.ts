import { ValidationError, type FieldError } from "../errors";
import { validateIntegrationPatch, type Integration } from "../delivery/integration";
import type { IntegrationRepository, OutboundTargets } from "../delivery/ports";
import type { AuditLog, Clock } from "../ports";
import { DEFAULT_SERVICE_RADIUS_KM } from "../trips/service-area";

export interface IntegrationDeps {
  integrations: IntegrationRepository;
  clock: Clock;
  /** A new webhook signing secret. */
  newSecret: () => string;
  audit: AuditLog;
  /** Refuses URLs that reach private or special addresses; checked on save (and again at each send). */
  targets: OutboundTargets;
}

/** What a company sees of its settings: never the delivery password, the webhook secret only when just created. */
export interface IntegrationView {
  deliveryUrl: string | null;
  deliveryAuth: { username: string } | null;
  luggage: Integration["luggage"];
  webhookUrl: string | null;
  webhookFormat: Integration["webhookFormat"];
  acceptTripsFrom: Integration["acceptTripsFrom"];
  serviceRadiusKm: number;
  webhookSecretSet: boolean;
  webhookSecret?: string;
}

export function emptyIntegration(netid: string): Integration {
  return { netid, deliveryUrl: null, deliveryAuth: null, luggage: "notes", webhookUrl: null, webhookSecret: null, webhookFormat: "events", acceptTripsFrom: "anyone", serviceRadiusKm: DEFAULT_SERVICE_RADIUS_KM };
}

export function viewOf(i: Integration, revealSecret = false): IntegrationView {
  return {
    deliveryUrl: i.deliveryUrl,
    deliveryAuth: i.deliveryAuth ? { username: i.deliveryAuth.username } : null,
    luggage: i.luggage,
    webhookUrl: i.webhookUrl,
    webhookFormat: i.webhookFormat,
    acceptTripsFrom: i.acceptTripsFrom,
    serviceRadiusKm: i.serviceRadiusKm ?? DEFAULT_SERVICE_RADIUS_KM,
    webhookSecretSet: i.webhookSecret !== null,
    ...(revealSecret && i.webhookSecret ? { webhookSecret: i.webhookSecret } : {}),
  };
}

/** The company's settings, defaults when it never set any. */
export async function getIntegration(deps: IntegrationDeps, netid: string): Promise<IntegrationView> {
  return viewOf((await deps.integrations.get(netid)) ?? emptyIntegration(netid));
}

/**
 * Update integration settings: validate, check that each new URL stays out of the service's own network,
 * merge (absent keeps, null clears), and create the webhook signing secret the first time a webhook URL is
 * set — that response is the only one that shows it.
 */
export async function updateIntegration(deps: IntegrationDeps, netid: string, input: Parameters<typeof validateIntegrationPatch>[0]): Promise<IntegrationView> {
  const checked = validateIntegrationPatch(input);
  if (!checked.ok) throw new ValidationError(checked.errors);
  const unreachable = await targetProblems(deps.targets, checked.patch);
  if (unreachable.length) throw new ValidationError(unreachable);
  const current = (await deps.integrations.get(netid)) ?? emptyIntegration(netid);
  const next: Integration = { ...current, ...checked.patch };
  const created = next.webhookUrl !== null && next.webhookSecret === null;
  if (created) next.webhookSecret = deps.newSecret();
  await deps.integrations.save(next, deps.clock.now());
  const changed = Object.keys(checked.patch).join(", ") || "nothing";
  deps.audit.record({ type: "integration.changed", netid, detail: `set ${changed}${created ? "; webhook secret created" : ""}` }, deps.clock.now());
  return viewOf(next, created);
}

/** Replace the webhook signing secret; the new one is shown once, in this answer. */
export async function rotateWebhookSecret(deps: IntegrationDeps, netid: string): Promise<IntegrationView> {
  const current = (await deps.integrations.get(netid)) ?? emptyIntegration(netid);
  const next = { ...current, webhookSecret: deps.newSecret() };
  await deps.integrations.save(next, deps.clock.now());
  deps.audit.record({ type: "integration.changed", netid, detail: "webhook secret rotated" }, deps.clock.now());
  return viewOf(next, true);
}

async function targetProblems(targets: OutboundTargets, patch: { deliveryUrl?: string | null; webhookUrl?: string | null }): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const field of ["deliveryUrl", "webhookUrl"] as const) {
    const url = patch[field];
    if (!url) continue;
    const problem = await targets.problem(url);
    if (problem) errors.push({ field, message: problem });
  }
  return errors;
}
